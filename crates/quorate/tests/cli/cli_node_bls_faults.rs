//! Hot/cold BLS (3,5) with faulty hot nodes (feature `test-faults`): a node answering audits
//! with a Π_EKS for another block and a node answering signing requests with a wrong partial
//! are each named; a node that dies inside the refresh commit (at the keystore's
//! `commit_epoch`, as abrupt as `kill -9` for everything on disk) is finished by running
//! `quorate bls refresh` again after its restart, leaving every hot node on one epoch, and
//! the key signs after it (checked by `bls verify`); a hung node (SIGSTOP) is named by the
//! audit once its call times out, without holding up the other nodes' answers.

use crate::common::bls::{json_failed, verify, Deployment};
use crate::common::cluster::{json_ok, wait_for, Cluster};
use serde_json::json;

/// Restarts node `id` with one extra environment variable (none when `env` is `None`).
fn restart_with(c: &mut Cluster, id: u16, env: Option<(&str, &str)>) {
    c.term(id);
    c.run_env = env
        .map(|(k, v)| vec![(k.to_string(), v.to_string())])
        .unwrap_or_default();
    c.restart(id);
    c.run_env.clear();
}

#[test]
fn bad_proof_and_bad_partial_are_named_and_a_crash_in_the_refresh_commit_is_finished() {
    let mut c = Cluster::start(5, &[]);
    let d = Deployment::new(5, "faulty");
    json_ok(&d.register(&c, 3));

    // Node 4 proves for another block: the audit names party 4 (node 4) only, exit 1.
    restart_with(&mut c, 4, Some(("QUORATE_TEST_BLS_FAULT", "bad-proof")));
    let v = json_failed(&d.audit(&c, &c.ids()));
    assert_eq!(v["verified"], false, "{v}");
    for p in v["hot"].as_array().expect("hot") {
        assert_eq!(p["verified"], p["index"] != 4, "{v}");
    }
    for p in v["cold"].as_array().expect("cold") {
        assert_eq!(p["verified"], true, "{v}");
    }

    // Node 2 returns a wrong partial: the combiner names hot party 2 (node 2), exit 1.
    restart_with(&mut c, 2, Some(("QUORATE_TEST_BLS_FAULT", "bad-partial")));
    let v = json_failed(&d.sign(&c, "named", &[1, 2, 3]));
    assert_eq!(v["culprits"], json!([2]), "{v}");
    assert_eq!(v["blame"][0]["role"], "hot", "{v}");
    assert_eq!(v["blame"][0]["node"], 2, "{v}");
    restart_with(&mut c, 2, None);
    restart_with(&mut c, 4, None);

    // Node 3 dies while committing the refresh; the others commit.
    restart_with(
        &mut c,
        3,
        Some((
            "QUORATE_TEST_CRASH_AT",
            "keystore.commit_epoch.before_commit",
        )),
    );
    let v = json_failed(&d.refresh(&c));
    assert!(
        v["error"].as_str().unwrap_or_default().contains("node 3"),
        "{v}"
    );
    wait_for("node 3 to die", || c.exited(3));
    // The unfinished refresh waits in a 0600 file with every δ_i sealed, never in clear.
    let pending: serde_json::Value = serde_json::from_slice(
        &std::fs::read(d.client().join("faulty.refresh.json")).expect("pending file"),
    )
    .expect("json");
    assert!(pending.get("shares").is_none(), "{pending}");
    let sealed = pending["shares_sealed"].as_str().expect("sealed shares");
    assert!(
        sealed.starts_with(&hex::encode(b"quorate-sealed\0")),
        "{pending}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(d.client().join("faulty.refresh.json"))
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    c.restart(3);
    let (status, k3) = c.api(3, "GET", "/v1/bls/keys/faulty", None);
    assert_eq!(status, 200, "{k3}");
    assert_eq!(
        (k3["epoch"].as_u64(), k3["pending_epoch"].as_u64()),
        (Some(0), Some(1))
    );

    // Running the refresh again finishes it on node 3: every hot node is on epoch 1.
    let r = json_ok(&d.refresh(&c));
    assert_eq!(r["epoch"], 1, "{r}");
    for id in c.ids() {
        let (status, k) = c.api(id, "GET", "/v1/bls/keys/faulty", None);
        assert_eq!(status, 200, "{k}");
        assert_eq!(k["epoch"], 1, "node {id}: {k}");
        assert_eq!(
            k["pending_epoch"],
            serde_json::Value::Null,
            "node {id}: {k}"
        );
    }
    let audit = json_ok(&d.audit(&c, &c.ids()));
    assert_eq!(audit["verified"], true, "{audit}");
    let sig = json_ok(&d.sign(&c, "after the crash", &[3, 4, 5]));
    assert_eq!(sig["epoch"], 1);
    verify(&sig);

    // Node 5 hangs (SIGSTOP): the nodes are asked at once, so the audit still returns, after
    // node 5's call times out, with node 5 named as not verified and every other party
    // verified; signing with the other nodes is unaffected.
    c.pause(5);
    let v = json_failed(&d.audit(&c, &c.ids()));
    for p in v["hot"].as_array().expect("hot") {
        let hung = p["node"] == 5;
        assert_eq!(p["verified"], !hung, "{v}");
        assert_eq!(p["error"].is_string(), hung, "{v}");
    }
    let sig = json_ok(&d.sign(&c, "while node 5 hangs", &[1, 2, 4]));
    verify(&sig);
    c.resume(5);
}
