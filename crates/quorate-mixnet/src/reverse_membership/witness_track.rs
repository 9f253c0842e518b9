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
//! signature track's `S̃_j` ([`crate::reverse_membership::run_signature_track`]). The querier re-derives
//! `W_0` and re-verifies every shuffle ([`verify_witness_shuffle`]); a failing server is
//! named. The shuffle proofs' transcripts bind the session, the prover, the permutation
//! commitment and both lists, so a Mix proof does not verify here and vice versa.
//!
//! # Steps 6–7: conversion to per-output shares
//! `W_m[j]` has the packed form `Enc(v + 2^K r)` that the Enc-to-shares conversion of
//! [`crate::sharing`] takes, so the servers run it, in its per-value layout, on the elements
//! of `W_m` at the *members* `j` (the outputs with `S̃_j ≠ 1` in the signature track; only
//! those need DPK_BBS+ witnesses, so a BTraceOut over a small `I` converts `|I|` elements,
//! not `n`; [`select_members`])
//! ([`crate::sharing::Layout::PerValue`]): server `k` publishes `E_k = Enc(a_k + 2^K a′_k)`,
//! `A_k = g^{a_k} h^{σ_k}`, `A′_k = g^{a′_k} h^{σ′_k}` with a proof that `E_k` and
//! `A_k, A′_k` hold the same integers (ring-Pedersen for the integer part, Schnorr
//! responses for `σ, σ′`); the servers threshold-decrypt `W_m[j]·Π_k E_k` (packed, one
//! batched proof per server) to `d = (c_{π(j)} + Σa) + 2^K (r_{π(j)} + r̂_{π(j)} + Σa′)`; server `k` then
//! holds `c_k = −a_k (+ d_c for k = 1)`, `ρ_k = −a′_k (+ d_ρ)` with Pedersen randomness
//! `−σ_k`, `−σ′_k`, and everybody computes the commitments `C_k = A_k^{−1} (·g^{d_c})`,
//! `R_k = A′_k^{−1} (·g^{d_ρ})`. The commitments are hiding (`Σ_k C_k = g^{c_{π(j)}}
//! h^{−Σσ}`), which matters because `c_i` is public: a Feldman commitment to `c_{π(j)}`
//! (or the joint `g^c h^ρ`, comparable with `γ_i h^{r̂_i} g^{c_i − v′_j}`) would reveal
//! `π(j)`. `d_c, d_ρ` hide the witnesses statistically (40 bits) if one server is honest.
//! `ρ = r + r̂` is the BBS+ randomness of the quasi-signature `S_{π(j)}`
//! ([`crate::reverse_membership`]), the `r` of the DPK_BBS+ witness `r′ = r·b`. The querier verifies
//! the whole track with [`verify_witness_track`]; a failing server is named.

use super::query::BbsQuery;
use crate::djn::g_pow;
use crate::error::MixnetError;
use crate::mix::{verify_mixing, MixRecord, MixStage};
use crate::params::scalar_to_int;
use crate::sender::SenderInput;
use crate::setup::{MixServer, MixnetPublic};
use crate::sharing::{self, MixerShares, SharingRecord, ValueCommitments, SLOT_BITS};
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
            // Enc(m; 1) = (1 + N)^m: a deterministic encryption, no randomness to raise.
            let base = g_pow(pk, m);
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

/// Steps 4–7 for the Paillier witnesses: the forward shuffle and the conversion record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessTrack {
    /// Steps 4–5.
    pub shuffle: WitnessShuffle,
    /// Steps 6–7 (per-value Enc-to-shares conversion of `W_m` at the members).
    pub conversion: SharingRecord,
}

/// The ciphertexts of `w_m` at the output positions `members` (strictly increasing), in
/// that order: the elements the conversion of steps 6–7 runs on.
pub fn select_members(
    w_m: &[Ciphertext],
    members: &[usize],
) -> Result<Vec<Ciphertext>, MixnetError> {
    if !members.windows(2).all(|w| w[0] < w[1]) {
        return Err(ParamError::Invalid("member positions must be strictly increasing").into());
    }
    members
        .iter()
        .map(|&j| {
            w_m.get(j)
                .cloned()
                .ok_or_else(|| ParamError::Invalid("member position out of range").into())
        })
        .collect()
}

/// Steps 4–7 in process: shuffle, then convert `W_m` at the output positions `members`
/// (the outputs whose `S̃_j ≠ 1`; only those need DPK_BBS+ witnesses) to per-output shares.
/// Returns the published track and each server's shares (`value_shares(u)` = shares of
/// `(c_{π(j)}, r_{π(j)} + r̂_{π(j)})` for `j = members[u]`, with their Pedersen randomness),
/// in server order.
pub fn run_witness_track<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    q: &BbsQuery,
    members: &[usize],
    rng: &mut R,
) -> Result<(WitnessTrack, Vec<MixerShares>), MixnetError> {
    let shuffle = run_witness_shuffle(public, servers, submissions, record, q, rng)?;
    let w_m = shuffle
        .forward
        .last()
        .map(|s| s.outputs.clone())
        .ok_or(ParamError::Invalid("no servers"))?;
    let bases = select_members(&w_m, members)?;
    let (conversion, shares) = sharing::run_value_sharing(public, servers, &bases, rng)?;
    Ok((
        WitnessTrack {
            shuffle,
            conversion,
        },
        shares,
    ))
}

/// The querier's check of steps 4–7: every shuffle, mask proof and decryption share
/// (failing server named). Returns the per-value commitments `[u][k]` (output
/// `members[u]`, server position `k`) to the shares of `c_{π(j)}` and
/// `r_{π(j)} + r̂_{π(j)}`.
pub fn verify_witness_track(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    q: &BbsQuery,
    members: &[usize],
    track: &WitnessTrack,
) -> Result<Vec<Vec<ValueCommitments>>, MixnetError> {
    let w_m = verify_witness_shuffle(public, submissions, record, q, &track.shuffle)?;
    sharing::verify_value_sharing(public, &select_members(&w_m, members)?, &track.conversion)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::mix;
    use crate::reverse_membership::querier_quasi_sign;
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
        let mut inputs = Vec::new();
        let mut openings = Vec::new();
        for i in 0..n {
            let (inp, op) =
                sender::encrypt_for(&public, i as u64, Scalar::random(&mut rng), &mut rng).unwrap();
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
        let all: Vec<usize> = (0..n).collect();
        let (track, shares) = run_witness_track(
            &w.public, &w.servers, &w.inputs, &w.record, &w.q, &all, &mut w.rng,
        )
        .unwrap();
        let coms =
            verify_witness_track(&w.public, &w.inputs, &w.record, &w.q, &all, &track).unwrap();
        let truth = mix::composed_permutation(&w.servers);
        let (g, h) = (w.public.gens.g, w.public.gens.h);
        // The shuffled ciphertexts themselves (first output only: decryption is slow).
        let w_m = &track.shuffle.forward.last().unwrap().outputs;
        let i0 = truth[0];
        let (c0, rh0) = match w.q.inputs.iter().position(|&x| x == i0) {
            Some(p) => (w.q.sigs[p].c, w.q.sigs[p].r_hat),
            None => (Scalar::ZERO, Scalar::ZERO),
        };
        assert_eq!(
            decrypt(&w, &w_m[0]),
            scalar_to_int(&c0)
                + ((scalar_to_int(&w.openings[i0].r) + scalar_to_int(&rh0)) << SLOT_BITS)
        );
        for j in 0..n {
            let i = truth[j];
            let (c, r_hat) = match w.q.inputs.iter().position(|&x| x == i) {
                Some(p) => (w.q.sigs[p].c, w.q.sigs[p].r_hat),
                None => (Scalar::ZERO, Scalar::ZERO),
            };
            let mut sum = [Scalar::ZERO; 2];
            for (k, sh) in shares.iter().enumerate() {
                let (v, s) = sh.value_shares(j).unwrap();
                assert_eq!(g * v[0] + h * s[0], coms[j][k].v, "C_k, output {j}");
                assert_eq!(g * v[1] + h * s[1], coms[j][k].r, "R_k, output {j}");
                sum[0] += v[0];
                sum[1] += v[1];
            }
            assert_eq!(sum[0], c, "c share sum, output {j}");
            assert_eq!(sum[1], w.openings[i].r + r_hat, "r share sum, output {j}");
        }
    }

    #[test]
    fn witness_track_end_to_end_10_2() {
        end_to_end(10, 2, 41);
    }

    #[test]
    fn witness_track_end_to_end_12_3() {
        // (50, 3) runs through the whole DB-RSM in tests/mixnet/trace.rs.
        end_to_end(12, 3, 42);
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

    #[test]
    fn a_cheating_server_in_the_witness_conversion_is_named() {
        let mut w = world(10, 3, 45);
        let all: Vec<usize> = (0..w.public.n).collect();
        let (track, _) = run_witness_track(
            &w.public, &w.servers, &w.inputs, &w.record, &w.q, &all, &mut w.rng,
        )
        .unwrap();
        let id = w.servers[1].id;
        // A mask commitment that does not match the proof (shares would not open it).
        let mut t1 = track.clone();
        let a2 = t1.conversion.commits[1].commits[3].a2_k.unwrap();
        t1.conversion.commits[1].commits[3].a2_k = Some(a2 + w.public.gens.g);
        let err =
            verify_witness_track(&w.public, &w.inputs, &w.record, &w.q, &all, &t1).unwrap_err();
        assert_eq!(err.culprits(), &[id], "{err:?}");
        // A wrong Pedersen-randomness response.
        let mut t2 = track.clone();
        let z = t2.conversion.commits[1].commits[0]
            .proof
            .z_sigma
            .as_mut()
            .unwrap();
        z[0] += Scalar::ONE;
        let err =
            verify_witness_track(&w.public, &w.inputs, &w.record, &w.q, &all, &t2).unwrap_err();
        assert_eq!(err.culprits(), &[id], "{err:?}");
        // Decryption shares for the wrong ciphertexts.
        let mut t3 = track.clone();
        let mut v = t3.conversion.decryptions[1].shares.values().to_vec();
        v.swap(0, 1);
        t3.conversion.decryptions[1].shares = t3.conversion.decryptions[1].shares.with_values(v);
        let err =
            verify_witness_track(&w.public, &w.inputs, &w.record, &w.q, &all, &t3).unwrap_err();
        assert_eq!(err.culprits(), &[id], "{err:?}");
    }

    #[test]
    fn witness_conversion_proofs_are_bound_to_layout_and_position() {
        let mut w = world(10, 2, 46);
        let all: Vec<usize> = (0..w.public.n).collect();
        let (track, _) = run_witness_track(
            &w.public, &w.servers, &w.inputs, &w.record, &w.q, &all, &mut w.rng,
        )
        .unwrap();
        let id = w.servers[0].id;
        // Proofs are bound to the element position.
        let mut t1 = track.clone();
        t1.conversion.commits[0].commits.swap(0, 1);
        let err =
            verify_witness_track(&w.public, &w.inputs, &w.record, &w.q, &all, &t1).unwrap_err();
        assert_eq!(err.culprits(), &[id], "{err:?}");
        // A per-value proof stripped to the joint shape does not verify as joint either:
        // the layouts use different protocol names.
        let mut t2 = track.clone();
        for c in &mut t2.conversion.commits[0].commits {
            c.a2_k = None;
            c.proof.z_sigma = None;
        }
        let err =
            verify_witness_track(&w.public, &w.inputs, &w.record, &w.q, &all, &t2).unwrap_err();
        assert_eq!(err.culprits(), &[id], "{err:?}");
        // A joint-layout (DB-SM) sharing record is not a witness conversion.
        let (joint, _) =
            sharing::run_sharing(&w.public, &w.servers, &w.inputs, &w.record, &mut w.rng).unwrap();
        let mut t3 = track.clone();
        t3.conversion = joint;
        assert!(verify_witness_track(&w.public, &w.inputs, &w.record, &w.q, &all, &t3).is_err());
    }
}
