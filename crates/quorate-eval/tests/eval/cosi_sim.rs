//! The simulator glue: CoSi (both modes) and the baselines on the network simulator.

use quorate_cosi::{Mode, Policy, Tree};
use quorate_eval::cosi::sim::{simulate, SimParams, SimProtocol, SimSetup};
use std::time::Duration;

/// The modes to run: legacy too when the `insecure-legacy` feature is on.
fn modes() -> Vec<Mode> {
    let mut m = vec![Mode::TwoNonce];
    if cfg!(feature = "insecure-legacy") {
        m.push(Mode::Legacy);
    }
    m
}

#[test]
fn cosi_small_trees_sign_and_verify() {
    for &(n, b) in &[(1usize, 2usize), (2, 2), (7, 2), (40, 4)] {
        let setup = SimSetup::generate(n, 9).expect("setup");
        for mode in modes() {
            let params =
                SimParams::new(SimProtocol::Cosi(mode), Tree::complete(n, b).expect("tree"));
            let out = simulate(&setup, &params, b"sim message").expect("round");
            let sig = out.signature.clone().expect("signature");
            assert_eq!(sig.mask().count(), n);
            setup
                .roster
                .verify(b"sim message", &sig, &Policy::Complete)
                .expect("verifies");
            // Two one-way hops per level and round trip: announcement, commitment,
            // challenge, response.
            let hops = 4 * out.depth as u64;
            assert!(out.latency >= Duration::from_millis(100 * hops), "{out:?}");
            assert!(out.latency < Duration::from_millis(100 * hops + 2000));
            if n > 1 {
                assert!(out.root_bytes > 0 && out.total_bytes >= out.root_bytes);
                assert!(out.max_cpu.1 >= out.root_cpu || out.max_cpu.0 != 0);
            }
        }
    }
}

#[test]
fn cosi_with_absent_witnesses() {
    let n = 30;
    let setup = SimSetup::generate(n, 4).expect("setup");
    let mut params = SimParams::new(
        SimProtocol::Cosi(Mode::TwoNonce),
        Tree::complete(n, 3).expect("tree"),
    );
    params.absent = [1usize, 5, 17].into_iter().collect();
    params.policy = Policy::Threshold(20);
    let out = simulate(&setup, &params, b"m").expect("round");
    let sig = out.signature.expect("sig");
    assert_eq!(sig.mask().count(), 27);
    assert!(!sig.mask().contains(1) && !sig.mask().contains(5) && !sig.mask().contains(17));
    setup
        .roster
        .verify(b"m", &sig, &Policy::Threshold(27))
        .expect("verifies");
    assert!(setup.roster.verify(b"m", &sig, &Policy::Complete).is_err());
}

#[test]
fn baselines_on_the_simulator() {
    let n = 20;
    let setup = SimSetup::generate(n, 5).expect("setup");
    let tree = Tree::complete(n, 4).expect("tree");
    let naive = simulate(
        &setup,
        &SimParams::new(SimProtocol::Naive, tree.clone()),
        b"m",
    )
    .expect("naive");
    assert_eq!(naive.participants, n);
    assert_eq!(naive.depth, 1);
    let ntree = simulate(
        &setup,
        &SimParams::new(SimProtocol::NTree, tree.clone()),
        b"m",
    )
    .expect("ntree");
    assert_eq!(ntree.participants, n);
    let jvss = simulate(
        &setup,
        &SimParams::new(SimProtocol::Jvss, tree.clone()),
        b"m",
    )
    .expect("jvss");
    assert_eq!(jvss.participants, n / 2 + 1);
    let cosi = simulate(
        &setup,
        &SimParams::new(SimProtocol::Cosi(Mode::TwoNonce), tree),
        b"m",
    )
    .expect("cosi");
    // Aggregation: the CoSi root moves far fewer bytes than JVSS's and naive's.
    assert!(
        cosi.root_bytes < naive.root_bytes,
        "{} vs {}",
        cosi.root_bytes,
        naive.root_bytes
    );
    assert!(naive.root_bytes < jvss.root_bytes);
    assert!(jvss.total_bytes > (n * (n - 1)) as u64 * 32);
}

// ---- faults the leader does not know about: per-subtree timeouts, blame, restarts ----

use quorate_cosi::CosiError;
use quorate_eval::cosi::sim::{default_level_timeout, SimFault, SimOutcome};

/// 13 witnesses in a complete ternary tree: root 0; subleaders 1, 2, 3; leaves 4–12
/// (1 → 4, 5, 6; 2 → 7, 8, 9; 3 → 10, 11, 12).
fn faulty_round(
    mode: Mode,
    faults: &[(usize, SimFault)],
    policy: Policy,
) -> Result<(SimOutcome, SimSetup), CosiError> {
    let n = 13;
    let setup = SimSetup::generate(n, 21).expect("setup");
    let mut params = SimParams::new(SimProtocol::Cosi(mode), Tree::complete(n, 3).expect("tree"));
    params.faults = faults.iter().copied().collect();
    params.policy = policy;
    simulate(&setup, &params, b"faulty").map(|out| (out, setup))
}

fn check_signed(out: &SimOutcome, setup: &SimSetup, missing: &[usize]) {
    let sig = out.signature.clone().expect("signature");
    assert_eq!(sig.mask().count(), 13 - missing.len(), "{out:?}");
    for &i in missing {
        assert!(!sig.mask().contains(i), "{i} should be out of the mask");
    }
    let policy = Policy::Threshold(13 - missing.len());
    setup
        .roster
        .verify(b"faulty", &sig, &policy)
        .expect("verifies");
}

#[test]
fn a_silent_leaf_is_left_out_after_its_parents_timeout() {
    let step = default_level_timeout(Duration::from_millis(100));
    let (out, setup) = faulty_round(
        Mode::TwoNonce,
        &[(11, SimFault::Silent)],
        Policy::Threshold(10),
    )
    .expect("round");
    check_signed(&out, &setup, &[11]);
    assert_eq!(out.attempts, 1);
    assert!(out.excluded.is_empty());
    // Subleader 3 waited one step for leaf 11 before committing.
    assert!(out.latency >= step, "{:?}", out.latency);
}

#[test]
fn a_silent_subleader_is_replaced_when_the_policy_needs_its_subtree() {
    // Policy 12 of 13: the first attempt's mask lacks subleader 2 and its leaves 7, 8, 9;
    // the leader restarts without 2, whose first leaf 7 takes over the subtree.
    let (out, setup) = faulty_round(
        Mode::TwoNonce,
        &[(2, SimFault::Silent)],
        Policy::Threshold(12),
    )
    .expect("round");
    check_signed(&out, &setup, &[2]);
    assert_eq!(out.attempts, 2);
    assert_eq!(out.excluded, vec![2]);
    // With a policy the partial mask already satisfies, there is no restart.
    let (out, setup) = faulty_round(
        Mode::TwoNonce,
        &[(2, SimFault::Silent)],
        Policy::Threshold(9),
    )
    .expect("round");
    check_signed(&out, &setup, &[2, 7, 8, 9]);
    assert_eq!(out.attempts, 1);
}

#[test]
fn silence_after_commitment_is_named_and_the_round_restarts() {
    for mode in modes() {
        // A leaf: its parent's response timeout names it.
        let (out, setup) = faulty_round(
            mode,
            &[(5, SimFault::SilentAfterCommit)],
            Policy::Threshold(12),
        )
        .expect("round");
        check_signed(&out, &setup, &[5]);
        assert_eq!((out.attempts, out.excluded.clone()), (2, vec![5]));
        // A subleader: the root names it; its leaves sign in the next attempt.
        let (out, setup) = faulty_round(
            mode,
            &[(3, SimFault::SilentAfterCommit)],
            Policy::Threshold(12),
        )
        .expect("round");
        check_signed(&out, &setup, &[3]);
        assert_eq!((out.attempts, out.excluded.clone()), (2, vec![3]));
    }
}

#[test]
fn bad_partial_responses_are_named_and_excluded() {
    let (out, setup) = faulty_round(
        Mode::TwoNonce,
        &[(8, SimFault::BadResponse), (1, SimFault::BadResponse)],
        Policy::Threshold(11),
    )
    .expect("round");
    check_signed(&out, &setup, &[1, 8]);
    let mut excluded = out.excluded.clone();
    excluded.sort_unstable();
    assert_eq!(excluded, vec![1, 8]);
    assert!(out.attempts >= 2);
}

#[test]
fn unreachable_policies_end_with_a_typed_error() {
    let err = faulty_round(
        Mode::TwoNonce,
        &[(6, SimFault::SilentAfterCommit)],
        Policy::Complete,
    )
    .err()
    .expect("cannot succeed");
    assert!(
        matches!(err, CosiError::PolicyUnreachable { live: 12, n: 13 }),
        "{err:?}"
    );
    // Several failing witnesses, but too few attempts allowed.
    let n = 13;
    let setup = SimSetup::generate(n, 22).expect("setup");
    let mut params = SimParams::new(
        SimProtocol::Cosi(Mode::TwoNonce),
        Tree::complete(n, 3).expect("tree"),
    );
    params.faults = [(4, SimFault::BadResponse), (9, SimFault::SilentAfterCommit)]
        .into_iter()
        .collect();
    params.policy = Policy::Threshold(11);
    params.max_attempts = 1;
    let err = simulate(&setup, &params, b"m").expect_err("gives up");
    assert!(matches!(err, CosiError::TooManyAttempts { .. }), "{err:?}");
    params.max_attempts = 8;
    let out = simulate(&setup, &params, b"m").expect("recovers");
    assert_eq!(out.participants, 11);
}
