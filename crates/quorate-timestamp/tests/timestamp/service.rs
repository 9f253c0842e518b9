//! The timestamping server over real HTTP on loopback: receipts under a short load, restart
//! persistence and sealing at shutdown.
#![allow(clippy::unwrap_used)]

use quorate_cosi::timestamp::{Hash, Receipt, RosterVerifier};
use quorate_cosi::{Policy, Roster};
use quorate_timestamp::loadgen::{http_call, run_load, LoadConfig};
use quorate_timestamp::{open_cosigner, ServerConfig, Service, Store, TimestampServer};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let dir = std::env::temp_dir().join(format!(
            "quorate-ts-test-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn start(db: &Path, witnesses: usize, round_ms: u64) -> anyhow::Result<TimestampServer> {
    let store = Store::open(db)?;
    let cosigner = Arc::new(open_cosigner(&store, witnesses)?);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let config = ServerConfig {
        round_interval: Duration::from_millis(round_ms),
        max_wait: Duration::from_secs(10),
        ..ServerConfig::default()
    };
    TimestampServer::start(listener, store, cosigner, config).await
}

/// The receipt verifier a client builds from `GET /v1/roster` (entries with their proofs of
/// possession, checked on load).
async fn verifier_of(addr: SocketAddr) -> RosterVerifier {
    let (status, body) = http_call(addr, "GET", "/v1/roster", b"").await.unwrap();
    assert_eq!(status, 200);
    let roster = Roster::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
    RosterVerifier::new(Arc::new(roster), Policy::Complete)
}

async fn submit(addr: SocketAddr, body: &[u8]) -> String {
    let (status, body) = http_call(addr, "POST", "/v1/submit", body).await.unwrap();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    v["ticket"].as_str().unwrap().to_owned()
}

async fn receipt(addr: SocketAddr, ticket: &str) -> Receipt {
    let (status, body) = http_call(addr, "GET", &format!("/v1/receipt/{ticket}?wait=1"), b"")
        .await
        .unwrap();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    Receipt::from_json(std::str::from_utf8(&body).unwrap()).unwrap()
}

async fn head(addr: SocketAddr) -> serde_json::Value {
    let (status, body) = http_call(addr, "GET", "/v1/head", b"").await.unwrap();
    assert_eq!(status, 200);
    serde_json::from_slice(&body).unwrap()
}

fn hash(i: u8) -> Hash {
    [i; 32]
}

#[test]
fn server_under_short_load_issues_verifiable_receipts() {
    let dir = TempDir::new("load");
    let started = Instant::now();
    runtime().block_on(async {
        let server = start(&dir.path("ts.sqlite"), 5, 50).await.unwrap();
        let addr = server.local_addr();
        let verifier = verifier_of(addr).await;

        // Bad input and unknown tickets.
        let (status, _) = http_call(addr, "POST", "/v1/submit", b"not a hash")
            .await
            .unwrap();
        assert_eq!(status, 400);
        let (status, _) = http_call(addr, "POST", "/v1/submit", &[b'a'; 63])
            .await
            .unwrap();
        assert_eq!(status, 400);
        let (status, _) = http_call(addr, "GET", "/v1/receipt/99999-0-0123456789abcdef", b"")
            .await
            .unwrap();
        assert_eq!(status, 404);
        let (status, _) = http_call(addr, "GET", "/v1/receipt/nonsense", b"")
            .await
            .unwrap();
        assert_eq!(status, 400);
        let (status, _) = http_call(addr, "GET", "/v1/head", b"").await.unwrap();
        assert_eq!(status, 404);

        // Hex (with a trailing newline) and raw submissions.
        let hex_ticket = submit(addr, format!("{}\n", hex::encode(hash(1))).as_bytes()).await;
        let raw_ticket = submit(addr, &hash(2)).await;
        for (ticket, h) in [(&hex_ticket, hash(1)), (&raw_ticket, hash(2))] {
            let r = receipt(addr, ticket).await;
            assert_eq!(r.hash, h);
            r.verify(&verifier, Some(&h)).unwrap();
        }

        // A short, bounded load; sampled receipts must verify.
        let load = LoadConfig {
            max_requests: Some(20_000),
            sample_every: 500,
            ..LoadConfig::new(addr, 16, Duration::from_millis(1500))
        };
        let report = run_load(&load).await.unwrap();
        assert!(report.ok > 0);
        assert_eq!(report.errors, 0);
        assert!(!report.samples.is_empty());
        for (h, ticket) in report.samples.iter().take(20) {
            receipt(addr, ticket)
                .await
                .verify(&verifier, Some(h))
                .unwrap();
        }
        // Round headers chain.
        let last = head(addr).await;
        let n = last["round"].as_u64().unwrap();
        assert!(n >= 1);
        let (_, prev) = http_call(addr, "GET", &format!("/v1/round/{}", n - 1), b"")
            .await
            .unwrap();
        let prev: serde_json::Value = serde_json::from_slice(&prev).unwrap();
        assert_eq!(prev["hash"], last["prev"]);
        server.shutdown().await.unwrap();
    });
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn restart_loses_no_issued_root_and_continues_the_chain() {
    let dir = TempDir::new("restart");
    let db = dir.path("ts.sqlite");
    let rt = runtime();
    let (old_receipts, old_head) = rt.block_on(async {
        let server = start(&db, 3, 30).await.unwrap();
        let addr = server.local_addr();
        let mut receipts = Vec::new();
        for round in 0..3u8 {
            let tickets = [
                submit(addr, &hash(10 + 2 * round)).await,
                submit(addr, &hash(11 + 2 * round)).await,
            ];
            for t in &tickets {
                receipts.push((t.clone(), receipt(addr, t).await));
            }
        }
        let h = head(addr).await;
        server.shutdown().await.unwrap();
        (receipts, h)
    });
    assert!(old_head["round"].as_u64().unwrap() >= 2);

    // A store cannot be reopened with another roster size.
    {
        let store = Store::open(&db).unwrap();
        assert!(open_cosigner(&store, 4).is_err());
    }

    rt.block_on(async {
        let server = start(&db, 3, 30).await.unwrap();
        let addr = server.local_addr();
        let verifier = verifier_of(addr).await;
        assert_eq!(head(addr).await, old_head);
        // Every old receipt is still served, identical, and verifies.
        for (ticket, old) in &old_receipts {
            let again = receipt(addr, ticket).await;
            assert_eq!(&again, old);
            again.verify(&verifier, None).unwrap();
        }
        // The next round continues the chain from the last issued header.
        let t = submit(addr, &hash(99)).await;
        let r = receipt(addr, &t).await;
        assert_eq!(r.round, old_head["round"].as_u64().unwrap() + 1);
        assert_eq!(hex::encode(r.prev), old_head["hash"].as_str().unwrap());
        r.verify(&verifier, Some(&hash(99))).unwrap();
        server.shutdown().await.unwrap();
    });

    // The store's chain is gap-free and linked.
    let store = Store::open(&db).unwrap();
    let count = store.round_count().unwrap();
    let mut prev: Option<quorate_cosi::timestamp::RoundHeader> = None;
    for n in 0..count {
        let h = store.load_round(n).unwrap().unwrap().header;
        if let Some(p) = prev {
            assert!(p.is_followed_by(&h));
        }
        store.load_issued(n).unwrap().unwrap();
        prev = Some(h);
    }
}

#[test]
fn shutdown_seals_the_open_batch() {
    let dir = TempDir::new("shutdown");
    let db = dir.path("ts.sqlite");
    let rt = runtime();
    let ticket = rt.block_on(async {
        // Rounds every minute: only the shutdown can seal this batch.
        let server = start(&db, 2, 60_000).await.unwrap();
        let addr = server.local_addr();
        let ticket = submit(addr, &hash(5)).await;
        let (status, _) = http_call(addr, "GET", &format!("/v1/receipt/{ticket}"), b"")
            .await
            .unwrap();
        assert_eq!(status, 202);
        server.shutdown().await.unwrap();
        ticket
    });
    rt.block_on(async {
        let server = start(&db, 2, 60_000).await.unwrap();
        let addr = server.local_addr();
        let r = receipt(addr, &ticket).await;
        r.verify(&verifier_of(addr).await, Some(&hash(5))).unwrap();
        server.shutdown().await.unwrap();
    });
}

/// Issue 15 §3 item 1: a run that dies before sealing hands out tickets for round 0; the next
/// run reuses round 0 for other hashes. The dead run's ticket must never name those hashes.
/// (Before instance nonces both runs answered `0-0`, and the old ticket got the new hash's
/// receipt.)
#[test]
fn a_ticket_from_a_run_that_died_unsealed_never_names_another_hash() {
    let dir = TempDir::new("lost-ticket");
    let db = dir.path("ts.sqlite");
    let config = || ServerConfig {
        // Only shutdown seals: the first run dies with its batch open.
        round_interval: Duration::from_secs(3600),
        max_wait: Duration::from_secs(10),
        ..ServerConfig::default()
    };
    let call = |service: &Service, method: &str, path: &str, body: &[u8]| {
        let (status, body) = service.call(method, path, body).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        (status, v)
    };
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();

    let dead = Service::start(addr, Store::open(&db).unwrap(), 2, config()).unwrap();
    let (status, v) = call(&dead, "POST", "/v1/submit", &hash(1));
    assert_eq!((status, v["round"].as_u64()), (200, Some(0)));
    let lost = v["ticket"].as_str().unwrap().to_owned();
    // As with kill -9: the run never seals its batch. It is frozen rather than dropped (a
    // runtime being dropped may still poll its tasks once): its sealer waits an hour.
    std::mem::forget(dead);

    let second = Service::start(addr, Store::open(&db).unwrap(), 2, config()).unwrap();
    let (status, v) = call(&second, "POST", "/v1/submit", &hash(2));
    assert_eq!((status, v["round"].as_u64()), (200, Some(0)));
    let kept = v["ticket"].as_str().unwrap().to_owned();
    assert_ne!(lost, kept);
    let (status, _) = call(&second, "GET", &format!("/v1/receipt/{lost}"), b"");
    assert_eq!(status, 404);
    second.shutdown().unwrap();

    let third = Service::start(addr, Store::open(&db).unwrap(), 2, config()).unwrap();
    let (status, _) = call(&third, "GET", &format!("/v1/receipt/{lost}?wait=1"), b"");
    assert_eq!(status, 404);
    let (status, r) = call(&third, "GET", &format!("/v1/receipt/{kept}?wait=1"), b"");
    // Issue 15 §3 item 9: an RFC 3339 time beside the epoch milliseconds.
    assert_eq!(
        r["time"].as_str(),
        Some(quorate_cosi::timestamp::rfc3339_utc(r["time_ms"].as_u64().unwrap()).as_str())
    );
    assert_eq!(
        (status, r["hash"].as_str()),
        (200, Some(hex::encode(hash(2)).as_str()))
    );
    // Tickets of this run cannot reach back into rounds an earlier run sealed.
    let nonce = call(&third, "POST", "/v1/submit", &hash(3)).1["ticket"]
        .as_str()
        .unwrap()
        .rsplit('-')
        .next()
        .unwrap()
        .to_owned();
    let (status, _) = call(&third, "GET", &format!("/v1/receipt/0-0-{nonce}"), b"");
    assert_eq!(status, 404);
    third.shutdown().unwrap();
}

/// Issue 15 §3 item 4: the store holds the in-process witnesses' key seed, so it is created
/// owner-only (it was 0644).
#[cfg(unix)]
#[test]
fn the_store_is_created_owner_only() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = TempDir::new("mode");
    let db = dir.path("ts.sqlite");
    let store = Store::open(&db).unwrap();
    open_cosigner(&store, 2).unwrap();
    for file in ["ts.sqlite", "ts.sqlite-wal"] {
        let path = dir.path(file);
        if file == "ts.sqlite" || path.exists() {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{file}: {mode:o}");
        }
    }
}
