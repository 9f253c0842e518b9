//! Linear combinations of group elements.
//!
//! Two families, named by what they may touch:
//!
//! * `*_ct`: scalars may be **secret** (polynomial coefficients, shares). Each term is a
//!   constant-time `blst` scalar multiplication; terms run in parallel with rayon and are
//!   summed. No bucket method is used, because Pippenger's bucket accesses depend on the
//!   scalar digits.
//! * `*_vartime`: scalars and points are **public** (verification with public batching
//!   coefficients, Lagrange combination of public partial signatures). These call `blst`'s
//!   native Pippenger multi-scalar multiplication (over 128-bit scalars for batching
//!   weights: [`g1_msm_u128_vartime`], [`g2_msm_u128_vartime`]), except
//!   [`lincomb_u128_vartime`], a
//!   single-threaded interleaved (Straus) combination of a few points with 128-bit
//!   batching weights, and [`FixedBaseVartime`], windowed tables of a fixed base; both
//!   built from the curve library's own additions and doublings.
//!
//! [`g1_generator_mul_ct`] and [`g2_generator_mul_ct`] multiply the fixed generators by
//! **secret** scalars through precomputed tables ([`FixedBaseCt`]): constant-time table
//! reads and `blst`'s constant-time mixed additions, no doubling. [`WindowTablesCt`] keeps
//! small per-point tables of fixed public points (a KZG CRS) for constant-time linear
//! combinations with secret scalars (interleaved windows, shared doublings).

use super::normalize::{g1_batch_vartime, BatchAffineVartime};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::prime::PrimeCurveAffine;
use group::Group;
use rayon::prelude::*;
use std::sync::OnceLock;
use subtle::{ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// `Σ s_i·P_i` in G1 with secret scalars (constant-time per term, parallel).
pub fn g1_lincomb_ct(points: &[G1Affine], scalars: &[Scalar]) -> G1Projective {
    points
        .par_iter()
        .zip(scalars.par_iter())
        .map(|(p, s)| G1Projective::from(p) * s)
        .reduce(G1Projective::identity, |a, b| a + b)
}

/// `Σ s_i·P_i` in G2 with secret scalars (constant-time per term, parallel).
pub fn g2_lincomb_ct(points: &[G2Affine], scalars: &[Scalar]) -> G2Projective {
    points
        .par_iter()
        .zip(scalars.par_iter())
        .map(|(p, s)| G2Projective::from(p) * s)
        .reduce(G2Projective::identity, |a, b| a + b)
}

/// `Σ s_i·P_i` in G1 over public data (blst Pippenger; variable time).
pub fn g1_msm_vartime(points: &[G1Projective], scalars: &[Scalar]) -> G1Projective {
    match points.len().min(scalars.len()) {
        0 => G1Projective::identity(),
        1 => points[0] * scalars[0],
        _ => G1Projective::multi_exp(points, scalars),
    }
}

/// `Σ s_i·P_i` in G2 over public data (blst Pippenger; variable time).
pub fn g2_msm_vartime(points: &[G2Projective], scalars: &[Scalar]) -> G2Projective {
    match points.len().min(scalars.len()) {
        0 => G2Projective::identity(),
        1 => points[0] * scalars[0],
        _ => G2Projective::multi_exp(points, scalars),
    }
}

/// `Σ w_i·P_i` in G1 for **public** points and public 128-bit weights (random batching
/// coefficients), by `blst`'s bucket method over 128-bit scalars (on its thread pool from
/// 32 points). `blstrs`'s `multi_exp` always runs the full 255 bits, so for batching
/// weights this does about half its work. Variable time.
pub fn g1_msm_u128_vartime(points: &[G1Projective], weights: &[u128]) -> G1Projective {
    let len = points.len().min(weights.len());
    if len == 0 {
        return G1Projective::identity();
    }
    let raw: Vec<blst::blst_p1> = points[..len].iter().map(|p| *p.as_ref()).collect();
    let sum = blst::p1_affines::from(&raw).mult(&u128_le_bytes(&weights[..len]), 128);
    let mut out = G1Projective::identity();
    *out.as_mut() = sum;
    out
}

/// [`g1_msm_u128_vartime`] in G2.
pub fn g2_msm_u128_vartime(points: &[G2Projective], weights: &[u128]) -> G2Projective {
    let len = points.len().min(weights.len());
    if len == 0 {
        return G2Projective::identity();
    }
    let raw: Vec<blst::blst_p2> = points[..len].iter().map(|p| *p.as_ref()).collect();
    let sum = blst::p2_affines::from(&raw).mult(&u128_le_bytes(&weights[..len]), 128);
    let mut out = G2Projective::identity();
    *out.as_mut() = sum;
    out
}

/// The weights as consecutive 16-byte little-endian scalars (`blst`'s layout).
fn u128_le_bytes(weights: &[u128]) -> Vec<u8> {
    weights.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `Σ w_i·P_i` for a few **public** points and public 128-bit weights (random batching
/// coefficients), on the calling thread: interleaved 4-bit windows, 128 doublings in all
/// plus about 46 additions per point. For the handful of terms of one verification this
/// is about half the cost of one full-width multiplication per term (and `blst`'s own
/// multi-scalar multiplication hands fewer than 32 points to its thread pool as one
/// full-width multiplication each). Variable time.
pub fn lincomb_u128_vartime<G: Group>(points: &[G], weights: &[u128]) -> G {
    let digits: Vec<[u8; 32]> = weights
        .iter()
        .map(|w| {
            let mut le = [0u8; 32];
            le[..16].copy_from_slice(&w.to_le_bytes());
            le
        })
        .collect();
    straus_vartime(points, &digits, 128)
}

/// Interleaved fixed-window (4-bit) multi-scalar multiplication over little-endian
/// scalars of `bits` bits, built from the curve library's own additions and doublings.
fn straus_vartime<G: Group>(points: &[G], scalars_le: &[[u8; 32]], bits: usize) -> G {
    let tables: Vec<[G; 16]> = points
        .iter()
        .map(|p| {
            let mut t = [G::identity(); 16];
            for k in 1..16 {
                t[k] = t[k - 1] + p;
            }
            t
        })
        .collect();
    let mut acc = G::identity();
    for nibble in (0..bits / 4).rev() {
        for _ in 0..4 {
            acc = acc.double();
        }
        for (t, s) in tables.iter().zip(scalars_le) {
            let digit = usize::from((s[nibble / 2] >> (4 * (nibble % 2))) & 0xf);
            if digit != 0 {
                acc += t[digit];
            }
        }
    }
    acc
}

/// Precomputed multiples of one fixed **public** G1 base for variable-time multiplication
/// by public scalars: row `k` holds `d·16^k·P` for `d = 0..16` (affine), so `s·P` is one
/// mixed addition per non-zero 4-bit digit of `s` (at most 64) and no doubling. About
/// 61 KiB per base, built once (≈ 1100 additions and one batched normalisation).
pub struct FixedBaseVartime {
    rows: Vec<[G1Affine; 16]>,
}

impl FixedBaseVartime {
    /// The table of `base`.
    pub fn new(base: G1Projective) -> Self {
        let mut projective = Vec::with_capacity(64 * 16);
        let mut row_base = base;
        for _ in 0..64 {
            let mut acc = G1Projective::identity();
            for _ in 0..16 {
                projective.push(acc);
                acc += row_base;
            }
            row_base = acc;
        }
        let affine = g1_batch_vartime(&projective);
        let rows = affine
            .chunks_exact(16)
            .map(|c| {
                let mut row = [G1Affine::identity(); 16];
                row.copy_from_slice(c);
                row
            })
            .collect();
        FixedBaseVartime { rows }
    }

    /// `s·P` for a public scalar `s`. Variable time.
    pub fn mul_vartime(&self, s: &Scalar) -> G1Projective {
        let le = s.to_bytes_le();
        let mut acc = G1Projective::identity();
        for (k, row) in self.rows.iter().enumerate() {
            let digit = usize::from((le[k / 2] >> (4 * (k % 2))) & 0xf);
            if digit != 0 {
                acc += &row[digit];
            }
        }
        acc
    }
}

/// Precomputed multiples of one fixed base for **constant-time** multiplication by
/// secret scalars, with signed 5-bit digits. The scalar `s < 2^255` is recoded as
/// `s = Σ_{k<52} d_k·32^k` with `d_k ∈ [−16, 15]` (each 5-bit window plus the previous
/// carry; a window of 16 or more becomes `d − 32` and carries 1; the top window holds no
/// bit of `s` below `2^255` but the carry, so no carry is left). Row `k` holds `j·32^k·P` for
/// `j = 0..=16` (affine), and `s·P` is the sum over the 52 rows of the entry `|d_k|`,
/// negated when `d_k < 0`. Each entry is read by a constant-time select over the whole
/// row (`subtle`), its sign applied by a constant-time negation and select, and each sum
/// is `blst`'s mixed addition, which is constant time (identity and doubling cases
/// included, by masked selects); the recoding is branch-free integer arithmetic. So the
/// sequence of operations and memory accesses does not depend on `s`. 52 mixed additions
/// and 832 selects, against 64 and 1024 with unsigned 4-bit digits (measured ≈ −15 % for
/// G1 and G2, docs/benchmarks.md §8; 6-bit digits measured the same with twice the table)
/// and `blst`'s 255 doublings; about 83 KiB (G1) or 166 KiB (G2) per base, built once
/// (≈ 900 additions and one batched affine conversion: the base is public).
pub struct FixedBaseCt<G: BatchAffineVartime> {
    rows: Vec<[G::AffineRepr; CT_ROW]>,
}

/// Bits per signed digit of [`FixedBaseCt`].
const CT_WINDOW: u32 = 5;
/// Digits of a scalar below `2^255` (`52·5 = 260` bits: 255 and room for the carry).
const CT_DIGITS: usize = 256_usize.div_ceil(CT_WINDOW as usize);
/// Entries per row: `0..=2^(CT_WINDOW−1)` (17).
const CT_ROW: usize = (1 << (CT_WINDOW - 1)) + 1;

/// Constant-time negation of an affine point (`blstrs`' own `Neg` branches on the
/// identity, which a table read of digit 0 must not reveal; a window of 63 plus a carry
/// is the digit `−0`). The identity of `blst` is
/// `(0, 0)`, and `blst`'s conditional negation maps `0` to `0`, so it stays the identity
/// (test `ct_negation_matches_neg_and_keeps_the_identity`).
pub trait CtNegAffine: Sized {
    /// `−self`, in constant time.
    fn ct_neg(&self) -> Self;
}

impl CtNegAffine for G1Affine {
    fn ct_neg(&self) -> Self {
        G1Affine::from_raw_unchecked(self.x(), -self.y(), false)
    }
}

impl CtNegAffine for G2Affine {
    fn ct_neg(&self) -> Self {
        G2Affine::from_raw_unchecked(self.x(), -self.y(), false)
    }
}

/// The signed 6-bit digits of `s` as (magnitude `0..=32`, negative) pairs; branch-free.
fn signed_digits_ct(s: &Scalar) -> [(u8, u8); CT_DIGITS] {
    let mut le = s.to_bytes_le();
    let mut limbs = [0u64; 5];
    for (limb, bytes) in limbs.iter_mut().zip(le.chunks_exact(8)) {
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        *limb = u64::from_le_bytes(word);
        word.zeroize();
    }
    le.zeroize();
    let mut digits = [(0u8, 0u8); CT_DIGITS];
    let mut carry = 0u64;
    for (k, digit) in digits.iter_mut().enumerate() {
        // The window's position is public; only its content is secret.
        let bit = k * CT_WINDOW as usize;
        let (word, shift) = (bit / 64, bit % 64);
        let mut window = limbs[word] >> shift;
        if shift + CT_WINDOW as usize > 64 {
            window |= limbs[word + 1] << (64 - shift);
        }
        let value = (window & ((1 << CT_WINDOW) - 1)) + carry; // 0..=32
        let negative = (value + (1 << (CT_WINDOW - 1))) >> CT_WINDOW; // 1 iff value >= 16
        let signed = value as i64 - ((negative as i64) << CT_WINDOW); // −16..=15
        let mask = signed >> 63;
        let magnitude = (signed ^ mask) - mask; // 0..=32
        *digit = (magnitude as u8, negative as u8);
        carry = negative;
    }
    limbs.zeroize();
    digits
}

impl<G> FixedBaseCt<G>
where
    G: BatchAffineVartime,
    G::AffineRepr: ConditionallySelectable + CtNegAffine,
{
    /// The table of `base` (a public point).
    pub fn new(base: G) -> Self {
        let mut projective = Vec::with_capacity(CT_DIGITS * CT_ROW);
        let mut row_base = base;
        for _ in 0..CT_DIGITS {
            let mut acc = G::identity();
            for _ in 0..CT_ROW {
                projective.push(acc);
                acc += row_base;
            }
            // `acc` is 17·row_base here; the next row's base is 32·row_base.
            row_base = (acc - row_base).double();
        }
        let identity = G::identity().to_affine();
        let affine = G::batch_affine_vartime(&projective);
        let rows = affine
            .chunks_exact(CT_ROW)
            .map(|c| {
                let mut row = [identity; CT_ROW];
                row.copy_from_slice(c);
                row
            })
            .collect();
        FixedBaseCt { rows }
    }

    /// `s·P` for a secret scalar `s`, in constant time.
    pub fn mul_ct(&self, s: &Scalar) -> G {
        let mut digits = signed_digits_ct(s);
        let mut acc = G::identity();
        for (row, (magnitude, negative)) in self.rows.iter().zip(digits.iter()) {
            let mut entry = row[0];
            for (j, candidate) in (0u8..).zip(row.iter()).skip(1) {
                entry.conditional_assign(candidate, j.ct_eq(magnitude));
            }
            let negated = entry.ct_neg();
            entry.conditional_assign(&negated, (*negative).into());
            acc += entry;
        }
        digits.zeroize();
        acc
    }
}

/// Per-point window tables of fixed **public** points (`[0, P, 2P, …, 15P]`, affine) for
/// **constant-time** linear combinations with secret scalars, `Σ s_i·P_i`, by interleaved
/// 4-bit windows (Straus): 252 shared doublings per combination plus, per term, 64
/// constant-time row selects and `blst`'s constant-time mixed additions. Against one
/// `blst` scalar multiplication per term (≈ 128 doublings and 52 additions after its GLV
/// split) this halves the cost of a combination of a few terms or more. Digits are read
/// by a select over the whole row (`subtle`), so the operations and memory accesses do not
/// depend on the scalars. About 1.5 KiB per G1 point, built once (15 additions per point
/// and one batched affine conversion: the points are public).
#[derive(Clone)]
pub struct WindowTablesCt<G: BatchAffineVartime> {
    rows: Vec<[G::AffineRepr; 16]>,
}

impl<G> WindowTablesCt<G>
where
    G: BatchAffineVartime + Send + Sync,
    G::AffineRepr: ConditionallySelectable + Send + Sync,
{
    /// Tables of the public `points`.
    pub fn new(points: &[G]) -> Self {
        let mut projective = Vec::with_capacity(16 * points.len());
        for p in points {
            let mut acc = G::identity();
            for _ in 0..16 {
                projective.push(acc);
                acc += p;
            }
        }
        let identity = G::identity().to_affine();
        let affine = G::batch_affine_vartime(&projective);
        let rows = affine
            .chunks_exact(16)
            .map(|c| {
                let mut row = [identity; 16];
                row.copy_from_slice(c);
                row
            })
            .collect();
        WindowTablesCt { rows }
    }

    /// How many points have tables.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no tables.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// `Σ s_i·P_(offset+i)` for **secret** scalars, in constant time (for fixed lengths).
    /// The terms are split into one chunk per rayon thread when each chunk keeps at least
    /// three terms (each chunk pays its own 252 doublings); below three terms per thread
    /// each term is one `blst` constant-time multiplication instead, which is cheaper.
    ///
    /// # Panics
    /// If `offset + scalars.len()` exceeds the number of tables (a caller bug: callers
    /// check the degree against the CRS first).
    pub fn lincomb_ct(&self, offset: usize, scalars: &[Scalar]) -> G
    where
        G: core::ops::Mul<Scalar, Output = G>,
        G::AffineRepr: Into<G>,
    {
        let rows = &self.rows[offset..offset + scalars.len()];
        let threads = rayon::current_num_threads().max(1);
        let chunk = scalars.len().div_ceil(threads).max(1);
        if chunk < 3 {
            return rows
                .par_iter()
                .zip(scalars.par_iter())
                .map(|(row, s)| row[1].into() * *s)
                .reduce(G::identity, |a, b| a + b);
        }
        rows.par_chunks(chunk)
            .zip(scalars.par_chunks(chunk))
            .map(|(rows, scalars)| straus_ct(rows, scalars))
            .reduce(G::identity, |a, b| a + b)
    }

    /// [`WindowTablesCt::lincomb_ct`] on the calling thread only (for callers that already
    /// run one combination per thread): the interleaved sum from three terms on, one
    /// `blst` constant-time multiplication per term below.
    ///
    /// # Panics
    /// As [`WindowTablesCt::lincomb_ct`].
    pub fn lincomb_ct_one_thread(&self, offset: usize, scalars: &[Scalar]) -> G
    where
        G: core::ops::Mul<Scalar, Output = G>,
        G::AffineRepr: Into<G>,
    {
        let rows = &self.rows[offset..offset + scalars.len()];
        if scalars.len() < 3 {
            return rows
                .iter()
                .zip(scalars)
                .fold(G::identity(), |acc, (row, s)| acc + row[1].into() * *s);
        }
        straus_ct(rows, scalars)
    }
}

/// Interleaved 4-bit windows over secret scalars with constant-time row selects.
fn straus_ct<G>(rows: &[[G::AffineRepr; 16]], scalars: &[Scalar]) -> G
where
    G: BatchAffineVartime,
    G::AffineRepr: ConditionallySelectable,
{
    let mut digits: Vec<[u8; 32]> = scalars.iter().map(Scalar::to_bytes_le).collect();
    let mut acc = G::identity();
    for k in (0..64).rev() {
        if k != 63 {
            for _ in 0..4 {
                acc = acc.double();
            }
        }
        for (row, le) in rows.iter().zip(&digits) {
            let mut digit = (le[k / 2] >> (4 * (k % 2))) & 0xf;
            let mut entry = row[0];
            for (j, candidate) in (0u8..).zip(row.iter()).skip(1) {
                entry.conditional_assign(candidate, j.ct_eq(&digit));
            }
            acc += entry;
            digit.zeroize();
        }
    }
    digits.zeroize();
    acc
}

/// `s·g1` for a secret `s`, in constant time, through a table built once per process.
pub fn g1_generator_mul_ct(s: &Scalar) -> G1Projective {
    static TABLE: OnceLock<FixedBaseCt<G1Projective>> = OnceLock::new();
    TABLE
        .get_or_init(|| FixedBaseCt::new(G1Projective::generator()))
        .mul_ct(s)
}

/// `s·g2` for a secret `s`, in constant time, through a table built once per process.
pub fn g2_generator_mul_ct(s: &Scalar) -> G2Projective {
    static TABLE: OnceLock<FixedBaseCt<G2Projective>> = OnceLock::new();
    TABLE
        .get_or_init(|| FixedBaseCt::new(G2Projective::generator()))
        .mul_ct(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::{Field, PrimeField};
    use group::Curve;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{RngCore, SeedableRng};

    #[test]
    fn u128_bucket_msm_matches_scalar_multiplications() {
        let mut rng = ChaCha20Rng::seed_from_u64(17);
        for n in [0usize, 1, 5, 33, 101] {
            let mut p1: Vec<G1Projective> =
                (0..n).map(|_| G1Projective::random(&mut rng)).collect();
            let mut p2: Vec<G2Projective> =
                (0..n).map(|_| G2Projective::random(&mut rng)).collect();
            let mut w: Vec<u128> = (0..n)
                .map(|_| u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()))
                .collect();
            if n > 1 {
                // An identity point, a zero weight and the largest weight.
                p1[0] = G1Projective::identity();
                p2[0] = G2Projective::identity();
                w[1] = 0;
                w[n - 1] = u128::MAX;
            }
            let s: Vec<Scalar> = w.iter().map(|x| Scalar::from_u128(*x)).collect();
            let want1 = p1
                .iter()
                .zip(&s)
                .fold(G1Projective::identity(), |a, (p, s)| a + p * s);
            let want2 = p2
                .iter()
                .zip(&s)
                .fold(G2Projective::identity(), |a, (p, s)| a + p * s);
            assert_eq!(g1_msm_u128_vartime(&p1, &w), want1, "n={n}");
            assert_eq!(g2_msm_u128_vartime(&p2, &w), want2, "n={n}");
        }
    }

    #[test]
    fn ct_and_vartime_agree() {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        for n in [0usize, 1, 2, 7] {
            let p1: Vec<G1Projective> = (0..n).map(|_| G1Projective::random(&mut rng)).collect();
            let p2: Vec<G2Projective> = (0..n).map(|_| G2Projective::random(&mut rng)).collect();
            let s: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
            let a1: Vec<G1Affine> = p1.iter().map(|p| p.to_affine()).collect();
            let a2: Vec<G2Affine> = p2.iter().map(|p| p.to_affine()).collect();
            let naive1: G1Projective = p1.iter().zip(&s).map(|(p, s)| p * s).sum();
            let naive2: G2Projective = p2.iter().zip(&s).map(|(p, s)| p * s).sum();
            assert_eq!(g1_lincomb_ct(&a1, &s), naive1);
            assert_eq!(g1_msm_vartime(&p1, &s), naive1);
            assert_eq!(g2_lincomb_ct(&a2, &s), naive2);
            assert_eq!(g2_msm_vartime(&p2, &s), naive2);
        }
    }

    #[test]
    fn short_weight_lincomb_matches_scalar_multiplication() {
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        for n in [0usize, 1, 3] {
            let p1: Vec<G1Projective> = (0..n).map(|_| G1Projective::random(&mut rng)).collect();
            let p2: Vec<G2Projective> = (0..n).map(|_| G2Projective::random(&mut rng)).collect();
            let mut w: Vec<u128> = (0..n)
                .map(|_| u128::from(rand_core::RngCore::next_u64(&mut rng)) << 64 | 0x0f0f)
                .collect();
            if let Some(first) = w.first_mut() {
                *first = u128::MAX;
            }
            let naive1: G1Projective = p1
                .iter()
                .zip(&w)
                .map(|(p, w)| p * Scalar::from_u128(*w))
                .sum();
            let naive2: G2Projective = p2
                .iter()
                .zip(&w)
                .map(|(p, w)| p * Scalar::from_u128(*w))
                .sum();
            assert_eq!(lincomb_u128_vartime(&p1, &w), naive1);
            assert_eq!(lincomb_u128_vartime(&p2, &w), naive2);
            let s: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
            for (p, s) in p1.iter().zip(&s) {
                let table = FixedBaseVartime::new(*p);
                assert_eq!(table.mul_vartime(s), p * s);
                assert_eq!(table.mul_vartime(&-Scalar::ONE), -p);
                assert_eq!(table.mul_vartime(&Scalar::ZERO), G1Projective::identity());
            }
        }
    }

    #[test]
    fn window_tables_match_naive_lincomb() {
        let mut rng = ChaCha20Rng::seed_from_u64(14);
        let p1: Vec<G1Projective> = (0..9).map(|_| G1Projective::random(&mut rng)).collect();
        let p2: Vec<G2Projective> = (0..9).map(|_| G2Projective::random(&mut rng)).collect();
        let t1 = WindowTablesCt::new(&p1);
        let t2 = WindowTablesCt::new(&p2);
        assert_eq!(t1.len(), 9);
        let mut s: Vec<Scalar> = (0..9).map(|_| Scalar::random(&mut rng)).collect();
        s[1] = Scalar::ZERO;
        s[2] = -Scalar::ONE;
        s[3] = Scalar::from(15u64);
        for (offset, len) in [(0usize, 0usize), (0, 1), (2, 2), (0, 6), (1, 8), (0, 9)] {
            let naive1: G1Projective = p1[offset..offset + len]
                .iter()
                .zip(&s)
                .map(|(p, s)| p * s)
                .sum();
            let naive2: G2Projective = p2[offset..offset + len]
                .iter()
                .zip(&s)
                .map(|(p, s)| p * s)
                .sum();
            assert_eq!(
                t1.lincomb_ct(offset, &s[..len]),
                naive1,
                "G1 {offset} {len}"
            );
            assert_eq!(
                t2.lincomb_ct(offset, &s[..len]),
                naive2,
                "G2 {offset} {len}"
            );
            assert_eq!(t1.lincomb_ct_one_thread(offset, &s[..len]), naive1);
            // The sequential core directly, whatever the thread count.
            assert_eq!(
                straus_ct::<G1Projective>(&t1.rows[offset..offset + len], &s[..len]),
                naive1
            );
        }
    }

    #[test]
    fn generator_tables_match_scalar_multiplication() {
        let mut rng = ChaCha20Rng::seed_from_u64(13);
        let mut scalars: Vec<Scalar> = (0..8).map(|_| Scalar::random(&mut rng)).collect();
        scalars.extend([Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(16u64)]);
        for s in &scalars {
            assert_eq!(g1_generator_mul_ct(s), G1Projective::generator() * s);
            assert_eq!(g2_generator_mul_ct(s), G2Projective::generator() * s);
        }
        // Digits at both ends of the range: windows of 31, 32 and 63 (carries), and the
        // largest scalar.
        // 496 = 15·32 + 16: a carry into a window of 15 makes it 16 and carries again;
        // 1023: windows of 31 (the digit −0 after a carry).
        scalars.extend([15u64, 16, 31, 32, 496, 1023, u64::MAX].map(Scalar::from));
        scalars.push(-Scalar::from(2u64));
        let p = G2Projective::random(&mut rng);
        let table = FixedBaseCt::new(p);
        for s in &scalars {
            assert_eq!(table.mul_ct(s), p * s);
        }
        let q = G1Projective::random(&mut rng);
        let table = FixedBaseCt::new(q);
        for s in &scalars {
            assert_eq!(table.mul_ct(s), q * s);
        }
    }

    #[test]
    fn signed_digits_recompose_to_the_scalar() {
        let mut rng = ChaCha20Rng::seed_from_u64(14);
        for _ in 0..64 {
            let s = Scalar::random(&mut rng);
            let mut sum = Scalar::ZERO;
            for (k, (magnitude, negative)) in signed_digits_ct(&s).iter().enumerate() {
                assert!(usize::from(*magnitude) < CT_ROW && *negative <= 1);
                let d = Scalar::from(u64::from(*magnitude));
                let d = if *negative == 1 { -d } else { d };
                sum += d * Scalar::from(1u64 << CT_WINDOW).pow_vartime([k as u64]);
            }
            assert_eq!(sum, s);
        }
    }

    #[test]
    fn ct_negation_matches_neg_and_keeps_the_identity() {
        let mut rng = ChaCha20Rng::seed_from_u64(15);
        let p = G1Projective::random(&mut rng).to_affine();
        let q = G2Projective::random(&mut rng).to_affine();
        assert_eq!(p.ct_neg(), -p);
        assert_eq!(q.ct_neg(), -q);
        assert!(bool::from(G1Affine::identity().ct_neg().is_identity()));
        assert!(bool::from(G2Affine::identity().ct_neg().is_identity()));
        assert_eq!(G1Affine::identity().ct_neg(), G1Affine::identity());
        assert_eq!(G2Affine::identity().ct_neg(), G2Affine::identity());
    }
}
