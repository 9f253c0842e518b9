//! Regression tests for the artifact defects listed in the design notes (numbers as there).
#![allow(clippy::unwrap_used)]

use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group as _;
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_mixnet::mix;
use quorate_mixnet::params::{BATCH_BITS, CHALLENGE_BITS, PRODUCTION_PAILLIER_BITS, SLACK_BITS};
use quorate_mixnet::ring_pedersen::RingPedersenParams;
use quorate_mixnet::sender::{self, SenderInput};
use quorate_mixnet::setup::keygen_with_test_moduli;
use quorate_mixnet::wire::{self, NativeShuffleCodec, WireLimits};
use quorate_mixnet::{membership, sharing};
use quorate_paillier::bigint::{mul_mod, random_unit};
use quorate_paillier::rug::Integer;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

// Defects 9 and 10 (slack, challenge and modulus sizes): checked at compile time.
const _: () = assert!(CHALLENGE_BITS >= 128 && BATCH_BITS >= 128);
const _: () = assert!(SLACK_BITS >= 40);
const _: () = assert!(PRODUCTION_PAILLIER_BITS >= 3072);

#[test]
fn defect_1_fresh_paillier_primes_per_keygen() {
    let mut rng = ChaCha20Rng::seed_from_u64(51);
    let sid = SessionId::new(b"defect-1".to_vec());
    let (a, _) = keygen_with_test_moduli(sid.clone(), 2, 2, 2, &mut rng).unwrap();
    let (b, _) = keygen_with_test_moduli(sid, 2, 2, 2, &mut rng).unwrap();
    assert_ne!(
        a.paillier.encryption_key().n(),
        b.paillier.encryption_key().n()
    );
    // The auxiliary ring-Pedersen modulus is fresh too.
    assert_ne!(a.ring_pedersen.n_hat, b.ring_pedersen.n_hat);
    // Generators come from hash-to-curve: identical across keygens, no dealer trapdoor.
    assert_eq!(a.gens, b.gens);
}

#[test]
fn defect_7_element_zero_is_proven_and_defect_11_s_is_recomputed() {
    let mut rng = ChaCha20Rng::seed_from_u64(52);
    let sid = SessionId::new(b"defect-7".to_vec());
    let (public, servers) = keygen_with_test_moduli(sid, 4, 2, 2, &mut rng).unwrap();
    let inputs: Vec<SenderInput> = (0..4)
        .map(|i| {
            sender::encrypt_for(&public, i, Scalar::random(&mut rng), &mut rng)
                .unwrap()
                .0
        })
        .collect();
    let rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    // Paillier decryption share of element 0: replaced by a share of element 1.
    let mut bad = rec.clone();
    let mut v = bad.decryptions[1].shares.values().to_vec();
    v[0] = v[1].clone();
    bad.decryptions[1].shares = bad.decryptions[1].shares.with_values(v);
    assert_eq!(
        mix::verify_record(&public, &inputs, &bad)
            .unwrap_err()
            .culprits()[0]
            .get(),
        2
    );

    let (sh_rec, sh) = sharing::run_sharing(&public, &servers, &inputs, &rec, &mut rng).unwrap();
    let coms = sharing::verify_sharing(&public, &inputs, &rec, &sh_rec).unwrap();
    let all: Vec<usize> = (0..4).collect();
    let (_k, q) = membership::querier_sign(&public, &rec.outputs, &all, &all, &mut rng).unwrap();
    let proof =
        membership::run(&public, &servers, &inputs, &rec, &sh, &coms, &q, &mut rng).unwrap();
    assert_eq!(
        membership::verify(&public, &inputs, &rec, &coms, &q, &proof).unwrap(),
        vec![true; 4]
    );
    // ElGamal decryption share of element 0 with a wrong value.
    let mut bad = proof.clone();
    bad.decryption[0].shares[0].d += public.gens.g;
    assert_eq!(
        membership::verify(&public, &inputs, &rec, &coms, &q, &bad)
            .unwrap_err()
            .culprits()[0]
            .get(),
        1
    );
    // Defect 11: a claimed S_0 = 1 is never believed; S is recomputed from verified shares.
    let mut bad = proof.clone();
    bad.s[0] = G1Projective::identity();
    assert!(membership::verify(&public, &inputs, &rec, &coms, &q, &bad).is_err());
    // Identity decryption share of a non-trivial ciphertext is rejected (defect 14).
    let mut bad = proof;
    bad.decryption[1].shares[2].d = G1Projective::identity();
    assert!(membership::verify(&public, &inputs, &rec, &coms, &q, &bad).is_err());
}

/// Issue 6 (soundness) regression: the ring-Pedersen commitments of the linking, mask and
/// shuffle proofs must be over an auxiliary modulus `Ñ` that no coalition of servers can
/// factor. Parameters whose `Ñ` is the Paillier `N` (which any `t` shareholders can factor
/// from their decryption-exponent shares) are refused by `verify_setup` and by the decoder
/// (the old code *required* `Ñ = N`); keygen's `Ñ` is independent of `N` and as long.
#[test]
fn ring_pedersen_modulus_is_not_the_paillier_modulus() {
    let mut rng = ChaCha20Rng::seed_from_u64(53);
    let sid = SessionId::new(b"issue-6-aux-modulus".to_vec());
    let (public, _) = keygen_with_test_moduli(sid, 2, 2, 2, &mut rng).unwrap();
    public.verify_setup().unwrap();
    let n = public.paillier.encryption_key().n().clone();
    let rp = &public.ring_pedersen;
    assert_ne!(rp.n_hat, n);
    assert_eq!(Integer::from(rp.n_hat.gcd_ref(&n)), 1);
    assert_eq!(rp.n_hat.significant_bits(), n.significant_bits());
    rp.check_auxiliary(&n).unwrap();

    // Old-style parameters over N: s, t random squares mod N, non-degenerate.
    let square = |rng: &mut ChaCha20Rng| {
        let r = random_unit(rng, &n).unwrap();
        mul_mod(&r, &r, &n)
    };
    let over_n = RingPedersenParams {
        n_hat: n.clone(),
        s: square(&mut rng),
        t: square(&mut rng),
    };
    over_n.check().unwrap();
    let mut bad = public.clone();
    bad.ring_pedersen = over_n;
    let err = bad.verify_setup().unwrap_err();
    assert!(err.to_string().contains("Paillier modulus"), "{err}");
    let codec = NativeShuffleCodec;
    let bytes = wire::encode_mixnet_public(&codec, &bad).unwrap();
    assert!(matches!(
        wire::decode_mixnet_public(&codec, &WireLimits::default(), &bytes),
        Err(quorate_mixnet::MixnetError::Decode(_))
    ));
    // The honest parameters round-trip.
    let bytes = wire::encode_mixnet_public(&codec, &public).unwrap();
    let back = wire::decode_mixnet_public(&codec, &WireLimits::default(), &bytes).unwrap();
    assert_eq!(back.ring_pedersen, public.ring_pedersen);
}

/// Defect 8: the artifact's Paillier decryption-share proof masked `e·Δ·s_i` with a mask
/// no wider than that product, so the response `z = r + e·Δ·s_i` leaked the key share. Here
/// the mask has `|n²| + |Δ| + 256 + 128` bits (`quorate-paillier`): every response of a
/// real Mix is that wide (so it is dominated by the mask, 128 bits above the largest
/// product), and a response beyond the bound is refused, naming the server.
#[test]
fn defect_8_decryption_share_proofs_are_zero_knowledge() {
    use quorate_mixnet::packing;
    use quorate_paillier::threshold::{CHALLENGE_BITS as E_BITS, STATISTICAL_BITS};
    use quorate_paillier::BatchDecryptionShares;
    let mut rng = ChaCha20Rng::seed_from_u64(58);
    let sid = SessionId::new(b"defect-8".to_vec());
    let (public, servers) = keygen_with_test_moduli(sid, 3, 2, 2, &mut rng).unwrap();
    let inputs: Vec<SenderInput> = (0..3)
        .map(|i| {
            sender::encrypt_for(&public, i, Scalar::random(&mut rng), &mut rng)
                .unwrap()
                .0
        })
        .collect();
    let rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let tpk = &public.paillier;
    let pk = tpk.encryption_key();
    let (n2_bits, delta_bits) = (
        pk.n_squared().significant_bits(),
        tpk.delta().significant_bits(),
    );
    let mask_bits = n2_bits + delta_bits + E_BITS + STATISTICAL_BITS;
    // The largest secret product e·Δ·s_i (s_i < n²) is STATISTICAL_BITS below the mask.
    assert!(E_BITS + delta_bits + n2_bits + STATISTICAL_BITS <= mask_bits);
    let mut count = 0;
    for st in &rec.decryptions {
        let (_, _, z) = st.shares.proof();
        assert!(
            z.significant_bits() <= mask_bits + 1,
            "response above its bound"
        );
        // Fails with probability 2^-40 per honest proof: the mask fills its width.
        assert!(
            z.significant_bits() + 40 >= mask_bits,
            "response narrower than the mask"
        );
        count += 1;
    }
    assert!(count >= 2);
    // A response beyond the bound is refused and its server named.
    let last = &rec.stages.last().unwrap().outputs;
    let slots = packing::slots_per_ciphertext(pk, mix::OUTPUT_SLOT_BITS);
    let packed = packing::pack(
        pk,
        last,
        mix::OUTPUT_SLOT_BITS,
        slots,
        &mix::output_offset(),
    )
    .unwrap();
    let honest = &rec.decryptions[1].shares;
    assert!(tpk.verify_batch(&public.sid, &packed, honest).is_ok());
    let (a, b, z) = honest.proof();
    let wide = z.clone() + (Integer::from(1) << (mask_bits + 1));
    let bad = BatchDecryptionShares::from_parts(
        honest.id(),
        honest.values().to_vec(),
        a.clone(),
        b.clone(),
        wide,
    );
    let err = tpk.verify_batch(&public.sid, &packed, &bad).unwrap_err();
    assert_eq!(
        err.culprits().iter().map(|p| p.get()).collect::<Vec<_>>(),
        vec![2]
    );
}
