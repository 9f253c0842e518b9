//! Verifiable encryption of discrete logs: `quorate verenc keygen|backup|verify|recover|demo`,
//! the `quorate demo` entry and the `quorate bench verenc` rows (the CS03 note's modular
//! exponentiation table, CS03 at |n| = 3072 / 4096 and TZ21 at the reference's sets).
//!
//! * [`json`]: the JSON forms of backups and key files.
//! * [`demo`](mod@demo): keygen, backup, verify and recover in one process.
//! * [`keys`]: `keygen` and `backup`, which write key and backup files.
//! * [`verify`](mod@verify): `verify` and `recover`, the escrow-side checks.
//! * [`bench`](mod@bench): the rows of `quorate bench verenc`.

pub mod bench;
pub mod demo;
pub mod json;
pub mod keys;
pub mod verify;

pub use bench::bench;
pub use demo::{demo, run_default_demo};
pub use keys::{backup_cmd, keygen};
pub use verify::{recover, verify};

use quorate_node::identity::PassphraseArgs;
use quorate_verenc::cs03::Cs03Params;
use std::path::PathBuf;

/// Arguments of `quorate verenc demo`.
#[derive(Clone, Debug, clap::Args)]
pub struct VerencDemoArgs {
    /// Scheme: cs03, dkgith or rdkgith.
    #[arg(long, default_value = "rdkgith")]
    pub scheme: String,
    /// Curve of the public share: secp256k1, p256, bls12-381-g1 or ed25519.
    #[arg(long, default_value = "secp256k1")]
    pub curve: String,
    /// CS03 modulus size |n| (3072 or 4096).
    #[arg(long, default_value_t = 3072)]
    pub modulus_bits: u32,
    /// The label (context bytes, UTF-8) bound into the backup.
    #[arg(long, default_value = "quorate verenc demo")]
    pub label: String,
    /// Print one JSON object (the backup bundle plus timings) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `quorate verenc keygen`.
#[derive(Clone, Debug, clap::Args)]
pub struct VerencKeygenArgs {
    /// Scheme: cs03, dkgith or rdkgith.
    #[arg(long)]
    pub scheme: String,
    /// Curve of the shares to back up: secp256k1, p256, bls12-381-g1 or ed25519.
    #[arg(long, default_value = "secp256k1")]
    pub curve: String,
    /// CS03 modulus size |n| (3072 or 4096).
    #[arg(long, default_value_t = 3072)]
    pub modulus_bits: u32,
    /// Where to write the escrow's public key (JSON).
    #[arg(long)]
    pub public_out: PathBuf,
    /// Where to write the escrow's secret key (mode 0600; written first, atomically),
    /// sealed under the passphrase (Argon2id, XChaCha20-Poly1305, as `bls client init`).
    #[arg(long)]
    pub secret_out: PathBuf,
    /// Where the secret key's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    /// Replace existing key files (otherwise an existing file is never overwritten: earlier
    /// backups to the old key would become unrecoverable).
    #[arg(long)]
    pub force: bool,
    /// Tests only: cheap Argon2id parameters for the sealed secret (easy to brute-force).
    #[arg(long, hide = true)]
    pub insecure_test_kdf: bool,
}

/// Arguments of `quorate verenc backup`.
#[derive(Clone, Debug, clap::Args)]
pub struct VerencBackupArgs {
    /// The escrow's public key file (from `quorate verenc keygen`).
    #[arg(long)]
    pub escrow: PathBuf,
    /// File holding the secret scalar x as 64 hex digits (big-endian, below the group order).
    #[arg(long)]
    pub secret_file: PathBuf,
    /// The label (context bytes, UTF-8) bound into the backup.
    #[arg(long)]
    pub label: String,
    /// Where to write the backup (JSON); stdout if absent.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Arguments of `quorate verenc verify`.
#[derive(Clone, Debug, clap::Args)]
pub struct VerencVerifyArgs {
    /// The backup (JSON, as `backup` or `demo --json` print it; at most 4 MiB).
    #[arg(long)]
    pub input: PathBuf,
    /// Write the backup with the ciphertext the escrow should store (for TZ21: the
    /// compressed ciphertext made with this verifier's randomness) to FILE.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Arguments of `quorate verenc recover`.
#[derive(Clone, Debug, clap::Args)]
pub struct VerencRecoverArgs {
    /// The escrow's sealed secret key file (from `quorate verenc keygen`).
    #[arg(long)]
    pub escrow_secret: PathBuf,
    /// Where the secret key's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    /// The verified backup (JSON; for TZ21, the output of `verify --out`; at most 4 MiB).
    #[arg(long)]
    pub input: PathBuf,
    /// Write the recovered scalar (hex) to FILE (mode 0600, atomically) instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace an existing `--out` file.
    #[arg(long)]
    pub force: bool,
}

/// CS03 parameters for a modulus of `bits` bits.
pub(crate) fn cs03_params(bits: u32) -> anyhow::Result<Cs03Params> {
    Ok(match bits {
        3072 => Cs03Params::aggressive(),
        4096 => Cs03Params::conservative(),
        other => Cs03Params::new(other, 256, 128).map_err(|e| anyhow::anyhow!("{e}"))?,
    })
}
