//! Kill -9 at each persist step of a distributed ECDSA keygen and refresh (feature
//! `test-faults`: node 3 runs with `QUORATE_TEST_CRASH_AT=<step>` and aborts there, as abruptly
//! as SIGKILL), then restart it: every holder must end on the same epoch of the key (or none
//! hold it and a retried keygen succeeds), and a quorum including the restarted node must sign.
//!
//! Run with `cargo test -p quorate --release --test cli cli_node_crash::`
//! (CI does).
//!
//! Every keygen step is listed: before node 3's share is sealed a restarted node abandons
//! its empty pending epoch at start-up and nodes 1 and 2 abandon theirs once node 3 answers
//! `absent`; after it, the holders' pending-epoch resolvers
//! (`quorate_node::session::ecdsa::recovery`) exchange statuses and commit. "Ended" below is
//! observable state: every session counted as ended and the gauge
//! `quorate_ecdsa_pending_epochs` at 0 on every node.
//!
//! The coordinator's crash (`coordinator_crash_*`): node 1, coordinating a signature under an
//! operator request id, is killed at each claim point of its session store (`runtime.db`:
//! `runtime.begin_attempt.*` claims the attempt and records the request before any protocol
//! message, `runtime.end_attempt.*` records its outcome before the answer) and restarted.
//! No attempt runs twice with different sessions on any node, the same request id answers
//! the recorded signature or a clear "interrupted" error (or, when nothing of it was
//! durable, runs afresh under a new attempt number), and a new request id signs.

use std::process::Output;

use crate::common::cluster::{ecdsa, ecdsa_sign, json_ok, wait_for, Cluster};
use serde_json::Value;

const KEY: &str = "kc";

fn keygen(c: &Cluster) -> Output {
    ecdsa(
        c,
        1,
        &["keygen", "--t", "2", "--parties", "1,2,3", "--key-id", KEY],
    )
}

/// `(epoch, public key)` of the key on node `id`, `None` when it holds no active epoch.
fn key_on(c: &Cluster, id: u16) -> Option<(u64, String)> {
    let (status, v) = c.api(id, "GET", &format!("/v1/keys/{KEY}"), None);
    match status {
        200 => Some((
            v["epoch"].as_u64().expect("epoch"),
            v["public_key"].as_str().expect("public_key").to_string(),
        )),
        404 => None,
        _ => panic!("node {id}: GET /v1/keys/{KEY}: {status} {v}"),
    }
}

/// Waits until node `id` holds `want` as its active key.
fn wait_key(c: &Cluster, id: u16, want: &(u64, String), what: &str) {
    let got = wait_for(&format!("{what}: node {id} to commit"), || {
        key_on(c, id).filter(|k| k == want)
    });
    assert_eq!(&got, want);
}

/// Three nodes with a 2 s round deadline and session start/abort lines in node.log (for the
/// failure messages), not yet started: the set-up of every case below.
fn cluster() -> Cluster {
    let mut c = Cluster::init(3);
    c.run_args = vec!["--round-timeout-ms".into(), "2000".into()];
    c.run_env = vec![("QUORATE_LOG".into(), "info".into())];
    c
}

/// A 2-of-3 keygen of [`KEY`] through node 1, waited for until every node committed it;
/// returns its `(epoch, public key)`.
fn keygen_everywhere(c: &Cluster, step: &str) -> (u64, String) {
    let out = keygen(c);
    assert!(out.status.success(), "{out:?}\n{}", c.logs());
    let v = json_ok(&out);
    let want = (
        v["epoch"].as_u64().expect("epoch"),
        v["public_key"].as_str().expect("pk").to_string(),
    );
    // The coordinator answers once it committed; the others commit when their last round
    // completes, a moment later.
    for id in 1..=3 {
        wait_key(c, id, &want, step);
    }
    want
}

/// Waits for node `id`, armed with `QUORATE_TEST_CRASH_AT=step`, to exit at that step
/// (otherwise the test proves nothing).
fn wait_crash(c: &mut Cluster, id: u16, step: &str) {
    let status = c.wait_exit(id);
    assert!(!status.success(), "node {id} did not crash at {step}");
    assert!(
        c.log(id)
            .contains(&format!("test-faults: crashing at {step}")),
        "{}",
        c.log(id)
    );
}

/// Waits until every session node `id` started has ended.
fn wait_sessions_end(c: &Cluster, id: u16, what: &str) {
    wait_for(&format!("{what}: node {id}'s sessions to end"), || {
        let started = c.counter(id, "quorate_sessions_started_total");
        let ended = c.counter(id, "quorate_sessions_completed_total")
            + c.counter(id, "quorate_sessions_aborted_total");
        (started == ended).then_some(())
    });
}

/// The crash happens in the keygen, or in a refresh of a key every node holds when the step
/// names an occurrence (`…#2`: the keygen passed it once).
fn crash_then_converge(step: &str) {
    let refresh = step.contains('#');
    let mut c = cluster();
    c.spawn(1);
    c.spawn(2);
    c.run_env
        .push(("QUORATE_TEST_CRASH_AT".into(), step.into()));
    c.spawn(3);
    c.run_env.pop();
    for id in 1..=3 {
        c.wait_healthy(id);
    }

    let mut before = None;
    let first = if refresh {
        before = Some(keygen_everywhere(&c, step));
        ecdsa(&c, 1, &["refresh", "--key-id", KEY])
    } else {
        keygen(&c)
    };
    wait_crash(&mut c, 3, step);
    if !first.status.success() {
        assert_eq!(first.status.code(), Some(1), "{first:?}");
    }

    c.restart(3);
    // The coordinator answered when its own attempt ended; the others end theirs at their
    // own deadlines. The operator's retry (or check) comes after every attempt has ended.
    for id in 1..=3 {
        wait_sessions_end(&c, id, step);
    }
    for id in 1..=3 {
        wait_for(
            &format!("{step}: node {id}'s pending epochs to resolve"),
            || (c.counter(id, "quorate_ecdsa_pending_epochs") == 0).then_some(()),
        );
    }
    let held: Vec<Option<(u64, String)>> = (1..=3).map(|id| key_on(&c, id)).collect();
    let key = if held.iter().all(Option::is_none) {
        // Nobody committed: the operator's retry creates the key on every node.
        keygen_everywhere(&c, step)
    } else {
        assert!(
            held.iter().all(|h| h == &held[0]),
            "{step}: nodes disagree on key {KEY} after the restart: {held:?}"
        );
        held[0].clone().expect("held")
    };
    if let Some((epoch, pk)) = before {
        // A refresh ends on the old epoch or the next one, under the same public key.
        assert!(
            key.0 == epoch || key.0 == epoch + 1,
            "{step}: epoch {}",
            key.0
        );
        assert_eq!(key.1, pk, "{step}: the refresh changed the public key");
    }

    // A quorum with the restarted node signs under the agreed key.
    for (via, signers) in [(3, "1,3"), (2, "2,3")] {
        let out = ecdsa_sign(&c, via, KEY, signers, "after the crash");
        assert!(
            out.status.success(),
            "{step}: sign {signers}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            c.logs()
        );
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["public_key"].as_str(), Some(key.1.as_str()));
    }
}

macro_rules! steps {
    ($($name:ident => $step:literal),* $(,)?) => {$(
        #[test]
        fn $name() {
            crash_then_converge($step);
        }
    )*};
}

steps! {
    crash_at_begin_epoch_before_commit => "keystore.begin_epoch.before_commit",
    crash_at_begin_epoch_after_commit => "keystore.begin_epoch.after_commit",
    crash_at_put_secret_before_commit => "keystore.put_secret.before_commit",
    crash_at_put_secret_after_commit => "keystore.put_secret.after_commit",
    crash_at_commit_epoch_before_commit => "keystore.commit_epoch.before_commit",
    crash_at_commit_epoch_after_commit => "keystore.commit_epoch.after_commit",
    // Refresh (the keygen passed each step once): epoch 1 begun, the library's pending
    // refresh sealed (put #2), the new share and certificate sealed (put #3), epoch 1
    // committed.
    refresh_crash_at_begin_epoch_before_commit => "keystore.begin_epoch.before_commit#2",
    refresh_crash_at_begin_epoch_after_commit => "keystore.begin_epoch.after_commit#2",
    refresh_crash_at_pending_put_before_commit => "keystore.put_secret.before_commit#2",
    refresh_crash_at_pending_put_after_commit => "keystore.put_secret.after_commit#2",
    refresh_crash_at_share_put_before_commit => "keystore.put_secret.before_commit#3",
    refresh_crash_at_share_put_after_commit => "keystore.put_secret.after_commit#3",
    refresh_crash_at_commit_epoch_before_commit => "keystore.commit_epoch.before_commit#2",
    refresh_crash_at_commit_epoch_after_commit => "keystore.commit_epoch.after_commit#2",
}

/// `ecdsa sign` of key [`KEY`] with signers 1 and 2 through node 1, under `request_id`.
fn sign_as(c: &Cluster, request_id: &str) -> Output {
    ecdsa(
        c,
        1,
        &[
            "sign",
            "--key-id",
            KEY,
            "--message",
            "coordinator crash",
            "--signers",
            "1,2",
            "--request-id",
            request_id,
        ],
    )
}

/// Every attempt of key [`KEY`] in node `id`'s session store: (epoch, attempt) → session id.
fn attempts_on(c: &Cluster, id: u16) -> std::collections::BTreeMap<(i64, i64), Vec<u8>> {
    let db = rusqlite::Connection::open_with_flags(
        c.dir(id).join("runtime.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("runtime.db");
    let mut stmt = db
        .prepare("SELECT epoch, attempt, session FROM attempts WHERE key_id = ?1")
        .expect("query");
    let rows = stmt
        .query_map([KEY], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))
        .expect("rows");
    rows.collect::<Result<_, _>>().expect("attempts")
}

/// What the same request id answers after the coordinator's restart.
#[derive(Debug, PartialEq)]
enum Again {
    /// Nothing of the request was durable: it runs afresh and signs.
    Signs,
    /// The attempt was claimed (or ran) but its outcome was not recorded: "interrupted".
    Interrupted,
    /// The outcome was recorded: the same signature, without running again.
    Recorded,
}

fn coordinator_crash(step: &str, again: Again) {
    let mut c = cluster();
    c.start_all();
    let want = keygen_everywhere(&c, step);
    // Node 1 restarts armed: its next coordinated session is the signature below (no
    // pending epoch, so no resolver session comes first).
    c.term(1);
    c.run_env
        .push(("QUORATE_TEST_CRASH_AT".into(), step.into()));
    c.restart(1);
    c.run_env.pop();

    let first = sign_as(&c, "pay-1");
    wait_crash(&mut c, 1, step);
    assert!(!first.status.success(), "{step}: answered before the crash");
    let before: Vec<_> = (1..=3).map(|id| attempts_on(&c, id)).collect();

    c.restart(1);
    for id in 1..=3 {
        wait_sessions_end(&c, id, step);
    }
    let mid = attempts_on(&c, 1);
    let out = sign_as(&c, "pay-1");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    match again {
        Again::Signs | Again::Recorded => {
            let v = json_ok(&out);
            assert_eq!(v["public_key"].as_str(), Some(want.1.as_str()), "{step}");
            // Idempotent from now on: the same signature again.
            let twice = json_ok(&sign_as(&c, "pay-1"));
            assert_eq!(twice["signature"], v["signature"], "{step}");
        }
        Again::Interrupted => {
            assert_eq!(out.status.code(), Some(1), "{step}: {stdout}\n{}", c.logs());
            let v: Value = serde_json::from_slice(&out.stdout).expect("json");
            let error = v["error"].as_str().unwrap_or_default();
            assert!(error.contains("interrupted"), "{step}: {v}");
            assert!(v.get("signature").is_none(), "{step}: {v}");
            assert_eq!(v["culprits"], serde_json::json!([]), "{step}: {v}");
        }
    }
    // Answering a recorded request (signature or interruption) runs nothing.
    let ran = attempts_on(&c, 1).len().saturating_sub(mid.len());
    assert_eq!(
        ran > 0,
        again == Again::Signs,
        "{step}: {ran} new attempts for the repeated request id"
    );

    // A new request id signs under the key.
    for id in 1..=3 {
        wait_sessions_end(&c, id, step);
    }
    let fresh = json_ok(&sign_as(&c, "pay-2"));
    assert_eq!(
        fresh["public_key"].as_str(),
        Some(want.1.as_str()),
        "{step}"
    );

    // No attempt ran twice: every (epoch, attempt) claimed before the restart keeps its
    // session on every node, and no two nodes ran one attempt number as different sessions.
    let after: Vec<_> = (1..=3).map(|id| attempts_on(&c, id)).collect();
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        for (k, sid) in b {
            assert_eq!(a.get(k), Some(sid), "{step}: node {} attempt {k:?}", i + 1);
        }
    }
    for (k, sid) in &after[0] {
        for (i, other) in after.iter().enumerate().skip(1) {
            if let Some(o) = other.get(k) {
                assert_eq!(
                    o,
                    sid,
                    "{step}: attempt {k:?} ran as two sessions (node {})",
                    i + 1
                );
            }
        }
    }
}

macro_rules! coordinator_steps {
    ($($name:ident => $step:literal, $again:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            coordinator_crash($step, Again::$again);
        }
    )*};
}

coordinator_steps! {
    coordinator_crash_at_begin_attempt_before_commit => "runtime.begin_attempt.before_commit", Signs,
    coordinator_crash_at_begin_attempt_after_commit => "runtime.begin_attempt.after_commit", Interrupted,
    coordinator_crash_at_end_attempt_before_commit => "runtime.end_attempt.before_commit", Interrupted,
    coordinator_crash_at_end_attempt_after_commit => "runtime.end_attempt.after_commit", Recorded,
}

/// A `bls-hot.db` made before derived keys (its own Argon2id KEK from the passphrase) is
/// migrated by the first `node run` to a key derived from `keystore.db`'s: a wrong
/// passphrase changes nothing, a crash inside the migration leaves the old store whole, a
/// crash right after its commit leaves the migrated one, and either way the next start
/// serves with the store's secrets intact.
#[test]
fn the_bls_hot_store_is_migrated_once_and_a_crash_loses_nothing() {
    use quorate_node::identity::Passphrase;
    use quorate_node::keystore::{DerivedOpen, KdfParams, KeyId, Keystore, KeystoreError, Kind};
    use quorate_node::nodedir::NodeDir;

    let mut c = Cluster::init(1);
    c.run_env = vec![("QUORATE_LOG".into(), "info".into())];
    let dir = c.dir(1).to_path_buf();
    let bls = dir.join(quorate_node::session::bls::STORE_FILE);
    let pass = Passphrase::new(crate::common::cluster::PASS.into()).expect("passphrase");
    let key = KeyId::new("key.old").expect("key id");
    let node = NodeDir::open(&dir).expect("dir").load(&pass).expect("load");
    {
        let mut old =
            Keystore::create(&bls, &node.identity, &pass, KdfParams::insecure_for_tests())
                .expect("an old bls-hot.db");
        old.create_committed(
            &key,
            0,
            1,
            &[(&Kind::KEY_SHARE, &b"hot share"[..])],
            b"cert",
        )
        .expect("a secret");
    }
    drop(node);
    let old_share = || {
        let ks = Keystore::open(&bls, &pass).expect("the old store opens with the passphrase");
        let s = ks.get_secret(&key, 0, &Kind::KEY_SHARE).expect("get");
        assert_eq!(s.expect("present").bytes.expose(), b"hot share");
    };

    // A wrong passphrase: exit 2 before anything is touched.
    let out = c
        .run_command(1)
        .env("QUORATE_PASSPHRASE", "wrong")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    old_share();

    // Killed inside the migration's transaction: the old store, whole.
    c.run_env.push((
        "QUORATE_TEST_CRASH_AT".into(),
        "keystore.migrate.before_commit".into(),
    ));
    c.spawn(1);
    assert!(!c.wait_exit(1).success());
    assert!(c
        .log(1)
        .contains("crashing at keystore.migrate.before_commit"));
    old_share();

    // Killed right after its commit: the migrated store.
    c.run_env.pop();
    c.run_env.push((
        "QUORATE_TEST_CRASH_AT".into(),
        "keystore.migrate.after_commit".into(),
    ));
    c.spawn(1);
    assert!(!c.wait_exit(1).success());
    assert!(c
        .log(1)
        .contains("crashing at keystore.migrate.after_commit"));
    c.run_env.pop();
    assert!(matches!(
        Keystore::open(&bls, &pass),
        Err(KeystoreError::DerivedStore { .. })
    ));

    // The next start serves; the store opens under keystore.db's key with its secret.
    c.restart(1);
    c.term(1);
    let node = NodeDir::open(&dir).expect("dir").load(&pass).expect("load");
    let (hot, how) =
        Keystore::open_derived(&bls, &node.keystore, "bls-hot", &pass).expect("the derived store");
    assert_eq!(how, DerivedOpen::Opened);
    let s = hot.get_secret(&key, 0, &Kind::KEY_SHARE).expect("get");
    assert_eq!(s.expect("present").bytes.expose(), b"hot share");

    // A directory migrated without a crash says so in its log.
    let mut c = Cluster::init(1);
    c.run_env = vec![("QUORATE_LOG".into(), "info".into())];
    let dir = c.dir(1).to_path_buf();
    let node = NodeDir::open(&dir).expect("dir").load(&pass).expect("load");
    Keystore::create(
        &dir.join(quorate_node::session::bls::STORE_FILE),
        &node.identity,
        &pass,
        KdfParams::insecure_for_tests(),
    )
    .expect("an old bls-hot.db");
    drop(node);
    c.restart(1);
    assert!(
        c.log(1).contains("migrated the BLS hot keystore"),
        "{}",
        c.log(1)
    );
}
