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
//!
//! ## Front door
//!
//! [`backup`] is the one interface over the schemes and curves; its four steps are the whole
//! protocol:
//!
//! | who | call | gives |
//! |---|---|---|
//! | escrow | [`escrow_keygen`]`(rng, scheme, curve, cs03_params)` | [`EscrowPublicKey`], [`EscrowSecretKey`] |
//! | key holder | [`backup()`]`(rng, &escrow_pk, &x, label)` | [`Backup`] (public share `X = x·G`, proof) |
//! | verifier | [`verify`]`(&backup, rng)` | [`Verified`] (the ciphertext the escrow stores) |
//! | escrow | [`recover`]`(&escrow_sk, &stored)` | `x`, after checking `x·G = X` |
//!
//! Malformed input is [`BackupError::Malformed`]; a well-formed backup whose proof fails is
//! [`BackupError::Invalid`]. The scheme modules' own errors name a failed proof
//! `ProofRejected` ([`cs03::Cs03Error::ProofRejected`], [`tz21::Tz21Error::ProofRejected`]):
//! there is nobody to blame, only a backup to refuse.
//!
//! ```
//! use quorate_verenc::backup::{self, CurveId, Scheme};
//! use rand_core::OsRng;
//!
//! // The escrow (TZ21 DKGitH on secp256k1: no safe primes, so the example is quick).
//! let (escrow_pk, escrow_sk) = backup::escrow_keygen(&mut OsRng, Scheme::Dkgith, CurveId::Secp256k1, None)?;
//! // The key holder backs up its share x (32 big-endian bytes, nonzero, below the order).
//! let mut x = [0u8; 32];
//! x[31] = 42;
//! let b = backup::backup(&mut OsRng, &escrow_pk, &x, b"wallet 7, share 2")?;
//! // Anyone can verify; the verifier hands the escrow the ciphertext to store.
//! let verified = backup::verify(&b, &mut OsRng)?;
//! let stored = backup::Backup { ciphertext: verified.escrow_ciphertext, ..b.clone() };
//! // A changed label no longer verifies.
//! let forged = backup::Backup { label: b"wallet 8".to_vec(), ..b };
//! assert!(matches!(backup::verify(&forged, &mut OsRng), Err(backup::BackupError::Invalid(_))));
//! // The escrow recovers x, checked against X.
//! assert_eq!(*backup::recover(&escrow_sk, &stored)?, x);
//! # Ok::<(), quorate_verenc::backup::BackupError>(())
//! ```
// `unsafe` only in `tz21::p256_openssl::precompute_mult` (one FFI call; see Cargo.toml).
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod backup;
pub mod cs03;
pub mod group;
pub mod tz21;

pub use backup::{
    backup, escrow_keygen, recover, verify, Backup, BackupError, CurveId, EscrowPublicKey,
    EscrowSecretKey, Scheme, Verified,
};
