//! Test-only misbehaviour of an ECDSA node (feature `test-faults`): with
//! `QUORATE_TEST_ECDSA_FAULT=bad-ot` its round-1 signing messages carry a corrupted
//! OT-extension matrix (one bit flipped at byte 400), which each counterparty's consistency
//! check catches: the counterparty names this node and bans it for the key. Without the
//! feature none of this is compiled.

use crate::session::driver::Outgoing;

/// The environment variable naming the fault.
pub const FAULT_ENV: &str = "QUORATE_TEST_ECDSA_FAULT";

/// With `bad-ot`: flips a bit inside the OT-extension matrix of every round-1 message.
pub fn sign_round1(out: &mut [Outgoing]) {
    if std::env::var(FAULT_ENV).as_deref() != Ok("bad-ot") {
        return;
    }
    for o in out {
        if let Some(b) = o.payload.get_mut(400) {
            *b ^= 0x10;
        }
    }
}
