//! `quorate cosi timestamp verify`: exit codes on receipts from a real server on loopback.
#![allow(clippy::unwrap_used)]

use quorate::timestamp::read_roster;
use quorate_cosi::timestamp::{Hash, Receipt};
use quorate_timestamp::loadgen::ticket_of;
use quorate_timestamp::{ServerConfig, Service, Store};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let dir = std::env::temp_dir().join(format!(
            "quorate-ts-cli-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn hash(i: u8) -> Hash {
    [i; 32]
}

fn quorate(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_quorate"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn verify_command_exit_codes() {
    let dir = TempDir::new("cli");
    let db = dir.path("ts.sqlite");
    let config = ServerConfig {
        round_interval: Duration::from_millis(20),
        ..ServerConfig::default()
    };
    let service = Service::start(
        "127.0.0.1:0".parse().unwrap(),
        Store::open(&db).unwrap(),
        4,
        config,
    )
    .unwrap();
    let (status, body) = service.call("POST", "/v1/submit", &hash(42)).unwrap();
    assert_eq!(status, 200);
    let ticket = ticket_of(&body).unwrap();
    let (status, body) = service
        .call("GET", &format!("/v1/receipt/{ticket}?wait=1"), b"")
        .unwrap();
    assert_eq!(status, 200);
    let receipt = Receipt::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
    let (_, roster) = service.call("GET", "/v1/roster", b"").unwrap();
    let roster_json = String::from_utf8(roster).unwrap();
    service.shutdown().unwrap();
    let receipt_file = dir.path("receipt.json");
    let roster_file = dir.path("roster.json");
    std::fs::write(&receipt_file, receipt.to_json()).unwrap();
    std::fs::write(&roster_file, &roster_json).unwrap();
    assert_eq!(read_roster(&roster_file).unwrap().len(), 4);
    let rf = receipt_file.to_str().unwrap();
    let ro = roster_file.to_str().unwrap();
    let verify = |extra: &[&str]| {
        let mut args = vec![
            "cosi",
            "timestamp",
            "verify",
            "--receipt",
            rf,
            "--roster",
            ro,
        ];
        args.extend_from_slice(extra);
        quorate(&args)
    };

    let (code, stdout, _) = verify(&[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.starts_with("valid"));
    let (code, _, _) = verify(&["--hash", &hex::encode(hash(42))]);
    assert_eq!(code, Some(0));
    let (code, _, _) = verify(&["--threshold", "3"]);
    assert_eq!(code, Some(0));

    // Invalid: another hash, a tampered receipt, another roster.
    let (code, stdout, _) = verify(&["--hash", &hex::encode(hash(43))]);
    assert_eq!(code, Some(1));
    assert!(stdout.starts_with("invalid:"), "{stdout}");
    let mut tampered = receipt.clone();
    tampered.time_ms += 1;
    let tampered_file = dir.path("tampered.json");
    std::fs::write(&tampered_file, tampered.to_json()).unwrap();
    let (code, stdout, stderr) = quorate(&[
        "cosi",
        "timestamp",
        "verify",
        "--receipt",
        tampered_file.to_str().unwrap(),
        "--roster",
        ro,
    ]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("signature"), "{stdout}");
    let mut keys: Vec<String> = serde_json::from_str(&roster_json).unwrap();
    keys.reverse();
    let other_roster = dir.path("other-roster.json");
    std::fs::write(&other_roster, serde_json::to_string(&keys).unwrap()).unwrap();
    let (code, stdout, _) = quorate(&[
        "cosi",
        "timestamp",
        "verify",
        "--receipt",
        rf,
        "--roster",
        other_roster.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1));
    assert!(stdout.contains("roster"), "{stdout}");

    // Malformed: bad hash argument, garbage files, missing file, bad threshold.
    let garbage = dir.path("garbage.json");
    std::fs::write(&garbage, "{ not json").unwrap();
    let g = garbage.to_str().unwrap();
    for args in [
        vec!["--hash", "xyz"],
        vec!["--threshold", "0"],
        vec!["--threshold", "5"],
    ] {
        let (code, _, stderr) = verify(&args);
        assert_eq!(code, Some(2), "{args:?}");
        assert!(!stderr.contains("panicked"));
    }
    for (receipt_arg, roster_arg) in [(g, ro), (rf, g), ("/nonexistent/r.json", ro)] {
        let (code, _, stderr) = quorate(&[
            "cosi",
            "timestamp",
            "verify",
            "--receipt",
            receipt_arg,
            "--roster",
            roster_arg,
        ]);
        assert_eq!(code, Some(2));
        assert!(stderr.starts_with("error:"), "{stderr}");
        assert!(!stderr.contains("panicked"));
    }
    // A signature of the wrong length for the roster cannot be parsed: exit 2, not 1
    // (issue 18, item 7), whether it is one byte short or one byte long.
    for len in [receipt.signature.len() - 1, receipt.signature.len() + 1] {
        let mut wrong = receipt.clone();
        wrong.signature.resize(len, 0);
        let wrong_file = dir.path(&format!("wrong-length-{len}.json"));
        std::fs::write(&wrong_file, wrong.to_json()).unwrap();
        let (code, stdout, stderr) = verify_with_roster(wrong_file.to_str().unwrap(), ro);
        assert_eq!(code, Some(2), "length {len}: {stdout}{stderr}");
        assert!(stderr.contains("signature"), "{stderr}");
        assert!(stderr.contains("roster has 4 witnesses"), "{stderr}");
    }
    // A roster entry that is not a valid key is malformed input.
    let bad_key = dir.path("bad-key.json");
    std::fs::write(&bad_key, format!("[\"{}\"]", "00".repeat(96))).unwrap();
    let (code, _, _) = verify_with_roster(rf, bad_key.to_str().unwrap());
    assert_eq!(code, Some(2));
    // The old format, bare public keys, is refused: no proofs of possession (issue 13).
    let entries: Vec<String> = serde_json::from_str(&roster_json).unwrap();
    let bare: Vec<&str> = entries.iter().map(|e| &e[..64]).collect();
    let bare_file = dir.path("bare-keys.json");
    std::fs::write(&bare_file, serde_json::to_string(&bare).unwrap()).unwrap();
    let (code, _, stderr) = verify_with_roster(rf, bare_file.to_str().unwrap());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("proof of possession"), "{stderr}");
    // An entry whose proof belongs to another key: refused, naming the entry.
    let mut swapped_pops = entries.clone();
    swapped_pops[1] = format!("{}{}", &entries[1][..64], &entries[2][64..]);
    let swapped_file = dir.path("swapped-pops.json");
    std::fs::write(&swapped_file, serde_json::to_string(&swapped_pops).unwrap()).unwrap();
    let (code, _, stderr) = verify_with_roster(rf, swapped_file.to_str().unwrap());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("witness P2: proof of possession"),
        "{stderr}"
    );
}

fn verify_with_roster(receipt: &str, roster: &str) -> (Option<i32>, String, String) {
    quorate(&[
        "cosi",
        "timestamp",
        "verify",
        "--receipt",
        receipt,
        "--roster",
        roster,
    ])
}

/// Issue 15 §3 item 2: SIGTERM (systemd, docker) seals the open batch as SIGINT does. Before,
/// SIGTERM killed the process and the submitted hash was gone.
#[cfg(unix)]
#[test]
fn sigterm_seals_the_open_batch() {
    use std::io::BufRead as _;
    let dir = TempDir::new("sigterm");
    let db = dir.path("ts.sqlite");
    let db_arg = db.to_str().unwrap();
    // Rounds every minute: only the shutdown can seal the batch.
    let mut child = Command::new(env!("CARGO_BIN_EXE_quorate"))
        .args([
            "cosi",
            "timestamp",
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--witnesses",
            "2",
        ])
        .args(["--round-ms", "60000", "--db", db_arg])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr: std::net::SocketAddr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (status, body) = rt
        .block_on(quorate_timestamp::loadgen::http_call(
            addr,
            "POST",
            "/v1/submit",
            &hash(9),
        ))
        .unwrap();
    assert_eq!(status, 200);
    let ticket = ticket_of(&body).unwrap();
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(child.wait().unwrap().success());

    let config = ServerConfig {
        round_interval: Duration::from_secs(60),
        max_wait: Duration::from_secs(10),
        ..ServerConfig::default()
    };
    let service = Service::start(
        "127.0.0.1:0".parse().unwrap(),
        Store::open(&db).unwrap(),
        2,
        config,
    )
    .unwrap();
    let (status, body) = service
        .call("GET", &format!("/v1/receipt/{ticket}"), b"")
        .unwrap();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let receipt = Receipt::from_json(std::str::from_utf8(&body).unwrap()).unwrap();
    receipt.verify(&service.verifier(), Some(&hash(9))).unwrap();
    service.shutdown().unwrap();
}

/// Issue 15 §3 item 6: `timestamp load` exits non-zero when requests or connections fail.
/// Before, a server that never answered gave "0 ok, N errors" and exit 0.
#[test]
fn load_exits_non_zero_on_failures() {
    // A closed port: nothing listens.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_addr = closed.local_addr().unwrap().to_string();
    drop(closed);
    // A silent server: connections complete (the kernel's backlog) but nobody answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_addr = silent.local_addr().unwrap().to_string();
    for addr in [&closed_addr, &silent_addr] {
        let (code, out, err) = quorate(&[
            "cosi",
            "timestamp",
            "load",
            "--addr",
            addr,
            "--connections",
            "2",
            "--seconds",
            "0.3",
        ]);
        assert_eq!(code, Some(2), "{addr}: {out}{err}");
        assert!(err.contains("error"), "{addr}: {err}");
    }
    drop(silent);
}

/// Issue 15 §3 items 3 and 8: `submit --wait`, `fetch` by ticket and by hash (the lost-ticket
/// lookup), `check-chain` online and offline, with their exit codes and `--json`.
#[test]
fn client_commands_submit_fetch_and_check_the_chain() {
    let dir = TempDir::new("client");
    let config = ServerConfig {
        round_interval: Duration::from_millis(20),
        max_wait: Duration::from_secs(10),
        ..ServerConfig::default()
    };
    let service = Service::start(
        "127.0.0.1:0".parse().unwrap(),
        Store::open(&dir.path("ts.sqlite")).unwrap(),
        3,
        config,
    )
    .unwrap();
    let addr = service.local_addr().to_string();
    let (_, roster) = service.call("GET", "/v1/roster", b"").unwrap();
    let roster_file = dir.path("roster.json");
    std::fs::write(&roster_file, roster).unwrap();
    let ro = roster_file.to_str().unwrap();
    let ts = |args: &[&str]| {
        let mut all = vec!["cosi", "timestamp"];
        all.extend_from_slice(args);
        quorate(&all)
    };

    // Submit a file's SHA-256 and wait for the receipt.
    let doc = dir.path("doc.txt");
    std::fs::write(&doc, b"hello").unwrap();
    let receipt_file = dir.path("receipt.json");
    let (code, out, err) = ts(&[
        "submit",
        "--addr",
        &addr,
        "--file",
        doc.to_str().unwrap(),
        "--wait",
        "--out",
        receipt_file.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let submitted: serde_json::Value = serde_json::from_str(&out).unwrap();
    let doc_hash = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
    assert_eq!(submitted["hash"], doc_hash);
    let ticket = submitted["ticket"].as_str().unwrap().to_owned();
    let (code, out, _) = ts(&[
        "verify",
        "--receipt",
        receipt_file.to_str().unwrap(),
        "--roster",
        ro,
        "--hash",
        doc_hash,
    ]);
    assert_eq!(code, Some(0), "{out}");

    // Fetch by ticket, and by hash (a lost ticket), verified against the roster.
    let (code, out, err) = ts(&[
        "fetch", "--addr", &addr, "--ticket", &ticket, "--roster", ro,
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("valid under the given roster"), "{out}");
    let (code, out, err) = ts(&[
        "fetch", "--addr", &addr, "--hash", doc_hash, "--roster", ro, "--json",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let fetched: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(fetched["valid"], true);
    assert_eq!(fetched["receipt"]["hash"], doc_hash);
    // Submit the same hash again: the lookup still gives the earliest receipt.
    let (code, _, _) = ts(&["submit", "--addr", &addr, "--hash", doc_hash, "--wait"]);
    assert_eq!(code, Some(0));
    let (code, out, _) = ts(&["fetch", "--addr", &addr, "--hash", doc_hash, "--json"]);
    assert_eq!(code, Some(0));
    let again: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(again["receipt"], fetched["receipt"]);

    // Negative answers: exit 1.
    let unknown = hex::encode(hash(77));
    let (code, out, _) = ts(&["fetch", "--addr", &addr, "--hash", &unknown]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.starts_with("not found"), "{out}");
    let nonce = ticket.rsplit('-').next().unwrap();
    let (code, _, _) = ts(&[
        "fetch",
        "--addr",
        &addr,
        "--ticket",
        &format!("0-99-{nonce}"),
    ]);
    assert_eq!(code, Some(1));
    // The receipt checked against a roster that did not sign it.
    let mut entries: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(&roster_file).unwrap()).unwrap();
    entries.reverse();
    let other = dir.path("other.json");
    std::fs::write(&other, serde_json::to_string(&entries).unwrap()).unwrap();
    let other = other.to_str().unwrap();
    let (code, out, _) = ts(&[
        "fetch", "--addr", &addr, "--ticket", &ticket, "--roster", other,
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.starts_with("invalid"), "{out}");

    // The whole chain, downloaded and checked, saved, then checked offline.
    let rounds_file = dir.path("rounds.jsonl");
    let (code, out, err) = ts(&[
        "check-chain",
        "--addr",
        &addr,
        "--roster",
        ro,
        "--save",
        rounds_file.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let checked: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(checked["rounds"], 2);
    service.shutdown().unwrap();
    let rf = rounds_file.to_str().unwrap();
    let (code, out, _) = ts(&["check-chain", "--rounds", rf, "--roster", ro]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("valid: 2 rounds"), "{out}");
    let (code, out, _) = ts(&["check-chain", "--rounds", rf, "--roster", other]);
    assert_eq!(code, Some(1), "{out}");
    // A rewritten round 0 (another root, derived fields recomputed would need a signature):
    // dropping round 0 leaves a chain that does not start at genesis.
    let text = std::fs::read_to_string(&rounds_file).unwrap();
    let only_last = dir.path("only-last.jsonl");
    std::fs::write(&only_last, text.lines().nth(1).unwrap()).unwrap();
    let (code, out, _) = ts(&[
        "check-chain",
        "--rounds",
        only_last.to_str().unwrap(),
        "--roster",
        ro,
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("expected round 0, found round 1"), "{out}");
    let mut first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let sig = first["signature"].as_str().unwrap().to_owned();
    let flipped = if &sig[80..81] == "0" { "1" } else { "0" };
    first["signature"] = format!("{}{flipped}{}", &sig[..80], &sig[81..]).into();
    let forged = dir.path("forged.jsonl");
    std::fs::write(
        &forged,
        format!("{first}\n{}\n", text.lines().nth(1).unwrap()),
    )
    .unwrap();
    let (code, out, _) = ts(&[
        "check-chain",
        "--rounds",
        forged.to_str().unwrap(),
        "--roster",
        ro,
        "--json",
    ]);
    assert_eq!(code, Some(1), "{out}");
    let verdict: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(verdict["valid"], false);
    assert!(
        verdict["error"].as_str().unwrap().starts_with("round 0"),
        "{verdict}"
    );

    // Could not ask: exit 2 (malformed hash, garbage rounds file, no server).
    let (code, _, err) = ts(&["submit", "--addr", &addr, "--hash", "xyz"]);
    assert_eq!(code, Some(2), "{err}");
    let garbage = dir.path("garbage.jsonl");
    std::fs::write(&garbage, "{ not json\n").unwrap();
    let (code, _, err) = ts(&[
        "check-chain",
        "--rounds",
        garbage.to_str().unwrap(),
        "--roster",
        ro,
    ]);
    assert_eq!(code, Some(2), "{err}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_addr = closed.local_addr().unwrap().to_string();
    drop(closed);
    let (code, out, _) = ts(&[
        "submit",
        "--addr",
        &closed_addr,
        "--hash",
        doc_hash,
        "--json",
    ]);
    assert_eq!(code, Some(2));
    let failed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(failed["ok"], false);
}
