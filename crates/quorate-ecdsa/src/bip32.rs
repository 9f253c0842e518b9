//! Non-hardened BIP32 child-key derivation on a shared key.
//!
//! `I = HMAC-SHA512(c_par, ser_P(K_par) ‖ ser_32(i))` for `i < 2^31`; `I_L` is the tweak and
//! `I_R` the child chain code. The child key is `k_par + I_L`, so every Shamir share moves by
//! the same public constant (`p'(x) = p(x) + I_L`, and the Lagrange coefficients at zero sum
//! to one): each party derives locally, no interaction needed. Hardened derivation needs the
//! parent secret inside the HMAC and is not possible this way.

use crate::curve::{base_mul, point_bytes, scalar_from_bytes};
use crate::error::{EcdsaError, Result};
use crate::keyshare::KeyShare;
use hmac::{Hmac, Mac};
use k256::elliptic_curve::group::Group;
use quorate_core::ParamError;
use sha2::Sha512;

/// First hardened index.
pub const HARDENED: u32 = 1 << 31;

impl KeyShare {
    /// Derives the non-hardened child `index` (`index < 2^31`). The OT state is carried over
    /// (signing session ids include the child public key, so sessions stay separated).
    pub fn derive_child(&self, index: u32) -> Result<KeyShare> {
        if index >= HARDENED {
            return Err(
                ParamError::Invalid("hardened derivation is not possible on a shared key").into(),
            );
        }
        let mut mac = Hmac::<Sha512>::new_from_slice(&self.chain_code)
            .map_err(|_| EcdsaError::Param(ParamError::Invalid("chain code length")))?;
        mac.update(&point_bytes(&self.public_key));
        mac.update(&index.to_be_bytes());
        let i = mac.finalize().into_bytes();
        // BIP32: an I_L outside [0, n) or a child at infinity makes the index invalid.
        let tweak = scalar_from_bytes("BIP32 I_L", &i[..32]).map_err(|_| {
            EcdsaError::Param(ParamError::Invalid(
                "BIP32 index yields an invalid key; use the next index",
            ))
        })?;
        let tweak_point = base_mul(&tweak);
        let mut child = self.clone();
        child.public_key += tweak_point;
        if bool::from(child.public_key.is_identity()) {
            return Err(ParamError::Invalid(
                "BIP32 index yields an invalid key; use the next index",
            )
            .into());
        }
        child.secret += tweak;
        for t in child.public_shares.iter_mut() {
            *t += tweak_point;
        }
        child.chain_code.copy_from_slice(&i[32..]);
        Ok(child)
    }

    /// Derives along a path of non-hardened indices.
    pub fn derive_path(&self, path: &[u32]) -> Result<KeyShare> {
        let mut k = self.clone();
        for i in path {
            k = k.derive_child(*i)?;
        }
        Ok(k)
    }
}
