//! The registration messages and their codecs: cold keys with their Π_DL proofs
//! ([`ColdRegistration`]), pad commitments, and the client's output ([`Registration`]: the
//! public record and one private [`HotRegistration`] payload per hot party).

use crate::ciphersuite::Signature;
use crate::group::GroupPublic;
use crate::proofs::ColdProof;
use blstrs::{G1Projective, G2Projective, Scalar};
use quorate_core::bls12_381::hash::hash_to_g1;
use quorate_core::bls12_381::wire::ReadBls;
use quorate_core::bls12_381::wire::{
    g1_to_bytes, g2_to_bytes, scalar_to_bytes, G1_BYTES, G2_BYTES, SCALAR_BYTES,
};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::secret::{wipe_field, REDACTED};
use quorate_core::{DecodeError, PartyId};
use std::fmt;

/// Format version of every message in this module.
pub(crate) const VERSION: u8 = 1;

/// A cold public key `ek_i = dk_i·g2` (96 bytes, compressed G2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ColdPublicKey(pub(crate) G2Projective);

impl ColdPublicKey {
    /// Encoded size.
    pub const BYTES: usize = G2_BYTES;

    /// Compressed encoding.
    pub fn to_bytes(&self) -> [u8; G2_BYTES] {
        g2_to_bytes(&self.0)
    }

    /// Decodes and checks (on curve, in G2, not the identity).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(ColdPublicKey(quorate_core::bls12_381::wire::g2_from_bytes(
            "cold public key",
            bytes,
        )?))
    }

    /// The point.
    pub fn point(&self) -> &G2Projective {
        &self.0
    }
}

/// A cold party's registration: index, `ek_i` and a Π_DL proof (226 bytes encoded).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ColdRegistration {
    pub(crate) index: PartyId,
    pub(crate) ek: ColdPublicKey,
    pub(crate) proof: ColdProof,
}

impl ColdRegistration {
    /// Encoded size in bytes: index, `ek_i`, proof.
    pub const BYTES: usize = 2 + G2_BYTES + ColdProof::BYTES;

    /// The cold party's index.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// `ek_i` (not yet checked: see [`crate::register::VerifiedColdKeys::verify`]).
    pub fn public_key(&self) -> ColdPublicKey {
        self.ek
    }

    /// Encoding: index, compressed `ek_i`, Π_DL proof.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::BYTES);
        out.extend_from_slice(&self.index.to_bytes());
        out.extend_from_slice(&self.ek.to_bytes());
        out.extend_from_slice(&self.proof.to_bytes());
        out
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.len() != Self::BYTES {
            return Err(DecodeError::WrongLength {
                what: "cold registration",
                expected: Self::BYTES,
                got: bytes.len(),
            });
        }
        let index = PartyId::from_bytes([bytes[0], bytes[1]])?;
        let ek = ColdPublicKey::from_bytes(&bytes[2..2 + G2_BYTES])?;
        let proof = ColdProof::from_bytes(&bytes[2 + G2_BYTES..])?;
        Ok(ColdRegistration { index, ek, proof })
    }
}

/// `K_i = k_i·g2`, sent by `P_i^cold` to its hot partner at registration.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PadCommitment {
    pub(crate) index: PartyId,
    pub(crate) point: G2Projective,
}

pub(crate) const TAG_PAD_COMMITMENT: u8 = 0x08;

impl PadCommitment {
    /// Encoded size in bytes (header, index, compressed G2).
    pub const BYTES: usize = 2 + 2 + G2_BYTES;

    /// The sender's index.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// Encoding: header, index, compressed G2 point.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_PAD_COMMITMENT, VERSION)
            .party(self.index)
            .bytes(&g2_to_bytes(&self.point));
        w.into_bytes()
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("pad commitment", bytes);
        r.header(TAG_PAD_COMMITMENT, VERSION)?;
        let index = r.party()?;
        let point = r.g2("pad commitment point")?;
        r.finish()?;
        Ok(PadCommitment { index, point })
    }
}

/// The output of ClientRegister: the public record, the client's authorisation of it and
/// one private payload per hot party.
#[derive(Debug)]
pub struct Registration {
    /// Broadcast to everyone.
    pub public: GroupPublic,
    /// The client's BLS signature on [`registration_message`] of the record's digest under
    /// [`DST_REGISTER`]; every hot party checks it ([`crate::HotParty::register`]).
    pub authorization: Signature,
    /// `payloads[i−1]` goes to hot party `i` over a private channel.
    pub payloads: Vec<HotRegistration>,
}

/// The private registration payload of hot party `i`: `(i, hx_i, π_i)`.
pub struct HotRegistration {
    pub(crate) index: PartyId,
    pub(crate) hot_share: Scalar,
    pub(crate) opening: G1Projective,
}

impl fmt::Debug for HotRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HotRegistration")
            .field("index", &self.index)
            .field("hot_share", &REDACTED)
            .finish_non_exhaustive()
    }
}

impl Drop for HotRegistration {
    fn drop(&mut self) {
        wipe_field(&mut self.hot_share);
    }
}

/// The domain separation tag of the client's registration authorisation (a BLS signature
/// on [`registration_message`]), distinct from signing, PoP and refresh.
pub const DST_REGISTER: &[u8] = b"QUORATE-V01-BLS-REGISTER-AUTH_BLS12381G1_XMD:SHA-256_SSWU_RO_";

/// What the client signs to authorise a registration: a domain tag and the digest of the
/// record ([`GroupPublic::digest`], which binds the CRS id, `(t, n)`, the epoch, `vk`, its
/// PoP, `com_T` and every `vs_j`).
pub fn registration_message(record_digest: &[u8; 32]) -> Vec<u8> {
    let mut m = Vec::with_capacity(24 + 32);
    m.extend_from_slice(b"quorate/bls/register/v1");
    m.extend_from_slice(record_digest);
    m
}

/// `H(registration_message(digest))` under [`DST_REGISTER`].
pub(crate) fn registration_point(record_digest: &[u8; 32]) -> G1Projective {
    hash_to_g1(&registration_message(record_digest), DST_REGISTER)
}

pub(crate) const TAG_HOT_REGISTRATION: u8 = 0x02;
impl HotRegistration {
    /// The addressee.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// Encoding: header, index, hx_i, π_i. **Contains a secret**; send it encrypted.
    pub fn to_bytes(&self) -> Vec<u8> {
        private_payload(
            TAG_HOT_REGISTRATION,
            self.index,
            &self.hot_share,
            &self.opening,
        )
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let (index, hot_share, opening) =
            read_private_payload("hot registration payload", TAG_HOT_REGISTRATION, bytes)?;
        Ok(HotRegistration {
            index,
            hot_share,
            opening,
        })
    }
}

pub(crate) fn private_payload(
    tag: u8,
    index: PartyId,
    secret: &Scalar,
    opening: &G1Projective,
) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag, VERSION)
        .party(index)
        .bytes(&scalar_to_bytes(secret))
        .bytes(&g1_to_bytes(opening));
    w.into_bytes()
}

pub(crate) fn read_private_payload(
    what: &'static str,
    tag: u8,
    bytes: &[u8],
) -> Result<(PartyId, Scalar, G1Projective), DecodeError> {
    if bytes.len() != 2 + 2 + SCALAR_BYTES + G1_BYTES {
        return Err(DecodeError::WrongLength {
            what,
            expected: 2 + 2 + SCALAR_BYTES + G1_BYTES,
            got: bytes.len(),
        });
    }
    let mut r = Reader::new(what, bytes);
    r.header(tag, VERSION)?;
    let index = r.party()?;
    let secret = r.scalar("secret share")?;
    // An opening is the identity only with negligible probability for honest data, but
    // it is a well-formed group element; the KZG check decides.
    let opening = r.g1_or_identity("KZG opening")?;
    r.finish()?;
    Ok((index, secret, opening))
}
