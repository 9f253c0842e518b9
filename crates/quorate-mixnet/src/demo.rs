//! A whole run for demos and benchmarks: keygen → Enc → input checking → Mix → DB-SM
//! (worst case `I = J = [n]`) → DB-RSM (quasi-signatures, signature track, the Paillier
//! witness track of steps 4–7 giving the servers shares of `c` and `r + r̂` with public
//! commitments, Beaver multiplication for `r′ = (r + r̂)·b`, DPK_BBS+) → one BTraceIn and
//! one BTraceOut, every proof verified as the querier, with wall-clock times per step and
//! the sizes of what is published. One gap remains in DB-RSM (see `rsm_witnesses`): the
//! protocol publishes no commitment to the blinding shares `b_k`, and the Beaver check
//! takes Feldman commitments, so the demo computes `B_k` and the Beaver input commitments
//! from the servers' shares.
//!
//! Sizes are computed from fixed-width encodings of every field (G1 48 B compressed, G2
//! 96 B, scalars 32 B, Paillier ciphertexts `⌈|N²|/8⌉` B, elements of `Z_N` `⌈|N|/8⌉` B,
//! integer responses their minimal big-endian length plus a 4-byte length); the crate has no
//! wire codec yet, so these are the sizes such a codec would produce.

use crate::dbrsm::{
    self, BbsDpkStatement, BlindingShares, TriplePublic, TripleShares, WitnessCommitments,
    WitnessShares,
};
use crate::dbsm::{self, DbSmProof, StepTimes};
use crate::error::MixnetError;
use crate::mix::MixRecord;
use crate::mix::{self, DecryptionStage, MixStage};
use crate::sender::{self, SenderInput};
use crate::setup::MixServer;
use crate::setup::{self, MixnetPublic};
use crate::sharing;
use crate::sharing::{MixerShares, ValueCommitments};
use crate::shuffle::ShuffleProof;
use crate::trace;
use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::transcript::SessionId;
use quorate_paillier::rug::Integer;
use quorate_paillier::threshold::DecryptionShare;
use rand_core::{CryptoRng, RngCore};
use std::time::{Duration, Instant};

const G1: usize = 48;
const G2: usize = 96;
const SC: usize = 32;
/// GT elements in the torus-compressed form (6 × 48 B).
const GT: usize = 288;

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
}

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct DemoReport {
    /// The configuration.
    pub config: DemoConfig,
    /// Named verification outcomes (all `true` on success; a failure aborts with an error).
    pub statuses: Vec<(&'static str, bool)>,
    /// The BTraceIn query `I`.
    pub trace_in_query: Vec<usize>,
    /// Its verified answer (outputs that came from `I`).
    pub trace_in: Vec<usize>,
    /// The BTraceOut query `J`.
    pub trace_out_query: Vec<usize>,
    /// Its verified answer (inputs that went to `J`).
    pub trace_out: Vec<usize>,
    /// `ground_truth_permutation[j]` = the input that output `j` came from (demo only).
    pub ground_truth_permutation: Vec<usize>,
    /// Sizes in bytes of what is published.
    pub sizes: Vec<(&'static str, usize)>,
    /// `(section, row, duration)`; "per mixer" rows are means over the servers.
    pub timings: Vec<(&'static str, String, Duration)>,
}

fn int_len(x: &Integer) -> usize {
    4 + (x.significant_bits() as usize).div_ceil(8)
}

fn shuffle_proof_size(p: &ShuffleProof, ct: usize, zn: usize) -> usize {
    let n = p.b.len();
    let ints: usize = p.k_e.iter().map(int_len).sum();
    G1 * (2 * n + 3)
        + SC * (n + 3)
        + ints
        + p.f_p.as_ref().map_or(0, |_| ct)
        + p.k_f.as_ref().map_or(0, |_| zn)
        + p.f_eg.map_or(0, |_| 2 * G1)
        + p.k_f_eg.map_or(0, |_| SC)
}

fn dec_share_size(s: &DecryptionShare, ct: usize) -> usize {
    let (e, z) = s.proof();
    2 + ct + int_len(e) + int_len(z)
}

fn sender_size(s: &SenderInput, ct: usize, zn: usize) -> usize {
    let p = &s.proof;
    4 * ct
        + 2 * G1
        + int_len(&p.z_v)
        + int_len(&p.z_r)
        + 2 * zn
        + 4 * zn
        + int_len(&p.z_mu_v)
        + int_len(&p.z_mu_r)
}

fn dbsm_sizes(p: &DbSmProof, ct: usize, zn: usize) -> (usize, usize, usize, usize, usize) {
    let reverse: usize = p
        .reverse
        .iter()
        .map(|s| 2 * G1 * s.outputs.len() + shuffle_proof_size(&s.proof, ct, zn))
        .sum();
    let blinding: usize = p
        .blinding
        .iter()
        .map(|s| s.contributions.len() * (4 * G1 + 2 * SC))
        .sum();
    let dec: usize = p
        .decryption
        .iter()
        .map(|s| s.shares.len() * (3 * G1 + SC))
        .sum::<usize>()
        + p.s.len() * G1;
    let commits: usize = p
        .dpk_commits
        .iter()
        .map(|s| s.commits.len() * (10 * G1 + 4 * SC))
        .sum();
    let responses: usize = p.dpk_responses.iter().map(|s| 4 * SC * s.z_b.len()).sum();
    (reverse, blinding, dec, commits, responses)
}

/// Runs everything once. Fails (with blame where a server misbehaved) if any check fails.
pub fn run_demo<R: RngCore + CryptoRng>(
    cfg: DemoConfig,
    rng: &mut R,
) -> Result<DemoReport, MixnetError> {
    let n = cfg.n;
    let mut timings: Vec<(&'static str, String, Duration)> = Vec::new();
    let mut statuses = Vec::new();
    let mf = f64::from(cfg.m);
    let per = |d: Duration| d.div_f64(mf);
    let mut sid_bytes = [0u8; 16];
    rng.fill_bytes(&mut sid_bytes);
    let sid = SessionId::new([b"quorate-mixnet-demo/".as_slice(), &sid_bytes].concat());

    // Preprocessing.
    let t0 = Instant::now();
    let (public, servers): (MixnetPublic, _) =
        setup::keygen(sid, n, cfg.t, cfg.m, cfg.paillier_bits, rng)?;
    timings.push((
        "preprocessing",
        "keygen: DKG, Paillier dealer, permutation commitments + proofs (all servers)".into(),
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
    let pk = public.paillier.encryption_key();
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
    let (_key, query) = dbsm::querier_sign(&public, &record.outputs, &all, &all, rng)?;
    timings.push((
        "forward set membership (DB-SM)",
        "Q: n BB signatures".into(),
        t0.elapsed(),
    ));
    let mut mt = StepTimes::default();
    let proof = dbsm::run_timed(
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
    let mut m_total = Duration::ZERO;
    for step in mt.steps() {
        let own = mt.entries.iter().any(|(s, w, _)| *s == step && w.is_some());
        let d = if own {
            mt.mean_per_server(step)
        } else {
            mt.total(step)
        };
        m_total += d;
        let label = if own {
            format!("{step} (per mixer)")
        } else {
            step.to_string()
        };
        timings.push(("forward set membership (DB-SM)", label, d));
    }
    timings.push((
        "forward set membership (DB-SM)",
        "M_k total (own work + checks of the others)".into(),
        m_total,
    ));
    let mut qt = StepTimes::default();
    let t0 = Instant::now();
    let members = dbsm::verify_timed(
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

    // Reverse set membership (DB-RSM): quasi-signatures (Fig. 9 steps 2–3), the signature
    // track (steps 5–7), the Paillier witness track (steps 4–7: shares of c and r + r̂ per
    // output), Beaver multiplication and DPK_BBS+ (step 8). The witnesses are the servers'
    // real shares; the commitments to b_k and the Beaver input commitments are computed
    // from the shares by the demo (no protocol message carries them yet).
    let rsm =
        "reverse set membership (DB-RSM; b and Beaver-input commitments computed by the demo)";
    let gammas: Vec<G1Projective> = record
        .accepted
        .iter()
        .filter_map(|&a| submissions.get(a).map(|s| s.gamma))
        .collect();
    let t0 = Instant::now();
    let (_bbs_key, bq) = dbrsm::querier_quasi_sign(&public, &gammas, &all, rng)?;
    timings.push((rsm, "Q: n BBS+ quasi-signatures".into(), t0.elapsed()));
    let t0 = Instant::now();
    dbrsm::check_quasi_signatures(&public, &gammas, &bq)?;
    timings.push((rsm, "M: check BBS+ quasi-signatures".into(), t0.elapsed()));
    statuses.push(("dbrsm_quasi_signatures", true));
    let t0 = Instant::now();
    let (track, bshares) = dbrsm::run_signature_track(&public, &servers, &bq, rng)?;
    timings.push((
        rsm,
        "forward shuffle + blinding + decryption of the signatures, with checks (per mixer)".into(),
        per(t0.elapsed()),
    ));
    let t0 = Instant::now();
    let s_tilde = dbrsm::verify_signature_track(&public, &bq, &track)?;
    timings.push((
        rsm,
        "Q: verify all forward shuffles, blinding proofs, decryption shares".into(),
        t0.elapsed(),
    ));
    statuses.push((
        "dbrsm_signature_track",
        s_tilde.iter().all(|x| !bool::from(x.is_identity())),
    ));
    let t0 = Instant::now();
    let (wtrack, wshares_all) =
        crate::witness::run_witness_track(&public, &servers, &submissions, &record, &bq, rng)?;
    timings.push((
        rsm,
        "Paillier witness track: forward shuffle + Enc-to-shares of c, r + r̂, with checks (per mixer)"
            .into(),
        per(t0.elapsed()),
    ));
    let t0 = Instant::now();
    let wcoms = crate::witness::verify_witness_track(&public, &submissions, &record, &bq, &wtrack)?;
    timings.push((
        rsm,
        "Q: verify the Paillier witness track (shuffles, mask proofs, decryption shares)".into(),
        t0.elapsed(),
    ));
    statuses.push(("dbrsm_witness_track", wcoms.len() == n));
    let (rsm_statements, rsm_shares, rsm_triples) = rsm_witnesses(
        &public,
        &servers,
        &wshares_all,
        &wcoms,
        &record,
        &bshares,
        &s_tilde,
        rng,
    )?;
    let (triples, triple_shares, x_coms, w_coms, xs, ws) = rsm_triples;
    let t0 = Instant::now();
    dbrsm::verify_triples(&public.gens.g, servers.len(), &triples)?;
    timings.push((
        rsm,
        "M/Q: verify the dealer's Beaver triples".into(),
        t0.elapsed(),
    ));
    let t0 = Instant::now();
    let openings = triple_shares
        .iter()
        .zip(xs.iter().zip(&ws))
        .map(|(sh, (x, w))| dbrsm::beaver_open(sh, x, w))
        .collect::<Result<Vec<_>, _>>()?;
    timings.push((rsm, "Beaver openings (per mixer)".into(), per(t0.elapsed())));
    let t0 = Instant::now();
    let opened =
        dbrsm::beaver_check_openings(&public.gens.g, &triples, &x_coms, &w_coms, &openings)?;
    timings.push((rsm, "M/Q: check all Beaver openings".into(), t0.elapsed()));
    let t0 = Instant::now();
    let products: Vec<Vec<Scalar>> = triple_shares
        .iter()
        .enumerate()
        .map(|(k, sh)| dbrsm::beaver_product_shares(sh, k == 0, &opened))
        .collect::<Result<_, _>>()?;
    let product_coms = dbrsm::beaver_product_commitments(&public.gens.g, &triples, &opened)?;
    timings.push((
        rsm,
        "Beaver product shares + commitments".into(),
        t0.elapsed(),
    ));
    let mut stmts = rsm_statements;
    let mut wshares = rsm_shares;
    for (j, st) in stmts.iter_mut().enumerate() {
        for (k, com) in st.coms.iter_mut().enumerate() {
            com.r = product_coms[k][j];
            wshares[j][k].w[2] = products[k][j];
        }
    }
    let t0 = Instant::now();
    let dpks = stmts
        .iter()
        .zip(&wshares)
        .map(|(st, sh)| dbrsm::bbs_dpk_prove(&public, &bq.y, st, sh, rng))
        .collect::<Result<Vec<_>, _>>()?;
    let rsm_m = per(t0.elapsed());
    timings.push((
        rsm,
        "DPK_BBS+ commitments + responses (per mixer)".into(),
        rsm_m,
    ));
    let t0 = Instant::now();
    dbrsm::bbs_dpk_verify(&public, &bq.y, &stmts, &dpks)?;
    timings.push((rsm, "Q: verify n DPK_BBS+ (batched)".into(), t0.elapsed()));
    statuses.push(("dbrsm_dpk_bbs_plus_on_witness_track_shares", true));
    // Totals: a mixer's own work (per-mixer rows) plus the checks every mixer runs ("M:",
    // "M/Q:", the public Beaver product commitments); the querier's rows ("Q:", "M/Q:", the
    // product commitments).
    let (mut rsm_mk, mut rsm_q) = (Duration::ZERO, Duration::ZERO);
    for (_, row, d) in timings.iter().filter(|(sec, _, _)| *sec == rsm) {
        let shared = row.starts_with("M/Q:") || row.starts_with("Beaver product");
        if shared || row.starts_with("M:") || row.ends_with("(per mixer)") {
            rsm_mk += *d;
        }
        if shared || row.starts_with("Q:") {
            rsm_q += *d;
        }
    }
    timings.push((
        rsm,
        "M_k total (own work + checks of the others)".into(),
        rsm_mk,
    ));
    timings.push((rsm, "Q total".into(), rsm_q));
    let rsm_sig_bytes = bq.sigs.len() * (G1 + 2 * SC) + G2;
    let rsm_dpk_bytes = dpks.len() * servers.len() * (2 * GT + 3 * G1 + 6 * SC);

    // Tracing queries.
    let i_set: Vec<usize> = (0..n).filter(|i| i % 3 == 0).collect();
    let t0 = Instant::now();
    let tin = trace::btrace_in(
        &public,
        &servers,
        &submissions,
        &record,
        &shares,
        &share_coms,
        &i_set,
        rng,
    )?;
    timings.push((
        "tracing",
        "BTraceIn (servers + querier)".into(),
        t0.elapsed(),
    ));
    let mut truth_in: Vec<usize> = (0..n)
        .filter(|&j| truth.get(j).is_some_and(|i| i_set.contains(i)))
        .collect();
    truth_in.sort_unstable();
    statuses.push(("trace_in_matches_ground_truth", tin.answer == truth_in));
    let j_set: Vec<usize> = (0..n).filter(|j| j % 2 == 1).collect();
    let t0 = Instant::now();
    let tout = trace::btrace_out(
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
        "BTraceOut (servers + querier)".into(),
        t0.elapsed(),
    ));
    let mut truth_out: Vec<usize> = j_set
        .iter()
        .filter_map(|&j| truth.get(j).copied())
        .collect();
    truth_out.sort_unstable();
    statuses.push(("trace_out_matches_ground_truth", tout.answer == truth_out));

    // Sizes.
    let ct = pk.ciphertext_len();
    let zn = (pk.modulus_bits() as usize).div_ceil(8);
    let (rev, blind, dec, commits, resp) = dbsm_sizes(&proof, ct, zn);
    let sizes = vec![
        (
            "sender upload (all senders)",
            submissions.iter().map(|s| sender_size(s, ct, zn)).sum(),
        ),
        (
            "permutation commitments + proofs (all servers)",
            public
                .perm_commitments
                .iter()
                .map(|c| c.u.len() * G1)
                .sum::<usize>()
                + public
                    .perm_proofs
                    .iter()
                    .map(|p| shuffle_proof_size(p, ct, zn))
                    .sum::<usize>(),
        ),
        (
            "mix: re-encrypted lists + shuffle proofs (all servers)",
            record
                .stages
                .iter()
                .map(|s| s.outputs.len() * ct + shuffle_proof_size(&s.proof, ct, zn))
                .sum(),
        ),
        (
            "mix: decryption shares with proofs (all servers)",
            record
                .decryptions
                .iter()
                .flat_map(|d| d.shares.iter())
                .map(|s| dec_share_size(s, ct))
                .sum(),
        ),
        (
            "input sharing: mask commitments + proofs + decryption shares (all servers)",
            sharing
                .commits
                .iter()
                .flat_map(|s| s.commits.iter())
                .map(|c| {
                    let p = &c.proof;
                    ct + G1
                        + 3 * zn
                        + [&p.c, &p.s_a, &p.s_b, &p.z_mu_a, &p.z_mu_b]
                            .iter()
                            .map(|x| int_len(x))
                            .sum::<usize>()
                })
                .sum::<usize>()
                + sharing
                    .decryptions
                    .iter()
                    .flat_map(|d| d.shares.iter())
                    .map(|s| dec_share_size(s, ct))
                    .sum::<usize>(),
        ),
        ("DB-SM: BB signatures + key", query.sigs.len() * G1 + G2),
        ("DB-SM: reverse shuffles + proofs", rev),
        ("DB-SM: blinding + proofs", blind),
        ("DB-SM: ElGamal decryption shares + S", dec),
        (
            "DB-SM: DPK_BB proofs (commitments + responses, all servers)",
            commits + resp,
        ),
        ("DB-RSM: BBS+ quasi-signatures + key", rsm_sig_bytes),
        (
            "DB-RSM: DPK_BBS+ proofs (Y_k, T_k, U_k, responses; all servers)",
            rsm_dpk_bytes,
        ),
    ];
    Ok(DemoReport {
        config: cfg,
        statuses,
        trace_in_query: i_set,
        trace_in: tin.answer,
        trace_out_query: j_set,
        trace_out: tout.answer,
        ground_truth_permutation: truth,
        sizes,
        timings,
    })
}

type DealtTriples = (
    Vec<TriplePublic>,
    Vec<TripleShares>,
    Vec<Vec<G1Projective>>,
    Vec<Vec<G1Projective>>,
    Vec<Vec<Scalar>>,
    Vec<Vec<Scalar>>,
);

/// DPK_BBS+ statements and witness shares from the protocol's shares: for every output
/// `j`, the servers' shares of `c_{π(j)}` with their public commitments `C_k` (Paillier
/// witness track, [`crate::witness`]), their blinding shares `b_k` (`S̃_j = S_{π(j)}^{Σb_k}`,
/// signature track) and the Beaver inputs `ρ_k` (shares of `r_{π(j)} + r̂_{π(j)}`, witness
/// track) and `b_k` for `r′ = ρ·b`. Computed here from the shares (the remaining gap, see the
/// module docs): the Pedersen commitments `B_k` to `b_k` and the Feldman commitments
/// `g^{ρ_k}`, `g^{b_k}` the Beaver check takes. The third witness and its commitment are
/// filled in from the Beaver run by the caller.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn rsm_witnesses<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    wshares: &[MixerShares],
    wcoms: &[Vec<ValueCommitments>],
    record: &MixRecord,
    bshares: &[BlindingShares],
    s_tilde: &[G1Projective],
    rng: &mut R,
) -> Result<(Vec<BbsDpkStatement>, Vec<Vec<WitnessShares>>, DealtTriples), MixnetError> {
    let (g, h) = (public.gens.g, public.gens.h);
    let m = servers.len();
    let n = public.n;
    let ids: Vec<_> = servers.iter().map(|s| s.id).collect();
    let (triples, triple_shares) = dbrsm::deal_triples(&g, &ids, n, rng);
    let mut stmts = Vec::with_capacity(n);
    let mut wsh = Vec::with_capacity(n);
    let mut xs = vec![Vec::with_capacity(n); m];
    let mut ws = vec![Vec::with_capacity(n); m];
    if wshares.len() != m || bshares.len() != m || wcoms.len() != n {
        return Err(MixnetError::InvalidQuery(
            "one share set per server, one commitment row per output",
        ));
    }
    for (j, wrow) in wcoms.iter().enumerate() {
        let mut coms = Vec::with_capacity(m);
        let mut row = Vec::with_capacity(m);
        for k in 0..m {
            let (vals, rand) = wshares[k]
                .value_shares(j)
                .ok_or(MixnetError::InvalidQuery("missing witness share"))?;
            let b = bshares[k]
                .b(j)
                .ok_or(MixnetError::InvalidQuery("missing blinding share"))?;
            let c_com = wrow
                .get(k)
                .ok_or(MixnetError::InvalidQuery("missing witness commitment"))?
                .v;
            xs[k].push(vals[1]);
            ws[k].push(b);
            let sb = Scalar::random(&mut *rng);
            coms.push(WitnessCommitments {
                c: c_com,
                b: g * b + h * sb,
                r: G1Projective::identity(),
            });
            row.push(WitnessShares {
                w: [vals[0], b, Scalar::ZERO],
                s: [rand[0], sb, Scalar::ZERO],
            });
        }
        let v_out = *record
            .outputs
            .get(j)
            .ok_or(MixnetError::InvalidQuery("missing output"))?;
        stmts.push(BbsDpkStatement {
            index: j,
            s_tilde: *s_tilde
                .get(j)
                .ok_or(MixnetError::InvalidQuery("missing S̃"))?,
            v_out,
            coms,
        });
        wsh.push(row);
    }
    let x_coms = xs
        .iter()
        .map(|v| v.iter().map(|x| g * x).collect())
        .collect();
    let w_coms = ws
        .iter()
        .map(|v| v.iter().map(|x| g * x).collect())
        .collect();
    Ok((stmts, wsh, (triples, triple_shares, x_coms, w_coms, xs, ws)))
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
            paillier_bits: crate::params::TEST_PAILLIER_BITS,
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
