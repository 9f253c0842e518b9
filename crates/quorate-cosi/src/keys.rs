//! Witness keys and proofs of possession.
//!
//! A witness secret key is a uniformly random scalar `a_i ∈ [1, L)` (not an RFC 8032 seed:
//! CoSi needs plain scalars so that keys add up); its public key is `A_i = a_i·B`, encoded as
//! the 32-byte compressed Edwards point. Decoding a public key rejects non-canonical
//! encodings, the identity, small-order points and points with a torsion component, so every
//! roster key lies in the prime-order subgroup and sums of keys do too.
//!
//! A [`ProofOfPossession`] is a Schnorr signature on the key itself under the *domain
//! separated* challenge `c = SHA-512("quorate/cosi/pop/v1" ‖ R ‖ A) mod L`: `s = r + c·a`.
//! Because Ed25519/CoSi challenges are `SHA-512(R ‖ A ‖ M)` with no tag, a proof of
//! possession is never a valid CoSi or Ed25519 signature, and no CoSi signature can serve as
//! a proof of possession.

use crate::hash::{hedged_nonce, pop_challenge};
use core::fmt;
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{Identity, IsIdentity, VartimeMultiscalarMul};
use quorate_core::DecodeError;
use rand_core::{CryptoRng, RngCore};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Decodes a compressed Edwards point, rejecting invalid and non-canonical encodings.
pub(crate) fn decode_point(
    what: &'static str,
    bytes: &[u8; 32],
) -> Result<EdwardsPoint, DecodeError> {
    let p = CompressedEdwardsY(*bytes)
        .decompress()
        .ok_or(DecodeError::InvalidPoint { what })?;
    if p.compress().as_bytes() != bytes {
        return Err(DecodeError::NonCanonical { what });
    }
    Ok(p)
}

/// Decodes a canonical scalar (`< L`), rejecting `s + L` style encodings.
pub(crate) fn decode_scalar(what: &'static str, bytes: &[u8; 32]) -> Result<Scalar, DecodeError> {
    Option::from(Scalar::from_canonical_bytes(*bytes)).ok_or(DecodeError::NonCanonical { what })
}

/// A random non-zero scalar, hedged with `secret` and `context` (see
/// [`crate::hash::hedged_nonce`]).
pub(crate) fn fresh_nonce<R: RngCore + CryptoRng>(
    rng: &mut R,
    secret: &Scalar,
    context: &[&[u8]],
) -> Scalar {
    loop {
        let mut fresh = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(fresh.as_mut());
        let r = hedged_nonce(&fresh, secret, context);
        if r != Scalar::ZERO {
            return r;
        }
    }
}

/// A witness secret key `a_i` (zeroized on drop; `Debug` is redacted).
///
/// It caches its public key `A_i = a_i·B`, so pairing it with a roster entry costs nothing.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SecretKey {
    scalar: Scalar,
    #[zeroize(skip)]
    public: PublicKey,
}

impl SecretKey {
    /// Draws a uniformly random non-zero key.
    pub fn generate<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        loop {
            let s = Scalar::random(rng);
            if s != Scalar::ZERO {
                return SecretKey::from_scalar(s);
            }
        }
    }

    fn from_scalar(scalar: Scalar) -> Self {
        let point = EdwardsPoint::mul_base(&scalar);
        SecretKey {
            scalar,
            public: PublicKey {
                bytes: point.compress().to_bytes(),
                point,
            },
        }
    }

    /// Decodes a canonical little-endian scalar, rejecting zero and values `≥ L`.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, DecodeError> {
        let s = decode_scalar("secret key", bytes)?;
        if s == Scalar::ZERO {
            return Err(DecodeError::Zero { what: "secret key" });
        }
        Ok(SecretKey::from_scalar(s))
    }

    /// The canonical encoding (wiped when the returned buffer is dropped).
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.scalar.to_bytes())
    }

    /// The public key `A_i = a_i·B`.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    pub(crate) fn scalar(&self) -> &Scalar {
        &self.scalar
    }

    /// Proves possession of this key (fresh random nonce).
    pub fn prove_possession<R: RngCore + CryptoRng>(&self, rng: &mut R) -> ProofOfPossession {
        let r = fresh_nonce(rng, &self.scalar, &[b"pop", &self.public.bytes]);
        let big_r = EdwardsPoint::mul_base(&r).compress().to_bytes();
        let c = pop_challenge(&big_r, &self.public.bytes);
        ProofOfPossession {
            r: big_r,
            s: r + c * self.scalar,
        }
    }

    /// This key's roster entry: the public key and a fresh proof of possession.
    pub fn roster_entry<R: RngCore + CryptoRng>(&self, rng: &mut R) -> RosterEntry {
        RosterEntry {
            public_key: self.public,
            pop: self.prove_possession(rng),
        }
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey")
            .field("public", &self.public)
            .field("scalar", &"<redacted>")
            .finish()
    }
}

/// A validated witness public key: canonical encoding of a point of the prime-order subgroup
/// other than the identity.
#[derive(Clone, Copy)]
pub struct PublicKey {
    bytes: [u8; 32],
    point: EdwardsPoint,
}

impl PublicKey {
    /// Decodes and validates a compressed point.
    ///
    /// Errors: [`DecodeError::InvalidPoint`] (not on the curve),
    /// [`DecodeError::NonCanonical`] (e.g. `y ≥ p` or a negative zero),
    /// [`DecodeError::Identity`], [`DecodeError::NotInSubgroup`] (small order or a torsion
    /// component).
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<Self, DecodeError> {
        const WHAT: &str = "public key";
        let point = decode_point(WHAT, bytes)?;
        if point.is_identity() {
            return Err(DecodeError::Identity { what: WHAT });
        }
        if point.is_small_order() || !point.is_torsion_free() {
            return Err(DecodeError::NotInSubgroup { what: WHAT });
        }
        Ok(PublicKey {
            bytes: *bytes,
            point,
        })
    }

    /// The 32-byte compressed encoding (an Ed25519 verifying key).
    pub fn to_bytes(&self) -> [u8; 32] {
        self.bytes
    }

    /// The 32-byte compressed encoding.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.bytes
    }

    /// The point `A_i`.
    pub fn point(&self) -> &EdwardsPoint {
        &self.point
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for PublicKey {}

impl core::hash::Hash for PublicKey {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.bytes.hash(state);
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", hex::encode(self.bytes))
    }
}

/// A proof of possession `(R, s)` of a public key, 64 bytes `R ‖ s`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ProofOfPossession {
    r: [u8; 32],
    s: Scalar,
}

impl ProofOfPossession {
    /// Encoded size.
    pub const BYTES: usize = 64;

    /// `R ‖ s`.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.r);
        out[32..].copy_from_slice(self.s.as_bytes());
        out
    }

    /// Decodes `R ‖ s`, rejecting a non-canonical `s`; `R` is checked at verification.
    pub fn from_bytes(bytes: &[u8; 64]) -> Result<Self, DecodeError> {
        let mut r = [0u8; 32];
        r.copy_from_slice(&bytes[..32]);
        let mut s = [0u8; 32];
        s.copy_from_slice(&bytes[32..]);
        Ok(ProofOfPossession {
            r,
            s: decode_scalar("proof of possession s", &s)?,
        })
    }

    /// Checks the proof for `key`: `[8]([s]B − [c]A − R) = 0` with
    /// `c = SHA-512("quorate/cosi/pop/v1" ‖ R ‖ A)`. The cofactor is cleared because a proof
    /// of possession only needs to show knowledge of `a` (extraction works modulo torsion; `A`
    /// itself is torsion-free), and it lets [`crate::Roster::new`] batch the check exactly.
    pub fn verify(&self, key: &PublicKey) -> bool {
        match self.terms(key) {
            Some((r, c)) => {
                let lhs = EdwardsPoint::vartime_multiscalar_mul(
                    [self.s, -c, -Scalar::ONE],
                    [
                        curve25519_dalek::constants::ED25519_BASEPOINT_POINT,
                        key.point,
                        r,
                    ],
                );
                lhs.mul_by_cofactor().is_identity()
            }
            None => false,
        }
    }

    /// `(R, c)` if `R` decodes canonically.
    pub(crate) fn terms(&self, key: &PublicKey) -> Option<(EdwardsPoint, Scalar)> {
        let r = decode_point("proof of possession R", &self.r).ok()?;
        Some((r, pop_challenge(&self.r, &key.bytes)))
    }

    pub(crate) fn s(&self) -> &Scalar {
        &self.s
    }
}

impl fmt::Debug for ProofOfPossession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProofOfPossession({})", hex::encode(self.to_bytes()))
    }
}

/// A registration: a public key with its proof of possession (96 bytes `A ‖ R ‖ s`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RosterEntry {
    /// The witness key `A_i`.
    pub public_key: PublicKey,
    /// Proof of possession of `a_i`.
    pub pop: ProofOfPossession,
}

impl RosterEntry {
    /// Encoded size.
    pub const BYTES: usize = 96;

    /// `A ‖ R ‖ s`.
    pub fn to_bytes(&self) -> [u8; 96] {
        let mut out = [0u8; 96];
        out[..32].copy_from_slice(&self.public_key.bytes);
        out[32..].copy_from_slice(&self.pop.to_bytes());
        out
    }

    /// Decodes `A ‖ R ‖ s` (the proof itself is verified by [`crate::Roster::new`]).
    pub fn from_bytes(bytes: &[u8; 96]) -> Result<Self, DecodeError> {
        let mut a = [0u8; 32];
        a.copy_from_slice(&bytes[..32]);
        let mut p = [0u8; 64];
        p.copy_from_slice(&bytes[32..]);
        Ok(RosterEntry {
            public_key: PublicKey::from_bytes(&a)?,
            pop: ProofOfPossession::from_bytes(&p)?,
        })
    }
}

/// The identity point (used for sums).
pub(crate) fn identity() -> EdwardsPoint {
    EdwardsPoint::identity()
}

#[cfg(test)]
mod tests {
    use super::*;
    use curve25519_dalek::constants::EIGHT_TORSION;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn pop_roundtrip_and_binding() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let k1 = SecretKey::generate(&mut rng);
        let k2 = SecretKey::generate(&mut rng);
        let pop = k1.prove_possession(&mut rng);
        assert!(pop.verify(k1.public_key()));
        assert!(!pop.verify(k2.public_key()));
        let decoded = ProofOfPossession::from_bytes(&pop.to_bytes()).expect("decodes");
        assert_eq!(decoded, pop);
        let entry = k1.roster_entry(&mut rng);
        assert_eq!(RosterEntry::from_bytes(&entry.to_bytes()), Ok(entry));
    }

    #[test]
    fn secret_key_debug_is_redacted() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let k = SecretKey::generate(&mut rng);
        let dbg = format!("{k:?}");
        assert!(dbg.contains("redacted"));
        assert!(!dbg.contains(&hex::encode(k.to_bytes().as_ref())));
        let back = SecretKey::from_bytes(&k.to_bytes()).expect("roundtrip");
        assert_eq!(back.public_key(), k.public_key());
        assert_eq!(
            SecretKey::from_bytes(&[0u8; 32]).err(),
            Some(DecodeError::Zero { what: "secret key" })
        );
        assert!(SecretKey::from_bytes(&[0xff; 32]).is_err());
    }

    #[test]
    fn bad_public_keys_are_rejected() {
        let identity = EdwardsPoint::identity().compress().to_bytes();
        assert_eq!(
            PublicKey::from_bytes(&identity),
            Err(DecodeError::Identity { what: "public key" })
        );
        for t in EIGHT_TORSION.iter().skip(1) {
            assert_eq!(
                PublicKey::from_bytes(&t.compress().to_bytes()),
                Err(DecodeError::NotInSubgroup { what: "public key" })
            );
        }
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let k = SecretKey::generate(&mut rng);
        let mixed = (k.public_key().point() + EIGHT_TORSION[1])
            .compress()
            .to_bytes();
        assert_eq!(
            PublicKey::from_bytes(&mixed),
            Err(DecodeError::NotInSubgroup { what: "public key" })
        );
        // y = p (non-canonical encoding of y = 0).
        let mut non_canonical = [0xffu8; 32];
        non_canonical[0] = 0xed;
        non_canonical[31] = 0x7f;
        assert!(PublicKey::from_bytes(&non_canonical).is_err());
        // y = 1 + p encodes the identity non-canonically.
        let mut y1p = [0xffu8; 32];
        y1p[0] = 0xee;
        y1p[31] = 0x7f;
        assert!(matches!(
            PublicKey::from_bytes(&y1p),
            Err(DecodeError::NonCanonical { .. })
        ));
    }
}
