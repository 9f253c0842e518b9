//! Step 3 (Fig. 8): homomorphic blinding `D_{k,i} = Enc(1; ρ)·R_0[i]^{b}` with the hiding
//! commitment `B_{k,i} = g^b h^s` and a proof that both use the same `b` ([`BlindProof`],
//! [`BlindingStage`]); [`verify_blinding`] checks every server's proofs in one MSM and names
//! the culprits on failure.

use super::stages::{blamed, check_order};
use crate::elgamal::{
    self, append_ciphertexts_affine, batch_affine, BatchCheck, ElGamalCiphertext, LinCheck,
};
use crate::error::MixnetError;
use crate::setup::{MixServer, MixnetPublic};
use blstrs::{G1Affine, G1Projective, Scalar};
use ff::Field;
use group::Group;
use merlin::Transcript;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

/// Proof of knowledge of `(ρ, b, s)` with `D = Enc(1; ρ)·(a, b_ct)^b` and the blinding
/// commitment `B = g^b h^s` (the same `b`), in commitment form (batch-verifiable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlindProof {
    /// First message `T = Enc(1; α)·(a, b_ct)^β`.
    pub t: ElGamalCiphertext,
    /// First message `T_B = g^β h^ζ`.
    pub t_b: G1Projective,
    /// `z_ρ = α + cρ`.
    pub z_rho: Scalar,
    /// `z_b = β + c b`.
    pub z_b: Scalar,
    /// `z_s = ζ + c s`.
    pub z_s: Scalar,
}

/// One server's blinding contributions `D_{k,i}` for `i ∈ I`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlindingStage {
    /// The server.
    pub mixer: PartyId,
    /// `D_{k,i}` in `I` order.
    pub contributions: Vec<ElGamalCiphertext>,
    /// The hiding commitments `B_{k,i} = g^{b_{k,i}} h^{s_{k,i}}` to the blinding shares,
    /// opened at the non-members ([`NonMemberOpening`]).
    pub b_coms: Vec<G1Projective>,
    /// Their proofs.
    pub proofs: Vec<BlindProof>,
}

/// A server's secrets between the blinding and DPK rounds (wiped on drop).
pub(crate) struct BlindSecrets {
    pub(crate) b: Vec<Scalar>,
    pub(super) s: Vec<Scalar>,
    pub(super) rho: Vec<Scalar>,
}

impl Drop for BlindSecrets {
    fn drop(&mut self) {
        self.b
            .iter_mut()
            .chain(self.s.iter_mut())
            .chain(self.rho.iter_mut())
            .for_each(|x| *x = Scalar::ZERO);
    }
}

/// Affine forms of the points the blinding proof of one element hashes:
/// `[base.a, base.b, D.a, D.b, T.a, T.b, B, T_B]`.
pub(super) const BLIND_PTS: usize = 8;

/// `gph` = `[g, pk, h]` in affine form.
pub(super) fn blind_challenge(
    sid: &SessionId,
    who: PartyId,
    index: usize,
    gph: &[G1Affine],
    pts: &[G1Affine],
) -> Scalar {
    let mut tr = Transcript::for_protocol(b"quorate/mixnet/dbsm-blinding", 2, sid);
    tr.append_party(b"server", who);
    tr.append_u64_be(b"input", index as u64);
    tr.append_point(b"g", &gph[0]);
    tr.append_point(b"pk", &gph[1]);
    tr.append_point(b"h", &gph[2]);
    append_ciphertexts_affine(&mut tr, b"base", &[(pts[0], pts[1])]);
    append_ciphertexts_affine(&mut tr, b"D", &[(pts[2], pts[3])]);
    append_ciphertexts_affine(&mut tr, b"T", &[(pts[4], pts[5])]);
    tr.append_point(b"B", &pts[6]);
    tr.append_point(b"T_B", &pts[7]);
    tr.challenge_scalar(b"c")
}

impl MixServer {
    /// Step 3: `D_t = Enc(1; ρ_t)·bases[t]^{b_t}` and `B_t = g^{b_t} h^{s_t}` with proofs;
    /// `indices[t]` labels element `t` in the proofs' transcripts. `fixed` sets the blinding
    /// of one element (only the `test-faults` hooks use it).
    pub(crate) fn blind<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        indices: &[usize],
        bases: &[ElGamalCiphertext],
        fixed: Option<(usize, Scalar)>,
        rng: &mut R,
    ) -> (BlindingStage, BlindSecrets) {
        let (g, h, pk) = (public.gens.g, public.gens.h, public.elgamal.pk);
        let k = bases.len();
        let mut secrets = BlindSecrets {
            b: (0..k).map(|_| Scalar::random(&mut *rng)).collect(),
            s: (0..k).map(|_| Scalar::random(&mut *rng)).collect(),
            rho: (0..k).map(|_| Scalar::random(&mut *rng)).collect(),
        };
        if let Some((t, b)) = fixed {
            if let Some(x) = secrets.b.get_mut(t) {
                *x = b;
            }
        }
        let mut masks: Vec<[Scalar; 3]> = (0..k)
            .map(|_| [(); 3].map(|_| Scalar::random(&mut *rng)))
            .collect();
        // Secret exponents (b, s, ρ, α, β, ζ): constant-time multiplications.
        type Blinded = (
            ElGamalCiphertext,
            ElGamalCiphertext,
            G1Projective,
            G1Projective,
        );
        let tables = public.elgamal_tables();
        let items: Vec<Blinded> = (0..k)
            .into_par_iter()
            .map(|t| {
                let (base, b, s, rho) = (&bases[t], secrets.b[t], secrets.s[t], secrets.rho[t]);
                let [al, be, ze] = masks[t];
                (
                    tables.rerandomize(&public.gens, &base.pow(&b), &rho),
                    tables.rerandomize(&public.gens, &base.pow(&be), &al),
                    public.gens.g_h_mul_ct(&b, &s),
                    public.gens.g_h_mul_ct(&be, &ze),
                )
            })
            .collect();
        let flat: Vec<G1Projective> = (0..k)
            .flat_map(|t| {
                let (b, (d, f, bc, tb)) = (&bases[t], &items[t]);
                [b.a, b.b, d.a, d.b, f.a, f.b, *bc, *tb]
            })
            .collect();
        let aff = batch_affine(&flat);
        let gph = batch_affine(&[g, pk, h]);
        let proofs: Vec<BlindProof> = (0..k)
            .into_par_iter()
            .map(|t| {
                let pts = &aff[BLIND_PTS * t..BLIND_PTS * (t + 1)];
                let c = blind_challenge(&public.sid, self.id, indices[t], &gph, pts);
                let [al, be, ze] = masks[t];
                BlindProof {
                    t: items[t].1,
                    t_b: items[t].3,
                    z_rho: al + c * secrets.rho[t],
                    z_b: be + c * secrets.b[t],
                    z_s: ze + c * secrets.s[t],
                }
            })
            .collect();
        // The proof nonces are secret: wipe them.
        masks.iter_mut().for_each(|m| *m = [Scalar::ZERO; 3]);
        (
            BlindingStage {
                mixer: self.id,
                contributions: items.iter().map(|x| x.0).collect(),
                b_coms: items.iter().map(|x| x.2).collect(),
                proofs,
            },
            secrets,
        )
    }
}

/// Adds the three relations of one blinding proof to `batch` (per-server blame path).
#[allow(clippy::too_many_arguments)]
pub(super) fn batch_blind_proof(
    public: &MixnetPublic,
    who: PartyId,
    index: usize,
    base: &ElGamalCiphertext,
    d: &ElGamalCiphertext,
    b_com: &G1Projective,
    p: &BlindProof,
    batch: &mut BatchCheck,
) {
    let (g, h, pk) = (public.gens.g, public.gens.h, public.elgamal.pk);
    let x = batch_affine(&[
        g, pk, h, base.a, base.b, d.a, d.b, p.t.a, p.t.b, *b_com, p.t_b,
    ]);
    let c = blind_challenge(&public.sid, who, index, &x[..3], &x[3..]);
    let one = -Scalar::ONE;
    batch.add(&[
        &[(g, p.z_rho), (base.a, p.z_b), (d.a, -c), (p.t.a, one)],
        &[(pk, p.z_rho), (base.b, p.z_b), (d.b, -c), (p.t.b, one)],
        &[(g, p.z_b), (h, p.z_s), (*b_com, -c), (p.t_b, one)],
    ]);
}

/// The points of a blinding stage that its proofs hash, per element after the base:
/// `[D.a, D.b, T.a, T.b, B, T_B]` (shapes checked by the caller).
pub(super) fn blind_points(st: &BlindingStage) -> Vec<G1Projective> {
    st.contributions
        .iter()
        .zip(&st.b_coms)
        .zip(&st.proofs)
        .flat_map(|((d, b), p)| [d.a, d.b, p.t.a, p.t.b, *b, p.t_b])
        .collect()
}

/// Verifies blinding; returns the products `D_i = Π_k D_{k,i}`.
pub(crate) fn verify_blinding(
    public: &MixnetPublic,
    indices: &[usize],
    bases: &[ElGamalCiphertext],
    blinding: &[BlindingStage],
) -> Result<Vec<ElGamalCiphertext>, MixnetError> {
    if indices.len() != bases.len() {
        return Err(ParamError::Invalid("one index per blinded element").into());
    }
    let stages = check_order(public, blinding, |s| s.mixer, false, "blinding stages")?;
    let n = bases.len();
    let shapes = stages
        .iter()
        .all(|(_, st)| st.contributions.len() == n && st.b_coms.len() == n && st.proofs.len() == n);
    // Every server's proofs in one MSM: per element, relation weights w1 (first component),
    // w2 (second) and w3 (commitment `B`), with g, pk, h and the element's base merged across
    // servers (`6m + 2` points per element instead of `12m`).
    let joint = shapes && {
        let (g, h, pk) = (public.gens.g, public.gens.h, public.elgamal.pk);
        let gph = batch_affine(&[g, pk, h]);
        let base_flat: Vec<G1Projective> = bases.iter().flat_map(|b| [b.a, b.b]).collect();
        let base_aff = batch_affine(&base_flat);
        let st_aff: Vec<Vec<G1Affine>> = stages
            .iter()
            .map(|(_, st)| batch_affine(&blind_points(st)))
            .collect();
        (0..n)
            .into_par_iter()
            .map(|t| {
                let mut wts = elgamal::Weights::new();
                let mut lc = LinCheck::with_fixed(3);
                let (mut sa, mut sb) = (Scalar::ZERO, Scalar::ZERO);
                for (kp, (k, st)) in stages.iter().enumerate() {
                    let (d, p) = (&st.contributions[t], &st.proofs[t]);
                    let x = &st_aff[kp][6 * t..6 * t + 6];
                    let pts = [
                        base_aff[2 * t],
                        base_aff[2 * t + 1],
                        x[0],
                        x[1],
                        x[2],
                        x[3],
                        x[4],
                        x[5],
                    ];
                    let c = blind_challenge(&public.sid, *k, indices[t], &gph, &pts);
                    let (w1, w2, w3) = (wts.next(), wts.next(), wts.next());
                    // w1·(g^{z_ρ} a^{z_b} D.a^{−c} T.a^{−1}) + w2·(pk^{z_ρ} b^{z_b} D.b^{−c} T.b^{−1})
                    // + w3·(g^{z_b} h^{z_s} B^{−c} T_B^{−1})
                    lc.fixed[0] += w1 * p.z_rho + w3 * p.z_b;
                    lc.fixed[1] += w2 * p.z_rho;
                    lc.fixed[2] += w3 * p.z_s;
                    sa += w1 * p.z_b;
                    sb += w2 * p.z_b;
                    lc.push(d.a, -(w1 * c));
                    lc.push(p.t.a, -w1);
                    lc.push(d.b, -(w2 * c));
                    lc.push(p.t.b, -w2);
                    lc.push(st.b_coms[t], -(w3 * c));
                    lc.push(p.t_b, -w3);
                }
                lc.push(bases[t].a, sa);
                lc.push(bases[t].b, sb);
                lc
            })
            .reduce(|| LinCheck::with_fixed(3), LinCheck::merge)
            .holds_vartime(&[g, pk, h])
    };
    if !joint {
        // Name the culprits: each server's proofs alone.
        let culprits: Vec<PartyId> = stages
            .iter()
            .filter(|(k, st)| {
                !(st.contributions.len() == n && st.b_coms.len() == n && st.proofs.len() == n && {
                    (0..n)
                        .into_par_iter()
                        .map(|t| {
                            let mut b = BatchCheck::default();
                            batch_blind_proof(
                                public,
                                *k,
                                indices[t],
                                &bases[t],
                                &st.contributions[t],
                                &st.b_coms[t],
                                &st.proofs[t],
                                &mut b,
                            );
                            b
                        })
                        .reduce(BatchCheck::default, |mut a, b| {
                            a.extend(b);
                            a
                        })
                        .holds()
                })
            })
            .map(|(k, _)| *k)
            .collect();
        if culprits.is_empty() {
            return Err(MixnetError::ProofRejected(
                "blinding proofs fail the joint check",
            ));
        }
        blamed(culprits, "blinding proof")?;
    }
    Ok((0..bases.len())
        .map(|t| {
            stages.iter().fold(
                ElGamalCiphertext::trivial(G1Projective::identity()),
                |acc, (_, st)| acc.mul(&st.contributions[t]),
            )
        })
        .collect())
}
