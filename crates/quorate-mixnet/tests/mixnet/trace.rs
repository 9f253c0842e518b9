//! BTraceIn (DB-SM) / BTraceOut (DB-RSM) (Fig. 6) against the ground-truth permutation.
#![allow(clippy::unwrap_used)]

use quorate_mixnet::beaver;
use quorate_mixnet::mix::{self, MixRecord};
use quorate_mixnet::sender::SenderInput;
use quorate_mixnet::setup::{MixServer, MixnetPublic};
use quorate_mixnet::{membership, reverse_membership, trace, MixnetError};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

fn world(
    n: usize,
    t: u16,
    m: u16,
    seed: u64,
) -> (
    MixnetPublic,
    Vec<MixServer>,
    Vec<SenderInput>,
    MixRecord,
    ChaCha20Rng,
) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mixed = crate::common::mixed(format!("trace-test-{seed}").as_bytes(), n, t, m, &mut rng);
    let crate::common::Mixed {
        public,
        servers,
        inputs,
        record,
    } = mixed;
    (public, servers, inputs, record, rng)
}

fn check(n: usize, t: u16, m: u16, seed: u64, with_trace_in: bool) {
    let (public, servers, inputs, record, mut rng) = world(n, t, m, seed);
    mix::verify_record(&public, &inputs, &record).unwrap();
    // comp[j] = the input that output j came from.
    let comp = mix::composed_permutation(&servers);
    if with_trace_in {
        check_trace_in(&public, &servers, &inputs, &record, &comp, &mut rng);
    }
    check_trace_out(&public, &servers, &inputs, &record, &comp, &mut rng);
}

fn check_trace_in(
    public: &MixnetPublic,
    servers: &[MixServer],
    inputs: &[SenderInput],
    record: &MixRecord,
    comp: &[usize],
    rng: &mut ChaCha20Rng,
) {
    let n = public.n;
    let (_rec, sh, coms) = crate::common::share(public, servers, inputs, record, rng);
    // BTraceIn(J) (DB-SM): exactly the inputs that went to J.
    let j_set: Vec<usize> = (0..n).filter(|j| j % 3 == 2).collect();
    let ans = trace::btrace_in(public, servers, inputs, record, &sh, &coms, &j_set, rng).unwrap();
    let mut truth: Vec<usize> = j_set.iter().map(|&j| comp[j]).collect();
    truth.sort_unstable();
    assert_eq!(ans.answer, truth);
    assert_eq!(
        trace::verify_trace_in(public, inputs, record, &coms, &j_set, &ans.query, &ans.proof)
            .unwrap(),
        truth
    );
    // The evidence does not verify for another J.
    let other: Vec<usize> = (0..n).filter(|j| j % 3 == 0).collect();
    assert!(
        trace::verify_trace_in(public, inputs, record, &coms, &other, &ans.query, &ans.proof)
            .is_err()
    );
}

fn check_trace_out(
    public: &MixnetPublic,
    servers: &[MixServer],
    inputs: &[SenderInput],
    record: &MixRecord,
    comp: &[usize],
    rng: &mut ChaCha20Rng,
) {
    let n = public.n;
    // BTraceOut(I) (DB-RSM): exactly the outputs whose source is in I, and the rest proven
    // not to come from I.
    let i_set: Vec<usize> = (0..n).filter(|i| i % 4 == 1 || *i == 0).collect();
    let mut dealer_rng = ChaCha20Rng::seed_from_u64(rng.next_u64());
    let deal = |q: &reverse_membership::BbsQuery| {
        beaver::deal_triples(public, &q.query_id, q.inputs.len(), &mut dealer_rng)
    };
    let ans = trace::btrace_out(public, servers, inputs, record, deal, &i_set, rng).unwrap();
    let triples = ans.triples.clone();
    let truth: Vec<usize> = (0..n).filter(|&j| i_set.contains(&comp[j])).collect();
    let not_truth: Vec<usize> = (0..n).filter(|&j| !i_set.contains(&comp[j])).collect();
    assert_eq!(ans.answer, truth);
    assert_eq!(ans.not_from, not_truth);
    assert_eq!(
        trace::verify_trace_out(public, inputs, record, &triples, &i_set, &ans.query, &ans.proof)
            .unwrap(),
        truth
    );
    // The evidence does not verify for another I.
    let other: Vec<usize> = i_set.iter().map(|i| (i + 1) % n).collect::<Vec<_>>();
    let mut other_sorted = other.clone();
    other_sorted.sort_unstable();
    assert!(trace::verify_trace_out(
        public,
        inputs,
        record,
        &triples,
        &other_sorted,
        &ans.query,
        &ans.proof
    )
    .is_err());
}

#[test]
fn trace_queries_10_2() {
    check(10, 2, 2, 21, true);
}

#[test]
fn trace_queries_50_3() {
    // BTraceIn (DB-SM) at this size runs in dbsm.rs's end-to-end test.
    check(50, 3, 3, 22, false);
}

#[test]
fn malformed_trace_queries_are_typed_errors() {
    let (public, servers, inputs, record, mut rng) = world(10, 2, 2, 23);
    let (_rec, sh, coms) = crate::common::share(&public, &servers, &inputs, &record, &mut rng);
    // Index sets with repeats or out of range are typed errors.
    assert!(matches!(
        trace::btrace_in(
            &public,
            &servers,
            &inputs,
            &record,
            &sh,
            &coms,
            &[1, 1],
            &mut rng
        ),
        Err(MixnetError::InvalidQuery(_))
    ));
    let mut dealer_rng = ChaCha20Rng::seed_from_u64(24);
    let mut deal_two = |q: &reverse_membership::BbsQuery| {
        beaver::deal_triples(&public, &q.query_id, 2, &mut dealer_rng)
    };
    assert!(matches!(
        trace::btrace_out(
            &public,
            &servers,
            &inputs,
            &record,
            &mut deal_two,
            &[10],
            &mut rng
        ),
        Err(MixnetError::InvalidQuery(_))
    ));
    // Not enough triples for the queried inputs.
    assert!(trace::btrace_out(
        &public,
        &servers,
        &inputs,
        &record,
        &mut deal_two,
        &[1, 2, 3],
        &mut rng
    )
    .is_err());
    // A DB-SM query over a subset of the inputs is not BTraceIn evidence.
    let (_k, q) =
        membership::querier_sign(&public, &record.outputs, &[2, 5], &[0, 1], &mut rng).unwrap();
    let proof = membership::run(
        &public, &servers, &inputs, &record, &sh, &coms, &q, &mut rng,
    )
    .unwrap();
    assert!(matches!(
        trace::verify_trace_in(&public, &inputs, &record, &coms, &[0, 1], &q, &proof),
        Err(MixnetError::InvalidQuery(_))
    ));
}
