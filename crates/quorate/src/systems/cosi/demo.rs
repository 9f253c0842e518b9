//! `quorate cosi demo` and the `quorate demo` entry: one in-process signing.

use super::CosiDemoArgs;
use anyhow::{anyhow, ensure};
use quorate_cosi::{
    sign_in_process, ExactMessage, Mode, Policy, Roster, Scenario, SecretKey, Signature, Tree,
    Witness,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, RngCore, SeedableRng};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the demo produced.
pub struct DemoOutput {
    /// Secret keys are not printed; the roster.
    pub roster: Arc<Roster>,
    /// Absent witnesses.
    pub absent: Vec<usize>,
    /// The signature.
    pub signature: Signature,
    /// Signing time.
    pub elapsed: Duration,
    /// Tree height.
    pub depth: usize,
}

/// Witness `i` for every key, cosigning exactly `message` (told out of band); for
/// [`Mode::Legacy`] the insecure legacy witnesses of the paper (feature `insecure-legacy`).
pub(super) fn local_witnesses(
    roster: &Arc<Roster>,
    keys: &[SecretKey],
    mode: Mode,
    message: &[u8],
) -> anyhow::Result<Vec<Witness>> {
    let witnesses = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let check = ExactMessage(message.to_vec());
            if mode == Mode::Legacy {
                Witness::new_insecure_legacy(roster.clone(), i, k.clone(), check)
            } else {
                Witness::new(roster.clone(), i, k.clone(), check)
            }
        })
        .collect::<Result<_, _>>()?;
    Ok(witnesses)
}

/// Runs one in-process signing with `n` witnesses, `absent` of them down.
pub fn run_demo(
    n: usize,
    absent: usize,
    message: &[u8],
    mode: Mode,
    rng: &mut ChaCha20Rng,
) -> anyhow::Result<DemoOutput> {
    ensure!(n >= 1, "need at least one witness");
    ensure!(
        n <= Roster::MAX_WITNESSES,
        "at most {} witnesses",
        Roster::MAX_WITNESSES
    );
    ensure!(absent < n, "at least one witness must be present");
    let keys: Vec<SecretKey> = (0..n).map(|_| SecretKey::generate(rng)).collect();
    let entries = keys.iter().map(|k| k.roster_entry(rng)).collect();
    let roster = Arc::new(Roster::new(entries)?);
    let mut pool: Vec<usize> = (0..n).collect();
    let mut down = Vec::new();
    for _ in 0..absent {
        let k = (rng.next_u64() % pool.len() as u64) as usize;
        down.push(pool.swap_remove(k));
    }
    down.sort_unstable();
    let tree = Tree::three_level(n)?;
    let scenario = Scenario::default()
        .with_absent(down.iter().copied())
        .with_mode(mode);
    let mut witnesses = local_witnesses(&roster, &keys, mode, message)?;
    let start = Instant::now();
    let (signature, report) = sign_in_process(
        &roster,
        &mut witnesses,
        &tree,
        message,
        &Policy::Threshold(1),
        &scenario,
        rng,
    )?;
    let elapsed = start.elapsed();
    roster.verify(message, &signature, &Policy::Threshold(n - absent))?;
    Ok(DemoOutput {
        roster,
        absent: down,
        signature,
        elapsed,
        depth: report.depth,
    })
}

/// `quorate cosi demo`.
pub fn demo(args: &CosiDemoArgs) -> anyhow::Result<()> {
    let mut rng = ChaCha20Rng::from_rng(OsRng).map_err(|e| anyhow!("rng: {e}"))?;
    let mode = if args.legacy {
        Mode::Legacy
    } else {
        Mode::TwoNonce
    };
    let message = args.message.as_bytes();
    let out = run_demo(args.witnesses, args.absent, message, mode, &mut rng)?;
    let roster = &out.roster;
    let sig = &out.signature;
    let participant_key = roster.aggregate_key_for_mask(sig.mask())?;
    if args.json {
        let keys: Vec<String> = roster
            .entries()
            .iter()
            .map(|e| hex::encode(e.public_key.as_bytes()))
            .collect();
        let entries: Vec<String> = roster
            .entries()
            .iter()
            .map(|e| hex::encode(e.to_bytes()))
            .collect();
        let json = serde_json::json!({
            "scheme": "cosi-ed25519",
            "mode": if args.legacy { "legacy" } else { "two-nonce" },
            "witnesses": roster.len(),
            "absent": out.absent,
            "participants": sig.mask().count(),
            "public_keys": keys,
            "roster_entries": entries,
            "roster_id": hex::encode(roster.id().0),
            "aggregate_public_key": hex::encode(roster.aggregate_key()),
            "participant_public_key": hex::encode(participant_key),
            "message": hex::encode(message),
            "signature": hex::encode(sig.to_bytes()),
            "ed25519_signature": hex::encode(sig.ed25519_bytes()),
            "mask": hex::encode(sig.mask().as_bytes()),
        });
        println!("{json}");
    } else {
        println!(
            "CoSi ({}) with {} witnesses, {} absent {:?}, tree depth {}",
            if args.legacy { "legacy" } else { "two-nonce" },
            roster.len(),
            out.absent.len(),
            out.absent,
            out.depth
        );
        println!("aggregate key      {}", hex::encode(roster.aggregate_key()));
        println!("participants' key  {}", hex::encode(participant_key));
        println!("signature          {}", hex::encode(sig.to_bytes()));
        println!(
            "signed and verified in {:.1} ms ({} participants)",
            out.elapsed.as_secs_f64() * 1e3,
            sig.mask().count()
        );
    }
    Ok(())
}

/// The `quorate demo` entry: 64 witnesses, 10 % absent.
pub fn run_default_demo() -> anyhow::Result<String> {
    let mut rng = ChaCha20Rng::from_rng(OsRng).map_err(|e| anyhow!("rng: {e}"))?;
    let out = run_demo(64, 6, b"quorate cosi demo", Mode::TwoNonce, &mut rng)?;
    Ok(format!(
        "CoSi: 64 witnesses, 6 absent, two-nonce mode; {}-byte signature verified under the \
         participants' key ({} signers) in {:.1} ms of in-process signing",
        out.signature.to_bytes().len(),
        out.signature.mask().count(),
        out.elapsed.as_secs_f64() * 1e3
    ))
}
