//! The discrete-event simulator.

use crate::compute::ComputeModel;
use crate::id::{NodeId, TimerId};
use crate::network::{Bandwidth, NetworkModel};
use crate::process::{Context, Dest, Process, TimerCmd};
use crate::queue::EventQueue;
use crate::stats::{DropStats, EndReason, NodeStats, Report};
use crate::time::{duration_nanos, SimTime};
use crate::wire::WireSize;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

/// When [`Simulation::run`] stops before the event queue is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StopCondition {
    /// Never stop early: run until no events are left (or a limit is hit).
    #[default]
    Drain,
    /// Stop as soon as this node produces an output (e.g. the CoSi root's signature).
    OutputFrom(NodeId),
    /// Stop once this many distinct nodes have produced an output.
    OutputsFrom(usize),
    /// Stop once every node that is never offline or crashed has produced an output.
    AllOutputs,
}

/// Run-wide settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// How handler running time is charged (default [`ComputeModel::Measured`]).
    pub compute: ComputeModel,
    /// Seed for jitter and loss (default 0).
    pub seed: u64,
    /// When to stop early (default [`StopCondition::Drain`]).
    pub stop: StopCondition,
    /// Do not process events later than this.
    pub time_limit: Option<SimTime>,
    /// Do not process more than this many events in total (guards against protocols that
    /// re-arm timers forever).
    pub event_limit: Option<u64>,
    /// The node whose counters the report highlights. Defaults to the node of
    /// [`StopCondition::OutputFrom`].
    pub root: Option<NodeId>,
    /// Which clock times handlers (default [`CpuClock::Wall`]).
    pub cpu_clock: CpuClock,
}

/// The clock that times handlers when the [`ComputeModel`] measures them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CpuClock {
    /// Wall-clock time ([`Instant`]): includes time the simulator's thread spent
    /// descheduled, so it inflates under load from other processes.
    #[default]
    Wall,
    /// CPU time of the simulator's thread (`CLOCK_THREAD_CPUTIME_ID`, user + system): what
    /// the handler itself consumed, insensitive to other processes. Falls back to
    /// [`CpuClock::Wall`] where the platform has no thread clock.
    Thread,
}

/// A running measurement on a [`CpuClock`]: how the simulator times handlers, also usable
/// to time in-process benchmarks the same way.
#[derive(Debug)]
pub enum Stopwatch {
    /// Started on the wall clock.
    Wall(Instant),
    /// Started on the current thread's CPU clock.
    Thread(cpu_time::ThreadTime),
}

impl Stopwatch {
    /// Starts measuring on `clock` (the thread clock falls back to the wall clock where the
    /// platform has none).
    pub fn start(clock: CpuClock) -> Self {
        match clock {
            CpuClock::Thread => match cpu_time::ThreadTime::try_now() {
                Ok(t) => Stopwatch::Thread(t),
                Err(_) => Stopwatch::Wall(Instant::now()),
            },
            CpuClock::Wall => Stopwatch::Wall(Instant::now()),
        }
    }

    /// Time elapsed on the clock since [`Stopwatch::start`] (for the thread clock, call it
    /// on the thread that started it).
    pub fn elapsed(&self) -> Duration {
        match self {
            Stopwatch::Wall(t) => t.elapsed(),
            Stopwatch::Thread(t) => t.try_elapsed().unwrap_or(Duration::ZERO),
        }
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            compute: ComputeModel::Measured,
            seed: 0,
            stop: StopCondition::Drain,
            time_limit: None,
            event_limit: None,
            root: None,
            cpu_clock: CpuClock::Wall,
        }
    }
}

impl SimConfig {
    /// Sets the compute model.
    pub fn with_compute(mut self, compute: ComputeModel) -> Self {
        self.compute = compute;
        self
    }

    /// Sets the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the stop condition.
    pub fn stop_when(mut self, stop: StopCondition) -> Self {
        self.stop = stop;
        self
    }

    /// Sets the time limit.
    pub fn with_time_limit(mut self, limit: SimTime) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Sets the event limit.
    pub fn with_event_limit(mut self, limit: u64) -> Self {
        self.event_limit = Some(limit);
        self
    }

    /// Sets the highlighted node.
    pub fn with_root(mut self, root: NodeId) -> Self {
        self.root = Some(root);
        self
    }

    /// Sets the clock that times handlers.
    pub fn with_cpu_clock(mut self, clock: CpuClock) -> Self {
        self.cpu_clock = clock;
        self
    }
}

/// Configuration mistakes.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SimError {
    /// More processes than `u32` node ids.
    #[error("{n} processes exceed the u32 node id range")]
    TooManyNodes {
        /// The number of processes supplied.
        n: usize,
    },
    /// A node id outside `0..n` was given to the configuration.
    #[error("node {node} is not one of the {n} simulated nodes")]
    UnknownNode {
        /// The offending id.
        node: NodeId,
        /// The number of nodes.
        n: u32,
    },
}

enum Event<M> {
    Start(u32),
    /// The first bit reaches the receiver's downlink.
    Arrive {
        from: u32,
        to: u32,
        bytes: u64,
        last_bit: u64,
        msg: Arc<M>,
    },
    /// The last bit has been received.
    Deliver {
        from: u32,
        to: u32,
        bytes: u64,
        msg: Arc<M>,
    },
    Timer {
        node: u32,
        timer: TimerId,
        generation: u64,
    },
    /// The node's CPU became free and it has queued work.
    Wake(u32),
}

enum Work<M> {
    Start,
    Message { from: u32, bytes: u64, msg: Arc<M> },
    Timer { timer: TimerId, generation: u64 },
}

struct NodeState<M> {
    up: Bandwidth,
    down: Bandwidth,
    up_free: u64,
    down_free: u64,
    busy_until: u64,
    crash_at: u64,
    wake_scheduled: bool,
    pending: VecDeque<Work<M>>,
}

/// A deterministic discrete-event simulation of one process per node.
///
/// Build it from the processes (node `i` is `processes[i]`), a [`NetworkModel`] and a
/// [`SimConfig`]; optionally take nodes offline or schedule crashes; then
/// [`run`](Simulation::run). `run` may be called again to continue (for example after a
/// stop condition, to let the remaining traffic drain), and the returned [`Report`] is
/// cumulative.
///
/// See the [crate documentation](crate) for an example and the [`notes`](crate::notes)
/// for the timing model.
pub struct Simulation<P: Process> {
    procs: Vec<P>,
    net: NetworkModel,
    cfg: SimConfig,
    n: u32,
    queue: EventQueue<Event<P::Message>>,
    rng: ChaCha8Rng,
    nodes: Vec<NodeState<P::Message>>,
    stats: Vec<NodeStats>,
    outputs: Vec<Vec<(SimTime, P::Output)>>,
    timer_gen: HashMap<(u32, TimerId), u64>,
    drops: DropStats,
    events: u64,
    started: bool,
    now: u64,
    last_activity: u64,
    stop_met_at: Option<u64>,
    stop_hit: bool,
    reliable_with_output: usize,
    reliable_total: usize,
    any_with_output: usize,
    last_end: EndReason,
    outbox: Vec<(Dest, Arc<P::Message>)>,
    timer_cmds: Vec<TimerCmd>,
}

impl<P: Process> Simulation<P> {
    /// A simulation of `processes` (node `i` runs `processes[i]`) over `network`.
    pub fn new(
        processes: Vec<P>,
        network: NetworkModel,
        config: SimConfig,
    ) -> Result<Self, SimError> {
        let n = match u32::try_from(processes.len()) {
            Ok(n) if n < u32::MAX => n,
            _ => return Err(SimError::TooManyNodes { n: processes.len() }),
        };
        let check = |node: NodeId| {
            if node.0 < n {
                Ok(())
            } else {
                Err(SimError::UnknownNode { node, n })
            }
        };
        if let StopCondition::OutputFrom(node) = config.stop {
            check(node)?;
        }
        if let Some(root) = config.root {
            check(root)?;
        }
        let nodes = (0..n)
            .map(|i| {
                let nic = network.nic(NodeId(i));
                NodeState {
                    up: nic.up,
                    down: nic.down,
                    up_free: 0,
                    down_free: 0,
                    busy_until: 0,
                    crash_at: u64::MAX,
                    wake_scheduled: false,
                    pending: VecDeque::new(),
                }
            })
            .collect();
        let stats = (0..n)
            .map(|_| NodeStats {
                online: true,
                ..NodeStats::default()
            })
            .collect();
        let outputs = (0..n).map(|_| Vec::new()).collect();
        let rng = ChaCha8Rng::seed_from_u64(config.seed);
        Ok(Simulation {
            procs: processes,
            net: network,
            cfg: config,
            n,
            queue: EventQueue::new(),
            rng,
            nodes,
            stats,
            outputs,
            timer_gen: HashMap::new(),
            drops: DropStats::default(),
            events: 0,
            started: false,
            now: 0,
            last_activity: 0,
            stop_met_at: None,
            stop_hit: false,
            reliable_with_output: 0,
            reliable_total: n as usize,
            any_with_output: 0,
            last_end: EndReason::Drained,
            outbox: Vec::new(),
            timer_cmds: Vec::new(),
        })
    }

    fn check_node(&self, node: NodeId) -> Result<usize, SimError> {
        if node.0 < self.n {
            Ok(node.index())
        } else {
            Err(SimError::UnknownNode { node, n: self.n })
        }
    }

    /// Takes `node` offline for the whole run: it never starts, never handles an event,
    /// and messages addressed to it are dropped (counted in
    /// [`DropStats::to_offline`]). Call before the first [`run`](Simulation::run).
    pub fn set_offline(&mut self, node: NodeId) -> Result<(), SimError> {
        let i = self.check_node(node)?;
        self.nodes[i].crash_at = 0;
        self.stats[i].online = false;
        self.recount_reliable();
        Ok(())
    }

    /// Crashes `node` at `at`: from then on it handles no events, its pending timers and
    /// queued work are discarded and messages reaching it are dropped. Messages it sent
    /// before the crash are still delivered.
    pub fn crash_at(&mut self, node: NodeId, at: SimTime) -> Result<(), SimError> {
        let i = self.check_node(node)?;
        self.nodes[i].crash_at = at.as_nanos();
        if at == SimTime::ZERO {
            self.stats[i].online = false;
        }
        self.recount_reliable();
        Ok(())
    }

    fn recount_reliable(&mut self) {
        self.reliable_total = self.nodes.iter().filter(|n| n.crash_at == u64::MAX).count();
    }

    /// The number of nodes.
    pub fn num_nodes(&self) -> u32 {
        self.n
    }

    /// The time of the last processed event.
    pub fn now(&self) -> SimTime {
        SimTime::from_nanos(self.now)
    }

    /// Events waiting in the queue.
    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }

    /// The network model.
    pub fn network(&self) -> &NetworkModel {
        &self.net
    }

    /// The configuration.
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    /// The process of `node`.
    pub fn process(&self, node: NodeId) -> Option<&P> {
        self.procs.get(node.index())
    }

    /// All processes, indexed by node.
    pub fn processes(&self) -> &[P] {
        &self.procs
    }

    /// The outputs `node` has produced so far, each with the simulated time at which the
    /// producing handler finished.
    pub fn outputs(&self, node: NodeId) -> &[(SimTime, P::Output)] {
        self.outputs.get(node.index()).map_or(&[], Vec::as_slice)
    }

    /// The first output of `node`, if any.
    pub fn first_output(&self, node: NodeId) -> Option<&(SimTime, P::Output)> {
        self.outputs(node).first()
    }

    /// Removes and returns every node's outputs so far (indexed by node).
    pub fn take_outputs(&mut self) -> Vec<Vec<(SimTime, P::Output)>> {
        let n = self.outputs.len();
        std::mem::replace(&mut self.outputs, (0..n).map(|_| Vec::new()).collect())
    }

    /// Consumes the simulation, returning the processes.
    pub fn into_processes(self) -> Vec<P> {
        self.procs
    }

    /// Runs until the stop condition, a configured limit, or an empty queue.
    pub fn run(&mut self) -> Report {
        self.run_inner(self.cfg.time_limit)
    }

    /// Like [`run`](Simulation::run) but processes no event later than `limit` (or the
    /// configured time limit, whichever is earlier).
    pub fn run_until(&mut self, limit: SimTime) -> Report {
        let limit = match self.cfg.time_limit {
            Some(l) => l.min(limit),
            None => limit,
        };
        self.run_inner(Some(limit))
    }

    /// The report for everything processed so far.
    pub fn report(&self) -> Report {
        Report {
            end: self.last_end,
            completion: SimTime::from_nanos(self.stop_met_at.unwrap_or(self.last_activity)),
            stop_met_at: self.stop_met_at.map(SimTime::from_nanos),
            events: self.events,
            root: self.cfg.root.or(match self.cfg.stop {
                StopCondition::OutputFrom(n) => Some(n),
                _ => None,
            }),
            nodes: self.stats.clone(),
            drops: self.drops,
        }
    }

    fn run_inner(&mut self, time_limit: Option<SimTime>) -> Report {
        if !self.started {
            self.started = true;
            for i in 0..self.n {
                if self.nodes[i as usize].crash_at > 0 {
                    self.queue.push(0, Event::Start(i));
                }
            }
        }
        self.stop_hit = false;
        let limit = time_limit.map_or(u64::MAX, SimTime::as_nanos);
        let end = loop {
            let Some(t) = self.queue.peek_time() else {
                break EndReason::Drained;
            };
            if t > limit {
                break EndReason::TimeLimit;
            }
            if self.cfg.event_limit.is_some_and(|l| self.events >= l) {
                break EndReason::EventLimit;
            }
            let Some((t, ev)) = self.queue.pop() else {
                break EndReason::Drained;
            };
            self.now = t;
            self.events += 1;
            self.handle_event(t, ev);
            if self.stop_hit {
                break EndReason::StopCondition;
            }
        };
        self.last_end = end;
        self.report()
    }

    fn handle_event(&mut self, t: u64, ev: Event<P::Message>) {
        match ev {
            Event::Start(v) => self.dispatch(v, t, Work::Start),
            Event::Arrive {
                from,
                to,
                bytes,
                last_bit,
                msg,
            } => {
                let node = &mut self.nodes[to as usize];
                let start = t.max(node.down_free);
                let done = start
                    .saturating_add(node.down.serialization_nanos(bytes))
                    .max(last_bit);
                node.down_free = done;
                self.queue.push(
                    done,
                    Event::Deliver {
                        from,
                        to,
                        bytes,
                        msg,
                    },
                );
            }
            Event::Deliver {
                from,
                to,
                bytes,
                msg,
            } => self.dispatch(to, t, Work::Message { from, bytes, msg }),
            Event::Timer {
                node,
                timer,
                generation,
            } => self.dispatch(node, t, Work::Timer { timer, generation }),
            Event::Wake(v) => {
                let i = v as usize;
                self.nodes[i].wake_scheduled = false;
                if self.nodes[i].crash_at <= t {
                    while let Some(w) = self.nodes[i].pending.pop_front() {
                        self.discard(w);
                    }
                    return;
                }
                if let Some(w) = self.nodes[i].pending.pop_front() {
                    self.execute(v, t, w);
                }
                let node = &mut self.nodes[i];
                if !node.pending.is_empty() && !node.wake_scheduled {
                    node.wake_scheduled = true;
                    let at = node.busy_until;
                    self.queue.push(at, Event::Wake(v));
                }
            }
        }
    }

    fn discard(&mut self, work: Work<P::Message>) {
        if let Work::Message { bytes, .. } = work {
            self.drops.to_offline += 1;
            self.drops.bytes = self.drops.bytes.saturating_add(bytes);
        }
    }

    fn dispatch(&mut self, v: u32, t: u64, work: Work<P::Message>) {
        let node = &mut self.nodes[v as usize];
        if node.crash_at <= t {
            self.discard(work);
            return;
        }
        if node.busy_until > t || !node.pending.is_empty() {
            node.pending.push_back(work);
            if !node.wake_scheduled {
                node.wake_scheduled = true;
                let at = node.busy_until;
                self.queue.push(at, Event::Wake(v));
            }
            return;
        }
        self.execute(v, t, work);
    }

    fn execute(&mut self, v: u32, t: u64, work: Work<P::Message>) {
        let i = v as usize;
        if let Work::Timer { timer, generation } = &work {
            let current = self.timer_gen.get(&(v, *timer)).copied().unwrap_or(0);
            if current != *generation {
                return;
            }
        }
        let measure = self.cfg.compute.measures();
        let clock = self.cfg.cpu_clock;
        let mut outbox = std::mem::take(&mut self.outbox);
        let mut cmds = std::mem::take(&mut self.timer_cmds);
        let (elapsed, output) = {
            let mut ctx = Context::new(
                NodeId(v),
                SimTime::from_nanos(t),
                self.n,
                &mut outbox,
                &mut cmds,
            );
            let stats = &mut self.stats[i];
            let proc = &mut self.procs[i];
            match work {
                Work::Start => {
                    let t0 = measure.then(|| Stopwatch::start(clock));
                    proc.start(&mut ctx);
                    let out = proc.take_output();
                    (t0.map(|s| s.elapsed()), out)
                }
                Work::Message { from, bytes, msg } => {
                    stats.messages_received += 1;
                    stats.bytes_received = stats.bytes_received.saturating_add(bytes);
                    let msg = Arc::try_unwrap(msg).unwrap_or_else(|shared| (*shared).clone());
                    let t0 = measure.then(|| Stopwatch::start(clock));
                    proc.on_message(NodeId(from), msg, &mut ctx);
                    let out = proc.take_output();
                    (t0.map(|s| s.elapsed()), out)
                }
                Work::Timer { timer, .. } => {
                    stats.timers_fired += 1;
                    let t0 = measure.then(|| Stopwatch::start(clock));
                    proc.on_timer(timer, &mut ctx);
                    let out = proc.take_output();
                    (t0.map(|s| s.elapsed()), out)
                }
            }
        };
        let elapsed = elapsed.unwrap_or(Duration::ZERO);
        let charge = self.cfg.compute.charge_nanos(elapsed);
        let end = t.saturating_add(charge);
        self.nodes[i].busy_until = end;
        self.last_activity = self.last_activity.max(end);
        let stats = &mut self.stats[i];
        stats.cpu += elapsed;
        stats.compute += Duration::from_nanos(charge);
        stats.handler_calls += 1;
        stats.last_active = SimTime::from_nanos(end);
        if let Some(out) = output {
            stats.outputs += 1;
            if stats.first_output.is_none() {
                stats.first_output = Some(SimTime::from_nanos(end));
                self.any_with_output += 1;
                if self.nodes[i].crash_at == u64::MAX {
                    self.reliable_with_output += 1;
                }
            }
            self.outputs[i].push((SimTime::from_nanos(end), out));
            if self.stop_condition_met(v) {
                self.stop_hit = true;
                if self.stop_met_at.is_none() {
                    self.stop_met_at = Some(end);
                }
            }
        }
        for (dest, msg) in outbox.drain(..) {
            self.transmit(v, dest, msg, end);
        }
        for cmd in cmds.drain(..) {
            match cmd {
                TimerCmd::Set(delay, timer) => {
                    let generation = self.timer_gen.get(&(v, timer)).copied().unwrap_or(0);
                    self.queue.push(
                        end.saturating_add(duration_nanos(delay)),
                        Event::Timer {
                            node: v,
                            timer,
                            generation,
                        },
                    );
                }
                TimerCmd::Cancel(timer) => {
                    *self.timer_gen.entry((v, timer)).or_insert(0) += 1;
                }
            }
        }
        self.outbox = outbox;
        self.timer_cmds = cmds;
    }

    fn stop_condition_met(&self, v: u32) -> bool {
        match self.cfg.stop {
            StopCondition::Drain => false,
            StopCondition::OutputFrom(node) => node.0 == v,
            StopCondition::OutputsFrom(k) => self.any_with_output >= k,
            StopCondition::AllOutputs => self.reliable_with_output >= self.reliable_total,
        }
    }

    fn transmit(&mut self, from: u32, dest: Dest, msg: Arc<P::Message>, depart: u64) {
        let size = u64::try_from(msg.wire_size()).unwrap_or(u64::MAX);
        let bytes = size.saturating_add(self.net.overhead());
        match dest {
            Dest::One(to) => self.transmit_one(from, to.0, bytes, msg, depart),
            Dest::AllOthers => {
                for to in 0..self.n {
                    if to != from {
                        self.transmit_one(from, to, bytes, Arc::clone(&msg), depart);
                    }
                }
            }
        }
    }

    fn transmit_one(&mut self, from: u32, to: u32, bytes: u64, msg: Arc<P::Message>, depart: u64) {
        let stats = &mut self.stats[from as usize];
        stats.messages_sent += 1;
        stats.bytes_sent = stats.bytes_sent.saturating_add(bytes);
        if to >= self.n {
            self.drops.misaddressed += 1;
            self.drops.bytes = self.drops.bytes.saturating_add(bytes);
            return;
        }
        if to == from {
            self.queue.push(
                depart,
                Event::Deliver {
                    from,
                    to,
                    bytes,
                    msg,
                },
            );
            return;
        }
        let sender = &mut self.nodes[from as usize];
        let up_start = depart.max(sender.up_free);
        let up_end = up_start.saturating_add(sender.up.serialization_nanos(bytes));
        sender.up_free = up_end;
        let loss = self.net.loss();
        if loss > 0.0 && self.rng.gen_bool(loss) {
            self.drops.lost += 1;
            self.drops.bytes = self.drops.bytes.saturating_add(bytes);
            return;
        }
        let mut latency = self.net.latency_nanos(NodeId(from), NodeId(to));
        let jitter = self.net.jitter_nanos();
        if jitter > 0 {
            latency = latency.saturating_add(self.rng.gen_range(0..=jitter));
        }
        let first_bit = up_start.saturating_add(latency);
        let last_bit = up_end.saturating_add(latency);
        if self.nodes[to as usize].down.is_unlimited() {
            self.queue.push(
                last_bit,
                Event::Deliver {
                    from,
                    to,
                    bytes,
                    msg,
                },
            );
        } else {
            self.queue.push(
                first_bit,
                Event::Arrive {
                    from,
                    to,
                    bytes,
                    last_bit,
                    msg,
                },
            );
        }
    }
}
