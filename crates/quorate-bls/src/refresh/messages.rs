//! The refresh messages and their codecs: the dealt [`Refresh`] (public part and private
//! shares), and the hot parties' [`RefreshConfirmation`] echo with the
//! [`RefreshEquivocation`] evidence it can yield.

use crate::ciphersuite::{PublicKey, Signature};
use blstrs::{G1Projective, G2Projective, Scalar};
use group::Group;
use quorate_core::bls12_381::hash::hash_to_g1;
use quorate_core::bls12_381::normalize::{g1_batch_vartime, g2_batch_vartime};
use quorate_core::bls12_381::wire::ReadBls;
use quorate_core::bls12_381::wire::{
    g1_to_bytes, scalar_to_bytes, G1_BYTES, G2_BYTES, SCALAR_BYTES,
};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::secret::{wipe_field, REDACTED};
use quorate_core::{DecodeError, PartyId};
use std::fmt;

/// Format version of every message in this module.
pub(crate) const VERSION: u8 = 1;

/// A dealt refresh: the public part and one private share per hot party.
#[derive(Debug)]
pub struct Refresh {
    /// Broadcast to everyone.
    pub public: RefreshPublic,
    /// `shares[i−1]` goes to hot party `i` over a private channel.
    pub shares: Vec<RefreshShare>,
}

/// Hot party `i`'s private refresh share `(i, δ_i)`. (Its KZG opening `π_δ,i` is public,
/// in [`RefreshPublic`].)
pub struct RefreshShare {
    pub(crate) index: PartyId,
    pub(crate) delta: Scalar,
}

impl fmt::Debug for RefreshShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RefreshShare")
            .field("index", &self.index)
            .field("delta", &REDACTED)
            .finish_non_exhaustive()
    }
}

impl Drop for RefreshShare {
    fn drop(&mut self) {
        wipe_field(&mut self.delta);
    }
}

pub(crate) const TAG_REFRESH_SHARE: u8 = 0x04;
impl RefreshShare {
    /// Encoded size: header, index, δ_i.
    pub const BYTES: usize = 2 + 2 + SCALAR_BYTES;

    /// The addressee.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// Encoding: header, index, δ_i. **Contains a secret**; send it encrypted.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_REFRESH_SHARE, VERSION)
            .party(self.index)
            .bytes(&scalar_to_bytes(&self.delta));
        w.into_bytes()
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("refresh share", bytes);
        r.header(TAG_REFRESH_SHARE, VERSION)?;
        let index = r.party()?;
        let delta = r.scalar("refresh share δ_i")?;
        r.finish()?;
        Ok(RefreshShare { index, delta })
    }
}

pub(crate) const TAG_REFRESH_PUBLIC: u8 = 0x03;
/// DST of the client's authorisation signature on a refresh (never a message signature:
/// the ciphersuite's `DST_SIGN` and `DST_POP` differ).
pub const DST_REFRESH: &[u8] = b"QUORATE-V01-BLS-REFRESH-AUTH_BLS12381G1_XMD:SHA-256_SSWU_RO_";

/// The public part of a refresh, broadcast to every hot party and the combiner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefreshPublic {
    pub(crate) group_digest: [u8; 32],
    pub(crate) authorization: Signature,
    pub(crate) epoch: u64,
    pub(crate) delta_commitment: G1Projective,
    pub(crate) zero_proof: G1Projective,
    pub(crate) degree_proof: G1Projective,
    pub(crate) delta_vs: Vec<G2Projective>,
    pub(crate) openings: Vec<G1Projective>,
    /// [`RefreshPublic::refresh_id`], computed once (from the received bytes when decoded).
    pub(crate) id: [u8; 32],
}

impl RefreshPublic {
    /// Builds the public part of a refresh (unsigned: the dealer signs it next).
    pub(crate) fn new(
        group_digest: [u8; 32],
        epoch: u64,
        delta_commitment: G1Projective,
        zero_proof: G1Projective,
        degree_proof: G1Projective,
        delta_vs: Vec<G2Projective>,
        openings: Vec<G1Projective>,
    ) -> Self {
        let mut refresh = RefreshPublic {
            group_digest,
            authorization: Signature(G1Projective::generator()),
            epoch,
            delta_commitment,
            zero_proof,
            degree_proof,
            delta_vs,
            openings,
            id: [0; 32],
        };
        refresh.id = refresh_id_of(&refresh.unsigned_bytes());
        refresh
    }

    /// The epoch this refresh moves to.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The digest of the record this refresh applies to.
    pub fn group_digest(&self) -> [u8; 32] {
        self.group_digest
    }

    /// `C_δ = [δ(τ)]_1`.
    pub fn delta_commitment(&self) -> &G1Projective {
        &self.delta_commitment
    }

    /// The degree proof `[δ(τ)·τ^(D−t+1)]_1`.
    pub fn degree_proof(&self) -> &G1Projective {
        &self.degree_proof
    }

    /// The public opening `π_δ,j = [(δ(τ) − δ(z_j))/(τ − z_j)]_1` of party `j` (the paper's
    /// 48-byte per-party refresh proof). It is public because `Δvs_j = δ(z_j)·g2` already
    /// is, and the opening reveals nothing more about `δ(z_j)`.
    pub fn opening(&self, id: PartyId) -> Option<&G1Projective> {
        self.openings.get(id.position())
    }

    /// `SHA-256(tag ‖ every field but the signature)`: what the client signs and what hot
    /// parties echo to each other before committing.
    pub fn refresh_id(&self) -> [u8; 32] {
        self.id
    }

    /// `H(tag ‖ group digest ‖ epoch ‖ refresh id)` under [`DST_REFRESH`].
    pub(crate) fn authorization_point(&self) -> G1Projective {
        hash_to_g1(
            &authorization_message(&self.group_digest, self.epoch, &self.refresh_id()),
            DST_REFRESH,
        )
    }

    fn unsigned_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(&self.group_digest)
            .u64(self.epoch)
            .u16(self.delta_vs.len() as u16)
            .bytes(&g1_to_bytes(&self.delta_commitment))
            .bytes(&g1_to_bytes(&self.zero_proof))
            .bytes(&g1_to_bytes(&self.degree_proof));
        for d in &g2_batch_vartime(&self.delta_vs) {
            w.bytes(&d.to_compressed());
        }
        for p in &g1_batch_vartime(&self.openings) {
            w.bytes(&p.to_compressed());
        }
        w.into_bytes()
    }

    /// Encoding: header, client signature, group digest, epoch, n, C_δ, π_0, dcom,
    /// Δvs_1..Δvs_n, π_δ,1..π_δ,n.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_REFRESH_PUBLIC, VERSION)
            .bytes(&self.authorization.to_bytes())
            .bytes(&self.unsigned_bytes());
        w.into_bytes()
    }

    /// Checked decoding. The identity is allowed for `π_0`, `dcom`, the `Δvs_j` and the
    /// openings (they are well-formed group elements; the checks decide) and for `C_δ`,
    /// which [`GroupPublic::refreshed`](crate::GroupPublic::refreshed) then rejects with a typed error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("refresh public part", bytes);
        r.header(TAG_REFRESH_PUBLIC, VERSION)?;
        let authorization = Signature(r.g1("refresh authorisation")?);
        let group_digest = r.array::<32>()?;
        let epoch = r.u64()?;
        let n = r.u16()?;
        if n == 0 {
            return Err(DecodeError::InvalidValue {
                what: "refresh public part",
                reason: "no parties",
            });
        }
        let body = 3 * G1_BYTES + usize::from(n) * (G2_BYTES + G1_BYTES);
        if r.remaining() != body {
            return Err(DecodeError::WrongLength {
                what: "refresh public part",
                expected: 2 + G1_BYTES + 32 + 8 + 2 + body,
                got: bytes.len(),
            });
        }
        let delta_commitment = r.g1_or_identity("C_δ")?;
        let zero_proof = r.g1_or_identity("zero opening")?;
        let degree_proof = r.g1_or_identity("degree proof")?;
        let delta_vs = (0..n)
            .map(|_| r.g2_or_identity("Δvs"))
            .collect::<Result<Vec<_>, _>>()?;
        let openings = (0..n)
            .map(|_| r.g1_or_identity("refresh opening"))
            .collect::<Result<Vec<_>, _>>()?;
        r.finish()?;
        Ok(RefreshPublic {
            group_digest,
            authorization,
            epoch,
            delta_commitment,
            zero_proof,
            degree_proof,
            delta_vs,
            openings,
            id: refresh_id_of(&bytes[2 + G1_BYTES..]),
        })
    }
}

/// `SHA-256(tag ‖ unsigned encoding)`.
pub(crate) fn refresh_id_of(unsigned: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"quorate/bls/refresh-id/v2");
    h.update(unsigned);
    h.finalize().into()
}

/// The message the client signs to authorise a refresh.
pub(crate) fn authorization_message(
    group_digest: &[u8; 32],
    epoch: u64,
    refresh_id: &[u8; 32],
) -> Vec<u8> {
    let mut m = Vec::with_capacity(22 + 32 + 8 + 32);
    m.extend_from_slice(b"quorate/bls/refresh/v2");
    m.extend_from_slice(group_digest);
    m.extend_from_slice(&epoch.to_be_bytes());
    m.extend_from_slice(refresh_id);
    m
}

/// Hot party `i`'s echo of the refresh it accepted: its index, the record and epoch the
/// refresh applies to, the refresh id and the client's signature on them. Hot parties
/// send it to each other; a party commits only after `t` parties (itself included) echo
/// the same refresh id ([`crate::refresh::PendingRefresh`]). Because the client's signature
/// travels with it, two confirmations naming different refresh ids for the same record
/// and epoch are evidence, checkable by anyone holding `vk`, that the client equivocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefreshConfirmation {
    pub(crate) index: PartyId,
    pub(crate) group_digest: [u8; 32],
    pub(crate) epoch: u64,
    pub(crate) refresh_id: [u8; 32],
    pub(crate) authorization: Signature,
}

pub(crate) const TAG_CONFIRMATION: u8 = 0x09;

impl RefreshConfirmation {
    /// Encoded size: header, index, record digest, epoch, refresh id, signature.
    pub const BYTES: usize = 2 + 2 + 32 + 8 + 32 + G1_BYTES;

    pub(crate) fn of(index: PartyId, refresh: &RefreshPublic) -> Self {
        RefreshConfirmation {
            index,
            group_digest: refresh.group_digest,
            epoch: refresh.epoch,
            refresh_id: refresh.refresh_id(),
            authorization: refresh.authorization,
        }
    }

    /// The sender.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// The confirmed refresh.
    pub fn refresh_id(&self) -> [u8; 32] {
        self.refresh_id
    }

    /// Whether the client key `vk` signed this refresh id for this record and epoch.
    pub fn is_signed_by(&self, vk: &PublicKey) -> bool {
        vk.verify_with_dst(
            &authorization_message(&self.group_digest, self.epoch, &self.refresh_id),
            &self.authorization,
            DST_REFRESH,
        )
    }

    /// Encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_CONFIRMATION, VERSION)
            .party(self.index)
            .bytes(&self.group_digest)
            .u64(self.epoch)
            .bytes(&self.refresh_id)
            .bytes(&self.authorization.to_bytes());
        w.into_bytes()
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("refresh confirmation", bytes);
        r.header(TAG_CONFIRMATION, VERSION)?;
        let index = r.party()?;
        let group_digest = r.array::<32>()?;
        let epoch = r.u64()?;
        let refresh_id = r.array::<32>()?;
        let authorization = Signature(r.g1("refresh authorisation")?);
        r.finish()?;
        Ok(RefreshConfirmation {
            index,
            group_digest,
            epoch,
            refresh_id,
            authorization,
        })
    }
}

/// Evidence that the client signed two different refreshes of one record and epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefreshEquivocation {
    /// One signed refresh.
    pub first: RefreshConfirmation,
    /// Another one, for the same record and epoch.
    pub second: RefreshConfirmation,
}

impl RefreshEquivocation {
    /// Checks the evidence against the client key: same record and epoch, different
    /// refresh ids, both signed by `vk`.
    pub fn verify(&self, vk: &PublicKey) -> bool {
        self.first.group_digest == self.second.group_digest
            && self.first.epoch == self.second.epoch
            && self.first.refresh_id != self.second.refresh_id
            && self.first.is_signed_by(vk)
            && self.second.is_signed_by(vk)
    }
}
