//! The real collective signer and verifier behind the timestamp service.
//!
//! * [`InProcessCosigner`] holds `n` witness keys in one process, registers them (with
//!   proofs of possession) in a [`Roster`], and signs every round with the crate's
//!   collective-signing protocol over a tree ([`sign_in_process`]: the concurrency-safe
//!   two-nonce mode, per-child response checks, fresh random nonces from the OS for every
//!   round). Each witness recomputes the challenge itself, and the result is verified before
//!   it is returned.
//! * [`RosterVerifier`] checks round signatures under a [`Roster`] and a [`Policy`];
//!   [`KeyListVerifier`] does the same from a bare list of public keys (a roster file).

use super::cosigner::{CosignError, RootCosigner, RoundVerifier};
use super::merkle::Hash;
use crate::{
    sign_in_process, CosiError, Policy, PublicKey, Roster, Scenario, SecretKey, SessionId,
    Signature, Tree, VerifyFailure,
};
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use quorate_core::ParamError;
use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, SeedableRng};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Branching factor of the signing tree of in-process witnesses.
pub const DEFAULT_BRANCHING: usize = 8;

/// `n` witnesses in this process, signing round messages collectively.
pub struct InProcessCosigner {
    roster: Arc<Roster>,
    keys: Vec<SecretKey>,
    tree: Tree,
    policy: Policy,
}

impl std::fmt::Debug for InProcessCosigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessCosigner")
            .field("roster", &self.roster)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl InProcessCosigner {
    /// Registers `keys` as a roster (each with a fresh proof of possession) and arranges them
    /// in a complete tree of branching factor [`DEFAULT_BRANCHING`]. Signatures must satisfy
    /// `policy`.
    pub fn new(keys: Vec<SecretKey>, policy: Policy) -> Result<Self, CosiError> {
        let entries = keys.iter().map(|k| k.roster_entry(&mut OsRng)).collect();
        let roster = Arc::new(Roster::new(entries)?);
        policy.validate(roster.len())?;
        let tree = Tree::complete(keys.len(), DEFAULT_BRANCHING)?;
        Ok(InProcessCosigner {
            roster,
            keys,
            tree,
            policy,
        })
    }

    /// `n` witness keys derived from a 32-byte seed (so a restarted server has the same
    /// roster), all required to sign ([`Policy::Complete`]). The seed is as secret as the
    /// keys.
    pub fn from_seed(seed: [u8; 32], n: usize) -> Result<Self, CosiError> {
        let mut rng = ChaCha20Rng::from_seed(seed);
        let keys = (0..n).map(|_| SecretKey::generate(&mut rng)).collect();
        Self::new(keys, Policy::Complete)
    }

    /// The roster.
    pub fn roster(&self) -> &Arc<Roster> {
        &self.roster
    }

    /// The policy signatures are made to satisfy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// A verifier for this cosigner's signatures.
    pub fn verifier(&self) -> RosterVerifier {
        RosterVerifier::new(self.roster.clone(), self.policy.clone())
    }
}

impl RootCosigner for InProcessCosigner {
    fn roster_id(&self) -> Hash {
        self.roster.id().0
    }

    fn public_keys(&self) -> Vec<[u8; 32]> {
        self.roster
            .entries()
            .iter()
            .map(|e| e.public_key.to_bytes())
            .collect()
    }

    fn cosign(&self, message: &[u8]) -> Result<Vec<u8>, CosignError> {
        // A distinct session per message; nonces are fresh randomness in any case.
        let mut session = b"quorate/cosi/timestamp/".to_vec();
        session.extend_from_slice(&Sha256::digest(message));
        let scenario = Scenario {
            session: SessionId::new(session),
            ..Scenario::default()
        };
        let (signature, _report) = sign_in_process(
            &self.roster,
            &self.keys,
            &self.tree,
            message,
            &self.policy,
            &scenario,
            &mut OsRng,
        )
        .map_err(|e| CosignError(e.to_string()))?;
        Ok(signature.to_bytes())
    }
}

/// Verifies round signatures under a roster and a policy.
#[derive(Clone, Debug)]
pub struct RosterVerifier {
    roster: Arc<Roster>,
    policy: Policy,
}

impl RosterVerifier {
    /// A verifier for `roster` accepting signatures that satisfy `policy`.
    pub fn new(roster: Arc<Roster>, policy: Policy) -> RosterVerifier {
        RosterVerifier { roster, policy }
    }

    /// The roster.
    pub fn roster(&self) -> &Roster {
        &self.roster
    }
}

impl RoundVerifier for RosterVerifier {
    fn roster_id(&self) -> Hash {
        self.roster.id().0
    }

    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), String> {
        self.roster
            .verify_bytes(message, signature, &self.policy)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

/// Verifies round signatures under a bare list of witness public keys (the roster file a
/// receipt verifier is given) and a policy.
///
/// A key list carries no proofs of possession: whoever published it vouches that the
/// registrations were checked. The checks are those of [`Roster::verify`]: the signature
/// decodes for `n` witnesses (`s < L`, canonical `R`, clean mask padding); the mask is
/// non-empty and satisfies the policy; `A'` (the sum of the participants' keys) and `R` are
/// not of small order; `[s]B = R + [c]A'` with `c = SHA-512(R ‖ A' ‖ M) mod L`. The roster
/// id is computed exactly as [`Roster::id`].
#[derive(Clone, Debug)]
pub struct KeyListVerifier {
    keys: Vec<PublicKey>,
    aggregate: EdwardsPoint,
    id: Hash,
    policy: Policy,
}

impl KeyListVerifier {
    /// A verifier for the witnesses `keys` (in roster order) and `policy`. Rejects an empty
    /// list, a repeated key and a policy that does not fit `keys.len()`.
    pub fn new(keys: Vec<PublicKey>, policy: Policy) -> Result<Self, CosiError> {
        let n = keys.len();
        if n == 0 || n > Roster::MAX_WITNESSES {
            return Err(ParamError::Invalid("a roster needs 1 to 65534 witnesses").into());
        }
        let mut seen = std::collections::HashMap::with_capacity(n);
        for (i, k) in keys.iter().enumerate() {
            if let Some(&first) = seen.get(k.as_bytes()) {
                return Err(CosiError::DuplicateKey { first, second: i });
            }
            seen.insert(*k.as_bytes(), i);
        }
        policy.validate(n)?;
        let aggregate = keys.iter().map(|k| k.point()).sum();
        let id = crate::hash::roster_id(n as u32, keys.iter().map(|k| k.as_bytes()));
        Ok(KeyListVerifier {
            keys,
            aggregate,
            id,
            policy,
        })
    }

    /// Number of witnesses.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always `false`: the list is non-empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn check(&self, message: &[u8], bytes: &[u8]) -> Result<(), CosiError> {
        let sig = Signature::from_bytes(bytes, self.keys.len())?;
        let mask = sig.mask();
        if mask.is_none() {
            return Err(VerifyFailure::NoParticipants.into());
        }
        if !self.policy.is_satisfied(mask) {
            return Err(VerifyFailure::PolicyNotSatisfied.into());
        }
        let a_prime: EdwardsPoint = if mask.is_full() {
            self.aggregate
        } else {
            mask.iter()
                .filter_map(|i| self.keys.get(i))
                .map(|k| k.point())
                .sum()
        };
        if a_prime.is_small_order() {
            return Err(VerifyFailure::SmallOrderKey.into());
        }
        let r = CompressedEdwardsY(*sig.r_bytes())
            .decompress()
            .ok_or(VerifyFailure::Equation)?;
        if r.is_small_order() {
            return Err(VerifyFailure::SmallOrderNonce.into());
        }
        let c =
            crate::hash::ed25519_challenge(sig.r_bytes(), &a_prime.compress().to_bytes(), message);
        let expected = EdwardsPoint::vartime_double_scalar_mul_basepoint(&c, &-a_prime, sig.s());
        if expected == r {
            Ok(())
        } else {
            Err(VerifyFailure::Equation.into())
        }
    }
}

impl RoundVerifier for KeyListVerifier {
    fn roster_id(&self) -> Hash {
        self.id
    }

    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), String> {
        self.check(message, signature).map_err(|e| e.to_string())
    }
}
