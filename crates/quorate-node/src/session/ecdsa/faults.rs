//! Test-only misbehaviour of an ECDSA node (feature `test-faults`): with
//! `QUORATE_TEST_ECDSA_FAULT=bad-ot` its round-1 signing messages carry a corrupted
//! OT-extension matrix (one bit flipped at byte 400), which each counterparty's consistency
//! check catches: the counterparty names this node and bans it for the key. With
//! `QUORATE_TEST_ECDSA_FAULT=oversized` they are one byte longer than the round's payload
//! limit ([`super::limits::sign`]), which each counterparty refuses before decoding, naming
//! this node with the signed envelope as evidence. Without the feature none of this is
//! compiled.

use crate::session::driver::Outgoing;

/// The environment variable naming the fault.
pub const FAULT_ENV: &str = "QUORATE_TEST_ECDSA_FAULT";

/// With `bad-ot`: flips a bit inside the OT-extension matrix of every round-1 message. With
/// `oversized`: pads every round-1 message to one byte over the round's limit.
pub fn sign_round1(out: &mut [Outgoing]) {
    match std::env::var(FAULT_ENV).as_deref() {
        Ok("bad-ot") => {
            for o in out {
                if let Some(b) = o.payload.get_mut(400) {
                    *b ^= 0x10;
                }
            }
        }
        Ok("oversized") => {
            // The round-1 limit does not depend on the number of signers.
            let over = super::limits::sign(1, 0) + 1;
            for o in out {
                o.payload.resize(over.max(o.payload.len() + 1), 0);
            }
        }
        _ => {}
    }
}
