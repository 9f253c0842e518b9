//! The simulator glue: CoSi (both modes) and the baselines on the network simulator.

use quorate_cosi::sim::{simulate, SimParams, SimProtocol, SimSetup};
use quorate_cosi::{Mode, Policy, Tree};
use std::time::Duration;

#[test]
fn cosi_small_trees_sign_and_verify() {
    for &(n, b) in &[(1usize, 2usize), (2, 2), (7, 2), (40, 4)] {
        let setup = SimSetup::generate(n, 9).expect("setup");
        for mode in [Mode::TwoNonce, Mode::Legacy] {
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
