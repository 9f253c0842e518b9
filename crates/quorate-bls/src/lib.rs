//! # quorate-bls: hot/cold threshold BLS with key-share proofs
//!
//! The ciphersuite is `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_` (min-sig:
//! signatures in G1, public keys in G2). See [`notes`] for the math, the design choices
//! and where each step comes from.
//!
//! The parties and their modules:
//! * client: [`client::Client`] (ClientRegister, and dealing signed refreshes with
//!   [`client::Client::refresh`]);
//! * cold party: [`cold::ColdParty`] (ColdRegister, pad and its commitment, cold
//!   partial, Π_DL);
//! * hot party: [`hot::HotParty`] (checked registration, checked refresh, hot partial,
//!   Π_EKS);
//! * combiner and auditors: [`group::GroupPublic`], [`tsign::combine`], [`proofs`];
//! * setup: [`kzg::ceremony`] (powers of tau without a trusted dealer).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod ciphersuite;
pub mod client;
pub mod cold;
pub mod error;
pub mod group;
pub mod hot;
pub mod kzg;
pub mod msm;
pub mod notes;
pub mod pairing;
pub mod proofs;
pub mod tsign;
pub mod wire;

pub use ciphersuite::{PublicKey, SecretKey, Signature, CIPHERSUITE_ID};
pub use client::{Client, HotRegistration, Refresh, RefreshShare, Registration, VerifiedColdKeys};
pub use cold::{ColdPartial, ColdParty, ColdPublicKey, ColdRegistration, PadCommitment};
pub use error::BlsError;
pub use group::{GroupPublic, RefreshConfirmation, RefreshEquivocation, RefreshPublic};
pub use hot::{HotParty, PendingRefresh};
pub use kzg::Crs;
pub use proofs::{ColdProof, HotProof, ProofContext};
pub use tsign::{combine, PartialSignature};
