//! Serialization delay and FIFO queueing on NICs.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use crate::common::Recorder;
use proptest::prelude::*;
use quorate_net::{
    Bandwidth, ComputeModel, NetworkModel, Nic, NodeId, SimConfig, SimTime, Simulation,
};
use std::time::Duration;

const MB: usize = 1_000_000;

fn run(nodes: Vec<Recorder>, net: NetworkModel) -> Simulation<Recorder> {
    let config = SimConfig::default().with_compute(ComputeModel::Ignore);
    let mut sim = Simulation::new(nodes, net, config).unwrap();
    sim.run();
    sim
}

fn arrival_times(sim: &Simulation<Recorder>, node: NodeId) -> Vec<SimTime> {
    sim.outputs(node).iter().map(|(t, _)| *t).collect()
}

fn link(rate: u64, latency_ms: u64) -> NetworkModel {
    let b = Bandwidth::bytes_per_sec(rate);
    NetworkModel::constant(Duration::from_millis(latency_ms)).with_bandwidth(b, b)
}

#[test]
fn one_megabyte_over_one_megabyte_per_second() {
    let sim = run(
        vec![Recorder::new(vec![(NodeId(1), MB)]), Recorder::quiet()],
        link(1_000_000, 10),
    );
    // latency + 1 s of serialization, not 2 s: up- and downlink overlap.
    assert_eq!(
        arrival_times(&sim, NodeId(1)),
        vec![SimTime::from_millis(1010)]
    );
}

#[test]
fn messages_queue_fifo_on_the_uplink() {
    let sizes = [MB, MB / 2, MB];
    let script = sizes.iter().map(|&s| (NodeId(1), s)).collect();
    let sim = run(
        vec![Recorder::new(script), Recorder::quiet()],
        link(1_000_000, 10),
    );
    let got: Vec<(usize, SimTime)> = sim
        .outputs(NodeId(1))
        .iter()
        .map(|(t, (_, size, _))| (*size, *t))
        .collect();
    assert_eq!(
        got,
        vec![
            (MB, SimTime::from_millis(1010)),
            (MB / 2, SimTime::from_millis(1510)),
            (MB, SimTime::from_millis(2510)),
        ]
    );
}

#[test]
fn downlink_is_shared_fifo_between_senders() {
    let nodes = vec![
        Recorder::new(vec![(NodeId(2), MB)]),
        Recorder::new(vec![(NodeId(2), MB)]),
        Recorder::quiet(),
    ];
    let sim = run(nodes, link(1_000_000, 10));
    let got: Vec<(NodeId, SimTime)> = sim
        .outputs(NodeId(2))
        .iter()
        .map(|(t, (from, _, _))| (*from, *t))
        .collect();
    assert_eq!(
        got,
        vec![
            (NodeId(0), SimTime::from_millis(1010)),
            (NodeId(1), SimTime::from_millis(2010)),
        ]
    );
}

#[test]
fn the_slower_side_sets_the_pace() {
    // Fast uplink, slow downlink.
    let net = NetworkModel::constant(Duration::from_millis(10)).with_nic(|n| {
        if n == NodeId(0) {
            Nic {
                up: Bandwidth::bytes_per_sec(2_000_000),
                down: Bandwidth::UNLIMITED,
            }
        } else {
            Nic {
                up: Bandwidth::UNLIMITED,
                down: Bandwidth::bytes_per_sec(1_000_000),
            }
        }
    });
    let sim = run(
        vec![Recorder::new(vec![(NodeId(1), MB)]), Recorder::quiet()],
        net.clone(),
    );
    assert_eq!(
        arrival_times(&sim, NodeId(1)),
        vec![SimTime::from_millis(1010)]
    );

    // Slow uplink, fast downlink.
    let net = NetworkModel::constant(Duration::from_millis(10)).with_bandwidth(
        Bandwidth::bytes_per_sec(1_000_000),
        Bandwidth::bytes_per_sec(10_000_000),
    );
    let sim = run(
        vec![Recorder::new(vec![(NodeId(1), MB)]), Recorder::quiet()],
        net,
    );
    assert_eq!(
        arrival_times(&sim, NodeId(1)),
        vec![SimTime::from_millis(1010)]
    );
}

#[test]
fn broadcast_copies_serialize_on_the_uplink() {
    let n = 11;
    let mut nodes: Vec<Recorder> = (0..n).map(|_| Recorder::quiet()).collect();
    nodes[0].broadcast = Some(100_000);
    let net = NetworkModel::constant(Duration::from_millis(5))
        .with_bandwidth(Bandwidth::bytes_per_sec(1_000_000), Bandwidth::UNLIMITED);
    let sim = run(nodes, net);
    for k in 1..n {
        assert_eq!(
            arrival_times(&sim, NodeId(k)),
            vec![SimTime::from_millis(5 + 100 * u64::from(k))]
        );
    }
}

#[test]
fn overhead_counts_on_the_wire() {
    let net = link(1_000_000, 0).with_overhead(1_000);
    let config = SimConfig::default().with_compute(ComputeModel::Ignore);
    let nodes = vec![
        Recorder::new(vec![(NodeId(1), MB - 1_000)]),
        Recorder::quiet(),
    ];
    let mut sim = Simulation::new(nodes, net, config).unwrap();
    let report = sim.run();
    assert_eq!(arrival_times(&sim, NodeId(1)), vec![SimTime::from_secs(1)]);
    assert_eq!(report.total_bytes(), MB as u64);
    assert_eq!(report.node(NodeId(1)).unwrap().bytes_received, MB as u64);
}

#[test]
fn later_first_bit_waits_for_the_downlink() {
    // Node 0 is far (100 ms), node 1 near (1 ms); both send 0.5 MB to node 2 whose
    // downlink is 1 MB/s. Node 1's message occupies the downlink first.
    let net = NetworkModel::per_link(|a, _| {
        if a == NodeId(0) {
            Duration::from_millis(100)
        } else {
            Duration::from_millis(1)
        }
    })
    .with_bandwidth(Bandwidth::UNLIMITED, Bandwidth::bytes_per_sec(1_000_000));
    let nodes = vec![
        Recorder::new(vec![(NodeId(2), MB / 2)]),
        Recorder::new(vec![(NodeId(2), MB / 2)]),
        Recorder::quiet(),
    ];
    let sim = run(nodes, net);
    let got: Vec<(NodeId, SimTime)> = sim
        .outputs(NodeId(2))
        .iter()
        .map(|(t, (from, _, _))| (*from, *t))
        .collect();
    assert_eq!(
        got,
        vec![
            (NodeId(1), SimTime::from_millis(501)),
            (NodeId(0), SimTime::from_millis(1001)),
        ]
    );
}

proptest! {
    #[test]
    fn uplink_arrivals_are_prefix_sums(
        sizes in proptest::collection::vec(1usize..200_000, 1..20),
        rate in 1_000u64..10_000_000,
        latency_us in 0u64..100_000,
    ) {
        let script = sizes.iter().map(|&s| (NodeId(1), s)).collect();
        let net = NetworkModel::constant(Duration::from_micros(latency_us))
            .with_bandwidth(Bandwidth::bytes_per_sec(rate), Bandwidth::UNLIMITED);
        let sim = run(vec![Recorder::new(script), Recorder::quiet()], net);
        let b = Bandwidth::bytes_per_sec(rate);
        let mut t = 0u64;
        let expected: Vec<SimTime> = sizes
            .iter()
            .map(|&s| {
                t += b.serialization_nanos(s as u64);
                SimTime::from_nanos(t + latency_us * 1_000)
            })
            .collect();
        prop_assert_eq!(arrival_times(&sim, NodeId(1)), expected);
    }
}
