//! The JSON forms of backups and key files.

use quorate_verenc::backup::{Backup, BackupError, CurveId, Scheme};
use serde_json::{json, Value};
use std::path::Path;

use crate::files::read_text;

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
        match v.get(k) {
            Some(Value::String(s)) => Ok(s.as_str()),
            None => Err(format!("field `{k}` is missing")),
            Some(other) => Err(format!(
                "field `{k}` is {}, expected a string",
                json_kind(other)
            )),
        }
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

/// Reads a JSON file (at most [`MAX_INPUT_BYTES`](crate::files::MAX_INPUT_BYTES)).
pub(crate) fn read_json(path: &Path) -> Result<Value, String> {
    let text = read_text(path).map_err(|e| format!("{e:#}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))
}

/// What kind of JSON value `v` is, for messages: "a number", "an object", …
pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
