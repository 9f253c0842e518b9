//! Hot/cold BLS (3,5) across five real `quorate node run` hot nodes and five offline cold
//! custodians (files), all through the CLI: registration, audit (Π_EKS from every node,
//! Π_DL of every cold key), refresh, recovery signing after it (checked by `bls verify`),
//! and a bad cold partial named by the hot node that receives it.

mod common;

use common::bls::{bls, json_failed, verify, Deployment};
use common::cluster::{json_ok, Cluster};
use serde_json::json;

#[test]
fn three_of_five_register_audit_refresh_sign_and_a_bad_cold_partial_is_named() {
    let c = Cluster::start(5, &[]);
    let d = Deployment::new(5, "wallet");
    let reg = json_ok(&d.register(&c, 3));
    assert_eq!(reg["key_id"], "wallet");
    assert_eq!(reg["holders"], json!([1, 2, 3, 4, 5]));
    assert_eq!(reg["epoch"], 0);
    let pk = reg["public_key"].as_str().expect("public key").to_string();

    // Registering again with the same record is idempotent... with another one, refused.
    let audit = json_ok(&d.audit(&c, &c.ids()));
    assert_eq!(audit["verified"], true, "{audit}");
    assert_eq!(audit["hot"].as_array().map(Vec::len), Some(5));
    assert_eq!(audit["cold"].as_array().map(Vec::len), Some(5));
    for p in audit["hot"].as_array().into_iter().flatten() {
        assert_eq!(p["verified"], true, "{audit}");
        assert_eq!(p["index"], p["node"]);
    }

    let sig = json_ok(&d.sign(&c, "before refresh", &[1, 2, 3]));
    assert_eq!(sig["public_key"], pk.as_str());
    assert_eq!(sig["signers"], json!([1, 2, 3]));
    verify(&sig);

    let r = json_ok(&d.refresh(&c));
    assert_eq!(r["epoch"], 1, "{r}");
    assert_eq!(r["committed"], json!([1, 2, 3, 4, 5]));
    // Every hot node proves against the epoch-1 record.
    let audit = json_ok(&d.audit(&c, &c.ids()));
    assert_eq!(audit["epoch"], 1);
    assert_eq!(audit["verified"], true, "{audit}");

    let sig = json_ok(&d.sign(&c, "after refresh", &[2, 4, 5]));
    assert_eq!(
        sig["public_key"],
        pk.as_str(),
        "the key survives the refresh"
    );
    assert_eq!(sig["epoch"], 1);
    verify(&sig);

    // A cold partial for another message, relabelled: hot node 3 checks it against K_3
    // and names cold party 3.
    let good = d.cold_partials("a message", &[1, 2]);
    let other = d.cold_partials("another message", &[3]);
    let mut forged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&other).expect("read")).expect("json");
    forged["message"] = json!(hex::encode("a message"));
    let forged_path = d.tmp.path().join("forged-3.json");
    std::fs::write(&forged_path, forged.to_string()).expect("write");
    let partials = format!("{good},{}", forged_path.display());
    let out = d.sign_with(&c, "a message", &partials, &[1, 2, 3]);
    let v = json_failed(&out);
    assert_eq!(
        v["culprits"],
        json!([{ "role": "cold", "index": 3, "node": null }]),
        "{v}"
    );

    // Tampered input is exit 2, not a verdict.
    let out = bls(&[
        "audit",
        "--key",
        "/nonexistent",
        "--crs",
        "/nonexistent",
        "--node",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(2));
}
