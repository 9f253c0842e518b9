//! Offline and crashing nodes, loss, timers, limits and configuration errors.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use crate::common::{sum_of, Blob, Recorder, TreeSum};
use quorate_net::{
    ComputeModel, Context, EndReason, NaryTree, NetworkModel, NodeId, Process, SimConfig, SimError,
    SimTime, Simulation, StopCondition, TimerId,
};
use std::time::Duration;

const L: Duration = Duration::from_millis(10);
const T: Duration = Duration::from_secs(1);

fn tree_sim(tree: NaryTree, net: NetworkModel, seed: u64) -> Simulation<TreeSum> {
    let config = SimConfig::default()
        .with_compute(ComputeModel::Ignore)
        .with_seed(seed)
        .stop_when(StopCondition::OutputFrom(tree.root()));
    Simulation::new(TreeSum::nodes(tree, Some(T)), net, config).unwrap()
}

#[test]
fn offline_nodes_never_run_and_their_messages_are_dropped() {
    let tree = NaryTree::new(1000, 8).unwrap();
    let mut sim = tree_sim(tree, NetworkModel::constant(L), 0);
    sim.set_offline(NodeId(1)).unwrap();
    let report = sim.run();

    let lost_subtree = tree.subtree(NodeId(1));
    let (at, (sum, count)) = *sim.first_output(NodeId(0)).unwrap();
    assert_eq!(
        sum,
        sum_of(NodeId::range(1000)) - sum_of(lost_subtree.iter().copied())
    );
    assert_eq!(count as usize, 1000 - lost_subtree.len());
    // The root's timeout decided: it was set at time 0 and fired at T.
    assert_eq!(at, SimTime::ZERO + T);
    let root = report.root_stats().unwrap();
    assert_eq!(root.timers_fired, 1);
    assert_eq!(root.messages_received, 7);

    let offline = report.node(NodeId(1)).unwrap();
    assert!(!offline.online);
    assert_eq!(offline.handler_calls, 0);
    assert_eq!(offline.messages_received, 0);
    assert_eq!(offline.messages_sent, 0);
    // The root's announce to node 1 was dropped; node 1's subtree never heard anything.
    assert_eq!(report.drops.to_offline, 1);
    assert_eq!(report.drops.bytes, 2);
    for &v in &lost_subtree[1..] {
        let s = report.node(v).unwrap();
        assert_eq!((s.handler_calls, s.messages_received), (1, 0), "{v}");
    }
    assert_eq!(report.online_nodes(), 999);
    // Interior nodes that completed cancelled their timeouts; none fired.
    let fired: u64 = report.nodes.iter().map(|s| s.timers_fired).sum();
    assert_eq!(fired, 1);
}

#[test]
fn crashed_nodes_stop_mid_run() {
    let tree = NaryTree::new(1000, 8).unwrap();
    let mut sim = tree_sim(tree, NetworkModel::constant(L), 0);
    // Node 2 handles the announce at 10 ms and forwards it, then crashes before its
    // children's partials come back (from 10 + 2·3·10 = 70 ms on).
    sim.crash_at(NodeId(2), SimTime::from_millis(15)).unwrap();
    let report = sim.run();
    let sub = tree.subtree(NodeId(2));
    let (at, (sum, _)) = *sim.first_output(NodeId(0)).unwrap();
    assert_eq!(at, SimTime::ZERO + T);
    assert_eq!(
        sum,
        sum_of(NodeId::range(1000)) - sum_of(sub.iter().copied())
    );
    let crashed = report.node(NodeId(2)).unwrap();
    assert!(crashed.online);
    assert_eq!(crashed.handler_calls, 2); // start + announce
    assert_eq!(crashed.messages_sent, 8);
    assert_eq!(crashed.timers_fired, 0);
    assert_eq!(report.drops.to_offline, 8);
    // Its children ran normally.
    assert_eq!(report.node(NodeId(17)).unwrap().messages_sent, 9);
}

#[test]
fn total_loss_leaves_the_root_alone() {
    let tree = NaryTree::new(50, 4).unwrap();
    let mut sim = tree_sim(tree, NetworkModel::constant(L).with_loss(1.0), 0);
    let report = sim.run_until(SimTime::from_secs(5));
    assert_eq!(sim.first_output(NodeId(0)).unwrap().1, (3, 1));
    assert_eq!(report.drops.lost, 4);
    assert_eq!(report.drops.lost, report.total_messages());
    assert_eq!(report.total_messages_received(), 0);
}

#[test]
fn partial_loss_is_recorded() {
    let tree = NaryTree::new(1000, 8).unwrap();
    let mut sim = tree_sim(tree, NetworkModel::constant(L).with_loss(0.1), 3);
    sim.run();
    let report = sim.run(); // drain the rest
    assert_eq!(report.end, EndReason::Drained);
    assert!(report.drops.lost > 0);
    assert_eq!(
        report.total_messages(),
        report.total_messages_received() + report.drops.total()
    );
}

/// Sets timers at start, cancels one, re-arms on fire, records firing times.
struct Ticker {
    fired: Vec<(TimerId, SimTime)>,
    rearm: u32,
    out: Option<TimerId>,
}

impl Process for Ticker {
    type Message = Blob;
    type Output = TimerId;

    fn start(&mut self, ctx: &mut Context<'_, Blob>) {
        ctx.set_timer(Duration::from_millis(5), TimerId(1));
        ctx.set_timer(Duration::from_millis(10), TimerId(2));
        ctx.set_timer(Duration::from_millis(3), TimerId(3));
        ctx.cancel_timer(TimerId(2));
        ctx.set_timer(Duration::from_millis(12), TimerId(2)); // re-set after cancel: fires
        ctx.set_timer(Duration::from_millis(1), TimerId(4));
    }

    fn on_message(&mut self, _: NodeId, _: Blob, _: &mut Context<'_, Blob>) {}

    fn on_timer(&mut self, timer: TimerId, ctx: &mut Context<'_, Blob>) {
        self.fired.push((timer, ctx.now()));
        self.out = Some(timer);
        if timer == TimerId(4) {
            // Cancel a timer set in an earlier handler.
            ctx.cancel_timer(TimerId(3));
        }
        if (timer == TimerId(9) || timer == TimerId(2)) && self.rearm > 0 {
            self.rearm -= 1;
            ctx.set_timer(Duration::from_millis(100), TimerId(9));
        }
    }

    fn take_output(&mut self) -> Option<TimerId> {
        self.out.take()
    }
}

#[test]
fn timers_fire_and_cancel() {
    let t = Ticker {
        fired: Vec::new(),
        rearm: 2,
        out: None,
    };
    let config = SimConfig::default().with_compute(ComputeModel::Ignore);
    let mut sim = Simulation::new(vec![t], NetworkModel::ideal(), config).unwrap();
    let report = sim.run();
    let fired = &sim.process(NodeId(0)).unwrap().fired;
    assert_eq!(
        fired,
        &vec![
            (TimerId(4), SimTime::from_millis(1)),
            (TimerId(1), SimTime::from_millis(5)),
            (TimerId(2), SimTime::from_millis(12)),
            (TimerId(9), SimTime::from_millis(112)),
            (TimerId(9), SimTime::from_millis(212)),
        ]
    );
    assert_eq!(report.node(NodeId(0)).unwrap().timers_fired, 5);
    assert_eq!(report.completion, SimTime::from_millis(212));
    assert_eq!(sim.outputs(NodeId(0)).len(), 5);
}

#[test]
fn limits_stop_runaway_protocols_and_runs_resume() {
    let t = Ticker {
        fired: Vec::new(),
        rearm: u32::MAX,
        out: None,
    };
    let config = SimConfig::default()
        .with_compute(ComputeModel::Ignore)
        .with_event_limit(50);
    let mut sim = Simulation::new(vec![t], NetworkModel::ideal(), config).unwrap();
    let report = sim.run_until(SimTime::from_millis(500));
    assert_eq!(report.end, EndReason::TimeLimit);
    // start, timers 4, (3: cancelled), 1, (first 2: cancelled), 2, then 9 at 112, 212,
    // 312, 412: cancelled timers still cost a queue event.
    assert_eq!(report.events, 10);
    assert_eq!(report.node(NodeId(0)).unwrap().timers_fired, 7);
    let report = sim.run();
    assert_eq!(report.end, EndReason::EventLimit);
    assert_eq!(report.events, 50);
}

#[test]
fn misaddressed_and_self_messages() {
    let nodes = vec![
        Recorder::new(vec![(NodeId(7), 10), (NodeId(0), 5)]),
        Recorder::quiet(),
    ];
    let config = SimConfig::default().with_compute(ComputeModel::Ignore);
    let mut sim = Simulation::new(
        nodes,
        NetworkModel::constant(Duration::from_secs(1)),
        config,
    )
    .unwrap();
    let report = sim.run();
    assert_eq!(report.drops.misaddressed, 1);
    assert_eq!(report.drops.bytes, 10);
    let n0 = report.node(NodeId(0)).unwrap();
    assert_eq!((n0.messages_sent, n0.bytes_sent), (2, 15));
    assert_eq!((n0.messages_received, n0.bytes_received), (1, 5));
    // Self-delivery skips the network.
    assert_eq!(sim.outputs(NodeId(0))[0].0, SimTime::ZERO);
}

#[test]
fn all_outputs_ignores_offline_nodes() {
    let nodes: Vec<Recorder> = (0..5)
        .map(|i| {
            let mut r = Recorder::quiet();
            r.script = vec![(NodeId((i + 1) % 5), 1), (NodeId((i + 4) % 5), 1)];
            r
        })
        .collect();
    let config = SimConfig::default()
        .with_compute(ComputeModel::Ignore)
        .stop_when(StopCondition::AllOutputs);
    let mut sim = Simulation::new(nodes, NetworkModel::constant(L), config).unwrap();
    sim.set_offline(NodeId(2)).unwrap();
    let report = sim.run();
    assert_eq!(report.end, EndReason::StopCondition);
    assert_eq!(report.completion, SimTime::ZERO + L);
    assert_eq!(report.online_nodes(), 4);
    assert!(sim.outputs(NodeId(2)).is_empty());
}

#[test]
fn configuration_errors() {
    let config = SimConfig::default().stop_when(StopCondition::OutputFrom(NodeId(3)));
    let err = Simulation::new(
        vec![Recorder::quiet(), Recorder::quiet()],
        NetworkModel::ideal(),
        config,
    )
    .err()
    .unwrap();
    assert_eq!(
        err,
        SimError::UnknownNode {
            node: NodeId(3),
            n: 2
        }
    );
    assert!(err.to_string().contains("N3"));
    let mut sim = Simulation::new(
        vec![Recorder::quiet()],
        NetworkModel::ideal(),
        SimConfig::default().with_root(NodeId(0)),
    )
    .unwrap();
    assert!(sim.set_offline(NodeId(1)).is_err());
    assert!(sim.crash_at(NodeId(1), SimTime::ZERO).is_err());
    assert!(Simulation::new(
        vec![Recorder::quiet()],
        NetworkModel::ideal(),
        SimConfig::default().with_root(NodeId(1)),
    )
    .is_err());
    // An empty simulation is fine and ends at once.
    let mut empty =
        Simulation::<Recorder>::new(Vec::new(), NetworkModel::ideal(), SimConfig::default())
            .unwrap();
    let r = empty.run();
    assert_eq!(
        (r.end, r.events, r.completion),
        (EndReason::Drained, 0, SimTime::ZERO)
    );
}
