//! A refreshed share waiting for its epoch certificate.

use super::agreement::EpochCertificate;
use crate::error::{EcdsaError, Result};
use crate::evidence::read_identity;
use crate::keyshare::KeyShare;
use ed25519_dalek::VerifyingKey;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, PartyId};
use zeroize::Zeroizing;

const PENDING_TAG: u8 = 0xE9;
/// Version 1: no restored party. Version 2 adds the restored parties (see
/// [`super::restore`]); a pending share without one is still written as version 1.
const PENDING_VERSION: u8 = 1;
const PENDING_VERSION_RESTORED: u8 = 2;

/// The result of a refresh at one party, not yet current: the new share, and the identity
/// keys that ran the refresh (the current epoch's), which must all acknowledge it.
///
/// Until [`PendingRefresh::commit`] succeeds the current share stays the one to sign with;
/// the pending share cannot sign. See [`crate::keygen`] for what to persist when.
#[cfg_attr(feature = "fuzzing", derive(Clone))]
pub struct PendingRefresh {
    share: KeyShare,
    roster: Vec<VerifyingKey>,
    /// Parties restored from an escrowed share in this refresh: their slot of `roster` is
    /// their roster key, not the current epoch's identity key (which they lost).
    restored: Vec<PartyId>,
}

impl core::fmt::Debug for PendingRefresh {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PendingRefresh")
            .field("share", &self.share)
            .finish_non_exhaustive()
    }
}

impl PendingRefresh {
    pub(crate) fn new(share: KeyShare, roster: Vec<VerifyingKey>, restored: Vec<PartyId>) -> Self {
        PendingRefresh {
            share,
            roster,
            restored,
        }
    }

    /// The identity keys that signed this refresh (`[k]` is party `k + 1`'s): the current
    /// epoch's, except that a restored party signed with its roster key. The certificate and
    /// any evidence from the run are checked against them.
    pub fn signers(&self) -> &[VerifyingKey] {
        &self.roster
    }

    /// The parties restored from an escrowed share in this refresh (usually none).
    pub fn restored(&self) -> &[PartyId] {
        &self.restored
    }

    /// The epoch the refresh produces.
    pub fn epoch(&self) -> u64 {
        self.share.epoch
    }

    /// The key id.
    pub fn key_id(&self) -> [u8; 32] {
        self.share.key_id
    }

    /// The new transcript hash, which the epoch certificate must sign.
    pub fn transcript(&self) -> [u8; 32] {
        self.share.transcript
    }

    /// Every party's identity key in the new epoch (announced in the refresh).
    pub fn next_identity_keys(&self) -> &[VerifyingKey] {
        &self.share.identities
    }

    /// Makes the new epoch current: checks that `current` is the share this refresh started
    /// from and that `certificate` carries every party's acknowledgement (by the identity
    /// keys of `current`'s epoch) of this pending share's key id, epoch and transcript, then
    /// replaces `current` by the new share. The old value is dropped, which wipes its
    /// secret share, identity key and (once no clone holds them) its OT seeds. On error
    /// `current` is unchanged and this pending share stays usable for a valid certificate.
    pub fn commit(&self, current: &mut KeyShare, certificate: &EpochCertificate) -> Result<()> {
        let new = &self.share;
        if current.key_id != new.key_id
            || current.id != new.id
            || current.public_key != new.public_key
            || current.epoch.checked_add(1) != Some(new.epoch)
            || !self.same_roster(&current.identities)
        {
            return Err(EcdsaError::ProofRejected(
                "pending share is not a refresh of this share",
            ));
        }
        certificate.verify(&self.roster, &new.key_id, new.epoch, &new.transcript)?;
        *current = new.clone();
        Ok(())
    }

    /// `current` (the identity keys of the share being refreshed) equals the run's roster
    /// except in the slots of restored parties.
    fn same_roster(&self, current: &[VerifyingKey]) -> bool {
        current.len() == self.roster.len()
            && PartyId::range(current.len() as u16)
                .zip(current.iter().zip(&self.roster))
                .all(|(k, (a, b))| a == b || self.restored.contains(&k))
    }

    /// Drops the pending share (its secrets are wiped); the current share stays current.
    /// Only safe when no certificate can exist (see [`crate::keygen`]).
    pub fn abandon(self) {}

    /// Versioned encoding (contains the new secret share: keep it encrypted at rest).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let share = self.share.to_bytes();
        let mut w = Writer::new();
        let version = if self.restored.is_empty() {
            PENDING_VERSION
        } else {
            PENDING_VERSION_RESTORED
        };
        w.header(PENDING_TAG, version)
            .u32(share.len() as u32)
            .bytes(&share);
        for vk in &self.roster {
            w.bytes(vk.as_bytes());
        }
        if !self.restored.is_empty() {
            w.u16(self.restored.len() as u16);
            for j in &self.restored {
                w.party(*j);
            }
        }
        Zeroizing::new(w.into_bytes())
    }

    /// Decodes and checks [`PendingRefresh::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new("pending refresh", bytes);
        let inner = (|| -> core::result::Result<(u8, &[u8], Reader<'_>), DecodeError> {
            let [tag, version] = r.array::<2>()?;
            if tag != PENDING_TAG
                || (version != PENDING_VERSION && version != PENDING_VERSION_RESTORED)
            {
                return Err(DecodeError::UnknownVersion {
                    what: "pending refresh",
                    found: if tag != PENDING_TAG { tag } else { version },
                });
            }
            let len = r.u32()? as usize;
            let share = r.take(len)?;
            Ok((version, share, r))
        })();
        let (version, share_bytes, mut r) = inner.map_err(EcdsaError::InvalidShare)?;
        let share = KeyShare::from_bytes(share_bytes)?;
        let mut roster = Vec::with_capacity(usize::from(share.params.n()));
        for _ in share.params.parties() {
            roster.push(read_identity(&mut r).map_err(EcdsaError::InvalidShare)?);
        }
        let mut restored = Vec::new();
        if version == PENDING_VERSION_RESTORED {
            let bad = |reason| {
                EcdsaError::InvalidShare(DecodeError::InvalidValue {
                    what: "pending refresh",
                    reason,
                })
            };
            let count = r.u16().map_err(EcdsaError::InvalidShare)?;
            if count == 0 || count >= share.params.n() {
                return Err(bad("restored party count"));
            }
            for _ in 0..count {
                let j = r.party().map_err(EcdsaError::InvalidShare)?;
                if !share.params.contains(j) || restored.last().is_some_and(|p| *p >= j) {
                    return Err(bad(
                        "restored parties must be known and in increasing order",
                    ));
                }
                restored.push(j);
            }
        }
        r.finish().map_err(EcdsaError::InvalidShare)?;
        Ok(PendingRefresh {
            share,
            roster,
            restored,
        })
    }
}
