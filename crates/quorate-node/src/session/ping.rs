//! `ping`: a two-round liveness protocol built into every node. It exercises the whole path
//! (proposal, policy, envelopes, deadlines, blame) without any key material, so operators can
//! test a roster end to end and the runtime's tests have a protocol to drive.
//!
//! - Round 1: every participant broadcasts a fresh 32-byte nonce.
//! - Round 2: every participant broadcasts `T = SHA-256("quorate/ping/v1" ‖ session id ‖
//!   (id ‖ nonce) for every participant in id order)`.
//! - Output: `{"transcript": hex(T), "participants": [...]}`. A participant whose round-2
//!   transcript differs from ours is blamed (its signed round-2 envelope is the evidence),
//!   as is one whose nonce is not 32 bytes.

use std::collections::BTreeMap;

use rand_core::{OsRng, RngCore};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::driver::{
    DriverError, Incoming, Outgoing, Protocol, ProtocolDriver, Recipient, SessionContext, Step,
};

/// Protocol name.
pub const NAME: &str = "ping";

/// A test-only misbehaviour of this node in `ping` sessions.
#[cfg(feature = "test-faults")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PingFault {
    /// Send nothing from this round on.
    SilentInRound(u16),
    /// Send a wrong round-2 transcript.
    WrongTranscript,
}

/// The `ping` protocol.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ping {
    /// Test-only fault injection.
    #[cfg(feature = "test-faults")]
    pub fault: Option<PingFault>,
}

impl Protocol for Ping {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> u16 {
        1
    }

    fn min_participants(&self, _params: &Value) -> Result<usize, String> {
        Ok(2)
    }

    fn starts_before_claim(&self) -> bool {
        true
    }

    fn driver(&self, ctx: &SessionContext) -> Result<Box<dyn ProtocolDriver>, String> {
        if !ctx.params.is_null() && ctx.params != json!({}) {
            return Err("ping takes no parameters".into());
        }
        let mut nonce = [0u8; 32];
        OsRng.fill_bytes(&mut nonce);
        Ok(Box::new(PingDriver {
            ctx: ctx.clone(),
            nonce,
            transcript: None,
            #[cfg(feature = "test-faults")]
            fault: self.fault,
        }))
    }
}

struct PingDriver {
    ctx: SessionContext,
    nonce: [u8; 32],
    transcript: Option<[u8; 32]>,
    #[cfg(feature = "test-faults")]
    fault: Option<PingFault>,
}

impl PingDriver {
    fn silent_in(&self, _round: u16) -> bool {
        #[cfg(feature = "test-faults")]
        if let Some(PingFault::SilentInRound(r)) = self.fault {
            return _round >= r;
        }
        false
    }

    fn broadcast(&self, round: u16, payload: Vec<u8>) -> Vec<Outgoing> {
        if self.silent_in(round) {
            return vec![];
        }
        vec![Outgoing {
            to: Recipient::All,
            payload,
        }]
    }
}

impl ProtocolDriver for PingDriver {
    fn start(&mut self) -> Result<Vec<Outgoing>, DriverError> {
        Ok(self.broadcast(1, self.nonce.to_vec()))
    }

    fn expected_from(&self, _round: u16) -> Vec<u16> {
        self.ctx.others()
    }

    fn max_payload(&self, _round: u16) -> usize {
        32
    }

    fn handle(
        &mut self,
        round: u16,
        incoming: BTreeMap<u16, Incoming>,
    ) -> Result<Step, DriverError> {
        match round {
            1 => {
                let bad: Vec<u16> = incoming
                    .values()
                    .filter(|m| m.payload.len() != 32)
                    .map(|m| m.from)
                    .collect();
                if !bad.is_empty() {
                    return Err(DriverError::Blame {
                        culprits: bad,
                        reason: "nonce is not 32 bytes".into(),
                    });
                }
                let mut h = Sha256::new();
                h.update(b"quorate/ping/v1");
                h.update(self.ctx.session_id);
                for &p in &self.ctx.participants {
                    let nonce = if p == self.ctx.self_id {
                        &self.nonce[..]
                    } else {
                        match incoming.get(&p) {
                            Some(m) => &m.payload[..],
                            None => {
                                return Err(DriverError::Failed(format!("no nonce from node {p}")))
                            }
                        }
                    };
                    h.update(p.to_be_bytes());
                    h.update(nonce);
                }
                let t: [u8; 32] = h.finalize().into();
                self.transcript = Some(t);
                #[allow(unused_mut)]
                let mut sent = t;
                #[cfg(feature = "test-faults")]
                if self.fault == Some(PingFault::WrongTranscript) {
                    sent[0] ^= 1;
                }
                Ok(Step::Next(self.broadcast(2, sent.to_vec())))
            }
            2 => {
                let t = self
                    .transcript
                    .ok_or_else(|| DriverError::Failed("round 2 before round 1".into()))?;
                let bad: Vec<u16> = incoming
                    .values()
                    .filter(|m| m.payload != t)
                    .map(|m| m.from)
                    .collect();
                if !bad.is_empty() {
                    return Err(DriverError::Blame {
                        culprits: bad,
                        reason: "transcript differs from ours".into(),
                    });
                }
                Ok(Step::Done(json!({
                    "transcript": hex::encode(t),
                    "participants": self.ctx.participants,
                })))
            }
            r => Err(DriverError::Failed(format!("ping has no round {r}"))),
        }
    }
}
