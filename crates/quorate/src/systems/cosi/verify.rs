//! `quorate cosi verify` and the `--policy` grammar.

use super::CosiVerifyArgs;
use anyhow::{anyhow, bail, ensure, Context as _};
use quorate_core::DecodeError;
use quorate_cosi::{Policy, PolicyMember, Roster, Signature};
use std::path::Path;
use std::process::ExitCode;

/// Parses a policy string (see [`CosiVerifyArgs::policy`]).
pub fn parse_policy(s: &str) -> anyhow::Result<Policy> {
    let s = s.trim();
    if s == "complete" {
        return Ok(Policy::Complete);
    }
    if s == "any" {
        return Ok(Policy::Threshold(1));
    }
    if let Some(t) = s.strip_prefix("threshold:") {
        return Ok(Policy::Threshold(t.parse().context("threshold")?));
    }
    if s.starts_with("group:") {
        return match parse_group(s, 0)? {
            PolicyMember::Group { k, members } => Ok(Policy::Group { k, members }),
            PolicyMember::Witness(_) => bail!("group:K:… expected"),
        };
    }
    bail!("unknown policy {} (complete, any, threshold:T, group:K:M,M,… with M an index or (group:K:…))",
        crate::files::quote(s)
    )
}

/// Nesting limit of `--policy` groups (the library's limit).
const MAX_GROUP_NESTING: usize = quorate_cosi::policy::MAX_POLICY_DEPTH;

/// `group:K:M,M,…` where each `M` is a witness index or a parenthesised nested group.
fn parse_group(s: &str, depth: usize) -> anyhow::Result<PolicyMember> {
    ensure!(depth < MAX_GROUP_NESTING, "policy groups nested too deeply");
    let rest = s.trim().strip_prefix("group:").context("group:K:M,M,…")?;
    let (k, list) = rest.split_once(':').context("group:K:M,M,…")?;
    let mut members = Vec::new();
    let mut level = 0usize;
    let mut start = 0usize;
    let mut items = Vec::new();
    for (i, ch) in list.char_indices() {
        match ch {
            '(' => level += 1,
            ')' => level = level.checked_sub(1).context("unbalanced ')' in policy")?,
            ',' if level == 0 => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    ensure!(level == 0, "unbalanced '(' in policy");
    items.push(&list[start..]);
    for item in items {
        let item = item.trim();
        if let Some(inner) = item.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
            members.push(parse_group(inner, depth + 1)?);
        } else {
            members
                .push(PolicyMember::Witness(item.parse().with_context(|| {
                    format!("group member {item:?}: not an index")
                })?));
        }
    }
    Ok(PolicyMember::Group {
        k: k.trim().parse().context("group k")?,
        members,
    })
}

fn load_roster(path: &Path) -> anyhow::Result<Roster> {
    let text = crate::files::read_text(path).context("cannot read the roster file")?;
    Roster::from_json(&text).map_err(|e| anyhow!("roster: {e}"))
}

/// The outcome of `quorate cosi verify` before it is printed.
enum Outcome {
    /// Valid: (signers, roster size).
    Valid(usize, usize),
    /// Parsed but invalid (exit 1), with the reason.
    Invalid(String),
    /// Malformed input (exit 2).
    Malformed(anyhow::Error),
}

/// `quorate cosi verify`: 0 valid, 1 invalid (reason on stdout), 2 malformed input (stderr).
/// With `--json` every outcome is one JSON object on stdout: `{"valid": true, "signers",
/// "witnesses"}`, `{"valid": false, "reason"}` or `{"error"}` (exit 2, also on stderr).
pub fn verify(args: &CosiVerifyArgs) -> ExitCode {
    let outcome = std::panic::catch_unwind(|| verify_inner(args))
        .unwrap_or_else(|_| Outcome::Malformed(anyhow!("internal error while verifying")));
    match outcome {
        Outcome::Valid(signers, n) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({ "valid": true, "signers": signers, "witnesses": n })
                );
            } else {
                println!(
                    "valid: {signers} of {n} witnesses signed (roster with proofs of possession)"
                );
            }
            ExitCode::SUCCESS
        }
        Outcome::Invalid(reason) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({ "valid": false, "reason": reason })
                );
            } else {
                println!("invalid: {reason}");
            }
            ExitCode::from(crate::common::EXIT_INVALID)
        }
        Outcome::Malformed(e) => {
            if args.json {
                println!("{}", serde_json::json!({ "error": format!("{e:#}") }));
            }
            eprintln!("error: {e:#}");
            ExitCode::from(crate::common::EXIT_MALFORMED)
        }
    }
}

fn verify_inner(args: &CosiVerifyArgs) -> Outcome {
    let parsed = (|| -> anyhow::Result<_> {
        let policy = parse_policy(&args.policy)?;
        let roster = load_roster(&args.roster)?;
        let message =
            hex::decode(args.message.trim()).map_err(|e| anyhow!("message is not hex: {e}"))?;
        let sig_bytes =
            hex::decode(args.signature.trim()).map_err(|e| anyhow!("signature is not hex: {e}"))?;
        policy
            .validate(roster.len())
            .map_err(|e| anyhow!("policy: {e}"))?;
        Ok((policy, roster, message, sig_bytes))
    })();
    let (policy, roster, message, sig_bytes) = match parsed {
        Ok(p) => p,
        Err(e) => return Outcome::Malformed(e),
    };
    let n = roster.len();
    let sig = match Signature::from_bytes(&sig_bytes, n) {
        Ok(s) => s,
        Err(e @ DecodeError::WrongLength { .. }) => {
            return Outcome::Malformed(anyhow!("signature: {e} (roster has {n} witnesses)"))
        }
        Err(e) => return Outcome::Invalid(format!("signature encoding rejected: {e}")),
    };
    match roster.verify(&message, &sig, &policy) {
        Ok(()) => Outcome::Valid(sig.mask().count(), n),
        Err(reason) => Outcome::Invalid(reason.to_string()),
    }
}
