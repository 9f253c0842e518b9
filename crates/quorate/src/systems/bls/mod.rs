//! Threshold BLS: `quorate bls demo`, `quorate bls verify`, the `quorate demo` entry and the
//! `quorate bench bls` rows.
//!
//! * [`demo`]: one end-to-end flow ([`demo::Flow::run`]): a KZG ceremony, n cold parties,
//!   ClientRegister, n checked hot registrations, one checked refresh, Π_DL and Π_EKS proofs
//!   (batch-verified), and a threshold signature by the first t parties that is checked by
//!   our verifier and by blst's.
//! * [`verify`](mod@verify): `quorate bls verify`.
//! * [`bench`](mod@bench): the rows of `quorate bench bls` (papers' Tables 1 and 2).
//! * [`deploy`]: hot/cold BLS across real parties: `bls setup`, `bls cold …`, `bls client
//!   init`, `bls register | refresh | request | sign | audit` (hot parties are nodes).

pub mod bench;
pub mod demo;
pub mod deploy;
pub mod verify;

pub use bench::bench;
pub use demo::{demo, run_default_demo};
pub use verify::verify;

/// Arguments of `quorate bls demo`.
#[derive(Clone, Debug, clap::Args)]
pub struct BlsDemoArgs {
    /// Threshold: signature shares needed to sign (2 to n).
    #[arg(short, long, default_value_t = 3,
          value_parser = clap::value_parser!(u16).range(2..=1024))]
    pub t: u16,
    /// Number of signers (2 to 1024).
    #[arg(short, long, default_value_t = 5,
          value_parser = clap::value_parser!(u16).range(2..=1024))]
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
