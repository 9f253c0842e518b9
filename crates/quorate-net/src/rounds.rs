//! Lock-step drivers for round-based sans-I/O protocols.
//!
//! A [`RoundParty`] is a protocol party written as a sequence of round functions, each of
//! which consumes the party's state by value together with the messages addressed to it
//! in the previous round, and returns the next state plus its outgoing messages (or a
//! final output). The same implementation runs under two drivers:
//!
//! * [`run_rounds`]: all parties in one process, in lock step, with no network at all.
//!   Round `r` of every party sees exactly the messages sent to it in round `r - 1`,
//!   sorted by sender. Ideal for functional and blame tests.
//! * [`Lockstep`]: an adapter that turns a `RoundParty` into a [`Process`] so that the
//!   [`Simulation`](crate::Simulation) can run it over a modelled network. A party runs
//!   round `r` once [`RoundParty::expected_messages`] messages from round `r - 1` have
//!   arrived, or when an optional per-round timeout fires (so that a missing party leads
//!   to the protocol's own abort-with-blame path rather than a stall).
//!
//! ```
//! use quorate_net::rounds::{run_rounds, Lockstep, Outgoing, RoundParty, Step};
//! use quorate_net::{
//!     ComputeModel, NetworkModel, NodeId, SimConfig, SimTime, Simulation, StopCondition,
//! };
//! use std::time::Duration;
//!
//! /// Everyone broadcasts a number; everyone outputs the maximum.
//! struct Max {
//!     n: usize,
//!     mine: u64,
//! }
//!
//! impl RoundParty for Max {
//!     type Message = u64; // 8 bytes on the wire
//!     type Output = u64;
//!     type Error = &'static str;
//!
//!     fn expected_messages(&self, _round: u32) -> usize {
//!         self.n - 1
//!     }
//!
//!     fn round(
//!         self,
//!         round: u32,
//!         inbound: Vec<(NodeId, u64)>,
//!     ) -> Result<Step<Self, u64, u64>, Self::Error> {
//!         match round {
//!             0 => {
//!                 let mine = self.mine;
//!                 Ok(Step::Next(self, vec![Outgoing::Broadcast(mine)]))
//!             }
//!             1 if inbound.len() == self.n - 1 => {
//!                 let max = inbound.iter().map(|(_, v)| *v).fold(self.mine, u64::max);
//!                 Ok(Step::Done(max, vec![]))
//!             }
//!             _ => Err("missing messages"),
//!         }
//!     }
//! }
//!
//! let parties = || (0..10u64).map(|i| Max { n: 10, mine: i * 3 % 7 }).collect::<Vec<_>>();
//!
//! // In lock step, no network:
//! let outputs = run_rounds(parties(), 5).into_outputs().expect("all finish");
//! assert_eq!(outputs, vec![6; 10]);
//!
//! // The same parties over a 25 ms network:
//! let nodes = parties().into_iter().map(Lockstep::new).collect();
//! let config = SimConfig::default()
//!     .with_compute(ComputeModel::Ignore)
//!     .stop_when(StopCondition::AllOutputs);
//! let network = NetworkModel::constant(Duration::from_millis(25));
//! let mut sim = Simulation::new(nodes, network, config)?;
//! let report = sim.run();
//! assert_eq!(report.completion, SimTime::from_millis(25));
//! assert_eq!(sim.outputs(NodeId(3))[0].1, Ok(6));
//! # Ok::<(), quorate_net::SimError>(())
//! ```

use crate::id::{NodeId, TimerId};
use crate::process::{Context, Process};
use crate::stats::NodeStats;
use crate::wire::WireSize;
use core::fmt;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A message produced by a round function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outgoing<M> {
    /// Point-to-point.
    To(NodeId, M),
    /// The same message to several parties (one copy each on the wire).
    Multicast(Vec<NodeId>, M),
    /// The same message to every other party (one copy each on the wire).
    Broadcast(M),
}

/// What a round function returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step<S, M, O> {
    /// Continue with state `S` in the next round after sending these messages.
    Next(S, Vec<Outgoing<M>>),
    /// Finished with an output; these last messages are still delivered.
    Done(O, Vec<Outgoing<M>>),
}

/// A party of a round-based, sans-I/O protocol.
///
/// Round `0` is called with no messages; round `r > 0` with the messages other parties
/// addressed to this one in their round `r - 1`, sorted by sender (messages from the same
/// sender keep their order). The state is consumed by value, so a round cannot be
/// replayed by mistake; type-state protocols wrap their per-round types in an enum.
pub trait RoundParty: Sized {
    /// The wire message.
    type Message: Clone + WireSize;
    /// The final result.
    type Output;
    /// The protocol's error (typically carrying blame).
    type Error;

    /// How many messages from round `round - 1` this party needs before it can run
    /// `round` (never called for round 0). [`Lockstep`] waits for this many; [`run_rounds`]
    /// ignores it and always delivers everything that was sent.
    fn expected_messages(&self, round: u32) -> usize;

    /// Runs round `round` on the messages addressed to this party in round `round - 1`.
    fn round(
        self,
        round: u32,
        inbound: Vec<(NodeId, Self::Message)>,
    ) -> Result<Step<Self, Self::Message, Self::Output>, Self::Error>;
}

/// The result of [`run_rounds`].
#[derive(Debug)]
pub struct RoundsOutcome<O, E> {
    /// Each party's result, or `None` if it had not finished within the round limit.
    pub results: Vec<Option<Result<O, E>>>,
    /// The round in which each party returned its output or error.
    pub finished_in: Vec<Option<u32>>,
    /// Rounds executed.
    pub rounds: u32,
    /// Per-party counters (measured CPU, calls, messages and bytes; no simulated time).
    pub stats: Vec<NodeStats>,
    /// Messages addressed to parties that had already finished or to unknown ids.
    pub undelivered: u64,
}

/// Why [`RoundsOutcome::into_outputs`] could not return every output.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RoundsFailure<E> {
    /// A party returned an error (the lowest-numbered one is reported).
    Failed {
        /// The failing party.
        node: NodeId,
        /// Its error.
        error: E,
    },
    /// These parties had not finished within the round limit.
    Unfinished {
        /// The parties still running.
        nodes: Vec<NodeId>,
    },
}

impl<E: fmt::Display> fmt::Display for RoundsFailure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoundsFailure::Failed { node, error } => write!(f, "party {node} failed: {error}"),
            RoundsFailure::Unfinished { nodes } => {
                write!(f, "{} parties did not finish: {nodes:?}", nodes.len())
            }
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for RoundsFailure<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RoundsFailure::Failed { error, .. } => Some(error),
            RoundsFailure::Unfinished { .. } => None,
        }
    }
}

fn node_at(i: usize) -> NodeId {
    NodeId(u32::try_from(i).unwrap_or(u32::MAX))
}

impl<O, E> RoundsOutcome<O, E> {
    /// Every output in party order, or the first error / the unfinished parties.
    pub fn into_outputs(self) -> Result<Vec<O>, RoundsFailure<E>> {
        let mut outputs = Vec::with_capacity(self.results.len());
        let mut unfinished = Vec::new();
        for (i, r) in self.results.into_iter().enumerate() {
            match r {
                Some(Ok(o)) => outputs.push(o),
                Some(Err(error)) => {
                    return Err(RoundsFailure::Failed {
                        node: node_at(i),
                        error,
                    })
                }
                None => unfinished.push(node_at(i)),
            }
        }
        if unfinished.is_empty() {
            Ok(outputs)
        } else {
            Err(RoundsFailure::Unfinished { nodes: unfinished })
        }
    }

    /// The parties that returned an error, with their errors.
    pub fn failures(&self) -> Vec<(NodeId, &E)> {
        self.results
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r {
                Some(Err(e)) => Some((node_at(i), e)),
                _ => None,
            })
            .collect()
    }
}

/// Runs `parties` (party `i` is [`NodeId`] `i`) in lock step until every one has returned
/// an output or an error, or `max_rounds` rounds have run.
///
/// Round functions are timed with [`Instant`] and the per-party totals are reported in
/// [`RoundsOutcome::stats`] together with exact message and byte counts (wire sizes, no
/// framing overhead).
pub fn run_rounds<P: RoundParty>(
    parties: Vec<P>,
    max_rounds: u32,
) -> RoundsOutcome<P::Output, P::Error> {
    let n = parties.len();
    let mut states: Vec<Option<P>> = parties.into_iter().map(Some).collect();
    let mut results: Vec<Option<Result<P::Output, P::Error>>> = (0..n).map(|_| None).collect();
    let mut finished_in = vec![None; n];
    let mut stats: Vec<NodeStats> = (0..n)
        .map(|_| NodeStats {
            online: true,
            ..NodeStats::default()
        })
        .collect();
    let mut inboxes: Vec<Vec<(NodeId, P::Message)>> = (0..n).map(|_| Vec::new()).collect();
    let mut undelivered = 0u64;
    let mut rounds = 0;
    for round in 0..max_rounds {
        if states.iter().all(Option::is_none) {
            break;
        }
        let mut next: Vec<Vec<(NodeId, P::Message)>> = (0..n).map(|_| Vec::new()).collect();
        for i in 0..n {
            let inbound = std::mem::take(&mut inboxes[i]);
            let Some(party) = states[i].take() else {
                undelivered += inbound.len() as u64;
                continue;
            };
            let s = &mut stats[i];
            s.messages_received += inbound.len() as u64;
            s.bytes_received += inbound
                .iter()
                .map(|(_, m)| m.wire_size() as u64)
                .sum::<u64>();
            let t0 = Instant::now();
            let res = party.round(round, inbound);
            s.cpu += t0.elapsed();
            s.handler_calls += 1;
            let out = match res {
                Ok(Step::Next(state, out)) => {
                    states[i] = Some(state);
                    out
                }
                Ok(Step::Done(o, out)) => {
                    s.outputs += 1;
                    results[i] = Some(Ok(o));
                    finished_in[i] = Some(round);
                    out
                }
                Err(e) => {
                    results[i] = Some(Err(e));
                    finished_in[i] = Some(round);
                    Vec::new()
                }
            };
            let me = node_at(i);
            let mut deliver = |to: NodeId, msg: P::Message, s: &mut NodeStats| {
                s.messages_sent += 1;
                s.bytes_sent += msg.wire_size() as u64;
                match next.get_mut(to.index()) {
                    Some(inbox) => inbox.push((me, msg)),
                    None => undelivered += 1,
                }
            };
            for o in out {
                match o {
                    Outgoing::To(to, msg) => deliver(to, msg, s),
                    Outgoing::Multicast(to, msg) => {
                        for t in to {
                            deliver(t, msg.clone(), s);
                        }
                    }
                    Outgoing::Broadcast(msg) => {
                        for j in (0..n).filter(|&j| j != i) {
                            deliver(node_at(j), msg.clone(), s);
                        }
                    }
                }
            }
        }
        inboxes = next;
        rounds = round + 1;
    }
    undelivered += inboxes.iter().map(|b| b.len() as u64).sum::<u64>();
    RoundsOutcome {
        results,
        finished_in,
        rounds,
        stats,
        undelivered,
    }
}

/// A message of a [`Lockstep`] party, tagged with the round that sent it.
///
/// Its [`WireSize`] is the inner message's: real encodings already carry a type tag that
/// identifies the round, so the tag costs nothing extra on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tagged<M> {
    /// The sender's round.
    pub round: u32,
    /// The protocol message.
    pub msg: M,
}

impl<M: WireSize> WireSize for Tagged<M> {
    fn wire_size(&self) -> usize {
        self.msg.wire_size()
    }
}

/// Runs a [`RoundParty`] as a [`Process`] in the event-driven simulator.
///
/// Round 0 runs at start-up. Round `r` runs as soon as
/// [`expected_messages(r)`](RoundParty::expected_messages) messages from round `r - 1`
/// have arrived (early messages for later rounds are buffered), or, if a timeout is set,
/// when the timeout expires: then it runs with whatever has arrived, so the protocol can
/// abort and blame the missing parties. The output is the party's `Result`.
/// "Broadcast" means every other node of the simulation.
pub struct Lockstep<P: RoundParty> {
    party: Option<P>,
    next_round: u32,
    buffered: BTreeMap<u32, Vec<(NodeId, P::Message)>>,
    timeout: Option<Duration>,
    result: Option<Result<P::Output, P::Error>>,
    finished: bool,
    late: u64,
}

impl<P: RoundParty> Lockstep<P> {
    /// Wraps `party`; rounds wait indefinitely for their messages.
    pub fn new(party: P) -> Self {
        Lockstep {
            party: Some(party),
            next_round: 0,
            buffered: BTreeMap::new(),
            timeout: None,
            result: None,
            finished: false,
            late: 0,
        }
    }

    /// Runs each round at most `timeout` (simulated) after the previous one finished,
    /// even if messages are missing.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The next round to run.
    pub fn next_round(&self) -> u32 {
        self.next_round
    }

    /// Whether the party has produced its output or error.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The party's current state, if it has not finished.
    pub fn party(&self) -> Option<&P> {
        self.party.as_ref()
    }

    /// Messages that arrived after their round had already run (or after the party
    /// finished) and were ignored.
    pub fn late_messages(&self) -> u64 {
        self.late
    }

    fn timer_for(round: u32) -> TimerId {
        TimerId(u64::from(round))
    }

    fn run_round(&mut self, ctx: &mut Context<'_, Tagged<P::Message>>) {
        let Some(party) = self.party.take() else {
            return;
        };
        let r = self.next_round;
        let mut inbound = match r.checked_sub(1) {
            Some(prev) => self.buffered.remove(&prev).unwrap_or_default(),
            None => Vec::new(),
        };
        inbound.sort_by_key(|(from, _)| *from);
        if self.timeout.is_some() && r > 0 {
            ctx.cancel_timer(Self::timer_for(r));
        }
        match party.round(r, inbound) {
            Ok(Step::Next(state, out)) => {
                Self::send(r, out, ctx);
                self.party = Some(state);
                self.next_round = r + 1;
                if let Some(d) = self.timeout {
                    ctx.set_timer(d, Self::timer_for(r + 1));
                }
            }
            Ok(Step::Done(output, out)) => {
                Self::send(r, out, ctx);
                self.finish(Ok(output));
            }
            Err(e) => self.finish(Err(e)),
        }
    }

    fn finish(&mut self, result: Result<P::Output, P::Error>) {
        self.result = Some(result);
        self.finished = true;
        self.late += self.buffered.values().map(|v| v.len() as u64).sum::<u64>();
        self.buffered.clear();
    }

    fn send(round: u32, out: Vec<Outgoing<P::Message>>, ctx: &mut Context<'_, Tagged<P::Message>>) {
        for o in out {
            match o {
                Outgoing::To(to, msg) => ctx.send(to, Tagged { round, msg }),
                Outgoing::Multicast(to, msg) => ctx.multicast(to, Tagged { round, msg }),
                Outgoing::Broadcast(msg) => ctx.broadcast(Tagged { round, msg }),
            }
        }
    }

    fn advance(&mut self, ctx: &mut Context<'_, Tagged<P::Message>>) {
        loop {
            let Some(party) = &self.party else {
                return;
            };
            let r = self.next_round;
            let Some(prev) = r.checked_sub(1) else {
                return;
            };
            let have = self.buffered.get(&prev).map_or(0, Vec::len);
            if have < party.expected_messages(r) {
                return;
            }
            self.run_round(ctx);
        }
    }
}

impl<P: RoundParty> Process for Lockstep<P> {
    type Message = Tagged<P::Message>;
    type Output = Result<P::Output, P::Error>;

    fn start(&mut self, ctx: &mut Context<'_, Self::Message>) {
        if self.next_round == 0 {
            self.run_round(ctx);
            self.advance(ctx);
        }
    }

    fn on_message(
        &mut self,
        from: NodeId,
        msg: Self::Message,
        ctx: &mut Context<'_, Self::Message>,
    ) {
        if self.party.is_none() || msg.round.saturating_add(1) < self.next_round {
            self.late += 1;
            return;
        }
        self.buffered
            .entry(msg.round)
            .or_default()
            .push((from, msg.msg));
        self.advance(ctx);
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut Context<'_, Self::Message>) {
        if self.party.is_some() && timer == Self::timer_for(self.next_round) {
            self.run_round(ctx);
            self.advance(ctx);
        }
    }

    fn take_output(&mut self) -> Option<Self::Output> {
        self.result.take()
    }
}
