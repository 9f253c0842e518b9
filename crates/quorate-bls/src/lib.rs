//! # quorate-bls: hot/cold threshold BLS with key-share proofs
//!
//! A client's BLS key `sk` is split `t`-of-`n`. Share `x_i` is held as a *hot* share
//! `hx_i = x_i + k_i` by an online hot party and a pad `k_i` derived by an offline cold
//! party, so neither alone learns `x_i`. Signatures are standard min-sig BLS
//! (`BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_`: signatures in G1, keys in G2). Hot shares
//! are committed with KZG (`com_T`) and proactively refreshed; Π_DL and Π_EKS let an
//! auditor check that cold and hot parties still hold their material. See [`notes`] for
//! the math and where each step comes from.
//!
//! ## The whole protocol
//! * **Setup:** a powers-of-tau ceremony, verified into a [`Crs`]
//!   ([`Crs::from_transcript`], or [`kzg::ceremony::run_in_process`]).
//! * **Register:** each [`ColdParty`] publishes a checked key ([`VerifiedColdKeys`]); the
//!   [`Client`] deals a [`Registration`]; each [`HotParty::register`] checks its payload
//!   (its own opening, `K_i`, the client's authorisation); users of the whole record
//!   (combiner, auditor) run [`GroupPublic::validate`] (PoP, SCRAPE).
//! * **Sign:** [`ColdParty::partial_sign`] → [`HotParty::partial_sign`] → [`combine`].
//! * **Refresh:** [`Client::refresh`] → the combiner's [`GroupPublic::refreshed`] (every
//!   check, once) and each [`HotParty::refresh`] (its own checks, a [`PendingRefresh`]) →
//!   exchange [`RefreshConfirmation`]s, [`PendingRefresh::accept_record`] the combiner's
//!   record → [`HotParty::commit`].
//! * **Audit:** [`ColdParty::prove`] / [`HotParty::prove`], checked with
//!   [`proofs::batch_verify_cold`] / [`proofs::batch_verify_hot`].
//!
//! Errors are [`BlsError`]; a misbehaving party is named in [`BlsError::Aborted`], read with
//! [`quorate_core::error::Culprits::culprits`].
//!
//! ## Layout
//! * The parties and their state: [`client`], [`cold`], [`hot`]; the public record:
//!   [`group`].
//! * One module per phase, each with its messages next to their codecs (`messages.rs`) and
//!   one module per step: [`register`] (`cold`, `client`, `hot`), [`sign`] (`round1`,
//!   `round2`, `combine`), [`refresh`] (`deal`, `check`, `commit`). The Π_DL/Π_EKS audit
//!   proofs are in [`proofs`], the KZG commitments and the CRS ceremony in [`kzg`].
//! * Building blocks: [`ciphersuite`] (standard BLS); the curve helpers it shares with the
//!   mixnet live in `quorate_core::bls12_381` (`wire` point and scalar encodings, `msm`,
//!   `pairing`, `hash`); the math and its sources: [`notes`].
//! * Fault injection for tests (`refresh::faults`) exists only with the cargo feature
//!   `test-faults`.
//!
//! ```
//! use quorate_bls::{combine, Client, ColdParty, HotParty, VerifiedColdKeys};
//! use quorate_bls::kzg::ceremony;
//! use quorate_core::{transcript::SessionId, PartyId, ThresholdParams};
//! use rand_core::OsRng;
//!
//! # fn main() -> Result<(), quorate_bls::BlsError> {
//! let mut rng = OsRng;
//! let params = ThresholdParams::new(2, 3)?;
//! let crs = ceremony::run_in_process(3, 2, &SessionId::new(b"doc".to_vec()))?;
//!
//! // Register: cold keys, the client's deal, every hot party's checks.
//! let mut cold: Vec<ColdParty> =
//!     PartyId::range(3).map(|i| ColdParty::register(i, &mut rng)).collect();
//! let regs: Vec<_> = cold.iter().map(|c| c.registration(&mut rng)).collect();
//! let client = Client::generate(&mut rng);
//! let reg = client.register(&crs, params, &VerifiedColdKeys::verify(&regs, &mut rng)?, &mut rng)?;
//! let mut hot = Vec::new();
//! for (c, payload) in cold.iter_mut().zip(&reg.payloads) {
//!     let pad = c.add_client(&client.public_key(), &client.proof_of_possession())?;
//!     hot.push(HotParty::register(
//!         &crs, c.index(), &reg.public, &reg.authorization, payload, &pad, &mut rng,
//!     )?);
//! }
//! reg.public.validate(&crs, &mut rng)?; // the record's users check it as a whole
//! let mut public = reg.public;
//!
//! // Refresh: the combiner checks all of it once; each hot party checks its own part,
//! // echoes, and commits with t confirmations and the combiner's accepted record.
//! let refresh = client.refresh(&crs, &public, &mut rng)?;
//! let next = public.refreshed(&crs, &refresh.public, &mut rng)?;
//! let mut pending = Vec::new();
//! for (h, share) in hot.iter().zip(&refresh.shares) {
//!     pending.push(h.refresh(&crs, &refresh.public, share, &mut rng)?);
//! }
//! let confirmations: Vec<_> = pending.iter().map(|p| p.confirmation()).collect();
//! for (h, mut p) in hot.iter_mut().zip(pending) {
//!     for c in &confirmations {
//!         p.add_confirmation(c)?;
//!     }
//!     p.accept_record(&next)?;
//!     h.commit(p)?;
//! }
//! public = next.into_record();
//!
//! // Sign with parties 1 and 3, combine, verify as any BLS verifier would.
//! let msg = b"hello";
//! let mut partials = Vec::new();
//! for i in [0, 2] {
//!     let cold_partial = cold[i].partial_sign(public.public_key(), msg)?;
//!     partials.push(hot[i].partial_sign(msg, &cold_partial)?);
//! }
//! let sig = combine(&crs, &public, msg, &partials, &mut rng)?;
//! assert!(client.public_key().verify(msg, &sig));
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod ciphersuite;
pub mod client;
pub mod cold;
pub mod error;
pub mod group;
pub mod hot;
pub mod kzg;
pub mod notes;
pub mod proofs;
pub mod refresh;
pub mod register;
pub mod sign;

pub use ciphersuite::{PublicKey, SecretKey, Signature, CIPHERSUITE_ID};
pub use client::Client;
pub use cold::ColdParty;
pub use error::BlsError;
pub use group::{AcceptedRecord, GroupPublic, PartyRecord};
pub use hot::HotParty;
pub use kzg::Crs;
pub use proofs::{ColdProof, HotProof, ProofContext};
pub use refresh::{
    PendingRefresh, Refresh, RefreshConfirmation, RefreshEquivocation, RefreshPublic, RefreshShare,
};
pub use register::{
    ColdPublicKey, ColdRegistration, HotRegistration, PadCommitment, Registration,
    VerifiedColdKeys, DST_REGISTER,
};
pub use sign::{combine, ColdPartial, PartialSignature};
