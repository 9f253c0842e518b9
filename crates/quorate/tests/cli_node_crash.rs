//! Kill -9 at each persist step of a distributed ECDSA keygen and refresh (feature
//! `test-faults`: node 3 runs with `QUORATE_TEST_CRASH_AT=<step>` and aborts there, as abruptly
//! as SIGKILL), then restart it: every holder must end on the same epoch of the key (or none
//! hold it and a retried keygen succeeds), and a quorum including the restarted node must sign.
//!
//! Run with `cargo test -p quorate --release --test cli_node_crash`
//! (CI does).
//!
//! Every keygen step is listed: before node 3's share is sealed a restarted node abandons
//! its empty pending epoch at start-up and nodes 1 and 2 abandon theirs once node 3 answers
//! `absent`; after it, the holders' pending-epoch resolvers
//! (`quorate_node::session::ecdsa::recovery`) exchange statuses and commit. "Ended" below is
//! observable state: every session counted as ended and the gauge
//! `quorate_ecdsa_pending_epochs` at 0 on every node.

mod common;

use std::process::Output;

use common::cluster::{ecdsa, wait_for, Cluster};
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

/// The crash happens in the keygen, or in a refresh of a key every node holds when the step
/// names an occurrence (`…#2`: the keygen passed it once).
fn crash_then_converge(step: &str) {
    let refresh = step.contains('#');
    let mut c = Cluster::init(3);
    c.run_args = vec!["--round-timeout-ms".into(), "2000".into()];
    // Session start/abort lines in node.log, for the failure messages.
    c.run_env = vec![("QUORATE_LOG".into(), "info".into())];
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
        let out = keygen(&c);
        assert!(out.status.success(), "{out:?}\n{}", c.logs());
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        let want = (0, v["public_key"].as_str().expect("pk").to_string());
        for id in 1..=3 {
            wait_key(&c, id, &want, step);
        }
        before = Some(want);
        ecdsa(&c, 1, &["refresh", "--key-id", KEY])
    } else {
        keygen(&c)
    };
    // Node 3 reached the step and aborted (otherwise the test proves nothing).
    let status = c.wait_exit(3);
    assert!(!status.success(), "node 3 did not crash at {step}");
    assert!(
        c.log(3)
            .contains(&format!("test-faults: crashing at {step}")),
        "{}",
        c.log(3)
    );
    if !first.status.success() {
        assert_eq!(first.status.code(), Some(1), "{first:?}");
    }

    c.restart(3);
    // The coordinator answered when its own attempt ended; the others end theirs at their
    // own deadlines. The operator's retry (or check) comes after every attempt has ended.
    for id in 1..=3 {
        wait_for(&format!("{step}: node {id}'s sessions to end"), || {
            let started = c.counter(id, "quorate_sessions_started_total");
            let ended = c.counter(id, "quorate_sessions_completed_total")
                + c.counter(id, "quorate_sessions_aborted_total");
            (started == ended).then_some(())
        });
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
        let again = keygen(&c);
        assert!(
            again.status.success(),
            "{step}: retried keygen failed: {}\n{}",
            String::from_utf8_lossy(&again.stdout),
            c.logs()
        );
        let v: Value = serde_json::from_slice(&again.stdout).expect("json");
        let want = (
            v["epoch"].as_u64().expect("epoch"),
            v["public_key"].as_str().expect("pk").to_string(),
        );
        // The coordinator answers once it committed; the others commit when their last
        // round completes, a moment later.
        for id in 1..=3 {
            wait_key(&c, id, &want, step);
        }
        want
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
        let out = ecdsa(
            &c,
            via,
            &[
                "sign",
                "--key-id",
                KEY,
                "--message",
                "after the crash",
                "--signers",
                signers,
            ],
        );
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
