//! C2SP tlog-witness interoperability through the real CLI: a `quorate node run` process
//! with `--public-http` cosigns checkpoints of a log built and signed by an independent Go
//! implementation (golang.org/x/mod/sumdb/note, transparency-dev/formats and merkle; see
//! `interop/tlogwitness`), and Go's note verifier accepts the cosignatures under the vkey
//! that `node init` printed.
//!
//! The Go program is taken from `QUORATE_TLOGWITNESS_INTEROP` (set by `.ci/run`, which
//! builds it), else built here with `go build`; without Go the test says so and stops.

use crate::common::cluster::{
    free_tcp, free_udp, json_ok, ok, quorate, signal, wait_exit, wait_for,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ORIGIN: &str = "interop.example/log";

/// Kills the node if the test fails before stopping it.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn interop_binary(tmp: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("QUORATE_TLOGWITNESS_INTEROP") {
        if p == "skip" {
            // .ci/run could not build the Go program (no module proxy) and said so.
            eprintln!("skipped: the Go log could not be built (see the CI log)");
            return None;
        }
        let p = PathBuf::from(p);
        assert!(
            p.exists(),
            "QUORATE_TLOGWITNESS_INTEROP={} does not exist",
            p.display()
        );
        return Some(p);
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../interop/tlogwitness");
    let out = tmp.join("tlogwitness-interop");
    match Command::new("go")
        .arg("build")
        .arg("-o")
        .arg(&out)
        .arg(".")
        .current_dir(&src)
        .output()
    {
        Err(_) => {
            eprintln!("skipped: Go is not installed (the tlog-witness interop test needs it)");
            None
        }
        Ok(o) => {
            assert!(
                o.status.success(),
                "go build of interop/tlogwitness failed:\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
            Some(out)
        }
    }
}

#[test]
fn a_go_log_is_cosigned_and_go_verifies_the_cosignatures() {
    let tmp = tempfile::tempdir().expect("tmp");
    let Some(go) = interop_binary(tmp.path()) else {
        return;
    };
    let dir = tmp.path().join("w");
    let http = format!("127.0.0.1:{}", free_tcp());
    let init = json_ok(
        &quorate()
            .args([
                "node",
                "init",
                "--insecure-test-kdf",
                "--name",
                "witness.test/w1",
            ])
            .arg("--dir")
            .arg(&dir)
            .args(["--listen", &format!("127.0.0.1:{}", free_udp())])
            .args(["--api", &format!("127.0.0.1:{}", free_tcp())])
            .args(["--public-http", &http])
            .output()
            .expect("init"),
    );
    let witness_vkey = init["witness_vkey"]
        .as_str()
        .expect("witness_vkey")
        .to_string();
    assert!(
        witness_vkey.starts_with("witness.test/w1+"),
        "{witness_vkey}"
    );
    let roster = tmp.path().join("roster.toml");
    ok(quorate()
        .args(["node", "roster", "--out"])
        .arg(&roster)
        .arg(&dir)
        .output()
        .expect("roster"));

    // The Go log's key; registered while the node is stopped.
    let skey = tmp.path().join("log.skey");
    let log_vkey = ok(Command::new(&go)
        .args(["keygen", "-origin", ORIGIN, "-skey"])
        .arg(&skey)
        .output()
        .expect("keygen"));
    let log_vkey = log_vkey.trim().to_string();
    let added = json_ok(
        &quorate()
            .args(["node", "witness", "add-log", "--dir"])
            .arg(&dir)
            .args(["--origin", ORIGIN, "--vkey", &log_vkey])
            .output()
            .expect("add-log"),
    );
    assert_eq!(added["size"], 0);

    let log_file = std::fs::File::create(tmp.path().join("node.log")).expect("log");
    let mut child = Running(
        quorate()
            .args(["node", "run", "--dir"])
            .arg(&dir)
            .arg("--roster")
            .arg(&roster)
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .expect("node run"),
    );
    let node_log = || std::fs::read_to_string(tmp.path().join("node.log")).unwrap_or_default();
    wait_for("the public HTTP listener", || {
        std::net::TcpStream::connect(&http).ok()
    });

    let out = Command::new(&go)
        .args([
            "run",
            "-url",
            &format!("http://{http}"),
            "-origin",
            ORIGIN,
            "-skey",
        ])
        .arg(&skey)
        .args(["-vkey", &log_vkey, "-witness", &witness_vkey])
        .output()
        .expect("go run");
    assert!(
        out.status.success(),
        "the Go log failed: {}\nnode log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        node_log()
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("summary");
    assert_eq!(summary["cosigned"], 4, "{summary}");
    assert_eq!(summary["verified"], 4, "{summary}");
    assert_eq!(summary["conflicts"], 1, "{summary}");
    assert_eq!(summary["witness_name"], "witness.test/w1");

    // The list shows the cosigned state; a disable takes effect in the running node.
    let list = json_ok(
        &quorate()
            .args(["node", "witness", "list", "--dir"])
            .arg(&dir)
            .output()
            .expect("list"),
    );
    assert_eq!(list[0]["origin"], ORIGIN);
    assert_eq!(list[0]["size"], 40);
    json_ok(
        &quorate()
            .args(["node", "witness", "disable", "--dir"])
            .arg(&dir)
            .args(["--origin", ORIGIN])
            .output()
            .expect("disable"),
    );
    let again = Command::new(&go)
        .args([
            "run",
            "-url",
            &format!("http://{http}"),
            "-origin",
            ORIGIN,
            "-skey",
        ])
        .arg(&skey)
        .args(["-vkey", &log_vkey, "-witness", &witness_vkey])
        .output()
        .expect("go run");
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        !again.status.success() && err.contains("status 404"),
        "{err}"
    );

    signal(child.0.id(), "TERM");
    let status = wait_exit(&mut child.0);
    assert!(status.success(), "node exit {status}\n{}", node_log());
}
