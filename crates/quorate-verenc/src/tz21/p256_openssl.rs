//! P-256 scalar multiplications through OpenSSL (the `openssl` crate's safe API), for the
//! operations where OpenSSL's constant-time assembly P-256 (`ecp_nistz256`) beats `p256`
//! 0.13: `s·G` with its built-in precomputed table, and `s·P` for a point used once. Each
//! result comes back with its encoding, so the field inversion of the conversion to affine
//! coordinates is OpenSSL's too.
//!
//! Results are converted to `p256` points through the uncompressed SEC1 encoding, which
//! `p256` checks to lie on the curve; the compressed encoding the schemes hash is read off
//! the same bytes. Every function returns `None` if OpenSSL reports an error (for example
//! an allocation failure); [`super::ops`] then computes the same value with `p256`.
//!
//! Secret scalars are handed to OpenSSL as `BIGNUM`s flagged constant-time and wiped
//! (`BN_clear`) before they are freed. `BN_bin2bn` skips leading zero bytes of a scalar,
//! so its running time depends on whether the top 8 bits are zero (probability 2⁻⁸ per
//! random scalar, no other bits); the multiplications themselves are constant time.

use std::sync::OnceLock;

use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcGroup, EcPoint, PointConversionForm};
use openssl::nid::Nid;
use p256::elliptic_curve::sec1::FromEncodedPoint;
use zeroize::Zeroize;

/// Length of a compressed SEC1 encoding.
const COMPRESSED_LEN: usize = 33;
/// Length of an uncompressed SEC1 encoding.
const UNCOMPRESSED_LEN: usize = 65;

/// OpenSSL's P-256 group (`prime256v1`), loaded once.
fn group() -> Option<&'static EcGroup> {
    static GROUP: OnceLock<Option<EcGroup>> = OnceLock::new();
    GROUP
        .get_or_init(|| EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).ok())
        .as_ref()
}

/// A secret scalar as an OpenSSL `BIGNUM` flagged constant-time; `BN_clear` on drop.
struct SecretBn(BigNum);

impl SecretBn {
    fn new(s: &p256::Scalar) -> Option<Self> {
        let mut be: [u8; 32] = s.to_bytes().into();
        let bn = BigNum::from_slice(&be);
        be.zeroize();
        let mut bn = bn.ok()?;
        bn.set_const_time();
        Some(SecretBn(bn))
    }
}

impl Drop for SecretBn {
    fn drop(&mut self) {
        self.0.clear();
    }
}

/// The `p256` point and compressed encoding of an OpenSSL result; the identity is
/// OpenSSL's one-byte encoding `00` and `p256`'s 33 zero bytes.
fn from_openssl(
    point: &EcPoint,
    group: &EcGroup,
    ctx: &mut BigNumContext,
    enc: &mut Vec<u8>,
) -> Option<p256::ProjectivePoint> {
    if point.is_infinity(group) {
        enc.extend_from_slice(&[0u8; COMPRESSED_LEN]);
        return Some(p256::ProjectivePoint::IDENTITY);
    }
    let u = point
        .to_bytes(group, PointConversionForm::UNCOMPRESSED, ctx)
        .ok()?;
    if u.len() != UNCOMPRESSED_LEN || u[0] != 4 {
        return None;
    }
    let ep = p256::EncodedPoint::from_bytes(&u).ok()?;
    let affine = Option::<p256::AffinePoint>::from(p256::AffinePoint::from_encoded_point(&ep))?;
    enc.push(2 | (u[UNCOMPRESSED_LEN - 1] & 1));
    enc.extend_from_slice(&u[1..COMPRESSED_LEN]);
    Some(affine.into())
}

/// `s·G` for every scalar, in constant time, with the compressed encodings concatenated.
pub(crate) fn mul_gen_encoded(
    scalars: &[p256::Scalar],
) -> Option<(Vec<p256::ProjectivePoint>, Vec<u8>)> {
    let group = group()?;
    let mut ctx = BigNumContext::new().ok()?;
    let mut point = EcPoint::new(group).ok()?;
    let mut pts = Vec::with_capacity(scalars.len());
    let mut enc = Vec::with_capacity(scalars.len() * COMPRESSED_LEN);
    for s in scalars {
        let bn = SecretBn::new(s)?;
        point.mul_generator2(group, &bn.0, &mut ctx).ok()?;
        pts.push(from_openssl(&point, group, &mut ctx, &mut enc)?);
    }
    Some((pts, enc))
}

/// The compressed encoding of `s·P`, in constant time (for a secret `s`). `P` is given
/// by its compressed encoding.
pub(crate) fn mul_encoded(p_enc: &[u8], s: &p256::Scalar) -> Option<Vec<u8>> {
    let group = group()?;
    let mut ctx = BigNumContext::new().ok()?;
    let p = EcPoint::from_bytes(group, p_enc, &mut ctx).ok()?;
    let bn = SecretBn::new(s)?;
    let mut r = EcPoint::new(group).ok()?;
    r.mul2(group, &p, &bn.0, &mut ctx).ok()?;
    let mut enc = Vec::with_capacity(COMPRESSED_LEN);
    from_openssl(&r, group, &mut ctx, &mut enc)?;
    Some(enc)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use ff::Field;
    use group::{Group, GroupEncoding};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn openssl_p256_matches_p256() {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let mut scalars = vec![p256::Scalar::ZERO, p256::Scalar::ONE, -p256::Scalar::ONE];
        scalars.extend((0..8).map(|_| p256::Scalar::random(&mut rng)));
        let (pts, enc) = mul_gen_encoded(&scalars).unwrap();
        for ((s, p), e) in scalars
            .iter()
            .zip(&pts)
            .zip(enc.chunks_exact(COMPRESSED_LEN))
        {
            let want = p256::ProjectivePoint::generator() * s;
            assert_eq!(*p, want);
            assert_eq!(e, want.to_bytes().as_slice());
        }
        let base = p256::ProjectivePoint::random(&mut rng);
        for s in &scalars {
            let got = mul_encoded(base.to_bytes().as_slice(), s).unwrap();
            assert_eq!(got, (base * s).to_bytes().to_vec());
        }
        // An encoding OpenSSL rejects gives `None`, not a panic.
        assert!(mul_encoded(&[2u8; 5], &p256::Scalar::ONE).is_none());
    }
}
