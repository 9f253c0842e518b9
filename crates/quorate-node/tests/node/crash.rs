//! Kills a real process at every persist step (feature `test-faults`) and checks the crash
//! model of `quorate_node::keystore` (before the commit nothing of the operation is durable,
//! after it everything is, and the store always reopens), of the migration of a store to a
//! key derived from `keystore.db` (`keystore.migrate.*`: the old store whole, or the migrated
//! one), of the session store's claims (`runtime.*`: a claim or outcome is durable or absent,
//! and a reopened store closes what was running as interrupted) and of `node init` (a
//! partial directory is refused until removed).
//!
//! The test binary re-executes itself: the `child_process` test does the operation named by
//! `CRASH_CHILD_DIR`/`QUORATE_TEST_CRASH_AT` and is a no-op in a normal run.

use quorate_node::faults::{CRASH_ENV, STEPS};
use quorate_node::identity::{Identity, NodeId, Passphrase};
use quorate_node::keystore::DerivedOpen;
use quorate_node::keystore::{
    EpochStatus, KdfParams, KeyId, Keystore, KeystoreError, Kind, RequestId, SessionOutcome,
    SessionStatus,
};
use quorate_node::nodedir::{InitOptions, NodeDir, NodeDirError};
use quorate_node::session::store::{Begun, RequestOwner, SessionStore, SqliteStore};
use quorate_node::session::{AttemptKey, Outcome, RequestRecord, RequestStatus, SessionRequest};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

const CHILD_DIR_ENV: &str = "CRASH_CHILD_DIR";

fn pass() -> Passphrase {
    Passphrase::new("crash test passphrase".into()).expect("passphrase")
}

fn key() -> KeyId {
    KeyId::new("k").expect("key id")
}

fn aux() -> Kind {
    Kind::new("aux").expect("kind")
}

fn req(s: &str) -> RequestId {
    RequestId::new(s).expect("request id")
}

/// The store every step starts from: key `k` with active epoch 0 and pending epoch 1, and a
/// running session `r1` (attempt 1 of epoch 0).
fn setup(dir: &Path) {
    let id = Identity::generate(NodeId::new(1).ok());
    let mut ks = Keystore::create(
        &dir.join("keystore.db"),
        &id,
        &pass(),
        KdfParams::insecure_for_tests(),
    )
    .expect("create");
    let k = key();
    ks.begin_epoch(&k, 0).expect("begin 0");
    ks.put_secret(&k, 0, 1, &Kind::KEY_SHARE, b"share-0")
        .expect("put 0");
    ks.commit_epoch(&k, 0, b"cert-0").expect("commit 0");
    ks.begin_epoch(&k, 1).expect("begin 1");
    ks.put_secret(&k, 1, 1, &Kind::KEY_SHARE, b"share-1")
        .expect("put 1");
    ks.sessions()
        .begin(&req("r1"), &k, 0, 1, b"state-1")
        .expect("session");
    // A store made before derived keys (its own Argon2id KEK), to migrate.
    let mut old = Keystore::create(
        &dir.join("bls.db"),
        &id,
        &pass(),
        KdfParams::insecure_for_tests(),
    )
    .expect("create bls.db");
    old.begin_epoch(&k, 0).expect("begin hot");
    old.put_secret(&k, 0, 1, &Kind::KEY_SHARE, b"hot-share")
        .expect("put hot");
    old.commit_epoch(&k, 0, b"cert-hot").expect("commit hot");
    // The session store: attempt 0 of `k` begun by this coordinator (request `c0`), attempt
    // 0 of `p` claimed as a participant of node 2's session.
    let store = SqliteStore::open(&dir.join("runtime.db")).expect("runtime.db");
    let begun = store
        .begin_attempt(&record("c0"), true, &attempt("k", 0), [1; 32], 1)
        .expect("begin c0");
    assert!(matches!(begun, Begun::Claimed));
    store
        .claim_attempt(&attempt("p", 0), [2; 32], &owner("p0"))
        .expect("claim p0");
}

fn attempt(key: &str, attempt: u32) -> AttemptKey {
    AttemptKey {
        key_id: key.into(),
        epoch: 0,
        attempt,
    }
}

fn owner(request_id: &str) -> RequestOwner {
    RequestOwner {
        request_id: request_id.into(),
        coordinator: 2,
    }
}

fn record(request_id: &str) -> RequestRecord {
    RequestRecord {
        request: SessionRequest {
            request_id: request_id.into(),
            protocol: "ping".into(),
            params: serde_json::Value::Null,
            participants: vec![1, 2],
            key_id: Some("k".into()),
            epoch: 0,
            round_timeout_ms: None,
        },
        key_id: "k".into(),
        status: RequestStatus::Running,
        attempts: vec![],
        output: None,
        error: None,
        culprits: vec![],
    }
}

fn completed() -> Outcome {
    Outcome::Completed {
        output: serde_json::json!({"signed": true}),
    }
}

fn init_options() -> InitOptions {
    InitOptions {
        id: NodeId::new(1).ok(),
        name: None,
        listen: "127.0.0.1:7001".parse().expect("addr"),
        address: None,
        api: "127.0.0.1:8001".parse().expect("addr"),
        public_http: None,
        kdf: KdfParams::insecure_for_tests(),
    }
}

/// The operation a step belongs to, run in the child.
fn operate(dir: &Path, step: &str) {
    if step.starts_with("init.") {
        let _ = NodeDir::init(&dir.join("node"), &init_options(), &pass());
        return;
    }
    if step.starts_with("keystore.create.") {
        let id = Identity::generate(NodeId::new(2).ok());
        let _ = Keystore::create(
            &dir.join("new.db"),
            &id,
            &pass(),
            KdfParams::insecure_for_tests(),
        );
        return;
    }
    let op = step.rsplit_once('.').map_or(step, |(op, _)| op);
    if step.starts_with("runtime.") {
        let store = SqliteStore::open(&dir.join("runtime.db")).expect("runtime.db");
        let _ = match op {
            "runtime.begin_attempt" => store
                .begin_attempt(&record("c1"), true, &attempt("k", 1), [3; 32], 1)
                .map(|_| ()),
            "runtime.end_attempt" => {
                let mut done = record("c0");
                done.status = RequestStatus::Completed;
                store.end_attempt(&attempt("k", 0), &completed(), &done)
            }
            "runtime.claim_attempt" => store
                .claim_attempt(&attempt("p", 1), [4; 32], &owner("p1"))
                .map(|_| ()),
            "runtime.finish_attempt" => store.finish_attempt(&attempt("p", 0), &completed()),
            other => panic!("no operation for step {other}"),
        };
        return;
    }
    let mut ks = Keystore::open(&dir.join("keystore.db"), &pass()).expect("open");
    if op == "keystore.migrate" {
        let _ = Keystore::open_derived(&dir.join("bls.db"), &ks, "bls-hot", &pass());
        return;
    }
    let k = key();
    let result = match op {
        "keystore.begin_epoch" => ks.begin_epoch(&KeyId::new("k2").expect("k2"), 0),
        "keystore.put_secret" => ks.put_secret(&k, 1, 1, &aux(), b"aux-1"),
        "keystore.commit_epoch" => ks.commit_epoch(&k, 1, b"cert-1").map(|_| ()),
        "keystore.abandon_epoch" => ks.abandon_epoch(&k, 1),
        "sessions.begin" => ks
            .sessions()
            .begin(&req("r2"), &k, 0, 2, b"state-r2")
            .map(|_| ()),
        "sessions.update" => ks.sessions().update(&k, 0, 1, b"state-2"),
        "sessions.finish" => ks
            .sessions()
            .finish(&k, 0, 1, SessionOutcome::Succeeded, b"result"),
        "bans.add" => ks
            .bans()
            .add(&k, NodeId::new(5).expect("id"), "bad", b"evidence")
            .map(|_| ()),
        other => panic!("no operation for step {other}"),
    };
    result.expect("operation");
}

/// Checks the reopened store against the crash model for `step`.
fn check(dir: &Path, step: &str) {
    let durable = step.ends_with(".after_commit");
    if step.starts_with("init.") {
        // A partial node directory is refused by every command, including a new init,
        // until the operator removes it; nothing from it was published.
        let node = dir.join("node");
        let err = NodeDir::open(&node).expect_err("partial init");
        assert!(
            matches!(err, NodeDirError::PartialInit { .. }),
            "{step}: {err}"
        );
        let err = NodeDir::init(&node, &init_options(), &pass()).expect_err("re-init");
        assert!(
            matches!(err, NodeDirError::PartialInit { .. }),
            "{step}: {err}"
        );
        std::fs::remove_dir_all(&node).expect("remove");
        NodeDir::init(&node, &init_options(), &pass()).expect("init after removal");
        return;
    }
    if step.starts_with("keystore.create.") {
        let err = Keystore::open(&dir.join("new.db"), &pass()).expect_err("unfinished create");
        assert!(
            matches!(&err, KeystoreError::Corrupt(m) if m.contains("did not finish")),
            "{step}: {err}"
        );
        return;
    }
    let op = step.rsplit_once('.').map_or(step, |(op, _)| op);
    if step.starts_with("runtime.") {
        check_runtime(dir, step, op, durable);
        return;
    }
    let mut ks = Keystore::open(&dir.join("keystore.db"), &pass()).expect("reopen");
    let k = key();
    match op {
        "keystore.migrate" => {
            let bls = dir.join("bls.db");
            if !durable {
                // The old store, whole: its own passphrase still opens it.
                let old = Keystore::open(&bls, &pass()).expect("the old store is intact");
                let share = old.get_secret(&k, 0, &Kind::KEY_SHARE).expect("get");
                assert_eq!(share.expect("some").bytes.expose(), b"hot-share", "{step}");
            } else {
                assert!(
                    matches!(
                        Keystore::open(&bls, &pass()),
                        Err(KeystoreError::DerivedStore { .. })
                    ),
                    "{step}"
                );
            }
            // Either way the next start finishes (or needs no) migration and reads it.
            let (hot, how) =
                Keystore::open_derived(&bls, &ks, "bls-hot", &pass()).expect("open derived");
            let want = if durable {
                DerivedOpen::Opened
            } else {
                DerivedOpen::Migrated
            };
            assert_eq!(how, want, "{step}");
            let share = hot.get_secret(&k, 0, &Kind::KEY_SHARE).expect("get");
            assert_eq!(share.expect("some").bytes.expose(), b"hot-share", "{step}");
        }
        "keystore.begin_epoch" => {
            let k2 = KeyId::new("k2").expect("k2");
            assert_eq!(ks.epochs(&k2).expect("epochs").len(), usize::from(durable));
        }
        "keystore.put_secret" => {
            let got = ks.get_secret(&k, 1, &aux()).expect("get");
            assert_eq!(got.is_some(), durable, "{step}");
        }
        "keystore.commit_epoch" => {
            let active = ks.active_epoch(&k).expect("active").expect("some");
            let old = ks.get_secret(&k, 0, &Kind::KEY_SHARE);
            if durable {
                assert_eq!(active.epoch, 1);
                assert!(matches!(old, Err(KeystoreError::EpochRetired { .. })));
                // Reopening finished the interrupted erasure: no file holds share-0's
                // wrapped data key any more (checked via the retired status and a clean WAL).
                let wal = dir.join("keystore.db-wal");
                let wal_len = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
                assert_eq!(wal_len, 0, "{step}: the WAL was not checkpointed on open");
            } else {
                assert_eq!(active.epoch, 0);
                let share = old.expect("old readable").expect("some");
                assert_eq!(share.bytes.expose(), b"share-0");
                let pending = ks.pending_epochs().expect("pending");
                assert_eq!(pending[0].epoch, 1);
                assert_eq!(pending[0].status, EpochStatus::Pending);
            }
            // Either way the new share is intact.
            let new = ks
                .get_secret(&k, 1, &Kind::KEY_SHARE)
                .expect("new")
                .expect("some");
            assert_eq!(new.bytes.expose(), b"share-1");
        }
        "keystore.abandon_epoch" => {
            let n = ks.epochs(&k).expect("epochs").len();
            assert_eq!(n, if durable { 1 } else { 2 }, "{step}");
        }
        "sessions.begin" => {
            let rec = ks.sessions().get_by_request_id(&req("r2")).expect("get");
            assert_eq!(rec.is_some(), durable, "{step}");
        }
        "sessions.update" => {
            let rec = ks.sessions().get(&k, 0, 1).expect("get").expect("some");
            let want: &[u8] = if durable { b"state-2" } else { b"state-1" };
            assert_eq!(rec.state.expect("state").expose(), want, "{step}");
        }
        "sessions.finish" => {
            let rec = ks.sessions().get(&k, 0, 1).expect("get").expect("some");
            let want = if durable {
                SessionStatus::Succeeded
            } else {
                SessionStatus::Running
            };
            assert_eq!(rec.status, want, "{step}");
        }
        "bans.add" => {
            let banned = ks
                .bans()
                .is_banned(&k, NodeId::new(5).expect("id"))
                .expect("q");
            assert_eq!(banned, durable, "{step}");
        }
        other => panic!("no check for step {other}"),
    }
}

/// The session store after a crash at a `runtime.*` step, reopened as `node run` does
/// (which closes every attempt still running as interrupted).
fn check_runtime(dir: &Path, step: &str, op: &str, durable: bool) {
    let store = SqliteStore::open(&dir.join("runtime.db")).expect("reopen runtime.db");
    let interrupted = |o: Option<Outcome>| matches!(o, Some(Outcome::Aborted { reason, .. }) if reason.contains("interrupted"));
    match op {
        "runtime.begin_attempt" => {
            // Claimed and recorded together, or neither; never claimed twice.
            let rec = store.request("c1").expect("request");
            assert_eq!(rec.is_some(), durable, "{step}");
            assert_eq!(
                store.next_attempt("k", 0).expect("next"),
                if durable { 2 } else { 1 },
                "{step}"
            );
            if durable {
                assert_eq!(rec.expect("some").status, RequestStatus::Aborted, "{step}");
                let o = store.attempt_outcome(&attempt("k", 1)).expect("outcome");
                assert!(interrupted(o), "{step}");
                // The attempt never reruns: a second claim of it is refused.
                let again = store
                    .begin_attempt(&record("c2"), true, &attempt("k", 1), [5; 32], 1)
                    .expect("begin again");
                assert!(matches!(again, Begun::NotClaimed(_)), "{step}");
            }
        }
        "runtime.end_attempt" => {
            let o = store.attempt_outcome(&attempt("k", 0)).expect("outcome");
            let rec = store.request("c0").expect("request").expect("some");
            if durable {
                assert_eq!(o, Some(completed()), "{step}");
                assert_eq!(rec.status, RequestStatus::Completed, "{step}");
            } else {
                assert!(interrupted(o), "{step}");
                assert_eq!(rec.status, RequestStatus::Aborted, "{step}");
            }
        }
        "runtime.claim_attempt" => {
            assert_eq!(
                store.next_attempt("p", 0).expect("next"),
                if durable { 2 } else { 1 },
                "{step}"
            );
        }
        "runtime.finish_attempt" => {
            let o = store.attempt_outcome(&attempt("p", 0)).expect("outcome");
            if durable {
                assert_eq!(o, Some(completed()), "{step}");
            } else {
                assert!(interrupted(o), "{step}");
            }
        }
        other => panic!("no check for step {other}"),
    }
}

#[test]
fn child_process() {
    let (Ok(dir), Ok(step)) = (std::env::var(CHILD_DIR_ENV), std::env::var(CRASH_ENV)) else {
        return; // a normal test run: nothing to do
    };
    operate(Path::new(&dir), &step);
}

#[test]
fn every_persist_step_survives_a_crash() {
    let exe = std::env::current_exe().expect("test binary");
    assert!(STEPS.len() >= 20, "{STEPS:?}");
    for &step in STEPS {
        let dir = tempfile::tempdir().expect("tempdir");
        setup(dir.path());
        let out = Command::new(&exe)
            .args([
                "--exact",
                // Its libtest name in the crate's one test binary (`tests/node/main.rs`).
                "crash::child_process",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(CHILD_DIR_ENV, dir.path())
            .env(CRASH_ENV, step)
            .output()
            .expect("spawn child");
        assert_eq!(
            out.status.signal(),
            Some(6),
            "{step}: the child did not abort at the step (status {:?}, stderr {})",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(&format!("crashing at {step}")),
            "{step}"
        );
        check(dir.path(), step);
    }
}
