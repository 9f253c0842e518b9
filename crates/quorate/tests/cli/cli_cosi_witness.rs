//! The timestamp service cosigned by independent witness nodes (issue 15 §1, §3): a leader
//! (`quorate cosi timestamp serve --roster --node`) and 8 witness processes (`quorate node
//! run`) on loopback, harness `common::cluster`.
//!
//! * every receipt verifies with `quorate cosi timestamp verify` against the node roster;
//! * a witness killed with SIGKILL is absent from the next rounds' masks, and the rounds
//!   still complete and verify (threshold 6 of 9); its tree position is repaired;
//! * restarted, it catches up on the rounds it missed and is back in a later round's mask;
//! * the leader killed with SIGKILL and restarted on the same database continues the chain:
//!   `check-chain` verifies every round, and every receipt handed out before the kill is
//!   served again unchanged.

use crate::common::cluster::{ok, quorate, signal, wait_exit, wait_for, Cluster};
use quorate_cosi::timestamp::Receipt;
use std::io::BufRead as _;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Stdio};

const WITNESSES: u16 = 9;
const THRESHOLD: &str = "6";

/// Starts the leader (node 1) on `db`; returns it and its HTTP address.
fn start_leader(c: &Cluster, db: &Path) -> (Child, SocketAddr) {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(c.dir(1).join("leader.log"))
        .expect("log");
    let mut child = quorate()
        .args([
            "cosi",
            "timestamp",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--db",
        ])
        .arg(db)
        .arg("--roster")
        .arg(&c.roster)
        .arg("--node")
        .arg(c.dir(1))
        .args([
            "--threshold",
            THRESHOLD,
            "--round-ms",
            "100",
            "--level-timeout-ms",
            "300",
        ])
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("spawn leader");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("start-up line");
    assert!(line.contains("leader node 1, 9 witness nodes"), "{line}");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    (child, addr)
}

fn http(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(quorate_timestamp::loadgen::http_call(
            addr, method, path, body,
        ))
        .expect("http")
}

/// Submits `hash`, waits for its receipt, and checks it with `timestamp verify` against
/// the node roster. Returns the ticket and the receipt.
fn timestamp(c: &Cluster, addr: SocketAddr, hash: [u8; 32]) -> (String, Receipt) {
    let (status, body) = http(addr, "POST", "/v1/submit", &hash);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let ticket = quorate_timestamp::loadgen::ticket_of(&body).expect("ticket");
    let (status, body) = http(addr, "GET", &format!("/v1/receipt/{ticket}?wait=1"), b"");
    assert_eq!(
        status,
        200,
        "{}\n{}",
        String::from_utf8_lossy(&body),
        leader_log(c)
    );
    let text = String::from_utf8(body).expect("utf-8");
    let receipt = Receipt::from_json(&text).expect("receipt");
    let file = c
        .tmp
        .path()
        .join(format!("receipt-{}.json", hex::encode(&hash[..4])));
    std::fs::write(&file, &text).expect("write receipt");
    ok(quorate()
        .args(["cosi", "timestamp", "verify", "--receipt"])
        .arg(&file)
        .arg("--roster")
        .arg(&c.roster)
        .args(["--threshold", THRESHOLD, "--hash", &hex::encode(hash)])
        .output()
        .expect("verify"));
    (ticket, receipt)
}

fn leader_log(c: &Cluster) -> String {
    std::fs::read_to_string(c.dir(1).join("leader.log")).unwrap_or_default()
}

/// Whether witness `index` (0-based CoSi roster position) signed the receipt's round.
fn signed_by(receipt: &Receipt, index: usize) -> bool {
    quorate_cosi::Signature::from_bytes(&receipt.signature, usize::from(WITNESSES))
        .expect("signature")
        .mask()
        .contains(index)
}

#[test]
fn leader_and_eight_witness_nodes_survive_kills() {
    let mut c = Cluster::init(WITNESSES);
    for id in 2..=WITNESSES {
        c.spawn(id);
    }
    for id in 2..=WITNESSES {
        c.wait_healthy(id);
    }
    let db = c.tmp.path().join("ts.sqlite");
    let (mut leader, addr) = start_leader(&c, &db);
    let mut issued: Vec<(String, Receipt)> = Vec::new();

    // Everyone signs.
    let (t, r) = timestamp(&c, addr, [1; 32]);
    assert!((0..9).all(|i| signed_by(&r, i)), "full mask expected");
    issued.push((t, r));

    // Witness node 3 (index 2) dies: rounds go on with it absent from the mask, and once
    // the leader has moved it out of its tree position every other witness signs again (a
    // child of a dead subleader takes its place; witnesses that missed rounds are sent them).
    c.kill9(3);
    let mut others_all_sign = false;
    let mut masks = Vec::new();
    for i in 0..10u8 {
        let (t, r) = timestamp(&c, addr, [10 + i; 32]);
        assert!(!signed_by(&r, 2), "the dead witness is not in the mask");
        let all = (0..9).filter(|&w| w != 2).all(|w| signed_by(&r, w));
        masks.push((0..9).filter(|&w| signed_by(&r, w)).collect::<Vec<_>>());
        issued.push((t, r));
        if all {
            others_all_sign = true;
            break;
        }
    }
    assert!(
        others_all_sign,
        "the live witnesses never all signed: {masks:?}\n{}",
        c.logs()
    );

    // Restarted, it catches up and rejoins (bounded: a few rounds).
    c.restart(3);
    let mut rejoined = false;
    for i in 0..20u8 {
        let (t, r) = timestamp(&c, addr, [100 + i; 32]);
        let back = signed_by(&r, 2);
        issued.push((t, r));
        if back {
            rejoined = true;
            break;
        }
    }
    assert!(rejoined, "witness 3 never signed again:\n{}", c.log(3));

    // The leader dies mid-stream; restarted on the same database, the chain continues.
    let (status, _) = http(addr, "POST", "/v1/submit", &[3; 32]);
    assert_eq!(status, 200);
    signal(leader.id(), "KILL");
    wait_exit(&mut leader);
    let (mut leader, addr) = start_leader(&c, &db);
    let (t, r) = timestamp(&c, addr, [4; 32]);
    issued.push((t, r));
    for (ticket, before) in &issued {
        let (status, body) = http(addr, "GET", &format!("/v1/receipt/{ticket}"), b"");
        assert_eq!(status, 200, "ticket {ticket} lost");
        let again =
            Receipt::from_json(std::str::from_utf8(&body).expect("utf-8")).expect("receipt");
        assert_eq!(&again, before, "receipt of {ticket} changed");
    }
    let out = quorate()
        .args([
            "cosi",
            "timestamp",
            "check-chain",
            "--addr",
            &addr.to_string(),
            "--roster",
        ])
        .arg(&c.roster)
        .args(["--threshold", THRESHOLD, "--json"])
        .output()
        .expect("check-chain");
    let text = ok(out);
    let v: serde_json::Value = serde_json::from_str(text.trim()).expect("json");
    assert_eq!(v["valid"], true, "{text}");
    let last = issued.last().map(|(_, r)| r.round).expect("rounds");
    assert!(v["rounds"].as_u64() > Some(last), "{text}");

    // The witnesses' durable heads are the chain's head.
    let _ = wait_for("a witness head file", || {
        std::fs::read_dir(c.dir(5))
            .ok()?
            .filter_map(Result::ok)
            .find(|e| e.file_name().to_string_lossy().starts_with("cosi-head-"))
    });
    signal(leader.id(), "TERM");
    assert!(wait_exit(&mut leader).success(), "{}", leader_log(&c));
}
