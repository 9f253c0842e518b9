//! Threshold ElGamal in G1 under the DKG key: ciphertexts, re-encryption, and verifiable
//! decryption shares (Chaum–Pedersen DLEQ per element, batch-verified).
//!
//! `Enc(M; s) = (g^s, pk^s·M)`. Server `k` with key share `x_k` (verification key
//! `X_k = g^{x_k}`) publishes `d_k = a^{x_k}` for a ciphertext `(a, b)` with a proof
//! `DLEQ(g, X_k; a, d_k)`; any `t` valid shares give `M = b / Π d_k^{λ_k}` (Lagrange at 0).
//! Every element, element 0 included, carries its own proof (artifact defect 7), and the
//! querier verifies them all (defect 12), in parallel; a failing share names its server.

use crate::dkg::{ElGamalKeyShare, ElGamalPublic};
use crate::error::{blame, MixnetError};
use crate::params::{Generators, BATCH_BITS};
use blstrs::{G1Affine, G1Projective, Scalar};
use ff::{Field, PrimeField};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use merlin::Transcript;
use quorate_core::bls12_381::msm::{g1_msm_vartime, FixedBaseCt};
use quorate_core::lagrange::coefficients_at_zero;
use quorate_core::shamir::eval_point;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

/// The constant-time fixed-base table of the ElGamal key `pk` ([`FixedBaseCt`]: 52 mixed
/// additions and no doubling per multiplication, against `blst`'s constant-time scalar
/// multiplication; ≈ 83 KiB, built once per key and shared by clones of
/// [`crate::setup::MixnetPublic`]). With the process tables of the generators
/// ([`Generators::g_mul_ct`], [`Generators::g_h_mul_ct`]) it makes re-encryption by a secret
/// exponent two table reads: the reverse shuffles, the blinding and the DPK_BB commitments.
/// Variable bases (ciphertexts, signatures) keep `blst`'s multiplication.
pub struct ElGamalTables {
    pk_point: G1Projective,
    pk: FixedBaseCt<G1Projective>,
}

impl ElGamalTables {
    /// The table of `pk` (a public point).
    pub(crate) fn new(pk: &G1Projective) -> Self {
        ElGamalTables {
            pk_point: *pk,
            pk: FixedBaseCt::new(*pk),
        }
    }

    /// Whether this is the table of `pk`.
    pub(crate) fn is_for(&self, pk: &G1Projective) -> bool {
        self.pk_point == *pk
    }

    /// `c·Enc(1; s) = (a·g^s, b·pk^s)` for a secret `s` (what
    /// [`ElGamalCiphertext::rerandomize`] computes with `blst`'s multiplication).
    pub(crate) fn rerandomize(
        &self,
        gens: &Generators,
        c: &ElGamalCiphertext,
        s: &Scalar,
    ) -> ElGamalCiphertext {
        ElGamalCiphertext {
            a: c.a + gens.g_mul_ct(s),
            b: c.b + self.pk.mul_ct(s),
        }
    }
}

impl core::fmt::Debug for ElGamalTables {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ElGamalTables").finish_non_exhaustive()
    }
}

/// An ElGamal ciphertext `(a, b) = (g^s, pk^s·M)` in G1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElGamalCiphertext {
    /// `a = g^s`.
    pub a: G1Projective,
    /// `b = pk^s·M`.
    pub b: G1Projective,
}

impl ElGamalCiphertext {
    /// The trivial (publicly known randomness 0) encryption `(1, M)`.
    pub fn trivial(m: G1Projective) -> Self {
        ElGamalCiphertext {
            a: G1Projective::identity(),
            b: m,
        }
    }

    /// `Enc(1; s)·self`.
    pub fn rerandomize(&self, g: &G1Projective, pk: &G1Projective, s: &Scalar) -> Self {
        ElGamalCiphertext {
            a: self.a + g * s,
            b: self.b + pk * s,
        }
    }

    /// Component-wise product (plaintext product).
    pub fn mul(&self, other: &Self) -> Self {
        ElGamalCiphertext {
            a: self.a + other.a,
            b: self.b + other.b,
        }
    }

    /// Component-wise power (plaintext power).
    pub fn pow(&self, e: &Scalar) -> Self {
        ElGamalCiphertext {
            a: self.a * e,
            b: self.b * e,
        }
    }
}

/// Absorbs a list of ciphertexts.
pub(crate) fn append_ciphertexts(
    t: &mut Transcript,
    label: &'static [u8],
    cs: &[ElGamalCiphertext],
) {
    t.append_u64_be(label, cs.len() as u64);
    for c in cs {
        t.append_point(b"a", &c.a);
        t.append_point(b"b", &c.b);
    }
}

/// [`append_ciphertexts`] for ciphertexts already in affine form (the same transcript bytes).
pub(crate) fn append_ciphertexts_affine(
    t: &mut Transcript,
    label: &'static [u8],
    cs: &[(G1Affine, G1Affine)],
) {
    t.append_u64_be(label, cs.len() as u64);
    for (a, b) in cs {
        t.append_point(b"a", a);
        t.append_point(b"b", b);
    }
}

/// Affine forms of public points with one field inversion for the whole list (Montgomery's
/// trick over blstrs' `Fp`), instead of one inversion per point: transcripts hash the
/// compressed (affine) encoding, so this is the normalisation before hashing.
///
/// blst keeps G1 points in Jacobian coordinates `(X, Y, Z)`, `x = X/Z²`, `y = Y/Z³`, and
/// the identity as `Z = 0` (mapped to the affine identity here). The result equals
/// `to_affine` point by point (tested).
pub(crate) fn batch_affine(points: &[G1Projective]) -> Vec<G1Affine> {
    let n = points.len();
    let Some(first) = points.first() else {
        return Vec::new();
    };
    // blstrs does not re-export its base-field type; it is used through `ff::Field` only.
    let one = field_one(&first.z());
    let mut prefix = Vec::with_capacity(n);
    let mut acc = one;
    for p in points {
        if !bool::from(p.is_identity()) {
            acc *= p.z();
        }
        prefix.push(acc);
    }
    // `acc` is a product of non-zero `Z`s, hence invertible.
    let mut inv = Option::from(acc.invert()).unwrap_or(one);
    let mut out = vec![G1Affine::identity(); n];
    for i in (0..n).rev() {
        let p = &points[i];
        if bool::from(p.is_identity()) {
            continue;
        }
        let before = if i == 0 { one } else { prefix[i - 1] };
        let zinv = inv * before;
        inv *= p.z();
        let zinv2 = zinv.square();
        out[i] = G1Affine::from_raw_unchecked(p.x() * zinv2, p.y() * zinv2 * zinv, false);
    }
    out
}

fn field_one<F: Field>(_: &F) -> F {
    F::ONE
}

/// A random linear combination of linear relations `Σ s_i P_i = 0` over public points,
/// with the recurring bases (`g`, `h`, `pk`, verification keys, shared ciphertexts…)
/// merged into one term each: callers add each relation already scaled by its own 128-bit
/// weight, and terms on the same point are summed before the single multi-scalar
/// multiplication. Merging terms does not change the combination being tested, so a false
/// relation still survives with probability ≤ 2^{-128}.
#[derive(Default)]
pub(crate) struct LinCheck {
    /// Scalars on the caller's fixed bases (by slot).
    pub(crate) fixed: Vec<Scalar>,
    /// Other terms.
    pub(crate) pts: Vec<G1Projective>,
    /// Their scalars.
    pub(crate) sc: Vec<Scalar>,
}

impl LinCheck {
    /// An empty check with `slots` fixed bases.
    pub(crate) fn with_fixed(slots: usize) -> Self {
        LinCheck {
            fixed: vec![Scalar::ZERO; slots],
            pts: Vec::new(),
            sc: Vec::new(),
        }
    }

    /// Adds `s·P`.
    pub(crate) fn push(&mut self, p: G1Projective, s: Scalar) {
        self.pts.push(p);
        self.sc.push(s);
    }

    /// Merges another check over the same fixed bases.
    pub(crate) fn merge(mut self, other: LinCheck) -> LinCheck {
        if self.fixed.len() < other.fixed.len() {
            self.fixed.resize(other.fixed.len(), Scalar::ZERO);
        }
        for (a, b) in self.fixed.iter_mut().zip(&other.fixed) {
            *a += b;
        }
        self.pts.extend(other.pts);
        self.sc.extend(other.sc);
        self
    }

    /// Whether the combination is the identity, with one MSM (vartime: public data).
    pub(crate) fn holds_vartime(mut self, fixed_bases: &[G1Projective]) -> bool {
        for (p, s) in fixed_bases.iter().zip(&self.fixed) {
            self.pts.push(*p);
            self.sc.push(*s);
        }
        self.pts.is_empty() || bool::from(g1_msm_vartime(&self.pts, &self.sc).is_identity())
    }
}

/// `k·P` for a public `k` that fits in 64 bits (or whose negation does), by double-and-add
/// (variable time; public data only); `None` if `k` is not that small.
fn mul_small_vartime(p: &G1Projective, k: &Scalar) -> Option<G1Projective> {
    let small = |x: &Scalar| -> Option<u64> {
        let b = x.to_repr();
        let b = b.as_ref();
        if b[8..].iter().all(|&v| v == 0) {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[..8]);
            Some(u64::from_le_bytes(w))
        } else {
            None
        }
    };
    let (k, neg) = match small(k) {
        Some(v) => (v, false),
        None => (small(&-*k)?, true),
    };
    let mut acc = G1Projective::identity();
    for bit in (0..64 - k.leading_zeros()).rev() {
        acc = acc.double();
        if (k >> bit) & 1 == 1 {
            acc += p;
        }
    }
    Some(if neg { -acc } else { acc })
}

/// `Σ λ_k·d_k` over public points with public Lagrange coefficients: double-and-add when
/// every coefficient is a small integer (servers `1..t` give `±C(t, k)`), else one MSM.
pub(crate) fn lagrange_combine_vartime(ds: &[G1Projective], lambda: &[Scalar]) -> G1Projective {
    let mut acc = G1Projective::identity();
    for (d, l) in ds.iter().zip(lambda) {
        match mul_small_vartime(d, l) {
            Some(x) => acc += x,
            None => return g1_msm_vartime(ds, lambda),
        }
    }
    acc
}

/// One server's decryption share of one ciphertext with its DLEQ proof (commitment form,
/// so that all of a server's proofs are verified in one multi-scalar multiplication).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElGamalDecShare {
    /// `d = a^{x_k}`.
    pub d: G1Projective,
    /// `R1 = g^r`.
    pub r1: G1Projective,
    /// `R2 = a^r`.
    pub r2: G1Projective,
    /// Response `z = r + c·x_k`.
    pub z: Scalar,
}

/// Linear relations `Σ s_i P_i = 0`, each scaled by an independent 128-bit weight and all
/// checked with one multi-scalar multiplication (a false relation survives with
/// probability ≤ 2^{-128}).
#[derive(Default)]
pub(crate) struct BatchCheck {
    pts: Vec<G1Projective>,
    sc: Vec<Scalar>,
}

impl BatchCheck {
    /// Adds the relations of one item (each a list of terms), with fresh weights.
    pub(crate) fn add(&mut self, relations: &[&[(G1Projective, Scalar)]]) {
        let mut rng = OsRng;
        for rel in relations {
            let w = batch_weight(&mut rng);
            for (p, s) in rel.iter() {
                self.pts.push(*p);
                self.sc.push(*s * w);
            }
        }
    }

    /// Merges another batch.
    pub(crate) fn extend(&mut self, other: BatchCheck) {
        self.pts.extend(other.pts);
        self.sc.extend(other.sc);
    }

    /// Whether every relation of every batch holds, with one MSM over all of them.
    pub(crate) fn all_hold(batches: &[&BatchCheck]) -> bool {
        let pts: Vec<G1Projective> = batches.iter().flat_map(|b| b.pts.iter().copied()).collect();
        let sc: Vec<Scalar> = batches.iter().flat_map(|b| b.sc.iter().copied()).collect();
        pts.is_empty() || bool::from(g1_msm_vartime(&pts, &sc).is_identity())
    }

    /// Whether every relation holds (with overwhelming probability).
    pub(crate) fn holds(&self) -> bool {
        self.pts.is_empty() || bool::from(g1_msm_vartime(&self.pts, &self.sc).is_identity())
    }

    /// Optimistic blame: checks every server's batch in one MSM and, only if that fails,
    /// each batch alone. Returns the servers whose batch is missing (`None`: malformed
    /// input) or fails, in `servers` order; empty when everything holds.
    pub(crate) fn failing(
        servers: impl Iterator<Item = PartyId>,
        batches: &[Option<BatchCheck>],
    ) -> Vec<PartyId> {
        let refs: Vec<&BatchCheck> = batches.iter().flatten().collect();
        if refs.len() == batches.len() && BatchCheck::all_hold(&refs) {
            return Vec::new();
        }
        servers
            .zip(batches)
            .filter(|(_, b)| !b.as_ref().is_some_and(BatchCheck::holds))
            .map(|(k, _)| k)
            .collect()
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn dleq_challenge(
    sid: &SessionId,
    who: PartyId,
    index: u64,
    g: &G1Affine,
    xk: &G1Affine,
    ct: (&G1Affine, &G1Affine),
    d: &G1Affine,
    r1: &G1Affine,
    r2: &G1Affine,
) -> Scalar {
    let mut t = Transcript::for_protocol(b"quorate/mixnet/elgamal-dec-share", 1, sid);
    t.append_party(b"server", who);
    t.append_u64_be(b"element", index);
    t.append_point(b"g", g);
    t.append_point(b"X_k", xk);
    t.append_point(b"a", ct.0);
    t.append_point(b"b", ct.1);
    t.append_point(b"d", d);
    t.append_point(b"R1", r1);
    t.append_point(b"R2", r2);
    t.challenge_scalar(b"c")
}

/// `[a_0, b_0, a_1, b_1, …]` in affine form.
pub(crate) fn list_affine(list: &[ElGamalCiphertext]) -> Vec<G1Affine> {
    let flat: Vec<G1Projective> = list.iter().flat_map(|c| [c.a, c.b]).collect();
    batch_affine(&flat)
}

/// `[d_0, R1_0, R2_0, d_1, …]` in affine form.
pub(crate) fn shares_affine(shares: &[ElGamalDecShare]) -> Vec<G1Affine> {
    let flat: Vec<G1Projective> = shares.iter().flat_map(|s| [s.d, s.r1, s.r2]).collect();
    batch_affine(&flat)
}

/// [`dleq_challenge`] for element `i` of the flat affine lists of [`list_affine`] (`l_aff`)
/// and [`shares_affine`] (`s_aff`): the one place that fixes which points the prover and
/// the verifiers bind for element `i`.
fn dleq_challenge_at(
    sid: &SessionId,
    who: PartyId,
    i: usize,
    g: &G1Affine,
    xk: &G1Affine,
    l_aff: &[G1Affine],
    s_aff: &[G1Affine],
) -> Scalar {
    dleq_challenge(
        sid,
        who,
        i as u64,
        g,
        xk,
        (&l_aff[2 * i], &l_aff[2 * i + 1]),
        &s_aff[3 * i],
        &s_aff[3 * i + 1],
        &s_aff[3 * i + 2],
    )
}

impl ElGamalKeyShare {
    /// Decryption shares with proofs for every element of `list` (`index` = position).
    pub fn decrypt_shares<R: RngCore + CryptoRng>(
        &self,
        gens: &Generators,
        public: &ElGamalPublic,
        sid: &SessionId,
        list: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> Result<Vec<ElGamalDecShare>, MixnetError> {
        let xk =
            *public
                .verification_keys
                .get(self.id.position())
                .ok_or(ParamError::UnknownParty {
                    id: self.id,
                    n: public.params.n(),
                })?;
        let mut masks: Vec<Scalar> = list.iter().map(|_| Scalar::random(&mut *rng)).collect();
        // Secret exponents (x_k, r): constant-time multiplications.
        let mut shares: Vec<ElGamalDecShare> = list
            .par_iter()
            .zip(masks.par_iter())
            .map(|(ct, r)| ElGamalDecShare {
                d: ct.a * self.x,
                r1: gens.g * r,
                r2: ct.a * r,
                z: Scalar::ZERO,
            })
            .collect();
        let (g_aff, xk_aff) = (gens.g.to_affine(), xk.to_affine());
        let (l_aff, s_aff) = (list_affine(list), shares_affine(&shares));
        shares
            .par_iter_mut()
            .zip(masks.par_iter())
            .enumerate()
            .for_each(|(i, (sh, r))| {
                let c = dleq_challenge_at(sid, self.id, i, &g_aff, &xk_aff, &l_aff, &s_aff);
                sh.z = *r + c * self.x;
            });
        // The DLEQ nonces are secret: wipe them.
        masks.iter_mut().for_each(|r| *r = Scalar::ZERO);
        Ok(shares)
    }
}

/// Verifies all of server `who`'s shares for `list`, batched; on failure names `who`.
pub fn verify_dec_shares(
    gens: &Generators,
    public: &ElGamalPublic,
    sid: &SessionId,
    who: PartyId,
    list: &[ElGamalCiphertext],
    shares: &[ElGamalDecShare],
) -> Result<(), MixnetError> {
    if !public.params.contains(who) {
        return Err(ParamError::UnknownParty {
            id: who,
            n: public.params.n(),
        }
        .into());
    }
    // g^z = R1·X^c and a^z = R2·d^c for every element, batched in one MSM.
    match dec_batch(gens, public, sid, who, list, shares) {
        Some(b) if b.holds() => Ok(()),
        _ => Err(blame(who, "ElGamal decryption share proof")),
    }
}

fn dec_batch(
    gens: &Generators,
    public: &ElGamalPublic,
    sid: &SessionId,
    who: PartyId,
    list: &[ElGamalCiphertext],
    shares: &[ElGamalDecShare],
) -> Option<BatchCheck> {
    if shares.len() != list.len() {
        return None;
    }
    let xk = *public.verification_keys.get(who.position())?;
    let (g_aff, xk_aff) = (gens.g.to_affine(), xk.to_affine());
    let (l_aff, s_aff) = (list_affine(list), shares_affine(shares));
    Some(
        list.par_iter()
            .zip(shares.par_iter())
            .enumerate()
            .map(|(i, (ct, s))| {
                let mut b = BatchCheck::default();
                if bool::from(s.d.is_identity()) && !bool::from(ct.a.is_identity()) {
                    b.add(&[&[(gens.g, Scalar::ONE)]]); // never holds: g ≠ 1
                    return b;
                }
                let c = dleq_challenge_at(sid, who, i, &g_aff, &xk_aff, &l_aff, &s_aff);
                b.add(&[
                    &[(gens.g, s.z), (xk, -c), (s.r1, -Scalar::ONE)],
                    &[(ct.a, s.z), (s.d, -c), (s.r2, -Scalar::ONE)],
                ]);
                b
            })
            .reduce(BatchCheck::default, |mut a, b| {
                a.extend(b);
                a
            }),
    )
}

/// Every server's DLEQ proofs for every element in one MSM, with `g`, the verification keys
/// and each ciphertext's `a` merged into one term each (`3m + 1` points per element instead
/// of `6m`). With `published = Some((S, λ))` (λ per stage, zero for unused stages) it also
/// checks `S_i = b_i − Σ_k λ_k d_{k,i}` for every element in the same MSM (weight `ω_i`).
/// `false` on any shape mismatch or failing relation.
fn dec_all_hold(
    gens: &Generators,
    public: &ElGamalPublic,
    sid: &SessionId,
    list: &[ElGamalCiphertext],
    stages: &[(PartyId, &[ElGamalDecShare])],
    published: Option<(&[G1Projective], &[Scalar])>,
) -> bool {
    if stages.iter().any(|(_, s)| s.len() != list.len())
        || published.is_some_and(|(s, l)| s.len() != list.len() || l.len() != stages.len())
    {
        return false;
    }
    let Some(xks) = stages
        .iter()
        .map(|(k, _)| public.verification_keys.get(k.position()).copied())
        .collect::<Option<Vec<G1Projective>>>()
    else {
        return false;
    };
    let xk_aff = batch_affine(&xks);
    let g_aff = gens.g.to_affine();
    let l_aff = list_affine(list);
    let s_aff: Vec<Vec<G1Affine>> = stages.iter().map(|(_, s)| shares_affine(s)).collect();
    let m = stages.len();
    let checks: Option<LinCheck> = list
        .par_iter()
        .enumerate()
        .map(|(i, ct)| {
            let mut wts = Weights::new();
            let mut lc = LinCheck::with_fixed(1 + m);
            let mut a_sc = Scalar::ZERO;
            let omega = published.map(|_| wts.next());
            for (kp, (who, shares)) in stages.iter().enumerate() {
                let s = &shares[i];
                if bool::from(s.d.is_identity()) && !bool::from(ct.a.is_identity()) {
                    return None;
                }
                let c = dleq_challenge_at(sid, *who, i, &g_aff, &xk_aff[kp], &l_aff, &s_aff[kp]);
                let (w1, w2) = (wts.next(), wts.next());
                // w1·(g^z − X_k^c − R1) + w2·(a^z − d^c − R2)
                lc.fixed[0] += w1 * s.z;
                lc.fixed[1 + kp] -= w1 * c;
                lc.push(s.r1, -w1);
                a_sc += w2 * s.z;
                let mut d_sc = -(w2 * c);
                if let (Some(om), Some((_, lam))) = (omega, published) {
                    d_sc -= om * lam[kp];
                }
                lc.push(s.d, d_sc);
                lc.push(s.r2, -w2);
            }
            lc.push(ct.a, a_sc);
            if let (Some(om), Some((spub, _))) = (omega, published) {
                // ω·(b − S − Σ λ_k d_k)
                lc.push(ct.b, om);
                lc.push(spub[i], -om);
            }
            Some(lc)
        })
        .try_reduce(|| LinCheck::with_fixed(1 + m), |a, b| Some(a.merge(b)));
    let mut bases = vec![gens.g];
    bases.extend(xks);
    checks.is_some_and(|c| c.holds_vartime(&bases))
}

/// Names the servers whose shares fail (per-server batches), after a failed joint check.
fn dec_culprits(
    gens: &Generators,
    public: &ElGamalPublic,
    sid: &SessionId,
    list: &[ElGamalCiphertext],
    stages: &[(PartyId, &[ElGamalDecShare])],
) -> Vec<PartyId> {
    stages
        .iter()
        .filter(|(k, s)| !dec_batch(gens, public, sid, *k, list, s).is_some_and(|b| b.holds()))
        .map(|(k, _)| *k)
        .collect()
}

pub(crate) fn check_stages(
    public: &ElGamalPublic,
    stages: &[(PartyId, &[ElGamalDecShare])],
) -> Result<Vec<Scalar>, MixnetError> {
    let ids: Vec<PartyId> = stages.iter().map(|(k, _)| *k).collect();
    quorate_core::party::check_distinct(&ids)?;
    public.params.check_quorum(&ids)?;
    let t = usize::from(public.params.t()).min(stages.len());
    let xs: Vec<Scalar> = ids[..t].iter().map(|k| eval_point(*k)).collect();
    let mut lambda = coefficients_at_zero(&xs)?;
    lambda.resize(stages.len(), Scalar::ZERO);
    Ok(lambda)
}

/// Verifies every server's shares (all servers that published, at least `t`) and combines
/// the first `t` of them. Failing servers are all named.
///
/// All servers' proofs are checked in one MSM; only if that fails is each
/// server's batch checked alone to name it. The combination `b − Σ λ_k d_k` uses
/// double-and-add when the Lagrange coefficients are small integers (servers `1..t`).
pub fn verify_and_combine(
    gens: &Generators,
    public: &ElGamalPublic,
    sid: &SessionId,
    list: &[ElGamalCiphertext],
    stages: &[(PartyId, &[ElGamalDecShare])],
) -> Result<Vec<G1Projective>, MixnetError> {
    let lambda = check_stages(public, stages)?;
    if !dec_all_hold(gens, public, sid, list, stages, None) {
        let culprits = dec_culprits(gens, public, sid, list, stages);
        return Err(if culprits.is_empty() {
            ParamError::Invalid("decryption shares fail the joint check").into()
        } else {
            MixnetError::Aborted(quorate_core::Blame::many(
                culprits,
                "ElGamal decryption share proof",
            ))
        });
    }
    let t = usize::from(public.params.t()).min(stages.len());
    let used = &stages[..t];
    let lambda = &lambda[..t];
    Ok(list
        .par_iter()
        .enumerate()
        .map(|(i, ct)| {
            let ds: Vec<G1Projective> = used
                .iter()
                .filter_map(|(_, s)| s.get(i).map(|x| x.d))
                .collect();
            ct.b - lagrange_combine_vartime(&ds, lambda)
        })
        .collect())
}

/// The querier's form of [`verify_and_combine`] for a published decryption `s`: checks every
/// server's shares and `s_i = b_i − Σ_k λ_k d_{k,i}` for every element, all in one MSM
/// (no per-element combination). Failing servers are named; a wrong `s` with valid shares
/// is [`ParamError::Invalid`].
pub fn verify_published(
    gens: &Generators,
    public: &ElGamalPublic,
    sid: &SessionId,
    list: &[ElGamalCiphertext],
    stages: &[(PartyId, &[ElGamalDecShare])],
    s: &[G1Projective],
) -> Result<(), MixnetError> {
    let lambda = check_stages(public, stages)?;
    if s.len() != list.len() {
        return Err(ParamError::Invalid("one published decryption per ciphertext").into());
    }
    if dec_all_hold(gens, public, sid, list, stages, Some((s, &lambda))) {
        return Ok(());
    }
    let culprits = dec_culprits(gens, public, sid, list, stages);
    Err(if culprits.is_empty() {
        ParamError::Invalid("published S differs from the verified decryption").into()
    } else {
        MixnetError::Aborted(quorate_core::Blame::many(
            culprits,
            "ElGamal decryption share proof",
        ))
    })
}

/// Fresh 128-bit batching weights drawn from the OS CSPRNG 1 KiB at a time (one system call
/// per 64 weights instead of one per weight).
pub(crate) struct Weights {
    buf: [u8; 1024],
    pos: usize,
}

impl Weights {
    /// An empty pool (filled on first use).
    pub(crate) fn new() -> Self {
        Weights {
            buf: [0u8; 1024],
            pos: 1024,
        }
    }

    /// The next 128-bit weight.
    pub(crate) fn next(&mut self) -> Scalar {
        const _: () = assert!(BATCH_BITS == 128);
        if self.pos + 16 > self.buf.len() {
            OsRng.fill_bytes(&mut self.buf);
            self.pos = 0;
        }
        let mut b = [0u8; 16];
        b.copy_from_slice(&self.buf[self.pos..self.pos + 16]);
        self.pos += 16;
        Scalar::from_u128(u128::from_le_bytes(b))
    }
}

/// A fresh 128-bit batching weight as a scalar.
pub(crate) fn batch_weight(rng: &mut OsRng) -> Scalar {
    const _: () = assert!(BATCH_BITS == 128);
    let mut b = [0u8; 16];
    rng.fill_bytes(&mut b);
    Scalar::from_u128(u128::from_le_bytes(b))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn batch_affine_matches_to_affine() {
        let mut rng = OsRng;
        let g = G1Projective::generator();
        let mut pts: Vec<G1Projective> = (0..9).map(|_| G1Projective::random(&mut rng)).collect();
        pts.insert(0, G1Projective::identity());
        pts.insert(4, G1Projective::identity());
        pts.push(G1Projective::identity());
        pts.push(g + g); // non-trivial Z from a doubling
        let aff = batch_affine(&pts);
        assert_eq!(aff.len(), pts.len());
        for (p, a) in pts.iter().zip(&aff) {
            assert_eq!(p.to_affine(), *a);
            assert!(bool::from(a.is_on_curve()));
        }
        assert!(batch_affine(&[]).is_empty());
        assert_eq!(
            batch_affine(&[G1Projective::identity()])[0],
            G1Affine::identity()
        );
    }

    #[test]
    fn lagrange_combination_small_and_large_coefficients() {
        let mut rng = OsRng;
        let ds: Vec<G1Projective> = (0..4).map(|_| G1Projective::random(&mut rng)).collect();
        for lambda in [
            vec![
                Scalar::from(4u64),
                -Scalar::from(6u64),
                Scalar::from(4u64),
                -Scalar::ONE,
            ],
            vec![
                Scalar::ZERO,
                Scalar::from(u64::MAX),
                -Scalar::from(u64::MAX),
                Scalar::ONE,
            ],
            (0..4).map(|_| Scalar::random(&mut rng)).collect(),
        ] {
            let naive: G1Projective = ds.iter().zip(&lambda).map(|(d, l)| d * l).sum();
            assert_eq!(lagrange_combine_vartime(&ds, &lambda), naive);
        }
    }
}
