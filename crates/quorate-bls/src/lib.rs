//! # quorate-bls: hot/cold threshold BLS with key-share proofs
//!
//! The ciphersuite is `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_` (min-sig:
//! signatures in G1, public keys in G2). See the `notes` module for the math.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod ciphersuite;
pub mod error;
pub mod kzg;
pub mod msm;
pub mod pairing;
pub mod wire;
