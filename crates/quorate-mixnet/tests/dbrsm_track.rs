//! DB-RSM signature track (Fig. 9 steps 5–7: forward shuffle, blinding, decryption of the
//! quasi-signatures) after a real Mix, against the ground-truth permutation, then DPK_BBS+
//! with the servers' real blinding shares; blame for each per-server proof of the track.
#![allow(clippy::unwrap_used)]

use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_mixnet::dbrsm::{self, BbsQuery, SignatureTrack};
use quorate_mixnet::mix::{self, MixRecord};
use quorate_mixnet::sender::{self, SenderOpening};
use quorate_mixnet::setup::{keygen_with_test_moduli, MixServer, MixnetPublic};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

struct World {
    public: MixnetPublic,
    servers: Vec<MixServer>,
    openings: Vec<SenderOpening>,
    gammas: Vec<G1Projective>,
    record: MixRecord,
    rng: ChaCha20Rng,
}

fn world(n: usize, m: u16, seed: u64) -> World {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sid = SessionId::new(format!("dbrsm-track-{seed}").into_bytes());
    let (public, servers) = keygen_with_test_moduli(sid, n, m, m, &mut rng).unwrap();
    let pk = public.paillier.encryption_key();
    let mut inputs = Vec::new();
    let mut openings = Vec::new();
    for i in 0..n {
        let v = Scalar::random(&mut rng);
        let (inp, op) = sender::encrypt(
            &public.gens,
            pk,
            &public.ring_pedersen,
            &public.sid,
            i as u64,
            v,
            &mut rng,
        )
        .unwrap();
        inputs.push(inp);
        openings.push(op);
    }
    let record = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let gammas = inputs.iter().map(|s| s.gamma).collect();
    World {
        public,
        servers,
        openings,
        gammas,
        record,
        rng,
    }
}

fn split(x: Scalar, m: usize, rng: &mut ChaCha20Rng) -> Vec<Scalar> {
    let mut v: Vec<Scalar> = (1..m).map(|_| Scalar::random(&mut *rng)).collect();
    let rest: Scalar = v.iter().sum();
    v.push(x - rest);
    v
}

fn end_to_end(n: usize, m: u16, seed: u64) {
    let mut w = world(n, m, seed);
    let i_set: Vec<usize> = (0..n).filter(|i| i % 2 == 1).collect();
    let (_key, q) = dbrsm::querier_quasi_sign(&w.public, &w.gammas, &i_set, &mut w.rng).unwrap();
    dbrsm::check_quasi_signatures(&w.public, &w.gammas, &q).unwrap();
    let (track, bshares) =
        dbrsm::run_signature_track(&w.public, &w.servers, &q, &mut w.rng).unwrap();
    // The querier re-verifies everything.
    let s = dbrsm::verify_signature_track(&w.public, &q, &track).unwrap();
    let truth = mix::composed_permutation(&w.servers);
    let mk = m as usize;
    let (g, h) = (w.public.gens.g, w.public.gens.h);
    let mut stmts = Vec::new();
    let mut wit = Vec::new();
    for j in 0..n {
        let i = truth[j];
        let member = i_set.binary_search(&i).is_ok();
        // S̃_j ≠ 1 exactly when output j came from I.
        assert_eq!(!bool::from(s[j].is_identity()), member, "output {j}");
        if !member {
            continue;
        }
        let t = i_set.binary_search(&i).unwrap();
        let sig = q.sigs[t];
        // Witness shares: b_k from the real blinding; c and r′ = (r + r̂)·b dealt (the
        // Paillier part of steps 4–7 is not implemented).
        let b: Vec<Scalar> = bshares.iter().map(|bs| bs.b(j).unwrap()).collect();
        let bsum: Scalar = b.iter().sum();
        let c = split(sig.c, mk, &mut w.rng);
        let rp = split((w.openings[i].r + sig.r_hat) * bsum, mk, &mut w.rng);
        let mut coms = Vec::new();
        let mut row = Vec::new();
        for k in 0..mk {
            let sr: [Scalar; 3] = [(); 3].map(|_| Scalar::random(&mut w.rng));
            coms.push(dbrsm::WitnessCommitments {
                c: g * c[k] + h * sr[0],
                b: g * b[k] + h * sr[1],
                r: g * rp[k] + h * sr[2],
            });
            row.push(dbrsm::WitnessShares {
                w: [c[k], b[k], rp[k]],
                s: sr,
            });
        }
        stmts.push(dbrsm::BbsDpkStatement {
            index: j,
            s_tilde: s[j],
            v_out: w.record.outputs[j],
            coms,
        });
        wit.push(row);
    }
    assert_eq!(stmts.len(), i_set.len());
    let proofs: Vec<_> = stmts
        .iter()
        .zip(&wit)
        .map(|(st, sh)| dbrsm::bbs_dpk_prove(&w.public, &q.y, st, sh, &mut w.rng).unwrap())
        .collect();
    dbrsm::bbs_dpk_verify(&w.public, &q.y, &stmts, &proofs).unwrap();
    // A non-member output cannot be proven: claim output j0 (not from I) with another
    // member's signature blinded, against j0's value.
    let j0 = (0..n)
        .find(|&j| i_set.binary_search(&truth[j]).is_err())
        .unwrap();
    let mut st = stmts[0].clone();
    st.index = j0;
    st.v_out = w.record.outputs[j0];
    let pf = dbrsm::bbs_dpk_prove(&w.public, &q.y, &st, &wit[0], &mut w.rng).unwrap();
    assert!(dbrsm::bbs_dpk_verify(&w.public, &q.y, &[st], &[pf]).is_err());
}

#[test]
fn signature_track_and_dpk_end_to_end_10_2() {
    end_to_end(10, 2, 41);
}

#[test]
fn signature_track_and_dpk_end_to_end_50_3() {
    end_to_end(50, 3, 42);
}

fn track(w: &mut World) -> (BbsQuery, SignatureTrack) {
    let i_set: Vec<usize> = (0..w.public.n).collect();
    let (_key, q) = dbrsm::querier_quasi_sign(&w.public, &w.gammas, &i_set, &mut w.rng).unwrap();
    let (t, _b) = dbrsm::run_signature_track(&w.public, &w.servers, &q, &mut w.rng).unwrap();
    (q, t)
}

#[test]
fn a_cheating_server_in_the_signature_track_is_named() {
    let mut w = world(6, 3, 43);
    let (q, t) = track(&mut w);
    let ids: Vec<_> = w.servers.iter().map(|s| s.id).collect();
    let check = |t2: &SignatureTrack, who: usize| {
        let err = dbrsm::verify_signature_track(&w.public, &q, t2).unwrap_err();
        assert_eq!(err.culprits(), &[ids[who]], "{err:?}");
    };
    // Forward shuffle: server 2 replaces one output.
    let mut t2 = t.clone();
    t2.forward[1].outputs[3].b += w.public.gens.g;
    check(&t2, 1);
    // Blinding: server 1 changes one contribution.
    let mut t2 = t.clone();
    t2.blinding[0].contributions[2].b += w.public.gens.g;
    check(&t2, 0);
    // Blinding proof response of server 3.
    let mut t2 = t.clone();
    t2.blinding[2].proofs[4].z_b += Scalar::ONE;
    check(&t2, 2);
    // Decryption share of server 3.
    let mut t2 = t.clone();
    t2.decryption[2].shares[5].d += w.public.gens.g;
    check(&t2, 2);
    // Published S̃ that differs from the verified decryption.
    let mut t2 = t.clone();
    t2.s_tilde[0] += w.public.gens.g;
    assert!(dbrsm::verify_signature_track(&w.public, &q, &t2).is_err());
    // Stages out of order or missing: typed errors.
    let mut t2 = t.clone();
    t2.forward.swap(0, 1);
    assert!(dbrsm::verify_signature_track(&w.public, &q, &t2).is_err());
    let mut t2 = t.clone();
    t2.decryption.pop();
    assert!(dbrsm::verify_signature_track(&w.public, &q, &t2).is_err());
    // A query whose signatures differ from the ones the track started from.
    let mut q2 = q.clone();
    q2.sigs[0].s += w.public.gens.g;
    assert!(dbrsm::verify_signature_track(&w.public, &q2, &t).is_err());
}
