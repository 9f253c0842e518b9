//! End-to-end keygen → Enc → Mix → decrypt, blame and malformed-input tests.
#![allow(clippy::unwrap_used)]

use blstrs::Scalar;
use ff::Field;
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use quorate_mixnet::mix::{self, MixRecord};
use quorate_mixnet::sender::{self, SenderInput};
use quorate_mixnet::setup::{keygen_with_test_moduli, MixServer, MixnetPublic};
use quorate_mixnet::MixnetError;
use quorate_paillier::rug::Integer;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

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
    // Ten outputs in packed groups of three (1024-bit test modulus): four shares each.
    assert_eq!(rec.decryptions[0].shares.len(), 4);
    // Mixer 1 replays its share of group 0 (elements 0–2) for group 2.
    let mut bad = rec.clone();
    bad.decryptions[0].shares[2] = bad.decryptions[0].shares[0].clone();
    let err = mix::verify_record(&public, &inputs, &bad).unwrap_err();
    assert_eq!(err.culprits(), &[PartyId::new(1).unwrap()]);
    // Mixer 2 replays group 1's share for group 0, which holds element 0.
    let s1 = rec.decryptions[1].shares[1].clone();
    rec.decryptions[1].shares[0] = s1;
    let err = mix::verify_record(&public, &inputs, &rec).unwrap_err();
    assert_eq!(err.culprits(), &[PartyId::new(2).unwrap()]);
}

#[test]
fn malformed_sender_input_is_rejected() {
    let (public, _, inputs, _, _) = setup(10, 2, 2, 4);
    let pk = public.paillier.encryption_key();
    // Inconsistent sender: c' swapped for another sender's c'.
    let mut bad = inputs[0].clone();
    bad.c_prime = inputs[1].c_prime.clone();
    assert!(matches!(
        sender::check_input(
            &public.gens,
            pk,
            &public.ring_pedersen,
            &public.sid,
            0,
            &bad
        ),
        Err(MixnetError::InvalidInput { index: 0, .. })
    ));
    // Replay at another position.
    assert!(sender::check_input(
        &public.gens,
        pk,
        &public.ring_pedersen,
        &public.sid,
        1,
        &inputs[0]
    )
    .is_err());
    // Out-of-range response and out-of-range ciphertext: typed errors, no panic.
    let mut bad = inputs[2].clone();
    bad.proof.z_v = Integer::from(1) << 2000;
    assert!(matches!(
        sender::check_input(
            &public.gens,
            pk,
            &public.ring_pedersen,
            &public.sid,
            2,
            &bad
        ),
        Err(MixnetError::InvalidInput { index: 2, .. })
    ));
    let mut bad = inputs[3].clone();
    bad.proof.w1 = Integer::from(0);
    assert!(sender::check_input(
        &public.gens,
        pk,
        &public.ring_pedersen,
        &public.sid,
        3,
        &bad
    )
    .is_err());
    // Ring-Pedersen part: a changed commitment or an oversized z_mu is rejected.
    let mut bad = inputs[6].clone();
    bad.proof.rp_v += 1u32;
    assert!(sender::check_input(
        &public.gens,
        pk,
        &public.ring_pedersen,
        &public.sid,
        6,
        &bad
    )
    .is_err());
    let mut bad = inputs[7].clone();
    bad.proof.z_mu_r = Integer::from(1) << 9000;
    assert!(sender::check_input(
        &public.gens,
        pk,
        &public.ring_pedersen,
        &public.sid,
        7,
        &bad
    )
    .is_err());
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

/// A 2048-bit modulus packs several values per decryption (7 outputs, 2 sharing inputs per
/// group), including partial last groups; every status of a whole run must hold.
#[test]
fn packed_decryption_with_several_slots_per_group() {
    let mut rng = ChaCha20Rng::seed_from_u64(71);
    let cfg = quorate_mixnet::demo::DemoConfig {
        n: 9,
        m: 2,
        t: 2,
        paillier_bits: 2048,
    };
    let r = quorate_mixnet::demo::run_demo(cfg, &mut rng).unwrap();
    assert!(r.statuses.iter().all(|(_, s)| *s), "{:?}", r.statuses);
    assert_eq!(r.ground_truth_permutation.len(), 9);
}
