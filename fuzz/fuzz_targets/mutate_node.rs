//! Structure-aware target for quorate-node: a valid message (see
//! `quorate_fuzz::node`), mutated by an `arbitrary` list of [`quorate_fuzz::Mutation`]s,
//! decoded and then checked (group, proof and signature checks).
#![no_main]
use libfuzzer_sys::fuzz_target;
use quorate_fuzz::{checked, run_mutate, Case, MutateInput};

fuzz_target!(
    init: {
        quorate_fuzz::write_seeds("mutate_node", cases());
    },
    |input: MutateInput| run_mutate(cases(), &input)
);

fn cases() -> &'static [Case] {
    thread_local! {
        static CASES: &'static [Case] = checked(quorate_fuzz::node::cases());
    }
    CASES.with(|c| *c)
}
