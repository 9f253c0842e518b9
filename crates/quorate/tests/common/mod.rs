//! Shared helpers of the CLI's process tests (`mod common;` in a test file).

// Each test binary uses only part of the harness.
#[allow(dead_code)]
pub mod bls;
#[allow(dead_code)]
pub mod cluster;
#[allow(dead_code)]
pub mod escrow;
#[allow(dead_code)]
pub mod relay;
