//! Errors of the CoSi system.
//!
//! * Registration faults ([`CosiError::InvalidKey`], [`CosiError::InvalidProofOfPossession`],
//!   [`CosiError::DuplicateKey`]) name the 0-based roster positions of the bad entries.
//! * Protocol faults by witnesses are [`CosiError::Aborted`] and carry a [`Blame`] whose
//!   culprits are [`PartyId`]s: witness at roster index `i` is `PartyId(i + 1)` (see
//!   [`party_of`] and [`CosiError::culprit_indices`]). Blame assumes authenticated channels:
//!   the transport tells an aggregator which child sent a message.
//! * Signature verification failures are [`CosiError::InvalidSignature`] with a
//!   [`VerifyFailure`] saying which rule was broken; malformed bytes are
//!   [`CosiError::Decode`] with the core [`DecodeError`] variants.

use quorate_core::error::Culprits;
use quorate_core::{Blame, DecodeError, ParamError, PartyId};
use thiserror::Error;

/// Why a well-formed signature was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum VerifyFailure {
    /// The mask has no participant (never accepted, whatever the policy).
    #[error("no witness participated")]
    NoParticipants,
    /// The mask does not satisfy the verifier's policy.
    #[error("the participation mask does not satisfy the policy")]
    PolicyNotSatisfied,
    /// The mask was made for a roster of a different size.
    #[error("mask covers {got} witnesses but the roster has {expected}")]
    MaskLength {
        /// Roster size.
        expected: usize,
        /// Mask size.
        got: usize,
    },
    /// `R` has small order (rejected like `ed25519_dalek::VerifyingKey::verify_strict`).
    #[error("the commitment R has small order")]
    SmallOrderNonce,
    /// The participants' aggregate key `A'` has small order.
    #[error("the aggregate key of the participants has small order")]
    SmallOrderKey,
    /// `[s]B ≠ R + [c]A'`.
    #[error("the verification equation does not hold")]
    Equation,
}

/// Everything that can go wrong in `quorate-cosi`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CosiError {
    /// The caller supplied impossible parameters (sizes, indices, tree shapes).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Untrusted bytes were malformed.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// Roster entry `index` carries an unusable public key (bad encoding, small order,
    /// identity, torsion component).
    #[error("roster entry {index}: {source}")]
    InvalidKey {
        /// 0-based roster position.
        index: usize,
        /// What was wrong with the key.
        source: DecodeError,
    },
    /// The proofs of possession of these roster entries do not verify (rogue-key defence).
    #[error("roster entries {indices:?}: proof of possession does not verify")]
    InvalidProofOfPossession {
        /// 0-based roster positions, increasing.
        indices: Vec<usize>,
    },
    /// Roster entry `index` is a bare public key: every roster entry must carry its proof of
    /// possession (a list of bare keys would admit a rogue key `a·B − ΣA_others`).
    #[error(
        "roster entry {index} has no proof of possession: rosters must list 96-byte entries \
         (public key ‖ proof of possession), bare public keys are refused"
    )]
    MissingProofOfPossession {
        /// 0-based roster position.
        index: usize,
    },
    /// Two roster entries carry the same public key.
    #[error("roster entries {first} and {second} carry the same public key")]
    DuplicateKey {
        /// The first occurrence.
        first: usize,
        /// The repetition.
        second: usize,
    },
    /// A secret key does not belong to the roster entry it was paired with.
    #[error("secret key does not match the public key of roster entry {index}")]
    KeyMismatch {
        /// 0-based roster position.
        index: usize,
    },
    /// A policy is malformed (bad `k`, unknown witness, repeated member, too deep).
    #[error("invalid policy: {reason}")]
    InvalidPolicy {
        /// What is wrong.
        reason: &'static str,
    },
    /// One or more witnesses misbehaved (identifiable abort).
    #[error("aborted: {0}")]
    Aborted(Blame),
    /// A witness was asked to commit or respond in a session it already used; it refuses,
    /// because answering twice could reuse a nonce.
    #[error("witness {index} already used this session; refusing to reuse nonces")]
    SessionReused {
        /// 0-based roster position of the refusing witness.
        index: usize,
    },
    /// The witness at roster position `index` declined to cosign: its validator rejected
    /// the message ([`crate::Validator`]). An honest choice, not blame.
    #[error("witness {index} declined to cosign: {reason}")]
    Declined {
        /// 0-based roster position of the declining witness.
        index: usize,
        /// The validator's reason.
        reason: String,
    },
    /// The witness (or aggregator) at roster position `index` refuses a
    /// [`crate::Mode::Legacy`] session: it was not built with `new_insecure_legacy`, and a
    /// leader must not be able to choose the mode that concurrent sessions break.
    #[error("witness {index} refuses the insecure legacy mode")]
    LegacyRefused {
        /// 0-based roster position of the refusing node.
        index: usize,
    },
    /// A challenge from the leader is inconsistent with what this node committed or knows;
    /// the node refuses to respond (and its nonces are destroyed).
    #[error("challenge rejected: {check}")]
    InvalidChallenge {
        /// The failed check.
        check: &'static str,
    },
    /// A protocol state was used with a message or object it does not belong to.
    #[error("misuse: {check}")]
    Misuse {
        /// The failed check.
        check: &'static str,
    },
    /// A check failed that names nobody (for example a combined signature that does not
    /// verify although no single contribution can be blamed). Not a caller error.
    #[error("proof rejected: {0}")]
    ProofRejected(&'static str),
    /// A signature was rejected by verification.
    #[error("signature rejected: {0}")]
    InvalidSignature(VerifyFailure),
    /// Not enough live witnesses remain to satisfy the policy.
    #[error("policy cannot be satisfied: only {live} of {n} witnesses are live")]
    PolicyUnreachable {
        /// Live witnesses (not absent, not excluded after failing).
        live: usize,
        /// Roster size.
        n: usize,
    },
    /// The in-process driver restarted too often.
    #[error("gave up after {attempts} attempts; last failure: {last}")]
    TooManyAttempts {
        /// Attempts made.
        attempts: usize,
        /// The blame of the last failed attempt.
        last: Blame,
    },
}

impl CosiError {
    /// Blames one witness (0-based roster index) for failing `check`.
    pub fn blame(index: usize, check: &'static str) -> Self {
        CosiError::Aborted(Blame::many(party_of(index).into_iter().collect(), check))
    }

    /// Blames several witnesses (0-based roster indices) for failing `check`.
    pub fn blame_many(indices: &[usize], check: &'static str) -> Self {
        CosiError::Aborted(Blame::many(
            indices.iter().filter_map(|&i| party_of(i)).collect(),
            check,
        ))
    }

    /// The blamed witnesses as 0-based roster indices (empty if not attributable).
    pub fn culprit_indices(&self) -> Vec<usize> {
        self.culprits().iter().map(|p| p.position()).collect()
    }
}

impl Culprits for CosiError {
    fn culprits(&self) -> &[PartyId] {
        match self {
            CosiError::Aborted(b) | CosiError::TooManyAttempts { last: b, .. } => b.culprits(),
            CosiError::Param(_)
            | CosiError::Decode(_)
            | CosiError::InvalidKey { .. }
            | CosiError::InvalidProofOfPossession { .. }
            | CosiError::MissingProofOfPossession { .. }
            | CosiError::DuplicateKey { .. }
            | CosiError::KeyMismatch { .. }
            | CosiError::InvalidPolicy { .. }
            | CosiError::SessionReused { .. }
            | CosiError::LegacyRefused { .. }
            | CosiError::Declined { .. }
            | CosiError::InvalidChallenge { .. }
            | CosiError::Misuse { .. }
            | CosiError::ProofRejected(_)
            | CosiError::InvalidSignature(_)
            | CosiError::PolicyUnreachable { .. } => &[],
        }
    }
}

impl From<VerifyFailure> for CosiError {
    fn from(v: VerifyFailure) -> Self {
        CosiError::InvalidSignature(v)
    }
}

/// The [`PartyId`] of the witness at 0-based roster `index` (`index + 1`), or `None` when
/// `index ≥ 65535` (rosters are limited to [`crate::Roster::MAX_WITNESSES`], so never for a
/// valid index).
pub fn party_of(index: usize) -> Option<PartyId> {
    u16::try_from(index.checked_add(1)?)
        .ok()
        .and_then(|v| PartyId::new(v).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn culprits_are_one_based_party_ids() {
        let e = CosiError::blame_many(&[4, 0, 4], "x");
        assert_eq!(e.culprit_indices(), vec![0, 4]);
        assert_eq!(
            e.culprits().iter().map(|p| p.get()).collect::<Vec<_>>(),
            vec![1, 5]
        );
        assert!(party_of(65534).is_some());
        assert!(party_of(65535).is_none());
        assert!(CosiError::InvalidSignature(VerifyFailure::Equation)
            .culprits()
            .is_empty());
    }
}
