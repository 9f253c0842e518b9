//! Errors of the threshold-ECDSA protocols.
//!
//! Every error caused by a counterparty names it: [`EcdsaError::culprits`] returns the parties
//! to exclude. Checks that fail inside the two-party multiplication or the OT extension also
//! *ban* the counterparty in the key share's shared pairwise store
//! ([`EcdsaError::AbortedAndBanned`]): its OT correlations are wiped for every copy of the
//! share and must be re-established by a refresh before it can sign again, because every
//! failed check can leak about one bit of the correlation (selective abort).

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
    /// A consistency check on the OT-based multiplication with the culprits failed. Each such
    /// failure can leak about one bit of the pairwise OT correlation, so the culprits are now
    /// **banned** in the key share's pairwise store, for every clone and derived child,
    /// until a refresh. This is a state change to persist: store the share again
    /// ([`crate::KeyShare::to_bytes`]) before its next use ([`EcdsaError::newly_banned`]).
    #[error("protocol aborted, culprits banned until a refresh: {0}")]
    AbortedAndBanned(Blame),
    /// A party signed two different broadcasts in one key generation or refresh (it sent
    /// different values to different parties). The evidence is transferable: anyone with
    /// the roster of identity keys can check it
    /// ([`crate::keygen::EquivocationEvidence::verify`]). No share is output.
    #[error("equivocation in key generation or refresh by {}", .0.culprit())]
    Equivocated(Box<crate::evidence::EquivocationEvidence>),
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
    /// A stored key share (or pending refresh) could not be decoded or failed its checks.
    #[error("invalid stored key share: {0}")]
    InvalidShare(DecodeError),
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
    /// A restored secret share (from an escrow backup) is not the discrete log of the
    /// party's public share: `x_j·G ≠ T_j` ([`crate::keygen::RestoredShare::new`]). The
    /// backup, the recovered file or the epoch's public data is wrong; nobody is blamed.
    #[error("restored secret share of party {party} does not match its public share T_j")]
    RestoredShareMismatch {
        /// The party whose share was being restored.
        party: PartyId,
    },
}

impl EcdsaError {
    /// Shorthand for an abort blaming one party.
    pub(crate) fn blame(culprit: PartyId, check: &'static str) -> Self {
        EcdsaError::Aborted(Blame::one(culprit, check))
    }

    /// The parties responsible (empty when the error is not attributable).
    pub fn culprits(&self) -> &[PartyId] {
        match self {
            EcdsaError::Aborted(b) | EcdsaError::AbortedAndBanned(b) => b.culprits(),
            EcdsaError::Malformed { from, .. } | EcdsaError::MissingMessage { from } => {
                core::slice::from_ref(from)
            }
            EcdsaError::Banned { counterparty } => core::slice::from_ref(counterparty),
            EcdsaError::Equivocated(e) => core::slice::from_ref(e.culprit_ref()),
            EcdsaError::Param(_)
            | EcdsaError::InvalidShare(_)
            | EcdsaError::ProofRejected(_)
            | EcdsaError::InvalidSignature
            | EcdsaError::RestoredShareMismatch { .. } => &[],
        }
    }

    /// The name of the failed check, for aborts.
    pub fn check(&self) -> Option<&'static str> {
        match self {
            EcdsaError::Aborted(b) | EcdsaError::AbortedAndBanned(b) => Some(b.check()),
            EcdsaError::Equivocated(_) => Some(crate::evidence::CHECK_EQUIVOCATION),
            _ => None,
        }
    }

    /// The counterparties this error banned (see [`EcdsaError::AbortedAndBanned`]): when
    /// non-empty, persist the key share before using it again.
    pub fn newly_banned(&self) -> &[PartyId] {
        match self {
            EcdsaError::AbortedAndBanned(b) => b.culprits(),
            _ => &[],
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
