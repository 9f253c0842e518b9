//! One module per system. Each provides a default demo (for `quorate demo`), its own
//! subcommands, and a benchmark entry point (for `quorate bench <system>`).
//!
//! To add a system: add a module, a variant to [`System`], and the matching arms in
//! [`System::name`], [`System::run_default_demo`] and [`System::bench`] (plus its own
//! subcommand in `main.rs`).

use crate::bench::BenchSuite;

pub mod bls;
pub mod cosi;
pub mod ecdsa;

/// The systems `quorate demo` and `quorate bench` know about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum System {
    /// Hot/cold threshold BLS signatures with key-share proofs.
    Bls,
    /// Threshold ECDSA (secp256k1) from OT-based multiplication.
    Ecdsa,
    /// CoSi witness cosigning (Ed25519-compatible collective signatures).
    Cosi,
}

impl System {
    /// Every implemented system, in demo order.
    pub const ALL: &'static [System] = &[System::Bls, System::Ecdsa, System::Cosi];

    /// The system's short name (as typed on the command line).
    pub fn name(self) -> &'static str {
        match self {
            System::Bls => "bls",
            System::Ecdsa => "ecdsa",
            System::Cosi => "cosi",
        }
    }

    /// Runs the system end to end on small defaults; returns a short human summary.
    pub fn run_default_demo(self) -> anyhow::Result<String> {
        match self {
            System::Bls => bls::run_default_demo(),
            System::Ecdsa => ecdsa::run_default_demo(),
            System::Cosi => cosi::run_default_demo(),
        }
    }

    /// Adds the system's benchmark rows to `suite`; `large` asks for the bigger parameter sets.
    pub fn bench(self, suite: &mut BenchSuite, large: bool) -> anyhow::Result<()> {
        match self {
            System::Bls => bls::bench(suite, large),
            System::Ecdsa => ecdsa::bench(suite, large),
            System::Cosi => cosi::bench(suite, large),
        }
    }
}
