//! The runtime that drives sessions over the transport: routing of verified envelopes,
//! proposals and policy, attempt claims, round deadlines, culprit naming and retries.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ed25519_dalek::SigningKey;
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use super::driver::{
    DriverError, Incoming, Outgoing, Protocol, ProtocolDriver, SessionContext, Step,
};
use super::policy::Policy;
use super::store::{Begun, Claim, RequestOwner, SessionStore, StoreError};
use super::{
    AttemptKey, AttemptRecord, Control, Outcome, Proposal, RequestRecord, RequestStatus,
    SessionError, SessionRequest, MAX_REQUEST_ID,
};
use crate::envelope::{Envelope, Header, Recipient};
use crate::metrics::{describe_waiting, Metrics};
use crate::transport::{Received, Transport};

/// Runtime limits.
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// Per-round deadline when the request gives none.
    pub round_timeout: Duration,
    /// Smallest per-round deadline a proposal may ask for.
    pub min_round_timeout: Duration,
    /// Largest per-round deadline a proposal may ask for.
    pub max_round_timeout: Duration,
    /// Attempts per request (the first plus retries without culprits).
    pub max_attempts: u32,
    /// Largest envelope payload decoded (each round also has the driver's own limit).
    pub max_payload: usize,
    /// Sessions for which early messages are buffered before their proposal arrives.
    pub max_pending_sessions: usize,
    /// Early messages buffered per session.
    pub max_pending_per_session: usize,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            round_timeout: Duration::from_secs(10),
            min_round_timeout: Duration::from_millis(100),
            max_round_timeout: Duration::from_secs(600),
            max_attempts: 3,
            max_payload: 4 << 20,
            max_pending_sessions: 64,
            max_pending_per_session: 256,
        }
    }
}

/// Prefix of a participant's refusal of an attempt number it already used (with another
/// coordinator): the coordinator renumbers instead of blaming it.
const ATTEMPT_TAKEN: &str = "attempt taken";
/// Prefix of a participant's refusal of a request id that another coordinator ran with the
/// same key: not a fault (the operator submitted the request twice), nobody is blamed and the
/// request is not retried.
const DUPLICATE_REQUEST: &str = "duplicate request id";
/// Renumberings per request after such refusals.
const MAX_RENUMBER: u32 = 64;
/// Largest number of attempt-number classes: a coordinator numbers its attempts within the
/// class of its position in the roster (modulo this), so concurrent coordinators of one key
/// do not pick the same numbers.
const MAX_ATTEMPT_CLASSES: u32 = 64;
/// Keys whose next attempt number the runtime remembers (older ones are forgotten and read
/// from the store again).
const MAX_RESERVED_KEYS: usize = 4096;

/// Session id of a proposal: SHA-256 of a domain separator and the proposal payload bytes.
pub fn session_id_of(proposal_payload: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"quorate/session/v1");
    h.update(proposal_payload);
    h.finalize().into()
}

/// Key id used when a request names none: the protocol name and 128 bits of SHA-256 of the
/// protocol and the request id, e.g. `ping-3f1c…`.
pub fn derived_key_id(protocol: &str, request_id: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"quorate/key-id/v1");
    h.update(protocol.as_bytes());
    h.update([0]);
    h.update(request_id.as_bytes());
    let digest: [u8; 32] = h.finalize().into();
    format!("{protocol}-{}", hex::encode(&digest[..16]))
}

/// Prefix of every key id [`derived_key_id`] gives requests of `protocol`.
fn ephemeral_key_prefix(protocol: &str) -> String {
    format!("{protocol}-")
}

/// Finished sessions of each ephemeral protocol kept in the session store (the newest ones,
/// for an operator looking at what happened recently).
pub const EPHEMERAL_KEEP: usize = 64;

#[derive(Default)]
struct Routes {
    active: HashMap<[u8; 32], mpsc::Sender<Envelope>>,
    pending: HashMap<[u8; 32], Vec<Envelope>>,
    pending_order: VecDeque<[u8; 32]>,
    closed: HashSet<[u8; 32]>,
    closed_order: VecDeque<[u8; 32]>,
}

const MAX_CLOSED_REMEMBERED: usize = 4096;

/// One running attempt as this node sees it.
struct Session {
    ctx: SessionContext,
    protocol: String,
    version: u16,
    timeout: Duration,
    /// Completion is confirmed to the coordinator ([`Protocol::confirms_done`]).
    confirm: bool,
}

/// The session runtime of one node.
pub struct Runtime {
    self_id: u16,
    key: SigningKey,
    transport: Arc<Transport>,
    protocols: BTreeMap<&'static str, Arc<dyn Protocol>>,
    policy: Arc<dyn Policy>,
    store: Arc<dyn SessionStore>,
    metrics: Arc<Metrics>,
    config: RuntimeConfig,
    routes: Mutex<Routes>,
    /// Verified envelopes of protocols served outside the session runtime (the CoSi witness
    /// role), by protocol name.
    protocol_routes: Mutex<BTreeMap<&'static str, mpsc::Sender<Envelope>>>,
    /// Requests this node is coordinating now, by request id.
    in_flight: Mutex<HashMap<String, SessionRequest>>,
    /// Next attempt number this coordinator may use, by (key id, epoch): numbers handed out
    /// but not yet claimed in the store are not handed out again.
    reserved: Mutex<HashMap<(String, u64), u32>>,
    /// This coordinator's attempt-number class and the number of classes.
    attempt_class: (u32, u32),
    /// The last refusal of the connection to a peer that retrying cannot fix (another
    /// protocol version, a refused identity), by node id, until a message reaches it: a
    /// round that times out waiting for that peer says why.
    link_faults: Mutex<HashMap<u16, String>>,
}

/// Locks `m`, taking the data of a poisoned lock (every critical section leaves it whole).
fn relock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Removes a request id from the in-flight set when its `submit` ends (however it ends).
struct InFlight<'a> {
    set: &'a Mutex<HashMap<String, SessionRequest>>,
    id: String,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        relock(self.set).remove(&self.id);
    }
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("self_id", &self.self_id)
            .field("protocols", &self.protocols.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

fn is_valid_request_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_REQUEST_ID
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
}

impl Runtime {
    /// Builds the runtime. `key` must be the identity key the transport was bound with.
    pub fn new(
        key: SigningKey,
        transport: Arc<Transport>,
        protocols: Vec<Arc<dyn Protocol>>,
        policy: Arc<dyn Policy>,
        store: Arc<dyn SessionStore>,
        metrics: Arc<Metrics>,
        config: RuntimeConfig,
    ) -> Arc<Self> {
        let protocols = protocols.into_iter().map(|p| (p.name(), p)).collect();
        let ids = transport.peers().ids();
        let classes = u32::try_from(ids.len())
            .unwrap_or(u32::MAX)
            .clamp(1, MAX_ATTEMPT_CLASSES);
        let position = ids
            .iter()
            .position(|&id| id == transport.self_id())
            .unwrap_or(0);
        let attempt_class = (u32::try_from(position).unwrap_or(0) % classes, classes);
        Arc::new(Self {
            self_id: transport.self_id(),
            key,
            transport,
            protocols,
            policy,
            store,
            metrics,
            config,
            routes: Mutex::new(Routes::default()),
            protocol_routes: Mutex::new(BTreeMap::new()),
            in_flight: Mutex::new(HashMap::new()),
            reserved: Mutex::new(HashMap::new()),
            attempt_class,
            link_faults: Mutex::new(HashMap::new()),
        })
    }

    /// Hands every verified envelope of `protocol` to `tx` instead of the session runtime
    /// (for protocols with their own message flow, such as [`crate::cosi`]).
    pub fn route_protocol(&self, protocol: &'static str, tx: mpsc::Sender<Envelope>) {
        let mut routes = match self.protocol_routes.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        routes.insert(protocol, tx);
    }

    /// This node's id.
    pub fn self_id(&self) -> u16 {
        self.self_id
    }

    /// The metrics registry.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// The transport.
    pub fn transport(&self) -> &Arc<Transport> {
        &self.transport
    }

    /// The record of a request id.
    pub fn request(&self, request_id: &str) -> Result<Option<RequestRecord>, SessionError> {
        Ok(self.store.request(request_id)?)
    }

    /// Every request this node coordinated.
    pub fn requests(&self) -> Result<Vec<RequestRecord>, SessionError> {
        Ok(self.store.requests()?)
    }

    fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        relock(&self.routes)
    }

    /// Runs a store call on the blocking pool: a durable write waits for an fsync, which must
    /// not hold up the async workers that carry every other session's messages. The call is
    /// handed to the pool at once, not when the returned future is first polled: a caller
    /// that has other work before it awaits the result (the coordinator's proposal and round
    /// 1) overlaps the write's fsync with that work.
    fn store_call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&dyn SessionStore) -> Result<R, StoreError> + Send + 'static,
    ) -> impl std::future::Future<Output = Result<R, StoreError>> {
        let store = self.store.clone();
        let task = tokio::task::spawn_blocking(move || f(store.as_ref()));
        async move {
            task.await
                .map_err(|e| StoreError::Backend(format!("store task: {e}")))?
        }
    }

    /// The attempt number for this coordinator's next attempt on (key id, epoch): above every
    /// number the store has seen for the key and every number handed out here, plus `skip`,
    /// in this coordinator's class (see [`MAX_ATTEMPT_CLASSES`]).
    fn pick_attempt(&self, key_id: &str, epoch: u64, skip: u32) -> Result<u32, SessionError> {
        // A point read on the store's read connection, inline (see `submit`).
        let seen = self.store.next_attempt(key_id, epoch)?;
        let exhausted =
            || SessionError::Store(StoreError::Backend("attempt counter exhausted".into()));
        let (class, classes) = self.attempt_class;
        let mut reserved = relock(&self.reserved);
        let slot = (key_id.to_string(), epoch);
        let floor = seen
            .max(reserved.get(&slot).copied().unwrap_or(0))
            .checked_add(skip)
            .ok_or_else(exhausted)?;
        let attempt = floor
            .checked_add((class + classes - floor % classes) % classes)
            .ok_or_else(exhausted)?;
        if reserved.len() >= MAX_RESERVED_KEYS && !reserved.contains_key(&slot) {
            reserved.clear();
        }
        reserved.insert(slot, attempt.saturating_add(1));
        Ok(attempt)
    }

    /// Deletes the finished records of every ephemeral protocol
    /// ([`crate::session::driver::Protocol::ephemeral`]) beyond the newest `keep` of each;
    /// returns how many went.
    pub async fn prune_ephemeral(&self, keep: usize) -> Result<usize, SessionError> {
        let mut removed = 0;
        for p in self.protocols.values().filter(|p| p.ephemeral()) {
            let name = p.name();
            removed += self
                .store_call(move |s| s.prune_finished(name, &ephemeral_key_prefix(name), keep))
                .await?;
        }
        Ok(removed)
    }

    /// Prunes the ephemeral protocols' finished records ([`Self::prune_ephemeral`], keeping
    /// [`EPHEMERAL_KEEP`] of each) now and then every `every`, so that status queries
    /// repeated while an epoch stays pending do not grow `runtime.db` without bound.
    pub fn spawn_pruner(self: &Arc<Self>, every: Duration) -> JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                match this.prune_ephemeral(EPHEMERAL_KEEP).await {
                    Ok(0) => {}
                    Ok(n) => debug!(removed = n, "pruned finished ephemeral sessions"),
                    Err(e) => warn!(error = %e, "could not prune finished ephemeral sessions"),
                }
                tokio::time::sleep(every).await;
            }
        })
    }

    /// Starts handling the transport's received messages.
    pub fn spawn_inbound(self: &Arc<Self>, mut rx: mpsc::Receiver<Received>) -> JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                this.on_message(m);
            }
        })
    }

    /// Why the connections to `nodes` were refused, if they were (see `link_faults`):
    /// `"; <error>"` per node, or nothing.
    fn link_notes(&self, nodes: &[u16]) -> String {
        let faults = relock(&self.link_faults);
        nodes
            .iter()
            .filter_map(|n| faults.get(n))
            .map(|e| format!("; {e}"))
            .collect()
    }

    fn reject(&self, from: u16, why: impl std::fmt::Display) {
        self.metrics.inc("quorate_messages_rejected_total");
        warn!(peer = from, reason = %why, "rejected a message");
    }

    fn on_message(self: &Arc<Self>, m: Received) {
        let env = match Envelope::decode_verified(&m.bytes, self.config.max_payload, |id| {
            self.transport.peers().key(id)
        }) {
            Ok(e) => e,
            Err(e) => return self.reject(m.from, e),
        };
        crate::faults::timeline_mark(format_args!(
            "verified r{} from {}",
            env.header.round, env.header.sender
        ));
        if env.header.sender == self.self_id {
            return self.reject(m.from, "envelope claims to be from us");
        }
        if !env.header.recipient.includes(self.self_id) {
            return self.reject(m.from, "envelope is not addressed to us");
        }
        self.metrics.inc("quorate_messages_received_total");
        let routed = match self.protocol_routes.lock() {
            Ok(g) => g.get(env.header.protocol.as_str()).cloned(),
            Err(p) => p.into_inner().get(env.header.protocol.as_str()).cloned(),
        };
        if let Some(tx) = routed {
            if tx.try_send(env).is_err() {
                self.reject(m.from, "protocol inbox full");
            }
            return;
        }
        if env.header.round == 0 {
            if let Ok(Control::Propose(p)) = serde_json::from_slice::<Control>(&env.payload) {
                let this = self.clone();
                tokio::spawn(async move { this.on_proposal(env, p).await });
                return;
            }
        }
        self.route(env);
    }

    fn route(&self, env: Envelope) {
        let sid = env.header.session;
        let mut r = self.routes();
        if r.closed.contains(&sid) {
            debug!(session = %hex::encode(&sid[..8]), "late message for a finished session");
            return;
        }
        if let Some(tx) = r.active.get(&sid) {
            if tx.try_send(env).is_err() {
                drop(r);
                self.reject(0, "session inbox full");
            }
            return;
        }
        if !r.pending.contains_key(&sid) {
            if r.pending_order.len() >= self.config.max_pending_sessions {
                if let Some(old) = r.pending_order.pop_front() {
                    r.pending.remove(&old);
                }
            }
            r.pending_order.push_back(sid);
        }
        let max = self.config.max_pending_per_session;
        let q = r.pending.entry(sid).or_default();
        if q.len() < max {
            q.push(env);
        }
    }

    fn open_route(&self, sid: [u8; 32]) -> mpsc::Receiver<Envelope> {
        let (tx, rx) = mpsc::channel(1024);
        let mut r = self.routes();
        if let Some(early) = r.pending.remove(&sid) {
            r.pending_order.retain(|s| s != &sid);
            for env in early {
                let _ = tx.try_send(env);
            }
        }
        r.active.insert(sid, tx);
        rx
    }

    fn close_route(&self, sid: [u8; 32]) {
        let mut r = self.routes();
        r.active.remove(&sid);
        if r.closed.insert(sid) {
            r.closed_order.push_back(sid);
            if r.closed_order.len() > MAX_CLOSED_REMEMBERED {
                if let Some(old) = r.closed_order.pop_front() {
                    r.closed.remove(&old);
                }
            }
        }
        self.metrics.clear_session(&sid);
    }

    /// Structural checks every participant applies to a proposal.
    fn validate(&self, p: &Proposal) -> Result<(Arc<dyn Protocol>, Duration), String> {
        let protocol = self
            .protocols
            .get(p.protocol.as_str())
            .ok_or_else(|| format!("unknown protocol {:?}", p.protocol))?;
        if protocol.version() != p.protocol_version {
            return Err(format!(
                "protocol {} version {} not supported (this node runs version {})",
                p.protocol,
                p.protocol_version,
                protocol.version()
            ));
        }
        if !is_valid_request_id(&p.request_id) {
            return Err("malformed request id".into());
        }
        // Pruning an ephemeral protocol's attempts by key id prefix must never touch another
        // protocol's (see `Protocol::ephemeral`).
        if protocol.ephemeral() && p.key_id != derived_key_id(&p.protocol, &p.request_id) {
            return Err(format!(
                "protocol {} runs under its request's derived key id only",
                p.protocol
            ));
        }
        if let Some(other) = self.protocols.values().find(|q| {
            q.ephemeral()
                && q.name() != p.protocol
                && p.key_id.starts_with(&ephemeral_key_prefix(q.name()))
        }) {
            return Err(format!(
                "key ids starting with {:?} are reserved for the protocol {}",
                ephemeral_key_prefix(other.name()),
                other.name()
            ));
        }
        if p.participants.windows(2).any(|w| w[0] >= w[1]) {
            return Err("participants must be sorted and distinct".into());
        }
        if !p.participants.contains(&self.self_id) {
            return Err(format!(
                "node {} is not a participant (a session is coordinated by one of its participants: send the request through a participant's node)",
                self.self_id
            ));
        }
        if !p.participants.contains(&p.coordinator) {
            return Err("the coordinator is not a participant".into());
        }
        if let Some(n) = p
            .participants
            .iter()
            .find(|&&n| self.transport.peers().get(n).is_none())
        {
            return Err(format!("participant {n} is not in this node's roster"));
        }
        let min = protocol.min_participants(&p.params)?;
        if p.participants.len() < min {
            return Err(format!(
                "{} participants, the protocol needs at least {min}",
                p.participants.len()
            ));
        }
        let timeout = Duration::from_millis(p.round_timeout_ms);
        if timeout < self.config.min_round_timeout || timeout > self.config.max_round_timeout {
            return Err(format!("round timeout {timeout:?} out of bounds"));
        }
        Ok((protocol.clone(), timeout))
    }

    fn seal_and_send(
        self: &Arc<Self>,
        s: &Session,
        round: u16,
        to: Recipient,
        payload: Vec<u8>,
    ) -> Result<(), String> {
        let targets = match to {
            Recipient::All => s.ctx.others(),
            Recipient::Node(n) if n != self.self_id && s.ctx.participants.contains(&n) => vec![n],
            Recipient::Node(n) => return Err(format!("cannot address node {n}")),
        };
        let header = Header {
            protocol: s.protocol.clone(),
            protocol_version: s.version,
            key_id: s.ctx.key_id.clone(),
            epoch: s.ctx.epoch,
            session: s.ctx.session_id,
            attempt: s.ctx.attempt,
            round,
            sender: self.self_id,
            recipient: to,
        };
        let bytes = Arc::new(
            Envelope::seal(header, payload, &self.key)
                .map_err(|e| e.to_string())?
                .encode(),
        );
        crate::faults::timeline_mark(format_args!("sealed r{round}"));
        // A message is worth delivering only until the round's deadline: a send still
        // pending then (a frozen or restarting peer) is dropped rather than delivered into a
        // later life of the peer. Control messages of refused sessions carry no deadline.
        let life = if s.timeout.is_zero() {
            self.config.round_timeout
        } else {
            s.timeout
        };
        for t in targets {
            let this = self.clone();
            let bytes = bytes.clone();
            let track = crate::faults::track_send();
            tokio::spawn(async move {
                let _track = track;
                crate::faults::timeline_mark(format_args!("send r{round} to {t}"));
                let sent = tokio::time::timeout(life, this.transport.send(t, &bytes))
                    .await
                    .unwrap_or(Err(crate::transport::TransportError::Timeout {
                        peer: t,
                        what: "round deadline",
                        after: life,
                    }));
                crate::faults::timeline_mark(format_args!("sent r{round} to {t}"));
                match sent {
                    Ok(()) => {
                        this.metrics.inc("quorate_messages_sent_total");
                        let mut faults = relock(&this.link_faults);
                        if !faults.is_empty() {
                            faults.remove(&t);
                        }
                    }
                    Err(e) => {
                        this.metrics.inc("quorate_send_failures_total");
                        warn!(peer = t, round, error = %e, "could not deliver");
                        if e.is_permanent() {
                            relock(&this.link_faults).insert(t, e.to_string());
                        }
                    }
                }
            });
        }
        Ok(())
    }

    fn send_control(self: &Arc<Self>, s: &Session, control: &Control) {
        match serde_json::to_vec(control) {
            Ok(payload) => {
                if let Err(e) = self.seal_and_send(s, 0, Recipient::All, payload) {
                    warn!(error = %e, "could not send a control message");
                }
            }
            Err(e) => warn!(error = %e, "could not encode a control message"),
        }
    }

    async fn on_proposal(self: Arc<Self>, env: Envelope, p: Proposal) {
        crate::faults::timeline_mark("part.proposal");
        let sid = session_id_of(&env.payload);
        let h = &env.header;
        if h.session != sid
            || h.sender != p.coordinator
            || h.protocol != p.protocol
            || h.protocol_version != p.protocol_version
            || h.key_id != p.key_id
            || h.epoch != p.epoch
            || h.attempt != p.attempt
        {
            return self.reject(h.sender, "proposal envelope does not match its proposal");
        }
        let refuse = |this: &Arc<Self>, reason: String| {
            this.metrics.inc("quorate_sessions_refused_total");
            info!(request_id = %p.request_id, coordinator = p.coordinator, %reason, "refused a proposal");
            if p.participants.contains(&this.self_id) {
                let s = Session {
                    ctx: context(this.self_id, &p, sid),
                    protocol: p.protocol.clone(),
                    version: p.protocol_version,
                    timeout: Duration::ZERO,
                    confirm: false,
                };
                this.send_control(&s, &Control::Refuse { reason });
            }
        };
        let (protocol, timeout) = match self.validate(&p) {
            Ok(x) => x,
            Err(reason) => return refuse(&self, reason),
        };
        if let Err(reason) = self.policy.check(&p) {
            return refuse(&self, reason);
        }
        let key = AttemptKey {
            key_id: p.key_id.clone(),
            epoch: p.epoch,
            attempt: p.attempt,
        };
        let session = Session {
            ctx: context(self.self_id, &p, sid),
            protocol: protocol.name().to_string(),
            version: protocol.version(),
            timeout,
            confirm: protocol.confirms_done(),
        };
        let claim = {
            let key = key.clone();
            let owner = RequestOwner {
                request_id: p.request_id.clone(),
                coordinator: p.coordinator,
            };
            self.store_call(move |s| s.claim_attempt(&key, sid, &owner))
        };
        let (claim, started) = claim_and_start(claim, protocol.as_ref(), &session.ctx).await;
        crate::faults::timeline_mark("part.claim.returned");
        match claim {
            Ok(Claim::Claimed) => {}
            Ok(Claim::Same) if self.routes().active.contains_key(&sid) => {
                return debug!("duplicate proposal ignored")
            }
            // This very session ran here already (its coordinator restarted before its own
            // claim was durable and proposes it again): it never reruns, and the coordinator
            // renumbers without blaming anyone.
            Ok(Claim::Same) => {
                return refuse(
                    &self,
                    format!(
                        "{ATTEMPT_TAKEN}: attempt {} of key {} epoch {} already ran here",
                        p.attempt, p.key_id, p.epoch
                    ),
                )
            }
            Ok(Claim::Taken) => {
                return refuse(
                    &self,
                    format!(
                        "{ATTEMPT_TAKEN}: attempt {} of key {} epoch {} already ran here",
                        p.attempt, p.key_id, p.epoch
                    ),
                )
            }
            Ok(Claim::Duplicate {
                coordinator,
                session,
            }) => {
                return refuse(
                    &self,
                    duplicate_request(&p.request_id, &p.key_id, coordinator, &session),
                )
            }
            Err(e) => return refuse(&self, format!("storage failure: {e}")),
        }
        let rx = self.open_route(sid);
        let outcome = match started.unwrap_or_else(|| start(protocol.as_ref(), &session.ctx)) {
            Ok((driver, first)) => self.run_attempt(&session, driver, first, rx).await,
            Err(reason) => {
                self.send_control(
                    &session,
                    &Control::Refuse {
                        reason: reason.clone(),
                    },
                );
                Outcome::Aborted {
                    reason: format!("refused: {reason}"),
                    culprits: vec![],
                    evidence: vec![],
                }
            }
        };
        self.close_route(sid);
        crate::faults::timeline_mark("part.finish.begin");
        if let Err(e) = self
            .store_call(move |s| s.finish_attempt(&key, &outcome))
            .await
        {
            warn!(error = %e, "could not record the outcome");
        }
        crate::faults::timeline_mark("part.finish.end");
        crate::faults::timeline_flush();
    }

    /// Runs one attempt to its end on this node.
    async fn run_attempt(
        self: &Arc<Self>,
        s: &Session,
        mut driver: Box<dyn ProtocolDriver>,
        first: Result<Vec<Outgoing>, DriverError>,
        mut rx: mpsc::Receiver<Envelope>,
    ) -> Outcome {
        self.metrics.inc("quorate_sessions_started_total");
        let sid_short = hex::encode(&s.ctx.session_id[..8]);
        info!(request_id = %s.ctx.request_id, session = %sid_short, attempt = s.ctx.attempt,
              participants = ?s.ctx.participants, protocol = %s.protocol, "session started");
        let outcome = self.drive(s, driver.as_mut(), first, &mut rx).await;
        // The driver's clean-up (e.g. abandoning a pending epoch) is done before the attempt
        // counts as ended.
        drop(driver);
        match &outcome {
            Outcome::Completed { .. } => {
                self.metrics.inc("quorate_sessions_completed_total");
                info!(request_id = %s.ctx.request_id, session = %sid_short, "session completed");
            }
            Outcome::Aborted {
                reason, culprits, ..
            } => {
                self.metrics.inc("quorate_sessions_aborted_total");
                warn!(request_id = %s.ctx.request_id, session = %sid_short, %reason, ?culprits, "session aborted");
            }
        }
        self.metrics.clear_session(&s.ctx.session_id);
        outcome
    }

    /// Drives the attempt from its round-1 messages `first` (the driver's `start`).
    async fn drive(
        self: &Arc<Self>,
        s: &Session,
        driver: &mut dyn ProtocolDriver,
        first: Result<Vec<Outgoing>, DriverError>,
        rx: &mut mpsc::Receiver<Envelope>,
    ) -> Outcome {
        let abort = |reason: String, culprits: Vec<u16>, evidence: Vec<String>| Outcome::Aborted {
            reason,
            culprits,
            evidence,
        };
        let mut received: BTreeMap<(u16, u16), Envelope> = BTreeMap::new();
        let mut confirmed: BTreeSet<u16> = BTreeSet::new();
        let mut outgoing = match first {
            Ok(o) => o,
            Err(e) => return driver_abort(e, &received, 1),
        };
        let mut round: u16 = 1;
        loop {
            for Outgoing { to, payload } in outgoing {
                if let Err(e) = self.seal_and_send(s, round, to, payload) {
                    return abort(format!("sending round {round}: {e}"), vec![], vec![]);
                }
            }
            // The last send spawned sits in this worker's LIFO slot, which other workers do
            // not steal: yield so it starts now rather than after the next `handle`, which
            // runs at once when the next round's messages are already here.
            tokio::task::yield_now().await;
            crate::faults::sends_delivered(s.timeout).await;
            let expected: Vec<u16> = driver
                .expected_from(round)
                .into_iter()
                .filter(|n| *n != self.self_id && s.ctx.participants.contains(n))
                .collect();
            let deadline = tokio::time::Instant::now() + s.timeout;
            loop {
                let missing: Vec<u16> = expected
                    .iter()
                    .copied()
                    .filter(|n| !received.contains_key(&(round, *n)))
                    .collect();
                self.metrics
                    .set_waiting(&s.ctx.session_id, &s.ctx.request_id, round, &missing);
                if missing.is_empty() {
                    break;
                }
                let env = match tokio::time::timeout_at(deadline, rx.recv()).await {
                    Err(_) => {
                        return abort(
                            format!(
                                "timed out {}{}",
                                describe_waiting(&missing, round),
                                self.link_notes(&missing)
                            ),
                            missing,
                            vec![],
                        )
                    }
                    Ok(None) => return abort("node shutting down".into(), vec![], vec![]),
                    Ok(Some(env)) => env,
                };
                crate::faults::timeline_mark(format_args!(
                    "accept r{} from {}",
                    env.header.round, env.header.sender
                ));
                if let Some(outcome) =
                    self.accept(s, driver, round, &mut received, &mut confirmed, env)
                {
                    return outcome;
                }
            }
            let incoming = expected
                .iter()
                .filter_map(|n| received.get(&(round, *n)))
                .map(|e| {
                    (
                        e.header.sender,
                        Incoming {
                            from: e.header.sender,
                            to: e.header.recipient,
                            payload: e.payload.clone(),
                        },
                    )
                })
                .collect();
            crate::faults::timeline_mark(format_args!("handle r{round}"));
            let handled = driver.handle(round, incoming);
            crate::faults::timeline_mark(format_args!("handled r{round}"));
            match handled {
                Ok(Step::Next(out)) => {
                    round = match round.checked_add(1) {
                        Some(r) => r,
                        None => return abort("too many rounds".into(), vec![], vec![]),
                    };
                    outgoing = out;
                }
                Ok(Step::Done(output)) => {
                    if s.confirm {
                        self.confirm_done(s, rx, &mut confirmed).await;
                    }
                    return Outcome::Completed { output };
                }
                Err(e) => return driver_abort(e, &received, round),
            }
        }
    }

    /// After this node's driver is done: a participant reports it to the coordinator; the
    /// coordinator waits (one round deadline at most) until every other participant has.
    async fn confirm_done(
        self: &Arc<Self>,
        s: &Session,
        rx: &mut mpsc::Receiver<Envelope>,
        confirmed: &mut BTreeSet<u16>,
    ) {
        if s.ctx.coordinator != self.self_id {
            match serde_json::to_vec(&Control::Done) {
                Ok(payload) => {
                    let to = Recipient::Node(s.ctx.coordinator);
                    if let Err(e) = self.seal_and_send(s, 0, to, payload) {
                        warn!(error = %e, "could not report the session done");
                    }
                }
                Err(e) => warn!(error = %e, "could not encode a control message"),
            }
            return;
        }
        let deadline = tokio::time::Instant::now() + s.timeout;
        loop {
            let missing: Vec<u16> = s
                .ctx
                .others()
                .into_iter()
                .filter(|n| !confirmed.contains(n))
                .collect();
            if missing.is_empty() {
                return;
            }
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(env)) => {
                    // Anything else is late now: the outcome is ours already.
                    let h = &env.header;
                    if h.round == 0
                        && h.attempt == s.ctx.attempt
                        && s.ctx.participants.contains(&h.sender)
                        && matches!(serde_json::from_slice(&env.payload), Ok(Control::Done))
                    {
                        confirmed.insert(h.sender);
                    }
                }
                Ok(None) | Err(_) => {
                    warn!(request_id = %s.ctx.request_id, ?missing,
                          "completed; these participants did not report done in time");
                    return;
                }
            }
        }
    }

    /// Files one envelope of the session; returns an outcome if it ends the session.
    fn accept(
        &self,
        s: &Session,
        driver: &dyn ProtocolDriver,
        round: u16,
        received: &mut BTreeMap<(u16, u16), Envelope>,
        confirmed: &mut BTreeSet<u16>,
        env: Envelope,
    ) -> Option<Outcome> {
        let h = &env.header;
        let sender = h.sender;
        if !s.ctx.participants.contains(&sender) {
            self.reject(sender, "sender is not a participant of the session");
            return None;
        }
        if h.protocol != s.protocol
            || h.protocol_version != s.version
            || h.key_id != s.ctx.key_id
            || h.epoch != s.ctx.epoch
            || h.attempt != s.ctx.attempt
        {
            self.reject(sender, "envelope fields do not match the session");
            return None;
        }
        if h.round == 0 {
            let control = serde_json::from_slice::<Control>(&env.payload);
            if let Ok(Control::Done) = control {
                if s.confirm && s.ctx.coordinator == self.self_id {
                    confirmed.insert(sender);
                } else {
                    self.reject(sender, "unexpected done report");
                }
                return None;
            }
            if let Ok(Control::Refuse { reason }) = control {
                if reason.starts_with(ATTEMPT_TAKEN) || reason.starts_with(DUPLICATE_REQUEST) {
                    // Not a fault: another coordinator used this attempt number (or ran this
                    // request id) with this node. The coordinator retries under a higher
                    // number (or gives up on the duplicate), nobody blamed.
                    return Some(Outcome::Aborted {
                        reason: format!("node {sender} refused: {reason}"),
                        culprits: vec![],
                        evidence: vec![],
                    });
                }
                return Some(Outcome::Aborted {
                    reason: format!("node {sender} refused: {reason}"),
                    culprits: vec![sender],
                    evidence: vec![hex::encode(env.encode())],
                });
            }
            self.reject(sender, "unexpected control message");
            return None;
        }
        if h.round < round {
            debug!(sender, round = h.round, "late message ignored");
            return None;
        }
        if h.round > round.saturating_add(2) {
            self.reject(sender, "message for a round too far ahead");
            return None;
        }
        let limit = driver.max_payload(h.round);
        if env.payload.len() > limit {
            return Some(Outcome::Aborted {
                reason: format!(
                    "node {sender} sent {} bytes in round {}, the limit is {limit}",
                    env.payload.len(),
                    h.round
                ),
                culprits: vec![sender],
                evidence: vec![hex::encode(env.encode())],
            });
        }
        let slot = (h.round, sender);
        if let Some(prev) = received.get(&slot) {
            if prev != &env {
                return Some(Outcome::Aborted {
                    reason: format!(
                        "node {sender} sent two different messages in round {}",
                        h.round
                    ),
                    culprits: vec![sender],
                    evidence: vec![hex::encode(prev.encode()), hex::encode(env.encode())],
                });
            }
            return None;
        }
        received.insert(slot, env);
        None
    }

    /// Runs an operator request as its coordinator: proposes the session, runs it, retries
    /// without culprits while the protocol allows, and records the result under the request
    /// id. A request id seen before returns its record (the same result) without running.
    pub async fn submit(
        self: &Arc<Self>,
        req: SessionRequest,
    ) -> Result<RequestRecord, SessionError> {
        crate::faults::timeline_mark("coord.submit");
        if !is_valid_request_id(&req.request_id) {
            return Err(SessionError::BadRequest(
                "request_id must be 1..=128 characters of [A-Za-z0-9._:-]".into(),
            ));
        }
        let protocol = self
            .protocols
            .get(req.protocol.as_str())
            .ok_or_else(|| {
                SessionError::BadRequest(format!("unknown protocol {:?}", req.protocol))
            })?
            .clone();
        let mut participants = req.participants.clone();
        participants.sort_unstable();
        participants.dedup();
        if participants.len() != req.participants.len() {
            return Err(SessionError::BadRequest("duplicate participants".into()));
        }
        let timeout_ms = req
            .round_timeout_ms
            .unwrap_or(self.config.round_timeout.as_millis() as u64);
        let key_id = req
            .key_id
            .clone()
            .unwrap_or_else(|| derived_key_id(&req.protocol, &req.request_id));
        if !crate::envelope::valid_key_id(&key_id) {
            return Err(SessionError::BadRequest(
                "key_id must be 1..=128 characters of [A-Za-z0-9._:-]".into(),
            ));
        }
        let min = protocol
            .min_participants(&req.params)
            .map_err(SessionError::BadRequest)?;
        // Validate the first proposal as a participant would, before recording anything.
        let probe = Proposal {
            protocol: req.protocol.clone(),
            protocol_version: protocol.version(),
            params: req.params.clone(),
            participants: participants.clone(),
            coordinator: self.self_id,
            request_id: req.request_id.clone(),
            key_id: key_id.clone(),
            epoch: req.epoch,
            attempt: 0,
            round_timeout_ms: timeout_ms,
        };
        self.validate(&probe).map_err(SessionError::BadRequest)?;

        let record = RequestRecord {
            request: req.clone(),
            key_id: key_id.clone(),
            status: RequestStatus::Running,
            attempts: vec![],
            output: None,
            error: None,
            culprits: vec![],
        };
        // A request id seen before answers its record without running again.
        // Point reads run inline on the async worker, not on the blocking pool: they use the
        // store's read connection, which under WAL never waits for a writer's commit (its
        // fsync), and take tens of microseconds, less than the two thread hand-offs to the
        // pool and back. Writes stay on the pool (they wait for the group commit's fsync).
        let stored = self.store.request(&req.request_id)?;
        if let Some(existing) = stored {
            return answer_existing(&req, existing);
        }
        // This node is a participant too: its own policy applies to its operator's requests.
        self.policy
            .check(&probe)
            .map_err(|e| SessionError::BadRequest(format!("refused by this node's {e}")))?;
        let _in_flight = {
            let mut set = relock(&self.in_flight);
            if let Some(running) = set.get(&req.request_id) {
                if running != &req {
                    return Err(SessionError::RequestIdReused(req.request_id));
                }
                return Ok(record);
            }
            set.insert(req.request_id.clone(), req.clone());
            InFlight {
                set: &self.in_flight,
                id: req.request_id.clone(),
            }
        };
        self.coordinate(req, record, protocol, probe, participants, min)
            .await
    }

    /// The attempts of a new request (see [`Runtime::submit`]).
    async fn coordinate(
        self: &Arc<Self>,
        req: SessionRequest,
        mut record: RequestRecord,
        protocol: Arc<dyn Protocol>,
        probe: Proposal,
        mut participants: Vec<u16>,
        min: usize,
    ) -> Result<RequestRecord, SessionError> {
        let key_id = record.key_id.clone();
        let mut inserted = false;
        let (mut tries, mut renumbered, mut skip) = (0u32, 0u32, 0u32);
        while tries < self.config.max_attempts {
            tries += 1;
            let attempt = self.pick_attempt(&key_id, req.epoch, skip)?;
            skip = 0;
            let proposal = Proposal {
                participants: participants.clone(),
                attempt,
                ..probe.clone()
            };
            let payload = serde_json::to_vec(&Control::Propose(proposal.clone()))
                .map_err(|e| SessionError::BadRequest(e.to_string()))?;
            let sid = session_id_of(&payload);
            let key = AttemptKey {
                key_id: key_id.clone(),
                epoch: req.epoch,
                attempt,
            };
            let mut opened = record.clone();
            opened.attempts.push(AttemptRecord {
                attempt,
                session_id: hex::encode(sid),
                participants: participants.clone(),
                outcome: None,
            });
            let session = Session {
                ctx: context(self.self_id, &proposal, sid),
                protocol: protocol.name().to_string(),
                version: protocol.version(),
                timeout: Duration::from_millis(probe.round_timeout_ms),
                confirm: protocol.confirms_done(),
            };
            let rx = self.open_route(sid);
            // The opening write (the claim, with the request record) goes to the blocking pool
            // first, so that its fsync overlaps everything below. The proposal carries no
            // secret: it leaves while the claim is made durable, so the participants' claims
            // overlap ours; the yield lets its send task (in this worker's LIFO slot) hand it
            // to the transport before round 1 is computed here. Our first protocol message
            // (`run_attempt`) waits for the claim.
            let begun = {
                let (opened, key) = (opened.clone(), key.clone());
                let new_request = !inserted;
                let me = self.self_id;
                crate::faults::timeline_mark("coord.claim.issue");
                self.store_call(move |s| s.begin_attempt(&opened, new_request, &key, sid, me))
            };
            if let Err(e) = self.seal_and_send(&session, 0, Recipient::All, payload) {
                warn!(error = %e, "could not send the proposal");
            }
            tokio::task::yield_now().await;
            let (begun, started) = claim_and_start(begun, protocol.as_ref(), &session.ctx).await;
            crate::faults::timeline_mark("coord.claim.returned");
            match begun {
                Ok(Begun::Claimed) => {}
                Ok(Begun::Existing(existing)) => {
                    self.withdraw(&session, "the request id was recorded meanwhile");
                    return answer_existing(&req, *existing);
                }
                Ok(Begun::NotClaimed(Claim::Duplicate {
                    coordinator,
                    session: first,
                })) => {
                    // This node took part in the request id's session through another
                    // coordinator: running it again here would be a silent duplicate.
                    self.withdraw(&session, "the request id ran through another coordinator");
                    record.error = Some(duplicate_request(
                        &req.request_id,
                        &key_id,
                        coordinator,
                        &first,
                    ));
                    break;
                }
                Ok(Begun::NotClaimed(_)) if renumbered < MAX_RENUMBER => {
                    // Another session took this number here after it was picked.
                    self.withdraw(&session, "the number was taken meanwhile");
                    renumbered += 1;
                    tries -= 1;
                    continue;
                }
                Ok(Begun::NotClaimed(_)) => {
                    self.withdraw(&session, "the number was taken meanwhile");
                    break;
                }
                Err(e) => {
                    self.withdraw(&session, "the coordinator could not record it");
                    return Err(e.into());
                }
            }
            inserted = true;
            record = opened;
            let outcome = match started.unwrap_or_else(|| start(protocol.as_ref(), &session.ctx)) {
                Ok((driver, first)) => self.run_attempt(&session, driver, first, rx).await,
                Err(reason) => Outcome::Aborted {
                    reason: format!("this node refused its own proposal: {reason}"),
                    culprits: vec![],
                    evidence: vec![],
                },
            };
            self.close_route(sid);
            if let Some(last) = record.attempts.last_mut() {
                last.outcome = Some(outcome.clone());
            }
            match &outcome {
                Outcome::Completed { output } => {
                    record.status = RequestStatus::Completed;
                    record.output = Some(output.clone());
                    record.error = None;
                    record.culprits = vec![];
                }
                Outcome::Aborted {
                    reason, culprits, ..
                } => {
                    let taken = culprits.is_empty() && reason.contains(ATTEMPT_TAKEN);
                    record.error = Some(reason.clone());
                    record.culprits = culprits.clone();
                    let remaining: Vec<u16> = participants
                        .iter()
                        .copied()
                        .filter(|p| !culprits.contains(p))
                        .collect();
                    if taken && renumbered < MAX_RENUMBER {
                        // A participant saw this number used by another coordinator. A
                        // higher number (this one is now claimed here) is tried, not counted
                        // as a retry; jumping ahead by a random amount makes concurrent
                        // coordinators rarely meet again.
                        renumbered += 1;
                        tries -= 1;
                        skip = 1 + (rand_core::RngCore::next_u32(&mut rand_core::OsRng) % 4096);
                    } else if !culprits.is_empty()
                        && !culprits.contains(&self.self_id)
                        && remaining.len() >= min
                        && tries < self.config.max_attempts
                    {
                        info!(request_id = %req.request_id, excluded = ?culprits, "retrying without the culprits");
                        participants = remaining;
                    } else {
                        record.status = RequestStatus::Aborted;
                    }
                }
            }
            // One durable transaction for the outcome and the request's record, before the
            // answer.
            {
                let (key, outcome, record) = (key.clone(), outcome.clone(), record.clone());
                crate::faults::timeline_mark("coord.close.begin");
                self.store_call(move |s| s.end_attempt(&key, &outcome, &record))
                    .await?;
                crate::faults::timeline_mark("coord.close.end");
                crate::faults::timeline_flush();
            }
            match record.status {
                RequestStatus::Completed => return Ok(record),
                RequestStatus::Aborted => return Err(SessionError::Aborted(Box::new(record))),
                RequestStatus::Running => {}
            }
        }
        record.status = RequestStatus::Aborted;
        if record.error.is_none() {
            record.error = Some("no attempt number could be claimed".into());
        }
        {
            let record = record.clone();
            self.store_call(move |s| {
                if inserted {
                    s.update_request(&record)
                } else {
                    s.insert_request(&record).map(drop)
                }
            })
            .await?;
        }
        Err(SessionError::Aborted(Box::new(record)))
    }

    /// Withdraws a proposal whose attempt this coordinator could not claim: the participants
    /// abort it without blaming anyone (they renumber as for a taken attempt).
    fn withdraw(self: &Arc<Self>, s: &Session, why: &str) {
        let reason = format!(
            "{ATTEMPT_TAKEN}: the coordinator withdrew attempt {} ({why})",
            s.ctx.attempt
        );
        self.send_control(s, &Control::Refuse { reason });
        self.close_route(s.ctx.session_id);
    }
}

/// Why a request id is refused: another coordinator ran it with this key.
fn duplicate_request(
    request_id: &str,
    key_id: &str,
    coordinator: u16,
    session: &[u8; 32],
) -> String {
    format!(
        "{DUPLICATE_REQUEST} {request_id:?} for key {key_id}: already used by session {} \
         coordinated by node {coordinator} (ask node {coordinator} for its result)",
        hex::encode(session)
    )
}

/// The answer to a request id seen before: its record, or the same error.
fn answer_existing(
    req: &SessionRequest,
    existing: RequestRecord,
) -> Result<RequestRecord, SessionError> {
    if existing.request != *req {
        return Err(SessionError::RequestIdReused(req.request_id.clone()));
    }
    match existing.status {
        RequestStatus::Aborted => Err(SessionError::Aborted(Box::new(existing))),
        _ => Ok(existing),
    }
}

/// A protocol's driver for a session with its round-1 messages, or the protocol's refusal.
type Started = Result<(Box<dyn ProtocolDriver>, Result<Vec<Outgoing>, DriverError>), String>;

/// Builds the driver of `ctx` and runs its `start` (round 1's local work; nothing is sent).
fn start(protocol: &dyn Protocol, ctx: &SessionContext) -> Started {
    crate::faults::timeline_mark("start.begin");
    let mut driver = protocol.driver(ctx)?;
    let first = driver.start();
    crate::faults::timeline_mark("start.end");
    Ok((driver, first))
}

/// Awaits `claim` (the attempt's durable claim, running on the blocking pool); for a protocol
/// that [`Protocol::starts_before_claim`], builds and starts the driver meanwhile, so round 1's
/// local work overlaps the fsync. The caller sends nothing of the attempt before `claim` has
/// returned a successful claim, and drops the driver unused otherwise.
async fn claim_and_start<C>(
    claim: impl std::future::Future<Output = C>,
    protocol: &dyn Protocol,
    ctx: &SessionContext,
) -> (C, Option<Started>) {
    if !protocol.starts_before_claim() {
        return (claim.await, None);
    }
    // The callers hand `claim`'s store call to the blocking pool before this (see
    // `Runtime::store_call`): its fsync is under way while round 1 runs.
    let (claim, started) = tokio::join!(claim, async { start(protocol, ctx) });
    (claim, Some(started))
}

fn context(self_id: u16, p: &Proposal, sid: [u8; 32]) -> SessionContext {
    SessionContext {
        self_id,
        participants: p.participants.clone(),
        coordinator: p.coordinator,
        params: p.params.clone(),
        key_id: p.key_id.clone(),
        epoch: p.epoch,
        attempt: p.attempt,
        session_id: sid,
        request_id: p.request_id.clone(),
    }
}

fn driver_abort(e: DriverError, received: &BTreeMap<(u16, u16), Envelope>, round: u16) -> Outcome {
    match e {
        DriverError::Blame { culprits, reason } => {
            let evidence = culprits
                .iter()
                .filter_map(|c| received.get(&(round, *c)))
                .map(|e| hex::encode(e.encode()))
                .collect();
            Outcome::Aborted {
                reason: format!("round {round}: {reason}"),
                culprits,
                evidence,
            }
        }
        DriverError::Failed(reason) => Outcome::Aborted {
            reason: format!("round {round}: {reason}"),
            culprits: vec![],
            evidence: vec![],
        },
    }
}
