//! Tracing queries BTraceIn and BTraceOut (paper Fig. 6).
//!
//! * **BTraceIn(J)** — "which inputs went to the outputs `J`?" One DB-SM
//!   ([`crate::membership`], Fig. 8) over all inputs `I = [n]` against the signed outputs `J`:
//!   input `i` is in the answer iff its DB-SM answer is *member* (a verified DPK_BB: the
//!   value committed in `γ_i` is one of `{v′_j : j ∈ J}`); every other input is proven *not
//!   a member* by its verified decryption `S_i = 1`.
//! * **BTraceOut(I)** — "which outputs came from the inputs `I`, and which did not?" One
//!   DB-RSM ([`crate::reverse_membership`], Fig. 9) over the quasi-signed commitments `γ_i`, `i ∈ I`:
//!   output `j` is in the answer iff `S̃_j ≠ 1` and its DPK_BBS+ verifies (`v′_j` opens one
//!   of the `γ_i`); every other output is proven *not from `I`* by its verified decryption
//!   `S̃_j = 1` with the blinding opened to show `b_j ≠ 0`.
//!
//! The artifact prices each query at twice a DB-SM / DB-RSM run (seed, experiment E2): the
//! paper's queries prove membership and non-membership with separate runs. Here one run
//! proves both, because non-membership is read off the verified decryption (`S = 1`), so
//! each query costs one DB-SM or one DB-RSM.
//!
//! Duplicated values: if two senders submitted the same value `v`, DB-SM and DB-RSM prove
//! statements about *values* (the commitment opens to some output value), so both inputs
//! trace to an output carrying `v`; the answer sets stay exact for distinct values, which
//! the ground-truth tests use.
//!
//! [`verify_trace_in`] and [`verify_trace_out`] are the outside verifier's checks: they take
//! only public data (the verified Mix record, the sender inputs, the query and its evidence)
//! and return the answer.

use crate::beaver::{TriplePublic, TripleShares};
use crate::error::MixnetError;
use crate::membership::{self, BbQuery, DbSmProof};
use crate::mix::MixRecord;
use crate::reverse_membership::{self, BbsQuery, DbRsmProof};
use crate::sender::SenderInput;
use crate::setup::{MixServer, MixnetPublic};
use crate::sharing::MixerShares;
use blstrs::G1Projective;
use rand_core::{CryptoRng, RngCore};

/// A BTraceIn answer with its DB-SM evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceInAnswer {
    /// The inputs whose values are among the outputs `J`, sorted.
    pub answer: Vec<usize>,
    /// The querier's signed query (`I = [n]`, `J`, BB key, signatures).
    pub query: BbQuery,
    /// The servers' DB-SM proof.
    pub proof: DbSmProof,
}

/// A BTraceOut answer with its DB-RSM evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceOutAnswer {
    /// The outputs that came from the inputs `I`, sorted.
    pub answer: Vec<usize>,
    /// The outputs proven **not** to come from `I` (the complement of `answer`), sorted.
    pub not_from: Vec<usize>,
    /// The querier's quasi-signed query (its id, `I`, BBS+ key, quasi-signatures).
    pub query: BbsQuery,
    /// The dealer's Beaver triples for this query (public part).
    pub triples: Vec<TriplePublic>,
    /// The servers' DB-RSM proof.
    pub proof: DbRsmProof,
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

/// BTraceIn(J), run in process: the querier signs `J`, the servers prove DB-SM for all
/// inputs, the querier verifies. Returns the inputs that went to the outputs `J`.
#[allow(clippy::too_many_arguments)]
pub fn btrace_in<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    shares: &[MixerShares],
    share_coms: &[Vec<G1Projective>],
    outputs_j: &[usize],
    rng: &mut R,
) -> Result<TraceInAnswer, MixnetError> {
    let j = sorted_distinct(outputs_j, public.n)?;
    let all: Vec<usize> = (0..public.n).collect();
    let (_key, query) = membership::querier_sign(public, &record.outputs, &all, &j, rng)?;
    let proof = membership::run(
        public,
        servers,
        submissions,
        record,
        shares,
        share_coms,
        &query,
        rng,
    )?;
    let answer = verify_trace_in(public, submissions, record, share_coms, &j, &query, &proof)?;
    Ok(TraceInAnswer {
        answer,
        query,
        proof,
    })
}

/// The querier's check of a BTraceIn answer: the query must be over all inputs against
/// exactly `J`; returns the verified answer (inputs that went to `J`); every other input is
/// proven not to.
pub fn verify_trace_in(
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
            "BTraceIn query must cover all inputs against J",
        ));
    }
    let members = membership::verify(public, submissions, record, share_coms, query, proof)?;
    Ok(members
        .iter()
        .enumerate()
        .filter(|(_, m)| **m)
        .map(|(i, _)| i)
        .collect())
}

/// BTraceOut(I), run in process: the querier quasi-signs the commitments of `I` under a
/// fresh query id, the dealer (`deal`, called with the query) deals the Beaver triples for
/// that id (at least `|I|`: the public triples and one share set per server), the servers
/// prove DB-RSM, the querier verifies. Returns the outputs that came from `I` and those that
/// did not.
pub fn btrace_out<R, D>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    deal: D,
    inputs_i: &[usize],
    rng: &mut R,
) -> Result<TraceOutAnswer, MixnetError>
where
    R: RngCore + CryptoRng,
    D: FnOnce(&BbsQuery) -> (Vec<TriplePublic>, Vec<TripleShares>),
{
    let i_set = sorted_distinct(inputs_i, public.n)?;
    let inputs = crate::sharing::accepted_inputs(submissions, record)?;
    let gammas: Vec<G1Projective> = inputs.iter().map(|s| s.gamma).collect();
    let (_key, query) = reverse_membership::querier_quasi_sign(public, &gammas, &i_set, rng)?;
    let (triples, mut triple_shares) = deal(&query);
    let proof = reverse_membership::run(
        public,
        servers,
        submissions,
        record,
        &triples,
        &mut triple_shares,
        &query,
        rng,
    )?;
    let answer = verify_trace_out(
        public,
        submissions,
        record,
        &triples,
        &i_set,
        &query,
        &proof,
    )?;
    let not_from = (0..public.n)
        .filter(|j| answer.binary_search(j).is_err())
        .collect();
    Ok(TraceOutAnswer {
        answer,
        not_from,
        query,
        triples,
        proof,
    })
}

/// The querier's check of a BTraceOut answer: the query must be over exactly `I`; returns
/// the verified answer (outputs that came from `I`); every other output is proven not to.
pub fn verify_trace_out(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    triples: &[TriplePublic],
    inputs_i: &[usize],
    query: &BbsQuery,
    proof: &DbRsmProof,
) -> Result<Vec<usize>, MixnetError> {
    let i_set = sorted_distinct(inputs_i, public.n)?;
    if query.inputs != i_set {
        return Err(MixnetError::InvalidQuery(
            "BTraceOut query must quasi-sign exactly I",
        ));
    }
    let members = reverse_membership::verify(public, submissions, record, triples, query, proof)?;
    Ok(members
        .iter()
        .enumerate()
        .filter(|(_, m)| **m)
        .map(|(j, _)| j)
        .collect())
}
