//! secp256k1 helpers: canonical encodings, tagged hashing, Schnorr proofs of knowledge.

use crate::error::{EcdsaError, Result};
use k256::elliptic_curve::group::{Group, GroupEncoding};
use k256::elliptic_curve::ops::{LinearCombination, MulByGenerator, Reduce};
use k256::elliptic_curve::PrimeField;
use k256::{AffinePoint, FieldBytes, ProjectivePoint, Scalar, U256};
use merlin::Transcript;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{DecodeError, PartyId};
use rand_core::CryptoRngCore;
use sha2::{Digest, Sha256};

/// Length of a compressed SEC1 point.
pub const POINT_LEN: usize = 33;
/// Length of a scalar.
pub const SCALAR_LEN: usize = 32;

/// SHA-256's initial state (FIPS 180-4 §5.3.3), for hashes computed block by block with
/// `sha2::compress256` on precomputed prefixes (each such use is tested against `Sha256`).
pub(crate) const SHA256_IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// `s·G` using k256's precomputed generator table.
pub fn base_mul(s: &Scalar) -> ProjectivePoint {
    ProjectivePoint::mul_by_generator(s)
}

/// `a·P + b·Q` in one pass.
pub fn lincomb(
    p: &ProjectivePoint,
    a: &Scalar,
    q: &ProjectivePoint,
    b: &Scalar,
) -> ProjectivePoint {
    ProjectivePoint::lincomb(p, a, q, b)
}

/// Multiplies a point by a small public integer (double-and-add, variable time in `k`).
pub fn mul_small(p: &ProjectivePoint, k: u64) -> ProjectivePoint {
    let mut acc = ProjectivePoint::IDENTITY;
    let bits = 64 - k.leading_zeros();
    for bit in (0..bits).rev() {
        acc = acc.double();
        if (k >> bit) & 1 == 1 {
            acc += p;
        }
    }
    acc
}

/// Compressed SEC1 encoding (33 bytes).
pub fn point_bytes(p: &ProjectivePoint) -> [u8; POINT_LEN] {
    let mut out = [0u8; POINT_LEN];
    out.copy_from_slice(p.to_affine().to_bytes().as_ref());
    out
}

/// Decodes a compressed point, rejecting invalid encodings and the identity.
pub fn point_from_bytes(
    what: &'static str,
    bytes: &[u8],
) -> core::result::Result<ProjectivePoint, DecodeError> {
    if bytes.len() != POINT_LEN {
        return Err(DecodeError::WrongLength {
            what,
            expected: POINT_LEN,
            got: bytes.len(),
        });
    }
    // k256's `from_bytes` only looks at the parity bit of the tag; insist on 0x02/0x03 so
    // every point has exactly one accepted encoding.
    if !matches!(bytes.first(), Some(2) | Some(3)) {
        return Err(DecodeError::InvalidPoint { what });
    }
    let mut repr = k256::CompressedPoint::default();
    repr.copy_from_slice(bytes);
    let p: Option<AffinePoint> = AffinePoint::from_bytes(&repr).into();
    let p = p.ok_or(DecodeError::InvalidPoint { what })?;
    let p = ProjectivePoint::from(p);
    if bool::from(p.is_identity()) {
        return Err(DecodeError::Identity { what });
    }
    Ok(p)
}

/// Big-endian scalar bytes.
pub fn scalar_bytes(s: &Scalar) -> [u8; SCALAR_LEN] {
    s.to_bytes().into()
}

/// Decodes a canonical big-endian scalar.
pub fn scalar_from_bytes(
    what: &'static str,
    bytes: &[u8],
) -> core::result::Result<Scalar, DecodeError> {
    if bytes.len() != SCALAR_LEN {
        return Err(DecodeError::WrongLength {
            what,
            expected: SCALAR_LEN,
            got: bytes.len(),
        });
    }
    let mut fb = FieldBytes::default();
    fb.copy_from_slice(bytes);
    Option::from(Scalar::from_repr(fb)).ok_or(DecodeError::NonCanonical { what })
}

/// Reduces 32 bytes modulo the group order (bias below 2^-127; used only for pads and
/// public coins).
pub fn scalar_reduce(bytes: &[u8; 32]) -> Scalar {
    <Scalar as Reduce<U256>>::reduce_bytes(&FieldBytes::from(*bytes))
}

/// Writes a point.
pub fn write_point(w: &mut Writer, p: &ProjectivePoint) {
    w.bytes(&point_bytes(p));
}

/// Writes a scalar.
pub fn write_scalar(w: &mut Writer, s: &Scalar) {
    w.bytes(&scalar_bytes(s));
}

/// Reads a point (non-identity).
pub fn read_point(
    r: &mut Reader<'_>,
    what: &'static str,
) -> core::result::Result<ProjectivePoint, DecodeError> {
    point_from_bytes(what, r.take(POINT_LEN)?)
}

/// Reads a canonical scalar.
pub fn read_scalar(
    r: &mut Reader<'_>,
    what: &'static str,
) -> core::result::Result<Scalar, DecodeError> {
    scalar_from_bytes(what, r.take(SCALAR_LEN)?)
}

/// A tagged random oracle: `SHA-256(len(tag) ‖ tag ‖ len(p_1) ‖ p_1 ‖ …)`.
pub fn tagged_hash(tag: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update((tag.len() as u64).to_be_bytes());
    h.update(tag);
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p);
    }
    h.finalize().into()
}

/// Maps an error from decoding a message of `from` into a blamed [`EcdsaError`].
pub fn malformed(from: PartyId) -> impl Fn(DecodeError) -> EcdsaError {
    move |source| EcdsaError::Malformed { from, source }
}

/// A Schnorr proof of knowledge of `x` with `X = x·G`, made non-interactive with a merlin
/// transcript bound to a session id, a protocol label and the prover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DlogProof {
    commitment: ProjectivePoint,
    response: Scalar,
}

/// Encoded length of a [`DlogProof`].
pub const DLOG_PROOF_LEN: usize = POINT_LEN + SCALAR_LEN;

fn dlog_challenge(
    label: &'static [u8],
    sid: &[u8; 32],
    prover: PartyId,
    x: &ProjectivePoint,
    k: &ProjectivePoint,
) -> Scalar {
    let mut t =
        Transcript::for_protocol(b"quorate/ecdsa/dlog-pok", 1, &SessionId::new(sid.to_vec()));
    t.append_message(b"context", label);
    t.append_party(b"prover", prover);
    t.append_point(b"X", &x.to_affine());
    t.append_point(b"K", &k.to_affine());
    t.challenge_scalar(b"e")
}

impl DlogProof {
    /// Proves knowledge of `x` for `X = x·G`.
    pub fn prove(
        label: &'static [u8],
        sid: &[u8; 32],
        prover: PartyId,
        x: &Scalar,
        public: &ProjectivePoint,
        rng: &mut impl CryptoRngCore,
    ) -> Self {
        let mut k = Scalar::generate_biased(rng);
        let commitment = base_mul(&k);
        let e = dlog_challenge(label, sid, prover, public, &commitment);
        let response = k + e * x;
        zeroize::Zeroize::zeroize(&mut k);
        DlogProof {
            commitment,
            response,
        }
    }

    /// Verifies the proof: `z·G − e·X = K`.
    pub fn verify(
        &self,
        label: &'static [u8],
        sid: &[u8; 32],
        prover: PartyId,
        public: &ProjectivePoint,
    ) -> bool {
        let e = dlog_challenge(label, sid, prover, public, &self.commitment);
        lincomb(&ProjectivePoint::GENERATOR, &self.response, public, &(-e)) == self.commitment
    }

    /// Writes `K ‖ z`.
    pub fn write(&self, w: &mut Writer) {
        write_point(w, &self.commitment);
        write_scalar(w, &self.response);
    }

    /// Reads `K ‖ z`.
    pub fn read(r: &mut Reader<'_>) -> core::result::Result<Self, DecodeError> {
        Ok(DlogProof {
            commitment: read_point(r, "proof commitment")?,
            response: read_scalar(r, "proof response")?,
        })
    }
}

/// Lagrange coefficient at zero of `me` among `signers` (as field elements of their indices).
pub fn lagrange_at_zero(me: PartyId, signers: &[PartyId]) -> Result<Scalar> {
    let xs: Vec<Scalar> = signers
        .iter()
        .map(|p| Scalar::from(u64::from(p.get())))
        .collect();
    let lambdas = quorate_core::lagrange::coefficients_at_zero(&xs)?;
    signers
        .iter()
        .zip(lambdas)
        .find(|(p, _)| **p == me)
        .map(|(_, l)| l)
        .ok_or(EcdsaError::Param(quorate_core::ParamError::UnknownParty {
            id: me,
            n: signers.len() as u16,
        }))
}
