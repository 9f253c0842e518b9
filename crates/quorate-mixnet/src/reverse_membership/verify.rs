//! The querier's verification of a whole reverse-membership proof ([`verify`], public data
//! only) and the helpers the in-process driver shares with it.

use super::query::BbsQuery;
use crate::error::MixnetError;
use crate::setup::MixnetPublic;
use blstrs::G1Projective;
use group::Group;
use quorate_core::{ParamError, PartyId};

use super::quasi_signatures::check_quasi_signatures;
use super::signature_proof::{bbs_dpk_verify, BbsDpkStatement, WitnessCommitments};
use super::signature_track::{verify_signature_track_timed, RsmBlindingStage, SignatureTrack};
use super::witness_track::{self as witness};
use super::DbRsmProof;
use crate::beaver::{
    beaver_check_openings, beaver_product_commitments, verify_triples, TriplePublic,
};
use crate::membership::NonMemberOpening;
use crate::mix::MixRecord;
use crate::sender::SenderInput;
use crate::sharing::ValueCommitments;
use crate::timing::StepTimes;
use std::time::Instant;

/// The outputs with `S̃_j ≠ 1` (members) and `= 1` (non-members), increasing.
pub(super) fn split_members(s_tilde: &[G1Projective]) -> (Vec<usize>, Vec<usize>) {
    (0..s_tilde.len()).partition(|&j| !bool::from(s_tilde[j].is_identity()))
}

pub(super) fn accepted_gammas(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
) -> Result<Vec<G1Projective>, MixnetError> {
    let inputs = crate::sharing::accepted_inputs(submissions, record)?;
    if inputs.len() != public.n {
        return Err(ParamError::Invalid("record does not have n accepted inputs").into());
    }
    Ok(inputs.iter().map(|s| s.gamma).collect())
}

/// The check of the non-member openings against a verified signature track: at every
/// output with `S̃_j = 1`, every server's `(b_{k,j}, s_{k,j})` must open its `B_{k,j}` (a
/// wrong opening names the server) and `b_j = Σ_k b_{k,j} ≠ 0` (otherwise the blinding, not
/// an empty slot, made `S̃_j = 1`: all servers are blamed, since only all of them together
/// can arrange it).
pub fn check_non_member_openings(
    public: &MixnetPublic,
    track: &SignatureTrack,
    openings: &[NonMemberOpening],
) -> Result<(), MixnetError> {
    let (_, non) = split_members(&track.s_tilde);
    check_non_members(public, &track.blinding, &non, openings)
}

pub(super) fn check_non_members(
    public: &MixnetPublic,
    blinding: &[RsmBlindingStage],
    non_members: &[usize],
    openings: &[NonMemberOpening],
) -> Result<(), MixnetError> {
    let coms: Vec<(PartyId, &[G1Projective])> = blinding
        .iter()
        .map(|st| (st.mixer, st.b_coms.as_slice()))
        .collect();
    crate::membership::check_non_member_openings(public, &coms, non_members, openings)
}

/// DPK_BBS+ statements for the members (`coms[u][k]` from the witness conversion,
/// `B_{k,j}` from the blinding, `Z_k` from Beaver).
pub(super) fn statements(
    record: &MixRecord,
    track: &SignatureTrack,
    members: &[usize],
    wcoms: &[Vec<ValueCommitments>],
    pcoms: &[Vec<G1Projective>],
) -> Result<Vec<BbsDpkStatement>, MixnetError> {
    members
        .iter()
        .enumerate()
        .map(|(u, &j)| {
            let coms = wcoms
                .get(u)
                .ok_or(ParamError::Invalid("missing witness commitments"))?
                .iter()
                .zip(&track.blinding)
                .zip(pcoms)
                .map(|((wc, bl), pc)| {
                    Some(WitnessCommitments {
                        c: wc.v,
                        b: *bl.b_coms.get(j)?,
                        r: *pc.get(u)?,
                    })
                })
                .collect::<Option<Vec<_>>>()
                .ok_or(ParamError::Invalid("missing commitments"))?;
            Ok(BbsDpkStatement {
                index: j,
                s_tilde: track.s_tilde[j],
                v_out: *record
                    .outputs
                    .get(j)
                    .ok_or(ParamError::Invalid("missing output"))?,
                coms,
            })
        })
        .collect()
}

/// The Beaver input commitments: `x` = the witness-track commitment `R_k` to the share of
/// `ρ = r + r̂`, `w` = the blinding commitment `B_{k,j}`; `[server][member]`.
pub(super) type InputComs = (Vec<Vec<G1Projective>>, Vec<Vec<G1Projective>>);

pub(super) fn beaver_input_coms(
    track: &SignatureTrack,
    members: &[usize],
    wcoms: &[Vec<ValueCommitments>],
) -> Result<InputComs, MixnetError> {
    let m = track.blinding.len();
    let mut xs = vec![Vec::with_capacity(members.len()); m];
    let mut ws = vec![Vec::with_capacity(members.len()); m];
    for (u, &j) in members.iter().enumerate() {
        let row = wcoms
            .get(u)
            .filter(|r| r.len() == m)
            .ok_or(ParamError::Invalid("witness commitments: one per server"))?;
        for k in 0..m {
            xs[k].push(row[k].r);
            ws[k].push(
                *track.blinding[k]
                    .b_coms
                    .get(j)
                    .ok_or(ParamError::Invalid("missing blinding commitment"))?,
            );
        }
    }
    Ok((xs, ws))
}

/// The querier's verification of a whole DB-RSM proof for the query `q`, from public data
/// only: the quasi-signatures, every forward shuffle, blinding proof (with `B_{k,j}`) and
/// decryption share of the signature track, the non-member openings, the witness track,
/// the dealer's triples, the Beaver openings and every DPK_BBS+ (batched). `record` must
/// already have been verified ([`crate::mix::verify_record`]). Returns, for every output `j`,
/// whether it came from an input in `I` (its value `v′_j` opens one of the quasi-signed
/// commitments). Every failing server is named.
pub fn verify(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    triples: &[TriplePublic],
    q: &BbsQuery,
    proof: &DbRsmProof,
) -> Result<Vec<bool>, MixnetError> {
    verify_timed(
        public,
        submissions,
        record,
        triples,
        q,
        proof,
        &mut StepTimes::default(),
    )
}

/// [`verify`], recording the querier's time per step in `times`.
pub fn verify_timed(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    triples: &[TriplePublic],
    q: &BbsQuery,
    proof: &DbRsmProof,
    times: &mut StepTimes,
) -> Result<Vec<bool>, MixnetError> {
    let gammas = accepted_gammas(public, submissions, record)?;
    if record.outputs.len() != public.n {
        return Err(ParamError::Invalid("record does not have n outputs").into());
    }
    times.time("Q: check BBS+ quasi-signatures", None, || {
        check_quasi_signatures(public, &gammas, q)
    })?;
    let s_tilde = verify_signature_track_timed(public, q, &proof.signature, times)?;
    let (members, non) = split_members(&s_tilde);
    times.time("Q: check the non-member openings", None, || {
        check_non_members(public, &proof.signature.blinding, &non, &proof.non_members)
    })?;
    let w_m = times.time("Q: verify witness shuffles", None, || {
        witness::verify_witness_shuffle(public, submissions, record, q, &proof.witness.shuffle)
    })?;
    let bases = witness::select_members(&w_m, &members)?;
    let wcoms = times.time("Q: verify the witness conversion", None, || {
        crate::sharing::verify_value_sharing(public, &bases, &proof.witness.conversion)
    })?;
    if triples.len() < members.len() {
        return Err(ParamError::Invalid("not enough Beaver triples for the members").into());
    }
    let used = &triples[..members.len()];
    times.time("Q: verify the dealer's Beaver triples", None, || {
        verify_triples(public, &q.query_id, used)
    })?;
    let t0 = Instant::now();
    let (x_coms, w_coms) = beaver_input_coms(&proof.signature, &members, &wcoms)?;
    let opened = beaver_check_openings(public, used, &x_coms, &w_coms, &proof.beaver)?;
    let pcoms = beaver_product_commitments(public, used, &opened)?;
    let stmts = statements(record, &proof.signature, &members, &wcoms, &pcoms)?;
    times.add(
        "Q: check Beaver openings + product commitments",
        None,
        t0.elapsed(),
    );
    if proof.dpk.len() != members.len() {
        return Err(ParamError::LengthMismatch {
            what: "DPK_BBS+ proofs (one per member)",
            expected: members.len(),
            got: proof.dpk.len(),
        }
        .into());
    }
    times.time("Q: verify n DPK_BBS+ (batched)", None, || {
        bbs_dpk_verify(public, &q.y, &stmts, &proof.dpk)
    })?;
    Ok(s_tilde
        .iter()
        .map(|s| !bool::from(s.is_identity()))
        .collect())
}
