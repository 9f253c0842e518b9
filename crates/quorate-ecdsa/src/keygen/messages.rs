//! The key-generation messages and their canonical encodings.

use super::setup::encode_reveal;
use crate::curve::{malformed, read_point, read_scalar, write_scalar, DlogProof};
use crate::error::Result;
use crate::evidence::{read_identity, SignedDigest};
use crate::ot::base::{BaseOtMsg1, BaseOtMsg2};
use crate::ot::ext::OteMsg;
use ed25519_dalek::{Signature, VerifyingKey};
use k256::{ProjectivePoint, Scalar};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::PartyId;
use zeroize::Zeroize;

const MSG1_TAG: u8 = 0xE1;
const MSG2_TAG: u8 = 0xE2;
const MSG3_TAG: u8 = 0xE3;
const MSG4_TAG: u8 = 0xE4;
const VERSION: u8 = 2;

/// Round-1 message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DkgMsg1 {
    pub(crate) commitment: [u8; 32],
    /// *Broadcast*: the Ed25519 identity verifying key the sender holds in the new share
    /// (in key generation its roster key; a refresh announces the next one).
    pub(crate) identity: VerifyingKey,
    /// Present exactly when the recipient has the lower index.
    pub(crate) base_ot: Option<BaseOtMsg1>,
}

/// Round-3 message (to lower-index parties only): the OT-extension message that bootstraps
/// the reverse direction of the pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DkgMsg3 {
    pub(crate) ote: OteMsg,
}

/// Round-2 message. It carries the recipient's share `f_i(j)` **in clear**: send it only
/// over a confidential, authenticated channel between sender and recipient (the library
/// does not encrypt; the node's transport does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DkgMsg2 {
    pub(crate) feldman: Vec<ProjectivePoint>,
    pub(crate) proof: Option<DlogProof>,
    pub(crate) chain: [u8; 32],
    pub(crate) salt: [u8; 32],
    pub(crate) share: Scalar,
    /// Present exactly when the recipient has the higher index.
    pub(crate) base_ot: Option<BaseOtMsg2>,
    /// *Broadcast*: the sender's identity signature on the digest of its broadcast values
    /// (round-1 commitment and identity key, this opening); see [`super::agreement`].
    pub(crate) signature: Signature,
}

/// Round-4 message, the agreement step (*broadcast*, the same to every party): the signed
/// broadcast digest received from every party, own included, in party order, and the
/// sender's acknowledgement of the transcript hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DkgMsg4 {
    pub(crate) echo: Vec<SignedDigest>,
    pub(crate) ack: Signature,
}

impl Drop for DkgMsg2 {
    fn drop(&mut self) {
        self.share.zeroize();
    }
}

impl DkgMsg1 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG1_TAG, VERSION).bytes(&self.commitment);
        w.bytes(self.identity.as_bytes())
            .optional(self.base_ot.as_ref(), |w, b| b.write(w));
        w.into_bytes()
    }

    /// Decodes a message from `from` (errors name `from`).
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("DKG round 1", bytes);
        r.header(MSG1_TAG, VERSION).map_err(&f)?;
        let commitment = r.array().map_err(&f)?;
        let identity = read_identity(&mut r).map_err(&f)?;
        let base_ot = r.optional(BaseOtMsg1::read).map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(DkgMsg1 {
            commitment,
            identity,
            base_ot,
        })
    }
}

impl DkgMsg2 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG2_TAG, VERSION);
        encode_reveal(&mut w, &self.feldman, &self.proof, &self.chain, &self.salt);
        w.bytes(&self.signature.to_bytes());
        write_scalar(&mut w, &self.share);
        w.optional(self.base_ot.as_ref(), |w, b| b.write(w));
        w.into_bytes()
    }

    /// Decodes a message from `from` (errors name `from`).
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("DKG round 2", bytes);
        r.header(MSG2_TAG, VERSION).map_err(&f)?;
        let len = r.len_prefix(1024).map_err(&f)?;
        let mut feldman = Vec::with_capacity(len);
        for _ in 0..len {
            feldman.push(read_point(&mut r, "Feldman commitment").map_err(&f)?);
        }
        let proof = r.optional(DlogProof::read).map_err(&f)?;
        let chain = r.array().map_err(&f)?;
        let salt = r.array().map_err(&f)?;
        let signature = Signature::from_bytes(&r.array().map_err(&f)?);
        let share = read_scalar(&mut r, "DKG share").map_err(&f)?;
        let base_ot = r.optional(BaseOtMsg2::read).map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(DkgMsg2 {
            feldman,
            proof,
            chain,
            salt,
            share,
            base_ot,
            signature,
        })
    }
}

impl DkgMsg3 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG3_TAG, VERSION);
        self.ote.write(&mut w);
        w.into_bytes()
    }

    /// Decodes a message from `from` (errors name `from`).
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("DKG round 3", bytes);
        r.header(MSG3_TAG, VERSION).map_err(&f)?;
        let ote = OteMsg::read(&mut r, 64).map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(DkgMsg3 { ote })
    }
}

impl DkgMsg4 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG4_TAG, VERSION).u16(self.echo.len() as u16);
        for d in &self.echo {
            d.write(&mut w);
        }
        w.bytes(&self.ack.to_bytes());
        w.into_bytes()
    }

    /// Decodes a message from `from` (errors name `from`).
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("DKG round 4", bytes);
        r.header(MSG4_TAG, VERSION).map_err(&f)?;
        let len = r.len_prefix(r.remaining() / 96).map_err(&f)?;
        let mut echo = Vec::with_capacity(len);
        for _ in 0..len {
            echo.push(SignedDigest::read(&mut r).map_err(&f)?);
        }
        let ack = Signature::from_bytes(&r.array().map_err(&f)?);
        r.finish().map_err(&f)?;
        Ok(DkgMsg4 { echo, ack })
    }
}
