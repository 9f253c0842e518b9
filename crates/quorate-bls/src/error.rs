//! Errors of the hot/cold BLS system.
//!
//! Faults by a numbered party (a hot or cold party `i`) carry a [`Blame`] naming it.
//! Faults by the client or the refresh dealer, who are not numbered parties, have their own
//! variants ([`BlsError::InvalidRegistration`], [`BlsError::InvalidRefresh`]) so a hot party
//! can refuse the payload and report who sent it.

use quorate_core::error::Culprits;
use quorate_core::{Blame, DecodeError, ParamError, PartyId};
use thiserror::Error;

/// Everything that can go wrong in `quorate-bls`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BlsError {
    /// The caller supplied impossible parameters (threshold, indices, lengths).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Untrusted bytes were malformed.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// One or more numbered parties misbehaved (identifiable abort).
    #[error("aborted: {0}")]
    Aborted(Blame),
    /// The client's registration payload failed a check; the hot party refuses it.
    #[error("registration payload rejected: {check}")]
    InvalidRegistration {
        /// The failed check.
        check: &'static str,
    },
    /// A refresh payload failed a check; nothing was changed.
    #[error("refresh rejected: {check}")]
    InvalidRefresh {
        /// The failed check.
        check: &'static str,
    },
    /// A proof did not verify against the stated public inputs.
    #[error("proof rejected: {check}")]
    InvalidProof {
        /// The failed check.
        check: &'static str,
    },
    /// A partial signature comes from another refresh epoch than the combiner's record
    /// (the parties are out of step; nobody is blamed).
    #[error(
        "partial signature of party {index} is for epoch {got}, the record is at epoch {expected}"
    )]
    EpochMismatch {
        /// The sender.
        index: PartyId,
        /// The combiner's epoch.
        expected: u64,
        /// The partial's epoch.
        got: u64,
    },
    /// A KZG setup (powers of tau) or its ceremony transcript failed a check.
    #[error("KZG setup rejected: {check} (contribution {contribution:?})")]
    InvalidSetup {
        /// The failed check.
        check: &'static str,
        /// The index of the faulty ceremony contribution, when one is to blame.
        contribution: Option<usize>,
    },
}

impl BlsError {
    /// Shorthand for blaming one party.
    pub fn blame(culprit: PartyId, check: &'static str) -> Self {
        BlsError::Aborted(Blame::one(culprit, check))
    }
}

impl Culprits for BlsError {
    fn culprits(&self) -> &[PartyId] {
        match self {
            BlsError::Aborted(b) => b.culprits(),
            BlsError::Param(_)
            | BlsError::Decode(_)
            | BlsError::InvalidRegistration { .. }
            | BlsError::InvalidRefresh { .. }
            | BlsError::InvalidProof { .. }
            | BlsError::EpochMismatch { .. }
            | BlsError::InvalidSetup { .. } => &[],
        }
    }
}
