//! Operator resolve of a pending ECDSA epoch that a silent holder blocks (issue 14,
//! `quorate ecdsa resolve`). Node 3 dies (feature `test-faults`: `QUORATE_TEST_CRASH_AT`, as
//! abrupt as SIGKILL) right after sealing its keygen share and certificate-to-be, before its
//! signature leaves; nodes 1 and 2 have sent theirs, so they keep epoch 0 pending and ask node
//! 3 for its status again and again. The key id stays blocked (a new keygen under it is
//! refused) until the operator decides: `resolve` alone reports the epoch undecided (exit 1,
//! culprit 3); `resolve --abandon-pending` on node 1 abandons it and records the decision,
//! node 1 then answers `absent` and node 2 abandons as well; a keygen under the same key id by
//! nodes 1 and 2 succeeds and signs, and the recorded decision survives a restart.
//!
//! Run with `cargo test -p quorate --release --test
//! cli_node_ecdsa_resolve` (CI does).

use crate::common::cluster::{ecdsa, json_ok, wait_for, Cluster};
use serde_json::Value;

const KEY: &str = "blocked";

#[test]
fn a_silent_holder_blocks_a_pending_keygen_until_the_operator_abandons_it() {
    let mut c = Cluster::init(3);
    c.run_args = vec!["--round-timeout-ms".into(), "2000".into()];
    c.run_env = vec![("QUORATE_LOG".into(), "info".into())];
    c.spawn(1);
    c.spawn(2);
    let step = "keystore.put_secret.after_commit";
    c.run_env
        .push(("QUORATE_TEST_CRASH_AT".into(), step.into()));
    c.spawn(3);
    c.run_env.pop();
    for id in 1..=3 {
        c.wait_healthy(id);
    }

    let keygen = |c: &Cluster, parties: &str| {
        ecdsa(
            c,
            1,
            &["keygen", "--t", "2", "--parties", parties, "--key-id", KEY],
        )
    };
    let out = keygen(&c, "1,2,3");
    assert_eq!(out.status.code(), Some(1), "{out:?}\n{}", c.logs());
    assert!(!c.wait_exit(3).success(), "node 3 did not crash at {step}");
    // Nodes 1 and 2 signed: their epoch stays pending while node 3 is silent.
    for id in [1, 2] {
        wait_for(&format!("node {id}'s pending epoch"), || {
            (c.counter(id, "quorate_ecdsa_pending_epochs") == 1).then_some(())
        });
    }

    // Blocked: the key id cannot be generated again (bad input, exit 2).
    let out = keygen(&c, "1,2");
    assert_eq!(out.status.code(), Some(2), "{out:?}\n{}", c.logs());

    // Without --abandon-pending the operator only learns who is silent.
    let out = ecdsa(&c, 1, &["resolve", "--key-id", KEY]);
    assert_eq!(out.status.code(), Some(1), "{out:?}\n{}", c.logs());
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["culprits"], serde_json::json!([3]), "{v}");
    assert_eq!(c.counter(1, "quorate_ecdsa_pending_epochs"), 1);
    // An abandon without a reason is refused before anything is asked.
    let out = ecdsa(&c, 1, &["resolve", "--key-id", KEY, "--abandon-pending"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");

    // The operator abandons it on node 1.
    let v = json_ok(&ecdsa(
        &c,
        1,
        &[
            "resolve",
            "--key-id",
            KEY,
            "--abandon-pending",
            "--operator",
            "alice",
            "--reason",
            "node 3's machine is gone",
        ],
    ));
    assert_eq!(v["outcome"], "abandoned", "{v}");
    assert_eq!(v["epoch"], 0, "{v}");
    assert_eq!(v["silent"], serde_json::json!([3]), "{v}");
    assert_eq!(v["pending"], serde_json::json!([2]), "{v}");
    assert_eq!(v["decision"]["operator"], "alice", "{v}");
    assert_eq!(v["decision"]["reason"], "node 3's machine is gone", "{v}");
    assert!(v["decision"]["at_unix"].as_u64().is_some(), "{v}");
    assert!(
        v["warning"].as_str().is_some_and(|w| w.contains("[3]")),
        "{v}"
    );
    assert_eq!(c.counter(1, "quorate_ecdsa_pending_epochs"), 0);
    // Node 1 now answers `absent`: node 2 abandons too (its resolver, or this check).
    let v = json_ok(&ecdsa(&c, 2, &["resolve", "--key-id", KEY]));
    assert!(v["outcome"] == "abandoned" || v["outcome"] == "none", "{v}");
    wait_for("node 2's pending epoch to go", || {
        (c.counter(2, "quorate_ecdsa_pending_epochs") == 0).then_some(())
    });

    // Unblocked: the key id is free again; nodes 1 and 2 generate it and sign.
    let kg = json_ok(&keygen(&c, "1,2"));
    assert_eq!(kg["key_id"], KEY);
    let pk = kg["public_key"].as_str().expect("pk").to_string();
    wait_for("node 2 to commit the new key", || {
        let (status, v) = c.api(2, "GET", &format!("/v1/keys/{KEY}"), None);
        (status == 200 && v["public_key"] == pk.as_str()).then_some(())
    });
    let s = json_ok(&ecdsa(
        &c,
        2,
        &[
            "sign",
            "--key-id",
            KEY,
            "--message",
            "unblocked",
            "--signers",
            "1,2",
        ],
    ));
    assert_eq!(s["public_key"], pk.as_str());

    // The decision is durable: after a restart node 1 still lists it.
    assert!(c.term(1).success());
    c.restart(1);
    let v = json_ok(&ecdsa(&c, 1, &["resolve", "--key-id", KEY]));
    assert_eq!(v["outcome"], "none", "{v}");
    let decisions = v["decisions"].as_array().expect("decisions");
    assert_eq!(decisions.len(), 1, "{v}");
    assert_eq!(decisions[0]["operator"], "alice");
    assert_eq!(decisions[0]["epoch"], 0);
    assert!(c.term(1).success());
    assert!(c.term(2).success());
}
