//! Errors of the CoSi system.
//!
//! **One numbering.** Every error names a witness by its [`PartyId`]: the witness at 0-based
//! roster position `i` (its bit in a [`crate::Mask`], its slot in the [`crate::Roster`]) is
//! witness `i + 1` ([`witness_id`]; `PartyId::position` goes back). Positions appear only in
//! the APIs that address roster slots and mask bits.
//!
//! * Registration faults ([`CosiError::InvalidKey`], [`CosiError::InvalidProofOfPossession`],
//!   [`CosiError::DuplicateKey`]) name the witnesses of the bad entries.
//! * Protocol faults by witnesses are [`CosiError::Aborted`] and carry a [`Blame`] whose
//!   culprits are the same [`PartyId`]s, read with [`Culprits::culprits`]. Blame assumes
//!   authenticated channels: the transport tells an aggregator which child sent a message.
//! * Signature verification failures are [`CosiError::InvalidSignature`] with a
//!   [`VerifyFailure`] saying which rule was broken; malformed bytes are
//!   [`CosiError::Decode`] with the core [`DecodeError`] variants.

use core::num::NonZeroU16;
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
    /// Witness `witness`'s roster entry carries an unusable public key (bad encoding, small
    /// order, identity, torsion component).
    #[error("roster entry of witness {witness}: {source}")]
    InvalidKey {
        /// The witness whose entry is bad.
        witness: PartyId,
        /// What was wrong with the key.
        source: DecodeError,
    },
    /// The proofs of possession of these roster entries do not verify (rogue-key defence).
    #[error("witness {}: proof of possession does not verify", list(.witnesses))]
    InvalidProofOfPossession {
        /// The witnesses whose proofs fail, increasing.
        witnesses: Vec<PartyId>,
    },
    /// Witness `witness`'s roster entry is a bare public key: every roster entry must carry
    /// its proof of possession (a list of bare keys would admit a rogue key `a·B − ΣA_others`).
    #[error(
        "roster entry of witness {witness} has no proof of possession: rosters must list \
         96-byte entries (public key ‖ proof of possession), bare public keys are refused"
    )]
    MissingProofOfPossession {
        /// The witness of the bare entry.
        witness: PartyId,
    },
    /// Two roster entries carry the same public key.
    #[error("witnesses {first} and {second} carry the same public key")]
    DuplicateKey {
        /// The first occurrence.
        first: PartyId,
        /// The repetition.
        second: PartyId,
    },
    /// A secret key does not belong to the roster entry it was paired with.
    #[error("secret key does not match the public key of witness {witness}")]
    KeyMismatch {
        /// The witness whose roster key was expected.
        witness: PartyId,
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
    #[error("witness {witness} already used this session; refusing to reuse nonces")]
    SessionReused {
        /// The refusing witness.
        witness: PartyId,
    },
    /// Witness `witness` declined to cosign: its validator rejected the message
    /// ([`crate::Validator`]). An honest choice, not blame.
    #[error("witness {witness} declined to cosign: {reason}")]
    Declined {
        /// The declining witness.
        witness: PartyId,
        /// The validator's reason.
        reason: String,
    },
    /// Witness (or aggregator) `witness` refuses a
    /// [`crate::Mode::Legacy`] session: it was not built with `new_insecure_legacy`, and a
    /// leader must not be able to choose the mode that concurrent sessions break.
    #[error("witness {witness} refuses the insecure legacy mode")]
    LegacyRefused {
        /// The refusing witness.
        witness: PartyId,
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
    /// Blames the witness at roster position `position` for failing `check`.
    pub fn blame(position: usize, check: &'static str) -> Self {
        CosiError::Aborted(Blame::one(witness_id(position), check))
    }

    /// Blames the witnesses at roster positions `positions` for failing `check`.
    pub fn blame_many(positions: &[usize], check: &'static str) -> Self {
        CosiError::Aborted(Blame::many(
            positions.iter().map(|&i| witness_id(i)).collect(),
            check,
        ))
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

/// The id of the witness at 0-based roster position `position`: `position + 1`. Rosters hold
/// at most [`crate::Roster::MAX_WITNESSES`] entries, so every valid position has its own id;
/// a position beyond that saturates at 65535 rather than panic.
pub fn witness_id(position: usize) -> PartyId {
    let v = u16::try_from(position.saturating_add(1)).unwrap_or(u16::MAX);
    PartyId::from(NonZeroU16::new(v).unwrap_or(NonZeroU16::MAX))
}

/// `P1, P4, P7`: witness ids for messages.
fn list(witnesses: &[PartyId]) -> String {
    witnesses
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn culprits_are_one_based_party_ids() {
        let e = CosiError::blame_many(&[4, 0, 4], "x");
        assert_eq!(
            e.culprits().iter().map(|p| p.get()).collect::<Vec<_>>(),
            vec![1, 5]
        );
        assert_eq!(
            e.culprits()
                .iter()
                .map(|p| p.position())
                .collect::<Vec<_>>(),
            vec![0, 4]
        );
        assert_eq!(witness_id(65533).get(), 65534);
        assert_eq!(witness_id(usize::MAX).get(), u16::MAX);
        assert!(CosiError::InvalidSignature(VerifyFailure::Equation)
            .culprits()
            .is_empty());
    }
}
