//! RDKGitH (TZ21 Protocol 5): Shamir sharing of degree `t` among `N` parties, `t` opened.
//!
//! Party `i ∈ [0, N)` holds the share `f(i + 1)`. Proof body encoding (after the header):
//! `challenge (32) ‖ salt (32) ‖ t × A_j (point, j = 1..t) ‖ (N − t) × [c1 ‖ c2]` (the
//! unopened ciphertexts, in party order) `‖ t × [s_i (32) ‖ seed_i (16)]` (the opened
//! parties, in party order). Which parties are opened follows from the challenge.

use ff::{Field, PrimeField};
use quorate_core::secret::wipe_fields;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

use super::common::{
    self, kdf, party_prg, random_seed, Ciphertext, Reader, Seed, CHALLENGE_LEN, SALT_LEN,
    SCALAR_LEN, SEED_LEN,
};
use super::ops::{batch_invert, key_tables, Tz21Curve};
use super::{Scheme, Tz21Error, Tz21Params};
use crate::group::Curve;

/// An RDKGitH proof body.
#[derive(Clone)]
pub(crate) struct RdkProof<C: Curve> {
    challenge: [u8; CHALLENGE_LEN],
    salt: [u8; SALT_LEN],
    /// `A_1..A_t` (`A_0 = X` is not sent).
    coeffs: Vec<C::Point>,
    /// Their canonical encodings, concatenated (kept to avoid re-encoding).
    coeffs_enc: Vec<u8>,
    /// Ciphertexts of the unopened parties, in party order.
    hidden_cts: Vec<Ciphertext<C>>,
    /// Canonical encodings of their `c1`, concatenated.
    hidden_c1_enc: Vec<u8>,
    /// `(s_i, seed_i)` of the opened parties, in party order.
    opened: Vec<(C::Scalar, Seed)>,
}

impl<C: Curve> RdkProof<C> {
    pub(crate) fn encoded_len(params: &Tz21Params) -> usize {
        let (n, t) = (params.parties, params.rounds_or_threshold);
        CHALLENGE_LEN
            + SALT_LEN
            + t * C::POINT_LEN
            + (n - t) * Ciphertext::<C>::len()
            + t * (SCALAR_LEN + SEED_LEN)
    }

    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.challenge);
        out.extend_from_slice(&self.salt);
        out.extend_from_slice(&self.coeffs_enc);
        for (ct, c1) in self
            .hidden_cts
            .iter()
            .zip(self.hidden_c1_enc.chunks_exact(C::POINT_LEN))
        {
            out.extend_from_slice(c1);
            out.extend_from_slice(&C::scalar_to_be_bytes(&ct.c2));
        }
        for (s, seed) in &self.opened {
            out.extend_from_slice(&C::scalar_to_be_bytes(s));
            out.extend_from_slice(seed.as_ref());
        }
    }

    pub(crate) fn read(params: &Tz21Params, r: &mut Reader<'_>) -> Result<Self, Tz21Error> {
        let (n, t) = (params.parties, params.rounds_or_threshold);
        let challenge = r.array::<CHALLENGE_LEN>("challenge")?;
        let salt = r.array::<SALT_LEN>("salt")?;
        // Points are decoded on all threads (a square root and a canonicity check each).
        let coeffs_enc = r.take("polynomial commitments", t * C::POINT_LEN)?.to_vec();
        let coeffs = coeffs_enc
            .par_chunks_exact(C::POINT_LEN)
            .map(|b| C::point_from_bytes("polynomial commitment", b))
            .collect::<Result<Vec<_>, _>>()?;
        let mut hidden_c1_enc = Vec::with_capacity((n - t) * C::POINT_LEN);
        let mut hidden_c2 = Vec::with_capacity(n - t);
        for _ in 0..n - t {
            hidden_c1_enc.extend_from_slice(r.take("ciphertext c1", C::POINT_LEN)?);
            hidden_c2.push(r.scalar::<C>("ciphertext c2")?);
        }
        let hidden_cts = hidden_c1_enc
            .par_chunks_exact(C::POINT_LEN)
            .zip(hidden_c2.par_iter())
            .map(|(b, c2)| {
                Ok(Ciphertext {
                    c1: C::point_from_bytes("ciphertext c1", b)?,
                    c2: *c2,
                })
            })
            .collect::<Result<Vec<_>, Tz21Error>>()?;
        let opened = (0..t)
            .map(|_| Ok((r.scalar::<C>("opened share")?, r.seed("opened seed")?)))
            .collect::<Result<Vec<_>, Tz21Error>>()?;
        Ok(RdkProof {
            challenge,
            salt,
            coeffs,
            coeffs_enc,
            hidden_cts,
            hidden_c1_enc,
            opened,
        })
    }
}

/// Evaluation point of party `i`: `i + 1`.
fn eval_point<F: PrimeField>(i: usize) -> F {
    F::from(i as u64 + 1)
}

/// `f(1), …, f(n)` for the polynomial with coefficients `poly` (constant term first, degree
/// `t = poly.len() − 1`): the first `t + 1` values by Horner's rule, the others by forward
/// differences (`Δ^t f` is constant, so each further value costs `t` additions instead of
/// `t` multiplications). Constant time: the same field operations whatever the values.
fn shares_at_parties<F: PrimeField>(poly: &[F], n: usize) -> Vec<F> {
    let t = poly.len().saturating_sub(1);
    let horner = |i: usize| {
        let z: F = eval_point(i);
        poly.iter().rev().fold(F::ZERO, |s, a| s * z + a)
    };
    let first = n.min(t + 1);
    let mut out: Vec<F> = (0..first).into_par_iter().map(horner).collect();
    if n > first {
        // d[k] = Δ^k f(1), then stepped to party t (f(t + 1)) and on, one party at a time.
        let mut d = out.clone();
        for k in 1..=t {
            for j in (k..=t).rev() {
                let prev = d[j - 1];
                d[j] -= prev;
            }
        }
        let step = |d: &mut [F]| {
            for k in 0..t {
                let next = d[k + 1];
                d[k] += next;
            }
        };
        for _ in 0..t {
            step(&mut d);
        }
        for _ in first..n {
            step(&mut d);
            out.push(d[0]);
        }
        wipe_fields(&mut d);
    }
    out
}

/// The encryption randomness of party `i`.
fn party_rand<C: Curve>(salt: &[u8; SALT_LEN], i: usize, seed: &Seed) -> C::Scalar {
    let mut prg = party_prg::<C>(Scheme::Rdkgith, salt, 0, i, seed);
    C::Scalar::random(&mut prg)
}

/// Opened parties (sorted) and unopened parties (sorted), from the challenge.
fn split_parties(params: &Tz21Params, challenge: &[u8; CHALLENGE_LEN]) -> (Vec<usize>, Vec<usize>) {
    let mut rng = common::challenge_rng(challenge, b"rdkgith/opened");
    let opened = common::random_subset(&mut rng, params.parties, params.rounds_or_threshold);
    let mut is_open = vec![false; params.parties];
    for &i in &opened {
        is_open[i] = true;
    }
    let hidden = (0..params.parties).filter(|&i| !is_open[i]).collect();
    (opened, hidden)
}

/// Digest of all `N` ciphertexts (party order), given as encoded `c1` and scalar `c2`.
fn ciphertexts_digest<C: Curve>(c1_enc: &[&[u8]], c2: &[C::Scalar]) -> [u8; 32] {
    let mut buf = Vec::with_capacity(c1_enc.len() * Ciphertext::<C>::len());
    for (a, b) in c1_enc.iter().zip(c2.iter()) {
        buf.extend_from_slice(a);
        buf.extend_from_slice(&C::scalar_to_be_bytes(b));
    }
    common::digest(b"rdkgith/ciphertexts", &[C::NAME.as_bytes(), &buf])
}

fn commitments_transcript<C: Curve>(
    params: &Tz21Params,
    ek: &C::Point,
    public: &C::Point,
    label: &[u8],
    salt: &[u8; SALT_LEN],
    coeff_enc: &[u8],
    cts_digest: &[u8; 32],
) -> merlin::Transcript {
    let mut t = common::transcript::<C>(params, ek, public, label);
    t.append_message(b"salt", salt);
    t.append_message(b"polynomial commitments", coeff_enc);
    t.append_message(b"ciphertexts", cts_digest);
    t
}

pub(crate) fn prove<C: Tz21Curve>(
    rng: &mut (impl RngCore + CryptoRng),
    params: &Tz21Params,
    ek: &C::Point,
    x: &C::Scalar,
    public: &C::Point,
    label: &[u8],
) -> RdkProof<C> {
    let (n, t) = (params.parties, params.rounds_or_threshold);
    // Step 1: f(z) = x + a_1 z + … + a_t z^t.
    let mut poly = Vec::with_capacity(t + 1);
    poly.push(*x);
    for _ in 0..t {
        poly.push(C::Scalar::random(&mut *rng));
    }
    let mut salt = [0u8; SALT_LEN];
    rng.fill_bytes(&mut salt);
    let seeds: Vec<Seed> = (0..n).map(|_| random_seed(rng)).collect();
    let tables = key_tables::<C>(ek);
    let ek_table = &tables.ct;

    // Step 2: s_i = f(i+1), r_i from the party seed.
    let mut shares = shares_at_parties(&poly, n);
    let mut rands: Vec<C::Scalar> = seeds
        .par_iter()
        .enumerate()
        .map(|(i, seed)| party_rand::<C>(&salt, i, seed))
        .collect();
    // A_j = a_j·G (j = 1..t) and c1_i = r_i·G in one batch, K_i = r_i·ek: constant time.
    let mut gen_scalars = Vec::with_capacity(t + n);
    gen_scalars.extend_from_slice(&poly[1..]);
    gen_scalars.extend_from_slice(&rands);
    let (gen_pts, gen_enc) = C::mul_gen_encoded(&gen_scalars);
    wipe_fields(&mut gen_scalars);
    let k_enc = C::mul_table_encoded(ek_table, &rands);
    wipe_fields(&mut rands);
    let pl = C::POINT_LEN;
    let coeffs = gen_pts[..t].to_vec();
    let coeff_enc = &gen_enc[..t * pl];
    let c2: Vec<C::Scalar> = (0..n)
        .into_par_iter()
        .map(|i| kdf::<C>(&k_enc[i * pl..(i + 1) * pl]) + shares[i])
        .collect();
    let c1_enc: Vec<&[u8]> = (0..n)
        .map(|i| &gen_enc[(t + i) * pl..(t + i + 1) * pl])
        .collect();
    let cts_digest = ciphertexts_digest::<C>(&c1_enc, &c2);

    // Step 3: challenge and the opened set.
    let mut tr =
        commitments_transcript::<C>(params, ek, public, label, &salt, coeff_enc, &cts_digest);
    let mut challenge = [0u8; CHALLENGE_LEN];
    tr.challenge_bytes(b"challenge", &mut challenge);
    let (opened_idx, hidden_idx) = split_parties(params, &challenge);

    // Step 4: response.
    let hidden_cts = hidden_idx
        .iter()
        .map(|&i| Ciphertext {
            c1: gen_pts[t + i],
            c2: c2[i],
        })
        .collect();
    let mut hidden_c1_enc = Vec::with_capacity((n - t) * pl);
    for &i in &hidden_idx {
        hidden_c1_enc.extend_from_slice(c1_enc[i]);
    }
    let opened = opened_idx
        .iter()
        .map(|&i| (shares[i], seeds[i].clone()))
        .collect();
    wipe_fields(&mut shares);
    wipe_fields(&mut poly);
    RdkProof {
        challenge,
        salt,
        coeffs,
        coeffs_enc: coeff_enc.to_vec(),
        hidden_cts,
        hidden_c1_enc,
        opened,
    }
}

pub(crate) fn verify<C: Tz21Curve>(
    params: &Tz21Params,
    ek: &C::Point,
    public: &C::Point,
    label: &[u8],
    proof: &RdkProof<C>,
) -> Result<(), Tz21Error> {
    let (n, t) = (params.parties, params.rounds_or_threshold);
    if proof.coeffs.len() != t
        || proof.coeffs_enc.len() != t * C::POINT_LEN
        || proof.hidden_cts.len() != n - t
        || proof.hidden_c1_enc.len() != (n - t) * C::POINT_LEN
        || proof.opened.len() != t
    {
        return Err(Tz21Error::ProofRejected("wrong number of proof elements"));
    }
    let (opened_idx, hidden_idx) = split_parties(params, &proof.challenge);
    let tables = key_tables::<C>(ek);
    let ek_table = &tables.vartime;

    // Step 5a: recompute the opened ciphertexts (public data: variable time).
    let rands: Vec<C::Scalar> = opened_idx
        .par_iter()
        .zip(proof.opened.par_iter())
        .map(|(&i, (_, seed))| party_rand::<C>(&proof.salt, i, seed))
        .collect();
    let (_, c1_enc_opened) = C::mul_gen_encoded_vartime(&rands);
    let k_enc = C::mul_table_encoded_vartime(ek_table, &rands);
    let pl = C::POINT_LEN;
    let opened_c2: Vec<C::Scalar> = (0..t)
        .into_par_iter()
        .map(|k| kdf::<C>(&k_enc[k * pl..(k + 1) * pl]) + proof.opened[k].0)
        .collect();
    let mut c1_enc: Vec<&[u8]> = vec![&[]; n];
    let mut c2 = vec![C::Scalar::ZERO; n];
    for (k, &i) in opened_idx.iter().enumerate() {
        c1_enc[i] = &c1_enc_opened[k * pl..(k + 1) * pl];
        c2[i] = opened_c2[k];
    }
    for (k, &i) in hidden_idx.iter().enumerate() {
        c1_enc[i] = &proof.hidden_c1_enc[k * pl..(k + 1) * pl];
        c2[i] = proof.hidden_cts[k].c2;
    }
    let cts_digest = ciphertexts_digest::<C>(&c1_enc, &c2);
    let coeff_enc: &[u8] = &proof.coeffs_enc;

    // Step 5b: the challenge.
    let mut tr = commitments_transcript::<C>(
        params,
        ek,
        public,
        label,
        &proof.salt,
        coeff_enc,
        &cts_digest,
    );
    let mut challenge = [0u8; CHALLENGE_LEN];
    tr.challenge_bytes(b"challenge", &mut challenge);
    if challenge != proof.challenge {
        return Err(Tz21Error::ProofRejected("challenge mismatch"));
    }

    // Step 5c: s_i·G = Σ_j (i+1)^j A_j for every opened i, with A_0 = X, batched:
    // (Σ_i d_i s_i)·G = Σ_j (Σ_i d_i (i+1)^j) A_j for d_i drawn from the transcript after
    // it has absorbed the whole response (the opened shares are also bound earlier, by
    // the ciphertexts c2_i = H(r_i·ek) + s_i in the commitment).
    let mut resp = Vec::with_capacity(t * SCALAR_LEN);
    for (s, _) in &proof.opened {
        resp.extend_from_slice(&C::scalar_to_be_bytes(s));
    }
    tr.append_message(b"opened shares", &resp);
    let mut brng = common::transcript_rng(&mut tr, b"share check");
    let d: Vec<C::Scalar> = (0..t).map(|_| C::Scalar::random(&mut brng)).collect();
    let lhs: C::Scalar = d
        .iter()
        .zip(proof.opened.iter())
        .map(|(d, (s, _))| *d * s)
        .sum();
    let chunk = t.div_ceil(rayon::current_num_threads().max(1)).max(1);
    let cj: Vec<C::Scalar> = opened_idx
        .par_chunks(chunk)
        .zip(d.par_chunks(chunk))
        .map(|(idx, ds)| {
            let mut c = vec![C::Scalar::ZERO; t + 1];
            for (&i, di) in idx.iter().zip(ds.iter()) {
                let z: C::Scalar = eval_point(i);
                let mut pow = *di;
                for cjj in c.iter_mut() {
                    *cjj += pow;
                    pow *= z;
                }
            }
            c
        })
        .reduce(
            || vec![C::Scalar::ZERO; t + 1],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b.iter()) {
                    *x += y;
                }
                a
            },
        );
    let mut bases = Vec::with_capacity(t + 1);
    bases.push(*public);
    bases.extend_from_slice(&proof.coeffs);
    // With more than one thread, two halves at once (each call has its own doubling
    // chain, so on one thread a single call is cheaper).
    let rhs = if rayon::current_num_threads() > 1 {
        let half = bases.len().div_ceil(2);
        let (r1, r2) = rayon::join(
            || C::msm_vartime(&bases[..half], &cj[..half]),
            || C::msm_vartime(&bases[half..], &cj[half..]),
        );
        r1 + r2
    } else {
        C::msm_vartime(&bases, &cj)
    };
    if !common::same_point::<C>(&C::mul_gen_vartime(&lhs), &rhs) {
        return Err(Tz21Error::ProofRejected(
            "opened shares do not lie on the committed polynomial",
        ));
    }
    Ok(())
}

/// Step 6: for `n` random unopened parties `h`, with `λ` the Lagrange coefficients of
/// `I ∪ {h}` at 0: `(c1_h, λ_h·c2_h + Σ_{i∈I} λ_i s_i)` and `λ_h`.
///
/// With `x_i = i + 1`, `P = Π_{j∈I} x_j` and `L_i = Π_{j∈I∖{i}} x_j/(x_j − x_i)`:
/// `λ_h = P · Π_{j∈I} 1/(x_j − x_h)` and `λ_i = L_i · x_h/(x_h − x_i)`. All inverses are
/// of integers in `[1, N]` or factorials, taken from two batch inversions:
/// `O(N + t·(N − t) + n·t)` multiplications instead of the reference's `O(n·t²)` divisions.
pub(crate) fn compress<C: Tz21Curve>(
    rng: &mut (impl RngCore + CryptoRng),
    params: &Tz21Params,
    proof: &RdkProof<C>,
) -> Result<common::Entries<C>, Tz21Error> {
    let chosen = common::random_subset(
        rng,
        params.parties - params.rounds_or_threshold,
        params.compressed,
    );
    compress_chosen(params, proof, &chosen)
}

/// Compression of the given unopened parties (positions in the list of unopened parties).
pub(crate) fn compress_chosen<C: Tz21Curve>(
    params: &Tz21Params,
    proof: &RdkProof<C>,
    chosen: &[usize],
) -> Result<common::Entries<C>, Tz21Error> {
    let (n, t) = (params.parties, params.rounds_or_threshold);
    if proof.hidden_cts.len() != n - t || proof.opened.len() != t {
        return Err(Tz21Error::ProofRejected("wrong number of proof elements"));
    }
    let (opened_idx, hidden_idx) = split_parties(params, &proof.challenge);
    // inv[k] = 1/k for k in 1..=N (inv[0] unused).
    let mut inv: Vec<C::Scalar> = (0..=n).map(|k| C::Scalar::from(k.max(1) as u64)).collect();
    batch_invert(&mut inv[1..]);
    // 1/(x_a − x_b) = 1/(a − b) for party indices a ≠ b.
    let inv_diff = |a: usize, b: usize| -> C::Scalar {
        if a > b {
            inv[a - b]
        } else {
            -inv[b - a]
        }
    };
    let p: C::Scalar = opened_idx
        .iter()
        .map(|&j| eval_point::<C::Scalar>(j))
        .product();
    // 1/k! for k in 0..N.
    let mut inv_fact: Vec<C::Scalar> = Vec::with_capacity(n);
    let mut f = C::Scalar::ONE;
    for k in 0..n {
        if k > 0 {
            f *= C::Scalar::from(k as u64);
        }
        inv_fact.push(f);
    }
    batch_invert(&mut inv_fact);
    // u_i = L_i · s_i, with 1/Π_{j∈I∖{i}} (j − i) = (−1)^i / (i!·(N−1−i)!) · Π_{h∉I} (h − i):
    // the product over all other parties is a product of factorials, so each L_i costs
    // O(N − t) instead of O(t).
    let u: Vec<C::Scalar> = opened_idx
        .par_iter()
        .zip(proof.opened.par_iter())
        .map(|(&i, (s, _))| {
            let mut l = p * inv[i + 1] * inv_fact[i] * inv_fact[n - 1 - i];
            if i % 2 == 1 {
                l = -l;
            }
            for &h in &hidden_idx {
                let d = C::Scalar::from(h.abs_diff(i) as u64);
                l *= if h > i { d } else { -d };
            }
            l * s
        })
        .collect();
    let out = chosen
        .par_iter()
        .map(|&k| {
            let h = hidden_idx[k];
            let ct = proof.hidden_cts[k];
            let mut lambda_h = p;
            let mut acc = C::Scalar::ZERO;
            for (&i, ui) in opened_idx.iter().zip(u.iter()) {
                lambda_h *= inv_diff(i, h);
                acc += *ui * inv_diff(h, i);
            }
            let c2 = lambda_h * ct.c2 + eval_point::<C::Scalar>(h) * acc;
            (Ciphertext { c1: ct.c1, c2 }, lambda_h)
        })
        .collect();
    Ok(out)
}

/// Encodings of the unopened ciphertexts' `c1`, concatenated.
pub(crate) fn hidden_c1_encodings<C: Curve>(proof: &RdkProof<C>) -> &[u8] {
    &proof.hidden_c1_enc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_by_differences_match_horner() {
        type F = k256::Scalar;
        for (deg, n) in [(0usize, 5usize), (1, 2), (3, 4), (3, 11), (64, 132), (5, 3)] {
            let poly: Vec<F> = (0..=deg as u64)
                .map(|k| F::from(k * k + 7) - F::from(3 * k))
                .collect();
            let want: Vec<F> = (0..n)
                .map(|i| {
                    let z: F = eval_point(i);
                    poly.iter().rev().fold(F::ZERO, |s, a| s * z + a)
                })
                .collect();
            assert_eq!(
                shares_at_parties(&poly, n),
                want,
                "degree {deg}, {n} parties"
            );
        }
    }
}
