//! Hashing into BLS12-381 groups.

use blstrs::G1Projective;

/// RFC 9380 hash-to-curve into G1 (`BLS12381G1_XMD:SHA-256_SSWU_RO_`) under `dst`.
/// Nobody knows the discrete logarithm of the output with respect to any other point, so
/// it serves both BLS message hashing and the derivation of independent generators.
pub fn hash_to_g1(msg: &[u8], dst: &[u8]) -> G1Projective {
    G1Projective::hash_to_curve(msg, dst, &[])
}
