//! # quorate-core
//!
//! The pieces every quorate protocol shares, kept free of any particular curve:
//!
//! * [`party`]: non-zero party identifiers and validated `(t, n)` threshold parameters;
//! * [`poly`]: secret polynomials over any [`ff::PrimeField`] (zeroized on drop);
//! * [`shamir`] and [`lagrange`]: Shamir sharing and Lagrange coefficients at 0 or at any x;
//! * [`vss`]: Feldman and Pedersen verifiable secret sharing over any [`group::Group`];
//! * [`transcript`]: a `merlin` extension trait that binds protocol name, version, session id
//!   and every public input into Fiat–Shamir challenges;
//! * [`error`]: typed parameter and decoding errors and the [`error::Blame`] record that names
//!   culprits (identifiable abort);
//! * [`encoding`]: a length-checked reader/writer for canonical wire formats;
//! * [`hash`]: `expand_message_xmd` (RFC 9380 §5.3.1) and wide reduction into a prime field;
//! * [`secret`]: best-effort wiping of field elements that do not implement `Zeroize`.
//!
//! Protocol crates (`quorate-bls`, and later cosi, ecdsa, verenc, mixnet) build on these and
//! add their own curve-specific encodings and error enums, which wrap the ones here.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod encoding;
pub mod error;
pub mod hash;
pub mod lagrange;
pub mod party;
pub mod poly;
pub mod secret;
pub mod shamir;
pub mod transcript;
pub mod vss;

pub use error::{Blame, DecodeError, ParamError};
pub use party::{PartyId, ThresholdParams};
