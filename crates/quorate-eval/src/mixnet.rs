//! A whole run for demos and benchmarks: keygen → Enc → input checking → Mix → DB-SM
//! (worst case `I = J = [n]`) → DB-RSM (worst case `I = [n]`, [`quorate_mixnet::reverse_membership::run_timed`] /
//! [`quorate_mixnet::reverse_membership::verify_timed`]) → one BTraceIn (DB-SM) and one BTraceOut (DB-RSM), every
//! proof verified as the querier, with wall-clock times per step and the sizes of what is
//! published. The Beaver triples come from the dealer of the preprocessing assumption
//! ([`quorate_mixnet::beaver::deal_triples`]), fresh for each query.
//!
//! Sizes are the lengths of the messages' wire encodings ([`quorate_mixnet::wire`],
//! [`quorate_mixnet::wire_rsm`]: versioned, with typed decoders), as a node would send them.

use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::transcript::SessionId;
use quorate_mixnet::beaver;
use quorate_mixnet::error::MixnetError;
use quorate_mixnet::membership;
use quorate_mixnet::mix::{self, DecryptionStage, MixStage};
use quorate_mixnet::reverse_membership;
use quorate_mixnet::sender;
use quorate_mixnet::setup::{self, MixnetPublic};
use quorate_mixnet::sharing::{self, Layout};
use quorate_mixnet::timing::StepTimes;
use quorate_mixnet::trace;
use quorate_mixnet::wire::{self, NativeShuffleCodec};
use quorate_mixnet::wire_rsm;
use rand_core::{CryptoRng, RngCore};
use std::time::{Duration, Instant};

/// Compressed G1 point (the published decryptions `S` of DB-SM have no message of their own).
const G1: usize = 48;

/// What to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DemoConfig {
    /// Senders.
    pub n: usize,
    /// Mix-servers.
    pub m: u16,
    /// Decryption threshold.
    pub t: u16,
    /// Paillier modulus bits (≥ 3072 for production; 1024 only for tests and quick runs).
    pub paillier_bits: u32,
    /// Print each timed row to standard error as soon as it is measured (long benchmark runs).
    pub progress: bool,
}

/// The timed rows of a run, printed to standard error as they come when `progress` is set.
struct Timings {
    rows: Vec<(&'static str, String, Duration)>,
    progress: bool,
    started: Instant,
}

impl Timings {
    fn push(&mut self, row: (&'static str, String, Duration)) {
        if self.progress {
            eprintln!(
                "[{:>8.1} s] {}: {}: {:.1} ms",
                self.started.elapsed().as_secs_f64(),
                row.0,
                row.1,
                row.2.as_secs_f64() * 1e3
            );
        }
        self.rows.push(row);
    }
}

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct DemoReport {
    /// The configuration.
    pub config: DemoConfig,
    /// Named verification outcomes (all `true` on success; a failure aborts with an error).
    pub statuses: Vec<(&'static str, bool)>,
    /// The BTraceIn query: outputs `J`.
    pub trace_in_query: Vec<usize>,
    /// Its verified answer (DB-SM): the inputs that went to `J`.
    pub trace_in: Vec<usize>,
    /// The BTraceOut query: inputs `I`.
    pub trace_out_query: Vec<usize>,
    /// Its verified answer (DB-RSM): the outputs that came from `I`.
    pub trace_out: Vec<usize>,
    /// The outputs proven not to come from `I` (the complement of `trace_out`).
    pub trace_out_not_from: Vec<usize>,
    /// `ground_truth_permutation[j]` = the input that output `j` came from (demo only).
    pub ground_truth_permutation: Vec<usize>,
    /// Sizes in bytes of what is published.
    pub sizes: Vec<(&'static str, usize)>,
    /// `(section, row, duration)`; "per mixer" rows are means over the servers.
    pub timings: Vec<(&'static str, String, Duration)>,
}

/// Total encoded length of `items` under `encode` ([`quorate_mixnet::wire`], [`quorate_mixnet::wire_rsm`]):
/// the sizes reported are the bytes a recipient actually receives.
fn encoded_len<T>(
    items: &[T],
    encode: impl Fn(&T) -> Result<Vec<u8>, MixnetError>,
) -> Result<usize, MixnetError> {
    items.iter().map(|x| encode(x).map(|b| b.len())).sum()
}

/// Appends the servers' step rows of `section` (steps a server runs on its own state as the
/// mean per server, "(per mixer)"; checks of the others' work as their total) and the
/// `M_k total` row that sums them.
fn push_mixer_rows(section: &'static str, mt: &StepTimes, timings: &mut Timings) {
    let mut total = Duration::ZERO;
    for step in mt.steps() {
        let own = mt.entries.iter().any(|(s, w, _)| *s == step && w.is_some());
        let (label, d) = if own {
            (format!("{step} (per mixer)"), mt.mean_per_server(step))
        } else {
            (step.to_string(), mt.total(step))
        };
        total += d;
        timings.push((section, label, d));
    }
    timings.push((
        section,
        "M_k total (own work + checks of the others)".into(),
        total,
    ));
}

/// Runs everything once. Fails (with blame where a server misbehaved) if any check fails.
pub fn run_demo<R: RngCore + CryptoRng>(
    cfg: DemoConfig,
    rng: &mut R,
) -> Result<DemoReport, MixnetError> {
    let n = cfg.n;
    let mut timings = Timings {
        rows: Vec::new(),
        progress: cfg.progress,
        started: Instant::now(),
    };
    let mut statuses = Vec::new();
    let mf = f64::from(cfg.m);
    let per = |d: Duration| d.div_f64(mf);
    let mut sid_bytes = [0u8; 16];
    rng.fill_bytes(&mut sid_bytes);
    let sid = SessionId::new([b"quorate-mixnet-demo/".as_slice(), &sid_bytes].concat());

    // Preprocessing.
    let t0 = Instant::now();
    let primes = setup::DealerPrimes::generate(cfg.paillier_bits, rng)?;
    timings.push((
        "preprocessing",
        "dealer: four safe primes (Paillier N, ring-Pedersen Ñ)".into(),
        t0.elapsed(),
    ));
    let t0 = Instant::now();
    let (public, servers): (MixnetPublic, _) =
        setup::keygen_with_primes(sid, n, cfg.t, cfg.m, primes, rng)?;
    timings.push((
        "preprocessing",
        "keygen without the primes: DKG, Paillier dealing, permutation commitments + proofs (all servers)".into(),
        t0.elapsed(),
    ));
    let t0 = Instant::now();
    public.verify_setup()?;
    timings.push((
        "preprocessing",
        "Q: verify permutation-commitment proofs".into(),
        t0.elapsed(),
    ));
    statuses.push(("setup_proofs", true));

    // Input preparation and checking.
    let t0 = Instant::now();
    let mut submissions = Vec::with_capacity(n);
    let mut values = Vec::with_capacity(n);
    for i in 0..n {
        let v = Scalar::random(&mut *rng);
        submissions.push(sender::encrypt_for(&public, i as u64, v, rng)?.0);
        values.push(v);
    }
    timings.push((
        "input preparation",
        "senders: Enc + linking proof (all senders)".into(),
        t0.elapsed(),
    ));
    let t0 = Instant::now();
    let (accepted, rejected) = mix::check_inputs(&public, &submissions);
    timings.push((
        "checking inputs",
        "M/Q: check all sender proofs".into(),
        t0.elapsed(),
    ));
    if let Some(e) = rejected.into_iter().next() {
        return Err(e);
    }
    statuses.push(("input_checks", accepted.len() == n));

    // Mixing.
    let inputs: Vec<_> = submissions.iter().map(|s| s.c.clone()).collect();
    let t0 = Instant::now();
    let mut stages: Vec<MixStage> = Vec::new();
    for s in &servers {
        let prev = stages
            .last()
            .map(|st| st.outputs.as_slice())
            .unwrap_or(&inputs);
        stages.push(s.mix(&public, prev, rng)?);
    }
    timings.push((
        "mixing",
        "M_k: re-encrypt + shuffle + proof (per mixer)".into(),
        per(t0.elapsed()),
    ));
    let t0 = Instant::now();
    let last = mix::verify_mixing(&public, &inputs, &stages)?.to_vec();
    timings.push((
        "mixing",
        "verify all shuffle proofs (Q; each M_k verifies the others)".into(),
        t0.elapsed(),
    ));
    statuses.push(("mixing_proofs", true));
    let t0 = Instant::now();
    let decryptions: Vec<DecryptionStage> = servers
        .iter()
        .map(|s| s.decrypt(&public, &last))
        .collect::<Result<_, _>>()?;
    timings.push((
        "mixing",
        "M_k: threshold decryption shares + proofs (per mixer)".into(),
        per(t0.elapsed()),
    ));
    let t0 = Instant::now();
    let outputs = mix::verify_decryption(&public, &last, &decryptions)?;
    timings.push((
        "mixing",
        "verify all decryption shares + combine (Q)".into(),
        t0.elapsed(),
    ));
    statuses.push(("decryption_proofs", true));
    let record = mix::MixRecord {
        accepted,
        inputs,
        stages,
        decryptions,
        outputs,
    };
    let truth = mix::composed_permutation(&servers);
    statuses.push((
        "outputs_match_inputs",
        record.outputs.len() == n
            && record
                .outputs
                .iter()
                .enumerate()
                .all(|(j, o)| truth.get(j).and_then(|&i| values.get(i)) == Some(o)),
    ));

    // Preprocessing of the inputs for tracing: Enc-to-shares (once per input).
    let t0 = Instant::now();
    let (sharing, shares) = sharing::run_sharing(&public, &servers, &submissions, &record, rng)?;
    timings.push((
        "input sharing (once per input, for all queries)",
        "all servers: masks + proofs, decryption shares, with the checks (all servers)".into(),
        t0.elapsed(),
    ));
    let t0 = Instant::now();
    let share_coms = sharing::verify_sharing(&public, &submissions, &record, &sharing)?;
    timings.push((
        "input sharing (once per input, for all queries)",
        "Q: verify the sharing record".into(),
        t0.elapsed(),
    ));
    statuses.push(("input_sharing_proofs", true));

    // Forward set membership, worst case I = J = [n].
    let all: Vec<usize> = (0..n).collect();
    let t0 = Instant::now();
    let (_key, query) = membership::querier_sign(&public, &record.outputs, &all, &all, rng)?;
    timings.push((
        "forward set membership (DB-SM)",
        "Q: n BB signatures".into(),
        t0.elapsed(),
    ));
    let mut mt = StepTimes::default();
    let proof = membership::run_timed(
        &public,
        &servers,
        &submissions,
        &record,
        &shares,
        &share_coms,
        &query,
        rng,
        &mut mt,
    )?;
    push_mixer_rows("forward set membership (DB-SM)", &mt, &mut timings);
    let mut qt = StepTimes::default();
    let t0 = Instant::now();
    let members = membership::verify_timed(
        &public,
        &submissions,
        &record,
        &share_coms,
        &query,
        &proof,
        &mut qt,
    )?;
    let q_total = t0.elapsed();
    for step in qt.steps() {
        timings.push((
            "forward set membership (DB-SM)",
            step.to_string(),
            qt.total(step),
        ));
    }
    timings.push(("forward set membership (DB-SM)", "Q total".into(), q_total));
    statuses.push(("dbsm_all_members", members.iter().all(|m| *m)));

    // Reverse set membership (DB-RSM), worst case I = [n]: quasi-signatures (Fig. 9 steps
    // 2–3), then the servers' proof (signature track with the blinding commitments B_k,
    // witness track, Beaver on Pedersen commitments, DPK_BBS+) and the querier's check of
    // every message, all through `reverse_membership::run_timed` / `reverse_membership::verify_timed`.
    let rsm = "reverse set membership (DB-RSM)";
    let gammas: Vec<G1Projective> = record
        .accepted
        .iter()
        .filter_map(|&a| submissions.get(a).map(|s| s.gamma))
        .collect();
    let t0 = Instant::now();
    let (_bbs_key, bq) = reverse_membership::querier_quasi_sign(&public, &gammas, &all, rng)?;
    let q_sign = t0.elapsed();
    timings.push((rsm, "Q: n BBS+ quasi-signatures".into(), q_sign));
    let t0 = Instant::now();
    let (triples, mut triple_shares) = beaver::deal_triples(&public, &bq.query_id, n, rng);
    timings.push((
        rsm,
        "dealer: n Beaver triples + proofs (preprocessing)".into(),
        t0.elapsed(),
    ));
    let mut mt = StepTimes::default();
    let rsm_proof = reverse_membership::run_timed(
        &public,
        &servers,
        &submissions,
        &record,
        &triples,
        &mut triple_shares,
        &bq,
        rng,
        &mut mt,
    )?;
    push_mixer_rows(rsm, &mt, &mut timings);
    let mut qt = StepTimes::default();
    let t0 = Instant::now();
    let rsm_members = reverse_membership::verify_timed(
        &public,
        &submissions,
        &record,
        &triples,
        &bq,
        &rsm_proof,
        &mut qt,
    )?;
    let rsm_q = t0.elapsed() + q_sign;
    for step in qt.steps() {
        timings.push((rsm, step.to_string(), qt.total(step)));
    }
    timings.push((rsm, "Q total".into(), rsm_q));
    statuses.push(("dbrsm_quasi_signatures", true));
    statuses.push((
        "dbrsm_signature_track",
        rsm_proof
            .signature
            .s_tilde
            .iter()
            .all(|x| !bool::from(x.is_identity())),
    ));
    statuses.push((
        "dbrsm_witness_track",
        rsm_proof.witness.conversion.commits.len() == servers.len(),
    ));
    statuses.push((
        "dbrsm_beaver_openings",
        rsm_proof.beaver.len() == servers.len(),
    ));
    statuses.push(("dbrsm_all_members", rsm_members.iter().all(|m| *m)));
    let codec = &NativeShuffleCodec;
    let rsm_sig_bytes = wire_rsm::encode_bbs_query(&bq)?.len();
    let rsm_track_bytes = wire_rsm::encode_signature_track(codec, &rsm_proof.signature)?.len()
        + encoded_len(&rsm_proof.non_members, wire_rsm::encode_non_member_opening)?;
    let rsm_witness_bytes =
        wire_rsm::encode_witness_track(&public, codec, &rsm_proof.witness)?.len();
    let rsm_beaver_bytes = wire_rsm::encode_triples(&triples)?.len()
        + encoded_len(&rsm_proof.beaver, wire_rsm::encode_beaver_opening)?;
    let rsm_dpk_bytes = encoded_len(&rsm_proof.dpk, wire_rsm::encode_bbs_dpk_proof)?;

    // Tracing queries: BTraceIn(J) on DB-SM, BTraceOut(I) on DB-RSM (Fig. 6).
    let j_set: Vec<usize> = (0..n).filter(|j| j % 2 == 1).collect();
    let t0 = Instant::now();
    let tin = trace::btrace_in(
        &public,
        &servers,
        &submissions,
        &record,
        &shares,
        &share_coms,
        &j_set,
        rng,
    )?;
    timings.push((
        "tracing",
        "BTraceIn(J) via DB-SM (servers + querier)".into(),
        t0.elapsed(),
    ));
    let mut truth_in: Vec<usize> = j_set
        .iter()
        .filter_map(|&j| truth.get(j).copied())
        .collect();
    truth_in.sort_unstable();
    statuses.push(("trace_in_matches_ground_truth", tin.answer == truth_in));
    let i_set: Vec<usize> = (0..n).filter(|i| i % 3 == 0).collect();
    let t0 = Instant::now();
    // The dealer deals after the querier has fixed the query id (its own randomness).
    let deal = |q: &reverse_membership::BbsQuery| {
        beaver::deal_triples(&public, &q.query_id, q.inputs.len(), &mut rand_core::OsRng)
    };
    let tout = trace::btrace_out(&public, &servers, &submissions, &record, deal, &i_set, rng)?;
    timings.push((
        "tracing",
        "BTraceOut(I) via DB-RSM (dealer + servers + querier)".into(),
        t0.elapsed(),
    ));
    let truth_out: Vec<usize> = (0..n)
        .filter(|&j| truth.get(j).is_some_and(|i| i_set.contains(i)))
        .collect();
    statuses.push(("trace_out_matches_ground_truth", tout.answer == truth_out));

    // Sizes.
    let sizes = vec![
        (
            "sender upload (all senders)",
            encoded_len(&submissions, |x| wire::encode_sender_input(&public, x))?,
        ),
        (
            "public parameters: keys, generators, permutation commitments + proofs",
            wire::encode_mixnet_public(codec, &public)?.len(),
        ),
        (
            "mix: re-encrypted lists + shuffle proofs (all servers)",
            encoded_len(&record.stages, |x| wire::encode_mix_stage(&public, codec, x))?,
        ),
        (
            "mix: decryption shares with proofs (all servers)",
            encoded_len(&record.decryptions, |x| {
                wire::encode_decryption_stage(&public, x)
            })?,
        ),
        (
            "input sharing: mask commitments + proofs + decryption shares (all servers)",
            wire_rsm::encode_sharing_record(&public, Layout::Joint, &sharing)?.len(),
        ),
        ("DB-SM: BB signatures + key", wire::encode_bb_query(&query)?.len()),
        (
            "DB-SM: reverse shuffles + proofs",
            encoded_len(&proof.reverse, |x| wire::encode_reverse_stage(codec, x))?,
        ),
        (
            "DB-SM: blinding + proofs",
            encoded_len(&proof.blinding, wire::encode_blinding_stage)?,
        ),
        (
            "DB-SM: ElGamal decryption shares + S",
            encoded_len(&proof.decryption, wire::encode_elgamal_dec_stage)? + proof.s.len() * G1,
        ),
        (
            "DB-SM: DPK_BB proofs (commitments + responses, all servers)",
            encoded_len(&proof.dpk_commits, wire::encode_dpk_commit_stage)?
                + encoded_len(&proof.dpk_responses, wire::encode_dpk_response_stage)?,
        ),
        ("DB-RSM: BBS+ quasi-signatures + key", rsm_sig_bytes),
        (
            "DB-RSM: signature track (forward shuffles, blinding with B_k + proofs, decryption shares, S~, non-member openings)",
            rsm_track_bytes,
        ),
        (
            "DB-RSM: witness track (shuffles + proofs, conversion of the members)",
            rsm_witness_bytes,
        ),
        (
            "DB-RSM: Beaver triples (commitments + dealer proofs) and openings",
            rsm_beaver_bytes,
        ),
        (
            "DB-RSM: DPK_BBS+ proofs (Y_k, T_k, U_k, responses; all servers)",
            rsm_dpk_bytes,
        ),
    ];
    Ok(DemoReport {
        config: cfg,
        statuses,
        trace_in_query: j_set,
        trace_in: tin.answer,
        trace_out_query: i_set,
        trace_out: tout.answer,
        trace_out_not_from: tout.not_from,
        ground_truth_permutation: truth,
        sizes,
        timings: timings.rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn demo_runs_and_every_status_is_true() {
        let mut rng = ChaCha20Rng::seed_from_u64(31);
        let cfg = DemoConfig {
            n: 6,
            m: 2,
            t: 2,
            paillier_bits: quorate_mixnet::params::TEST_PAILLIER_BITS,
            progress: false,
        };
        let r = run_demo(cfg, &mut rng).expect("demo");
        assert!(r.statuses.iter().all(|(_, s)| *s), "{:?}", r.statuses);
        assert_eq!(r.trace_in.len(), r.trace_in_query.len());
        assert_eq!(r.trace_out.len(), r.trace_out_query.len());
        assert!(r.sizes.iter().all(|(_, b)| *b > 0));
        assert!(r.timings.iter().any(|(s, _, _)| s.starts_with("forward")));
        assert!(r.timings.iter().any(|(s, _, _)| s.starts_with("reverse")));
        assert!(r.statuses.iter().any(|(s, _)| s.starts_with("dbrsm")));
    }
}
