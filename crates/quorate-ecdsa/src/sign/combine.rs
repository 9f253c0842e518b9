//! Combining the round-3 broadcasts: `s = Σ w_i / Σ u_i`, low-S with recovery id, verified;
//! otherwise the dispute round (echo digests differ) or the blame round (the signature does
//! not verify).

use super::blame::BlameRound;
use super::dispute::DisputeRound;
use super::messages::SignMsg3;
use super::round3::SignRound3;
use super::session::{collect, echoes_differ, SessionCtx};
use crate::curve::scalar_reduce;
use crate::error::{EcdsaError, Result};
use crate::fixed_base::{generator_table, FixedBaseTable};
use k256::ecdsa::{signature::hazmat::PrehashVerifier, VerifyingKey};
use k256::elliptic_curve::group::Group;
use k256::elliptic_curve::ops::Invert;
use k256::elliptic_curve::point::AffineCoordinates;
use k256::elliptic_curve::scalar::IsHigh;
use k256::elliptic_curve::PrimeField;
use k256::{ProjectivePoint, Scalar};
use quorate_core::PartyId;

/// A standard ECDSA signature over secp256k1, low-S, with its recovery id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    r: Scalar,
    s: Scalar,
    recovery_id: u8,
}

impl Signature {
    /// `r ‖ s`, 64 bytes big-endian.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.r.to_bytes());
        out[32..].copy_from_slice(&self.s.to_bytes());
        out
    }

    /// The recovery id (bit 0: parity of `R.y`; bit 1: `R.x ≥ q`).
    pub fn recovery_id(&self) -> u8 {
        self.recovery_id
    }

    /// As a `k256` signature.
    pub fn to_k256(&self) -> Result<k256::ecdsa::Signature> {
        k256::ecdsa::Signature::from_scalars(self.r.to_bytes(), self.s.to_bytes())
            .map_err(|_| EcdsaError::InvalidSignature)
    }

    /// DER encoding.
    pub fn to_der(&self) -> Result<Vec<u8>> {
        Ok(self.to_k256()?.to_der().as_bytes().to_vec())
    }
}

/// Checks an ECDSA signature on a 32-byte digest (low-S not required).
pub fn verify_prehash(
    public_key: &ProjectivePoint,
    digest: &[u8; 32],
    sig: &k256::ecdsa::Signature,
) -> bool {
    match VerifyingKey::from_affine(public_key.to_affine()) {
        Ok(vk) => vk.verify_prehash(digest, sig).is_ok(),
        Err(_) => false,
    }
}

/// ECDSA verification (SEC 1 v2 §4.1.4) of the low-S signature `(r, s)` on `digest` under
/// the public key whose table is `key_table`, through the fixed-base tables of `G` and of
/// the key: `X = (z/s)·G + (r/s)·pk`, accept iff `X ≠ 0` and `x(X) mod q = r`. The same
/// predicate as `k256`'s `verify_prehash` (which rejects a high `s` and a zero `r` or `s`;
/// test `table_verification_agrees_with_k256`). **Variable time**: every input is public
/// (the combined signature, the digest, the public key).
fn verify_low_s_vartime(
    key_table: &FixedBaseTable,
    digest: &[u8; 32],
    r: &Scalar,
    s: &Scalar,
) -> bool {
    if bool::from(r.is_zero() | s.is_zero() | s.is_high()) {
        return false;
    }
    let Some(s_inv) = Option::<Scalar>::from(Invert::invert_vartime(s)) else {
        return false;
    };
    let z = scalar_reduce(digest);
    let x = generator_table().mul_vartime(&(z * s_inv)) + key_table.mul_vartime(&(*r * s_inv));
    if bool::from(x.is_identity()) {
        return false;
    }
    scalar_reduce(&x.to_affine().x().into()) == *r
}

/// What [`combine`] produced.
#[derive(Debug)]
pub enum Combined {
    /// The verified, low-S signature.
    Signature(Signature),
    /// The signature did not verify: run the blame round ([`BlameRound::respond`], then
    /// [`super::blame::resolve`]) to name the signers whose shares were wrong.
    Blame(Box<BlameRound>),
    /// Some co-signer's echo digest differs from ours (someone sent different round-2
    /// bodies to different co-signers, or lied about them): run the dispute round
    /// ([`DisputeRound::respond`], then [`super::dispute::resolve`]).
    Dispute(Box<DisputeRound>),
}

impl Combined {
    /// The signature, if there is one.
    pub fn signature(&self) -> Option<Signature> {
        match self {
            Combined::Signature(s) => Some(*s),
            _ => None,
        }
    }
}

/// `s = w/u` as a low-S signature with recovery id for `R`, if it verifies.
fn finish_signature(
    ctx: &SessionCtx,
    key_table: &FixedBaseTable,
    u: &Scalar,
    w: &Scalar,
) -> Option<Signature> {
    // u = Σ u_i is public (the sum of the broadcast shares), so a variable-time inversion
    // is fine.
    let u_inv: Option<Scalar> = Invert::invert_vartime(u).into();
    let mut s = *w * u_inv?;
    let aff = ctx.big_r;
    let x_bytes = aff.x();
    let x_reduced = Scalar::from_repr(x_bytes).is_none();
    let mut recovery_id =
        u8::from(bool::from(aff.y_is_odd())) | (u8::from(bool::from(x_reduced)) << 1);
    if bool::from(s.is_high()) {
        s = -s;
        recovery_id ^= 1;
    }
    let sig = Signature {
        r: ctx.r_x,
        s,
        recovery_id,
    };
    verify_low_s_vartime(key_table, &ctx.digest, &sig.r, &sig.s).then_some(sig)
}

/// Combines the round-3 broadcasts. With agreed bodies and a signature that verifies, the
/// low-S signature with recovery id; otherwise the state for the dispute round (an echo
/// digest differs) or for the blame round (the signature does not verify). Errors: a
/// missing, duplicated or misaddressed message, or an echo digest that is present with two
/// signers or absent with more (both name the sender).
pub fn combine(state: SignRound3, msgs: &[(PartyId, SignMsg3)]) -> Result<Combined> {
    let map = collect(state.ctx.me, &state.ctx.signers, msgs)?;
    if echoes_differ(state.own.echo, &map)? {
        return Ok(Combined::Dispute(Box::new(DisputeRound::new(&state, &map))));
    }
    let (u, w) = map
        .values()
        .fold((state.own.u, state.own.w), |(u, w), m| (u + m.u, w + m.w));
    match finish_signature(&state.ctx, &state.key_table, &u, &w) {
        Some(sig) => Ok(Combined::Signature(sig)),
        None => Ok(Combined::Blame(Box::new(BlameRound::new(state, &map)))),
    }
}

impl SignRound3 {
    /// Combines without consuming the state: the verified signature, or `None` where
    /// [`combine`] would return [`Combined::Blame`] or [`Combined::Dispute`]. Keeping the
    /// state lets a signer with a valid signature still answer a co-signer's blame or
    /// dispute request (if the round-3 broadcast was not consistent).
    pub fn signature(&self, msgs: &[(PartyId, SignMsg3)]) -> Result<Option<Signature>> {
        let map = collect(self.ctx.me, &self.ctx.signers, msgs)?;
        if echoes_differ(self.own.echo, &map)? {
            return Ok(None);
        }
        let (u, w) = map
            .values()
            .fold((self.own.u, self.own.w), |(u, w), m| (u + m.u, w + m.w));
        Ok(finish_signature(&self.ctx, &self.key_table, &u, &w))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use k256::ecdsa::{signature::hazmat::PrehashSigner, SigningKey};
    use rand_chacha::ChaCha20Rng;
    use rand_core::{RngCore, SeedableRng};

    /// The table verification accepts exactly what `k256` accepts: valid signatures, and
    /// the same signatures with a changed digest, `r`, `s`, key, a high `s` or a zero.
    #[test]
    fn table_verification_agrees_with_k256() {
        let mut rng = ChaCha20Rng::seed_from_u64(21);
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..24 {
            let sk = SigningKey::random(&mut rng);
            let pk = ProjectivePoint::from(*sk.verifying_key().as_affine());
            let other =
                ProjectivePoint::from(*SigningKey::random(&mut rng).verifying_key().as_affine());
            let mut digest = [0u8; 32];
            rng.fill_bytes(&mut digest);
            let sig: k256::ecdsa::Signature = sk.sign_prehash(&digest).unwrap();
            let (r, s) = (*sig.r(), *sig.s());
            let mut other_digest = digest;
            other_digest[31] ^= 1;
            let cases = [
                (pk, digest, r, s),
                (pk, other_digest, r, s),
                (pk, digest, r + Scalar::ONE, s),
                (pk, digest, r, s + Scalar::ONE),
                (pk, digest, r, -s),
                (pk, digest, Scalar::ZERO, s),
                (pk, digest, r, Scalar::ZERO),
                (other, digest, r, s),
            ];
            let table = FixedBaseTable::new(&pk);
            let other_table = FixedBaseTable::new(&other);
            for (key, d, r, s) in cases {
                let expected = k256::ecdsa::Signature::from_scalars(r.to_bytes(), s.to_bytes())
                    .map(|k| verify_prehash(&key, &d, &k))
                    .unwrap_or(false);
                let t = if key == pk { &table } else { &other_table };
                assert_eq!(verify_low_s_vartime(t, &d, &r, &s), expected);
                if expected {
                    accepted += 1;
                } else {
                    rejected += 1;
                }
            }
        }
        assert_eq!(accepted, 24);
        assert_eq!(rejected, 24 * 7);
    }
}
