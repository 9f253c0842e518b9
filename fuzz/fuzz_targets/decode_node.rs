//! Plain decoder target for quorate-node: byte 0 picks the decoder (see
//! `quorate_fuzz::node`), the rest is the input; accepted inputs must be canonical.
#![no_main]
use libfuzzer_sys::fuzz_target;
use quorate_fuzz::{checked, run_decode, Case};

fuzz_target!(
    init: {
        quorate_fuzz::write_seeds("decode_node", cases());
    },
    |data: &[u8]| run_decode(cases(), data)
);

fn cases() -> &'static [Case] {
    thread_local! {
        static CASES: &'static [Case] = checked(quorate_fuzz::node::cases());
    }
    CASES.with(|c| *c)
}
