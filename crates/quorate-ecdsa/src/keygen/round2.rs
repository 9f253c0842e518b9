//! Key-generation round 2: answer the base OTs of the pairs where this party is the lower
//! index, open the round-1 commitment and send every party its share `f_i(j)`.

use super::messages::{DkgMsg1, DkgMsg2};
use super::round1::DkgRound1;
use super::setup::{collect, per_party_rngs, Mode, TAG_PAIR};
use crate::error::{EcdsaError, Result};
use crate::keyshare::pair_sid;
use crate::ot::base::{self, BaseOtMsg2, BaseOtReceiverOutput};
use ed25519_dalek::VerifyingKey;
use k256::Scalar;
use quorate_core::PartyId;
use rand_core::CryptoRngCore;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// State after round 2.
#[cfg_attr(feature = "fuzzing", derive(Clone))]
pub struct DkgRound2 {
    pub(crate) r1: DkgRound1,
    pub(crate) commitments: BTreeMap<PartyId, [u8; 32]>,
    pub(crate) identities: BTreeMap<PartyId, VerifyingKey>,
    pub(crate) ot_receivers: BTreeMap<PartyId, BaseOtReceiverOutput>,
}

impl core::fmt::Debug for DkgRound2 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DkgRound2")
            .field("me", &self.r1.me)
            .finish_non_exhaustive()
    }
}

/// Round 2: answers the base OTs, reveals the commitment and sends the shares.
pub fn round2(
    state: DkgRound1,
    msgs: &[(PartyId, DkgMsg1)],
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound2, Vec<(PartyId, DkgMsg2)>)> {
    let map = collect(state.params, state.me, msgs)?;
    // Key generation keeps the roster keys; a refresh announces the next ones (bound by the
    // signed round-2 digest and agreed in round 4).
    if let Mode::Keygen = &state.mode {
        for (j, m) in &map {
            if state.roster.get(j.position()) != Some(&m.identity) {
                return Err(EcdsaError::blame(
                    *j,
                    "DKG: identity key (not its roster key)",
                ));
            }
        }
    }
    let me = state.me;
    let setup_sid = state.setup_sid;
    let ids: Vec<PartyId> = map.keys().copied().collect();
    let rngs = per_party_rngs(rng, &ids);
    // For j > me we are Alice towards j: base-OT receiver on j's message.
    type Answer = (PartyId, Option<(BaseOtReceiverOutput, BaseOtMsg2)>);
    let answers: Vec<Result<Answer>> = rngs
        .into_par_iter()
        .map(|(j, mut r)| {
            let m = map.get(&j).ok_or(EcdsaError::MissingMessage { from: j })?;
            match (&m.base_ot, j > me) {
                (Some(b), true) => {
                    let sid = pair_sid(TAG_PAIR, &setup_sid, me, j);
                    Ok((j, Some(base::receiver_round(sid, j, b, &mut r)?)))
                }
                (None, false) => Ok((j, None)),
                _ => Err(EcdsaError::blame(j, "DKG: base-OT message presence")),
            }
        })
        .collect();
    let mut ot_receivers = BTreeMap::new();
    let mut out = Vec::new();
    for a in answers {
        let (j, ans) = a?;
        let base_ot = match ans {
            Some((o, m2)) => {
                ot_receivers.insert(j, o);
                Some(m2)
            }
            None => None,
        };
        let share = state.poly.evaluate(&Scalar::from(u64::from(j.get())));
        out.push((
            j,
            DkgMsg2 {
                feldman: state.feldman.clone(),
                proof: state.proof,
                chain: state.chain,
                salt: state.salt,
                share,
                base_ot,
                signature: state.own_digest.signature,
            },
        ));
    }
    let commitments = map.iter().map(|(j, m)| (*j, m.commitment)).collect();
    let identities = map.iter().map(|(j, m)| (*j, m.identity)).collect();
    Ok((
        DkgRound2 {
            r1: state,
            commitments,
            identities,
            ot_receivers,
        },
        out,
    ))
}
