//! Shared set-up for the integration tests.
#![allow(dead_code)]

use quorate_cosi::{Roster, SecretKey, Signature, Witness};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::sync::Arc;

/// `n` witnesses with keys, a validated roster and a seeded RNG.
pub fn setup(n: usize, seed: u64) -> (Arc<Roster>, Vec<SecretKey>, ChaCha20Rng) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let keys: Vec<SecretKey> = (0..n).map(|_| SecretKey::generate(&mut rng)).collect();
    let entries = keys.iter().map(|k| k.roster_entry(&mut rng)).collect();
    let roster = Arc::new(Roster::new(entries).expect("valid roster"));
    (roster, keys, rng)
}

/// Checks `sig[..64]` with `ed25519_dalek::VerifyingKey::verify_strict` under `key`.
pub fn dalek_verify_strict(key: &[u8; 32], message: &[u8], sig: &Signature) -> bool {
    let Ok(vk) = ed25519_dalek::VerifyingKey::from_bytes(key) else {
        return false;
    };
    let s = ed25519_dalek::Signature::from_bytes(&sig.ed25519_bytes());
    vk.verify_strict(message, &s).is_ok()
}

/// Witness `i` for every key, each accepting any message (the tests choose the messages).
pub fn witnesses(roster: &Arc<Roster>, keys: &[SecretKey]) -> Vec<Witness> {
    keys.iter()
        .enumerate()
        .map(|(i, k)| Witness::new(roster.clone(), i, k.clone(), accept_any).expect("witness"))
        .collect()
}

/// A validator that accepts every message.
pub fn accept_any(_: &[u8]) -> Result<(), String> {
    Ok(())
}

/// Witnesses built for the insecure legacy mode.
#[cfg(feature = "insecure-legacy")]
pub fn legacy_witnesses(roster: &Arc<Roster>, keys: &[SecretKey]) -> Vec<Witness> {
    keys.iter()
        .enumerate()
        .map(|(i, k)| {
            Witness::new_insecure_legacy(roster.clone(), i, k.clone(), accept_any).expect("witness")
        })
        .collect()
}
