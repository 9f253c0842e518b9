//! Round trips from typed values built with `arbitrary` (see `quorate_fuzz::roundtrip`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|v: quorate_fuzz::roundtrip::Value| quorate_fuzz::roundtrip::run(&v));
