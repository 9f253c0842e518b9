//! Group operations the TZ21 schemes spend their time in, with a fast path per curve.
//!
//! The schemes only ever multiply two fixed bases — the generator `G` and the escrow key
//! `ek` — plus one multi-scalar multiplication in RDKGitH verification, and they hash the
//! encodings of many points. [`Tz21Curve`] gives each of the four groups the fastest
//! primitive its audited crate offers for these:
//!
//! | curve | fixed-base multiplication | MSM (vartime, public data) | many encodings |
//! |---|---|---|---|
//! | P-256, secp256k1 | [`WindowTable`]: 65 rows of signed radix-16 affine multiples, constant-time row scans | Straus with width-5 wNAF | one batched inversion (`BatchNormalize`) |
//! | BLS12-381 G1 | [`WindowTable`] | `blstrs` Pippenger (`multi_exp`) | per point (inversions are cheap there) |
//! | Ed25519 | `curve25519-dalek`'s `EdwardsBasepointTable` | dalek's vartime Straus/Pippenger | per point |
//!
//! All field and curve arithmetic stays in the curve crates; this module only chooses which
//! of their group operations to call. Secret scalars go through the constant-time
//! [`Tz21Curve::mul_table`]; the `_vartime` functions are used by the verifier and by
//! compression, on public data only.

use std::sync::OnceLock;

use ff::PrimeField;
use group::{prime::PrimeCurve, prime::PrimeCurveAffine, Curve as _, Group, GroupEncoding};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use crate::group::{Bls12381G1, Curve, Ed25519, Secp256k1, P256};

/// A [`Curve`] with the accelerated operations the TZ21 schemes use.
///
/// Implemented for the four curves of [`crate::group`]. Every method has the meaning of the
/// plain group operation it replaces; only the speed differs.
pub trait Tz21Curve: Curve {
    /// Precomputed multiples of one base point.
    type Table: Send + Sync;

    /// Precomputes multiples of `base` (a few hundred group additions).
    fn build_table(base: &Self::Point) -> Self::Table;

    /// The table of the generator `G`, built once per process.
    fn generator_table() -> &'static Self::Table;

    /// `s · B` for the table's base `B`, in constant time (for secret `s`).
    fn mul_table(table: &Self::Table, s: &Self::Scalar) -> Self::Point;

    /// `s · B` in variable time: only for public `s`.
    fn mul_table_vartime(table: &Self::Table, s: &Self::Scalar) -> Self::Point {
        Self::mul_table(table, s)
    }

    /// `Σ scalars[i] · points[i]` in variable time: only for public inputs.
    fn msm_vartime(points: &[Self::Point], scalars: &[Self::Scalar]) -> Self::Point;

    /// The concatenation of [`Curve::point_to_bytes`] of every point (batched where the
    /// curve crate offers batched normalisation).
    fn encode_points(points: &[Self::Point]) -> Vec<u8> {
        let mut out = Vec::with_capacity(points.len() * Self::POINT_LEN);
        for p in points {
            out.extend_from_slice(p.to_bytes().as_ref());
        }
        out
    }

    /// `s · G` in constant time.
    fn mul_gen(s: &Self::Scalar) -> Self::Point {
        Self::mul_table(Self::generator_table(), s)
    }

    /// `s · G` in variable time (public `s`).
    fn mul_gen_vartime(s: &Self::Scalar) -> Self::Point {
        Self::mul_table_vartime(Self::generator_table(), s)
    }
}

/// Number of signed radix-16 digits of a scalar below 2^256 (64 nibbles plus a final carry).
const ROWS: usize = 65;

/// Signed radix-16 digits `d_k ∈ [-8, 8)` (the last one in {0, 1}) with
/// `s = Σ d_k 16^k`, computed without secret-dependent branches.
fn signed_digits(le: &[u8; 32]) -> [i8; ROWS] {
    let mut d = [0i8; ROWS];
    let mut carry: i8 = 0;
    for k in 0..64 {
        let byte = le[k / 2];
        let nib = if k % 2 == 0 { byte & 0x0f } else { byte >> 4 } as i8;
        let v = nib + carry; // in [0, 16]
        carry = (v + 8) >> 4; // 1 iff v ≥ 8
        d[k] = v - (carry << 4);
    }
    d[64] = carry;
    d
}

/// The scalar as 32 little-endian bytes.
fn scalar_le<C: Curve>(s: &C::Scalar) -> [u8; 32] {
    let mut b = C::scalar_to_be_bytes(s);
    b.reverse();
    b
}

/// Fixed-base table for short-Weierstrass curves: row `k` holds `j · 16^k · B` for
/// `j = 1..=8` in affine form, so `s · B` costs 65 mixed additions and no doublings.
pub struct WindowTable<P: PrimeCurve> {
    rows: Vec<[P::Affine; 8]>,
}

impl<P> WindowTable<P>
where
    P: PrimeCurve,
    P::Affine: ConditionallySelectable,
{
    /// Builds the table, normalising all 520 points with `normalize` (one batched
    /// inversion where the curve crate offers it).
    fn build(base: &P, normalize: fn(&[P]) -> Vec<P::Affine>) -> Self {
        let mut proj = Vec::with_capacity(ROWS * 8);
        let mut row_base = *base;
        for _ in 0..ROWS {
            let mut acc = row_base;
            for _ in 0..8 {
                proj.push(acc);
                acc += row_base;
            }
            // 16 · row_base
            row_base = row_base.double().double().double().double();
        }
        let aff = normalize(&proj);
        let rows = aff
            .chunks_exact(8)
            .map(|c| {
                let mut r = [P::Affine::identity(); 8];
                r.copy_from_slice(c);
                r
            })
            .collect();
        WindowTable { rows }
    }

    /// Constant time: every row is scanned in full and the sign applied by selection.
    fn mul_ct(&self, le: &[u8; 32]) -> P {
        let mut digits = signed_digits(le);
        let mut acc = P::identity();
        for (row, &d) in self.rows.iter().zip(digits.iter()) {
            let neg = Choice::from(((d >> 7) & 1) as u8);
            let abs = ((d ^ (d >> 7)) - (d >> 7)) as u8; // |d| in 0..=8
            let mut pick = P::Affine::identity();
            for (j, e) in row.iter().enumerate() {
                pick.conditional_assign(e, abs.ct_eq(&(j as u8 + 1)));
            }
            let negd = -pick;
            pick.conditional_assign(&negd, neg);
            acc += pick;
        }
        digits.zeroize();
        acc
    }

    /// Variable time (public scalars only): skips zero digits and indexes rows directly.
    fn mul_vartime(&self, le: &[u8; 32]) -> P {
        let digits = signed_digits(le);
        let mut acc = P::identity();
        for (row, &d) in self.rows.iter().zip(digits.iter()) {
            match d {
                0 => {}
                d if d > 0 => acc += row[d as usize - 1],
                d => acc -= row[(-d) as usize - 1],
            }
        }
        acc
    }
}

/// Width-5 wNAF digits of a little-endian 256-bit integer (257 positions).
fn wnaf5(le: &[u8; 32]) -> [i8; 257] {
    // Work on 5 limbs of 64 bits so that the running value can absorb +/- carries.
    let mut limbs = [0u64; 5];
    for (i, chunk) in le.chunks_exact(8).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        limbs[i] = u64::from_le_bytes(b);
    }
    let mut out = [0i8; 257];
    let bit = |l: &[u64; 5], i: usize| (l[i / 64] >> (i % 64)) & 1;
    let mut i = 0;
    while i < 257 {
        if bit(&limbs, i) == 0 {
            i += 1;
            continue;
        }
        // value of the 5-bit window starting at i
        let mut w = 0i64;
        for k in 0..5 {
            if i + k < 320 {
                w |= (bit(&limbs, i + k) as i64) << k;
            }
        }
        let d = if w >= 16 { w - 32 } else { w };
        out[i] = d as i8;
        // subtract d·2^i from the limbs (d odd, |d| < 16)
        if d > 0 {
            sub_at(&mut limbs, i, d as u64);
        } else {
            add_at(&mut limbs, i, (-d) as u64);
        }
        i += 5;
    }
    out
}

fn add_at(l: &mut [u64; 5], pos: usize, v: u64) {
    let (mut idx, sh) = (pos / 64, pos % 64);
    let lo = v << sh;
    let mut hi = if sh == 0 { 0 } else { v >> (64 - sh) };
    let (r, mut c) = l[idx].overflowing_add(lo);
    l[idx] = r;
    idx += 1;
    while idx < 5 && (c || hi != 0) {
        let (r1, c1) = l[idx].overflowing_add(hi);
        let (r2, c2) = r1.overflowing_add(c as u64);
        l[idx] = r2;
        c = c1 || c2;
        hi = 0;
        idx += 1;
    }
}

fn sub_at(l: &mut [u64; 5], pos: usize, v: u64) {
    let (mut idx, sh) = (pos / 64, pos % 64);
    let lo = v << sh;
    let mut hi = if sh == 0 { 0 } else { v >> (64 - sh) };
    let (r, mut b) = l[idx].overflowing_sub(lo);
    l[idx] = r;
    idx += 1;
    while idx < 5 && (b || hi != 0) {
        let (r1, b1) = l[idx].overflowing_sub(hi);
        let (r2, b2) = r1.overflowing_sub(b as u64);
        l[idx] = r2;
        b = b1 || b2;
        hi = 0;
        idx += 1;
    }
}

/// Straus' interleaved multi-scalar multiplication with width-5 wNAF, variable time.
fn straus_vartime<C: Curve>(points: &[C::Point], scalars: &[C::Scalar]) -> C::Point {
    let n = points.len().min(scalars.len());
    let mut tables = Vec::with_capacity(n);
    let mut nafs = Vec::with_capacity(n);
    for (p, s) in points.iter().zip(scalars.iter()).take(n) {
        // odd multiples P, 3P, ..., 15P
        let dbl = p.double();
        let mut t = [*p; 8];
        for j in 1..8 {
            t[j] = t[j - 1] + dbl;
        }
        tables.push(t);
        nafs.push(wnaf5(&scalar_le::<C>(s)));
    }
    let mut acc = C::Point::identity();
    for bit in (0..257).rev() {
        acc = acc.double();
        for (t, naf) in tables.iter().zip(nafs.iter()) {
            let d = naf[bit];
            if d > 0 {
                acc += t[(d as usize) / 2];
            } else if d < 0 {
                acc -= t[((-d) as usize) / 2];
            }
        }
    }
    acc
}

/// P-256 normalisation, one inversion per point: `p256` 0.13 implements batched
/// normalisation only for arrays and only where its field element implements `Invert`,
/// which it does not, so there is no batched path to call.
fn normalize_p256(points: &[p256::ProjectivePoint]) -> Vec<p256::AffinePoint> {
    points.iter().map(|p| p.to_affine()).collect()
}

fn normalize_k256(points: &[k256::ProjectivePoint]) -> Vec<k256::AffinePoint> {
    let mut out = vec![k256::AffinePoint::IDENTITY; points.len()];
    k256::ProjectivePoint::batch_normalize(points, &mut out);
    out
}

fn normalize_bls(points: &[blstrs::G1Projective]) -> Vec<blstrs::G1Affine> {
    let mut out = vec![blstrs::G1Affine::identity(); points.len()];
    blstrs::G1Projective::batch_normalize(points, &mut out);
    out
}

macro_rules! weierstrass_impl {
    ($curve:ty, $proj:ty, $normalize:ident) => {
        impl Tz21Curve for $curve {
            type Table = WindowTable<$proj>;

            fn build_table(base: &$proj) -> Self::Table {
                WindowTable::build(base, $normalize)
            }

            fn generator_table() -> &'static Self::Table {
                static TABLE: OnceLock<WindowTable<$proj>> = OnceLock::new();
                TABLE.get_or_init(|| WindowTable::build(&<$proj as Group>::generator(), $normalize))
            }

            fn mul_table(table: &Self::Table, s: &Self::Scalar) -> $proj {
                let mut le = scalar_le::<Self>(s);
                let p = table.mul_ct(&le);
                le.zeroize();
                p
            }

            fn mul_table_vartime(table: &Self::Table, s: &Self::Scalar) -> $proj {
                table.mul_vartime(&scalar_le::<Self>(s))
            }

            fn msm_vartime(points: &[$proj], scalars: &[Self::Scalar]) -> $proj {
                msm_weierstrass::<Self>(points, scalars)
            }

            fn encode_points(points: &[$proj]) -> Vec<u8> {
                let aff = $normalize(points);
                let mut out = Vec::with_capacity(points.len() * Self::POINT_LEN);
                for a in &aff {
                    out.extend_from_slice(a.to_bytes().as_ref());
                }
                out
            }
        }
    };
}

fn msm_weierstrass<C: Curve>(points: &[C::Point], scalars: &[C::Scalar]) -> C::Point {
    straus_vartime::<C>(points, scalars)
}

weierstrass_impl!(P256, p256::ProjectivePoint, normalize_p256);
weierstrass_impl!(Secp256k1, k256::ProjectivePoint, normalize_k256);

impl Tz21Curve for Bls12381G1 {
    type Table = WindowTable<blstrs::G1Projective>;

    fn build_table(base: &blstrs::G1Projective) -> Self::Table {
        WindowTable::build(base, normalize_bls)
    }

    fn generator_table() -> &'static Self::Table {
        static TABLE: OnceLock<WindowTable<blstrs::G1Projective>> = OnceLock::new();
        TABLE.get_or_init(|| WindowTable::build(&blstrs::G1Projective::generator(), normalize_bls))
    }

    fn mul_table(table: &Self::Table, s: &blstrs::Scalar) -> blstrs::G1Projective {
        let mut le = scalar_le::<Self>(s);
        let p = table.mul_ct(&le);
        le.zeroize();
        p
    }

    fn mul_table_vartime(table: &Self::Table, s: &blstrs::Scalar) -> blstrs::G1Projective {
        table.mul_vartime(&scalar_le::<Self>(s))
    }

    fn msm_vartime(
        points: &[blstrs::G1Projective],
        scalars: &[blstrs::Scalar],
    ) -> blstrs::G1Projective {
        if points.len() != scalars.len() || points.is_empty() {
            return straus_vartime::<Self>(points, scalars);
        }
        blstrs::G1Projective::multi_exp(points, scalars)
    }
}

/// 8⁻¹ mod ℓ: dalek's tables live on the full curve, so `s · P` for `P` in the prime-order
/// subgroup is computed as `8 · ((s/8) · P)`, and the multiplication by the cofactor maps
/// the result into [`curve25519_dalek::edwards::SubgroupPoint`] without a torsion check.
fn inv8() -> curve25519_dalek::Scalar {
    static INV8: OnceLock<curve25519_dalek::Scalar> = OnceLock::new();
    *INV8.get_or_init(|| curve25519_dalek::Scalar::from(8u64).invert())
}

impl Tz21Curve for Ed25519 {
    type Table = curve25519_dalek::edwards::EdwardsBasepointTable;

    fn build_table(base: &Self::Point) -> Self::Table {
        use curve25519_dalek::traits::BasepointTable;
        curve25519_dalek::edwards::EdwardsBasepointTable::create(&(*base).into())
    }

    fn generator_table() -> &'static Self::Table {
        curve25519_dalek::constants::ED25519_BASEPOINT_TABLE
    }

    fn mul_table(table: &Self::Table, s: &curve25519_dalek::Scalar) -> Self::Point {
        let mut t = s * inv8();
        let p = table * &t;
        t.zeroize();
        group::cofactor::CofactorGroup::clear_cofactor(&p)
    }

    fn msm_vartime(points: &[Self::Point], scalars: &[curve25519_dalek::Scalar]) -> Self::Point {
        use curve25519_dalek::traits::VartimeMultiscalarMul;
        let i8 = inv8();
        let p = curve25519_dalek::EdwardsPoint::vartime_multiscalar_mul(
            scalars.iter().map(|s| s * i8),
            points
                .iter()
                .map(|p| curve25519_dalek::EdwardsPoint::from(*p)),
        );
        group::cofactor::CofactorGroup::clear_cofactor(&p)
    }
}

/// Inverts every element of `xs` with one field inversion (Montgomery's trick). All
/// elements must be non-zero; used on public values only.
pub(crate) fn batch_invert<F: PrimeField>(xs: &mut [F]) {
    let mut prefix = Vec::with_capacity(xs.len());
    let mut acc = F::ONE;
    for x in xs.iter() {
        prefix.push(acc);
        acc *= x;
    }
    let mut inv = Option::<F>::from(acc.invert()).unwrap_or(F::ZERO);
    for (x, p) in xs.iter_mut().zip(prefix.iter()).rev() {
        let next = inv * *x;
        *x = inv * p;
        inv = next;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use ff::Field;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn check<C: Tz21Curve>() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let b = C::Point::generator() * C::Scalar::random(&mut rng);
        let t = C::build_table(&b);
        let mut specials = vec![C::Scalar::ZERO, C::Scalar::ONE, -C::Scalar::ONE];
        specials.extend((0..20).map(|_| C::Scalar::random(&mut rng)));
        for s in &specials {
            assert_eq!(C::mul_table(&t, s), b * s);
            assert_eq!(C::mul_table_vartime(&t, s), b * s);
            assert_eq!(C::mul_gen(s), C::Point::generator() * s);
            assert_eq!(C::mul_gen_vartime(s), C::Point::generator() * s);
        }
        let pts: Vec<C::Point> = (0..9).map(|_| C::Point::random(&mut rng)).collect();
        let mut sc: Vec<C::Scalar> = (0..9).map(|_| C::Scalar::random(&mut rng)).collect();
        sc[3] = -C::Scalar::ONE;
        sc[4] = C::Scalar::ZERO;
        let naive = pts
            .iter()
            .zip(sc.iter())
            .fold(C::Point::identity(), |a, (p, s)| a + *p * s);
        assert_eq!(C::msm_vartime(&pts, &sc), naive);
        assert_eq!(straus_vartime::<C>(&pts, &sc), naive);
        let mut enc = Vec::new();
        for p in &pts {
            enc.extend(C::point_to_bytes(p));
        }
        assert_eq!(C::encode_points(&pts), enc);

        let mut xs: Vec<C::Scalar> = (1..10u64).map(C::Scalar::from).collect();
        batch_invert(&mut xs);
        for (i, x) in xs.iter().enumerate() {
            assert_eq!(*x * C::Scalar::from(i as u64 + 1), C::Scalar::ONE);
        }
    }

    #[test]
    fn accelerated_ops_match_plain_group_operations() {
        check::<P256>();
        check::<Secp256k1>();
        check::<Bls12381G1>();
        check::<Ed25519>();
    }
}
