//! `quorate ecdsa keygen | sign | refresh --node DIR`: threshold ECDSA between running nodes
//! (`quorate node run`), driven through one node's operator API.
//!
//! Exit codes: 0 success; 1 the protocol aborted (with `--json`, stdout is
//! `{"error": …, "culprits": [node ids]}`); 2 bad input or configuration (`error: …` on
//! stderr and, with `--json`, `{"error": …, "culprits": []}` on stdout).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use k256::ecdsa::signature::hazmat::PrehashVerifier;
use k256::ecdsa::{Signature as K256Signature, VerifyingKey};
use rand_core::RngCore;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::node_client::{valid_name, CmdError, NodeClient};
use crate::common::os_rng;

/// Options every node client command shares.
#[derive(Clone, Debug, clap::Args)]
pub struct NodeOpts {
    /// The node directory (its operator API address and token are read from it).
    #[arg(long, value_name = "DIR")]
    pub node: PathBuf,
    /// Operator request id (idempotency key: the same id returns the same result);
    /// random when absent.
    #[arg(long, value_name = "ID")]
    pub request_id: Option<String>,
    /// How long to wait for the result, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 120,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `quorate ecdsa keygen`.
#[derive(Clone, Debug, clap::Args)]
pub struct KeygenArgs {
    /// Threshold: holders needed to sign.
    #[arg(long)]
    pub t: u16,
    /// The holders' node ids, comma-separated (this node must be one of them).
    #[arg(long, value_delimiter = ',', required = true)]
    pub parties: Vec<u16>,
    /// Key id (derived from the request id when absent).
    #[arg(long)]
    pub key_id: Option<String>,
    /// Common options.
    #[command(flatten)]
    pub opts: NodeOpts,
}

/// `quorate ecdsa sign`.
#[derive(Clone, Debug, clap::Args)]
pub struct SignArgs {
    /// Key id.
    #[arg(long)]
    pub key_id: String,
    /// The message; SHA-256 of it is signed.
    #[arg(long)]
    pub message: String,
    /// Signing nodes, comma-separated (default: every holder; the node retries without
    /// nodes that fail, down to the threshold).
    #[arg(long, value_delimiter = ',')]
    pub signers: Option<Vec<u16>>,
    /// Common options.
    #[command(flatten)]
    pub opts: NodeOpts,
}

/// `quorate ecdsa refresh`.
#[derive(Clone, Debug, clap::Args)]
pub struct RefreshArgs {
    /// Key id.
    #[arg(long)]
    pub key_id: String,
    /// The holder (node id) whose share was restored from the escrow (`quorate node escrow
    /// import`): it takes part from its restored share and holds a signing share after.
    #[arg(long, value_name = "J")]
    pub restored: Option<u16>,
    /// Common options.
    #[command(flatten)]
    pub opts: NodeOpts,
}

fn request_id(opts: &NodeOpts, prefix: &str) -> Result<String, CmdError> {
    match &opts.request_id {
        Some(r) if valid_name(r) => Ok(r.clone()),
        Some(_) => Err(CmdError::Input(
            "request id must be 1..=128 characters of [A-Za-z0-9._:-]".into(),
        )),
        None => {
            let mut b = [0u8; 12];
            os_rng().fill_bytes(&mut b);
            Ok(format!("{prefix}-{}", hex::encode(b)))
        }
    }
}

/// Prints the outcome and returns the exit code.
fn finish(
    json_out: bool,
    result: Result<Value, CmdError>,
    human: impl Fn(&Value) -> String,
) -> ExitCode {
    match result {
        Ok(v) => {
            if json_out {
                println!("{v}");
            } else {
                println!("{}", human(&v));
            }
            ExitCode::SUCCESS
        }
        Err(CmdError::Abort { error, culprits }) => {
            if json_out {
                println!("{}", json!({ "error": error, "culprits": culprits }));
            } else {
                eprintln!("aborted: {error} (culprits: {culprits:?})");
            }
            ExitCode::from(1)
        }
        Err(CmdError::Input(e)) => {
            if json_out {
                println!("{}", json!({ "error": e, "culprits": [] }));
            }
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn keygen_inner(args: &KeygenArgs) -> Result<Value, CmdError> {
    let n = args.parties.len();
    if usize::from(args.t) > n || args.t < 1 {
        return Err(CmdError::Input(format!(
            "--t {} is not between 1 and the number of parties ({n})",
            args.t
        )));
    }
    if let Some(k) = &args.key_id {
        if !valid_name(k) || k.starts_with('_') {
            return Err(CmdError::Input(
                "key id must be 1..=128 characters of [A-Za-z0-9._:-], not starting with _".into(),
            ));
        }
    }
    let client = NodeClient::open(&args.opts.node)?;
    let rid = request_id(&args.opts, "keygen")?;
    // An existing key id is bad input, unless this is the same request again (idempotent:
    // its recorded result is returned).
    if let Some(k) = &args.key_id {
        if !client.request_known(&rid)? && client.key_exists(k)? {
            return Err(CmdError::Input(format!(
                "key id {k:?} already exists on this node: choose another --key-id"
            )));
        }
    }
    let mut req = json!({
        "request_id": rid,
        "protocol": "ecdsa-keygen",
        "params": { "t": args.t, "n": n },
        "participants": args.parties,
    });
    if let Some(k) = &args.key_id {
        req["key_id"] = json!(k);
    }
    let mut out = match client.run_session(&req, Duration::from_secs(args.opts.timeout)) {
        // A holder refused because the key id exists there (maybe only as a pending epoch a
        // silent holder blocks): bad input, not a protocol failure.
        Err(CmdError::Abort { error, .. }) if error.contains("already exists on this node") => {
            return Err(CmdError::Input(format!(
                "{error} (a pending epoch? see `quorate ecdsa resolve`); choose another --key-id"
            )))
        }
        r => r?,
    };
    out["request_id"] = json!(rid);
    Ok(out)
}

/// `quorate ecdsa keygen --node DIR --t T --parties ID,… [--json]`: prints `key_id`,
/// `public_key` (33-byte compressed hex) and `epoch`.
pub fn keygen(args: &KeygenArgs) -> ExitCode {
    finish(args.opts.json, keygen_inner(args), |v| {
        format!(
            "key id:     {}\npublic key: {}\nepoch:      {}\nholders:    {} (t = {})",
            v["key_id"].as_str().unwrap_or_default(),
            v["public_key"].as_str().unwrap_or_default(),
            v["epoch"],
            v["holders"],
            v["t"]
        )
    })
}

/// Checks the node's signature with k256 (and low-S) before printing it.
fn check_signature(public_key: &str, digest: &[u8; 32], sig: &str) -> Result<(), CmdError> {
    let bad = |why: &str| CmdError::Abort {
        error: format!("the node returned an unusable signature: {why}"),
        culprits: vec![],
    };
    let pk = hex::decode(public_key).map_err(|_| bad("public key is not hex"))?;
    let vk = VerifyingKey::from_sec1_bytes(&pk).map_err(|_| bad("invalid public key"))?;
    let sig = hex::decode(sig).map_err(|_| bad("signature is not hex"))?;
    let sig = K256Signature::from_slice(&sig).map_err(|_| bad("malformed signature"))?;
    if sig.normalize_s().is_some() {
        return Err(bad("high S"));
    }
    vk.verify_prehash(digest, &sig)
        .map_err(|_| bad("it does not verify"))
}

fn sign_inner(args: &SignArgs) -> Result<Value, CmdError> {
    let client = NodeClient::open(&args.opts.node)?;
    let key = client.key(&args.key_id)?;
    let holders: Vec<u16> = key["holders"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|h| h.as_u64())
                .map(|h| h as u16)
                .collect()
        })
        .unwrap_or_default();
    let signers = args.signers.clone().unwrap_or(holders);
    let digest: [u8; 32] = Sha256::digest(args.message.as_bytes()).into();
    let rid = request_id(&args.opts, "sign")?;
    let req = json!({
        "request_id": rid,
        "protocol": "ecdsa-sign",
        "params": { "digest": hex::encode(digest), "t": key["t"] },
        "participants": signers,
        "key_id": args.key_id,
        "epoch": key["epoch"],
    });
    let mut out = client.run_session(&req, Duration::from_secs(args.opts.timeout))?;
    let public_key = out["public_key"].as_str().unwrap_or_default().to_string();
    if key["public_key"].as_str() != Some(public_key.as_str()) {
        return Err(CmdError::Abort {
            error: "the node signed under another public key".into(),
            culprits: vec![],
        });
    }
    check_signature(
        &public_key,
        &digest,
        out["signature"].as_str().unwrap_or_default(),
    )?;
    out["message"] = json!(hex::encode(args.message.as_bytes()));
    out["request_id"] = json!(rid);
    Ok(out)
}

/// `quorate ecdsa sign --node DIR --key-id K --message TEXT [--signers …] [--json]`: prints
/// the fields of `ecdsa demo --json` (`public_key`, `message`, `digest`, `signature`, `der`,
/// `recovery_id`, `signers`) plus `key_id`, `epoch` and `request_id`.
pub fn sign(args: &SignArgs) -> ExitCode {
    finish(args.opts.json, sign_inner(args), |v| {
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        format!(
            "public key:  {}\ndigest:      {} (SHA-256 of the message)\nsignature:   {} (low-S, recovery id {})\nsigners:     {}\nverify:      quorate ecdsa verify --public-key={} --digest={} --signature={}",
            s("public_key"),
            s("digest"),
            s("signature"),
            v["recovery_id"],
            v["signers"],
            s("public_key"),
            s("digest"),
            s("signature"),
        )
    })
}

fn refresh_inner(args: &RefreshArgs) -> Result<Value, CmdError> {
    let client = NodeClient::open(&args.opts.node)?;
    let key = client.key(&args.key_id)?;
    let holders = key["holders"].clone();
    let n = holders.as_array().map_or(0, Vec::len);
    let rid = request_id(&args.opts, "refresh")?;
    let mut params = json!({ "n": n });
    if let Some(j) = args.restored {
        params["restored"] = json!(j);
    }
    let req = json!({
        "request_id": rid,
        "protocol": "ecdsa-refresh",
        "params": params,
        "participants": holders,
        "key_id": args.key_id,
        "epoch": key["epoch"],
    });
    let mut out = client.run_session(&req, Duration::from_secs(args.opts.timeout))?;
    if out["public_key"] != key["public_key"] {
        return Err(CmdError::Abort {
            error: "the refresh changed the public key".into(),
            culprits: vec![],
        });
    }
    out["request_id"] = json!(rid);
    Ok(out)
}

/// `quorate ecdsa refresh --node DIR --key-id K [--restored J] [--json]`: a proactive
/// refresh by every holder (with `--restored J`: node `J` takes part from the share it
/// imported from the escrow); prints the new `epoch` (and `key_id`, `public_key`,
/// unchanged).
pub fn refresh(args: &RefreshArgs) -> ExitCode {
    finish(args.opts.json, refresh_inner(args), |v| {
        format!(
            "key id:     {}
public key: {} (unchanged)
epoch:      {}",
            v["key_id"].as_str().unwrap_or_default(),
            v["public_key"].as_str().unwrap_or_default(),
            v["epoch"]
        )
    })
}

/// `quorate ecdsa resolve`.
#[derive(Clone, Debug, clap::Args)]
pub struct ResolveArgs {
    /// Key id.
    #[arg(long)]
    pub key_id: String,
    /// Abandon the pending epoch if the holders' statuses cannot decide it (a holder stays
    /// silent). Only safe if no silent holder committed it: read docs/decisions.md
    /// ("operator resolve of a pending ECDSA epoch") first.
    #[arg(long)]
    pub abandon_pending: bool,
    /// Who decides (recorded with the decision; default: $USER).
    #[arg(long, value_name = "NAME")]
    pub operator: Option<String>,
    /// Why (recorded with the decision; required with --abandon-pending).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// The node directory (its operator API address and token are read from it).
    #[arg(long, value_name = "DIR")]
    pub node: PathBuf,
    /// How long to wait for the answer, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 120,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

fn resolve_inner(args: &ResolveArgs) -> Result<Value, CmdError> {
    if !valid_name(&args.key_id) {
        return Err(CmdError::Input(
            "key id must be 1..=128 characters of [A-Za-z0-9._:-]".into(),
        ));
    }
    let mut body = json!({ "abandon": args.abandon_pending });
    if args.abandon_pending {
        let operator = args
            .operator
            .clone()
            .or_else(|| std::env::var("USER").ok())
            .filter(|o| !o.trim().is_empty())
            .ok_or_else(|| CmdError::Input("--abandon-pending needs --operator NAME".into()))?;
        let reason = args
            .reason
            .clone()
            .filter(|r| !r.trim().is_empty())
            .ok_or_else(|| CmdError::Input("--abandon-pending needs --reason TEXT".into()))?;
        body["operator"] = json!(operator);
        body["reason"] = json!(reason);
    } else if args.operator.is_some() || args.reason.is_some() {
        return Err(CmdError::Input(
            "--operator and --reason go with --abandon-pending".into(),
        ));
    }
    let client = NodeClient::open(&args.node)?;
    let v = client.resolve(&args.key_id, &body, Duration::from_secs(args.timeout))?;
    if v["outcome"] == "undecided" {
        let silent: Vec<u16> = v["silent"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|h| h.as_u64())
                    .filter_map(|h| u16::try_from(h).ok())
                    .collect()
            })
            .unwrap_or_default();
        return Err(CmdError::Abort {
            error: format!(
                "epoch {} of key {} stays pending: holder(s) {silent:?} did not answer and no \
                 certificate is complete; `--abandon-pending --reason TEXT` abandons it (read \
                 docs/decisions.md first)",
                v["epoch"], args.key_id
            ),
            culprits: silent,
        });
    }
    Ok(v)
}

/// `quorate ecdsa resolve --node DIR --key-id K [--abandon-pending --reason TEXT
/// [--operator NAME]] [--json]`: resolves the key's pending epoch on this node. Prints
/// `outcome`: `none` (nothing pending), `committed` (a complete certificate was found),
/// `abandoned` (a holder never signed, or the operator decided: then `decision` and
/// `warning`); exit 1 if it stays undecided (culprits: the silent holders).
pub fn resolve(args: &ResolveArgs) -> ExitCode {
    finish(args.json, resolve_inner(args), |v| {
        let mut text = format!(
            "key id:  {}\npending: {}\noutcome: {}",
            args.key_id,
            v["epoch"],
            v["outcome"].as_str().unwrap_or_default()
        );
        if let Some(w) = v["warning"].as_str() {
            text.push_str(&format!("\nwarning: {w}"));
        }
        text
    })
}
