//! The JSON forms of backups and key files.

use quorate_verenc::backup::{Backup, BackupError, CurveId, Scheme};
use serde_json::{json, Value};
use std::path::Path;

/// The backup's JSON form: the field names, every byte string in hex.
pub fn backup_to_json(b: &Backup) -> Value {
    json!({
        "scheme": b.scheme.name(),
        "curve": b.curve.name(),
        "params": b.params,
        "public_share": hex::encode(&b.public_share),
        "escrow_public_key": hex::encode(&b.escrow_public_key),
        "ciphertext": hex::encode(&b.ciphertext),
        "proof": hex::encode(&b.proof),
        "label": hex::encode(&b.label),
    })
}

/// Parses the JSON form; every field is checked for presence, type and hex.
pub fn backup_from_json(v: &Value) -> Result<Backup, String> {
    let text = |k: &str| -> Result<&str, String> {
        v.get(k)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("field `{k}`: missing or not a string"))
    };
    let bytes = |k: &str| -> Result<Vec<u8>, String> {
        hex::decode(text(k)?.trim()).map_err(|e| format!("field `{k}`: invalid hex: {e}"))
    };
    let scheme: Scheme = text("scheme")?
        .parse()
        .map_err(|e: BackupError| e.to_string())?;
    let curve: CurveId = text("curve")?
        .parse()
        .map_err(|e: BackupError| e.to_string())?;
    Ok(Backup {
        scheme,
        curve,
        params: v
            .get("params")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        public_share: bytes("public_share")?,
        escrow_public_key: bytes("escrow_public_key")?,
        ciphertext: bytes("ciphertext")?,
        proof: bytes("proof")?,
        label: bytes("label")?,
    })
}

/// Reads a JSON file.
pub(crate) fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))
}
