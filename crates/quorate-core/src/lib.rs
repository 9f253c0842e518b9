//! # quorate-core
//!
//! The pieces every quorate protocol shares, kept free of any particular curve
//! (except the shared BLS12-381 helpers in [`bls12_381`]):
//!
//! * [`party`]: non-zero party identifiers and validated `(t, n)` threshold parameters;
//! * [`poly`]: secret polynomials over any [`ff::PrimeField`] (zeroized on drop);
//! * [`shamir`] and [`lagrange`]: Shamir sharing and Lagrange coefficients at 0 or at any x;
//! * [`vss`]: Feldman and Pedersen verifiable secret sharing over any [`group::Group`];
//! * [`transcript`]: a `merlin` extension trait that binds protocol name, version, session id
//!   and every public input into Fiat–Shamir challenges;
//! * [`error`]: typed parameter and decoding errors (defined in [`party`] and [`decode`]) and
//!   the [`error::Blame`] record that names culprits (identifiable abort);
//! * [`encoding`]: a length-checked reader/writer for canonical wire formats;
//! * [`hash`]: `expand_message_xmd` (RFC 9380 §5.3.1) and wide reduction into a prime field;
//! * [`secret`]: best-effort wiping of field elements that do not implement `Zeroize`;
//! * [`bls12_381`]: the BLS12-381 helpers shared by `quorate-bls` and `quorate-mixnet`
//!   (multi-scalar multiplication, pairing-product checks, point/scalar codecs, hash-to-G1).
//!
//! Every other crate of the workspace builds on these. The protocol crates (`quorate-bls`,
//! `quorate-cosi`, `quorate-ecdsa`, `quorate-verenc`, `quorate-mixnet`) and
//! `quorate-paillier` add their curve- or group-specific encodings and error enums, which wrap
//! the ones here; `quorate-net` (the simulator), `quorate-eval`, `quorate-node` and the
//! `quorate` binary use its party ids, errors and encodings.
//!
//! # Example: share a secret, check the shares against a Feldman commitment, reconstruct
//!
//! ```
//! use blstrs::{G1Projective, Scalar};
//! use ff::Field;
//! use group::Group;
//! use quorate_core::{shamir, vss::FeldmanCommitment, ThresholdParams};
//! use rand_chacha::ChaCha20Rng;
//! use rand_core::SeedableRng;
//!
//! let mut rng = ChaCha20Rng::seed_from_u64(7);
//! let params = ThresholdParams::new(3, 5).unwrap();
//! let secret = Scalar::random(&mut rng);
//! let (poly, shares) = shamir::split(secret, params, &mut rng);
//!
//! // Each party checks its share against the dealer's public commitment.
//! let g = G1Projective::generator();
//! let commitment = FeldmanCommitment::commit(&poly, g);
//! for share in &shares {
//!     let x = shamir::eval_point::<Scalar>(share.id());
//!     assert!(commitment.verify_share(&x, share.value(), g));
//! }
//! assert_eq!(commitment.constant(), g * secret);
//!
//! // Any t shares recover the secret; fewer are refused with a typed error.
//! assert_eq!(shamir::reconstruct(params, &shares[1..4]).unwrap(), secret);
//! assert!(shamir::reconstruct(params, &shares[..2]).is_err());
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bls12_381;
pub mod decode;
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
