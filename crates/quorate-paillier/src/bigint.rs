//! Big-integer plumbing shared by the rest of the crate (and by `quorate-verenc` and
//! `quorate-mixnet`): uniform sampling from a caller's RNG, fixed-length canonical byte
//! encodings, modular exponentiation on the constant-time or the variable-time GMP path, and
//! best-effort wiping of secret integers.
//!
//! # Randomness
//!
//! All sampling takes a caller's `rand_core::{RngCore, CryptoRng}` and turns bytes into
//! integers. [`random_below`] is exactly uniform: it draws `bits(bound - 1)` random bits and
//! rejects values `>= bound` (fewer than two draws on average).
//!
//! # Constant time
//!
//! [`pow_mod_secret`] is GMP's `mpz_powm_sec`, whose running time and memory access pattern
//! depend only on the *sizes* of its arguments. Everything else here (and GMP's `mpz_*`
//! arithmetic in general) is variable time: `mpz` values are normalised, so timings depend on
//! limb counts, and multiplication, division and gcd choose algorithms and branch on data.
//! Functions that are variable time in their exponent carry the `_vartime` suffix and must
//! only see public exponents.
//!
//! # Wiping
//!
//! `rug::Integer` does not implement `Zeroize` and this crate forbids `unsafe`, so
//! [`wipe_integer`] overwrites an integer through GMP itself: it assigns a value of all-one
//! bits that fills the whole current allocation (which GMP copies in place, because it fits
//! without reallocating), then assigns zero. Limitations, stated plainly:
//!
//! * copies that GMP made earlier are not reached: a buffer left behind when an integer grew
//!   (GMP reallocates through `realloc`, which may move the data and free the old block
//!   unwiped), and the scratch space of `mpz_mul`, `mpz_powm_sec`, divisions, etc., which GMP
//!   allocates internally (on the stack or heap) and frees without clearing;
//! * temporaries that are not wrapped in [`SecretInteger`] are not wiped.
//!
//! Secret values in this crate live in [`SecretInteger`], which calls [`wipe_integer`] on drop
//! and never prints its value.

use crate::error::PaillierError;
use quorate_core::DecodeError;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use rug::integer::Order;
use rug::{Assign, Integer};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::{Zeroize, Zeroizing};

/// Number of bytes needed for `bits` bits.
pub fn byte_len(bits: u32) -> usize {
    (bits as usize).div_ceil(8)
}

/// A uniform integer in `[0, 2^bits)`.
pub fn random_bits<R: RngCore + CryptoRng>(rng: &mut R, bits: u32) -> Integer {
    if bits == 0 {
        return Integer::new();
    }
    let len = byte_len(bits);
    let mut buf = Zeroizing::new(vec![0u8; len]);
    rng.fill_bytes(&mut buf);
    let excess = len * 8 - bits as usize;
    if let Some(first) = buf.first_mut() {
        *first &= 0xffu8 >> excess;
    }
    Integer::from_digits(&buf[..], Order::Msf)
}

/// A uniform integer in `[0, bound)`, by rejection sampling. Returns 0 if `bound <= 1`.
pub fn random_below<R: RngCore + CryptoRng>(rng: &mut R, bound: &Integer) -> Integer {
    if *bound <= 1 {
        return Integer::new();
    }
    let bits = Integer::from(bound - 1u32).significant_bits();
    loop {
        let x = random_bits(rng, bits);
        if x < *bound {
            return x;
        }
    }
}

/// A uniform integer in `(-bound, bound)`. Returns 0 if `bound <= 1`.
pub fn random_symmetric<R: RngCore + CryptoRng>(rng: &mut R, bound: &Integer) -> Integer {
    if *bound <= 1 {
        return Integer::new();
    }
    let width = Integer::from(bound * 2u32) - 1u32;
    random_below(rng, &width) - Integer::from(bound - 1u32)
}

/// A uniform unit of `Z_m^*` (an integer in `[1, m)` coprime to `m`), by rejection.
///
/// Returns an error if `m < 2`. For an RSA-type modulus almost every draw is accepted.
pub fn random_unit<R: RngCore + CryptoRng>(
    rng: &mut R,
    m: &Integer,
) -> Result<Integer, PaillierError> {
    if *m < 2 {
        return Err(PaillierError::InvalidModulus(
            "modulus below 2 has no units",
        ));
    }
    loop {
        let x = random_below(rng, m);
        if x != 0 && Integer::from(x.gcd_ref(m)) == 1 {
            return Ok(x);
        }
    }
}

/// Whether `0 < x < m` and `gcd(x, m) = 1`.
pub fn is_unit_in_range(x: &Integer, m: &Integer) -> bool {
    *x > 0 && x < m && Integer::from(x.gcd_ref(m)) == 1
}

/// Writes non-negative `x` big-endian into exactly `len` bytes (left-padded with zeros).
///
/// Returns `None` if `x` is negative or does not fit.
pub fn to_be_bytes_padded(x: &Integer, len: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; len];
    write_be_padded(x, &mut out).then_some(out)
}

/// Writes non-negative `x` big-endian into `out`, left-padded with zeros. Returns `false`
/// (leaving `out` untouched) if `x` is negative or does not fit.
pub fn write_be_padded(x: &Integer, out: &mut [u8]) -> bool {
    if *x < 0 || x.significant_digits::<u8>() > out.len() {
        return false;
    }
    x.write_digits(out, Order::Msf);
    true
}

/// Reads a big-endian unsigned integer (any length, leading zeros allowed).
pub fn from_be_bytes(bytes: &[u8]) -> Integer {
    Integer::from_digits(bytes, Order::Msf)
}

/// Reads a *minimal* big-endian encoding: non-empty and without a leading zero byte.
pub fn from_be_bytes_minimal(what: &'static str, bytes: &[u8]) -> Result<Integer, DecodeError> {
    match bytes.first() {
        None => Err(DecodeError::WrongLength {
            what,
            expected: 1,
            got: 0,
        }),
        Some(0) => Err(DecodeError::NonCanonical { what }),
        Some(_) => Ok(from_be_bytes(bytes)),
    }
}

/// The minimal big-endian encoding of non-negative `x` (empty for zero).
pub fn to_be_bytes_minimal(x: &Integer) -> Vec<u8> {
    x.to_digits::<u8>(Order::Msf)
}

/// `base^exp mod modulus` on GMP's constant-time path (`mpz_powm_sec`): running time and
/// memory accesses depend only on the sizes of the operands, not their values. Use it
/// whenever the exponent or the base is secret.
///
/// `exp` must be non-negative and `modulus` odd and greater than 1. An exponent of zero
/// returns 1 directly (GMP's function rejects it); that branch only reveals that the
/// exponent is zero.
pub fn pow_mod_secret(
    base: &Integer,
    exp: &Integer,
    modulus: &Integer,
) -> Result<Integer, PaillierError> {
    if *modulus <= 1 || modulus.is_even() {
        return Err(PaillierError::InvalidModulus(
            "constant-time exponentiation needs an odd modulus above 1",
        ));
    }
    if *exp < 0 {
        return Err(PaillierError::ExponentOutOfRange {
            what: "constant-time exponentiation (negative exponent)",
        });
    }
    if *exp == 0 {
        return Ok(Integer::from(1));
    }
    let b = modulo(base, modulus);
    Ok(Integer::from(b.secure_pow_mod_ref(exp, modulus)))
}

/// `base^exp mod modulus` with GMP's fast variable-time `mpz_powm`. **Only for public
/// exponents** (the running time depends on the exponent's bits). A negative exponent
/// inverts the base first and fails if it is not a unit.
pub fn pow_mod_vartime(
    base: &Integer,
    exp: &Integer,
    modulus: &Integer,
) -> Result<Integer, PaillierError> {
    if *modulus <= 1 {
        return Err(PaillierError::InvalidModulus("modulus must exceed 1"));
    }
    match base.pow_mod_ref(exp, modulus) {
        Some(p) => Ok(Integer::from(p)),
        None => Err(PaillierError::NotAUnit {
            what: "base of a negative power",
        }),
    }
}

/// Bucket (Pippenger) window for `n` exponents of `bits` bits: minimises
/// `⌈bits/c⌉·(n + 2^{c+1})` multiplications.
fn window_bits(n: usize, bits: u32) -> u32 {
    (1..=16u32)
        .min_by_key(|&c| (bits.div_ceil(c) as u128) * (n as u128 + (1u128 << (c + 1))))
        .unwrap_or(4)
}

fn pippenger_vartime(bases: &[Integer], exps: &[Integer], m: &Integer) -> Integer {
    let bits = exps.iter().map(|e| e.significant_bits()).max().unwrap_or(0);
    let mut acc = Integer::from(1);
    if bits == 0 {
        return acc;
    }
    let c = window_bits(bases.len(), bits);
    let windows = bits.div_ceil(c);
    let mut buckets: Vec<Option<Integer>> = vec![None; (1usize << c) - 1];
    for w in (0..windows).rev() {
        if acc != 1 {
            for _ in 0..c {
                acc.square_mut();
                acc %= m;
            }
        }
        let lo = w * c;
        for (b, e) in bases.iter().zip(exps) {
            let mut d = 0usize;
            for j in (0..c).rev() {
                d = (d << 1) | usize::from(e.get_bit(lo + j));
            }
            if let Some(slot) = d.checked_sub(1).and_then(|k| buckets.get_mut(k)) {
                match slot {
                    Some(x) => {
                        *x *= b;
                        *x %= m;
                    }
                    None => *slot = Some(Integer::from(b % m)),
                }
            }
        }
        // Σ_d d·bucket_d by running sums from the top bucket down.
        let mut running: Option<Integer> = None;
        let mut total: Option<Integer> = None;
        for slot in buckets.iter_mut().rev() {
            if let Some(x) = slot.take() {
                running = Some(match running {
                    Some(mut r) => {
                        r *= &x;
                        r %= m;
                        r
                    }
                    None => x,
                });
            }
            if let Some(r) = &running {
                total = Some(match total {
                    Some(mut t) => {
                        t *= r;
                        t %= m;
                        t
                    }
                    None => r.clone(),
                });
            }
        }
        if let Some(t) = total {
            acc *= t;
            acc %= m;
        }
    }
    acc
}

/// Straus window for `n` exponents of `bits` bits: minimises `n·(⌈bits/w⌉ + 2^w)`
/// multiplications (the `bits` squarings are the same for every `w`).
fn straus_window(n: usize, bits: u32) -> u32 {
    (1..=10u32)
        .min_by_key(|&w| (n as u128) * (u128::from(bits.div_ceil(w)) + (1u128 << w)))
        .unwrap_or(4)
}

/// Which method [`multi_pow_vartime`] uses for `n` exponents of `bits` bits: Straus's
/// interleaved windows when there are few bases with long exponents (the across-party
/// batch of `quorate_paillier::batch`: a handful of ≈ 6.7k-bit exponents), Pippenger's
/// buckets when there are many (short weights over long lists).
fn prefer_straus(n: usize, bits: u32) -> bool {
    let (c, w) = (window_bits(n, bits), straus_window(n, bits));
    let pippenger = u128::from(bits.div_ceil(c)) * (n as u128 + (1u128 << (c + 1)));
    let straus = (n as u128) * (u128::from(bits.div_ceil(w)) + (1u128 << w));
    straus < pippenger
}

/// Straus's interleaved fixed-window method over public exponents: per base a table
/// `b^1 … b^{2^w − 1}`, then per `w`-bit window `w` shared squarings and one
/// multiplication per base with a non-zero digit. Variable time.
fn straus_vartime(bases: &[Integer], exps: &[Integer], m: &Integer) -> Integer {
    let bits = exps.iter().map(|e| e.significant_bits()).max().unwrap_or(0);
    let mut acc = Integer::from(1);
    if bits == 0 {
        return acc;
    }
    let w = straus_window(bases.len(), bits);
    let tables: Vec<Vec<Integer>> = bases
        .iter()
        .map(|b| {
            let b = modulo(b, m);
            let mut t = Vec::with_capacity((1usize << w) - 1);
            t.push(b.clone());
            for _ in 2..(1usize << w) {
                let next = t.last().map(|x| mul_mod(x, &b, m)).unwrap_or_default();
                t.push(next);
            }
            t
        })
        .collect();
    for i in (0..bits.div_ceil(w)).rev() {
        if acc != 1 {
            for _ in 0..w {
                acc.square_mut();
                acc %= m;
            }
        }
        for (t, e) in tables.iter().zip(exps) {
            let mut d = 0usize;
            for j in (0..w).rev() {
                d = (d << 1) | usize::from(e.get_bit(i * w + j));
            }
            if let Some(x) = d.checked_sub(1).and_then(|k| t.get(k)) {
                acc *= x;
                acc %= m;
            }
        }
    }
    acc
}

/// A multi-exponentiation takes one exponent per base.
fn check_exponent_count(bases: &[Integer], exps: &[Integer]) -> Result<(), PaillierError> {
    if bases.len() != exps.len() {
        return Err(quorate_core::ParamError::LengthMismatch {
            what: "multi-exponentiation exponents",
            expected: bases.len(),
            got: exps.len(),
        }
        .into());
    }
    Ok(())
}

/// `Π b_i^{e_i} mod m` for **public** non-negative exponents (variable time): a bucket
/// (Pippenger) multi-exponentiation per rayon chunk, or for a few bases with long exponents
/// Straus's interleaved windows on the calling thread, so the squarings are shared across
/// the bases instead of being paid once per base. Bases should be non-negative; they are reduced
/// mod `m`.
pub fn multi_pow_vartime(
    bases: &[Integer],
    exps: &[Integer],
    m: &Integer,
) -> Result<Integer, PaillierError> {
    check_exponent_count(bases, exps)?;
    if *m <= 1 {
        return Err(PaillierError::InvalidModulus("modulus must exceed 1"));
    }
    if exps.iter().any(|e| *e < 0) || bases.iter().any(|b| *b < 0) {
        return Err(PaillierError::ExponentOutOfRange {
            what: "multi-exponentiation (negative operand)",
        });
    }
    if bases.is_empty() {
        return Ok(Integer::from(1));
    }
    let bits = exps.iter().map(|e| e.significant_bits()).max().unwrap_or(0);
    let threads = rayon::current_num_threads().max(1);
    // Straus: one chunk (every chunk would pay all the squarings again: splitting four
    // ≈ 6.7k-bit exponents over two threads costs ≈ 60 % more work for no shorter wall time
    // once the caller runs other work beside it); Pippenger: chunks of at least 16 bases.
    let straus = prefer_straus(bases.len(), bits);
    let chunk = if straus {
        bases.len()
    } else {
        bases.len().div_ceil(threads).max(16)
    };
    let parts: Vec<Integer> = bases
        .par_chunks(chunk)
        .zip(exps.par_chunks(chunk))
        .map(|(b, e)| {
            if straus {
                straus_vartime(b, e, m)
            } else {
                pippenger_vartime(b, e, m)
            }
        })
        .collect();
    Ok(parts
        .iter()
        .fold(Integer::from(1), |a, b| mul_mod(&a, b, m)))
}

/// The inverses of public units modulo `m`, by Montgomery's trick (one extended GCD for the
/// whole list and three multiplications per element). `None` if any element is not a unit
/// modulo `m` (or `m ≤ 1`). Variable time: public data only.
pub fn batch_inv_mod_vartime(xs: &[Integer], m: &Integer) -> Option<Vec<Integer>> {
    if *m <= 1 {
        return None;
    }
    // prefix[i] = x_0 ⋯ x_{i−1}.
    let mut prefix = Vec::with_capacity(xs.len() + 1);
    prefix.push(Integer::from(1));
    for x in xs {
        let next = prefix.last().map(|p| mul_mod(p, x, m))?;
        prefix.push(next);
    }
    let mut inv = inv_mod(prefix.last()?, m)?;
    let mut out = vec![Integer::new(); xs.len()];
    for i in (0..xs.len()).rev() {
        // inv = (x_0 ⋯ x_i)^{−1}.
        out[i] = mul_mod(&inv, &prefix[i], m);
        inv = mul_mod(&inv, &xs[i], m);
    }
    Some(out)
}

/// `Π b_i^{e_i} mod m` for **public** unit bases and public exponents of **either sign**
/// (variable time): the bases of negative exponents are inverted together
/// ([`batch_inv_mod_vartime`]), then one [`multi_pow_vartime`] over the absolute values.
/// Errors if a base with a negative exponent is not a unit.
pub fn multi_pow_signed_vartime(
    bases: &[Integer],
    exps: &[Integer],
    m: &Integer,
) -> Result<Integer, PaillierError> {
    check_exponent_count(bases, exps)?;
    let neg: Vec<usize> = (0..exps.len()).filter(|&i| exps[i] < 0).collect();
    let to_invert: Vec<Integer> = neg.iter().map(|&i| modulo(&bases[i], m)).collect();
    let inverted = batch_inv_mod_vartime(&to_invert, m).ok_or(PaillierError::NotAUnit {
        what: "base of a negative power",
    })?;
    let mut bs: Vec<Integer> = bases.iter().map(|b| modulo(b, m)).collect();
    for (&i, b) in neg.iter().zip(inverted) {
        bs[i] = b;
    }
    let abs: Vec<Integer> = exps.iter().map(|e| Integer::from(e.abs_ref())).collect();
    multi_pow_vartime(&bs, &abs, m)
}

/// `x ≡ y` up to a factor of order at most 2 modulo `m`: `x² ≡ y² (mod m)`. The comparison
/// of the batch verifiers in `Z*_{N²}` and `Z*_Ñ`, which compare squares (an error of order
/// 2 survives an odd weight, so a weighted product cannot be compared exactly); the single
/// checks use it too, so that the batch and the single checks accept exactly the same
/// proofs.
pub fn eq_up_to_order_two(x: &Integer, y: &Integer, m: &Integer) -> bool {
    mul_mod(x, x, m) == mul_mod(y, y, m)
}

/// Reads the `w`-bit digit at bit position `pos` from little-endian limbs (positions are
/// public; the read pattern does not depend on the limb values).
pub(crate) fn digit(limbs: &[u64], pos: usize, w: u32) -> u64 {
    let lo_idx = pos / 64;
    let shift = pos % 64;
    let lo = limbs.get(lo_idx).copied().unwrap_or(0) >> shift;
    let hi = if shift == 0 {
        0
    } else {
        limbs.get(lo_idx + 1).copied().unwrap_or(0) << (64 - shift)
    };
    (lo | hi) & ((1u64 << w) - 1)
}

/// Window of [`multi_pow_secret`].
pub const MULTI_POW_SECRET_WINDOW: u32 = 4;

/// Bases per interleaved pass of [`multi_pow_secret`] (bounds its tables to
/// `64·2^w` residues, and is the unit of rayon parallelism).
const MULTI_POW_SECRET_CHUNK: usize = 64;

/// `Π b_i^{e_i} mod m` for **public** unit bases and **secret** exponents
/// `0 ≤ e_i < 2^max_bits` (issue 17): Straus's interleaved fixed-window method, so the
/// `max_bits` squarings are shared by all the bases instead of being paid once per base.
///
/// Per base a table `T[j] = b^{j+1}`, `j < 2^w` ([`MULTI_POW_SECRET_WINDOW`]); then for every
/// window from the top, `w` squarings of the accumulator and, per base, a lookup of the
/// entry for the exponent's digit `d` by a **full scan** of the base's table with masked,
/// branch-free limb copies (`subtle`), multiplied in. This computes `Π b_i^{e_i + C}` with the
/// public `C = Σ_k 2^{w·k}` (the `+1` keeps every entry a full-size residue, as in
/// [`crate::fixed_base::FixedBaseCt`]); the public factor `(Π b_i)^{C}` is divided out at the
/// end. The sequence of operations depends only on `bases.len()`, `max_bits` and `m`:
/// every exponent gets `⌈max_bits/w⌉` windows whatever its own bit length. The products
/// themselves are GMP `mpz_mul`/`mpz_tdiv_r` calls, with exactly the constant-time caveat
/// of [`crate::fixed_base`]'s module docs. Errors if a base is not a unit or an exponent is
/// out of range.
pub fn multi_pow_secret(
    bases: &[Integer],
    exps: &[Integer],
    max_bits: u32,
    m: &Integer,
) -> Result<Integer, PaillierError> {
    check_exponent_count(bases, exps)?;
    if *m <= 1 || m.is_even() {
        return Err(PaillierError::InvalidModulus(
            "constant-time multi-exponentiation needs an odd modulus above 1",
        ));
    }
    if max_bits == 0 || max_bits > 1 << 16 {
        return Err(PaillierError::BitLength {
            what: "multi-exponentiation exponent",
            bits: max_bits,
            min: 1,
            max: 1 << 16,
        });
    }
    if exps
        .iter()
        .any(|e| *e < 0 || e.significant_bits() > max_bits)
    {
        return Err(PaillierError::ExponentOutOfRange {
            what: "constant-time multi-exponentiation",
        });
    }
    let bases: Vec<Integer> = bases.iter().map(|b| modulo(b, m)).collect();
    if bases.iter().any(|b| !is_unit_in_range(b, m)) {
        return Err(PaillierError::NotAUnit {
            what: "multi-exponentiation base",
        });
    }
    if bases.is_empty() {
        return Ok(Integer::from(1));
    }
    let parts = bases
        .par_chunks(MULTI_POW_SECRET_CHUNK)
        .zip(exps.par_chunks(MULTI_POW_SECRET_CHUNK))
        .map(|(b, e)| straus_secret(b, e, max_bits, m))
        .collect::<Result<Vec<SecretInteger>, PaillierError>>()?;
    let acc = parts
        .iter()
        .fold(SecretInteger::new(Integer::from(1)), |a, b| {
            SecretInteger::new(mul_mod(a.expose(), b.expose(), m))
        });
    // Public correction (Π b_i)^{−C}.
    let windows = max_bits.div_ceil(MULTI_POW_SECRET_WINDOW);
    let mut c = Integer::new();
    for k in 0..windows {
        c.set_bit(MULTI_POW_SECRET_WINDOW * k, true);
    }
    let prod = bases
        .iter()
        .fold(Integer::from(1), |a, b| mul_mod(&a, b, m));
    let corr = inv_mod(&pow_mod_vartime(&prod, &c, m)?, m).ok_or(PaillierError::NotAUnit {
        what: "multi-exponentiation base",
    })?;
    Ok(mul_mod(acc.expose(), &corr, m))
}

/// One interleaved pass of [`multi_pow_secret`] over reduced unit bases: `Π b_i^{e_i + C}`.
fn straus_secret(
    bases: &[Integer],
    exps: &[Integer],
    max_bits: u32,
    m: &Integer,
) -> Result<SecretInteger, PaillierError> {
    let w = MULTI_POW_SECRET_WINDOW;
    let per = 1usize << w;
    let windows = max_bits.div_ceil(w) as usize;
    let limbs = m.significant_digits::<u64>();
    let mut table = vec![0u64; bases.len() * per * limbs];
    for (k, b) in bases.iter().enumerate() {
        let mut x = b.clone();
        for j in 0..per {
            let off = (k * per + j) * limbs;
            x.write_digits(&mut table[off..off + limbs], Order::Lsf);
            if j + 1 < per {
                x = mul_mod(&x, b, m);
            }
        }
    }
    let e_len = (windows * w as usize).div_ceil(64);
    let e_limbs: Vec<Zeroizing<Vec<u64>>> = exps
        .iter()
        .map(|e| {
            let mut v = Zeroizing::new(vec![0u64; e_len]);
            e.write_digits(&mut v[..], Order::Lsf);
            v
        })
        .collect();
    let mut sel = Zeroizing::new(vec![0u64; limbs]);
    let mut acc: Option<SecretInteger> = None;
    for i in (0..windows).rev() {
        if let Some(a) = acc.as_mut() {
            for _ in 0..w {
                *a = SecretInteger::new(mul_mod(a.expose(), a.expose(), m));
            }
        }
        for (k, el) in e_limbs.iter().enumerate() {
            let d = digit(el, i * w as usize, w);
            sel.iter_mut().for_each(|x| *x = 0);
            for j in 0..per {
                let choice = (j as u64).ct_eq(&d);
                let off = (k * per + j) * limbs;
                for (s, t) in sel.iter_mut().zip(&table[off..off + limbs]) {
                    s.conditional_assign(t, choice);
                }
            }
            let x = SecretInteger::new(Integer::from_digits(&sel[..], Order::Lsf));
            acc = Some(match acc {
                None => x,
                Some(a) => SecretInteger::new(mul_mod(a.expose(), x.expose(), m)),
            });
        }
    }
    acc.ok_or(PaillierError::ExponentOutOfRange {
        what: "constant-time multi-exponentiation",
    })
}

/// `x mod m` in `[0, m)` for a positive modulus `m`.
pub fn modulo(x: &Integer, m: &Integer) -> Integer {
    let mut r = Integer::from(x % m);
    if r < 0 {
        r += m;
    }
    r
}

/// `a * b mod m` in `[0, m)` for a positive modulus `m`.
pub fn mul_mod(a: &Integer, b: &Integer, m: &Integer) -> Integer {
    modulo(&Integer::from(a * b), m)
}

/// The inverse of `a` modulo `m` in `[0, m)`, if it exists.
pub fn inv_mod(a: &Integer, m: &Integer) -> Option<Integer> {
    a.invert_ref(m).map(Integer::from)
}

/// Overwrites the whole allocation of `x` and sets it to zero. See the module docs for what
/// this does and does not reach.
pub fn wipe_integer(x: &mut Integer) {
    let cap = x.capacity();
    if let Ok(bits) = u32::try_from(cap) {
        if bits > 0 {
            // 2^cap - 1 occupies exactly the current allocation, so GMP copies it in place
            // (no reallocation) and every limb of the old value is overwritten.
            let mut ones = Integer::from(1);
            ones <<= bits;
            ones -= 1u32;
            x.assign(&ones);
        }
    }
    x.assign(0u32);
}

/// A secret integer: wiped on drop (best effort, see the module docs) and redacted in
/// `Debug`.
#[derive(Clone, Default)]
pub struct SecretInteger(Integer);

impl SecretInteger {
    /// Takes ownership of a secret value.
    pub fn new(x: Integer) -> Self {
        SecretInteger(x)
    }

    /// Borrows the secret value. Whatever the caller derives from it is its responsibility.
    pub fn expose(&self) -> &Integer {
        &self.0
    }

    /// Constant-time equality of the two values' fixed-length encodings (length = the larger
    /// of the two byte sizes; the sizes themselves are not hidden).
    pub fn ct_eq(&self, other: &SecretInteger) -> Choice {
        if self.0.cmp0() != other.0.cmp0() && (self.0 < 0 || other.0 < 0) {
            return Choice::from(0);
        }
        let a_abs = Integer::from(self.0.abs_ref());
        let b_abs = Integer::from(other.0.abs_ref());
        let len = a_abs
            .significant_digits::<u8>()
            .max(b_abs.significant_digits::<u8>());
        let mut a = Zeroizing::new(vec![0u8; len]);
        let mut b = Zeroizing::new(vec![0u8; len]);
        let ok = write_be_padded(&a_abs, &mut a) && write_be_padded(&b_abs, &mut b);
        let mut a_abs = a_abs;
        let mut b_abs = b_abs;
        wipe_integer(&mut a_abs);
        wipe_integer(&mut b_abs);
        Choice::from(u8::from(ok)) & a.ct_eq(&b)
    }
}

impl Zeroize for SecretInteger {
    fn zeroize(&mut self) {
        wipe_integer(&mut self.0);
    }
}

impl Drop for SecretInteger {
    fn drop(&mut self) {
        wipe_integer(&mut self.0);
    }
}

impl core::fmt::Debug for SecretInteger {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SecretInteger(<redacted>)")
    }
}

/// A short description of a public integer for `Debug` output: its bit length and the
/// first and last hex digits.
pub(crate) fn short_hex(x: &Integer) -> String {
    let s = x.to_string_radix(16);
    if s.len() <= 16 {
        format!("0x{s}")
    } else {
        format!(
            "0x{}…{} ({} bits)",
            &s[..8],
            &s[s.len() - 8..],
            x.significant_bits()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// Montgomery's batch inversion matches one inversion per element, refuses a non-unit,
    /// and the signed multi-exponentiation matches the product of single signed powers.
    #[test]
    fn batch_inversion_and_signed_multi_pow_match_single_operations() {
        let mut rng = ChaCha20Rng::seed_from_u64(41);
        let m = Integer::from(1_000_003u32) * Integer::from(999_983u32);
        let xs: Vec<Integer> = (0..9).map(|_| random_unit(&mut rng, &m).unwrap()).collect();
        let inv = batch_inv_mod_vartime(&xs, &m).unwrap();
        for (x, y) in xs.iter().zip(&inv) {
            assert_eq!(*y, inv_mod(x, &m).unwrap());
        }
        assert_eq!(batch_inv_mod_vartime(&[], &m), Some(Vec::new()));
        let mut bad = xs.clone();
        bad[4] = Integer::from(1_000_003u32);
        assert!(batch_inv_mod_vartime(&bad, &m).is_none());
        let exps: Vec<Integer> = (0..9)
            .map(|i| {
                let e = random_bits(&mut rng, 70 + 10 * i);
                if i % 3 == 0 {
                    -e
                } else {
                    e
                }
            })
            .collect();
        let want = xs.iter().zip(&exps).fold(Integer::from(1), |acc, (b, e)| {
            mul_mod(&acc, &pow_mod_vartime(b, e, &m).unwrap(), &m)
        });
        assert_eq!(multi_pow_signed_vartime(&xs, &exps, &m).unwrap(), want);
        // A non-unit base is fine with a positive exponent, refused with a negative one.
        let mut bases = xs.clone();
        bases[1] = Integer::from(999_983u32);
        assert!(multi_pow_signed_vartime(&bases, &exps, &m).is_ok());
        bases[0] = Integer::from(999_983u32);
        assert!(multi_pow_signed_vartime(&bases, &exps, &m).is_err());
        let minus_one = Integer::from(&m - 1u32);
        assert!(eq_up_to_order_two(
            &xs[0],
            &mul_mod(&xs[0], &minus_one, &m),
            &m
        ));
        assert!(!eq_up_to_order_two(&xs[0], &xs[1], &m));
    }

    #[test]
    fn random_below_is_in_range_and_hits_everything() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let bound = Integer::from(37);
        let mut seen = [false; 37];
        for _ in 0..2000 {
            let x = random_below(&mut rng, &bound);
            assert!(x >= 0 && x < bound);
            seen[x.to_usize().expect("small")] = true;
        }
        assert!(seen.iter().all(|s| *s));
        assert_eq!(random_below(&mut rng, &Integer::from(1)), 0);
        let big = Integer::from(1) << 300u32;
        for _ in 0..50 {
            assert!(random_below(&mut rng, &big) < big);
        }
    }

    #[test]
    fn symmetric_and_units() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let b = Integer::from(5);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..500 {
            let x = random_symmetric(&mut rng, &b);
            assert!(x > -5 && x < 5);
            seen.insert(x.to_i32().expect("small"));
        }
        assert_eq!(seen.len(), 9);
        let m = Integer::from(3 * 5 * 7);
        for _ in 0..200 {
            let u = random_unit(&mut rng, &m).expect("m >= 2");
            assert!(is_unit_in_range(&u, &m));
        }
        assert!(random_unit(&mut rng, &Integer::from(1)).is_err());
    }

    /// Both vartime multi-exponentiation methods equal the product of single powers (zero,
    /// all-ones, window-unaligned and mixed-length exponents), and the dispatch picks
    /// Straus for a few long exponents, Pippenger for many short ones.
    #[test]
    fn straus_and_pippenger_match_single_powers() {
        let mut rng = ChaCha20Rng::seed_from_u64(18);
        let m = random_bits(&mut rng, 512) | (Integer::from(1) << 511u32) | 1u32;
        for (count, bits) in [(1usize, 1u32), (2, 7), (4, 1500), (5, 129), (40, 128)] {
            let bases: Vec<Integer> = (0..count).map(|_| random_bits(&mut rng, 600)).collect();
            let mut exps: Vec<Integer> = (0..count)
                .map(|i| random_bits(&mut rng, bits - (i as u32 % 3).min(bits - 1)))
                .collect();
            exps[0] = Integer::new();
            if count > 1 {
                exps[1] = (Integer::from(1) << bits) - 1u32;
            }
            let want = bases.iter().zip(&exps).fold(Integer::from(1), |a, (b, e)| {
                mul_mod(&a, &pow_mod_vartime(b, e, &m).expect("pow"), &m)
            });
            assert_eq!(straus_vartime(&bases, &exps, &m), want, "{count} × {bits}");
            assert_eq!(
                pippenger_vartime(&bases, &exps, &m),
                want,
                "{count} × {bits}"
            );
            assert_eq!(multi_pow_vartime(&bases, &exps, &m).expect("ok"), want);
        }
        assert!(prefer_straus(4, 6700));
        assert!(!prefer_straus(200, 128));
    }

    /// The constant-time multi-exponentiation equals the product of single powers: zero
    /// and all-ones exponents, a window-unaligned bound, more bases than one pass holds;
    /// out-of-range exponents and non-unit bases are refused.
    #[test]
    fn multi_pow_secret_matches_single_powers() {
        let mut rng = ChaCha20Rng::seed_from_u64(17);
        let m = random_bits(&mut rng, 512) | (Integer::from(1) << 511u32) | 1u32;
        for (count, bits) in [(1usize, 1u32), (3, 130), (70, 97)] {
            let bases: Vec<Integer> = (0..count)
                .map(|_| random_unit(&mut rng, &m).expect("unit"))
                .collect();
            let mut exps: Vec<Integer> = (0..count).map(|_| random_bits(&mut rng, bits)).collect();
            exps[0] = Integer::new();
            if count > 1 {
                exps[1] = (Integer::from(1) << bits) - 1u32;
            }
            let want = bases.iter().zip(&exps).fold(Integer::from(1), |a, (b, e)| {
                mul_mod(&a, &pow_mod_vartime(b, e, &m).expect("pow"), &m)
            });
            assert_eq!(
                multi_pow_secret(&bases, &exps, bits, &m).expect("in range"),
                want,
                "{count} bases, {bits} bits"
            );
        }
        let b = vec![Integer::from(3)];
        let long = vec![Integer::from(1) << 20u32];
        assert!(multi_pow_secret(&b, &long, 20, &m).is_err());
        assert!(multi_pow_secret(&b, &[Integer::from(-1)], 20, &m).is_err());
        assert!(multi_pow_secret(std::slice::from_ref(&m), &[Integer::from(1)], 20, &m).is_err());
        assert!(multi_pow_secret(&b, &[], 20, &m).is_err());
        assert_eq!(multi_pow_secret(&[], &[], 20, &m).expect("empty"), 1);
    }

    #[test]
    fn padded_encoding() {
        let x = Integer::from(0x0102u32);
        assert_eq!(to_be_bytes_padded(&x, 4), Some(vec![0, 0, 1, 2]));
        assert_eq!(to_be_bytes_padded(&x, 1), None);
        assert_eq!(to_be_bytes_padded(&Integer::from(-1), 4), None);
        assert_eq!(to_be_bytes_padded(&Integer::new(), 2), Some(vec![0, 0]));
        assert_eq!(from_be_bytes(&[0, 0, 1, 2]), x);
        assert!(from_be_bytes_minimal("x", &[0, 1]).is_err());
        assert!(from_be_bytes_minimal("x", &[]).is_err());
        assert_eq!(from_be_bytes_minimal("x", &[1, 2]), Ok(x.clone()));
        assert_eq!(to_be_bytes_minimal(&x), vec![1, 2]);
    }

    #[test]
    fn pow_paths_agree() {
        let m = Integer::from(1_000_000_007u64);
        let b = Integer::from(123_456u32);
        let e = Integer::from(987_654_321u64);
        let s = pow_mod_secret(&b, &e, &m).expect("odd modulus");
        let v = pow_mod_vartime(&b, &e, &m).expect("modulus > 1");
        assert_eq!(s, v);
        assert_eq!(
            pow_mod_secret(&b, &Integer::new(), &m),
            Ok(Integer::from(1))
        );
        assert!(pow_mod_secret(&b, &e, &Integer::from(10)).is_err());
        assert!(pow_mod_secret(&b, &Integer::from(-1), &m).is_err());
        let inv = pow_mod_vartime(&b, &Integer::from(-1), &m).expect("unit");
        assert_eq!(mul_mod(&inv, &b, &m), 1);
        assert!(pow_mod_vartime(&Integer::from(2), &Integer::from(-1), &Integer::from(4)).is_err());
    }

    #[test]
    fn wipe_overwrites_in_place() {
        let mut x = Integer::from(0xdead_beef_u64) << 1000u32;
        let cap = x.capacity();
        wipe_integer(&mut x);
        assert_eq!(x, 0);
        // No reallocation happened, so the pattern was written into the old buffer.
        assert_eq!(x.capacity(), cap);
        let s = SecretInteger::new(Integer::from(5));
        assert_eq!(format!("{s:?}"), "SecretInteger(<redacted>)");
        assert!(bool::from(s.ct_eq(&SecretInteger::new(Integer::from(5)))));
        assert!(!bool::from(s.ct_eq(&SecretInteger::new(Integer::from(6)))));
        assert!(!bool::from(s.ct_eq(&SecretInteger::new(Integer::from(-5)))));
    }
}
