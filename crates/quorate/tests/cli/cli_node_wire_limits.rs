//! The wire's two refusals between real `quorate node run` processes (issue 14, "Transport"),
//! both with test-only faults (feature `test-faults`) in one node:
//!
//! * **Protocol version, at connection time.** Node 3 runs with
//!   `QUORATE_TEST_PROTOCOL_VERSION=quorate/2` (it advertises version 2). `node check` from
//!   node 1 and a keygen coordinated by node 1 with node 3 both end within their bounds with
//!   an error naming node 3 and both versions (the keygen at its round deadline, naming node
//!   3 as the node it waited for), node 3's log says it refused the older peer, and nodes 1
//!   and 2 still work together.
//! * **Per-round size limit, before decoding.** Node 3 runs with
//!   `QUORATE_TEST_ECDSA_FAULT=oversized`: its round-1 signing messages are one byte over the
//!   round's payload limit. Node 1, signing with it, refuses the message before decoding it
//!   and names node 3 (exit 1, `culprits: [3]`); the evidence recorded with the attempt is
//!   node 3's signed envelope, which a third party checks against the roster key alone.
//!
//! Run with `cargo test -p quorate --release --test cli cli_node_wire_limits::` (CI does).

use crate::common::cluster::{abort_error, ecdsa, json_ok, sign_and_verify, Cluster};
use quorate_node::envelope::Envelope;
use quorate_node::identity::parse_public_key_hex;

/// A 3-node cluster whose node 3 runs with the environment variable `var=value`.
fn cluster_with_faulty_node_3(var: &str, value: &str) -> Cluster {
    let mut c = Cluster::init(3);
    c.run_args = vec!["--round-timeout-ms".into(), "2000".into()];
    c.spawn(1);
    c.spawn(2);
    c.run_env = vec![(var.into(), value.into())];
    c.spawn(3);
    c.run_env.clear();
    for id in 1..=3 {
        c.wait_healthy(id);
    }
    c
}

#[test]
fn a_peer_of_another_protocol_version_is_named_with_both_versions() {
    let c = cluster_with_faulty_node_3("QUORATE_TEST_PROTOCOL_VERSION", "quorate/2");
    let both = "protocol version mismatch: we speak quorate/1, node 3 speaks quorate/2";

    // The connectivity check names node 3 and both versions.
    let (code, rows) = c.check(1);
    assert_ne!(code, 0, "{rows}");
    assert!(rows.to_string().contains(both), "{rows}");

    // A session with node 3 ends at its round deadline naming node 3 and why.
    let out = ecdsa(
        &c,
        1,
        &["keygen", "--t", "2", "--parties", "1,2,3", "--key-id", "kv"],
    );
    let error = abort_error(&c, &out, &[3]);
    assert!(error.contains("waiting for node 3"), "{error}");
    assert!(error.contains(both), "{error}");
    assert!(
        c.log(3)
            .contains("refused a connection: the peer speaks another protocol version"),
        "{}",
        c.log(3)
    );

    // Nodes of one version still work together.
    let kg = json_ok(&ecdsa(
        &c,
        1,
        &["keygen", "--t", "2", "--parties", "1,2", "--key-id", "k12"],
    ));
    assert_eq!(kg["key_id"], "k12");
}

#[test]
fn an_oversized_round_message_is_refused_before_decoding_and_its_sender_named() {
    let c = cluster_with_faulty_node_3("QUORATE_TEST_ECDSA_FAULT", "oversized");
    let kg = json_ok(&ecdsa(
        &c,
        1,
        &["keygen", "--t", "2", "--parties", "1,2,3", "--key-id", "ks"],
    ));
    let pk = kg["public_key"].as_str().expect("pk").to_string();
    let out = ecdsa(
        &c,
        1,
        &[
            "sign",
            "--key-id",
            "ks",
            "--message",
            "too big",
            "--signers",
            "1,3",
            "--request-id",
            "big-1",
        ],
    );
    let error = abort_error(&c, &out, &[3]);
    // The round-1 limit of signing (quorate_node::session::ecdsa::limits::sign).
    assert!(
        error.contains("node 3 sent 11265 bytes in round 1, the limit is 11264"),
        "{error}"
    );

    // The evidence: node 3's own signed envelope, checkable with the roster key alone.
    let (status, record) = c.api(1, "GET", "/v1/sessions/big-1", None);
    assert_eq!(status, 200, "{record}");
    let attempts = record["attempts"].as_array().expect("attempts");
    let outcome = &attempts.last().expect("an attempt")["outcome"];
    let evidence = outcome["evidence"].as_array().expect("evidence");
    assert_eq!(evidence.len(), 1, "{outcome}");
    let bytes = hex::decode(evidence[0].as_str().expect("hex")).expect("hex");
    let env = Envelope::decode(&bytes, 1 << 20).expect("an envelope");
    let key3 = parse_public_key_hex(&c.node_key(3)).expect("key");
    env.verify(|id| (id == 3).then_some(key3))
        .expect("signed by node 3");
    assert_eq!(env.header.sender, 3);
    assert_eq!(env.header.round, 1);
    assert_eq!(env.payload.len(), 11_265);

    // Without node 3, nodes 1 and 2 sign; the signature verifies.
    sign_and_verify(&c, 1, "ks", "fits", "1,2", &pk);
}
