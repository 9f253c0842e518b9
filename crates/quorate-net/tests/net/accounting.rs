//! Exact message, byte, call and compute accounting.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use crate::common::Recorder;
use quorate_net::{Bandwidth, ComputeModel, NetworkModel, NodeId, SimConfig, SimTime, Simulation};
use std::time::Duration;

#[test]
fn counters_are_exact() {
    let n: u32 = 6;
    let overhead = 3u64;
    let nodes: Vec<Recorder> = (0..n)
        .map(|i| {
            let k = i as usize + 1;
            let mut r = Recorder::new(vec![(NodeId((i + 1) % n), 10 * k); k]);
            r.broadcast = Some(7 + i as usize);
            r
        })
        .collect();
    // Timing must not matter: bandwidth, jitter and measured compute.
    let net = NetworkModel::constant(Duration::from_millis(3))
        .with_jitter(Duration::from_millis(2))
        .with_bandwidth(
            Bandwidth::bytes_per_sec(50_000),
            Bandwidth::bytes_per_sec(20_000),
        )
        .with_overhead(overhead);
    let config = SimConfig::default()
        .with_compute(ComputeModel::Measured)
        .with_seed(9);
    let mut sim = Simulation::new(nodes, net, config).unwrap();
    let report = sim.run();

    let size = |len: u64| len + overhead;
    for i in 0..n {
        let k = u64::from(i) + 1;
        let s = report.node(NodeId(i)).unwrap();
        assert_eq!(s.messages_sent, k + u64::from(n - 1), "node {i}");
        assert_eq!(
            s.bytes_sent,
            k * size(10 * k) + u64::from(n - 1) * size(7 + u64::from(i)),
            "node {i}"
        );
        let p = (i + n - 1) % n;
        let pk = u64::from(p) + 1;
        let bcast: u64 = (0..n)
            .filter(|&j| j != i)
            .map(|j| size(7 + u64::from(j)))
            .sum();
        assert_eq!(s.messages_received, pk + u64::from(n - 1), "node {i}");
        assert_eq!(s.bytes_received, pk * size(10 * pk) + bcast, "node {i}");
        assert_eq!(s.handler_calls, 1 + s.messages_received);
        assert_eq!(s.outputs, s.messages_received);
        assert!(s.cpu > Duration::ZERO);
        assert_eq!(s.compute, s.cpu);
    }
    assert_eq!(report.total_messages(), report.total_messages_received());
    assert_eq!(report.total_bytes(), report.total_bytes_received());
    assert_eq!(report.drops.total(), 0);
    let (max_node, max_bytes) = report.max_bytes_sent().unwrap();
    assert_eq!(max_node, NodeId(n - 1));
    assert_eq!(max_bytes, report.node(NodeId(n - 1)).unwrap().bytes_sent);
    let summary = report.summary();
    assert_eq!(summary.total_bytes, report.total_bytes());
    assert_eq!(summary.online, n as usize);
}

#[test]
fn busy_nodes_queue_work_and_crashes_discard_it() {
    // Node 0 sends three messages to node 1 at time 0; each handler costs 10 ms.
    let nodes = vec![
        Recorder::new(vec![(NodeId(1), 1), (NodeId(1), 2), (NodeId(1), 3)]),
        Recorder::quiet(),
    ];
    let config = SimConfig::default().with_compute(ComputeModel::Fixed(Duration::from_millis(10)));
    let net = NetworkModel::constant(Duration::from_millis(1));
    let mut sim = Simulation::new(nodes, net.clone(), config.clone()).unwrap();
    sim.run();
    // Node 0's start handler ends at 10 ms, so the messages leave then and arrive at
    // 11 ms; node 1 handles them back to back. Outputs are stamped with the end of the
    // handler; the handler itself sees its start time.
    let arrivals: Vec<(SimTime, SimTime)> = sim
        .outputs(NodeId(1))
        .iter()
        .map(|(end, (_, _, seen))| (*seen, *end))
        .collect();
    assert_eq!(
        arrivals,
        vec![
            (SimTime::from_millis(11), SimTime::from_millis(21)),
            (SimTime::from_millis(21), SimTime::from_millis(31)),
            (SimTime::from_millis(31), SimTime::from_millis(41)),
        ]
    );

    let nodes = vec![
        Recorder::new(vec![(NodeId(1), 1), (NodeId(1), 2), (NodeId(1), 3)]),
        Recorder::quiet(),
    ];
    let mut sim = Simulation::new(nodes, net, config).unwrap();
    sim.crash_at(NodeId(1), SimTime::from_millis(25)).unwrap();
    let report = sim.run();
    let s = report.node(NodeId(1)).unwrap();
    assert_eq!(s.messages_received, 2);
    assert_eq!(s.bytes_received, 3);
    assert_eq!(report.drops.to_offline, 1);
    assert_eq!(report.drops.bytes, 3);
    assert_eq!(s.compute, Duration::from_millis(30));
    assert_eq!(s.last_active, SimTime::from_millis(31));
}

#[test]
fn measure_only_and_scaled() {
    let mk = || {
        vec![
            Recorder::new(vec![(NodeId(1), 8)]),
            Recorder::new(vec![(NodeId(0), 8)]),
        ]
    };
    let net = NetworkModel::constant(Duration::from_millis(5));
    let mut sim = Simulation::new(
        mk(),
        net.clone(),
        SimConfig::default().with_compute(ComputeModel::MeasureOnly),
    )
    .unwrap();
    let report = sim.run();
    assert_eq!(report.completion, SimTime::from_millis(5));
    assert!(report.total_cpu() > Duration::ZERO);
    assert!(report.nodes.iter().all(|s| s.compute == Duration::ZERO));

    let mut sim = Simulation::new(
        mk(),
        net,
        SimConfig::default().with_compute(ComputeModel::Scaled(1000.0)),
    )
    .unwrap();
    let report = sim.run();
    for s in &report.nodes {
        let expect = s.cpu.as_nanos() as f64 * 1000.0;
        let got = s.compute.as_nanos() as f64;
        assert!(
            (got - expect).abs() <= 1.0 + expect * 1e-9,
            "{got} vs {expect}"
        );
    }
    assert!(report.completion > SimTime::from_millis(5));
}

/// A node whose start handler sleeps (it uses no CPU while asleep).
struct Sleeper(Duration);

impl quorate_net::Process for Sleeper {
    type Message = Vec<u8>;
    type Output = ();
    fn start(&mut self, _ctx: &mut quorate_net::Context<'_, Vec<u8>>) {
        std::thread::sleep(self.0);
    }
    fn on_message(
        &mut self,
        _from: NodeId,
        _msg: Vec<u8>,
        _ctx: &mut quorate_net::Context<'_, Vec<u8>>,
    ) {
    }
    fn take_output(&mut self) -> Option<()> {
        None
    }
}

#[test]
fn the_thread_clock_counts_cpu_not_time_spent_descheduled() {
    use quorate_net::CpuClock;
    let nap = Duration::from_millis(30);
    let run = |clock: CpuClock| {
        let config = SimConfig::default()
            .with_compute(ComputeModel::Measured)
            .with_cpu_clock(clock);
        let net = NetworkModel::constant(Duration::from_millis(1));
        let mut sim = Simulation::new(vec![Sleeper(nap)], net, config).unwrap();
        sim.run().node(NodeId(0)).unwrap().cpu
    };
    // The wall clock sees the whole nap; the thread clock only the few microseconds of
    // CPU the sleeping thread used.
    assert!(run(CpuClock::Wall) >= nap);
    assert!(run(CpuClock::Thread) < nap / 3);
    assert_eq!(SimConfig::default().cpu_clock, CpuClock::Wall);
    // The same stopwatch outside a simulation.
    let watch = quorate_net::Stopwatch::start(CpuClock::Thread);
    std::thread::sleep(nap);
    assert!(watch.elapsed() < nap / 3);
    let watch = quorate_net::Stopwatch::start(CpuClock::Wall);
    std::thread::sleep(nap);
    assert!(watch.elapsed() >= nap);
}
