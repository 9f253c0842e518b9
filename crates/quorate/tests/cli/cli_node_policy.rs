//! An operator's session policy through real processes (issue 14: "each participant's policy
//! accepts or refuses it"). Node 3's `node.toml` has a `[policy]` section: only nodes 1 and 3
//! may coordinate, and `ecdsa-sign` only with key `treasury`. After a 2-of-3 keygen of key
//! `kp` (allowed: the key rule is for signing only):
//! - node 1 signs `kp` with node 3: node 3 refuses the key; exit 1 with node 3 named in the
//!   error and as the culprit;
//! - node 2 signs with node 3: node 3 refuses the coordinator, named the same way;
//! - node 3's own operator asks it to sign `kp`: its own policy refuses, exit 2 (a
//!   configuration matter, nothing was proposed);
//! - nodes 1 and 2 sign `kp` without node 3: signed.

use std::process::Output;

use crate::common::cluster::{ecdsa, json_ok, Cluster};
use serde_json::Value;

const KEY: &str = "kp";

const POLICY: &str = r#"
[policy]
coordinators = [1, 3]

[policy.protocol.ecdsa-sign]
key_ids = ["treasury"]
"#;

fn sign(c: &Cluster, via: u16, signers: &str) -> Output {
    ecdsa(
        c,
        via,
        &[
            "sign",
            "--key-id",
            KEY,
            "--message",
            "pay 5 to bob",
            "--signers",
            signers,
        ],
    )
}

/// The JSON of a command that exited with `code`.
fn failed(c: &Cluster, out: &Output, code: i32) -> Value {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        c.logs()
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn a_participants_policy_refusal_names_it_and_another_signer_set_signs() {
    let mut c = Cluster::init(3);
    c.run_args = vec!["--round-timeout-ms".into(), "3000".into()];
    let config = c.dir(3).join("node.toml");
    let mut text = std::fs::read_to_string(&config).expect("node.toml");
    text.push_str(POLICY);
    std::fs::write(&config, text).expect("write node.toml");
    for id in 1..=3 {
        c.spawn(id);
    }
    for id in 1..=3 {
        c.wait_healthy(id);
    }
    let kg = json_ok(&ecdsa(
        &c,
        1,
        &["keygen", "--t", "2", "--parties", "1,2,3", "--key-id", KEY],
    ));
    let pk = kg["public_key"].as_str().expect("pk").to_string();

    for (via, signers, why) in [
        (1, "1,3", "policy: key kp is not allowed for ecdsa-sign"),
        (2, "2,3", "policy: node 2 may not coordinate sessions"),
    ] {
        let v = failed(&c, &sign(&c, via, signers), 1);
        assert_eq!(v["culprits"], serde_json::json!([3]), "{v}");
        let error = v["error"].as_str().expect("error");
        assert!(error.contains("node 3 refused"), "{error}");
        assert!(error.contains(why), "{error}");
    }

    let v = failed(&c, &sign(&c, 3, "1,3"), 2);
    let error = v["error"].as_str().expect("error");
    assert!(
        error.contains("refused by this node's policy: key kp is not allowed"),
        "{error}"
    );

    for via in [1, 2] {
        let v = json_ok(&sign(&c, via, "1,2"));
        assert_eq!(v["public_key"].as_str(), Some(pk.as_str()), "{v}");
    }
}
