//! Network faults between real `quorate node run` processes (issue 14, item 5): every node's
//! roster `address` is a test relay ([`crate::common::relay`]) that forwards to the node's real
//! `listen` port and can delay, drop (partition) and forget (reset) its links.
//!
//! One 2-of-3 cluster: keygen and signing with 30 ms added per direction on every link; node 3
//! partitioned while node 1 signs with it (the session aborts at its round deadline naming
//! node 3, exit code 1, `culprits: [3]`) while {1,2} still sign; after healing {1,3} sign
//! again; and after a relay reset (the peers' datagrams reach node 3 from new ports) too.
//! Every signature is checked by `quorate ecdsa verify`.

use std::time::Duration;

use crate::common::cluster::{abort_error, ecdsa, ecdsa_sign, json_ok, wait_for, Cluster};
use crate::common::relay::Relays;
use serde_json::json;

const KEY: &str = "knet";

/// Signs `message` through node `via` with `signers`.
fn sign(c: &Cluster, via: u16, signers: &str, message: &str) -> std::process::Output {
    ecdsa_sign(c, via, KEY, signers, message)
}

/// Signs and checks the signature under `pk` ([`crate::common::cluster::sign_and_verify`]).
fn sign_and_verify(c: &Cluster, via: u16, signers: &str, message: &str, pk: &str) {
    crate::common::cluster::sign_and_verify(c, via, KEY, message, signers, pk);
}

/// A 3-node cluster whose roster addresses are relays; nodes started and healthy.
fn cluster_behind_relays() -> (Cluster, Relays) {
    let mut c = Cluster::init(3);
    c.run_args = vec!["--round-timeout-ms".into(), "2000".into()];
    let nodes: Vec<_> = c
        .ids()
        .into_iter()
        .map(|id| {
            let front = format!("127.0.0.1:{}", crate::common::cluster::free_udp())
                .parse()
                .expect("addr");
            (id, c.node(id).listen, front)
        })
        .collect();
    let relays = Relays::start(&nodes);
    // Peers dial the roster `address`: point each at the node's relay.
    let mut roster = std::fs::read_to_string(&c.roster).expect("roster");
    for &(id, listen, front) in &nodes {
        let (from, to) = (format!("\"{listen}\""), format!("\"{front}\""));
        assert_eq!(roster.matches(&from).count(), 1, "node {id}: {roster}");
        roster = roster.replace(&from, &to);
    }
    std::fs::write(&c.roster, roster).expect("roster");
    c.start_all();
    (c, relays)
}

#[test]
fn latency_partition_heal_and_reset_between_node_processes() {
    let (c, relays) = cluster_behind_relays();

    // 1. 30 ms per direction on every link: keygen and signing still succeed.
    relays.set_delay(Duration::from_millis(30));
    let key = json_ok(&ecdsa(
        &c,
        1,
        &["keygen", "--t", "2", "--parties", "1,2,3", "--key-id", KEY],
    ));
    let pk = key["public_key"].as_str().expect("public_key").to_string();
    sign_and_verify(&c, 2, "2,3", "with latency", &pk);
    relays.set_delay(Duration::ZERO);

    // 2. Node 3 partitioned: signing with {1,3} waits for node 3 and aborts at its round
    // deadline naming it; {1,2} sign meanwhile.
    relays.partition(3);
    let out = std::thread::scope(|s| {
        let signing = s.spawn(|| sign(&c, 1, "1,3", "during the partition"));
        let w = wait_for("node 1 to wait for node 3", || {
            c.waiting(1).into_iter().find(|w| w["nodes"] == json!([3]))
        });
        let d = w["description"].as_str().expect("description");
        assert!(d.starts_with("waiting for node 3 in round "), "{d}");
        sign_and_verify(&c, 2, "1,2", "beside the partition", &pk);
        signing.join().expect("signing thread")
    });
    let e = abort_error(&c, &out, &[3]);
    assert!(e.contains("waiting for node 3"), "{e}");

    // Healed: {1,3} sign again, through either node.
    relays.heal(3);
    sign_and_verify(&c, 1, "1,3", "after healing", &pk);
    sign_and_verify(&c, 3, "1,3", "after healing, via node 3", &pk);

    // 3. Node 3's relay forgets its links: the peers' datagrams reach node 3 from new ports,
    // and signing with it still works.
    relays.reset(3);
    sign_and_verify(&c, 1, "1,3", "after a relay reset", &pk);
}
