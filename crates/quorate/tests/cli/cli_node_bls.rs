//! Hot/cold BLS (3,5) across five real `quorate node run` hot nodes and five offline cold
//! custodians (files), all through the CLI: registration, audit (Π_EKS from every node,
//! Π_DL of every cold key), refresh, recovery signing after it (checked by `bls verify`),
//! and a bad cold partial named by the hot node that receives it.

use crate::common::bls::{bls, json_failed, verify, Deployment};
use crate::common::cluster::{json_ok, quorate, Cluster};
use serde_json::json;

#[test]
fn three_of_five_register_audit_refresh_sign_and_a_bad_cold_partial_is_named() {
    let mut c = Cluster::start(5, &[]);
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
    // `culprits` are party ids (numbers), as in every `--json` failure; `blame` says who.
    assert_eq!(v["culprits"], json!([3]), "{v}");
    assert_eq!(v["blame"][0]["role"], "cold", "{v}");
    assert_eq!(v["blame"][0]["index"], 3, "{v}");

    // A cold partial that is not a curve point names its cold custodian (before any hot
    // node is asked), not nobody.
    let mut garbage: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&other).expect("read")).expect("json");
    garbage["message"] = json!(hex::encode("a message"));
    let mut point = hex::decode(garbage["cold_partial"].as_str().expect("hex")).expect("hex");
    // The encoding ends with the 48-byte compressed G1 point: make it no point at all.
    let start = point.len() - 48;
    point[start..].fill(0xff);
    garbage["cold_partial"] = json!(hex::encode(&point));
    let garbage_path = d.tmp.path().join("garbage-3.json");
    std::fs::write(&garbage_path, garbage.to_string()).expect("write");
    let partials = format!("{good},{}", garbage_path.display());
    let v = json_failed(&d.sign_with(&c, "a message", &partials, &[1, 2, 3]));
    assert_eq!(v["culprits"], json!([3]), "{v}");
    assert_eq!(v["blame"][0]["role"], "cold", "{v}");

    // Node 5 is gone: recovery signing with it and the audit both name party 5 (node 5)
    // with the evidence there is, no answer.
    c.term(5);
    let v = json_failed(&d.sign(&c, "node 5 is down", &[1, 2, 5]));
    assert_eq!(v["culprits"], json!([5]), "{v}");
    assert_eq!(v["blame"][0]["node"], 5, "{v}");
    assert!(
        v["blame"][0]["evidence"]
            .as_str()
            .unwrap_or_default()
            .contains("no answer from node 5"),
        "{v}"
    );
    let v = json_failed(&d.audit(&c, &c.ids()));
    assert_eq!(v["verified"], false, "{v}");
    assert_eq!(v["culprits"], json!([5]), "{v}");
    assert!(
        v["blame"][0]["evidence"]
            .as_str()
            .unwrap_or_default()
            .contains("no answer from node 5"),
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

/// `client.secret` and `cold.secret` are sealed under the passphrase (no plaintext key on
/// disk), 0600, opened only with the right passphrase, and never replaced without
/// `--force`; the cold custodian's offline flow works on files alone.
#[test]
fn secret_files_are_sealed_0600_and_never_overwritten_without_force() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().expect("tmp");
    let client = tmp.path().join("client");
    let cold = tmp.path().join("cold-1");
    let init = |extra: &[&str]| {
        let mut a = vec!["client", "init", "--dir", client.to_str().expect("utf-8")];
        a.extend_from_slice(extra);
        a.push("--insecure-test-kdf");
        bls(&a)
    };
    let keygen = |extra: &[&str]| {
        let mut a = vec!["cold", "keygen", "--dir", cold.to_str().expect("utf-8")];
        a.extend_from_slice(&["--index", "1", "--insecure-test-kdf"]);
        a.extend_from_slice(extra);
        bls(&a)
    };
    assert_eq!(init(&[]).status.code(), Some(0));
    assert_eq!(keygen(&[]).status.code(), Some(0));
    let pub_before = std::fs::read(client.join("client.pub")).expect("client.pub");
    for (path, field) in [
        (client.join("client.secret"), "bls_secret_key"),
        (cold.join("cold.secret"), "secret_key"),
    ] {
        let bytes = std::fs::read(&path).expect("secret file");
        assert!(bytes.starts_with(b"quorate-sealed"), "{}", path.display());
        assert!(
            !bytes.windows(field.len()).any(|w| w == field.as_bytes()),
            "plaintext in {}",
            path.display()
        );
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", path.display());
    }
    // Again without --force: refused (exit 2), nothing replaced; with --force: replaced.
    assert_eq!(init(&[]).status.code(), Some(2));
    assert_eq!(keygen(&[]).status.code(), Some(2));
    assert_eq!(
        std::fs::read(client.join("client.pub")).expect("client.pub"),
        pub_before
    );
    // The custodian opens its secret only with the right passphrase.
    let enroll = |pass: &str| {
        quorate()
            .env("QUORATE_PASSPHRASE", pass)
            .args(["bls", "cold", "enroll", "--dir"])
            .arg(&cold)
            .arg("--client")
            .arg(client.join("client.pub"))
            .arg("--out")
            .arg(tmp.path().join(format!("pad-{}.json", pass.len())))
            .output()
            .expect("enroll")
    };
    let wrong = enroll("not the passphrase");
    assert_eq!(wrong.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("wrong passphrase"));
    assert_eq!(enroll(crate::common::cluster::PASS).status.code(), Some(0));
    assert_eq!(init(&["--force"]).status.code(), Some(0));
    assert_ne!(
        std::fs::read(client.join("client.pub")).expect("client.pub"),
        pub_before
    );
}
