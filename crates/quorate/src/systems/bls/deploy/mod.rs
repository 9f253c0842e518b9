//! Hot/cold BLS as a deployment: the CRS file, the offline cold custodian, the client and
//! the auditor. Hot parties are nodes (`quorate node run`, role in
//! `quorate_node::session::bls`), reached through their operator API (`--node DIR`).
//!
//! | command | who | what |
//! |---|---|---|
//! | `bls setup` | anyone | a KZG ceremony transcript (the CRS file) |
//! | `bls cold keygen` | cold custodian, offline | `dk_i` (secret file) and `ek_i` with Π_DL |
//! | `bls cold enroll` | cold custodian, offline | `K_i = k_i·g2` for a client's key |
//! | `bls cold sign` | cold custodian, offline | a cold partial for a signing-request file |
//! | `bls client init` | client | the BLS key and the Ed25519 authorisation key |
//! | `bls register` | client | ClientRegister to the hot nodes |
//! | `bls refresh` | client | deal, collect `t` signed confirmations, commit everywhere |
//! | `bls request` | client | a signing-request file for the cold custodians |
//! | `bls sign` | client | recovery signing: `t` hot partials from nodes, `t` cold partials from files |
//! | `bls audit` | anyone | Π_EKS from every hot node and the cold Π_DL proofs, against public data |
//!
//! Files are JSON with hex-encoded bytes. Secret files (`cold.secret`, `client.secret`) are
//! sealed under a passphrase (`--passphrase-file` or `QUORATE_PASSPHRASE`; Argon2id and
//! XChaCha20-Poly1305, the node keystore's sealing), written 0600, atomically and durably,
//! and never overwritten without `--force` ([`crate::files::write_new_file`]).

pub mod audit;
pub mod client;
pub mod cold;
mod fanout;
pub mod files;

use std::path::PathBuf;

use quorate_node::identity::PassphraseArgs;

/// Exit code when the protocol refused or a check failed.
pub(crate) const EXIT_FAILED: u8 = 1;

/// `quorate bls setup`.
#[derive(Clone, Debug, clap::Args)]
pub struct SetupArgs {
    /// The largest number of hot parties the CRS serves (2 to 1024).
    #[arg(long, value_parser = clap::value_parser!(u16).range(2..=1024))]
    pub parties: u16,
    /// Contributors to the in-process ceremony (2 to 16).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(2..=16))]
    pub contributors: u16,
    /// Output file (the ceremony transcript).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing file.
    #[arg(long)]
    pub force: bool,
}

/// `quorate bls cold …`.
#[derive(Clone, Debug, clap::Subcommand)]
pub enum ColdCommand {
    /// Draws dk_i; writes DIR/cold.secret (sealed, 0600) and DIR/cold.pub (ek_i with Π_DL).
    Keygen(ColdKeygenArgs),
    /// Derives K_i for a client key (DIR/cold.secret and the client's client.pub).
    Enroll(ColdEnrollArgs),
    /// Answers a signing-request file with a cold partial file.
    Sign(ColdSignArgs),
}

/// `quorate bls cold keygen`.
#[derive(Clone, Debug, clap::Args)]
pub struct ColdKeygenArgs {
    /// The custodian's directory (created if missing).
    #[arg(long)]
    pub dir: PathBuf,
    /// Party index i (1 to 1024): the custodian pairs with hot party i.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub index: u16,
    /// Where the secret file's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    /// Replace existing files (the old secret is lost).
    #[arg(long)]
    pub force: bool,
    /// Tests only: cheap Argon2id parameters for the sealed secret (easy to brute-force).
    #[arg(long, hide = true)]
    pub insecure_test_kdf: bool,
}

/// `quorate bls cold enroll`.
#[derive(Clone, Debug, clap::Args)]
pub struct ColdEnrollArgs {
    /// The custodian's directory.
    #[arg(long)]
    pub dir: PathBuf,
    /// The client's public file (client.pub).
    #[arg(long)]
    pub client: PathBuf,
    /// Output file (K_i for the client's register command).
    #[arg(long)]
    pub out: PathBuf,
    /// Where the secret file's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// `quorate bls cold sign`.
#[derive(Clone, Debug, clap::Args)]
pub struct ColdSignArgs {
    /// The custodian's directory.
    #[arg(long)]
    pub dir: PathBuf,
    /// The signing-request file (from `bls request`).
    #[arg(long)]
    pub request: PathBuf,
    /// Output file (the cold partial).
    #[arg(long)]
    pub out: PathBuf,
    /// Where the secret file's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// `quorate bls client …`.
#[derive(Clone, Debug, clap::Subcommand)]
pub enum ClientCommand {
    /// Writes DIR/client.secret (sealed, 0600) and DIR/client.pub.
    Init(ClientInitArgs),
}

/// `quorate bls client init`.
#[derive(Clone, Debug, clap::Args)]
pub struct ClientInitArgs {
    /// The client's directory (created if missing).
    #[arg(long)]
    pub dir: PathBuf,
    /// Where the secret file's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    /// Replace existing files (the old secret is lost).
    #[arg(long)]
    pub force: bool,
    /// Tests only: cheap Argon2id parameters for the sealed secret (easy to brute-force).
    #[arg(long, hide = true)]
    pub insecure_test_kdf: bool,
}

/// `quorate bls register`.
#[derive(Clone, Debug, clap::Args)]
pub struct RegisterArgs {
    /// The client's directory.
    #[arg(long)]
    pub client: PathBuf,
    /// Key id (1..=100 characters of [A-Za-z0-9._:-]).
    #[arg(long)]
    pub key_id: String,
    /// Threshold t (2 to n).
    #[arg(long, value_parser = clap::value_parser!(u16).range(2..=1024))]
    pub t: u16,
    /// The CRS file (from `bls setup`).
    #[arg(long)]
    pub crs: PathBuf,
    /// Cold custodians' public files (cold.pub), in index order 1..=n, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub cold: Vec<PathBuf>,
    /// Cold custodians' K_i files (from `bls cold enroll`), comma-separated, any order.
    #[arg(long, value_delimiter = ',', required = true)]
    pub pad: Vec<PathBuf>,
    /// Hot node directories: hot party i is the i-th, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub node: Vec<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Where the secret file's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// `quorate bls refresh`.
#[derive(Clone, Debug, clap::Args)]
pub struct RefreshArgs {
    /// The client's directory.
    #[arg(long)]
    pub client: PathBuf,
    /// The CRS file.
    #[arg(long)]
    pub crs: PathBuf,
    /// Key id.
    #[arg(long)]
    pub key_id: String,
    /// Hot node directories (every holder), comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub node: Vec<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Where the secret file's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// `quorate bls request`.
#[derive(Clone, Debug, clap::Args)]
pub struct RequestArgs {
    /// The client's directory.
    #[arg(long)]
    pub client: PathBuf,
    /// Key id.
    #[arg(long)]
    pub key_id: String,
    /// The message (UTF-8 text).
    #[arg(long)]
    pub message: String,
    /// Output file.
    #[arg(long)]
    pub out: PathBuf,
    /// Where the secret file's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// `quorate bls sign`.
#[derive(Clone, Debug, clap::Args)]
pub struct SignArgs {
    /// The client's directory.
    #[arg(long)]
    pub client: PathBuf,
    /// The CRS file.
    #[arg(long)]
    pub crs: PathBuf,
    /// Key id.
    #[arg(long)]
    pub key_id: String,
    /// The message (UTF-8 text).
    #[arg(long)]
    pub message: String,
    /// Cold partial files (from `bls cold sign`), at least t, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub cold_partial: Vec<PathBuf>,
    /// Hot node directories, comma-separated (the holders of the partials' indices).
    #[arg(long, value_delimiter = ',', required = true)]
    pub node: Vec<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Where the secret file's passphrase comes from.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// `quorate bls audit`.
#[derive(Clone, Debug, clap::Args)]
pub struct AuditArgs {
    /// The key's public file (`KEY_ID.key.json` in the client's directory).
    #[arg(long)]
    pub key: PathBuf,
    /// The CRS file.
    #[arg(long)]
    pub crs: PathBuf,
    /// Hot node directories, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub node: Vec<PathBuf>,
    /// The audit block (challenge); random when absent.
    #[arg(long)]
    pub block_id: Option<u64>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}
