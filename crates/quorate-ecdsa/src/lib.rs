//! # quorate-ecdsa
//!
//! Threshold ECDSA on secp256k1 for any `t` of `n` parties, from OT-based multiplication:
//!
//! * [`ot`]: base OT (Simplest OT with a proof of knowledge) and OT extension with the
//!   revised KOS consistency check;
//! * [`mul`]: DKLs19's two-party multiplication (random receiver input, two sender inputs,
//!   with its consistency check);
//! * [`dkg`]: dealerless key generation (Feldman commitments, Schnorr proofs,
//!   commit-then-reveal) with the pairwise OT setup, and proactive refresh;
//! * [`sign`]: DKLs23's three-round signing, producing low-S signatures with recovery id;
//! * [`blame`]: the blame round (a wrong round-3 share) and the dispute round (inconsistent
//!   round-2 broadcasts), run only on failure, so that every abort names its culprit;
//! * [`bip32`]: non-hardened child-key derivation;
//! * [`simulate`]: in-process runs with byte counting, for demos and benchmarks;
//! * [`netsim`]: the same rounds over `quorate-net`'s simulated LAN/WAN (DKLs19 §VI settings);
//! * [`notes`]: papers, parameters and departures.
//!
//! All protocols are sans-I/O round functions: each consumes its state by value and returns
//! the next state and the messages to send. Secrets are wiped on drop; every abort caused by
//! a counterparty names it ([`EcdsaError::culprits`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod bip32;
pub mod blame;
pub mod curve;
pub mod dkg;
pub mod error;
pub mod keyshare;
pub mod mul;
pub mod netsim;
pub mod notes;
pub mod ot;
pub mod sign;
pub mod simulate;

pub use error::{EcdsaError, Result};
pub use keyshare::KeyShare;
