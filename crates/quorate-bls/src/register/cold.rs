//! ColdRegister: a cold party draws `dk_i`, publishes `ek_i` with Π_DL, and derives the pad
//! `k_i` of each client it serves.

use crate::ciphersuite::PublicKey;
use crate::cold::{derive_pad, ColdParty};
use crate::error::BlsError;
use crate::proofs::{prove_cold, ProofContext};
use crate::register::messages::{ColdPublicKey, ColdRegistration, PadCommitment};
use blstrs::{G2Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::bls12_381::msm::g2_generator_mul_ct;
use quorate_core::PartyId;
use rand_core::{CryptoRng, RngCore};
use std::collections::HashMap;

impl ColdParty {
    /// ColdRegister: samples `dk_i ← Z_r \ {0}` and publishes `ek_i = dk_i·g2`.
    pub fn register<R: RngCore + CryptoRng>(index: PartyId, rng: &mut R) -> Self {
        let mut dk = Scalar::random(&mut *rng);
        while bool::from(dk.is_zero()) {
            dk = Scalar::random(&mut *rng);
        }
        let ek = ColdPublicKey(G2Projective::generator() * dk);
        ColdParty {
            index,
            dk,
            ek,
            pads: HashMap::new(),
        }
    }

    /// Learns a client's `vk` and caches its pad `k_i` (one G2 multiplication and one
    /// hash). The client's proof of possession is checked first so the cold party never
    /// serves a rogue key. Returns `K_i = k_i·g2` for the hot partner, which checks
    /// `hx_i·g2 = vs_i + K_i` at registration (two more G2 multiplications in all), so a
    /// client cannot hand out hot shares that do not match `vs_i` unnoticed.
    pub fn add_client(
        &mut self,
        vk: &PublicKey,
        pop: &crate::ciphersuite::Signature,
    ) -> Result<PadCommitment, BlsError> {
        if !vk.verify_possession(pop) {
            return Err(BlsError::InvalidRegistration {
                check: "client proof of possession",
            });
        }
        let dh = vk.point() * self.dk;
        let pad = derive_pad(&dh, &vk.to_bytes(), &self.ek.to_bytes(), self.index);
        let commitment = PadCommitment {
            index: self.index,
            point: g2_generator_mul_ct(&pad),
        };
        self.pads.insert(vk.to_bytes(), pad);
        Ok(commitment)
    }

    /// ColdRegister's public output: `ek_i` with a Π_DL proof of knowledge of `dk_i`,
    /// bound to the index and the registration context, for the client to check
    /// ([`crate::register::VerifiedColdKeys::verify`]) before deriving pads from `ek_i`.
    pub fn registration<R: RngCore + CryptoRng>(&self, rng: &mut R) -> ColdRegistration {
        ColdRegistration {
            index: self.index,
            ek: self.ek,
            proof: prove_cold(
                &self.dk,
                &self.ek.0,
                self.index,
                &registration_context(),
                rng,
            ),
        }
    }
}

/// The fixed context of registration-time Π_DL proofs (audit proofs use their own
/// session and `block_id`).
pub(crate) fn registration_context() -> ProofContext {
    ProofContext {
        session: quorate_core::transcript::SessionId::new(b"quorate/bls/cold-register/v1".to_vec()),
        block_id: 0,
    }
}
