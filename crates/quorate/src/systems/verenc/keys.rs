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
use crate::systems::bls::deploy::files::{kdf_params, read_sealed_json, write_sealed_json};
use quorate_node::identity::PassphraseArgs;

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
    let passphrase = args.passphrase.passphrase()?;
    let (epk, esk) = backup::escrow_keygen(&mut os_rng(), scheme, curve, params)?;
    let public = epk.to_json();
    let secret_hex = Zeroizing::new(hex::encode(esk.expose_bytes()));
    let secret = json!({
        "scheme": scheme.name(),
        "curve": curve.name(),
        "escrow_secret_key": secret_hex.as_str(),
    });
    // The secret first: a public key is never published without its secret on disk.
    write_sealed_json(
        &args.secret_out,
        &secret,
        SECRET_LABEL,
        &passphrase,
        kdf_params(args.insecure_test_kdf),
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

/// What the sealed escrow secret key file holds (bound into its associated data).
pub const SECRET_LABEL: &str = "quorate/verenc/escrow.secret/v1";

/// The escrow's secret key file (sealed by `keygen`), opened with the passphrase.
pub(crate) fn secret_key_file(
    path: &Path,
    passphrase: &PassphraseArgs,
) -> anyhow::Result<(Scheme, CurveId, Zeroizing<Vec<u8>>)> {
    let v = read_sealed_json(path, SECRET_LABEL, &passphrase.passphrase()?)?;
    key_fields(&v, path, "escrow_secret_key")
}

/// The escrow's public key file.
pub(crate) fn key_file(
    path: &Path,
    field: &str,
) -> anyhow::Result<(Scheme, CurveId, Zeroizing<Vec<u8>>)> {
    let v = read_json(path).map_err(|e| anyhow!(e))?;
    key_fields(&v, path, field)
}

fn key_fields(
    v: &Value,
    path: &Path,
    field: &str,
) -> anyhow::Result<(Scheme, CurveId, Zeroizing<Vec<u8>>)> {
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
