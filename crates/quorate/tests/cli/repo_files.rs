//! Issue 18 items 10 and 11: the stated minimum Rust version is true for the locked
//! dependencies, and the licence files the README names exist.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn version(s: &str) -> (u64, u64) {
    let mut parts = s.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// `rust-version` covers every locked dependency's `rust-version`, and the README states it.
#[test]
fn minimum_rust_version_is_true_and_stated() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let ours = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|l| l.strip_suffix('"'))
        .unwrap()
        .to_owned();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let needed = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| Some((version(p["rust_version"].as_str()?), p["name"].as_str()?)))
        .max()
        .unwrap();
    assert!(
        needed.0 <= version(&ours),
        "{} needs Rust {}.{}, but rust-version is {ours}",
        needed.1,
        needed.0 .0,
        needed.0 .1
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust (stable, {ours} or newer")),
        "README does not state rust-version {ours}"
    );
}

/// The README says "Apache-2.0 OR MIT"; both licence texts are in the repository.
#[test]
fn licence_files_exist() {
    let apache = std::fs::read_to_string(root().join("LICENSE-APACHE")).unwrap();
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0, January 2004"));
    assert!(apache.contains("END OF TERMS AND CONDITIONS"));
    let mit = std::fs::read_to_string(root().join("LICENSE-MIT")).unwrap();
    assert!(mit.starts_with("MIT License"));
    assert!(mit.contains("WITHOUT WARRANTY OF ANY KIND"));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("LICENSE-APACHE") && readme.contains("LICENSE-MIT"));
}
