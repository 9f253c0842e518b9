//! CoSi and the paper's baselines as [`quorate_net::Process`] nodes on the network
//! simulator.
//!
//! Every node runs the **same sans-I/O round functions** as [`quorate_cosi::sign_in_process`]
//! ([`Witness::commit`], [`Aggregator`], [`ChallengeContext::derive`],
//! [`Witness::respond_with_context`], [`AggregatorCollecting::finish`],
//! [`ChallengeContext::finalize`]); messages travel in their real encodings
//! ([`Commitment::to_bytes`] …), so the simulator's byte counters and bandwidth model see the
//! real sizes. Each node derives the challenge context itself (there is no shared-context
//! shortcut here): the CPU the simulator measures per node is what a deployment would spend.
//!
//! Protocols ([`SimProtocol`]): CoSi two-nonce (default) and legacy; NTree and Naive
//! (individual Ed25519 signatures, [`super::baselines`]); JVSS (per-round dealing among all
//! members, all-to-all).
//!
//! Absent witnesses ([`SimParams::absent`]) are known before the round (as when the leader
//! pre-checks liveness, cothority #799): the tree is repaired around them ([`Tree::repair`])
//! and they are offline in the simulator. Faults the leader does not know about
//! ([`SimParams::faults`]: silent, silent after committing, bad partial response) are found
//! by the protocol itself: per-subtree timeouts, per-child checks, failure reports up the
//! tree, and restarts by the leader with an adjusted tree and mask and fresh nonces
//! ([`CosiNode`] explains the rules); the simulated latency includes the waiting.

pub use quorate_net::{CpuClock, Stopwatch};

use super::baselines::{decode_signatures, encode_signatures, sign_individual, verify_individual};
use super::baselines::{verify_share, BaselineKey, BaselinePublicKey, Dealing, JvssGroup};
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::transcript::SessionId;
use quorate_core::{DecodeError, ParamError};
use quorate_cosi::{
    Aggregator, AggregatorAwaitingChallenge, AggregatorCollecting, Announcement, Challenge,
    ChallengeContext, ChildCheck, Commitment, CommittedWitness, CosiError, ExactMessage, KeyTree,
    Mask, Mode, Policy, Response, Roster, RosterEntry, SecretKey, Signature, Tree, Witness,
};
use quorate_net::{
    Bandwidth, ComputeModel, Context, NetworkModel, NodeId, Process, Report, SimConfig, Simulation,
    StopCondition, TimerId,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::collections::{BTreeMap, BTreeSet};
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
    /// How handlers are timed (default [`CpuClock::Thread`]: the simulator thread's user +
    /// system CPU time, as the paper's Fig. 4 reports, unaffected by other processes).
    pub cpu_clock: CpuClock,
    /// Seeds the nodes' RNGs and the simulator.
    pub seed: u64,
    /// Policy the CoSi root checks before finalizing.
    pub policy: Policy,
    /// Misbehaving witnesses the leader does not know about (CoSi only).
    pub faults: BTreeMap<usize, SimFault>,
    /// CoSi per-level timeout step: a node whose subtree has height `h` waits `h × step` for
    /// its children in each phase. `None`: [`default_level_timeout`] of the one-way latency.
    pub level_timeout: Option<Duration>,
    /// Attempts the CoSi leader makes before giving up (default 8).
    pub max_attempts: usize,
}

impl SimParams {
    /// Defaults: 100 ms one way (200 ms RTT), 100 Mbit/s, measured compute on the thread CPU
    /// clock, no absentees or faults, policy threshold 1, timeouts from the latency, 8 attempts.
    pub fn new(protocol: SimProtocol, tree: Tree) -> Self {
        SimParams {
            protocol,
            tree,
            absent: BTreeSet::new(),
            one_way_latency: Duration::from_millis(100),
            bandwidth: Bandwidth::mbit_per_sec(100.0),
            compute: ComputeModel::Measured,
            cpu_clock: CpuClock::Thread,
            seed: 1,
            policy: Policy::Threshold(1),
            faults: BTreeMap::new(),
            level_timeout: None,
            max_attempts: 8,
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
    /// Attempts the CoSi leader made (1 if nothing failed; 1 for the baselines).
    pub attempts: usize,
    /// Witnesses the CoSi leader excluded after they failed, in the order they were named.
    pub excluded: Vec<usize>,
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

/// A misbehaving witness in a simulated CoSi round (fault injection).
///
/// Unlike [`SimParams::absent`] (down and known to be down before the round, so the tree is
/// repaired around it in advance), these faults are discovered by the protocol itself
/// through its per-subtree timeouts and its checks of partial responses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimFault {
    /// Up as far as the leader knows, but never answers: it neither forwards the
    /// announcement nor commits. Its parent's commitment timeout leaves its whole subtree
    /// out of the mask; if the policy then fails, the leader restarts without it and the
    /// subtree is re-attached under its first live child (subleader replacement).
    Silent,
    /// Commits (and aggregates its subtree's commitments), then ignores the challenge: its
    /// parent's response timeout names it ("no response after committing") and the leader
    /// restarts with it excluded and fresh nonces.
    SilentAfterCommit,
    /// Sends a wrong partial response (`s + 1`; an interior node corrupts its subtree's sum):
    /// its parent's check names it and the leader restarts with it excluded.
    BadResponse,
}

/// Wire tag of a restart announcement: attempt number and excluded witnesses, then the
/// announcement itself (attempt 0 sends the bare [`Announcement`]).
const TAG_COSI_ATTEMPT: u8 = 0x45;
/// Wire tag of a failure report sent up the tree: attempt, check code, culprits.
const TAG_COSI_FAILURE: u8 = 0x46;
/// Failure codes on the wire and the checks they stand for.
const FAILURE_CHECKS: [&str; 4] = [
    "failure report",
    "no response after committing",
    "partial response does not verify",
    "invalid partial response",
];
/// Timer phases (low two bits of the timer id; the attempt is in the upper bits).
const TIMER_COMMIT: u64 = 1;
const TIMER_RESPONSE: u64 = 2;

fn failure_code(check: &str) -> u8 {
    FAILURE_CHECKS
        .iter()
        .position(|c| *c == check)
        .and_then(|p| u8::try_from(p).ok())
        .unwrap_or(0)
}

fn encode_indices(w: &mut Writer, indices: &[usize]) {
    w.u16(indices.len() as u16);
    for &i in indices {
        w.u16(i as u16);
    }
}

fn decode_indices(r: &mut Reader<'_>, n: usize) -> Result<Vec<usize>, DecodeError> {
    let k = usize::from(r.u16()?);
    if k > n {
        return Err(DecodeError::InvalidValue {
            what: "witness list",
            reason: "longer than the roster",
        });
    }
    (0..k)
        .map(|_| {
            let i = usize::from(r.u16()?);
            if i >= n {
                return Err(DecodeError::InvalidValue {
                    what: "witness index",
                    reason: "outside the roster",
                });
            }
            Ok(i)
        })
        .collect()
}

fn encode_attempt(attempt: u32, excluded: &[usize], ann: &Announcement) -> Wire {
    let mut w = Writer::new();
    w.bytes(&[TAG_COSI_ATTEMPT]).u32(attempt);
    encode_indices(&mut w, excluded);
    w.bytes(&ann.to_bytes());
    w.into_bytes()
}

fn decode_attempt(msg: &[u8], n: usize) -> Result<(u32, Vec<usize>, Announcement), DecodeError> {
    let mut r = Reader::new("restart announcement", msg);
    let [_tag] = r.array()?;
    let attempt = r.u32()?;
    let excluded = decode_indices(&mut r, n)?;
    let rest = r.take(r.remaining())?;
    Ok((attempt, excluded, Announcement::from_bytes(rest)?))
}

fn encode_failure(attempt: u32, check: &str, culprits: &[usize]) -> Wire {
    let mut w = Writer::new();
    w.bytes(&[TAG_COSI_FAILURE, failure_code(check)])
        .u32(attempt);
    encode_indices(&mut w, culprits);
    w.into_bytes()
}

fn decode_failure(msg: &[u8], n: usize) -> Result<(u32, &'static str, Vec<usize>), DecodeError> {
    let mut r = Reader::new("failure report", msg);
    let [_tag, code] = r.array()?;
    let check =
        FAILURE_CHECKS
            .get(usize::from(code))
            .copied()
            .ok_or(DecodeError::InvalidValue {
                what: "failure report",
                reason: "unknown check code",
            })?;
    let attempt = r.u32()?;
    let culprits = decode_indices(&mut r, n)?;
    r.finish()?;
    Ok((attempt, check, culprits))
}

fn timer_id(attempt: u32, phase: u64) -> TimerId {
    TimerId((u64::from(attempt) << 2) | phase)
}

/// Height of the subtree rooted at `v` (0 for a leaf).
fn subtree_height(tree: &Tree, v: usize) -> u32 {
    let base = tree.level(v).unwrap_or(0);
    let h = tree
        .subtree(v)
        .iter()
        .filter_map(|&u| tree.level(u))
        .max()
        .unwrap_or(base)
        .saturating_sub(base);
    u32::try_from(h).unwrap_or(u32::MAX)
}

/// The default per-level timeout step: four one-way latencies (a round trip to a child
/// and a margin of the same size) plus one second for computation and queueing.
pub fn default_level_timeout(one_way_latency: Duration) -> Duration {
    one_way_latency * 4 + Duration::from_secs(1)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// No session (before the first announcement, or excluded from the current attempt).
    Idle,
    /// Interior node collecting its children's commitments.
    Committing,
    /// Committed; waiting for the challenge.
    AwaitingChallenge,
    /// Interior node collecting partial responses.
    Responding,
    /// Done with this attempt (answered, failed, or left out).
    Done,
}

/// The leader's restart state (root only).
struct Leader {
    message: Vec<u8>,
    mode: Mode,
    seed: u64,
    max_attempts: usize,
    /// Excluded after failing, relative to the attempt-0 tree.
    excluded: BTreeSet<usize>,
    /// The same, in the order they were named.
    log: Vec<usize>,
}

/// A CoSi witness (and aggregator, if interior) as a simulator process.
///
/// **Per-subtree timeouts.** A node whose subtree has height `h` waits at most `h × step`
/// (see [`SimParams::level_timeout`]) for its children in each phase, counted from when it
/// forwarded the announcement or the challenge. Deadlines shrink by one step per level, so
/// a child always reports (with whatever it has) before its parent gives up on it.
/// * Commitment timeout: the children that have not committed are left out through the
///   mask (their whole subtree). If the root's mask then fails the policy, the leader
///   restarts without the silent subtree roots, and the repaired tree re-attaches their
///   subtrees under their first live child ([`Tree::repair`], subleader replacement).
/// * Response timeout, or a partial response that fails the check: the node names the
///   culprits ([`AggregatorCollecting::finish`]) and sends a failure report up the tree; the
///   leader restarts with them excluded, a new session id and fresh nonces (the old nonce
///   states are dropped, and zeroized, when the new announcement arrives).
///
/// Reports are checked for plausibility (a child can only name members of its own
/// subtree, otherwise it is blamed itself); like all blame here they assume authenticated
/// links.
pub struct CosiNode {
    role: Option<Box<CosiRole>>,
    output: Option<Result<Signature, CosiError>>,
}

struct CosiRole {
    index: usize,
    /// The attempt-0 tree; restarts repair it around the excluded witnesses.
    base: Arc<KeyTree>,
    /// The current attempt's tree.
    tree: Arc<KeyTree>,
    witness: Witness,
    rng: ChaCha20Rng,
    policy: Policy,
    leader: Option<Leader>,
    fault: Option<SimFault>,
    step: Duration,
    attempt: u32,
    session: Option<SessionId>,
    height: u32,
    phase: Phase,
    /// Children heard from in the current phase.
    heard: BTreeSet<usize>,
    committed: Option<CommittedWitness>,
    aggregator: Option<Aggregator>,
    awaiting: Option<AggregatorAwaitingChallenge>,
    collecting: Option<AggregatorCollecting>,
    context: Option<ChallengeContext>,
}

type Step = Result<Option<Signature>, CosiError>;

impl CosiNode {
    /// A node that never runs (absent witness).
    pub fn absent() -> Self {
        CosiNode {
            role: None,
            output: None,
        }
    }

    /// Witness `index` of `tree`; the root starts a session for `message` in `mode`.
    /// Timeouts default to [`default_level_timeout`] of 100 ms; see
    /// [`CosiNode::with_recovery`].
    pub fn new(
        tree: Arc<KeyTree>,
        index: usize,
        key: SecretKey,
        mode: Mode,
        message: &[u8],
        policy: Policy,
        seed: u64,
    ) -> Result<Self, CosiError> {
        // Every witness was told out of band what this round signs.
        let validator = ExactMessage(message.to_vec());
        #[cfg(feature = "insecure-legacy")]
        let witness = if mode == Mode::Legacy {
            Witness::new_insecure_legacy(tree.roster().clone(), index, key, validator)?
        } else {
            Witness::new(tree.roster().clone(), index, key, validator)?
        };
        #[cfg(not(feature = "insecure-legacy"))]
        let witness = Witness::new(tree.roster().clone(), index, key, validator)?;
        let leader = (tree.tree().root() == index).then(|| Leader {
            message: message.to_vec(),
            mode,
            seed,
            max_attempts: 8,
            excluded: BTreeSet::new(),
            log: Vec::new(),
        });
        Ok(CosiNode {
            role: Some(Box::new(CosiRole {
                index,
                base: tree.clone(),
                tree,
                witness,
                rng: ChaCha20Rng::seed_from_u64(seed ^ ((index as u64) << 20)),
                policy,
                leader,
                fault: None,
                step: default_level_timeout(Duration::from_millis(100)),
                attempt: 0,
                session: None,
                height: 0,
                phase: Phase::Idle,
                heard: BTreeSet::new(),
                committed: None,
                aggregator: None,
                awaiting: None,
                collecting: None,
                context: None,
            })),
            output: None,
        })
    }

    /// Sets the per-level timeout step and (at the root) how many attempts the leader makes.
    pub fn with_recovery(mut self, step: Duration, max_attempts: usize) -> Self {
        if let Some(role) = self.role.as_mut() {
            role.step = step;
            if let Some(l) = role.leader.as_mut() {
                l.max_attempts = max_attempts.max(1);
            }
        }
        self
    }

    /// Makes this node misbehave ([`SimFault`]).
    pub fn with_fault(mut self, fault: SimFault) -> Self {
        if let Some(role) = self.role.as_mut() {
            role.fault = Some(fault);
        }
        self
    }

    /// Attempts the leader has started so far (0 for other nodes).
    pub fn attempts(&self) -> usize {
        self.role
            .as_ref()
            .filter(|r| r.leader.is_some())
            .map_or(0, |r| r.attempt as usize + 1)
    }

    /// Witnesses the leader excluded after they failed, in the order they were named.
    pub fn excluded(&self) -> Vec<usize> {
        self.role
            .as_ref()
            .and_then(|r| r.leader.as_ref())
            .map(|l| l.log.clone())
            .unwrap_or_default()
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

    fn deadline(&self) -> Duration {
        self.step.saturating_mul(self.height.max(1))
    }

    fn is_current(&self, session: &SessionId) -> bool {
        self.session.as_ref() == Some(session)
    }

    /// Drops every state of the previous attempt (nonces are zeroized on drop).
    fn reset(&mut self) {
        self.committed = None;
        self.aggregator = None;
        self.awaiting = None;
        self.collecting = None;
        self.context = None;
        self.heard.clear();
    }

    /// The leader opens attempt `attempt` (through [`CosiRole::restart`] for k ≥ 1).
    fn lead(&mut self, attempt: u32, ctx: &mut Context<'_, Wire>) -> Step {
        let Some(l) = self.leader.as_ref() else {
            return Ok(None);
        };
        let session = if attempt == 0 {
            format!("quorate/cosi/sim/{}", l.seed)
        } else {
            format!("quorate/cosi/sim/{}/attempt/{attempt}", l.seed)
        };
        let ann = Announcement {
            session: SessionId::new(session.into_bytes()),
            mode: l.mode,
            message: l.message.clone(),
        };
        if attempt == 0 {
            let wire = ann.to_bytes();
            self.on_announcement(0, &[], ann, wire, ctx)
        } else {
            let excluded: Vec<usize> = l.excluded.iter().copied().collect();
            let wire = encode_attempt(attempt, &excluded, &ann);
            self.on_announcement(attempt, &excluded, ann, wire, ctx)
        }
    }

    /// Leader: excludes `culprits` and starts the next attempt, or gives up.
    fn restart(
        &mut self,
        culprits: Vec<usize>,
        check: &'static str,
        ctx: &mut Context<'_, Wire>,
    ) -> Step {
        self.phase = Phase::Done;
        self.cancel_timers(ctx);
        let n = self.base.roster().len();
        let next = self.attempt.saturating_add(1);
        let Some(l) = self.leader.as_mut() else {
            return Ok(None);
        };
        let mut progress = false;
        for c in &culprits {
            if l.excluded.insert(*c) {
                l.log.push(*c);
                progress = true;
            }
        }
        let last = quorate_core::Blame::many(
            culprits
                .iter()
                .map(|&i| quorate_cosi::error::witness_id(i))
                .collect(),
            check,
        );
        if !progress || next as usize >= l.max_attempts {
            return Err(CosiError::TooManyAttempts {
                attempts: next as usize,
                last,
            });
        }
        let base = self.base.tree();
        let live = Mask::from_indices(
            n,
            base.preorder()
                .iter()
                .copied()
                .filter(|i| !l.excluded.contains(i)),
        )?;
        if !self.policy.is_satisfied(&live) {
            return Err(CosiError::PolicyUnreachable {
                live: live.count(),
                n,
            });
        }
        self.lead(next, ctx)
    }

    fn cancel_timers(&self, ctx: &mut Context<'_, Wire>) {
        ctx.cancel_timer(timer_id(self.attempt, TIMER_COMMIT));
        ctx.cancel_timer(timer_id(self.attempt, TIMER_RESPONSE));
    }

    /// Round 0 at this node: adopt the attempt's tree, forward, commit.
    fn on_announcement(
        &mut self,
        attempt: u32,
        excluded: &[usize],
        ann: Announcement,
        wire: Wire,
        ctx: &mut Context<'_, Wire>,
    ) -> Step {
        if self.session.is_some() && attempt <= self.attempt {
            return Ok(None); // a repeat, or an older attempt
        }
        self.cancel_timers(ctx);
        self.reset();
        if attempt > 0 {
            let (tree, _) = self.base.tree().repair(|i| !excluded.contains(&i))?;
            self.tree = Arc::new(KeyTree::new(self.base.roster().clone(), tree)?);
        }
        self.attempt = attempt;
        self.session = Some(ann.session.clone());
        self.phase = Phase::Done;
        if !self.tree.tree().contains(self.index) || self.fault == Some(SimFault::Silent) {
            return Ok(None);
        }
        self.height = subtree_height(self.tree.tree(), self.index);
        let kids = self.children();
        if !kids.is_empty() {
            ctx.multicast(kids.iter().copied(), wire);
        }
        let (state, own) = self.witness.commit(&ann, &mut self.rng)?;
        self.committed = Some(state);
        if kids.is_empty() && !self.is_root() {
            self.phase = Phase::AwaitingChallenge;
            self.to_parent(ctx, own.to_bytes());
            return Ok(None);
        }
        let mut agg = aggregator_for(self.tree.clone(), self.index, &ann)?;
        agg.add_commitment(own)?;
        self.aggregator = Some(agg);
        self.phase = Phase::Committing;
        if kids.is_empty() {
            return self.finish_commitments(ctx);
        }
        ctx.set_timer(self.deadline(), timer_id(attempt, TIMER_COMMIT));
        Ok(None)
    }

    fn on_commitment(&mut self, from: usize, c: Commitment, ctx: &mut Context<'_, Wire>) -> Step {
        if self.phase != Phase::Committing || !self.is_current(c.session()) {
            return Ok(None); // late, or from another attempt
        }
        if !self.tree.tree().children(self.index).contains(&from) || !self.heard.insert(from) {
            return Ok(None);
        }
        let Some(agg) = self.aggregator.as_mut() else {
            return Ok(None);
        };
        // A commitment that fails the checks (wrong sender field, mask outside the child's
        // subtree, …) leaves that child out, like a missing one.
        if c.from() == from {
            let _ = agg.add_commitment(c);
        }
        if self.heard.len() < self.tree.tree().children(self.index).len() {
            return Ok(None);
        }
        self.finish_commitments(ctx)
    }

    fn finish_commitments(&mut self, ctx: &mut Context<'_, Wire>) -> Step {
        ctx.cancel_timer(timer_id(self.attempt, TIMER_COMMIT));
        let agg = self.aggregator.take().ok_or(CosiError::Misuse {
            check: "aggregator missing",
        })?;
        self.heard.clear();
        let (aw, out) = agg.finish_commitments()?;
        self.awaiting = Some(aw);
        self.phase = Phase::AwaitingChallenge;
        if !self.is_root() {
            self.to_parent(ctx, out.to_bytes());
            return Ok(None);
        }
        if self.policy.is_satisfied(out.mask()) {
            let Some(l) = self.leader.as_ref() else {
                return Ok(None);
            };
            let challenge = Challenge::new(&out, l.message.clone());
            let wire = challenge.to_bytes();
            return self.on_challenge(challenge, wire, ctx);
        }
        // Subleader replacement: the topmost members missing from the mask (their parent
        // committed, they did not) are presumed down; restart without them.
        let t = self.tree.tree();
        let silent: Vec<usize> = t
            .preorder()
            .iter()
            .copied()
            .filter(|&v| {
                !out.mask().contains(v) && t.parent(v).is_some_and(|p| out.mask().contains(p))
            })
            .collect();
        if silent.is_empty() {
            return Err(quorate_cosi::VerifyFailure::PolicyNotSatisfied.into());
        }
        self.restart(silent, "no commitment before the timeout", ctx)
    }

    fn on_challenge(&mut self, ch: Challenge, wire: Wire, ctx: &mut Context<'_, Wire>) -> Step {
        if self.phase != Phase::AwaitingChallenge || !self.is_current(ch.session()) {
            return Ok(None);
        }
        self.phase = Phase::Done;
        if self.fault == Some(SimFault::SilentAfterCommit) {
            self.reset();
            return Ok(None);
        }
        if !ch.mask().contains(self.index) {
            // This subtree's commitment came too late: it is not part of the signature.
            self.reset();
            return Ok(None);
        }
        let kids = self.children();
        if !kids.is_empty() {
            ctx.multicast(kids.iter().copied(), wire);
        }
        // Every node derives the context itself.
        let cctx = ChallengeContext::derive(self.tree.roster(), &ch)?;
        let state = self.committed.take().ok_or(CosiError::Misuse {
            check: "challenge without commitment",
        })?;
        let own = self.witness.respond_with_context(state, &cctx)?;
        match self.awaiting.take() {
            None => {
                let own = self.corrupt(own);
                self.to_parent(ctx, own.to_bytes());
                Ok(None)
            }
            Some(aw) => {
                let mut collecting = aw.receive_context(cctx.clone())?;
                collecting.add_response(own)?;
                let waiting = collecting.expected().len().saturating_sub(1);
                self.collecting = Some(collecting);
                self.context = Some(cctx);
                self.phase = Phase::Responding;
                if waiting == 0 {
                    return self.finish_responses(ctx);
                }
                ctx.set_timer(self.deadline(), timer_id(self.attempt, TIMER_RESPONSE));
                Ok(None)
            }
        }
    }

    fn corrupt(&self, r: Response) -> Response {
        if self.fault == Some(SimFault::BadResponse) {
            r.with_s(r.s() + Scalar::ONE)
        } else {
            r
        }
    }

    fn on_response(&mut self, from: usize, r: Response, ctx: &mut Context<'_, Wire>) -> Step {
        if self.phase != Phase::Responding || !self.is_current(r.session()) {
            return Ok(None);
        }
        let Some(col) = self.collecting.as_mut() else {
            return Ok(None);
        };
        if r.from() != from || !self.heard.insert(from) {
            return self.fail(vec![from], "invalid partial response", ctx);
        }
        if let Err(e) = col.add_response(r) {
            let culprits = quorate_core::error::Culprits::culprits(&e)
                .iter()
                .map(|p| p.position())
                .collect();
            return self.fail(culprits, "invalid partial response", ctx);
        }
        if self.heard.len() < col.expected().len().saturating_sub(1) {
            return Ok(None);
        }
        self.finish_responses(ctx)
    }

    fn finish_responses(&mut self, ctx: &mut Context<'_, Wire>) -> Step {
        ctx.cancel_timer(timer_id(self.attempt, TIMER_RESPONSE));
        self.phase = Phase::Done;
        self.heard.clear();
        let col = self.collecting.take().ok_or(CosiError::Misuse {
            check: "not collecting",
        })?;
        let total = match col.finish(ChildCheck::Batched, &mut self.rng) {
            Ok(total) => total,
            Err(CosiError::Aborted(b)) => {
                let culprits: Vec<usize> = b.culprits().iter().map(|p| p.position()).collect();
                return self.fail(culprits, b.check(), ctx);
            }
            Err(e) => return Err(e),
        };
        if self.is_root() {
            let cctx = self.context.take().ok_or(CosiError::Misuse {
                check: "context missing",
            })?;
            return cctx
                .finalize(self.tree.roster(), &total, &self.policy)
                .map(Some);
        }
        let total = self.corrupt(total);
        self.to_parent(ctx, total.to_bytes());
        Ok(None)
    }

    /// This attempt failed here: report up the tree (the leader restarts).
    fn fail(
        &mut self,
        culprits: Vec<usize>,
        check: &'static str,
        ctx: &mut Context<'_, Wire>,
    ) -> Step {
        self.phase = Phase::Done;
        self.cancel_timers(ctx);
        self.reset();
        if self.is_root() {
            return self.restart(culprits, check, ctx);
        }
        self.to_parent(ctx, encode_failure(self.attempt, check, &culprits));
        Ok(None)
    }

    fn on_failure(&mut self, from: usize, msg: &[u8], ctx: &mut Context<'_, Wire>) -> Step {
        let (attempt, check, culprits) = decode_failure(msg, self.base.roster().len())?;
        let t = self.tree.tree();
        if attempt != self.attempt || t.parent(from) != Some(self.index) {
            return Ok(None);
        }
        // A child may only name members of its own subtree; otherwise it is blamed itself.
        let plausible = !culprits.is_empty() && culprits.iter().all(|&c| t.in_subtree(from, c));
        let (culprits, check) = if plausible {
            (culprits, check)
        } else {
            (vec![from], "failure report")
        };
        self.fail(culprits, check, ctx)
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut Context<'_, Wire>) -> Step {
        if timer.0 >> 2 != u64::from(self.attempt) {
            return Ok(None);
        }
        match (timer.0 & 3, self.phase) {
            (TIMER_COMMIT, Phase::Committing) => self.finish_commitments(ctx),
            (TIMER_RESPONSE, Phase::Responding) => self.finish_responses(ctx),
            _ => Ok(None),
        }
    }

    fn handle(&mut self, from: usize, msg: &[u8], ctx: &mut Context<'_, Wire>) -> Step {
        let n = self.tree.roster().len();
        match msg.first() {
            Some(0x41) => {
                let ann = Announcement::from_bytes(msg)?;
                self.on_announcement(0, &[], ann, msg.to_vec(), ctx)
            }
            Some(&TAG_COSI_ATTEMPT) => {
                let (attempt, excluded, ann) = decode_attempt(msg, n)?;
                self.on_announcement(attempt, &excluded, ann, msg.to_vec(), ctx)
            }
            Some(0x42) => {
                let c = Commitment::from_bytes(msg, n)?;
                self.on_commitment(from, c, ctx)
            }
            Some(0x43) => {
                let ch = Challenge::from_bytes(msg, n)?;
                self.on_challenge(ch, msg.to_vec(), ctx)
            }
            Some(0x44) => {
                let r = Response::from_bytes(msg, n)?;
                self.on_response(from, r, ctx)
            }
            Some(&TAG_COSI_FAILURE) => self.on_failure(from, msg, ctx),
            _ => Err(CosiError::Misuse {
                check: "unknown message",
            }),
        }
    }
}

impl CosiNode {
    fn record(&mut self, step: Step) {
        match step {
            Ok(Some(sig)) => self.output = Some(Ok(sig)),
            Ok(None) => {}
            Err(e) => self.output = Some(Err(e)),
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
        if role.leader.is_some() {
            let step = role.lead(0, ctx);
            self.record(step);
        }
    }

    fn on_message(&mut self, from: NodeId, msg: Wire, ctx: &mut Context<'_, Wire>) {
        let Some(role) = self.role.as_mut() else {
            return;
        };
        let step = role.handle(from.index(), &msg, ctx);
        self.record(step);
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut Context<'_, Wire>) {
        let Some(role) = self.role.as_mut() else {
            return;
        };
        let step = role.on_timer(timer, ctx);
        self.record(step);
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
    key: BaselineKey,
    children_keys: Vec<(usize, BaselinePublicKey)>,
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

    /// Node `index` of `tree` with its baseline `key`; `publics` (roster order) gives the
    /// children's baseline keys.
    pub fn new(
        tree: Arc<Tree>,
        publics: &[BaselinePublicKey],
        index: usize,
        key: BaselineKey,
        message: &[u8],
        seed: u64,
    ) -> Self {
        let children_keys = tree
            .children(index)
            .iter()
            .filter_map(|&c| publics.get(c).map(|k| (c, *k)))
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
                self.output = Some(
                    self.group
                        .combine(&self.partials, &v, &message)
                        .ok_or(CosiError::ProofRejected("JVSS signature does not verify")),
                );
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
    /// The witnesses' baseline keys (roster order), for the Naive and NTree baselines;
    /// never the roster keys (see [`super::baselines`]).
    pub baseline: Vec<BaselineKey>,
    /// Their public keys.
    pub baseline_publics: Vec<BaselinePublicKey>,
}

impl SimSetup {
    /// `n` fresh witnesses from `seed`.
    pub fn generate(n: usize, seed: u64) -> Result<Self, CosiError> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let keys: Vec<SecretKey> = (0..n).map(|_| SecretKey::generate(&mut rng)).collect();
        let entries = keys.iter().map(|k| k.roster_entry(&mut rng)).collect();
        SimSetup::from_keys(keys, entries)
    }

    /// Witnesses with the given keys and roster entries (same order); derives their baseline
    /// keys.
    pub fn from_keys(keys: Vec<SecretKey>, entries: Vec<RosterEntry>) -> Result<Self, CosiError> {
        let roster = Arc::new(Roster::new(entries)?);
        let baseline: Vec<BaselineKey> = keys.iter().map(BaselineKey::derive).collect();
        let baseline_publics = baseline.iter().map(|k| *k.public_key()).collect();
        Ok(SimSetup {
            keys,
            roster,
            baseline,
            baseline_publics,
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
        .with_cpu_clock(params.cpu_clock)
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
        attempts: 1,
        excluded: Vec::new(),
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
            let step = params
                .level_timeout
                .unwrap_or_else(|| default_level_timeout(params.one_way_latency));
            let mut nodes = Vec::with_capacity(n);
            for i in 0..n {
                if params.absent.contains(&i) || !kt.tree().contains(i) {
                    nodes.push(CosiNode::absent());
                } else {
                    let mut node = CosiNode::new(
                        kt.clone(),
                        i,
                        setup.keys[i].clone(),
                        mode,
                        message,
                        params.policy.clone(),
                        params.seed,
                    )?
                    .with_recovery(step, params.max_attempts);
                    if let Some(&f) = params.faults.get(&i) {
                        node = node.with_fault(f);
                    }
                    nodes.push(node);
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
            if let Some(leader) = sim.process(node_id(root)) {
                out.attempts = leader.attempts();
                out.excluded = leader.excluded();
            }
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
                            &setup.baseline_publics,
                            i,
                            setup.baseline[i].clone(),
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

/// The aggregator for the announced mode: relays a [`Mode::Legacy`] session only with the
/// `insecure-legacy` feature (which enables the protocol crate's); otherwise it refuses.
fn aggregator_for(
    tree: Arc<KeyTree>,
    node: usize,
    announcement: &Announcement,
) -> Result<Aggregator, CosiError> {
    #[cfg(feature = "insecure-legacy")]
    if announcement.mode == Mode::Legacy {
        return Aggregator::new_insecure_legacy(tree, node, announcement);
    }
    Aggregator::new(tree, node, announcement)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restart_and_failure_messages_round_trip_and_reject_garbage() {
        let ann = Announcement::new(SessionId::new(b"s/attempt/3".to_vec()), b"m".to_vec());
        let wire = encode_attempt(3, &[1, 7], &ann);
        assert_eq!(decode_attempt(&wire, 8), Ok((3, vec![1, 7], ann)));
        assert!(
            decode_attempt(&wire, 7).is_err(),
            "index 7 outside a roster of 7"
        );
        let fail = encode_failure(2, "partial response does not verify", &[4]);
        assert_eq!(
            decode_failure(&fail, 5),
            Ok((2, "partial response does not verify", vec![4]))
        );
        for cut in 0..fail.len() {
            assert!(decode_failure(&fail[..cut], 5).is_err());
        }
        for cut in 0..wire.len() {
            assert!(decode_attempt(&wire[..cut], 8).is_err());
        }
        let mut long = fail.clone();
        long.push(0);
        assert!(decode_failure(&long, 5).is_err());
        let mut unknown = fail;
        unknown[1] = 200;
        assert!(decode_failure(&unknown, 5).is_err());
    }

    #[test]
    fn deadlines_shrink_by_one_step_per_level() {
        let t = Tree::complete(13, 3).expect("tree");
        assert_eq!(subtree_height(&t, 0), 2);
        assert_eq!(subtree_height(&t, 1), 1);
        assert_eq!(subtree_height(&t, 12), 0);
        assert_eq!(timer_id(5, TIMER_RESPONSE).0 >> 2, 5);
    }
}
