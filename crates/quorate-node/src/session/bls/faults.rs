//! Test-only misbehaviour of a hot node (feature `test-faults`): with
//! `QUORATE_TEST_BLS_FAULT=bad-partial` it answers signing requests with a wrong partial
//! signature; with `bad-proof` it answers audits with a Π_EKS proof for another block.
//! Without the feature none of this is compiled.

use quorate_bls::proofs::ProofContext;
use quorate_bls::PartialSignature;

/// The environment variable naming the fault.
pub const FAULT_ENV: &str = "QUORATE_TEST_BLS_FAULT";

fn fault() -> Option<String> {
    std::env::var(FAULT_ENV).ok()
}

/// With `bad-partial`: the partial's point replaced by another valid G1 point.
pub fn partial(p: PartialSignature) -> PartialSignature {
    if fault().as_deref() != Some("bad-partial") {
        return p;
    }
    let mut bytes = p.to_bytes();
    let other = quorate_bls::ciphersuite::hash_message(b"test-faults: not this party's partial");
    let at = bytes.len() - quorate_core::bls12_381::wire::G1_BYTES;
    bytes[at..].copy_from_slice(&quorate_core::bls12_381::wire::g1_to_bytes(&other));
    PartialSignature::from_bytes(&bytes).expect("a valid point")
}

/// With `bad-proof`: the proof is made for the next block, so it does not verify for the
/// auditor's.
pub fn audit_context(ctx: ProofContext) -> ProofContext {
    if fault().as_deref() != Some("bad-proof") {
        return ctx;
    }
    ProofContext {
        session: ctx.session,
        block_id: ctx.block_id.wrapping_add(1),
    }
}
