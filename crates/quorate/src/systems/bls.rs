//! Threshold BLS: `quorate bls demo`, `quorate bls verify`, the `quorate demo` entry and the
//! `quorate bench bls` rows.
//!
//! Everything goes through one end-to-end flow ([`Flow::run`]): a KZG ceremony, n cold
//! parties, ClientRegister, n checked hot registrations, one checked refresh, Π_DL and
//! Π_EKS proofs (batch-verified), and a threshold signature by the first t parties that is
//! checked by our verifier and by blst's.

use anyhow::{ensure, Context as _};
use quorate_bls::ciphersuite::verify_with_blst;
use quorate_bls::kzg::ceremony;
use quorate_bls::proofs::{batch_verify_cold, batch_verify_hot, verify_cold, verify_hot};
use quorate_bls::wire::{g1_to_bytes, G1_BYTES, SCALAR_BYTES};
use quorate_bls::{
    combine, Client, ColdParty, ColdProof, Crs, GroupPublic, HotParty, HotProof, PartialSignature,
    ProofContext, PublicKey, Signature, VerifiedColdKeys, CIPHERSUITE_ID,
};
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use quorate_eval::bench::{BenchSuite, PaperFigure};
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore, SeedableRng};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `quorate bls demo`.
#[derive(Clone, Debug, clap::Args)]
pub struct BlsDemoArgs {
    /// Threshold: signature shares needed to sign.
    #[arg(short, long, default_value_t = 3)]
    pub t: u16,
    /// Number of signers.
    #[arg(short, long, default_value_t = 5)]
    pub n: u16,
    /// The message to sign.
    #[arg(long, default_value = "hello quorate")]
    pub message: String,
    /// Print the result as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `quorate bls verify`.
#[derive(Clone, Debug, clap::Args)]
pub struct BlsVerifyArgs {
    /// The group public key, hex.
    #[arg(long)]
    pub public_key: String,
    /// The signed message, hex.
    #[arg(long)]
    pub message: String,
    /// The signature, hex.
    #[arg(long)]
    pub signature: String,
}

/// Contributors to the in-process KZG ceremony of the demo and the benches.
const CEREMONY_CONTRIBUTORS: usize = 3;
/// The session of the CRS ceremony.
const CRS_SESSION: &[u8] = b"quorate demo crs";
/// The session the key-share proofs are bound to.
const PROOF_SESSION: &[u8] = b"quorate demo";
/// The audit block the key-share proofs are requested for.
const PROOF_BLOCK: u64 = 1;
/// The largest `n` the demo accepts (the flow is quadratic in `n` in places).
const MAX_DEMO_PARTIES: u16 = 1024;

/// A fresh ChaCha20 generator seeded from the operating system.
fn os_seeded_rng() -> anyhow::Result<ChaCha20Rng> {
    ChaCha20Rng::from_rng(rand_core::OsRng)
        .map_err(|e| anyhow::anyhow!("seeding the random generator from the OS: {e}"))
}

/// The state after a full run of the protocol, kept so the benches can time single steps.
struct Flow {
    params: ThresholdParams,
    crs: Crs,
    ctx: ProofContext,
    cold: Vec<ColdParty>,
    cold_keys: VerifiedColdKeys,
    client: Client,
    /// The combiner's record, after the refresh.
    public: GroupPublic,
    /// The hot parties, after the refresh.
    hot: Vec<HotParty>,
    cold_proofs: Vec<ColdProof>,
    hot_proofs: Vec<HotProof>,
    partials: Vec<PartialSignature>,
    message: Vec<u8>,
    signature: Signature,
    verified: bool,
    verified_blst: bool,
    /// Wall-clock time of each phase, in order.
    timings: Vec<(&'static str, Duration)>,
}

impl Flow {
    /// Runs the whole protocol for `(t, n)` and signs `message` with parties `1..=t`.
    fn run<R: RngCore + CryptoRng>(
        t: u16,
        n: u16,
        message: &[u8],
        rng: &mut R,
    ) -> anyhow::Result<Flow> {
        let params = ThresholdParams::new(t, n)
            .with_context(|| format!("invalid threshold parameters t={t} n={n}"))?;
        ensure!(
            n <= MAX_DEMO_PARTIES,
            "n = {n} is too large for the demo (at most {MAX_DEMO_PARTIES} parties)"
        );
        let mut timings = Vec::new();
        let mut phase = Instant::now();
        let mut lap = |name: &'static str, timings: &mut Vec<(&'static str, Duration)>| {
            timings.push((name, phase.elapsed()));
            phase = Instant::now();
        };

        // Setup: powers-of-tau ceremony, no trusted dealer.
        let crs = ceremony::run_in_process(
            n,
            CEREMONY_CONTRIBUTORS,
            &SessionId::new(CRS_SESSION.to_vec()),
        )
        .context("KZG ceremony")?;
        lap("ceremony", &mut timings);

        // ColdRegister for every cold party.
        let mut cold: Vec<ColdParty> = PartyId::range(n)
            .map(|id| ColdParty::register(id, rng))
            .collect();
        let regs: Vec<_> = cold.iter().map(|c| c.registration(rng)).collect();
        let cold_keys =
            VerifiedColdKeys::verify(&regs, rng).context("cold registrations (Π_DL)")?;
        lap("cold_register", &mut timings);

        // ClientRegister.
        let client = Client::generate(rng);
        let registration = client
            .register(&crs, params, &cold_keys, rng)
            .context("ClientRegister")?;
        lap("client_register", &mut timings);

        // Every cold party learns the client (checking its proof of possession) and
        // returns K_i = k_i·g2 to its hot partner.
        let vk = client.public_key();
        let pop = client.proof_of_possession();
        let mut pads = Vec::with_capacity(usize::from(n));
        for party in &mut cold {
            let id = party.index();
            pads.push(
                party
                    .add_client(&vk, &pop)
                    .with_context(|| format!("cold party {id} rejected the client"))?,
            );
        }
        lap("cold_add_client", &mut timings);

        // Every hot party checks its payload.
        ensure!(
            registration.payloads.len() == usize::from(n),
            "ClientRegister produced {} payloads for {n} parties",
            registration.payloads.len()
        );
        let mut hot = Vec::with_capacity(usize::from(n));
        for ((id, payload), pad) in PartyId::range(n).zip(&registration.payloads).zip(&pads) {
            let party = HotParty::register(&crs, id, &registration.public, payload, pad, rng)
                .with_context(|| format!("hot party {id} rejected its registration"))?;
            hot.push(party);
        }
        lap("hot_register", &mut timings);

        // One refresh, checked by every hot party and by the combiner.
        let refresh = client
            .refresh(&crs, &registration.public, rng)
            .context("refresh")?;
        let mut refreshed = Vec::with_capacity(hot.len());
        for (party, share) in hot.iter().zip(&refresh.shares) {
            let next = party
                .refreshed(&crs, &refresh.public, share, rng)
                .with_context(|| format!("hot party {} rejected the refresh", party.index()))?;
            refreshed.push(next);
        }
        let hot = refreshed;
        let public = registration
            .public
            .refreshed(&crs, &refresh.public, rng)
            .context("the combiner rejected the refresh")?;
        ensure!(
            hot.iter().all(|h| h.public() == &public),
            "hot parties and combiner disagree on the refreshed public record"
        );
        lap("refresh", &mut timings);

        // Key-share proofs for one audit block, batch-verified.
        let ctx = ProofContext {
            session: SessionId::new(PROOF_SESSION.to_vec()),
            block_id: PROOF_BLOCK,
        };
        let cold_proofs: Vec<ColdProof> = cold.iter().map(|c| c.prove(&ctx, rng)).collect();
        let hot_proofs: Vec<HotProof> = hot.iter().map(|h| h.prove(&crs, &ctx, rng)).collect();
        lap("prove", &mut timings);
        let cold_items: Vec<_> = cold
            .iter()
            .zip(&cold_proofs)
            .map(|(c, p)| (c.index(), *c.public_key().point(), *p))
            .collect();
        batch_verify_cold(&cold_items, &ctx, rng).context("cold proofs (Π_DL)")?;
        let hot_items: Vec<_> = hot
            .iter()
            .zip(&hot_proofs)
            .map(|(h, p)| (h.index(), *p))
            .collect();
        batch_verify_hot(
            &crs,
            public.hot_share_commitment(),
            public.public_key().point(),
            &hot_items,
            &ctx,
            rng,
        )
        .context("hot proofs (Π_EKS)")?;
        lap("verify_proofs", &mut timings);

        // TSign with the first t parties, then combine and verify.
        let mut partials = Vec::with_capacity(usize::from(t));
        for (c, h) in cold.iter().zip(&hot).take(usize::from(t)) {
            let cold_partial = c
                .partial_sign(&vk, message)
                .with_context(|| format!("cold party {} partial signature", c.index()))?;
            let partial = h
                .partial_sign(message, &cold_partial)
                .with_context(|| format!("hot party {} partial signature", h.index()))?;
            partials.push(partial);
        }
        let signature =
            combine(&crs, &public, message, &partials, rng).context("combining the partials")?;
        let verified = vk.verify(message, &signature);
        let verified_blst = verify_with_blst(&vk.to_bytes(), message, &signature.to_bytes());
        ensure!(verified, "the combined signature does not verify");
        ensure!(verified_blst, "blst rejects the combined signature");
        lap("sign", &mut timings);

        Ok(Flow {
            params,
            crs,
            ctx,
            cold,
            cold_keys,
            client,
            public,
            hot,
            cold_proofs,
            hot_proofs,
            partials,
            message: message.to_vec(),
            signature,
            verified,
            verified_blst,
            timings,
        })
    }

    fn t(&self) -> u16 {
        self.params.t()
    }

    fn n(&self) -> u16 {
        self.params.n()
    }

    fn vk(&self) -> PublicKey {
        *self.public.public_key()
    }

    fn total(&self) -> Duration {
        self.timings.iter().map(|(_, d)| *d).sum()
    }

    /// A short human summary.
    fn summary(&self) -> String {
        let (t, n) = (self.t(), self.n());
        let message = match std::str::from_utf8(&self.message) {
            Ok(text) => format!("{text:?}"),
            Err(_) => format!("0x{}", hex::encode(&self.message)),
        };
        let phases: Vec<String> = self
            .timings
            .iter()
            .map(|(name, d)| format!("{name} {:.1}", ms(*d)))
            .collect();
        format!(
            "ciphersuite: {CIPHERSUITE_ID}\n\
             parties:     t={t} of n={n} (hot/cold pairs), epoch {} after one refresh\n\
             message:     {message}\n\
             public key:  {}\n\
             signature:   {}\n\
             checks:      {n} hot registrations, {n} refreshes, {n} Π_DL + {n} Π_EKS proofs \
             batch-verified, signature verified (ours: {}, blst: {})\n\
             time:        {:.1} ms ({})",
            self.public.epoch(),
            hex::encode(self.vk().to_bytes()),
            hex::encode(self.signature.to_bytes()),
            yes_no(self.verified),
            yes_no(self.verified_blst),
            ms(self.total()),
            phases.join(", "),
        )
    }

    /// The JSON output of `quorate bls demo --json`.
    fn to_json(&self) -> serde_json::Value {
        let timings: serde_json::Map<String, serde_json::Value> = self
            .timings
            .iter()
            .map(|(name, d)| ((*name).to_owned(), serde_json::json!(ms(*d))))
            .collect();
        serde_json::json!({
            "ciphersuite": CIPHERSUITE_ID,
            "t": self.t(),
            "n": self.n(),
            "epoch": self.public.epoch(),
            "public_key": hex::encode(self.vk().to_bytes()),
            "pop": hex::encode(self.public.proof_of_possession().to_bytes()),
            "message": hex::encode(&self.message),
            "message_text": String::from_utf8_lossy(&self.message),
            "signature": hex::encode(self.signature.to_bytes()),
            "signers": self.partials.iter().map(|p| p.index().get()).collect::<Vec<u16>>(),
            "com_t": hex::encode(g1_to_bytes(self.public.hot_share_commitment())),
            "verified": self.verified,
            "verified_blst": self.verified_blst,
            "cold_proofs_verified": self.cold_proofs.len(),
            "hot_proofs_verified": self.hot_proofs.len(),
            "proof_context": {
                "session": hex::encode(self.ctx.session.as_bytes()),
                "block_id": self.ctx.block_id,
            },
            "timings_ms": timings,
            "total_ms": ms(self.total()),
        })
    }
}

/// Milliseconds, rounded to the microsecond.
fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "NO"
    }
}

/// Runs threshold BLS end to end on small defaults and returns a short summary.
pub fn run_default_demo() -> anyhow::Result<String> {
    let mut rng = os_seeded_rng()?;
    let flow = Flow::run(3, 5, b"hello quorate", &mut rng)?;
    Ok(flow.summary())
}

/// `quorate bls demo`.
pub fn demo(args: &BlsDemoArgs) -> anyhow::Result<()> {
    let mut rng = os_seeded_rng()?;
    let flow = Flow::run(args.t, args.n, args.message.as_bytes(), &mut rng)?;
    if args.json {
        println!("{}", serde_json::to_string(&flow.to_json())?);
    } else {
        println!("{}", flow.summary());
        println!(
            "verify:      quorate bls verify --public-key={} --message={} --signature={}",
            hex::encode(flow.vk().to_bytes()),
            hex::encode(&flow.message),
            hex::encode(flow.signature.to_bytes()),
        );
    }
    Ok(())
}

/// Decodes a hex argument (an optional `0x` prefix and surrounding whitespace are allowed).
fn decode_hex(what: &str, text: &str) -> Result<Vec<u8>, String> {
    let trimmed = text.trim();
    let digits = trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
        .unwrap_or(trimmed);
    hex::decode(digits).map_err(|e| format!("{what}: invalid hex: {e}"))
}

/// The decoded inputs of `quorate bls verify` (the raw bytes are kept for blst).
struct VerifyInputs {
    public_key: PublicKey,
    message: Vec<u8>,
    signature: Signature,
    public_key_bytes: Vec<u8>,
    signature_bytes: Vec<u8>,
}

/// Decodes and validates the three inputs of `quorate bls verify`.
fn decode_verify_inputs(args: &BlsVerifyArgs) -> Result<VerifyInputs, String> {
    let public_key_bytes = decode_hex("public key", &args.public_key)?;
    let message = decode_hex("message", &args.message)?;
    let signature_bytes = decode_hex("signature", &args.signature)?;
    // The decoders' errors already name the item ("public key: …", "signature: …").
    let public_key = PublicKey::from_bytes(&public_key_bytes).map_err(|e| e.to_string())?;
    let signature = Signature::from_bytes(&signature_bytes).map_err(|e| e.to_string())?;
    Ok(VerifyInputs {
        public_key,
        message,
        signature,
        public_key_bytes,
        signature_bytes,
    })
}

/// `quorate bls verify`: exit code 0 if valid, 1 if invalid (reason on stdout), 2 for
/// malformed input (error on stderr).
pub fn verify(args: &BlsVerifyArgs) -> ExitCode {
    let inputs = match decode_verify_inputs(args) {
        Ok(inputs) => inputs,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let ours = inputs.public_key.verify(&inputs.message, &inputs.signature);
    let blst = verify_with_blst(
        &inputs.public_key_bytes,
        &inputs.message,
        &inputs.signature_bytes,
    );
    match (ours, blst) {
        (true, true) => {
            println!("valid");
            ExitCode::SUCCESS
        }
        (false, false) => {
            println!("invalid: the signature does not verify for this public key and message");
            ExitCode::from(1)
        }
        (true, false) => {
            println!("invalid: blst's verifier rejects a signature ours accepts (implementation mismatch)");
            ExitCode::from(1)
        }
        (false, true) => {
            println!(
                "invalid: our verifier rejects a signature blst accepts (implementation mismatch)"
            );
            ExitCode::from(1)
        }
    }
}

// ---------------------------------------------------------------------------------------
// bench
// ---------------------------------------------------------------------------------------

const PAPER_T1: &str = "paper Table 1";
const PAPER_T2: &str = "paper Table 2";
const REFERENCE: &str = "reference implementation";

/// The message signed by the benches (TSign rows use fresh random messages).
const BENCH_MESSAGE: &[u8] = b"quorate bench message";

/// Published figures for one `(t, n)` of Table 2, in milliseconds.
struct Table2 {
    t: u16,
    n: u16,
    client_register: f64,
    client_register_reference: f64,
    client_register_target: f64,
    client_refresh: f64,
    client_refresh_reference: f64,
    client_refresh_target: Option<f64>,
    hot_prove: f64,
    hot_verify: f64,
}

const TABLE2: [Table2; 3] = [
    Table2 {
        t: 3,
        n: 5,
        client_register: 10.0,
        client_register_reference: 8.9,
        client_register_target: 3.0,
        client_refresh: 11.0,
        client_refresh_reference: 3.2,
        client_refresh_target: None,
        hot_prove: 10.0,
        hot_verify: 14.0,
    },
    Table2 {
        t: 5,
        n: 20,
        client_register: 40.0,
        client_register_reference: 61.0,
        client_register_target: 10.0,
        client_refresh: 41.0,
        client_refresh_reference: 10.7,
        client_refresh_target: None,
        hot_prove: 40.0,
        hot_verify: 43.0,
    },
    Table2 {
        t: 67,
        n: 100,
        client_register: 170.0,
        client_register_reference: 352.0,
        client_register_target: 60.0,
        client_refresh: 172.0,
        client_refresh_reference: 233.0,
        client_refresh_target: Some(40.0),
        hot_prove: 170.0,
        hot_verify: 4.0,
    },
];

/// Hot-party refresh (`HotParty::refreshed`), Table 1.
const PAPER_HOT_REFRESH_MS: f64 = 5.0;
/// Π_EKS prove / verify of the reference implementation (independent of `(t, n)`).
const REFERENCE_HOT_PROVE_MS: f64 = 0.87;
const REFERENCE_HOT_VERIFY_MS: f64 = 1.4;
const TARGET_HOT_VERIFY_MS: f64 = 0.9;

/// `quorate bench bls`: adds the BLS rows to `suite`. All three of the paper's parameter
/// sets, (3,5), (5,20) and (67,100), run by default; `--quick` drops (67,100) unless
/// `--large` is also given.
pub fn bench(suite: &mut BenchSuite, large: bool) -> anyhow::Result<()> {
    let mut rng = os_seeded_rng()?;
    let with_large = large || !suite.is_quick();
    let sets = parameter_sets(with_large);

    let mut first: Option<Flow> = None;
    for (k, figures) in sets.iter().enumerate() {
        // Untimed setup: one CRS and one full run per (t, n).
        let flow = Flow::run(figures.t, figures.n, BENCH_MESSAGE, &mut rng)
            .with_context(|| format!("bench setup at t={} n={}", figures.t, figures.n))?;
        if k == 0 {
            bench_table1(suite, &flow, &mut rng)?;
        }
        bench_table2(suite, &flow, figures, &mut rng)?;
        if k == 0 {
            first = Some(flow);
        }
    }
    if let Some(flow) = &first {
        bench_sizes(suite, flow);
    }

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if !with_large {
        suite.note(
            "(t,n) = (67,100) not run in --quick mode; drop --quick (or add --large) for the \
             paper's largest set",
        );
    }
    suite.note(format!(
        "Table 1 rows are measured at t=3 n=5 (they do not depend on t,n); ClientRegister, \
         refresh dealing and FK openings use rayon on {cores} core(s)"
    ));
    suite.note(
        "TSign per party = ColdParty::partial_sign + HotParty::partial_sign on a fresh \
         message (each hashes it to G1); combine = batch check of the t partials against vs_i, \
         Lagrange combination and verification under vk",
    );
    suite.note(
        "client refresh = Client::refresh (dealing and signing C_δ, π_0, degree proof, Δvs_j, all \
         openings) + the combiner's GroupPublic::refreshed check",
    );
    suite.note(
        "Π_DL is 128 B, not 256 B: one cold key (dk_i, ek_i) instead of the reference's two \
         (see quorate_bls::notes); the refresh's private per-party proof is the KZG opening \
         π_δ,i (48 B)",
    );
    Ok(())
}

/// The `(t, n)` sets of Table 2 to run: all three, or only (3,5) and (5,20).
fn parameter_sets(with_large: bool) -> Vec<&'static Table2> {
    TABLE2
        .iter()
        .filter(|row| with_large || row.n <= 20)
        .collect()
}

/// Table 1: operations whose cost does not depend on `(t, n)`.
fn bench_table1(suite: &mut BenchSuite, flow: &Flow, rng: &mut ChaCha20Rng) -> anyhow::Result<()> {
    let params = format!("t={} n={}", flow.t(), flow.n());
    let samples = suite.samples(200, 20);
    let id = flow.cold[0].index();
    let vk = flow.vk();

    // ColdRegister.
    suite
        .time(
            "ColdRegister",
            &params,
            Some(PaperFigure::new(0.360, PAPER_T1)),
            samples,
            || ColdParty::register(id, rng),
        )
        .reference(PaperFigure::new(0.285, REFERENCE));

    // TSign per party: cold partial, then hot partial, on a fresh message.
    let (cold, hot) = (&flow.cold[0], &flow.hot[0]);
    let check = cold
        .partial_sign(&vk, BENCH_MESSAGE)
        .and_then(|c| hot.partial_sign(BENCH_MESSAGE, &c))
        .context("TSign sanity check")?;
    ensure!(check == flow.partials[0], "TSign is not deterministic");
    let mut msg_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    suite
        .time_with_setup(
            "TSign per party (cold + hot partial)",
            &params,
            Some(PaperFigure::new(0.890, PAPER_T1)),
            samples,
            || random_message(&mut msg_rng),
            |msg| {
                cold.partial_sign(&vk, &msg)
                    .and_then(|c| hot.partial_sign(&msg, &c))
            },
        )
        .reference(PaperFigure::new(0.818, REFERENCE))
        .target_ms(0.30);

    // Π_DL.
    suite
        .time(
            "Cold Prove (Π_DL)",
            &params,
            Some(PaperFigure::new(0.370, PAPER_T1)),
            samples,
            || cold.prove(&flow.ctx, rng),
        )
        .reference(PaperFigure::new(0.302, REFERENCE));
    let ek = *cold.public_key().point();
    verify_cold(&ek, id, &flow.ctx, &flow.cold_proofs[0]).context("Π_DL sanity check")?;
    let mut proof_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    suite
        .time_with_setup(
            "Cold Verify (Π_DL)",
            &params,
            Some(PaperFigure::new(0.560, PAPER_T1)),
            samples,
            || cold.prove(&flow.ctx, &mut proof_rng),
            |proof| verify_cold(&ek, id, &flow.ctx, &proof).is_ok(),
        )
        .reference(PaperFigure::new(0.586, REFERENCE))
        .target_ms(0.30);
    Ok(())
}

/// Table 2: operations whose cost grows with `(t, n)`, plus the hot-party refresh of
/// Table 1 (measured at every `(t, n)` because its checks grow with `n`).
fn bench_table2(
    suite: &mut BenchSuite,
    flow: &Flow,
    figures: &Table2,
    rng: &mut ChaCha20Rng,
) -> anyhow::Result<()> {
    let (t, n) = (flow.t(), flow.n());
    let params = format!("t={t} n={n}");
    let heavy = suite.samples(if n >= 100 { 15 } else { 30 }, 3);
    let medium = suite.samples(if n >= 100 { 30 } else { 100 }, 10);
    let fast = suite.samples(200, 20);
    let crs = &flow.crs;
    let public = &flow.public;
    let vk = flow.vk();

    // ClientRegister.
    suite
        .time(
            "ClientRegister",
            &params,
            Some(PaperFigure::new(figures.client_register, PAPER_T2)),
            heavy,
            || flow.client.register(crs, flow.params, &flow.cold_keys, rng),
        )
        .reference(PaperFigure::new(
            figures.client_register_reference,
            REFERENCE,
        ))
        .target_ms(figures.client_register_target);

    // Client refresh: dealing plus the combiner's check of the public part.
    let row = suite
        .time(
            "Client refresh (deal + combiner check)",
            &params,
            Some(PaperFigure::new(figures.client_refresh, PAPER_T2)),
            heavy,
            || {
                flow.client
                    .refresh(crs, public, rng)
                    .and_then(|r| public.refreshed(crs, &r.public, rng))
            },
        )
        .reference(PaperFigure::new(
            figures.client_refresh_reference,
            REFERENCE,
        ));
    if let Some(target) = figures.client_refresh_target {
        row.target_ms(target);
    }

    // Hot-party refresh: every check plus the state update, for party 1.
    let refresh = flow
        .client
        .refresh(crs, public, rng)
        .context("bench refresh")?;
    let hot = &flow.hot[0];
    hot.refreshed(crs, &refresh.public, &refresh.shares[0], rng)
        .context("hot refresh sanity check")?;
    suite.time(
        "Hot refresh (HotParty::refreshed)",
        &params,
        Some(PaperFigure::new(PAPER_HOT_REFRESH_MS, PAPER_T1)),
        medium,
        || hot.refreshed(crs, &refresh.public, &refresh.shares[0], rng),
    );

    // Π_EKS.
    suite
        .time(
            "Hot Prove (Π_EKS)",
            &params,
            Some(PaperFigure::new(figures.hot_prove, PAPER_T2)),
            fast,
            || hot.prove(crs, &flow.ctx, rng),
        )
        .reference(PaperFigure::new(REFERENCE_HOT_PROVE_MS, REFERENCE));
    let com_t = public.hot_share_commitment();
    let id = hot.index();
    verify_hot(crs, com_t, id, vk.point(), &flow.ctx, &flow.hot_proofs[0])
        .context("Π_EKS sanity check")?;
    let mut proof_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    suite
        .time_with_setup(
            "Hot Verify (Π_EKS)",
            &params,
            Some(PaperFigure::new(figures.hot_verify, PAPER_T2)),
            fast,
            || hot.prove(crs, &flow.ctx, &mut proof_rng),
            |proof| verify_hot(crs, com_t, id, vk.point(), &flow.ctx, &proof).is_ok(),
        )
        .reference(PaperFigure::new(REFERENCE_HOT_VERIFY_MS, REFERENCE))
        .target_ms(TARGET_HOT_VERIFY_MS);

    // Batch verification of all n proofs of each kind.
    let hot_items: Vec<_> = flow
        .hot
        .iter()
        .zip(&flow.hot_proofs)
        .map(|(h, p)| (h.index(), *p))
        .collect();
    suite.time(
        &format!("Hot batch verify ({n} × Π_EKS)"),
        &params,
        None,
        medium,
        || batch_verify_hot(crs, com_t, vk.point(), &hot_items, &flow.ctx, rng).is_ok(),
    );
    let cold_items: Vec<_> = flow
        .cold
        .iter()
        .zip(&flow.cold_proofs)
        .map(|(c, p)| (c.index(), *c.public_key().point(), *p))
        .collect();
    suite.time(
        &format!("Cold batch verify ({n} × Π_DL)"),
        &params,
        None,
        medium,
        || batch_verify_cold(&cold_items, &flow.ctx, rng).is_ok(),
    );

    // Combine t partials (batch-checked against vs_i) and verify the result under vk.
    let signers: Vec<(&ColdParty, &HotParty)> = flow
        .cold
        .iter()
        .zip(&flow.hot)
        .take(usize::from(t))
        .collect();
    let mut setup_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    let mut combine_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    let mut failures = 0usize;
    suite.time_with_setup(
        &format!("Combine + verify ({t} partials)"),
        &params,
        None,
        medium,
        || {
            let msg = random_message(&mut setup_rng);
            let partials: Vec<PartialSignature> = signers
                .iter()
                .filter_map(|(c, h)| {
                    c.partial_sign(&vk, &msg)
                        .and_then(|cp| h.partial_sign(&msg, &cp))
                        .ok()
                })
                .collect();
            (msg, partials)
        },
        |(msg, partials)| {
            let ok = combine(crs, public, &msg, &partials, &mut combine_rng)
                .map(|sig| vk.verify(&msg, &sig))
                .unwrap_or(false);
            if !ok {
                failures += 1;
            }
            ok
        },
    );
    ensure!(
        failures == 0,
        "{failures} combine + verify samples failed at t={t} n={n}"
    );
    Ok(())
}

/// Table 3: encoded sizes (ours from the actual encodings where the value is public).
fn bench_sizes(suite: &mut BenchSuite, flow: &Flow) {
    let vk = flow.vk().to_bytes().len();
    let ek = flow.cold_keys.keys()[0].to_bytes().len();
    let partial = g1_to_bytes(flow.partials[0].point()).len();
    let com_t = g1_to_bytes(flow.public.hot_share_commitment()).len();
    let pi_dl = flow.cold_proofs[0].to_bytes().len();
    let pi_eks = flow.hot_proofs[0].to_bytes().len();
    let sig = flow.signature.to_bytes().len();
    debug_assert_eq!(pi_dl, ColdProof::BYTES);
    debug_assert_eq!(pi_eks, HotProof::BYTES);
    suite.size("vk", "G2", Some(96), vk);
    suite.size("ek_i", "G2", Some(96), ek);
    suite.size("dk_i", "scalar", Some(32), SCALAR_BYTES);
    suite.size("hx_i", "scalar", Some(32), SCALAR_BYTES);
    suite.size("δ_i", "scalar", Some(32), SCALAR_BYTES);
    suite.size("partial signature σ_i", "G1", Some(48), partial);
    suite.size("com_T", "G1", Some(48), com_t);
    suite.size("Π_DL", "G2 + scalar", Some(256), pi_dl);
    suite.size("Π_EKS", "3 G1 + 2 scalars + G2", Some(304), pi_eks);
    suite.size("refresh proof π_δ,i", "G1", Some(48), G1_BYTES);
    suite.size("signature σ", "G1", None, sig);
}

fn random_message(rng: &mut ChaCha20Rng) -> Vec<u8> {
    let mut msg = vec![0u8; 32];
    rng.fill_bytes(&mut msg);
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_signs_and_verifies() -> anyhow::Result<()> {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let flow = Flow::run(2, 3, b"unit test", &mut rng)?;
        assert!(flow.verified && flow.verified_blst);
        assert_eq!(flow.public.epoch(), 1);
        let json = flow.to_json();
        for field in [
            "ciphersuite",
            "public_key",
            "message",
            "signature",
            "pop",
            "t",
            "n",
        ] {
            assert!(!json[field].is_null(), "{field} missing");
        }
        assert_eq!(json["signature"].as_str().map(str::len), Some(96));
        assert_eq!(json["public_key"].as_str().map(str::len), Some(192));
        Ok(())
    }

    #[test]
    fn bad_parameters_are_errors() {
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        for (t, n) in [(1, 3), (4, 3), (0, 0), (2, MAX_DEMO_PARTIES + 1)] {
            assert!(Flow::run(t, n, b"x", &mut rng).is_err(), "t={t} n={n}");
        }
    }

    #[test]
    fn hex_arguments() {
        assert_eq!(decode_hex("m", " 0xABcd "), Ok(vec![0xab, 0xcd]));
        assert_eq!(decode_hex("m", ""), Ok(vec![]));
        assert!(decode_hex("m", "0x1").is_err());
        assert!(decode_hex("m", "zz").is_err());
    }

    #[test]
    fn full_bench_runs_the_papers_three_parameter_sets() {
        let sets = |large| {
            parameter_sets(large)
                .iter()
                .map(|row| (row.t, row.n))
                .collect::<Vec<_>>()
        };
        assert_eq!(sets(true), [(3, 5), (5, 20), (67, 100)]);
        assert_eq!(sets(false), [(3, 5), (5, 20)]);
    }

    #[test]
    fn bench_quick_rows() -> anyhow::Result<()> {
        let mut suite = BenchSuite::new("bls", true);
        suite.set_progress(false);
        bench(&mut suite, false)?;
        let ops: Vec<&str> = suite.rows().iter().map(|r| r.operation.as_str()).collect();
        for want in ["ColdRegister", "ClientRegister", "Π_DL", "Π_EKS", "com_T"] {
            assert!(
                ops.iter().any(|o| o.contains(want)),
                "{want} missing: {ops:?}"
            );
        }
        assert!(suite.rows().iter().any(|r| r.params == "t=5 n=20"));
        Ok(())
    }
}
