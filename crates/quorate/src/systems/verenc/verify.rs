//! `quorate verenc verify` (anyone) and `quorate verenc recover` (the escrow).

use quorate_verenc::backup::{self, BackupError, EscrowSecretKey};
use std::process::ExitCode;
use zeroize::Zeroizing;

use super::json::{backup_from_json, backup_to_json, read_json};
use super::keys::{key_file, write_private};
use super::{VerencRecoverArgs, VerencVerifyArgs};
use crate::common::os_rng;

/// `quorate verenc verify`: exit 0 if valid, 1 if invalid, 2 for malformed input.
pub fn verify(args: &VerencVerifyArgs) -> ExitCode {
    let b = match read_json(&args.input).and_then(|v| backup_from_json(&v)) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match backup::verify(&b, &mut os_rng()) {
        Ok(verified) => {
            if let Some(path) = &args.out {
                let mut stored = b.clone();
                stored.ciphertext = verified.escrow_ciphertext;
                if let Err(e) = serde_json::to_string(&backup_to_json(&stored))
                    .map_err(anyhow::Error::from)
                    .and_then(|s| std::fs::write(path, s).map_err(anyhow::Error::from))
                {
                    eprintln!("error: writing {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            }
            println!(
                "valid: the escrow can recover log_G of {} ({}, {})",
                hex::encode(&b.public_share),
                b.scheme,
                b.curve
            );
            ExitCode::SUCCESS
        }
        Err(BackupError::Invalid(reason)) => {
            println!("invalid: {reason}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `quorate verenc recover`: exit 0 and the scalar on success, 1 if recovery fails, 2 for
/// malformed input.
pub fn recover(args: &VerencRecoverArgs) -> ExitCode {
    let parsed = key_file(&args.escrow_secret, "escrow_secret_key")
        .map_err(|e| e.to_string())
        .and_then(|(scheme, curve, bytes)| {
            EscrowSecretKey::from_bytes(scheme, curve, &bytes).map_err(|e| e.to_string())
        })
        .and_then(|sk| Ok((sk, backup_from_json(&read_json(&args.input)?)?)));
    let (sk, b) = match parsed {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match backup::recover(&sk, &b) {
        Ok(x) => {
            let text = Zeroizing::new(hex::encode(&x[..]));
            match &args.out {
                Some(path) => {
                    if let Err(e) = write_private(path, &text) {
                        eprintln!("error: {e:#}");
                        return ExitCode::from(2);
                    }
                    println!("recovered; x·G = X checked; written to {}", path.display());
                }
                None => println!("{}", text.as_str()),
            }
            ExitCode::SUCCESS
        }
        Err(BackupError::Recovery(reason)) => {
            println!("invalid: {reason}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
