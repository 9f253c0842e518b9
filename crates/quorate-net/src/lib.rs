//! # quorate-net: sans-I/O driver and network simulator
//!
//! quorate protocols are written sans-I/O: round functions that consume a party's state
//! and the messages it received and return the next state and the messages to send. This
//! crate runs them:
//!
//! * [`Simulation`]: a deterministic discrete-event simulator that runs thousands of
//!   parties in one process, each a [`Process`] driven by start, message and timer events.
//!   It models per-link latency (constant or per-link, with seeded jitter), per-node
//!   uplink/downlink bandwidth with serialization delay and FIFO queueing, message loss,
//!   offline and crashing nodes, and charges each node the CPU time its handlers really
//!   take ([`ComputeModel`]). It records per-node CPU time, handler calls, and messages and
//!   bytes sent and received ([`Report`]). Nothing in it is specific to one protocol.
//! * [`rounds`]: lock-step helpers for round-based protocols: [`run_rounds`] runs all
//!   parties in one process without a network, and [`Lockstep`] runs the very same
//!   [`RoundParty`] inside the simulator.
//! * [`topology`]: index-based n-ary trees for aggregation protocols such as CoSi.
//!
//! Parties are identified as in production: node `i` is
//! [`PartyId`](quorate_core::party::PartyId) `i + 1` (see [`NodeId`]). Message sizes come
//! from the protocols' real encodings through [`WireSize`]. The [`notes`] explain the
//! model: what is measured and what is simulated, how bandwidth queueing works, and when
//! runs are reproducible.
//!
//! ## Example: adapting a sans-I/O protocol
//!
//! A toy protocol in sans-I/O style (it knows nothing about networks): members encode a
//! contribution, and a leader state absorbs contributions by value until it has them
//! all. The adapter implements [`Process`] by feeding received messages to the round
//! function and sending what the protocol produces.
//!
//! ```
//! use quorate_net::{
//!     ComputeModel, Context, NetworkModel, NodeId, Process, SimConfig, SimTime, Simulation,
//!     StopCondition,
//! };
//! use std::time::Duration;
//!
//! // ---- the protocol: pure functions, state consumed by value ----
//! struct Collecting {
//!     missing: usize,
//!     sum: u64,
//! }
//! enum Progress {
//!     Waiting(Collecting),
//!     Done(u64),
//! }
//! fn contribute(value: u64) -> Vec<u8> {
//!     value.to_be_bytes().to_vec() // the canonical encoding
//! }
//! fn absorb(state: Collecting, msg: &[u8]) -> Progress {
//!     let value = <[u8; 8]>::try_from(msg).map(u64::from_be_bytes).unwrap_or(0);
//!     let next = Collecting { missing: state.missing - 1, sum: state.sum + value };
//!     if next.missing == 0 { Progress::Done(next.sum) } else { Progress::Waiting(next) }
//! }
//!
//! // ---- the adapter: the same glue a production transport would use ----
//! enum Node {
//!     Member(u64),
//!     Leader { state: Option<Collecting>, out: Option<u64> },
//! }
//! impl Process for Node {
//!     type Message = Vec<u8>; // WireSize is the encoded length
//!     type Output = u64;
//!     fn start(&mut self, ctx: &mut Context<'_, Vec<u8>>) {
//!         if let Node::Member(v) = self {
//!             ctx.send(NodeId(0), contribute(*v));
//!         }
//!     }
//!     fn on_message(&mut self, _from: NodeId, msg: Vec<u8>, _ctx: &mut Context<'_, Vec<u8>>) {
//!         if let Node::Leader { state, out } = self {
//!             if let Some(s) = state.take() {
//!                 match absorb(s, &msg) {
//!                     Progress::Waiting(s) => *state = Some(s),
//!                     Progress::Done(sum) => *out = Some(sum),
//!                 }
//!             }
//!         }
//!     }
//!     fn take_output(&mut self) -> Option<u64> {
//!         match self {
//!             Node::Leader { out, .. } => out.take(),
//!             Node::Member(_) => None,
//!         }
//!     }
//! }
//!
//! let n = 100u64;
//! let mut nodes = vec![Node::Leader {
//!     state: Some(Collecting { missing: 99, sum: 0 }),
//!     out: None,
//! }];
//! nodes.extend((1..n).map(Node::Member));
//!
//! let config = SimConfig::default()
//!     .with_compute(ComputeModel::Ignore) // deterministic timestamps
//!     .stop_when(StopCondition::OutputFrom(NodeId(0)));
//! let network = NetworkModel::constant(Duration::from_millis(20));
//! let mut sim = Simulation::new(nodes, network, config)?;
//! let report = sim.run();
//!
//! // One one-way latency after start, the leader has every contribution.
//! let (at, sum) = sim.first_output(NodeId(0)).copied().expect("leader finished");
//! assert_eq!((at, sum), (SimTime::from_millis(20), (1..n).sum()));
//! assert_eq!(report.total_messages(), 99);
//! assert_eq!(report.total_bytes(), 99 * 8);
//! println!("{report}");
//! # Ok::<(), quorate_net::SimError>(())
//! ```
//!
//! Round-based protocols can skip the hand-written adapter: implement [`RoundParty`] once
//! and use [`run_rounds`] for in-process tests and [`Lockstep`] for simulation (see the
//! [`rounds`] module).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod compute;
mod id;
mod network;
pub mod notes;
mod process;
mod queue;
pub mod rounds;
mod sim;
mod stats;
mod time;
pub mod topology;
mod wire;

pub use compute::ComputeModel;
pub use id::{NodeId, TimerId};
pub use network::{Bandwidth, Latency, NetworkModel, Nic};
pub use process::{Context, Process};
pub use rounds::{
    run_rounds, Lockstep, Outgoing, RoundParty, RoundsFailure, RoundsOutcome, Step, Tagged,
};
pub use sim::{CpuClock, SimConfig, SimError, Simulation, StopCondition, Stopwatch};
pub use stats::{DropStats, EndReason, NodeStats, Report, Summary};
pub use time::SimTime;
pub use topology::NaryTree;
pub use wire::WireSize;
