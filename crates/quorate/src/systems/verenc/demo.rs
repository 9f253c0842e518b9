//! `quorate verenc demo` and the `quorate demo` entry.

use quorate_verenc::backup::{self, Backup, CurveId, Scheme};
use rand_core::RngCore;
use serde_json::json;
use std::time::Instant;
use zeroize::Zeroizing;

use super::json::backup_to_json;
use super::{cs03_params, VerencDemoArgs};
use crate::common::os_rng;

struct DemoRun {
    backup: Backup,
    keygen_ms: f64,
    backup_ms: f64,
    verify_ms: f64,
    recover_ms: f64,
}

fn run_demo(scheme: Scheme, curve: CurveId, bits: u32, label: &[u8]) -> anyhow::Result<DemoRun> {
    let mut rng = os_rng();
    let t = Instant::now();
    let params = (scheme == Scheme::Cs03)
        .then(|| cs03_params(bits))
        .transpose()?;
    let (epk, esk) = backup::escrow_keygen(&mut rng, scheme, curve, params)?;
    let keygen_ms = t.elapsed().as_secs_f64() * 1e3;
    // A random secret share x (below every supported group order: 252 bits).
    let mut secret = Zeroizing::new([0u8; 32]);
    rng.fill_bytes(&mut secret[..]);
    secret[0] &= 0x0f;
    let t = Instant::now();
    let mut b = backup::backup(&mut rng, &epk, &secret, label)?;
    let backup_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let verified = backup::verify(&b, &mut rng)?;
    let verify_ms = t.elapsed().as_secs_f64() * 1e3;
    b.ciphertext = verified.escrow_ciphertext;
    let t = Instant::now();
    let x = backup::recover(&esk, &b)?;
    let recover_ms = t.elapsed().as_secs_f64() * 1e3;
    anyhow::ensure!(
        *x == *secret,
        "recovered scalar differs from the backed-up one"
    );
    Ok(DemoRun {
        backup: b,
        keygen_ms,
        backup_ms,
        verify_ms,
        recover_ms,
    })
}

impl DemoRun {
    fn summary(&self) -> String {
        let b = &self.backup;
        format!(
            "verifiable key-share backup ({}, {}; {})\n\
             public share: {}\n\
             sizes:        ciphertext {} B, proof {} B, escrow key {} B\n\
             time:         escrow keygen {:.1} ms, backup {:.1} ms, verify {:.1} ms, recover {:.1} ms\n\
             checked:      proof verified; escrow recovered x with x·G = X",
            b.scheme,
            b.curve,
            b.params,
            hex::encode(&b.public_share),
            b.ciphertext.len(),
            b.proof.len(),
            b.escrow_public_key.len(),
            self.keygen_ms,
            self.backup_ms,
            self.verify_ms,
            self.recover_ms,
        )
    }
}

/// RDKGitH on secp256k1 (fast, no trusted setup): keygen, backup, verify, recover.
pub fn run_default_demo() -> anyhow::Result<String> {
    let run = run_demo(Scheme::Rdkgith, CurveId::Secp256k1, 3072, b"quorate demo")?;
    Ok(format!(
        "{}\nother schemes: quorate verenc demo --scheme cs03|dkgith",
        run.summary()
    ))
}

/// `quorate verenc demo`.
pub fn demo(args: &VerencDemoArgs) -> anyhow::Result<()> {
    let scheme: Scheme = args.scheme.parse()?;
    let curve: CurveId = args.curve.parse()?;
    let run = run_demo(scheme, curve, args.modulus_bits, args.label.as_bytes())?;
    if args.json {
        let mut v = backup_to_json(&run.backup);
        if let Some(o) = v.as_object_mut() {
            o.insert(
                "timings_ms".into(),
                json!({
                    "escrow_keygen": run.keygen_ms,
                    "backup": run.backup_ms,
                    "verify": run.verify_ms,
                    "recover": run.recover_ms,
                }),
            );
            o.insert("recovered".into(), json!(true));
        }
        println!("{}", serde_json::to_string(&v)?);
    } else {
        println!("{}", run.summary());
    }
    Ok(())
}
