//! The session runtime over real QUIC on 127.0.0.1, several nodes in one process, driving
//! a test protocol: completion, idempotent request ids, deadlines that name the silent node,
//! retries without culprits, policy refusals, third-party-checkable blame evidence and the
//! per-round payload limit (checked before the protocol decodes a message).

use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::Duration;

use ed25519_dalek::SigningKey;
use quorate_node::envelope::Envelope;
use quorate_node::metrics::Metrics;
use quorate_node::session::driver::{
    DriverError, Incoming, Outgoing, Protocol, ProtocolDriver, SessionContext, Step,
};
use quorate_node::session::ping::Ping;
use quorate_node::session::policy::{AcceptAll, OperatorPolicy, Policy, PolicyConfig};
use quorate_node::session::store::{
    Begun, Claim, MemoryStore, RequestOwner, SessionStore, StoreError,
};
use quorate_node::session::{
    AttemptKey, Outcome, RequestRecord, RequestStatus, Runtime, RuntimeConfig, SessionError,
    SessionRequest,
};
use quorate_node::transport::{PeerInfo, Peers, Transport, TransportConfig};
use rand_core::OsRng;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

/// How a test node misbehaves in `ping`.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    /// Sends nothing from this round on.
    SilentFrom(u16),
    /// Flips a bit of its round-2 message.
    Corrupt2,
    /// Appends a byte to its round-2 message (over the round's payload limit).
    Oversize2,
    /// Honest, and the protocol confirms completion to the coordinator.
    Confirm,
    /// As `Confirm`, but slow to finish: its last round takes 300 ms, then counts itself in
    /// [`SLOW_DONE`].
    SlowDone,
    /// Honest, and the protocol is ephemeral (its finished sessions may be pruned).
    Ephemeral,
}

/// Nodes with [`Fault::SlowDone`] whose driver finished.
static SLOW_DONE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The test protocol: `ping` with an optional injected fault, under the same name.
struct Faulty(Fault);

struct FaultyDriver {
    inner: Box<dyn ProtocolDriver>,
    fault: Fault,
}

impl FaultyDriver {
    fn filter(&self, round: u16, mut out: Vec<Outgoing>) -> Vec<Outgoing> {
        match self.fault {
            Fault::SilentFrom(r) if round >= r => vec![],
            Fault::Corrupt2 if round == 2 => {
                for o in &mut out {
                    o.payload[0] ^= 1;
                }
                out
            }
            Fault::Oversize2 if round == 2 => {
                for o in &mut out {
                    o.payload.push(0);
                }
                out
            }
            _ => out,
        }
    }
}

impl ProtocolDriver for FaultyDriver {
    fn start(&mut self) -> Result<Vec<Outgoing>, DriverError> {
        let out = self.inner.start()?;
        Ok(self.filter(1, out))
    }
    fn expected_from(&self, round: u16) -> Vec<u16> {
        self.inner.expected_from(round)
    }
    fn max_payload(&self, round: u16) -> usize {
        self.inner.max_payload(round)
    }
    fn handle(
        &mut self,
        round: u16,
        incoming: BTreeMap<u16, Incoming>,
    ) -> Result<Step, DriverError> {
        match self.inner.handle(round, incoming)? {
            Step::Next(out) => Ok(Step::Next(self.filter(round + 1, out))),
            done => {
                if self.fault == Fault::SlowDone {
                    std::thread::sleep(Duration::from_millis(300));
                    SLOW_DONE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                Ok(done)
            }
        }
    }
}

impl Protocol for Faulty {
    fn name(&self) -> &'static str {
        "ping"
    }
    fn version(&self) -> u16 {
        1
    }
    fn min_participants(&self, params: &Value) -> Result<usize, String> {
        Ping::default().min_participants(params)
    }
    fn driver(&self, ctx: &SessionContext) -> Result<Box<dyn ProtocolDriver>, String> {
        Ok(Box::new(FaultyDriver {
            inner: Ping::default().driver(ctx)?,
            fault: self.0,
        }))
    }
    fn confirms_done(&self) -> bool {
        matches!(self.0, Fault::Confirm | Fault::SlowDone)
    }
    fn ephemeral(&self) -> bool {
        self.0 == Fault::Ephemeral
    }
}

fn free_addr() -> SocketAddr {
    UdpSocket::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
}

struct Cluster {
    nodes: Vec<Arc<Runtime>>,
    peers: Peers,
}

impl Cluster {
    fn node(&self, id: u16) -> &Arc<Runtime> {
        &self.nodes[usize::from(id) - 1]
    }

    async fn stop(self) {
        for n in &self.nodes {
            n.transport().shutdown().await;
        }
    }
}

/// `n` nodes; `setup(id)` gives a node's fault and policy.
fn cluster(n: u16, setup: impl Fn(u16) -> (Option<Fault>, Arc<dyn Policy>)) -> Cluster {
    cluster_of(n, |id| {
        let (fault, policy) = setup(id);
        let protocol: Arc<dyn Protocol> = match fault {
            Some(f) => Arc::new(Faulty(f)),
            None => Arc::new(Ping::default()),
        };
        let store: Arc<dyn SessionStore> = Arc::new(MemoryStore::default());
        (protocol, policy, store)
    })
}

/// A node's protocol, policy and session store.
type NodeSetup = (Arc<dyn Protocol>, Arc<dyn Policy>, Arc<dyn SessionStore>);

/// `n` nodes; `setup(id)` gives a node's protocol, policy and session store.
fn cluster_of(n: u16, setup: impl Fn(u16) -> NodeSetup) -> Cluster {
    let keys: Vec<SigningKey> = (0..n).map(|_| SigningKey::generate(&mut OsRng)).collect();
    let peers = Peers::new(keys.iter().enumerate().map(|(i, k)| PeerInfo {
        id: i as u16 + 1,
        key: k.verifying_key(),
        addr: free_addr(),
    }))
    .expect("roster");
    let mut nodes = Vec::new();
    for (i, key) in keys.into_iter().enumerate() {
        let id = i as u16 + 1;
        let addr = peers.get(id).expect("peer").addr;
        let (transport, rx) =
            Transport::bind(&key, id, peers.clone(), addr, TransportConfig::default())
                .expect("bind");
        let (protocol, policy, store) = setup(id);
        let runtime = Runtime::new(
            key,
            transport,
            vec![protocol],
            policy,
            store,
            Arc::new(Metrics::default()),
            RuntimeConfig::default(),
        );
        runtime.spawn_inbound(rx);
        nodes.push(runtime);
    }
    Cluster { nodes, peers }
}

fn honest(_: u16) -> (Option<Fault>, Arc<dyn Policy>) {
    (None, Arc::new(AcceptAll))
}

fn ping(request_id: &str, participants: &[u16], timeout_ms: u64) -> SessionRequest {
    SessionRequest {
        request_id: request_id.into(),
        protocol: "ping".into(),
        params: Value::Null,
        participants: participants.to_vec(),
        key_id: None,
        epoch: 0,
        round_timeout_ms: Some(timeout_ms),
    }
}

#[tokio::test]
async fn finished_ephemeral_sessions_are_pruned_on_coordinator_and_participants() {
    tokio::time::timeout(LIMIT, async {
        let c = cluster(2, |_| (Some(Fault::Ephemeral), Arc::new(AcceptAll)));
        // An ephemeral protocol runs only under its request's derived key id.
        let mut named = ping("named", &[1, 2], 10_000);
        named.key_id = Some("k1".into());
        let err = c.node(1).submit(named).await.expect_err("named key");
        assert!(matches!(err, SessionError::BadRequest(_)), "{err}");
        for i in 0..3 {
            let rec = c
                .node(1)
                .submit(ping(&format!("q{i}"), &[1, 2], 10_000))
                .await
                .expect("ping");
            assert_eq!(rec.status, RequestStatus::Completed);
        }
        // Coordinator: 2 requests and 2 attempts beyond the newest one of each.
        assert_eq!(c.node(1).prune_ephemeral(1).await.expect("prune"), 4);
        let left = c.node(1).requests().expect("requests");
        assert_eq!(left.len(), 1);
        assert_eq!(c.node(1).prune_ephemeral(1).await.expect("again"), 0);
        // Participant: its 2 older claimed attempts (it holds no request records). Its
        // claims are recorded finished once its driver is done, which may trail the answer.
        let mut removed = 0;
        for _ in 0..100 {
            removed += c.node(2).prune_ephemeral(1).await.expect("prune 2");
            if removed == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(removed, 2);
        c.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn ping_completes_and_a_request_id_is_idempotent() {
    tokio::time::timeout(LIMIT, async {
        let c = cluster(3, honest);
        let rec = c
            .node(1)
            .submit(ping("req-1", &[1, 2, 3], 10_000))
            .await
            .expect("ping");
        assert_eq!(rec.status, RequestStatus::Completed);
        assert_eq!(rec.attempts.len(), 1);
        let output = rec.output.clone().expect("output");
        assert_eq!(output["participants"], serde_json::json!([1, 2, 3]));
        // The same request id returns the same result without running again.
        let again = c
            .node(1)
            .submit(ping("req-1", &[1, 2, 3], 10_000))
            .await
            .expect("same");
        assert_eq!(again, rec);
        assert_eq!(
            c.node(1)
                .metrics()
                .counter("quorate_sessions_started_total"),
            1
        );
        // The same id for a different request is refused, not silently merged.
        let err = c
            .node(1)
            .submit(ping("req-1", &[1, 2], 10_000))
            .await
            .expect_err("reused id");
        assert!(matches!(err, SessionError::RequestIdReused(_)), "{err}");
        // A second request gets a fresh session (the next attempt of its key).
        let other = c
            .node(2)
            .submit(ping("req-2", &[2, 3], 10_000))
            .await
            .expect("ping 2");
        assert_ne!(other.output, rec.output);
        c.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_silent_node_is_named_and_the_retry_excludes_it() {
    tokio::time::timeout(LIMIT, async {
        let c = cluster(3, |id| {
            let fault = (id == 3).then_some(Fault::SilentFrom(2));
            (fault, Arc::new(AcceptAll) as Arc<dyn Policy>)
        });
        let node1 = c.node(1).clone();
        let run =
            tokio::spawn(async move { node1.submit(ping("req-silent", &[1, 2, 3], 1500)).await });
        // While round 2 waits for node 3 only, the "waiting for" gauge names it.
        loop {
            let w = c.node(1).metrics().waiting();
            if w.first().is_some_and(|w| w.round == 2 && w.nodes == [3]) {
                assert_eq!(w[0].describe(), "waiting for node 3 in round 2");
                let text = c.node(1).metrics().render();
                assert!(text.contains("round=\"2\",node=\"3\"} 1"), "{text}");
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let rec = run.await.expect("join").expect("completed after retry");
        assert_eq!(rec.status, RequestStatus::Completed);
        assert_eq!(rec.attempts.len(), 2);
        match &rec.attempts[0].outcome {
            Some(Outcome::Aborted {
                reason, culprits, ..
            }) => {
                assert_eq!(culprits, &vec![3]);
                assert!(reason.contains("waiting for node 3 in round 2"), "{reason}");
            }
            other => panic!("unexpected first outcome {other:?}"),
        }
        assert_eq!(rec.attempts[1].participants, vec![1, 2]);
        // Node 1 numbers its attempts in its own class (its roster position modulo the
        // roster size), so another coordinator of the key never picks the same numbers.
        assert!(rec.attempts[1].attempt > rec.attempts[0].attempt);
        assert!(rec.attempts.iter().all(|a| a.attempt % 3 == 0));
        assert!(!c
            .node(1)
            .metrics()
            .render()
            .contains("quorate_session_waiting_for{"));
        c.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_confirming_protocol_answers_after_every_participant_is_done() {
    tokio::time::timeout(LIMIT, async {
        let c = cluster(3, |id| {
            let fault = if id == 1 {
                Fault::Confirm
            } else {
                Fault::SlowDone
            };
            (Some(fault), Arc::new(AcceptAll) as Arc<dyn Policy>)
        });
        let rec = c
            .node(1)
            .submit(ping("req-confirm", &[1, 2, 3], 10_000))
            .await
            .expect("ping");
        assert_eq!(rec.status, RequestStatus::Completed);
        // Nodes 2 and 3 finish after node 1; the answer waited for both.
        assert_eq!(SLOW_DONE.load(std::sync::atomic::Ordering::SeqCst), 2);
        c.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn no_retry_below_the_minimum_names_the_culprit() {
    tokio::time::timeout(LIMIT, async {
        let c = cluster(2, |id| {
            let fault = (id == 2).then_some(Fault::SilentFrom(1));
            (fault, Arc::new(AcceptAll) as Arc<dyn Policy>)
        });
        let err = c
            .node(1)
            .submit(ping("req-two", &[1, 2], 1000))
            .await
            .expect_err("must abort");
        assert_eq!(err.culprits(), &[2]);
        assert!(
            err.to_string().contains("waiting for node 2 in round 1"),
            "{err}"
        );
        // The aborted result is what the request id returns from now on.
        let again = c
            .node(1)
            .submit(ping("req-two", &[1, 2], 1000))
            .await
            .expect_err("same abort");
        assert_eq!(again.culprits(), &[2]);
        assert_eq!(
            c.node(1)
                .metrics()
                .counter("quorate_sessions_started_total"),
            1
        );
        c.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_policy_refusal_names_the_refuser_and_others_go_on() {
    tokio::time::timeout(LIMIT, async {
        let c = cluster(3, |id| {
            let policy: Arc<dyn Policy> = if id == 2 {
                Arc::new(OperatorPolicy::new(PolicyConfig {
                    protocols: Some(vec!["ecdsa-sign".into()]),
                    ..PolicyConfig::default()
                }))
            } else {
                Arc::new(AcceptAll)
            };
            (None, policy)
        });
        let rec = c
            .node(1)
            .submit(ping("req-policy", &[1, 2, 3], 5000))
            .await
            .expect("completes without node 2");
        match &rec.attempts[0].outcome {
            Some(Outcome::Aborted {
                reason, culprits, ..
            }) => {
                assert_eq!(culprits, &vec![2]);
                assert!(reason.contains("node 2 refused"), "{reason}");
                assert!(reason.contains("not allowed"), "{reason}");
            }
            other => panic!("unexpected first outcome {other:?}"),
        }
        assert_eq!(rec.attempts[1].participants, vec![1, 3]);
        assert_eq!(rec.status, RequestStatus::Completed);
        assert_eq!(
            c.node(2)
                .metrics()
                .counter("quorate_sessions_refused_total"),
            1
        );
        c.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_cheater_is_blamed_with_evidence_a_third_party_can_check() {
    tokio::time::timeout(LIMIT, async {
        let c = cluster(3, |id| {
            let fault = (id == 3).then_some(Fault::Corrupt2);
            (fault, Arc::new(AcceptAll) as Arc<dyn Policy>)
        });
        let rec = c
            .node(1)
            .submit(ping("req-cheat", &[1, 2, 3], 5000))
            .await
            .expect("retry completes");
        let Some(Outcome::Aborted {
            culprits, evidence, ..
        }) = &rec.attempts[0].outcome
        else {
            panic!("first attempt must abort");
        };
        assert_eq!(culprits, &vec![3]);
        assert_eq!(evidence.len(), 1);
        // Anyone with the roster can check who wrote the incriminating message.
        let env =
            Envelope::decode(&hex::decode(&evidence[0]).expect("hex"), 1 << 20).expect("decode");
        env.verify(|id| c.peers.key(id)).expect("verifies");
        assert_eq!(env.header.sender, 3);
        assert_eq!(env.header.round, 2);
        assert_eq!(hex::encode(env.header.session), rec.attempts[0].session_id);
        assert_eq!(rec.attempts[1].participants, vec![1, 2]);
        c.stop().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_message_over_its_rounds_limit_is_blamed_before_decoding() {
    tokio::time::timeout(LIMIT, async {
        let c = cluster(3, |id| {
            let fault = (id == 2).then_some(Fault::Oversize2);
            (fault, Arc::new(AcceptAll) as Arc<dyn Policy>)
        });
        let rec = c
            .node(1)
            .submit(ping("req-oversize", &[1, 2, 3], 5000))
            .await
            .expect("retry completes");
        let Some(Outcome::Aborted {
            reason,
            culprits,
            evidence,
        }) = &rec.attempts[0].outcome
        else {
            panic!("first attempt must abort");
        };
        assert_eq!(culprits, &vec![2]);
        assert!(
            reason.contains("node 2 sent 33 bytes in round 2, the limit is 32"),
            "{reason}"
        );
        // The oversized envelope, signed by node 2, is the evidence.
        let env =
            Envelope::decode(&hex::decode(&evidence[0]).expect("hex"), 1 << 20).expect("decode");
        env.verify(|id| c.peers.key(id)).expect("verifies");
        assert_eq!((env.header.sender, env.header.round), (2, 2));
        assert_eq!(env.payload.len(), 33);
        assert_eq!(rec.attempts[1].participants, vec![1, 3]);
        c.stop().await;
    })
    .await
    .expect("test timed out");
}

/// Which nodes' claims of the attempt have returned from their session store (durable).
#[derive(Default)]
struct Claims {
    durable: std::sync::Mutex<std::collections::BTreeSet<u16>>,
    /// Round-1 messages handled before their sender's claim had returned: (receiver, sender).
    early: std::sync::Mutex<Vec<(u16, u16)>>,
}

/// A [`MemoryStore`] whose claims (a coordinator's opening write, a participant's claim)
/// take `delay`, as a slow fsync would, and are noted in `claims` once they return.
struct SlowClaims {
    id: u16,
    inner: MemoryStore,
    delay: Duration,
    claims: Arc<Claims>,
}

impl SlowClaims {
    fn claimed(&self) {
        self.claims.durable.lock().expect("lock").insert(self.id);
    }
}

impl SessionStore for SlowClaims {
    fn insert_request(&self, record: &RequestRecord) -> Result<Option<RequestRecord>, StoreError> {
        self.inner.insert_request(record)
    }
    fn update_request(&self, record: &RequestRecord) -> Result<(), StoreError> {
        self.inner.update_request(record)
    }
    fn request(&self, request_id: &str) -> Result<Option<RequestRecord>, StoreError> {
        self.inner.request(request_id)
    }
    fn requests(&self) -> Result<Vec<RequestRecord>, StoreError> {
        self.inner.requests()
    }
    fn claim_attempt(
        &self,
        key: &AttemptKey,
        session: [u8; 32],
        owner: &RequestOwner,
    ) -> Result<Claim, StoreError> {
        std::thread::sleep(self.delay);
        let claim = self.inner.claim_attempt(key, session, owner)?;
        if claim == Claim::Claimed {
            self.claimed();
        }
        Ok(claim)
    }
    fn next_attempt(&self, key_id: &str, epoch: u64) -> Result<u32, StoreError> {
        self.inner.next_attempt(key_id, epoch)
    }
    fn finish_attempt(&self, key: &AttemptKey, outcome: &Outcome) -> Result<(), StoreError> {
        self.inner.finish_attempt(key, outcome)
    }
    fn attempt_outcome(&self, key: &AttemptKey) -> Result<Option<Outcome>, StoreError> {
        self.inner.attempt_outcome(key)
    }
    fn begin_attempt(
        &self,
        record: &RequestRecord,
        new_request: bool,
        key: &AttemptKey,
        session: [u8; 32],
        coordinator: u16,
    ) -> Result<Begun, StoreError> {
        std::thread::sleep(self.delay);
        let begun = self
            .inner
            .begin_attempt(record, new_request, key, session, coordinator)?;
        if begun == Begun::Claimed {
            self.claimed();
        }
        Ok(begun)
    }
    fn end_attempt(
        &self,
        key: &AttemptKey,
        outcome: &Outcome,
        record: &RequestRecord,
    ) -> Result<(), StoreError> {
        self.inner.end_attempt(key, outcome, record)
    }
    fn prune_finished(
        &self,
        protocol: &str,
        key_prefix: &str,
        keep: usize,
    ) -> Result<usize, StoreError> {
        self.inner.prune_finished(protocol, key_prefix, keep)
    }
}

/// `ping` that starts before its claim is durable (round 1 computed meanwhile, as
/// `ecdsa-sign` does) and notes every round-1 message it handles whose sender's claim had not
/// returned yet.
struct Watched(Arc<Claims>);

struct WatchedDriver {
    inner: Box<dyn ProtocolDriver>,
    me: u16,
    claims: Arc<Claims>,
}

impl ProtocolDriver for WatchedDriver {
    fn start(&mut self) -> Result<Vec<Outgoing>, DriverError> {
        self.inner.start()
    }
    fn expected_from(&self, round: u16) -> Vec<u16> {
        self.inner.expected_from(round)
    }
    fn max_payload(&self, round: u16) -> usize {
        self.inner.max_payload(round)
    }
    fn handle(
        &mut self,
        round: u16,
        incoming: BTreeMap<u16, Incoming>,
    ) -> Result<Step, DriverError> {
        if round == 1 {
            let durable = self.claims.durable.lock().expect("lock").clone();
            let mut early = self.claims.early.lock().expect("lock");
            for from in incoming.keys().filter(|f| !durable.contains(*f)) {
                early.push((self.me, *from));
            }
        }
        self.inner.handle(round, incoming)
    }
}

impl Protocol for Watched {
    fn name(&self) -> &'static str {
        "ping"
    }
    fn version(&self) -> u16 {
        1
    }
    fn min_participants(&self, params: &Value) -> Result<usize, String> {
        Ping::default().min_participants(params)
    }
    fn starts_before_claim(&self) -> bool {
        true
    }
    fn driver(&self, ctx: &SessionContext) -> Result<Box<dyn ProtocolDriver>, String> {
        Ok(Box::new(WatchedDriver {
            inner: Ping::default().driver(ctx)?,
            me: ctx.self_id,
            claims: self.0.clone(),
        }))
    }
}

/// No protocol message of an attempt leaves a node before that node's claim of the attempt is
/// durable: the coordinator's opening write (issued before its proposal is sealed, overlapping
/// the proposal and round 1) and a participant's claim (overlapping its round 1). Each side
/// in turn has a slow claim (400 ms) while the other's is instant: a round-1 message sent
/// before its sender's claim returned would be handled by the fast node while the claim is
/// still sleeping, and is noted.
#[tokio::test]
async fn no_message_of_an_attempt_leaves_before_its_claim_is_durable() {
    tokio::time::timeout(LIMIT, async {
        for slow in [1u16, 2] {
            let claims = Arc::new(Claims::default());
            let c = cluster_of(2, |id| {
                let delay = if id == slow {
                    Duration::from_millis(400)
                } else {
                    Duration::ZERO
                };
                let store: Arc<dyn SessionStore> = Arc::new(SlowClaims {
                    id,
                    inner: MemoryStore::default(),
                    delay,
                    claims: claims.clone(),
                });
                let protocol: Arc<dyn Protocol> = Arc::new(Watched(claims.clone()));
                (protocol, Arc::new(AcceptAll) as Arc<dyn Policy>, store)
            });
            for i in 0..3 {
                claims.durable.lock().expect("lock").clear();
                let rec = c
                    .node(1)
                    .submit(ping(&format!("claim-{slow}-{i}"), &[1, 2], 10_000))
                    .await
                    .expect("ping");
                assert_eq!(rec.status, RequestStatus::Completed);
                let durable = claims.durable.lock().expect("lock").clone();
                assert_eq!(durable.len(), 2, "both claims returned (slow node {slow})");
            }
            let early = claims.early.lock().expect("lock").clone();
            assert!(
                early.is_empty(),
                "round-1 messages handled before their sender's claim was durable \
                 ((receiver, sender), slow node {slow}): {early:?}"
            );
            c.stop().await;
        }
    })
    .await
    .expect("test timed out");
}
