//! G1 multiplication by a **public** scalar through the curve's endomorphism (GLV), for
//! points that may be secret (the Feist–Khovratovich FFT twiddles of `quorate-bls`).
//!
//! BLS12-381's G1 has the endomorphism `φ(x, y) = (β·x, y)` with `β` a cube root of unity
//! in `F_p`; on G1 it acts as multiplication by `−z²` (`z = −0xd201000000010000`, the
//! curve parameter; `r = z⁴ − z² + 1`, so `(−z²)² − z² + 1 ≡ 0` checks that `−z²` is an
//! eigenvalue). Writing a scalar `k < r` as `k = k₀ + k₁·z²` with `k₀, k₁ < z² < 2^128`
//! (one integer division) gives `k·P = k₀·P + k₁·φ(−P)`: two 128-bit scalars in one
//! interleaved width-5 NAF ladder, 128 doublings instead of 255.
//!
//! Timing: the ladder's sequence of doublings, additions and table indices depends on the
//! scalar's digits, so it is **variable time in the scalar**, which must be public (FFT
//! twiddle factors, roots of unity). It does not depend on the point: every addition and
//! doubling is `blst`'s complete, constant-time formula, `φ` is one constant-time field
//! multiplication of `blstrs`'s public `Fp` type (no field arithmetic of our own), and
//! negation is `blst`'s. So the point may be secret.

use blstrs::{G1Projective, Scalar};
use ff::{Field, PrimeField};
use group::Group;
use rand_core::{CryptoRng, RngCore};

/// `β` as five 64-bit limbs, most significant first: the cube root of unity for which
/// `φ = −z²` on G1 (checked by `endomorphism_is_minus_z_squared` below).
const BETA_LIMBS_BE: [u64; 5] = [
    0x5f19_672f_df76_ce51,
    0xba69_c607_6a0f_77ea,
    0xddb3_a93b_e6f8_9688,
    0xde17_d813_620a_0002,
    0x2e01_ffff_fffe_fffe,
];

/// `z² = 0xd201000000010000²`, the GLV modulus (`< 2^128`).
const Z_SQUARED: u128 = 0xac45_a401_0001_a402_0000_0001_0000_0000;

/// NAF window width: digits are odd and in `(−2^(W−1), 2^(W−1))`.
const W: u32 = 5;

/// `β` in the field type of `like` (`blstrs` does not export its `Fp` type by name; it is
/// built from `u64`s with `blstrs`'s own field operations: five multiplications by `2^64`,
/// about 0.2 µs).
fn beta_like<F: Field + From<u64>>(_like: &F) -> F {
    let two_64 = F::from(1 << 32).square();
    BETA_LIMBS_BE
        .iter()
        .fold(F::ZERO, |acc, limb| acc * two_64 + F::from(*limb))
}

/// A public scalar prepared for G1 multiplication by the GLV method: the width-5 NAF
/// digits of its two 128-bit halves. Variable time in the scalar (see the module docs).
#[derive(Clone, Debug)]
pub struct PublicScalarVartime {
    /// NAF digits of `k₀`, least significant first.
    naf0: Vec<i8>,
    /// NAF digits of `k₁`, least significant first.
    naf1: Vec<i8>,
}

impl PublicScalarVartime {
    /// Prepares a **public** scalar (one integer division and two NAF recodings).
    pub fn new(s: &Scalar) -> Self {
        let (k0, k1) = split(s);
        PublicScalarVartime {
            naf0: wnaf(k0),
            naf1: wnaf(k1),
        }
    }

    /// A random batching weight drawn in GLV form, `r = a + b·z²` with `a` and `b`
    /// uniform below `2^64`, prepared for multiplication: `r·P = a·P + b·φ(−P)` takes 64
    /// doublings instead of the 128 of a plain 128-bit weight. Distinct `(a, b)` give
    /// distinct integers `r < r_BLS` (as `a < 2^64 < z²`), so `r` is uniform over `2^128`
    /// values and a random-linear-combination check that a wrong term passes for at most
    /// one `r` passes it with probability `≤ 2^-128`, as with a uniform 128-bit weight.
    /// Returns the prepared weight and `r` as a scalar. The weight is a verifier's public
    /// coin: variable time in it, like every `_vartime` multiplication.
    pub fn random_weight<R: RngCore + CryptoRng>(rng: &mut R) -> (Self, Scalar) {
        let (a, b) = (rng.next_u64(), rng.next_u64());
        let r = Scalar::from(a) + Scalar::from(b) * Scalar::from_u128(Z_SQUARED);
        (
            PublicScalarVartime {
                naf0: wnaf(u128::from(a)),
                naf1: wnaf(u128::from(b)),
            },
            r,
        )
    }

    /// `s·P` for the prepared public `s`; `P` may be secret. Variable time in `s` only.
    pub fn mul_vartime(&self, p: &G1Projective) -> G1Projective {
        let len = self.naf0.len().max(self.naf1.len());
        if len == 0 {
            return G1Projective::identity();
        }
        // Odd multiples P, 3P, …, 15P and their images φ(−jP) = (β·X, −Y, Z).
        let mut odd = [*p; 1 << (W - 2)];
        let twice = p.double();
        for k in 1..odd.len() {
            odd[k] = odd[k - 1] + twice;
        }
        let beta = beta_like(&p.x());
        let mut endo = odd;
        for e in endo.iter_mut() {
            *e = G1Projective::from_raw_unchecked(e.x() * beta, -e.y(), e.z());
        }
        let mut acc = G1Projective::identity();
        let mut started = false;
        for i in (0..len).rev() {
            if started {
                acc = acc.double();
            }
            for (naf, table) in [(&self.naf0, &odd), (&self.naf1, &endo)] {
                let digit = naf.get(i).copied().unwrap_or(0);
                if digit > 0 {
                    acc += table[(digit as usize) / 2];
                    started = true;
                } else if digit < 0 {
                    acc -= table[(digit.unsigned_abs() as usize) / 2];
                    started = true;
                }
            }
        }
        acc
    }
}

/// `k = k₀ + k₁·z²` with `k₀ < z²` (and `k₁ < z²` because `k < r < z⁴`): schoolbook binary
/// long division of the 255-bit `k` by the 128-bit `z²`. Variable time (public `k`).
fn split(s: &Scalar) -> (u128, u128) {
    let le = s.to_bytes_le();
    let mut rem: u128 = 0;
    let mut quot: u128 = 0;
    for bit in (0..256).rev() {
        let top = rem >> 127;
        rem = (rem << 1) | u128::from((le[bit / 8] >> (bit % 8)) & 1);
        if top == 1 || rem >= Z_SQUARED {
            // With the shifted-out top bit the true value is 2^128 + rem < 2·z²; the
            // wrapping subtraction yields it minus z², which is below z².
            rem = rem.wrapping_sub(Z_SQUARED);
            if bit < 128 {
                quot |= 1 << bit;
            }
        }
    }
    (rem, quot)
}

/// Width-`W` non-adjacent form of `k`, least significant digit first.
fn wnaf(mut k: u128) -> Vec<i8> {
    let mut digits = Vec::with_capacity(130);
    // `k` may use all 128 bits; the recoding can carry one bit past it.
    let mut carry_bit = false;
    while k != 0 || carry_bit {
        if k & 1 == 1 {
            let window = (k & ((1 << W) - 1)) as i16;
            let digit = if window >= 1 << (W - 1) {
                window - (1 << W)
            } else {
                window
            };
            if digit < 0 {
                // k − digit = k + |digit|; may overflow 128 bits.
                let (sum, overflow) = k.overflowing_add(digit.unsigned_abs() as u128);
                k = sum;
                carry_bit |= overflow;
            } else {
                k -= digit as u128;
            }
            digits.push(digit as i8);
        } else {
            digits.push(0);
        }
        k >>= 1;
        if carry_bit {
            k |= 1 << 127;
            carry_bit = false;
        }
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn endomorphism_is_minus_z_squared() {
        let mut rng = ChaCha20Rng::seed_from_u64(21);
        let p = G1Projective::random(&mut rng);
        let beta = beta_like(&p.x());
        let phi = G1Projective::from_raw_unchecked(p.x() * beta, p.y(), p.z());
        assert_eq!(phi, -(p * Scalar::from_u128(Z_SQUARED)));
        assert_ne!(beta, Field::ONE);
        assert_eq!(beta.square() * beta, Field::ONE);
    }

    #[test]
    fn glv_matches_scalar_multiplication() {
        let mut rng = ChaCha20Rng::seed_from_u64(22);
        let mut scalars: Vec<Scalar> = (0..24).map(|_| Scalar::random(&mut rng)).collect();
        scalars.extend([
            Scalar::ZERO,
            Scalar::ONE,
            -Scalar::ONE,
            Scalar::from(15u64),
            Scalar::from(16u64),
            Scalar::from_u128(Z_SQUARED),
            Scalar::from_u128(Z_SQUARED - 1),
            Scalar::from_u128(u128::MAX),
            Scalar::ROOT_OF_UNITY,
        ]);
        let points = [
            G1Projective::random(&mut rng),
            G1Projective::generator(),
            G1Projective::identity(),
        ];
        for s in &scalars {
            let prepared = PublicScalarVartime::new(s);
            for p in &points {
                assert_eq!(prepared.mul_vartime(p), p * s, "scalar {s:?}");
            }
        }
    }

    #[test]
    fn random_weight_is_a_plus_b_z_squared_and_multiplies_by_it() {
        let mut rng = ChaCha20Rng::seed_from_u64(24);
        let points = [G1Projective::random(&mut rng), G1Projective::identity()];
        let mut seen = std::collections::HashSet::new();
        for _ in 0..32 {
            let mut probe = rng.clone();
            let (a, b) = (probe.next_u64(), probe.next_u64());
            let (w, r) = PublicScalarVartime::random_weight(&mut rng);
            assert_eq!(
                r,
                Scalar::from(a) + Scalar::from(b) * Scalar::from_u128(Z_SQUARED)
            );
            assert!(seen.insert(r.to_repr()));
            for p in &points {
                assert_eq!(w.mul_vartime(p), p * r);
            }
        }
    }

    #[test]
    fn split_and_naf_reconstruct_the_scalar() {
        let mut rng = ChaCha20Rng::seed_from_u64(23);
        for s in (0..64)
            .map(|_| Scalar::random(&mut rng))
            .chain([-Scalar::ONE])
        {
            let (k0, k1) = split(&s);
            assert!(k0 < Z_SQUARED && k1 < Z_SQUARED);
            assert_eq!(
                Scalar::from_u128(k0) + Scalar::from_u128(k1) * Scalar::from_u128(Z_SQUARED),
                s
            );
        }
        for k in [0u128, 1, 31, 0x5555, u128::MAX, u128::MAX - 15, 1 << 127] {
            let mut acc = Scalar::ZERO;
            for d in wnaf(k).iter().rev() {
                acc = acc.double()
                    + Scalar::from(u64::from(d.unsigned_abs()))
                        * if *d < 0 { -Scalar::ONE } else { Scalar::ONE };
            }
            assert_eq!(acc, Scalar::from_u128(k), "k = {k:#x}");
        }
    }
}
