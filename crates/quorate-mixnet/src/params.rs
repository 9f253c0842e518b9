//! Security parameters, hash-to-curve generators and integer/scalar conversions.
//!
//! Every group generator is `hash_to_curve(label ‖ index)` (RFC 9380, BLS12-381 G1,
//! SSWU, random-oracle variant) under the domain separation tag [`GENERATOR_DST`], so nobody
//! knows a discrete-log relation among them (no trapdoor, unlike the artifact's
//! `group.random` setup).

use blstrs::{G1Projective, Scalar};
use ff::PrimeField;
use quorate_core::bls12_381::hash::hash_to_g1;
use quorate_core::bls12_381::msm::FixedBaseCt;
use quorate_paillier::rug::Integer;
use rayon::prelude::*;
use std::sync::OnceLock;

/// Domain separation tag for generator derivation.
pub const GENERATOR_DST: &[u8] = b"QUORATE-MIXNET-V01-CS01-with-BLS12381G1_XMD:SHA-256_SSWU_RO_";
/// Bits in Fiat–Shamir challenges.
pub const CHALLENGE_BITS: u32 = 128;
/// Bits in batching / shuffle challenge-vector exponents.
pub const BATCH_BITS: u32 = 128;
/// Statistical slack (bits) for integer masks.
pub const SLACK_BITS: u32 = 40;
/// Bits of the BLS12-381 scalar field order `q`.
pub const SCALAR_BITS: u32 = 255;
/// Bits of the masks `α` in a sender's link proof (witness `|q|` + challenge + slack).
pub const MASK_BITS: u32 = SCALAR_BITS + CHALLENGE_BITS + SLACK_BITS;
/// Bits of the input-sharing masks `a_k, a′_k`.
pub const A_BITS: u32 = SCALAR_BITS + SLACK_BITS;
/// Bits of the input-sharing proof masks.
pub const PROOF_MASK_BITS: u32 = A_BITS + CHALLENGE_BITS + SLACK_BITS;
/// The largest number of senders per batch accepted by the API (bounds allocations).
pub const MAX_SENDERS: usize = 1 << 20;
/// The smallest Paillier modulus the mixnet accepts (the sender's proof responses must be
/// valid plaintexts). Production deployments use ≥ 3072 bits.
pub const MIN_PAILLIER_BITS: u32 = 1024;
/// The Paillier modulus size for production (≥ 128-bit security).
pub const PRODUCTION_PAILLIER_BITS: u32 = 3072;
/// The Paillier modulus size of the test-only constructors (fast safe-prime generation).
pub const TEST_PAILLIER_BITS: u32 = 1024;

/// The public generators: `g`, `h` (Pedersen commitment `γ = g^v h^r` and ElGamal), and the
/// permutation-commitment key `h_0, h_1, …, h_n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generators {
    /// `g`.
    pub g: G1Projective,
    /// `h`.
    pub h: G1Projective,
    /// `h_0` (the chain base of the shuffle proof).
    pub h0: G1Projective,
    /// `h_1 … h_n` (the permutation-commitment key).
    pub hs: Vec<G1Projective>,
}

impl Generators {
    /// Derives the generators for batches of `n` senders.
    pub fn derive(n: usize) -> Self {
        let g = hash_to_g1(b"g", GENERATOR_DST);
        let h = hash_to_g1(b"h", GENERATOR_DST);
        let h0 = hash_to_g1(b"h_0", GENERATOR_DST);
        let hs = (1..=n as u64)
            .into_par_iter()
            .map(|i| {
                let mut msg = b"h_i".to_vec();
                msg.extend_from_slice(&i.to_be_bytes());
                hash_to_g1(&msg, GENERATOR_DST)
            })
            .collect();
        Generators { g, h, h0, hs }
    }

    /// The batch size `n` these generators support.
    pub fn n(&self) -> usize {
        self.hs.len()
    }

    /// `a·g + b·h_0` for **secret** scalars, in constant time: through the process's
    /// fixed-base tables of the hashed generators ([`FixedBaseCt`]: 52 mixed additions
    /// per term against `blst`'s ≈ 128 doublings and 52 additions) when these generators
    /// are the hashed ones (always, from [`Generators::derive`]), else two `blst`
    /// multiplications. The shuffle provers' chain terms `B_i`, `B′_i` (issue 17).
    pub fn g_h0_mul_ct(&self, a: &Scalar, b: &Scalar) -> G1Projective {
        self.g_mul_ct(a) + self.h0_mul_ct(b)
    }

    /// The Pedersen commitment `a·g + b·h` for **secret** scalars, in constant time
    /// (tables as [`Self::g_h0_mul_ct`]): the blinding and DPK_BB commitments.
    pub fn g_h_mul_ct(&self, a: &Scalar, b: &Scalar) -> G1Projective {
        self.g_mul_ct(a) + self.h_mul_ct(b)
    }

    /// `a·g` for a **secret** scalar, in constant time (table as [`Self::g_h0_mul_ct`]).
    pub fn g_mul_ct(&self, a: &Scalar) -> G1Projective {
        let t = generator_tables();
        table_or_blst_ct(&t.g_point, &t.g, &self.g, a)
    }

    fn h_mul_ct(&self, a: &Scalar) -> G1Projective {
        let t = generator_tables();
        table_or_blst_ct(&t.h_point, &t.h, &self.h, a)
    }

    fn h0_mul_ct(&self, a: &Scalar) -> G1Projective {
        let t = generator_tables();
        table_or_blst_ct(&t.h0_point, &t.h0, &self.h0, a)
    }
}

/// `a·point` for a secret `a`, in constant time: through `table` when it is the table of
/// `point` (`table_point`), else `blst`'s multiplication.
fn table_or_blst_ct(
    table_point: &G1Projective,
    table: &FixedBaseCt<G1Projective>,
    point: &G1Projective,
    a: &Scalar,
) -> G1Projective {
    if table_point == point {
        table.mul_ct(a)
    } else {
        point * a
    }
}

/// Constant-time fixed-base tables of the hashed `g`, `h` and `h_0` (≈ 83 KiB each, built
/// once per process: ≈ 900 additions and one batched affine conversion each; the points
/// are public).
struct GeneratorTables {
    g_point: G1Projective,
    h_point: G1Projective,
    h0_point: G1Projective,
    g: FixedBaseCt<G1Projective>,
    h: FixedBaseCt<G1Projective>,
    h0: FixedBaseCt<G1Projective>,
}

fn generator_tables() -> &'static GeneratorTables {
    static TABLES: OnceLock<GeneratorTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let g_point = hash_to_g1(b"g", GENERATOR_DST);
        let h_point = hash_to_g1(b"h", GENERATOR_DST);
        let h0_point = hash_to_g1(b"h_0", GENERATOR_DST);
        GeneratorTables {
            g_point,
            h_point,
            h0_point,
            g: FixedBaseCt::new(g_point),
            h: FixedBaseCt::new(h_point),
            h0: FixedBaseCt::new(h0_point),
        }
    })
}

/// The scalar field order `q` as an integer.
pub fn scalar_modulus() -> Integer {
    // MODULUS is a 0x-prefixed big-endian hex string.
    let hex = Scalar::MODULUS.trim_start_matches("0x");
    Integer::from_str_radix(hex, 16).unwrap_or_default()
}

/// `x mod q` as a scalar (any sign of `x`).
pub fn int_to_scalar(x: &Integer, q: &Integer) -> Scalar {
    let mut r = Integer::from(x % q);
    if r < 0 {
        r += q;
    }
    let digits = r.to_digits::<u8>(quorate_paillier::rug::integer::Order::Lsf);
    let mut repr = [0u8; 32];
    for (d, s) in repr.iter_mut().zip(digits.iter()) {
        *d = *s;
    }
    Option::from(Scalar::from_repr(repr)).unwrap_or(<Scalar as ff::Field>::ZERO)
}

/// A scalar as a non-negative integer below `q`.
pub fn scalar_to_int(s: &Scalar) -> Integer {
    let repr = s.to_repr();
    Integer::from_digits(repr.as_ref(), quorate_paillier::rug::integer::Order::Lsf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn conversions_round_trip() {
        let q = scalar_modulus();
        assert_eq!(q.significant_bits(), SCALAR_BITS);
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        for _ in 0..20 {
            let s = Scalar::random(&mut rng);
            let x = scalar_to_int(&s);
            assert_eq!(int_to_scalar(&x, &q), s);
            assert_eq!(int_to_scalar(&(x.clone() + &q), &q), s);
            assert_eq!(int_to_scalar(&(Integer::from(-1) * &q + &x), &q), s);
        }
        assert_eq!(int_to_scalar(&Integer::from(-1), &q), -Scalar::ONE);
    }

    #[test]
    fn generators_are_distinct_and_deterministic() {
        let a = Generators::derive(4);
        let b = Generators::derive(4);
        assert_eq!(a, b);
        let mut all = vec![a.g, a.h, a.h0];
        all.extend_from_slice(&a.hs);
        for (i, x) in all.iter().enumerate() {
            for y in all.iter().skip(i + 1) {
                assert_ne!(x, y);
            }
        }
    }
}
