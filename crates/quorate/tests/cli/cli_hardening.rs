//! Issue 18 items 1–9: safe secret files, bounded inputs, parameter caps, short error
//! quotes, one exit-code rule, clear messages, and `--json` checked before a benchmark.
#![allow(clippy::unwrap_used)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn quorate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quorate"))
        .args(args)
        .env("QUORATE_PASSPHRASE", "hardening-test-passphrase")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quorate-hardening-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn keygen(public: &Path, secret: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "verenc",
        "keygen",
        "--scheme",
        "rdkgith",
        "--public-out",
        s(public),
        "--secret-out",
        s(secret),
        "--insecure-test-kdf",
    ];
    args.extend_from_slice(extra);
    quorate(&args)
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// Item 1: an existing escrow secret is never overwritten without `--force`.
#[test]
fn verenc_keygen_never_overwrites_an_existing_secret() {
    let dir = scratch("overwrite");
    let (public, secret) = (dir.join("escrow.pub"), dir.join("escrow.key"));
    assert_eq!(keygen(&public, &secret, &[]).status.code(), Some(0));
    let before = std::fs::read(&secret).unwrap();
    let public_before = std::fs::read(&public).unwrap();
    let out = keygen(&public, &secret, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--force"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&secret).unwrap(), before);
    assert_eq!(std::fs::read(&public).unwrap(), public_before);
    // With --force the pair is replaced.
    assert_eq!(
        keygen(&public, &secret, &["--force"]).status.code(),
        Some(0)
    );
    assert_ne!(std::fs::read(&secret).unwrap(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 2: secret files are 0600 even when a 0644 file was there (keygen and recover).
#[cfg(unix)]
#[test]
fn secret_files_are_0600_even_when_the_file_exists() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = scratch("mode");
    let (public, secret) = (dir.join("escrow.pub"), dir.join("escrow.key"));
    std::fs::write(&secret, "old").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        keygen(&public, &secret, &["--force"]).status.code(),
        Some(0)
    );
    assert_eq!(mode(&secret), 0o600);

    // recover --out over an existing 0644 file.
    let x = dir.join("x.hex");
    std::fs::write(&x, format!("{}\n", "01".repeat(32))).unwrap();
    let backup = dir.join("backup.json");
    let out = quorate(&[
        "verenc",
        "backup",
        "--escrow",
        s(&public),
        "--secret-file",
        s(&x),
        "--label",
        "t",
        "--out",
        s(&backup),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stored = dir.join("stored.json");
    let out = quorate(&[
        "verenc",
        "verify",
        "--input",
        s(&backup),
        "--out",
        s(&stored),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let recovered = dir.join("recovered.hex");
    std::fs::write(&recovered, "old").unwrap();
    std::fs::set_permissions(&recovered, std::fs::Permissions::from_mode(0o644)).unwrap();
    let recover = |extra: &[&str]| {
        let mut args = vec![
            "verenc",
            "recover",
            "--escrow-secret",
            s(&secret),
            "--input",
            s(&stored),
            "--out",
            s(&recovered),
        ];
        args.extend_from_slice(extra);
        quorate(&args)
    };
    // Not without --force …
    assert_eq!(recover(&[]).status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&recovered).unwrap(), "old");
    // … and with it, 0600.
    let out = recover(&["--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(mode(&recovered), 0o600);
    assert_eq!(
        std::fs::read_to_string(&recovered).unwrap(),
        "01".repeat(32)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 3: the public key is not written when the secret file cannot be created.
#[test]
fn public_key_is_not_written_without_its_secret() {
    let dir = scratch("order");
    let public = dir.join("escrow.pub");
    let secret = dir.join("missing-dir").join("escrow.key");
    let out = keygen(&public, &secret, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!public.exists(), "public key published without its secret");
    // No temporary file is left behind either.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 4: every input file is capped (4 MiB): a big sparse file and an endless FIFO are
/// refused with exit 2, without reading them to the end.
#[cfg(unix)]
#[test]
fn oversized_and_endless_inputs_are_refused() {
    let dir = scratch("caps");
    let big = dir.join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let small = dir.join("small.json");
    std::fs::write(&small, "[]").unwrap();
    let sig = "00".repeat(65);
    for args in [
        vec![
            "cosi",
            "verify",
            "--roster",
            s(&big),
            "--message",
            "00",
            "--signature",
            &sig,
        ],
        vec!["verenc", "verify", "--input", s(&big)],
        vec![
            "cosi",
            "timestamp",
            "verify",
            "--receipt",
            s(&big),
            "--roster",
            s(&small),
        ],
        vec![
            "cosi",
            "timestamp",
            "verify",
            "--receipt",
            s(&small),
            "--roster",
            s(&big),
        ],
    ] {
        let out = quorate(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("4 MiB"), "{args:?}: {stderr}");
    }

    // A FIFO fed without end: the reader stops at the cap.
    let fifo = dir.join("roster.fifo");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&writer_path)
            .unwrap();
        let chunk = vec![b' '; 1 << 16];
        let mut written = 0u64;
        // Stops when the reader closes the pipe (EPIPE); bounded in any case.
        while written < (64 << 20) && f.write_all(&chunk).is_ok() {
            written += chunk.len() as u64;
        }
        written
    });
    let out = quorate(&[
        "cosi",
        "verify",
        "--roster",
        s(&fifo),
        "--message",
        "00",
        "--signature",
        &sig,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("4 MiB"), "{}", text(&out.stderr));
    let written = writer.join().unwrap();
    assert!(written < (64 << 20), "the reader did not stop at the cap");
    // --help states the cap.
    let help = text(&quorate(&["cosi", "verify", "--help"]).stdout);
    assert!(help.contains("4 MiB"), "{help}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Items 5 and 8: memory-sizing parameters are capped with a clear message at parse time,
/// and the parser does not advertise values it rejects.
#[test]
fn sizing_parameters_are_capped_with_clear_messages() {
    let out = quorate(&["ecdsa", "demo", "--n", "65535", "--t", "2"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("2..=64"), "{stderr}");
    assert!(!stderr.contains("0..=65535"), "{stderr}");
    for args in [
        vec!["ecdsa", "demo", "--n", "0"],
        vec!["bls", "demo", "--n", "0"],
        vec!["bls", "demo", "--n", "70000"],
        vec!["mixnet", "demo", "--n", "100000000"],
        vec!["mixnet", "demo", "--paillier-bits", "512"],
        vec!["bench", "mixnet", "--n", "100000000"],
    ] {
        let out = quorate(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("0..=65535"), "{args:?}: {stderr}");
        assert!(stderr.contains("is not in"), "{args:?}: {stderr}");
    }
}

/// Item 5 for the timestamp service: `serve` and `load` cap every parameter that sizes
/// memory, threads or sockets at parse time (exit 2, naming the range), and accept the cap
/// itself (those runs then fail later, on the unusable database path or `--seconds 0`).
#[test]
fn timestamp_serve_and_load_parameters_are_capped() {
    let db = "/nonexistent/quorate-capped/ts.sqlite";
    let serve = |extra: &[&str]| {
        let mut args = vec![
            "cosi",
            "timestamp",
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            db,
        ];
        args.extend_from_slice(extra);
        quorate(&args)
    };
    let load = |extra: &[&str]| {
        let mut args = vec!["cosi", "timestamp", "load", "--addr", "127.0.0.1:9"];
        args.extend_from_slice(extra);
        quorate(&args)
    };
    for (out, range) in [
        (serve(&["--witnesses", "1025"]), "1..=1024"),
        (serve(&["--witnesses", "0"]), "1..=1024"),
        (serve(&["--round-ms", "60001"]), "1..=60000"),
        (serve(&["--round-ms", "0"]), "1..=60000"),
        (serve(&["--max-batch", "1000001"]), "1..=1000000"),
        (serve(&["--max-wait-ms", "60001"]), "1..=60000"),
        (load(&["--connections", "1025"]), "1..=1024"),
        (load(&["--pipeline", "65"]), "1..=64"),
        (load(&["--requests", "10000001"]), "1..=10000000"),
    ] {
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("is not in"), "{stderr}");
        assert!(stderr.contains(range), "{range}: {stderr}");
    }
    // The caps themselves parse; the runs fail afterwards for the reason arranged.
    let out = serve(&[
        "--witnesses",
        "1024",
        "--max-batch",
        "1000000",
        "--round-ms",
        "60000",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("is not in"), "{stderr}");
    assert!(stderr.contains("quorate-capped"), "{stderr}");
    let out = load(&[
        "--connections",
        "1024",
        "--pipeline",
        "64",
        "--requests",
        "10000000",
        "--seconds",
        "0",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--seconds must be in (0, 600]"), "{stderr}");
    // `--help` states the caps.
    let help = text(&quorate(&["cosi", "timestamp", "serve", "--help"]).stdout);
    assert!(help.contains("1..=1024"), "{help}");
    let help = text(&quorate(&["cosi", "timestamp", "load", "--help"]).stdout);
    assert!(help.contains("at most 64"), "{help}");
}

/// Item 6: an error quotes at most a short prefix of a long input.
#[test]
fn errors_quote_only_a_short_prefix_of_the_input() {
    let long = "x".repeat(100_000);
    let dir = scratch("quote");
    let roster = dir.join("roster.json");
    // A valid roster (entries with proofs of possession), so that the policy is what fails.
    let demo = quorate(&["cosi", "demo", "--witnesses", "2", "--json"]);
    let demo: serde_json::Value = serde_json::from_slice(&demo.stdout).unwrap();
    std::fs::write(&roster, demo["roster_entries"].to_string()).unwrap();
    let out = quorate(&[
        "cosi",
        "verify",
        "--roster",
        s(&roster),
        "--message",
        "00",
        "--signature",
        "00",
        "--policy",
        &long,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.len() < 400, "{} bytes of error", stderr.len());
    assert!(stderr.contains("100000 bytes"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 7: one exit-code rule. 1 for a parsed but invalid signature (a non-canonical
/// scalar, a high S, a right-length BLS signature that is not a valid point), 2 for a
/// signature that cannot be parsed (wrong length, not hex).
#[test]
fn verifiers_share_one_exit_code_rule() {
    // A valid ECDSA signature from the demo.
    let out = quorate(&["ecdsa", "demo", "--t", "2", "--n", "2", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pk = v["public_key"].as_str().unwrap().to_owned();
    let digest = v["digest"].as_str().unwrap().to_owned();
    let sig = v["signature"].as_str().unwrap().to_owned();
    let ecdsa = |sig: &str| {
        quorate(&[
            "ecdsa",
            "verify",
            "--public-key",
            &pk,
            "--digest",
            &digest,
            "--signature",
            sig,
        ])
    };
    assert_eq!(ecdsa(&sig).status.code(), Some(0));
    // High S: s' = n - s verifies mathematically but is refused, saying low-S is required.
    let n = k256_order();
    let s_bytes = hex_to_bytes(&sig[64..]);
    let high = format!("{}{}", &sig[..64], bytes_to_hex(&sub_be(&n, &s_bytes)));
    let out = ecdsa(&high);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("low-S is required"),
        "{}",
        text(&out.stdout)
    );
    // Non-canonical s (= n): parsed but invalid.
    let out = ecdsa(&format!("{}{}", &sig[..64], bytes_to_hex(&n)));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    // Wrong length: cannot be parsed.
    assert_eq!(ecdsa(&sig[..126]).status.code(), Some(2));
    assert_eq!(ecdsa("zz").status.code(), Some(2));
}

/// Item 8: an escrow key stored as a number is reported as such, not as "missing".
#[test]
fn key_field_of_the_wrong_type_is_named() {
    let dir = scratch("keytype");
    let key = dir.join("escrow.pub");
    std::fs::write(
        &key,
        r#"{"scheme":"rdkgith","curve":"secp256k1","escrow_public_key":12345}"#,
    )
    .unwrap();
    let x = dir.join("x.hex");
    std::fs::write(&x, "01".repeat(32)).unwrap();
    let out = quorate(&[
        "verenc",
        "backup",
        "--escrow",
        s(&key),
        "--secret-file",
        s(&x),
        "--label",
        "t",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("is a number, expected a hex string"),
        "{stderr}"
    );
    assert!(!stderr.contains("missing"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 8: UTF-8 messages print as UTF-8 ("é", not "Ã©").
#[test]
fn utf8_messages_print_correctly() {
    let out = quorate(&["bls", "demo", "--t", "2", "--n", "3", "--message", "café"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains('Ã'), "{stdout}");
    assert!(stdout.contains("café"), "{stdout}");
}

/// Item 9: an unwritable `--json` path fails before the benchmark runs.
#[test]
fn bench_json_path_is_checked_before_running() {
    let out = quorate(&["bench", "bls", "--quick", "--json", "/nonexistent/x.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("/nonexistent/x.json"),
        "{}",
        text(&out.stderr)
    );
    // Nothing was measured: no table was printed.
    assert!(
        !text(&out.stdout).contains("ColdRegister"),
        "{}",
        text(&out.stdout)
    );
}

fn hex_to_bytes(h: &str) -> Vec<u8> {
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect()
}

fn bytes_to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The secp256k1 group order n, big-endian.
fn k256_order() -> Vec<u8> {
    hex_to_bytes("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
}

/// a - b for 32-byte big-endian numbers with a ≥ b.
fn sub_be(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let mut d = i16::from(a[i]) - i16::from(b[i]) - borrow;
        borrow = i16::from(d < 0);
        if d < 0 {
            d += 256;
        }
        out[i] = d as u8;
    }
    out
}

/// Review finding c (issue 14): with `--json`, an exit-2 error is also JSON on stdout: a
/// usage error, a node command that cannot reach its node (`culprits: []` there, as in its
/// abort answer) and a demo with a bad parameter.
#[test]
fn json_commands_print_json_errors_on_exit_2() {
    let missing = std::env::temp_dir().join("quorate-no-such-node-dir");
    let missing = missing.to_str().unwrap();
    let cases: [(&[&str], bool); 4] = [
        (&["ecdsa", "sign", "--json"], false),
        (
            &[
                "ecdsa",
                "keygen",
                "--node",
                missing,
                "--t",
                "2",
                "--parties",
                "1,2",
                "--json",
            ],
            true,
        ),
        (
            &[
                "ecdsa", "resolve", "--node", missing, "--key-id", "k", "--json",
            ],
            true,
        ),
        (&["verenc", "demo", "--scheme", "nope", "--json"], false),
    ];
    for (args, culprits) in cases {
        let out = quorate(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("{args:?}: stdout is not JSON ({e}): {}", text(&out.stdout))
        });
        assert!(
            v["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{args:?}: {v}"
        );
        if culprits {
            assert_eq!(v["culprits"], serde_json::json!([]), "{args:?}: {v}");
        }
        assert!(text(&out.stderr).contains("error"), "{args:?}");
    }
    // Without --json stdout stays empty.
    let out = quorate(&["ecdsa", "sign"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}
