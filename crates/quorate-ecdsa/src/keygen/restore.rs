//! Restoring a lost holder from its escrowed secret share `x_j` (issue 16 §2).
//!
//! An escrow backup holds only `x_j`. A [`KeyShare`] also holds the pairwise OT seeds with
//! every other holder and this epoch's identity signing key, neither of which is backed
//! up, so a restored `x_j` cannot sign. It can take part in a **refresh**, which runs fresh
//! base OTs with every pair and rotates every identity key:
//!
//! 1. Any holder exports the epoch's public data, [`EpochPublic`]
//!    ([`KeyShare::epoch_public`]).
//! 2. The restored party builds a [`RestoredShare`] from it, its recovered `x_j` and its
//!    roster identity key (the node's long-term key, which it kept): the import checks
//!    `x_j·G = T_j` ([`EcdsaError::RestoredShareMismatch`] otherwise) and that the public
//!    shares lie on one polynomial of degree `t − 1` through the public key.
//! 3. All holders refresh: the restored party with [`restore_round1`], every other holder
//!    with [`refresh_round1_restoring`] naming the restored party and its roster key; then
//!    the usual [`super::round2`], [`super::round3`], [`super::round4`], [`super::certify`].
//! 4. The others commit with [`PendingRefresh::commit`]; the restored party with
//!    [`PendingRefresh::commit_restored`], which returns a complete share of the new epoch.
//!
//! **Who may be the restored party.** The roster key alone is not enough: whoever held a
//! node's roster key and had a cooperating coordinator could otherwise take that node's
//! slot while the honest holder is locked out (review finding F1, session 11). The
//! restored party's committed round-1 opening carries a Schnorr proof of knowledge of its
//! old share `x_j` for the public share `T_j` of the epoch being refreshed (merlin
//! transcript `quorate/ecdsa/dlog-pok` v1 over `setup_sid`, which hashes the key id, the
//! new epoch and the session id, the label `restored holder share`, the prover's party id
//! and `T_j`); every other holder checks it in [`super::round3`] and names the restored
//! party if it is missing or does not verify. A non-restored party's opening must carry no
//! proof. The escrow backup is what gives an honest restored party `x_j`.
//!
//! **Who signs for the restored party.** Its epoch identity key was lost with its disk, so
//! in this refresh its broadcasts and acknowledgement are signed with its roster key (as in
//! key generation), which the other holders substitute for its lost epoch key in the run's
//! roster. Evidence from this run (equivocation, the certificate) is checked against that
//! substituted roster ([`PendingRefresh::signers`]).
//!
//! **Authenticity of the public data.** The restored party cannot check [`EpochPublic`]
//! against the epoch certificate alone (the transcript hash covers broadcast digests it
//! does not have). It does not need to: the refresh's transcript hash covers the public key,
//! every new public share (old `T_k` plus the refresh's deltas), the chain code and the
//! identity keys, and a share is certified only if all holders acknowledge the same hash; a
//! restored party fed wrong public data fails the agreement step and commits nothing.

use super::pending::PendingRefresh;
use super::round1::{start_refresh, DkgFault, DkgRound1};
use super::DkgMsg1;
use crate::curve::{base_mul, point_bytes, read_point, read_scalar, scalar_bytes, write_point};
use crate::error::{EcdsaError, Result};
use crate::evidence::read_identity;
use crate::keyshare::{KeyShare, PairStore};
use ed25519_dalek::{SigningKey, VerifyingKey};
use k256::elliptic_curve::group::Group;
use k256::{ProjectivePoint, Scalar};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::transcript::SessionId;
use quorate_core::{DecodeError, ParamError, PartyId, ThresholdParams};
use rand_core::CryptoRngCore;
use std::collections::BTreeMap;
use std::sync::Arc;
use zeroize::Zeroizing;

const PUBLIC_TAG: u8 = 0xEA;
const PUBLIC_VERSION: u8 = 1;
const RESTORED_TAG: u8 = 0xEB;
const RESTORED_VERSION: u8 = 1;

/// The public data of one epoch of a key, as every holder has it: parameters, key id,
/// epoch, public key, every public share `T_k`, chain code, transcript hash and every
/// party's identity verifying key for the epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpochPublic {
    params: ThresholdParams,
    key_id: [u8; 32],
    epoch: u64,
    public_key: ProjectivePoint,
    public_shares: Vec<ProjectivePoint>,
    chain_code: [u8; 32],
    transcript: [u8; 32],
    identities: Vec<VerifyingKey>,
}

impl KeyShare {
    /// The public data of this share's epoch (for restoring a lost holder, see
    /// [`crate::keygen::restore`]).
    pub fn epoch_public(&self) -> EpochPublic {
        EpochPublic {
            params: self.params,
            key_id: self.key_id,
            epoch: self.epoch,
            public_key: self.public_key,
            public_shares: self.public_shares.clone(),
            chain_code: self.chain_code,
            transcript: self.transcript,
            identities: self.identities.clone(),
        }
    }
}

impl EpochPublic {
    /// The key id.
    pub fn key_id(&self) -> [u8; 32] {
        self.key_id
    }

    /// The epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The `(t, n)` parameters.
    pub fn params(&self) -> ThresholdParams {
        self.params
    }

    /// The group public key, 33-byte compressed SEC1.
    pub fn public_key_bytes(&self) -> [u8; 33] {
        point_bytes(&self.public_key)
    }

    /// The agreed setup transcript hash of the DKG or refresh that produced the epoch
    /// ([`KeyShare::setup_transcript`]; the node's epoch certificate signs it).
    pub fn setup_transcript(&self) -> [u8; 32] {
        self.transcript
    }

    /// Party `j`'s public share `T_j`, 33-byte compressed SEC1.
    pub fn public_share_bytes(&self, j: PartyId) -> Option<[u8; 33]> {
        self.public_shares.get(j.position()).map(point_bytes)
    }

    /// Versioned encoding (public).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(PUBLIC_TAG, PUBLIC_VERSION)
            .u16(self.params.t())
            .u16(self.params.n())
            .bytes(&self.key_id)
            .u64(self.epoch);
        write_point(&mut w, &self.public_key);
        for t in &self.public_shares {
            write_point(&mut w, t);
        }
        w.bytes(&self.chain_code).bytes(&self.transcript);
        for vk in &self.identities {
            w.bytes(vk.as_bytes());
        }
        w.into_bytes()
    }

    /// Decodes [`EpochPublic::to_bytes`] and checks it: valid points, the public shares on
    /// one polynomial of degree `t − 1` whose value at zero is the public key, valid and
    /// distinct identity keys.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::decode(bytes).map_err(EcdsaError::InvalidShare)
    }

    fn decode(bytes: &[u8]) -> core::result::Result<Self, DecodeError> {
        let mut r = Reader::new("epoch public data", bytes);
        r.header(PUBLIC_TAG, PUBLIC_VERSION)?;
        let (t, n) = (r.u16()?, r.u16()?);
        let params = ThresholdParams::new(t, n).map_err(|_| invalid("threshold parameters"))?;
        let key_id = r.array()?;
        let epoch = r.u64()?;
        let public_key = read_point(&mut r, "public key")?;
        let mut public_shares = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            public_shares.push(read_point(&mut r, "public share")?);
        }
        let chain_code = r.array()?;
        let transcript = r.array()?;
        let mut identities = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            identities.push(read_identity(&mut r)?);
        }
        r.finish()?;
        let public = EpochPublic {
            params,
            key_id,
            epoch,
            public_key,
            public_shares,
            chain_code,
            transcript,
            identities,
        };
        public.check()?;
        Ok(public)
    }

    /// The public shares lie on one polynomial of degree `t − 1` through the public key
    /// (the first `t` interpolate every other one and the key), and the identity keys are
    /// valid and distinct.
    fn check(&self) -> core::result::Result<(), DecodeError> {
        let t = usize::from(self.params.t());
        let xs: Vec<Scalar> = (1..=self.params.t())
            .map(|i| Scalar::from(u64::from(i)))
            .collect();
        let at = |x: &Scalar| -> core::result::Result<ProjectivePoint, DecodeError> {
            let lambdas = quorate_core::lagrange::coefficients_at(&xs, x)
                .map_err(|_| invalid("Lagrange coefficients"))?;
            Ok(self.public_shares[..t]
                .iter()
                .zip(&lambdas)
                .fold(ProjectivePoint::IDENTITY, |acc, (p, l)| acc + *p * l))
        };
        if bool::from(self.public_key.is_identity()) || at(&Scalar::ZERO)? != self.public_key {
            return Err(invalid(
                "public shares do not interpolate to the public key",
            ));
        }
        for (k, t_k) in self.public_shares.iter().enumerate().skip(t) {
            if at(&Scalar::from(k as u64 + 1))? != *t_k {
                return Err(invalid(
                    "public shares are not on one polynomial of degree t - 1",
                ));
            }
        }
        for (k, vk) in self.identities.iter().enumerate() {
            if vk.is_weak() || self.identities[..k].contains(vk) {
                return Err(invalid("identity keys must be valid and distinct"));
            }
        }
        Ok(())
    }
}

fn invalid(reason: &'static str) -> DecodeError {
    DecodeError::InvalidValue {
        what: "epoch public data",
        reason,
    }
}

/// A holder's share rebuilt from its escrowed `x_j` and the epoch's public data. It
/// **cannot sign** (it has no pairwise OT state); it can only take part in a refresh
/// ([`restore_round1`]), whose commit ([`PendingRefresh::commit_restored`]) yields a full
/// share of the next epoch. Secrets wiped on drop; `Debug` redacted.
#[derive(Debug)]
pub struct RestoredShare {
    /// The share with the restored secret, the roster key in place of the lost epoch
    /// identity key, and no OT state.
    share: KeyShare,
}

impl RestoredShare {
    /// Rebuilds party `me`'s share of `public`'s epoch from its secret share `secret`
    /// (32 bytes big-endian, as [`KeyShare::expose_secret_share`] and the escrow give it),
    /// with `roster_identity`, the party's roster identity key (the node's long-term key),
    /// to sign the refresh with. Fails with [`EcdsaError::RestoredShareMismatch`] unless
    /// `secret·G = T_me`.
    pub fn new(
        public: &EpochPublic,
        me: PartyId,
        secret: &[u8; 32],
        roster_identity: SigningKey,
    ) -> Result<Self> {
        if !public.params.contains(me) {
            return Err(ParamError::UnknownParty {
                id: me,
                n: public.params.n(),
            }
            .into());
        }
        let x = {
            let mut r = Reader::new("restored secret share", secret);
            Zeroizing::new(
                read_scalar(&mut r, "restored secret share").map_err(EcdsaError::InvalidShare)?,
            )
        };
        if public.public_shares.get(me.position()) != Some(&base_mul(&x)) {
            return Err(EcdsaError::RestoredShareMismatch { party: me });
        }
        let mut identities = public.identities.clone();
        let roster_vk = roster_identity.verifying_key();
        identities[me.position()] = roster_vk;
        check_roster(&identities)?;
        let share = KeyShare {
            params: public.params,
            id: me,
            key_id: public.key_id,
            epoch: public.epoch,
            secret: *x,
            public_key: public.public_key,
            public_shares: public.public_shares.clone(),
            chain_code: public.chain_code,
            transcript: public.transcript,
            pairs: Arc::new(PairStore::new(BTreeMap::new())),
            identity: roster_identity,
            identities,
        };
        Ok(RestoredShare { share })
    }

    /// This party.
    pub fn id(&self) -> PartyId {
        self.share.id
    }

    /// The key id.
    pub fn key_id(&self) -> [u8; 32] {
        self.share.key_id
    }

    /// The restored epoch (the refresh produces the next one).
    pub fn epoch(&self) -> u64 {
        self.share.epoch
    }

    /// The `(t, n)` parameters.
    pub fn params(&self) -> ThresholdParams {
        self.share.params
    }

    /// The group public key, 33-byte compressed SEC1.
    pub fn public_key_bytes(&self) -> [u8; 33] {
        self.share.public_key_bytes()
    }

    /// Versioned encoding: the secret share, the roster identity key and the epoch's public
    /// data. Contains secrets: keep it encrypted at rest.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let s = &self.share;
        let mut public = s.epoch_public();
        // The epoch keys as published: the lost key is not known, so the restored party's
        // slot carries its roster key (substituted again on decoding).
        public.identities = s.identities.clone();
        let public = public.to_bytes();
        let mut w = Writer::new();
        w.header(RESTORED_TAG, RESTORED_VERSION)
            .party(s.id)
            .u32(public.len() as u32)
            .bytes(&public);
        let mut x = Zeroizing::new(scalar_bytes(&s.secret));
        w.bytes(&x[..]);
        let mut id = Zeroizing::new(s.identity.to_bytes());
        w.bytes(&id[..]);
        zeroize::Zeroize::zeroize(&mut *x);
        zeroize::Zeroize::zeroize(&mut *id);
        Zeroizing::new(w.into_bytes())
    }

    /// Decodes [`RestoredShare::to_bytes`] with every check of [`RestoredShare::new`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new("restored share", bytes);
        let parsed = (|| -> core::result::Result<_, DecodeError> {
            r.header(RESTORED_TAG, RESTORED_VERSION)?;
            let me = r.party()?;
            let len = r.u32()? as usize;
            let public = r.take(len)?;
            let x = Zeroizing::new(r.array::<32>()?);
            let id = Zeroizing::new(r.array::<32>()?);
            Ok((me, public, x, id))
        })();
        let (me, public, x, id) = parsed.map_err(EcdsaError::InvalidShare)?;
        r.finish().map_err(EcdsaError::InvalidShare)?;
        let public = EpochPublic::from_bytes(public)?;
        Self::new(&public, me, &x, SigningKey::from_bytes(&id))
    }

    pub(crate) fn share(&self) -> &KeyShare {
        &self.share
    }
}

/// One valid, distinct key per party.
fn check_roster(roster: &[VerifyingKey]) -> Result<()> {
    for (k, vk) in roster.iter().enumerate() {
        if vk.is_weak() || roster[..k].contains(vk) {
            return Err(
                ParamError::Invalid("identity roster keys must be valid and distinct").into(),
            );
        }
    }
    Ok(())
}

/// The restored party's first refresh round: like [`super::refresh_round1`], signed with
/// its roster identity key, announcing `next_identity` (a fresh key) for the new epoch, and
/// with a Schnorr proof of knowledge of its old share `x_j` for `T_j` in its committed
/// opening (checked by every other holder in [`super::round3`]).
pub fn restore_round1(
    restored: &RestoredShare,
    session: &SessionId,
    next_identity: SigningKey,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    restore_round1_with(restored, session, next_identity, DkgFault::None, rng)
}

/// Fault-injection variant of [`restore_round1`] (feature `test-faults`):
/// [`DkgFault::RestoreNoProof`] or [`DkgFault::RestoreWrongSecret`].
#[cfg(any(test, feature = "test-faults"))]
pub fn restore_round1_faulty(
    restored: &RestoredShare,
    session: &SessionId,
    next_identity: SigningKey,
    fault: DkgFault,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    restore_round1_with(restored, session, next_identity, fault, rng)
}

fn restore_round1_with(
    restored: &RestoredShare,
    session: &SessionId,
    next_identity: SigningKey,
    fault: DkgFault,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    let share = &restored.share;
    start_refresh(
        share,
        share.identities.clone(),
        vec![share.id],
        session,
        next_identity,
        fault,
        rng,
    )
}

/// Another holder's first round of a refresh in which the parties of `restored` take part
/// from a [`RestoredShare`]: like [`super::refresh_round1`], except that each restored
/// party's broadcasts are checked against its roster key (given here, from the node
/// roster) instead of its lost epoch identity key.
pub fn refresh_round1_restoring(
    share: &KeyShare,
    session: &SessionId,
    next_identity: SigningKey,
    restored: &[(PartyId, VerifyingKey)],
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    let mut roster = share.identities.clone();
    let mut parties = Vec::with_capacity(restored.len());
    for (j, vk) in restored {
        if *j == share.id || !share.params.contains(*j) || parties.contains(j) {
            return Err(ParamError::Invalid(
                "restored parties must be distinct other holders of the key",
            )
            .into());
        }
        roster[j.position()] = *vk;
        parties.push(*j);
    }
    check_roster(&roster)?;
    parties.sort();
    start_refresh(
        share,
        roster,
        parties,
        session,
        next_identity,
        DkgFault::None,
        rng,
    )
}

impl PendingRefresh {
    /// The restored party's commit: checks, as [`PendingRefresh::commit`] does, that this
    /// pending share is a refresh of `restored` and that `certificate` carries every
    /// party's acknowledgement, then returns the complete share of the new epoch.
    pub fn commit_restored(
        &self,
        restored: &RestoredShare,
        certificate: &super::EpochCertificate,
    ) -> Result<KeyShare> {
        if self.restored() != [restored.share.id] {
            return Err(EcdsaError::ProofRejected(
                "pending share is not a refresh of this restored share",
            ));
        }
        let mut current = restored.share().clone();
        self.commit(&mut current, certificate)?;
        Ok(current)
    }
}
