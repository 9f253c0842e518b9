//! Key-generation round 4: check the bootstrap extension of every higher-index party
//! (naming it on failure), complete the share with all pairwise OT seeds, and open the
//! agreement step: echo every signed broadcast digest and acknowledge the transcript hash.

use super::agreement::{sign_ack, Agreement, EpochCertificate};
use super::messages::{DkgMsg3, DkgMsg4};
use super::pending::PendingRefresh;
use super::round3::{AgreeData, DkgRound3};
use super::setup::TAG_BOOT;
use crate::error::{EcdsaError, Result};
use crate::keyshare::{pair_sid, KeyShare, PairSeeds, PairStore};
use crate::ot::ext::{self, OteReceiverSeeds, OteSenderSeeds};
use ed25519_dalek::Signature;
use quorate_core::{ParamError, PartyId};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// State after round 4: the complete new share, not yet agreed.
#[cfg_attr(feature = "fuzzing", derive(Clone))]
pub struct DkgRound4 {
    share: KeyShare,
    setup_sid: [u8; 32],
    agree: AgreeData,
    own_ack: Signature,
    /// Refresh only: the pending share to persist before sending the round-4 message.
    pending: Option<PendingRefresh>,
}

impl core::fmt::Debug for DkgRound4 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DkgRound4")
            .field("me", &self.share.id)
            .finish_non_exhaustive()
    }
}

/// Round 4: checks the bootstrap extensions (naming the sender on failure), completes the
/// share and returns the agreement message, a broadcast to every other party. In a refresh,
/// persist [`DkgRound4::pending`] before sending it.
pub fn round4(state: DkgRound3, msgs: &[(PartyId, DkgMsg3)]) -> Result<(DkgRound4, DkgMsg4)> {
    let DkgRound3 {
        mut share,
        setup_sid,
        mut forward,
        mut ready,
        agree,
    } = state;
    let me = share.id;
    let mut map = BTreeMap::new();
    for (from, m) in msgs {
        if *from <= me || !share.params.contains(*from) || map.insert(*from, m).is_some() {
            return Err(EcdsaError::MissingMessage { from: *from });
        }
    }
    let mut jobs = Vec::with_capacity(forward.len());
    for j in forward.keys() {
        let m = map.get(j).ok_or(EcdsaError::MissingMessage { from: *j })?;
        jobs.push((*j, *m));
    }
    let done: Vec<Result<(PartyId, OteReceiverSeeds)>> = jobs
        .into_par_iter()
        .map(|(j, m)| {
            let sender = forward_seeds(&forward, j)?;
            let boot = pair_sid(TAG_BOOT, &setup_sid, j, me);
            Ok((j, ext::bootstrap_sender(sender, &boot, j, &m.ote)?))
        })
        .collect();
    for d in done {
        let (j, receiver) = d?;
        let sender = forward
            .remove(&j)
            .ok_or(EcdsaError::MissingMessage { from: j })?;
        ready.insert(j, PairSeeds { sender, receiver });
    }
    share.pairs = std::sync::Arc::new(PairStore::new(ready));
    let own_ack = sign_ack(
        &agree.signer,
        &share.key_id,
        share.epoch,
        &share.transcript,
        me,
    );
    let msg = DkgMsg4 {
        echo: agree.digests.clone(),
        ack: own_ack,
    };
    let pending = agree
        .refresh
        .then(|| PendingRefresh::new(share.clone(), agree.roster.clone(), agree.restored.clone()));
    Ok((
        DkgRound4 {
            share,
            setup_sid,
            agree,
            own_ack,
            pending,
        },
        msg,
    ))
}

impl DkgRound4 {
    /// Refresh only: the pending share. Persist it ([`PendingRefresh::to_bytes`]) before
    /// sending the round-4 message: once sent, a certificate may form without this party.
    pub fn pending(&self) -> Option<&PendingRefresh> {
        self.pending.as_ref()
    }

    /// This party's new secret share `x_i` (32 bytes big-endian, wiped on drop). It is
    /// final here: [`finish`] and [`certify`] only check the agreement, and the share they
    /// output (a refresh's after [`PendingRefresh::commit`]) carries this same `x_i`. For
    /// work on the new share that may overlap the agreement round, such as the verifiable
    /// escrow backup of the share (`quorate-verenc`), the only use outside this crate; the
    /// share still cannot sign before the agreement completes. Never log or store it in
    /// clear. Sans I/O: a read of the state.
    pub fn expose_new_secret_share(&self) -> zeroize::Zeroizing<[u8; 32]> {
        self.share.expose_secret_share()
    }

    /// Party `j`'s new public share `T_j = x_j·G` (compressed), as the output share will
    /// carry it ([`KeyShare::public_share_bytes`]).
    pub fn new_public_share_bytes(&self, j: PartyId) -> Option<[u8; 33]> {
        self.share.public_share_bytes(j)
    }

    fn agreement(&self) -> Agreement<'_> {
        Agreement {
            me: self.share.id,
            key_id: self.share.key_id,
            epoch: self.share.epoch,
            session: self.agree.session.as_bytes(),
            setup_sid: self.setup_sid,
            transcript: self.share.transcript,
            roster: &self.agree.roster,
            digests: &self.agree.digests,
            own_ack: self.own_ack,
        }
    }
}

/// Key generation's last step, the agreement check: outputs the share only when every
/// party acknowledged the transcript hash this party computed. An equivocating party is
/// named with [`EcdsaError::Equivocated`] (transferable evidence); an echo or
/// acknowledgement that does not verify names its sender. For a refresh use [`certify`].
pub fn finish(state: DkgRound4, msgs: &[(PartyId, DkgMsg4)]) -> Result<KeyShare> {
    if state.pending.is_some() {
        return Err(ParamError::Invalid(
            "a refresh ends with keygen::certify and PendingRefresh::commit",
        )
        .into());
    }
    state.agreement().check(msgs)?;
    Ok(state.share)
}

/// A refresh's last step, the agreement check of [`finish`]: returns the pending share and
/// the epoch certificate (every party's acknowledgement of the new transcript hash), which
/// commits the pending share ([`PendingRefresh::commit`]) at every party.
pub fn certify(
    state: DkgRound4,
    msgs: &[(PartyId, DkgMsg4)],
) -> Result<(PendingRefresh, EpochCertificate)> {
    if state.pending.is_none() {
        return Err(ParamError::Invalid("key generation ends with keygen::finish").into());
    }
    let cert = state.agreement().check(msgs)?;
    let pending = state.pending.ok_or(ParamError::Invalid(
        "key generation ends with keygen::finish",
    ))?;
    Ok((pending, cert))
}

fn forward_seeds(
    forward: &BTreeMap<PartyId, OteSenderSeeds>,
    j: PartyId,
) -> Result<&OteSenderSeeds> {
    forward
        .get(&j)
        .ok_or(EcdsaError::MissingMessage { from: j })
}
