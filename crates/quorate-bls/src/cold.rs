//! The cold party `P_i^cold`: ColdRegister, the Diffie–Hellman pad and the cold partial
//! signature.
//!
//! **One cold key, not two.** The paper lists `dk_i` as 32 B and `ek_i` as 96 B (one G2
//! element); the reference code uses two keys `(d_i1, d_i2)` and turns the two DH values
//! into a pad with a fixed-seed "universal hash" (design notes §1, UH), presumably for a
//! leftover-hash argument. We keep the paper's single key and derive the pad with a
//! random-oracle hash instead:
//!
//! `k_i = hash_to_field(comp(dk_i·vk) ‖ comp(vk) ‖ comp(ek_i) ‖ be16(i), DST_PAD)`
//!
//! where `dk_i·vk = sk·ek_i` is the DH value both the client and the cold party can
//! compute. Under CDH in G2 (with the hash modelled as a random oracle) `k_i` is
//! uniform to anyone without `sk` or `dk_i`, which is all the pad needs: it one-time-pads
//! `x_i` into the hot share `hx_i = x_i + k_i`. Binding `vk`, `ek_i` and `i` makes pads
//! of different clients, parties and keys independent. Sizes then match the paper
//! (`dk_i` 32 B, `ek_i` 96 B), Π_DL halves to 128 B, and ColdRegister is one G2
//! multiplication.
//!
//! The pad depends only on `(dk_i, vk)`, so the cold party derives it once per client
//! when it learns `vk` ([`ColdParty::add_client`]) and caches it; the cold partial
//! signature is then one hash-to-curve and one G1 multiplication (notes §TSign).

use crate::proofs::{prove_cold, ColdProof, ProofContext};
use crate::register::messages::ColdPublicKey;
use blstrs::{G2Projective, Scalar};
use quorate_core::bls12_381::msm::g2_generator_mul_ct;
use quorate_core::bls12_381::wire::{
    g2_to_bytes, nonzero_scalar_from_bytes, scalar_to_bytes, G2_BYTES,
};
use quorate_core::hash::hash_to_field_xmd_sha256;
use quorate_core::secret::{wipe_field, REDACTED};
use quorate_core::{DecodeError, PartyId};
use rand_core::{CryptoRng, RngCore};
use std::collections::HashMap;
use std::fmt;

/// Domain separation tag of the pad derivation.
pub const DST_PAD: &[u8] = b"QUORATE-V01-BLS12381-HOTCOLD-PAD_XMD:SHA-256_";

/// `k_i` from the DH value `dk_i·vk = sk·ek_i` (see the module docs). `vk` and `ek` come
/// as their compressed encodings (public: the client encodes `vk` once and all `ek_i` in
/// one batched conversion instead of one field inversion each per party).
pub(crate) fn derive_pad(
    dh: &G2Projective,
    vk: &[u8; G2_BYTES],
    ek: &[u8; G2_BYTES],
    index: PartyId,
) -> Scalar {
    let mut msg = Vec::with_capacity(3 * G2_BYTES + 2);
    msg.extend_from_slice(&g2_to_bytes(dh));
    msg.extend_from_slice(vk);
    msg.extend_from_slice(ek);
    msg.extend_from_slice(&index.to_bytes());
    let k = hash_to_field_xmd_sha256(&msg, DST_PAD).expect("DST_PAD is shorter than 255 bytes");
    zeroize::Zeroize::zeroize(&mut msg);
    k
}

/// The cold party of index `i`: its decryption key `dk_i` and the pads of the clients it
/// serves. Secrets are wiped on drop and redacted in `Debug`.
pub struct ColdParty {
    pub(crate) index: PartyId,
    pub(crate) dk: Scalar,
    pub(crate) ek: ColdPublicKey,
    pub(crate) pads: HashMap<[u8; G2_BYTES], Scalar>,
}

impl fmt::Debug for ColdParty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ColdParty")
            .field("index", &self.index)
            .field("ek", &self.ek)
            .field("dk", &REDACTED)
            .field("clients", &self.pads.len())
            .finish()
    }
}

impl Drop for ColdParty {
    fn drop(&mut self) {
        wipe_field(&mut self.dk);
        for pad in self.pads.values_mut() {
            wipe_field(pad);
        }
    }
}

impl ColdParty {
    /// The party index `i`.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// `ek_i`.
    pub fn public_key(&self) -> ColdPublicKey {
        self.ek
    }

    /// Π_DL: proves knowledge of `dk_i` for `ek_i`, bound to `ctx` and the index.
    pub fn prove<R: RngCore + CryptoRng>(&self, ctx: &ProofContext, rng: &mut R) -> ColdProof {
        prove_cold(&self.dk, &self.ek.0, self.index, ctx, rng)
    }

    /// The secret key `dk_i` (32 bytes, big-endian), for an offline custodian that keeps
    /// it in a file. **A secret**: wiped when the returned buffer drops.
    pub fn secret_bytes(&self) -> zeroize::Zeroizing<[u8; 32]> {
        zeroize::Zeroizing::new(scalar_to_bytes(&self.dk))
    }

    /// The cold party of index `i` with the secret key `dk_i` of [`ColdParty::secret_bytes`]
    /// (canonical and non-zero, else an error); `ek_i = dk_i·g2` is recomputed. It serves
    /// no client until [`ColdParty::add_client`].
    pub fn from_secret_bytes(index: PartyId, bytes: &[u8]) -> Result<Self, DecodeError> {
        let dk = nonzero_scalar_from_bytes("cold secret key", bytes)?;
        let ek = ColdPublicKey(g2_generator_mul_ct(&dk));
        Ok(ColdParty {
            index,
            dk,
            ek,
            pads: HashMap::new(),
        })
    }
}
