//! `quorate node run | check` (after init and roster) as real processes on 127.0.0.1: three nodes,
//! a roster-wide check, a session through the operator API, and clean stops on SIGTERM and
//! SIGINT. Every child is stopped by its PID; every wait is bounded.

use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use quorate_node::api_client::call;

const PASS: &str = "node-test-passphrase";
const BOUND: Duration = Duration::from_secs(60);

fn quorate() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_quorate"));
    c.env("QUORATE_PASSPHRASE", PASS).env("QUORATE_LOG", "warn");
    c
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn free_udp() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

fn free_tcp() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// Kills leftover children when a test fails.
struct Nodes(Vec<Option<Child>>);

impl Drop for Nodes {
    fn drop(&mut self) {
        for c in self.0.iter_mut().flatten() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn signal(child: &Child, sig: &str) {
    let status = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(child.id().to_string())
        .status()
        .expect("kill");
    assert!(status.success());
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        assert!(start.elapsed() < BOUND, "node did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn init(dir: &Path) -> (u64, u16) {
    let api = free_tcp();
    let out = ok(quorate()
        .args(["node", "init", "--insecure-test-kdf", "--dir"])
        .arg(dir)
        .arg("--listen")
        .arg(format!("127.0.0.1:{}", free_udp()))
        .arg("--api")
        .arg(format!("127.0.0.1:{api}"))
        .output()
        .expect("init"));
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    (v["id"].as_u64().expect("id"), api)
}

fn check(roster: &Path, dir: &Path) -> (i32, serde_json::Value) {
    let out = quorate()
        .args([
            "node",
            "check",
            "--json",
            "--timeout-ms",
            "1500",
            "--roster",
        ])
        .arg(roster)
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("check");
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn three_nodes_run_check_serve_and_stop_on_signals() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dirs: Vec<PathBuf> = (1..=3).map(|i| tmp.path().join(format!("n{i}"))).collect();
    let (mut node_ids, mut apis) = (Vec::new(), Vec::new());
    for d in &dirs {
        let (id, api) = init(d);
        node_ids.push(id);
        apis.push(api);
    }
    let roster = tmp.path().join("roster.toml");
    ok(quorate()
        .args(["node", "roster", "--out"])
        .arg(&roster)
        .args(&dirs)
        .output()
        .expect("roster"));

    let mut nodes = Nodes(Vec::new());
    for d in &dirs {
        let child = quorate()
            .args(["node", "run", "--dir"])
            .arg(d)
            .arg("--roster")
            .arg(&roster)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        nodes.0.push(Some(child));
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // Wait (bounded) until every API answers.
    for &port in &apis {
        let addr = format!("127.0.0.1:{port}").parse().expect("addr");
        let start = Instant::now();
        loop {
            let r = rt.block_on(call(
                addr,
                "GET",
                "/health",
                None,
                None,
                Duration::from_secs(2),
            ));
            if matches!(r, Ok(ref r) if r.status == 200) {
                break;
            }
            assert!(start.elapsed() < BOUND, "node API on {port} never came up");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    // Every node reachable and authenticated, seen from node 1.
    let (code, rows) = check(&roster, &dirs[0]);
    assert_eq!(code, 0, "{rows}");
    let rows = rows.as_array().expect("array").clone();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");

    // A session through node 1's operator API.
    let ids: Vec<u16> = rows
        .iter()
        .map(|r| r["id"].as_u64().expect("id") as u16)
        .collect();
    let token = std::fs::read_to_string(dirs[0].join("api.token")).expect("token");
    let body = serde_json::json!({
        "request_id": "proc-1",
        "protocol": "ping",
        "participants": ids,
    })
    .to_string();
    let api1 = format!("127.0.0.1:{}", apis[0]).parse().expect("addr");
    let r = rt
        .block_on(call(
            api1,
            "POST",
            "/v1/sessions",
            Some(token.trim()),
            Some(body.as_bytes()),
            Duration::from_secs(30),
        ))
        .expect("post");
    let v = r.json().expect("json");
    assert_eq!(v["status"], "completed", "{v}");

    // SIGTERM stops node 3 cleanly; the check then names it and exits 1.
    let mut n3 = nodes.0[2].take().expect("node 3");
    signal(&n3, "TERM");
    assert!(wait_exit(&mut n3).success());
    let (code, rows) = check(&roster, &dirs[0]);
    assert_eq!(code, 1, "{rows}");
    let bad: Vec<&serde_json::Value> = rows
        .as_array()
        .expect("array")
        .iter()
        .filter(|r| r["status"] != "ok")
        .collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0]["id"].as_u64(), Some(node_ids[2]));

    // SIGINT stops the others cleanly.
    for slot in nodes.0.iter_mut() {
        if let Some(mut c) = slot.take() {
            signal(&c, "INT");
            assert!(wait_exit(&mut c).success());
        }
    }
}

#[test]
fn run_refuses_a_wrong_passphrase_and_a_missing_directory() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("n1");
    init(&dir);
    let roster = tmp.path().join("roster.toml");
    ok(quorate()
        .args(["node", "roster", "--out"])
        .arg(&roster)
        .arg(&dir)
        .output()
        .expect("roster"));
    let out = quorate()
        .env("QUORATE_PASSPHRASE", "wrong")
        .args(["node", "run", "--dir"])
        .arg(&dir)
        .arg("--roster")
        .arg(&roster)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error:"));
    let out = quorate()
        .args(["node", "check", "--roster"])
        .arg(&roster)
        .arg("--dir")
        .arg(tmp.path().join("missing"))
        .output()
        .expect("check");
    assert_eq!(out.status.code(), Some(2));
}
