//! What a witness checks before it cosigns.
//!
//! A witness vouches for what it signs, so it must see the statement and agree with it. The
//! [`crate::Announcement`] carries the message, and every [`crate::Witness`] owns a
//! [`Validator`] that it consults
//! * before committing ([`crate::Witness::commit`]): a witness that declines does not commit,
//!   and so is left out of the mask;
//! * again before responding ([`crate::Witness::respond`]): its state may have moved since it
//!   committed (for instance, a concurrent session for the same log position was cosigned
//!   first), and the challenge must carry the announced message;
//!
//! and that it tells, through [`Validator::cosigned`], once it has released its response.
//! A refusal is [`crate::CosiError::Declined`]: an honest witness's choice, never blame.

/// A witness's policy on what it cosigns. Implemented by closures
/// `FnMut(&[u8]) -> Result<(), String>` (with a no-op [`Validator::cosigned`]).
pub trait Validator: Send {
    /// `Ok(())` if this witness is willing to cosign `message` now, else the reason.
    fn check(&mut self, message: &[u8]) -> Result<(), String>;

    /// Called once this witness has produced its response on `message` (after a successful
    /// [`Validator::check`]), e.g. to advance the head it will extend next.
    fn cosigned(&mut self, message: &[u8]) {
        let _ = message;
    }
}

impl<F: FnMut(&[u8]) -> Result<(), String> + Send> Validator for F {
    fn check(&mut self, message: &[u8]) -> Result<(), String> {
        self(message)
    }
}

/// A validator that accepts exactly one message (for a witness that was told out of band
/// what it will sign, e.g. in tests, demos and benchmarks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactMessage(pub Vec<u8>);

impl Validator for ExactMessage {
    fn check(&mut self, message: &[u8]) -> Result<(), String> {
        if message == self.0.as_slice() {
            Ok(())
        } else {
            Err("not the expected message".into())
        }
    }
}
