//! CoSi and the paper's baselines as [`quorate_net::Process`] nodes on the network
//! simulator.
//!
//! Every node runs the **same sans-I/O round functions** as [`crate::sign_in_process`]
//! ([`Witness::commit`], [`Aggregator`], [`ChallengeContext::derive`],
//! [`Witness::respond_with_context`], [`AggregatorCollecting::finish`],
//! [`ChallengeContext::finalize`]); messages travel in their real encodings
//! ([`Commitment::to_bytes`] …), so the simulator's byte counters and bandwidth model see the
//! real sizes. Each node derives the challenge context itself (there is no shared-context
//! shortcut here): the CPU the simulator measures per node is what a deployment would spend.
//!
//! Protocols ([`SimProtocol`]): CoSi two-nonce (default) and legacy; NTree and Naive
//! (individual Ed25519 signatures, [`crate::baselines`]); JVSS (per-round dealing among all
//! members, all-to-all).
//!
//! Absent witnesses are known before the round (as when the leader pre-checks liveness,
//! cothority #799): the tree is repaired around them ([`Tree::repair`]) and they are offline
//! in the simulator. Failures *after* commitment are handled by [`crate::sign_in_process`]'s
//! restart logic and are not simulated here.

use crate::baselines::{decode_signatures, encode_signatures, sign_individual, verify_individual};
use crate::baselines::{verify_share, Dealing, JvssGroup};
use crate::error::CosiError;
use crate::keys::SecretKey;
use crate::mask::Mask;
use crate::policy::Policy;
use crate::protocol::{
    Aggregator, AggregatorAwaitingChallenge, AggregatorCollecting, Announcement, Challenge,
    ChallengeContext, ChildCheck, Commitment, CommittedWitness, Mode, Response, Witness,
};
use crate::roster::Roster;
use crate::signature::Signature;
use crate::tree::{KeyTree, Tree};
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use quorate_core::transcript::SessionId;
use quorate_core::ParamError;
use quorate_net::{
    Bandwidth, ComputeModel, Context, NetworkModel, NodeId, Process, Report, SimConfig, Simulation,
    StopCondition,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// Which protocol to simulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimProtocol {
    /// CoSi in the given mode over the tree.
    Cosi(Mode),
    /// Individual signatures collected up the tree; parents verify their children.
    NTree,
    /// Individual signatures sent straight to the leader, which verifies all of them.
    Naive,
    /// Joint Schnorr with per-round JVSS dealing among all members.
    Jvss,
}

impl SimProtocol {
    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            SimProtocol::Cosi(Mode::TwoNonce) => "CoSi",
            SimProtocol::Cosi(Mode::Legacy) => "CoSi-legacy",
            SimProtocol::NTree => "NTree",
            SimProtocol::Naive => "Naive",
            SimProtocol::Jvss => "JVSS",
        }
    }
}

/// Parameters of one simulated round.
#[derive(Clone, Debug)]
pub struct SimParams {
    /// The protocol.
    pub protocol: SimProtocol,
    /// The tree (CoSi, NTree); ignored by Naive (star) and JVSS (all-to-all).
    pub tree: Tree,
    /// Witnesses down from the start (not allowed for JVSS).
    pub absent: BTreeSet<usize>,
    /// One-way latency of every link (200 ms RTT = 100 ms).
    pub one_way_latency: Duration,
    /// Uplink and downlink rate of every node.
    pub bandwidth: Bandwidth,
    /// How measured CPU time is charged (default measured).
    pub compute: ComputeModel,
    /// Seeds the nodes' RNGs and the simulator.
    pub seed: u64,
    /// Policy the CoSi root checks before finalizing.
    pub policy: Policy,
}

impl SimParams {
    /// Defaults: 100 ms one way (200 ms RTT), 100 Mbit/s, measured compute, no absentees.
    pub fn new(protocol: SimProtocol, tree: Tree) -> Self {
        SimParams {
            protocol,
            tree,
            absent: BTreeSet::new(),
            one_way_latency: Duration::from_millis(100),
            bandwidth: Bandwidth::mbit_per_sec(100.0),
            compute: ComputeModel::Measured,
            seed: 1,
            policy: Policy::Threshold(1),
        }
    }
}

/// What one simulated round produced.
#[derive(Clone, Debug)]
pub struct SimOutcome {
    /// The protocol.
    pub protocol: SimProtocol,
    /// Witnesses in the roster.
    pub n: usize,
    /// Height of the tree used (1 for Naive and JVSS).
    pub depth: usize,
    /// Simulated time from start until the root had a verified result.
    pub latency: Duration,
    /// The most loaded node and its measured CPU time for the round.
    pub max_cpu: (usize, Duration),
    /// The root's measured CPU time.
    pub root_cpu: Duration,
    /// Bytes sent plus received by the root.
    pub root_bytes: u64,
    /// Bytes sent by all nodes.
    pub total_bytes: u64,
    /// CPU time of all nodes together.
    pub total_cpu: Duration,
    /// Signers in the result (mask count for CoSi, list length for NTree/Naive, `t` for JVSS).
    pub participants: usize,
    /// The CoSi signature (CoSi only).
    pub signature: Option<Signature>,
    /// The full simulator report.
    pub report: Report,
}

/// A message on the simulated wire: the protocol's own encoding.
pub type Wire = Vec<u8>;

const TAG_NTREE_ANNOUNCE: u8 = 0x61;
const TAG_NTREE_LIST: u8 = 0x62;
const TAG_JVSS_START: u8 = 0x71;
const TAG_JVSS_DEAL: u8 = 0x72;
const TAG_JVSS_PARTIAL: u8 = 0x73;

fn node_id(i: usize) -> NodeId {
    NodeId(i as u32)
}

// ---------------------------------------------------------------------------------------
// CoSi
// ---------------------------------------------------------------------------------------

/// A CoSi witness (and aggregator, if interior) as a simulator process.
pub struct CosiNode {
    role: Option<Box<CosiRole>>,
    output: Option<Result<Signature, CosiError>>,
}

struct CosiRole {
    index: usize,
    tree: Arc<KeyTree>,
    witness: Witness,
    rng: ChaCha20Rng,
    // Root only.
    announcement: Option<Announcement>,
    message: Vec<u8>,
    policy: Policy,
    // Round state.
    committed: Option<CommittedWitness>,
    aggregator: Option<Aggregator>,
    pending: usize,
    awaiting: Option<AggregatorAwaitingChallenge>,
    collecting: Option<AggregatorCollecting>,
    context: Option<ChallengeContext>,
}

impl CosiNode {
    /// A node that never runs (absent witness).
    pub fn absent() -> Self {
        CosiNode {
            role: None,
            output: None,
        }
    }

    /// Witness `index` of `tree`; the root starts a session for `message` in `mode`.
    pub fn new(
        tree: Arc<KeyTree>,
        index: usize,
        key: SecretKey,
        mode: Mode,
        message: &[u8],
        policy: Policy,
        seed: u64,
    ) -> Result<Self, CosiError> {
        let witness = Witness::new(tree.roster().clone(), index, key)?;
        let announcement = (tree.tree().root() == index).then(|| Announcement {
            session: SessionId::new(format!("quorate/cosi/sim/{seed}").into_bytes()),
            mode,
            message: None,
        });
        Ok(CosiNode {
            role: Some(Box::new(CosiRole {
                index,
                tree,
                witness,
                rng: ChaCha20Rng::seed_from_u64(seed ^ ((index as u64) << 20)),
                announcement,
                message: message.to_vec(),
                policy,
                committed: None,
                aggregator: None,
                pending: 0,
                awaiting: None,
                collecting: None,
                context: None,
            })),
            output: None,
        })
    }
}

impl CosiRole {
    fn children(&self) -> Vec<NodeId> {
        self.tree
            .tree()
            .children(self.index)
            .iter()
            .map(|&c| node_id(c))
            .collect()
    }

    fn is_root(&self) -> bool {
        self.tree.tree().root() == self.index
    }

    fn to_parent(&self, ctx: &mut Context<'_, Wire>, msg: Wire) {
        if let Some(p) = self.tree.tree().parent(self.index) {
            ctx.send(node_id(p), msg);
        }
    }

    fn announce(
        &mut self,
        ann: Announcement,
        ctx: &mut Context<'_, Wire>,
    ) -> Result<Option<Signature>, CosiError> {
        let kids = self.children();
        if !kids.is_empty() {
            ctx.multicast(kids.iter().copied(), ann.to_bytes());
        }
        let (state, own) = self.witness.commit(&ann, &mut self.rng)?;
        self.committed = Some(state);
        if kids.is_empty() && !self.is_root() {
            self.to_parent(ctx, own.to_bytes());
            return Ok(None);
        }
        let mut agg = Aggregator::new(self.tree.clone(), self.index, &ann)?;
        agg.add_commitment(own)?;
        self.aggregator = Some(agg);
        self.pending = kids.len();
        if self.pending == 0 {
            return self.finish_commitments(ctx);
        }
        Ok(None)
    }

    fn on_commitment(
        &mut self,
        c: Commitment,
        ctx: &mut Context<'_, Wire>,
    ) -> Result<Option<Signature>, CosiError> {
        let agg = self.aggregator.as_mut().ok_or(CosiError::Misuse {
            check: "commitment before announcement",
        })?;
        agg.add_commitment(c)?;
        self.pending = self.pending.saturating_sub(1);
        if self.pending > 0 {
            return Ok(None);
        }
        self.finish_commitments(ctx)
    }

    fn finish_commitments(
        &mut self,
        ctx: &mut Context<'_, Wire>,
    ) -> Result<Option<Signature>, CosiError> {
        let agg = self.aggregator.take().ok_or(CosiError::Misuse {
            check: "aggregator missing",
        })?;
        let (aw, out) = agg.finish_commitments()?;
        self.awaiting = Some(aw);
        if self.is_root() {
            if !self.policy.is_satisfied(out.mask()) {
                return Err(crate::error::VerifyFailure::PolicyNotSatisfied.into());
            }
            let challenge = Challenge::new(&out, self.message.clone());
            self.on_challenge(challenge, ctx)
        } else {
            self.to_parent(ctx, out.to_bytes());
            Ok(None)
        }
    }

    fn on_challenge(
        &mut self,
        ch: Challenge,
        ctx: &mut Context<'_, Wire>,
    ) -> Result<Option<Signature>, CosiError> {
        let kids = self.children();
        if !kids.is_empty() {
            ctx.multicast(kids.iter().copied(), ch.to_bytes());
        }
        // Every node derives the context itself.
        let cctx = ChallengeContext::derive(self.tree.roster(), &ch)?;
        let state = self.committed.take().ok_or(CosiError::Misuse {
            check: "challenge without commitment",
        })?;
        let own = self.witness.respond_with_context(state, &cctx)?;
        match self.awaiting.take() {
            None => {
                self.to_parent(ctx, own.to_bytes());
                Ok(None)
            }
            Some(aw) => {
                let mut collecting = aw.receive_context(cctx.clone())?;
                collecting.add_response(own)?;
                self.pending = collecting.expected().len().saturating_sub(1);
                self.collecting = Some(collecting);
                self.context = Some(cctx);
                if self.pending == 0 {
                    return self.finish_responses(ctx);
                }
                Ok(None)
            }
        }
    }

    fn on_response(
        &mut self,
        r: Response,
        ctx: &mut Context<'_, Wire>,
    ) -> Result<Option<Signature>, CosiError> {
        let col = self.collecting.as_mut().ok_or(CosiError::Misuse {
            check: "response before challenge",
        })?;
        col.add_response(r)?;
        self.pending = self.pending.saturating_sub(1);
        if self.pending > 0 {
            return Ok(None);
        }
        self.finish_responses(ctx)
    }

    fn finish_responses(
        &mut self,
        ctx: &mut Context<'_, Wire>,
    ) -> Result<Option<Signature>, CosiError> {
        let col = self.collecting.take().ok_or(CosiError::Misuse {
            check: "not collecting",
        })?;
        let total = col.finish(ChildCheck::Batched, &mut self.rng)?;
        if self.is_root() {
            let cctx = self.context.take().ok_or(CosiError::Misuse {
                check: "context missing",
            })?;
            return cctx
                .finalize(self.tree.roster(), &total, &self.policy)
                .map(Some);
        }
        self.to_parent(ctx, total.to_bytes());
        Ok(None)
    }

    fn handle(
        &mut self,
        msg: &[u8],
        ctx: &mut Context<'_, Wire>,
    ) -> Result<Option<Signature>, CosiError> {
        let n = self.tree.roster().len();
        match msg.first() {
            Some(0x41) => {
                let ann = Announcement::from_bytes(msg)?;
                self.announce(ann, ctx)
            }
            Some(0x42) => {
                let c = Commitment::from_bytes(msg, n)?;
                self.on_commitment(c, ctx)
            }
            Some(0x43) => {
                let ch = Challenge::from_bytes(msg, n)?;
                self.on_challenge(ch, ctx)
            }
            Some(0x44) => {
                let r = Response::from_bytes(msg, n)?;
                self.on_response(r, ctx)
            }
            _ => Err(CosiError::Misuse {
                check: "unknown message",
            }),
        }
    }
}

impl Process for CosiNode {
    type Message = Wire;
    type Output = Result<Signature, CosiError>;

    fn start(&mut self, ctx: &mut Context<'_, Wire>) {
        let Some(role) = self.role.as_mut() else {
            return;
        };
        if let Some(ann) = role.announcement.take() {
            match role.announce(ann, ctx) {
                Ok(Some(sig)) => self.output = Some(Ok(sig)),
                Ok(None) => {}
                Err(e) => self.output = Some(Err(e)),
            }
        }
    }

    fn on_message(&mut self, _from: NodeId, msg: Wire, ctx: &mut Context<'_, Wire>) {
        let Some(role) = self.role.as_mut() else {
            return;
        };
        match role.handle(&msg, ctx) {
            Ok(Some(sig)) => self.output = Some(Ok(sig)),
            Ok(None) => {}
            Err(e) => self.output = Some(Err(e)),
        }
    }

    fn take_output(&mut self) -> Option<Self::Output> {
        self.output.take()
    }
}

// ---------------------------------------------------------------------------------------
// NTree / Naive
// ---------------------------------------------------------------------------------------

/// The individual signatures an NTree node collects: `(witness index, R ‖ s)`.
pub type SignatureList = Vec<(usize, [u8; 64])>;

/// An NTree (or, over a star, Naive) node: signs, verifies its children's own signatures,
/// forwards its subtree's list.
pub struct NTreeNode {
    state: Option<Box<NTreeState>>,
    output: Option<Result<SignatureList, CosiError>>,
}

struct NTreeState {
    index: usize,
    tree: Arc<Tree>,
    key: SecretKey,
    children_keys: Vec<(usize, crate::keys::PublicKey)>,
    message: Option<Vec<u8>>,
    root_message: Option<Vec<u8>>,
    rng: ChaCha20Rng,
    list: Vec<(usize, [u8; 64])>,
    pending: usize,
}

impl NTreeNode {
    /// A node that never runs.
    pub fn absent() -> Self {
        NTreeNode {
            state: None,
            output: None,
        }
    }

    /// Node `index` of `tree` with `key`; `roster` gives the children's keys.
    pub fn new(
        tree: Arc<Tree>,
        roster: &Roster,
        index: usize,
        key: SecretKey,
        message: &[u8],
        seed: u64,
    ) -> Self {
        let children_keys = tree
            .children(index)
            .iter()
            .filter_map(|&c| roster.public_key(c).map(|k| (c, *k)))
            .collect();
        let root_message = (tree.root() == index).then(|| message.to_vec());
        NTreeNode {
            state: Some(Box::new(NTreeState {
                index,
                tree,
                key,
                children_keys,
                message: None,
                root_message,
                rng: ChaCha20Rng::seed_from_u64(seed ^ ((index as u64) << 20)),
                list: Vec::new(),
                pending: 0,
            })),
            output: None,
        }
    }
}

impl NTreeState {
    fn begin(
        &mut self,
        message: Vec<u8>,
        ctx: &mut Context<'_, Wire>,
    ) -> Option<Vec<(usize, [u8; 64])>> {
        let kids: Vec<NodeId> = self
            .tree
            .children(self.index)
            .iter()
            .map(|&c| node_id(c))
            .collect();
        if !kids.is_empty() {
            let mut ann = vec![TAG_NTREE_ANNOUNCE];
            ann.extend_from_slice(&message);
            ctx.multicast(kids.iter().copied(), ann);
        }
        let sig = sign_individual(&self.key, &message, &mut self.rng);
        self.list.push((self.index, sig));
        self.pending = kids.len();
        self.message = Some(message);
        self.maybe_done(ctx)
    }

    fn maybe_done(&mut self, ctx: &mut Context<'_, Wire>) -> Option<Vec<(usize, [u8; 64])>> {
        if self.pending > 0 {
            return None;
        }
        let list = std::mem::take(&mut self.list);
        match self.tree.parent(self.index) {
            Some(p) => {
                let mut m = vec![TAG_NTREE_LIST];
                m.extend_from_slice(&encode_signatures(&list));
                ctx.send(node_id(p), m);
                None
            }
            None => Some(list),
        }
    }

    fn on_list(
        &mut self,
        from: usize,
        body: &[u8],
        ctx: &mut Context<'_, Wire>,
    ) -> Result<Option<SignatureList>, CosiError> {
        let n = self.tree.n();
        let list = decode_signatures(body, n)
            .ok_or_else(|| CosiError::blame(from, "malformed signature list"))?;
        let message = self.message.as_deref().unwrap_or_default();
        let key = self
            .children_keys
            .iter()
            .find(|(c, _)| *c == from)
            .map(|(_, k)| k)
            .ok_or_else(|| CosiError::blame(from, "list from a node that is not a child"))?;
        match list.iter().find(|(i, _)| *i == from) {
            Some((_, s)) if verify_individual(key, message, s) => {}
            _ => return Err(CosiError::blame(from, "child signature does not verify")),
        }
        self.list.extend(list);
        self.pending = self.pending.saturating_sub(1);
        Ok(self.maybe_done(ctx))
    }
}

impl Process for NTreeNode {
    type Message = Wire;
    type Output = Result<SignatureList, CosiError>;

    fn start(&mut self, ctx: &mut Context<'_, Wire>) {
        if let Some(st) = self.state.as_mut() {
            if let Some(m) = st.root_message.take() {
                if let Some(list) = st.begin(m, ctx) {
                    self.output = Some(Ok(list));
                }
            }
        }
    }

    fn on_message(&mut self, from: NodeId, msg: Wire, ctx: &mut Context<'_, Wire>) {
        let Some(st) = self.state.as_mut() else {
            return;
        };
        let r = match msg.split_first() {
            Some((&TAG_NTREE_ANNOUNCE, body)) => Ok(st.begin(body.to_vec(), ctx)),
            Some((&TAG_NTREE_LIST, body)) => st.on_list(from.index(), body, ctx),
            _ => Err(CosiError::blame(from.index(), "unknown message")),
        };
        match r {
            Ok(Some(list)) => self.output = Some(Ok(list)),
            Ok(None) => {}
            Err(e) => self.output = Some(Err(e)),
        }
    }

    fn take_output(&mut self) -> Option<Self::Output> {
        self.output.take()
    }
}

// ---------------------------------------------------------------------------------------
// JVSS
// ---------------------------------------------------------------------------------------

/// A JVSS member: deals a nonce sharing to everyone, verifies the `n` shares it receives,
/// sends its partial signature to the leader (member 0), which combines `t` of them.
pub struct JvssNode {
    index: usize,
    group: Arc<JvssGroup>,
    message: Option<Vec<u8>>,
    rng: ChaCha20Rng,
    dealt: bool,
    received: usize,
    v_share: Scalar,
    v_point: EdwardsPoint,
    partials: Vec<(usize, Scalar)>,
    v_bytes: Option<[u8; 32]>,
    done: bool,
    early: Vec<Wire>,
    output: Option<Result<[u8; 64], CosiError>>,
}

impl JvssNode {
    /// Member `index`; the leader (0) knows `message`.
    pub fn new(group: Arc<JvssGroup>, index: usize, message: &[u8], seed: u64) -> Self {
        JvssNode {
            index,
            group,
            message: (index == 0).then(|| message.to_vec()),
            rng: ChaCha20Rng::seed_from_u64(seed ^ ((index as u64) << 20)),
            dealt: false,
            received: 0,
            v_share: Scalar::ZERO,
            v_point: EdwardsPoint::mul_base(&Scalar::ZERO),
            partials: Vec::new(),
            v_bytes: None,
            done: false,
            early: Vec::new(),
            output: None,
        }
    }

    fn deal(&mut self, ctx: &mut Context<'_, Wire>) -> Result<(), CosiError> {
        self.dealt = true;
        let (n, t) = (self.group.n(), self.group.t());
        let d = Dealing::new(self.index, n, t, &mut self.rng);
        let mut head = vec![TAG_JVSS_DEAL];
        head.extend_from_slice(&(self.index as u16).to_be_bytes());
        for c in &d.commitments {
            head.extend_from_slice(c.compress().as_bytes());
        }
        for j in 0..n {
            let mut m = head.clone();
            m.extend_from_slice(d.shares[j].as_bytes());
            if j == self.index {
                self.on_deal(&m, ctx)?;
            } else {
                ctx.send(node_id(j), m);
            }
        }
        for m in std::mem::take(&mut self.early) {
            self.on_deal(&m, ctx)?;
        }
        Ok(())
    }

    fn on_deal(&mut self, m: &[u8], ctx: &mut Context<'_, Wire>) -> Result<(), CosiError> {
        let t = self.group.t();
        if m.len() != 1 + Dealing::wire_bytes(t) {
            return Err(CosiError::Misuse {
                check: "malformed JVSS dealing",
            });
        }
        let from = usize::from(u16::from_be_bytes([m[1], m[2]]));
        let mut commitments = Vec::with_capacity(t);
        for k in 0..t {
            let off = 3 + 32 * k;
            let mut b = [0u8; 32];
            b.copy_from_slice(&m[off..off + 32]);
            let p = CompressedEdwardsY(b)
                .decompress()
                .ok_or_else(|| CosiError::blame(from, "JVSS commitment is not a point"))?;
            commitments.push(p);
        }
        let mut sb = [0u8; 32];
        sb.copy_from_slice(&m[3 + 32 * t..]);
        let share = Option::<Scalar>::from(Scalar::from_canonical_bytes(sb))
            .ok_or_else(|| CosiError::blame(from, "JVSS share not canonical"))?;
        if !verify_share(&commitments, self.index, &share) {
            return Err(CosiError::blame(from, "JVSS nonce share does not verify"));
        }
        self.v_share += share;
        self.v_point += commitments[0];
        self.received += 1;
        if self.received == self.group.n() {
            let v_bytes = self.v_point.compress().to_bytes();
            let message = self.message.clone().unwrap_or_default();
            let s = self
                .group
                .partial(self.index, &self.v_share, &v_bytes, &message);
            self.v_bytes = Some(v_bytes);
            if self.index == 0 {
                self.on_partial(0, s)?;
            } else {
                let mut p = vec![TAG_JVSS_PARTIAL];
                p.extend_from_slice(&(self.index as u16).to_be_bytes());
                p.extend_from_slice(s.as_bytes());
                ctx.send(node_id(0), p);
            }
        }
        Ok(())
    }

    fn on_partial(&mut self, from: usize, s: Scalar) -> Result<(), CosiError> {
        if self.done || self.partials.len() >= self.group.t() {
            return Ok(());
        }
        self.partials.push((from, s));
        // The leader needs its own nonce first; partials can only arrive after it (members
        // answer after all n dealings, including the leader's).
        if self.partials.len() == self.group.t() {
            if let Some(v) = self.v_bytes {
                let message = self.message.clone().unwrap_or_default();
                self.done = true;
                self.output = Some(self.group.combine(&self.partials, &v, &message).ok_or(
                    CosiError::Misuse {
                        check: "JVSS signature does not verify",
                    },
                ));
            }
        }
        Ok(())
    }

    fn handle(
        &mut self,
        from: usize,
        msg: &[u8],
        ctx: &mut Context<'_, Wire>,
    ) -> Result<(), CosiError> {
        match msg.split_first() {
            Some((&TAG_JVSS_START, body)) => {
                self.message = Some(body.to_vec());
                if !self.dealt {
                    self.deal(ctx)?;
                }
                Ok(())
            }
            Some((&TAG_JVSS_DEAL, _)) => {
                if self.dealt {
                    self.on_deal(msg, ctx)
                } else {
                    self.early.push(msg.to_vec());
                    Ok(())
                }
            }
            Some((&TAG_JVSS_PARTIAL, body)) if body.len() == 34 => {
                let mut sb = [0u8; 32];
                sb.copy_from_slice(&body[2..]);
                let s = Option::<Scalar>::from(Scalar::from_canonical_bytes(sb))
                    .ok_or_else(|| CosiError::blame(from, "partial not canonical"))?;
                self.on_partial(usize::from(u16::from_be_bytes([body[0], body[1]])), s)
            }
            _ => Err(CosiError::blame(from, "unknown message")),
        }
    }
}

impl Process for JvssNode {
    type Message = Wire;
    type Output = Result<[u8; 64], CosiError>;

    fn start(&mut self, ctx: &mut Context<'_, Wire>) {
        if let Some(m) = self.message.clone() {
            let mut start = vec![TAG_JVSS_START];
            start.extend_from_slice(&m);
            ctx.broadcast(start);
            if let Err(e) = self.deal(ctx) {
                self.output = Some(Err(e));
            }
        }
    }

    fn on_message(&mut self, from: NodeId, msg: Wire, ctx: &mut Context<'_, Wire>) {
        if let Err(e) = self.handle(from.index(), &msg, ctx) {
            self.output = Some(Err(e));
        }
    }

    fn take_output(&mut self) -> Option<Self::Output> {
        self.output.take()
    }
}

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

/// Keys and roster shared by several simulations (key generation and PoP checks are not
/// part of a round).
pub struct SimSetup {
    /// Witness secret keys, roster order.
    pub keys: Vec<SecretKey>,
    /// The roster.
    pub roster: Arc<Roster>,
}

impl SimSetup {
    /// `n` fresh witnesses from `seed`.
    pub fn generate(n: usize, seed: u64) -> Result<Self, CosiError> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let keys: Vec<SecretKey> = (0..n).map(|_| SecretKey::generate(&mut rng)).collect();
        let entries = keys.iter().map(|k| k.roster_entry(&mut rng)).collect();
        Ok(SimSetup {
            roster: Arc::new(Roster::new(entries)?),
            keys,
        })
    }
}

fn network(params: &SimParams) -> NetworkModel {
    NetworkModel::constant(params.one_way_latency)
        .with_bandwidth(params.bandwidth, params.bandwidth)
}

fn config(params: &SimParams, root: usize) -> SimConfig {
    SimConfig::default()
        .with_compute(params.compute)
        .with_seed(params.seed)
        .with_root(node_id(root))
        .stop_when(StopCondition::OutputFrom(node_id(root)))
}

fn outcome_from(
    params: &SimParams,
    n: usize,
    depth: usize,
    root: usize,
    report: Report,
    at: Option<Duration>,
) -> Result<SimOutcome, CosiError> {
    let latency = at.ok_or(CosiError::Misuse {
        check: "the root produced no result",
    })?;
    let max_cpu = report
        .max_cpu()
        .map(|(id, d)| (id.index(), d))
        .unwrap_or((root, Duration::ZERO));
    let rs = report.node(node_id(root)).cloned().unwrap_or_default();
    Ok(SimOutcome {
        protocol: params.protocol,
        n,
        depth,
        latency,
        max_cpu,
        root_cpu: rs.cpu,
        root_bytes: rs.bytes_sent + rs.bytes_received,
        total_bytes: report.total_bytes(),
        total_cpu: report.total_cpu(),
        participants: 0,
        signature: None,
        report,
    })
}

fn at_duration(t: quorate_net::SimTime) -> Duration {
    Duration::from_nanos((t.as_secs_f64() * 1e9).round() as u64)
}

/// Runs one signing round of `params.protocol` for `message` on the simulator. The result
/// is verified (CoSi: by the root's `finalize`, strict Ed25519 and the policy; baselines:
/// individual or joint signature checks) before an outcome is returned.
pub fn simulate(
    setup: &SimSetup,
    params: &SimParams,
    message: &[u8],
) -> Result<SimOutcome, CosiError> {
    let n = setup.roster.len();
    match params.protocol {
        SimProtocol::Cosi(mode) => {
            check_tree(&params.tree, n)?;
            let (tree, _) = params.tree.repair(|i| !params.absent.contains(&i))?;
            let depth = tree.depth();
            let root = tree.root();
            let kt = Arc::new(KeyTree::new(setup.roster.clone(), tree)?);
            let mut nodes = Vec::with_capacity(n);
            for i in 0..n {
                if params.absent.contains(&i) || !kt.tree().contains(i) {
                    nodes.push(CosiNode::absent());
                } else {
                    nodes.push(CosiNode::new(
                        kt.clone(),
                        i,
                        setup.keys[i].clone(),
                        mode,
                        message,
                        params.policy.clone(),
                        params.seed,
                    )?);
                }
            }
            let mut sim = Simulation::new(nodes, network(params), config(params, root))
                .map_err(|_| ParamError::Invalid("simulator setup"))?;
            for &i in &params.absent {
                let _ = sim.set_offline(node_id(i));
            }
            let report = sim.run();
            let first = sim
                .outputs(node_id(root))
                .first()
                .map(|(t, r)| (*t, r.clone()));
            let (at, sig) = match first {
                Some((t, Ok(sig))) => (t, sig),
                Some((_, Err(e))) => return Err(e),
                None => {
                    // Surface the first error any node reported.
                    for v in 0..n {
                        if let Some((_, Err(e))) = sim.outputs(node_id(v)).first() {
                            return Err(e.clone());
                        }
                    }
                    return Err(CosiError::Misuse {
                        check: "the root produced no signature",
                    });
                }
            };
            let mut out = outcome_from(params, n, depth, root, report, Some(at_duration(at)))?;
            out.participants = sig.mask().count();
            out.signature = Some(sig);
            Ok(out)
        }
        SimProtocol::NTree | SimProtocol::Naive => {
            let tree = if params.protocol == SimProtocol::Naive {
                Tree::star(n)?
            } else {
                check_tree(&params.tree, n)?;
                params.tree.clone()
            };
            let (tree, _) = tree.repair(|i| !params.absent.contains(&i))?;
            let depth = tree.depth();
            let root = tree.root();
            let tree = Arc::new(tree);
            let nodes: Vec<NTreeNode> = (0..n)
                .map(|i| {
                    if params.absent.contains(&i) || !tree.contains(i) {
                        NTreeNode::absent()
                    } else {
                        NTreeNode::new(
                            tree.clone(),
                            &setup.roster,
                            i,
                            setup.keys[i].clone(),
                            message,
                            params.seed,
                        )
                    }
                })
                .collect();
            let mut sim = Simulation::new(nodes, network(params), config(params, root))
                .map_err(|_| ParamError::Invalid("simulator setup"))?;
            for &i in &params.absent {
                let _ = sim.set_offline(node_id(i));
            }
            let report = sim.run();
            let first = sim
                .outputs(node_id(root))
                .first()
                .map(|(t, r)| (*t, r.clone()));
            match first {
                Some((t, Ok(list))) => {
                    let mut out =
                        outcome_from(params, n, depth, root, report, Some(at_duration(t)))?;
                    out.participants = list.len();
                    Ok(out)
                }
                Some((_, Err(e))) => Err(e),
                None => Err(CosiError::Misuse {
                    check: "the root produced no list",
                }),
            }
        }
        SimProtocol::Jvss => {
            if !params.absent.is_empty() {
                return Err(ParamError::Invalid(
                    "the JVSS baseline runs with every member present",
                )
                .into());
            }
            let t = n / 2 + 1;
            let mut rng = ChaCha20Rng::seed_from_u64(params.seed ^ 0x4a56_5353);
            let group = Arc::new(JvssGroup::generate(n, t, &mut rng)?);
            let nodes: Vec<JvssNode> = (0..n)
                .map(|i| JvssNode::new(group.clone(), i, message, params.seed))
                .collect();
            let mut sim = Simulation::new(nodes, network(params), config(params, 0))
                .map_err(|_| ParamError::Invalid("simulator setup"))?;
            let report = sim.run();
            let first = sim
                .outputs(node_id(0))
                .first()
                .map(|(t, r)| (*t, r.clone()));
            match first {
                Some((at, Ok(_sig))) => {
                    let mut out = outcome_from(params, n, 1, 0, report, Some(at_duration(at)))?;
                    out.participants = t;
                    Ok(out)
                }
                Some((_, Err(e))) => Err(e),
                None => Err(CosiError::Misuse {
                    check: "the JVSS leader produced no signature",
                }),
            }
        }
    }
}

fn check_tree(tree: &Tree, n: usize) -> Result<(), CosiError> {
    if tree.n() != n {
        return Err(ParamError::LengthMismatch {
            what: "tree size",
            expected: n,
            got: tree.n(),
        }
        .into());
    }
    Ok(())
}

/// A fresh random 32-byte message (benchmarks sign a new message per run).
pub fn random_message(seed: u64) -> Vec<u8> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut m = vec![0u8; 32];
    rng.fill_bytes(&mut m);
    m
}

/// The participants' mask of a CoSi outcome (empty for baselines).
pub fn outcome_mask(out: &SimOutcome, n: usize) -> Mask {
    out.signature
        .as_ref()
        .map(|s| s.mask().clone())
        .unwrap_or_else(|| Mask::empty(n))
}
