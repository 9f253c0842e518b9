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

use crate::ciphersuite::{hash_message, PublicKey};
use crate::error::BlsError;
use crate::proofs::{prove_cold, ColdProof, ProofContext};
use crate::wire::{g1_to_bytes, g2_to_bytes, ReadBls, G1_BYTES, G2_BYTES};
use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::hash::hash_to_field_xmd_sha256;
use quorate_core::secret::{wipe_field, REDACTED};
use quorate_core::{DecodeError, PartyId};
use rand_core::{CryptoRng, RngCore};
use std::collections::HashMap;
use std::fmt;

/// Domain separation tag of the pad derivation.
pub const DST_PAD: &[u8] = b"QUORATE-V01-BLS12381-HOTCOLD-PAD_XMD:SHA-256_";

/// `k_i` from the DH value `dk_i·vk = sk·ek_i` (see the module docs).
pub(crate) fn derive_pad(
    dh: &G2Projective,
    vk: &G2Projective,
    ek: &G2Projective,
    index: PartyId,
) -> Scalar {
    let mut msg = Vec::with_capacity(3 * G2_BYTES + 2);
    msg.extend_from_slice(&g2_to_bytes(dh));
    msg.extend_from_slice(&g2_to_bytes(vk));
    msg.extend_from_slice(&g2_to_bytes(ek));
    msg.extend_from_slice(&index.to_bytes());
    let k = hash_to_field_xmd_sha256(&msg, DST_PAD).expect("DST_PAD is shorter than 255 bytes");
    zeroize::Zeroize::zeroize(&mut msg);
    k
}

/// A cold public key `ek_i = dk_i·g2` (96 bytes, compressed G2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ColdPublicKey(pub(crate) G2Projective);

impl ColdPublicKey {
    /// Encoded size.
    pub const BYTES: usize = G2_BYTES;

    /// Compressed encoding.
    pub fn to_bytes(&self) -> [u8; G2_BYTES] {
        g2_to_bytes(&self.0)
    }

    /// Decodes and checks (on curve, in G2, not the identity).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        Ok(ColdPublicKey(crate::wire::g2_from_bytes(
            "cold public key",
            bytes,
        )?))
    }

    /// The point.
    pub fn point(&self) -> &G2Projective {
        &self.0
    }
}

/// The cold party of index `i`: its decryption key `dk_i` and the pads of the clients it
/// serves. Secrets are wiped on drop and redacted in `Debug`.
pub struct ColdParty {
    index: PartyId,
    dk: Scalar,
    ek: ColdPublicKey,
    pads: HashMap<[u8; G2_BYTES], Scalar>,
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

    /// The party index `i`.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// `ek_i`.
    pub fn public_key(&self) -> ColdPublicKey {
        self.ek
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
        let pad = derive_pad(&dh, vk.point(), &self.ek.0, self.index);
        let commitment = PadCommitment {
            index: self.index,
            point: G2Projective::generator() * pad,
        };
        self.pads.insert(vk.to_bytes(), pad);
        Ok(commitment)
    }

    /// The cold partial signature `σ_i^cold = k_i·H(m)` for client `vk`.
    pub fn partial_sign(&self, vk: &PublicKey, msg: &[u8]) -> Result<ColdPartial, BlsError> {
        let pad = self
            .pads
            .get(&vk.to_bytes())
            .ok_or(BlsError::InvalidRegistration {
                check: "cold party does not serve this client",
            })?;
        Ok(ColdPartial {
            index: self.index,
            point: hash_message(msg) * pad,
        })
    }

    /// ColdRegister's public output: `ek_i` with a Π_DL proof of knowledge of `dk_i`,
    /// bound to the index and the registration context, for the client to check
    /// ([`crate::client::VerifiedColdKeys::verify`]) before deriving pads from `ek_i`.
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

    /// Π_DL: proves knowledge of `dk_i` for `ek_i`, bound to `ctx` and the index.
    pub fn prove<R: RngCore + CryptoRng>(&self, ctx: &ProofContext, rng: &mut R) -> ColdProof {
        prove_cold(&self.dk, &self.ek.0, self.index, ctx, rng)
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

/// A cold party's registration: index, `ek_i` and a Π_DL proof (226 bytes encoded).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ColdRegistration {
    pub(crate) index: PartyId,
    pub(crate) ek: ColdPublicKey,
    pub(crate) proof: ColdProof,
}

impl ColdRegistration {
    /// Encoded size in bytes: index, `ek_i`, proof.
    pub const BYTES: usize = 2 + G2_BYTES + ColdProof::BYTES;

    /// The cold party's index.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// `ek_i` (not yet checked: see [`crate::client::VerifiedColdKeys::verify`]).
    pub fn public_key(&self) -> ColdPublicKey {
        self.ek
    }

    /// Encoding: index, compressed `ek_i`, Π_DL proof.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::BYTES);
        out.extend_from_slice(&self.index.to_bytes());
        out.extend_from_slice(&self.ek.to_bytes());
        out.extend_from_slice(&self.proof.to_bytes());
        out
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.len() != Self::BYTES {
            return Err(DecodeError::WrongLength {
                what: "cold registration",
                expected: Self::BYTES,
                got: bytes.len(),
            });
        }
        let index = PartyId::from_bytes([bytes[0], bytes[1]])?;
        let ek = ColdPublicKey::from_bytes(&bytes[2..2 + G2_BYTES])?;
        let proof = ColdProof::from_bytes(&bytes[2 + G2_BYTES..])?;
        Ok(ColdRegistration { index, ek, proof })
    }
}

/// `K_i = k_i·g2`, sent by `P_i^cold` to its hot partner at registration.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PadCommitment {
    pub(crate) index: PartyId,
    pub(crate) point: G2Projective,
}

const TAG_PAD_COMMITMENT: u8 = 0x08;

impl PadCommitment {
    /// Encoded size in bytes (header, index, compressed G2).
    pub const BYTES: usize = 2 + 2 + G2_BYTES;

    /// The sender's index.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// Encoding: header, index, compressed G2 point.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_PAD_COMMITMENT, VERSION)
            .party(self.index)
            .bytes(&g2_to_bytes(&self.point));
        w.into_bytes()
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("pad commitment", bytes);
        r.header(TAG_PAD_COMMITMENT, VERSION)?;
        let index = r.party()?;
        let point = r.g2("pad commitment point")?;
        r.finish()?;
        Ok(PadCommitment { index, point })
    }
}

/// A cold partial signature `k_i·H(m)`, sent by `P_i^cold` to its hot partner.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ColdPartial {
    pub(crate) index: PartyId,
    pub(crate) point: G1Projective,
}

const TAG_COLD_PARTIAL: u8 = 0x06;
const VERSION: u8 = 1;

impl ColdPartial {
    /// The sender's index.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// Encoding: header, index, compressed G1 point.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_COLD_PARTIAL, VERSION)
            .party(self.index)
            .bytes(&g1_to_bytes(&self.point));
        w.into_bytes()
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("cold partial signature", bytes);
        r.header(TAG_COLD_PARTIAL, VERSION)?;
        let index = r.party()?;
        let point = r.g1("cold partial signature point")?;
        r.finish()?;
        Ok(ColdPartial { index, point })
    }

    /// Encoded size in bytes.
    pub const BYTES: usize = 2 + 2 + G1_BYTES;
}
