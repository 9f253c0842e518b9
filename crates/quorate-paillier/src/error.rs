//! The crate's error type.
//!
//! Parameter and decoding problems reuse [`quorate_core::ParamError`] and
//! [`quorate_core::DecodeError`]; a failed check that one or more parties are responsible for
//! carries a [`quorate_core::Blame`] naming them, readable through
//! [`quorate_core::error::Culprits`].

use quorate_core::error::Culprits;
use quorate_core::{Blame, DecodeError, ParamError, PartyId};
use thiserror::Error;

/// Everything that can go wrong in this crate.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PaillierError {
    /// The caller asked for impossible parameters (threshold, party set, ...).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Untrusted bytes were malformed or out of range.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A requested bit length is outside what this crate supports.
    #[error("{what}: {bits} bits is outside the supported range {min}..={max}")]
    BitLength {
        /// What was being sized.
        what: &'static str,
        /// The requested length.
        bits: u32,
        /// The smallest supported length.
        min: u32,
        /// The largest supported length.
        max: u32,
    },
    /// A plaintext outside `[0, n)`.
    #[error("plaintext is not in [0, n)")]
    PlaintextOutOfRange,
    /// An integer that must be a unit modulo the modulus is not (or is out of range).
    #[error("{what}: not a unit in range modulo the modulus")]
    NotAUnit {
        /// What was being checked.
        what: &'static str,
    },
    /// An exponent outside the range a precomputed table or operation supports.
    #[error("{what}: exponent out of range")]
    ExponentOutOfRange {
        /// What was being computed.
        what: &'static str,
    },
    /// A modulus that the operation cannot use (even, too small, or with a small factor).
    #[error("invalid modulus: {0}")]
    InvalidModulus(&'static str),
    /// Supplied primes do not form a valid key (not prime, equal, not safe, ...).
    #[error("invalid key material: {0}")]
    InvalidKey(&'static str),
    /// Objects from different keys or ciphertexts were mixed.
    #[error("mismatched inputs: {0}")]
    Mismatch(&'static str),
    /// One or more decryption shares failed verification; the culprits are named.
    #[error("invalid decryption share: {0}")]
    Aborted(Blame),
    /// Combination of verified shares did not yield a valid Paillier value (cannot happen
    /// with shares that passed verification under a correctly dealt key).
    #[error("share combination failed: {0}")]
    Combination(&'static str),
}

impl Culprits for PaillierError {
    fn culprits(&self) -> &[PartyId] {
        match self {
            PaillierError::Aborted(blame) => blame.culprits(),
            PaillierError::Param(_)
            | PaillierError::Decode(_)
            | PaillierError::BitLength { .. }
            | PaillierError::PlaintextOutOfRange
            | PaillierError::NotAUnit { .. }
            | PaillierError::ExponentOutOfRange { .. }
            | PaillierError::InvalidModulus(_)
            | PaillierError::InvalidKey(_)
            | PaillierError::Mismatch(_)
            | PaillierError::Combination(_) => &[],
        }
    }
}
