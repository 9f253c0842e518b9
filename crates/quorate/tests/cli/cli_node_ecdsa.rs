//! Threshold ECDSA through real `quorate node run` processes on 127.0.0.1 (the shared
//! harness `common::cluster`): a 2-of-3 `ecdsa keygen`, `ecdsa sign` checked by `ecdsa
//! verify`, `ecdsa refresh` and signing at the new epoch, a node restarted after SIGTERM
//! still signing with its stored share, an abort that names the stopped node (exit 1 with
//! JSON), bad input (exit 2), and debug logs that hold neither the passphrase nor an API
//! token.

use crate::common::cluster::{ecdsa, ecdsa_sign, json_ok, sign_and_verify, Cluster};

use serde_json::Value;

#[test]
fn two_of_three_keygen_sign_refresh_restart_and_abort() {
    // Debug logs, to check below that no secret reaches them.
    let mut c = Cluster::init(3);
    c.run_args = vec!["--round-timeout-ms".into(), "3000".into()];
    c.run_env = vec![("QUORATE_LOG".into(), "debug".into())];
    for id in c.ids() {
        c.spawn(id);
    }
    for id in c.ids() {
        c.wait_healthy(id);
    }

    // 2-of-3 keygen through node 1.
    let kg = json_ok(&ecdsa(
        &c,
        1,
        &[
            "keygen",
            "--t",
            "2",
            "--parties",
            "1,2,3",
            "--key-id",
            "treasury",
        ],
    ));
    assert_eq!(kg["key_id"], "treasury");
    assert_eq!(kg["epoch"], 0);
    let pk = kg["public_key"].as_str().expect("public key").to_string();
    assert_eq!(pk.len(), 66);
    assert!(pk.starts_with("02") || pk.starts_with("03"), "{pk}");

    // Signing through node 2 by nodes 2 and 3, verified by `ecdsa verify` and libsecp256k1
    // (`sign_and_verify` also checks the public key and the signers).
    let s = sign_and_verify(&c, 2, "treasury", "pay 5 to bob", "2,3", &pk);
    assert_eq!(s["message"], hex::encode("pay 5 to bob"));
    for field in ["der", "recovery_id"] {
        assert!(!s[field].is_null(), "{field} missing in {s}");
    }

    // Refresh by all holders: epoch 1, same public key, and signing works after it.
    let r = json_ok(&ecdsa(&c, 3, &["refresh", "--key-id", "treasury"]));
    assert_eq!(r["epoch"], 1, "{r}");
    assert_eq!(r["public_key"], pk.as_str());
    let s = sign_and_verify(&c, 1, "treasury", "after refresh", "1,2", &pk);
    assert_eq!(s["epoch"], 1, "{s}");

    // Node 3 stops (SIGTERM) and starts again: it signs with its stored share.
    assert!(c.term(3).success());
    c.restart(3);
    sign_and_verify(&c, 1, "treasury", "after restart", "1,3", &pk);

    // Node 2 is down: a 2-signer session with it aborts (exit 1), naming node 2.
    assert!(c.term(2).success());
    let out = ecdsa_sign(&c, 1, "treasury", "1,2", "x");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("abort json");
    assert_eq!(v["culprits"], serde_json::json!([2]), "{v}");
    assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");

    // Bad input: an unknown key id, a threshold above the parties, a key id that exists
    // (exit 2; with --json the error is JSON on stdout too, culprits empty).
    let existing = [
        "keygen",
        "--t",
        "2",
        "--parties",
        "1,3",
        "--key-id",
        "treasury",
    ];
    for args in [
        &["sign", "--key-id", "nope", "--message", "x"][..],
        &["keygen", "--t", "4", "--parties", "1,3"],
        &existing,
    ] {
        let out = ecdsa(&c, 1, args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).expect("exit-2 json");
        assert_eq!(v["culprits"], serde_json::json!([]), "{v}");
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    }
    let out = ecdsa(&c, 1, &existing);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already exists"),
        "{out:?}"
    );
    // The first keygen's request again is idempotent: its recorded result, not an error.
    let rid = kg["request_id"].as_str().expect("request id");
    let again = json_ok(&ecdsa(
        &c,
        1,
        &[
            "keygen",
            "--t",
            "2",
            "--parties",
            "1,2,3",
            "--key-id",
            "treasury",
            "--request-id",
            rid,
        ],
    ));
    assert_eq!(again["public_key"], pk.as_str());

    assert!(c.term(1).success());
    assert!(c.term(3).success());

    // The debug logs of every node (keygen, signing, refresh, restarts, aborts) hold
    // neither the passphrase nor any operator API token.
    let logs = c.logs();
    assert!(logs.contains("DEBUG"), "debug logging was not on");
    assert!(
        !logs.contains(crate::common::cluster::PASS),
        "the passphrase is in a log"
    );
    for id in c.ids() {
        let token = &c.node(id).token;
        assert!(
            !logs.contains(token.as_str()),
            "node {id}'s API token is in a log"
        );
    }
}
