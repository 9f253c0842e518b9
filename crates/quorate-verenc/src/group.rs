//! Prime-order groups the verifiable-encryption schemes are generic over.
//!
//! A [`Curve`] names a prime-order group (`Point`, with scalar field `Scalar`) and fixes the
//! byte conventions the schemes need: scalars as 32 big-endian bytes (so that CS03 can read a
//! discrete log as an integer in `[0, ρ)`), and checked point decoding that rejects
//! non-canonical encodings, points outside the prime-order subgroup and the identity.
//!
//! | marker | group | point encoding |
//! |---|---|---|
//! | [`P256`] | NIST P-256 (TZ21's curve) | 33-byte SEC1 compressed |
//! | [`Secp256k1`] | secp256k1 (threshold ECDSA shares) | 33-byte SEC1 compressed |
//! | [`Bls12381G1`] | BLS12-381 G1 (threshold BLS shares) | 48-byte compressed |
//! | [`Ed25519`] | the prime-order subgroup of edwards25519 | 32-byte compressed Edwards-y |

use ff::PrimeField;
use group::{prime::PrimeGroup, GroupEncoding};

/// Why a point or scalar encoding was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GroupDecodeError {
    /// The input has the wrong number of bytes.
    #[error("{what}: expected {expected} bytes, got {got}")]
    Length {
        /// Which value was being decoded.
        what: &'static str,
        /// The required length.
        expected: usize,
        /// The length received.
        got: usize,
    },
    /// The bytes are not a canonical encoding of a group element in the prime-order subgroup.
    #[error("{what}: not a canonical point of the prime-order group")]
    Point {
        /// Which value was being decoded.
        what: &'static str,
    },
    /// The point is the identity, which no statement may use.
    #[error("{what}: identity point")]
    Identity {
        /// Which value was being decoded.
        what: &'static str,
    },
    /// The bytes are not a canonical scalar (not reduced modulo the group order).
    #[error("{what}: non-canonical scalar")]
    Scalar {
        /// Which value was being decoded.
        what: &'static str,
    },
}

/// A prime-order group with the encodings the schemes use.
pub trait Curve: Copy + Send + Sync + 'static {
    /// Group elements.
    type Point: PrimeGroup<Scalar = Self::Scalar> + GroupEncoding + Send + Sync;
    /// The scalar field, of prime order ρ. Secret scalars are wiped with
    /// `quorate_core::secret::wipe_field` (ff fields do not implement `Zeroize`).
    type Scalar: PrimeField + Send + Sync;

    /// Short stable name (`"p256"`, `"secp256k1"`, `"bls12-381-g1"`, `"ed25519"`), used in
    /// transcripts, encodings and the CLI.
    const NAME: &'static str;
    /// Length of an encoded point.
    const POINT_LEN: usize;
    /// The group order ρ as 32 big-endian bytes.
    const ORDER_BE: [u8; 32];

    /// A scalar as 32 big-endian bytes (the integer in `[0, ρ)`).
    fn scalar_to_be_bytes(s: &Self::Scalar) -> [u8; 32] {
        let repr = s.to_repr();
        let mut out = [0u8; 32];
        out.copy_from_slice(repr.as_ref());
        if !Self::REPR_IS_BIG_ENDIAN {
            out.reverse();
        }
        out
    }

    /// Parses 32 big-endian bytes as a scalar; `None` unless the integer is below ρ.
    fn scalar_from_be_bytes(bytes: &[u8; 32]) -> Option<Self::Scalar> {
        let mut repr = <Self::Scalar as PrimeField>::Repr::default();
        let mut b = *bytes;
        if !Self::REPR_IS_BIG_ENDIAN {
            b.reverse();
        }
        repr.as_mut().copy_from_slice(&b);
        Option::from(Self::Scalar::from_repr(repr))
    }

    /// Whether `PrimeField::to_repr` is big-endian for this scalar field.
    const REPR_IS_BIG_ENDIAN: bool;

    /// Whether the curve crate's decoder accepts non-canonical encodings (then
    /// [`Curve::point_from_bytes`] re-encodes to reject them, at the cost of a field
    /// inversion). curve25519-dalek reduces a `y ≥ p` silently. blst's compressed G1
    /// decoder accepts only the canonical form.
    const DECODER_ACCEPTS_NON_CANONICAL: bool;

    /// Whether points are 33-byte SEC1 compressed encodings (`p256`, `k256`). Their decoders
    /// reject a coordinate `≥ p` and pick the unique `y` of the tag's parity, but also accept
    /// the compact form (tag 5, x only) as a second encoding of a point; so an encoding is
    /// canonical exactly when it decodes and its tag is 2 or 3, which
    /// [`Curve::point_from_bytes`] checks instead of re-encoding.
    const SEC1_COMPRESSED: bool = false;

    /// Canonical encoding of a point.
    fn point_to_bytes(p: &Self::Point) -> Vec<u8> {
        p.to_bytes().as_ref().to_vec()
    }

    /// Checked decoding: exact length, canonical encoding, prime-order subgroup, not the
    /// identity.
    fn point_from_bytes(what: &'static str, bytes: &[u8]) -> Result<Self::Point, GroupDecodeError> {
        let mut repr = <Self::Point as GroupEncoding>::Repr::default();
        if bytes.len() != repr.as_ref().len() {
            return Err(GroupDecodeError::Length {
                what,
                expected: repr.as_ref().len(),
                got: bytes.len(),
            });
        }
        if Self::SEC1_COMPRESSED && bytes[0] != 2 && bytes[0] != 3 {
            return Err(GroupDecodeError::Point { what });
        }
        repr.as_mut().copy_from_slice(bytes);
        let p: Self::Point =
            Option::from(Self::Point::from_bytes(&repr)).ok_or(GroupDecodeError::Point { what })?;
        // Reject encodings that decode but do not re-encode identically (non-canonical forms).
        // Costs an inversion, so only for curves whose decoder accepts non-canonical input.
        if Self::DECODER_ACCEPTS_NON_CANONICAL && p.to_bytes().as_ref() != bytes {
            return Err(GroupDecodeError::Point { what });
        }
        if bool::from(group::Group::is_identity(&p)) {
            return Err(GroupDecodeError::Identity { what });
        }
        Ok(p)
    }
}

/// NIST P-256.
#[derive(Clone, Copy, Debug, Default)]
pub struct P256;
impl Curve for P256 {
    type Point = p256::ProjectivePoint;
    type Scalar = p256::Scalar;
    const NAME: &'static str = "p256";
    const POINT_LEN: usize = 33;
    const ORDER_BE: [u8; 32] =
        hex_literal("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
    const REPR_IS_BIG_ENDIAN: bool = true;
    const DECODER_ACCEPTS_NON_CANONICAL: bool = false;
    const SEC1_COMPRESSED: bool = true;
}

/// secp256k1.
#[derive(Clone, Copy, Debug, Default)]
pub struct Secp256k1;
impl Curve for Secp256k1 {
    type Point = k256::ProjectivePoint;
    type Scalar = k256::Scalar;
    const NAME: &'static str = "secp256k1";
    const POINT_LEN: usize = 33;
    const ORDER_BE: [u8; 32] =
        hex_literal("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
    const REPR_IS_BIG_ENDIAN: bool = true;
    const DECODER_ACCEPTS_NON_CANONICAL: bool = false;
    const SEC1_COMPRESSED: bool = true;
}

/// BLS12-381 G1.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bls12381G1;
impl Curve for Bls12381G1 {
    type Point = blstrs::G1Projective;
    type Scalar = blstrs::Scalar;
    const NAME: &'static str = "bls12-381-g1";
    const DECODER_ACCEPTS_NON_CANONICAL: bool = false;
    const POINT_LEN: usize = 48;
    const ORDER_BE: [u8; 32] =
        hex_literal("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
    const REPR_IS_BIG_ENDIAN: bool = false;
}

/// The prime-order subgroup of edwards25519 (Ed25519 public keys).
#[derive(Clone, Copy, Debug, Default)]
pub struct Ed25519;
impl Curve for Ed25519 {
    type Point = curve25519_dalek::edwards::SubgroupPoint;
    type Scalar = curve25519_dalek::Scalar;
    const NAME: &'static str = "ed25519";
    const DECODER_ACCEPTS_NON_CANONICAL: bool = true;
    const POINT_LEN: usize = 32;
    const ORDER_BE: [u8; 32] =
        hex_literal("1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed");
    const REPR_IS_BIG_ENDIAN: bool = false;
}

/// Decodes 64 hex digits at compile time.
const fn hex_literal(s: &str) -> [u8; 32] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => panic!("bad hex digit in constant"),
        }
    }
    let b = s.as_bytes();
    assert!(b.len() == 64, "hex constant must have 64 digits");
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = (nibble(b[2 * i]) << 4) | nibble(b[2 * i + 1]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use ff::Field;
    use group::Group;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn roundtrip<C: Curve>() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let s = C::Scalar::random(&mut rng);
        let be = C::scalar_to_be_bytes(&s);
        assert_eq!(C::scalar_from_be_bytes(&be).unwrap(), s);
        // ρ − 1 is canonical and equals −1; ρ itself is not canonical.
        let mut order_minus_one = C::ORDER_BE;
        order_minus_one[31] -= 1;
        assert_eq!(
            C::scalar_from_be_bytes(&order_minus_one).unwrap(),
            -C::Scalar::ONE
        );
        assert!(C::scalar_from_be_bytes(&C::ORDER_BE).is_none());

        let p = C::Point::generator() * s;
        let bytes = C::point_to_bytes(&p);
        assert_eq!(bytes.len(), C::POINT_LEN);
        assert_eq!(C::point_from_bytes("p", &bytes).unwrap(), p);
        assert!(matches!(
            C::point_from_bytes("p", &bytes[1..]),
            Err(GroupDecodeError::Length { .. })
        ));
        let id = C::point_to_bytes(&C::Point::identity());
        assert!(C::point_from_bytes("p", &id).is_err());
    }

    #[test]
    fn encodings_roundtrip_on_every_curve() {
        roundtrip::<P256>();
        roundtrip::<Secp256k1>();
        roundtrip::<Bls12381G1>();
        roundtrip::<Ed25519>();
    }

    /// `prefix ‖ p` where `p` is the field modulus: the x-coordinate `p ≡ 0` is not canonical.
    fn sec1_with_x(prefix: u8, x_be: &str) -> Vec<u8> {
        let mut v = vec![prefix];
        v.extend_from_slice(&hex_literal(x_be));
        v
    }

    #[test]
    fn non_canonical_coordinates_are_rejected_on_every_curve() {
        // secp256k1 and P-256: an x-coordinate equal to the field modulus p.
        let k1_p = "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f";
        let p256_p = "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff";
        for prefix in [2u8, 3] {
            assert!(Secp256k1::point_from_bytes("p", &sec1_with_x(prefix, k1_p)).is_err());
            assert!(P256::point_from_bytes("p", &sec1_with_x(prefix, p256_p)).is_err());
        }
        // BLS12-381 G1: a compressed x ≥ p (all ones after the flag bits) is rejected.
        let mut bls = [0xffu8; 48];
        bls[0] = 0x9f; // compression flag set, infinity and sign flags clear
        assert!(Bls12381G1::point_from_bytes("p", &bls).is_err());
        // Ed25519: y = p + 1, a non-canonical form of y = 1.
        let mut ed = [0xffu8; 32];
        ed[0] = 0xee;
        ed[31] = 0x7f;
        assert!(Ed25519::point_from_bytes("p", &ed).is_err());
    }

    /// SEC1's compact form (tag 5, x only) of a valid point: `p256` and `k256` decode it to
    /// the same or the negated point, a second encoding of the value (found by the
    /// `decode_verenc` fuzz target in a TZ21 compressed ciphertext, issue 18).
    fn compact_form_is_rejected<C: Curve>() {
        let p = C::Point::generator() * C::Scalar::from(7u64);
        for q in [p, -p] {
            let mut b = C::point_to_bytes(&q);
            assert!(b[0] == 2 || b[0] == 3);
            assert_eq!(C::point_from_bytes("p", &b).unwrap(), q);
            b[0] = 5;
            assert!(C::point_from_bytes("p", &b).is_err(), "{}", C::NAME);
            // No other tag is a 33-byte encoding of a point.
            for tag in (0..=255u8).filter(|t| *t != 2 && *t != 3) {
                b[0] = tag;
                assert!(
                    C::point_from_bytes("p", &b).is_err(),
                    "{} tag {tag}",
                    C::NAME
                );
            }
        }
    }

    #[test]
    fn sec1_compact_points_are_rejected() {
        compact_form_is_rejected::<P256>();
        compact_form_is_rejected::<Secp256k1>();
    }

    #[test]
    fn ed25519_rejects_small_order_points() {
        // The encoding of a point of order 2: (0, −1).
        let mut b = [0u8; 32];
        b[0] = 0xec;
        b[1..31].fill(0xff);
        b[31] = 0x7f;
        assert!(Ed25519::point_from_bytes("p", &b).is_err());
    }
}
