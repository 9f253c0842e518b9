//! Same seed and a deterministic compute model give identical runs.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use crate::common::TreeSum;
use quorate_net::{
    Bandwidth, ComputeModel, NaryTree, NetworkModel, NodeId, Report, SimConfig, SimTime,
    Simulation, StopCondition,
};
use std::time::Duration;

fn noisy_network() -> NetworkModel {
    NetworkModel::per_link(|a, b| Duration::from_micros(500 + u64::from((a.0 ^ b.0) % 97) * 100))
        .with_jitter(Duration::from_millis(3))
        .with_bandwidth(Bandwidth::mbit_per_sec(10.0), Bandwidth::mbit_per_sec(10.0))
        .with_loss(0.02)
        .with_overhead(40)
}

/// Each node's outputs with their times.
type Outputs = Vec<Vec<(SimTime, (u64, u32))>>;

fn run(seed: u64, compute: ComputeModel) -> (Report, Outputs) {
    let tree = NaryTree::new(2000, 6).unwrap();
    let config = SimConfig::default()
        .with_compute(compute)
        .with_seed(seed)
        .stop_when(StopCondition::OutputFrom(NodeId(0)));
    let mut sim = Simulation::new(
        TreeSum::nodes(tree, Some(Duration::from_millis(200))),
        noisy_network(),
        config,
    )
    .unwrap();
    sim.set_offline(NodeId(5)).unwrap();
    sim.crash_at(NodeId(40), SimTime::from_millis(3)).unwrap();
    sim.run();
    let report = sim.run(); // continue until drained
    (report, sim.take_outputs())
}

#[test]
fn same_seed_same_report() {
    let (a, out_a) = run(42, ComputeModel::Ignore);
    let (b, out_b) = run(42, ComputeModel::Ignore);
    assert_eq!(a, b);
    assert_eq!(out_a, out_b);
    assert!(a.drops.lost > 0);
    assert!(a.stop_met_at.is_some());

    let (c, _) = run(43, ComputeModel::Ignore);
    assert_ne!(a, c, "a different seed changes jitter and loss");
}

#[test]
fn charged_constant_compute_is_reproducible_up_to_measurements() {
    for model in [
        ComputeModel::MeasureOnly,
        ComputeModel::Fixed(Duration::from_micros(50)),
    ] {
        let (a, out_a) = run(7, model);
        let (b, out_b) = run(7, model);
        assert_eq!(
            a.without_measurements(),
            b.without_measurements(),
            "{model:?}"
        );
        assert_eq!(out_a, out_b);
        assert!(a.total_cpu() > Duration::ZERO);
    }
}
