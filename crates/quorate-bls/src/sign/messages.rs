//! The signing messages and their codecs: [`ColdPartial`] (cold → hot) and
//! [`PartialSignature`] (hot → combiner).

use blstrs::G1Projective;
use quorate_core::bls12_381::wire::ReadBls;
use quorate_core::bls12_381::wire::{g1_to_bytes, G1_BYTES};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, PartyId};

/// Format version of every message in this module.
pub(crate) const VERSION: u8 = 1;

/// A cold partial signature `k_i·H(m)`, sent by `P_i^cold` to its hot partner.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ColdPartial {
    pub(crate) index: PartyId,
    pub(crate) point: G1Projective,
}

pub(crate) const TAG_COLD_PARTIAL: u8 = 0x06;
impl ColdPartial {
    /// The sender's index.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// Encoding: header, index, compressed G1 point.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_COLD_PARTIAL, VERSION)
            .party(self.index)
            .bytes(&g1_to_bytes(&self.point));
        w.into_bytes()
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("cold partial signature", bytes);
        r.header(TAG_COLD_PARTIAL, VERSION)?;
        let index = r.party()?;
        let point = r.g1("cold partial signature point")?;
        r.finish()?;
        Ok(ColdPartial { index, point })
    }

    /// Encoded size in bytes.
    pub const BYTES: usize = 2 + 2 + G1_BYTES;
}

/// A partial signature `σ_i = x_i·H(m)` of party `i`, tagged with the epoch and digest of
/// the record state its signer holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PartialSignature {
    pub(crate) index: PartyId,
    pub(crate) epoch: u64,
    pub(crate) state: [u8; 32],
    pub(crate) point: G1Projective,
}

pub(crate) const TAG_PARTIAL: u8 = 0x05;
impl PartialSignature {
    /// Encoded size in bytes (header, index, epoch, record digest, compressed G1).
    pub const BYTES: usize = 2 + 2 + 8 + 32 + G1_BYTES;

    /// The signer.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// The refresh epoch of the share that produced it.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The digest of the signer's record state ([`GroupPublic::digest`](crate::GroupPublic::digest)).
    pub fn state(&self) -> [u8; 32] {
        self.state
    }

    /// The point `σ_i`.
    pub fn point(&self) -> &G1Projective {
        &self.point
    }

    /// Whether this partial declares the given epoch and record digest.
    pub(crate) fn is_for(&self, epoch: u64, digest: &[u8; 32]) -> bool {
        self.epoch == epoch && &self.state == digest
    }

    /// Encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_PARTIAL, VERSION)
            .party(self.index)
            .u64(self.epoch)
            .bytes(&self.state)
            .bytes(&g1_to_bytes(&self.point));
        w.into_bytes()
    }

    /// Checked decoding (the identity is rejected: `x_i = 0` has negligible probability).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("partial signature", bytes);
        r.header(TAG_PARTIAL, VERSION)?;
        let index = r.party()?;
        let epoch = r.u64()?;
        let state = r.array::<32>()?;
        let point = r.g1("partial signature point")?;
        r.finish()?;
        Ok(PartialSignature {
            index,
            epoch,
            state,
            point,
        })
    }
}
