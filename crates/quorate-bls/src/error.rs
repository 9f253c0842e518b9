//! Errors of the hot/cold BLS system.
//!
//! Faults by a numbered party (a hot or cold party `i`) carry a [`Blame`] naming it
//! ([`BlsError::Aborted`]). Faults by the client or the refresh dealer, who are not
//! numbered parties, have their own variants ([`BlsError::InvalidRegistration`],
//! [`BlsError::InvalidRefresh`], [`BlsError::ClientEquivocated`]) so a hot party can refuse
//! the payload and report who sent it. Parties that are merely out of step (they hold
//! another record state) get [`BlsError::StateMismatch`], never blame.

use crate::refresh::RefreshEquivocation;
use quorate_core::error::Culprits;
use quorate_core::{Blame, DecodeError, ParamError, PartyId};
use thiserror::Error;

/// Everything that can go wrong in `quorate-bls`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
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
    /// A proof or check failed and nobody can be blamed for it (for example a batch that
    /// fails although every member passes alone, which happens with probability `2^-128`).
    #[error("proof rejected: {0}")]
    ProofRejected(&'static str),
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
    /// Partial signatures or Π_EKS proofs were made under another record state (epoch,
    /// `com_T`, `vs`) than the verifier's, and too few of the rest remain. The senders are
    /// out of step, for example after a client dealt two different refreshes; they are
    /// named here but not blamed.
    #[error("parties {parties:?} hold another record state than this one (epoch {epoch})")]
    StateMismatch {
        /// The senders whose record digest differs from the verifier's.
        parties: Vec<PartyId>,
        /// The verifier's epoch.
        epoch: u64,
    },
    /// The client signed two different refreshes of the same record and epoch: the
    /// evidence verifies under the client key alone. No numbered party is to blame.
    #[error("the client dealt two different refreshes for the same epoch")]
    ClientEquivocated(Box<RefreshEquivocation>),
    /// A pending refresh cannot be committed yet: too few hot parties confirmed it.
    #[error("refresh confirmed by {confirmed} hot parties, {needed} needed")]
    RefreshNotConfirmed {
        /// Distinct parties (this one included) that confirmed the same refresh.
        confirmed: usize,
        /// The threshold `t`.
        needed: usize,
    },
    /// A pending refresh cannot be committed yet: the record maintainer's accepted record
    /// (the check of every `Δvs_j`) was not received
    /// ([`crate::PendingRefresh::accept_record`]).
    #[error("refresh not yet accepted by the record maintainer")]
    RefreshNotAccepted,
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
            | BlsError::ProofRejected(_)
            | BlsError::InvalidRegistration { .. }
            | BlsError::InvalidRefresh { .. }
            | BlsError::StateMismatch { .. }
            | BlsError::ClientEquivocated(_)
            | BlsError::RefreshNotConfirmed { .. }
            | BlsError::RefreshNotAccepted
            | BlsError::InvalidSetup { .. } => &[],
        }
    }
}
