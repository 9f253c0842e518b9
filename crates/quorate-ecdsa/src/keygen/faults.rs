//! Fault-injection hooks on the key-generation messages (feature `test-faults`; also
//! compiled for the crate's own unit tests). A normal build does not contain them.

use super::messages::{DkgMsg2, DkgMsg3, DkgMsg4};
use k256::{ProjectivePoint, Scalar};

impl DkgMsg2 {
    /// Fault-injection hook: adds one to the share (a bad DKG share).
    pub fn corrupt_share_for_test(&mut self) {
        self.share += Scalar::ONE;
    }

    /// Fault-injection hook: appends a commitment (a wrong-length Feldman vector; the
    /// commitment opening then fails unless the round-1 commitment was made to it).
    pub fn extend_feldman_for_test(&mut self) {
        self.feldman.push(ProjectivePoint::GENERATOR);
    }

    /// Fault-injection hook: flips a bit of the broadcast signature.
    pub fn corrupt_signature_for_test(&mut self) {
        let mut b = self.signature.to_bytes();
        b[3] ^= 1;
        self.signature = ed25519_dalek::Signature::from_bytes(&b);
    }

    /// Fault-injection hook: drops a base-OT point (a wrong-length vector), if the message
    /// carries a base-OT answer.
    pub fn truncate_base_ot_for_test(&mut self) {
        if let Some(b) = self.base_ot.as_mut() {
            b.truncate_for_test();
        }
    }
}

impl DkgMsg4 {
    /// Fault-injection hook: flips a bit of the acknowledgement signature.
    pub fn corrupt_ack_for_test(&mut self) {
        let mut b = self.ack.to_bytes();
        b[3] ^= 1;
        self.ack = ed25519_dalek::Signature::from_bytes(&b);
    }

    /// Fault-injection hook: flips a bit of the echoed signature of party `j`'s digest.
    pub fn corrupt_echo_for_test(&mut self, j: quorate_core::PartyId) {
        if let Some(d) = self.echo.get_mut(j.position()) {
            let mut b = d.signature.to_bytes();
            b[3] ^= 1;
            d.signature = ed25519_dalek::Signature::from_bytes(&b);
        }
    }
}

impl DkgMsg3 {
    /// Fault-injection hook: flips a bit of the bootstrap extension (an inconsistent OT
    /// extension message).
    pub fn corrupt_for_test(&mut self) {
        self.ote.corrupt_for_test(7, 3);
    }
}
