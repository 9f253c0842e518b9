//! The `quorate` CLI's integration tests, as ONE test binary: each module is a former
//! `tests/<name>.rs` binary, with its tests and their names unchanged (run one group with
//! `cargo test -p quorate --release --test cli cli_node_crash::`). One binary links the CLI
//! and its dependencies once instead of 25 times, which was most of CI's build time for
//! this crate (docs/reliability.md, "CI").
//!
//! The process tests share the harness in `common` (a cluster of real `quorate node run`
//! processes, BLS deployments, escrow keys, test relays). Tests of different modules run in
//! parallel in one process: nothing here sets environment variables or changes the working
//! directory, and `common::cluster` hands each test its own ports and directories.

mod common;

mod cli;
mod cli_cosi;
mod cli_cosi_witness;
mod cli_hardening;
mod cli_node;
mod cli_node_bls;
mod cli_node_bls_faults;
mod cli_node_bls_register;
mod cli_node_crash;
mod cli_node_ecdsa;
mod cli_node_ecdsa_ban;
mod cli_node_ecdsa_kill;
mod cli_node_ecdsa_resolve;
mod cli_node_escrow;
mod cli_node_escrow_fault;
mod cli_node_escrow_restore;
mod cli_node_network_faults;
mod cli_node_policy;
mod cli_node_request_id;
mod cli_node_run;
mod cli_node_wire_limits;
mod cli_timestamp;
mod cli_tlog_witness;
mod cli_verenc;
mod repo_files;
