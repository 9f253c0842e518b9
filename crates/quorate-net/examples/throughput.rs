//! Simulator throughput: all-to-all broadcast and tree aggregation, printing events per
//! second. Run with `cargo run --release -p quorate-net --example throughput`.

use quorate_net::{
    Bandwidth, ComputeModel, Context, NaryTree, NetworkModel, NodeId, Process, SimConfig,
    Simulation, StopCondition, TimerId, WireSize,
};
use std::time::{Duration, Instant};

struct Gossip {
    heard: u32,
}

impl Process for Gossip {
    type Message = [u8; 32];
    type Output = ();

    fn start(&mut self, ctx: &mut Context<'_, [u8; 32]>) {
        ctx.broadcast([0u8; 32]);
    }

    fn on_message(&mut self, _: NodeId, _: [u8; 32], _: &mut Context<'_, [u8; 32]>) {
        self.heard += 1;
    }

    fn take_output(&mut self) -> Option<()> {
        None
    }
}

#[derive(Clone)]
enum Msg {
    Down,
    Up(u64),
}

impl WireSize for Msg {
    fn wire_size(&self) -> usize {
        match self {
            Msg::Down => 64,
            Msg::Up(_) => 96,
        }
    }
}

struct Agg {
    tree: NaryTree,
    me: NodeId,
    waiting: usize,
    sum: u64,
    out: Option<u64>,
}

impl Agg {
    fn down(&mut self, ctx: &mut Context<'_, Msg>) {
        let kids: Vec<NodeId> = self.tree.children(self.me).collect();
        self.waiting = kids.len();
        self.sum = 1;
        ctx.multicast(kids, Msg::Down);
        ctx.set_timer(Duration::from_secs(10), TimerId(0));
        if self.waiting == 0 {
            self.up(ctx);
        }
    }

    fn up(&mut self, ctx: &mut Context<'_, Msg>) {
        ctx.cancel_timer(TimerId(0));
        match self.tree.parent(self.me) {
            Some(p) => ctx.send(p, Msg::Up(self.sum)),
            None => self.out = Some(self.sum),
        }
    }
}

impl Process for Agg {
    type Message = Msg;
    type Output = u64;

    fn start(&mut self, ctx: &mut Context<'_, Msg>) {
        if self.me.0 == 0 {
            self.down(ctx);
        }
    }

    fn on_message(&mut self, _: NodeId, msg: Msg, ctx: &mut Context<'_, Msg>) {
        match msg {
            Msg::Down => self.down(ctx),
            Msg::Up(s) => {
                self.sum += s;
                self.waiting -= 1;
                if self.waiting == 0 {
                    self.up(ctx);
                }
            }
        }
    }

    fn take_output(&mut self) -> Option<u64> {
        self.out.take()
    }
}

fn net(limited: bool) -> NetworkModel {
    let m = NetworkModel::per_link(|a, b| Duration::from_micros(100 + u64::from((a.0 + b.0) % 50)))
        .with_jitter(Duration::from_micros(30));
    if limited {
        m.with_bandwidth(
            Bandwidth::mbit_per_sec(1000.0),
            Bandwidth::mbit_per_sec(1000.0),
        )
    } else {
        m
    }
}

fn main() {
    for (n, limited, compute) in [
        (1000u32, true, ComputeModel::MeasureOnly),
        (1000, true, ComputeModel::Ignore),
        (1000, false, ComputeModel::Ignore),
        (300, true, ComputeModel::Measured),
    ] {
        let nodes = (0..n).map(|_| Gossip { heard: 0 }).collect();
        let cfg = SimConfig::default().with_compute(compute);
        let t = Instant::now();
        let mut sim = Simulation::new(nodes, net(limited), cfg).expect("valid configuration");
        let r = sim.run();
        let wall = t.elapsed();
        println!(
            "gossip n={n:5} bandwidth={limited:5} {compute:?}: {} events in {wall:?} ({:.2} M events/s)",
            r.events,
            r.events as f64 / wall.as_secs_f64() / 1e6
        );
    }
    for (n, b) in [(8192u32, 16u32), (32768, 8), (65536, 4)] {
        let tree = NaryTree::new(n, b).expect("valid tree");
        let nodes = NodeId::range(n)
            .map(|me| Agg {
                tree,
                me,
                waiting: 0,
                sum: 0,
                out: None,
            })
            .collect();
        let cfg = SimConfig::default()
            .with_compute(ComputeModel::Measured)
            .stop_when(StopCondition::OutputFrom(NodeId(0)));
        let t = Instant::now();
        let mut sim = Simulation::new(nodes, net(true), cfg).expect("valid configuration");
        let r = sim.run();
        let wall = t.elapsed();
        println!(
            "tree n={n:6} b={b:2}: {} events in {wall:?} ({:.2} M events/s), completion {}",
            r.events,
            r.events as f64 / wall.as_secs_f64() / 1e6,
            r.completion
        );
    }
}
