//! Toy protocols shared by the integration tests.
#![allow(dead_code)]

use quorate_net::{Context, NaryTree, NodeId, Process, SimTime, TimerId, WireSize};
use std::time::Duration;

/// Tree aggregation: the root announces down the tree, every node replies with the sum
/// of its subtree's values once all its children have replied (or its timeout fired).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeMsg {
    Announce,
    Partial { sum: u64, count: u32 },
}

impl WireSize for TreeMsg {
    fn wire_size(&self) -> usize {
        match self {
            // tag + version
            TreeMsg::Announce => 2,
            // tag + version + u64 + u32
            TreeMsg::Partial { .. } => 14,
        }
    }
}

pub const ANNOUNCE_BYTES: u64 = 2;
pub const PARTIAL_BYTES: u64 = 14;

pub struct TreeSum {
    tree: NaryTree,
    me: NodeId,
    value: u64,
    timeout: Option<Duration>,
    waiting: usize,
    sum: u64,
    count: u32,
    done: bool,
    output: Option<(u64, u32)>,
}

const TIMEOUT: TimerId = TimerId(7);

impl TreeSum {
    pub fn new(tree: NaryTree, me: NodeId, value: u64, timeout: Option<Duration>) -> Self {
        TreeSum {
            tree,
            me,
            value,
            timeout,
            waiting: 0,
            sum: 0,
            count: 0,
            done: false,
            output: None,
        }
    }

    pub fn nodes(tree: NaryTree, timeout: Option<Duration>) -> Vec<TreeSum> {
        NodeId::range(tree.len())
            .map(|id| TreeSum::new(tree, id, value_of(id), timeout))
            .collect()
    }

    fn announce(&mut self, ctx: &mut Context<'_, TreeMsg>) {
        let children: Vec<NodeId> = self.tree.children(self.me).collect();
        self.waiting = children.len();
        self.sum = self.value;
        self.count = 1;
        ctx.multicast(children, TreeMsg::Announce);
        if self.waiting == 0 {
            self.finish(ctx);
        } else if let Some(d) = self.timeout {
            ctx.set_timer(d, TIMEOUT);
        }
    }

    fn finish(&mut self, ctx: &mut Context<'_, TreeMsg>) {
        if self.done {
            return;
        }
        self.done = true;
        ctx.cancel_timer(TIMEOUT);
        match self.tree.parent(self.me) {
            Some(p) => ctx.send(
                p,
                TreeMsg::Partial {
                    sum: self.sum,
                    count: self.count,
                },
            ),
            None => self.output = Some((self.sum, self.count)),
        }
    }
}

impl Process for TreeSum {
    type Message = TreeMsg;
    type Output = (u64, u32);

    fn start(&mut self, ctx: &mut Context<'_, TreeMsg>) {
        assert_eq!(ctx.id(), self.me);
        if self.me == self.tree.root() {
            self.announce(ctx);
        }
    }

    fn on_message(&mut self, from: NodeId, msg: TreeMsg, ctx: &mut Context<'_, TreeMsg>) {
        match msg {
            TreeMsg::Announce => {
                if Some(from) == self.tree.parent(self.me) {
                    self.announce(ctx);
                }
            }
            TreeMsg::Partial { sum, count } => {
                if !self.done && self.waiting > 0 {
                    self.sum += sum;
                    self.count += count;
                    self.waiting -= 1;
                    if self.waiting == 0 {
                        self.finish(ctx);
                    }
                }
            }
        }
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut Context<'_, TreeMsg>) {
        assert_eq!(timer, TIMEOUT);
        self.finish(ctx);
    }

    fn take_output(&mut self) -> Option<(u64, u32)> {
        self.output.take()
    }
}

pub fn value_of(id: NodeId) -> u64 {
    u64::from(id.0) * 7 + 3
}

pub fn sum_of(nodes: impl IntoIterator<Item = NodeId>) -> u64 {
    nodes.into_iter().map(value_of).sum()
}

/// Expected root completion time under `ComputeModel::Fixed(c)` with constant latency `l`:
/// every handler (including each node's no-op start) costs `c`, and a node processes
/// its children's partials one after another in arrival order.
pub fn expected_fixed_completion(tree: &NaryTree, l: u64, c: u64) -> SimTime {
    fn done(tree: &NaryTree, v: NodeId, arrival: u64, l: u64, c: u64) -> u64 {
        let send = arrival + c;
        let mut partials: Vec<u64> = tree
            .children(v)
            .map(|ch| done(tree, ch, send + l, l, c) + l)
            .collect();
        partials.sort_unstable();
        let mut t = send;
        for p in partials {
            t = t.max(p) + c;
        }
        t
    }
    // The root's announcing handler is its start at time 0.
    SimTime::from_nanos(done(tree, tree.root(), 0, l, c))
}

/// Sends a scripted list of messages at start and records when each message arrives.
pub struct Blaster {
    pub script: Vec<(NodeId, usize)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blob(pub usize);

impl WireSize for Blob {
    fn wire_size(&self) -> usize {
        self.0
    }
}

pub struct Recorder {
    pub script: Vec<(NodeId, usize)>,
    pub broadcast: Option<usize>,
    pub arrivals: Vec<(NodeId, usize, SimTime)>,
    out: Option<(NodeId, usize, SimTime)>,
}

impl Recorder {
    pub fn new(script: Vec<(NodeId, usize)>) -> Self {
        Recorder {
            script,
            broadcast: None,
            arrivals: Vec::new(),
            out: None,
        }
    }

    pub fn quiet() -> Self {
        Recorder::new(Vec::new())
    }
}

impl Process for Recorder {
    type Message = Blob;
    /// (sender, size, arrival time)
    type Output = (NodeId, usize, SimTime);

    fn start(&mut self, ctx: &mut Context<'_, Blob>) {
        for (to, size) in self.script.drain(..) {
            ctx.send(to, Blob(size));
        }
        if let Some(size) = self.broadcast {
            ctx.broadcast(Blob(size));
        }
    }

    fn on_message(&mut self, from: NodeId, msg: Blob, ctx: &mut Context<'_, Blob>) {
        let rec = (from, msg.0, ctx.now());
        self.arrivals.push(rec);
        self.out = Some(rec);
    }

    fn take_output(&mut self) -> Option<Self::Output> {
        self.out.take()
    }
}
