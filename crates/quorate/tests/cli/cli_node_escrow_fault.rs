//! A node that backs up the wrong value to the escrow (feature `test-faults`:
//! `QUORATE_TEST_ESCROW_FAULT=wrong-share`, a valid proof for another point than its
//! `T_j`) is named by the other holders, and neither its keygen nor its refresh commits
//! (issue 16 §2).

use crate::common::cluster::{ecdsa, json_ok, Cluster};
use crate::common::escrow::escrow_keys;
use serde_json::{json, Value};

fn aborted_naming(out: &std::process::Output, culprit: u16) {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("abort json");
    assert_eq!(v["culprits"], json!([culprit]), "{v}");
    assert!(
        v["error"].as_str().is_some_and(|e| e.contains("escrow")),
        "{v}"
    );
}

#[test]
fn a_backup_of_the_wrong_value_is_named_and_the_epoch_does_not_commit() {
    let mut c = Cluster::init(3);
    escrow_keys(&c);
    c.run_args = vec!["--round-timeout-ms".into(), "3000".into()];
    for id in [1, 3] {
        c.spawn(id);
    }
    c.run_env = vec![("QUORATE_TEST_ESCROW_FAULT".into(), "wrong-share".into())];
    c.spawn(2);
    for id in 1..=3 {
        c.wait_healthy(id);
    }
    let args = ["keygen", "--t", "2", "--parties", "1,2,3", "--key-id", "k"];
    aborted_naming(&ecdsa(&c, 1, &args), 2);
    let (status, _) = c.api(3, "GET", "/v1/keys/k", None);
    assert_eq!(status, 404, "no key after the aborted keygen");

    // Node 2 honest again: a keygen commits (another key id: node 2 signed the aborted
    // epoch and keeps it pending until its resolver learns that nobody else did); node 2
    // faulty in the refresh: epoch 0 stays.
    assert!(c.term(2).success());
    c.run_env.clear();
    c.restart(2);
    let args = ["keygen", "--t", "2", "--parties", "1,2,3", "--key-id", "k2"];
    assert_eq!(json_ok(&ecdsa(&c, 1, &args))["epoch"], 0);
    assert!(c.term(2).success());
    c.run_env = vec![("QUORATE_TEST_ESCROW_FAULT".into(), "wrong-share".into())];
    c.restart(2);
    aborted_naming(&ecdsa(&c, 3, &["refresh", "--key-id", "k2"]), 2);
    for id in [1, 3] {
        let (_, v) = c.api(id, "GET", "/v1/keys/k2", None);
        assert_eq!(v["epoch"], 0, "node {id}: {v}");
    }
    for id in 1..=3 {
        assert!(c.term(id).success());
    }
}
