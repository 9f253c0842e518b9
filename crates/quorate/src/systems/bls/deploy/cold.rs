//! The cold custodian: an offline flow on files, for an air-gapped machine. Nothing here
//! opens a socket. Refresh never touches these files.

use std::path::Path;

use anyhow::{bail, Context as _};
use quorate_bls::{ColdParty, PublicKey, Signature};
use quorate_core::PartyId;
use serde_json::json;
use zeroize::Zeroizing;

use quorate_node::identity::PassphraseArgs;

use super::files::{
    hex_field, kdf_params, read_json, read_sealed_json, str_field, u16_field, write_json,
    write_sealed_json, COLD_LABEL,
};
use super::{ColdEnrollArgs, ColdKeygenArgs, ColdSignArgs};
use crate::common::os_rng;
use crate::files::{ensure_writable, Access};

/// Loads and opens `DIR/cold.secret`.
fn load(dir: &Path, passphrase: &PassphraseArgs) -> anyhow::Result<ColdParty> {
    let path = dir.join("cold.secret");
    let v = read_sealed_json(&path, COLD_LABEL, &passphrase.passphrase()?)?;
    let index = PartyId::new(u16_field(&v, "index", &path)?)
        .with_context(|| format!("{}: index", path.display()))?;
    let secret = Zeroizing::new(hex_field(&v, "secret_key", &path)?);
    ColdParty::from_secret_bytes(index, &secret).with_context(|| format!("{}", path.display()))
}

/// The client's `vk` and proof of possession from a JSON value (`public_key`, `pop`).
fn client_key(v: &serde_json::Value, path: &Path) -> anyhow::Result<(PublicKey, Signature)> {
    let vk = PublicKey::from_bytes(&hex_field(v, "public_key", path)?)
        .with_context(|| format!("{}: public_key", path.display()))?;
    let pop = Signature::from_bytes(&hex_field(v, "pop", path)?)
        .with_context(|| format!("{}: pop", path.display()))?;
    Ok((vk, pop))
}

/// `quorate bls cold keygen`.
pub fn keygen(args: &ColdKeygenArgs) -> anyhow::Result<()> {
    let secret_path = args.dir.join("cold.secret");
    let public_path = args.dir.join("cold.pub");
    ensure_writable(&secret_path, args.force)?;
    ensure_writable(&public_path, args.force)?;
    let passphrase = args.passphrase.passphrase()?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating {}", args.dir.display()))?;
    let index = PartyId::new(args.index)?;
    let mut rng = os_rng();
    let cold = ColdParty::register(index, &mut rng);
    let secret = cold.secret_bytes();
    // The secret first: a public key is never published without its secret on disk.
    write_sealed_json(
        &secret_path,
        &json!({ "index": args.index, "secret_key": hex::encode(*secret) }),
        COLD_LABEL,
        &passphrase,
        kdf_params(args.insecure_test_kdf),
        args.force,
    )?;
    let reg = cold.registration(&mut rng);
    crate::files::write_new_file(
        &public_path,
        json!({ "index": args.index, "registration": hex::encode(reg.to_bytes()) })
            .to_string()
            .as_bytes(),
        Access::Public,
        args.force,
    )?;
    println!(
        "cold party {}: ek {} (secret {}, public {})",
        args.index,
        hex::encode(cold.public_key().to_bytes()),
        secret_path.display(),
        public_path.display()
    );
    Ok(())
}

/// `quorate bls cold enroll`.
pub fn enroll(args: &ColdEnrollArgs) -> anyhow::Result<()> {
    let mut cold = load(&args.dir, &args.passphrase)?;
    let v = read_json(&args.client)?;
    let (vk, pop) = client_key(&v, &args.client)?;
    let pad = cold
        .add_client(&vk, &pop)
        .with_context(|| format!("{}", args.client.display()))?;
    write_json(
        &args.out,
        &json!({
            "index": cold.index().get(),
            "public_key": hex::encode(vk.to_bytes()),
            "pad": hex::encode(pad.to_bytes()),
        }),
        Access::Public,
    )?;
    println!(
        "cold party {}: K_i for client {} in {}",
        cold.index(),
        &hex::encode(vk.to_bytes())[..16],
        args.out.display()
    );
    Ok(())
}

/// `quorate bls cold sign`.
pub fn sign(args: &ColdSignArgs) -> anyhow::Result<()> {
    let mut cold = load(&args.dir, &args.passphrase)?;
    let v = read_json(&args.request)?;
    let key_id = str_field(&v, "key_id", &args.request)?;
    let (vk, pop) = client_key(&v, &args.request)?;
    let message = hex_field(&v, "message", &args.request)?;
    if message.len() > 1 << 20 {
        bail!("{}: message longer than 1 MiB", args.request.display());
    }
    cold.add_client(&vk, &pop)
        .with_context(|| format!("{}", args.request.display()))?;
    let partial = cold.partial_sign(&vk, &message)?;
    write_json(
        &args.out,
        &json!({
            "key_id": key_id,
            "index": cold.index().get(),
            "public_key": hex::encode(vk.to_bytes()),
            "message": hex::encode(&message),
            "cold_partial": hex::encode(partial.to_bytes()),
        }),
        Access::Public,
    )?;
    println!(
        "cold party {}: partial for key {key_id} in {}",
        cold.index(),
        args.out.display()
    );
    Ok(())
}
