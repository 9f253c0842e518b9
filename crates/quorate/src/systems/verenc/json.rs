//! The JSON forms of backups and key files.

use quorate_verenc::backup::Backup;
use serde_json::Value;
use std::path::Path;

use crate::files::read_text;

/// The backup's JSON form ([`Backup::to_json`]).
pub fn backup_to_json(b: &Backup) -> Value {
    b.to_json()
}

/// Parses the JSON form ([`Backup::from_json`]).
pub fn backup_from_json(v: &Value) -> Result<Backup, String> {
    Backup::from_json(v).map_err(|e| e.to_string())
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
