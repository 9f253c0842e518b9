//! One module per system. Each provides a default demo (for `quorate demo`), its own
//! subcommands, and a benchmark entry point (for `quorate bench <system>`).
//!
//! To add a system: add a module, a variant to [`System`], and the matching arms in
//! [`System::name`], [`System::run_default_demo`] and [`System::bench`] (plus its own
//! subcommand in `main.rs`).

use quorate_eval::bench::BenchSuite;

pub mod bls;
pub mod cosi;
pub mod ecdsa;
pub mod mixnet;
pub mod node;
pub mod node_bls;
pub mod node_escrow;
pub mod verenc;
pub mod witness;

/// The systems `quorate demo` and `quorate bench` know about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum System {
    /// Hot/cold threshold BLS signatures with key-share proofs.
    Bls,
    /// Threshold ECDSA (secp256k1) from OT-based multiplication.
    Ecdsa,
    /// CoSi witness cosigning (Ed25519-compatible collective signatures).
    Cosi,
    /// Verifiable encryption of discrete logs (CS03, TZ21) and key-share backup.
    Verenc,
    /// Traceable mixnet (threshold Paillier mixing, DB-SM tracing proofs).
    Mixnet,
    /// The node: one `quorate node run` process per party over loopback (ping, threshold
    /// ECDSA keygen and signing through the operator API).
    Node,
    /// Only the escrow rows of `node` (issue 16 §3): a refresh with and without an RDKGitH
    /// escrow over loopback nodes, and one node's escrow round in process (bench only).
    NodeEscrow,
    /// Only the ping and threshold ECDSA rows of `node` (issue 14): latency and sustained
    /// signing over loopback node processes (bench only).
    NodeEcdsa,
    /// Only the hot/cold BLS rows of `node` (issue 16 §3): registration, audit and recovery
    /// signing over loopback hot-node processes (bench only; `--large` adds (67,100)).
    NodeBls,
    /// The C2SP tlog-witness endpoint of one `quorate node run --public-http` process
    /// (`add-checkpoint` latency and cosignatures per second; bench only).
    Witness,
}

/// Options of `quorate bench <system>` beyond `--quick` (which lives in the suite).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BenchOptions {
    /// Also run the larger parameter sets.
    pub large: bool,
    /// Problem size for systems that take one (mixnet: number of senders).
    pub n: Option<usize>,
    /// Number of servers for systems that take one (mixnet: mix-servers).
    pub m: Option<u16>,
    /// Worker threads for systems that parallelise per element (default 1).
    pub threads: Option<usize>,
}

impl System {
    /// Every in-process system, in demo order (`quorate demo` runs these; the node's demo
    /// starts processes and is run with `quorate bench node` instead).
    pub const ALL: &'static [System] = &[
        System::Bls,
        System::Ecdsa,
        System::Cosi,
        System::Verenc,
        System::Mixnet,
    ];

    /// The system's short name (as typed on the command line).
    pub fn name(self) -> &'static str {
        match self {
            System::Bls => "bls",
            System::Ecdsa => "ecdsa",
            System::Cosi => "cosi",
            System::Verenc => "verenc",
            System::Mixnet => "mixnet",
            System::Node => "node",
            System::NodeEscrow => "node-escrow",
            System::NodeEcdsa => "node-ecdsa",
            System::NodeBls => "node-bls",
            System::Witness => "witness",
        }
    }

    /// Runs the system end to end on small defaults; returns a short human summary.
    pub fn run_default_demo(self) -> anyhow::Result<String> {
        match self {
            System::Bls => bls::run_default_demo(),
            System::Ecdsa => ecdsa::run_default_demo(),
            System::Cosi => cosi::run_default_demo(),
            System::Verenc => verenc::run_default_demo(),
            System::Mixnet => mixnet::run_default_demo(),
            System::Node | System::NodeEscrow | System::NodeEcdsa | System::NodeBls => {
                node::run_default_demo()
            }
            System::Witness => Ok(
                "the tlog-witness has no demo: run `quorate bench witness`, \
                                  or see the README section on pointing a tlog at a witness"
                    .to_string(),
            ),
        }
    }

    /// Adds the system's benchmark rows to `suite`.
    pub fn bench(self, suite: &mut BenchSuite, opts: BenchOptions) -> anyhow::Result<()> {
        match self {
            System::Bls => bls::bench(suite, opts.large),
            System::Ecdsa => ecdsa::bench(suite, opts.large),
            System::Cosi => cosi::bench(suite, opts.large),
            System::Verenc => verenc::bench(suite, opts.large, opts.threads),
            System::Mixnet => mixnet::bench(
                suite,
                opts.n.unwrap_or(100),
                opts.m.unwrap_or(4),
                opts.threads,
            ),
            System::Node => node::bench(suite)
                .and_then(|()| node_escrow::bench(suite))
                .and_then(|()| node_bls::bench(suite, opts.large)),
            System::NodeEscrow => node_escrow::bench(suite),
            System::NodeEcdsa => node::bench(suite),
            System::NodeBls => node_bls::bench(suite, opts.large),
            System::Witness => witness::bench(suite),
        }
    }
}
