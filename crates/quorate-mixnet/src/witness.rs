//! DB-RSM (Fig. 9) steps 4–5 for the Paillier witnesses: the forward shuffle of the
//! senders' `Enc(c_i)`, `Enc(r_i + r̂_i)` against the Mix permutation commitments.
//!
//! # Step 4: the initial witness list
//! For every accepted input `i` the servers (and the querier) compute, from public data only,
//!
//! `W_0[i] = Enc(c_i + 2^K (r_i + r̂_i)) = (1+N)^{c_i + 2^K r̂_i} · c′_i^{2^K} mod N²`,
//!
//! with `c′_i = Enc(r_i)` the sender's second ciphertext, `(c_i, r̂_i)` the public randomness
//! of the querier's quasi-signature on `γ_i` for `i ∈ I` and `c_i = r̂_i = 0` for `i ∉ I`,
//! and `K` = [`crate::sharing::SLOT_BITS`]. Packing both witnesses into one ciphertext means
//! one shuffle (and later one decryption slot pair) per input; the slot width is the one of
//! the Enc-to-shares conversion ([`crate::sharing`]), so `c_i < q` and `r_i + r̂_i < 2q` never
//! carry into each other even after masks are added. `W_0` is deterministic: its
//! randomness is that of `c′_i`, which the first shuffle re-randomises.
//!
//! # Step 5: forward shuffle
//! Server `k` re-encrypts and permutes the list by its committed `π_k`
//! (`W_k[j] = W_{k−1}[π_k(j)]·ρ_j^N`) with the Terelius–Wikström Paillier shuffle proof
//! against the *same* permutation commitment as its Mix stage ([`MixServer::mix`], reused
//! as is). The composed permutation is the Mix's, so output `j` of `W_m` holds
//! `Enc(c_{π(j)} + 2^K (r_{π(j)} + r̂_{π(j)}))`, aligned with Mix output `j` and with the
//! signature track's `S̃_j` ([`crate::dbrsm::run_signature_track`]). The querier re-derives
//! `W_0` and re-verifies every shuffle ([`verify_witness_shuffle`]); a failing server is
//! named. The shuffle proofs' transcripts bind the session, the prover, the permutation
//! commitment and both lists, so a Mix proof does not verify here and vice versa.
//!
//! **Not done yet**: the conversion of `W_m[j]` into per-output additive shares of
//! `c_{π(j)}` and `r_{π(j)} + r̂_{π(j)}` with per-value commitments (steps 6–7).

use crate::dbrsm::BbsQuery;
use crate::error::MixnetError;
use crate::mix::{verify_mixing, MixRecord, MixStage};
use crate::params::scalar_to_int;
use crate::sender::{enc_raw, SenderInput};
use crate::setup::{MixServer, MixnetPublic};
use crate::sharing::SLOT_BITS;
use quorate_core::ParamError;
use quorate_paillier::bigint::{mul_mod, pow_mod_vartime};
use quorate_paillier::rug::Integer;
use quorate_paillier::Ciphertext;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

/// The published forward shuffles of the witness list, server 1 first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessShuffle {
    /// One stage per server (`outputs` is `W_k`).
    pub forward: Vec<MixStage>,
}

/// Step 4: `W_0[i] = (1+N)^{c_i + 2^K r̂_i} · c′_i^{2^K}` for every accepted input (see the
/// module docs). `q.inputs` index the accepted inputs.
pub fn initial_witness_list(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    q: &BbsQuery,
) -> Result<Vec<Ciphertext>, MixnetError> {
    let inputs = crate::sharing::accepted_inputs(submissions, record)?;
    if inputs.len() != public.n || q.inputs.len() != q.sigs.len() {
        return Err(ParamError::Invalid("witness list: inputs do not match n or the query").into());
    }
    let mut plain = vec![Integer::new(); inputs.len()];
    for (&i, s) in q.inputs.iter().zip(&q.sigs) {
        let slot = plain
            .get_mut(i)
            .ok_or(MixnetError::InvalidQuery("query index out of range"))?;
        *slot = scalar_to_int(&s.c) + (scalar_to_int(&s.r_hat) << SLOT_BITS);
    }
    let pk = public.paillier.encryption_key();
    let n2 = pk.n_squared();
    let shift = Integer::from(1) << SLOT_BITS;
    inputs
        .par_iter()
        .zip(plain.par_iter())
        .map(|(inp, m)| {
            let lifted = pow_mod_vartime(inp.c_prime.as_integer(), &shift, n2)?;
            let base = enc_raw(pk, m, &Integer::from(1))?;
            Ok(pk.ciphertext_from_integer(mul_mod(&base, &lifted, n2))?)
        })
        .collect()
}

/// Step 5 in process: every server shuffles the witness list forward in turn (each stage
/// checked before the next builds on it).
pub fn run_witness_shuffle<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    q: &BbsQuery,
    rng: &mut R,
) -> Result<WitnessShuffle, MixnetError> {
    let init = initial_witness_list(public, submissions, record, q)?;
    let mut forward: Vec<MixStage> = Vec::with_capacity(servers.len());
    for srv in servers {
        let cur = forward
            .last()
            .map(|s| s.outputs.as_slice())
            .unwrap_or(&init);
        forward.push(srv.mix(public, cur, rng)?);
    }
    let out = WitnessShuffle { forward };
    verify_witness_shuffle(public, submissions, record, q, &out)?;
    Ok(out)
}

/// The querier's check: re-derives `W_0` and verifies every forward shuffle, naming a
/// failing server. Returns `W_m`.
pub fn verify_witness_shuffle(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    q: &BbsQuery,
    shuffle: &WitnessShuffle,
) -> Result<Vec<Ciphertext>, MixnetError> {
    let init = initial_witness_list(public, submissions, record, q)?;
    Ok(verify_mixing(public, &init, &shuffle.forward)?.to_vec())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::dbrsm::querier_quasi_sign;
    use crate::mix;
    use crate::sender::{self, SenderOpening};
    use crate::setup::keygen_with_test_moduli;
    use blstrs::Scalar;
    use ff::Field;
    use quorate_core::error::Culprits;
    use quorate_core::transcript::SessionId;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{OsRng, SeedableRng};

    struct World {
        public: MixnetPublic,
        servers: Vec<MixServer>,
        inputs: Vec<SenderInput>,
        openings: Vec<SenderOpening>,
        record: MixRecord,
        q: BbsQuery,
        rng: ChaCha20Rng,
    }

    fn world(n: usize, m: u16, seed: u64) -> World {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let sid = SessionId::new(format!("witness-{seed}").into_bytes());
        let (public, servers) = keygen_with_test_moduli(sid, n, m, m, &mut rng).unwrap();
        let pk = public.paillier.encryption_key();
        let mut inputs = Vec::new();
        let mut openings = Vec::new();
        for i in 0..n {
            let (inp, op) = sender::encrypt(
                &public.gens,
                pk,
                &public.ring_pedersen,
                &public.sid,
                i as u64,
                Scalar::random(&mut rng),
                &mut rng,
            )
            .unwrap();
            inputs.push(inp);
            openings.push(op);
        }
        let record = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
        let gammas: Vec<_> = inputs.iter().map(|s| s.gamma).collect();
        let i_set: Vec<usize> = (0..n).filter(|i| i % 3 != 0).collect();
        let (_key, q) = querier_quasi_sign(&public, &gammas, &i_set, &mut rng).unwrap();
        World {
            public,
            servers,
            inputs,
            openings,
            record,
            q,
            rng,
        }
    }

    fn decrypt(w: &World, ct: &Ciphertext) -> Integer {
        let shares: Vec<_> = w
            .servers
            .iter()
            .map(|s| {
                s.paillier_share
                    .decrypt_share(&w.public.paillier, &w.public.sid, ct, &mut OsRng)
                    .unwrap()
            })
            .collect();
        w.public
            .paillier
            .verify_and_combine(&w.public.sid, ct, &shares)
            .unwrap()
    }

    fn end_to_end(n: usize, m: u16, seed: u64) {
        let mut w = world(n, m, seed);
        let sh = run_witness_shuffle(
            &w.public, &w.servers, &w.inputs, &w.record, &w.q, &mut w.rng,
        )
        .unwrap();
        let out = verify_witness_shuffle(&w.public, &w.inputs, &w.record, &w.q, &sh).unwrap();
        let truth = mix::composed_permutation(&w.servers);
        for (j, ct) in out.iter().enumerate() {
            let i = truth[j];
            let (c, r_hat) = match w.q.inputs.iter().position(|&x| x == i) {
                Some(p) => (w.q.sigs[p].c, w.q.sigs[p].r_hat),
                None => (Scalar::ZERO, Scalar::ZERO),
            };
            let expected = scalar_to_int(&c)
                + ((scalar_to_int(&w.openings[i].r) + scalar_to_int(&r_hat)) << SLOT_BITS);
            assert_eq!(decrypt(&w, ct), expected, "output {j}");
        }
    }

    #[test]
    fn witness_shuffle_end_to_end_10_2() {
        end_to_end(10, 2, 41);
    }

    #[test]
    fn witness_shuffle_end_to_end_50_3() {
        end_to_end(50, 3, 42);
    }

    #[test]
    fn a_cheating_server_in_the_witness_shuffle_is_named() {
        let mut w = world(10, 3, 43);
        let mut sh = run_witness_shuffle(
            &w.public, &w.servers, &w.inputs, &w.record, &w.q, &mut w.rng,
        )
        .unwrap();
        // Server 2 swaps two outputs after proving.
        sh.forward[1].outputs.swap(0, 1);
        let err = verify_witness_shuffle(&w.public, &w.inputs, &w.record, &w.q, &sh).unwrap_err();
        assert_eq!(err.culprits(), &[w.servers[1].id], "{err:?}");
    }

    #[test]
    fn witness_shuffle_proof_is_bound_to_the_query() {
        // The proofs bind W_0, hence the querier's (c_i, r̂_i): changing one signature's
        // randomness makes server 1's proof fail.
        let mut w = world(10, 2, 44);
        let sh = run_witness_shuffle(
            &w.public, &w.servers, &w.inputs, &w.record, &w.q, &mut w.rng,
        )
        .unwrap();
        let mut q2 = w.q.clone();
        q2.sigs[0].r_hat += Scalar::ONE;
        let err = verify_witness_shuffle(&w.public, &w.inputs, &w.record, &q2, &sh).unwrap_err();
        assert_eq!(err.culprits(), &[w.servers[0].id], "{err:?}");
        // A Mix proof is not a witness-shuffle proof.
        let mut sh2 = sh.clone();
        sh2.forward[0].proof = w.record.stages[0].proof.clone();
        let err = verify_witness_shuffle(&w.public, &w.inputs, &w.record, &w.q, &sh2).unwrap_err();
        assert_eq!(err.culprits(), &[w.servers[0].id], "{err:?}");
    }
}
