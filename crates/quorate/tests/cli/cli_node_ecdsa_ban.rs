//! A faulty signer through real processes (feature `test-faults`): node 3 runs with
//! `QUORATE_TEST_ECDSA_FAULT=bad-ot` and corrupts the OT-extension matrix of its round-1
//! signing messages. Node 1, signing with it, names node 3 (exit 1, `{"culprits": [3]}`)
//! and bans it for the key; the ban is in node 1's keystore, so after node 1 restarts it still
//! refuses to sign with node 3 (now honest) while it signs with node 2, and node 2, which
//! never saw the fault, signs with node 3.
//!
//! Run with `cargo test -p quorate --release --test cli cli_node_ecdsa_ban::`
//! (CI does).

use std::process::Output;

use crate::common::cluster::{abort_error, ecdsa, ecdsa_sign, json_ok, Cluster};

const KEY: &str = "kb";

fn sign(c: &Cluster, via: u16, signers: &str, message: &str) -> Output {
    ecdsa_sign(c, via, KEY, signers, message)
}

#[test]
fn a_faulty_signer_is_named_and_banned_and_the_ban_survives_a_restart() {
    let mut c = Cluster::init(3);
    c.run_args = vec!["--round-timeout-ms".into(), "3000".into()];
    c.spawn(1);
    c.spawn(2);
    c.run_env = vec![("QUORATE_TEST_ECDSA_FAULT".into(), "bad-ot".into())];
    c.spawn(3);
    c.run_env.clear();
    for id in 1..=3 {
        c.wait_healthy(id);
    }
    let kg = json_ok(&ecdsa(
        &c,
        1,
        &["keygen", "--t", "2", "--parties", "1,2,3", "--key-id", KEY],
    ));
    let pk = kg["public_key"].as_str().expect("pk").to_string();

    // The fault: node 1 names node 3 and bans it.
    let error = abort_error(&c, &sign(&c, 1, "1,3", "with a cheat"), &[3]);
    assert!(error.contains("banned"), "{error}");

    // Node 3 becomes honest; node 1 restarts. The stored ban still keeps node 3 out of
    // node 1's signing, named again, while nodes 1 and 2 sign.
    c.term(3);
    c.restart(3);
    c.term(1);
    c.restart(1);
    let error = abort_error(&c, &sign(&c, 1, "1,3", "after the restart"), &[3]);
    assert!(error.contains("banned"), "{error}");
    for (via, signers) in [(1, "1,2"), (2, "2,3")] {
        let v = json_ok(&sign(&c, via, signers, "honest quorum"));
        assert_eq!(v["public_key"].as_str(), Some(pk.as_str()), "{v}");
    }
}
