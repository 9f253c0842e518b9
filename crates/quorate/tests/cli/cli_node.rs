//! `quorate node init|roster|show` through the real binary: the JSON contract, refusals with
//! exit code 2, and nothing overwritten.

use std::path::Path;
use std::process::{Command, Output};

fn quorate(args: &[&str], passphrase: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_quorate"));
    cmd.args(args).env_remove("QUORATE_PASSPHRASE");
    if let Some(p) = passphrase {
        cmd.env("QUORATE_PASSPHRASE", p);
    }
    cmd.output().expect("run quorate")
}

fn init(dir: &Path, id: Option<u16>, port: u16, fast_kdf: bool) -> Output {
    let listen = format!("127.0.0.1:{port}");
    let api = format!("127.0.0.1:{}", port + 100);
    let id = id.map(|i| i.to_string());
    let mut args = vec![
        "node",
        "init",
        "--dir",
        dir.to_str().expect("utf8"),
        "--listen",
        &listen,
        "--api",
        &api,
    ];
    if let Some(id) = &id {
        args.extend(["--id", id]);
    }
    if fast_kdf {
        args.push("--insecure-test-kdf");
    }
    quorate(&args, Some("operator passphrase"))
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "status {:?}, stderr {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout.clone()).expect("utf8");
    assert_eq!(text.lines().count(), 1, "one JSON object: {text}");
    serde_json::from_str(&text).expect("json")
}

#[test]
fn node_init_prints_json_and_refuses_to_overwrite() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("n1");
    let v = json(&init(&dir, Some(1), 17001, true));
    assert_eq!(v["id"], 1);
    assert_eq!(v["listen"], "127.0.0.1:17001");
    assert_eq!(v["api"], "127.0.0.1:17101");
    assert_eq!(v["name"], "node-1");
    let pk = v["public_key"].as_str().expect("public_key");
    assert_eq!(pk.len(), 64);

    let again = init(&dir, Some(1), 17001, true);
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("already an initialised node directory"),
        "{err}"
    );
    let shown = json(&quorate(
        &["node", "show", "--dir", dir.to_str().expect("utf8")],
        None,
    ));
    assert_eq!(shown["public_key"], pk, "the node was overwritten");

    // No passphrase: exit 2, nothing created.
    let none = quorate(
        &[
            "node",
            "init",
            "--dir",
            tmp.path().join("n2").to_str().expect("utf8"),
            "--listen",
            "127.0.0.1:17002",
            "--api",
            "127.0.0.1:17102",
        ],
        None,
    );
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("QUORATE_PASSPHRASE"));
    assert!(!tmp.path().join("n2").exists());
}

#[test]
fn node_roster_merges_directories_and_entries() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    let va = json(&init(&a, Some(1), 17011, true));
    // Default Argon2id parameters and a derived id: the path an operator takes.
    let vb = json(&init(&b, None, 17012, false));
    let id_b = vb["id"].as_u64().expect("id");
    assert!((1..=65535).contains(&id_b));

    let out = tmp.path().join("roster.toml");
    let out_s = out.to_str().expect("utf8");
    let entry_b = b.join("public.toml");
    let args = ["node", "roster", "--out", out_s, a.to_str().expect("utf8")];
    let mut with_b = args.to_vec();
    with_b.push(entry_b.to_str().expect("utf8"));
    let v = json(&quorate(&with_b, None));
    assert_eq!(v["nodes"].as_array().expect("nodes").len(), 2);
    let text = std::fs::read_to_string(&out).expect("roster");
    assert!(text.contains(va["public_key"].as_str().expect("pk")));

    let again = quorate(&with_b, None);
    assert_eq!(again.status.code(), Some(2), "overwrote without --force");
    assert_eq!(std::fs::read_to_string(&out).expect("roster"), text);
    let mut forced = with_b.clone();
    forced.insert(2, "--force");
    json(&quorate(&forced, None));

    let dup = quorate(
        &[
            "node",
            "roster",
            "--out",
            tmp.path().join("dup.toml").to_str().expect("utf8"),
            a.to_str().expect("utf8"),
            a.join("public.toml").to_str().expect("utf8"),
        ],
        None,
    );
    assert_eq!(dup.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&dup.stderr).contains("duplicate node id 1"));
    assert!(!tmp.path().join("dup.toml").exists());
}

/// `node check --json`: a configuration error (missing roster, wrong passphrase) exits 2
/// with one JSON object `{"error": …}` on stdout, like every other `--json` command.
#[test]
fn node_check_json_errors_are_json() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("n1");
    json(&init(&dir, Some(1), 17021, true));
    let roster = tmp.path().join("missing-roster.toml");
    let args = [
        "node",
        "check",
        "--json",
        "--dir",
        dir.to_str().expect("utf8"),
        "--roster",
        roster.to_str().expect("utf8"),
    ];
    for (passphrase, needle) in [
        ("operator passphrase", "missing-roster.toml"),
        ("wrong passphrase", "passphrase"),
    ] {
        let out = quorate(&args, Some(passphrase));
        assert_eq!(out.status.code(), Some(2), "{passphrase}");
        let text = String::from_utf8(out.stdout).expect("utf8");
        assert_eq!(text.lines().count(), 1, "one JSON object: {text:?}");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        let error = v["error"].as_str().expect("error field");
        assert!(error.contains(needle), "{passphrase}: {error}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("error: "));
    }
}
