//! The in-process driver: all servers simulated ([`run`]).

use super::quasi_signatures::check_quasi_signatures;
use super::query::BbsQuery;
use super::signature_proof::{
    bbs_dpk_challenge, bbs_dpk_respond, commit_with_nonces, BbsDpkCommit, BbsDpkNonces,
    BbsDpkProof, BbsDpkResponse, WitnessShares,
};
use super::signature_track::run_signature_track_timed;
use super::verify::{
    accepted_gammas, beaver_input_coms, check_non_members, split_members, statements,
};
use super::witness_track::{self as witness, WitnessShuffle, WitnessTrack};
use super::DbRsmProof;
use crate::beaver::{
    beaver_check_openings, beaver_open, beaver_product_commitments, beaver_product_shares,
    verify_triples, CommittedShare, TriplePublic, TripleShares,
};
use crate::error::MixnetError;
use crate::membership::NonMemberOpening;
use crate::mix::MixRecord;
use crate::sender::SenderInput;
use crate::setup::MixServer;
use crate::setup::MixnetPublic;
use crate::sharing::{MixerShares, SharingRecord};
use crate::timing::StepTimes;
use blstrs::Scalar;
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use std::time::Instant;

/// Runs DB-RSM in process for the query `q` (all servers simulated, every stage checked
/// before the next builds on it) and returns the published proof. `record` is the verified
/// Mix record, `submissions` the sender inputs it was built from, and `triples` /
/// `triple_shares` the dealer's Beaver triples (at least one per queried input, dealt for
/// `q.query_id`; each server's shares are opened once and then refused,
/// [`MixnetError::TripleReused`]).
#[allow(clippy::too_many_arguments)]
pub fn run<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    triples: &[TriplePublic],
    triple_shares: &mut [TripleShares],
    q: &BbsQuery,
    rng: &mut R,
) -> Result<DbRsmProof, MixnetError> {
    run_timed(
        public,
        servers,
        submissions,
        record,
        triples,
        triple_shares,
        q,
        rng,
        &mut StepTimes::default(),
    )
}

/// [`run`], recording each server's time per step (and the checks of the published stages,
/// which every server runs once) in `times`.
#[allow(clippy::too_many_arguments)]
pub fn run_timed<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    triples: &[TriplePublic],
    triple_shares: &mut [TripleShares],
    q: &BbsQuery,
    rng: &mut R,
    times: &mut StepTimes,
) -> Result<DbRsmProof, MixnetError> {
    let parties: Vec<PartyId> = public.params.parties().collect();
    if servers.len() != parties.len()
        || triple_shares.len() != parties.len()
        || servers
            .iter()
            .zip(triple_shares.iter())
            .zip(&parties)
            .any(|((s, t), &p)| s.id != p || t.mixer != p)
    {
        return Err(ParamError::Invalid("one server and one triple share set per party").into());
    }
    // Each server refuses up front to answer with triples of another query or used ones.
    for ts in triple_shares.iter() {
        ts.check_usable(&q.query_id)?;
    }
    let gammas = accepted_gammas(public, submissions, record)?;
    times.time("M: check BBS+ quasi-signatures", None, || {
        check_quasi_signatures(public, &gammas, q)
    })?;
    // Steps 5–7, signatures.
    let (signature, bshares) = run_signature_track_timed(public, servers, q, rng, times)?;
    let (members, non) = split_members(&signature.s_tilde);
    if triples.len() < members.len() {
        return Err(ParamError::Invalid("not enough Beaver triples for the members").into());
    }
    let mut non_members = Vec::with_capacity(servers.len());
    for bs in &bshares {
        let t0 = Instant::now();
        let (b, s): (Vec<Scalar>, Vec<Scalar>) = non.iter().map(|&j| (bs.b[j], bs.s[j])).unzip();
        times.add(
            "M: non-member blinding openings",
            Some(bs.mixer),
            t0.elapsed(),
        );
        non_members.push(NonMemberOpening {
            mixer: bs.mixer,
            b,
            s,
        });
    }
    times.time("M: check the non-member openings", None, || {
        check_non_members(public, &signature.blinding, &non, &non_members)
    })?;
    // Steps 4–7, Paillier witnesses: forward shuffle, then conversion of the members.
    let init = witness::initial_witness_list(public, submissions, record, q)?;
    let mut forward: Vec<crate::mix::MixStage> = Vec::with_capacity(servers.len());
    for srv in servers {
        let cur = forward
            .last()
            .map(|s| s.outputs.as_slice())
            .unwrap_or(&init);
        let st = times.time("M: Paillier witness shuffle + proof", Some(srv.id), || {
            srv.mix(public, cur, rng)
        })?;
        forward.push(st);
    }
    let shuffle = WitnessShuffle { forward };
    let w_m = times.time("M: verify all witness shuffles", None, || {
        witness::verify_witness_shuffle(public, submissions, record, q, &shuffle)
    })?;
    let bases = witness::select_members(&w_m, &members)?;
    let (conversion, wshares, wcoms): (SharingRecord, Vec<MixerShares>, _) =
        crate::sharing::run_value_sharing_timed(public, servers, &bases, rng, times)?;
    // Step 8: Beaver r′ = ρ·b, then DPK_BBS+.
    let used = &triples[..members.len()];
    for ts in triple_shares.iter() {
        let ok = times.time("M: check own Beaver triple shares", Some(ts.mixer), || {
            ts.check_against(public, &triples[..ts.len().min(triples.len())])
        });
        if !ok || ts.len() < members.len() {
            return Err(ParamError::Invalid("dealer's triple shares do not match").into());
        }
    }
    times.time("M/Q: verify the dealer's Beaver triples", None, || {
        verify_triples(public, &q.query_id, used)
    })?;
    let (x_coms, w_coms) = beaver_input_coms(&signature, &members, &wcoms)?;
    let mut beaver = Vec::with_capacity(servers.len());
    for ((ts, ws), bs) in triple_shares.iter_mut().zip(&wshares).zip(&bshares) {
        let t0 = Instant::now();
        let mut xs = Vec::with_capacity(members.len());
        let mut bsv = Vec::with_capacity(members.len());
        for (u, &j) in members.iter().enumerate() {
            let (v, r) = ws
                .value_shares(u)
                .ok_or(ParamError::Invalid("missing witness share"))?;
            xs.push(CommittedShare {
                value: v[1],
                rand: r[1],
            });
            bsv.push(
                bs.committed(j)
                    .ok_or(ParamError::Invalid("missing blinding share"))?,
            );
        }
        let o = beaver_open(ts, &q.query_id, &xs, &bsv)?;
        times.add("M: Beaver openings", Some(ts.mixer), t0.elapsed());
        beaver.push(o);
    }
    let opened = times.time("M: check all Beaver openings", None, || {
        beaver_check_openings(public, used, &x_coms, &w_coms, &beaver)
    })?;
    let mut products = Vec::with_capacity(servers.len());
    for (k, ts) in triple_shares.iter().enumerate() {
        products.push(times.time("M: Beaver product shares", Some(ts.mixer), || {
            beaver_product_shares(ts, k == 0, &opened)
        })?);
    }
    let pcoms = times.time("M: Beaver product commitments", None, || {
        beaver_product_commitments(public, used, &opened)
    })?;
    let stmts = statements(record, &signature, &members, &wcoms, &pcoms)?;
    // DPK_BBS+: every server commits for every member, then responds to the challenges.
    let mut commits: Vec<Vec<BbsDpkCommit>> = Vec::with_capacity(servers.len());
    let mut nonces: Vec<Vec<BbsDpkNonces>> = Vec::with_capacity(servers.len());
    let mut witnesses: Vec<Vec<WitnessShares>> = Vec::with_capacity(servers.len());
    for (k, ((ws, bs), prod)) in wshares.iter().zip(&bshares).zip(&products).enumerate() {
        let t0 = Instant::now();
        let wit: Vec<WitnessShares> = members
            .iter()
            .enumerate()
            .map(|(u, &j)| {
                let (v, r) = ws.value_shares(u)?;
                let b = bs.committed(j)?;
                let p = prod.get(u)?;
                Some(WitnessShares {
                    w: [v[0], b.value, p.value],
                    s: [r[0], b.rand, p.rand],
                })
            })
            .collect::<Option<_>>()
            .ok_or(ParamError::Invalid("missing witness share"))?;
        let ns: Vec<BbsDpkNonces> = members
            .iter()
            .map(|_| BbsDpkNonces::draw(&mut *rng))
            .collect();
        let cs: Vec<BbsDpkCommit> = stmts
            .par_iter()
            .zip(wit.par_iter())
            .zip(ns.par_iter())
            .map(|((st, w), n)| commit_with_nonces(public, st, w, n))
            .collect::<Result<_, MixnetError>>()?;
        times.add("M: DPK_BBS+ commitments", Some(parties[k]), t0.elapsed());
        commits.push(cs);
        nonces.push(ns);
        witnesses.push(wit);
    }
    let t0 = Instant::now();
    let challenges: Vec<Scalar> = stmts
        .par_iter()
        .enumerate()
        .map(|(u, st)| {
            let cs: Vec<BbsDpkCommit> = commits.iter().map(|c| c[u]).collect();
            bbs_dpk_challenge(public, &q.y, st, &cs)
        })
        .collect();
    times.add("M: DPK_BBS+ challenges", None, t0.elapsed());
    let mut responses: Vec<Vec<BbsDpkResponse>> = Vec::with_capacity(servers.len());
    for (k, (wit, ns)) in witnesses.iter().zip(&nonces).enumerate() {
        responses.push(times.time("M: DPK_BBS+ responses", Some(parties[k]), || {
            wit.iter()
                .zip(ns)
                .zip(&challenges)
                .map(|((w, n), e)| bbs_dpk_respond(w, n, e))
                .collect()
        }));
    }
    let dpk = (0..members.len())
        .map(|u| BbsDpkProof {
            mixers: parties.clone(),
            commits: commits.iter().map(|c| c[u]).collect(),
            responses: responses.iter().map(|r| r[u]).collect(),
        })
        .collect();
    Ok(DbRsmProof {
        signature,
        non_members,
        witness: WitnessTrack {
            shuffle,
            conversion,
        },
        beaver,
        dpk,
    })
}
