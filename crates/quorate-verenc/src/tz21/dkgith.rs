//! DKGitH (TZ21 Protocol 4): additive sharing, `τ` parallel repetitions, one hidden party
//! per repetition.
//!
//! Proof body encoding (after the 8-byte header):
//! `challenge (32) ‖ salt (32) ‖ τ × [Δ_j (32) ‖ c1 (point) ‖ c2 (32) ‖ ⌈log₂N⌉ × seed (16)]`.
//! A sibling seed whose subtree holds no party (only when `N` is not a power of two) is
//! encoded as 16 zero bytes and must be zero.

use ff::Field;
use group::GroupEncoding;
use quorate_core::secret::{wipe_field, wipe_fields};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::common::{
    self, kdf, party_prg, random_seed, Ciphertext, Reader, Seed, CHALLENGE_LEN, SALT_LEN,
    SCALAR_LEN, SEED_LEN,
};
use super::ops::{key_tables, Tz21Curve};
use super::{Scheme, Tz21Error, Tz21Params};
use crate::group::Curve;

/// One repetition of the response: `Δ_j`, the hidden party's ciphertext and the seeds
/// opening every other party.
#[derive(Clone)]
pub(crate) struct DkRep<C: Curve> {
    delta: C::Scalar,
    hidden_ct: Ciphertext<C>,
    path: Vec<Seed>,
}

/// A DKGitH proof body.
#[derive(Clone)]
pub(crate) struct DkProof<C: Curve> {
    challenge: [u8; CHALLENGE_LEN],
    salt: [u8; SALT_LEN],
    reps: Vec<DkRep<C>>,
}

/// `⌈log₂ N⌉`, the depth of the seed tree (`N ≥ 2`).
fn depth(parties: usize) -> usize {
    (usize::BITS - (parties - 1).leading_zeros()) as usize
}

impl<C: Curve> DkProof<C> {
    pub(crate) fn encoded_len(params: &Tz21Params) -> usize {
        CHALLENGE_LEN
            + SALT_LEN
            + params.rounds_or_threshold
                * (SCALAR_LEN + Ciphertext::<C>::len() + depth(params.parties) * SEED_LEN)
    }

    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.challenge);
        out.extend_from_slice(&self.salt);
        for rep in &self.reps {
            out.extend_from_slice(&C::scalar_to_be_bytes(&rep.delta));
            rep.hidden_ct.write(out);
            for s in &rep.path {
                out.extend_from_slice(s.as_ref());
            }
        }
    }

    pub(crate) fn read(params: &Tz21Params, r: &mut Reader<'_>) -> Result<Self, Tz21Error> {
        let challenge = r.array::<CHALLENGE_LEN>("challenge")?;
        let salt = r.array::<SALT_LEN>("salt")?;
        let d = depth(params.parties);
        let mut reps = Vec::with_capacity(params.rounds_or_threshold);
        for _ in 0..params.rounds_or_threshold {
            let delta = r.scalar::<C>("delta")?;
            let hidden_ct = Ciphertext::read(r)?;
            let mut path = Vec::with_capacity(d);
            for _ in 0..d {
                path.push(r.seed("seed")?);
            }
            reps.push(DkRep {
                delta,
                hidden_ct,
                path,
            });
        }
        Ok(DkProof {
            challenge,
            salt,
            reps,
        })
    }
}

/// GGM seed tree over `N` leaves (heap numbering: root 1, children `2k`, `2k+1`, leaf `i`
/// at `2^d + i`). A child seed is the first 16 bytes of
/// `SHA-256(domain ‖ salt ‖ rep ‖ child ‖ parent seed)`.
struct Tree<'a> {
    salt: &'a [u8; SALT_LEN],
    rep: usize,
    depth: usize,
    parties: usize,
}

impl Tree<'_> {
    fn child(&self, child: usize, parent: &[u8; SEED_LEN]) -> Seed {
        let mut h = Sha256::new();
        h.update(b"quorate/tz21/v1/dkgith/tree\0");
        h.update(self.salt);
        h.update((self.rep as u32).to_be_bytes());
        h.update((child as u32).to_be_bytes());
        h.update(parent);
        let d = Zeroizing::new(<[u8; 32]>::from(h.finalize()));
        let mut s = Zeroizing::new([0u8; SEED_LEN]);
        s.copy_from_slice(&d[..SEED_LEN]);
        s
    }

    /// First leaf index under `node` at `level` (root at level 0).
    fn first_leaf(&self, node: usize, level: usize) -> usize {
        (node << (self.depth - level)) - (1 << self.depth)
    }

    /// Whether any party lies under `node`.
    fn has_party(&self, node: usize, level: usize) -> bool {
        self.first_leaf(node, level) < self.parties
    }

    /// Expands `seed` at `node` into the party seeds below it.
    fn expand(&self, node: usize, level: usize, seed: &Seed, leaves: &mut [Option<Seed>]) {
        if level == self.depth {
            leaves[node - (1 << self.depth)] = Some(seed.clone());
            return;
        }
        for b in 0..2 {
            let c = 2 * node + b;
            if self.has_party(c, level + 1) {
                let cs = self.child(c, seed);
                self.expand(c, level + 1, &cs, leaves);
            }
        }
    }

    /// The `d` sibling seeds that open every leaf but `hidden`, given all node seeds
    /// along the way (recomputed from the root).
    fn open(&self, root: &Seed, hidden: usize) -> Vec<Seed> {
        let mut path = Vec::with_capacity(self.depth);
        let mut node = 1usize;
        let mut seed = root.clone();
        for level in 1..=self.depth {
            let on_path = (hidden + (1 << self.depth)) >> (self.depth - level);
            let sib = on_path ^ 1;
            if self.has_party(sib, level) {
                path.push(self.child(sib, &seed));
            } else {
                path.push(Zeroizing::new([0u8; SEED_LEN]));
            }
            seed = self.child(on_path, &seed);
            debug_assert_eq!(on_path >> 1, node);
            node = on_path;
        }
        path
    }

    /// Rebuilds every party seed but `hidden` from the opening path.
    fn reconstruct(&self, hidden: usize, path: &[Seed]) -> Result<Vec<Option<Seed>>, Tz21Error> {
        let mut leaves = vec![None; self.parties];
        for (k, s) in path.iter().enumerate() {
            let level = k + 1;
            let on_path = (hidden + (1 << self.depth)) >> (self.depth - level);
            let sib = on_path ^ 1;
            if self.has_party(sib, level) {
                self.expand(sib, level, s, &mut leaves);
            } else if s.iter().any(|&b| b != 0) {
                return Err(Tz21Error::NonCanonical("unused seed-tree node"));
            }
        }
        Ok(leaves)
    }
}

/// Share `s_i` (before the `Δ` correction) and randomness `r_i` of one party.
fn party_values<C: Curve>(
    salt: &[u8; SALT_LEN],
    rep: usize,
    i: usize,
    seed: &Seed,
) -> (C::Scalar, C::Scalar) {
    let mut prg = party_prg::<C>(Scheme::Dkgith, salt, rep, i, seed);
    let s = C::Scalar::random(&mut prg);
    let r = C::Scalar::random(&mut prg);
    (s, r)
}

/// Digest of one repetition's broadcast: `Δ_j` and every `(Y_i, c1_i, c2_i)`.
fn rep_digest<C: Curve>(
    rep: usize,
    delta: &C::Scalar,
    y_enc: &[&[u8]],
    cts: &[(Vec<u8>, C::Scalar)],
) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"quorate/tz21/v1/dkgith/rep\0");
    h.update(C::NAME.as_bytes());
    h.update((rep as u32).to_be_bytes());
    h.update(C::scalar_to_be_bytes(delta));
    for (y, (c1, c2)) in y_enc.iter().zip(cts.iter()) {
        h.update(y);
        h.update(c1);
        h.update(C::scalar_to_be_bytes(c2));
    }
    h.finalize().into()
}

/// Hidden party of each repetition, from the challenge.
fn hidden_parties(params: &Tz21Params, challenge: &[u8; CHALLENGE_LEN]) -> Vec<usize> {
    let mut rng = common::challenge_rng(challenge, b"dkgith/hidden");
    (0..params.rounds_or_threshold)
        .map(|_| common::uniform_index(&mut rng, params.parties))
        .collect()
}

/// What the prover keeps of one repetition until the challenge is known.
struct RepState<C: Curve> {
    root: Seed,
    delta: C::Scalar,
    cts: Vec<Ciphertext<C>>,
    digest: [u8; 32],
}

/// Steps 1–2 for one repetition.
fn commit_rep<C: Tz21Curve>(
    params: &Tz21Params,
    ek_table: &C::Table,
    salt: &[u8; SALT_LEN],
    rep: usize,
    root: Seed,
    x: &C::Scalar,
) -> RepState<C> {
    let n = params.parties;
    let tree = Tree {
        salt,
        rep,
        depth: depth(n),
        parties: n,
    };
    let mut leaves = vec![None; n];
    tree.expand(1, 0, &root, &mut leaves);
    let mut shares = Vec::with_capacity(n);
    let mut rands = Vec::with_capacity(n);
    for (i, leaf) in leaves.iter().enumerate() {
        let seed = leaf
            .as_ref()
            .map_or_else(|| Zeroizing::new([0u8; SEED_LEN]), Clone::clone);
        let (s, r) = party_values::<C>(salt, rep, i, &seed);
        shares.push(s);
        rands.push(r);
    }
    // Δ = x − Σ s_i, then s_0 += Δ so that Σ s_i = x.
    let mut sum: C::Scalar = shares.iter().copied().sum();
    let delta = *x - sum;
    wipe_field(&mut sum);
    shares[0] += delta;

    // Y_i = s_i·G and c1_i = r_i·G in one batch, K_i = r_i·ek — all constant time.
    let mut gen_scalars = Vec::with_capacity(2 * n);
    gen_scalars.extend_from_slice(&shares);
    gen_scalars.extend_from_slice(&rands);
    let (gen_pts, enc) = C::mul_gen_encoded(&gen_scalars);
    wipe_fields(&mut gen_scalars);
    let k_enc = C::mul_table_encoded(ek_table, &rands);
    let pl = C::POINT_LEN;
    let mut cts = Vec::with_capacity(n);
    let mut ct_enc = Vec::with_capacity(n);
    let mut y_enc = Vec::with_capacity(n);
    for i in 0..n {
        let k = &k_enc[i * pl..(i + 1) * pl];
        let c2 = kdf::<C>(k) + shares[i];
        cts.push(Ciphertext {
            c1: gen_pts[n + i],
            c2,
        });
        ct_enc.push((enc[(n + i) * pl..(n + i + 1) * pl].to_vec(), c2));
        y_enc.push(&enc[i * pl..(i + 1) * pl]);
    }
    let digest = rep_digest::<C>(rep, &delta, &y_enc, &ct_enc);
    wipe_fields(&mut shares);
    wipe_fields(&mut rands);
    RepState {
        root,
        delta,
        cts,
        digest,
    }
}

pub(crate) fn prove<C: Tz21Curve>(
    rng: &mut (impl RngCore + CryptoRng),
    params: &Tz21Params,
    ek: &C::Point,
    x: &C::Scalar,
    public: &C::Point,
    label: &[u8],
) -> DkProof<C> {
    let tau = params.rounds_or_threshold;
    let mut salt = [0u8; SALT_LEN];
    rng.fill_bytes(&mut salt);
    let roots: Vec<Seed> = (0..tau).map(|_| random_seed(rng)).collect();
    let tables = key_tables::<C>(ek);
    let ek_table = &tables.ct;

    let states: Vec<RepState<C>> = roots
        .into_par_iter()
        .enumerate()
        .map(|(j, root)| commit_rep::<C>(params, ek_table, &salt, j, root, x))
        .collect();

    let mut t = common::transcript::<C>(params, ek, public, label);
    t.append_message(b"salt", &salt);
    for st in &states {
        t.append_message(b"repetition", &st.digest);
    }
    let mut challenge = [0u8; CHALLENGE_LEN];
    t.challenge_bytes(b"challenge", &mut challenge);
    let hidden = hidden_parties(params, &challenge);

    let reps = states
        .into_iter()
        .zip(hidden.iter())
        .enumerate()
        .map(|(j, (st, &h))| {
            let tree = Tree {
                salt: &salt,
                rep: j,
                depth: depth(params.parties),
                parties: params.parties,
            };
            DkRep {
                delta: st.delta,
                hidden_ct: st.cts[h],
                path: tree.open(&st.root, h),
            }
        })
        .collect();
    DkProof {
        challenge,
        salt,
        reps,
    }
}

/// The opened parties' shares (with `Δ` applied) and randomness; `None` at the hidden one.
type Opened<C> = Vec<Option<(<C as Curve>::Scalar, <C as Curve>::Scalar)>>;

fn open_parties<C: Curve>(
    params: &Tz21Params,
    salt: &[u8; SALT_LEN],
    j: usize,
    hidden: usize,
    rep: &DkRep<C>,
) -> Result<Opened<C>, Tz21Error> {
    let tree = Tree {
        salt,
        rep: j,
        depth: depth(params.parties),
        parties: params.parties,
    };
    let leaves = tree.reconstruct(hidden, &rep.path)?;
    let mut out = Vec::with_capacity(params.parties);
    for (i, leaf) in leaves.iter().enumerate() {
        match leaf {
            Some(seed) if i != hidden => {
                let (mut s, r) = party_values::<C>(salt, j, i, seed);
                if i == 0 {
                    s += rep.delta;
                }
                out.push(Some((s, r)));
            }
            None if i == hidden => out.push(None),
            _ => {
                return Err(Tz21Error::ProofRejected(
                    "seed tree does not open the right parties",
                ))
            }
        }
    }
    Ok(out)
}

/// Step 5 for one repetition: the digest the prover must have committed to.
fn verify_rep<C: Tz21Curve>(
    params: &Tz21Params,
    ek_table: &C::Table,
    public: &C::Point,
    salt: &[u8; SALT_LEN],
    j: usize,
    hidden: usize,
    rep: &DkRep<C>,
) -> Result<[u8; 32], Tz21Error> {
    let n = params.parties;
    let opened = open_parties::<C>(params, salt, j, hidden, rep)?;
    // Points: Y_0..Y_{N−1} (Y_hidden = X − (Σ_{i≠i*} s_i)·G), then c1_i and K_i of the
    // opened parties. Everything here is public: variable-time arithmetic.
    // One batch of multiples of G: s_i (opened parties, in order), Σ s_i, then r_i.
    let mut gen_scalars = Vec::with_capacity(2 * n - 1);
    let mut sum = C::Scalar::ZERO;
    for (s, _) in opened.iter().flatten() {
        sum += s;
        gen_scalars.push(*s);
    }
    gen_scalars.push(sum);
    gen_scalars.extend(opened.iter().flatten().map(|(_, r)| *r));
    let (gen_pts, gen_enc) = C::mul_gen_encoded_vartime(&gen_scalars);
    // K_i of the opened parties, and Y_{i*} = X − (Σ s_i)·G.
    let opened_rands: Vec<C::Scalar> = opened.iter().flatten().map(|(_, r)| *r).collect();
    let enc = C::mul_table_encoded_vartime(ek_table, &opened_rands);
    let y_hidden_enc = C::point_to_bytes(&(*public - gen_pts[n - 1]));
    let pl = C::POINT_LEN;
    let y_hidden = y_hidden_enc.as_slice();
    let mut ct_enc = Vec::with_capacity(n);
    let mut y_enc: Vec<&[u8]> = Vec::with_capacity(n);
    let mut k = 0usize;
    for o in &opened {
        match o {
            Some((s, _)) => {
                let c1 = gen_enc[(n + k) * pl..(n + k + 1) * pl].to_vec();
                let kk = &enc[k * pl..(k + 1) * pl];
                ct_enc.push((c1, kdf::<C>(kk) + s));
                y_enc.push(&gen_enc[k * pl..(k + 1) * pl]);
                k += 1;
            }
            None => {
                ct_enc.push((
                    rep.hidden_ct.c1.to_bytes().as_ref().to_vec(),
                    rep.hidden_ct.c2,
                ));
                y_enc.push(y_hidden);
            }
        }
    }
    Ok(rep_digest::<C>(j, &rep.delta, &y_enc, &ct_enc))
}

pub(crate) fn verify<C: Tz21Curve>(
    params: &Tz21Params,
    ek: &C::Point,
    public: &C::Point,
    label: &[u8],
    proof: &DkProof<C>,
) -> Result<(), Tz21Error> {
    if proof.reps.len() != params.rounds_or_threshold {
        return Err(Tz21Error::ProofRejected("wrong number of repetitions"));
    }
    let hidden = hidden_parties(params, &proof.challenge);
    let tables = key_tables::<C>(ek);
    let ek_table = &tables.vartime;
    let digests: Vec<[u8; 32]> = proof
        .reps
        .par_iter()
        .zip(hidden.par_iter())
        .enumerate()
        .map(|(j, (rep, &h))| verify_rep::<C>(params, ek_table, public, &proof.salt, j, h, rep))
        .collect::<Result<_, _>>()?;
    let mut t = common::transcript::<C>(params, ek, public, label);
    t.append_message(b"salt", &proof.salt);
    for d in &digests {
        t.append_message(b"repetition", d);
    }
    let mut challenge = [0u8; CHALLENGE_LEN];
    t.challenge_bytes(b"challenge", &mut challenge);
    if challenge != proof.challenge {
        return Err(Tz21Error::ProofRejected("challenge mismatch"));
    }
    Ok(())
}

/// Step 6: `n` random repetitions, each turned into an encryption of `x`.
pub(crate) fn compress<C: Tz21Curve>(
    rng: &mut (impl RngCore + CryptoRng),
    params: &Tz21Params,
    proof: &DkProof<C>,
) -> Result<common::Entries<C>, Tz21Error> {
    if proof.reps.len() != params.rounds_or_threshold {
        return Err(Tz21Error::ProofRejected("wrong number of repetitions"));
    }
    let chosen = common::random_subset(rng, params.rounds_or_threshold, params.compressed);
    compress_chosen(params, proof, &chosen)
}

/// Compression of the given repetitions.
pub(crate) fn compress_chosen<C: Tz21Curve>(
    params: &Tz21Params,
    proof: &DkProof<C>,
    chosen: &[usize],
) -> Result<common::Entries<C>, Tz21Error> {
    if proof.reps.len() != params.rounds_or_threshold {
        return Err(Tz21Error::ProofRejected("wrong number of repetitions"));
    }
    let hidden = hidden_parties(params, &proof.challenge);
    chosen
        .par_iter()
        .map(|&j| {
            let rep = &proof.reps[j];
            let opened = open_parties::<C>(params, &proof.salt, j, hidden[j], rep)?;
            // c2' = c2 + Σ_{i≠i*} s_i encrypts s_{i*} + Σ_{i≠i*} s_i = x.
            let sum: C::Scalar = opened.iter().flatten().map(|o| o.0).sum();
            Ok((
                Ciphertext {
                    c1: rep.hidden_ct.c1,
                    c2: rep.hidden_ct.c2 + sum,
                },
                C::Scalar::ONE,
            ))
        })
        .collect()
}

/// Encodings of the unopened ciphertexts' `c1`, one per repetition, concatenated.
pub(crate) fn hidden_c1_encodings<C: Tz21Curve>(proof: &DkProof<C>) -> Vec<u8> {
    let pts: Vec<C::Point> = proof.reps.iter().map(|r| r.hidden_ct.c1).collect();
    C::encode_points(&pts)
}
