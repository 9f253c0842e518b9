//! `quorate bls verify`: our verifier and blst's must agree.

use super::BlsVerifyArgs;
use crate::common::{decode_hex, invalid, malformed, valid};
use quorate_bls::ciphersuite::verify_with_blst;
use quorate_bls::{PublicKey, Signature};
use std::process::ExitCode;

/// The decoded inputs of `quorate bls verify` (the raw bytes are kept for blst).
struct VerifyInputs {
    public_key: PublicKey,
    message: Vec<u8>,
    /// The signature, or why a signature of the right length is not acceptable (exit 1).
    signature: Result<Signature, String>,
    public_key_bytes: Vec<u8>,
    signature_bytes: Vec<u8>,
}

/// Decodes and validates the three inputs of `quorate bls verify`.
fn decode_verify_inputs(args: &BlsVerifyArgs) -> Result<VerifyInputs, String> {
    let public_key_bytes = decode_hex("public key", &args.public_key)?;
    let message = decode_hex("message", &args.message)?;
    let signature_bytes = decode_hex("signature", &args.signature)?;
    // The decoders' errors already name the item ("public key: …", "signature: …").
    let public_key = PublicKey::from_bytes(&public_key_bytes).map_err(|e| e.to_string())?;
    // Wrong length: malformed (exit 2). Right length but not a valid signature point
    // (identity, off the curve, outside the subgroup): parsed but invalid (exit 1).
    let signature = match Signature::from_bytes(&signature_bytes) {
        Ok(s) => Ok(s),
        Err(e @ quorate_core::DecodeError::WrongLength { .. }) => return Err(e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    Ok(VerifyInputs {
        public_key,
        message,
        signature,
        public_key_bytes,
        signature_bytes,
    })
}

/// `quorate bls verify`: exit code 0 if valid, 1 if invalid (reason on stdout), 2 for
/// malformed input (error on stderr).
pub fn verify(args: &BlsVerifyArgs) -> ExitCode {
    let inputs = match decode_verify_inputs(args) {
        Ok(inputs) => inputs,
        Err(e) => return malformed(e),
    };
    let signature = match &inputs.signature {
        Ok(s) => s,
        Err(reason) => return invalid(reason),
    };
    let ours = inputs.public_key.verify(&inputs.message, signature);
    let blst = verify_with_blst(
        &inputs.public_key_bytes,
        &inputs.message,
        &inputs.signature_bytes,
    );
    match (ours, blst) {
        (true, true) => valid("valid"),
        (false, false) => invalid("the signature does not verify for this public key and message"),
        (true, false) => {
            invalid("blst's verifier rejects a signature ours accepts (implementation mismatch)")
        }
        (false, true) => {
            invalid("our verifier rejects a signature blst accepts (implementation mismatch)")
        }
    }
}

// ---------------------------------------------------------------------------------------
// bench
// ---------------------------------------------------------------------------------------
