//! `quorate node run | check` as real processes on 127.0.0.1 (harness: `common::cluster`):
//! a roster-wide check, sessions through the operator API, clean stops on SIGTERM and SIGINT,
//! a node killed with SIGKILL in the middle of a session (named by the others, then back in
//! service after a restart), refusals with exit code 2 that leave every file as it was, and a
//! check that waits for a node still starting.
//! Every child is signalled by its PID; every wait is bounded.

use crate::common::cluster::{free_tcp, free_udp, ok, quorate, signal, wait_for, Cluster};
use serde_json::{json, Value};

fn culprits(outcome: &Value) -> Vec<u64> {
    outcome["culprits"]
        .as_array()
        .expect("culprits")
        .iter()
        .map(|v| v.as_u64().expect("id"))
        .collect()
}

#[test]
fn three_nodes_run_check_serve_and_stop_on_signals() {
    let mut c = Cluster::start(3, &[]);

    // Every node reachable and authenticated, seen from node 1.
    let (code, rows) = c.check(1);
    assert_eq!(code, 0, "{rows}");
    let rows = rows.as_array().expect("array").clone();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");

    // A session through node 1's operator API.
    let v = c.ping(1, "proc-1", &[1, 2, 3]);
    assert_eq!(v["status"], "completed", "{v}");

    // SIGTERM stops node 3 cleanly; the check then names it and exits 1.
    assert!(c.term(3).success());
    let (code, rows) = c.check(1);
    assert_eq!(code, 1, "{rows}");
    let bad: Vec<&Value> = rows
        .as_array()
        .expect("array")
        .iter()
        .filter(|r| r["status"] != "ok")
        .collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0]["id"].as_u64(), Some(3));

    // SIGINT stops the others cleanly.
    assert!(c.stop_with(1, "INT").success());
    assert!(c.stop_with(2, "INT").success());
}

/// kill -9 of a node while a session waits for it: the coordinator and the other participant
/// abort the attempt at the round deadline naming it (and show "waiting for node 3" while they
/// wait), the coordinator retries without it, and after a restart the node serves sessions
/// again, as participant and as coordinator.
#[test]
fn a_node_killed_mid_session_is_named_and_serves_again_after_restart() {
    let mut c = Cluster::start(3, &[]);
    let warm = c.ping(1, "warm", &[1, 2, 3]);
    assert_eq!(warm["status"], "completed", "{warm}");

    // Node 3 freezes (it keeps its sockets but answers nothing), a session starts, and node 3
    // is killed while nodes 1 and 2 wait for its round-1 message.
    c.pause(3);
    let pid3 = c.pid(3);
    let request = json!({
        "request_id": "during-kill",
        "protocol": "ping",
        "participants": [1, 2, 3],
        // Every observation of the waiting state below must fit in this deadline: generous,
        // so that a loaded machine does not end the round first.
        "round_timeout_ms": 6000,
    });
    let record = std::thread::scope(|s| {
        let submit = s.spawn(|| c.session(1, &request));
        for id in [1, 2] {
            let w = wait_for("the waiting list to name node 3", || {
                c.waiting(id).into_iter().find(|w| w["nodes"] == json!([3]))
            });
            assert_eq!(w["request_id"], "during-kill");
            assert_eq!(w["description"], "waiting for node 3 in round 1");
        }
        let m = c.metrics(1);
        assert!(
            m.lines()
                .any(|l| l.starts_with("quorate_session_waiting_for{")
                    && l.contains("request_id=\"during-kill\"")
                    && l.contains("node=\"3\"")
                    && l.ends_with(" 1")),
            "{m}"
        );
        signal(pid3, "KILL");
        submit.join().expect("submit thread")
    });
    let status = c.wait_exit(3);
    assert!(!status.success());

    // Attempt 1 aborted at the deadline naming node 3; the retry without it completed.
    assert_eq!(record["status"], "completed", "{record}");
    let attempts = record["attempts"].as_array().expect("attempts");
    assert_eq!(attempts.len(), 2, "{record}");
    let first = &attempts[0]["outcome"];
    assert_eq!(first["status"], "aborted", "{record}");
    assert_eq!(first["reason"], "timed out waiting for node 3 in round 1");
    assert_eq!(culprits(first), vec![3]);
    assert_eq!(attempts[1]["participants"], json!([1, 2]));
    assert_eq!(attempts[1]["outcome"]["status"], "completed");
    // Node 2 (a participant, not the coordinator) aborts its attempt naming node 3 too, at
    // its own deadline: it started round 1 when the proposal reached it, after node 1 did, so
    // under load it may still be waiting when node 1's retry has already completed.
    // (Its counter moves just before its log line is written: wait for both.)
    wait_for("node 2 to abort attempt 1 naming node 3", || {
        (c.counter(2, "quorate_sessions_aborted_total") >= 1
            && c.waiting(2).is_empty()
            && c.log(2).contains("waiting for node 3 in round 1"))
        .then_some(())
    });
    assert!(c.waiting(1).is_empty());
    // A log written to a file is plain text, without terminal colour codes.
    assert!(!c.log(2).contains('\u{1b}'), "ANSI escapes in node 2's log");
    // The same request id returns the same record, without running again.
    assert_eq!(c.session(1, &request), record);

    // Node 3 restarts on its directory and takes part again, as participant and coordinator,
    // in the first attempt: its peers' connections to its previous life are reset at once
    // (QUIC stateless reset under a key derived from its identity), not left to time out.
    c.restart(3);
    let again = c.ping(1, "after-restart-1", &[1, 2, 3]);
    assert_eq!(again["status"], "completed", "{again}\n{}", c.logs());
    assert_eq!(
        again["attempts"].as_array().map(Vec::len),
        Some(1),
        "{again}\n{}",
        c.logs()
    );
    let from3 = c.ping(3, "after-restart-3", &[1, 2, 3]);
    assert_eq!(from3["status"], "completed", "{from3}\n{}", c.logs());
}

/// Two `node run` on one directory: the second refuses (exit 2) and the first keeps serving.
#[test]
fn a_second_run_on_the_same_directory_is_refused() {
    let c = Cluster::start(2, &[]);
    let out = c.run_command(1).output().expect("second run of node 1");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("in use by another `quorate node run`"),
        "{err}"
    );
    let v = c.ping(1, "still-serving", &[1, 2]);
    assert_eq!(v["status"], "completed", "{v}");
}

/// The contents of every file of a directory, by name.
fn snapshot(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read"))
        })
        .collect();
    files.sort();
    files
}

/// Every file of `before` is still there with the same contents (a refused start may add
/// the lock file and the session records, never change what was there).
fn assert_unchanged(dir: &std::path::Path, before: &[(String, Vec<u8>)]) {
    let now = snapshot(dir);
    for (name, bytes) in before {
        let found = now.iter().find(|(n, _)| n == name);
        assert!(
            found.is_some_and(|(_, b)| b == bytes),
            "{name} was changed or removed by a refused start"
        );
    }
}

/// Wrong passphrase, a corrupted keystore, a roster whose entry for the node holds another
/// key, and a missing directory: each is exit 2 with a typed message, no file changes, and
/// the node runs normally once the fault is gone.
#[test]
fn run_refuses_bad_passphrase_keystore_and_roster_and_loses_nothing() {
    let mut c = Cluster::init(2);
    let dir = c.dir(1).to_path_buf();
    let before = snapshot(&dir);
    let refused = |cmd: &mut std::process::Command, expect: &str| {
        let out = cmd.output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: ") && err.contains(expect), "{err}");
    };

    refused(
        c.run_command(1).env("QUORATE_PASSPHRASE", "wrong"),
        "wrong passphrase",
    );
    assert_unchanged(&dir, &before);

    // A roster whose entry for node 1 holds node 2's key (and the reverse).
    let text = std::fs::read_to_string(&c.roster).expect("roster");
    let k1 = c.node_key(1);
    let k2 = c.node_key(2);
    let swapped = text
        .replace(&k1, "KEY-ONE")
        .replace(&k2, &k1)
        .replace("KEY-ONE", &k2);
    let bad_roster = c.tmp.path().join("swapped.toml");
    std::fs::write(&bad_roster, swapped).expect("write");
    refused(
        quorate()
            .args(["node", "run", "--dir"])
            .arg(&dir)
            .arg("--roster")
            .arg(&bad_roster),
        "our identity key is not the roster key of node 1",
    );
    assert_unchanged(&dir, &before);

    // A corrupted keystore: every byte after SQLite's 100-byte file header flipped.
    let ks = dir.join("keystore.db");
    let good = std::fs::read(&ks).expect("keystore");
    let mut bad = good.clone();
    for b in &mut bad[100..] {
        *b ^= 0x5a;
    }
    std::fs::write(&ks, &bad).expect("corrupt");
    refused(&mut c.run_command(1), "keystore");
    assert_eq!(std::fs::read(&ks).expect("keystore"), bad);
    // A truncated one.
    std::fs::write(&ks, &good[..good.len() / 3]).expect("truncate");
    refused(&mut c.run_command(1), "keystore");
    std::fs::write(&ks, &good).expect("restore");
    assert_unchanged(&dir, &before);

    // A missing directory.
    refused(
        quorate()
            .args(["node", "check", "--roster"])
            .arg(&c.roster)
            .arg("--dir")
            .arg(c.tmp.path().join("missing")),
        "",
    );

    // With the faults gone the nodes run and serve.
    c.spawn(1);
    c.spawn(2);
    c.wait_healthy(1);
    c.wait_healthy(2);
    let v = c.ping(2, "after-refusals", &[1, 2]);
    assert_eq!(v["status"], "completed", "{v}");
}

/// Authentication failures seen by `node check`: a roster that sends node 1 to node 2's
/// address (node 2 presents its own, valid certificate where node 3's is expected), and a
/// node whose key the others' roster does not hold. Both are named per node; the real
/// roster still checks clean.
#[test]
fn check_names_a_peer_with_another_nodes_certificate_and_an_unknown_key() {
    let c = Cluster::start(3, &[]);

    // Node 3's roster address points at node 2.
    // Nodes 2 and 3 swap addresses in a roster: dialling node 3 reaches node 2, which
    // presents its own (valid) certificate, and the reverse.
    let text = std::fs::read_to_string(&c.roster).expect("roster");
    let a2 = c.node(2).listen.to_string();
    let a3 = c.node(3).listen.to_string();
    let swapped = text
        .replace(&a2, "ADDR-TWO")
        .replace(&a3, &a2)
        .replace("ADDR-TWO", &a3);
    let misrouted = c.tmp.path().join("misrouted.toml");
    std::fs::write(&misrouted, swapped).expect("write");
    let rows = check_rows(&misrouted, c.dir(1), 1);
    for id in [2, 3] {
        let r = row(&rows, id);
        assert_eq!(r["status"], "error", "{rows}");
        let e = r["error"].as_str().expect("error");
        assert!(
            e.contains(&format!("node {id}")) && e.contains("roster key"),
            "{e}"
        );
    }
    assert_eq!(row(&rows, 1)["status"], "ok");

    // A fourth node, unknown to the running nodes' roster, checks with a roster that holds
    // it: every running node refuses its key.
    let d4 = c.tmp.path().join("n4");
    ok(quorate()
        .args(["node", "init", "--insecure-test-kdf", "--id", "4", "--dir"])
        .arg(&d4)
        .arg("--listen")
        .arg(format!("127.0.0.1:{}", free_udp()))
        .arg("--api")
        .arg(format!("127.0.0.1:{}", free_tcp()))
        .output()
        .expect("init node 4"));
    let ext = c.tmp.path().join("with-outsider.toml");
    ok(quorate()
        .args(["node", "roster", "--out"])
        .arg(&ext)
        .arg(&c.roster)
        .arg(&d4)
        .output()
        .expect("roster"));
    let rows = check_rows(&ext, &d4, 1);
    for id in 1..=3 {
        let r = row(&rows, id);
        assert_eq!(r["status"], "error", "{rows}");
        let e = r["error"].as_str().expect("error");
        assert!(e.contains("refused our identity"), "{e}");
    }

    // Nothing changed for the real roster.
    let (code, rows) = c.check(2);
    assert_eq!(code, 0, "{rows}");
}

fn check_rows(roster: &std::path::Path, dir: &std::path::Path, expect_code: i32) -> Value {
    let out = quorate()
        .args([
            "node",
            "check",
            "--json",
            "--timeout-ms",
            "1500",
            "--wait-ms",
            "0",
            "--roster",
        ])
        .arg(roster)
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("check");
    assert_eq!(
        out.status.code(),
        Some(expect_code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

fn row(rows: &Value, id: u64) -> &Value {
    rows.as_array()
        .expect("rows")
        .iter()
        .find(|r| r["id"].as_u64() == Some(id))
        .unwrap_or_else(|| panic!("no row for node {id}: {rows}"))
}

#[test]
fn sessions_survive_a_clean_restart_of_every_node() {
    let mut c = Cluster::start(2, &["--round-timeout-ms", "5000"]);
    let v = c.ping(1, "before", &[1, 2]);
    assert_eq!(v["status"], "completed", "{v}");
    assert!(c.term(1).success());
    assert!(c.term(2).success());
    c.restart(1);
    c.restart(2);
    // The recorded request is still there and is returned, not rerun.
    let (status, again) = c.api(1, "GET", "/v1/sessions/before", None);
    assert_eq!(status, 200);
    assert_eq!(again, v);
    let w = c.ping(2, "after", &[1, 2]);
    assert_eq!(w["status"], "completed", "{w}");
}

/// Two coordinators, one key id: node 1 runs attempt 0 of key `shared` with node 2; node 3,
/// which never saw it, proposes attempt 0 to node 2 as well. Node 2 refuses the reused number
/// and node 3 renumbers: the session completes and nobody is blamed (before, node 3 named the
/// honest node 2 as culprit and aborted).
#[test]
fn an_attempt_number_used_by_another_coordinator_is_renumbered_not_blamed() {
    let c = Cluster::start(3, &[]);
    let req = |rid: &str, parts: &[u16]| {
        json!({
            "request_id": rid,
            "protocol": "ping",
            "participants": parts,
            "key_id": "shared",
        })
    };
    let first = c.session(1, &req("from-1", &[1, 2]));
    assert_eq!(first["status"], "completed", "{first}");
    assert_eq!(first["attempts"][0]["attempt"], 0);
    let second = c.session(3, &req("from-3", &[2, 3]));
    assert_eq!(second["status"], "completed", "{second}");
    assert_eq!(second["culprits"], json!([]));
    let attempts = second["attempts"].as_array().expect("attempts");
    let last = attempts.last().expect("an attempt");
    assert_eq!(last["participants"], json!([2, 3]));
    assert_ne!(last["attempt"], 0);
    for a in attempts {
        let blamed = a["outcome"]["culprits"].as_array().map_or(0, Vec::len);
        assert_eq!(blamed, 0, "{second}");
    }
}

/// `node check` started before a peer's process is up (the README runs it right after
/// starting the nodes, while they open their keystores) probes again until the peer
/// answers, instead of reporting it down after one timeout.
#[test]
fn check_waits_for_a_node_that_is_still_starting() {
    let mut c = Cluster::init(2);
    c.spawn(1);
    c.wait_healthy(1);
    let check = quorate()
        .args(["node", "check", "--json", "--timeout-ms", "500", "--roster"])
        .arg(&c.roster)
        .arg("--dir")
        .arg(c.dir(1))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("check");
    // Node 2 starts only after the first probe of it has timed out.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    c.spawn(2);
    c.wait_healthy(2);
    let out = check.wait_with_output().expect("check output");
    let rows: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(out.status.code(), Some(0), "{rows}");
    assert!(
        rows.as_array()
            .expect("rows")
            .iter()
            .all(|r| r["status"] == "ok"),
        "{rows}"
    );
}
