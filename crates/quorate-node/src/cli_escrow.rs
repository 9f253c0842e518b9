//! `quorate node escrow …`: the node's escrow key and the verified backups it keeps
//! ([`crate::escrow`]). Everything here is public; `export`, `export-public` and `import`
//! read the keystore and need the node's passphrase.
//!
//! * `quorate node escrow set-key --dir DIR --key FILE [--replace]` configures the escrow
//!   public key (a `quorate verenc keygen --public-out` file, on secp256k1) and prints
//!   `{"scheme", "curve", "escrow_public_key"}`. It takes effect at the next `node run`.
//! * `quorate node escrow export --dir DIR --key-id ID --node N [--epoch E] --out FILE
//!   [--passphrase-file FILE]` writes node `N`'s verified backup of `ID` (default: the
//!   key's committed, active epoch here — not a newer file an abandoned refresh left) in the
//!   `quorate verenc` backup form, ready for `quorate verenc recover`, and prints
//!   `{"key_id", "node", "epoch", "public_share", "out"}`. A node keeps the other holders'
//!   backups: export a lost node's backup from any other holder.
//! * `quorate node escrow export-public --dir DIR --key-id ID [--epoch E] --out FILE
//!   [--passphrase-file FILE]` writes a holder's active epoch of `ID` as public data for
//!   restoring a lost node ([`crate::session::ecdsa::restore::export_public`]) and prints
//!   `{"key_id", "epoch", "out"}`.
//! * `quorate node escrow import --dir DIR --key-id ID --share FILE --public FILE
//!   --roster FILE [--passphrase-file FILE]` (the node stopped) imports the lost node's
//!   share recovered by `quorate verenc recover --out FILE` with that public data
//!   ([`crate::session::ecdsa::restore::import`]): refused if the node holds any epoch of
//!   `ID`, or if the share is not the node's (`x_j·G ≠ T_j`). Prints `{"key_id", "epoch",
//!   "node", "party", "public_key", "holders", "restored"}`. The restored share cannot
//!   sign until a refresh naming the node.
//!
//! Exit codes: 0 on success, 2 for bad input (printed as `error: …`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use crate::escrow::{self, EscrowError};
use crate::fsutil::{self, Overwrite};
use crate::identity::PassphraseArgs;
use crate::keystore::KeyId;
use crate::nodedir::NodeDir;
use crate::roster::Roster;
use crate::session::ecdsa::restore::{self, MAX_PUBLIC_FILE, MAX_SHARE_FILE};

/// The `quorate node escrow` subcommands.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum EscrowCommand {
    /// Configure the escrow public key new ECDSA shares are backed up to.
    SetKey(SetKeyArgs),
    /// Write one holder's verified backup for the escrow (`quorate verenc recover` input).
    Export(ExportArgs),
    /// Write this holder's active epoch of a key as public data for restoring a lost node.
    ExportPublic(ExportPublicArgs),
    /// Import a lost node's share recovered from the escrow (the node stopped).
    Import(ImportArgs),
}

/// `quorate node escrow export-public`.
#[derive(Debug, Args)]
pub struct ExportPublicArgs {
    /// The node directory (any holder of the key other than the lost node).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The key id.
    #[arg(long)]
    pub key_id: String,
    /// The epoch (default: the active epoch; another epoch is refused).
    #[arg(long)]
    pub epoch: Option<u64>,
    /// Where to write the public data (JSON, refused if it exists).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Passphrase source.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// `quorate node escrow import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The lost node's directory (its identity kept, the key gone).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The key id.
    #[arg(long)]
    pub key_id: String,
    /// The recovered share (`quorate verenc recover --out FILE`: 64 hex digits).
    #[arg(long, value_name = "FILE")]
    pub share: PathBuf,
    /// The public data (`quorate node escrow export-public --out FILE` from another holder).
    #[arg(long, value_name = "FILE")]
    pub public: PathBuf,
    /// The roster the epoch certificate is checked against.
    #[arg(long, value_name = "FILE")]
    pub roster: PathBuf,
    /// Passphrase source.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// `quorate node escrow set-key`.
#[derive(Debug, Args)]
pub struct SetKeyArgs {
    /// The node directory.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The escrow public key file (`quorate verenc keygen --public-out`; secp256k1).
    #[arg(long, value_name = "FILE")]
    pub key: PathBuf,
    /// Replace a configured key (backups already made stay under the old key).
    #[arg(long)]
    pub replace: bool,
}

/// `quorate node escrow export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The node directory (any holder of the key other than the lost node).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The key id.
    #[arg(long)]
    pub key_id: String,
    /// The node whose backup to export.
    #[arg(long, value_name = "N")]
    pub node: u16,
    /// The epoch (default: the key's active epoch on this node; the backups of a refresh
    /// that never committed are not a share anyone holds).
    #[arg(long)]
    pub epoch: Option<u64>,
    /// Where to write the backup (JSON, refused if it exists).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Passphrase source (the active epoch is read from the keystore).
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Runs `quorate node escrow set-key`.
pub fn set_key(args: &SetKeyArgs) -> Result<Value, String> {
    let dir = NodeDir::open(&args.dir).map_err(err)?;
    let key = escrow::install(dir.root(), &args.key, args.replace).map_err(err)?;
    Ok(key.to_json())
}

/// Runs `quorate node escrow export`.
pub fn export(args: &ExportArgs) -> Result<Value, String> {
    let dir = NodeDir::open(&args.dir).map_err(err)?;
    let key = KeyId::new(&args.key_id).map_err(err)?;
    let epoch = match args.epoch {
        Some(e) => e,
        None => {
            let pass = args.passphrase.passphrase().map_err(err)?;
            let node = dir.load(&pass).map_err(err)?;
            let active = node.keystore.active_epoch(&key).map_err(err)?;
            active
                .map(|a| a.epoch)
                .ok_or_else(|| format!("no committed epoch of key {key} here (give --epoch)"))?
        }
    };
    let (epoch, b) = escrow::export(dir.root(), &key, args.node, Some(epoch))
        .map_err(|e: EscrowError| e.to_string())?;
    fsutil::write_atomic(
        &args.out,
        b.to_json().to_string().as_bytes(),
        0o644,
        Overwrite::Never,
    )
    .map_err(err)?;
    Ok(json!({
        "key_id": args.key_id,
        "node": args.node,
        "epoch": epoch,
        "public_share": hex::encode(&b.public_share),
        "out": args.out.display().to_string(),
    }))
}

/// Runs `quorate node escrow export-public`.
pub fn export_public(args: &ExportPublicArgs) -> Result<Value, String> {
    let dir = NodeDir::open(&args.dir).map_err(err)?;
    let key = KeyId::new(&args.key_id).map_err(err)?;
    let pass = args.passphrase.passphrase().map_err(err)?;
    let node = dir.load(&pass).map_err(err)?;
    let public = restore::export_public(&node.keystore, &key, args.epoch).map_err(err)?;
    fsutil::write_atomic(
        &args.out,
        public.to_string().as_bytes(),
        0o644,
        Overwrite::Never,
    )
    .map_err(err)?;
    Ok(json!({
        "key_id": args.key_id,
        "epoch": public["epoch"],
        "out": args.out.display().to_string(),
    }))
}

/// Runs `quorate node escrow import`.
pub fn import(args: &ImportArgs) -> Result<Value, String> {
    let dir = NodeDir::open(&args.dir).map_err(err)?;
    let key = KeyId::new(&args.key_id).map_err(err)?;
    let roster = Roster::load(&args.roster).map_err(err)?;
    let text = zeroize::Zeroizing::new(
        fsutil::read_text_bounded(&args.share, MAX_SHARE_FILE).map_err(err)?,
    );
    let x = restore::parse_share_text(&text).map_err(err)?;
    let public_text = fsutil::read_text_bounded(&args.public, MAX_PUBLIC_FILE).map_err(err)?;
    let public: Value = serde_json::from_str(&public_text)
        .map_err(|e| format!("{}: {e}", args.public.display()))?;
    let pass = args.passphrase.passphrase().map_err(err)?;
    let _lock = dir.lock().map_err(err)?;
    let mut node = dir.load(&pass).map_err(err)?;
    let keys = roster
        .entries()
        .map(|e| (e.id.get(), e.public_key))
        .collect();
    restore::import(
        &mut node.keystore,
        &keys,
        node.identity.id().get(),
        node.identity.signing_key(),
        &key,
        &x,
        &public,
    )
    .map_err(err)
}

/// Runs one `quorate node escrow` subcommand (prints JSON or `error: …`).
pub fn run_command(cmd: &EscrowCommand) -> ExitCode {
    let result = match cmd {
        EscrowCommand::SetKey(a) => set_key(a),
        EscrowCommand::Export(a) => export(a),
        EscrowCommand::ExportPublic(a) => export_public(a),
        EscrowCommand::Import(a) => import(a),
    };
    match result {
        Ok(v) => {
            println!("{v}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
