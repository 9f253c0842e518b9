//! The JSON formats (the `json` target): byte 0 picks the format, the rest is the text.
//! * 0: a timestamp receipt (`Receipt::from_json`, what `quorate cosi timestamp verify`
//!   reads): whatever parses must survive `to_json`/`from_json` unchanged, and its full
//!   check against the round's roster must not panic (the seed is a valid receipt).
//! * 1: a hash in hex (`parse_hash_hex`, the timestamp API's and CLI's hash argument): what
//!   parses re-encodes to the same 64 lowercase hex digits, up to case.

use quorate_cosi::timestamp::{parse_hash_hex, InProcessCosigner, Receipt};
use std::sync::OnceLock;

struct Fixture {
    receipt: Receipt,
    cosigner: InProcessCosigner,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let (receipt, cosigner) = crate::cosi::receipt();
        let verifier = cosigner.verifier();
        receipt
            .verify(&verifier, None)
            .expect("the valid receipt verifies");
        Fixture { receipt, cosigner }
    })
}

/// The seeds: the valid receipt and a valid hash.
pub fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let f = fixture();
    let mut receipt = vec![0u8];
    receipt.extend_from_slice(f.receipt.to_json().as_bytes());
    let mut hash = vec![1u8];
    hash.extend_from_slice(hex::encode(f.receipt.hash).as_bytes());
    vec![("receipt", receipt), ("hash", hash)]
}

/// Runs one input.
pub fn run(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    match sel % 2 {
        0 => {
            let Ok(r) = Receipt::from_json(text) else {
                return;
            };
            assert_eq!(Receipt::from_json(&r.to_json()).expect("re-parses"), r);
            let f = fixture();
            let ok = r.verify(&f.cosigner.verifier(), None).is_ok();
            if ok {
                // Only the fields the signature and the inclusion proof cover can vary.
                assert_eq!(r.root, f.receipt.root);
            }
        }
        _ => {
            if let Some(h) = parse_hash_hex(text) {
                assert_eq!(hex::encode(h), text.trim_ascii().to_ascii_lowercase());
            }
        }
    }
}
