//! Step 2 (Fig. 8): each server re-encrypts the signature list and moves it back through its
//! Mix permutation, with the Terelius–Wikström ElGamal shuffle proof against the same
//! permutation commitment ([`ReverseStage`]); [`verify_reverse`] checks them all and returns
//! the blinding bases `R_0[i]`, `i ∈ I`.

use super::query::{initial_list, BbQuery};
use super::stages::check_order;
use super::DbSmProof;
use crate::elgamal::ElGamalCiphertext;
use crate::error::{blame, MixnetError};
use crate::setup::{MixServer, MixnetPublic};
use crate::shuffle::{self, ElGamalShuffle, ShuffleProof};
use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

/// One server's reverse re-encryption shuffle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReverseStage {
    /// The server.
    pub mixer: PartyId,
    /// `R_{k−1}`.
    pub outputs: Vec<ElGamalCiphertext>,
    /// TW ElGamal shuffle proof (statement: `R_k[i] = R_{k−1}[π_k(i)]·Enc(1; −s_i)`).
    pub proof: ShuffleProof,
}

impl MixServer {
    /// Step 2: re-encrypts `list` (aligned with this server's Mix outputs) and moves it back
    /// through `π⁻¹`, with the TW ElGamal shuffle proof.
    pub fn reverse_shuffle<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        list: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> Result<ReverseStage, MixnetError> {
        let n = public.n;
        if list.len() != n {
            return Err(ParamError::LengthMismatch {
                what: "reverse shuffle input",
                expected: n,
                got: list.len(),
            }
            .into());
        }
        let tables = public.elgamal_tables();
        let s: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
        let mut out = vec![ElGamalCiphertext::trivial(G1Projective::identity()); n];
        let moved: Vec<ElGamalCiphertext> = list
            .par_iter()
            .zip(s.par_iter())
            .map(|(c, si)| tables.rerandomize(&public.gens, c, si))
            .collect();
        for (i, &p) in self.perm.pi().iter().enumerate() {
            if let (Some(slot), Some(c)) = (out.get_mut(p), moved.get(i)) {
                *slot = *c;
            }
        }
        // The proof is for the forward direction: `list` is `out` moved through `π` and
        // re-randomised by `−s`.
        let rho: Vec<Scalar> = s.iter().map(|x| -*x).collect();
        let proof = self.prove_elgamal_shuffle(public, &out, list, &rho, rng)?;
        Ok(ReverseStage {
            mixer: self.id,
            outputs: out,
            proof,
        })
    }

    /// The TW ElGamal shuffle proof, against this server's permutation commitment, that
    /// `outputs[i] = inputs[π(i)]·Enc(1; randomness[i])`.
    pub(crate) fn prove_elgamal_shuffle<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        inputs: &[ElGamalCiphertext],
        outputs: &[ElGamalCiphertext],
        randomness: &[Scalar],
        rng: &mut R,
    ) -> Result<shuffle::ShuffleProof, MixnetError> {
        let com =
            public
                .perm_commitments
                .get(self.id.position())
                .ok_or(ParamError::UnknownParty {
                    id: self.id,
                    n: public.params.n(),
                })?;
        let stmt = ElGamalShuffle {
            pk: &public.elgamal.pk,
            inputs,
            outputs,
        };
        shuffle::prove_elgamal(
            &public.sid,
            self.id,
            &public.gens,
            com,
            &self.perm,
            &stmt,
            randomness,
            rng,
        )
    }
}

/// Verifies the reverse shuffles and returns `R_0` restricted to `I` (the blinding bases).
pub(super) fn verify_reverse(
    public: &MixnetPublic,
    q: &BbQuery,
    proof: &DbSmProof,
) -> Result<Vec<ElGamalCiphertext>, MixnetError> {
    let stages = check_order(
        public,
        &proof.reverse,
        |s| s.mixer,
        true,
        "reverse shuffle stages",
    )?;
    let pk = public.elgamal.pk;
    let init = initial_list(public.n, q);
    let mut current: &[ElGamalCiphertext] = &init;
    for (k, st) in stages {
        if st.outputs.len() != public.n {
            return Err(blame(k, "reverse shuffle output length"));
        }
        let com = public
            .perm_commitments
            .get(k.position())
            .ok_or(ParamError::Invalid("missing commitment"))?;
        let stmt = ElGamalShuffle {
            pk: &pk,
            inputs: &st.outputs,
            outputs: current,
        };
        shuffle::verify_elgamal(&public.sid, k, &public.gens, com, &stmt, &st.proof)?;
        current = &st.outputs;
    }
    let bases: Vec<ElGamalCiphertext> = q
        .inputs
        .iter()
        .filter_map(|&i| current.get(i).copied())
        .collect();
    if bases.iter().any(|b| bool::from(b.a.is_identity())) {
        return Err(ParamError::Invalid("degenerate re-encrypted signature (a = 1)").into());
    }
    Ok(bases)
}
