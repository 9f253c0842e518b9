//! The interface between the session runtime and a protocol: a sans-I/O driver of round
//! functions. The runtime owns transport, envelopes, deadlines, persistence and blame
//! evidence; the driver owns the protocol's math and never does I/O.
//!
//! Life of a driver (one per node per session attempt):
//! 1. [`Protocol::driver`] builds it from the accepted proposal ([`SessionContext`]).
//! 2. [`ProtocolDriver::start`] returns the messages of round 1.
//! 3. For `r = 1, 2, …` the runtime waits (with the round deadline) until it holds one
//!    message of round `r` from every node in [`ProtocolDriver::expected_from`]`(r)`, each at
//!    most [`ProtocolDriver::max_payload`]`(r)` bytes, then calls
//!    [`ProtocolDriver::handle`]`(r, messages)`, which returns the messages of round `r + 1`
//!    ([`Step::Next`]) or the session's public output ([`Step::Done`]), or blames.
//!
//! Each node sends each recipient at most one payload per round (a [`Recipient::All`]
//! broadcast counts for every recipient); a protocol round with both a broadcast and a
//! point-to-point part packs them into one payload per recipient.

use std::collections::BTreeMap;

use serde_json::Value;

pub use crate::envelope::Recipient;

/// One message the driver wants sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// Recipient: every other participant, or one.
    pub to: Recipient,
    /// Opaque payload (the protocol's own encoding).
    pub payload: Vec<u8>,
}

/// One verified message handed to the driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incoming {
    /// Sender (its envelope signature has been verified against the roster).
    pub from: u16,
    /// Whether it was a broadcast or addressed to us.
    pub to: Recipient,
    /// Payload (at most `max_payload(round)` bytes).
    pub payload: Vec<u8>,
}

/// What a round function returns.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Send these messages as the next round's.
    Next(Vec<Outgoing>),
    /// The session is finished; this public output is the result (never a secret: drivers
    /// store secret outputs themselves, e.g. in the keystore, before returning).
    Done(Value),
}

/// A driver's failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DriverError {
    /// These nodes cheated; the runtime attaches their signed messages of the round as
    /// evidence.
    #[error("blame {culprits:?}: {reason}")]
    Blame {
        /// Culprits' node ids.
        culprits: Vec<u16>,
        /// What they did.
        reason: String,
    },
    /// Failure with nobody to blame (bad parameters, local storage, ...).
    #[error("{0}")]
    Failed(String),
}

/// Everything a driver is built from: the accepted proposal, seen from one node.
#[derive(Clone, Debug)]
pub struct SessionContext {
    /// This node's id.
    pub self_id: u16,
    /// Participants, sorted, including this node.
    pub participants: Vec<u16>,
    /// Coordinator's node id.
    pub coordinator: u16,
    /// Protocol parameters from the proposal (the protocol defines their schema).
    pub params: Value,
    /// Key id.
    pub key_id: String,
    /// Epoch.
    pub epoch: u64,
    /// Attempt number.
    pub attempt: u32,
    /// Session id: hash of the proposal, bound into every envelope.
    pub session_id: [u8; 32],
    /// The operator's request id.
    pub request_id: String,
}

impl SessionContext {
    /// Participants other than this node.
    pub fn others(&self) -> Vec<u16> {
        self.participants
            .iter()
            .copied()
            .filter(|&p| p != self.self_id)
            .collect()
    }
}

/// One node's state machine for one session attempt.
pub trait ProtocolDriver: Send {
    /// Messages of round 1.
    fn start(&mut self) -> Result<Vec<Outgoing>, DriverError>;
    /// Nodes that must send us a message in `round` (default: every other participant).
    fn expected_from(&self, round: u16) -> Vec<u16>;
    /// Largest payload accepted in `round`; a bigger one is refused (and its sender blamed)
    /// before the driver sees it.
    fn max_payload(&self, round: u16) -> usize;
    /// Round function: all messages of `round`, keyed by sender.
    fn handle(
        &mut self,
        round: u16,
        incoming: BTreeMap<u16, Incoming>,
    ) -> Result<Step, DriverError>;
}

/// A protocol the node can run: builds drivers and says how small a participant set may
/// get when retries exclude culprits.
pub trait Protocol: Send + Sync {
    /// Name bound into envelopes, e.g. `ecdsa-sign` (`[a-z0-9._-]`, at most 32 bytes).
    fn name(&self) -> &'static str;
    /// Version bound into envelopes.
    fn version(&self) -> u16;
    /// Smallest number of participants a run of these parameters may have (retries that
    /// exclude culprits stop below it).
    fn min_participants(&self, params: &Value) -> Result<usize, String>;
    /// Builds this node's driver, or refuses (the reason is sent to the other participants).
    fn driver(&self, ctx: &SessionContext) -> Result<Box<dyn ProtocolDriver>, String>;
    /// Whether the coordinator answers only once every other participant has reported its
    /// driver done (a `done` control message), for protocols whose result must be in place on
    /// every participant when the operator gets the answer (a key every holder committed).
    /// A participant that does not report within a round deadline delays the answer by that
    /// much and is logged; the outcome stays the coordinator's. Default: no.
    fn confirms_done(&self) -> bool {
        false
    }
    /// Whether a finished session of this protocol carries no state worth keeping (a
    /// read-only query): the runtime then prunes its finished records from the session store
    /// beyond the newest few ([`crate::session::Runtime::spawn_pruner`]). Such a protocol's
    /// sessions always run under the derived key id of their request id, and no other
    /// protocol may use a key id under its name, so pruning never touches another key's
    /// attempts. Default: no.
    fn ephemeral(&self) -> bool {
        false
    }
    /// Whether [`Protocol::driver`] and [`ProtocolDriver::start`] touch nothing but memory
    /// and reads (no keystore write, nothing a dropped driver must undo), so the runtime may
    /// run them while the attempt's claim is being made durable, and drop the driver unused if
    /// the claim fails. Either way no message of the attempt leaves the node before its claim
    /// is on disk. Default: no (the driver is built after the claim).
    fn starts_before_claim(&self) -> bool {
        false
    }
}
