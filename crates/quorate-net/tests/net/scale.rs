//! Scale smoke tests: thousands of parties and around a million events in one process.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use crate::common::{sum_of, TreeSum};
use quorate_core::party::PartyId;
use quorate_net::{
    Bandwidth, ComputeModel, Context, NaryTree, NetworkModel, NodeId, Process, SimConfig, SimTime,
    Simulation, StopCondition,
};
use std::time::{Duration, Instant};

#[test]
fn tree_of_8192_nodes() {
    let n = 8192;
    let tree = NaryTree::new(n, 16).unwrap();
    let config = SimConfig::default()
        .with_compute(ComputeModel::Measured)
        .stop_when(StopCondition::OutputFrom(tree.root()));
    let net = NetworkModel::constant(Duration::from_millis(50)).with_bandwidth(
        Bandwidth::mbit_per_sec(100.0),
        Bandwidth::mbit_per_sec(100.0),
    );
    let wall = Instant::now();
    let mut sim = Simulation::new(TreeSum::nodes(tree, None), net, config).unwrap();
    let report = sim.run();
    let wall = wall.elapsed();
    let (at, (sum, count)) = *sim.first_output(NodeId(0)).unwrap();
    assert_eq!((sum, count), (sum_of(NodeId::range(n)), n));
    assert!(at >= SimTime::from_millis(2 * 50 * u64::from(tree.height())));
    assert_eq!(report.total_messages(), 2 * u64::from(n - 1));
    println!("8192-node tree: {wall:?} wall\n{report}");
    assert!(wall < Duration::from_secs(20), "too slow: {wall:?}");
}

#[test]
fn tree_of_32768_parties_identified_by_party_id() {
    // Every node carries its production PartyId as its value.
    let n: u32 = 32768;
    let tree = NaryTree::new(n, 32).unwrap();
    let nodes: Vec<TreeSum> = NodeId::range(n)
        .map(|id| {
            let party = PartyId::try_from(id).unwrap();
            assert_eq!(NodeId::from(party), id);
            TreeSum::new(tree, id, u64::from(party.get()), None)
        })
        .collect();
    let config = SimConfig::default()
        .with_compute(ComputeModel::Ignore)
        .stop_when(StopCondition::OutputFrom(tree.root()));
    let mut sim = Simulation::new(
        nodes,
        NetworkModel::constant(Duration::from_millis(20)),
        config,
    )
    .unwrap();
    let report = sim.run();
    let (at, (sum, _)) = *sim.first_output(NodeId(0)).unwrap();
    assert_eq!(sum, u64::from(n) * u64::from(n + 1) / 2);
    assert_eq!(at, SimTime::from_millis(2 * 20 * u64::from(tree.height())));
    assert_eq!(report.nodes.len(), n as usize);
}

/// Every node broadcasts once and counts what it hears: n·(n−1) deliveries.
struct Gossip {
    heard: u32,
    out: Option<u32>,
}

impl Process for Gossip {
    type Message = [u8; 32];
    type Output = u32;

    fn start(&mut self, ctx: &mut Context<'_, [u8; 32]>) {
        let mut m = [0u8; 32];
        m[..4].copy_from_slice(&ctx.id().0.to_be_bytes());
        ctx.broadcast(m);
    }

    fn on_message(&mut self, from: NodeId, msg: [u8; 32], ctx: &mut Context<'_, [u8; 32]>) {
        assert_eq!(msg[..4], from.0.to_be_bytes());
        self.heard += 1;
        if self.heard + 1 == ctx.num_nodes() {
            self.out = Some(self.heard);
        }
    }

    fn take_output(&mut self) -> Option<u32> {
        self.out.take()
    }
}

#[test]
fn a_million_events() {
    let n: u32 = 1000;
    let nodes: Vec<Gossip> = (0..n)
        .map(|_| Gossip {
            heard: 0,
            out: None,
        })
        .collect();
    let net =
        NetworkModel::per_link(|a, b| Duration::from_micros(100 + u64::from((a.0 + b.0) % 50)))
            .with_jitter(Duration::from_micros(30))
            .with_bandwidth(
                Bandwidth::mbit_per_sec(1000.0),
                Bandwidth::mbit_per_sec(1000.0),
            );
    let config = SimConfig::default()
        .with_compute(ComputeModel::MeasureOnly)
        .stop_when(StopCondition::AllOutputs);
    let wall = Instant::now();
    let mut sim = Simulation::new(nodes, net, config).unwrap();
    let report = sim.run();
    let wall = wall.elapsed();
    let deliveries = u64::from(n) * u64::from(n - 1);
    assert_eq!(report.total_messages_received(), deliveries);
    assert_eq!(report.total_bytes(), deliveries * 32);
    // Start + one Arrive and one Deliver event per message.
    assert_eq!(report.events, u64::from(n) + 2 * deliveries);
    for i in 0..n {
        assert_eq!(sim.outputs(NodeId(i)).len(), 1);
    }
    println!("{} events in {wall:?}", report.events);
    assert!(wall < Duration::from_secs(30), "too slow: {wall:?}");
}
