//! The `quorate cosi demo` / `quorate cosi verify` contract.

use std::path::PathBuf;
use std::process::{Command, Output};

fn quorate() -> Command {
    Command::new(env!("CARGO_BIN_EXE_quorate"))
}

fn run(args: &[&str]) -> Output {
    quorate().args(args).output().expect("runs")
}

fn tmp(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quorate-cli-cosi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let p = dir.join(name);
    std::fs::write(&p, contents).expect("write");
    p
}

fn demo(n: &str, absent: &str) -> serde_json::Value {
    let out = run(&[
        "cosi",
        "demo",
        "--witnesses",
        n,
        "--absent",
        absent,
        "--message",
        "cli test",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn s<'a>(v: &'a serde_json::Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or_else(|| panic!("field {k}"))
}

#[test]
fn demo_json_fields_and_verify_exit_codes() {
    let d = demo("12", "3");
    for k in [
        "aggregate_public_key",
        "participant_public_key",
        "message",
        "signature",
        "mask",
        "scheme",
    ] {
        assert!(d[k].is_string(), "missing {k}");
    }
    let keys = d["public_keys"].as_array().expect("public_keys");
    assert_eq!(keys.len(), 12);
    assert_eq!(s(&d, "message"), hex::encode("cli test"));
    let sig = s(&d, "signature").to_string();
    assert_eq!(sig.len(), 2 * (64 + 2));
    assert!(sig.ends_with(s(&d, "mask")));
    assert_ne!(
        s(&d, "aggregate_public_key"),
        s(&d, "participant_public_key")
    );

    let key_file = tmp(
        "keys.json",
        &serde_json::to_string(&d["roster_entries"]).expect("json"),
    );
    let key_file = key_file.to_str().expect("path");
    let demo_file = tmp("demo.json", &d.to_string());
    let demo_file = demo_file.to_str().expect("path");
    let msg = s(&d, "message");

    let code = |args: &[&str]| run(args).status.code().expect("exit code");
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            &sig
        ]),
        0
    );
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            demo_file,
            "--message",
            msg,
            "--signature",
            &sig
        ]),
        0
    );
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            &sig,
            "--policy",
            "threshold:9"
        ]),
        0
    );
    // Invalid: wrong policy, message, tampered s, flipped mask bit, s + L.
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            &sig,
            "--policy",
            "complete"
        ]),
        1
    );
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            "00",
            "--signature",
            &sig
        ]),
        1
    );
    let mut bytes = hex::decode(&sig).expect("hex");
    bytes[40] ^= 1;
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            &hex::encode(&bytes)
        ]),
        1
    );
    bytes[40] ^= 1;
    let first_absent = (0..12)
        .find(|i| bytes[64 + i / 8] >> (i % 8) & 1 == 0)
        .expect("absent");
    bytes[64 + first_absent / 8] ^= 1 << (first_absent % 8);
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            &hex::encode(&bytes)
        ]),
        1
    );
    // Malformed: bad hex, wrong length, missing or garbage roster, bad policy.
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            "zz",
            "--signature",
            &sig
        ]),
        2
    );
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            &sig[..sig.len() - 2]
        ]),
        2
    );
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            "nothex"
        ]),
        2
    );
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            "/nonexistent/roster.json",
            "--message",
            msg,
            "--signature",
            &sig
        ]),
        2
    );
    let garbage = tmp("garbage.json", "{not json");
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            garbage.to_str().expect("p"),
            "--message",
            msg,
            "--signature",
            &sig
        ]),
        2
    );
    let bad_key = tmp("badkey.json", &format!("[\"01{}\"]", "00".repeat(95)));
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            bad_key.to_str().expect("p"),
            "--message",
            msg,
            "--signature",
            &sig
        ]),
        2
    );
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            &sig,
            "--policy",
            "threshold:99"
        ]),
        2
    );
    assert_eq!(
        code(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            &sig,
            "--policy",
            "bogus"
        ]),
        2
    );
}

#[test]
fn full_signature_is_plain_ed25519_and_garbage_never_panics() {
    let d = demo("5", "0");
    assert_eq!(
        s(&d, "aggregate_public_key"),
        s(&d, "participant_public_key")
    );
    let key_file = tmp(
        "keys5.json",
        &serde_json::to_string(&d["roster_entries"]).expect("json"),
    );
    let key_file = key_file.to_str().expect("path");
    let msg = s(&d, "message");
    let out = run(&[
        "cosi",
        "verify",
        "--roster",
        key_file,
        "--message",
        msg,
        "--signature",
        s(&d, "signature"),
        "--policy",
        "complete",
    ]);
    assert_eq!(out.status.code(), Some(0));
    // Garbage of the right length (65 bytes for n = 5): invalid or malformed, never a panic.
    for fill in [0x00u8, 0xff, 0x5a] {
        let sig = hex::encode(vec![fill; 65]);
        let out = run(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            msg,
            "--signature",
            &sig,
        ]);
        let c = out.status.code().expect("exit code");
        assert!(c == 1 || c == 2, "exit {c}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

/// Adds the group order L to the little-endian scalar `s` (test helper for the malleated
/// `s + L`; s < L < 2^253, so the sum fits in 32 bytes).
fn add_l(s: &mut [u8]) {
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut carry = 0u16;
    for (b, l) in s.iter_mut().zip(L) {
        let v = u16::from(*b) + u16::from(l) + carry;
        *b = v as u8;
        carry = v >> 8;
    }
    assert_eq!(carry, 0);
}

#[test]
fn malleated_s_plus_l_and_nested_group_policies() {
    let d = demo("12", "3");
    let key_file = tmp(
        "keys-nested.json",
        &serde_json::to_string(&d["roster_entries"]).expect("json"),
    );
    let key_file = key_file.to_str().expect("path");
    let msg = s(&d, "message").to_string();
    let sig = s(&d, "signature").to_string();
    let verify = |sig: &str, policy: &str| {
        let out = run(&[
            "cosi",
            "verify",
            "--roster",
            key_file,
            "--message",
            &msg,
            "--signature",
            sig,
            "--policy",
            policy,
        ]);
        let code = out.status.code().expect("exit code");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
        (code, String::from_utf8_lossy(&out.stdout).to_string())
    };
    assert_eq!(verify(&sig, "any").0, 0);

    // s + L: same value mod L, rejected as non-canonical (invalid, exit 1).
    let mut bytes = hex::decode(&sig).expect("hex");
    add_l(&mut bytes[32..64]);
    let (code, out) = verify(&hex::encode(&bytes), "any");
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("invalid"), "{out}");

    // Nested k-of-n groups over the demo's participation.
    let absent: Vec<usize> = d["absent"]
        .as_array()
        .expect("absent")
        .iter()
        .map(|v| v.as_u64().expect("index") as usize)
        .collect();
    assert_eq!(absent.len(), 3);
    let present: Vec<usize> = (0..12).filter(|i| !absent.contains(i)).collect();
    let (p, a) = (&present, &absent);
    let ok = format!(
        "group:2:(group:2:{},{}),(group:1:{},{}),{}",
        p[0], p[1], a[0], p[2], a[1]
    );
    assert_eq!(verify(&sig, &ok).0, 0, "{ok}");
    let deep = format!("group:1:(group:1:(group:1:{},{}))", a[2], p[3]);
    assert_eq!(verify(&sig, &deep).0, 0, "{deep}");
    let not_ok = format!(
        "group:2:(group:2:{},{}),(group:1:{},{}),{}",
        p[0], a[0], a[1], a[2], p[1]
    );
    let (code, out) = verify(&sig, &not_ok);
    assert_eq!(code, 1, "{not_ok}: {out}");
    assert!(out.contains("policy"), "{out}");
    for malformed in [
        "group:1:(group:1:0",
        "group:1:0)",
        "group:x:0",
        "group:1:(0,1)",
        "group:3:0,1",
        "group:1:0,99",
    ] {
        assert_eq!(verify(&sig, malformed).0, 2, "{malformed}");
    }
}

/// Issue 13: a roster whose last key is `A_x = a·B − ΣA_others` lets the holder of `a` alone
/// make a "complete" signature (the sum of all keys is `a·B`). Rosters must carry proofs of
/// possession, which the rogue key cannot have; bare keys are refused.
#[test]
fn rogue_key_roster_is_refused() {
    use curve25519_dalek::constants::ED25519_BASEPOINT_POINT as B;
    use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
    use curve25519_dalek::scalar::Scalar;
    let d = demo("3", "0");
    let honest: Vec<String> = d["public_keys"]
        .as_array()
        .expect("keys")
        .iter()
        .map(|k| k.as_str().expect("hex").to_string())
        .collect();
    let sum: EdwardsPoint = honest
        .iter()
        .map(|k| {
            let b: [u8; 32] = hex::decode(k).expect("hex").try_into().expect("32");
            CompressedEdwardsY(b).decompress().expect("point")
        })
        .sum();
    let a = Scalar::from_bytes_mod_order([7u8; 32]);
    let rogue = a * B - sum;
    let total = (a * B).compress().to_bytes();
    let msg = b"the rogue signs for everyone";
    let r = Scalar::from_bytes_mod_order([9u8; 32]);
    let big_r = (r * B).compress().to_bytes();
    let c = quorate_cosi::hash::ed25519_challenge(&big_r, &total, msg);
    let mut sig = big_r.to_vec();
    sig.extend_from_slice((r + c * a).as_bytes());
    sig.push(0x0f);
    let verify = |roster: &str| {
        run(&[
            "cosi",
            "verify",
            "--roster",
            roster,
            "--message",
            &hex::encode(msg),
            "--signature",
            &hex::encode(&sig),
            "--policy",
            "complete",
        ])
    };
    // Bare keys: refused as malformed input, whatever they are.
    let mut keys = honest.clone();
    keys.push(hex::encode(rogue.compress().as_bytes()));
    let bare = tmp(
        "rogue-keys.json",
        &serde_json::to_string(&keys).expect("json"),
    );
    let out = verify(bare.to_str().expect("p"));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("proof of possession"),
        "{out:?}"
    );
    // Entries: the rogue key has no valid proof (here it borrows witness 0's).
    let mut entries: Vec<String> = d["roster_entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e.as_str().expect("hex").to_string())
        .collect();
    let borrowed = &entries[0][64..].to_string();
    entries.push(format!(
        "{}{borrowed}",
        hex::encode(rogue.compress().as_bytes())
    ));
    let with_pops = tmp(
        "rogue-entries.json",
        &serde_json::to_string(&entries).expect("json"),
    );
    let out = verify(with_pops.to_str().expect("p"));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("witness P4: proof of possession"),
        "{out:?}"
    );
}

/// `cosi verify --json`: every exit (0 valid, 1 invalid, 2 malformed) prints exactly one
/// JSON object on stdout.
#[test]
fn verify_json_prints_one_object_for_every_exit() {
    let d = demo("4", "1");
    let roster = tmp(
        "json-roster.json",
        &serde_json::to_string(&d["roster_entries"]).expect("json"),
    );
    let roster = roster.to_str().expect("path");
    let sig = s(&d, "signature").to_string();
    let verify = |message: &str, roster: &str| {
        let out = run(&[
            "cosi",
            "verify",
            "--json",
            "--roster",
            roster,
            "--message",
            message,
            "--signature",
            &sig,
        ]);
        let text = String::from_utf8(out.stdout).expect("utf8");
        assert_eq!(text.lines().count(), 1, "one JSON object: {text:?}");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        (out.status.code().expect("exit code"), v)
    };
    let (code, v) = verify(s(&d, "message"), roster);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        (v["valid"].clone(), v["signers"].clone()),
        (true.into(), 3.into())
    );
    assert_eq!(v["witnesses"], 4);
    let (code, v) = verify(&hex::encode("another message"), roster);
    assert_eq!((code, v["valid"].clone()), (1, false.into()), "{v}");
    assert!(v["reason"].is_string(), "{v}");
    let (code, v) = verify("zz", roster);
    assert_eq!(code, 2, "{v}");
    assert!(s(&v, "error").contains("message is not hex"), "{v}");
    let (code, v) = verify(s(&d, "message"), "/nonexistent/roster.json");
    assert_eq!(code, 2, "{v}");
    assert!(s(&v, "error").contains("roster"), "{v}");
}
