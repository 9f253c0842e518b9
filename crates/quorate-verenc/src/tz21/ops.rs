//! Group operations the TZ21 schemes spend their time in, with a fast path per curve.
//!
//! The schemes only ever multiply two fixed bases — the generator `G` and the escrow key
//! `ek` — plus one multi-scalar multiplication in RDKGitH verification, and they hash the
//! encodings of many points. [`Tz21Curve`] gives each of the four groups the fastest
//! primitive its audited crate offers for these:
//!
//! | curve | fixed-base multiplication | MSM (vartime, public data) | many encodings |
//! |---|---|---|---|
//! | secp256k1 | [`WindowTable`]: 65 rows of signed radix-16 affine multiples, constant-time row scans | Straus with width-5 wNAF | one batched inversion (`k256`'s `batch_normalize`) |
//! | P-256 | OpenSSL's constant-time assembly P-256 (`p256_openssl`), with the encodings: `G` with its built-in table, `ek` with OpenSSL's table of it (built once per key); small tables: [`WindowTable`] | Straus with width-5 wNAF | per point, across threads (`p256` 0.13's field element has no `Invert`, so `primeorder`'s `BatchNormalize` is not available for it, and the projective coordinates are private); multiples of `G` and `ek` come encoded from OpenSSL |
//! | BLS12-381 G1 | [`WindowTable`] | `blstrs` Pippenger (`multi_exp`) | per point (inversions are cheap there) |
//! | Ed25519 | `curve25519-dalek`'s `EdwardsBasepointTable` | dalek's vartime Straus/Pippenger | per point |
//!
//! All field and curve arithmetic stays in the curve crates (and, for P-256, OpenSSL); this
//! module only chooses which of their group operations to call. Multiples of `G` are asked
//! for in batches with their encodings ([`Tz21Curve::mul_gen_encoded`]), so that a backend
//! which converts to affine coordinates anyway (OpenSSL) hands out the encoding with the
//! point, and so are the multiples of `ek` that are only hashed
//! ([`Tz21Curve::mul_table_encoded`]). Secret scalars go through the constant-time
//! [`Tz21Curve::mul_table`]; the `_vartime` functions are used by the verifier and by
//! compression, on public data only.

use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};

use ff::PrimeField;
use group::{prime::PrimeCurveAffine, Curve as _, Group, GroupEncoding};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use crate::group::{Bls12381G1, Curve, Ed25519, Secp256k1, P256};

/// A [`Curve`] with the accelerated operations the TZ21 schemes use.
///
/// Implemented for the four curves of [`crate::group`]. Every method has the meaning of the
/// plain group operation it replaces; only the speed differs.
pub trait Tz21Curve: Curve {
    /// Precomputed multiples of one base point.
    type Table: Send + Sync + 'static;

    /// Precomputes multiples of `base` for about `uses` constant-time multiplications
    /// (a few hundred group additions; some curves pick a costlier layout for many uses).
    fn build_table(base: &Self::Point, uses: usize) -> Self::Table;

    /// The table of the generator `G`, built once per process.
    fn generator_table() -> &'static Self::Table;

    /// A table for **variable-time** use only, sized for about `uses` multiplications
    /// (larger windows when the table is used often). Defaults to [`Self::build_table`].
    fn build_table_vartime(base: &Self::Point, uses: usize) -> Self::Table {
        Self::build_table(base, uses)
    }

    /// A large table of `G` for variable-time use, built once per process. Defaults to
    /// [`Self::generator_table`].
    fn generator_table_vartime() -> &'static Self::Table {
        Self::generator_table()
    }

    /// `s · B` for the table's base `B`, in constant time (for secret `s`).
    fn mul_table(table: &Self::Table, s: &Self::Scalar) -> Self::Point;

    /// `s · B` in variable time: only for public `s`.
    fn mul_table_vartime(table: &Self::Table, s: &Self::Scalar) -> Self::Point {
        Self::mul_table(table, s)
    }

    /// The encodings ([`Curve::point_to_bytes`]) of `s · B` for every scalar, concatenated,
    /// in constant time: for multiples that are only hashed (the `K_i = r_i·ek` of the
    /// hashed-ElGamal encryptions). Parallel over the scalars.
    fn mul_table_encoded(table: &Self::Table, scalars: &[Self::Scalar]) -> Vec<u8> {
        mul_table_encoded_with::<Self>(table, scalars, Self::mul_table)
    }

    /// [`Self::mul_table_encoded`] in variable time: only for public scalars.
    fn mul_table_encoded_vartime(table: &Self::Table, scalars: &[Self::Scalar]) -> Vec<u8> {
        mul_table_encoded_with::<Self>(table, scalars, Self::mul_table_vartime)
    }

    /// `Σ scalars[i] · points[i]` in variable time: only for public inputs.
    fn msm_vartime(points: &[Self::Point], scalars: &[Self::Scalar]) -> Self::Point;

    /// The concatenation of [`Curve::point_to_bytes`] of every point (batched where the
    /// curve crate offers batched normalisation).
    fn encode_points(points: &[Self::Point]) -> Vec<u8> {
        encode_each::<Self>(points)
    }

    /// `s · G` in constant time.
    fn mul_gen(s: &Self::Scalar) -> Self::Point {
        Self::mul_table(Self::generator_table(), s)
    }

    /// `s · G` for every scalar, in constant time, with the results' encodings
    /// ([`Curve::point_to_bytes`]) concatenated. Parallel over the scalars.
    fn mul_gen_encoded(scalars: &[Self::Scalar]) -> (Vec<Self::Point>, Vec<u8>) {
        mul_gen_encoded_with::<Self>(scalars, Self::mul_gen)
    }

    /// [`Self::mul_gen_encoded`] in variable time: only for public scalars.
    fn mul_gen_encoded_vartime(scalars: &[Self::Scalar]) -> (Vec<Self::Point>, Vec<u8>) {
        mul_gen_encoded_with::<Self>(scalars, Self::mul_gen_vartime)
    }

    /// The encoding of `s · P`, in constant time (for a secret `s`, such as the escrow's
    /// decryption key).
    fn mul_encoded(p: &Self::Point, s: &Self::Scalar) -> Vec<u8> {
        Self::point_to_bytes(&(*p * s))
    }

    /// `s · G` in variable time (public `s`).
    fn mul_gen_vartime(s: &Self::Scalar) -> Self::Point {
        Self::mul_table_vartime(Self::generator_table_vartime(), s)
    }
}

/// The fixed-base tables of one escrow key `ek`: a constant-time table for the prover's
/// secret randomness and a large variable-time table for the verifier's.
pub struct KeyTables<C: Tz21Curve> {
    /// For [`Tz21Curve::mul_table`] (secret scalars).
    pub ct: C::Table,
    /// For [`Tz21Curve::mul_table_vartime`] (public scalars only).
    pub vartime: C::Table,
}

/// Escrow keys whose tables are kept (a node uses one; the CLI and tests a few).
const KEY_TABLES_KEPT: usize = 4;

type TableCache = Vec<(&'static str, Vec<u8>, Arc<dyn Any + Send + Sync>)>;

/// The tables of `ek`, built on first use and kept for the process (at most
/// [`KEY_TABLES_KEPT`] keys, the least recently used dropped first). An escrow key is
/// public and long-lived, so, as in the reference implementation (which builds them at key
/// generation), every proof and verification after the first under the same key skips the
/// table building and gets the larger layouts: affine or wide-window entries that would
/// not pay for themselves within one call.
pub fn key_tables<C: Tz21Curve>(ek: &C::Point) -> Arc<KeyTables<C>> {
    static CACHE: OnceLock<Mutex<TableCache>> = OnceLock::new();
    let enc = C::point_to_bytes(ek);
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    let lookup = |kept: &mut TableCache| -> Option<Arc<KeyTables<C>>> {
        let pos = kept
            .iter()
            .position(|(n, b, _)| *n == C::NAME && *b == enc)?;
        let entry = kept.remove(pos);
        let tables = entry.2.clone().downcast::<KeyTables<C>>().ok();
        kept.push(entry);
        tables
    };
    if let Some(t) = lookup(&mut cache.lock().unwrap_or_else(|e| e.into_inner())) {
        return t;
    }
    // Built without holding the lock: the build runs on rayon's pool, whose workers may be
    // waiting for this very lock in other calls (a deadlock when the lock is held here).
    // Two first calls with the same key may both build; the first one stored is kept.
    let (ct, vartime) = rayon::join(
        || C::build_table(ek, usize::MAX),
        || C::build_table_vartime(ek, usize::MAX),
    );
    let built = Arc::new(KeyTables::<C> { ct, vartime });
    let mut kept = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = lookup(&mut kept) {
        return t;
    }
    if kept.len() >= KEY_TABLES_KEPT {
        kept.remove(0);
    }
    kept.push((C::NAME, enc, built.clone()));
    built
}

/// Most rows a [`WindowTable`] can have (window width 4: 64 digits plus a carry).
const MAX_ROWS: usize = 65;

/// Rows of a table of window width `w`: `⌈256/w⌉` digits plus a final carry.
fn rows_for(w: u32) -> usize {
    256usize.div_ceil(w as usize) + 1
}

/// Signed radix-`2^w` digits `d_k ∈ [−2^{w−1}, 2^{w−1})` (the last one in {0, 1}) with
/// `s = Σ d_k 2^{wk}`, computed without secret-dependent branches or indices.
fn signed_digits(le: &[u8; 32], w: u32) -> [i32; MAX_ROWS] {
    let mut d = [0i32; MAX_ROWS];
    let rows = rows_for(w);
    let mask = (1u32 << w) - 1;
    let half = 1i32 << (w - 1);
    let mut carry = 0i32;
    for (k, dk) in d.iter_mut().enumerate().take(rows - 1) {
        let pos = k * w as usize;
        let (byte, sh) = (pos / 8, pos % 8);
        let lo = le.get(byte).copied().unwrap_or(0) as u32;
        let hi = le.get(byte + 1).copied().unwrap_or(0) as u32;
        let bits = ((lo | (hi << 8)) >> sh) & mask;
        let v = bits as i32 + carry; // in [0, 2^w]
        carry = (v + half) >> w; // 1 iff v ≥ 2^{w−1}
        *dk = v - (carry << w);
    }
    d[rows - 1] = carry;
    d
}

/// The scalar as 32 little-endian bytes.
fn scalar_le<C: Curve>(s: &C::Scalar) -> [u8; 32] {
    let mut b = C::scalar_to_be_bytes(s);
    b.reverse();
    b
}

/// Fixed-base table with window width `w`: row `k` holds `j · 2^{wk} · B` for
/// `j = 1..=2^{w−1}`, as entries of type `E` (affine points where the curve crate can
/// normalise in batches, projective points otherwise). `s · B` then costs one addition per
/// row and no doublings.
pub struct WindowTable<P, E> {
    w: u32,
    zero: E,
    entries: Vec<E>,
    _point: core::marker::PhantomData<P>,
}

impl<P, E> WindowTable<P, E>
where
    P: Group + core::ops::AddAssign<E> + core::ops::SubAssign<E>,
    E: Copy + ConditionallySelectable + core::ops::Neg<Output = E>,
{
    /// Builds the table (`w ∈ 4..=8`), converting entries with `normalize`.
    fn build(base: &P, w: u32, zero: E, normalize: fn(&[P]) -> Vec<E>) -> Self {
        let half = 1usize << (w - 1);
        let rows = rows_for(w);
        let mut proj = Vec::with_capacity(rows * half);
        let mut row_base = *base;
        for _ in 0..rows {
            let mut acc = row_base;
            for _ in 0..half {
                proj.push(acc);
                acc += row_base;
            }
            for _ in 0..w {
                row_base = row_base.double();
            }
        }
        WindowTable {
            w,
            zero,
            entries: normalize(&proj),
            _point: core::marker::PhantomData,
        }
    }

    /// Constant time: every entry of every row is scanned and the sign applied by
    /// selection.
    fn mul_ct(&self, le: &[u8; 32]) -> P {
        let mut digits = signed_digits(le, self.w);
        let half = 1usize << (self.w - 1);
        let mut acc = P::identity();
        for (row, &d) in self.entries.chunks_exact(half).zip(digits.iter()) {
            let sign = (d >> 31) as u32 & 1;
            let abs = ((d ^ (d >> 31)) - (d >> 31)) as u32; // |d| in 0..=half
            let mut pick = self.zero;
            for (j, e) in row.iter().enumerate() {
                pick.conditional_assign(e, abs.ct_eq(&(j as u32 + 1)));
            }
            let neg = -pick;
            pick.conditional_assign(&neg, Choice::from(sign as u8));
            acc += pick;
        }
        digits.zeroize();
        acc
    }

    /// Variable time (public scalars only): skips zero digits and indexes rows directly.
    fn mul_vartime(&self, le: &[u8; 32]) -> P {
        let digits = signed_digits(le, self.w);
        let half = 1usize << (self.w - 1);
        let mut acc = P::identity();
        for (row, &d) in self.entries.chunks_exact(half).zip(digits.iter()) {
            match d {
                0 => {}
                d if d > 0 => acc += row[d as usize - 1],
                d => acc -= row[(-d) as usize - 1],
            }
        }
        acc
    }
}

/// Window width of a variable-time table expected to serve `uses` multiplications:
/// building costs about `⌈256/w⌉·2^{w−1}` additions, each use `⌈256/w⌉`.
fn vartime_width(uses: usize) -> u32 {
    match uses {
        0..=199 => 4,
        200..=999 => 6,
        _ => 8,
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

/// Encodings of many points; k256 normalises them with one batched inversion.
fn encode_k256(points: &[k256::ProjectivePoint]) -> Vec<u8> {
    let aff = normalize_k256(points);
    let mut out = Vec::with_capacity(points.len() * 33);
    for a in &aff {
        out.extend_from_slice(a.to_bytes().as_ref());
    }
    out
}

/// The encodings of `mul(table, s)` for every scalar (multiplications across threads).
fn mul_table_encoded_with<C: Tz21Curve>(
    table: &C::Table,
    scalars: &[C::Scalar],
    mul: fn(&C::Table, &C::Scalar) -> C::Point,
) -> Vec<u8> {
    use rayon::prelude::*;
    let pts: Vec<C::Point> = scalars.par_iter().map(|s| mul(table, s)).collect();
    C::encode_points(&pts)
}

/// `mul(s)` for every scalar (across threads), and the encodings of the results.
fn mul_gen_encoded_with<C: Tz21Curve>(
    scalars: &[C::Scalar],
    mul: fn(&C::Scalar) -> C::Point,
) -> (Vec<C::Point>, Vec<u8>) {
    use rayon::prelude::*;
    let pts: Vec<C::Point> = scalars.par_iter().map(mul).collect();
    let enc = C::encode_points(&pts);
    (pts, enc)
}

/// One encoding (one inversion) per point; large batches are split across threads.
fn encode_each<C: Curve>(points: &[C::Point]) -> Vec<u8> {
    use rayon::prelude::*;
    let one = |chunk: &[C::Point]| {
        let mut out = Vec::with_capacity(chunk.len() * C::POINT_LEN);
        for p in chunk {
            out.extend_from_slice(p.to_bytes().as_ref());
        }
        out
    };
    if points.len() < 64 {
        return one(points);
    }
    points.par_chunks(32).map(one).collect::<Vec<_>>().concat()
}

fn encode_bls(points: &[blstrs::G1Projective]) -> Vec<u8> {
    encode_each::<Bls12381G1>(points)
}

fn msm_straus<C: Curve>(points: &[C::Point], scalars: &[C::Scalar]) -> C::Point {
    straus_vartime::<C>(points, scalars)
}

fn msm_bls(points: &[blstrs::G1Projective], scalars: &[blstrs::Scalar]) -> blstrs::G1Projective {
    if points.len() != scalars.len() || points.is_empty() {
        return straus_vartime::<Bls12381G1>(points, scalars);
    }
    blstrs::G1Projective::multi_exp(points, scalars)
}

macro_rules! window_impl {
    ($curve:ty, $proj:ty, $entry:ty, $zero:expr, $normalize:ident, $encode:ident, $msm:expr, $big:expr) => {
        impl Tz21Curve for $curve {
            type Table = WindowTable<$proj, $entry>;

            fn build_table(base: &$proj, _uses: usize) -> Self::Table {
                WindowTable::build(base, 4, $zero, $normalize)
            }

            fn generator_table() -> &'static Self::Table {
                static TABLE: OnceLock<WindowTable<$proj, $entry>> = OnceLock::new();
                TABLE.get_or_init(|| {
                    WindowTable::build(&<$proj as Group>::generator(), 4, $zero, $normalize)
                })
            }

            fn build_table_vartime(base: &$proj, uses: usize) -> Self::Table {
                let w = if $big { vartime_width(uses) } else { 4 };
                WindowTable::build(base, w, $zero, $normalize)
            }

            fn generator_table_vartime() -> &'static Self::Table {
                if !$big {
                    return Self::generator_table();
                }
                static TABLE: OnceLock<WindowTable<$proj, $entry>> = OnceLock::new();
                TABLE.get_or_init(|| {
                    WindowTable::build(&<$proj as Group>::generator(), 8, $zero, $normalize)
                })
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
                $msm(points, scalars)
            }

            fn encode_points(points: &[$proj]) -> Vec<u8> {
                $encode(points)
            }
        }
    };
}

/// P-256 tables: projective entries (cheap to build), affine entries normalised one
/// inversion at a time (about 3 ms to build, then about 20% faster per multiplication), or,
/// for a table used many times (an escrow key's), OpenSSL's own table of the point
/// ([`super::p256_openssl::KeyTable`]), whose multiples come back with their encodings.
/// `p256` 0.13 offers no batched normalisation for slices, so the choice depends on how
/// often the table will be used.
pub enum P256Table {
    /// Projective entries.
    Projective(WindowTable<p256::ProjectivePoint, p256::ProjectivePoint>),
    /// Affine entries.
    Affine(WindowTable<p256::ProjectivePoint, p256::AffinePoint>),
    /// OpenSSL's constant-time table of the base, and the base itself (for the `p256`
    /// fallback should OpenSSL report an error).
    OpenSsl(Arc<super::p256_openssl::KeyTable>, p256::ProjectivePoint),
}

fn normalize_p256_proj(points: &[p256::ProjectivePoint]) -> Vec<p256::ProjectivePoint> {
    points.to_vec()
}

fn normalize_p256_affine(points: &[p256::ProjectivePoint]) -> Vec<p256::AffinePoint> {
    points.iter().map(|p| p.to_affine()).collect()
}

impl P256Table {
    /// OpenSSL's table of `base`, or, if OpenSSL cannot build it, affine `p256` entries of
    /// window width `w`.
    fn build_openssl(base: &p256::ProjectivePoint, w: u32) -> Self {
        match super::p256_openssl::KeyTable::shared(base.to_bytes().as_ref()) {
            Some(t) => P256Table::OpenSsl(t, *base),
            None => Self::build(base, w, true),
        }
    }

    fn build(base: &p256::ProjectivePoint, w: u32, affine: bool) -> Self {
        if affine {
            P256Table::Affine(WindowTable::build(
                base,
                w,
                p256::AffinePoint::IDENTITY,
                normalize_p256_affine,
            ))
        } else {
            P256Table::Projective(WindowTable::build(
                base,
                w,
                p256::ProjectivePoint::IDENTITY,
                normalize_p256_proj,
            ))
        }
    }
}

/// `s·G` with encodings through OpenSSL, in chunks across threads; a chunk OpenSSL fails
/// on is computed with `p256`'s table instead.
fn p256_gen_encoded(scalars: &[p256::Scalar]) -> (Vec<p256::ProjectivePoint>, Vec<u8>) {
    use rayon::prelude::*;
    let parts: Vec<(Vec<p256::ProjectivePoint>, Vec<u8>)> = scalars
        .par_chunks(8)
        .map(|chunk| {
            super::p256_openssl::mul_gen_encoded(chunk).unwrap_or_else(|| {
                let pts: Vec<_> = chunk
                    .iter()
                    .map(|s| P256::mul_table(P256::generator_table(), s))
                    .collect();
                let enc = encode_each::<P256>(&pts);
                (pts, enc)
            })
        })
        .collect();
    let mut pts = Vec::with_capacity(scalars.len());
    let mut enc = Vec::with_capacity(scalars.len() * P256::POINT_LEN);
    for (p, e) in parts {
        pts.extend(p);
        enc.extend(e);
    }
    (pts, enc)
}

/// `s·B` with encodings from OpenSSL's table of `B`, in chunks across threads; a chunk
/// OpenSSL fails on is computed with `p256`'s (constant-time) multiplication instead.
fn p256_key_table_encoded(
    table: &super::p256_openssl::KeyTable,
    base: &p256::ProjectivePoint,
    scalars: &[p256::Scalar],
) -> Vec<u8> {
    use rayon::prelude::*;
    scalars
        .par_chunks(8)
        .map(|chunk| {
            table.mul_encoded(chunk).unwrap_or_else(|| {
                let pts: Vec<_> = chunk.iter().map(|s| *base * s).collect();
                encode_each::<P256>(&pts)
            })
        })
        .collect::<Vec<_>>()
        .concat()
}

/// Uses above which affine P-256 entries pay for their per-entry inversions (and an
/// escrow key gets OpenSSL's table).
const P256_AFFINE_USES: usize = 800;

/// Window width of a P-256 constant-time table built for many uses (an escrow key's):
/// a `p256` 0.13 mixed addition costs several times a row entry's constant-time
/// selection, so wider rows than `k256`'s best (4) pay off.
const P256_CT_WIDTH_MANY: u32 = 5;

impl Tz21Curve for P256 {
    type Table = P256Table;

    fn build_table(base: &p256::ProjectivePoint, uses: usize) -> P256Table {
        if uses >= P256_AFFINE_USES {
            P256Table::build_openssl(base, P256_CT_WIDTH_MANY)
        } else {
            P256Table::build(base, 4, false)
        }
    }

    fn generator_table() -> &'static P256Table {
        static TABLE: OnceLock<P256Table> = OnceLock::new();
        TABLE.get_or_init(|| P256Table::build(&p256::ProjectivePoint::GENERATOR, 4, true))
    }

    /// Many uses: OpenSSL's constant-time table (with its encodings it is faster than
    /// `p256`'s variable-time width-8 table plus an inversion per point).
    fn build_table_vartime(base: &p256::ProjectivePoint, uses: usize) -> P256Table {
        if uses >= P256_AFFINE_USES {
            P256Table::build_openssl(base, P256_CT_WIDTH_MANY)
        } else {
            P256Table::build(base, vartime_width(uses), false)
        }
    }

    fn generator_table_vartime() -> &'static P256Table {
        static TABLE: OnceLock<P256Table> = OnceLock::new();
        // Projective: 4224 entries would cost ~27 ms of single inversions, for ~10% faster
        // additions.
        TABLE.get_or_init(|| P256Table::build(&p256::ProjectivePoint::GENERATOR, 8, false))
    }

    /// OpenSSL's precomputed table of `G` ([`super::p256_openssl`]).
    fn mul_gen(s: &p256::Scalar) -> p256::ProjectivePoint {
        match super::p256_openssl::mul_gen_encoded(core::slice::from_ref(s)) {
            Some((pts, _)) if pts.len() == 1 => pts[0],
            _ => Self::mul_table(Self::generator_table(), s),
        }
    }

    /// OpenSSL's precomputed table of `G`, on both threads; the results' encodings come
    /// from OpenSSL's conversion to affine coordinates.
    fn mul_gen_encoded(scalars: &[p256::Scalar]) -> (Vec<p256::ProjectivePoint>, Vec<u8>) {
        p256_gen_encoded(scalars)
    }

    /// The same constant-time OpenSSL path as [`Self::mul_gen_encoded`]: it is faster than
    /// `p256`'s variable-time table once the encodings are counted.
    fn mul_gen_encoded_vartime(scalars: &[p256::Scalar]) -> (Vec<p256::ProjectivePoint>, Vec<u8>) {
        p256_gen_encoded(scalars)
    }

    /// OpenSSL's constant-time multiplication of a point handed over in its uncompressed
    /// encoding (a compressed one would cost OpenSSL a generic square root to decode).
    fn mul_encoded(p: &p256::ProjectivePoint, s: &p256::Scalar) -> Vec<u8> {
        use p256::elliptic_curve::sec1::ToEncodedPoint;
        super::p256_openssl::mul_encoded(p.to_affine().to_encoded_point(false).as_bytes(), s)
            .unwrap_or_else(|| Self::point_to_bytes(&(*p * s)))
    }

    fn mul_table(table: &P256Table, s: &p256::Scalar) -> p256::ProjectivePoint {
        let mut le = scalar_le::<Self>(s);
        let p = match table {
            P256Table::Projective(t) => t.mul_ct(&le),
            P256Table::Affine(t) => t.mul_ct(&le),
            // `p256`'s own multiplication is constant time too (the fallback).
            P256Table::OpenSsl(t, base) => t.mul(s).unwrap_or_else(|| *base * s),
        };
        le.zeroize();
        p
    }

    fn mul_table_vartime(table: &P256Table, s: &p256::Scalar) -> p256::ProjectivePoint {
        let le = scalar_le::<Self>(s);
        match table {
            P256Table::Projective(t) => t.mul_vartime(&le),
            P256Table::Affine(t) => t.mul_vartime(&le),
            P256Table::OpenSsl(..) => Self::mul_table(table, s),
        }
    }

    /// With OpenSSL's table, the encodings come from OpenSSL (chunks across threads).
    fn mul_table_encoded(table: &P256Table, scalars: &[p256::Scalar]) -> Vec<u8> {
        match table {
            P256Table::OpenSsl(t, base) => p256_key_table_encoded(t, base, scalars),
            _ => mul_table_encoded_with::<Self>(table, scalars, Self::mul_table),
        }
    }

    /// The constant-time OpenSSL path when the table is OpenSSL's (faster than `p256`'s
    /// variable-time table once the encodings are counted).
    fn mul_table_encoded_vartime(table: &P256Table, scalars: &[p256::Scalar]) -> Vec<u8> {
        match table {
            P256Table::OpenSsl(t, base) => p256_key_table_encoded(t, base, scalars),
            _ => mul_table_encoded_with::<Self>(table, scalars, Self::mul_table_vartime),
        }
    }

    fn msm_vartime(
        points: &[p256::ProjectivePoint],
        scalars: &[p256::Scalar],
    ) -> p256::ProjectivePoint {
        straus_vartime::<Self>(points, scalars)
    }

    fn encode_points(points: &[p256::ProjectivePoint]) -> Vec<u8> {
        encode_each::<Self>(points)
    }
}

window_impl!(
    Secp256k1,
    k256::ProjectivePoint,
    k256::AffinePoint,
    k256::AffinePoint::IDENTITY,
    normalize_k256,
    encode_k256,
    msm_straus::<Secp256k1>,
    true
);
window_impl!(
    Bls12381G1,
    blstrs::G1Projective,
    blstrs::G1Affine,
    blstrs::G1Affine::identity(),
    normalize_bls,
    encode_bls,
    msm_bls,
    false
);

/// 8⁻¹ mod ℓ: dalek's tables live on the full curve, so `s · P` for `P` in the prime-order
/// subgroup is computed as `8 · ((s/8) · P)`, and the multiplication by the cofactor maps
/// the result into [`curve25519_dalek::edwards::SubgroupPoint`] without a torsion check.
fn inv8() -> curve25519_dalek::Scalar {
    static INV8: OnceLock<curve25519_dalek::Scalar> = OnceLock::new();
    *INV8.get_or_init(|| curve25519_dalek::Scalar::from(8u64).invert())
}

impl Tz21Curve for Ed25519 {
    type Table = curve25519_dalek::edwards::EdwardsBasepointTable;

    fn build_table(base: &Self::Point, _uses: usize) -> Self::Table {
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
        let t = C::build_table(&b, 10);
        let t2 = C::build_table(&b, 5000);
        let mut specials = vec![C::Scalar::ZERO, C::Scalar::ONE, -C::Scalar::ONE];
        specials.extend((0..20).map(|_| C::Scalar::random(&mut rng)));
        for s in &specials {
            assert_eq!(C::mul_table(&t, s), b * s);
            assert_eq!(C::mul_table_vartime(&t, s), b * s);
            assert_eq!(C::mul_gen(s), C::Point::generator() * s);
            assert_eq!(C::mul_gen_vartime(s), C::Point::generator() * s);
        }
        for s in &specials {
            assert_eq!(C::mul_table(&t2, s), b * s);
            assert_eq!(C::mul_table_vartime(&t2, s), b * s);
        }
        let want: Vec<C::Point> = specials.iter().map(|s| b * s).collect();
        let want_enc = encode_each::<C>(&want);
        for table in [&t, &t2, &C::build_table_vartime(&b, 5000)] {
            assert_eq!(C::mul_table_encoded(table, &specials), want_enc);
            assert_eq!(C::mul_table_encoded_vartime(table, &specials), want_enc);
        }
        for uses in [10, 500, 5000] {
            let tv = C::build_table_vartime(&b, uses);
            for s in &specials {
                assert_eq!(C::mul_table_vartime(&tv, s), b * s);
            }
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
        // An identity among the points (a proof may carry one) is handled by the tables.
        let mut with_id = pts.clone();
        with_id[6] = C::Point::identity();
        let naive_id = naive - pts[6] * sc[6];
        assert_eq!(C::msm_vartime(&with_id, &sc), naive_id);
        let mut enc = Vec::new();
        for p in &pts {
            enc.extend(C::point_to_bytes(p));
        }
        assert_eq!(C::encode_points(&pts), enc);
        for (p, s) in pts.iter().zip(sc.iter()) {
            assert_eq!(C::mul_encoded(p, s), C::point_to_bytes(&(*p * s)));
        }
        let plain: Vec<C::Point> = sc.iter().map(|s| C::Point::generator() * s).collect();
        let plain_enc = encode_each::<C>(&plain);
        assert_eq!(C::mul_gen_encoded(&sc), (plain.clone(), plain_enc.clone()));
        assert_eq!(C::mul_gen_encoded_vartime(&sc), (plain, plain_enc));

        let mut xs: Vec<C::Scalar> = (1..10u64).map(C::Scalar::from).collect();
        batch_invert(&mut xs);
        for (i, x) in xs.iter().enumerate() {
            assert_eq!(*x * C::Scalar::from(i as u64 + 1), C::Scalar::ONE);
        }
    }

    fn cached_tables<C: Tz21Curve>() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let keys: Vec<C::Point> = (0..KEY_TABLES_KEPT + 1)
            .map(|_| C::Point::random(&mut rng))
            .collect();
        let s = C::Scalar::random(&mut rng);
        for ek in &keys {
            let t = key_tables::<C>(ek);
            assert_eq!(C::mul_table(&t.ct, &s), *ek * s);
            assert_eq!(C::mul_table_vartime(&t.vartime, &s), *ek * s);
            // A second request for the same key gets the kept tables.
            assert!(Arc::ptr_eq(&t, &key_tables::<C>(ek)));
        }
        // The first key was dropped to keep the others; asking again rebuilds it.
        let again = key_tables::<C>(&keys[0]);
        assert_eq!(C::mul_table(&again.ct, &s), keys[0] * s);
    }

    #[test]
    fn escrow_key_tables_are_kept_per_curve_and_key() {
        cached_tables::<P256>();
        cached_tables::<Secp256k1>();
        cached_tables::<Ed25519>();
    }

    #[test]
    fn accelerated_ops_match_plain_group_operations() {
        check::<P256>();
        check::<Secp256k1>();
        check::<Bls12381G1>();
        check::<Ed25519>();
    }
}
