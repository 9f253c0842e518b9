//! DB-RSM signature track (Fig. 9 steps 5–7: forward shuffle, blinding, decryption of the
//! quasi-signatures) after a real Mix, against the ground-truth permutation, then DPK_BBS+
//! on the protocol's witnesses: `b_k` from the blinding, `c_k` with their commitments from
//! the Paillier witness track, `r′ = (r + r̂)·b` by Beaver from the witness-track shares;
//! blame for each per-server proof of the track and for a wrong witness share.
#![allow(clippy::unwrap_used)]

use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_mixnet::dbrsm::{self, BbsQuery, SignatureTrack};
use quorate_mixnet::mix::{self, MixRecord};
use quorate_mixnet::sender::{self, SenderInput, SenderOpening};
use quorate_mixnet::setup::{keygen_with_test_moduli, MixServer, MixnetPublic};
use quorate_mixnet::witness;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

struct World {
    public: MixnetPublic,
    servers: Vec<MixServer>,
    openings: Vec<SenderOpening>,
    inputs: Vec<SenderInput>,
    gammas: Vec<G1Projective>,
    record: MixRecord,
    rng: ChaCha20Rng,
}

fn world(n: usize, m: u16, seed: u64) -> World {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sid = SessionId::new(format!("dbrsm-track-{seed}").into_bytes());
    let (public, servers) = keygen_with_test_moduli(sid, n, m, m, &mut rng).unwrap();
    let mut inputs = Vec::new();
    let mut openings = Vec::new();
    for i in 0..n {
        let v = Scalar::random(&mut rng);
        let (inp, op) = sender::encrypt_for(&public, i as u64, v, &mut rng).unwrap();
        inputs.push(inp);
        openings.push(op);
    }
    let record = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
    let gammas = inputs.iter().map(|s| s.gamma).collect();
    World {
        public,
        servers,
        openings,
        inputs,
        gammas,
        record,
        rng,
    }
}

type Dpk = (
    BbsQuery,
    Vec<usize>,
    Vec<dbrsm::BbsDpkStatement>,
    Vec<Vec<dbrsm::WitnessShares>>,
);

/// DB-RSM for `I` = odd inputs, every output checked against the ground truth; returns the
/// DPK_BBS+ statements and witness shares of the member outputs.
fn run_dbrsm(w: &mut World) -> Dpk {
    let n = w.public.n;
    let i_set: Vec<usize> = (0..n).filter(|i| i % 2 == 1).collect();
    let (_key, q) = dbrsm::querier_quasi_sign(&w.public, &w.gammas, &i_set, &mut w.rng).unwrap();
    dbrsm::check_quasi_signatures(&w.public, &w.gammas, &q).unwrap();
    let (track, bshares) =
        dbrsm::run_signature_track(&w.public, &w.servers, &q, &mut w.rng).unwrap();
    let (wtrack, wshares) =
        witness::run_witness_track(&w.public, &w.servers, &w.inputs, &w.record, &q, &mut w.rng)
            .unwrap();
    // The querier re-verifies everything.
    let s = dbrsm::verify_signature_track(&w.public, &q, &track).unwrap();
    let wcoms =
        witness::verify_witness_track(&w.public, &w.inputs, &w.record, &q, &wtrack).unwrap();
    let truth = mix::composed_permutation(&w.servers);
    let mk = w.servers.len();
    let (g, h) = (w.public.gens.g, w.public.gens.h);
    let members: Vec<usize> = (0..n)
        .filter(|&j| i_set.binary_search(&truth[j]).is_ok())
        .collect();
    for (j, sj) in s.iter().enumerate() {
        // S̃_j ≠ 1 exactly when output j came from I.
        assert_eq!(
            !bool::from(sj.is_identity()),
            members.contains(&j),
            "output {j}"
        );
    }
    // Beaver: r′ = ρ·b per member output, ρ = r + r̂ from the witness track.
    let ids: Vec<_> = w.servers.iter().map(|s| s.id).collect();
    let (triples, tshares) = dbrsm::deal_triples(&g, &ids, members.len(), &mut w.rng);
    dbrsm::verify_triples(&g, mk, &triples).unwrap();
    let xs: Vec<Vec<Scalar>> = wshares
        .iter()
        .map(|sh| {
            members
                .iter()
                .map(|&j| sh.value_shares(j).unwrap().0[1])
                .collect()
        })
        .collect();
    let ws: Vec<Vec<Scalar>> = bshares
        .iter()
        .map(|bs| members.iter().map(|&j| bs.b(j).unwrap()).collect())
        .collect();
    let feldman = |v: &Vec<Vec<Scalar>>| -> Vec<Vec<G1Projective>> {
        v.iter()
            .map(|r| r.iter().map(|x| g * x).collect())
            .collect()
    };
    let openings: Vec<_> = tshares
        .iter()
        .zip(xs.iter().zip(&ws))
        .map(|(t, (x, b))| dbrsm::beaver_open(t, x, b).unwrap())
        .collect();
    let opened =
        dbrsm::beaver_check_openings(&g, &triples, &feldman(&xs), &feldman(&ws), &openings)
            .unwrap();
    let products: Vec<Vec<Scalar>> = tshares
        .iter()
        .enumerate()
        .map(|(k, t)| dbrsm::beaver_product_shares(t, k == 0, &opened).unwrap())
        .collect();
    let pcoms = dbrsm::beaver_product_commitments(&g, &triples, &opened).unwrap();
    let mut stmts = Vec::new();
    let mut wit = Vec::new();
    for (t, &j) in members.iter().enumerate() {
        let i = truth[j];
        let sig = q.sigs[i_set.binary_search(&i).unwrap()];
        let mut coms = Vec::new();
        let mut row = Vec::new();
        let (mut csum, mut rsum) = (Scalar::ZERO, Scalar::ZERO);
        for k in 0..mk {
            let (vals, rand) = wshares[k].value_shares(j).unwrap();
            csum += vals[0];
            rsum += vals[1];
            let b = bshares[k].b(j).unwrap();
            let sb = Scalar::random(&mut w.rng);
            coms.push(dbrsm::WitnessCommitments {
                c: wcoms[j][k].v,
                b: g * b + h * sb,
                r: pcoms[k][t],
            });
            row.push(dbrsm::WitnessShares {
                w: [vals[0], b, products[k][t]],
                s: [rand[0], sb, Scalar::ZERO],
            });
        }
        // The witness track really shares c_{π(j)} and r_{π(j)} + r̂_{π(j)}.
        assert_eq!(csum, sig.c, "output {j}");
        assert_eq!(rsum, w.openings[i].r + sig.r_hat, "output {j}");
        stmts.push(dbrsm::BbsDpkStatement {
            index: j,
            s_tilde: s[j],
            v_out: w.record.outputs[j],
            coms,
        });
        wit.push(row);
    }
    (q, members, stmts, wit)
}

fn end_to_end(n: usize, m: u16, seed: u64) {
    let mut w = world(n, m, seed);
    let (q, members, stmts, wit) = run_dbrsm(&mut w);
    assert_eq!(stmts.len(), n / 2);
    let proofs: Vec<_> = stmts
        .iter()
        .zip(&wit)
        .map(|(st, sh)| dbrsm::bbs_dpk_prove(&w.public, &q.y, st, sh, &mut w.rng).unwrap())
        .collect();
    dbrsm::bbs_dpk_verify(&w.public, &q.y, &stmts, &proofs).unwrap();
    // A non-member output cannot be proven: claim output j0 (not from I) with another
    // member's signature blinded, against j0's value.
    let j0 = (0..n).find(|j| !members.contains(j)).unwrap();
    let mut st = stmts[0].clone();
    st.index = j0;
    st.v_out = w.record.outputs[j0];
    let pf = dbrsm::bbs_dpk_prove(&w.public, &q.y, &st, &wit[0], &mut w.rng).unwrap();
    assert!(dbrsm::bbs_dpk_verify(&w.public, &q.y, &[st], &[pf]).is_err());
}

#[test]
fn a_server_proving_with_a_wrong_witness_track_share_is_named() {
    let mut w = world(10, 3, 47);
    let (q, _, stmts, mut wit) = run_dbrsm(&mut w);
    // Server 2 uses c_k + 1 instead of its witness-track share: its response does not
    // match its public commitment C_k from the witness track.
    wit[0][1].w[0] += Scalar::ONE;
    let proofs: Vec<_> = stmts
        .iter()
        .zip(&wit)
        .map(|(st, sh)| dbrsm::bbs_dpk_prove(&w.public, &q.y, st, sh, &mut w.rng).unwrap())
        .collect();
    let err = dbrsm::bbs_dpk_verify(&w.public, &q.y, &stmts, &proofs).unwrap_err();
    assert_eq!(err.culprits(), &[w.servers[1].id], "{err:?}");
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
