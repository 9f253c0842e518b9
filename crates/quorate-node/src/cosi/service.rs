//! CoSi rounds over the node transport: one [`CosiService`] per node, playing leader (the
//! tree's root), subleader or leaf in each session.
//!
//! A session is one attempt at one signature. Its node task, for node `v` of the announced
//! tree with subtree height `h`:
//! 1. forwards the leader's announcement envelope to its children, commits with its own
//!    witness ([`quorate_cosi::Witness::commit`], which runs the [`super::head`] check), and
//!    waits up to `h` level timeouts for the children's commitments; children that stay
//!    silent are simply left out (their bits stay clear in the mask);
//! 2. aggregates ([`quorate_cosi::Aggregator`]) and sends the subtree's commitment to its
//!    parent, with the refusals of its subtree;
//! 3. on the leader's challenge (forwarded down to the children that committed), derives the
//!    challenge context itself, responds with its own witness (after the new chain head is
//!    durable), and waits up to `h` level timeouts for the children's partial responses;
//! 4. checks and sums them ([`quorate_cosi::AggregatorCollecting::finish`]): a child that
//!    committed but does not answer, or answers wrongly, is named, and the names go up
//!    instead of a response.
//!
//! The leader ([`CosiService::cosign`]) runs the root's task, builds the challenge from the
//! root commitment, finalizes and verifies the signature, and restarts with fresh nonces and
//! the named witnesses excluded when a round is aborted. A witness that did not commit in a
//! call (silent, or declining) is moved to a leaf under the root in the next call (so a dead
//! subleader does not take its subtree with it, and a restarted witness, or one whose last
//! round was sealed without it, gets the rounds it missed and rejoins), and back once it
//! answers.

use super::head::HeadValidator;
use super::wire::{self, Announce, ChallengeMsg, Commit, Decline, Respond, SignedHex};
use super::{PROTOCOL, PROTOCOL_VERSION};
use crate::envelope::{Envelope, Header, Recipient};
use crate::fsutil::{self, Overwrite};
use crate::roster::Roster;
use crate::transport::{Received, Transport};
use ed25519_dalek::SigningKey;
use quorate_core::error::Culprits as _;
use quorate_cosi::timestamp::{CosignError, Hash, RootCosigner, RoundHeader, SignedRound};
use quorate_cosi::{
    Aggregator, AggregatorAwaitingChallenge, Announcement, Challenge, ChallengeContext, ChildCheck,
    Commitment, CosiError, KeyTree, Policy, Response, SessionId, Tree, Witness,
};
use rand_core::{OsRng, RngCore as _};
use sha2::{Digest as _, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::{debug, info, warn};

/// What a node needs to play the witness role.
pub struct WitnessSetup {
    /// The node's CoSi witness key (from its keystore).
    pub key: quorate_cosi::SecretKey,
    /// The node roster; its `cosi` entries, in id order, are the CoSi roster.
    pub roster: Roster,
    /// Where the chain head and evidence files live (the node directory).
    pub state_dir: PathBuf,
    /// Largest accepted distance between a round's time and this node's clock.
    pub max_skew_ms: u64,
}

impl std::fmt::Debug for WitnessSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WitnessSetup")
            .field("state_dir", &self.state_dir)
            .finish_non_exhaustive()
    }
}

/// The leader's choices.
#[derive(Clone, Debug)]
pub struct LeaderConfig {
    /// What a signature must satisfy.
    pub policy: Policy,
    /// How long a node waits for its children, per level of its subtree.
    pub level_timeout: Duration,
    /// Attempts per signature (each after naming and excluding culprits).
    pub max_attempts: usize,
}

/// A node's CoSi endpoint.
pub struct CosiService {
    self_id: u16,
    me: usize,
    /// CoSi roster index → node id.
    ids: Vec<u16>,
    roster: Arc<quorate_cosi::Roster>,
    identity: SigningKey,
    transport: Arc<Transport>,
    witness: Mutex<Witness>,
    head: HeadValidator,
    sessions: Mutex<HashMap<[u8; 32], mpsc::Sender<Envelope>>>,
    /// Witnesses that did not commit in the leader's last call.
    suspects: Mutex<BTreeSet<usize>>,
    base_tree: Tree,
    evidence_dir: PathBuf,
    /// The leader's recent signed rounds, oldest first (at most [`HISTORY`]).
    history: Mutex<VecDeque<SignedRound>>,
    /// The last round each witness signed, as far as the leader knows.
    last_signed: Mutex<Vec<Option<u64>>>,
}

/// How many recent signed rounds the leader keeps to catch witnesses up.
pub const HISTORY: usize = 4096;
/// The most rounds sent to one witness in one announcement (a witness further behind catches
/// up over several rounds).
pub const MAX_CATCH_UP: usize = 128;

impl std::fmt::Debug for CosiService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CosiService")
            .field("self_id", &self.self_id)
            .field("index", &self.me)
            .field("witnesses", &self.ids)
            .finish_non_exhaustive()
    }
}

/// Why a session ended without a signature (at the leader).
#[derive(Debug)]
struct Abort {
    culprits: Vec<usize>,
    reason: String,
    /// Too few witnesses committed: worth an immediate retry once the silent ones have
    /// been moved out of their tree positions.
    too_few: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The three-level tree of the paper's deployments (root, about √n subleaders, leaves)
/// with `root` at the top: [`Tree::three_level`] over positions, relabelled so that position
/// 0 is `root` and the others follow in roster order.
fn tree_rooted_at(n: usize, root: usize) -> Result<Tree, CosiError> {
    let shape = Tree::three_level(n)?;
    let label: Vec<usize> = std::iter::once(root)
        .chain((0..n).filter(|&i| i != root))
        .collect();
    let mut children = vec![Vec::new(); n];
    for p in 0..n {
        children[label[p]] = shape.children(p).iter().map(|&c| label[c]).collect();
    }
    Tree::from_children(n, root, children)
}

fn session_key(session: &SessionId) -> [u8; 32] {
    Sha256::digest(session.as_bytes()).into()
}

/// Height of `v`'s subtree (0 for a leaf).
fn height(tree: &Tree, v: usize) -> u32 {
    let base = tree.level(v).unwrap_or(0);
    tree.subtree(v)
        .iter()
        .filter_map(|&u| tree.level(u))
        .map(|l| l - base)
        .max()
        .unwrap_or(0) as u32
}

impl CosiService {
    /// The service of node `self_id` (whose identity key is `identity` and which talks over
    /// `transport`). Fails unless the roster lists this node as a witness with `setup.key`.
    pub fn new(
        self_id: u16,
        identity: SigningKey,
        transport: Arc<Transport>,
        setup: WitnessSetup,
    ) -> Result<Arc<CosiService>, String> {
        let witnesses = setup.roster.cosi_witnesses();
        let ids: Vec<u16> = witnesses.iter().map(|(id, _)| id.get()).collect();
        let me = ids
            .iter()
            .position(|&i| i == self_id)
            .ok_or_else(|| format!("node {self_id} is not a CoSi witness in the roster"))?;
        let roster = Arc::new(
            quorate_cosi::Roster::new(witnesses.into_iter().map(|(_, e)| e).collect())
                .map_err(|e| format!("CoSi roster: {e}"))?,
        );
        let head = HeadValidator::open(&setup.state_dir, roster.id().0, setup.max_skew_ms)?;
        let witness = Witness::new(roster.clone(), me, setup.key, head.clone()).map_err(|e| {
            format!("this node's CoSi key is not its roster entry's ({e}): wrong roster or node directory")
        })?;
        let n = ids.len();
        let base_tree = tree_rooted_at(n, me).map_err(|e| e.to_string())?;
        Ok(Arc::new(CosiService {
            self_id,
            me,
            ids,
            roster,
            identity,
            transport,
            witness: Mutex::new(witness),
            head,
            sessions: Mutex::new(HashMap::new()),
            suspects: Mutex::new(BTreeSet::new()),
            base_tree,
            evidence_dir: setup.state_dir.join("cosi-evidence"),
            history: Mutex::new(VecDeque::new()),
            last_signed: Mutex::new(vec![None; n]),
        }))
    }

    /// Records a signed round of the chain this node leads (the leader calls it for every
    /// round it gets signed, and at start for the stored ones): it is sent to witnesses that
    /// missed it, and its mask says who signed.
    pub fn remember(&self, round: SignedRound) {
        if let Ok(sig) = quorate_cosi::Signature::from_bytes(&round.signature, self.roster.len()) {
            let mut last = lock(&self.last_signed);
            for (i, slot) in last.iter_mut().enumerate() {
                if sig.mask().contains(i) {
                    *slot = Some(slot.map_or(round.header.round, |r| r.max(round.header.round)));
                }
            }
        }
        let mut history = lock(&self.history);
        if history
            .back()
            .is_some_and(|b| b.header.round >= round.header.round)
        {
            history.clear();
        }
        history.push_back(round);
        while history.len() > HISTORY {
            history.pop_front();
        }
    }

    /// The signed rounds witness `index` missed, oldest first (at most [`MAX_CATCH_UP`]).
    fn catch_up_for(&self, index: usize) -> Vec<SignedHex> {
        let from = lock(&self.last_signed)
            .get(index)
            .copied()
            .flatten()
            .map_or(0, |r| r + 1);
        lock(&self.history)
            .iter()
            .filter(|r| r.header.round >= from)
            .take(MAX_CATCH_UP)
            .map(|r| SignedHex {
                message: hex::encode(r.header.message()),
                signature: hex::encode(&r.signature),
            })
            .collect()
    }

    /// The CoSi roster.
    pub fn roster(&self) -> &Arc<quorate_cosi::Roster> {
        &self.roster
    }

    /// The last round this node cosigned.
    pub fn last_cosigned(&self) -> Option<quorate_cosi::timestamp::RoundHeader> {
        self.head.last()
    }

    /// Handles the transport's messages itself (a process with no session runtime, such as
    /// the timestamp leader): decodes and verifies each envelope, then [`Self::handle`].
    pub fn spawn_inbound(self: &Arc<Self>, mut rx: mpsc::Receiver<Received>) {
        let this = self.clone();
        tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                let env = match Envelope::decode_verified(&m.bytes, wire::MAX_PAYLOAD, |id| {
                    this.transport.peers().key(id)
                }) {
                    Ok(e) => e,
                    Err(e) => {
                        warn!(peer = m.from, error = %e, "rejected a message");
                        continue;
                    }
                };
                this.handle(env);
            }
        });
    }

    /// Takes one verified envelope of the CoSi protocol.
    pub fn handle(self: &Arc<Self>, env: Envelope) {
        if env.header.protocol != PROTOCOL || env.header.protocol_version != PROTOCOL_VERSION {
            return;
        }
        let key = env.header.session;
        if env.header.round == wire::ANNOUNCE {
            let Ok(ann) = wire::decode::<Announce>(&env.payload) else {
                warn!(peer = env.header.sender, "malformed announcement");
                return;
            };
            if self.ids.get(usize::from(ann.root)) != Some(&env.header.sender) {
                warn!(
                    peer = env.header.sender,
                    "announcement not from its tree's root"
                );
                return;
            }
            let (tx, rx) = mpsc::channel(64);
            {
                let mut sessions = lock(&self.sessions);
                if sessions.contains_key(&key) {
                    return;
                }
                sessions.insert(key, tx);
            }
            let this = self.clone();
            tokio::spawn(async move {
                let result = this.clone().run_node(env, ann, rx, None).await;
                if let Err(a) = result {
                    debug!(reason = %a.reason, "CoSi session ended without a response");
                }
                lock(&this.sessions).remove(&key);
            });
            return;
        }
        let tx = lock(&self.sessions).get(&key).cloned();
        if let Some(tx) = tx {
            let _ = tx.try_send(env);
        }
    }

    fn seal(
        &self,
        session: [u8; 32],
        round: u16,
        to: Recipient,
        payload: Vec<u8>,
    ) -> Option<Envelope> {
        let header = Header {
            protocol: PROTOCOL.to_owned(),
            protocol_version: PROTOCOL_VERSION,
            key_id: "cosi-timestamp".to_owned(),
            epoch: 0,
            session,
            attempt: 0,
            round,
            sender: self.self_id,
            recipient: to,
        };
        Envelope::seal(header, payload, &self.identity).ok()
    }

    /// Sends `bytes` to roster index `to` in the background.
    fn send_to(&self, to: usize, bytes: Vec<u8>) {
        let Some(&peer) = self.ids.get(to) else {
            return;
        };
        let transport = self.transport.clone();
        tokio::spawn(async move {
            if let Err(e) = transport.send(peer, &bytes).await {
                debug!(peer, error = %e, "CoSi send failed");
            }
        });
    }

    /// Keeps the leader's signed request that conflicts with this witness's chain head.
    fn keep_evidence(&self, request: &Envelope, reason: &str) {
        let last = self.head.last().map(|h| hex::encode(h.message()));
        let body = serde_json::json!({
            "reason": reason,
            "request": hex::encode(request.encode()),
            "last_cosigned": last,
        });
        let path = self.evidence_dir.join(format!(
            "{}.json",
            hex::encode(&request.header.session[..16])
        ));
        let stored = fsutil::create_private_dir(&self.evidence_dir).and_then(|()| {
            fsutil::write_atomic(&path, body.to_string().as_bytes(), 0o600, Overwrite::Never)
        });
        match stored {
            Ok(()) => warn!(evidence = %path.display(), %reason, "refused a conflicting round"),
            Err(e) => {
                warn!(error = %e, %reason, "refused a conflicting round; evidence not stored")
            }
        }
    }

    /// Waits for the next envelope of `round` from one of `from` until `deadline`.
    async fn next_from(
        rx: &mut mpsc::Receiver<Envelope>,
        round: u16,
        from: &BTreeMap<u16, usize>,
        deadline: Instant,
    ) -> Option<(usize, Envelope)> {
        loop {
            let env = tokio::time::timeout_at(deadline, rx.recv()).await.ok()??;
            if env.header.round == round {
                if let Some(&idx) = from.get(&env.header.sender) {
                    return Some((idx, env));
                }
            }
        }
    }

    /// One node's part in one session (`leader` is set at the root).
    async fn run_node(
        self: Arc<Self>,
        ann_env: Envelope,
        ann: Announce,
        mut rx: mpsc::Receiver<Envelope>,
        leader: Option<&LeaderConfig>,
    ) -> Result<quorate_cosi::Signature, Abort> {
        let fail = |reason: String| Abort {
            culprits: Vec::new(),
            reason,
            too_few: false,
        };
        let n = self.roster.len();
        let root = usize::from(ann.root);
        if ann.children.len() != n {
            return Err(fail("announced tree has the wrong size".into()));
        }
        let children: Vec<Vec<usize>> = ann
            .children
            .iter()
            .map(|c| c.iter().map(|&i| usize::from(i)).collect())
            .collect();
        let tree = Tree::from_children(n, root, children).map_err(|e| fail(e.to_string()))?;
        if !tree.contains(self.me) {
            return Err(fail("not in the announced tree".into()));
        }
        let ktree =
            Arc::new(KeyTree::new(self.roster.clone(), tree).map_err(|e| fail(e.to_string()))?);
        let t = ktree.tree();
        let bytes = wire::unhex("announcement", &ann.announcement).map_err(fail)?;
        let announcement = Announcement::from_bytes(&bytes).map_err(|e| fail(e.to_string()))?;
        if session_key(&announcement.session) != ann_env.header.session {
            return Err(fail(
                "envelope session does not match the announcement".into(),
            ));
        }
        let session = ann_env.header.session;
        let level = Duration::from_millis(ann.level_timeout_ms.clamp(10, 60_000));
        let my_height = height(t, self.me);
        let kids: BTreeMap<u16, usize> = t
            .children(self.me)
            .iter()
            .map(|&c| (self.ids[c], c))
            .collect();

        // Round 1: forward the announcement (the leader adds the rounds a child missed),
        // catch up on missed rounds, commit, collect the children's commitments.
        let ann_bytes = ann_env.encode();
        for &c in kids.values() {
            let chain = if leader.is_some() {
                self.catch_up_for(c)
            } else {
                Vec::new()
            };
            let own = if chain.is_empty() {
                None
            } else {
                let with_chain = Announce {
                    chain,
                    ..ann.clone()
                };
                self.seal(
                    session_key(&announcement.session),
                    wire::ANNOUNCE,
                    Recipient::All,
                    wire::encode(&with_chain),
                )
            };
            self.send_to(c, own.map_or_else(|| ann_bytes.clone(), |e| e.encode()));
        }
        if !ann.chain.is_empty() {
            let rounds: Vec<SignedRound> = ann.chain.iter().filter_map(SignedHex::decode).collect();
            match self.head.catch_up(&rounds, &self.roster) {
                Ok(taken) => debug!(taken, "caught up on missed rounds"),
                Err(e) => warn!(error = %e, "could not catch up on missed rounds"),
            }
        }
        let own = lock(&self.witness).commit(&announcement, &mut OsRng);
        let mut declined: Vec<Decline> = Vec::new();
        let (state, own_commitment) = match own {
            Ok((s, c)) => (Some(s), Some(c)),
            Err(CosiError::Declined { reason, .. }) => {
                if reason.starts_with("conflict") {
                    self.keep_evidence(&ann_env, &reason);
                }
                declined.push(Decline {
                    index: self.me as u16,
                    reason,
                    last_cosigned: self.head.last().map(|h| hex::encode(h.message())),
                });
                (None, None)
            }
            Err(e) => return Err(fail(format!("own commitment: {e}"))),
        };
        let deadline = Instant::now() + level * my_height;
        let mut child_commits: Vec<Commitment> = Vec::new();
        let mut waiting = kids.clone();
        while !waiting.is_empty() {
            let Some((idx, env)) = Self::next_from(&mut rx, wire::COMMIT, &waiting, deadline).await
            else {
                break;
            };
            waiting.remove(&self.ids[idx]);
            let Ok(msg) = wire::decode::<Commit>(&env.payload) else {
                continue;
            };
            declined.extend(msg.declined);
            if let Some(hex_c) = msg.commitment {
                match wire::unhex("commitment", &hex_c)
                    .and_then(|b| Commitment::from_bytes(&b, n).map_err(|e| e.to_string()))
                {
                    Ok(c) => child_commits.push(c),
                    Err(e) => debug!(child = idx, error = %e, "bad commitment"),
                }
            }
        }
        let absent: Vec<usize> = waiting.values().copied().collect();
        if !absent.is_empty() {
            debug!(?absent, "children did not commit in time");
        }
        let (awaiting, up): (Option<AggregatorAwaitingChallenge>, Option<Commitment>) =
            if kids.is_empty() {
                (None, own_commitment)
            } else {
                let mut agg = Aggregator::new(ktree.clone(), self.me, &announcement)
                    .map_err(|e| fail(e.to_string()))?;
                let mut any = false;
                for c in own_commitment.into_iter().chain(child_commits) {
                    let from = c.from();
                    match agg.add_commitment(c) {
                        Ok(()) => any = true,
                        Err(e) => debug!(from, error = %e, "commitment refused"),
                    }
                }
                if any {
                    let (aw, out) = agg.finish_commitments().map_err(|e| fail(e.to_string()))?;
                    (Some(aw), Some(out))
                } else {
                    (None, None)
                }
            };
        let committed_kids: BTreeMap<u16, usize> = match &up {
            Some(c) => kids
                .iter()
                .filter(|(_, &i)| c.mask().contains(i))
                .map(|(&id, &i)| (id, i))
                .collect(),
            None => BTreeMap::new(),
        };

        // The root turns its commitment into the challenge; every other node reports up
        // and waits for the leader's challenge.
        let parent = t.parent(self.me);
        let challenge_env = match (leader, parent) {
            (Some(cfg), _) => {
                let Some(root_commitment) = up else {
                    return Err(fail(format!(
                        "no witness committed ({} declined)",
                        declined.len()
                    )));
                };
                // Silent and declining witnesses alike: one that declined may be behind
                // the chain, and only the root sends the rounds a witness missed.
                let suspects: BTreeSet<usize> = (0..n)
                    .filter(|&i| !root_commitment.mask().contains(i))
                    .collect();
                let moved = *lock(&self.suspects) != suspects;
                *lock(&self.suspects) = suspects;
                if !cfg.policy.is_satisfied(root_commitment.mask()) {
                    let reasons: Vec<String> = declined
                        .iter()
                        .map(|d| format!("witness {}: {}", d.index, d.reason))
                        .collect();
                    return Err(Abort {
                        too_few: moved,
                        ..fail(format!(
                            "{} of {n} witnesses committed: the policy is not satisfied{}",
                            root_commitment.mask().count(),
                            if reasons.is_empty() {
                                String::new()
                            } else {
                                format!(" ({})", reasons.join("; "))
                            }
                        ))
                    });
                }
                let challenge = Challenge::new(&root_commitment, announcement.message.clone());
                let payload = wire::encode(&ChallengeMsg {
                    challenge: hex::encode(challenge.to_bytes()),
                });
                self.seal(session, wire::CHALLENGE, Recipient::All, payload)
                    .ok_or_else(|| fail("sealing the challenge".into()))?
            }
            (None, Some(p)) => {
                let payload = wire::encode(&Commit {
                    commitment: up.as_ref().map(|c| hex::encode(c.to_bytes())),
                    declined,
                });
                let env = self
                    .seal(session, wire::COMMIT, Recipient::Node(self.ids[p]), payload)
                    .ok_or_else(|| fail("sealing the commitment".into()))?;
                self.send_to(p, env.encode());
                if up.is_none() {
                    return Err(fail("nothing committed in this subtree".into()));
                }
                let wait = level * (2 * t.depth() as u32 + 2);
                let from: BTreeMap<u16, usize> = [(self.ids[root], root)].into();
                Self::next_from(&mut rx, wire::CHALLENGE, &from, Instant::now() + wait)
                    .await
                    .ok_or_else(|| fail("no challenge from the leader".into()))?
                    .1
            }
            (None, None) => return Err(fail("the root of a tree it does not lead".into())),
        };

        // Round 2: forward the challenge, respond, collect and check the partial responses.
        let msg = wire::decode::<ChallengeMsg>(&challenge_env.payload).map_err(fail)?;
        let bytes = wire::unhex("challenge", &msg.challenge).map_err(fail)?;
        let challenge = Challenge::from_bytes(&bytes, n).map_err(|e| fail(e.to_string()))?;
        let chal_bytes = challenge_env.encode();
        for &c in committed_kids.values() {
            self.send_to(c, chal_bytes.clone());
        }
        let ctx =
            ChallengeContext::derive(&self.roster, &challenge).map_err(|e| fail(e.to_string()))?;
        let own_response = match state {
            Some(s) => {
                let r = lock(&self.witness).respond_with_context(s, &ctx);
                if let Some(e) = self.head.take_persist_error() {
                    // The head is not durable: the response must not leave this node.
                    return Err(fail(e));
                }
                match r {
                    Ok(r) => Some(r),
                    Err(e) => return Err(fail(format!("own response: {e}"))),
                }
            }
            None => None,
        };
        let result: Result<Response, Abort> = match awaiting {
            None => own_response.ok_or_else(|| fail("nothing to respond".into())),
            Some(aw) => {
                let mut collecting = aw
                    .receive_context(ctx.clone())
                    .map_err(|e| fail(e.to_string()))?;
                let mut culprits: Vec<usize> = Vec::new();
                let mut check = String::new();
                if let Some(r) = own_response {
                    if let Err(e) = collecting.add_response(r) {
                        return Err(fail(e.to_string()));
                    }
                }
                let deadline = Instant::now() + level * my_height;
                let mut waiting = committed_kids.clone();
                while !waiting.is_empty() {
                    let Some((idx, env)) =
                        Self::next_from(&mut rx, wire::RESPOND, &waiting, deadline).await
                    else {
                        break;
                    };
                    waiting.remove(&self.ids[idx]);
                    match wire::decode::<Respond>(&env.payload).ok() {
                        Some(below) if !below.culprits.is_empty() => {
                            culprits.extend(below.culprits.iter().map(|&c| usize::from(c)));
                            check = below.check;
                        }
                        other => {
                            let r = other
                                .and_then(|m| m.response)
                                .and_then(|h| hex::decode(h).ok())
                                .and_then(|b| Response::from_bytes(&b, n).ok());
                            match r {
                                Some(r) => {
                                    if let Err(e) = collecting.add_response(r) {
                                        culprits.extend(e.culprits().iter().map(|p| p.position()));
                                        check = e.to_string();
                                    }
                                }
                                None => {
                                    culprits.push(idx);
                                    check = "malformed response".into();
                                }
                            }
                        }
                    }
                }
                if culprits.is_empty() {
                    collecting
                        .finish(ChildCheck::default(), &mut OsRng)
                        .map_err(|e| Abort {
                            culprits: e.culprits().iter().map(|p| p.position()).collect(),
                            reason: e.to_string(),
                            too_few: false,
                        })
                } else {
                    Err(Abort {
                        culprits,
                        reason: check,
                        too_few: false,
                    })
                }
            }
        };
        match (leader, parent) {
            (Some(cfg), _) => {
                let total = result?;
                ctx.finalize(&self.roster, &total, &cfg.policy)
                    .map_err(|e| fail(format!("final signature: {e}")))
            }
            (None, Some(p)) => {
                let msg = match &result {
                    Ok(r) => Respond {
                        response: Some(hex::encode(r.to_bytes())),
                        culprits: Vec::new(),
                        check: String::new(),
                    },
                    Err(a) => Respond {
                        response: None,
                        culprits: a.culprits.iter().map(|&c| c as u16).collect(),
                        check: a.reason.clone(),
                    },
                };
                if let Some(env) = self.seal(
                    session,
                    wire::RESPOND,
                    Recipient::Node(self.ids[p]),
                    wire::encode(&msg),
                ) {
                    self.send_to(p, env.encode());
                }
                Err(fail("responded".into()))
            }
            (None, None) => Err(fail("no parent".into())),
        }
    }

    /// The tree of the next attempt: the base tree without the excluded witnesses (absent
    /// subleaders replaced by a child, [`Tree::repair`]), and the suspects of the last call
    /// as leaves of the root.
    fn attempt_tree(&self, excluded: &BTreeSet<usize>) -> Result<Vec<Vec<u16>>, String> {
        let suspects: BTreeSet<usize> = lock(&self.suspects)
            .iter()
            .copied()
            .filter(|i| !excluded.contains(i) && *i != self.me)
            .collect();
        let (repaired, _) = self
            .base_tree
            .repair(|i| !excluded.contains(&i) && !suspects.contains(&i))
            .map_err(|e| e.to_string())?;
        let n = self.roster.len();
        let mut children: Vec<Vec<u16>> = (0..n)
            .map(|v| {
                if repaired.contains(v) {
                    repaired.children(v).iter().map(|&c| c as u16).collect()
                } else {
                    Vec::new()
                }
            })
            .collect();
        children[self.me].extend(suspects.iter().map(|&s| s as u16));
        Ok(children)
    }

    /// Leads one collective signature of `message`: announces it down the tree, and on an
    /// abort restarts without the named witnesses, up to `cfg.max_attempts` times. Returns
    /// the signature `R ‖ s ‖ mask`, verified under `cfg.policy`.
    pub async fn cosign(
        self: &Arc<Self>,
        message: Vec<u8>,
        cfg: &LeaderConfig,
    ) -> Result<Vec<u8>, String> {
        let mut excluded: BTreeSet<usize> = BTreeSet::new();
        let mut call = [0u8; 16];
        OsRng.fill_bytes(&mut call);
        let mut last = String::from("no attempt made");
        for attempt in 0..cfg.max_attempts.max(1) {
            let children = self.attempt_tree(&excluded)?;
            let mut sid = b"quorate/cosi-timestamp/".to_vec();
            sid.extend_from_slice(hex::encode(call).as_bytes());
            sid.extend_from_slice(format!("/attempt/{attempt}").as_bytes());
            let session = SessionId::new(sid);
            let key = session_key(&session);
            let ann = Announce {
                root: self.me as u16,
                children,
                level_timeout_ms: u64::try_from(cfg.level_timeout.as_millis()).unwrap_or(u64::MAX),
                announcement: hex::encode(Announcement::new(session, message.clone()).to_bytes()),
                chain: Vec::new(),
            };
            let env = self
                .seal(key, wire::ANNOUNCE, Recipient::All, wire::encode(&ann))
                .ok_or("sealing the announcement")?;
            let (tx, rx) = mpsc::channel(256);
            lock(&self.sessions).insert(key, tx);
            let result = self.clone().run_node(env, ann, rx, Some(cfg)).await;
            lock(&self.sessions).remove(&key);
            match result {
                Ok(sig) => {
                    let signature = sig.to_bytes();
                    if let Some(header) = RoundHeader::from_message(&message) {
                        self.remember(SignedRound {
                            header,
                            signature: signature.clone(),
                        });
                    }
                    return Ok(signature);
                }
                Err(a) if a.too_few => {
                    info!(attempt, reason = %a.reason, "CoSi round short of witnesses; retrying with the silent ones moved out of the tree");
                    last = a.reason;
                }
                Err(a) if a.culprits.is_empty() => return Err(a.reason),
                Err(a) => {
                    info!(attempt, culprits = ?a.culprits, reason = %a.reason, "CoSi round aborted; restarting without the named witnesses");
                    excluded.extend(a.culprits.iter().copied().filter(|&c| c != self.me));
                    last = format!("witnesses {:?}: {}", a.culprits, a.reason);
                }
            }
        }
        Err(format!(
            "no signature after {} attempts (last: {last})",
            cfg.max_attempts
        ))
    }
}

/// The timestamp service's [`RootCosigner`] backed by remote witness nodes: each round is
/// cosigned by [`CosiService::cosign`] on the node's own runtime.
pub struct RemoteCosigner {
    service: Arc<CosiService>,
    runtime: tokio::runtime::Handle,
    config: LeaderConfig,
}

impl std::fmt::Debug for RemoteCosigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteCosigner")
            .field("service", &self.service)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl RemoteCosigner {
    /// A cosigner leading `service` on `runtime` (where its transport runs).
    pub fn new(
        service: Arc<CosiService>,
        runtime: tokio::runtime::Handle,
        config: LeaderConfig,
    ) -> Self {
        RemoteCosigner {
            service,
            runtime,
            config,
        }
    }

    /// The policy signatures satisfy.
    pub fn policy(&self) -> &Policy {
        &self.config.policy
    }
}

impl RootCosigner for RemoteCosigner {
    fn roster_id(&self) -> Hash {
        self.service.roster.id().0
    }

    fn roster_entries(&self) -> Vec<[u8; 96]> {
        self.service
            .roster
            .entries()
            .iter()
            .map(|e| e.to_bytes())
            .collect()
    }

    /// Blocks the calling thread (the timestamp server calls it on its blocking pool).
    fn cosign(&self, message: &[u8]) -> Result<Vec<u8>, CosignError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let service = self.service.clone();
        let config = self.config.clone();
        let message = message.to_vec();
        self.runtime.spawn(async move {
            let _ = tx.send(service.cosign(message, &config).await);
        });
        rx.recv()
            .map_err(|_| CosignError("the node runtime stopped".into()))?
            .map_err(CosignError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooted_trees_have_the_leader_on_top_and_cover_everyone() {
        for n in [1, 2, 5, 9, 17] {
            for root in [0, n / 2, n - 1] {
                let t = tree_rooted_at(n, root).expect("tree");
                assert_eq!(t.root(), root);
                assert_eq!(t.len(), n);
                assert!(t.depth() <= 2, "three levels at most");
            }
        }
        let t = tree_rooted_at(9, 4).expect("tree");
        assert_eq!(height(&t, 4), 2);
    }
}
