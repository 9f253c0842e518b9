//! Threshold BLS: `quorate bls demo`, `quorate bls verify`, the `quorate demo` entry and the
//! `quorate bench bls` rows.

use crate::bench::BenchSuite;
use std::process::ExitCode;

/// Arguments of `quorate bls demo`.
#[derive(Clone, Debug, clap::Args)]
pub struct BlsDemoArgs {
    /// Threshold: signature shares needed to sign.
    #[arg(short, long, default_value_t = 3)]
    pub t: u16,
    /// Number of signers.
    #[arg(short, long, default_value_t = 5)]
    pub n: u16,
    /// The message to sign.
    #[arg(long, default_value = "hello quorate")]
    pub message: String,
    /// Print the result as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `quorate bls verify`.
#[derive(Clone, Debug, clap::Args)]
pub struct BlsVerifyArgs {
    /// The group public key, hex.
    #[arg(long)]
    pub public_key: String,
    /// The signed message, hex.
    #[arg(long)]
    pub message: String,
    /// The signature, hex.
    #[arg(long)]
    pub signature: String,
}

/// Runs threshold BLS end to end on small defaults and returns a short summary.
pub fn run_default_demo() -> anyhow::Result<String> {
    anyhow::bail!("bls system not wired yet")
}

/// `quorate bls demo`.
pub fn demo(args: &BlsDemoArgs) -> anyhow::Result<()> {
    let _ = args;
    anyhow::bail!("bls system not wired yet")
}

/// `quorate bls verify`: exit code 0 if valid, 1 if invalid (reason on stdout), 2 for
/// malformed input (error on stderr).
pub fn verify(args: &BlsVerifyArgs) -> ExitCode {
    let _ = args;
    eprintln!("error: bls system not wired yet");
    ExitCode::from(2)
}

/// `quorate bench bls`: adds the BLS rows to `suite`.
pub fn bench(suite: &mut BenchSuite, large: bool) -> anyhow::Result<()> {
    let _ = (suite, large);
    anyhow::bail!("bls system not wired yet")
}
