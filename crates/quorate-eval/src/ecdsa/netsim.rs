//! The real threshold-ECDSA rounds over a simulated network ([`quorate_net`]).
//!
//! Each party is a [`RoundParty`] that runs exactly the sans-I/O functions of
//! [`quorate_ecdsa::keygen`] and [`quorate_ecdsa::sign`] on the canonical byte encodings (every message is decoded by its
//! receiver with the production decoder, so decoding is part of the charged compute). The
//! [`Lockstep`] driver of `quorate-net` turns it into a simulated process: a party runs a
//! round once all messages of the previous round have arrived, the CPU time each round
//! really takes is charged to that party's simulated clock ([`ComputeModel::Measured`]),
//! and messages travel with the configured latency and per-node bandwidth.
//!
//! Parties are identified as in production: simulation node `k` is the `k`-th party of the
//! run (for key generation, and for signing sets `{1, …, t}`, node `k` is `PartyId(k + 1)`).
//!
//! Network presets follow the DKLs19 evaluation (eprint 2019/523 §VI): [`lan`] is the
//! single-datacenter setting (round trip ≈ 0.3 ms, 5–10 Gbit/s measured; the lower rate is
//! used), [`wan`] puts every link at the longest leg of the 16-zone WAN setting (348 ms round
//! trip, 53.4 Mbit/s), an upper bound for that deployment.

use ed25519_dalek::{SigningKey, VerifyingKey};
use quorate_core::{PartyId, ThresholdParams};
use quorate_ecdsa::keygen::{
    self, DkgMsg1, DkgMsg2, DkgMsg3, DkgMsg4, DkgRound1, DkgRound2, DkgRound3, DkgRound4,
};
use quorate_ecdsa::sign::blame::{self, BlameState};
use quorate_ecdsa::sign::dispute::{self, DisputeState};
use quorate_ecdsa::sign::{
    self, BlameMsg, Combined, DisputeMsg, SignMsg1, SignMsg2, SignMsg3, SignRound1, SignRound2,
    SignRound3, Signature,
};
use quorate_ecdsa::{EcdsaError, KeyShare, Result, SessionId};
use quorate_net::rounds::{Lockstep, Outgoing, RoundParty, Step};
use quorate_net::{
    Bandwidth, ComputeModel, NetworkModel, NodeId, Report, SimConfig, SimTime, Simulation,
    StopCondition,
};
use rand_chacha::ChaCha20Rng;
use std::time::Duration;

pub use quorate_net::{ComputeModel as Compute, NetworkModel as Network};

/// DKLs19 §VI-A LAN: one-way latency (half the 0.3 ms round trip).
pub const LAN_ONE_WAY: Duration = Duration::from_micros(150);
/// DKLs19 §VI-A LAN: per-node bandwidth (the low end of the measured 5–10 Gbit/s).
pub const LAN_MBIT: f64 = 5_000.0;
/// DKLs19 §VI-B WAN: one-way latency of the longest leg (348 ms round trip).
pub const WAN_ONE_WAY: Duration = Duration::from_millis(174);
/// DKLs19 §VI-B WAN: bandwidth of the longest leg.
pub const WAN_MBIT: f64 = 53.4;

/// Message rounds of key generation (each party sends once per round; the fourth is the
/// agreement step).
pub const DKG_MESSAGE_ROUNDS: u32 = 4;
/// Message rounds of signing.
pub const SIGN_MESSAGE_ROUNDS: u32 = 3;

/// The LAN preset: [`LAN_ONE_WAY`] on every link, [`LAN_MBIT`] up and down per node.
pub fn lan() -> NetworkModel {
    let b = Bandwidth::mbit_per_sec(LAN_MBIT);
    NetworkModel::constant(LAN_ONE_WAY).with_bandwidth(b, b)
}

/// The WAN preset: [`WAN_ONE_WAY`] on every link, [`WAN_MBIT`] up and down per node.
pub fn wan() -> NetworkModel {
    let b = Bandwidth::mbit_per_sec(WAN_MBIT);
    NetworkModel::constant(WAN_ONE_WAY).with_bandwidth(b, b)
}

fn node_of(parties: &[PartyId], p: PartyId) -> Result<NodeId> {
    parties
        .iter()
        .position(|q| *q == p)
        .map(|k| NodeId(k as u32))
        .ok_or(EcdsaError::MissingMessage { from: p })
}

fn party_of(parties: &[PartyId], node: NodeId) -> Result<PartyId> {
    parties
        .get(node.index())
        .copied()
        .ok_or(EcdsaError::Param(quorate_core::ParamError::Invalid(
            "message from a node outside the run",
        )))
}

/// Encodes each `(recipient, message)` with `encode` and addresses it to the recipient's node.
fn to_outgoing<M>(
    parties: &[PartyId],
    msgs: Vec<(PartyId, M)>,
    encode: impl Fn(&M) -> Vec<u8>,
) -> Result<Vec<Outgoing<Vec<u8>>>> {
    msgs.into_iter()
        .map(|(to, m)| Ok(Outgoing::To(node_of(parties, to)?, encode(&m))))
        .collect()
}

fn decode<M>(
    parties: &[PartyId],
    inbound: Vec<(NodeId, Vec<u8>)>,
    dec: impl Fn(PartyId, &[u8]) -> Result<M>,
) -> Result<Vec<(PartyId, M)>> {
    inbound
        .into_iter()
        .map(|(node, bytes)| {
            let from = party_of(parties, node)?;
            Ok((from, dec(from, &bytes)?))
        })
        .collect()
}

enum DkgStage {
    Start,
    R1(DkgRound1),
    R2(DkgRound2),
    R3(DkgRound3),
    R4(Box<DkgRound4>),
}

/// One party of key generation (or refresh) as a [`RoundParty`]: rounds 0–3 send (round 2
/// only to lower-index parties, round 3 the agreement broadcast), round 4 outputs the
/// [`KeyShare`] (for a refresh: the committed new share).
pub struct DkgParty {
    params: ThresholdParams,
    me: PartyId,
    parties: Vec<PartyId>,
    session: SessionId,
    rng: ChaCha20Rng,
    /// This party's identity key (keygen) or its next one (refresh).
    identity: Option<SigningKey>,
    /// Every party's identity key (keygen only).
    roster: Vec<VerifyingKey>,
    /// The share being refreshed.
    old: Option<KeyShare>,
    stage: DkgStage,
}

impl DkgParty {
    /// Party `me` of a fresh key generation, with its identity key and everyone's.
    pub fn keygen(
        params: ThresholdParams,
        me: PartyId,
        session: &[u8],
        identity: SigningKey,
        roster: Vec<VerifyingKey>,
        rng: ChaCha20Rng,
    ) -> Self {
        DkgParty {
            params,
            me,
            parties: params.parties().collect(),
            session: SessionId::new(session.to_vec()),
            rng,
            identity: Some(identity),
            roster,
            old: None,
            stage: DkgStage::Start,
        }
    }

    /// The owner of `share` in a proactive refresh, rotating to `next_identity`.
    pub fn refresh(
        share: KeyShare,
        session: &[u8],
        next_identity: SigningKey,
        rng: ChaCha20Rng,
    ) -> Self {
        DkgParty {
            params: share.params(),
            me: share.id(),
            parties: share.params().parties().collect(),
            session: SessionId::new(session.to_vec()),
            rng,
            identity: Some(next_identity),
            roster: Vec::new(),
            old: Some(share),
            stage: DkgStage::Start,
        }
    }
}

impl RoundParty for DkgParty {
    type Message = Vec<u8>;
    type Output = KeyShare;
    type Error = EcdsaError;

    fn expected_messages(&self, round: u32) -> usize {
        if round == 3 {
            // Bootstrap messages come from the higher-index parties only.
            self.parties.iter().filter(|p| **p > self.me).count()
        } else {
            self.parties.len() - 1
        }
    }

    fn round(
        mut self,
        round: u32,
        inbound: Vec<(NodeId, Vec<u8>)>,
    ) -> Result<Step<Self, Vec<u8>, KeyShare>> {
        let stage = std::mem::replace(&mut self.stage, DkgStage::Start);
        match (round, stage) {
            (0, DkgStage::Start) => {
                let id = self.identity.take().ok_or(EcdsaError::Param(
                    quorate_core::ParamError::Invalid("DKG party started twice"),
                ))?;
                let (st, msgs) = match &self.old {
                    Some(share) => keygen::refresh_round1(share, &self.session, id, &mut self.rng)?,
                    None => keygen::round1(
                        self.params,
                        self.me,
                        &self.session,
                        id,
                        &self.roster,
                        &mut self.rng,
                    )?,
                };
                let out = to_outgoing(&self.parties, msgs, |m| m.to_bytes())?;
                self.stage = DkgStage::R1(st);
                Ok(Step::Next(self, out))
            }
            (1, DkgStage::R1(st)) => {
                let msgs = decode(&self.parties, inbound, DkgMsg1::from_bytes)?;
                let (st, msgs) = keygen::round2(st, &msgs, &mut self.rng)?;
                let out = to_outgoing(&self.parties, msgs, |m| m.to_bytes())?;
                self.stage = DkgStage::R2(st);
                Ok(Step::Next(self, out))
            }
            (2, DkgStage::R2(st)) => {
                let msgs = decode(&self.parties, inbound, DkgMsg2::from_bytes)?;
                let (st, msgs) = keygen::round3(st, &msgs, &mut self.rng)?;
                let out = to_outgoing(&self.parties, msgs, |m| m.to_bytes())?;
                self.stage = DkgStage::R3(st);
                Ok(Step::Next(self, out))
            }
            (3, DkgStage::R3(st)) => {
                let msgs = decode(&self.parties, inbound, DkgMsg3::from_bytes)?;
                let (st, msg) = keygen::round4(st, &msgs)?;
                self.stage = DkgStage::R4(Box::new(st));
                Ok(Step::Next(self, vec![Outgoing::Broadcast(msg.to_bytes())]))
            }
            (4, DkgStage::R4(st)) => {
                let msgs = decode(&self.parties, inbound, DkgMsg4::from_bytes)?;
                match self.old.take() {
                    None => Ok(Step::Done(keygen::finish(*st, &msgs)?, Vec::new())),
                    Some(mut current) => {
                        let (pending, cert) = keygen::certify(*st, &msgs)?;
                        pending.commit(&mut current, &cert)?;
                        Ok(Step::Done(current, Vec::new()))
                    }
                }
            }
            _ => Err(EcdsaError::Param(quorate_core::ParamError::Invalid(
                "DKG round out of order",
            ))),
        }
    }
}

enum SignStage {
    Start,
    R1(Box<SignRound1>),
    R2(Box<SignRound2>),
    R3(Box<SignRound3>),
    Blame(Box<BlameState>),
    Dispute(Box<DisputeState>),
}

/// One signer as a [`RoundParty`]: rounds 0–2 send, round 3 outputs the verified
/// [`Signature`]. The key share is owned by the party (a failed check bans the culprit in
/// it).
pub struct SignParty {
    share: KeyShare,
    signers: Vec<PartyId>,
    digest: [u8; 32],
    sign_id: SessionId,
    rng: ChaCha20Rng,
    stage: SignStage,
    #[cfg(feature = "test-faults")]
    fault: sign::Round3Fault,
}

impl SignParty {
    /// The owner of `share`, signing `digest` with `signers` in session `sign_id`.
    pub fn new(
        share: KeyShare,
        signers: &[PartyId],
        digest: [u8; 32],
        sign_id: &[u8],
        rng: ChaCha20Rng,
    ) -> Self {
        SignParty {
            share,
            signers: signers.to_vec(),
            digest,
            sign_id: SessionId::new(sign_id.to_vec()),
            rng,
            stage: SignStage::Start,
            #[cfg(feature = "test-faults")]
            fault: sign::Round3Fault::None,
        }
    }

    /// Fault injection (feature `test-faults`): this signer deviates in round 3.
    #[cfg(feature = "test-faults")]
    pub fn with_round3_fault(mut self, fault: sign::Round3Fault) -> Self {
        self.fault = fault;
        self
    }

    /// The key share (with any bans recorded during the run).
    pub fn share(&self) -> &KeyShare {
        &self.share
    }
}

impl RoundParty for SignParty {
    type Message = Vec<u8>;
    type Output = Signature;
    type Error = EcdsaError;

    fn expected_messages(&self, _round: u32) -> usize {
        self.signers.len() - 1
    }

    fn round(
        mut self,
        round: u32,
        inbound: Vec<(NodeId, Vec<u8>)>,
    ) -> Result<Step<Self, Vec<u8>, Signature>> {
        let stage = std::mem::replace(&mut self.stage, SignStage::Start);
        match (round, stage) {
            (0, SignStage::Start) => {
                let (st, msgs) =
                    sign::round1(&self.share, &self.sign_id, &self.signers, &mut self.rng)?;
                let out = to_outgoing(&self.signers, msgs, |m| m.to_bytes())?;
                self.stage = SignStage::R1(Box::new(st));
                Ok(Step::Next(self, out))
            }
            (1, SignStage::R1(st)) => {
                let msgs = decode(&self.signers, inbound, SignMsg1::from_bytes)?;
                let (st, msgs) = sign::round2(*st, &self.share, &msgs, &mut self.rng)?;
                let out = to_outgoing(&self.signers, msgs, |m| m.to_bytes())?;
                self.stage = SignStage::R2(Box::new(st));
                Ok(Step::Next(self, out))
            }
            (2, SignStage::R2(st)) => {
                let msgs = decode(&self.signers, inbound, SignMsg2::from_bytes)?;
                #[cfg(feature = "test-faults")]
                let (st, m) =
                    sign::round3_faulty(*st, &self.share, &self.digest, &msgs, self.fault)?;
                #[cfg(not(feature = "test-faults"))]
                let (st, m) = sign::round3(*st, &self.share, &self.digest, &msgs)?;
                let me = self.share.id();
                let to = self
                    .signers
                    .iter()
                    .filter(|j| **j != me)
                    .map(|j| node_of(&self.signers, *j))
                    .collect::<Result<Vec<_>>>()?;
                self.stage = SignStage::R3(Box::new(st));
                Ok(Step::Next(
                    self,
                    vec![Outgoing::Multicast(to, m.to_bytes())],
                ))
            }
            (3, SignStage::R3(st)) => {
                let msgs = decode(&self.signers, inbound, SignMsg3::from_bytes)?;
                let me = self.share.id();
                let to = self
                    .signers
                    .iter()
                    .filter(|j| **j != me)
                    .map(|j| node_of(&self.signers, *j))
                    .collect::<Result<Vec<_>>>()?;
                // Only on failure: one more round (dispute or blame) that names the culprits.
                match sign::combine(*st, &msgs)? {
                    Combined::Signature(sig) => Ok(Step::Done(sig, Vec::new())),
                    Combined::Blame(b) => {
                        let (st, m) = b.respond(&mut self.rng);
                        self.stage = SignStage::Blame(Box::new(st));
                        Ok(Step::Next(
                            self,
                            vec![Outgoing::Multicast(to, m.to_bytes())],
                        ))
                    }
                    Combined::Dispute(d) => {
                        let (st, m) = d.respond();
                        self.stage = SignStage::Dispute(Box::new(st));
                        Ok(Step::Next(
                            self,
                            vec![Outgoing::Multicast(to, m.to_bytes())],
                        ))
                    }
                }
            }
            (4, SignStage::Blame(st)) => {
                let msgs = decode(&self.signers, inbound, BlameMsg::from_bytes)?;
                Err(blame::resolve(&st, &msgs))
            }
            (4, SignStage::Dispute(st)) => {
                let msgs = decode(&self.signers, inbound, DisputeMsg::from_bytes)?;
                Err(dispute::resolve(&st, &msgs))
            }
            _ => Err(EcdsaError::Param(quorate_core::ParamError::Invalid(
                "signing round out of order",
            ))),
        }
    }
}

/// What a simulated run produced.
#[derive(Debug)]
pub struct NetRun<O> {
    /// Each node's output (or error), in node order.
    pub outputs: Vec<Result<O>>,
    /// Simulated time at which the last party finished.
    pub latency: Duration,
    /// The simulator's report: per-node measured CPU, messages and bytes.
    pub report: Report,
}

impl<O> NetRun<O> {
    /// Every output, or the first error.
    pub fn into_outputs(self) -> Result<Vec<O>> {
        self.outputs.into_iter().collect()
    }
}

fn run<P: RoundParty<Message = Vec<u8>, Error = EcdsaError>>(
    parties: Vec<P>,
    network: NetworkModel,
    compute: ComputeModel,
) -> Result<NetRun<P::Output>> {
    let n = parties.len();
    let nodes: Vec<Lockstep<P>> = parties.into_iter().map(Lockstep::new).collect();
    let config = SimConfig::default()
        .with_compute(compute)
        .stop_when(StopCondition::AllOutputs)
        .with_time_limit(SimTime::from_secs(3_600));
    let mut sim = Simulation::new(nodes, network, config)
        .map_err(|_| EcdsaError::Param(quorate_core::ParamError::Invalid("simulation setup")))?;
    let report = sim.run();
    let mut outputs = Vec::with_capacity(n);
    let mut latency = SimTime::ZERO;
    for per_node in sim.take_outputs() {
        match per_node.into_iter().next() {
            Some((at, out)) => {
                latency = latency.max(at);
                outputs.push(out);
            }
            None => outputs.push(Err(EcdsaError::Param(quorate_core::ParamError::Invalid(
                "a party did not finish in the simulation",
            )))),
        }
    }
    Ok(NetRun {
        outputs,
        latency: Duration::from_nanos(latency.as_nanos()),
        report,
    })
}

/// Key generation for all `n` parties of `params` over `network`.
pub fn keygen(
    params: ThresholdParams,
    session: &[u8],
    network: NetworkModel,
    compute: ComputeModel,
    rngs: impl FnMut(PartyId) -> ChaCha20Rng,
) -> Result<NetRun<KeyShare>> {
    let mut rngs = rngs;
    // Each party's identity key comes from its own generator; the roster is public.
    let mut seeded: Vec<(PartyId, ChaCha20Rng, SigningKey)> = params
        .parties()
        .map(|i| {
            let mut rng = rngs(i);
            let id = SigningKey::generate(&mut rng);
            (i, rng, id)
        })
        .collect();
    let roster: Vec<VerifyingKey> = seeded.iter().map(|(_, _, k)| k.verifying_key()).collect();
    let parties = seeded
        .drain(..)
        .map(|(i, rng, id)| DkgParty::keygen(params, i, session, id, roster.clone(), rng))
        .collect();
    run(parties, network, compute)
}

/// Signing by `signers` (sorted; `shares[k]` belongs to party `k + 1`) over `network`.
pub fn sign(
    shares: &[KeyShare],
    signers: &[PartyId],
    digest: &[u8; 32],
    sign_id: &[u8],
    network: NetworkModel,
    compute: ComputeModel,
    rngs: impl FnMut(PartyId) -> ChaCha20Rng,
) -> Result<NetRun<Signature>> {
    let parties = sign_parties(shares, signers, digest, sign_id, rngs)?;
    run(parties, network, compute)
}

fn sign_parties(
    shares: &[KeyShare],
    signers: &[PartyId],
    digest: &[u8; 32],
    sign_id: &[u8],
    mut rngs: impl FnMut(PartyId) -> ChaCha20Rng,
) -> Result<Vec<SignParty>> {
    let mut signers = signers.to_vec();
    signers.sort_unstable();
    signers
        .iter()
        .map(|i| {
            let share = shares
                .get(i.position())
                .cloned()
                .ok_or(EcdsaError::MissingMessage { from: *i })?;
            Ok(SignParty::new(share, &signers, *digest, sign_id, rngs(*i)))
        })
        .collect()
}

/// Fault-injection variant of [`sign`] (feature `test-faults`): `cheater` deviates in
/// round 3 (the run then takes a fifth round, the blame or dispute round, and every party
/// outputs its verdict).
#[cfg(feature = "test-faults")]
#[allow(clippy::too_many_arguments)]
pub fn sign_faulty(
    shares: &[KeyShare],
    signers: &[PartyId],
    digest: &[u8; 32],
    sign_id: &[u8],
    network: NetworkModel,
    compute: ComputeModel,
    rngs: impl FnMut(PartyId) -> ChaCha20Rng,
    cheater: (PartyId, sign::Round3Fault),
) -> Result<NetRun<Signature>> {
    let parties = sign_parties(shares, signers, digest, sign_id, rngs)?
        .into_iter()
        .map(|p| {
            if p.share.id() == cheater.0 {
                p.with_round3_fault(cheater.1)
            } else {
                p
            }
        })
        .collect();
    run(parties, network, compute)
}
