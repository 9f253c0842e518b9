//! `quorate verenc`: the demo's JSON contract, `verify` exit codes (0 valid, 1 invalid,
//! 2 malformed) and the file-based keygen → backup → verify → recover flow.
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The passphrase the escrow's secret key file is sealed under.
const PASS: &str = "escrow-test-passphrase";

fn quorate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quorate"))
        .args(args)
        .env("QUORATE_PASSPHRASE", PASS)
        .output()
        .expect("the quorate binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh directory per test process (a process id alone can repeat across runs, and
/// `verenc keygen` rightly refuses to overwrite a key file left by an earlier run).
fn scratch(name: &str) -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("quorate-cli-verenc-")
            .tempdir()
            .expect("a scratch directory")
            .keep()
    })
    .join(name)
}

fn demo_json(scheme: &str, curve: &str) -> Value {
    let out = quorate(&[
        "verenc", "demo", "--scheme", scheme, "--curve", curve, "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn verify_file(path: &Path) -> Output {
    quorate(&["verenc", "verify", "--input", path.to_str().unwrap()])
}

fn recover(secret: &Path, input: &Path) -> Output {
    quorate(&[
        "verenc",
        "recover",
        "--escrow-secret",
        secret.to_str().unwrap(),
        "--input",
        input.to_str().unwrap(),
    ])
}

fn write_json(name: &str, v: &Value) -> PathBuf {
    let p = scratch(name);
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn demo_json_has_the_contract_fields_and_verifies() {
    for (scheme, curve) in [("rdkgith", "secp256k1"), ("dkgith", "ed25519")] {
        let v = demo_json(scheme, curve);
        for field in [
            "scheme",
            "curve",
            "public_share",
            "escrow_public_key",
            "ciphertext",
            "proof",
            "label",
        ] {
            let s = v[field]
                .as_str()
                .unwrap_or_else(|| panic!("{field} missing"));
            if field != "scheme" && field != "curve" {
                assert!(hex::decode(s).is_ok(), "{field} is not hex");
            }
        }
        assert_eq!(v["scheme"], scheme);
        assert_eq!(v["curve"], curve);
        let path = write_json(&format!("demo-{scheme}.json"), &v);
        let out = verify_file(&path);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

        // A changed label: valid encoding, invalid backup → exit 1 with a reason.
        let mut bad = v.clone();
        bad["label"] = Value::String(hex::encode(b"another context"));
        let out = verify_file(&write_json(&format!("label-{scheme}.json"), &bad));
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out.stdout).starts_with("invalid"));

        // A tampered compressed ciphertext is not valid either.
        let mut bad = v.clone();
        let mut ct = hex::decode(v["ciphertext"].as_str().unwrap()).unwrap();
        let last = ct.len() - 1;
        ct[last] ^= 1;
        bad["ciphertext"] = Value::String(hex::encode(ct));
        let out = verify_file(&write_json(&format!("ct-{scheme}.json"), &bad));
        assert_ne!(out.status.code(), Some(0));
        assert!(!text(&out.stderr).contains("panicked"));
    }
}

#[test]
fn malformed_input_exits_2_without_panicking() {
    let v = demo_json("rdkgith", "secp256k1");
    let cases: Vec<Value> = vec![
        serde_json::json!({}),
        serde_json::json!({"scheme": "rsa"}),
        {
            let mut t = v.clone();
            t["proof"] = Value::String("zz".into());
            t
        },
        {
            let mut t = v.clone();
            let p = v["proof"].as_str().unwrap();
            t["proof"] = Value::String(p[..p.len() - 2].into());
            t
        },
        {
            let mut t = v.clone();
            // Not a SEC1 point: prefix 0x05.
            t["public_share"] = Value::String(format!("05{}", "00".repeat(32)));
            t
        },
        {
            let mut t = v.clone();
            t["escrow_public_key"] = Value::String(String::new());
            t
        },
    ];
    for (i, case) in cases.iter().enumerate() {
        let out = verify_file(&write_json(&format!("malformed-{i}.json"), case));
        assert_eq!(
            out.status.code(),
            Some(2),
            "case {i}: {}",
            text(&out.stdout)
        );
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(stderr.starts_with("error:"), "{stderr}");
    }
    let not_json = scratch("not-json.json");
    std::fs::write(&not_json, "{ not json").unwrap();
    assert_eq!(verify_file(&not_json).status.code(), Some(2));
    assert_eq!(verify_file(&scratch("missing.json")).status.code(), Some(2));
}

#[test]
fn keygen_backup_verify_recover_with_files() {
    let public = scratch("escrow.pub.json");
    let secret = scratch("escrow.key.json");
    let out = quorate(&[
        "verenc",
        "keygen",
        "--scheme",
        "rdkgith",
        "--curve",
        "secp256k1",
        "--public-out",
        public.to_str().unwrap(),
        "--secret-out",
        secret.to_str().unwrap(),
        "--insecure-test-kdf",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&secret).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "escrow secret key readable by others");
    }
    // The secret key is sealed, not plaintext JSON.
    let sealed = std::fs::read(&secret).unwrap();
    assert!(sealed.starts_with(b"quorate-sealed\0"));
    assert!(serde_json::from_slice::<Value>(&sealed).is_err());
    assert!(!text(&sealed).contains("escrow_secret_key"));
    let x = "0b".repeat(32);
    let share = scratch("share.hex");
    std::fs::write(&share, &x).unwrap();
    let bundle = scratch("backup.json");
    let out = quorate(&[
        "verenc",
        "backup",
        "--escrow",
        public.to_str().unwrap(),
        "--secret-file",
        share.to_str().unwrap(),
        "--label",
        "wallet 7 share 3",
        "--out",
        bundle.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // Not verified yet: the escrow has no compressed ciphertext to decrypt.
    let out = recover(&secret, &bundle);
    assert_eq!(out.status.code(), Some(2));

    let stored = scratch("stored.json");
    let out = quorate(&[
        "verenc",
        "verify",
        "--input",
        bundle.to_str().unwrap(),
        "--out",
        stored.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(verify_file(&stored).status.code(), Some(0));

    let out = recover(&secret, &stored);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), x);

    // The passphrase may come from --passphrase-file; a wrong one is a clear error.
    let recover_with = |pass: &str| {
        let file = scratch("escrow.pass");
        std::fs::write(&file, pass).unwrap();
        Command::new(env!("CARGO_BIN_EXE_quorate"))
            .args(["verenc", "recover", "--escrow-secret"])
            .arg(&secret)
            .arg("--input")
            .arg(&stored)
            .arg("--passphrase-file")
            .arg(&file)
            .env_remove("QUORATE_PASSPHRASE")
            .output()
            .unwrap()
    };
    let out = recover_with(PASS);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), x);
    let out = recover_with("not the passphrase");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("wrong passphrase"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

/// CS03 through the CLI (one 3072-bit escrow key, ~10 s): the contract fields, exit 0 for
/// the demo's bundle, 1 for a changed label, ciphertext or proof, 2 for a truncated proof.
#[test]
fn cs03_demo_verifies_and_tampering_is_rejected() {
    let v = demo_json("cs03", "p256");
    assert_eq!(v["scheme"], "cs03");
    assert_eq!(v["recovered"], true);
    let ct = hex::decode(v["ciphertext"].as_str().unwrap()).unwrap();
    assert_eq!(ct.len(), 3 * 3072 / 4, "|C| = 3 elements of Z_{{n²}}");
    let proof = hex::decode(v["proof"].as_str().unwrap()).unwrap();
    let out = verify_file(&write_json("cs03-demo.json", &v));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

    let flip = |field: &str, pos: usize| -> Value {
        let mut b = hex::decode(v[field].as_str().unwrap()).unwrap();
        b[pos] ^= 0x04;
        let mut t = v.clone();
        t[field] = Value::String(hex::encode(b));
        t
    };
    let mut label = v.clone();
    label["label"] = Value::String(hex::encode(b"another context"));
    for (i, (case, want)) in [
        (label, 1),
        (flip("ciphertext", 0), 1),
        (flip("ciphertext", ct.len() / 2), 1),
        (flip("ciphertext", ct.len() - 1), 1),
        (flip("proof", proof.len() - 1), 1),
        (
            {
                let mut t = v.clone();
                let p = v["proof"].as_str().unwrap();
                t["proof"] = Value::String(p[..p.len() - 2].into());
                t
            },
            2,
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let out = verify_file(&write_json(&format!("cs03-bad-{i}.json"), &case));
        assert_eq!(
            out.status.code(),
            Some(want),
            "case {i}: {}",
            text(&out.stdout)
        );
        let msg = if want == 1 {
            text(&out.stdout)
        } else {
            text(&out.stderr)
        };
        assert_eq!(
            msg.trim_end().lines().count(),
            1,
            "case {i}: one-line reason: {msg}"
        );
        assert!(!text(&out.stderr).contains("panicked"));
    }
}
