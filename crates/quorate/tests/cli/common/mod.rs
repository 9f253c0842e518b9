//! Shared helpers of the CLI's process tests (`use crate::common::...` in a test module).

pub mod bls;
pub mod cluster;
pub mod escrow;
pub mod relay;
