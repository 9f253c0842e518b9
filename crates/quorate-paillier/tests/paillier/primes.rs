//! Prime and safe-prime generation.
#![allow(clippy::unwrap_used)]

use quorate_paillier::primes::{
    generate_prime, generate_safe_prime, has_small_factor, is_probable_prime, is_safe_prime,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rug::Integer;
use std::time::Instant;

fn top_two_bits_set(x: &Integer, bits: u32) -> bool {
    x.significant_bits() == bits && x.get_bit(bits - 1) && x.get_bit(bits - 2)
}

#[test]
fn random_primes_have_the_requested_shape() {
    let mut rng = ChaCha20Rng::seed_from_u64(10);
    for bits in [64u32, 256, 512] {
        for _ in 0..3 {
            let p = generate_prime(bits, &mut rng).unwrap();
            assert!(
                top_two_bits_set(&p, bits),
                "{bits}-bit prime has the wrong size"
            );
            assert!(is_probable_prime(&p));
            assert!(!has_small_factor(&p));
        }
    }
    // Two such primes multiply to exactly twice the size.
    let p = generate_prime(256, &mut rng).unwrap();
    let q = generate_prime(256, &mut rng).unwrap();
    assert_eq!(Integer::from(&p * &q).significant_bits(), 512);
}

#[test]
fn safe_primes_have_prime_halves() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    for bits in [64u32, 256, 512] {
        let p = generate_safe_prime(bits, &mut rng).unwrap();
        assert!(top_two_bits_set(&p, bits));
        let q = Integer::from(&p - 1u32) >> 1u32;
        assert!(is_probable_prime(&q), "(p-1)/2 must be prime");
        assert!(is_probable_prime(&p));
        assert!(is_safe_prime(&p));
        // p ≡ 3 (mod 4) and, for p > 7, q ≡ 2 (mod 3), so p ≡ 11 (mod 12).
        assert_eq!(p.mod_u(12), 11);
    }
}

#[test]
fn safe_prime_1024_bits_in_reasonable_time() {
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let start = Instant::now();
    let p = generate_safe_prime(1024, &mut rng).unwrap();
    let elapsed = start.elapsed();
    eprintln!("1024-bit safe prime in {elapsed:?}");
    assert!(is_safe_prime(&p));
    assert_eq!(p.significant_bits(), 1024);
}

#[test]
fn non_safe_primes_are_recognised() {
    // 47 = 2·23 + 1 is safe; 29 = 2·14 + 1 is prime but 14 is not.
    assert!(is_safe_prime(&Integer::from(47)));
    assert!(!is_safe_prime(&Integer::from(29)));
    // A large prime p whose (p-1)/2 is composite.
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let mut found = false;
    for _ in 0..20 {
        let p = generate_prime(256, &mut rng).unwrap();
        let q = Integer::from(&p - 1u32) >> 1u32;
        if !is_probable_prime(&q) {
            assert!(!is_safe_prime(&p));
            found = true;
            break;
        }
    }
    assert!(found);
    // A Carmichael number is not a probable prime.
    assert!(!is_probable_prime(&Integer::from(561)));
    assert!(!is_probable_prime(&Integer::from(1)));
}
