//! Participation masks.
//!
//! A [`Mask`] over a roster of `n` witnesses is `⌈n/8⌉` bytes. **Bit `i` set means witness
//! `i` participated** (kyber/cothority convention; the CFRG draft and bford's code use the
//! opposite, see [`crate::notes`]). Bit order is little-endian: byte `i / 8`, bit `i % 8`
//! (byte 0 bit 0 is witness 0). Padding bits of the last byte must be zero, so every mask
//! has exactly one encoding.

use core::fmt;
use quorate_core::{DecodeError, ParamError};

/// The set of participating witnesses of a roster of size `n`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Mask {
    n: usize,
    bytes: Vec<u8>,
}

/// Bytes needed for a mask over `n` witnesses: `⌈n/8⌉`.
pub const fn mask_len(n: usize) -> usize {
    n.div_ceil(8)
}

impl Mask {
    /// No participant.
    pub fn empty(n: usize) -> Self {
        Mask {
            n,
            bytes: vec![0; mask_len(n)],
        }
    }

    /// Every witness participates.
    pub fn full(n: usize) -> Self {
        let mut bytes = vec![0xff; mask_len(n)];
        if !n.is_multiple_of(8) {
            if let Some(last) = bytes.last_mut() {
                *last = (1u8 << (n % 8)) - 1;
            }
        }
        Mask { n, bytes }
    }

    /// The mask with exactly the witnesses in `indices` set; an index `≥ n` is an error.
    pub fn from_indices(
        n: usize,
        indices: impl IntoIterator<Item = usize>,
    ) -> Result<Self, ParamError> {
        let mut m = Mask::empty(n);
        for i in indices {
            m.insert(i)?;
        }
        Ok(m)
    }

    /// Decodes `⌈n/8⌉` bytes, rejecting a wrong length and non-zero padding bits.
    pub fn from_bytes(n: usize, bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.len() != mask_len(n) {
            return Err(DecodeError::WrongLength {
                what: "mask",
                expected: mask_len(n),
                got: bytes.len(),
            });
        }
        if !n.is_multiple_of(8) {
            if let Some(last) = bytes.last() {
                if last >> (n % 8) != 0 {
                    return Err(DecodeError::InvalidValue {
                        what: "mask",
                        reason: "padding bits beyond the last witness are set",
                    });
                }
            }
        }
        Ok(Mask {
            n,
            bytes: bytes.to_vec(),
        })
    }

    /// The canonical encoding (`⌈n/8⌉` bytes).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The roster size `n` this mask is defined over.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The number of participants (set bits).
    pub fn count(&self) -> usize {
        self.bytes.iter().map(|b| b.count_ones() as usize).sum()
    }

    /// Whether no witness participates.
    pub fn is_none(&self) -> bool {
        self.bytes.iter().all(|&b| b == 0)
    }

    /// The mask as little-endian 64-bit words with the bit index of their bit 0 (the last
    /// word zero-padded).
    fn words(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let full = self.bytes.chunks_exact(8);
        let tail = full.remainder();
        let tail = (!tail.is_empty()).then(|| {
            let mut w = [0u8; 8];
            w[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(w)
        });
        full.map(|chunk| {
            let mut w = [0u8; 8];
            w.copy_from_slice(chunk);
            u64::from_le_bytes(w)
        })
        .chain(tail)
        .enumerate()
        .map(|(k, w)| (64 * k, w))
    }

    /// Whether every witness participates.
    pub fn is_full(&self) -> bool {
        self.count() == self.n
    }

    /// Whether witness `i` participates (`false` for `i ≥ n`).
    pub fn contains(&self, i: usize) -> bool {
        match self.bytes.get(i / 8) {
            Some(b) => i < self.n && (b >> (i % 8)) & 1 == 1,
            None => false,
        }
    }

    /// Marks witness `i` as participating.
    pub fn insert(&mut self, i: usize) -> Result<(), ParamError> {
        self.set(i, true)
    }

    /// Marks witness `i` as absent.
    pub fn remove(&mut self, i: usize) -> Result<(), ParamError> {
        self.set(i, false)
    }

    fn set(&mut self, i: usize, on: bool) -> Result<(), ParamError> {
        let n = self.n;
        match self.bytes.get_mut(i / 8) {
            Some(b) if i < n => {
                if on {
                    *b |= 1 << (i % 8);
                } else {
                    *b &= !(1 << (i % 8));
                }
                Ok(())
            }
            _ => Err(ParamError::Invalid("mask index out of range")),
        }
    }

    /// Adds every participant of `other` (same `n` required).
    pub fn union_with(&mut self, other: &Mask) -> Result<(), ParamError> {
        if other.n != self.n {
            return Err(ParamError::LengthMismatch {
                what: "mask",
                expected: self.n,
                got: other.n,
            });
        }
        for (a, b) in self.bytes.iter_mut().zip(&other.bytes) {
            *a |= *b;
        }
        Ok(())
    }

    /// Whether the two masks share a participant (`false` if sizes differ).
    pub fn intersects(&self, other: &Mask) -> bool {
        self.n == other.n && self.bytes.iter().zip(&other.bytes).any(|(a, b)| a & b != 0)
    }

    /// The participants, increasing.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words()
            .flat_map(|(base, w)| Bits(w).map(move |b| base + b))
    }

    /// The absent witnesses, increasing.
    pub fn iter_absent(&self) -> impl Iterator<Item = usize> + '_ {
        let n = self.n;
        self.words().flat_map(move |(base, w)| {
            let valid = if base + 64 <= n {
                u64::MAX
            } else {
                (1u64 << (n - base)) - 1
            };
            Bits(!w & valid).map(move |b| base + b)
        })
    }
}

/// The set bits of a word, increasing.
struct Bits(u64);

impl Iterator for Bits {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(bit)
    }
}

impl fmt::Debug for Mask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Mask({}/{}: {})",
            self.count(),
            self.n,
            hex::encode(&self.bytes)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_order_is_little_endian() {
        let m = Mask::from_indices(10, [0, 3, 8]).expect("in range");
        assert_eq!(m.as_bytes(), &[0b0000_1001, 0b0000_0001]);
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![0, 3, 8]);
        assert_eq!(
            m.iter_absent().collect::<Vec<_>>(),
            vec![1, 2, 4, 5, 6, 7, 9]
        );
        assert!(m.contains(8) && !m.contains(9) && !m.contains(10) && !m.contains(99));
        assert_eq!(m.count(), 3);
        assert!(Mask::from_indices(10, [10]).is_err());
    }

    #[test]
    fn word_boundaries_and_tail() {
        // 130 witnesses: two full 64-bit words and a 1-byte tail word.
        let idx = [0usize, 7, 63, 64, 100, 127, 128, 129];
        let m = Mask::from_indices(130, idx).expect("in range");
        assert_eq!(m.iter().collect::<Vec<_>>(), idx.to_vec());
        assert_eq!(m.count(), idx.len());
        assert_eq!(m.iter_absent().count(), 130 - idx.len());
        assert!(m.iter_absent().all(|i| i < 130 && !idx.contains(&i)));
        assert!(!m.is_none() && !m.is_full());
        assert!(Mask::from_indices(130, [129]).is_ok_and(|m| !m.is_none()));
        assert!(Mask::from_indices(130, 0..130).is_ok_and(|m| m.is_full()));
    }

    #[test]
    fn full_and_empty() {
        for n in [0usize, 1, 7, 8, 9, 16, 17] {
            let f = Mask::full(n);
            assert_eq!(f.count(), n);
            assert!(f.is_full());
            assert_eq!(f.iter_absent().count(), 0);
            assert_eq!(Mask::from_bytes(n, f.as_bytes()).as_ref(), Ok(&f));
            let e = Mask::empty(n);
            assert!(e.is_none());
            assert_eq!(e.iter_absent().count(), n);
        }
    }

    #[test]
    fn decoding_rejects_padding_and_length() {
        assert!(matches!(
            Mask::from_bytes(9, &[0, 2]),
            Err(DecodeError::InvalidValue { .. })
        ));
        assert!(Mask::from_bytes(9, &[0, 1]).is_ok());
        assert!(matches!(
            Mask::from_bytes(9, &[0]),
            Err(DecodeError::WrongLength { .. })
        ));
        assert!(matches!(
            Mask::from_bytes(8, &[0, 0]),
            Err(DecodeError::WrongLength { .. })
        ));
    }
}
