//! `quorate node escrow …`: the node's escrow key and the verified backups it keeps
//! ([`crate::escrow`]). No passphrase: everything here is public.
//!
//! * `quorate node escrow set-key --dir DIR --key FILE [--replace]` configures the escrow
//!   public key (a `quorate verenc keygen --public-out` file, on secp256k1) and prints
//!   `{"scheme", "curve", "escrow_public_key"}`. It takes effect at the next `node run`.
//! * `quorate node escrow export --dir DIR --key-id ID --node N [--epoch E] --out FILE`
//!   writes node `N`'s verified backup of `ID` (default: the latest epoch kept here) in the
//!   `quorate verenc` backup form, ready for `quorate verenc recover`, and prints
//!   `{"key_id", "node", "epoch", "public_share", "out"}`. A node keeps the other holders'
//!   backups: export a lost node's backup from any other holder.
//!
//! Exit codes: 0 on success, 2 for bad input (printed as `error: …`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use crate::escrow::{self, EscrowError};
use crate::fsutil::{self, Overwrite};
use crate::keystore::KeyId;
use crate::nodedir::NodeDir;

/// The `quorate node escrow` subcommands.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum EscrowCommand {
    /// Configure the escrow public key new ECDSA shares are backed up to.
    SetKey(SetKeyArgs),
    /// Write one holder's verified backup for the escrow (`quorate verenc recover` input).
    Export(ExportArgs),
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
    /// The epoch (default: the latest epoch with backups kept here).
    #[arg(long)]
    pub epoch: Option<u64>,
    /// Where to write the backup (JSON, refused if it exists).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
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
    let (epoch, b) = escrow::export(dir.root(), &key, args.node, args.epoch)
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

/// Runs one `quorate node escrow` subcommand (prints JSON or `error: …`).
pub fn run_command(cmd: &EscrowCommand) -> ExitCode {
    let result = match cmd {
        EscrowCommand::SetKey(a) => set_key(a),
        EscrowCommand::Export(a) => export(a),
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
