//! Shape and order checks of the stages the servers publish one after another (one per
//! server, in party order or reversed), shared by every step's verification and by the
//! reverse-membership protocol, and the blame helper for per-server checks.

use crate::error::{blame, MixnetError};
use crate::setup::MixnetPublic;
use quorate_core::{Blame, ParamError, PartyId};

/// `stages` as `(server, stage)` pairs after checking there is one per server, in party
/// order (`reverse`: from the last server to the first); a stage out of place names its
/// server.
pub(crate) fn check_order<'a, T>(
    public: &MixnetPublic,
    stages: &'a [T],
    id: impl Fn(&T) -> PartyId,
    reverse: bool,
    what: &'static str,
) -> Result<Vec<(PartyId, &'a T)>, MixnetError> {
    let m = usize::from(public.params.n());
    if stages.len() != m {
        return Err(ParamError::LengthMismatch {
            what,
            expected: m,
            got: stages.len(),
        }
        .into());
    }
    let mut order: Vec<PartyId> = public.params.parties().collect();
    if reverse {
        order.reverse();
    }
    order
        .into_iter()
        .zip(stages)
        .map(|(k, st)| {
            if id(st) == k {
                Ok((k, st))
            } else {
                Err(blame(id(st), "stage out of order"))
            }
        })
        .collect()
}

pub(super) fn blamed(culprits: Vec<PartyId>, check: &'static str) -> Result<(), MixnetError> {
    if culprits.is_empty() {
        Ok(())
    } else {
        Err(MixnetError::Aborted(Blame::many(culprits, check)))
    }
}
