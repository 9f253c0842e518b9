//! P-256 scalar multiplications through OpenSSL, for the operations where OpenSSL's
//! constant-time assembly P-256 (`ecp_nistz256`) beats `p256` 0.13: `s·G` with its built-in
//! precomputed table, `s·ek` with a table of the escrow key built once per key
//! ([`KeyTable`]), and `s·P` for a point used once. Each result comes back with its
//! encoding, so the field inversion of the conversion to affine coordinates is OpenSSL's
//! too (`p256` 0.13 can only invert one point at a time).
//!
//! Everything goes through the `openssl` crate's safe API except one call it does not wrap,
//! `EC_GROUP_precompute_mult` (see [`KeyTable`]): the only `unsafe` in this crate.
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

use std::sync::{Arc, Mutex, OnceLock, Weak};

use foreign_types::ForeignTypeRef;
use openssl::bn::{BigNum, BigNumContext, BigNumContextRef};
use openssl::ec::{EcGroup, EcGroupRef, EcPoint, PointConversionForm};
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
    group: &EcGroupRef,
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

/// The compressed encoding of an OpenSSL result, read off its uncompressed encoding
/// (`p256`'s 33 zero bytes for the identity). No `p256` point is made: for values that are
/// only hashed.
fn encode_openssl(
    point: &EcPoint,
    group: &EcGroupRef,
    ctx: &mut BigNumContext,
    enc: &mut Vec<u8>,
) -> Option<()> {
    if point.is_infinity(group) {
        enc.extend_from_slice(&[0u8; COMPRESSED_LEN]);
        return Some(());
    }
    let u = point
        .to_bytes(group, PointConversionForm::UNCOMPRESSED, ctx)
        .ok()?;
    if u.len() != UNCOMPRESSED_LEN || u[0] != 4 {
        return None;
    }
    enc.push(2 | (u[UNCOMPRESSED_LEN - 1] & 1));
    enc.extend_from_slice(&u[1..COMPRESSED_LEN]);
    Some(())
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

/// OpenSSL's constant-time fixed-base table of one point `B` (an escrow key): P-256 with
/// `B` as the group's generator, and `EC_GROUP_precompute_mult`'s table of it, which for
/// P-256 is `ecp_nistz256`'s own layout (37 rows of 64 affine multiples, window 7, built
/// once per key). `s·B` is then the same code path as OpenSSL's `s·G`: Booth digits,
/// one constant-time gather per row, 36 assembly mixed additions, and one inversion to
/// come back in affine coordinates.
///
/// `EC_GROUP_precompute_mult` is deprecated since OpenSSL 3.0 (with the other low-level
/// `EC_GROUP` functions) but present and unchanged in 3.x; the `openssl` crate does not wrap
/// it, hence the one `unsafe` FFI call below. If an OpenSSL build has no P-256 assembly,
/// the same calls run OpenSSL's generic code, which for a single multiple of the generator
/// uses its constant-time ladder and ignores the table: still correct and constant time.
pub struct KeyTable {
    group: EcGroup,
}

extern "C" {
    /// `int EC_GROUP_precompute_mult(EC_GROUP *group, BN_CTX *ctx)` (`<openssl/ec.h>`).
    fn EC_GROUP_precompute_mult(
        group: *mut openssl_sys::EC_GROUP,
        ctx: *mut openssl_sys::BN_CTX,
    ) -> std::ffi::c_int;
}

/// `EC_GROUP_precompute_mult(group, ctx)`; `false` if OpenSSL reports an error.
#[allow(unsafe_code)]
fn precompute_mult(group: &mut EcGroupRef, ctx: &mut BigNumContextRef) -> bool {
    // SAFETY: both pointers come from live, exclusively borrowed `openssl` wrappers (an
    // `EC_GROUP` and a `BN_CTX`), valid for the duration of the call; the function only
    // reads the group's generator and order and stores its table in the group, which
    // frees it with the group (`EC_GROUP_free`). It returns 1 on success and 0 on error.
    unsafe { EC_GROUP_precompute_mult(group.as_ptr(), ctx.as_ptr()) == 1 }
}

impl KeyTable {
    /// The table of the point with compressed encoding `base`, shared with any table of the
    /// same point still in use (an escrow key's constant-time and variable-time tables are
    /// the same OpenSSL table, built once: about 2 400 single inversions in OpenSSL's
    /// generic code, ≈ 0.1–0.2 s). Built under the lock, which is safe: the build runs on
    /// the calling thread only (no rayon inside). `None` as for [`Self::new`].
    pub(crate) fn shared(base: &[u8]) -> Option<Arc<Self>> {
        type Live = Vec<(Vec<u8>, Weak<KeyTable>)>;
        static LIVE: OnceLock<Mutex<Live>> = OnceLock::new();
        let mut live = LIVE
            .get_or_init(|| Mutex::new(Vec::new()))
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        live.retain(|(_, w)| w.strong_count() > 0);
        if let Some(t) = live
            .iter()
            .find(|(b, _)| b.as_slice() == base)
            .and_then(|(_, w)| w.upgrade())
        {
            return Some(t);
        }
        let t = Arc::new(Self::new(base)?);
        live.push((base.to_vec(), Arc::downgrade(&t)));
        Some(t)
    }

    /// The table of the point with compressed encoding `base`; `None` for the identity,
    /// an encoding OpenSSL rejects, or any OpenSSL error.
    pub(crate) fn new(base: &[u8]) -> Option<Self> {
        let standard = self::group()?;
        let mut ctx = BigNumContext::new().ok()?;
        let point = EcPoint::from_bytes(standard, base, &mut ctx).ok()?;
        if point.is_infinity(standard) {
            return None;
        }
        let mut order = BigNum::new().ok()?;
        standard.order(&mut order, &mut ctx).ok()?;
        let mut group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).ok()?;
        group
            .set_generator(point, order, BigNum::from_u32(1).ok()?)
            .ok()?;
        precompute_mult(&mut group, &mut ctx).then_some(KeyTable { group })
    }

    /// The compressed encodings of `s·B` for every scalar, concatenated, in constant time.
    pub(crate) fn mul_encoded(&self, scalars: &[p256::Scalar]) -> Option<Vec<u8>> {
        let mut ctx = BigNumContext::new().ok()?;
        let mut point = EcPoint::new(&self.group).ok()?;
        let mut enc = Vec::with_capacity(scalars.len() * COMPRESSED_LEN);
        for s in scalars {
            let bn = SecretBn::new(s)?;
            point.mul_generator2(&self.group, &bn.0, &mut ctx).ok()?;
            encode_openssl(&point, &self.group, &mut ctx, &mut enc)?;
        }
        Some(enc)
    }

    /// `s·B` as a `p256` point, in constant time.
    pub(crate) fn mul(&self, s: &p256::Scalar) -> Option<p256::ProjectivePoint> {
        let mut ctx = BigNumContext::new().ok()?;
        let mut point = EcPoint::new(&self.group).ok()?;
        let bn = SecretBn::new(s)?;
        point.mul_generator2(&self.group, &bn.0, &mut ctx).ok()?;
        let mut enc = Vec::with_capacity(COMPRESSED_LEN);
        from_openssl(&point, &self.group, &mut ctx, &mut enc)
    }
}

/// The compressed encoding of `s·P`, in constant time (for a secret `s`). `P` is given
/// by a SEC1 encoding (uncompressed is cheaper for OpenSSL to decode).
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

    #[test]
    fn key_table_matches_p256() {
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        let base = p256::ProjectivePoint::random(&mut rng);
        let table = KeyTable::new(base.to_bytes().as_slice()).unwrap();
        let mut scalars = vec![p256::Scalar::ZERO, p256::Scalar::ONE, -p256::Scalar::ONE];
        scalars.extend((0..8).map(|_| p256::Scalar::random(&mut rng)));
        let enc = table.mul_encoded(&scalars).unwrap();
        assert_eq!(enc.len(), scalars.len() * COMPRESSED_LEN);
        for (s, e) in scalars.iter().zip(enc.chunks_exact(COMPRESSED_LEN)) {
            let want = base * s;
            assert_eq!(e, want.to_bytes().as_slice());
            assert_eq!(table.mul(s).unwrap(), want);
        }
        // The standard generator's table (OpenSSL's built-in one) gives the same values.
        let g = KeyTable::new(p256::ProjectivePoint::GENERATOR.to_bytes().as_slice()).unwrap();
        assert_eq!(
            g.mul_encoded(&scalars).unwrap(),
            mul_gen_encoded(&scalars).unwrap().1
        );
        // A second table of a point in use is the same table.
        let a = KeyTable::shared(base.to_bytes().as_slice()).unwrap();
        let b = KeyTable::shared(base.to_bytes().as_slice()).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(b.mul_encoded(&scalars).unwrap(), enc);
        // No table for the identity or for an encoding OpenSSL rejects.
        assert!(KeyTable::new(p256::ProjectivePoint::IDENTITY.to_bytes().as_slice()).is_none());
        assert!(KeyTable::new(&[2u8; 5]).is_none());
    }
}
