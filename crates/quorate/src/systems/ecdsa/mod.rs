//! Threshold ECDSA (DKLs19 multiplication, DKLs23 signing).
//!
//! * [`demo`]: `quorate ecdsa demo` (every party in one process, also the `quorate demo`
//!   entry) and `quorate ecdsa verify`;
//! * [`bench`]: the `quorate bench ecdsa` rows;
//! * [`node`]: the client commands `quorate ecdsa keygen | sign | refresh --node DIR`, which
//!   run the protocols between real nodes through a node's operator API ([`node_client`]).

pub mod bench;
pub mod demo;
pub mod node;
pub mod node_client;

pub use bench::bench;
pub use demo::{demo, run_default_demo, verify, EcdsaDemoArgs, EcdsaVerifyArgs, MAX_DEMO_PARTIES};
