//! Party identifiers and threshold parameters.
//!
//! A [`PartyId`] is a non-zero 16-bit index. Zero is reserved because most schemes evaluate
//! the sharing polynomial at the party's index and keep the secret at `x = 0`.

use crate::decode::DecodeError;
use core::fmt;
use core::num::NonZeroU16;
use serde::{Deserialize, Serialize};
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

/// A non-zero party index (1-based). Decoding rejects zero.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u16", into = "u16")]
pub struct PartyId(NonZeroU16);

impl PartyId {
    /// Builds an id, rejecting zero.
    pub fn new(index: u16) -> Result<Self, ParamError> {
        NonZeroU16::new(index)
            .map(PartyId)
            .ok_or(ParamError::ZeroIndex)
    }

    /// The index as a plain integer (never zero).
    pub fn get(self) -> u16 {
        self.0.get()
    }

    /// The index as a zero-based position (`index - 1`), convenient for vectors of parties.
    pub fn position(self) -> usize {
        usize::from(self.0.get()) - 1
    }

    /// Parties `1..=n`.
    pub fn range(n: u16) -> impl Iterator<Item = PartyId> {
        (1..=n).filter_map(|i| PartyId::new(i).ok())
    }

    /// Canonical 2-byte big-endian encoding.
    pub fn to_bytes(self) -> [u8; 2] {
        self.0.get().to_be_bytes()
    }

    /// Decodes the 2-byte big-endian encoding, rejecting zero.
    pub fn from_bytes(bytes: [u8; 2]) -> Result<Self, DecodeError> {
        PartyId::new(u16::from_be_bytes(bytes)).map_err(|_| DecodeError::InvalidValue {
            what: "party id",
            reason: "zero is not a party index",
        })
    }
}

impl TryFrom<u16> for PartyId {
    type Error = ParamError;
    fn try_from(v: u16) -> Result<Self, ParamError> {
        PartyId::new(v)
    }
}

impl From<NonZeroU16> for PartyId {
    fn from(v: NonZeroU16) -> Self {
        PartyId(v)
    }
}

impl From<PartyId> for u16 {
    fn from(p: PartyId) -> u16 {
        p.get()
    }
}

impl fmt::Debug for PartyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "P{}", self.0)
    }
}

impl fmt::Display for PartyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "P{}", self.0)
    }
}

/// Validated threshold parameters: `2 <= t <= n`, where any `t` of the `n` parties suffice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThresholdParams {
    t: u16,
    n: u16,
}

impl ThresholdParams {
    /// Checks `2 <= t <= n`.
    pub fn new(t: u16, n: u16) -> Result<Self, ParamError> {
        if t < 2 {
            return Err(ParamError::ThresholdTooSmall { t });
        }
        if t > n {
            return Err(ParamError::ThresholdExceedsParties { t, n });
        }
        Ok(ThresholdParams { t, n })
    }

    /// The threshold `t` (shares needed to act).
    pub fn t(&self) -> u16 {
        self.t
    }

    /// The number of parties `n`.
    pub fn n(&self) -> u16 {
        self.n
    }

    /// All party ids `1..=n`.
    pub fn parties(&self) -> impl Iterator<Item = PartyId> {
        PartyId::range(self.n)
    }

    /// Whether `id` is one of this configuration's parties.
    pub fn contains(&self, id: PartyId) -> bool {
        id.get() <= self.n
    }

    /// Checks that `ids` is a usable signing set: at least `t` entries, all known and distinct.
    pub fn check_quorum(&self, ids: &[PartyId]) -> Result<(), ParamError> {
        if ids.len() < usize::from(self.t) {
            return Err(ParamError::NotEnoughShares {
                needed: self.t,
                got: ids.len(),
            });
        }
        for id in ids {
            if !self.contains(*id) {
                return Err(ParamError::UnknownParty { id: *id, n: self.n });
            }
        }
        check_distinct(ids)
    }
}

/// Rejects a list containing the same party twice.
pub fn check_distinct(ids: &[PartyId]) -> Result<(), ParamError> {
    let mut sorted: Vec<PartyId> = ids.to_vec();
    sorted.sort_unstable();
    for w in sorted.windows(2) {
        if let [a, b] = w {
            if a == b {
                return Err(ParamError::DuplicateIndex { id: *a });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_rejected() {
        assert_eq!(PartyId::new(0), Err(ParamError::ZeroIndex));
        assert!(PartyId::from_bytes([0, 0]).is_err());
        assert_eq!(PartyId::from_bytes([0, 7]).map(PartyId::get), Ok(7));
    }

    #[test]
    fn thresholds_are_validated() {
        assert_eq!(
            ThresholdParams::new(1, 3),
            Err(ParamError::ThresholdTooSmall { t: 1 })
        );
        assert_eq!(
            ThresholdParams::new(4, 3),
            Err(ParamError::ThresholdExceedsParties { t: 4, n: 3 })
        );
        let p = ThresholdParams::new(2, 3).expect("valid");
        let ids = |v: &[u16]| {
            v.iter()
                .map(|&i| PartyId::new(i).expect("nonzero"))
                .collect::<Vec<_>>()
        };
        assert!(p.check_quorum(&ids(&[1, 3])).is_ok());
        assert_eq!(
            p.check_quorum(&ids(&[1])),
            Err(ParamError::NotEnoughShares { needed: 2, got: 1 })
        );
        assert!(matches!(
            p.check_quorum(&ids(&[2, 2])),
            Err(ParamError::DuplicateIndex { .. })
        ));
        assert!(matches!(
            p.check_quorum(&ids(&[1, 4])),
            Err(ParamError::UnknownParty { .. })
        ));
    }

    #[test]
    fn serde_rejects_zero() {
        use serde::de::value::{Error, U16Deserializer};
        use serde::de::IntoDeserializer;
        use serde::Deserialize;
        // Deserialization goes through TryFrom<u16>, so it cannot produce party 0.
        let de: U16Deserializer<Error> = 0u16.into_deserializer();
        assert!(PartyId::deserialize(de).is_err());
        let de: U16Deserializer<Error> = 9u16.into_deserializer();
        assert_eq!(PartyId::deserialize(de).map(PartyId::get), Ok(9));
        assert!(PartyId::try_from(0u16).is_err());
    }
}
