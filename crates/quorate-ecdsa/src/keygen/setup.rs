//! What the key-generation rounds share: domain tags, the keygen/refresh mode, the
//! commitment to a party's opening, message collection and Feldman evaluation.

use crate::curve::{mul_small, tagged_hash, write_point, DlogProof};
use crate::error::{EcdsaError, Result};
use crate::keyshare::KeyShare;
use k256::ProjectivePoint;
use quorate_core::encoding::Writer;
use quorate_core::{PartyId, ThresholdParams};
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRngCore, SeedableRng};
use std::collections::BTreeMap;
use zeroize::Zeroize;

pub(crate) const TAG_KEY_ID: &[u8] = b"quorate/ecdsa/key-id/v1";
pub(crate) const TAG_SETUP: &[u8] = b"quorate/ecdsa/setup-sid/v1";
pub(crate) const TAG_PAIR: &[u8] = b"quorate/ecdsa/base-ot-pair/v1";
const TAG_COMMIT: &[u8] = b"quorate/ecdsa/dkg-commit/v1";
pub(crate) const TAG_CHAIN: &[u8] = b"quorate/ecdsa/chain-code/v1";
pub(crate) const TAG_TRANSCRIPT: &[u8] = b"quorate/ecdsa/dkg-transcript/v1";
pub(crate) const PROOF_LABEL: &[u8] = b"dkg constant term";
/// The label of a restored holder's proof of knowledge of its old share `x_j` for `T_j`
/// (a refresh naming restored parties, [`super::restore`]).
pub(crate) const RESTORE_PROOF_LABEL: &[u8] = b"restored holder share";
pub(crate) const TAG_BOOT: &[u8] = b"quorate/ecdsa/ote-bootstrap-pair/v1";

/// Key generation, or a refresh of an existing share.
#[cfg_attr(feature = "fuzzing", derive(Clone))]
pub(crate) enum Mode {
    Keygen,
    Refresh(Box<KeyShare>),
}

pub(crate) fn commitment(
    setup_sid: &[u8; 32],
    from: PartyId,
    feldman: &[ProjectivePoint],
    proof: &Option<DlogProof>,
    chain: &[u8; 32],
    salt: &[u8; 32],
) -> [u8; 32] {
    let mut w = Writer::new();
    encode_reveal(&mut w, feldman, proof, chain, salt);
    tagged_hash(TAG_COMMIT, &[setup_sid, &from.to_bytes(), &w.into_bytes()])
}

pub(crate) fn encode_reveal(
    w: &mut Writer,
    feldman: &[ProjectivePoint],
    proof: &Option<DlogProof>,
    chain: &[u8; 32],
    salt: &[u8; 32],
) {
    w.u16(feldman.len() as u16);
    for c in feldman {
        write_point(w, c);
    }
    match proof {
        Some(p) => {
            w.bytes(&[1]);
            p.write(w);
        }
        None => {
            w.bytes(&[0]);
        }
    }
    w.bytes(chain).bytes(salt);
}

pub(crate) fn per_party_rngs(
    rng: &mut impl CryptoRngCore,
    ids: &[PartyId],
) -> Vec<(PartyId, ChaCha20Rng)> {
    ids.iter()
        .map(|j| {
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            let r = ChaCha20Rng::from_seed(seed);
            seed.zeroize();
            (*j, r)
        })
        .collect()
}

pub(crate) fn others(params: ThresholdParams, me: PartyId) -> Vec<PartyId> {
    params.parties().filter(|p| *p != me).collect()
}

/// Checks that `msgs` holds exactly one message from every other party.
pub(crate) fn collect<M>(
    params: ThresholdParams,
    me: PartyId,
    msgs: &[(PartyId, M)],
) -> Result<BTreeMap<PartyId, &M>> {
    let mut map = BTreeMap::new();
    for (from, m) in msgs {
        if *from == me || !params.contains(*from) || map.insert(*from, m).is_some() {
            return Err(EcdsaError::MissingMessage { from: *from });
        }
    }
    for j in others(params, me) {
        if !map.contains_key(&j) {
            return Err(EcdsaError::MissingMessage { from: j });
        }
    }
    Ok(map)
}

/// `Σ_k x^k C_k` for a small public `x` (Horner with double-and-add).
pub(crate) fn eval_commitment(c: &[ProjectivePoint], x: u64) -> ProjectivePoint {
    c.iter()
        .rev()
        .fold(ProjectivePoint::IDENTITY, |acc, ck| mul_small(&acc, x) + ck)
}
