//! # quorate-verenc: verifiable encryption of discrete logs
//!
//! Encrypt a secret scalar `x` (for example a threshold key share) to an escrow's public
//! key, with a proof that the plaintext is the discrete log of a public point `X = x·G`.
//!
//! | module | contents |
//! |---|---|
//! | [`backup`] | verifiable key-share backup: one interface over the schemes and curves (the CLI's `quorate verenc`) |
//! | [`group`] | the prime-order groups every scheme is generic over (P-256, secp256k1, BLS12-381 G1, Ed25519) |
//! | [`cs03`] | Camenisch–Shoup (ePrint 2002/161) over Paillier-style groups mod n², with the auxiliary-modulus range proof |
//! | [`tz21`] | Takahashi–Zaverucha (ePrint 2021/1704) DKGitH and RDKGitH: hashed ElGamal with MPC-in-the-head |
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod backup;
pub mod cs03;
pub mod group;
pub mod tz21;
