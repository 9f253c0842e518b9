//! Errors shared by all protocols.
//!
//! * [`ParamError`]: the caller asked for something impossible (bad threshold, duplicate ids).
//!   It is defined in [`crate::party`], next to the party ids and thresholds it is about.
//! * [`DecodeError`]: untrusted bytes were malformed. Decoders never panic; they return this.
//!   It is defined in [`crate::decode`], a leaf module every decoder can import.
//! * [`Blame`]: a protocol check failed and these parties are responsible (identifiable
//!   abort). Protocol crates embed a `Blame` in their own error enums and expose
//!   `culprits()`.

pub use crate::decode::DecodeError;
pub use crate::party::ParamError;
use crate::party::PartyId;
use core::fmt;

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
