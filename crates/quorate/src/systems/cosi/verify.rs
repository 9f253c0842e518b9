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

/// `quorate cosi verify`: 0 valid, 1 invalid (reason on stdout), 2 malformed input (stderr).
pub fn verify(args: &CosiVerifyArgs) -> ExitCode {
    match std::panic::catch_unwind(|| verify_inner(args)) {
        Ok(code) => code,
        Err(_) => {
            eprintln!("error: internal error while verifying");
            ExitCode::from(2)
        }
    }
}

fn verify_inner(args: &CosiVerifyArgs) -> ExitCode {
    let malformed = |e: anyhow::Error| {
        eprintln!("error: {e:#}");
        ExitCode::from(2)
    };
    let policy = match parse_policy(&args.policy) {
        Ok(p) => p,
        Err(e) => return malformed(e),
    };
    let roster = match load_roster(&args.roster) {
        Ok(r) => r,
        Err(e) => return malformed(e),
    };
    let message = match hex::decode(args.message.trim()) {
        Ok(m) => m,
        Err(e) => return malformed(anyhow!("message is not hex: {e}")),
    };
    let sig_bytes = match hex::decode(args.signature.trim()) {
        Ok(s) => s,
        Err(e) => return malformed(anyhow!("signature is not hex: {e}")),
    };
    let n = roster.len();
    if let Err(e) = policy.validate(n) {
        return malformed(anyhow!("policy: {e}"));
    }
    let sig = match Signature::from_bytes(&sig_bytes, n) {
        Ok(s) => s,
        Err(e @ DecodeError::WrongLength { .. }) => {
            return malformed(anyhow!("signature: {e} (roster has {n} witnesses)"))
        }
        Err(e) => {
            println!("invalid: signature encoding rejected: {e}");
            return ExitCode::from(1);
        }
    };
    match roster.verify(&message, &sig, &policy) {
        Ok(()) => {
            println!(
                "valid: {} of {} witnesses signed (roster with proofs of possession)",
                sig.mask().count(),
                n,
            );
            ExitCode::SUCCESS
        }
        Err(reason) => {
            println!("invalid: {reason}");
            ExitCode::from(1)
        }
    }
}
