//! Fault-injection hooks on the signing messages (feature `test-faults`; also compiled for
//! the crate's own unit tests). A normal build does not contain them.

use super::messages::{body_sig_message, BlameMsg, Body, DisputeMsg, Entry, SignMsg2};
use crate::curve::point_bytes;
use crate::keyshare::KeyShare;
use ed25519_dalek::Signer;
use k256::{ProjectivePoint, Scalar};
use quorate_core::PartyId;

impl Entry {
    /// `Γ_u + e_u`, `Γ_v + e_v` (outputs inconsistent with `R_i` or `pk_i`).
    fn shift_gammas_for_test(&mut self, e_u: ProjectivePoint, e_v: ProjectivePoint) {
        self.gamma_u += e_u;
        self.gamma_u_bytes = point_bytes(&self.gamma_u);
        self.gamma_v += e_v;
        self.gamma_v_bytes = point_bytes(&self.gamma_v);
    }
}

impl SignMsg2 {
    /// Re-encodes the body after a change to its fields, re-signing it with `key`'s identity
    /// key when it was signed.
    fn rebuild_for_test(&mut self, key: &KeyShare) {
        let b = &self.signed.body;
        let body = Body::new(
            b.from,
            b.sid,
            b.big_r,
            b.big_r_bytes,
            b.salt,
            b.pk,
            &point_bytes(&b.pk),
            b.hashes.clone(),
        );
        if self.signed.signature.is_some() {
            self.signed.signature = Some(key.identity.sign(&body_sig_message(&body.bytes)));
        }
        self.signed.body = body;
    }

    /// Fault-injection hook: shifts `Γ_u` by `e_u` and `Γ_v` by `e_v` in the entry for the
    /// recipient (outputs inconsistent with `R_i` or `pk_i`), updating its hash in the body
    /// and re-signing the body with `key`, so only the Γ check can catch it.
    pub fn corrupt_gamma_for_test(
        &mut self,
        key: &KeyShare,
        e_u: ProjectivePoint,
        e_v: ProjectivePoint,
    ) {
        self.entry.shift_gammas_for_test(e_u, e_v);
        let (from, sid, to) = (self.signed.body.from, self.signed.body.sid, self.entry.to);
        let h = self.entry.hash(&sid, from);
        if let Some(slot) = self.signed.body.hashes.iter_mut().find(|(k, _)| *k == to) {
            slot.1 = h;
        }
        self.rebuild_for_test(key);
    }

    /// Fault-injection hook: changes `ψ` in the p2p entry without updating its hash in the
    /// (signed) body.
    pub fn corrupt_entry_for_test(&mut self) {
        self.entry.psi += Scalar::ONE;
    }

    /// Fault-injection hook: shifts `pk_i` (a public key share that is not `λ_i·T_i`),
    /// re-signing the body with `key`.
    pub fn corrupt_pk_for_test(&mut self, key: &KeyShare) {
        self.signed.body.pk += ProjectivePoint::GENERATOR;
        self.rebuild_for_test(key);
    }

    /// Fault-injection hook: equivocation. Changes the entry hash for the first co-signer
    /// other than `to` (which `to` does not check) and re-signs the body with `key`, so
    /// `to` receives a validly signed body that differs from everyone else's.
    pub fn equivocate_for_test(&mut self, to: PartyId, key: &KeyShare) {
        if let Some(slot) = self.signed.body.hashes.iter_mut().find(|(k, _)| *k != to) {
            slot.1[0] ^= 1;
        }
        self.rebuild_for_test(key);
    }

    /// Fault-injection hook: flips a bit of the identity signature (if any).
    pub fn corrupt_signature_for_test(&mut self) {
        if let Some(sig) = self.signed.signature.as_mut() {
            let mut b = sig.to_bytes();
            b[5] ^= 1;
            *sig = ed25519_dalek::Signature::from_bytes(&b);
        }
    }

    /// Fault-injection hook: drops a row of the multiplication message (wrong length).
    pub fn truncate_mul_for_test(&mut self) {
        self.mul.truncate_for_test();
    }
}

impl BlameMsg {
    /// Fault-injection hook: changes `ψ` in the first published entry (which then no longer
    /// matches its hash in the signer's body).
    pub fn corrupt_entry_for_test(&mut self) {
        if let Some(e) = self.entries.first_mut() {
            e.psi += Scalar::ONE;
        }
    }
}

impl DisputeMsg {
    /// Fault-injection hook: flips a bit of the identity signature on the body of `signer`.
    pub fn corrupt_signature_for_test(&mut self, signer: PartyId) {
        if let Some(Some(sig)) = self
            .bodies
            .iter_mut()
            .find(|b| b.body.from == signer)
            .map(|b| b.signature.as_mut())
        {
            let mut bytes = sig.to_bytes();
            bytes[9] ^= 1;
            *sig = ed25519_dalek::Signature::from_bytes(&bytes);
        }
    }
}
