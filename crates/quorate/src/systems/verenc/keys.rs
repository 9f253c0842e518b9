//! `quorate verenc keygen` and `quorate verenc backup`: key and backup files.

use anyhow::{anyhow, Context as _};
use quorate_verenc::backup::{self, CurveId, EscrowPublicKey, Scheme};
use serde_json::{json, Value};
use std::path::Path;
use zeroize::Zeroizing;

use super::json::{backup_to_json, read_json};
use super::{cs03_params, VerencBackupArgs, VerencKeygenArgs};
use crate::common::os_rng;

pub(crate) fn write_private(path: &Path, contents: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o600);
    }
    let mut f = opts
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    f.write_all(contents.as_bytes())?;
    Ok(())
}

/// `quorate verenc keygen`.
pub fn keygen(args: &VerencKeygenArgs) -> anyhow::Result<()> {
    let scheme: Scheme = args.scheme.parse()?;
    let curve: CurveId = args.curve.parse()?;
    let params = (scheme == Scheme::Cs03)
        .then(|| cs03_params(args.modulus_bits))
        .transpose()?;
    let (epk, esk) = backup::escrow_keygen(&mut os_rng(), scheme, curve, params)?;
    let public = json!({
        "scheme": scheme.name(),
        "curve": curve.name(),
        "escrow_public_key": hex::encode(epk.as_bytes()),
    });
    let secret = Zeroizing::new(
        json!({
            "scheme": scheme.name(),
            "curve": curve.name(),
            "escrow_secret_key": hex::encode(esk.expose_bytes()),
        })
        .to_string(),
    );
    std::fs::write(&args.public_out, public.to_string())
        .with_context(|| format!("writing {}", args.public_out.display()))?;
    write_private(&args.secret_out, &secret)?;
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
    let get = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("{}: field `{k}` missing", path.display()))
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
    let text = Zeroizing::new(
        std::fs::read_to_string(&args.secret_file)
            .with_context(|| format!("reading {}", args.secret_file.display()))?,
    );
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
            std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))?;
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
