//! The agreement step of key generation and refresh, and its two transferable artefacts.
//!
//! **Signed broadcasts.** Every party signs its broadcast values with its identity key: the
//! round-2 message carries an Ed25519 signature over the *broadcast statement*
//! `(tag, setup sid, sender, d)`, where the digest `d` hashes the round-1 commitment, the
//! announced next identity key and the round-2 opening (Feldman vector, proof, chain-code
//! contribution, salt). The setup sid binds the key id, the epoch and the session, and the
//! tag binds the protocol and its version.
//!
//! **Agreement.** After computing its share, every party broadcasts a [`DkgMsg4`]: the
//! signed digest it received from every party (an echo) and its *acknowledgement*, a
//! signature over the transcript hash of all digests, the public key, every public share
//! `T_j`, the chain code and the next identity keys. A party outputs its share only when
//! every acknowledgement signs the transcript hash it computed itself. A digest that differs
//! from one's own and carries the sender's valid signature is an equivocation: the two
//! signed statements are [`EquivocationEvidence`], checkable by anyone with the roster of
//! identity keys. The `n` acknowledgements together are the [`EpochCertificate`].

use super::messages::DkgMsg4;
use super::setup::TAG_SETUP;
use crate::curve::tagged_hash;
use crate::error::{EcdsaError, Result};
use crate::evidence::{EquivocationEvidence, SignedDigest};
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{Blame, DecodeError, PartyId};
use std::collections::BTreeMap;

const TAG_DIGEST: &[u8] = b"quorate/ecdsa/dkg-broadcast-digest/v1";
const TAG_STATEMENT: &[u8] = b"quorate/ecdsa/dkg-broadcast-signature/v1";
const TAG_ACK: &[u8] = b"quorate/ecdsa/dkg-acknowledgement/v1";
const CERT_TAG: u8 = 0xEC;
const VERSION: u8 = 1;

/// The check named when an echo carries a broadcast signature that does not verify.
pub const CHECK_ECHO: &str = "DKG agreement: echoed broadcast signature";
/// The check named when an acknowledgement does not sign the agreed transcript.
pub const CHECK_ACK: &str = "DKG agreement: acknowledgement";
pub use crate::evidence::CHECK_EQUIVOCATION;

/// The digest of party `from`'s broadcast values: its round-1 commitment and announced
/// identity key, and its round-2 opening (encoded).
pub(crate) fn broadcast_digest(
    setup_sid: &[u8; 32],
    from: PartyId,
    commitment: &[u8; 32],
    next_identity: &VerifyingKey,
    opening: &[u8],
) -> [u8; 32] {
    tagged_hash(
        TAG_DIGEST,
        &[
            setup_sid,
            &from.to_bytes(),
            commitment,
            next_identity.as_bytes(),
            opening,
        ],
    )
}

fn statement(setup_sid: &[u8; 32], from: PartyId, digest: &[u8; 32]) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(TAG_STATEMENT)
        .bytes(setup_sid)
        .party(from)
        .bytes(digest);
    w.into_bytes()
}

pub(crate) fn sign_digest(
    key: &SigningKey,
    setup_sid: &[u8; 32],
    from: PartyId,
    digest: [u8; 32],
) -> SignedDigest {
    SignedDigest {
        digest,
        signature: key.sign(&statement(setup_sid, from, &digest)),
    }
}

pub(crate) fn digest_signed_by(
    vk: &VerifyingKey,
    setup_sid: &[u8; 32],
    from: PartyId,
    d: &SignedDigest,
) -> bool {
    vk.verify_strict(&statement(setup_sid, from, &d.digest), &d.signature)
        .is_ok()
}

/// What an acknowledgement (and an epoch certificate) signs: the key id, the epoch of the
/// new share, its transcript hash and the signer.
fn ack_statement(key_id: &[u8; 32], epoch: u64, transcript: &[u8; 32], signer: PartyId) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(TAG_ACK)
        .bytes(key_id)
        .u64(epoch)
        .bytes(transcript)
        .party(signer);
    w.into_bytes()
}

pub(crate) fn sign_ack(
    key: &SigningKey,
    key_id: &[u8; 32],
    epoch: u64,
    transcript: &[u8; 32],
    signer: PartyId,
) -> Signature {
    key.sign(&ack_statement(key_id, epoch, transcript, signer))
}

fn ack_valid(
    vk: &VerifyingKey,
    key_id: &[u8; 32],
    epoch: u64,
    transcript: &[u8; 32],
    signer: PartyId,
    sig: &Signature,
) -> bool {
    vk.verify_strict(&ack_statement(key_id, epoch, transcript, signer), sig)
        .is_ok()
}

fn setup_sid(key_id: &[u8; 32], epoch: u64, session: &[u8]) -> [u8; 32] {
    tagged_hash(TAG_SETUP, &[key_id, &epoch.to_be_bytes(), session])
}

impl EquivocationEvidence {
    /// Checks the evidence against `roster`, the identity keys that signed the run's
    /// broadcasts (`roster[k]` is party `k + 1`'s): the keygen roster for epoch 0, and for
    /// a refresh to epoch `e + 1` the identity keys of epoch `e`
    /// ([`crate::KeyShare::identity_keys`] of the refreshed share). Returns the culprit, or
    /// [`EcdsaError::ProofRejected`] if the evidence does not prove an equivocation.
    pub fn verify(&self, roster: &[VerifyingKey]) -> Result<PartyId> {
        let vk = roster
            .get(self.culprit.position())
            .ok_or(EcdsaError::ProofRejected(
                "evidence names a party outside the roster",
            ))?;
        if self.first.digest == self.second.digest {
            return Err(EcdsaError::ProofRejected("evidence digests are equal"));
        }
        let sid = setup_sid(&self.key_id, self.epoch, &self.session);
        if !digest_signed_by(vk, &sid, self.culprit, &self.first)
            || !digest_signed_by(vk, &sid, self.culprit, &self.second)
        {
            return Err(EcdsaError::ProofRejected(
                "evidence signature does not verify under the roster",
            ));
        }
        Ok(self.culprit)
    }

    /// Test hook (feature `test-faults`): evidence built from two digests signed with `key`,
    /// as a framing attempt would build it.
    #[cfg(any(test, feature = "test-faults"))]
    pub fn forge_for_test(
        key_id: [u8; 32],
        epoch: u64,
        session: &[u8],
        culprit: PartyId,
        key: &SigningKey,
    ) -> Self {
        let sid = setup_sid(&key_id, epoch, session);
        EquivocationEvidence {
            key_id,
            epoch,
            session: session.to_vec(),
            culprit,
            first: sign_digest(key, &sid, culprit, [1; 32]),
            second: sign_digest(key, &sid, culprit, [2; 32]),
        }
    }

    /// Test hook (feature `test-faults`): replaces the second signature by the first (a
    /// tampered piece of evidence).
    #[cfg(any(test, feature = "test-faults"))]
    pub fn tamper_for_test(&mut self) {
        self.second.signature = self.first.signature;
    }
}

/// Every party's acknowledgement of a new share: `n` identity signatures (by the keys that
/// ran the protocol) over the key id, the new epoch and the new transcript hash, which binds
/// every broadcast, the public shares and the next identity keys. It makes a refreshed
/// epoch current ([`super::PendingRefresh::commit`]); it is public and transferable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpochCertificate {
    key_id: [u8; 32],
    epoch: u64,
    transcript: [u8; 32],
    signatures: Vec<Signature>,
}

impl EpochCertificate {
    /// The epoch it certifies.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The transcript hash it certifies.
    pub fn transcript(&self) -> [u8; 32] {
        self.transcript
    }

    /// Checks that every party of `roster` signed `(key_id, epoch, transcript)`.
    pub fn verify(
        &self,
        roster: &[VerifyingKey],
        key_id: &[u8; 32],
        epoch: u64,
        transcript: &[u8; 32],
    ) -> Result<()> {
        if &self.key_id != key_id || self.epoch != epoch || &self.transcript != transcript {
            return Err(EcdsaError::ProofRejected(
                "certificate is for another key, epoch or transcript",
            ));
        }
        if self.signatures.len() != roster.len() {
            return Err(EcdsaError::ProofRejected(
                "certificate does not carry one signature per party",
            ));
        }
        for (signer, (vk, sig)) in
            PartyId::range(roster.len() as u16).zip(roster.iter().zip(&self.signatures))
        {
            if !ack_valid(vk, key_id, epoch, transcript, signer, sig) {
                return Err(EcdsaError::ProofRejected(
                    "certificate signature does not verify",
                ));
            }
        }
        Ok(())
    }

    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(CERT_TAG, VERSION)
            .bytes(&self.key_id)
            .u64(self.epoch)
            .bytes(&self.transcript)
            .u16(self.signatures.len() as u16);
        for s in &self.signatures {
            w.bytes(&s.to_bytes());
        }
        w.into_bytes()
    }

    /// Decodes [`EpochCertificate::to_bytes`] (it still has to be verified).
    pub fn from_bytes(bytes: &[u8]) -> core::result::Result<Self, DecodeError> {
        let mut r = Reader::new("epoch certificate", bytes);
        r.header(CERT_TAG, VERSION)?;
        let key_id = r.array()?;
        let epoch = r.u64()?;
        let transcript = r.array()?;
        let len = r.len_prefix(r.remaining() / 64)?;
        let mut signatures = Vec::with_capacity(len);
        for _ in 0..len {
            signatures.push(Signature::from_bytes(&r.array()?));
        }
        r.finish()?;
        Ok(EpochCertificate {
            key_id,
            epoch,
            transcript,
            signatures,
        })
    }

    /// Test hook (feature `test-faults`): drops the last signature (an incomplete
    /// certificate).
    #[cfg(any(test, feature = "test-faults"))]
    pub fn truncate_for_test(&mut self) {
        self.signatures.pop();
    }

    /// Test hook (feature `test-faults`): replaces party `j`'s signature by one made with
    /// `key` (a forged acknowledgement).
    #[cfg(any(test, feature = "test-faults"))]
    pub fn forge_for_test(&mut self, j: PartyId, key: &SigningKey) {
        if let Some(s) = self.signatures.get_mut(j.position()) {
            *s = sign_ack(key, &self.key_id, self.epoch, &self.transcript, j);
        }
    }
}

/// What the agreement check needs from the run.
pub(crate) struct Agreement<'a> {
    pub(crate) me: PartyId,
    pub(crate) key_id: [u8; 32],
    pub(crate) epoch: u64,
    pub(crate) session: &'a [u8],
    pub(crate) setup_sid: [u8; 32],
    pub(crate) transcript: [u8; 32],
    /// The keys that signed the run (`roster[k]` is party `k + 1`'s).
    pub(crate) roster: &'a [VerifyingKey],
    /// The signed digests this party received (own included), in party order.
    pub(crate) digests: &'a [SignedDigest],
    /// This party's own acknowledgement.
    pub(crate) own_ack: Signature,
}

impl Agreement<'_> {
    /// Checks every party's echo and acknowledgement: first any equivocation (with
    /// evidence), then any echo or acknowledgement that does not verify (blaming its sender).
    /// On success returns the epoch certificate.
    pub(crate) fn check(&self, msgs: &[(PartyId, DkgMsg4)]) -> Result<EpochCertificate> {
        let n = self.roster.len();
        let mut map = BTreeMap::new();
        for (from, m) in msgs {
            if *from == self.me || from.position() >= n || map.insert(*from, m).is_some() {
                return Err(EcdsaError::MissingMessage { from: *from });
            }
        }
        for k in PartyId::range(n as u16) {
            if k != self.me && !map.contains_key(&k) {
                return Err(EcdsaError::MissingMessage { from: k });
            }
        }
        // 1. Equivocation: a different digest, validly signed by its sender.
        for m in map.values() {
            let senders = PartyId::range(n as u16).zip(self.roster);
            for ((j, vk), (theirs, mine)) in senders.zip(m.echo.iter().zip(self.digests)) {
                if theirs.digest != mine.digest && digest_signed_by(vk, &self.setup_sid, j, theirs)
                {
                    return Err(EcdsaError::Equivocated(Box::new(EquivocationEvidence {
                        key_id: self.key_id,
                        epoch: self.epoch,
                        session: self.session.to_vec(),
                        culprit: j,
                        first: *mine,
                        second: *theirs,
                    })));
                }
            }
        }
        // 2. Echoes that do not verify, and acknowledgements of another transcript.
        let mut signatures = Vec::with_capacity(n);
        for (k, vk) in PartyId::range(n as u16).zip(self.roster) {
            if k == self.me {
                signatures.push(self.own_ack);
                continue;
            }
            let m = map.get(&k).ok_or(EcdsaError::MissingMessage { from: k })?;
            if m.echo.len() != n || m.echo.iter().zip(self.digests).any(|(a, b)| a != b) {
                return Err(EcdsaError::Aborted(Blame::one(k, CHECK_ECHO)));
            }
            if !ack_valid(vk, &self.key_id, self.epoch, &self.transcript, k, &m.ack) {
                return Err(EcdsaError::Aborted(Blame::one(k, CHECK_ACK)));
            }
            signatures.push(m.ack);
        }
        Ok(EpochCertificate {
            key_id: self.key_id,
            epoch: self.epoch,
            transcript: self.transcript,
            signatures,
        })
    }
}
