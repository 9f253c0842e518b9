//! `quorate node witness …`: the operator's log list (no passphrase needed: it is public
//! data in `DIR/witness.db`).
//!
//! * `add-log --dir DIR --origin ORIGIN --vkey VKEY` registers a log (its origin line and
//!   its Ed25519 note verifier key) at size 0 and prints it as JSON;
//! * `list --dir DIR` prints every log as a JSON array;
//! * `disable|enable --dir DIR --origin ORIGIN` stops or resumes cosigning for a log. A log
//!   is never deleted (re-adding it would restart it at size 0 and could cosign a split
//!   view), so there is no `remove`.
//!
//! These work whether the node is running or stopped: a running node looks up a log it has
//! not seen in the database on its first request and re-checks the enabled flag inside every
//! compare-and-swap, so changes take effect at the next request, without a restart.

use crate::nodedir::{NodeDir, NodeDirError};
use crate::tlog_witness::note::{NoteError, Verifier};
use crate::tlog_witness::store::{StoreError, WitnessStore, WITNESS_DB};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// `quorate node witness` subcommands.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum WitnessCommand {
    /// Register a log (origin and Ed25519 note verifier key) to cosign.
    AddLog(AddLogArgs),
    /// List the registered logs as JSON.
    List(DirArgs),
    /// Stop cosigning for a log (it is kept, never deleted).
    Disable(OriginArgs),
    /// Resume cosigning for a disabled log.
    Enable(OriginArgs),
}

/// `add-log`.
#[derive(Debug, Args)]
pub struct AddLogArgs {
    /// The node directory.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The log's origin (the checkpoint's first line).
    #[arg(long, value_name = "ORIGIN")]
    pub origin: String,
    /// The log's note verifier key, NAME+KEYID+BASE64 (Ed25519, type 0x01).
    #[arg(long, value_name = "VKEY")]
    pub vkey: String,
}

/// A node directory.
#[derive(Debug, Args)]
pub struct DirArgs {
    /// The node directory.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
}

/// A node directory and a log origin.
#[derive(Debug, Args)]
pub struct OriginArgs {
    /// The node directory.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The log's origin.
    #[arg(long, value_name = "ORIGIN")]
    pub origin: String,
}

/// A failed `quorate node witness` subcommand.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WitnessCliError {
    /// The node directory.
    #[error(transparent)]
    NodeDir(#[from] NodeDirError),
    /// The store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The verifier key.
    #[error("--vkey: {0}")]
    Vkey(#[from] NoteError),
}

fn open(dir: &std::path::Path) -> Result<WitnessStore, WitnessCliError> {
    let dir = NodeDir::open(dir)?;
    Ok(WitnessStore::open(&dir.root().join(WITNESS_DB))?)
}

fn to_json<T: serde::Serialize>(v: &T) -> serde_json::Value {
    // Plain records of strings, numbers and booleans: serialisation cannot fail.
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// Runs one subcommand, printing its JSON output or `error: …`; exit 0, or 2 on any error.
pub fn run_command(cmd: &WitnessCommand) -> std::process::ExitCode {
    match run(cmd) {
        Ok(v) => {
            println!("{v}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

/// Runs one subcommand; returns its JSON output.
pub fn run(cmd: &WitnessCommand) -> Result<serde_json::Value, WitnessCliError> {
    Ok(match cmd {
        WitnessCommand::AddLog(a) => {
            let vkey = Verifier::parse(&a.vkey)?;
            to_json(&open(&a.dir)?.add_log(&a.origin, &vkey)?)
        }
        WitnessCommand::List(a) => to_json(&open(&a.dir)?.logs()?),
        WitnessCommand::Disable(a) => to_json(&open(&a.dir)?.set_enabled(&a.origin, false)?),
        WitnessCommand::Enable(a) => to_json(&open(&a.dir)?.set_enabled(&a.origin, true)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::Passphrase;
    use crate::keystore::KdfParams;
    use crate::nodedir::InitOptions;
    use ed25519_dalek::SigningKey;

    #[test]
    fn add_list_disable_enable() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("n");
        let opts = InitOptions {
            id: None,
            name: None,
            listen: "127.0.0.1:7101".parse().expect("addr"),
            address: None,
            api: "127.0.0.1:8101".parse().expect("addr"),
            public_http: None,
            kdf: KdfParams::insecure_for_tests(),
        };
        NodeDir::init(&dir, &opts, &Passphrase::new("pw".into()).expect("pw")).expect("init");
        let vkey = Verifier::ed25519(
            "log.example",
            SigningKey::from_bytes(&[4; 32]).verifying_key(),
        );
        let add = WitnessCommand::AddLog(AddLogArgs {
            dir: dir.clone(),
            origin: "log.example".into(),
            vkey: vkey.to_string(),
        });
        let out = run(&add).expect("add");
        assert_eq!(out["origin"], "log.example");
        assert_eq!(out["size"], 0);
        assert_eq!(out["enabled"], true);
        assert!(run(&add)
            .expect_err("twice")
            .to_string()
            .contains("never replaced"));
        let origin = |d: &PathBuf| OriginArgs {
            dir: d.clone(),
            origin: "log.example".into(),
        };
        assert_eq!(
            run(&WitnessCommand::Disable(origin(&dir))).expect("off")["enabled"],
            false
        );
        let list = run(&WitnessCommand::List(DirArgs { dir: dir.clone() })).expect("list");
        assert_eq!(list.as_array().map(Vec::len), Some(1));
        assert_eq!(list[0]["vkey"], vkey.to_string());
        assert_eq!(
            run(&WitnessCommand::Enable(origin(&dir))).expect("on")["enabled"],
            true
        );
        let bad = WitnessCommand::AddLog(AddLogArgs {
            dir: dir.clone(),
            origin: "other".into(),
            vkey: "nonsense".into(),
        });
        assert!(run(&bad).is_err());
        let missing = WitnessCommand::List(DirArgs {
            dir: tmp.path().join("nothing"),
        });
        assert!(matches!(run(&missing), Err(WitnessCliError::NodeDir(_))));
    }
}
