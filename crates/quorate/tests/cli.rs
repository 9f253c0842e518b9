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
