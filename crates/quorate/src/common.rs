//! Helpers shared by every system's commands: hex arguments, the exit-code rule, JSON
//! output, the seeded RNG and millisecond conversions.
//!
//! **Exit codes** (every verifier): [`EXIT_VALID`] (0) the input is valid;
//! [`EXIT_INVALID`] (1) it was parsed but is invalid (the reason is printed on stdout as
//! `invalid: …`); [`EXIT_MALFORMED`] (2) it could not be parsed, or the command was used
//! wrongly (the error is printed on stderr as `error: …`). Every other command exits 0 on
//! success and 2 on any error.

use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, RngCore as _, SeedableRng as _};
use std::fmt::Display;
use std::process::ExitCode;
use std::time::Duration;

/// Exit code of a verifier whose input is valid.
pub const EXIT_VALID: u8 = 0;
/// Exit code of a verifier whose input was parsed but is invalid.
pub const EXIT_INVALID: u8 = 1;
/// Exit code for input that could not be parsed, wrong usage, or any other error.
pub const EXIT_MALFORMED: u8 = 2;

/// Prints `valid…` on stdout and returns [`EXIT_VALID`].
pub fn valid(message: impl Display) -> ExitCode {
    println!("{message}");
    ExitCode::from(EXIT_VALID)
}

/// Prints `invalid: <reason>` on stdout and returns [`EXIT_INVALID`].
pub fn invalid(reason: impl Display) -> ExitCode {
    println!("invalid: {reason}");
    ExitCode::from(EXIT_INVALID)
}

/// Whether the command line asked for JSON (`--json`): then every error exit also prints
/// `{"error": …}` on stdout ([`malformed`]). Set once by `main` ([`set_json_errors`]).
static JSON_ERRORS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes [`malformed`] print its error as JSON on stdout too (a command run with `--json`).
pub fn set_json_errors(on: bool) {
    JSON_ERRORS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether errors are also printed as JSON ([`set_json_errors`]).
pub fn json_errors() -> bool {
    JSON_ERRORS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether `args` (the command line, program name first) ask for JSON output: a `--json`
/// flag anywhere, except `quorate bench`, whose `--json FILE` names an output file.
pub fn wants_json(args: &[String]) -> bool {
    args.get(1).map(String::as_str) != Some("bench") && args.iter().skip(1).any(|a| a == "--json")
}

/// Prints `error: <error>` on stderr (and, with `--json`, `{"error": …}` on stdout) and
/// returns [`EXIT_MALFORMED`].
pub fn malformed(error: impl Display) -> ExitCode {
    let error = error.to_string();
    if json_errors() {
        println!("{}", serde_json::json!({ "error": error }));
    }
    eprintln!("error: {error}");
    ExitCode::from(EXIT_MALFORMED)
}

/// Exit code of a command that is not a verifier: 0 on success, otherwise the error (with
/// its causes) on stderr and [`EXIT_MALFORMED`].
pub fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => malformed(format_args!("{e:#}")),
    }
}

/// Decodes a hex argument (an optional `0x` prefix and surrounding whitespace are allowed).
pub fn decode_hex(what: &str, text: &str) -> Result<Vec<u8>, String> {
    let trimmed = text.trim();
    let digits = trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
        .unwrap_or(trimmed);
    hex::decode(digits).map_err(|e| format!("{what}: invalid hex: {e}"))
}

/// Prints `value` as one line of compact JSON on stdout.
pub fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string(value)?);
    Ok(())
}

/// A fresh ChaCha20 generator seeded from the operating system.
pub fn os_rng() -> ChaCha20Rng {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    ChaCha20Rng::from_seed(seed)
}

/// A duration in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A duration in milliseconds, rounded to the microsecond (for printed summaries).
pub fn ms_rounded(d: Duration) -> f64 {
    (ms(d) * 1e3).round() / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_arguments() {
        assert_eq!(decode_hex("m", " 0xABcd "), Ok(vec![0xab, 0xcd]));
        assert_eq!(decode_hex("m", ""), Ok(vec![]));
        assert!(decode_hex("m", "0x1").is_err());
        assert!(decode_hex("m", "zz").is_err());
    }

    #[test]
    fn milliseconds() {
        assert_eq!(ms(Duration::from_micros(1500)), 1.5);
        assert_eq!(ms_rounded(Duration::from_nanos(1_234_567)), 1.235);
    }
}
