//! Multiples of fixed public secp256k1 points by **public** scalars, through tables built
//! once: the generator `G` (one table per process) and a key's public key (one per key,
//! memoised in the share's store, [`crate::KeyShare`]). Used by the final verification of a
//! combined signature ([`crate::sign::combine`]), whose inputs are all public. **Variable
//! time**: never call it with a secret scalar (secret multiples of `G` use `k256`'s
//! constant-time `mul_by_generator`, [`crate::curve::base_mul`]).
//!
//! *Recoding.* A scalar `s < q < 2^256` is recoded as `s = Σ_{k<52} d_k·32^k` with
//! `d_k ∈ [−16, 15]` (each 5-bit window plus the previous carry; a window of 16 or more
//! becomes `d − 32` and carries 1; the top window holds only bit 255 and the carry, at most
//! 2, so no carry is left) — the recoding of `quorate_core`'s `FixedBaseCt` (BLS12-381).
//! Row `k` holds `j·32^k·P` for `j = 0..=16` as affine points, and `s·P` is at most 52
//! of `k256`'s mixed additions (RCB15 Algorithm 8) of the entries `±|d_k|`, no doubling:
//! about a third of `k256`'s constant-time two-point `lincomb` per term (docs/benchmarks.md
//! §2, "Session 15").
//!
//! *Not for secrets.* A constant-time variant (a select over each row, as `FixedBaseCt`)
//! was measured against `k256`'s `mul_by_generator` for the secret multiples of `G`: 27 %
//! fewer instructions but no faster in wall time (its 76 KiB table is read whole at every
//! call), so it was not kept (crate notes, "Levers not taken").

use k256::elliptic_curve::group::Curve;
use k256::{AffinePoint, ProjectivePoint, Scalar};
use std::sync::OnceLock;

/// Bits per signed digit.
const WINDOW: usize = 5;
/// Digits of a scalar below `2^256` (`52·5 = 260` bits: 256 and room for the carry).
const DIGITS: usize = 256_usize.div_ceil(WINDOW);
/// Entries per row: `0..=2^(WINDOW−1)` (17).
const ROW: usize = (1 << (WINDOW - 1)) + 1;

/// The rows `j·32^k·P`, `j = 0..=16`, `k < 52`, of a fixed public point `P` (about
/// 76 KiB), built with 884 additions, 52 doublings and one batched inversion.
pub(crate) struct FixedBaseTable {
    rows: Vec<[AffinePoint; ROW]>,
}

impl core::fmt::Debug for FixedBaseTable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedBaseTable")
            .field("base", &self.rows.first().map(|r| r[1]))
            .finish_non_exhaustive()
    }
}

impl FixedBaseTable {
    /// The table of the public point `base`.
    pub(crate) fn new(base: &ProjectivePoint) -> Self {
        let mut projective = Vec::with_capacity(DIGITS * ROW);
        let mut row_base = *base;
        for _ in 0..DIGITS {
            let mut acc = ProjectivePoint::IDENTITY;
            for _ in 0..ROW {
                projective.push(acc);
                acc += row_base;
            }
            // `acc` is 17·row_base here; the next row's base is 32·row_base.
            row_base = (acc - row_base).double();
        }
        // The points are public: one batched inversion for all of them.
        let mut affine = vec![AffinePoint::IDENTITY; projective.len()];
        ProjectivePoint::batch_normalize(&projective, &mut affine);
        let rows = affine
            .chunks_exact(ROW)
            .map(|c| {
                let mut row = [AffinePoint::IDENTITY; ROW];
                row.copy_from_slice(c);
                row
            })
            .collect();
        FixedBaseTable { rows }
    }

    /// `s·P` for a **public** `s`. Variable time: the digits choose the entries and the
    /// additions.
    pub(crate) fn mul_vartime(&self, s: &Scalar) -> ProjectivePoint {
        let digits = signed_digits(s);
        let mut acc = ProjectivePoint::IDENTITY;
        for (row, (magnitude, negative)) in self.rows.iter().zip(digits.iter()) {
            let entry = &row[usize::from(*magnitude)];
            match (*magnitude, *negative) {
                (0, _) => {}
                (_, 0) => acc += entry,
                _ => acc += &-*entry,
            }
        }
        acc
    }
}

/// The signed 5-bit digits of `s` as (magnitude `0..=16`, negative) pairs.
fn signed_digits(s: &Scalar) -> [(u8, u8); DIGITS] {
    let be: [u8; 32] = s.to_bytes().into();
    // Little-endian 64-bit limbs, and a zero limb above for the top windows.
    let mut limbs = [0u64; 5];
    for (k, limb) in limbs.iter_mut().take(4).enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&be[32 - 8 * (k + 1)..32 - 8 * k]);
        *limb = u64::from_be_bytes(word);
    }
    let mut digits = [(0u8, 0u8); DIGITS];
    let mut carry = 0u64;
    for (k, digit) in digits.iter_mut().enumerate() {
        let bit = k * WINDOW;
        let (word, shift) = (bit / 64, bit % 64);
        let mut window = limbs[word] >> shift;
        if shift + WINDOW > 64 {
            window |= limbs[word + 1] << (64 - shift);
        }
        let value = (window & ((1 << WINDOW) - 1)) + carry; // 0..=32
        let negative = (value + (1 << (WINDOW - 1))) >> WINDOW; // 1 iff value >= 16
        let signed = value as i64 - ((negative as i64) << WINDOW); // −16..=15
        let mask = signed >> 63;
        let magnitude = (signed ^ mask) - mask; // 0..=16
        *digit = (magnitude as u8, negative as u8);
        carry = negative;
    }
    digits
}

/// The process-wide table of `G` (built at the first use).
pub(crate) fn generator_table() -> &'static FixedBaseTable {
    static TABLE: OnceLock<FixedBaseTable> = OnceLock::new();
    TABLE.get_or_init(|| FixedBaseTable::new(&ProjectivePoint::GENERATOR))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k256::elliptic_curve::ops::{MulByGenerator, Reduce};
    use k256::elliptic_curve::Field;
    use k256::U256;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn check(s: &Scalar) {
        let expected = ProjectivePoint::mul_by_generator(s).to_affine();
        assert_eq!(
            generator_table().mul_vartime(s).to_affine(),
            expected,
            "s = {s:?}"
        );
    }

    /// The scalar whose 5-bit windows `0..windows` all hold `w` (below `2^255 < q` for
    /// `windows <= 51`).
    fn windows_of(w: u64, windows: usize) -> Scalar {
        let mut limbs = [0u64; 4];
        for k in 0..windows {
            let bit = k * WINDOW;
            limbs[bit / 64] |= w << (bit % 64);
            if bit % 64 + WINDOW > 64 {
                limbs[bit / 64 + 1] |= w >> (64 - bit % 64);
            }
        }
        let mut be = [0u8; 32];
        for (k, limb) in limbs.iter().enumerate() {
            be[32 - 8 * (k + 1)..32 - 8 * k].copy_from_slice(&limb.to_be_bytes());
        }
        <Scalar as Reduce<U256>>::reduce_bytes(&be.into())
    }

    #[test]
    fn matches_k256_at_the_digit_edges() {
        let minus_one = -Scalar::ONE;
        for s in [
            Scalar::ZERO,
            Scalar::ONE,
            minus_one, // q − 1: windows of 31 with carries, the top digit 2
            minus_one - Scalar::ONE,
            Scalar::from(15u64),
            Scalar::from(16u64),
            Scalar::from(17u64),
            Scalar::from(31u64),
            Scalar::from(32u64),
            Scalar::from(33u64),
            Scalar::from(1u64 << 63),
            -Scalar::from(16u64),
        ] {
            check(&s);
        }
        // Every window 15 (the largest positive digit), 16 (every digit −16 with a carry),
        // 31 (every digit −1 with a carry) or 1, over all 51 full windows and over a few.
        for w in [1, 15, 16, 17, 31] {
            for windows in [1, 2, 12, 13, 25, 26, 50, 51] {
                check(&windows_of(w, windows));
                check(&-windows_of(w, windows));
            }
        }
        // Bit 255 set with every window below 16: the top digit carries in.
        check(&(windows_of(16, 51) + Scalar::from(2u64).pow_vartime([255])));
    }

    #[test]
    fn matches_k256_on_random_scalars() {
        let mut rng = ChaCha20Rng::seed_from_u64(15);
        for _ in 0..200 {
            check(&Scalar::random(&mut rng));
        }
    }

    #[test]
    fn table_of_another_point_matches_k256() {
        let mut rng = ChaCha20Rng::seed_from_u64(17);
        let p = ProjectivePoint::mul_by_generator(&Scalar::random(&mut rng));
        let table = FixedBaseTable::new(&p);
        for s in (0..50).map(|_| Scalar::random(&mut rng)).chain([
            Scalar::ZERO,
            Scalar::ONE,
            -Scalar::ONE,
            windows_of(16, 51),
        ]) {
            let expected = (p * s).to_affine();
            assert_eq!(table.mul_vartime(&s).to_affine(), expected);
        }
    }

    #[test]
    fn digits_recompose_the_scalar() {
        let mut rng = ChaCha20Rng::seed_from_u64(16);
        let thirty_two = Scalar::from(32u64);
        for s in (0..100)
            .map(|_| Scalar::random(&mut rng))
            .chain([Scalar::ZERO, -Scalar::ONE])
        {
            let digits = signed_digits(&s);
            let mut acc = Scalar::ZERO;
            for (magnitude, negative) in digits.iter().rev() {
                assert!(*magnitude <= 16 && *negative <= 1);
                let d = Scalar::from(u64::from(*magnitude));
                acc = acc * thirty_two + if *negative == 1 { -d } else { d };
            }
            assert_eq!(acc, s);
        }
    }
}
