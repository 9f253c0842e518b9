//! Random primes and safe primes.
//!
//! # Method
//!
//! A candidate window is sieved before any expensive test:
//!
//! 1. Draw a random odd start `x0` of the requested size with its **top two bits set**, so
//!    that the product of two such primes has exactly twice the bit length.
//! 2. Consider the `WINDOW` candidates `x_j = x0 + 2j`. For every odd prime `s < 2^16`
//!    (6541 of them), cross out the `j` with `x_j ≡ 0 (mod s)` and, for safe primes, also
//!    those with `2·x_j + 1 ≡ 0 (mod s)`; both are arithmetic progressions in `j` with
//!    difference `s`, so the whole window costs `Σ WINDOW/s` steps.
//! 3. Survivors get a base-2 Fermat test (on `q` and on `p = 2q + 1` for safe primes), then
//!    GMP's `mpz_probab_prime_p` with [`MILLER_RABIN_REPS`] repetitions on each number (on
//!    both `q` and `p` for safe primes). In GMP 6.2 that function runs trial division, a
//!    Baillie–PSW test and `reps − 24` = 8 further Miller–Rabin rounds with random bases, so
//!    the error probability for random candidates is far below `2^-100` (no BPSW
//!    pseudoprime is known at all).
//!
//! Searching a window from a random start gives primes with a slight bias toward those
//! after long prime gaps, as in OpenSSL and GMP's `next_prime`; this is standard and
//! harmless for RSA/Paillier moduli.
//!
//! # Side channels
//!
//! Prime generation is **not constant time**: the Fermat filter uses `mpz_powm`, GMP's
//! primality test is variable time, and the number of candidates tried depends on the
//! secret. Generate keys where no one can time the process (the trusted dealer's or key
//! owner's own machine).
//!
//! # Expected running time
//!
//! Measured on the project's 2-core shared Xeon VM (release build, one thread, other jobs
//! running), 4–50 runs per size. Safe-prime search time is roughly exponentially
//! distributed, so single runs from a tenth to three times the mean are normal:
//!
//! | bits | random prime (mean) | safe prime (mean, observed range) |
//! |---|---|---|
//! | 256 | ≈ 3 ms | ≈ 4 ms |
//! | 512 | ≈ 10 ms | ≈ 50 ms (12–110 ms) |
//! | 1024 (n = 2048) | ≈ 50 ms | ≈ 1 s (0.3–2.6 s) |
//! | 1536 (n = 3072) | ≈ 0.12 s | ≈ 12 s (1–33 s) |
//! | 2048 (n = 4096) | ≈ 0.45 s | ≈ 30 s (1–90 s) |
//!
//! A safe-prime Paillier or threshold key needs two of them. The cost per candidate grows
//! like `bits³` and the number of candidates like `bits²` for safe primes (`bits` for
//! plain ones).

use crate::bigint::random_bits;
use crate::error::PaillierError;
use rand_core::{CryptoRng, RngCore};
use rug::integer::IsPrime;
use rug::Integer;
use std::sync::OnceLock;

/// Repetitions passed to GMP's `mpz_probab_prime_p`: in GMP ≥ 6.2 that is a Baillie–PSW
/// test plus `reps − 24` = 8 Miller–Rabin rounds with random bases. (FIPS 186-5 Table B.1
/// asks for at most 7 Miller–Rabin rounds, or fewer plus one Lucas test, for random
/// candidates of 512 bits or more at error `2^-100`; BPSW has no known counterexample.)
pub const MILLER_RABIN_REPS: u32 = 32;

/// The smallest prime size this module generates (below it the sieve primes could collide
/// with the candidates).
pub const MIN_PRIME_BITS: u32 = 32;

/// The largest prime size this module generates.
pub const MAX_PRIME_BITS: u32 = 8192;

/// Sieve primes are all odd primes below this bound.
const SIEVE_BOUND: u32 = 1 << 16;

/// Number of candidates `x0 + 2j` per sieved window.
const WINDOW: usize = 1 << 15;

fn sieve_primes() -> &'static [u32] {
    static PRIMES: OnceLock<Vec<u32>> = OnceLock::new();
    PRIMES.get_or_init(|| {
        let bound = SIEVE_BOUND as usize;
        let mut composite = vec![false; bound];
        let mut out = Vec::new();
        for i in 2..bound {
            if !composite[i] {
                if i > 2 {
                    out.push(i as u32);
                }
                let mut k = i * i;
                while k < bound {
                    composite[k] = true;
                    k += i;
                }
            }
        }
        out
    })
}

/// The odd primes below 2^16 used by the sieve (3, 5, 7, ...).
pub fn small_primes() -> &'static [u32] {
    sieve_primes()
}

/// Whether `x` is a probable prime ([`MILLER_RABIN_REPS`] repetitions of GMP's test).
pub fn is_probable_prime(x: &Integer) -> bool {
    *x > 1 && x.is_probably_prime(MILLER_RABIN_REPS) != IsPrime::No
}

/// Whether `p` is a safe prime: `p` and `q = (p − 1)/2` are both (probable) primes.
pub fn is_safe_prime(p: &Integer) -> bool {
    if *p < 5 || p.is_even() {
        return false;
    }
    let q = Integer::from(p - 1u32) >> 1u32;
    is_probable_prime(&q) && is_probable_prime(p)
}

/// Whether `x` has a prime factor below 2^16 (and is not that prime itself).
pub fn has_small_factor(x: &Integer) -> bool {
    if x.is_even() {
        return *x != 2;
    }
    sieve_primes().iter().any(|&s| x.mod_u(s) == 0 && *x != s)
}

fn check_bits(bits: u32) -> Result<(), PaillierError> {
    if !(MIN_PRIME_BITS..=MAX_PRIME_BITS).contains(&bits) {
        return Err(PaillierError::BitLength {
            what: "prime",
            bits,
            min: MIN_PRIME_BITS,
            max: MAX_PRIME_BITS,
        });
    }
    Ok(())
}

/// A random odd integer of exactly `bits` bits with the top two bits set.
fn random_start<R: RngCore + CryptoRng>(rng: &mut R, bits: u32) -> Integer {
    let mut x = random_bits(rng, bits);
    x.set_bit(bits - 1, true);
    x.set_bit(bits - 2, true);
    x.set_bit(0, true);
    x
}

/// Crosses out `j ≡ j0 (mod s)` in the window.
fn cross_out(bad: &mut [bool], j0: u64, s: u64) {
    let mut j = j0 as usize;
    let step = s as usize;
    while j < bad.len() {
        bad[j] = true;
        j += step;
    }
}

/// `a^{-1} mod s` for prime `s` not dividing `a` (Fermat).
fn inv_mod_small(a: u64, s: u64) -> u64 {
    let mut result = 1u64;
    let mut base = a % s;
    let mut e = s - 2;
    while e > 0 {
        if e & 1 == 1 {
            result = result * base % s;
        }
        base = base * base % s;
        e >>= 1;
    }
    result
}

/// Sieves the window `x0 + 2j`, `j < WINDOW`. With `safe`, also crosses out candidates
/// whose `2x + 1` has a small factor.
fn sieve_window(x0: &Integer, safe: bool) -> Vec<bool> {
    let mut bad = vec![false; WINDOW];
    for &s in sieve_primes() {
        let s64 = u64::from(s);
        let r = u64::from(x0.mod_u(s));
        let inv2 = inv_mod_small(2, s64);
        // x0 + 2j ≡ 0  ⟺  j ≡ −r / 2.
        let j_x = (s64 - r) % s64 * inv2 % s64;
        cross_out(&mut bad, j_x, s64);
        if safe {
            // 2(x0 + 2j) + 1 ≡ 0  ⟺  j ≡ −(2r + 1) / 4.
            let inv4 = inv2 * inv2 % s64;
            let t = (2 * r + 1) % s64;
            let j_p = (s64 - t) % s64 * inv4 % s64;
            cross_out(&mut bad, j_p, s64);
        }
    }
    bad
}

/// Base-2 Fermat test: `2^(x−1) ≡ 1 (mod x)`. Variable time (prime generation is).
fn fermat2(x: &Integer) -> bool {
    let e = Integer::from(x - 1u32);
    match Integer::from(2).pow_mod(&e, x) {
        Ok(r) => r == 1,
        Err(_) => false,
    }
}

/// A random prime of exactly `bits` bits whose top two bits are set.
///
/// `bits` must lie in [`MIN_PRIME_BITS`]`..=`[`MAX_PRIME_BITS`].
pub fn generate_prime<R: RngCore + CryptoRng>(
    bits: u32,
    rng: &mut R,
) -> Result<Integer, PaillierError> {
    check_bits(bits)?;
    loop {
        let x0 = random_start(rng, bits);
        let last = Integer::from(&x0 + 2 * WINDOW as u64);
        if last.significant_bits() > bits {
            continue;
        }
        let bad = sieve_window(&x0, false);
        for (j, _) in bad.iter().enumerate().filter(|(_, b)| !**b) {
            let x = Integer::from(&x0 + 2 * j as u64);
            if fermat2(&x) && is_probable_prime(&x) {
                return Ok(x);
            }
        }
    }
}

/// A random safe prime `p = 2q + 1` (`q` prime) of exactly `bits` bits with the top two bits
/// set. Both `q` and `p` pass [`MILLER_RABIN_REPS`] repetitions of GMP's test.
///
/// `bits` must lie in [`MIN_PRIME_BITS`]`..=`[`MAX_PRIME_BITS`]. See the module docs for
/// expected running times (seconds at 1536 bits, about a minute at 2048 bits).
pub fn generate_safe_prime<R: RngCore + CryptoRng>(
    bits: u32,
    rng: &mut R,
) -> Result<Integer, PaillierError> {
    check_bits(bits)?;
    loop {
        // q has bits − 1 bits with its top two bits set, so p = 2q + 1 has `bits` bits with
        // its top two bits set.
        let q0 = random_start(rng, bits - 1);
        let last = Integer::from(&q0 + 2 * WINDOW as u64);
        if last.significant_bits() > bits - 1 {
            continue;
        }
        let bad = sieve_window(&q0, true);
        for (j, _) in bad.iter().enumerate().filter(|(_, b)| !**b) {
            let q = Integer::from(&q0 + 2 * j as u64);
            let p = Integer::from(&q * 2u32) + 1u32;
            if fermat2(&q) && fermat2(&p) && is_probable_prime(&q) && is_probable_prime(&p) {
                return Ok(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn sieve_primes_are_right() {
        let p = small_primes();
        assert_eq!(&p[..6], &[3, 5, 7, 11, 13, 17]);
        assert_eq!(p.len(), 6541);
        assert_eq!(p.last(), Some(&65521));
    }

    #[test]
    fn small_inverse() {
        for s in [3u64, 5, 7, 65521] {
            assert_eq!(2 * inv_mod_small(2, s) % s, 1);
        }
    }

    #[test]
    fn window_sieve_marks_exactly_the_multiples() {
        let x0 = Integer::from(1_000_001u32);
        let bad = sieve_window(&x0, true);
        for (j, b) in bad.iter().enumerate().take(2000) {
            let x = Integer::from(&x0 + 2 * j as u32);
            let p = Integer::from(&x * 2u32) + 1u32;
            let expect = has_small_factor(&x) || has_small_factor(&p);
            assert_eq!(*b, expect, "j = {j}");
        }
    }

    #[test]
    fn bit_bounds() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        assert!(matches!(
            generate_prime(16, &mut rng),
            Err(PaillierError::BitLength { .. })
        ));
        assert!(generate_safe_prime(MAX_PRIME_BITS + 1, &mut rng).is_err());
    }

    #[test]
    fn safe_prime_checks() {
        assert!(is_safe_prime(&Integer::from(23)));
        assert!(is_safe_prime(&Integer::from(2_039)));
        assert!(!is_safe_prime(&Integer::from(13)));
        assert!(!is_safe_prime(&Integer::from(2)));
        assert!(!is_safe_prime(&Integer::from(25)));
    }
}
