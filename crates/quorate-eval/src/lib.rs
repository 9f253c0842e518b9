//! # quorate-eval
//!
//! Everything that measures the protocols rather than implementing them: network
//! simulations over `quorate-net`, baselines from the papers, benchmark harnesses and plots.
//! The protocol crates never depend on this crate (nor on `quorate-net`), so a normal build of
//! a protocol crate carries no simulator, timer or plotting code.
//!
//! * [`bench`]: the harness behind every `quorate bench <system>`: [`bench::BenchSuite`]
//!   times operations (warm-up, then median/min/max over samples), records sizes, compares
//!   each row with a published figure and prints the machine header, the table and JSON.
//! * [`cosi`]: CoSi and the paper's baselines (Naive, NTree, JVSS) on the network simulator.
//! * [`mixnet`]: a whole timed mixnet run (keygen → Mix → DB-SM → DB-RSM → tracing) for the
//!   CLI demo and `quorate bench mixnet`.
//! * [`paillier`]: modexp, fixed-base, Paillier and threshold-Paillier measurements (GMP
//!   against crypto-bigint, the CS03 note's backend) and the design notes' figures.
//! * [`plot`]: SVG line charts for the papers' figures.
//! * `timestamp` (feature `timestamp`): the timestamp service's sustained submits per
//!   second over HTTP on loopback.
//!
//! ```
//! use quorate_eval::bench::BenchSuite;
//!
//! let mut suite = BenchSuite::new("example", true);
//! suite.set_progress(false);
//! suite.time("sum 1..1000", "", None, 5, || (1..1000u64).sum::<u64>());
//! suite.size("a u64", "", None, 8);
//! assert_eq!(suite.rows().len(), 2);
//! assert!(suite.table().contains("sum 1..1000"));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bench;
pub mod cosi;
pub mod ecdsa;
pub mod mixnet;
pub mod paillier;
pub mod plot;
#[cfg(feature = "timestamp")]
pub mod timestamp;
