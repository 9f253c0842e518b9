//! `ecdsa-sign`: the library's three signing rounds between the session's participants
//! (a subset of the key's holders of at least `t`), then the combine, and on failure the
//! library's blame or dispute round, which names the culprits.
//!
//! | round | sends | on receipt |
//! |---|---|---|
//! | 1 | `SignMsg1` to every co-signer | `sign::round2` |
//! | 2 | `SignMsg2` to every co-signer | `sign::round3` |
//! | 3 | `SignMsg3` (broadcast) | with two signers, `sign::combine`; with more, `SignRound3::signature` |
//! | 4 (3+ signers) | status: the signature, or "blame" / "dispute" | all signed: done |
//! | 4 (2 signers) or 5 | `BlameMsg` or `DisputeMsg` (broadcast) | `blame::resolve` / `dispute::resolve` names the culprits |
//!
//! With two signers both compute the combine from the same two broadcasts, so an honest
//! signer with a valid signature is done after round 3. With three or more, a signer may see
//! round-3 broadcasts that others did not (an equivocating co-signer), so every signer
//! states its result in round 4 and, if anyone failed, all answer the resolution round (the
//! dispute if anyone saw differing echo digests, otherwise the blame round).
//!
//! Params `{"digest": hex32, "t": T}` (`T` must be the key's threshold: the coordinator
//! retries without culprits down to `T` signers). Key id and epoch are the request's (the
//! key's active epoch on every signer).

use std::collections::BTreeMap;
use std::sync::Arc;

use quorate_ecdsa::sign::{
    self, blame, dispute, BlameMsg, Combined, DisputeMsg, SignMsg1, SignMsg2, SignMsg3, SignRound1,
    SignRound2, SignRound3, Signature,
};
use quorate_ecdsa::{EcdsaError, KeyShare, PartyId, SessionId};
use rand_core::OsRng;
use serde_json::{json, Value};

use super::keygen::{decode_all, to_nodes};
use super::{driver_error, failed, limits, param_u16, EcdsaNode};
use crate::session::driver::{
    DriverError, Incoming, Outgoing, Protocol, ProtocolDriver, Recipient, SessionContext, Step,
};

/// Protocol name.
pub const NAME: &str = "ecdsa-sign";

const STATUS_SIGNED: u8 = 0;
const STATUS_BLAME: u8 = 1;
const STATUS_DISPUTE: u8 = 2;
/// Status payload: tag, then for a signature `r ‖ s` and the recovery id.
const STATUS_LEN: usize = 1 + 64 + 1;

/// The `ecdsa-sign` protocol of one node.
#[derive(Debug)]
pub struct EcdsaSign {
    node: Arc<EcdsaNode>,
}

impl EcdsaSign {
    /// The protocol, loading keys through `node`.
    pub fn new(node: Arc<EcdsaNode>) -> Self {
        Self { node }
    }
}

fn parse_params(params: &Value) -> Result<([u8; 32], u16), String> {
    if let Some(obj) = params.as_object() {
        if let Some(k) = obj.keys().find(|k| *k != "t" && *k != "digest") {
            return Err(format!("unknown parameter {k:?}"));
        }
    }
    let t = param_u16(params, "t")?;
    let digest = params
        .get("digest")
        .and_then(Value::as_str)
        .and_then(|s| hex::decode(s).ok())
        .and_then(|v| <[u8; 32]>::try_from(v).ok())
        .ok_or("parameter \"digest\" must be 32 bytes of hex")?;
    Ok((digest, t))
}

impl Protocol for EcdsaSign {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> u16 {
        1
    }

    fn min_participants(&self, params: &Value) -> Result<usize, String> {
        let (_, t) = parse_params(params)?;
        Ok(usize::from(t.max(2)))
    }

    /// Building the driver reads the share (and caches it); round 1 is computation only.
    fn starts_before_claim(&self) -> bool {
        true
    }

    fn driver(&self, ctx: &SessionContext) -> Result<Box<dyn ProtocolDriver>, String> {
        let (digest, t) = parse_params(&ctx.params)?;
        let (share, cert) = self.node.load_share(&ctx.key_id, ctx.epoch)?;
        if t != cert.t {
            return Err(format!(
                "key {} has threshold {}, not {t}",
                ctx.key_id, cert.t
            ));
        }
        let signers = ctx
            .participants
            .iter()
            .map(|n| cert.party_of(*n))
            .collect::<Result<Vec<PartyId>, String>>()?;
        Ok(Box::new(SignDriver {
            node: self.node.clone(),
            ctx: ctx.clone(),
            holders: cert.holders.clone(),
            public_key: cert.public_key,
            share,
            signers,
            digest,
            state: State::Start,
        }))
    }
}

enum Mine {
    Signed(Box<SignRound3>, Vec<(PartyId, SignMsg3)>, Signature),
    Blame(Box<blame::BlameRound>),
    Dispute(Box<dispute::DisputeRound>),
}

enum State {
    Start,
    R1(Box<SignRound1>),
    R2(Box<SignRound2>),
    R3(Box<SignRound3>),
    /// Three or more signers: our round-4 status is out.
    Status(Mine),
    Blame(blame::BlameState),
    Dispute(dispute::DisputeState),
    Finished,
}

struct SignDriver {
    node: Arc<EcdsaNode>,
    ctx: SessionContext,
    holders: Vec<u16>,
    public_key: [u8; 33],
    share: KeyShare,
    signers: Vec<PartyId>,
    digest: [u8; 32],
    state: State,
}

fn broadcast(payload: Vec<u8>) -> Vec<Outgoing> {
    vec![Outgoing {
        to: Recipient::All,
        payload,
    }]
}

impl SignDriver {
    /// A library error as a driver error; new bans are stored first.
    fn lib_err(&self, e: EcdsaError) -> DriverError {
        if !e.newly_banned().is_empty() {
            self.node
                .store_bans(&self.ctx.key_id, &self.holders, &e, &self.ctx.session_id);
        }
        driver_error(&self.holders, &e)
    }

    fn two_signers(&self) -> bool {
        self.signers.len() == 2
    }

    fn done(&self, sig: &Signature) -> Result<Step, DriverError> {
        let der = sig.to_der().map_err(|e| self.lib_err(e))?;
        Ok(Step::Done(json!({
            "key_id": self.ctx.key_id,
            "epoch": self.ctx.epoch,
            "public_key": hex::encode(self.public_key),
            "digest": hex::encode(self.digest),
            "signature": hex::encode(sig.to_bytes()),
            "der": hex::encode(der),
            "recovery_id": sig.recovery_id(),
            "signers": self.ctx.participants,
        })))
    }

    /// Our answer in the resolution round.
    fn respond_blame(&mut self, b: blame::BlameRound) -> Vec<Outgoing> {
        let (st, msg) = b.respond(&mut OsRng);
        self.state = State::Blame(st);
        broadcast(msg.to_bytes())
    }

    fn respond_dispute(&mut self, d: dispute::DisputeRound) -> Vec<Outgoing> {
        let (st, msg) = d.respond();
        self.state = State::Dispute(st);
        broadcast(msg.to_bytes())
    }

    fn combine(
        &mut self,
        st: SignRound3,
        msgs: Vec<(PartyId, SignMsg3)>,
    ) -> Result<Step, DriverError> {
        if self.two_signers() {
            return match sign::combine(st, &msgs).map_err(|e| self.lib_err(e))? {
                Combined::Signature(sig) => self.done(&sig),
                Combined::Blame(b) => Ok(Step::Next(self.respond_blame(*b))),
                Combined::Dispute(d) => Ok(Step::Next(self.respond_dispute(*d))),
            };
        }
        let signed = st.signature(&msgs).map_err(|e| self.lib_err(e))?;
        let mut status = Vec::with_capacity(STATUS_LEN);
        let mine = match signed {
            Some(sig) => {
                status.push(STATUS_SIGNED);
                status.extend_from_slice(&sig.to_bytes());
                status.push(sig.recovery_id());
                Mine::Signed(Box::new(st), msgs, sig)
            }
            None => match sign::combine(st, &msgs).map_err(|e| self.lib_err(e))? {
                Combined::Signature(sig) => return self.done(&sig),
                Combined::Blame(b) => {
                    status.push(STATUS_BLAME);
                    Mine::Blame(b)
                }
                Combined::Dispute(d) => {
                    status.push(STATUS_DISPUTE);
                    Mine::Dispute(d)
                }
            },
        };
        self.state = State::Status(mine);
        Ok(Step::Next(broadcast(status)))
    }

    /// Round 4 with three or more signers: everyone's status.
    fn on_status(
        &mut self,
        mine: Mine,
        incoming: &BTreeMap<u16, Incoming>,
    ) -> Result<Step, DriverError> {
        let mut bad = Vec::new();
        let mut dispute = matches!(mine, Mine::Dispute(_));
        let mut all_signed = matches!(mine, Mine::Signed(..));
        for (from, m) in incoming {
            match (m.payload.first().copied(), m.payload.len()) {
                (Some(STATUS_SIGNED), STATUS_LEN) => {}
                (Some(STATUS_BLAME), 1) => all_signed = false,
                (Some(STATUS_DISPUTE), 1) => {
                    all_signed = false;
                    dispute = true;
                }
                _ => bad.push(*from),
            }
        }
        if !bad.is_empty() {
            return Err(DriverError::Blame {
                culprits: bad,
                reason: "malformed signing status".into(),
            });
        }
        match mine {
            Mine::Signed(_, _, sig) if all_signed => self.done(&sig),
            Mine::Signed(st, msgs, _) if dispute => {
                let d = st.dispute(&msgs).map_err(|e| self.lib_err(e))?;
                Ok(Step::Next(self.respond_dispute(d)))
            }
            Mine::Signed(st, msgs, _) => {
                let b = st.blame(&msgs).map_err(|e| self.lib_err(e))?;
                Ok(Step::Next(self.respond_blame(b)))
            }
            Mine::Dispute(d) => Ok(Step::Next(self.respond_dispute(*d))),
            Mine::Blame(b) if !dispute => Ok(Step::Next(self.respond_blame(*b))),
            Mine::Blame(_) => Err(failed(
                "a co-signer reports differing echo digests, ours all agree and our signature \
                 failed: no common resolution round",
            )),
        }
    }
}

impl ProtocolDriver for SignDriver {
    fn start(&mut self) -> Result<Vec<Outgoing>, DriverError> {
        let sid = SessionId::new(self.ctx.session_id.to_vec());
        let (st, msgs) = sign::round1(&self.share, &sid, &self.signers, &mut OsRng)
            .map_err(|e| self.lib_err(e))?;
        self.state = State::R1(Box::new(st));
        #[allow(unused_mut)]
        let mut out = to_nodes(
            &self.holders,
            msgs.into_iter().map(|(p, m)| (p, m.to_bytes())).collect(),
        );
        #[cfg(feature = "test-faults")]
        super::faults::sign_round1(&mut out);
        Ok(out)
    }

    fn expected_from(&self, _round: u16) -> Vec<u16> {
        self.ctx.others()
    }

    fn max_payload(&self, round: u16) -> usize {
        let s = self.signers.len();
        match (round, self.two_signers()) {
            (1..=3, _) => limits::sign(round, s),
            (4, false) => STATUS_LEN,
            _ => limits::sign_resolution(s),
        }
    }

    fn handle(
        &mut self,
        round: u16,
        incoming: BTreeMap<u16, Incoming>,
    ) -> Result<Step, DriverError> {
        let holders = self.holders.clone();
        match (round, std::mem::replace(&mut self.state, State::Finished)) {
            (1, State::R1(st)) => {
                let msgs = decode_all(&holders, &incoming, SignMsg1::from_bytes)?;
                let (st, out) = sign::round2(*st, &self.share, &msgs, &mut OsRng)
                    .map_err(|e| self.lib_err(e))?;
                self.state = State::R2(Box::new(st));
                Ok(Step::Next(to_nodes(
                    &holders,
                    out.into_iter().map(|(p, m)| (p, m.to_bytes())).collect(),
                )))
            }
            (2, State::R2(st)) => {
                let msgs = decode_all(&holders, &incoming, SignMsg2::from_bytes)?;
                let (st, m) = sign::round3(*st, &self.share, &self.digest, &msgs)
                    .map_err(|e| self.lib_err(e))?;
                self.state = State::R3(Box::new(st));
                Ok(Step::Next(broadcast(m.to_bytes())))
            }
            (3, State::R3(st)) => {
                let msgs = decode_all(&holders, &incoming, SignMsg3::from_bytes)?;
                self.combine(*st, msgs)
            }
            (4, State::Status(mine)) => self.on_status(mine, &incoming),
            (4 | 5, State::Blame(st)) => {
                let msgs = decode_all(&holders, &incoming, BlameMsg::from_bytes)?;
                Err(self.lib_err(blame::resolve(&st, &msgs)))
            }
            (4 | 5, State::Dispute(st)) => {
                let msgs = decode_all(&holders, &incoming, DisputeMsg::from_bytes)?;
                Err(self.lib_err(dispute::resolve(&st, &msgs)))
            }
            (r, _) => Err(failed(format!("ecdsa-sign: unexpected round {r}"))),
        }
    }
}
