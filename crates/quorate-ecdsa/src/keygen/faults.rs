//! Fault-injection hooks on the key-generation messages (feature `test-faults`; also
//! compiled for the crate's own unit tests). A normal build does not contain them.

use super::messages::{DkgMsg2, DkgMsg3};
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

    /// Fault-injection hook: drops a base-OT point (a wrong-length vector), if the message
    /// carries a base-OT answer.
    pub fn truncate_base_ot_for_test(&mut self) {
        if let Some(b) = self.base_ot.as_mut() {
            b.truncate_for_test();
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
