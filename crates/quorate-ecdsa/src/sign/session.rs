//! What the signing rounds share: session tags, the public session context used by the
//! blame and dispute rounds, message collection, and the per-counterparty settlement that
//! bans every counterparty whose OT-based check failed.

use super::messages::SignMsg3;
use crate::curve::{tagged_hash, POINT_LEN};
use crate::error::{EcdsaError, Result};
use crate::keyshare::KeyShare;
use ed25519_dalek::VerifyingKey as IdentityKey;
use k256::{AffinePoint, ProjectivePoint, Scalar};
use quorate_core::PartyId;
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRngCore, SeedableRng};
use std::collections::BTreeMap;
use zeroize::Zeroize;

pub(crate) const TAG_SIGN: &[u8] = b"quorate/ecdsa/dkls23-sign/v1";
pub(crate) const TAG_MUL: &[u8] = b"quorate/ecdsa/dkls23-mul/v1";
const TAG_COMMIT: &[u8] = b"quorate/ecdsa/dkls23-commit/v1";

/// This party's multiplication outputs per counterparty (`c_u, c_v` as sender, or
/// `d_u, d_v` as receiver): additive shares of `χ·r` and `χ·sk`, wiped on drop.
#[derive(Default)]
pub(crate) struct PairOutputs(pub(crate) BTreeMap<PartyId, [Scalar; 2]>);

impl Zeroize for PairOutputs {
    fn zeroize(&mut self) {
        for v in self.0.values_mut() {
            v.zeroize();
        }
    }
}

impl Drop for PairOutputs {
    fn drop(&mut self) {
        self.zeroize();
    }
}

/// The public context of one signing session, as needed by the blame and dispute rounds.
#[derive(Clone, Debug)]
pub(crate) struct SessionCtx {
    pub(crate) me: PartyId,
    pub(crate) signers: Vec<PartyId>,
    pub(crate) sid: [u8; 32],
    pub(crate) key_id: [u8; 32],
    pub(crate) epoch: u64,
    pub(crate) sign_id: Vec<u8>,
    pub(crate) public_key: ProjectivePoint,
    pub(crate) digest: [u8; 32],
    /// `R = Σ R_j`.
    pub(crate) big_r: AffinePoint,
    /// `r = x(R) mod q`.
    pub(crate) r_x: Scalar,
    /// Identity keys of the signers (used with three or more signers).
    pub(crate) identities: BTreeMap<PartyId, IdentityKey>,
}

pub(crate) fn commit_r(
    sid: &[u8; 32],
    i: PartyId,
    big_r: &[u8; POINT_LEN],
    salt: &[u8; 32],
) -> [u8; 32] {
    tagged_hash(TAG_COMMIT, &[sid, &i.to_bytes(), big_r, salt])
}

pub(crate) fn collect<'a, M>(
    me: PartyId,
    signers: &[PartyId],
    msgs: &'a [(PartyId, M)],
) -> Result<BTreeMap<PartyId, &'a M>> {
    let mut map = BTreeMap::new();
    for (from, m) in msgs {
        if *from == me || !signers.contains(from) || map.insert(*from, m).is_some() {
            return Err(EcdsaError::MissingMessage { from: *from });
        }
    }
    for j in signers {
        if *j != me && !map.contains_key(j) {
            return Err(EcdsaError::MissingMessage { from: *j });
        }
    }
    Ok(map)
}

/// Collects the per-counterparty results of a round. Every counterparty whose check failed
/// is banned in the shared pairwise store, not only the first: each failed check may have
/// leaked about a bit of the correlation with it. The error
/// ([`EcdsaError::AbortedAndBanned`]) names every such culprit (with the check of the
/// lowest-indexed one); other errors are returned as they are.
pub(crate) fn settle<T>(
    share: &KeyShare,
    results: Vec<(PartyId, Result<T>)>,
) -> Result<Vec<(PartyId, T)>> {
    let mut ok = Vec::with_capacity(results.len());
    let mut aborted: Option<EcdsaError> = None;
    let mut other: Option<EcdsaError> = None;
    let mut culprits = Vec::new();
    for (j, res) in results {
        match res {
            Ok(v) => ok.push((j, v)),
            Err(EcdsaError::Aborted(b) | EcdsaError::AbortedAndBanned(b)) => {
                share.ban(j);
                culprits.push(j);
                aborted.get_or_insert(EcdsaError::AbortedAndBanned(b));
            }
            Err(e) => {
                other.get_or_insert(e);
            }
        }
    }
    match (aborted, other) {
        (Some(e), _) if culprits.len() == 1 => Err(e),
        (Some(e), _) => Err(EcdsaError::AbortedAndBanned(quorate_core::Blame::many(
            culprits,
            e.check().unwrap_or("signing: multiplication checks"),
        ))),
        (None, Some(e)) => Err(e),
        (None, None) => Ok(ok),
    }
}

pub(crate) fn child_rngs(rng: &mut impl CryptoRngCore, n: usize) -> Vec<ChaCha20Rng> {
    (0..n)
        .map(|_| {
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            let r = ChaCha20Rng::from_seed(seed);
            seed.zeroize();
            r
        })
        .collect()
}

/// Checks the presence of the echo digests (present exactly with three or more signers)
/// and returns whether any differs from `own`.
pub(crate) fn echoes_differ(
    own: Option<[u8; 32]>,
    map: &BTreeMap<PartyId, &SignMsg3>,
) -> Result<bool> {
    let mut differ = false;
    for (j, m) in map {
        match (own, m.echo) {
            (Some(a), Some(b)) => differ |= a != b,
            (None, None) => {}
            _ => return Err(EcdsaError::blame(*j, "signing: echo digest presence")),
        }
    }
    Ok(differ)
}
