//! End-to-end keygen → Enc → Mix → decrypt, blame and malformed-input tests.
#![allow(clippy::unwrap_used)]

use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use quorate_mixnet::djn::DjnTables;
use quorate_mixnet::elgamal::ElGamalCiphertext;
use quorate_mixnet::mix::{self, MixRecord};
use quorate_mixnet::params::Generators;
use quorate_mixnet::sender::{self, SenderInput};
use quorate_mixnet::setup::{keygen_with_test_moduli, MixServer, MixnetPublic};
use quorate_mixnet::shuffle::{
    self, ElGamalShuffle, PaillierModuli, PaillierShuffle, PermutationSecret, ShuffleProof,
};
use quorate_mixnet::MixnetError;
use quorate_paillier::bigint::{mul_mod, SecretInteger};
use quorate_paillier::rug::Integer;
use quorate_paillier::{Ciphertext, SecretKey};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

fn setup(
    n: usize,
    t: u16,
    m: u16,
    seed: u64,
) -> (
    MixnetPublic,
    Vec<MixServer>,
    Vec<SenderInput>,
    Vec<Scalar>,
    ChaCha20Rng,
) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sid = SessionId::new(format!("mixnet-test-{seed}").into_bytes());
    let (public, servers) = keygen_with_test_moduli(sid, n, t, m, &mut rng).unwrap();
    let mut inputs = Vec::new();
    let mut values = Vec::new();
    for i in 0..n {
        let v = Scalar::random(&mut rng);
        let (inp, _) = sender::encrypt_for(&public, i as u64, v, &mut rng).unwrap();
        inputs.push(inp);
        values.push(v);
    }
    (public, servers, inputs, values, rng)
}

#[test]
fn end_to_end_10_2() {
    let (public, servers, inputs, values, mut rng) = setup(10, 2, 2, 1);
    public.verify_setup().unwrap();
    let rec: MixRecord = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let pi = mix::composed_permutation(&servers);
    for (i, out) in rec.outputs.iter().enumerate() {
        assert_eq!(*out, values[pi[i]], "output {i}");
    }
    let verified = mix::verify_record(&public, &inputs, &rec).unwrap();
    assert_eq!(verified, rec.outputs);
}

#[test]
fn cheating_mixer_is_named() {
    let (public, servers, inputs, _, mut rng) = setup(10, 2, 2, 2);
    let mut rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    // Mixer 2 swaps two of its outputs after proving: the shuffle proof no longer holds.
    rec.stages[1].outputs.swap(0, 1);
    let err = mix::verify_record(&public, &inputs, &rec).unwrap_err();
    assert_eq!(err.culprits(), &[PartyId::new(2).unwrap()]);
    // Mixer 1 replaces one output by a fresh encryption of another value.
    let mut rec2 = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let pk = public.paillier.encryption_key();
    rec2.stages[0].outputs[3] = pk.encrypt(&Integer::from(7), &mut rng).unwrap();
    let err = mix::verify_record(&public, &inputs, &rec2).unwrap_err();
    assert_eq!(err.culprits(), &[PartyId::new(1).unwrap()]);
}

#[test]
fn bad_decryption_share_is_named() {
    let (public, servers, inputs, _, mut rng) = setup(10, 2, 2, 3);
    let mut rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    // Ten outputs in packed groups of two (1024-bit test modulus, 425-bit slots): five
    // shares each.
    assert_eq!(rec.decryptions[0].shares.values().len(), 5);
    // Mixer 1 replays its share of group 0 (elements 0–1) for group 2, under its
    // batched proof: the combined check of both servers fails, and the one-by-one
    // fallback names mixer 1 only.
    let mut bad = rec.clone();
    let mut v = bad.decryptions[0].shares.values().to_vec();
    v[2] = v[0].clone();
    bad.decryptions[0].shares = bad.decryptions[0].shares.with_values(v);
    let err = mix::verify_record(&public, &inputs, &bad).unwrap_err();
    assert_eq!(err.culprits(), &[PartyId::new(1).unwrap()]);
    // Mixer 2 replays group 1's share for group 0, which holds element 0.
    let mut v = rec.decryptions[1].shares.values().to_vec();
    v[0] = v[1].clone();
    rec.decryptions[1].shares = rec.decryptions[1].shares.with_values(v);
    let err = mix::verify_record(&public, &inputs, &rec).unwrap_err();
    assert_eq!(err.culprits(), &[PartyId::new(2).unwrap()]);
    // Both at once: both named.
    let mut both = rec.clone();
    let mut v = both.decryptions[0].shares.values().to_vec();
    v.swap(3, 4);
    both.decryptions[0].shares = both.decryptions[0].shares.with_values(v);
    let err = mix::verify_record(&public, &inputs, &both).unwrap_err();
    assert_eq!(
        err.culprits(),
        &[PartyId::new(1).unwrap(), PartyId::new(2).unwrap()]
    );
}

/// All servers' decryption proofs are checked with one random linear combination (issue
/// 17, session 12): with three servers, a bad share in one server's batch names exactly that
/// server; a stage under another server's id or of the wrong length is named next to a bad
/// share; two servers whose responses are off by `+d` and `−d` (their `v`-equation errors
/// cancel in an unweighted product) are both named, and the honest one is not.
#[test]
fn combined_decryption_check_names_exactly_the_bad_servers() {
    use quorate_paillier::BatchDecryptionShares;
    let (public, servers, inputs, _, mut rng) = setup(6, 2, 3, 31);
    let rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let named = |r: &MixRecord| -> Vec<u16> {
        mix::verify_record(&public, &inputs, r)
            .unwrap_err()
            .culprits()
            .iter()
            .map(|p| p.get())
            .collect()
    };
    let n2 = public.paillier.encryption_key().n_squared().clone();
    let times_five = |r: &mut MixRecord, k: usize, j: usize| {
        let mut v = r.decryptions[k].shares.values().to_vec();
        v[j] = mul_mod(&v[j], &Integer::from(5), &n2);
        r.decryptions[k].shares = r.decryptions[k].shares.with_values(v);
    };
    let mut bad = rec.clone();
    times_five(&mut bad, 1, 0);
    assert_eq!(named(&bad), vec![2]);
    let mut bad = rec.clone();
    times_five(&mut bad, 0, 2);
    bad.decryptions[2].shares = rec.decryptions[1].shares.clone();
    assert_eq!(named(&bad), vec![1, 3]);
    let mut bad = rec.clone();
    let short = rec.decryptions[2].shares.values()[1..].to_vec();
    bad.decryptions[2].shares = rec.decryptions[2].shares.with_values(short);
    times_five(&mut bad, 1, 1);
    assert_eq!(named(&bad), vec![2, 3]);
    // Responses z₁ + d, z₃ − d.
    let shift = |b: &BatchDecryptionShares, d: i32| {
        let (a, bb, z) = b.proof();
        BatchDecryptionShares::from_parts(
            b.id(),
            b.values().to_vec(),
            a.clone(),
            bb.clone(),
            Integer::from(z + d),
        )
    };
    let mut bad = rec.clone();
    bad.decryptions[0].shares = shift(&rec.decryptions[0].shares, 1000);
    bad.decryptions[2].shares = shift(&rec.decryptions[2].shares, -1000);
    assert_eq!(named(&bad), vec![1, 3]);
    assert_eq!(
        mix::verify_record(&public, &inputs, &rec).unwrap(),
        rec.outputs
    );
}

/// Batch input checking (issue 17, lever 2): faults that pass every range and unit check
/// and break an equation (a Paillier response, a ring-Pedersen response, a response shared
/// by the ring-Pedersen and G1 equations, `γ`) make the weighted check fail, and the
/// one-by-one fallback names exactly those positions with the first broken equation; an
/// all-honest list is accepted whole.
#[test]
fn batched_input_check_names_each_bad_sender() {
    let (public, _, inputs, _, _) = setup(10, 2, 2, 21);
    let (ok, errs) = mix::check_inputs(&public, &inputs);
    assert_eq!(ok, (0..10).collect::<Vec<_>>());
    assert!(errs.is_empty());
    let mut list = inputs.clone();
    list[2].proof.z_rho1 += 1u32;
    list[5].proof.z_mu_r += 1u32;
    list[7].proof.z_r += 1u32;
    list[8].proof.z_rho2 -= 1u32;
    let (ok, errs) = mix::check_inputs(&public, &list);
    assert_eq!(ok, vec![0, 1, 3, 4, 6, 9]);
    let named: Vec<(usize, &str)> = errs
        .iter()
        .map(|e| match e {
            MixnetError::InvalidInput { index, reason } => (*index, *reason),
            other => panic!("unexpected error {other:?}"),
        })
        .collect();
    assert_eq!(
        named,
        vec![
            (2, "link proof: Paillier equation"),
            (5, "link proof: ring-Pedersen equation"),
            (7, "link proof: ring-Pedersen equation"),
            (8, "link proof: Paillier equation"),
        ]
    );
    // Each position alone: the single check agrees with the batch.
    for (i, inp) in list.iter().enumerate() {
        assert_eq!(
            sender::check_input(&public, i as u64, inp).is_ok(),
            ok.contains(&i),
            "position {i}"
        );
    }
    // γ of another sender (which also changes the challenge): named.
    let mut list = inputs.clone();
    list[4].gamma = list[5].gamma;
    let (ok, errs) = mix::check_inputs(&public, &list);
    assert_eq!(ok.len(), 9);
    assert!(matches!(
        errs.as_slice(),
        [MixnetError::InvalidInput { index: 4, .. }]
    ));
}

#[test]
fn malformed_sender_input_is_rejected() {
    let (public, _, inputs, _, _) = setup(10, 2, 2, 4);
    // Inconsistent sender: c' swapped for another sender's c'.
    let mut bad = inputs[0].clone();
    bad.c_prime = inputs[1].c_prime.clone();
    assert!(matches!(
        sender::check_input(&public, 0, &bad),
        Err(MixnetError::InvalidInput { index: 0, .. })
    ));
    // Replay at another position.
    assert!(sender::check_input(&public, 1, &inputs[0]).is_err());
    // Out-of-range response and out-of-range ciphertext: typed errors, no panic.
    let mut bad = inputs[2].clone();
    bad.proof.z_v = Integer::from(1) << 2000;
    assert!(matches!(
        sender::check_input(&public, 2, &bad),
        Err(MixnetError::InvalidInput { index: 2, .. })
    ));
    let mut bad = inputs[3].clone();
    bad.proof.z_rho1 = Integer::from(1) << 4000;
    assert!(sender::check_input(&public, 3, &bad).is_err());
    // Ring-Pedersen part: a changed commitment or an oversized z_mu is rejected.
    let mut bad = inputs[6].clone();
    bad.proof.rp_v += 1u32;
    assert!(sender::check_input(&public, 6, &bad).is_err());
    let mut bad = inputs[7].clone();
    bad.proof.z_mu_r = Integer::from(1) << 9000;
    assert!(sender::check_input(&public, 7, &bad).is_err());
    // The honest ones pass, and check_inputs lists exactly the bad position.
    let mut list = inputs.clone();
    list[4].gamma = list[5].gamma;
    let (ok, errs) = mix::check_inputs(&public, &list);
    assert_eq!(ok.len(), 9);
    assert!(!ok.contains(&4));
    assert!(matches!(
        errs.as_slice(),
        [MixnetError::InvalidInput { index: 4, .. }]
    ));
}

/// The ring-Pedersen part of a Mix shuffle proof (commitment `Z`, first message `Z′`,
/// response `k_μ`): any tampering is rejected and the mixer is named.
#[test]
fn tampered_ring_pedersen_commitment_or_response_is_named() {
    let (public, servers, inputs, _, mut rng) = setup(6, 2, 2, 5);
    let rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    mix::verify_record(&public, &inputs, &rec).unwrap();
    let n_hat = public.ring_pedersen.n_hat.clone();
    assert_ne!(&n_hat, public.paillier.encryption_key().n());
    for case in 0..6 {
        let mut bad = rec.clone();
        let p = &mut bad.stages[1].proof;
        match case {
            0 => *p.rp_z.as_mut().unwrap() += 1u32,
            1 => *p.rp_z_p.as_mut().unwrap() += 1u32,
            2 => *p.k_mu.as_mut().unwrap() += 1u32,
            3 => p.k_mu = Some(Integer::from(1) << (n_hat.significant_bits() + 300)),
            4 => p.rp_z = Some(n_hat.clone()),
            _ => p.k_mu = None,
        }
        let err = mix::verify_record(&public, &inputs, &bad).unwrap_err();
        assert_eq!(err.culprits(), &[PartyId::new(2).unwrap()], "case {case}");
    }
    // The same ring-Pedersen data moved to the other mixer's proof is rejected too.
    let mut bad = rec.clone();
    let (z, z_p, k_mu) = {
        let p = &rec.stages[1].proof;
        (p.rp_z.clone(), p.rp_z_p.clone(), p.k_mu.clone())
    };
    bad.stages[0].proof.rp_z = z;
    bad.stages[0].proof.rp_z_p = z_p;
    bad.stages[0].proof.k_mu = k_mu;
    let err = mix::verify_record(&public, &inputs, &bad).unwrap_err();
    assert_eq!(err.culprits(), &[PartyId::new(1).unwrap()]);
}

/// A mixer that re-encrypts its list under another permutation than the committed one
/// (the proof's G1 part and `Z` follow the commitment, the Paillier list does not) is
/// rejected and named.
#[test]
fn paillier_list_permuted_differently_from_the_commitment_is_rejected() {
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let n = 6;
    let sk = SecretKey::generate(1024, &mut rng).unwrap();
    let pk = sk.public_key();
    // The auxiliary ring-Pedersen modulus: another key's N (independent primes).
    let aux = SecretKey::generate(1024, &mut rng).unwrap();
    let n_hat = aux.public_key().n();
    let gens = Generators::derive(n);
    let sid = SessionId::new(b"perm-mismatch".to_vec());
    let id = PartyId::new(4).unwrap();
    let (secret, com) = PermutationSecret::generate(&gens, n, &mut rng).unwrap();
    let inputs: Vec<Ciphertext> = (0..n)
        .map(|i| pk.encrypt(&Integer::from(7 * i + 1), &mut rng).unwrap())
        .collect();
    let djn = DjnTables::new(pk).unwrap();
    let alpha: Vec<SecretInteger> = (0..n).map(|_| djn.random_alpha(&mut rng)).collect();
    let shuffle_with = |sigma: &[usize]| -> Vec<Ciphertext> {
        sigma
            .iter()
            .zip(&alpha)
            .map(|(&j, a)| {
                let r = djn.pow_secret(a).unwrap();
                pk.ciphertext_from_integer(mul_mod(inputs[j].as_integer(), &r, pk.n_squared()))
                    .unwrap()
            })
            .collect()
    };
    // Proves the shuffle of `inputs` to `outputs` (the committed `π`, nonces `ρ`) and
    // verifies the proof.
    let prove_and_verify = |outputs: &[Ciphertext], rng: &mut ChaCha20Rng| {
        let stmt = PaillierShuffle {
            pk,
            djn: &djn,
            n_hat,
            inputs: &inputs,
            outputs,
        };
        let proof =
            shuffle::prove(&sid, id, &gens, &com, &secret, Some((&stmt, &alpha)), rng).unwrap();
        shuffle::verify(&sid, id, &gens, &com, Some(&stmt), &proof)
    };
    let honest = shuffle_with(secret.pi());
    prove_and_verify(&honest, &mut rng).unwrap();
    let mut sigma = secret.pi().to_vec();
    sigma.rotate_left(1);
    let cheat = shuffle_with(&sigma);
    let err = prove_and_verify(&cheat, &mut rng).unwrap_err();
    assert_eq!(err.culprits(), &[id]);
}

fn assert_decode_fails_or_rejected(
    bytes: &[u8],
    n: usize,
    pk: Option<PaillierModuli<'_>>,
    check: &dyn Fn(&ShuffleProof) -> bool,
) {
    if let Ok(p) = ShuffleProof::from_bytes(bytes, n, pk) {
        assert!(!check(&p), "a changed encoding decoded to a valid proof");
    }
}

/// `ShuffleProof::to_bytes`/`from_bytes`: round trips verify; truncations, bit flips,
/// wrong sizes, a missing or superfluous key and random garbage give errors (or a proof
/// that does not verify) and never panic.
#[test]
fn shuffle_proof_encoding_round_trips_and_rejects_garbage() {
    let (public, servers, inputs, _, mut rng) = setup(5, 2, 2, 6);
    let rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let pk = public.paillier.encryption_key();
    let n_hat = &public.ring_pedersen.n_hat;
    let moduli = PaillierModuli { pk, n_hat };
    let id1 = PartyId::new(1).unwrap();
    let com = &public.perm_commitments[0];
    let stmt = PaillierShuffle {
        pk,
        djn: public.djn().unwrap(),
        n_hat,
        inputs: &rec.inputs,
        outputs: &rec.stages[0].outputs,
    };
    let pai_ok = |p: &ShuffleProof| {
        shuffle::verify(&public.sid, id1, &public.gens, com, Some(&stmt), p).is_ok()
    };
    let perm_ok =
        |p: &ShuffleProof| shuffle::verify(&public.sid, id1, &public.gens, com, None, p).is_ok();
    // A standalone ElGamal shuffle.
    let g = public.gens.g;
    let epk = public.elgamal.pk;
    let (secret, ecom) = PermutationSecret::generate(&public.gens, 5, &mut rng).unwrap();
    let eins: Vec<ElGamalCiphertext> = (0..5)
        .map(|_| {
            ElGamalCiphertext::trivial(G1Projective::random(&mut rng)).rerandomize(
                &g,
                &epk,
                &Scalar::random(&mut rng),
            )
        })
        .collect();
    let erho: Vec<Scalar> = (0..5).map(|_| Scalar::random(&mut rng)).collect();
    let eouts: Vec<ElGamalCiphertext> = secret
        .pi()
        .iter()
        .zip(&erho)
        .map(|(&j, r)| eins[j].rerandomize(&g, &epk, r))
        .collect();
    let estmt = ElGamalShuffle {
        pk: &epk,
        inputs: &eins,
        outputs: &eouts,
    };
    let eproof = shuffle::prove_elgamal(
        &public.sid,
        id1,
        &public.gens,
        &ecom,
        &secret,
        &estmt,
        &erho,
        &mut rng,
    )
    .unwrap();
    let eg_ok = |p: &ShuffleProof| {
        shuffle::verify_elgamal(&public.sid, id1, &public.gens, &ecom, &estmt, p).is_ok()
    };

    type Check<'a> = &'a dyn Fn(&ShuffleProof) -> bool;
    let cases: [(&ShuffleProof, Option<PaillierModuli<'_>>, Check<'_>); 3] = [
        (&rec.stages[0].proof, Some(moduli), &pai_ok),
        (&public.perm_proofs[0], None, &perm_ok),
        (&eproof, None, &eg_ok),
    ];
    for (proof, key, ok) in cases {
        assert!(ok(proof));
        let bytes = proof.to_bytes();
        let back = ShuffleProof::from_bytes(&bytes, 5, key).unwrap();
        assert_eq!(&back, proof);
        assert!(ok(&back));
        // Wrong n, and the key missing or superfluous.
        assert!(ShuffleProof::from_bytes(&bytes, 4, key).is_err());
        assert!(ShuffleProof::from_bytes(&bytes, 6, key).is_err());
        assert!(ShuffleProof::from_bytes(&bytes, 0, key).is_err());
        let other_key = if key.is_some() { None } else { Some(moduli) };
        assert!(ShuffleProof::from_bytes(&bytes, 5, other_key).is_err());
        // Every truncation (all short prefixes, then a stride) and one extra byte.
        let cuts = (0..bytes.len().min(200)).chain((200..bytes.len()).step_by(11));
        for cut in cuts {
            assert!(
                ShuffleProof::from_bytes(&bytes[..cut], 5, key).is_err(),
                "prefix {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(ShuffleProof::from_bytes(&longer, 5, key).is_err());
        // Single-bit flips: a decode error or a proof that does not verify.
        for _ in 0..24 {
            let mut flipped = bytes.clone();
            let pos = (rng.next_u64() % bytes.len() as u64) as usize;
            flipped[pos] ^= 1 << (rng.next_u64() % 8);
            assert_decode_fails_or_rejected(&flipped, 5, key, ok);
        }
        // Random garbage after a valid header and count, and fully random bytes.
        for len in [0usize, 1, 7, 64, 500, bytes.len()] {
            let mut junk = vec![0u8; len];
            rng.fill_bytes(&mut junk);
            assert!(ShuffleProof::from_bytes(&junk, 5, key).is_err());
            let mut framed = bytes[..7].to_vec();
            framed.extend_from_slice(&junk);
            assert_decode_fails_or_rejected(&framed, 5, key, ok);
        }
    }
    // An oversized length prefix on the first k_E is a typed error, not an allocation.
    let bytes = rec.stages[0].proof.to_bytes();
    let first_ke = 7 + 48 * (2 * 5 + 3) + 32 * (5 + 3);
    let mut huge = bytes.clone();
    huge[first_ke..first_ke + 4].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(matches!(
        ShuffleProof::from_bytes(&huge, 5, Some(moduli)),
        Err(MixnetError::Decode(_))
    ));
}

/// Issue 13 (high): the linking proof bounds a sender's plaintext only by
/// `|v| < 2^{MASK_BITS+1}`, so a sender can encrypt `x + 2^256` (it carried into the
/// neighbouring 256-bit slot and changed an honest output), a negative value or one in
/// `[q, 2^256)` (both aborted Mix naming nobody). With slots of `MASK_BITS + 2` bits and a
/// public offset, every output is exactly its sender's `v mod q` (the value `γ` commits to),
/// the Enc-to-shares conversion agrees with `γ`, and a value beyond the slack is refused
/// naming its sender.
#[test]
fn slack_plaintexts_neither_change_honest_outputs_nor_abort() {
    use quorate_mixnet::faults;
    use quorate_mixnet::params::{int_to_scalar, scalar_modulus};
    let n = 6;
    let (public, servers, mut inputs, mut values, mut rng) = setup(n, 2, 2, 72);
    let q = scalar_modulus();
    let cheats = [
        Integer::from(12345) + (Integer::from(1) << 256),
        Integer::from(-7),
        Integer::from(&q + 5u32),
        (Integer::from(1) << 256) - 1u32,
    ];
    for (i, v) in cheats.iter().enumerate() {
        inputs[i] = faults::encrypt_integer(&public, i as u64, v, &mut rng).unwrap();
        values[i] = int_to_scalar(v, &q);
    }
    let rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let pi = mix::composed_permutation(&servers);
    for (j, out) in rec.outputs.iter().enumerate() {
        assert_eq!(*out, values[pi[j]], "output {j}");
    }
    assert_eq!(
        mix::verify_record(&public, &inputs, &rec).unwrap(),
        rec.outputs
    );
    // The conversion to shares opens every γ, the slack senders' included.
    let (sharing, _) =
        quorate_mixnet::sharing::run_sharing(&public, &servers, &inputs, &rec, &mut rng).unwrap();
    quorate_mixnet::sharing::verify_sharing(&public, &inputs, &rec, &sharing).unwrap();
    // Beyond the slack (either sign): refused, and the sender is named.
    for v in [Integer::from(1) << 300, Integer::from(-1) << 300] {
        let mut bad = inputs.clone();
        bad[4] = faults::encrypt_integer(&public, 4, &v, &mut rng).unwrap();
        match mix::run(&public, &servers, &bad, &mut rng) {
            Err(MixnetError::InvalidInput { index: 4, .. }) => {}
            other => panic!("out-of-range input not refused: {other:?}"),
        }
    }
}

/// The batch check of a whole chain of shuffle proofs (issue 17, session 14,
/// `shuffle::verify_chain_batch`, used by `mix::verify_mixing`): it accepts the honest chain;
/// it rejects a chain with one bad link (in each of the three products) and a chain whose two
/// bad links' errors cancel in an unweighted product, and `verify_mixing` then names exactly
/// the first failing mixer (the single checks reject exactly the bad links).
#[test]
fn chain_batch_check_agrees_with_the_single_checks() {
    let (public, servers, inputs, _, mut rng) = setup(6, 2, 3, 11);
    let rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let pk = public.paillier.encryption_key();
    let n_hat = public.ring_pedersen.n_hat.clone();
    let djn = public.djn().unwrap();
    let batch = |stages: &[mix::MixStage]| {
        let links: Vec<shuffle::ChainLink<'_>> = public
            .params
            .parties()
            .zip(stages)
            .map(|(k, st)| shuffle::ChainLink {
                prover: k,
                com: &public.perm_commitments[k.position()],
                outputs: &st.outputs,
                proof: &st.proof,
            })
            .collect();
        shuffle::verify_chain_batch(
            &public.sid,
            &public.gens,
            pk,
            djn,
            &n_hat,
            &rec.inputs,
            &links,
        )
    };
    let single = |stages: &[mix::MixStage], k: usize| {
        let id = PartyId::new(k as u16 + 1).unwrap();
        let ins = if k == 0 {
            &rec.inputs[..]
        } else {
            &stages[k - 1].outputs[..]
        };
        let stmt = PaillierShuffle {
            pk,
            djn,
            n_hat: &n_hat,
            inputs: ins,
            outputs: &stages[k].outputs,
        };
        let com = &public.perm_commitments[k];
        shuffle::verify(
            &public.sid,
            id,
            &public.gens,
            com,
            Some(&stmt),
            &stages[k].proof,
        )
    };
    assert!(batch(&rec.stages));
    let named = |stages: &[mix::MixStage]| {
        mix::verify_mixing(&public, &rec.inputs, stages)
            .unwrap_err()
            .culprits()
            .to_vec()
    };
    let id = |k: u16| vec![PartyId::new(k).unwrap()];
    // One bad link, one per product: G1 (k_A), ring-Pedersen (k_μ), Paillier (k_F).
    for (k, case) in [(1usize, 0), (2, 1), (0, 2), (2, 2)] {
        let mut bad = rec.stages.clone();
        let p = &mut bad[k].proof;
        match case {
            0 => p.k_a += Scalar::ONE,
            1 => *p.k_mu.as_mut().unwrap() += 1u32,
            _ => *p.k_f.as_mut().unwrap() += 1u32,
        }
        assert!(!batch(&bad), "link {k}, case {case}");
        assert!(single(&bad, k).is_err());
        assert_eq!(named(&bad), id(k as u16 + 1), "link {k}, case {case}");
    }
    // Errors that cancel in an unweighted product, in responses the transcript does not
    // absorb (so the challenges stay the same): k_F + 1 on link 1 and − 1 on link 3 (the
    // `h_N` powers cancel), k_μ + 1 on link 1 and − 1 on link 2 (the `t` powers cancel).
    // Only the random weights can catch them; the first failing link is named.
    for (links, ring_pedersen) in [([0usize, 2], false), ([0, 1], true)] {
        let mut bad = rec.stages.clone();
        let [up, down] = links;
        if ring_pedersen {
            *bad[up].proof.k_mu.as_mut().unwrap() += 1u32;
            *bad[down].proof.k_mu.as_mut().unwrap() -= 1u32;
        } else {
            *bad[up].proof.k_f.as_mut().unwrap() += 1u32;
            *bad[down].proof.k_f.as_mut().unwrap() -= 1u32;
        }
        assert!(!batch(&bad), "links {links:?}");
        assert!(single(&bad, up).is_err() && single(&bad, down).is_err());
        assert_eq!(named(&bad), id(up as u16 + 1), "links {links:?}");
    }
}
