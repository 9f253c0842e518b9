//! Traceable mixnet (seed 001): `quorate mixnet demo`, the `quorate demo` entry and the
//! `quorate bench mixnet` rows. The protocol lives in `quorate-mixnet`, the timed whole run
//! in [`quorate_eval::mixnet::run_demo`]; this module runs it and prints the results.
//!
//! * [`demo`](mod@demo): `quorate mixnet demo` and its JSON / text output.
//! * [`bench`](mod@bench): the rows of `quorate bench mixnet` beside the artifact's figures.

pub mod bench;
pub mod demo;

pub use bench::bench;
pub use demo::{demo, run_default_demo, to_json};

use quorate_eval::mixnet::{run_demo, DemoConfig, DemoReport};
use quorate_mixnet::params::PRODUCTION_PAILLIER_BITS;
use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, RngCore, SeedableRng};

/// What the crate does not implement yet (printed with every demo and benchmark).
pub const NOT_IMPLEMENTED: &[&str] = &[
    "Beaver triples for DB-RSM come from a trusted dealer (a documented preprocessing assumption; their multiplication proofs are checked, but a dealer colluding with the querier breaks DB-RSM privacy)",
    "the threshold-Paillier key and the ring-Pedersen modulus come from a dealer (a documented setup assumption)",
    "all servers run in one process (every message has a checked wire encoding, but there is no network transport yet)",
];

/// Arguments of `quorate mixnet demo`.
#[derive(Clone, Debug, clap::Args)]
pub struct MixnetDemoArgs {
    /// Number of senders (1 to 10000).
    #[arg(long, default_value_t = 10,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    pub n: usize,
    /// Number of mix-servers (1 to 1024).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub m: u16,
    /// Decryption threshold (1 to m; default: m).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub t: Option<u16>,
    /// Paillier modulus bits (1024 to 8192; 3072 for 128-bit security, 1024 only for quick
    /// tests).
    #[arg(long, default_value_t = PRODUCTION_PAILLIER_BITS,
          value_parser = clap::value_parser!(u32).range(1024..=8192))]
    pub paillier_bits: u32,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub(super) fn os_rng() -> ChaCha20Rng {
    let mut seed = [0u8; 32];
    OsRng.fill_bytes(&mut seed);
    ChaCha20Rng::from_seed(seed)
}

/// One whole run; `progress` prints each timed row to standard error as it is measured.
pub(super) fn run(
    n: usize,
    m: u16,
    t: Option<u16>,
    bits: u32,
    progress: bool,
) -> anyhow::Result<DemoReport> {
    let cfg = DemoConfig {
        n,
        m,
        t: t.unwrap_or(m),
        paillier_bits: bits,
        progress,
    };
    run_demo(cfg, &mut os_rng()).map_err(|e| anyhow::anyhow!("mixnet run failed: {e}"))
}
