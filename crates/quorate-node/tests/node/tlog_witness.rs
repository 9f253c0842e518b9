//! The tlog-witness over real HTTP on loopback: every status code of C2SP tlog-witness, the
//! cosignature verifying under the witness's vkey, the race of the spec, and logs added or
//! disabled while the witness runs.

use ed25519_dalek::SigningKey;
use quorate_node::tlog_witness::checkpoint::format_checkpoint;
use quorate_node::tlog_witness::client::{Answer, WitnessClient};
use quorate_node::tlog_witness::http;
use quorate_node::tlog_witness::note::sign_note_ed25519;
use quorate_node::tlog_witness::proof::MemoryLog;
use quorate_node::tlog_witness::request::{format_request, MAX_REQUEST_BYTES};
use quorate_node::tlog_witness::store::WitnessStore;
use quorate_node::tlog_witness::{Verifier, Witness, WitnessKey};
use std::net::SocketAddr;
use std::sync::Arc;

const ORIGIN: &str = "example.com/log";

struct Log {
    key: SigningKey,
    tree: MemoryLog,
}

impl Log {
    fn new(seed: u8, leaves: u32) -> Log {
        let mut tree = MemoryLog::new();
        for i in 0..leaves {
            tree.append(&i.to_be_bytes());
        }
        Log {
            key: SigningKey::from_bytes(&[seed; 32]),
            tree,
        }
    }

    fn vkey(&self) -> Verifier {
        Verifier::ed25519(ORIGIN, self.key.verifying_key())
    }

    fn text(&self, size: u64) -> String {
        format_checkpoint(ORIGIN, size, &self.tree.root(size))
    }

    fn request(&self, old: u64, new: u64) -> String {
        let signed = sign_note_ed25519(&self.text(new), ORIGIN, &self.key);
        format_request(old, &self.tree.consistency_proof(old, new), &signed)
    }
}

async fn start(
    dir: &std::path::Path,
) -> (SocketAddr, Arc<Witness>, tokio::sync::oneshot::Sender<()>) {
    let db = dir.join("witness.db");
    let witness =
        Witness::open(&db, WitnessKey::generate("witness.test/w1").expect("key")).expect("open");
    let listener = http::bind("127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(http::serve(listener, witness.clone(), async {
        let _ = rx.await;
    }));
    (addr, witness, tx)
}

async fn post(addr: SocketAddr, body: impl Into<bytes::Bytes>) -> Answer {
    let mut c = WitnessClient::connect(addr).await.expect("connect");
    c.add_checkpoint(body).await.expect("request")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_status_code_of_the_spec() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let log = Log::new(1, 50);
    let (addr, witness, _stop) = start(tmp.path()).await;
    let wv = Verifier::parse(&witness.vkey()).expect("witness vkey");

    // 404: origin not registered.
    assert_eq!(post(addr, log.request(0, 10)).await.status, 404);
    // Registered while the witness runs: picked up at the next request.
    WitnessStore::open(&tmp.path().join("witness.db"))
        .expect("store")
        .add_log(ORIGIN, &log.vkey())
        .expect("add");

    // 200 with a cosignature/v1 line that verifies over the checkpoint text.
    let mut c = WitnessClient::connect(addr).await.expect("connect");
    let a = c.add_checkpoint(log.request(0, 10)).await.expect("req");
    assert_eq!(a.status, 200, "{a:?}");
    assert!(a.body.starts_with("\u{2014} witness.test/w1 ") && a.body.ends_with('\n'));
    wv.verify_cosignature_line(&log.text(10), &a.body)
        .expect("cosignature verifies");
    assert!(wv.verify_cosignature_line(&log.text(11), &a.body).is_err());

    // 409: stale old size, the stored size in the body, typed text/x.tlog.size.
    let a = c.add_checkpoint(log.request(0, 12)).await.expect("req");
    assert_eq!((a.status, a.body.as_str()), (409, "10\n"));
    assert_eq!(a.content_type, "text/x.tlog.size");
    // 409: same size, another root hash.
    let mut fork = MemoryLog::new();
    for i in 0..10u32 {
        fork.append(&(i + 1000).to_be_bytes());
    }
    let fork_text = format_checkpoint(ORIGIN, 10, &fork.root(10));
    let fork_req = format_request(10, &[], &sign_note_ed25519(&fork_text, ORIGIN, &log.key));
    let a = c.add_checkpoint(fork_req).await.expect("req");
    assert_eq!((a.status, a.body.as_str()), (409, "10\n"));

    // 422: a consistency proof that does not verify (a tree that is not an extension).
    let bad = {
        let mut t = MemoryLog::new();
        for i in 0..20u32 {
            t.append(&(i + 7).to_be_bytes());
        }
        let text = format_checkpoint(ORIGIN, 20, &t.root(20));
        format_request(
            10,
            &t.consistency_proof(10, 20),
            &sign_note_ed25519(&text, ORIGIN, &log.key),
        )
    };
    assert_eq!(c.add_checkpoint(bad).await.expect("req").status, 422);

    // 403: signed by another key (unknown signatures are ignored, so nothing verifies).
    let stranger = SigningKey::from_bytes(&[2; 32]);
    let forged = format_request(
        10,
        &log.tree.consistency_proof(10, 20),
        &sign_note_ed25519(&log.text(20), ORIGIN, &stranger),
    );
    assert_eq!(c.add_checkpoint(forged).await.expect("req").status, 403);

    // 400: malformed, and old size above the checkpoint size.
    assert_eq!(c.add_checkpoint("old 1\n").await.expect("req").status, 400);
    let above = format_request(30, &[], &sign_note_ed25519(&log.text(20), ORIGIN, &log.key));
    assert_eq!(c.add_checkpoint(above).await.expect("req").status, 400);
    // 413: a body above the bound is refused before it is read.
    let huge = vec![b'a'; MAX_REQUEST_BYTES + 1];
    assert_eq!(post(addr, huge).await.status, 413);

    // The state moved only on the 200: 10 -> 20 -> 50 cosign, with extra unknown signatures
    // (another witness's cosignature) ignored.
    let a = c.add_checkpoint(log.request(10, 20)).await.expect("req");
    assert_eq!(a.status, 200, "{a:?}");
    let signed = sign_note_ed25519(&log.text(50), ORIGIN, &log.key);
    let with_cosig = format!(
        "{signed}{}",
        WitnessKey::generate("other/w")
            .expect("k")
            .cosign(&log.text(50), 1)
    );
    let req = format_request(20, &log.tree.consistency_proof(20, 50), &with_cosig);
    assert_eq!(c.add_checkpoint(req).await.expect("req").status, 200);

    // Disabled while running: 404 at once, and the state is kept.
    let mut store = WitnessStore::open(&tmp.path().join("witness.db")).expect("store");
    store.set_enabled(ORIGIN, false).expect("disable");
    assert_eq!(
        c.add_checkpoint(log.request(50, 50))
            .await
            .expect("req")
            .status,
        404
    );
    assert_eq!(store.set_enabled(ORIGIN, true).expect("enable").size, 50);
    assert_eq!(
        c.add_checkpoint(log.request(50, 50))
            .await
            .expect("req")
            .status,
        200
    );
    // Evidence of the fork and of the bad proof is kept.
    assert_eq!(store.evidence(ORIGIN).expect("evidence").len(), 2);
}

/// The race of the spec over HTTP: many clients send checkpoints of different sizes from
/// the same old size at once; exactly one is cosigned, the others get 409 with its size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_are_never_both_cosigned() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let log = Log::new(3, 64);
    let (addr, _witness, _stop) = start(tmp.path()).await;
    WitnessStore::open(&tmp.path().join("witness.db"))
        .expect("store")
        .add_log(ORIGIN, &log.vkey())
        .expect("add");
    let mut old = 0u64;
    for round in 0..4u64 {
        let mut clients = Vec::new();
        for k in 1..=12u64 {
            clients.push((
                old + k,
                WitnessClient::connect(addr).await.expect("connect"),
            ));
        }
        let barrier = Arc::new(tokio::sync::Barrier::new(clients.len()));
        let tasks: Vec<_> = clients
            .into_iter()
            .map(|(size, mut c)| {
                let body = log.request(old, size);
                let barrier = barrier.clone();
                tokio::spawn(async move {
                    barrier.wait().await;
                    (size, c.add_checkpoint(body).await.expect("req"))
                })
            })
            .collect();
        let mut won = Vec::new();
        let mut answers = Vec::new();
        for t in tasks {
            let (size, a) = t.await.expect("join");
            if a.status == 200 {
                won.push(size);
            }
            answers.push((size, a));
        }
        assert_eq!(won.len(), 1, "round {round}: {answers:?}");
        for (_, a) in &answers {
            assert!(
                a.status == 200 || (a.status == 409 && a.body == format!("{}\n", won[0])),
                "{a:?}"
            );
        }
        old = won[0];
    }
}
