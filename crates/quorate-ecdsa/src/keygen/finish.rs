//! Key-generation finish: check the bootstrap extension of every higher-index party
//! (naming it on failure) and output the share with all pairwise OT seeds.

use super::messages::DkgMsg3;
use super::round3::DkgRound3;
use super::setup::TAG_BOOT;
use crate::error::{EcdsaError, Result};
use crate::keyshare::{pair_sid, KeyShare, PairSeeds, PairStore};
use crate::ot::ext::{self, OteReceiverSeeds, OteSenderSeeds};
use quorate_core::PartyId;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Finish: checks the bootstrap extension of every higher-index party (naming it on
/// failure) and outputs the share with all pairwise OT seeds.
pub fn finish(state: DkgRound3, msgs: &[(PartyId, DkgMsg3)]) -> Result<KeyShare> {
    let DkgRound3 {
        mut share,
        setup_sid,
        mut forward,
        mut ready,
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
    Ok(share)
}

fn forward_seeds(
    forward: &BTreeMap<PartyId, OteSenderSeeds>,
    j: PartyId,
) -> Result<&OteSenderSeeds> {
    forward
        .get(&j)
        .ok_or(EcdsaError::MissingMessage { from: j })
}
