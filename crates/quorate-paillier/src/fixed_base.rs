//! Fixed-base exponentiation for bases that are used many times (the CS03 generators
//! `g, y_1, y_2, y_3` mod `n²`, `g̃, h̃` mod `N`, a mixnet's `h^n`).
//!
//! Both tables here are for **public bases** and require the base to be a unit.
//!
//! # [`FixedBase`]: Yao / BGMW with a `w`-bit window — public exponents only
//!
//! Precompute `T_i = b^{2^{w·i}}` for `i < h = ⌈bits/w⌉` (`h` elements: about 0.3 MiB for a
//! 3072-bit exponent mod a 6144-bit modulus with `w = 7`). For `e = Σ e_i 2^{w·i}`, Yao's
//! method computes `Π_i T_i^{e_i}` as
//!
//! ```text
//! A = B = 1
//! for d = 2^w − 1 down to 1:
//!     B ← B · Π_{i : e_i = d} T_i
//!     A ← A · B
//! ```
//!
//! (`B` after step `d` is `Π_{e_i ≥ d} T_i`, and `A` multiplies in every `B_d`), costing
//! `h + 2^w − 2` multiplications and no squarings, against `bits` squarings plus about
//! `bits/(w+1)` multiplications for a sliding-window `mpz_powm`: roughly 4–5× faster at
//! `|n|`-bit exponents, 3× at 256 bits. Which `T_i` are multiplied when depends on the
//! exponent's digits, so [`FixedBase::pow_vartime`] **leaks the exponent through timing and
//! memory access** and must only see public exponents.
//!
//! # [`FixedBaseCt`]: fixed-window comb with full-scan lookups — for secret exponents
//!
//! Precompute the whole table `T[i][j] = b^{(j+1)·2^{w·i}}`, `j < 2^w` (`h·2^w` elements,
//! e.g. 9.4 MB per base for a 3072-bit exponent mod 6144 bits with `w = 4`), then
//! `b^e = b^{−C} · Π_i T[i][e_i]` with the public constant `C = Σ_i 2^{w·i}` (the `+1` keeps
//! every entry a full-size residue: a table entry equal to 1 would make that multiplication
//! conspicuously fast). Every row is read **entirely**, and the wanted entry is selected
//! with masked, branch-free limb copies (`subtle::ConditionallySelectable`), so the lookup
//! has no secret-dependent branch or memory address. There are always exactly `h`
//! multiplications.
//!
//! **Constant-time status, honestly:** the lookups above are constant time; the `h`
//! products and reductions that follow are ordinary GMP `mpz_mul`/`mpz_tdiv_r` calls, which
//! GMP does not promise to be constant time (operands are normalised, so their running
//! time depends on limb counts, and division has rare data-dependent correction steps).
//! For random-looking residues the limb counts are almost always full, so the leak is
//! small, but it is not zero. When a hard guarantee is needed, use
//! [`crate::bigint::pow_mod_secret`] (`mpz_powm_sec`) instead.

use crate::bigint::{self, digit, inv_mod, mul_mod, wipe_integer, SecretInteger};
use crate::error::PaillierError;
use rug::integer::Order;
use rug::Integer;
use subtle::{ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

/// Largest window for [`FixedBase`].
pub const MAX_WINDOW: u32 = 12;

/// Largest window for [`FixedBaseCt`] (its table has `2^w` entries per row).
pub const MAX_CT_WINDOW: u32 = 8;

/// Largest exponent size a table accepts.
pub const MAX_EXPONENT_BITS: u32 = 1 << 16;

fn check_setup(
    base: &Integer,
    modulus: &Integer,
    max_exp_bits: u32,
    window: u32,
    max_window: u32,
) -> Result<Integer, PaillierError> {
    if *modulus <= 1 || modulus.is_even() {
        return Err(PaillierError::InvalidModulus(
            "fixed-base tables need an odd modulus above 1",
        ));
    }
    if max_exp_bits == 0 || max_exp_bits > MAX_EXPONENT_BITS {
        return Err(PaillierError::BitLength {
            what: "fixed-base exponent",
            bits: max_exp_bits,
            min: 1,
            max: MAX_EXPONENT_BITS,
        });
    }
    if window == 0 || window > max_window {
        return Err(PaillierError::BitLength {
            what: "fixed-base window",
            bits: window,
            min: 1,
            max: max_window,
        });
    }
    let b = bigint::modulo(base, modulus);
    if !bigint::is_unit_in_range(&b, modulus) {
        return Err(PaillierError::NotAUnit { what: "fixed base" });
    }
    Ok(b)
}

/// The window minimising `⌈bits/w⌉ + 2^w` (the cost of Yao's method).
pub fn best_window(max_exp_bits: u32) -> u32 {
    (1..=MAX_WINDOW)
        .min_by_key(|&w| max_exp_bits.div_ceil(w) + (1u32 << w))
        .unwrap_or(1)
}

/// A Yao/BGMW fixed-base table for **public exponents** (see the module docs).
#[derive(Clone)]
pub struct FixedBase {
    modulus: Integer,
    window: u32,
    max_exp_bits: u32,
    /// `b^{2^{w·i}} mod N`.
    powers: Vec<Integer>,
    /// `b^{2^{w·rows}}`, the power just past the table ([`FixedBase::pow_any_vartime`]).
    beyond: Integer,
}

impl FixedBase {
    /// Builds a table for exponents below `2^max_exp_bits` with the best window.
    pub fn new(
        base: &Integer,
        modulus: &Integer,
        max_exp_bits: u32,
    ) -> Result<Self, PaillierError> {
        Self::with_window(base, modulus, max_exp_bits, best_window(max_exp_bits))
    }

    /// Builds a table with an explicit window `1..=MAX_WINDOW`. Costs about one
    /// `max_exp_bits`-bit exponentiation.
    pub fn with_window(
        base: &Integer,
        modulus: &Integer,
        max_exp_bits: u32,
        window: u32,
    ) -> Result<Self, PaillierError> {
        let b = check_setup(base, modulus, max_exp_bits, window, MAX_WINDOW)?;
        let rows = max_exp_bits.div_ceil(window) as usize;
        let mut powers = Vec::with_capacity(rows);
        let mut cur = b;
        for _ in 0..rows {
            let next = {
                let mut x = cur.clone();
                for _ in 0..window {
                    x = mul_mod(&x, &x, modulus);
                }
                x
            };
            powers.push(cur);
            cur = next;
        }
        Ok(FixedBase {
            modulus: modulus.clone(),
            window,
            max_exp_bits,
            powers,
            beyond: cur,
        })
    }

    /// The modulus.
    pub fn modulus(&self) -> &Integer {
        &self.modulus
    }

    /// The window width `w`.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// Exponents must be below `2^max_exp_bits`.
    pub fn max_exp_bits(&self) -> u32 {
        self.max_exp_bits
    }

    /// Approximate table size in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.powers
            .iter()
            .chain(core::iter::once(&self.beyond))
            .map(|p| p.significant_digits::<u8>())
            .sum()
    }

    /// `b^e mod N` for a **public** `0 ≤ e < 2^max_exp_bits` (variable time).
    pub fn pow_vartime(&self, e: &Integer) -> Result<Integer, PaillierError> {
        if *e < 0 || e.significant_bits() > self.max_exp_bits {
            return Err(PaillierError::ExponentOutOfRange {
                what: "fixed-base exponent",
            });
        }
        Ok(self.table_pow(e))
    }

    /// Yao's method over the table for `0 ≤ e < 2^{w·rows}` (checked by the callers).
    fn table_pow(&self, e: &Integer) -> Integer {
        let limbs = e.to_digits::<u64>(Order::Lsf);
        let w = self.window;
        let rows = e.significant_bits().div_ceil(w) as usize;
        let mut by_digit: Vec<(u64, usize)> = (0..rows)
            .map(|i| (digit(&limbs, i * w as usize, w), i))
            .filter(|(d, _)| *d != 0)
            .collect();
        by_digit.sort_unstable_by_key(|x| core::cmp::Reverse(x.0));
        let mut a: Option<Integer> = None;
        let mut b: Option<Integer> = None;
        let mut idx = 0;
        let top = by_digit.first().map(|x| x.0).unwrap_or(0);
        let mut d = top;
        while d >= 1 {
            while let Some(&(dig, i)) = by_digit.get(idx) {
                if dig != d {
                    break;
                }
                let t = &self.powers[i];
                b = Some(match b {
                    None => t.clone(),
                    Some(bb) => mul_mod(&bb, t, &self.modulus),
                });
                idx += 1;
            }
            if let Some(bb) = &b {
                a = Some(match a {
                    None => bb.clone(),
                    Some(aa) => mul_mod(&aa, bb, &self.modulus),
                });
            }
            d -= 1;
        }
        a.unwrap_or_else(|| Integer::from(1))
    }

    /// `b^e mod N` for a public exponent `e ≥ 0` of **any** length (variable time): the low
    /// `w·rows` bits from the table, the rest as one short exponentiation of the power just
    /// past the table, `b^e = T(e mod 2^{w·rows})·(b^{2^{w·rows}})^{e >> w·rows}`. A batch
    /// verifier's weighted sum of responses is a few hundred bits longer than the table.
    pub fn pow_any_vartime(&self, e: &Integer) -> Result<Integer, PaillierError> {
        if *e < 0 {
            return Err(PaillierError::ExponentOutOfRange {
                what: "fixed-base exponent",
            });
        }
        let split = self.window * self.powers.len() as u32;
        if e.significant_bits() <= self.max_exp_bits.min(split) {
            return self.pow_vartime(e);
        }
        let lo = Integer::from(e.keep_bits_ref(split));
        let hi = Integer::from(e >> split);
        let low = self.table_pow(&lo);
        let high = bigint::pow_mod_vartime(&self.beyond, &hi, &self.modulus)?;
        Ok(mul_mod(&low, &high, &self.modulus))
    }

    /// `b^e mod N` for a public exponent of any sign (a negative one inverts the result).
    pub fn pow_signed_vartime(&self, e: &Integer) -> Result<Integer, PaillierError> {
        let abs = Integer::from(e.abs_ref());
        let x = self.pow_vartime(&abs)?;
        if *e < 0 {
            inv_mod(&x, &self.modulus).ok_or(PaillierError::NotAUnit { what: "fixed base" })
        } else {
            Ok(x)
        }
    }
}

impl core::fmt::Debug for FixedBase {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedBase")
            .field("modulus_bits", &self.modulus.significant_bits())
            .field("window", &self.window)
            .field("max_exp_bits", &self.max_exp_bits)
            .finish_non_exhaustive()
    }
}

/// A comb table with full-scan lookups for **secret exponents** (see the module docs for
/// exactly what is and is not constant time).
#[derive(Clone)]
pub struct FixedBaseCt {
    modulus: Integer,
    window: u32,
    max_exp_bits: u32,
    rows: usize,
    limbs: usize,
    /// Row-major: entry `(i, j)` = `b^{(j+1)·2^{w·i}} mod N` as `limbs` little-endian limbs.
    table: Vec<u64>,
    /// `corrections[r − 1] = b^{−Σ_{i<r} 2^{w·i}} mod N`: the public factor that cancels the
    /// `+1` of every entry when only the first `r` rows are read ([`FixedBaseCt::pow_bits`]).
    corrections: Vec<Integer>,
}

/// Default window of [`FixedBaseCt`].
pub const DEFAULT_CT_WINDOW: u32 = 4;

impl FixedBaseCt {
    /// Builds a table for exponents below `2^max_exp_bits` with [`DEFAULT_CT_WINDOW`].
    pub fn new(
        base: &Integer,
        modulus: &Integer,
        max_exp_bits: u32,
    ) -> Result<Self, PaillierError> {
        Self::with_window(base, modulus, max_exp_bits, DEFAULT_CT_WINDOW)
    }

    /// Builds a table with window `1..=MAX_CT_WINDOW`; it holds `⌈bits/w⌉·2^w` residues.
    pub fn with_window(
        base: &Integer,
        modulus: &Integer,
        max_exp_bits: u32,
        window: u32,
    ) -> Result<Self, PaillierError> {
        let b = check_setup(base, modulus, max_exp_bits, window, MAX_CT_WINDOW)?;
        let rows = max_exp_bits.div_ceil(window) as usize;
        let per_row = 1usize << window;
        let limbs = modulus.significant_digits::<u64>();
        let mut table = vec![0u64; rows * per_row * limbs];
        let mut row_base = b.clone();
        for i in 0..rows {
            let mut x = row_base.clone();
            for j in 0..per_row {
                let off = (i * per_row + j) * limbs;
                x.write_digits(&mut table[off..off + limbs], Order::Lsf);
                if j + 1 < per_row {
                    x = mul_mod(&x, &row_base, modulus);
                }
            }
            // The last entry is row_base^{2^w}, the next row's base.
            row_base = x;
        }
        // b^{C_r} with C_r = Σ_{i<r} 2^{w·i} is the product of the rows' first entries
        // `b^{2^{w·i}}`: prefix products, one inversion of the last, then the inverses of the
        // shorter prefixes by multiplying the dropped rows back in (2·rows multiplications).
        let first = |i: usize| {
            let off = i * per_row * limbs;
            Integer::from_digits(&table[off..off + limbs], Order::Lsf)
        };
        let mut full = Integer::from(1);
        for i in 0..rows {
            full = mul_mod(&full, &first(i), modulus);
        }
        let mut inv =
            inv_mod(&full, modulus).ok_or(PaillierError::NotAUnit { what: "fixed base" })?;
        let mut corrections = vec![Integer::new(); rows];
        for r in (1..=rows).rev() {
            if r < rows {
                inv = mul_mod(&inv, &first(r), modulus);
            }
            corrections[r - 1] = inv.clone();
        }
        Ok(FixedBaseCt {
            modulus: modulus.clone(),
            window,
            max_exp_bits,
            rows,
            limbs,
            table,
            corrections,
        })
    }

    /// The modulus.
    pub fn modulus(&self) -> &Integer {
        &self.modulus
    }

    /// The window width `w`.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// Exponents must be below `2^max_exp_bits`.
    pub fn max_exp_bits(&self) -> u32 {
        self.max_exp_bits
    }

    /// Table size in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.table.len() * 8 + self.corrections.len() * self.limbs * 8
    }

    /// `b^e mod N` for a (possibly secret) `0 ≤ e < 2^max_exp_bits`: always `⌈max_exp_bits/w⌉`
    /// full-row scans and multiplications (see the module docs for the caveats).
    pub fn pow(&self, e: &SecretInteger) -> Result<Integer, PaillierError> {
        self.pow_bits(e, self.max_exp_bits)
    }

    /// `b^e mod N` for a (possibly secret) `0 ≤ e < 2^bits` with a **public** bound
    /// `1 ≤ bits ≤ max_exp_bits`: reads only the first `⌈bits/w⌉` rows, always all of them
    /// (the running time depends on `bits`, never on `e`). One table then serves exponents
    /// of several public lengths (a mixnet's `h_N` table: the 1536-bit randomness `α` and
    /// its 1704-bit proof mask) without paying for the longest on the shorter ones.
    pub fn pow_bits(&self, e: &SecretInteger, bits: u32) -> Result<Integer, PaillierError> {
        if bits == 0 || bits > self.max_exp_bits {
            return Err(PaillierError::BitLength {
                what: "fixed-base exponent bound",
                bits,
                min: 1,
                max: self.max_exp_bits,
            });
        }
        let e = e.expose();
        if *e < 0 || e.significant_bits() > bits {
            return Err(PaillierError::ExponentOutOfRange {
                what: "fixed-base exponent",
            });
        }
        let w = self.window;
        let per_row = 1usize << w;
        let rows = (bits.div_ceil(w) as usize).min(self.rows);
        let mut e_limbs = Zeroizing::new(vec![0u64; (rows * w as usize).div_ceil(64)]);
        e.write_digits(&mut e_limbs[..], Order::Lsf);
        let mut sel = Zeroizing::new(vec![0u64; self.limbs]);
        let correction =
            self.corrections
                .get(rows - 1)
                .ok_or(PaillierError::ExponentOutOfRange {
                    what: "fixed-base exponent",
                })?;
        let mut acc = SecretInteger::new(correction.clone());
        for i in 0..rows {
            let d = digit(&e_limbs, i * w as usize, w);
            sel.iter_mut().for_each(|x| *x = 0);
            for j in 0..per_row {
                let choice = (j as u64).ct_eq(&d);
                let off = (i * per_row + j) * self.limbs;
                for (s, t) in sel.iter_mut().zip(&self.table[off..off + self.limbs]) {
                    s.conditional_assign(t, choice);
                }
            }
            let mut x = Integer::from_digits(&sel[..], Order::Lsf);
            acc = SecretInteger::new(mul_mod(acc.expose(), &x, &self.modulus));
            wipe_integer(&mut x);
        }
        Ok(acc.expose().clone())
    }
}

impl core::fmt::Debug for FixedBaseCt {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedBaseCt")
            .field("modulus_bits", &self.modulus.significant_bits())
            .field("window", &self.window)
            .field("max_exp_bits", &self.max_exp_bits)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bigint::{pow_mod_vartime, random_bits};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn odd_modulus(rng: &mut ChaCha20Rng, bits: u32) -> Integer {
        let mut m = random_bits(rng, bits);
        m.set_bit(bits - 1, true);
        m.set_bit(0, true);
        m
    }

    #[test]
    fn digits_are_extracted_across_limbs() {
        let limbs = [0xf000_0000_0000_0001u64, 0x0000_0000_0000_0005];
        assert_eq!(digit(&limbs, 0, 4), 1);
        assert_eq!(digit(&limbs, 60, 4), 0xf);
        assert_eq!(digit(&limbs, 62, 4), 0b0111);
        assert_eq!(digit(&limbs, 64, 3), 5);
        assert_eq!(digit(&limbs, 200, 5), 0);
    }

    #[test]
    fn best_windows() {
        assert_eq!(best_window(256), 4);
        assert_eq!(best_window(3072), 7);
    }

    #[test]
    fn tables_match_pow_mod() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        for (mod_bits, exp_bits, w) in [(512, 256, 4), (1024, 700, 7), (256, 64, 1), (384, 100, 3)]
        {
            let m = odd_modulus(&mut rng, mod_bits);
            let b = random_bits(&mut rng, mod_bits - 1);
            let fb = FixedBase::with_window(&b, &m, exp_bits, w).expect("table");
            let ct =
                FixedBaseCt::with_window(&b, &m, exp_bits, w.min(MAX_CT_WINDOW)).expect("table");
            let mut exps = vec![
                Integer::new(),
                Integer::from(1),
                Integer::from(2),
                (Integer::from(1) << exp_bits) - 1u32,
            ];
            for _ in 0..5 {
                exps.push(random_bits(&mut rng, exp_bits));
            }
            for e in &exps {
                let want = pow_mod_vartime(&b, e, &m).expect("pow");
                assert_eq!(fb.pow_vartime(e).expect("in range"), want, "yao e={e}");
                let se = SecretInteger::new(e.clone());
                assert_eq!(ct.pow(&se).expect("in range"), want, "ct e={e}");
            }
            // Any length through the power just past the table (issue 17, session 14).
            for extra in [0u32, 1, 5, 130, 2 * exp_bits] {
                let e = random_bits(&mut rng, exp_bits + extra) | (Integer::from(1) << exp_bits);
                let want = pow_mod_vartime(&b, &e, &m).expect("pow");
                assert_eq!(fb.pow_any_vartime(&e).expect("any"), want, "any e={e}");
            }
            assert!(fb.pow_any_vartime(&Integer::from(-1)).is_err());
            let big = Integer::from(1) << exp_bits;
            assert!(fb.pow_vartime(&big).is_err());
            assert!(ct.pow(&SecretInteger::new(big)).is_err());
            assert!(fb.pow_vartime(&Integer::from(-1)).is_err());
            let e = random_bits(&mut rng, exp_bits - 1);
            let neg = Integer::from(-&e);
            assert_eq!(
                fb.pow_signed_vartime(&neg).expect("unit"),
                pow_mod_vartime(&b, &neg, &m).expect("unit")
            );
        }
    }

    /// [`FixedBaseCt::pow_bits`] reads a prefix of the rows with its own correction: the
    /// same powers as `mpz_powm` for every bound (multiples of the window or not), and an
    /// exponent above its bound, or a bound above the table's, is refused.
    #[test]
    fn bounded_comb_matches_pow_mod() {
        let mut rng = ChaCha20Rng::seed_from_u64(6);
        // A prime modulus: every non-zero base is a unit.
        let m = odd_modulus(&mut rng, 512).next_prime();
        let b = random_bits(&mut rng, 511) + 1u32;
        let ct = FixedBaseCt::with_window(&b, &m, 300, 4).expect("table");
        for bits in [1u32, 4, 5, 63, 64, 65, 128, 257, 299, 300] {
            for e in [
                Integer::new(),
                Integer::from(1),
                (Integer::from(1) << bits) - 1u32,
                random_bits(&mut rng, bits),
            ] {
                let want = pow_mod_vartime(&b, &e, &m).expect("pow");
                let got = ct.pow_bits(&SecretInteger::new(e.clone()), bits);
                assert_eq!(got.expect("in range"), want, "bits={bits} e={e}");
            }
            let over = SecretInteger::new(Integer::from(1) << bits);
            assert!(ct.pow_bits(&over, bits).is_err(), "bits={bits}");
        }
        let one = SecretInteger::new(Integer::from(1));
        assert!(ct.pow_bits(&one, 0).is_err());
        assert!(ct.pow_bits(&one, 301).is_err());
    }

    #[test]
    fn setup_is_validated() {
        let m = Integer::from(1_000_003u32);
        assert!(FixedBase::new(&Integer::from(2), &Integer::from(10), 16).is_err());
        assert!(FixedBase::new(&Integer::from(0), &m, 16).is_err());
        assert!(FixedBase::new(&Integer::from(2), &m, 0).is_err());
        assert!(FixedBase::with_window(&Integer::from(2), &m, 16, 13).is_err());
        assert!(FixedBaseCt::with_window(&Integer::from(2), &m, 16, 9).is_err());
    }
}
