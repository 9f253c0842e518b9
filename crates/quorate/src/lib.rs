//! # quorate (command-line tool)
//!
//! The library half of the `quorate` binary. `src/main.rs` only parses arguments and
//! dispatches here.
//!
//! * [`systems`]: one module per implemented system, each split into its command-line
//!   arguments (`mod.rs`), `demo`, `verify` and `bench` parts.
//! * [`common`]: what every command shares: hex arguments, the exit-code rule, JSON output,
//!   the seeded RNG, millisecond conversions.
//! * [`files`]: bounded reads (every input file is capped at 4 MiB) and atomic, 0600,
//!   never-silently-overwritten key and secret files.
//! * [`timestamp`]: the glue for `quorate cosi timestamp` over the `quorate-timestamp`
//!   service crate.
//!
//! The benchmark harness, the simulations and the plots live in `quorate-eval`.

pub mod common;
pub mod files;
pub mod systems;
pub mod timestamp;
