//! The session runtime: proposals, participant policy, persisted attempts, round deadlines
//! and culprit naming, generic over sans-I/O protocol drivers ([`driver::ProtocolDriver`]).
//!
//! - A **coordinator** (the node whose operator API received the request) proposes a session:
//!   protocol, parameters, participants and the operator's request id. The proposal's hash is
//!   the session id bound into every envelope.
//! - Each participant's [`policy::Policy`] accepts or refuses; a refusal is sent to every
//!   participant, who abort at once naming the refuser.
//! - Every attempt is claimed in the [`store::SessionStore`] under (key id, epoch, attempt)
//!   before any message is sent: an attempt never reruns, and a request id that was seen
//!   before returns its recorded result instead of running again.
//! - Every round has a deadline; a peer that misses it is named ("waiting for node 3 in round
//!   2") and the coordinator retries without the culprits while the protocol's minimum
//!   participant count allows.

pub mod bls;
pub mod driver;
pub mod ecdsa;
pub mod ping;
pub mod policy;
pub mod runtime;
pub mod store;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use runtime::{Runtime, RuntimeConfig};

/// Largest accepted request id, in bytes.
pub const MAX_REQUEST_ID: usize = 128;

/// (key id, epoch, attempt): the unit that is persisted and never rerun.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AttemptKey {
    /// Key id.
    pub key_id: String,
    /// Epoch.
    pub epoch: u64,
    /// Attempt number.
    pub attempt: u32,
}

/// What an operator asks for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRequest {
    /// Operator-chosen idempotency key (1..=128 bytes of `[A-Za-z0-9._:-]`).
    pub request_id: String,
    /// Protocol name.
    pub protocol: String,
    /// Protocol parameters.
    #[serde(default)]
    pub params: Value,
    /// Participants' node ids (the coordinator must be one of them).
    pub participants: Vec<u16>,
    /// Key id (1..=128 characters of `[A-Za-z0-9._:-]`); derived from the protocol and the
    /// request id when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// Key epoch.
    #[serde(default)]
    pub epoch: u64,
    /// Per-round deadline in milliseconds (the node's default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_timeout_ms: Option<u64>,
}

/// A session proposal as sent by the coordinator (round 0 of the session).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proposal {
    /// Protocol name.
    pub protocol: String,
    /// Protocol version.
    pub protocol_version: u16,
    /// Protocol parameters.
    pub params: Value,
    /// Participants, sorted and distinct.
    pub participants: Vec<u16>,
    /// Coordinator.
    pub coordinator: u16,
    /// Operator's request id.
    pub request_id: String,
    /// Key id.
    pub key_id: String,
    /// Epoch.
    pub epoch: u64,
    /// Attempt.
    pub attempt: u32,
    /// Per-round deadline in milliseconds.
    pub round_timeout_ms: u64,
}

/// Control messages (round 0 of a session).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Control {
    /// The coordinator's proposal; its payload hash is the session id.
    Propose(Proposal),
    /// A participant refuses the session.
    Refuse {
        /// Why.
        reason: String,
    },
    /// A participant's driver is done (sent to the coordinator of protocols that
    /// [confirm](driver::Protocol::confirms_done) completion).
    Done,
}

/// How one attempt ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// Finished with a public output.
    Completed {
        /// The driver's output.
        output: Value,
    },
    /// Aborted.
    Aborted {
        /// What happened ("timed out waiting for node 3 in round 2").
        reason: String,
        /// Named culprits (empty when nobody can be blamed).
        culprits: Vec<u16>,
        /// Culprits' signed envelopes (hex of the wire encoding); anyone can check them
        /// with [`crate::envelope::Envelope::verify`] and the roster.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        evidence: Vec<String>,
    },
}

impl Outcome {
    /// The named culprits (empty unless aborted with blame).
    pub fn culprits(&self) -> &[u16] {
        match self {
            Outcome::Aborted { culprits, .. } => culprits,
            Outcome::Completed { .. } => &[],
        }
    }
}

/// One attempt of a request, as the coordinator recorded it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// Attempt number.
    pub attempt: u32,
    /// Session id (hex).
    pub session_id: String,
    /// Participants of this attempt.
    pub participants: Vec<u16>,
    /// Outcome, once finished.
    pub outcome: Option<Outcome>,
}

/// Status of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestStatus {
    /// Attempts are running.
    Running,
    /// An attempt completed.
    Completed,
    /// Every attempt aborted.
    Aborted,
}

/// The coordinator's record of one operator request: what the API returns, and what the
/// same request id returns again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestRecord {
    /// The request as submitted.
    pub request: SessionRequest,
    /// Key id used.
    pub key_id: String,
    /// Status.
    pub status: RequestStatus,
    /// Attempts in order.
    pub attempts: Vec<AttemptRecord>,
    /// Output of the completed attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// Why the last attempt aborted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Culprits named by the last aborted attempt.
    #[serde(default)]
    pub culprits: Vec<u16>,
}

/// Session errors (the request itself could not be run; aborts are [`Outcome::Aborted`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// Malformed or unacceptable request.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The request id was used before for a different request.
    #[error("request id {0:?} was already used for a different request")]
    RequestIdReused(String),
    /// Storage failure.
    #[error("session store: {0}")]
    Store(#[from] store::StoreError),
    /// A protocol abort: culprits are named (see [`SessionError::culprits`]).
    #[error("aborted: {}", .0.error.as_deref().unwrap_or("aborted"))]
    Aborted(Box<RequestRecord>),
}

impl SessionError {
    /// The named culprits of an abort.
    pub fn culprits(&self) -> &[u16] {
        match self {
            SessionError::Aborted(r) => &r.culprits,
            _ => &[],
        }
    }
}
