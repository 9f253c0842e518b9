//! `quorate verenc keygen` and `quorate verenc backup`: key and backup files.

use anyhow::{anyhow, Context as _};
use quorate_verenc::backup::{self, CurveId, EscrowPublicKey, Scheme};
use serde_json::{json, Value};
use std::path::Path;
use zeroize::Zeroizing;

use super::json::json_kind;
use super::json::{backup_to_json, read_json};
use super::{cs03_params, VerencBackupArgs, VerencKeygenArgs};
use crate::common::os_rng;
use crate::files::{ensure_writable, read_text, write_new_file, Access};

/// `quorate verenc keygen`.
pub fn keygen(args: &VerencKeygenArgs) -> anyhow::Result<()> {
    let scheme: Scheme = args.scheme.parse()?;
    let curve: CurveId = args.curve.parse()?;
    // Refuse existing files before the (possibly slow) key generation.
    ensure_writable(&args.secret_out, args.force)?;
    ensure_writable(&args.public_out, args.force)?;
    let params = (scheme == Scheme::Cs03)
        .then(|| cs03_params(args.modulus_bits))
        .transpose()?;
    let (epk, esk) = backup::escrow_keygen(&mut os_rng(), scheme, curve, params)?;
    let public = epk.to_json();
    let secret = Zeroizing::new(
        json!({
            "scheme": scheme.name(),
            "curve": curve.name(),
            "escrow_secret_key": hex::encode(esk.expose_bytes()),
        })
        .to_string(),
    );
    // The secret first: a public key is never published without its secret on disk.
    write_new_file(
        &args.secret_out,
        secret.as_bytes(),
        Access::Secret,
        args.force,
    )?;
    write_new_file(
        &args.public_out,
        public.to_string().as_bytes(),
        Access::Public,
        args.force,
    )?;
    println!(
        "escrow key pair for {scheme}/{curve}: public key {} ({} B), secret key {}",
        args.public_out.display(),
        epk.as_bytes().len(),
        args.secret_out.display()
    );
    Ok(())
}

pub(crate) fn key_file(
    path: &Path,
    field: &str,
) -> anyhow::Result<(Scheme, CurveId, Zeroizing<Vec<u8>>)> {
    let v = read_json(path).map_err(|e| anyhow!(e))?;
    let get = |k: &str| match v.get(k) {
        Some(Value::String(s)) => Ok(s.as_str()),
        None => Err(anyhow!("{}: field `{k}` is missing", path.display())),
        Some(other) => Err(anyhow!(
            "{}: field `{k}` is {}, expected a hex string",
            path.display(),
            json_kind(other)
        )),
    };
    let scheme: Scheme = get("scheme")?.parse()?;
    let curve: CurveId = get("curve")?.parse()?;
    let bytes = Zeroizing::new(
        hex::decode(get(field)?)
            .with_context(|| format!("{}: `{field}` is not hex", path.display()))?,
    );
    Ok((scheme, curve, bytes))
}

/// `quorate verenc backup`.
pub fn backup_cmd(args: &VerencBackupArgs) -> anyhow::Result<()> {
    let (scheme, curve, bytes) = key_file(&args.escrow, "escrow_public_key")?;
    let epk = EscrowPublicKey::from_bytes(scheme, curve, &bytes)?;
    let text = Zeroizing::new(read_text(&args.secret_file)?);
    let raw = Zeroizing::new(hex::decode(text.trim()).context("secret file: not hex")?);
    let secret: Zeroizing<[u8; 32]> = Zeroizing::new(
        raw.as_slice()
            .try_into()
            .map_err(|_| anyhow!("secret file: expected 32 bytes, got {}", raw.len()))?,
    );
    let b = backup::backup(&mut os_rng(), &epk, &secret, args.label.as_bytes())?;
    let out = serde_json::to_string(&backup_to_json(&b))?;
    match &args.out {
        Some(path) => {
            write_new_file(path, out.as_bytes(), Access::Public, true)?;
            println!(
                "backup of {} written to {}",
                hex::encode(&b.public_share),
                path.display()
            );
        }
        None => println!("{out}"),
    }
    Ok(())
}
