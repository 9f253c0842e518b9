//! Fig. 9 steps 5–7 for the quasi-signatures (the signature track): forward shuffle,
//! blinding, decryption.
//!
//! The list starts as `F_0[i] = (1, S_i)` for `i ∈ I` and `(1, 1)` elsewhere. Servers
//! `k = 1 … m` re-encrypt and permute it forward, `F_k[i] = F_{k−1}[π_k(i)]·Enc(1; s_i)`,
//! with the Terelius–Wikström ElGamal shuffle proof against the same permutation commitment
//! as in Mix, so `F_m[j] = Enc(S_{π(j)})` for the composed `π` of the Mix outputs.
//!
//! Blinding (Fig. 9 step 6 for the signature). Every server blinds every slot
//! multiplicatively, `D_{k,j} = Enc(1; ρ)·F_m[j]^{b_{k,j}}`, and publishes the hiding
//! commitment `B_{k,j} = g^{b_{k,j}} h^{s_{k,j}}` to its blinding share, with one Σ-proof
//! that the *same* `b` is used in both ([`RsmBlindProof`]):
//!
//!   `T = Enc(1; α)·F_m[j]^{β}`, `T_B = g^{β} h^{ζ}`, challenge `c` over session, protocol,
//!   server, position, `g, h, pk`, `F_m[j]`, `D_{k,j}`, `B_{k,j}`, `T`, `T_B`;
//!   `z_ρ = α + cρ`, `z_b = β + cb`, `z_s = ζ + cs`; checks `Enc(1; z_ρ)·F_m[j]^{z_b} =
//!   T·D^{c}` (two G1 relations) and `g^{z_b} h^{z_s} = T_B·B^{c}`.
//!
//! Special soundness gives `(ρ, b, s)` from two accepting transcripts, so `B_{k,j}` commits
//! to the exponent of `D_{k,j}`; from here on DPK_BBS+ and Beaver use the *published*
//! `B_{k,j}`. The querier batch-verifies all proofs of all servers in one MSM with 128-bit
//! weights and re-checks per server only on failure, naming the culprit.
//!
//! Decryption: `Π_k D_{k,j}` is threshold-decrypted with a DLEQ proof per share:
//! `S̃_j = S_{π(j)}^{b_j}`, `b_j = Σ_k b_{k,j}`.
//!
//! Membership (Fig. 9 step 7). `S̃_j ≠ 1` means the slot held a quasi-signature (the output
//! came from `I`) and DPK_BBS+ must prove it. `S̃_j = 1` happens for an empty slot **or** for
//! `b_j = 0`, which colluding servers could arrange to hide a member; so for every output
//! with `S̃_j = 1` every server opens `(b_{k,j}, s_{k,j})` ([`NonMemberOpening`]; harmless:
//! the slot's plaintext is 1 whatever the blinding), the querier checks the openings against
//! `B_{k,j}` (a wrong one names its server) and that `b_j ≠ 0`. Then `S̃_j = F_m[j]`'s
//! plaintext to a non-zero power is 1, so the slot was empty: output `j` did not come from
//! `I`.

use super::query::BbsQuery;
use crate::beaver::CommittedShare;
use crate::elgamal::BatchCheck;
use crate::elgamal::{self, append_ciphertexts, ElGamalCiphertext};
use crate::error::MixnetError;
use crate::membership::{ElGamalDecStage, ReverseStage};
use crate::setup::MixServer;
use crate::setup::MixnetPublic;
use crate::shuffle::{self, ElGamalShuffle};
use crate::timing::StepTimes;
use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use merlin::Transcript;
use quorate_core::transcript::ProtocolTranscript;
use quorate_core::{Blame, ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

/// Proof that `D = Enc(1; ρ)·base^{b}` and `B = g^{b} h^{s}` share `b`, in commitment form
/// (batch-verifiable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RsmBlindProof {
    /// `T = Enc(1; α)·base^{β}`.
    pub t: ElGamalCiphertext,
    /// `T_B = g^{β} h^{ζ}`.
    pub t_b: G1Projective,
    /// `z_ρ = α + cρ`.
    pub z_rho: Scalar,
    /// `z_b = β + cb`.
    pub z_b: Scalar,
    /// `z_s = ζ + cs`.
    pub z_s: Scalar,
}

/// One server's blinding of the shuffled signature list: contributions, commitments to its
/// blinding shares and proofs, one per output position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RsmBlindingStage {
    /// The server.
    pub mixer: PartyId,
    /// `D_{k,j}`.
    pub contributions: Vec<ElGamalCiphertext>,
    /// `B_{k,j} = g^{b_{k,j}} h^{s_{k,j}}`.
    pub b_coms: Vec<G1Projective>,
    /// Their proofs.
    pub proofs: Vec<RsmBlindProof>,
}

/// Everything the servers publish for the signature part of DB-RSM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureTrack {
    /// Forward shuffles, server 1 first (`outputs` is `F_k`).
    pub forward: Vec<ReverseStage>,
    /// Blinding of `F_m` with the commitments `B_{k,j}`, server 1 first.
    pub blinding: Vec<RsmBlindingStage>,
    /// ElGamal decryption shares of the blinded list.
    pub decryption: Vec<ElGamalDecStage>,
    /// `S̃_j` for every output position `j`.
    pub s_tilde: Vec<G1Projective>,
}

/// A server's blinding exponents `b_{k,j}` and the randomness `s_{k,j}` of `B_{k,j}`, per
/// output (wiped on drop, redacted in `Debug`): its DPK_BBS+ and Beaver shares of `b`.
pub struct BlindingShares {
    /// The server.
    pub mixer: PartyId,
    pub(super) b: Vec<Scalar>,
    pub(super) s: Vec<Scalar>,
}

impl BlindingShares {
    /// `b_{k,j}` for output `j`.
    pub fn b(&self, j: usize) -> Option<Scalar> {
        self.b.get(j).copied()
    }

    /// `(b_{k,j}, s_{k,j})`, the opening of `B_{k,j}`.
    pub fn committed(&self, j: usize) -> Option<CommittedShare> {
        Some(CommittedShare {
            value: *self.b.get(j)?,
            rand: *self.s.get(j)?,
        })
    }
}

impl Drop for BlindingShares {
    fn drop(&mut self) {
        self.b
            .iter_mut()
            .chain(self.s.iter_mut())
            .for_each(|x| *x = Scalar::ZERO);
    }
}

impl core::fmt::Debug for BlindingShares {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "BlindingShares({:?}, <redacted>)", self.mixer)
    }
}

/// `F_0`: `(1, S_i)` at `i ∈ I`, `(1, 1)` elsewhere.
pub fn initial_signature_list(n: usize, q: &BbsQuery) -> Vec<ElGamalCiphertext> {
    let mut list = vec![ElGamalCiphertext::trivial(G1Projective::identity()); n];
    for (&i, s) in q.inputs.iter().zip(&q.sigs) {
        if let Some(slot) = list.get_mut(i) {
            *slot = ElGamalCiphertext::trivial(s.s);
        }
    }
    list
}

/// The challenge of the blinding proof: binds session, protocol, version, server, output
/// position, generators, ElGamal key, the base `F_m[j]`, `D`, `B` and both first messages.
#[allow(clippy::too_many_arguments)]
pub fn rsm_blind_challenge(
    public: &MixnetPublic,
    who: PartyId,
    index: usize,
    base: &ElGamalCiphertext,
    d: &ElGamalCiphertext,
    b_com: &G1Projective,
    t: &ElGamalCiphertext,
    t_b: &G1Projective,
) -> Scalar {
    let mut tr = Transcript::for_protocol(b"quorate/mixnet/dbrsm-blinding", 1, &public.sid);
    tr.append_party(b"server", who);
    tr.append_u64_be(b"output", index as u64);
    tr.append_point(b"g", &public.gens.g);
    tr.append_point(b"h", &public.gens.h);
    tr.append_point(b"pk", &public.elgamal.pk);
    append_ciphertexts(&mut tr, b"base", core::slice::from_ref(base));
    append_ciphertexts(&mut tr, b"D", core::slice::from_ref(d));
    tr.append_point(b"B", b_com);
    append_ciphertexts(&mut tr, b"T", core::slice::from_ref(t));
    tr.append_point(b"T_B", t_b);
    tr.challenge_scalar(b"c")
}

impl MixServer {
    /// Step 5: re-encrypts `list` and moves it forward through `π` (`out[i] = list[π(i)]·
    /// Enc(1; s_i)`), with the TW ElGamal shuffle proof against this server's permutation
    /// commitment.
    pub fn forward_shuffle<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        list: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> Result<ReverseStage, MixnetError> {
        let n = public.n;
        if list.len() != n {
            return Err(ParamError::LengthMismatch {
                what: "forward shuffle input",
                expected: n,
                got: list.len(),
            }
            .into());
        }
        let tables = public.elgamal_tables();
        let s: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
        let pi = self.permutation();
        let out: Vec<ElGamalCiphertext> = (0..n)
            .into_par_iter()
            .map(|i| {
                let src = pi.get(i).and_then(|&p| list.get(p)).copied();
                src.map(|c| tables.rerandomize(&public.gens, &c, &s[i]))
            })
            .collect::<Option<_>>()
            .ok_or(ParamError::Invalid("permutation does not match n"))?;
        let proof = self.prove_elgamal_shuffle(public, list, &out, &s, rng)?;
        Ok(ReverseStage {
            mixer: self.id,
            outputs: out,
            proof,
        })
    }

    /// Step 6 for the signatures: blinds every element of `bases` (`F_m`), publishing
    /// `D_{k,j}`, `B_{k,j}` and the proofs; returns the stage and the blinding shares.
    pub fn rsm_blind<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        bases: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> (RsmBlindingStage, BlindingShares) {
        let tables = public.elgamal_tables();
        let cnt = bases.len();
        let mut draw = |_| Scalar::random(&mut *rng);
        let secrets = BlindingShares {
            mixer: self.id,
            b: (0..cnt).map(&mut draw).collect(),
            s: (0..cnt).map(&mut draw).collect(),
        };
        let rho: Vec<Scalar> = (0..cnt).map(&mut draw).collect();
        let masks: Vec<[Scalar; 3]> = (0..cnt).map(|_| [draw(0), draw(0), draw(0)]).collect();
        let items: Vec<(ElGamalCiphertext, G1Projective, RsmBlindProof)> = (0..cnt)
            .into_par_iter()
            .map(|j| {
                let (base, b, s, r) = (&bases[j], secrets.b[j], secrets.s[j], rho[j]);
                let [al, be, ze] = masks[j];
                let d = tables.rerandomize(&public.gens, &base.pow(&b), &r);
                let b_com = public.gens.g_h_mul_ct(&b, &s);
                let t = tables.rerandomize(&public.gens, &base.pow(&be), &al);
                let t_b = public.gens.g_h_mul_ct(&be, &ze);
                let c = rsm_blind_challenge(public, self.id, j, base, &d, &b_com, &t, &t_b);
                (
                    d,
                    b_com,
                    RsmBlindProof {
                        t,
                        t_b,
                        z_rho: al + c * r,
                        z_b: be + c * b,
                        z_s: ze + c * s,
                    },
                )
            })
            .collect();
        let mut stage = RsmBlindingStage {
            mixer: self.id,
            contributions: Vec::with_capacity(cnt),
            b_coms: Vec::with_capacity(cnt),
            proofs: Vec::with_capacity(cnt),
        };
        for (d, b, p) in items {
            stage.contributions.push(d);
            stage.b_coms.push(b);
            stage.proofs.push(p);
        }
        (stage, secrets)
    }
}

pub(super) fn verify_forward(
    public: &MixnetPublic,
    q: &BbsQuery,
    stages: &[ReverseStage],
) -> Result<Vec<ElGamalCiphertext>, MixnetError> {
    let stages =
        crate::membership::check_order(public, stages, |s| s.mixer, false, "forward shuffles")?;
    let pk = public.elgamal.pk;
    let init = initial_signature_list(public.n, q);
    let mut current: &[ElGamalCiphertext] = &init;
    for (k, st) in stages {
        if st.outputs.len() != public.n {
            return Err(crate::error::blame(k, "forward shuffle output length"));
        }
        let com = public
            .perm_commitments
            .get(k.position())
            .ok_or(ParamError::Invalid("missing commitment"))?;
        let stmt = ElGamalShuffle {
            pk: &pk,
            inputs: current,
            outputs: &st.outputs,
        };
        shuffle::verify_elgamal(&public.sid, k, &public.gens, com, &stmt, &st.proof)?;
        current = &st.outputs;
    }
    if current.iter().any(|b| bool::from(b.a.is_identity())) {
        return Err(ParamError::Invalid("degenerate re-encrypted signature (a = 1)").into());
    }
    Ok(current.to_vec())
}

/// Verifies every server's blinding proofs (one MSM; per server on failure, naming it) and
/// returns the products `Π_k D_{k,j}`.
pub fn verify_rsm_blinding(
    public: &MixnetPublic,
    bases: &[ElGamalCiphertext],
    blinding: &[RsmBlindingStage],
) -> Result<Vec<ElGamalCiphertext>, MixnetError> {
    let stages =
        crate::membership::check_order(public, blinding, |s| s.mixer, false, "blinding stages")?;
    let (g, h, pk) = (public.gens.g, public.gens.h, public.elgamal.pk);
    let cnt = bases.len();
    let batches: Vec<Option<BatchCheck>> = stages
        .iter()
        .map(|(k, st)| {
            (st.contributions.len() == cnt && st.b_coms.len() == cnt && st.proofs.len() == cnt)
                .then(|| {
                    (0..cnt)
                        .into_par_iter()
                        .map(|j| {
                            let (base, d, bc, p) =
                                (&bases[j], &st.contributions[j], st.b_coms[j], &st.proofs[j]);
                            let c = rsm_blind_challenge(public, *k, j, base, d, &bc, &p.t, &p.t_b);
                            let one = -Scalar::ONE;
                            let mut b = BatchCheck::default();
                            b.add(&[
                                &[(g, p.z_rho), (base.a, p.z_b), (d.a, -c), (p.t.a, one)],
                                &[(pk, p.z_rho), (base.b, p.z_b), (d.b, -c), (p.t.b, one)],
                                &[(g, p.z_b), (h, p.z_s), (bc, -c), (p.t_b, one)],
                            ]);
                            b
                        })
                        .reduce(BatchCheck::default, |mut a, b| {
                            a.extend(b);
                            a
                        })
                })
        })
        .collect();
    let culprits = BatchCheck::failing(stages.iter().map(|(k, _)| *k), &batches);
    if !culprits.is_empty() {
        return Err(MixnetError::Aborted(Blame::many(
            culprits,
            "DB-RSM blinding proof",
        )));
    }
    Ok((0..cnt)
        .map(|j| {
            stages.iter().fold(
                ElGamalCiphertext::trivial(G1Projective::identity()),
                |acc, (_, st)| acc.mul(&st.contributions[j]),
            )
        })
        .collect())
}

impl MixServer {
    /// Step 7 for the signatures: this server's ElGamal decryption shares (DLEQ proof each)
    /// of the blinded list `Π_k D_{k,j}` ([`verify_rsm_blinding`]'s output).
    pub fn decrypt_signature_list<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        blinded: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> Result<ElGamalDecStage, MixnetError> {
        Ok(ElGamalDecStage {
            mixer: self.id,
            shares: self.elgamal_share.decrypt_shares(
                &public.gens,
                &public.elgamal,
                &public.sid,
                blinded,
                rng,
            )?,
        })
    }
}

/// Verifies every server's decryption shares of the blinded list (naming a failing server)
/// and combines them: `S̃_j` for every output.
pub fn combine_signature_decryption(
    public: &MixnetPublic,
    blinded: &[ElGamalCiphertext],
    decryption: &[ElGamalDecStage],
) -> Result<Vec<G1Projective>, MixnetError> {
    let stages =
        crate::membership::check_order(public, decryption, |s| s.mixer, false, "decryption")?;
    let refs: Vec<(PartyId, &[elgamal::ElGamalDecShare])> = stages
        .iter()
        .map(|(k, st)| (*k, st.shares.as_slice()))
        .collect();
    elgamal::verify_and_combine(&public.gens, &public.elgamal, &public.sid, blinded, &refs)
}

/// Runs steps 5–7 for the signatures in process (all servers simulated, every stage
/// checked before the next builds on it). Returns the published track and each server's
/// blinding shares.
pub fn run_signature_track<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    q: &BbsQuery,
    rng: &mut R,
) -> Result<(SignatureTrack, Vec<BlindingShares>), MixnetError> {
    run_signature_track_timed(public, servers, q, rng, &mut StepTimes::default())
}

pub(super) fn run_signature_track_timed<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    q: &BbsQuery,
    rng: &mut R,
    times: &mut StepTimes,
) -> Result<(SignatureTrack, Vec<BlindingShares>), MixnetError> {
    let mut forward: Vec<ReverseStage> = Vec::with_capacity(servers.len());
    let init = initial_signature_list(public.n, q);
    for srv in servers {
        let cur = forward
            .last()
            .map(|s| s.outputs.as_slice())
            .unwrap_or(&init);
        let st = times.time(
            "M: forward shuffle of the signatures + proof",
            Some(srv.id),
            || srv.forward_shuffle(public, cur, rng),
        )?;
        forward.push(st);
    }
    let bases = times.time("M: verify all forward shuffles", None, || {
        verify_forward(public, q, &forward)
    })?;
    let mut blinding = Vec::with_capacity(servers.len());
    let mut bshares = Vec::with_capacity(servers.len());
    for srv in servers {
        let (st, sec) = times.time(
            "M: blinding with commitments B_k + proofs",
            Some(srv.id),
            || srv.rsm_blind(public, &bases, rng),
        );
        blinding.push(st);
        bshares.push(sec);
    }
    let blinded = times.time("M: verify all signature-blinding proofs", None, || {
        verify_rsm_blinding(public, &bases, &blinding)
    })?;
    let mut decryption = Vec::with_capacity(servers.len());
    for srv in servers {
        let st = times.time(
            "M: ElGamal decryption shares of S~ + proofs",
            Some(srv.id),
            || srv.decrypt_signature_list(public, &blinded, rng),
        )?;
        decryption.push(st);
    }
    let s_tilde = times.time("M: verify all S~ decryption shares + combine", None, || {
        combine_signature_decryption(public, &blinded, &decryption)
    })?;
    Ok((
        SignatureTrack {
            forward,
            blinding,
            decryption,
            s_tilde,
        },
        bshares,
    ))
}

/// The querier's (and every server's) check of the signature track: every forward shuffle,
/// blinding proof (with the commitments `B_{k,j}`) and decryption share, naming a failing
/// server. Returns the verified `S̃_j`, which must equal the published ones.
pub fn verify_signature_track(
    public: &MixnetPublic,
    q: &BbsQuery,
    track: &SignatureTrack,
) -> Result<Vec<G1Projective>, MixnetError> {
    verify_signature_track_timed(public, q, track, &mut StepTimes::default())
}

pub(super) fn verify_signature_track_timed(
    public: &MixnetPublic,
    q: &BbsQuery,
    track: &SignatureTrack,
    times: &mut StepTimes,
) -> Result<Vec<G1Projective>, MixnetError> {
    let bases = times.time("Q: verify forward shuffles of the signatures", None, || {
        verify_forward(public, q, &track.forward)
    })?;
    let blinded = times.time("Q: verify signature-blinding proofs", None, || {
        verify_rsm_blinding(public, &bases, &track.blinding)
    })?;
    let s = times.time("Q: verify S~ decryption shares + combine", None, || {
        combine_signature_decryption(public, &blinded, &track.decryption)
    })?;
    if track.s_tilde != s {
        return Err(ParamError::Invalid("published S̃ differs from the verified decryption").into());
    }
    Ok(s)
}
