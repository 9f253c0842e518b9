//! `quorate verenc verify` (anyone) and `quorate verenc recover` (the escrow).

use quorate_verenc::backup::{self, BackupError, EscrowSecretKey};
use std::process::ExitCode;
use zeroize::Zeroizing;

use super::json::{backup_from_json, backup_to_json, read_json};
use super::keys::secret_key_file;
use super::{VerencRecoverArgs, VerencVerifyArgs};
use crate::common::malformed;
use crate::common::os_rng;
use crate::files::{ensure_writable, write_new_file, Access};

/// `quorate verenc verify`: exit 0 if valid, 1 if invalid, 2 for malformed input.
pub fn verify(args: &VerencVerifyArgs) -> ExitCode {
    let b = match read_json(&args.input).and_then(|v| backup_from_json(&v)) {
        Ok(b) => b,
        Err(e) => return malformed(e),
    };
    match backup::verify(&b, &mut os_rng()) {
        Ok(verified) => {
            if let Some(path) = &args.out {
                let mut stored = b.clone();
                stored.ciphertext = verified.escrow_ciphertext;
                let text = backup_to_json(&stored).to_string();
                if let Err(e) = write_new_file(path, text.as_bytes(), Access::Public, true) {
                    return malformed(format_args!("{e:#}"));
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
        Err(e) => malformed(e),
    }
}

/// `quorate verenc recover`: exit 0 and the scalar on success, 1 if recovery fails, 2 for
/// malformed input.
pub fn recover(args: &VerencRecoverArgs) -> ExitCode {
    // Refuse an existing --out file before touching the secret key.
    let parsed = args
        .out
        .as_deref()
        .map_or(Ok(()), |out| ensure_writable(out, args.force))
        .and_then(|()| secret_key_file(&args.escrow_secret, &args.passphrase))
        .map_err(|e| format!("{e:#}"))
        .and_then(|(scheme, curve, bytes)| {
            EscrowSecretKey::from_bytes(scheme, curve, &bytes).map_err(|e| e.to_string())
        })
        .and_then(|sk| Ok((sk, backup_from_json(&read_json(&args.input)?)?)));
    let (sk, b) = match parsed {
        Ok(v) => v,
        Err(e) => return malformed(e),
    };
    match backup::recover(&sk, &b) {
        Ok(x) => {
            let text = Zeroizing::new(hex::encode(&x[..]));
            match &args.out {
                Some(path) => {
                    if let Err(e) =
                        write_new_file(path, text.as_bytes(), Access::Secret, args.force)
                    {
                        return malformed(format_args!("{e:#}"));
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
        Err(e) => malformed(e),
    }
}
