//! Fiat–Shamir binding: for every proof type, changing any one statement element (including
//! the session id, positions and party ids, which enter only through the transcript) makes
//! verification fail.
#![allow(clippy::unwrap_used)]

use blstrs::Scalar;
use ff::Field;
use group::Group;
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use quorate_mixnet::djn::DjnTables;
use quorate_mixnet::elgamal::{self, ElGamalCiphertext};
use quorate_mixnet::membership;
use quorate_mixnet::mix;
use quorate_mixnet::ring_pedersen::RingPedersenVectorKey;
use quorate_mixnet::sender::{self, SenderInput};
use quorate_mixnet::setup::{keygen_with_test_moduli, MixnetPublic};
use quorate_mixnet::sharing;
use quorate_mixnet::shuffle::{self, ElGamalShuffle, PaillierShuffle};
use quorate_paillier::bigint::mul_mod;
use quorate_paillier::SecretKey;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn other_sid(public: &MixnetPublic) -> MixnetPublic {
    let mut p = public.clone();
    p.sid = SessionId::new(b"another session".to_vec());
    p
}

#[test]
fn every_statement_element_is_bound() {
    let mut rng = ChaCha20Rng::seed_from_u64(41);
    let sid = SessionId::new(b"binding-test".to_vec());
    let (public, servers) = keygen_with_test_moduli(sid, 6, 2, 2, &mut rng).unwrap();
    let pk = public.paillier.encryption_key();
    let inputs: Vec<SenderInput> = (0..6)
        .map(|i| {
            sender::encrypt_for(&public, i, Scalar::random(&mut rng), &mut rng)
                .unwrap()
                .0
        })
        .collect();
    let g = public.gens.g;

    // Sender linking proof: sid, index, c, c', gamma, generators.
    let ok =
        |p: &MixnetPublic, idx: u64, inp: &SenderInput| sender::check_input(p, idx, inp).is_ok();
    assert!(ok(&public, 0, &inputs[0]));
    assert!(!ok(&other_sid(&public), 0, &inputs[0]));
    assert!(!ok(&public, 1, &inputs[0]));
    let mut x = inputs[0].clone();
    x.c = inputs[1].c.clone();
    assert!(!ok(&public, 0, &x));
    let mut x = inputs[0].clone();
    x.c_prime = inputs[1].c_prime.clone();
    assert!(!ok(&public, 0, &x));
    let mut x = inputs[0].clone();
    x.gamma += g;
    assert!(!ok(&public, 0, &x));
    let mut p2 = public.clone();
    std::mem::swap(&mut p2.gens.g, &mut p2.gens.h);
    assert!(!ok(&p2, 0, &inputs[0]));

    // Mix shuffle proof: sid, prover, commitment, each input and output, generators.
    let rec = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let st = &rec.stages[0];
    let com = &public.perm_commitments[0];
    let id1 = PartyId::new(1).unwrap();
    let n_hat = &public.ring_pedersen.n_hat;
    let stmt = PaillierShuffle {
        pk,
        djn: public.djn().unwrap(),
        n_hat,
        inputs: &rec.inputs,
        outputs: &st.outputs,
    };
    assert!(shuffle::verify(&public.sid, id1, &public.gens, com, Some(&stmt), &st.proof).is_ok());
    assert!(shuffle::verify(
        &other_sid(&public).sid,
        id1,
        &public.gens,
        com,
        Some(&stmt),
        &st.proof
    )
    .is_err());
    assert!(shuffle::verify(
        &public.sid,
        PartyId::new(2).unwrap(),
        &public.gens,
        com,
        Some(&stmt),
        &st.proof
    )
    .is_err());
    let mut com2 = com.clone();
    com2.u[3] += g;
    assert!(shuffle::verify(
        &public.sid,
        id1,
        &public.gens,
        &com2,
        Some(&stmt),
        &st.proof
    )
    .is_err());
    for k in 0..6 {
        let mut ins = rec.inputs.clone();
        ins[k] = pk.rerandomize(&ins[k], &mut rng).unwrap();
        let s2 = PaillierShuffle {
            pk,
            djn: public.djn().unwrap(),
            n_hat,
            inputs: &ins,
            outputs: &st.outputs,
        };
        assert!(
            shuffle::verify(&public.sid, id1, &public.gens, com, Some(&s2), &st.proof).is_err(),
            "input {k}"
        );
        let mut outs = st.outputs.clone();
        outs[k] = pk.rerandomize(&outs[k], &mut rng).unwrap();
        let s3 = PaillierShuffle {
            pk,
            djn: public.djn().unwrap(),
            n_hat,
            inputs: &rec.inputs,
            outputs: &outs,
        };
        assert!(
            shuffle::verify(&public.sid, id1, &public.gens, com, Some(&s3), &st.proof).is_err(),
            "output {k}"
        );
    }
    let mut gens2 = public.gens.clone();
    gens2.h0 += g;
    assert!(shuffle::verify(&public.sid, id1, &gens2, com, Some(&stmt), &st.proof).is_err());
    // Ring-Pedersen part of the shuffle proof. Z′·t with k_μ + 1 keeps
    // Z^v Z′ = Π s_i^{k_E} t^{k_μ} true for the old v, so it would verify if Z′ were not in
    // the transcript before v; Z changed (with Z′ unchanged) would verify if neither were.
    let key = RingPedersenVectorKey::derive(n_hat, 6).unwrap();
    let mut forged = st.proof.clone();
    let z_p = forged.rp_z_p.clone().unwrap();
    forged.rp_z_p = Some(mul_mod(&z_p, &key.t, n_hat));
    *forged.k_mu.as_mut().unwrap() += 1u32;
    assert!(shuffle::verify(&public.sid, id1, &public.gens, com, Some(&stmt), &forged).is_err());
    let mut forged = st.proof.clone();
    let z = forged.rp_z.clone().unwrap();
    forged.rp_z = Some(mul_mod(&z, &key.s[0], n_hat));
    assert!(shuffle::verify(&public.sid, id1, &public.gens, com, Some(&stmt), &forged).is_err());
    // The Paillier modulus the ciphertexts live under: the same lists under another key N
    // (same Ñ).
    let other = SecretKey::generate(1024, &mut rng).unwrap();
    let other_djn = DjnTables::new(other.public_key()).unwrap();
    let s4 = PaillierShuffle {
        pk: other.public_key(),
        djn: &other_djn,
        n_hat,
        inputs: &rec.inputs,
        outputs: &st.outputs,
    };
    assert!(shuffle::verify(&public.sid, id1, &public.gens, com, Some(&s4), &st.proof).is_err());
    // The ring-Pedersen modulus Ñ the bases are derived from: a proof made for one Ñ fails
    // under another independent modulus of the same size (same N, same lists), and the
    // mixer is named; the Paillier N itself as Ñ is refused as a parameter error.
    let other_hat = other.public_key().n();
    assert_ne!(other_hat, n_hat);
    let s5 = PaillierShuffle {
        pk,
        djn: public.djn().unwrap(),
        n_hat: other_hat,
        inputs: &rec.inputs,
        outputs: &st.outputs,
    };
    let err =
        shuffle::verify(&public.sid, id1, &public.gens, com, Some(&s5), &st.proof).unwrap_err();
    assert_eq!(err.culprits(), &[id1]);
    let s6 = PaillierShuffle {
        pk,
        djn: public.djn().unwrap(),
        n_hat: pk.n(),
        inputs: &rec.inputs,
        outputs: &st.outputs,
    };
    let err =
        shuffle::verify(&public.sid, id1, &public.gens, com, Some(&s6), &st.proof).unwrap_err();
    assert!(err.culprits().is_empty(), "{err}");
    // Permutation-commitment proof.
    assert!(shuffle::verify(
        &public.sid,
        id1,
        &public.gens,
        com,
        None,
        &public.perm_proofs[0]
    )
    .is_ok());
    assert!(shuffle::verify(
        &other_sid(&public).sid,
        id1,
        &public.gens,
        com,
        None,
        &public.perm_proofs[0]
    )
    .is_err());

    // DB-SM: reverse ElGamal shuffle, blinding, decryption shares, DPK shares and aggregate.
    let all: Vec<usize> = (0..6).collect();
    let (_k, q) =
        membership::querier_sign(&public, &rec.outputs, &all, &[0, 2, 4], &mut rng).unwrap();
    let (sh_rec, sh) = sharing::run_sharing(&public, &servers, &inputs, &rec, &mut rng).unwrap();
    let coms = sharing::verify_sharing(&public, &inputs, &rec, &sh_rec).unwrap();
    let proof =
        membership::run(&public, &servers, &inputs, &rec, &sh, &coms, &q, &mut rng).unwrap();
    let verify = |p: &MixnetPublic, q: &membership::BbQuery, pr: &membership::DbSmProof| {
        membership::verify(p, &inputs, &rec, &coms, q, pr)
    };
    assert!(verify(&public, &q, &proof).is_ok());
    assert!(verify(&other_sid(&public), &q, &proof).is_err());
    // ElGamal shuffle statement elements (server 2 reversed first, from the initial list).
    let init = membership::initial_list(6, &q);
    let epk = public.elgamal.pk;
    let rs = &proof.reverse[0];
    let com2 = &public.perm_commitments[1];
    let id2 = PartyId::new(2).unwrap();
    let es = ElGamalShuffle {
        pk: &epk,
        inputs: &rs.outputs,
        outputs: &init,
    };
    assert!(shuffle::verify_elgamal(&public.sid, id2, &public.gens, com2, &es, &rs.proof).is_ok());
    for k in 0..6 {
        let mut outs = rs.outputs.clone();
        outs[k] = outs[k].rerandomize(&g, &epk, &Scalar::ONE);
        let e2 = ElGamalShuffle {
            pk: &epk,
            inputs: &outs,
            outputs: &init,
        };
        assert!(
            shuffle::verify_elgamal(&public.sid, id2, &public.gens, com2, &e2, &rs.proof).is_err(),
            "elgamal {k}"
        );
    }
    let other_pk = epk + g;
    let e3 = ElGamalShuffle {
        pk: &other_pk,
        inputs: &rs.outputs,
        outputs: &init,
    };
    assert!(shuffle::verify_elgamal(&public.sid, id2, &public.gens, com2, &e3, &rs.proof).is_err());
    // The query: y and the sets.
    let mut q2 = q.clone();
    q2.y += blstrs::G2Projective::generator();
    assert!(verify(&public, &q2, &proof).is_err());
    let mut q3 = q.clone();
    q3.inputs = vec![0, 1, 2, 3, 5];
    assert!(verify(&public, &q3, &proof).is_err());
    // The data the DPK is about: gamma of a member and its share commitments V_k.
    let member = (0..6)
        .find(|&t| !bool::from(proof.s[t].is_identity()))
        .unwrap();
    let src = rec.accepted[member];
    let mut subs = inputs.clone();
    subs[src].gamma += g;
    assert!(membership::verify(&public, &subs, &rec, &coms, &q, &proof).is_err());
    for k in 0..2 {
        let mut c2 = coms.clone();
        c2[member][k] += g;
        assert!(
            membership::verify(&public, &inputs, &rec, &c2, &q, &proof).is_err(),
            "V_{k}"
        );
    }
    // The sharing proofs and decryptions are bound to c, c' of each input.
    for field in 0..2 {
        let mut subs = inputs.clone();
        match field {
            0 => subs[src].c = pk.rerandomize(&subs[src].c, &mut rng).unwrap(),
            _ => subs[src].c_prime = pk.rerandomize(&subs[src].c_prime, &mut rng).unwrap(),
        }
        assert!(
            sharing::verify_sharing(&public, &subs, &rec, &sh_rec).is_err(),
            "sender field {field}"
        );
    }
    // ElGamal decryption shares are bound to their element position and server.
    let dec = &proof.decryption[0].shares;
    let list: Vec<ElGamalCiphertext> = (0..6)
        .map(|t| {
            proof.blinding.iter().fold(
                ElGamalCiphertext::trivial(blstrs::G1Projective::identity()),
                |a, b| a.mul(&b.contributions[t]),
            )
        })
        .collect();
    assert!(elgamal::verify_dec_shares(
        &public.gens,
        &public.elgamal,
        &public.sid,
        id1,
        &list,
        dec
    )
    .is_ok());
    assert!(elgamal::verify_dec_shares(
        &public.gens,
        &public.elgamal,
        &public.sid,
        id2,
        &list,
        dec
    )
    .is_err());
    let mut rot = list.clone();
    rot.swap(0, 1);
    let mut rdec = dec.clone();
    rdec.swap(0, 1);
    assert!(elgamal::verify_dec_shares(
        &public.gens,
        &public.elgamal,
        &public.sid,
        id1,
        &rot,
        &rdec
    )
    .is_err());
}
