//! `quorate cosi timestamp submit | fetch | check-chain`: the client side of the service's
//! HTTP API (`docs/timestamp-api.json`).
//!
//! Exit codes, as for `verify`: **0** the request succeeded (and anything asked to be checked
//! checked out), **1** a definite negative answer (the server refused the hash, no receipt
//! for that ticket or hash, the receipt or the chain is invalid), **2** the question could
//! not be asked (malformed input, unreadable file, server unreachable or answering nonsense).
//! `--json` prints one JSON object on stdout instead of the human summary.

use super::{read_roster, verifier_for};
use anyhow::{bail, Context as _};
use clap::Args;
use quorate_cosi::timestamp::{check_chain, parse_hash_hex, Receipt, SignedRound};
use quorate_timestamp::loadgen::http_call;
use serde_json::{json, Value};
use sha2::Digest as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The largest rounds file `check-chain --rounds` reads (about 1.4 million rounds).
const MAX_ROUNDS_FILE: u64 = 1 << 30;

/// Arguments of `timestamp submit`.
#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The server.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The hash to timestamp (64 hex characters).
    #[arg(
        long,
        value_name = "HEX",
        conflicts_with = "file",
        required_unless_present = "file"
    )]
    pub hash: Option<String>,
    /// Timestamp this file: its SHA-256 is submitted (at most 4 MiB).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Wait until the round is signed and get the receipt (long poll).
    #[arg(long)]
    pub wait: bool,
    /// Write the receipt to FILE (with `--wait`; refuses an existing file).
    #[arg(long, value_name = "FILE", requires = "wait")]
    pub out: Option<PathBuf>,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `timestamp fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The server.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The ticket `submit` gave (`ROUND-INDEX-INSTANCE`).
    #[arg(long, conflicts_with = "hash", required_unless_present = "hash")]
    pub ticket: Option<String>,
    /// Look the receipt up by the submitted hash instead (a lost ticket): the earliest
    /// signed leaf holding it.
    #[arg(long, value_name = "HEX")]
    pub hash: Option<String>,
    /// With `--ticket`: wait until the round is signed (long poll).
    #[arg(long, requires = "ticket")]
    pub wait: bool,
    /// Write the receipt to FILE (refuses an existing file).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also verify the receipt against this roster (exit 1 if invalid).
    #[arg(long, value_name = "FILE")]
    pub roster: Option<PathBuf>,
    /// With `--roster`: accept signatures by at least T witnesses (default: all).
    #[arg(long, value_name = "T", requires = "roster")]
    pub threshold: Option<usize>,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `timestamp check-chain`.
#[derive(Debug, Args)]
pub struct CheckChainArgs {
    /// Download every round from this server (then check them offline).
    #[arg(long, conflicts_with = "rounds", required_unless_present = "rounds")]
    pub addr: Option<SocketAddr>,
    /// Check the rounds in FILE instead, fully offline: one round JSON per line, as
    /// `GET /v1/round/N` gives and `--save` writes, from round 0 in order.
    #[arg(long, value_name = "FILE")]
    pub rounds: Option<PathBuf>,
    /// With `--addr`: also write the downloaded rounds to FILE (refuses an existing file).
    #[arg(long, value_name = "FILE", requires = "addr")]
    pub save: Option<PathBuf>,
    /// The roster every round must be signed by.
    #[arg(long, value_name = "FILE")]
    pub roster: PathBuf,
    /// Accept signatures by at least T witnesses (default: all witnesses must have signed).
    #[arg(long, value_name = "T")]
    pub threshold: Option<usize>,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
}

/// The outcome of a client command: exit 1 with an answer, or exit 2 with an error.
enum Failure {
    /// A definite negative answer (exit 1), with JSON details.
    Negative(String, Value),
    /// Could not ask (exit 2).
    Error(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Error(e)
    }
}

/// Prints the outcome in the chosen form and returns the exit code.
fn finish(json_out: bool, result: Result<(String, Value), Failure>) -> ExitCode {
    match result {
        Ok((summary, value)) => {
            if json_out {
                println!("{value}");
            } else {
                println!("{summary}");
            }
            ExitCode::SUCCESS
        }
        Err(Failure::Negative(summary, value)) => {
            if json_out {
                println!("{value}");
            } else {
                println!("{summary}");
            }
            ExitCode::from(1)
        }
        Err(Failure::Error(e)) => {
            if json_out {
                println!("{}", json!({ "ok": false, "error": format!("{e:#}") }));
            } else {
                eprintln!("error: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}

/// One HTTP request on a small runtime of its own.
fn call(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> anyhow::Result<(u16, Vec<u8>)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime
        .block_on(http_call(addr, method, path, body))
        .with_context(|| format!("{method} http://{addr}{path}"))
}

/// The `error` field of a JSON error body, or the body itself.
fn server_error(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_owned))
        .unwrap_or_else(|| crate::files::quote(&text))
}

fn parse_hash_arg(text: &str) -> anyhow::Result<[u8; 32]> {
    parse_hash_hex(text).context("--hash must be 64 hex characters (32 bytes)")
}

fn parse_receipt(body: &[u8]) -> anyhow::Result<Receipt> {
    let text = std::str::from_utf8(body).context("receipt is not UTF-8")?;
    Receipt::from_json(text).context("the server's answer is not a receipt")
}

fn write_receipt(path: &Path, receipt: &Receipt) -> anyhow::Result<()> {
    crate::files::write_new_file(
        path,
        (receipt.to_json() + "\n").as_bytes(),
        crate::files::Access::Public,
        false,
    )
}

/// `timestamp submit`.
pub fn submit(args: &SubmitArgs) -> ExitCode {
    finish(args.json, submit_inner(args))
}

fn submit_inner(args: &SubmitArgs) -> Result<(String, Value), Failure> {
    if let Some(out) = &args.out {
        crate::files::ensure_writable(out, false)?;
    }
    let hash = match (&args.hash, &args.file) {
        (Some(h), _) => parse_hash_arg(h)?,
        (None, Some(file)) => {
            let bytes = crate::files::read_capped(file, crate::files::MAX_INPUT_BYTES)?;
            sha2::Sha256::digest(bytes).into()
        }
        (None, None) => return Err(anyhow::anyhow!("give --hash or --file").into()),
    };
    let (status, body) = call(
        args.addr,
        "POST",
        "/v1/submit",
        hex::encode(hash).as_bytes(),
    )?;
    if status != 200 {
        let reason = server_error(&body);
        return Err(Failure::Negative(
            format!("refused: {status} {reason}"),
            json!({ "ok": false, "status": status, "error": reason }),
        ));
    }
    let ticket: Value = serde_json::from_slice(&body).context("the server's answer is not JSON")?;
    let ticket = ticket["ticket"]
        .as_str()
        .context("the server's answer has no ticket")?
        .to_owned();
    let mut value = json!({ "ok": true, "hash": hex::encode(hash), "ticket": ticket });
    let mut summary = format!("submitted {}: ticket {ticket}", hex::encode(hash));
    if args.wait {
        let receipt = match fetch_by_ticket(args.addr, &ticket, true)? {
            Some(r) => r,
            None => {
                return Err(Failure::Negative(
                    format!("{summary}; no receipt yet (the round is not signed)"),
                    json!({ "ok": false, "hash": hex::encode(hash), "ticket": ticket, "status": "pending" }),
                ))
            }
        };
        summary.push_str(&format!(
            "\nreceipt: round {} at {}, leaf {} of {}",
            receipt.round, receipt.time, receipt.leaf_index, receipt.tree_size
        ));
        if let Some(out) = &args.out {
            write_receipt(out, &receipt)?;
            summary.push_str(&format!(", written to {}", out.display()));
        }
        value["receipt"] = serde_json::to_value(&receipt).context("receipt")?;
    }
    Ok((summary, value))
}

/// The receipt of `ticket`: `Some` once signed, `None` while pending; a negative answer
/// (404, 400) is a [`Failure::Negative`].
fn fetch_by_ticket(addr: SocketAddr, ticket: &str, wait: bool) -> Result<Option<Receipt>, Failure> {
    if ticket.is_empty()
        || !ticket
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(anyhow::anyhow!("--ticket looks like ROUND-INDEX-INSTANCE").into());
    }
    let path = format!("/v1/receipt/{ticket}{}", if wait { "?wait=1" } else { "" });
    let (status, body) = call(addr, "GET", &path, b"")?;
    match status {
        200 => Ok(Some(parse_receipt(&body)?)),
        202 => Ok(None),
        404 | 400 => {
            let reason = server_error(&body);
            Err(Failure::Negative(
                format!("not found: ticket {ticket}: {reason}"),
                json!({ "ok": false, "ticket": ticket, "status": status, "error": reason }),
            ))
        }
        other => Err(anyhow::anyhow!("unexpected answer {other}: {}", server_error(&body)).into()),
    }
}

/// `timestamp fetch`.
pub fn fetch(args: &FetchArgs) -> ExitCode {
    finish(args.json, fetch_inner(args))
}

fn fetch_inner(args: &FetchArgs) -> Result<(String, Value), Failure> {
    if let Some(out) = &args.out {
        crate::files::ensure_writable(out, false)?;
    }
    let verifier = match &args.roster {
        Some(path) => Some(verifier_for(read_roster(path)?, args.threshold)?),
        None => None,
    };
    let expected = args.hash.as_deref().map(parse_hash_arg).transpose()?;
    let receipt = match (&args.ticket, expected) {
        (Some(ticket), _) => match fetch_by_ticket(args.addr, ticket, args.wait)? {
            Some(r) => r,
            None => {
                return Err(Failure::Negative(
                    format!("pending: the round of ticket {ticket} is not signed yet"),
                    json!({ "ok": false, "ticket": ticket, "status": "pending" }),
                ))
            }
        },
        (None, Some(hash)) => {
            let (status, body) = call(
                args.addr,
                "GET",
                &format!("/v1/lookup/{}", hex::encode(hash)),
                b"",
            )?;
            match status {
                200 => parse_receipt(&body)?,
                404 => {
                    let reason = server_error(&body);
                    return Err(Failure::Negative(
                        format!("not found: hash {}: {reason}", hex::encode(hash)),
                        json!({ "ok": false, "hash": hex::encode(hash), "status": 404, "error": reason }),
                    ));
                }
                other => {
                    return Err(anyhow::anyhow!(
                        "unexpected answer {other}: {}",
                        server_error(&body)
                    )
                    .into())
                }
            }
        }
        (None, None) => return Err(anyhow::anyhow!("give --ticket or --hash").into()),
    };
    let mut summary = format!(
        "receipt: hash {} in round {} at {}, leaf {} of {}",
        hex::encode(receipt.hash),
        receipt.round,
        receipt.time,
        receipt.leaf_index,
        receipt.tree_size
    );
    let mut value =
        json!({ "ok": true, "receipt": serde_json::to_value(&receipt).context("receipt")? });
    if let Some(verifier) = &verifier {
        if let Err(e) = receipt.verify(verifier, expected.as_ref()) {
            return Err(Failure::Negative(
                format!("invalid: {e}"),
                json!({ "ok": false, "valid": false, "error": e.to_string() }),
            ));
        }
        summary.push_str("\nvalid under the given roster");
        value["valid"] = true.into();
    }
    if let Some(out) = &args.out {
        write_receipt(out, &receipt)?;
        summary.push_str(&format!("\nwritten to {}", out.display()));
    }
    Ok((summary, value))
}

/// `timestamp check-chain`.
pub fn check_chain_command(args: &CheckChainArgs) -> ExitCode {
    finish(args.json, check_chain_inner(args))
}

/// Every round from 0 to the server's head, as the JSON lines the server sent.
fn download_rounds(addr: SocketAddr) -> anyhow::Result<Vec<String>> {
    let (status, body) = call(addr, "GET", "/v1/head", b"")?;
    if status == 404 {
        return Ok(Vec::new());
    }
    if status != 200 {
        bail!(
            "GET /v1/head: unexpected answer {status}: {}",
            server_error(&body)
        );
    }
    let head = SignedRound::from_json(std::str::from_utf8(&body).context("head is not UTF-8")?)
        .map_err(|e| anyhow::anyhow!("GET /v1/head: {e}"))?;
    let mut lines = Vec::new();
    for n in 0..=head.header.round {
        let (status, body) = call(addr, "GET", &format!("/v1/round/{n}"), b"")?;
        if status != 200 {
            bail!(
                "GET /v1/round/{n}: unexpected answer {status}: {}",
                server_error(&body)
            );
        }
        lines.push(String::from_utf8(body).context("round is not UTF-8")?);
    }
    Ok(lines)
}

fn check_chain_inner(args: &CheckChainArgs) -> Result<(String, Value), Failure> {
    if let Some(save) = &args.save {
        crate::files::ensure_writable(save, false)?;
    }
    let verifier = verifier_for(read_roster(&args.roster)?, args.threshold)?;
    let lines: Vec<String> = match (&args.addr, &args.rounds) {
        (Some(addr), _) => download_rounds(*addr)?,
        (None, Some(path)) => {
            let bytes = crate::files::read_capped(path, MAX_ROUNDS_FILE)?;
            let text = String::from_utf8(bytes)
                .map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", path.display()))?;
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_owned)
                .collect()
        }
        (None, None) => return Err(anyhow::anyhow!("give --addr or --rounds").into()),
    };
    let rounds = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            SignedRound::from_json(line).map_err(|e| anyhow::anyhow!("line {}: {e}", i + 1))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let Some(save) = &args.save {
        let mut text = lines.join("\n");
        text.push('\n');
        crate::files::write_new_file(save, text.as_bytes(), crate::files::Access::Public, false)?;
    }
    match check_chain(&rounds, &verifier) {
        Ok(head) => {
            let last = rounds.last().map(|r| r.header);
            let summary = format!(
                "valid: {} rounds (0..={}), every link and signature checked; head hash {}{}",
                head.next_round,
                head.next_round.saturating_sub(1),
                hex::encode(head.prev),
                last.map_or_else(String::new, |h| format!(
                    ", last round at {}",
                    quorate_cosi::timestamp::rfc3339_utc(h.time_ms)
                ))
            );
            Ok((
                summary,
                json!({
                    "ok": true,
                    "valid": true,
                    "rounds": head.next_round,
                    "head_hash": hex::encode(head.prev),
                    "last_time_ms": head.last_time_ms,
                }),
            ))
        }
        Err(e) => Err(Failure::Negative(
            format!("invalid: {e}"),
            json!({ "ok": false, "valid": false, "error": e.to_string() }),
        )),
    }
}
