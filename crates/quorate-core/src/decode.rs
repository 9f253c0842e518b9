//! The error every decoder returns for malformed untrusted bytes.
//!
//! A leaf module: it imports nothing from the crate, so the party ids, the encodings and the
//! protocol crates can all return it. [`crate::error`] re-exports it beside the other errors.

use thiserror::Error;

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
