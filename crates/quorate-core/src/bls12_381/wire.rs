//! Canonical encodings of BLS12-381 elements.
//!
//! * Scalars: 32 bytes, **big-endian** (as in the IETF BLS draft's `I2OSP`), rejected unless
//!   strictly below the group order `r`.
//! * Points: ZCash compressed form (48 bytes in G1, 96 in G2). Decoding checks the flag
//!   bits, that the point is on the curve, that it lies in the prime-order subgroup, and —
//!   unless the caller explicitly allows it — that it is not the identity.

use crate::encoding::Reader;
use crate::DecodeError;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::Group;

/// Bytes in a compressed G1 point.
pub const G1_BYTES: usize = 48;
/// Bytes in a compressed G2 point.
pub const G2_BYTES: usize = 96;
/// Bytes in a scalar.
pub const SCALAR_BYTES: usize = 32;

/// Encodes a scalar as 32 big-endian bytes.
pub fn scalar_to_bytes(s: &Scalar) -> [u8; SCALAR_BYTES] {
    s.to_bytes_be()
}

/// Decodes a canonical big-endian scalar.
pub fn scalar_from_bytes(what: &'static str, bytes: &[u8]) -> Result<Scalar, DecodeError> {
    let arr: [u8; SCALAR_BYTES] = bytes.try_into().map_err(|_| DecodeError::WrongLength {
        what,
        expected: SCALAR_BYTES,
        got: bytes.len(),
    })?;
    Option::from(Scalar::from_bytes_be(&arr)).ok_or(DecodeError::NonCanonical { what })
}

/// Decodes a canonical non-zero big-endian scalar.
pub fn nonzero_scalar_from_bytes(what: &'static str, bytes: &[u8]) -> Result<Scalar, DecodeError> {
    let s = scalar_from_bytes(what, bytes)?;
    if bool::from(ff::Field::is_zero(&s)) {
        return Err(DecodeError::Zero { what });
    }
    Ok(s)
}

/// Encodes a G1 point in compressed form.
pub fn g1_to_bytes(p: &G1Projective) -> [u8; G1_BYTES] {
    G1Affine::from(p).to_compressed()
}

/// Encodes a G2 point in compressed form.
pub fn g2_to_bytes(p: &G2Projective) -> [u8; G2_BYTES] {
    G2Affine::from(p).to_compressed()
}

fn g1_any(what: &'static str, bytes: &[u8]) -> Result<G1Projective, DecodeError> {
    let arr: [u8; G1_BYTES] = bytes.try_into().map_err(|_| DecodeError::WrongLength {
        what,
        expected: G1_BYTES,
        got: bytes.len(),
    })?;
    #[cfg(feature = "fuzzing")]
    return fuzz_memo::g1(what, &arr, g1_checked);
    #[cfg(not(feature = "fuzzing"))]
    g1_checked(what, &arr)
}

fn g1_checked(what: &'static str, arr: &[u8; G1_BYTES]) -> Result<G1Projective, DecodeError> {
    let p: G1Affine = Option::from(G1Affine::from_compressed_unchecked(arr))
        .ok_or(DecodeError::InvalidPoint { what })?;
    if !bool::from(p.is_on_curve()) {
        return Err(DecodeError::InvalidPoint { what });
    }
    if !bool::from(p.is_torsion_free()) {
        return Err(DecodeError::NotInSubgroup { what });
    }
    Ok(G1Projective::from(p))
}

/// For the fuzz harness only (`fuzz/`, feature `fuzzing`): remembers the outcome of
/// [`g1_checked`] per 48-byte encoding, so that a fuzz input repeating the points of a
/// valid message (nearly all of them do) pays the decompression and subgroup check once per
/// distinct encoding and process instead of once per point and input. The outcome is a pure
/// function of the bytes, so the decoder accepts and rejects exactly what it does without
/// the memo. Bounded: cleared at 2^16 entries.
#[cfg(feature = "fuzzing")]
mod fuzz_memo {
    use super::{DecodeError, G1Projective, G1_BYTES};
    use std::cell::RefCell;
    use std::collections::HashMap;

    /// The outcome of a decoding, without the caller's `what`.
    #[derive(Clone, Copy)]
    enum Outcome {
        Point(G1Projective),
        InvalidPoint,
        NotInSubgroup,
    }

    thread_local! {
        static G1: RefCell<HashMap<[u8; G1_BYTES], Outcome>> = RefCell::new(HashMap::new());
    }

    pub(super) fn g1(
        what: &'static str,
        arr: &[u8; G1_BYTES],
        decode: fn(&'static str, &[u8; G1_BYTES]) -> Result<G1Projective, DecodeError>,
    ) -> Result<G1Projective, DecodeError> {
        let known = G1.with(|m| m.borrow().get(arr).copied());
        let outcome = match known {
            Some(o) => o,
            None => {
                let o = match decode(what, arr) {
                    Ok(p) => Outcome::Point(p),
                    Err(DecodeError::NotInSubgroup { .. }) => Outcome::NotInSubgroup,
                    Err(DecodeError::InvalidPoint { .. }) => Outcome::InvalidPoint,
                    Err(e) => return Err(e),
                };
                G1.with(|m| {
                    let mut m = m.borrow_mut();
                    if m.len() >= 1 << 16 {
                        m.clear();
                    }
                    m.insert(*arr, o);
                });
                o
            }
        };
        match outcome {
            Outcome::Point(p) => Ok(p),
            Outcome::InvalidPoint => Err(DecodeError::InvalidPoint { what }),
            Outcome::NotInSubgroup => Err(DecodeError::NotInSubgroup { what }),
        }
    }
}

fn g2_any(what: &'static str, bytes: &[u8]) -> Result<G2Projective, DecodeError> {
    let arr: [u8; G2_BYTES] = bytes.try_into().map_err(|_| DecodeError::WrongLength {
        what,
        expected: G2_BYTES,
        got: bytes.len(),
    })?;
    let p: G2Affine = Option::from(G2Affine::from_compressed_unchecked(&arr))
        .ok_or(DecodeError::InvalidPoint { what })?;
    if !bool::from(p.is_on_curve()) {
        return Err(DecodeError::InvalidPoint { what });
    }
    if !bool::from(p.is_torsion_free()) {
        return Err(DecodeError::NotInSubgroup { what });
    }
    Ok(G2Projective::from(p))
}

/// Decodes a G1 point that must not be the identity.
pub fn g1_from_bytes(what: &'static str, bytes: &[u8]) -> Result<G1Projective, DecodeError> {
    let p = g1_any(what, bytes)?;
    if bool::from(p.is_identity()) {
        return Err(DecodeError::Identity { what });
    }
    Ok(p)
}

/// Decodes a G1 point that may be the identity (for example a commitment to a
/// polynomial that happens to evaluate to zero).
pub fn g1_from_bytes_allow_identity(
    what: &'static str,
    bytes: &[u8],
) -> Result<G1Projective, DecodeError> {
    g1_any(what, bytes)
}

/// Decodes a G2 point that must not be the identity.
pub fn g2_from_bytes(what: &'static str, bytes: &[u8]) -> Result<G2Projective, DecodeError> {
    let p = g2_any(what, bytes)?;
    if bool::from(p.is_identity()) {
        return Err(DecodeError::Identity { what });
    }
    Ok(p)
}

/// Decodes a G2 point that may be the identity.
pub fn g2_from_bytes_allow_identity(
    what: &'static str,
    bytes: &[u8],
) -> Result<G2Projective, DecodeError> {
    g2_any(what, bytes)
}

/// Reader helpers for BLS elements.
pub trait ReadBls {
    /// Reads a canonical scalar.
    fn scalar(&mut self, what: &'static str) -> Result<Scalar, DecodeError>;
    /// Reads a non-identity G1 point.
    fn g1(&mut self, what: &'static str) -> Result<G1Projective, DecodeError>;
    /// Reads a G1 point that may be the identity.
    fn g1_or_identity(&mut self, what: &'static str) -> Result<G1Projective, DecodeError>;
    /// Reads a non-identity G2 point.
    fn g2(&mut self, what: &'static str) -> Result<G2Projective, DecodeError>;
    /// Reads a G2 point that may be the identity.
    fn g2_or_identity(&mut self, what: &'static str) -> Result<G2Projective, DecodeError>;
}

impl ReadBls for Reader<'_> {
    fn scalar(&mut self, what: &'static str) -> Result<Scalar, DecodeError> {
        scalar_from_bytes(what, self.take(SCALAR_BYTES)?)
    }
    fn g1(&mut self, what: &'static str) -> Result<G1Projective, DecodeError> {
        g1_from_bytes(what, self.take(G1_BYTES)?)
    }
    fn g1_or_identity(&mut self, what: &'static str) -> Result<G1Projective, DecodeError> {
        g1_from_bytes_allow_identity(what, self.take(G1_BYTES)?)
    }
    fn g2(&mut self, what: &'static str) -> Result<G2Projective, DecodeError> {
        g2_from_bytes(what, self.take(G2_BYTES)?)
    }
    fn g2_or_identity(&mut self, what: &'static str) -> Result<G2Projective, DecodeError> {
        g2_from_bytes_allow_identity(what, self.take(G2_BYTES)?)
    }
}
