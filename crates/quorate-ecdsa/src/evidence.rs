//! Data signed by identity keys that other modules, the error type included, refer to:
//! reading an Ed25519 identity key, a [`SignedDigest`] (one party's broadcast digest with its
//! identity signature) and the [`EquivocationEvidence`] record with its codec.
//!
//! A leaf module: it imports nothing from the crate, so the error type can carry the evidence
//! without an import circle. The checks (`EquivocationEvidence::verify`) live with the
//! agreement step in [`crate::keygen::agreement`].

use ed25519_dalek::{Signature, VerifyingKey};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, PartyId};

const EVIDENCE_TAG: u8 = 0xEA;
const VERSION: u8 = 1;
/// Bound on the session id carried by evidence (bytes).
pub(crate) const MAX_SESSION: usize = 4096;

/// The check named by an [`crate::EcdsaError::Equivocated`] error.
pub const CHECK_EQUIVOCATION: &str = "DKG agreement: two signed, different broadcasts";

/// Reads an Ed25519 verifying key: a valid point encoding, not of small order.
pub(crate) fn read_identity(r: &mut Reader<'_>) -> Result<VerifyingKey, DecodeError> {
    let what = "Ed25519 identity key";
    let bytes: [u8; 32] = r.array()?;
    let vk = VerifyingKey::from_bytes(&bytes).map_err(|_| DecodeError::InvalidPoint { what })?;
    if vk.is_weak() {
        return Err(DecodeError::Identity { what });
    }
    Ok(vk)
}

/// One party's broadcast digest with its identity signature on the broadcast statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedDigest {
    pub(crate) digest: [u8; 32],
    pub(crate) signature: Signature,
}

impl SignedDigest {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.bytes(&self.digest).bytes(&self.signature.to_bytes());
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(SignedDigest {
            digest: r.array()?,
            signature: Signature::from_bytes(&r.array()?),
        })
    }
}

/// Transferable proof that `culprit` signed two different broadcasts in one key generation
/// or refresh: two valid identity signatures on different digests for the same session and
/// sender. Check it with [`EquivocationEvidence::verify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EquivocationEvidence {
    pub(crate) key_id: [u8; 32],
    pub(crate) epoch: u64,
    pub(crate) session: Vec<u8>,
    pub(crate) culprit: PartyId,
    pub(crate) first: SignedDigest,
    pub(crate) second: SignedDigest,
}

impl EquivocationEvidence {
    /// The accused party.
    pub fn culprit(&self) -> PartyId {
        self.culprit
    }

    pub(crate) fn culprit_ref(&self) -> &PartyId {
        &self.culprit
    }

    /// The key id of the run.
    pub fn key_id(&self) -> [u8; 32] {
        self.key_id
    }

    /// The epoch the run was producing (0 for key generation, `e + 1` for a refresh of an
    /// epoch-`e` share). Pick the roster for [`EquivocationEvidence::verify`] by it.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(EVIDENCE_TAG, VERSION)
            .bytes(&self.key_id)
            .u64(self.epoch)
            .u16(self.session.len() as u16)
            .bytes(&self.session)
            .party(self.culprit);
        self.first.write(&mut w);
        self.second.write(&mut w);
        w.into_bytes()
    }

    /// Decodes [`EquivocationEvidence::to_bytes`] (it still has to be verified).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("equivocation evidence", bytes);
        r.header(EVIDENCE_TAG, VERSION)?;
        let key_id = r.array()?;
        let epoch = r.u64()?;
        let len = r.len_prefix(MAX_SESSION)?;
        let session = r.take(len)?.to_vec();
        let culprit = r.party()?;
        let first = SignedDigest::read(&mut r)?;
        let second = SignedDigest::read(&mut r)?;
        r.finish()?;
        Ok(EquivocationEvidence {
            key_id,
            epoch,
            session,
            culprit,
            first,
            second,
        })
    }
}
