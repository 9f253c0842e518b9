//! Runs the built `quorate` binary. These tests do not depend on any system being wired up.

use std::process::{Command, Output};

fn quorate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quorate"))
        .args(args)
        .output()
        .expect("the quorate binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_lists_the_subcommands() {
    let out = quorate(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    for cmd in ["demo", "bls", "bench"] {
        assert!(stdout.contains(cmd), "{cmd:?} missing from help:\n{stdout}");
    }
    let out = quorate(&["bls", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("verify"));
    let out = quorate(&["bench", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    for flag in ["--quick", "--json", "--large", "bls"] {
        assert!(stdout.contains(flag), "{flag:?} missing from bench help");
    }
}

#[test]
fn malformed_verify_input_exits_2_without_panicking() {
    let out = quorate(&[
        "bls",
        "verify",
        "--public-key",
        "not hex",
        "--message",
        "zz",
        "--signature",
        "0x",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.trim().is_empty());
}

#[test]
fn verify_requires_all_arguments() {
    let out = quorate(&["bls", "verify", "--public-key", "00"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn unknown_bench_system_fails() {
    let out = quorate(&["bench", "no-such-system"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("no-such-system"));
}

#[test]
fn bad_demo_parameters_are_usage_errors() {
    let out = quorate(&["bls", "demo", "--t", "three"]);
    assert_eq!(out.status.code(), Some(2));
    let out = quorate(&["no-such-command"]);
    assert_eq!(out.status.code(), Some(2));
}

// ---------------------------------------------------------------------------------------
// bls demo / verify
// ---------------------------------------------------------------------------------------

fn assert_no_panic(out: &Output) {
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
}

/// Runs `bls demo --json` and returns the parsed object.
fn bls_demo_json(t: &str, n: &str, message: &str) -> serde_json::Value {
    let out = quorate(&[
        "bls",
        "demo",
        "--t",
        t,
        "--n",
        n,
        "--message",
        message,
        "--json",
    ]);
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout.trim().lines().count(),
        1,
        "one JSON object: {stdout}"
    );
    serde_json::from_str(stdout.trim()).expect("bls demo --json prints JSON")
}

fn field<'a>(v: &'a serde_json::Value, name: &str) -> &'a str {
    v[name]
        .as_str()
        .unwrap_or_else(|| panic!("{name:?} missing or not a string in {v}"))
}

fn bls_verify(public_key: &str, message: &str, signature: &str) -> Output {
    let out = quorate(&[
        "bls",
        "verify",
        "--public-key",
        public_key,
        "--message",
        message,
        "--signature",
        signature,
    ]);
    assert_no_panic(&out);
    out
}

#[test]
fn bls_demo_json_then_verify() {
    let v = bls_demo_json("3", "5", "hi");
    assert_eq!(
        field(&v, "ciphersuite"),
        "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_"
    );
    assert_eq!(v["t"], 3);
    assert_eq!(v["n"], 5);
    assert_eq!(field(&v, "message"), "6869");
    let pk = field(&v, "public_key");
    let sig = field(&v, "signature");
    let pop = field(&v, "pop");
    assert_eq!(pk.len(), 2 * 96);
    assert_eq!(sig.len(), 2 * 48);
    assert_eq!(pop.len(), 2 * 48);
    for hex in [pk, sig, pop] {
        assert!(hex.chars().all(|c| c.is_ascii_hexdigit()), "{hex}");
    }
    assert_eq!(v["verified"], true);
    assert_eq!(v["verified_blst"], true);

    // The outputs verify.
    let out = bls_verify(pk, field(&v, "message"), sig);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "valid");

    // A flipped message byte is rejected with a one-line reason.
    let out = bls_verify(pk, "6969", sig);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.trim().lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with("invalid"), "{stdout}");

    // The proof of possession is not a signature on the message.
    let out = bls_verify(pk, "6869", pop);
    assert_eq!(out.status.code(), Some(1));

    // Malformed hex: exit 2 with an error on stderr.
    for (pk, msg, sig) in [
        ("zz", "6869", sig),
        (pk, "6g", sig),
        (pk, "6869", "0xnot-hex"),
        (pk, "686", sig),
    ] {
        let out = bls_verify(pk, msg, sig);
        assert_eq!(out.status.code(), Some(2), "{pk} {msg} {sig}");
        assert!(!text(&out.stderr).trim().is_empty());
    }

    // Wrong-length signature and public key: exit 2.
    for (pk, sig) in [
        (pk.to_owned(), sig[..94].to_owned()),
        (pk.to_owned(), format!("{sig}00")),
        (pk[..190].to_owned(), sig.to_owned()),
    ] {
        let out = bls_verify(&pk, "6869", &sig);
        assert_eq!(out.status.code(), Some(2));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("expected"), "{stderr}");
    }

    // Right length, but not a valid signature point (identity, or not on the curve): parsed
    // but invalid, exit 1 (the one exit-code rule, issue 18 item 7).
    let identity = format!("c0{}", "0".repeat(94));
    let not_a_point = "ff".repeat(48);
    for bad in [identity.as_str(), not_a_point.as_str()] {
        let out = bls_verify(pk, "6869", bad);
        assert_eq!(out.status.code(), Some(1), "{bad}");
        assert!(text(&out.stdout).starts_with("invalid"));
    }

    // On the curve but outside the prime-order subgroup (the Ethereum consensus vectors
    // deserialization_fails_not_in_G1 / _not_in_G2), and the reason says so: an invalid
    // signature exits 1, an unusable public key 2.
    let vector = |k: usize| format!("8123456789abcdef{}", "0123456789abcdef".repeat(k));
    let (not_in_g1, not_in_g2) = (vector(5), vector(11));
    for (pk, sig, code) in [(pk, not_in_g1.as_str(), 1), (not_in_g2.as_str(), sig, 2)] {
        let out = bls_verify(pk, "6869", sig);
        assert_eq!(out.status.code(), Some(code));
        let said = text(if code == 1 { &out.stdout } else { &out.stderr });
        assert!(said.contains("subgroup"), "{said}");
        assert_eq!(said.trim().lines().count(), 1, "{said}");
    }
}

#[test]
fn bls_demo_text_output() {
    let out = quorate(&["bls", "demo", "--t", "2", "--n", "3"]);
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for want in ["t=2", "n=3", "public key", "signature", "blst: yes"] {
        assert!(stdout.contains(want), "{want:?} missing from {stdout}");
    }
}

#[test]
fn bls_demo_bad_threshold_fails_cleanly() {
    for (t, n) in [("1", "3"), ("4", "3"), ("0", "0")] {
        let out = quorate(&["bls", "demo", "--t", t, "--n", n]);
        assert_no_panic(&out);
        assert!(!out.status.success(), "t={t} n={n} succeeded");
        assert_eq!(out.status.code(), Some(2));
        let stderr = text(&out.stderr);
        // Either the parser's range (`--t … is not in 2..=1024`) or the protocol's check.
        assert!(
            stderr.contains("threshold") || stderr.contains("--t"),
            "{stderr}"
        );
        assert!(text(&out.stdout).trim().is_empty());
    }
}

#[test]
fn top_level_demo_runs_bls() {
    let out = quorate(&["demo"]);
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("== bls =="), "{stdout}");
    assert!(stdout.contains("blst: yes"), "{stdout}");
}
