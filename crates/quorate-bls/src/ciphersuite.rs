//! The IETF BLS signature ciphersuite `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_`
//! ("minimal-signature-size": signatures in G1, public keys in G2, proof-of-possession
//! scheme), per draft-irtf-cfrg-bls-signature-05.
//!
//! * `KeyGen` (§2.3) with HKDF-SHA-256;
//! * `CoreSign`: `σ = sk·H(m)` where `H` is hash-to-curve `BLS12381G1_XMD:SHA-256_SSWU_RO_`
//!   (RFC 9380) with the ciphersuite id as domain separation tag;
//! * `CoreVerify`: `e(σ, g2) = e(H(m), pk)`, after checking that `pk` and `σ` are valid,
//!   non-identity subgroup elements (done when decoding);
//! * `PopProve`/`PopVerify` (§3.3): a signature on the serialized public key under the
//!   `BLS_POP_…` tag.
//!
//! The threshold signature produced by `crate::sign` is an ordinary `CoreSign` output,
//! so it verifies here and with any other implementation of the ciphersuite.

use blstrs::{G1Projective, G2Projective, Scalar};
use core::fmt;
use ff::Field;
use group::{Curve, Group};
use hkdf::Hkdf;
use quorate_core::bls12_381::hash::hash_to_g1;
use quorate_core::bls12_381::msm::g2_generator_mul_ct;
use quorate_core::bls12_381::pairing::pairing_product_is_identity;
use quorate_core::bls12_381::wire::{self, G1_BYTES, G2_BYTES};
use quorate_core::secret::{wipe_field, REDACTED};
use quorate_core::DecodeError;
use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};
use zeroize::Zeroize;

/// The ciphersuite identifier, also the signing domain separation tag.
pub const CIPHERSUITE_ID: &str = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_";
/// Domain separation tag for message signatures.
pub const DST_SIGN: &[u8] = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_";
/// Domain separation tag for proofs of possession.
pub const DST_POP: &[u8] = b"BLS_POP_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_";

/// `H(m)` for message signing.
pub fn hash_message(msg: &[u8]) -> G1Projective {
    hash_to_g1(msg, DST_SIGN)
}

/// A BLS secret key: a non-zero scalar. Wiped on drop; `Debug` is redacted.
#[derive(Clone)]
pub struct SecretKey(Scalar);

impl SecretKey {
    /// A uniformly random non-zero key.
    pub fn random<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        loop {
            let s = Scalar::random(&mut *rng);
            if !bool::from(s.is_zero()) {
                return SecretKey(s);
            }
        }
    }

    /// IETF `KeyGen(IKM, key_info)` (draft-irtf-cfrg-bls-signature-05 §2.3). `ikm` must be
    /// at least 32 bytes.
    pub fn key_gen(ikm: &[u8], key_info: &[u8]) -> Result<Self, DecodeError> {
        if ikm.len() < 32 {
            return Err(DecodeError::WrongLength {
                what: "KeyGen IKM",
                expected: 32,
                got: ikm.len(),
            });
        }
        let mut salt: Vec<u8> = b"BLS-SIG-KEYGEN-SALT-".to_vec();
        let mut ikm0 = ikm.to_vec();
        ikm0.push(0);
        let mut info = key_info.to_vec();
        info.extend_from_slice(&48u16.to_be_bytes());
        loop {
            salt = Sha256::digest(&salt).to_vec();
            let hk = Hkdf::<Sha256>::new(Some(&salt), &ikm0);
            let mut okm = [0u8; 48];
            hk.expand(&info, &mut okm)
                .map_err(|_| DecodeError::InvalidValue {
                    what: "KeyGen",
                    reason: "HKDF output length",
                })?;
            let sk: Scalar = quorate_core::hash::field_from_wide_bytes(&okm);
            okm.zeroize();
            if !bool::from(sk.is_zero()) {
                ikm0.zeroize();
                return Ok(SecretKey(sk));
            }
        }
    }

    /// Wraps a scalar (must be non-zero).
    pub fn from_scalar(s: Scalar) -> Result<Self, DecodeError> {
        if bool::from(s.is_zero()) {
            return Err(DecodeError::Zero { what: "secret key" });
        }
        Ok(SecretKey(s))
    }

    /// Decodes 32 big-endian bytes (canonical, non-zero).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        wire::nonzero_scalar_from_bytes("secret key", bytes).map(SecretKey)
    }

    /// 32 big-endian bytes. The caller is responsible for wiping them.
    pub fn to_bytes(&self) -> [u8; 32] {
        wire::scalar_to_bytes(&self.0)
    }

    /// The scalar. Never log it.
    pub fn scalar(&self) -> &Scalar {
        &self.0
    }

    /// The matching public key `sk·g2`.
    pub fn public_key(&self) -> PublicKey {
        PublicKey(g2_generator_mul_ct(&self.0))
    }

    /// `CoreSign` under the message tag.
    pub fn sign(&self, msg: &[u8]) -> Signature {
        Signature(hash_message(msg) * self.0)
    }

    /// `CoreSign` under another DST (see [`PublicKey::verify_with_dst`]).
    pub fn sign_with_dst(&self, msg: &[u8], dst: &[u8]) -> Signature {
        Signature(hash_to_g1(msg, dst) * self.0)
    }

    /// `PopProve`: signs the serialized public key under the PoP tag.
    pub fn prove_possession(&self) -> Signature {
        let pk = self.public_key().to_bytes();
        Signature(hash_to_g1(&pk, DST_POP) * self.0)
    }
}

impl Drop for SecretKey {
    fn drop(&mut self) {
        wipe_field(&mut self.0);
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SecretKey").field(&REDACTED).finish()
    }
}

/// A public key in G2 (96 bytes compressed). Never the identity.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PublicKey(pub(crate) G2Projective);

impl PublicKey {
    /// Decodes and validates (length, encoding, subgroup, non-identity).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        wire::g2_from_bytes("public key", bytes).map(PublicKey)
    }

    /// Wraps a point, rejecting the identity.
    pub fn from_point(p: G2Projective) -> Result<Self, DecodeError> {
        if bool::from(p.is_identity()) {
            return Err(DecodeError::Identity { what: "public key" });
        }
        Ok(PublicKey(p))
    }

    /// Compressed encoding.
    pub fn to_bytes(&self) -> [u8; G2_BYTES] {
        wire::g2_to_bytes(&self.0)
    }

    /// The point.
    pub fn point(&self) -> &G2Projective {
        &self.0
    }

    /// `CoreVerify(pk, msg, σ)`.
    pub fn verify(&self, msg: &[u8], sig: &Signature) -> bool {
        core_verify(&self.0, &hash_message(msg), &sig.0)
    }

    /// `CoreVerify` under another DST (for quorate's own authorisation signatures, which
    /// must never be valid message signatures).
    pub fn verify_with_dst(&self, msg: &[u8], sig: &Signature, dst: &[u8]) -> bool {
        core_verify(&self.0, &hash_to_g1(msg, dst), &sig.0)
    }

    /// `PopVerify(pk, proof)`.
    pub fn verify_possession(&self, pop: &Signature) -> bool {
        core_verify(&self.0, &hash_to_g1(&self.to_bytes(), DST_POP), &pop.0)
    }
}

/// A signature in G1 (48 bytes compressed). Never the identity.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Signature(pub(crate) G1Projective);

impl Signature {
    /// Decodes and validates (length, encoding, subgroup, non-identity).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        wire::g1_from_bytes("signature", bytes).map(Signature)
    }

    /// Compressed encoding.
    pub fn to_bytes(&self) -> [u8; G1_BYTES] {
        wire::g1_to_bytes(&self.0)
    }

    /// The point.
    pub fn point(&self) -> &G1Projective {
        &self.0
    }
}

/// `e(σ, g2) == e(h, pk)`, i.e. `e(σ, −g2)·e(h, pk) = 1`, with both non-identity.
pub(crate) fn core_verify(pk: &G2Projective, h: &G1Projective, sig: &G1Projective) -> bool {
    if bool::from(pk.is_identity()) || bool::from(sig.is_identity()) {
        return false;
    }
    let neg_g2 = (-G2Projective::generator()).to_affine();
    pairing_product_is_identity(&[(sig.to_affine(), neg_g2), (h.to_affine(), pk.to_affine())])
}

/// Checks a signature with blst's own min-sig verifier (an implementation we did not
/// write). Used by tests and by `quorate bls verify` as the interop oracle.
pub fn verify_with_blst(pk_bytes: &[u8], msg: &[u8], sig_bytes: &[u8]) -> bool {
    let Ok(pk) = blst::min_sig::PublicKey::key_validate(pk_bytes) else {
        return false;
    };
    let Ok(sig) = blst::min_sig::Signature::sig_validate(sig_bytes, true) else {
        return false;
    };
    sig.verify(true, msg, DST_SIGN, &[], &pk, true) == blst::BLST_ERROR::BLST_SUCCESS
}
