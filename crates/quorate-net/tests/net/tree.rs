//! Tree aggregation over 1000 nodes: correctness and exact simulated latency.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use crate::common::{expected_fixed_completion, sum_of, TreeSum, ANNOUNCE_BYTES, PARTIAL_BYTES};
use quorate_net::{
    ComputeModel, EndReason, NaryTree, NetworkModel, NodeId, SimConfig, SimTime, Simulation,
    StopCondition,
};
use std::time::Duration;

const L: Duration = Duration::from_millis(50);

#[test]
fn thousand_node_tree_sums_in_depth_round_trips() {
    let tree = NaryTree::new(1000, 8).unwrap();
    assert_eq!(tree.height(), 4);
    let config = SimConfig::default()
        .with_compute(ComputeModel::Ignore)
        .stop_when(StopCondition::OutputFrom(tree.root()));
    let mut sim = Simulation::new(
        TreeSum::nodes(tree, None),
        NetworkModel::constant(L),
        config,
    )
    .unwrap();
    let report = sim.run();

    assert_eq!(report.end, EndReason::StopCondition);
    let (at, (sum, count)) = *sim.first_output(tree.root()).unwrap();
    assert_eq!(sum, sum_of(NodeId::range(1000)));
    assert_eq!(count, 1000);
    // depth × RTT = depth × 2 × one-way latency, exactly: compute is ignored.
    let expected = SimTime::from_millis(4 * 2 * 50);
    assert_eq!(at, expected);
    assert_eq!(report.completion, expected);
    assert_eq!(report.stop_met_at, Some(expected));

    // Every non-root node got one announce and sent one partial.
    assert_eq!(report.total_messages(), 2 * 999);
    assert_eq!(report.total_bytes(), 999 * (ANNOUNCE_BYTES + PARTIAL_BYTES));
    let root = report.root_stats().unwrap();
    assert_eq!(report.root, Some(NodeId(0)));
    assert_eq!(root.messages_sent, 8);
    assert_eq!(root.messages_received, 8);
    assert_eq!(root.bytes_received, 8 * PARTIAL_BYTES);
    assert_eq!(root.outputs, 1);
    assert_eq!(root.cpu, Duration::ZERO);
    // Leaves: start + announce.
    assert_eq!(report.node(NodeId(999)).unwrap().handler_calls, 2);
    // The run stopped at the root's output: nothing is left in flight.
    assert_eq!(sim.pending_events(), 0);
    let again = sim.run();
    assert_eq!(again.end, EndReason::Drained);
}

#[test]
fn per_link_latency_matches_critical_path() {
    let tree = NaryTree::new(300, 5).unwrap();
    let lat =
        |a: NodeId, b: NodeId| Duration::from_micros(100 * u64::from(1 + (a.0 * 3 + b.0) % 7));
    let net = NetworkModel::per_link(lat);
    // Critical path: announce times go down, partials come back up.
    fn done(tree: &NaryTree, v: NodeId, at: u64, lat: &dyn Fn(NodeId, NodeId) -> Duration) -> u64 {
        tree.children(v)
            .map(|c| {
                let down = at + lat(v, c).as_nanos() as u64;
                done(tree, c, down, lat) + lat(c, v).as_nanos() as u64
            })
            .max()
            .unwrap_or(at)
    }
    let expected = done(&tree, tree.root(), 0, &lat);
    let config = SimConfig::default()
        .with_compute(ComputeModel::Ignore)
        .stop_when(StopCondition::OutputFrom(tree.root()));
    let mut sim = Simulation::new(TreeSum::nodes(tree, None), net, config).unwrap();
    let report = sim.run();
    assert_eq!(report.completion.as_nanos(), expected);
    assert_eq!(
        sim.first_output(NodeId(0)).unwrap().1 .0,
        sum_of(NodeId::range(300))
    );
}

#[test]
fn fixed_compute_queues_behind_busy_nodes() {
    let tree = NaryTree::new(1000, 8).unwrap();
    let c = Duration::from_micros(700);
    let config = SimConfig::default()
        .with_compute(ComputeModel::Fixed(c))
        .stop_when(StopCondition::OutputFrom(tree.root()));
    let mut sim = Simulation::new(
        TreeSum::nodes(tree, None),
        NetworkModel::constant(L),
        config,
    )
    .unwrap();
    let report = sim.run();
    let expected = expected_fixed_completion(&tree, 50_000_000, 700_000);
    assert_eq!(report.completion, expected);
    // Root: 1 start + 8 partials, each charged c.
    let root = report.root_stats().unwrap();
    assert_eq!(root.handler_calls, 9);
    assert_eq!(root.compute, c * 9);
    // Strictly slower than the pure network time and consistent with 9 sequential
    // handlers at the root plus queueing in the subtrees.
    assert!(expected > SimTime::from_millis(400) + c * 9);
    assert!(report.completion.as_nanos() > 400_000_000);
}

#[test]
fn measured_compute_adds_to_network_time() {
    let tree = NaryTree::new(1000, 8).unwrap();
    let config = SimConfig::default()
        .with_compute(ComputeModel::Measured)
        .stop_when(StopCondition::OutputFrom(tree.root()));
    let mut sim = Simulation::new(
        TreeSum::nodes(tree, None),
        NetworkModel::constant(L),
        config,
    )
    .unwrap();
    let report = sim.run();
    let (at, (sum, _)) = *sim.first_output(NodeId(0)).unwrap();
    assert_eq!(sum, sum_of(NodeId::range(1000)));
    assert!(at > SimTime::from_millis(400));
    assert!(report.total_cpu() > Duration::ZERO);
    for s in &report.nodes {
        assert_eq!(s.cpu, s.compute);
    }
    let max = report.max_cpu().unwrap();
    assert!(max.1 > Duration::ZERO);
    // At most the sum of all charged compute on top of the network time.
    assert!(at <= SimTime::from_millis(400) + report.total_cpu());
    let text = report.to_string();
    assert!(text.contains("nodes 1000 (1000 online)"), "{text}");
}

#[test]
fn simulations_of_send_processes_are_send() {
    fn assert_send<T: Send>() {}
    assert_send::<Simulation<TreeSum>>();
    assert_send::<quorate_net::Report>();
}
