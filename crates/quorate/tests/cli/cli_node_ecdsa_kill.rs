//! Threshold ECDSA 3-of-5 through five real `quorate node run` processes (harness:
//! `common::cluster`): keygen, signing checked by `quorate ecdsa verify`, a signer killed with
//! SIGKILL while the others wait for it inside a signing session (named as the culprit, exit
//! code 1 with JSON), the killed node restarted from its directory signing again, then a
//! refresh by all five and signing at the new epoch. Every signature is checked by
//! `quorate ecdsa verify` and by libsecp256k1.

use crate::common::cluster::{
    abort_error, ecdsa, json_ok, sign_and_verify, signal, wait_for, Cluster,
};
use serde_json::json;

#[test]
fn three_of_five_signer_killed_mid_signing_is_named_and_signs_again_after_restart() {
    let mut c = Cluster::start(5, &["--round-timeout-ms", "3000"]);
    let key = json_ok(&ecdsa(
        &c,
        1,
        &[
            "keygen",
            "--t",
            "3",
            "--parties",
            "1,2,3,4,5",
            "--key-id",
            "k35",
        ],
    ));
    assert_eq!(key["key_id"], "k35");
    let pk = key["public_key"].as_str().expect("public_key").to_string();
    assert_eq!(pk.len(), 66);
    sign_and_verify(&c, 2, "k35", "before the kill", "1,2,3", &pk);

    // Node 5 freezes, a signing session among 1, 2, 5 starts through node 1, and node 5 is
    // killed while nodes 1 and 2 wait for its message.
    c.pause(5);
    let pid5 = c.pid(5);
    let out = std::thread::scope(|s| {
        let signing = s.spawn(|| {
            ecdsa(
                &c,
                1,
                &[
                    "sign",
                    "--key-id",
                    "k35",
                    "--message",
                    "during the kill",
                    "--signers",
                    "1,2,5",
                ],
            )
        });
        for id in [1, 2] {
            let w = wait_for("the waiting list to name node 5", || {
                c.waiting(id).into_iter().find(|w| w["nodes"] == json!([5]))
            });
            let d = w["description"].as_str().expect("description");
            assert!(d.starts_with("waiting for node 5 in round "), "{d}");
        }
        signal(pid5, "KILL");
        signing.join().expect("signing thread")
    });
    assert!(!c.wait_exit(5).success());
    // Exit 1 (a protocol abort), the JSON names node 5 alone: 2 signers left are below t = 3,
    // so there is no retry.
    let e = abort_error(&c, &out, &[5]);
    assert!(e.contains("waiting for node 5"), "{e}");

    // The other holders still sign; node 5 restarts with its stored share and signs again,
    // as coordinator and as participant.
    sign_and_verify(&c, 3, "k35", "while node 5 is down", "2,3,4", &pk);
    c.restart(5);
    sign_and_verify(&c, 5, "k35", "after the restart", "3,4,5", &pk);
    sign_and_verify(&c, 1, "k35", "after the restart, again", "1,2,5", &pk);

    // A 3-of-5 refresh by every holder (through the restarted node): epoch 1, same public
    // key, and signing at the new epoch.
    let r = json_ok(&ecdsa(&c, 5, &["refresh", "--key-id", "k35"]));
    assert_eq!(
        (r["epoch"].clone(), r["public_key"].clone()),
        (json!(1), json!(pk)),
        "{r}"
    );
    sign_and_verify(&c, 4, "k35", "after the refresh", "2,4,5", &pk);
}
