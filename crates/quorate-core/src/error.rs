//! Errors shared by all protocols.
//!
//! * [`ParamError`]: the caller asked for something impossible (bad threshold, duplicate ids).
//! * [`DecodeError`]: untrusted bytes were malformed. Decoders never panic; they return this.
//! * [`Blame`]: a protocol check failed and these parties are responsible (identifiable
//!   abort). Protocol crates embed a `Blame` in their own error enums and expose
//!   `culprits()`.

use crate::party::PartyId;
use core::fmt;
use thiserror::Error;

/// Invalid parameters supplied by the caller.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ParamError {
    /// Party index zero is reserved for the secret.
    #[error("party index 0 is not allowed")]
    ZeroIndex,
    /// A party appears twice.
    #[error("party {id} appears more than once")]
    DuplicateIndex {
        /// The repeated party.
        id: PartyId,
    },
    /// A party outside `1..=n`.
    #[error("party {id} is not one of the {n} parties")]
    UnknownParty {
        /// The party.
        id: PartyId,
        /// The number of parties.
        n: u16,
    },
    /// `t < 2`.
    #[error("threshold t = {t} is below 2")]
    ThresholdTooSmall {
        /// The requested threshold.
        t: u16,
    },
    /// `t > n`.
    #[error("threshold t = {t} exceeds the number of parties n = {n}")]
    ThresholdExceedsParties {
        /// The requested threshold.
        t: u16,
        /// The number of parties.
        n: u16,
    },
    /// Fewer than `t` shares were supplied.
    #[error("{got} shares supplied but {needed} are needed")]
    NotEnoughShares {
        /// The threshold.
        needed: u16,
        /// What was supplied.
        got: usize,
    },
    /// Two evaluation points coincide (Lagrange interpolation impossible).
    #[error("evaluation points are not distinct")]
    RepeatedEvaluationPoint,
    /// Vectors whose lengths must agree do not.
    #[error("length mismatch for {what}: expected {expected}, got {got}")]
    LengthMismatch {
        /// What was being compared.
        what: &'static str,
        /// The expected length.
        expected: usize,
        /// The length received.
        got: usize,
    },
    /// Anything else the caller got wrong.
    #[error("invalid parameter: {0}")]
    Invalid(&'static str),
}

/// Malformed untrusted input.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input is shorter or longer than the format allows.
    #[error("{what}: expected {expected} bytes, got {got}")]
    WrongLength {
        /// The item being decoded.
        what: &'static str,
        /// The length the format requires.
        expected: usize,
        /// The length received.
        got: usize,
    },
    /// Bytes remain after a complete message was read.
    #[error("{what}: {extra} trailing bytes")]
    TrailingBytes {
        /// The item being decoded.
        what: &'static str,
        /// How many bytes were left over.
        extra: usize,
    },
    /// A scalar or integer is not in canonical (reduced) form.
    #[error("{what}: not a canonical encoding")]
    NonCanonical {
        /// The item being decoded.
        what: &'static str,
    },
    /// A point is not on the curve, or its encoding flags are wrong.
    #[error("{what}: not a valid curve point encoding")]
    InvalidPoint {
        /// The item being decoded.
        what: &'static str,
    },
    /// A point is on the curve but outside the prime-order subgroup.
    #[error("{what}: point is not in the prime-order subgroup")]
    NotInSubgroup {
        /// The item being decoded.
        what: &'static str,
    },
    /// The identity point where a non-identity element is required.
    #[error("{what}: identity element is not allowed here")]
    Identity {
        /// The item being decoded.
        what: &'static str,
    },
    /// A zero scalar where a non-zero one is required.
    #[error("{what}: zero is not allowed here")]
    Zero {
        /// The item being decoded.
        what: &'static str,
    },
    /// An unknown message tag or format version.
    #[error("{what}: unsupported tag or version {found}")]
    UnknownVersion {
        /// The item being decoded.
        what: &'static str,
        /// The byte found.
        found: u8,
    },
    /// A field is out of its permitted range.
    #[error("{what}: {reason}")]
    InvalidValue {
        /// The item being decoded.
        what: &'static str,
        /// Why it was rejected.
        reason: &'static str,
    },
}

/// The parties held responsible for a failed check, and what failed.
///
/// This is the identifiable-abort record: every protocol error caused by a misbehaving
/// party carries one, so a caller can exclude exactly those parties and retry.
#[derive(Clone, PartialEq, Eq)]
pub struct Blame {
    culprits: Vec<PartyId>,
    check: &'static str,
}

impl Blame {
    /// Blames one party for failing `check`.
    pub fn one(culprit: PartyId, check: &'static str) -> Self {
        Blame {
            culprits: vec![culprit],
            check,
        }
    }

    /// Blames several parties (sorted, deduplicated) for failing `check`.
    pub fn many(mut culprits: Vec<PartyId>, check: &'static str) -> Self {
        culprits.sort_unstable();
        culprits.dedup();
        Blame { culprits, check }
    }

    /// The parties responsible, in increasing order.
    pub fn culprits(&self) -> &[PartyId] {
        &self.culprits
    }

    /// A short name of the check that failed.
    pub fn check(&self) -> &'static str {
        self.check
    }
}

impl fmt::Debug for Blame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Blame({:?} failed {})", self.culprits, self.check)
    }
}

impl fmt::Display for Blame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed by ", self.check)?;
        for (i, c) in self.culprits.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// Implemented by protocol error types so callers can read blame uniformly.
pub trait Culprits {
    /// The parties blamed by this error; empty when the error is not attributable.
    fn culprits(&self) -> &[PartyId];
}
