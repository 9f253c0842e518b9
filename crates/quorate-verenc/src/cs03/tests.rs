//! Unit tests that need the module's internals: the forged wrapping proof, the blinding
//! statistics, and the squaring trick against the paper's `^{2t}` decryption.
#![allow(clippy::unwrap_used)]

use super::proof::{order, prove_integer, response, sample_blinding, verify_equations};
use super::*;
use crate::group::{Curve, P256};
use ff::Field;
use group::Group;
use quorate_paillier::bigint::{pow_mod_vartime, random_below};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::sync::OnceLock;

fn fixture() -> &'static (PublicKey, SecretKey, AuxParams) {
    static F: OnceLock<(PublicKey, SecretKey, AuxParams)> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(0xc503);
        let params = Cs03Params::insecure_test_params(1024, 256).unwrap();
        let (pk, sk) = keygen(&mut rng, &params).unwrap();
        let aux = AuxParams::generate(&mut rng, 1024).unwrap();
        (pk, sk, aux)
    })
}

/// The attack that the commitment `l` and the range check stop (Ursa / kryptology omit
/// them): encrypt `M = m + jρ` with `M ≥ n`, which wraps modulo `n`, so that every equation
/// of step 2(d) holds (the `e`-relation modulo `n`, the `δ`-relation modulo `ρ`), yet the
/// escrow decrypts `M mod n`, not `m`. Only the range check on `m̃` catches it.
#[test]
fn forged_wrapping_plaintext_is_caught() {
    let (pk, sk, aux) = fixture();
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let x = <P256 as Curve>::Scalar::random(&mut rng);
    let big_x = <P256 as Curve>::Point::generator() * x;
    let rho = order::<P256>();
    let m = bigint::from_be_bytes(&P256::scalar_to_be_bytes(&x));
    // The smallest M = m + jρ above n + n/2, so that M mod n lies in (n/2, n) … or anywhere:
    // what matters is that M ≢ m (mod n) and M ≡ m (mod ρ).
    let j = (pk.modulus() + Integer::from(pk.modulus() >> 1u32)) / &rho + 1u32;
    let big_m = &m + Integer::from(&j * &rho);
    assert!(big_m > *pk.modulus());
    let witness = quorate_paillier::bigint::SecretInteger::new(big_m);
    let (ct, proof) =
        prove_integer::<P256, _>(&mut rng, pk, aux, &witness, &big_x, b"forged", &rho).unwrap();
    // Every equation of step 2(d) holds ...
    verify_equations::<P256>(pk, aux, &big_x, b"forged", &ct, &proof, &rho).unwrap();
    // ... but m̃ is far outside (−n/4, n/4), and the full verifier rejects.
    assert_eq!(
        verify::<P256>(pk, aux, &big_x, b"forged", &ct, &proof),
        Err(Cs03Error::ProofRejected("m̃ outside (−n/4, n/4)"))
    );
    // And the attack is real: the escrow would not recover x.
    assert_eq!(
        recover::<P256>(sk, b"forged", &ct, &big_x),
        Err(Cs03Error::WrongPublicShare)
    );
    // The same machinery with the honest witness passes everything.
    let honest = quorate_paillier::bigint::SecretInteger::new(m);
    let (ct, proof) =
        prove_integer::<P256, _>(&mut rng, pk, aux, &honest, &big_x, b"ok", &rho).unwrap();
    verify::<P256>(pk, aux, &big_x, b"ok", &ct, &proof).unwrap();
    assert_eq!(recover::<P256>(sk, b"ok", &ct, &big_x).unwrap(), x);
}

/// The blinding r' is drawn from ±n·2^{k+k'−2}, so r̃ = r' − c·r does not reveal r. The
/// regression estimator r̂ = −Σ c_i·r̃_i / Σ c_i² recovers r almost exactly when r' is drawn
/// from [0, n/4) as in Ursa/kryptology (checked here, so the statistic has power), and is
/// off by far more than the whole range of r with the spec's blinding.
#[test]
fn blinding_hides_the_top_bits_of_r() {
    let (pk, _, _) = fixture();
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let n = pk.modulus().clone();
    let params = pk.params();
    let k = params.challenge_bits;
    let b_r = pk.blinding_bound_r();
    let quarter = Integer::from(&n >> 2u32);
    let samples = 400;
    for r_val in [
        Integer::from(1u32),
        Integer::from(&quarter - 1u32),
        Integer::from(&quarter >> 1u32),
    ] {
        let r = quorate_paillier::bigint::SecretInteger::new(r_val.clone());
        let (mut num_spec, mut num_bad, mut den) = (Integer::new(), Integer::new(), Integer::new());
        let mut max_bits = 0;
        let mut negatives = 0;
        for _ in 0..samples {
            let c = random_below(&mut rng, &(Integer::from(1u32) << k));
            // The prover's own sampling and response functions.
            let shifted = sample_blinding(&mut rng, &b_r);
            let rt = response(&shifted, &b_r, &c, &r);
            max_bits = max_bits.max(rt.significant_bits());
            negatives += usize::from(rt < 0);
            // The deviating implementations: r' ∈ [0, n/4).
            let bad = random_below(&mut rng, &quarter) - Integer::from(&c * &r_val);
            num_spec -= Integer::from(&c * &rt);
            num_bad -= Integer::from(&c * &bad);
            den += Integer::from(c.square_ref());
        }
        let est_spec = Integer::from(&num_spec / &den);
        let est_bad = Integer::from(&num_bad / &den);
        // The estimator works against the deviating blinding: error below n/2^{k/2}.
        let err_bad = Integer::from(Integer::from(&est_bad - &r_val).abs_ref());
        assert!(
            err_bad < Integer::from(&n >> (k / 2)),
            "leaky blinding not detected"
        );
        // Against the spec's blinding it is off by more than n (the whole range of r is n/4),
        // except with probability about 2^{−k'}.
        let err_spec = Integer::from(Integer::from(&est_spec - &r_val).abs_ref());
        assert!(
            err_spec > n,
            "the estimator recovered r from spec-sized blinding"
        );
        // r̃ spans the full |n| + k + k' − 1 bits and both signs.
        assert!(max_bits >= params.modulus_bits + k + params.slack_bits - 4);
        assert!(negatives > samples / 4 && negatives < 3 * samples / 4);
    }
}

/// Replacing `^{2t}` by one squaring accepts exactly the same ciphertexts and outputs the same
/// plaintext (module notes). Ciphertexts with a correct tag but a tampered `e` (times an
/// element of order 2, of order n', or of order p'... ) are decrypted both ways.
#[test]
fn squaring_matches_the_papers_decryption() {
    let (pk, sk, _) = fixture();
    let (p, q, x1) = sk.test_secrets();
    let n = pk.modulus().clone();
    let n2 = Integer::from(n.square_ref());
    let t = Integer::from(&n + 1u32) >> 1u32;
    let pp = Integer::from(&p - 1u32) >> 1u32;
    let qq = Integer::from(&q - 1u32) >> 1u32;
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let g = pk.g.clone();
    let m = Integer::from(123_456_789u64);
    let twists = [
        Integer::from(1u32),
        Integer::from(&n2 - 1u32),
        g.clone(),
        pow_mod_vartime(&g, &pp, &n2).unwrap(),
        pow_mod_vartime(&g, &qq, &n2).unwrap(),
        Integer::from(&n + 1u32),
    ];
    for (i, z) in twists.iter().enumerate() {
        let r = random_below(&mut rng, &Integer::from(&n >> 2u32));
        let u = pow_mod_vartime(&g, &r, &n2).unwrap();
        let hm = Integer::from(&m * &n) + 1u32;
        let e = mulm(
            &mulm(&pow_mod_vartime(&pk.y1, &r, &n2).unwrap(), &hm, &n2),
            z,
            &n2,
        );
        let hh = pk.hash_h(&u, &e, b"L");
        let base = mulm(&pk.y2, &pow_mod_vartime(&pk.y3, &hh, &n2).unwrap(), &n2);
        let mut v = pow_mod_vartime(&base, &r, &n2).unwrap();
        if Integer::from(&v * 2u32) > n2 {
            v = Integer::from(&n2 - &v);
        }
        let ours = sk
            .decrypt_integer(b"L", &u, &e, &v)
            .map(|m| m.expose().clone());
        // The paper: m̂ = (e·u^{−x1})^{2t}, accept iff m̂ ≡ 1 (mod n), m = (m̂ − 1)/n.
        let ux1 = pow_mod_vartime(&u, &x1, &n2).unwrap();
        let w = mulm(
            &e,
            &quorate_paillier::bigint::inv_mod(&ux1, &n2).unwrap(),
            &n2,
        );
        let mhat = pow_mod_vartime(&w, &Integer::from(&t * 2u32), &n2).unwrap();
        let paper = if Integer::from(&mhat % &n) == 1 {
            Ok(Integer::from(&mhat - 1u32) / &n)
        } else {
            Err(Cs03Error::Decryption)
        };
        assert_eq!(ours, paper, "twist {i}");
        match i {
            0 | 1 => assert_eq!(ours, Ok(m.clone())),
            5 => assert_eq!(ours, Ok(Integer::from(&m + 1u32))),
            _ => assert_eq!(ours, Err(Cs03Error::Decryption)),
        }
    }
}

#[test]
fn parameter_checks() {
    assert!(Cs03Params::new(3072, 256, 128).is_ok());
    assert!(Cs03Params::new(4096, 128, 128).is_ok());
    assert_eq!(
        Cs03Params::new(2048, 128, 128),
        Err(Cs03Error::Params("|n| must be 3072 or 4096 bits"))
    );
    assert!(Cs03Params::new(3072, 64, 128).is_err());
    assert!(Cs03Params::new(3072, 128, 64).is_err());
    assert!(Cs03Params::aggressive().is_production());
    assert!(Cs03Params::conservative().is_production());
    let t = Cs03Params::insecure_test_params(1024, 256).unwrap();
    assert!(!t.is_production());
    assert!(Cs03Params::insecure_test_params(1000, 128).is_err());
    // ρ·2^{k+k'+3} < n with ρ = ρ_P256 and |n| = 1024 holds, but not with a 700-bit n.
    let rho = order::<P256>();
    let n = Integer::from(1u32) << 1023u32;
    assert!(t.check_order(&rho, &n).is_ok());
    let small = Integer::from(1u32) << 640u32;
    assert!(matches!(
        t.check_order(&rho, &small),
        Err(Cs03Error::ModulusTooSmall { .. })
    ));
}
