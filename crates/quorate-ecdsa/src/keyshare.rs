//! The long-lived key share: a Shamir share of the signing key, every party's public share,
//! the BIP32 chain code and the pairwise OT-extension seeds.

use crate::curve::tagged_hash;
use crate::error::{EcdsaError, Result};
use crate::ot::ext::{OteReceiverSeeds, OteSenderSeeds};
use k256::{ProjectivePoint, Scalar};
use quorate_core::{PartyId, ThresholdParams};
use std::collections::BTreeMap;
use zeroize::Zeroize;

/// Pairwise OT state with one counterparty.
#[derive(Clone)]
pub(crate) enum PairState {
    /// Seeds for both directions: as multiplication sender (OTE sender, holds `Δ`) and as
    /// multiplication receiver (OTE receiver, holds both base keys).
    Ready {
        /// We are Alice (multiplication sender) towards the counterparty.
        sender: OteSenderSeeds,
        /// We are Bob (multiplication receiver) towards the counterparty.
        receiver: OteReceiverSeeds,
    },
    /// A consistency check failed; the seeds were wiped.
    Banned,
}

/// One party's share of a threshold ECDSA key. Secrets are wiped on drop; `Debug` is
/// redacted.
#[derive(Clone)]
pub struct KeyShare {
    pub(crate) params: ThresholdParams,
    pub(crate) id: PartyId,
    pub(crate) key_id: [u8; 32],
    pub(crate) epoch: u64,
    pub(crate) secret: Scalar,
    pub(crate) public_key: ProjectivePoint,
    pub(crate) public_shares: Vec<ProjectivePoint>,
    pub(crate) chain_code: [u8; 32],
    pub(crate) transcript: [u8; 32],
    pub(crate) pairs: BTreeMap<PartyId, PairState>,
    /// This party's Ed25519 identity key (signs its round-2 broadcast bodies in signing);
    /// `ed25519-dalek` wipes it on drop.
    pub(crate) identity: ed25519_dalek::SigningKey,
    /// Every party's identity verifying key (`identities[k]` belongs to party `k + 1`),
    /// agreed in the DKG and covered by [`KeyShare::setup_transcript`].
    pub(crate) identities: Vec<ed25519_dalek::VerifyingKey>,
    /// The signing session ids (`sid`, which hashes key id, epoch, public key, `sign_id`
    /// and signer set) under which this share has signed a round-2 body with its identity
    /// key. A second body under the same `sid` is refused: two validly signed bodies for one
    /// session are the dispute's evidence of equivocation, so signing two (in two runs
    /// with a reused `sign_id`) would let a co-signer replay the old one and get this party
    /// named. 32 bytes per signing with three or more
    /// signers; copies made with `Clone` keep separate records.
    pub(crate) signed_sessions: std::collections::BTreeSet<[u8; 32]>,
}

impl Drop for KeyShare {
    fn drop(&mut self) {
        self.secret.zeroize();
    }
}

impl core::fmt::Debug for KeyShare {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyShare")
            .field("id", &self.id)
            .field("params", &self.params)
            .field("epoch", &self.epoch)
            .field("public_key", &hex::encode(self.public_key_bytes()))
            .field("secret", &quorate_core::secret::REDACTED)
            .finish_non_exhaustive()
    }
}

impl KeyShare {
    /// This party.
    pub fn id(&self) -> PartyId {
        self.id
    }

    /// The `(t, n)` parameters.
    pub fn params(&self) -> ThresholdParams {
        self.params
    }

    /// The key identifier (bound into every sub-protocol's session id).
    pub fn key_id(&self) -> [u8; 32] {
        self.key_id
    }

    /// How many refreshes this share has been through.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The group public key.
    pub fn public_key(&self) -> ProjectivePoint {
        self.public_key
    }

    /// The group public key, 33-byte compressed SEC1.
    pub fn public_key_bytes(&self) -> [u8; 33] {
        crate::curve::point_bytes(&self.public_key)
    }

    /// The verification share `T_j = p(j)·G` of party `j`.
    pub fn public_share(&self, j: PartyId) -> Option<ProjectivePoint> {
        self.public_shares.get(j.position()).copied()
    }

    /// The BIP32 chain code agreed in key generation.
    pub fn chain_code(&self) -> [u8; 32] {
        self.chain_code
    }

    /// A hash of every party's revealed commitments in the last DKG or refresh. Parties that
    /// compare it out of band detect a broadcast that was not consistent.
    pub fn setup_transcript(&self) -> [u8; 32] {
        self.transcript
    }

    /// Party `j`'s Ed25519 identity verifying key (agreed in the DKG, kept by refresh).
    pub fn identity_key(&self, j: PartyId) -> Option<ed25519_dalek::VerifyingKey> {
        self.identities.get(j.position()).copied()
    }

    /// Whether the counterparty is banned (its OT correlations were discarded).
    pub fn is_banned(&self, j: PartyId) -> bool {
        matches!(self.pairs.get(&j), Some(PairState::Banned))
    }

    /// Bans `j`: wipes the OT seeds shared with it. Signing with `j` then fails with
    /// [`EcdsaError::Banned`] until a refresh re-establishes fresh base OTs.
    pub fn ban(&mut self, j: PartyId) {
        if let Some(p) = self.pairs.get_mut(&j) {
            *p = PairState::Banned;
        }
    }

    pub(crate) fn pair(&self, j: PartyId) -> Result<(&OteSenderSeeds, &OteReceiverSeeds)> {
        match self.pairs.get(&j) {
            Some(PairState::Ready { sender, receiver }) => Ok((sender, receiver)),
            Some(PairState::Banned) => Err(EcdsaError::Banned { counterparty: j }),
            None => Err(EcdsaError::Param(quorate_core::ParamError::UnknownParty {
                id: j,
                n: self.params.n(),
            })),
        }
    }

    /// `sk_i = λ_i·p(i)` for this party's Lagrange coefficient `λ_i` in the signing set: an
    /// additive share of the key.
    pub(crate) fn additive_share(&self, lambda: &Scalar) -> Scalar {
        *lambda * self.secret
    }

    /// `λ_j·T_j`, the public counterpart of party `j`'s additive share, for its Lagrange
    /// coefficient `λ_j` in the signing set.
    pub(crate) fn additive_public(&self, j: PartyId, lambda: &Scalar) -> Result<ProjectivePoint> {
        let t = self.public_share(j).ok_or(EcdsaError::Param(
            quorate_core::ParamError::UnknownParty {
                id: j,
                n: self.params.n(),
            },
        ))?;
        Ok(t * lambda)
    }

    /// Test hook: reveals the secret share (for reference computations in tests only).
    #[cfg(any(test, feature = "test-faults"))]
    pub fn secret_share_for_test(&self) -> Scalar {
        self.secret
    }
}

/// The session id of a pairwise sub-protocol: protocol tag, outer session, multiplication
/// sender (Alice) and receiver (Bob).
pub(crate) fn pair_sid(tag: &[u8], outer: &[u8; 32], alice: PartyId, bob: PartyId) -> [u8; 32] {
    tagged_hash(tag, &[outer, &alice.to_bytes(), &bob.to_bytes()])
}
