//! The real collective signer and verifier behind the timestamp service.
//!
//! * [`InProcessCosigner`] holds `n` witness keys in one process, registers them (with
//!   proofs of possession) in a [`Roster`], and signs every round with the crate's
//!   collective-signing protocol over a tree ([`sign_in_process`]: the concurrency-safe
//!   two-nonce mode, per-child response checks, fresh random nonces from the OS for every
//!   round). Each witness checks the round with its [`TimestampValidator`] and recomputes the
//!   challenge itself, and the result is verified before it is returned.
//! * [`RosterVerifier`] checks round signatures under a [`Roster`] (loaded with its proofs
//!   of possession, e.g. by [`Roster::from_json`] from a roster file) and a [`Policy`].

use super::chain::ChainHead;
use super::cosigner::{CosignError, RootCosigner, RoundVerifier};
use super::merkle::Hash;
use super::validator::{system_clock, Clock, TimestampValidator, DEFAULT_MAX_SKEW_MS};
use crate::{
    sign_in_process, CosiError, Policy, Roster, Scenario, SecretKey, SessionId, Tree, Witness,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, SeedableRng};
use std::sync::{Arc, Mutex};

/// Branching factor of the signing tree of in-process witnesses.
pub const DEFAULT_BRANCHING: usize = 8;

/// `n` witnesses in this process, signing round messages collectively. Each witness checks
/// every round with its own [`TimestampValidator`] before it commits and responds.
pub struct InProcessCosigner {
    roster: Arc<Roster>,
    witnesses: Mutex<Vec<Witness>>,
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
    /// `policy`. Every witness resumes the chain at `head` (the service's last sealed round)
    /// and checks round times against `clock` within `max_skew_ms`.
    pub fn new(
        keys: Vec<SecretKey>,
        policy: Policy,
        head: ChainHead,
        clock: Clock,
        max_skew_ms: u64,
    ) -> Result<Self, CosiError> {
        let entries = keys.iter().map(|k| k.roster_entry(&mut OsRng)).collect();
        let roster = Arc::new(Roster::new(entries)?);
        policy.validate(roster.len())?;
        let tree = Tree::complete(keys.len(), DEFAULT_BRANCHING)?;
        let witnesses = keys
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                let v = TimestampValidator::new(roster.id().0, head, max_skew_ms, clock.clone());
                Witness::new(roster.clone(), i, k, v)
            })
            .collect::<Result<_, _>>()?;
        Ok(InProcessCosigner {
            roster,
            witnesses: Mutex::new(witnesses),
            tree,
            policy,
        })
    }

    /// `n` witness keys derived from a 32-byte seed (so a restarted server has the same
    /// roster), all required to sign ([`Policy::Complete`]), resuming at `head`, on the
    /// system clock with [`DEFAULT_MAX_SKEW_MS`]. The seed is as secret as the keys.
    pub fn from_seed(seed: [u8; 32], n: usize, head: ChainHead) -> Result<Self, CosiError> {
        let mut rng = ChaCha20Rng::from_seed(seed);
        let keys = (0..n).map(|_| SecretKey::generate(&mut rng)).collect();
        Self::new(
            keys,
            Policy::Complete,
            head,
            system_clock(),
            DEFAULT_MAX_SKEW_MS,
        )
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

    fn roster_entries(&self) -> Vec<[u8; 96]> {
        self.roster.entries().iter().map(|e| e.to_bytes()).collect()
    }

    fn cosign(&self, message: &[u8]) -> Result<Vec<u8>, CosignError> {
        // Nonces and session ids are fresh randomness.
        let scenario = Scenario {
            session: SessionId::new(b"quorate/cosi/timestamp".to_vec()),
            ..Scenario::default()
        };
        let mut witnesses = self
            .witnesses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (signature, _report) = sign_in_process(
            &self.roster,
            &mut witnesses,
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
