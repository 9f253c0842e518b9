//! End-to-end collective signing with the in-process driver: sizes 1 to 1000, absent
//! witnesses, Ed25519 interoperability (ed25519-dalek `verify_strict`), legacy mode, tree
//! shapes, exceptions (restart, subleader replacement, blame), stop at threshold, policies.

use crate::common::{dalek_verify_strict, setup, witnesses};
use quorate_cosi::{
    sign_in_process, ChildCheck, CosiError, Mode, Policy, PolicyMember, Scenario, Tree,
    VerifyFailure,
};

const MSG: &[u8] = b"checkpoint: origin example.com/log, size 1234567";

#[test]
fn all_present_signatures_are_plain_ed25519_under_the_roster_key() {
    for (n, seed) in [(1usize, 1u64), (2, 2), (7, 3), (100, 4), (1000, 5)] {
        let (roster, keys, mut rng) = setup(n, seed);
        let tree = Tree::three_level(n).expect("tree");
        let (sig, report) = sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys),
            &tree,
            MSG,
            &Policy::Complete,
            &Scenario::default(),
            &mut rng,
        )
        .expect("signing succeeds");
        assert_eq!(report.attempts, 1);
        assert_eq!(report.participants, n);
        assert!(sig.mask().is_full());
        assert_eq!(sig.to_bytes().len(), 64 + n.div_ceil(8));
        roster
            .verify(MSG, &sig, &Policy::Complete)
            .expect("verifies");
        assert!(
            dalek_verify_strict(&roster.aggregate_key(), MSG, &sig),
            "n = {n}: ed25519-dalek verify_strict under A"
        );
        assert!(!dalek_verify_strict(
            &roster.aggregate_key(),
            b"other",
            &sig
        ));
    }
}

#[test]
fn masked_signatures_verify_under_the_participants_key() {
    for (n, seed, absent) in [
        (2usize, 10u64, vec![1usize]),
        (7, 11, vec![0, 5]),
        (100, 12, (0..100).filter(|i| i % 7 == 2).collect()),
        (1000, 13, (0..1000).filter(|i| i % 10 == 3).collect()),
    ] {
        let (roster, keys, mut rng) = setup(n, seed);
        let tree = Tree::three_level(n).expect("tree");
        let scenario = Scenario::default().with_absent(absent.clone());
        let policy = Policy::Threshold(n - absent.len());
        let (sig, report) = sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys),
            &tree,
            MSG,
            &policy,
            &scenario,
            &mut rng,
        )
        .expect("signing succeeds");
        assert_eq!(report.participants, n - absent.len());
        for i in &absent {
            assert!(!sig.mask().contains(*i));
        }
        roster.verify(MSG, &sig, &policy).expect("verifies");
        let a_prime = roster.aggregate_key_for_mask(sig.mask()).expect("A'");
        assert!(
            dalek_verify_strict(&a_prime, MSG, &sig),
            "n = {n}: under A'"
        );
        assert!(!dalek_verify_strict(&roster.aggregate_key(), MSG, &sig));
        assert_eq!(
            roster.verify(MSG, &sig, &Policy::Complete),
            Err(CosiError::InvalidSignature(
                VerifyFailure::PolicyNotSatisfied
            ))
        );
    }
}

#[cfg(feature = "insecure-legacy")]
#[test]
fn legacy_mode_signatures_also_verify_strictly() {
    use crate::common::legacy_witnesses;
    for (n, seed, absent) in [
        (1usize, 20u64, vec![]),
        (7, 21, vec![3usize]),
        (100, 22, vec![0, 50, 99]),
    ] {
        let (roster, keys, mut rng) = setup(n, seed);
        let tree = Tree::complete(n, 4).expect("tree");
        let scenario = Scenario::default()
            .with_mode(Mode::Legacy)
            .with_absent(absent.clone());
        let policy = Policy::Threshold(n - absent.len());
        let (sig, _) = sign_in_process(
            &roster,
            &mut legacy_witnesses(&roster, &keys),
            &tree,
            MSG,
            &policy,
            &scenario,
            &mut rng,
        )
        .expect("legacy signing succeeds");
        roster.verify(MSG, &sig, &policy).expect("verifies");
        let key = roster.aggregate_key_for_mask(sig.mask()).expect("A'");
        assert!(dalek_verify_strict(&key, MSG, &sig));
    }
}

#[test]
fn tree_shapes_and_check_modes_all_work() {
    let n = 60;
    let (roster, keys, mut rng) = setup(n, 30);
    let trees = [
        Tree::complete(n, 2).expect("binary"),
        Tree::complete(n, 16).expect("16-ary"),
        Tree::with_depth(n, 2).expect("depth 2"),
        Tree::star(n).expect("star"),
        Tree::three_level(n).expect("3-level"),
        Tree::complete(n, 1).expect("chain"),
    ];
    for tree in &trees {
        for check in [ChildCheck::Batched, ChildCheck::Optimistic] {
            for (shared, parallel) in [(false, true), (true, false)] {
                let mut scenario = Scenario::default().with_absent([5, 17]);
                scenario.child_check = check;
                scenario.shared_context = shared;
                scenario.parallel = parallel;
                let (sig, _) = sign_in_process(
                    &roster,
                    &mut witnesses(&roster, &keys),
                    tree,
                    MSG,
                    &Policy::Threshold(50),
                    &scenario,
                    &mut rng,
                )
                .expect("signing succeeds");
                roster
                    .verify(MSG, &sig, &Policy::Threshold(58))
                    .expect("verifies");
            }
        }
    }
}

#[test]
fn failure_after_commit_restarts_with_an_adjusted_mask() {
    let n = 100;
    let (roster, keys, mut rng) = setup(n, 40);
    let tree = Tree::three_level(n).expect("tree");
    // 37 is a leaf, 3 a subleader (interior), 0 the root.
    for failing in [vec![37usize], vec![3], vec![0], vec![3, 37, 64]] {
        let scenario = Scenario::default()
            .with_absent([12])
            .with_fail_after_commit(failing.clone());
        let (sig, report) = sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys),
            &tree,
            MSG,
            &Policy::Threshold(90),
            &scenario,
            &mut rng,
        )
        .expect("recovers by restarting");
        assert!(report.attempts >= 2, "{report:?}");
        let mut named: Vec<usize> = report
            .excluded
            .iter()
            .map(|e| e.witness.position())
            .collect();
        named.sort_unstable();
        assert_eq!(named, failing);
        for i in failing.iter().chain([12].iter()) {
            assert!(!sig.mask().contains(*i));
        }
        assert_eq!(sig.mask().count(), n - 1 - failing.len());
        roster
            .verify(MSG, &sig, &Policy::Threshold(90))
            .expect("verifies");
        let key = roster.aggregate_key_for_mask(sig.mask()).expect("A'");
        assert!(dalek_verify_strict(&key, MSG, &sig));
        if failing.contains(&3) || failing.contains(&0) {
            assert!(!report.promotions.is_empty(), "{report:?}");
        }
    }
}

#[test]
fn bad_partial_responses_are_named_and_the_round_recovers() {
    let n = 100;
    let (roster, keys, mut rng) = setup(n, 50);
    let tree = Tree::three_level(n).expect("tree");
    for check in [ChildCheck::Batched, ChildCheck::Optimistic] {
        for bad in [vec![55usize], vec![2], vec![20, 21, 95]] {
            let mut scenario = Scenario::default().with_bad_response(bad.clone());
            scenario.child_check = check;
            let (sig, report) = sign_in_process(
                &roster,
                &mut witnesses(&roster, &keys),
                &tree,
                MSG,
                &Policy::Threshold(95),
                &scenario,
                &mut rng,
            )
            .expect("recovers");
            let mut named: Vec<usize> = report
                .excluded
                .iter()
                .map(|e| e.witness.position())
                .collect();
            named.sort_unstable();
            assert_eq!(named, bad, "{check:?}");
            assert!(report
                .excluded
                .iter()
                .all(|e| e.check == "partial response does not verify"));
            roster
                .verify(MSG, &sig, &Policy::Threshold(95))
                .expect("verifies");
        }
    }
}

#[test]
fn absent_subleaders_are_replaced_by_their_first_live_child() {
    let n = 50;
    let (roster, keys, mut rng) = setup(n, 60);
    let tree = Tree::three_level(n).expect("tree");
    let first_child = tree.children(2)[0];
    let scenario = Scenario::default().with_absent([2, 0]);
    let (sig, report) = sign_in_process(
        &roster,
        &mut witnesses(&roster, &keys),
        &tree,
        MSG,
        &Policy::Threshold(n - 2),
        &scenario,
        &mut rng,
    )
    .expect("signing succeeds");
    assert_eq!(report.attempts, 1);
    assert!(report
        .promotions
        .iter()
        .any(|p| p.absent == 2 && p.promoted == first_child));
    assert!(report
        .promotions
        .iter()
        .any(|p| p.absent == 0 && p.promoted == 1));
    assert_eq!(sig.mask().count(), n - 2);
    roster
        .verify(MSG, &sig, &Policy::Threshold(n - 2))
        .expect("verifies");
}

#[test]
fn stop_at_threshold_collects_just_enough() {
    let n = 100;
    let (roster, keys, mut rng) = setup(n, 70);
    let tree = Tree::three_level(n).expect("tree");
    let mut scenario = Scenario::default().with_absent([1, 2]);
    scenario.stop_at_threshold = true;
    let policy = Policy::Threshold(67);
    let (sig, report) = sign_in_process(
        &roster,
        &mut witnesses(&roster, &keys),
        &tree,
        MSG,
        &policy,
        &scenario,
        &mut rng,
    )
    .expect("signing succeeds");
    assert_eq!(sig.mask().count(), 67);
    assert_eq!(report.not_asked.len(), n - 2 - 67);
    roster.verify(MSG, &sig, &policy).expect("verifies");

    // With a witness failing after commitment, the restart asks someone else.
    scenario.fail_after_commit = [30].into_iter().collect();
    let (sig, report) = sign_in_process(
        &roster,
        &mut witnesses(&roster, &keys),
        &tree,
        MSG,
        &policy,
        &scenario,
        &mut rng,
    )
    .expect("signing succeeds");
    assert_eq!(report.attempts, 2);
    assert_eq!(sig.mask().count(), 67);
    assert!(!sig.mask().contains(30));
    roster.verify(MSG, &sig, &policy).expect("verifies");
}

#[test]
fn unreachable_policies_abort_early() {
    let n = 10;
    let (roster, keys, mut rng) = setup(n, 80);
    let tree = Tree::complete(n, 3).expect("tree");
    let scenario = Scenario::default().with_absent([1, 2]);
    assert_eq!(
        sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys),
            &tree,
            MSG,
            &Policy::Threshold(9),
            &scenario,
            &mut rng
        )
        .err(),
        Some(CosiError::PolicyUnreachable { live: 8, n: 10 })
    );
    // Reachable at first, unreachable once the failing witness is excluded.
    let scenario = Scenario::default()
        .with_absent([1])
        .with_fail_after_commit([4]);
    assert_eq!(
        sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys),
            &tree,
            MSG,
            &Policy::Threshold(9),
            &scenario,
            &mut rng
        )
        .err(),
        Some(CosiError::PolicyUnreachable { live: 8, n: 10 })
    );
    assert!(matches!(
        sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys),
            &tree,
            MSG,
            &Policy::Complete,
            &scenario,
            &mut rng
        ),
        Err(CosiError::PolicyUnreachable { .. })
    ));
    // Bad parameters.
    assert!(matches!(
        sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys)[1..],
            &tree,
            MSG,
            &Policy::Complete,
            &Scenario::default(),
            &mut rng
        ),
        Err(CosiError::Param(_))
    ));
    assert!(matches!(
        sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys),
            &tree,
            MSG,
            &Policy::Threshold(0),
            &Scenario::default(),
            &mut rng
        ),
        Err(CosiError::InvalidPolicy { .. })
    ));
}

#[test]
fn policies_accept_and_reject_correctly() {
    use PolicyMember::{Group, Witness};
    let n = 12;
    let (roster, keys, mut rng) = setup(n, 90);
    let tree = Tree::three_level(n).expect("tree");
    let sign = |absent: &[usize], rng: &mut rand_chacha::ChaCha20Rng| {
        sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys),
            &tree,
            MSG,
            &Policy::Threshold(1),
            &Scenario::default().with_absent(absent.iter().copied()),
            rng,
        )
        .expect("signing succeeds")
        .0
    };
    let full = sign(&[], &mut rng);
    let most = sign(&[3, 7], &mut rng);
    let few = sign(
        &(0..12).filter(|&i| i != 4 && i != 9).collect::<Vec<_>>(),
        &mut rng,
    );

    assert!(roster.verify(MSG, &full, &Policy::Complete).is_ok());
    assert!(roster.verify(MSG, &most, &Policy::Complete).is_err());
    assert!(roster.verify(MSG, &most, &Policy::Threshold(10)).is_ok());
    assert!(roster.verify(MSG, &most, &Policy::Threshold(11)).is_err());
    assert!(roster.verify(MSG, &few, &Policy::Threshold(2)).is_ok());
    assert!(roster.verify(MSG, &few, &Policy::Threshold(3)).is_err());

    // Two operators (witnesses 0-5 and 6-11), each needs 2 of its witnesses; or witness 4
    // and witness 9 together.
    let nested = Policy::Group {
        k: 1,
        members: vec![
            Group {
                k: 2,
                members: vec![
                    Group {
                        k: 2,
                        members: (0..6).map(Witness).collect(),
                    },
                    Group {
                        k: 2,
                        members: (6..12).map(Witness).collect(),
                    },
                ],
            },
            Group {
                k: 2,
                members: vec![Witness(4), Witness(9)],
            },
        ],
    };
    assert!(roster.verify(MSG, &full, &nested).is_ok());
    assert!(roster.verify(MSG, &most, &nested).is_ok());
    assert!(roster.verify(MSG, &few, &nested).is_ok());
    let strict = Policy::Group {
        k: 2,
        members: vec![
            Group {
                k: 5,
                members: (0..6).map(Witness).collect(),
            },
            Group {
                k: 6,
                members: (6..12).map(Witness).collect(),
            },
        ],
    };
    assert!(roster.verify(MSG, &full, &strict).is_ok());
    assert_eq!(
        roster.verify(MSG, &most, &strict),
        Err(CosiError::InvalidSignature(
            VerifyFailure::PolicyNotSatisfied
        ))
    );
    assert!(roster.verify(MSG, &few, &strict).is_err());
    let invalid = Policy::Group {
        k: 1,
        members: vec![Witness(12)],
    };
    assert!(matches!(
        roster.verify(MSG, &full, &invalid),
        Err(CosiError::InvalidPolicy { .. })
    ));
}

#[test]
fn signing_is_deterministic_given_the_rng_seed_and_independent_of_threads() {
    let n = 40;
    let (roster, keys, _) = setup(n, 100);
    let tree = Tree::three_level(n).expect("tree");
    let run = |parallel: bool| {
        let mut rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(5);
        let mut scenario = Scenario::default().with_absent([7]);
        scenario.parallel = parallel;
        sign_in_process(
            &roster,
            &mut witnesses(&roster, &keys),
            &tree,
            MSG,
            &Policy::Threshold(39),
            &scenario,
            &mut rng,
        )
        .expect("signs")
        .0
    };
    assert_eq!(run(true), run(false));
}

#[test]
fn legacy_scenario_is_refused_by_default_witnesses() {
    let (roster, keys, mut rng) = setup(5, 23);
    let tree = Tree::complete(5, 2).expect("tree");
    let scenario = Scenario::default().with_mode(Mode::Legacy);
    let out = sign_in_process(
        &roster,
        &mut witnesses(&roster, &keys),
        &tree,
        MSG,
        &Policy::Complete,
        &scenario,
        &mut rng,
    );
    // Default witnesses refuse whatever the driver's scenario says (the aggregators too).
    assert!(
        matches!(out, Err(CosiError::LegacyRefused { .. })),
        "{out:?}"
    );
}
