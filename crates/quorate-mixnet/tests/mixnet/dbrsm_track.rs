//! DB-RSM (Fig. 9) end to end through `reverse_membership::run` / `reverse_membership::verify` after a real Mix,
//! against the ground-truth permutation; blame for each per-server proof of the signature
//! track (including the blinding commitments `B_{k,j}`).
#![allow(clippy::unwrap_used)]

use blstrs::Scalar;
use ff::Field;
use quorate_core::error::Culprits;
use quorate_mixnet::beaver::{self, TripleShares};
use quorate_mixnet::reverse_membership::{self, BbsQuery, SignatureTrack};
use quorate_mixnet::{mix, MixnetError};

use crate::common::RsmWorld as World;

fn world(n: usize, m: u16, seed: u64) -> World {
    crate::common::rsm_world("dbrsm-track", n, m, seed)
}

/// Deals fresh triples, runs DB-RSM for `I` and verifies it as the querier; returns the
/// query, the proof, the triples and the querier's per-output answer.
fn run_dbrsm(
    w: &mut World,
    i_set: &[usize],
) -> (
    BbsQuery,
    reverse_membership::DbRsmProof,
    Vec<beaver::TriplePublic>,
    Vec<bool>,
) {
    let (_key, q) =
        reverse_membership::querier_quasi_sign(&w.public, &w.gammas, i_set, &mut w.rng).unwrap();
    let (triples, mut tshares) =
        beaver::deal_triples(&w.public, &q.query_id, i_set.len(), &mut w.rng);
    let proof = reverse_membership::run(
        &w.public,
        &w.servers,
        &w.inputs,
        &w.record,
        &triples,
        &mut tshares,
        &q,
        &mut w.rng,
    )
    .unwrap();
    let members =
        reverse_membership::verify(&w.public, &w.inputs, &w.record, &triples, &q, &proof).unwrap();
    (q, proof, triples, members)
}

fn end_to_end(n: usize, m: u16, seed: u64) {
    let mut w = world(n, m, seed);
    let i_set: Vec<usize> = (0..n).filter(|i| i % 2 == 1).collect();
    let (q, proof, triples, members) = run_dbrsm(&mut w, &i_set);
    let truth = mix::composed_permutation(&w.servers);
    for j in 0..n {
        // Output j is a member exactly when it came from I.
        assert_eq!(
            members[j],
            i_set.binary_search(&truth[j]).is_ok(),
            "output {j}"
        );
    }
    assert_eq!(proof.dpk.len(), i_set.len());
    assert_eq!(proof.non_members[0].b.len(), n - i_set.len());
    // The querier's answer needs the proof's own query: another query (different
    // quasi-signature randomness) fails.
    let mut q2 = q.clone();
    q2.sigs[0].r_hat += Scalar::ONE;
    assert!(
        reverse_membership::verify(&w.public, &w.inputs, &w.record, &triples, &q2, &proof).is_err()
    );
    // Too few triples, or triples from another deal, are rejected.
    assert!(
        reverse_membership::verify(&w.public, &w.inputs, &w.record, &triples[1..], &q, &proof)
            .is_err()
    );
    let (other, _) = beaver::deal_triples(&w.public, &q.query_id, i_set.len(), &mut w.rng);
    assert!(
        reverse_membership::verify(&w.public, &w.inputs, &w.record, &other, &q, &proof).is_err()
    );
    // Reusing the proof for the full query (all inputs) fails.
    let all: Vec<usize> = (0..n).collect();
    let (_k, q_all) =
        reverse_membership::querier_quasi_sign(&w.public, &w.gammas, &all, &mut w.rng).unwrap();
    assert!(
        reverse_membership::verify(&w.public, &w.inputs, &w.record, &triples, &q_all, &proof)
            .is_err()
    );
}

#[test]
fn dbrsm_end_to_end_10_2() {
    end_to_end(10, 2, 41);
}

#[test]
fn dbrsm_end_to_end_12_3() {
    end_to_end(12, 3, 42);
}

#[test]
fn dbrsm_with_empty_and_full_query() {
    let mut w = world(6, 2, 48);
    let (_, proof, _, members) = run_dbrsm(&mut w, &[]);
    assert!(members.iter().all(|m| !*m));
    assert!(proof.dpk.is_empty());
    let all: Vec<usize> = (0..6).collect();
    let (_, proof, _, members) = run_dbrsm(&mut w, &all);
    assert!(members.iter().all(|m| *m));
    assert!(proof.non_members.iter().all(|o| o.b.is_empty()));
}

/// Issue 13 (mixnet, low): Beaver triples are bound to one query and single-use. On the old
/// code triples carried no query and nothing stopped a second run with the same shares,
/// whose openings `x − a`, `x′ − a` publish `x − x′`.
#[test]
fn beaver_triples_are_bound_to_their_query_and_used_once() {
    let mut w = world(6, 2, 49);
    let ids: Vec<_> = w.servers.iter().map(|s| s.id).collect();
    let i_set = [1usize, 4];
    let (_key, q) =
        reverse_membership::querier_quasi_sign(&w.public, &w.gammas, &i_set, &mut w.rng).unwrap();
    let (triples, mut tshares) = beaver::deal_triples(&w.public, &q.query_id, 2, &mut w.rng);
    let run = |w: &mut World,
               q: &BbsQuery,
               triples: &[beaver::TriplePublic],
               shares: &mut [TripleShares]| {
        reverse_membership::run(
            &w.public, &w.servers, &w.inputs, &w.record, triples, shares, q, &mut w.rng,
        )
    };
    let proof = run(&mut w, &q, &triples, &mut tshares).unwrap();
    assert!(tshares.iter().all(TripleShares::is_used));
    // The same shares again (same query): refused, naming the first server and the query.
    assert_eq!(
        run(&mut w, &q, &triples, &mut tshares).unwrap_err(),
        MixnetError::TripleReused {
            mixer: ids[0],
            query: q.query_id
        }
    );
    // Fresh triples dealt for q, offered for another query q2: refused by the servers.
    let (_k2, q2) =
        reverse_membership::querier_quasi_sign(&w.public, &w.gammas, &i_set, &mut w.rng).unwrap();
    assert_ne!(q2.query_id, q.query_id);
    let (fresh, mut fresh_shares) = beaver::deal_triples(&w.public, &q.query_id, 2, &mut w.rng);
    assert_eq!(
        run(&mut w, &q2, &fresh, &mut fresh_shares).unwrap_err(),
        MixnetError::TripleForOtherQuery {
            holder: Some(ids[0]),
            query: q2.query_id,
            dealt_for: q.query_id
        }
    );
    assert!(fresh_shares.iter().all(|s| !s.is_used()));
    // ... and by the querier: the public triples of q2 do not verify q's proof,
    let (for_q2, _) = beaver::deal_triples(&w.public, &q2.query_id, 2, &mut w.rng);
    assert_eq!(
        reverse_membership::verify(&w.public, &w.inputs, &w.record, &for_q2, &q, &proof)
            .unwrap_err(),
        MixnetError::TripleForOtherQuery {
            holder: None,
            query: q.query_id,
            dealt_for: q2.query_id
        }
    );
    // ... and relabelling q's triples as q2's breaks their proofs (the challenge binds it).
    let mut relabelled = triples.clone();
    relabelled.iter_mut().for_each(|t| t.query = q2.query_id);
    assert!(matches!(
        beaver::verify_triples(&w.public, &q2.query_id, &relabelled),
        Err(MixnetError::ProofRejected(_))
    ));
    // The honest proof with its own triples still verifies.
    reverse_membership::verify(&w.public, &w.inputs, &w.record, &triples, &q, &proof).unwrap();
}

fn track(w: &mut World) -> (BbsQuery, SignatureTrack) {
    let i_set: Vec<usize> = (0..w.public.n).collect();
    let (_key, q) =
        reverse_membership::querier_quasi_sign(&w.public, &w.gammas, &i_set, &mut w.rng).unwrap();
    let (t, _b) =
        reverse_membership::run_signature_track(&w.public, &w.servers, &q, &mut w.rng).unwrap();
    (q, t)
}

#[test]
fn a_cheating_server_in_the_signature_track_is_named() {
    let mut w = world(6, 3, 43);
    let (q, t) = track(&mut w);
    let ids: Vec<_> = w.servers.iter().map(|s| s.id).collect();
    let check = |t2: &SignatureTrack, who: usize| {
        let err = reverse_membership::verify_signature_track(&w.public, &q, t2).unwrap_err();
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
    // Server 2 publishes a commitment B_{k,j} to another blinding share.
    let mut t2 = t.clone();
    t2.blinding[1].b_coms[3] += w.public.gens.g;
    check(&t2, 1);
    // Or drops one.
    let mut t2 = t.clone();
    t2.blinding[2].b_coms.pop();
    check(&t2, 2);
    // Decryption share of server 3.
    let mut t2 = t.clone();
    t2.decryption[2].shares[5].d += w.public.gens.g;
    check(&t2, 2);
    // Published S̃ that differs from the verified decryption.
    let mut t2 = t.clone();
    t2.s_tilde[0] += w.public.gens.g;
    assert!(reverse_membership::verify_signature_track(&w.public, &q, &t2).is_err());
    // Stages out of order or missing: typed errors.
    let mut t2 = t.clone();
    t2.forward.swap(0, 1);
    assert!(reverse_membership::verify_signature_track(&w.public, &q, &t2).is_err());
    let mut t2 = t.clone();
    t2.decryption.pop();
    assert!(reverse_membership::verify_signature_track(&w.public, &q, &t2).is_err());
    // A query whose signatures differ from the ones the track started from.
    let mut q2 = q.clone();
    q2.sigs[0].s += w.public.gens.g;
    assert!(reverse_membership::verify_signature_track(&w.public, &q2, &t).is_err());
}
