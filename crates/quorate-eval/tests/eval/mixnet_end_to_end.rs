//! End to end at the largest test size, (n, m) = (200, 4): every status true and both
//! tracing answers equal to what the ground-truth permutation says (recomputed here, not
//! taken from the demo's own status flags). The smaller sizes (10, 2) and (50, 3) run in
//! `quorate-mixnet`'s `tests/mixnet/{trace,dbsm,dbrsm}.rs`. Test moduli (1024-bit Paillier)
//! keep this to well under a minute on two cores.
#![allow(clippy::unwrap_used)]

use quorate_eval::mixnet::{run_demo, DemoConfig};
use quorate_mixnet::params::TEST_PAILLIER_BITS;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

#[test]
fn n200_m4_every_status_true_and_traces_match_ground_truth() {
    let mut rng = ChaCha20Rng::seed_from_u64(2004);
    let cfg = DemoConfig {
        n: 200,
        m: 4,
        t: 3,
        paillier_bits: TEST_PAILLIER_BITS,
        progress: false,
    };
    let r = run_demo(cfg, &mut rng).unwrap();
    let failed: Vec<_> = r.statuses.iter().filter(|(_, ok)| !ok).collect();
    assert!(failed.is_empty(), "failed statuses: {failed:?}");

    // The ground truth is a permutation of the 200 inputs.
    let gt = &r.ground_truth_permutation;
    assert_eq!(gt.len(), 200);
    let mut seen = gt.clone();
    seen.sort_unstable();
    assert_eq!(seen, (0..200).collect::<Vec<_>>());

    // BTraceIn(J): the inputs whose outputs lie in J.
    assert!(!r.trace_in_query.is_empty());
    let mut want_in: Vec<usize> = r.trace_in_query.iter().map(|&j| gt[j]).collect();
    want_in.sort_unstable();
    assert_eq!(r.trace_in, want_in);

    // BTraceOut(I): the outputs that came from I, and the proven complement.
    assert!(!r.trace_out_query.is_empty());
    let want_out: Vec<usize> = (0..200)
        .filter(|&j| r.trace_out_query.contains(&gt[j]))
        .collect();
    assert_eq!(r.trace_out, want_out);
    let want_not: Vec<usize> = (0..200).filter(|j| !want_out.contains(j)).collect();
    assert_eq!(r.trace_out_not_from, want_not);
}

/// A 2048-bit modulus packs several values per decryption (4 outputs, 2 sharing inputs per
/// group), including partial last groups; every status of a whole run must hold.
#[test]
fn packed_decryption_with_several_slots_per_group() {
    let mut rng = ChaCha20Rng::seed_from_u64(71);
    let cfg = DemoConfig {
        n: 9,
        m: 2,
        t: 2,
        paillier_bits: 2048,
        progress: false,
    };
    let r = run_demo(cfg, &mut rng).unwrap();
    assert!(r.statuses.iter().all(|(_, s)| *s), "{:?}", r.statuses);
    assert_eq!(r.ground_truth_permutation.len(), 9);
}
