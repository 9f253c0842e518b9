//! Keygen for `m` mix-servers and batches of `n` senders.
//!
//! * Generators by hash-to-curve ([`Generators::derive`]).
//! * Threshold ElGamal in G1 by the [`crate::dkg`] among the servers (t-of-m).
//! * Threshold Paillier (t-of-m) from a dealer with fresh safe primes and verifiable shares
//!   (**setup assumption**: the dealer is trusted and erases `p, q`).
//! * Each server's permutation commitment with its TW proof of knowledge of the opening.

use crate::dkg::{self, ElGamalKeyShare, ElGamalPublic};
use crate::error::MixnetError;
use crate::params::{Generators, MAX_SENDERS, MIN_PAILLIER_BITS, TEST_PAILLIER_BITS};
use crate::ring_pedersen::RingPedersenParams;
use crate::shuffle::{self, PermutationCommitment, PermutationSecret, ShuffleProof};
use quorate_core::transcript::SessionId;
use quorate_core::{ParamError, PartyId, ThresholdParams};
use quorate_paillier::bigint::SecretInteger;
use quorate_paillier::primes::generate_safe_prime;
use quorate_paillier::threshold::{deal_with_primes, KeyShare, ThresholdPublicKey};
use quorate_paillier::PaillierError;
use rand_core::{CryptoRng, RngCore};

/// Everything public after keygen.
#[derive(Clone, Debug)]
pub struct MixnetPublic {
    /// Session id bound into every proof.
    pub sid: SessionId,
    /// Batch size.
    pub n: usize,
    /// t-of-m.
    pub params: ThresholdParams,
    /// Generators.
    pub gens: Generators,
    /// Threshold Paillier public key.
    pub paillier: ThresholdPublicKey,
    /// Ring-Pedersen parameters over the Paillier modulus (see [`crate::ring_pedersen`]).
    pub ring_pedersen: RingPedersenParams,
    /// Threshold ElGamal public key and verification keys.
    pub elgamal: ElGamalPublic,
    /// Permutation commitment of each server, in server order.
    pub perm_commitments: Vec<PermutationCommitment>,
    /// The proof of each permutation commitment.
    pub perm_proofs: Vec<ShuffleProof>,
}

/// A mix-server's secrets.
#[derive(Debug)]
pub struct MixServer {
    /// Its id.
    pub id: PartyId,
    pub(crate) paillier_share: KeyShare,
    #[allow(dead_code)]
    pub(crate) elgamal_share: ElGamalKeyShare,
    pub(crate) perm: PermutationSecret,
}

impl MixServer {
    /// The server's permutation (for demo ground truth only).
    pub fn permutation(&self) -> &[usize] {
        self.perm.pi()
    }
}

/// Runs keygen in process (all servers simulated) for `n` senders, `t`-of-`m` servers and a
/// `paillier_bits`-bit Paillier modulus.
pub fn keygen<R: RngCore + CryptoRng>(
    sid: SessionId,
    n: usize,
    t: u16,
    m: u16,
    paillier_bits: u32,
    rng: &mut R,
) -> Result<(MixnetPublic, Vec<MixServer>), MixnetError> {
    if n == 0 || n > MAX_SENDERS {
        return Err(ParamError::Invalid("batch size out of range").into());
    }
    if paillier_bits < MIN_PAILLIER_BITS {
        return Err(ParamError::Invalid("Paillier modulus below MIN_PAILLIER_BITS").into());
    }
    let params = ThresholdParams::new(t, m)?;
    let gens = Generators::derive(n);
    // The dealer (setup assumption): fresh safe primes, verifiable threshold-Paillier shares
    // and ring-Pedersen parameters from the same factorisation, which is then erased.
    let (tpk, pshares, ring_pedersen) = loop {
        let p = SecretInteger::new(generate_safe_prime(paillier_bits / 2, rng)?);
        let q = SecretInteger::new(generate_safe_prime(paillier_bits / 2, rng)?);
        match deal_with_primes(params, p.expose(), q.expose(), rng) {
            Err(PaillierError::InvalidKey(_)) => continue,
            Err(e) => return Err(e.into()),
            Ok((tpk, shares)) => {
                let rp = RingPedersenParams::from_safe_primes(p.expose(), q.expose(), rng)?;
                break (tpk, shares, rp);
            }
        }
    };
    let mut bs = Vec::new();
    let mut all = Vec::new();
    for k in params.parties() {
        let (b, s) = dkg::deal(&gens, params, &sid, k, rng);
        bs.push(b);
        all.extend(s);
    }
    let mut servers = Vec::new();
    let mut elgamal = None;
    let mut commitments = Vec::new();
    let mut proofs = Vec::new();
    for (k, pshare) in params.parties().zip(pshares) {
        let mine: Vec<_> = all.iter().filter(|s| s.to == k).cloned().collect();
        let (public, eshare) = dkg::finish(&gens, params, &sid, k, &bs, &mine)?;
        elgamal = Some(public);
        let (perm, com) = PermutationSecret::generate(&gens, n, rng)?;
        let proof = shuffle::prove(&sid, k, &gens, &com, &perm, None, rng)?;
        commitments.push(com);
        proofs.push(proof);
        servers.push(MixServer {
            id: k,
            paillier_share: pshare,
            elgamal_share: eshare,
            perm,
        });
    }
    let elgamal = elgamal.ok_or(ParamError::Invalid("no servers"))?;
    Ok((
        MixnetPublic {
            sid,
            n,
            params,
            gens,
            paillier: tpk,
            ring_pedersen,
            elgamal,
            perm_commitments: commitments,
            perm_proofs: proofs,
        },
        servers,
    ))
}

/// **Test and demo only**: [`keygen`] with a 1024-bit Paillier modulus
/// ([`TEST_PAILLIER_BITS`]), far below the production
/// [`crate::params::PRODUCTION_PAILLIER_BITS`]. Named so
/// that it cannot be mistaken for a production constructor.
pub fn keygen_with_test_moduli<R: RngCore + CryptoRng>(
    sid: SessionId,
    n: usize,
    t: u16,
    m: u16,
    rng: &mut R,
) -> Result<(MixnetPublic, Vec<MixServer>), MixnetError> {
    keygen(sid, n, t, m, TEST_PAILLIER_BITS, rng)
}

impl MixnetPublic {
    /// Verifies every permutation-commitment proof (blaming the server whose proof fails).
    pub fn verify_setup(&self) -> Result<(), MixnetError> {
        self.ring_pedersen.check()?;
        if self.ring_pedersen.n_hat != *self.paillier.encryption_key().n() {
            return Err(
                ParamError::Invalid("ring-Pedersen modulus is not the Paillier modulus").into(),
            );
        }
        let m = usize::from(self.params.n());
        if self.perm_commitments.len() != m || self.perm_proofs.len() != m {
            return Err(ParamError::LengthMismatch {
                what: "permutation commitments",
                expected: m,
                got: self.perm_commitments.len(),
            }
            .into());
        }
        for ((k, com), proof) in self
            .params
            .parties()
            .zip(&self.perm_commitments)
            .zip(&self.perm_proofs)
        {
            if com.u.len() != self.n {
                return Err(crate::error::blame(k, "permutation commitment length"));
            }
            shuffle::verify(&self.sid, k, &self.gens, com, None, proof)?;
        }
        Ok(())
    }
}
