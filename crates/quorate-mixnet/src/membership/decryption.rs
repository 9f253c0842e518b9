//! Step 4 (Fig. 8): the servers' ElGamal decryption shares of the blinded signatures
//! ([`ElGamalDecStage`]) and, where a blinded signature decrypts to `1`, every server's
//! opening of its blinding commitment ([`NonMemberOpening`], checked by
//! [`check_non_member_openings`], shared with DB-RSM) proving the `1` is an empty slot.

use super::DbSmProof;
use crate::elgamal::{BatchCheck, ElGamalDecShare};
use crate::error::MixnetError;
use crate::setup::MixnetPublic;
use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::{Blame, ParamError, PartyId};

/// One server's openings `(b_{k,i}, s_{k,i})` of its blinding commitments at the elements
/// whose blinded signature decrypted to `1` (in increasing position), proving that the
/// blinding `b_i = Σ_k b_{k,i}` is not zero there, so `1` means an empty slot (DB-SM: input
/// `i` is not a member; DB-RSM: output `j` did not come from `I`). Harmless to publish: the
/// slot's plaintext is `1` whatever the blinding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonMemberOpening {
    /// The server.
    pub mixer: PartyId,
    /// `b_{k,i}`.
    pub b: Vec<Scalar>,
    /// `s_{k,i}`.
    pub s: Vec<Scalar>,
}

/// One server's ElGamal decryption shares of the blinded list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElGamalDecStage {
    /// The server.
    pub mixer: PartyId,
    /// Shares in `I` order.
    pub shares: Vec<ElGamalDecShare>,
}

/// The check of the non-member openings (DB-SM and DB-RSM): at every position in
/// `positions` (where the blinded signature decrypted to `1`), every server's
/// `(b_{k,i}, s_{k,i})` must open its commitment `b_coms[k][i]` (a wrong or missing opening
/// names the server) and `Σ_k b_{k,i} ≠ 0`, otherwise the blinding, not an empty slot, made
/// the `1`: only all servers together can arrange that, and all are blamed.
pub(crate) fn check_non_member_openings(
    public: &MixnetPublic,
    b_coms: &[(PartyId, &[G1Projective])],
    positions: &[usize],
    openings: &[NonMemberOpening],
) -> Result<(), MixnetError> {
    let parties: Vec<PartyId> = public.params.parties().collect();
    if b_coms.len() != parties.len() || b_coms.iter().zip(&parties).any(|((k, _), p)| k != p) {
        return Err(ParamError::Invalid("blinding commitments: one list per server").into());
    }
    if openings.len() != parties.len() {
        return Err(ParamError::LengthMismatch {
            what: "non-member openings",
            expected: parties.len(),
            got: openings.len(),
        }
        .into());
    }
    let (g, h) = (public.gens.g, public.gens.h);
    let cnt = positions.len();
    let batches: Vec<Option<BatchCheck>> = openings
        .iter()
        .zip(b_coms)
        .zip(&parties)
        .map(|((o, (_, coms)), &k)| {
            (o.mixer == k && o.b.len() == cnt && o.s.len() == cnt).then(|| {
                let mut b = BatchCheck::default();
                for (u, &i) in positions.iter().enumerate() {
                    let com = coms.get(i).copied().unwrap_or(G1Projective::identity());
                    b.add(&[&[(g, o.b[u]), (h, o.s[u]), (com, -Scalar::ONE)]]);
                }
                b
            })
        })
        .collect();
    let culprits = BatchCheck::failing(parties.iter().copied(), &batches);
    if !culprits.is_empty() {
        return Err(MixnetError::Aborted(Blame::many(
            culprits,
            "non-member blinding opening",
        )));
    }
    for u in 0..cnt {
        let sum: Scalar = openings.iter().map(|o| o.b[u]).sum();
        if bool::from(sum.is_zero()) {
            return Err(MixnetError::Aborted(Blame::many(
                parties,
                "blinding sums to zero (hides a member)",
            )));
        }
    }
    Ok(())
}

/// The non-members of a DB-SM proof (`S_i = 1`, already verified) and the check of every
/// server's openings there ([`check_non_member_openings`]).
pub(super) fn check_dbsm_non_members(
    public: &MixnetPublic,
    proof: &DbSmProof,
) -> Result<(), MixnetError> {
    let positions: Vec<usize> = (0..proof.s.len())
        .filter(|&t| bool::from(proof.s[t].is_identity()))
        .collect();
    let coms: Vec<(PartyId, &[G1Projective])> = proof
        .blinding
        .iter()
        .map(|st| (st.mixer, st.b_coms.as_slice()))
        .collect();
    check_non_member_openings(public, &coms, &positions, &proof.non_members)
}
