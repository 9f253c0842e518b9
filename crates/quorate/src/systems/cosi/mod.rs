//! CoSi witness cosigning: `quorate cosi demo`, `quorate cosi verify`, the `quorate demo`
//! entry and the `quorate bench cosi` rows (the paper's Figs. 4–6 on the network simulator,
//! plus the performance targets).
//!
//! * [`demo`](mod@demo): one in-process signing ([`demo::run_demo`]) and its printing.
//! * [`verify`](mod@verify): `quorate cosi verify` and the `--policy` grammar.
//! * [`bench`](mod@bench): the rows of `quorate bench cosi` (simulator runs, targets, plots).
//!
//! **Roster files.** `quorate cosi verify --roster FILE` reads a JSON array of hex **roster
//! entries** (96 bytes: key ‖ proof of possession), or an object with a `roster_entries`
//! array (the demo's JSON output), and checks every proof ([`quorate_cosi::Roster::from_json`]). A list of
//! bare public keys is refused (exit 2): without proofs, a key chosen as `a·B − ΣA_i` would
//! let one party sign for all.

use std::path::PathBuf;

pub mod bench;
pub mod demo;
pub mod verify;

pub use bench::{bench, PLOTS_ENV};
pub use demo::{demo, run_default_demo, run_demo, DemoOutput};
pub use verify::{parse_policy, verify};

/// Arguments of `quorate cosi demo`.
#[derive(Clone, Debug, clap::Args)]
pub struct CosiDemoArgs {
    /// Number of witnesses.
    #[arg(long, default_value_t = 16)]
    pub witnesses: usize,
    /// How many witnesses are down (left out through the mask).
    #[arg(long, default_value_t = 0)]
    pub absent: usize,
    /// The message to sign (UTF-8 text; printed hex-encoded in JSON).
    #[arg(long, default_value = "hello quorate")]
    pub message: String,
    /// Use the legacy (paper) two-round protocol instead of the two-nonce default.
    #[arg(long)]
    pub legacy: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `quorate cosi verify`.
#[derive(Clone, Debug, clap::Args)]
pub struct CosiVerifyArgs {
    /// JSON file: array of hex 96-byte roster entries (key ‖ proof of possession), or the
    /// demo's JSON output; bare public keys are refused; at most 4 MiB.
    #[arg(long)]
    pub roster: PathBuf,
    /// The signed message, hex.
    #[arg(long)]
    pub message: String,
    /// The signature R ‖ s ‖ mask, hex.
    #[arg(long)]
    pub signature: String,
    /// `complete`, `threshold:T`, `group:K:M,M,…` (at least K of the members satisfied; a
    /// member is a witness index or a nested group in parentheses, e.g.
    /// `group:2:0,1,(group:1:2,3)`) or `any` (= threshold:1, the default: the signature must
    /// verify under the participants' aggregate key and have at least one participant).
    #[arg(long, default_value = "any")]
    pub policy: String,
    /// Print one JSON object (`valid`, `signers`, `witnesses`, or `reason`; `error` on exit 2).
    #[arg(long)]
    pub json: bool,
}
