//! Hash functions and domain-separation tags.
//!
//! Only [`ed25519_challenge`] is undomained: it is RFC 8032's `SHA-512(R ‖ A ‖ M) mod L`,
//! which makes CoSi signatures plain Ed25519 signatures under the participants' aggregate
//! key. Every other hash starts with its own ASCII tag, so no value computed for one purpose
//! (proof of possession, nonce coefficient, roster id, nonce derivation, batch weights) can
//! be mistaken for another.

use curve25519_dalek::scalar::Scalar;
use sha2::{Digest, Sha256, Sha512};

/// Tag of the proof-of-possession challenge `SHA-512(tag ‖ R ‖ A) mod L`.
pub const DOMAIN_POP: &[u8] = b"quorate/cosi/pop/v1";
/// Tag of the two-nonce coefficient
/// `b = SHA-512(tag ‖ roster_id ‖ mask ‖ A' ‖ R̂1 ‖ R̂2 ‖ M) mod L`.
pub const DOMAIN_NONCE_COEF: &[u8] = b"quorate/cosi/nonce-coef/v1";
/// Tag of the roster id `SHA-256(tag ‖ u32_be(n) ‖ A_0 ‖ … ‖ A_{n−1})`.
pub const DOMAIN_ROSTER: &[u8] = b"quorate/cosi/roster/v1";
/// Tag of the hedged nonce derivation (fresh randomness, secret key and context).
pub const DOMAIN_NONCE: &[u8] = b"quorate/cosi/nonce/v1";
/// Tag of the deterministic weights used to batch-verify proofs of possession.
pub const DOMAIN_POP_BATCH: &[u8] = b"quorate/cosi/pop-batch/v1";

/// RFC 8032 challenge `SHA-512(R ‖ A ‖ M) mod L` (no domain tag: Ed25519 compatibility).
pub fn ed25519_challenge(r: &[u8; 32], a: &[u8; 32], message: &[u8]) -> Scalar {
    let mut h = Sha512::new();
    h.update(r);
    h.update(a);
    h.update(message);
    Scalar::from_hash(h)
}

/// Proof-of-possession challenge `SHA-512("quorate/cosi/pop/v1" ‖ R ‖ A) mod L`.
pub fn pop_challenge(r: &[u8; 32], a: &[u8; 32]) -> Scalar {
    let mut h = Sha512::new();
    h.update(DOMAIN_POP);
    h.update(r);
    h.update(a);
    Scalar::from_hash(h)
}

/// Two-nonce coefficient
/// `b = SHA-512("quorate/cosi/nonce-coef/v1" ‖ roster_id ‖ mask ‖ A' ‖ R̂1 ‖ R̂2 ‖ M) mod L`.
///
/// The mask has the fixed length `⌈n/8⌉` (and `n` is bound by the roster id), and `M` comes
/// last, so the concatenation is unambiguous.
pub fn nonce_coefficient(
    roster_id: &[u8; 32],
    mask: &[u8],
    a_prime: &[u8; 32],
    r1: &[u8; 32],
    r2: &[u8; 32],
    message: &[u8],
) -> Scalar {
    let mut h = Sha512::new();
    h.update(DOMAIN_NONCE_COEF);
    h.update(roster_id);
    h.update(mask);
    h.update(a_prime);
    h.update(r1);
    h.update(r2);
    h.update(message);
    Scalar::from_hash(h)
}

/// Roster id `SHA-256("quorate/cosi/roster/v1" ‖ u32_be(n) ‖ A_0 ‖ … ‖ A_{n−1})`.
pub fn roster_id<'a>(n: u32, keys: impl IntoIterator<Item = &'a [u8; 32]>) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(DOMAIN_ROSTER);
    h.update(n.to_be_bytes());
    for k in keys {
        h.update(k);
    }
    h.finalize().into()
}

/// A hedged nonce: `SHA-512("quorate/cosi/nonce/v1" ‖ fresh ‖ secret ‖ context) mod L`.
///
/// `fresh` are 32 bytes from a cryptographic RNG drawn for this nonce alone, so nonces are
/// random (never a deterministic function of key and message, which would be unsafe in a
/// multi-party signature); mixing in the secret key and the context keeps nonces
/// unpredictable even if the RNG is weak.
pub(crate) fn hedged_nonce(fresh: &[u8; 32], secret: &Scalar, context: &[&[u8]]) -> Scalar {
    let mut h = Sha512::new();
    h.update(DOMAIN_NONCE);
    h.update(fresh);
    h.update(secret.as_bytes());
    for part in context {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part);
    }
    Scalar::from_hash(h)
}

/// A 128-bit weight derived from `seed` and `index` (for the proof-of-possession batch).
pub(crate) fn batch_weight(seed: &[u8; 32], index: u64) -> Scalar {
    let mut h = Sha256::new();
    h.update(DOMAIN_POP_BATCH);
    h.update(seed);
    h.update(index.to_be_bytes());
    let d: [u8; 32] = h.finalize().into();
    let mut w = [0u8; 32];
    w[..16].copy_from_slice(&d[..16]);
    Scalar::from_bytes_mod_order(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_distinct_and_versioned() {
        let tags = [
            DOMAIN_POP,
            DOMAIN_NONCE_COEF,
            DOMAIN_ROSTER,
            DOMAIN_NONCE,
            DOMAIN_POP_BATCH,
        ];
        for (i, a) in tags.iter().enumerate() {
            assert!(a.ends_with(b"/v1"));
            for b in &tags[i + 1..] {
                assert!(!a.starts_with(b) && !b.starts_with(a));
            }
        }
    }

    #[test]
    fn pop_challenge_differs_from_ed25519_challenge() {
        let r = [1u8; 32];
        let a = [2u8; 32];
        assert_ne!(pop_challenge(&r, &a), ed25519_challenge(&r, &a, b""));
        assert_ne!(pop_challenge(&r, &a), ed25519_challenge(&r, &a, DOMAIN_POP));
    }
}
