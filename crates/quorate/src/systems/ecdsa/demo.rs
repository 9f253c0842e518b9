//! `quorate ecdsa demo` (key generation and a signature in one process, also the
//! `quorate demo` entry) and `quorate ecdsa verify`.

use anyhow::Context as _;
use k256::ecdsa::signature::hazmat::PrehashVerifier;
use k256::ecdsa::{Signature as K256Signature, VerifyingKey};
use quorate_core::{PartyId, ThresholdParams};
use quorate_eval::ecdsa::simulate;
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;
use sha2::{Digest, Sha256};
use std::process::ExitCode;

use crate::common::{decode_hex, invalid, malformed, os_rng, valid};

/// Arguments of `quorate ecdsa demo`.
#[derive(Clone, Debug, clap::Args)]
pub struct EcdsaDemoArgs {
    /// Threshold: parties needed to sign (2 to n).
    #[arg(short, long, default_value_t = 3,
          value_parser = clap::value_parser!(u16).range(2..=i64::from(MAX_DEMO_PARTIES)))]
    pub t: u16,
    /// Number of parties (2 to 64: key generation is quadratic in n).
    #[arg(short, long, default_value_t = 5,
          value_parser = clap::value_parser!(u16).range(2..=i64::from(MAX_DEMO_PARTIES)))]
    pub n: u16,
    /// The message; SHA-256 of it is signed.
    #[arg(long, default_value = "hello quorate")]
    pub message: String,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The largest `n` the demo accepts: keygen runs n² pairwise OT setups in one process.
pub const MAX_DEMO_PARTIES: u16 = 64;

/// Arguments of `quorate ecdsa verify`.
#[derive(Clone, Debug, clap::Args)]
pub struct EcdsaVerifyArgs {
    /// Public key, hex SEC1 (33-byte compressed or 65-byte uncompressed).
    #[arg(long)]
    pub public_key: String,
    /// The 32-byte digest, hex.
    #[arg(long)]
    pub digest: String,
    /// The signature: 64-byte r‖s hex (or DER hex).
    #[arg(long)]
    pub signature: String,
}

struct Demo {
    t: u16,
    n: u16,
    public_key: [u8; 33],
    message: Vec<u8>,
    digest: [u8; 32],
    signature: [u8; 64],
    der: Vec<u8>,
    recovery_id: u8,
    signers: Vec<u16>,
    keygen_bytes: usize,
    sign_bytes: usize,
}

fn run(t: u16, n: u16, message: &[u8], rng: &mut ChaCha20Rng) -> anyhow::Result<Demo> {
    anyhow::ensure!(
        n <= MAX_DEMO_PARTIES,
        "the demo runs at most {MAX_DEMO_PARTIES} parties (asked for {n})"
    );
    let params = ThresholdParams::new(t, n)?;
    let mut session = [0u8; 16];
    rng.fill_bytes(&mut session);
    let (mut shares, kg) = simulate::keygen(params, &session, rng)?;
    // A random t-subset.
    let mut ids: Vec<PartyId> = params.parties().collect();
    for i in (1..ids.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        ids.swap(i, j);
    }
    ids.truncate(usize::from(t));
    ids.sort_unstable();
    let digest: [u8; 32] = Sha256::digest(message).into();
    let (sig, tr) = simulate::sign(&mut shares, &ids, &digest, &session, rng)?;
    let public_key = shares
        .first()
        .map(|s| s.public_key_bytes())
        .context("no shares")?;
    // Independent check with k256 before reporting.
    let vk = VerifyingKey::from_sec1_bytes(&public_key)?;
    vk.verify_prehash(&digest, &sig.to_k256()?)?;
    Ok(Demo {
        t,
        n,
        public_key,
        message: message.to_vec(),
        digest,
        signature: sig.to_bytes(),
        der: sig.to_der()?,
        recovery_id: sig.recovery_id(),
        signers: ids.iter().map(|p| p.get()).collect(),
        keygen_bytes: kg.total(),
        sign_bytes: tr.total(),
    })
}

impl Demo {
    fn summary(&self) -> String {
        format!(
            "threshold ECDSA (secp256k1, DKLs23 signing over DKLs19 multiplication)\n\
             parties:     t={} n={}, signers {:?}\n\
             public key:  {}\n\
             digest:      {} (SHA-256 of the message)\n\
             signature:   {} (low-S, recovery id {})\n\
             traffic:     keygen {} B total, signing {} B total\n\
             verified:    k256 verifier accepts",
            self.t,
            self.n,
            self.signers,
            hex::encode(self.public_key),
            hex::encode(self.digest),
            hex::encode(self.signature),
            self.recovery_id,
            self.keygen_bytes,
            self.sign_bytes,
        )
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "curve": "secp256k1",
            "t": self.t,
            "n": self.n,
            "public_key": hex::encode(self.public_key),
            "message": hex::encode(&self.message),
            "digest": hex::encode(self.digest),
            "signature": hex::encode(self.signature),
            "der": hex::encode(&self.der),
            "recovery_id": self.recovery_id,
            "signers": self.signers,
            "keygen_bytes": self.keygen_bytes,
            "sign_bytes": self.sign_bytes,
        })
    }
}

/// Runs a 3-of-5 key generation and signature; returns a short summary.
pub fn run_default_demo() -> anyhow::Result<String> {
    Ok(run(3, 5, b"hello quorate", &mut os_rng())?.summary())
}

/// `quorate ecdsa demo`.
pub fn demo(args: &EcdsaDemoArgs) -> anyhow::Result<()> {
    let d = run(args.t, args.n, args.message.as_bytes(), &mut os_rng())?;
    if args.json {
        println!("{}", serde_json::to_string(&d.to_json())?);
    } else {
        println!("{}", d.summary());
        println!(
            "verify:      quorate ecdsa verify --public-key={} --digest={} --signature={}",
            hex::encode(d.public_key),
            hex::encode(d.digest),
            hex::encode(d.signature)
        );
    }
    Ok(())
}

/// What `quorate ecdsa verify` decoded: the key and digest, and the signature or the reason a
/// well-formed signature is unacceptable (exit 1, not 2).
type VerifyInputs = (VerifyingKey, [u8; 32], Result<K256Signature, &'static str>);

fn decode_verify(args: &EcdsaVerifyArgs) -> Result<VerifyInputs, String> {
    let pk = decode_hex("public key", &args.public_key)?;
    let vk = VerifyingKey::from_sec1_bytes(&pk)
        .map_err(|_| "public key: not a valid SEC1 secp256k1 point".to_owned())?;
    let digest = decode_hex("digest", &args.digest)?;
    let digest: [u8; 32] = digest
        .as_slice()
        .try_into()
        .map_err(|_| format!("digest: expected 32 bytes, got {}", digest.len()))?;
    let sig = decode_hex("signature", &args.signature)?;
    let sig = if sig.len() == 64 {
        // Right shape; a zero or out-of-range (non-canonical) r or s is an invalid signature.
        K256Signature::from_slice(&sig).map_err(|_| "r or s is zero or not below the group order")
    } else {
        Ok(K256Signature::from_der(&sig).map_err(|_| {
            format!(
                "signature: expected 64 bytes r‖s or DER, got {} bytes that are not DER",
                sig.len()
            )
        })?)
    };
    Ok((vk, digest, sig))
}

/// `quorate ecdsa verify`: exit 0 if valid, 1 if invalid (including a non-canonical scalar
/// or a high S: low-S is required), 2 for malformed input.
pub fn verify(args: &EcdsaVerifyArgs) -> ExitCode {
    let (vk, digest, sig) = match decode_verify(args) {
        Ok(v) => v,
        Err(e) => return malformed(e),
    };
    let sig = match sig {
        Ok(sig) => sig,
        Err(reason) => return invalid(reason),
    };
    if sig.normalize_s().is_some() {
        return invalid(
            "high-S signature (s > n/2); low-S is required (the same signature with s' = n - s \
             is the canonical one)",
        );
    }
    match vk.verify_prehash(&digest, &sig) {
        Ok(()) => valid("valid"),
        Err(_) => invalid("the signature does not verify for this public key and digest"),
    }
}
