//! Tracing queries BTraceIn and BTraceOut (paper Fig. 6), answered with DB-SM evidence.
//!
//! * **BTraceOut(J)** — "which inputs led to the outputs `J`?" One DB-SM with `I = [n]`
//!   against `J`: input `i` is in the answer iff its DB-SM answer is *member* (a verified
//!   DPK_BB); every other input is proven *not a member* by its verified `S_i = 1`.
//! * **BTraceIn(I)** — "which outputs came from the inputs `I`?" The servers claim the image
//!   `J* = π(I)`; the querier signs `J*` and one DB-SM over `I` against `J*` must answer
//!   *member* for every `i ∈ I`. Because `S_i ≠ 1` shows (through the verified reverse
//!   shuffles) that `π(i) ∈ J*`, and `π` is a bijection with `|J*| = |I|`, the claim is
//!   exactly `π(I)`; the outputs that did **not** come from `I` are the complement.
//!
//! The paper answers BTraceOut with DB-RSM (Fig. 9) and prices each query at twice a DB-SM /
//! DB-RSM run; here each query is one DB-SM run. In this in-process driver the servers find
//! `J*` by composing their permutations; across machines each server would map the set
//! through its own `π_k` in turn, which shows the intermediate sets to the servers only.

use crate::dbsm::{self, BbQuery, DbSmProof};
use crate::error::MixnetError;
use crate::mix::MixRecord;
use crate::sender::SenderInput;
use crate::setup::{MixServer, MixnetPublic};
use crate::sharing::MixerShares;
use blstrs::G1Projective;
use rand_core::{CryptoRng, RngCore};

/// An answer with its evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceAnswer {
    /// The answer set: input positions (BTraceOut) or output positions (BTraceIn), sorted.
    pub answer: Vec<usize>,
    /// The querier's signed query (`I`, `J`, BB key, signatures).
    pub query: BbQuery,
    /// The servers' DB-SM proof.
    pub proof: DbSmProof,
}

fn sorted_distinct(set: &[usize], n: usize) -> Result<Vec<usize>, MixnetError> {
    let mut v = set.to_vec();
    v.sort_unstable();
    v.dedup();
    if v.len() != set.len() || v.last().is_some_and(|&l| l >= n) {
        return Err(MixnetError::InvalidQuery(
            "index set has repeats or is out of range",
        ));
    }
    Ok(v)
}

/// BTraceOut(J), run in process: the querier signs `J`, the servers prove DB-SM for all
/// inputs. Returns the inputs whose values are among the outputs `J`.
#[allow(clippy::too_many_arguments)]
pub fn btrace_out<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    shares: &[MixerShares],
    share_coms: &[Vec<G1Projective>],
    outputs_j: &[usize],
    rng: &mut R,
) -> Result<TraceAnswer, MixnetError> {
    let j = sorted_distinct(outputs_j, public.n)?;
    let all: Vec<usize> = (0..public.n).collect();
    let (_key, query) = dbsm::querier_sign(public, &record.outputs, &all, &j, rng)?;
    let proof = dbsm::run(
        public,
        servers,
        submissions,
        record,
        shares,
        share_coms,
        &query,
        rng,
    )?;
    let answer = verify_trace_out(public, submissions, record, share_coms, &j, &query, &proof)?;
    Ok(TraceAnswer {
        answer,
        query,
        proof,
    })
}

/// The querier's check of a BTraceOut answer: the query must be over all inputs against
/// exactly `J`; returns the verified answer set.
pub fn verify_trace_out(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    share_coms: &[Vec<G1Projective>],
    outputs_j: &[usize],
    query: &BbQuery,
    proof: &DbSmProof,
) -> Result<Vec<usize>, MixnetError> {
    let j = sorted_distinct(outputs_j, public.n)?;
    if query.outputs != j || query.inputs != (0..public.n).collect::<Vec<_>>() {
        return Err(MixnetError::InvalidQuery(
            "BTraceOut query must cover all inputs against J",
        ));
    }
    let members = dbsm::verify(public, submissions, record, share_coms, query, proof)?;
    Ok(members
        .iter()
        .enumerate()
        .filter(|(_, m)| **m)
        .map(|(i, _)| i)
        .collect())
}

/// BTraceIn(I), run in process: the servers claim `J* = π(I)`, the querier signs `J*`, and
/// the servers prove DB-SM for `I` against `J*`. Returns `J*`.
#[allow(clippy::too_many_arguments)]
pub fn btrace_in<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    shares: &[MixerShares],
    share_coms: &[Vec<G1Projective>],
    inputs_i: &[usize],
    rng: &mut R,
) -> Result<TraceAnswer, MixnetError> {
    let i_set = sorted_distinct(inputs_i, public.n)?;
    // The servers' claim: push each queried input through π_1, …, π_m.
    let comp = crate::mix::composed_permutation(servers);
    let mut claim: Vec<usize> = comp
        .iter()
        .enumerate()
        .filter(|(_, src)| i_set.binary_search(src).is_ok())
        .map(|(j, _)| j)
        .collect();
    claim.sort_unstable();
    let (_key, query) = dbsm::querier_sign(public, &record.outputs, &i_set, &claim, rng)?;
    let proof = dbsm::run(
        public,
        servers,
        submissions,
        record,
        shares,
        share_coms,
        &query,
        rng,
    )?;
    let answer = verify_trace_in(
        public,
        submissions,
        record,
        share_coms,
        &i_set,
        &query,
        &proof,
    )?;
    Ok(TraceAnswer {
        answer,
        query,
        proof,
    })
}

/// The querier's check of a BTraceIn answer: the query is over exactly `I`, the claimed
/// `J* = query.outputs` has `|I|` elements and every `i ∈ I` is proven a member. Returns
/// `J*`; its complement is the set of outputs that did not come from `I`.
pub fn verify_trace_in(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    share_coms: &[Vec<G1Projective>],
    inputs_i: &[usize],
    query: &BbQuery,
    proof: &DbSmProof,
) -> Result<Vec<usize>, MixnetError> {
    let i_set = sorted_distinct(inputs_i, public.n)?;
    if query.inputs != i_set || query.outputs.len() != i_set.len() {
        return Err(MixnetError::InvalidQuery(
            "BTraceIn query must be I against |I| claimed outputs",
        ));
    }
    let members = dbsm::verify(public, submissions, record, share_coms, query, proof)?;
    if let Some(t) = members.iter().position(|m| !*m) {
        return Err(MixnetError::TraceClaimRejected { input: i_set[t] });
    }
    Ok(query.outputs.clone())
}
