//! `quorate bls demo` and the `quorate demo` entry: the end-to-end [`Flow`], which the
//! benchmarks reuse to time single steps.

use super::BlsDemoArgs;
use crate::common::{ms_rounded as ms, os_rng, print_json};
use anyhow::{ensure, Context as _};
use quorate_bls::ciphersuite::verify_with_blst;
use quorate_bls::kzg::ceremony;
use quorate_bls::proofs::{batch_verify_cold, batch_verify_hot};
use quorate_bls::{
    combine, Client, ColdParty, ColdProof, Crs, GroupPublic, HotParty, HotProof, PartialSignature,
    ProofContext, PublicKey, Signature, VerifiedColdKeys, CIPHERSUITE_ID,
};
use quorate_core::bls12_381::wire::g1_to_bytes;
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use rand_core::{CryptoRng, RngCore};
use std::time::{Duration, Instant};

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

/// The state after a full run of the protocol, kept so the benches can time single steps.
pub struct Flow {
    pub(super) params: ThresholdParams,
    pub(super) crs: Crs,
    pub(super) ctx: ProofContext,
    pub(super) cold: Vec<ColdParty>,
    pub(super) cold_keys: VerifiedColdKeys,
    pub(super) client: Client,
    /// The combiner's record, after the refresh.
    pub(super) public: GroupPublic,
    /// The hot parties, after the refresh.
    pub(super) hot: Vec<HotParty>,
    pub(super) cold_proofs: Vec<ColdProof>,
    pub(super) hot_proofs: Vec<HotProof>,
    pub(super) partials: Vec<PartialSignature>,
    pub(super) message: Vec<u8>,
    pub(super) signature: Signature,
    pub(super) verified: bool,
    pub(super) verified_blst: bool,
    /// Wall-clock time of each phase, in order.
    pub(super) timings: Vec<(&'static str, Duration)>,
}

impl Flow {
    /// Runs the whole protocol for `(t, n)` and signs `message` with parties `1..=t`.
    pub(super) fn run<R: RngCore + CryptoRng>(
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

        // The combiner checks the record as a whole (PoP, SCRAPE) once; every hot party
        // checks its own payload (opening, K_i, the client's authorisation).
        registration
            .public
            .validate(&crs, rng)
            .context("the combiner rejected the record")?;
        ensure!(
            registration.payloads.len() == usize::from(n),
            "ClientRegister produced {} payloads for {n} parties",
            registration.payloads.len()
        );
        let mut hot = Vec::with_capacity(usize::from(n));
        for ((id, payload), pad) in PartyId::range(n).zip(&registration.payloads).zip(&pads) {
            let party = HotParty::register(
                &crs,
                id,
                &registration.public,
                &registration.authorization,
                payload,
                pad,
                rng,
            )
            .with_context(|| format!("hot party {id} rejected its registration"))?;
            hot.push(party);
        }
        lap("hot_register", &mut timings);

        // One refresh: the combiner checks all of it once; each hot party checks its own
        // part, the parties echo confirmations, take the combiner's record, then commit.
        let refresh = client
            .refresh(&crs, &registration.public, rng)
            .context("refresh")?;
        let accepted = registration
            .public
            .refreshed(&crs, &refresh.public, rng)
            .context("the combiner rejected the refresh")?;
        let mut pending = Vec::with_capacity(hot.len());
        for (party, share) in hot.iter().zip(&refresh.shares) {
            let next = party
                .refresh(&crs, &refresh.public, share, rng)
                .with_context(|| format!("hot party {} rejected the refresh", party.index()))?;
            pending.push(next);
        }
        let confirmations: Vec<_> = pending.iter().map(|p| p.confirmation()).collect();
        for p in &mut pending {
            for c in &confirmations {
                p.add_confirmation(c).context("refresh confirmation")?;
            }
            p.accept_record(&accepted)
                .context("hot party and combiner disagree on the refreshed record")?;
        }
        let public = accepted.into_record();
        let mut hot = hot;
        for (party, p) in hot.iter_mut().zip(pending) {
            party.commit(p).context("committing the refresh")?;
        }
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
        batch_verify_hot(&crs, &public, &hot_items, &ctx, rng).context("hot proofs (Π_EKS)")?;
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

    pub(super) fn t(&self) -> u16 {
        self.params.t()
    }

    pub(super) fn n(&self) -> u16 {
        self.params.n()
    }

    pub(super) fn vk(&self) -> PublicKey {
        *self.public.public_key()
    }

    pub(super) fn total(&self) -> Duration {
        self.timings.iter().map(|(_, d)| *d).sum()
    }

    /// A short human summary.
    pub(super) fn summary(&self) -> String {
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
    pub(super) fn to_json(&self) -> serde_json::Value {
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

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "NO"
    }
}

/// Runs threshold BLS end to end on small defaults and returns a short summary.
pub fn run_default_demo() -> anyhow::Result<String> {
    let mut rng = os_rng();
    let flow = Flow::run(3, 5, b"hello quorate", &mut rng)?;
    Ok(flow.summary())
}

/// `quorate bls demo`.
pub fn demo(args: &BlsDemoArgs) -> anyhow::Result<()> {
    let mut rng = os_rng();
    let flow = Flow::run(args.t, args.n, args.message.as_bytes(), &mut rng)?;
    if args.json {
        print_json(&flow.to_json())?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng as _;

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
}
