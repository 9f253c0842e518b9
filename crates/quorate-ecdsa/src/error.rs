//! Errors of the threshold-ECDSA protocols.
//!
//! Every error caused by a counterparty names it: [`EcdsaError::culprits`] returns the parties
//! to exclude. Checks that fail inside the two-party multiplication or the OT extension also
//! *ban* the counterparty in the caller's [`crate::KeyShare`]: its OT correlations are wiped
//! and must be re-established (a new pairwise setup or a refresh) before it can sign again,
//! because every failed check can leak about one bit of the correlation (selective abort).

use quorate_core::error::Culprits;
use quorate_core::{Blame, DecodeError, ParamError, PartyId};
use thiserror::Error;

/// Everything that can go wrong in key generation, refresh, signing or verification.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EcdsaError {
    /// The caller asked for something impossible (bad threshold, unknown party, …).
    #[error("invalid parameters: {0}")]
    Param(#[from] ParamError),
    /// A message from `from` could not be decoded.
    #[error("malformed message from {from}: {source}")]
    Malformed {
        /// The sender.
        from: PartyId,
        /// What was wrong with the bytes.
        source: DecodeError,
    },
    /// A protocol check failed; the blame record names the culprits.
    #[error("protocol aborted: {0}")]
    Aborted(Blame),
    /// A message expected from `from` is missing, duplicated or addressed wrongly.
    #[error("message from {from} missing, duplicated or misaddressed")]
    MissingMessage {
        /// The party whose message is missing.
        from: PartyId,
    },
    /// The counterparty was banned after a failed consistency check and its OT correlations
    /// were discarded; run a new pairwise setup (or a refresh) before using it again.
    #[error("counterparty {counterparty} is banned; its OT correlations must be re-established")]
    Banned {
        /// The banned party.
        counterparty: PartyId,
    },
    /// A check failed and nobody can be blamed for it: a local inconsistency (own share
    /// against the public key), or a resolution round that found nobody at fault and says
    /// what to do next. The text names the check.
    #[error("check failed with nobody to blame: {0}")]
    ProofRejected(&'static str),
    /// No signature, and nobody to blame. Not returned by [`crate::sign::combine`] (a
    /// signature that does not verify leads to the blame round, which names the culprits).
    /// It remains only where no party can be at fault except with negligible probability:
    /// `R = Σ R_j` is the identity in round 3 (every `R_j` was committed before any was
    /// opened); the blame round or the dispute finds nobody at fault (every proof verifies
    /// although the signature failed, which needs `Σ u_j = 0`; or two echo digests differ
    /// without an equivocation, which needs a hash collision or a forged signature); and a
    /// [`crate::sign::Signature`] with a zero scalar converted with
    /// [`crate::sign::Signature::to_k256`].
    #[error("no valid signature, and no party at fault")]
    InvalidSignature,
}

impl EcdsaError {
    /// Shorthand for an abort blaming one party.
    pub(crate) fn blame(culprit: PartyId, check: &'static str) -> Self {
        EcdsaError::Aborted(Blame::one(culprit, check))
    }

    /// The parties responsible (empty when the error is not attributable).
    pub fn culprits(&self) -> &[PartyId] {
        match self {
            EcdsaError::Aborted(b) => b.culprits(),
            EcdsaError::Malformed { from, .. } | EcdsaError::MissingMessage { from } => {
                core::slice::from_ref(from)
            }
            EcdsaError::Banned { counterparty } => core::slice::from_ref(counterparty),
            EcdsaError::Param(_) | EcdsaError::ProofRejected(_) | EcdsaError::InvalidSignature => {
                &[]
            }
        }
    }

    /// The name of the failed check, for aborts.
    pub fn check(&self) -> Option<&'static str> {
        match self {
            EcdsaError::Aborted(b) => Some(b.check()),
            _ => None,
        }
    }
}

impl Culprits for EcdsaError {
    fn culprits(&self) -> &[PartyId] {
        EcdsaError::culprits(self)
    }
}

/// Result alias.
pub type Result<T> = core::result::Result<T, EcdsaError>;
