//! Per-round payload limits of the ECDSA protocols: the library's encoded message sizes
//! (fixed by its constants: `κ = 128` base OTs, `ℓ = 416` multiplication rows, 33-byte
//! points, 32-byte scalars) with a little headroom. The runtime refuses a larger payload
//! before any decoding and names its sender. The in-process tests check that honest
//! messages fit and that the limits stay within 10 % of the largest honest payload.
//!
//! Measured honest payloads (bytes): keygen round 1: 165; round 2: 4457 + 33·t; round 3:
//! 6196; round 4 (agreement): 68 + 96·n; signing round 1: 10 836; round 2: 40 243 + 34·signers (+ a 64-byte identity
//! signature from three signers on); round 3: 67 (99 with the echo digest).

/// Largest payload of keygen (or refresh) round `round` (1 to 4) with threshold `t` of `n`.
pub fn keygen(round: u16, t: u16, n: u16) -> usize {
    match round {
        1 => 256,
        2 => 4_608 + 33 * usize::from(t),
        3 => 6_400,
        4 => 128 + 96 * usize::from(n),
        _ => 0,
    }
}

/// Largest payload of signing round `round` (1 to 3) with `signers` signers.
pub fn sign(round: u16, signers: usize) -> usize {
    match round {
        1 => 11_264,
        2 => 40_960 + 64 * signers,
        3 => 128,
        _ => 0,
    }
}

/// Largest blame or dispute payload with `signers` signers: a blame message publishes one
/// entry (two points and a scalar) per co-signer and a proof; a dispute message republishes
/// every signer's signed body (one 32-byte hash per co-signer each).
pub fn sign_resolution(signers: usize) -> usize {
    256 + signers * (256 + 32 * signers)
}
