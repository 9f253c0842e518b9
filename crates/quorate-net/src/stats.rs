//! Per-node counters and the run report.

use crate::id::NodeId;
use crate::time::SimTime;
use core::fmt;
use std::time::Duration;

/// Counters for one node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeStats {
    /// `false` if the node was configured offline from the start (it never ran).
    pub online: bool,
    /// Measured (wall-clock) time spent in this node's handlers. Zero under
    /// [`ComputeModel::Ignore`](crate::ComputeModel::Ignore).
    pub cpu: Duration,
    /// Simulated compute time charged to the node's clock by the compute model.
    pub compute: Duration,
    /// Handler invocations (start, messages, timers).
    pub handler_calls: u64,
    /// Messages sent (counted when sent, whether or not they arrive).
    pub messages_sent: u64,
    /// Bytes sent: the messages' wire sizes plus the model's per-message overhead.
    pub bytes_sent: u64,
    /// Messages delivered to a handler.
    pub messages_received: u64,
    /// Bytes delivered to a handler (wire size plus overhead).
    pub bytes_received: u64,
    /// Timers that fired (cancelled timers are not counted).
    pub timers_fired: u64,
    /// Results returned by [`Process::take_output`](crate::Process::take_output).
    pub outputs: u64,
    /// When the first result was produced (end of the producing handler).
    pub first_output: Option<SimTime>,
    /// When the node's last handler finished.
    pub last_active: SimTime,
}

/// Messages the network did not deliver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropStats {
    /// Dropped by the random loss model.
    pub lost: u64,
    /// Addressed to a node that was offline or had crashed when the message arrived (or
    /// that crashed with the message still queued).
    pub to_offline: u64,
    /// Addressed to an id outside the simulation.
    pub misaddressed: u64,
    /// Bytes of all dropped messages (including overhead).
    pub bytes: u64,
}

impl DropStats {
    /// All dropped messages.
    pub fn total(&self) -> u64 {
        self.lost + self.to_offline + self.misaddressed
    }
}

/// Why [`Simulation::run`](crate::Simulation::run) returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// No events were left.
    Drained,
    /// The configured [`StopCondition`](crate::StopCondition) was met.
    StopCondition,
    /// The next event lay beyond the time limit.
    TimeLimit,
    /// The event limit was reached.
    EventLimit,
}

/// The result of a simulation run: per-node counters plus totals.
///
/// Every field is plain data so benches can print or serialize it as they like;
/// [`Report::summary`] condenses it and `Display` prints that summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Why the run stopped.
    pub end: EndReason,
    /// The simulated completion time: when the stop condition was met, otherwise the end
    /// of the last handler (or last event) processed.
    pub completion: SimTime,
    /// When the stop condition was first met, if ever.
    pub stop_met_at: Option<SimTime>,
    /// Events taken off the queue so far.
    pub events: u64,
    /// The node whose statistics are highlighted (the root / leader), if any.
    pub root: Option<NodeId>,
    /// Per-node counters, indexed by [`NodeId::index`].
    pub nodes: Vec<NodeStats>,
    /// Undelivered messages.
    pub drops: DropStats,
}

/// The headline numbers of a [`Report`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Nodes simulated.
    pub nodes: usize,
    /// Nodes that were not offline from the start.
    pub online: usize,
    /// Why the run stopped.
    pub end: EndReason,
    /// Simulated completion time.
    pub completion: SimTime,
    /// Events processed.
    pub events: u64,
    /// Messages sent by all nodes.
    pub total_messages: u64,
    /// Bytes sent by all nodes.
    pub total_bytes: u64,
    /// Total measured CPU time over all nodes.
    pub total_cpu: Duration,
    /// The node with the most measured CPU time and that time.
    pub max_cpu: Option<(NodeId, Duration)>,
    /// Mean measured CPU time over online nodes.
    pub mean_cpu: Duration,
    /// The node that sent the most bytes, and how many.
    pub max_bytes_sent: Option<(NodeId, u64)>,
    /// The node that received the most bytes, and how many.
    pub max_bytes_received: Option<(NodeId, u64)>,
    /// The highlighted node and its counters.
    pub root: Option<(NodeId, NodeStats)>,
    /// Undelivered messages.
    pub drops: DropStats,
}

fn node_id(i: usize) -> NodeId {
    NodeId(u32::try_from(i).unwrap_or(u32::MAX))
}

impl Report {
    /// The counters of `node`, if it exists.
    pub fn node(&self, node: NodeId) -> Option<&NodeStats> {
        self.nodes.get(node.index())
    }

    /// The counters of the highlighted node.
    pub fn root_stats(&self) -> Option<&NodeStats> {
        self.root.and_then(|r| self.node(r))
    }

    /// Messages sent by all nodes.
    pub fn total_messages(&self) -> u64 {
        self.nodes.iter().map(|s| s.messages_sent).sum()
    }

    /// Bytes sent by all nodes.
    pub fn total_bytes(&self) -> u64 {
        self.nodes.iter().map(|s| s.bytes_sent).sum()
    }

    /// Messages delivered to handlers.
    pub fn total_messages_received(&self) -> u64 {
        self.nodes.iter().map(|s| s.messages_received).sum()
    }

    /// Bytes delivered to handlers.
    pub fn total_bytes_received(&self) -> u64 {
        self.nodes.iter().map(|s| s.bytes_received).sum()
    }

    /// Measured CPU time over all nodes.
    pub fn total_cpu(&self) -> Duration {
        self.nodes.iter().map(|s| s.cpu).sum()
    }

    /// The node with the most measured CPU time (lowest id on ties).
    pub fn max_cpu(&self) -> Option<(NodeId, Duration)> {
        self.max_by(|s| s.cpu)
    }

    /// The node with the most charged compute time (lowest id on ties).
    pub fn max_compute(&self) -> Option<(NodeId, Duration)> {
        self.max_by(|s| s.compute)
    }

    /// The node that sent the most bytes.
    pub fn max_bytes_sent(&self) -> Option<(NodeId, u64)> {
        self.max_by(|s| s.bytes_sent)
    }

    /// The node that received the most bytes.
    pub fn max_bytes_received(&self) -> Option<(NodeId, u64)> {
        self.max_by(|s| s.bytes_received)
    }

    /// Nodes that were not offline from the start.
    pub fn online_nodes(&self) -> usize {
        self.nodes.iter().filter(|s| s.online).count()
    }

    fn max_by<T: Ord + Copy>(&self, f: impl Fn(&NodeStats) -> T) -> Option<(NodeId, T)> {
        let mut best: Option<(NodeId, T)> = None;
        for (i, s) in self.nodes.iter().enumerate() {
            let v = f(s);
            let better = match best {
                None => true,
                Some((_, b)) => v > b,
            };
            if better {
                best = Some((node_id(i), v));
            }
        }
        best
    }

    /// The headline numbers.
    pub fn summary(&self) -> Summary {
        let online = self.online_nodes();
        let total_cpu = self.total_cpu();
        let mean_cpu = match u32::try_from(online) {
            Ok(k) if k > 0 => total_cpu / k,
            _ => Duration::ZERO,
        };
        Summary {
            nodes: self.nodes.len(),
            online,
            end: self.end,
            completion: self.completion,
            events: self.events,
            total_messages: self.total_messages(),
            total_bytes: self.total_bytes(),
            total_cpu,
            max_cpu: self.max_cpu(),
            mean_cpu,
            max_bytes_sent: self.max_bytes_sent(),
            max_bytes_received: self.max_bytes_received(),
            root: self.root.and_then(|r| self.node(r).map(|s| (r, s.clone()))),
            drops: self.drops,
        }
    }

    /// A copy with the wall-clock measurements (`cpu`) zeroed, leaving only simulated
    /// quantities; two runs with the same seed and a deterministic compute model compare
    /// equal after this.
    pub fn without_measurements(&self) -> Report {
        let mut r = self.clone();
        for s in &mut r.nodes {
            s.cpu = Duration::ZERO;
        }
        r
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "nodes {} ({} online), end {:?}, completion {}, {} events",
            self.nodes, self.online, self.end, self.completion, self.events
        )?;
        writeln!(
            f,
            "traffic: {} messages, {} bytes; dropped {} (lost {}, offline {}, misaddressed {})",
            self.total_messages,
            self.total_bytes,
            self.drops.total(),
            self.drops.lost,
            self.drops.to_offline,
            self.drops.misaddressed
        )?;
        write!(
            f,
            "cpu: total {:?}, mean {:?}",
            self.total_cpu, self.mean_cpu
        )?;
        if let Some((n, d)) = self.max_cpu {
            write!(f, ", max {d:?} at {n}")?;
        }
        if let Some((n, b)) = self.max_bytes_sent {
            write!(f, "\nmax sent {b} B at {n}")?;
        }
        if let Some((n, b)) = self.max_bytes_received {
            write!(f, ", max received {b} B at {n}")?;
        }
        if let Some((n, s)) = &self.root {
            write!(
                f,
                "\nroot {n}: cpu {:?}, {} calls, sent {} msgs / {} B, received {} msgs / {} B",
                s.cpu,
                s.handler_calls,
                s.messages_sent,
                s.bytes_sent,
                s.messages_received,
                s.bytes_received
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.summary(), f)
    }
}
