//! The collective signature and its verification.
//!
//! Format: `R (32) ‖ s (32) ‖ mask (⌈n/8⌉)`. `R ‖ s` is an ordinary Ed25519 signature
//! under the participants' aggregate key `A' = Σ_{i ∈ mask} A_i`:
//!
//! ```text
//! [s]B = R + [c]A',   c = SHA-512(R ‖ A' ‖ M) mod L        (RFC 8032, cofactorless)
//! ```
//!
//! Verification follows `ed25519_dalek::VerifyingKey::verify_strict`: `s < L` (so `s + L`
//! is rejected), canonical `R`, `R` and `A'` not of small order. In addition the mask must
//! be non-empty and satisfy the verifier's [`Policy`]. With every witness present `A' = A`
//! (the roster's static key) and `sig[..64]` verifies with any strict Ed25519 verifier.

use crate::error::{CosiError, VerifyFailure};
use crate::hash::ed25519_challenge;
use crate::keys::{decode_point, decode_scalar};
use crate::mask::{mask_len, Mask};
use crate::policy::Policy;
use crate::roster::Roster;
use core::fmt;
use curve25519_dalek::edwards::EdwardsPoint;
use curve25519_dalek::scalar::Scalar;
use quorate_core::DecodeError;

/// A collective signature `(R, s, mask)`.
#[derive(Clone, PartialEq, Eq)]
pub struct Signature {
    r_bytes: [u8; 32],
    r: EdwardsPoint,
    s: Scalar,
    mask: Mask,
}

impl Signature {
    pub(crate) fn from_parts(r: EdwardsPoint, r_bytes: [u8; 32], s: Scalar, mask: Mask) -> Self {
        Signature {
            r_bytes,
            r,
            s,
            mask,
        }
    }

    /// Encoded length for a roster of `n` witnesses: `64 + ⌈n/8⌉`.
    pub const fn encoded_len(n: usize) -> usize {
        64 + mask_len(n)
    }

    /// `R ‖ s ‖ mask`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.mask.as_bytes().len());
        out.extend_from_slice(&self.r_bytes);
        out.extend_from_slice(self.s.as_bytes());
        out.extend_from_slice(self.mask.as_bytes());
        out
    }

    /// Decodes a signature for a roster of `n` witnesses.
    ///
    /// Errors, in the order checked: [`DecodeError::WrongLength`] (not `64 + ⌈n/8⌉` bytes);
    /// [`DecodeError::InvalidPoint`] (`R` not on the curve); [`DecodeError::NonCanonical`]
    /// with `what = "R"` (non-canonical encoding of `R`) or `what = "s"` (`s ≥ L`, including
    /// `s + L` malleations); [`DecodeError::InvalidValue`] (mask padding bits set). Never
    /// panics.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, DecodeError> {
        let expected = Self::encoded_len(n);
        if bytes.len() != expected {
            return Err(DecodeError::WrongLength {
                what: "collective signature",
                expected,
                got: bytes.len(),
            });
        }
        let (rs, mask) = bytes.split_at(64);
        let (r_slice, s_slice) = rs.split_at(32);
        let mut r_bytes = [0u8; 32];
        r_bytes.copy_from_slice(r_slice);
        let mut s_bytes = [0u8; 32];
        s_bytes.copy_from_slice(s_slice);
        let r = decode_point("R", &r_bytes)?;
        let s = decode_scalar("s", &s_bytes)?;
        let mask = Mask::from_bytes(n, mask)?;
        Ok(Signature {
            r_bytes,
            r,
            s,
            mask,
        })
    }

    /// The first 64 bytes `R ‖ s`: an Ed25519 signature under `A'` (under `A` when the mask
    /// is full).
    pub fn ed25519_bytes(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.r_bytes);
        out[32..].copy_from_slice(self.s.as_bytes());
        out
    }

    /// The participation mask.
    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// The encoding of `R`.
    pub fn r_bytes(&self) -> &[u8; 32] {
        &self.r_bytes
    }

    /// The response `s`.
    pub fn s(&self) -> &Scalar {
        &self.s
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signature")
            .field("R", &hex::encode(self.r_bytes))
            .field("s", &hex::encode(self.s.as_bytes()))
            .field("mask", &self.mask)
            .finish()
    }
}

impl Roster {
    /// Verifies a collective signature on `message` under this roster and `policy`.
    ///
    /// Checks, in order: the policy is valid for this roster; the mask covers `n` witnesses
    /// ([`VerifyFailure::MaskLength`]), is non-empty ([`VerifyFailure::NoParticipants`]) and
    /// satisfies the policy ([`VerifyFailure::PolicyNotSatisfied`]); `A'` and `R` are not of
    /// small order; `[s]B = R + [c]A'` with `c = SHA-512(R ‖ A' ‖ M)`. `A'` is computed
    /// incrementally from the cached `A` ([`Roster::aggregate_for_mask`]).
    pub fn verify(
        &self,
        message: &[u8],
        signature: &Signature,
        policy: &Policy,
    ) -> Result<(), CosiError> {
        policy.validate(self.len())?;
        let mask = &signature.mask;
        if mask.n() != self.len() {
            return Err(VerifyFailure::MaskLength {
                expected: self.len(),
                got: mask.n(),
            }
            .into());
        }
        if mask.is_none() {
            return Err(VerifyFailure::NoParticipants.into());
        }
        if !policy.is_satisfied(mask) {
            return Err(VerifyFailure::PolicyNotSatisfied.into());
        }
        let (a_prime, a_bytes) = if mask.is_full() {
            (*self.aggregate_point(), self.aggregate_key())
        } else {
            let p = self.aggregate_for_mask(mask)?;
            (p, p.compress().to_bytes())
        };
        verify_ed25519_strict(&a_prime, &a_bytes, message, signature)
    }

    /// Decodes `bytes` ([`Signature::from_bytes`]) and verifies it ([`Roster::verify`]).
    pub fn verify_bytes(
        &self,
        message: &[u8],
        bytes: &[u8],
        policy: &Policy,
    ) -> Result<Signature, CosiError> {
        let sig = Signature::from_bytes(bytes, self.len())?;
        self.verify(message, &sig, policy)?;
        Ok(sig)
    }
}

/// The strict Ed25519 check of `sig[..64]` under the key `a` (given with its encoding).
pub(crate) fn verify_ed25519_strict(
    a: &EdwardsPoint,
    a_bytes: &[u8; 32],
    message: &[u8],
    signature: &Signature,
) -> Result<(), CosiError> {
    if a.is_small_order() {
        return Err(VerifyFailure::SmallOrderKey.into());
    }
    if signature.r.is_small_order() {
        return Err(VerifyFailure::SmallOrderNonce.into());
    }
    let c = ed25519_challenge(&signature.r_bytes, a_bytes, message);
    let expected = EdwardsPoint::vartime_double_scalar_mul_basepoint(&c, &-a, &signature.s);
    if expected == signature.r {
        Ok(())
    } else {
        Err(VerifyFailure::Equation.into())
    }
}
