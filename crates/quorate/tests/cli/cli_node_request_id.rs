//! A request id is idempotent across coordinators (issue 14: "the same request id returns
//! the same result: idempotent, never a silent duplicate"). Real `quorate node run`
//! processes: a 2-of-3 key, one signature under request id `pay-1` through node 1, then the
//! same request id through node 2 (which took part in the first session) and through node 3
//! (which did not: node 2 refuses its proposal). Both answer a clear "duplicate request id"
//! error naming node 1 and blame nobody; node 1 keeps answering its signature. Before the
//! fix, nodes 2 and 3 each ran a second signature.

use crate::common::cluster::{ecdsa, json_ok, Cluster};

use serde_json::Value;

fn sign(c: &Cluster, via: u16, request_id: &str, signers: &str) -> std::process::Output {
    ecdsa(
        c,
        via,
        &[
            "sign",
            "--key-id",
            "dup",
            "--message",
            "pay 5 to bob",
            "--signers",
            signers,
            "--request-id",
            request_id,
        ],
    )
}

/// The refusal of a duplicate: exit 1, JSON error naming the first coordinator, no culprit.
fn assert_duplicate(out: &std::process::Output, what: &str) {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{what}: expected a refusal, got {v} (stderr {})",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        v.get("signature").is_none(),
        "{what}: a second signature: {v}"
    );
    let error = v["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("duplicate request id") && error.contains("coordinated by node 1"),
        "{what}: {v}"
    );
    assert_eq!(v["culprits"], serde_json::json!([]), "{what}: {v}");
}

#[test]
fn a_request_id_runs_through_one_coordinator_only() {
    let c = Cluster::start(3, &[]);
    json_ok(&ecdsa(
        &c,
        1,
        &[
            "keygen",
            "--t",
            "2",
            "--parties",
            "1,2,3",
            "--key-id",
            "dup",
        ],
    ));
    let first = json_ok(&sign(&c, 1, "pay-1", "1,2"));
    assert_duplicate(&sign(&c, 2, "pay-1", "1,2"), "via node 2 (a co-signer)");
    assert_duplicate(
        &sign(&c, 3, "pay-1", "2,3"),
        "via node 3 (refused by node 2)",
    );
    // The first coordinator answers the same signature again, and a new request id signs.
    let again = json_ok(&sign(&c, 1, "pay-1", "1,2"));
    assert_eq!(again["signature"], first["signature"]);
    let other = json_ok(&sign(&c, 2, "pay-2", "1,2"));
    assert_ne!(other["signature"], first["signature"]);
}
