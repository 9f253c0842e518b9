//! The in-process driver: all servers simulated, each published stage checked before the
//! next builds on it ([`run`]).

use super::blinding::{verify_blinding, BlindSecrets};
use super::decryption::{ElGamalDecStage, NonMemberOpening};
use super::member_proof::{member_challenges, AffineGens, DpkCommit, DpkResponseStage};
use super::query::{check_query, initial_list, BbQuery};
use super::reverse_shuffle::{verify_reverse, ReverseStage};
use super::DbSmProof;
use crate::elgamal::{self, ElGamalCiphertext, ElGamalDecShare};
use crate::error::MixnetError;
use crate::mix::MixRecord;
use crate::sender::SenderInput;
use crate::setup::{MixServer, MixnetPublic};
use crate::sharing::MixerShares;
use crate::timing::StepTimes;
use blstrs::{G1Projective, Scalar};
use group::Group;
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use std::time::Instant;

/// Runs DB-SM in process for a query `q` (all servers simulated, each stage checked before
/// the next builds on it) and returns the published proof. `record` is the verified Mix
/// record and `submissions` the sender inputs it was built from.
#[allow(clippy::too_many_arguments)]
pub fn run<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    shares: &[MixerShares],
    share_coms: &[Vec<G1Projective>],
    q: &BbQuery,
    rng: &mut R,
) -> Result<DbSmProof, MixnetError> {
    run_timed(
        public,
        servers,
        submissions,
        record,
        shares,
        share_coms,
        q,
        rng,
        &mut StepTimes::default(),
    )
}

/// [`run`], recording each server's time per step (and the checks of the published stages,
/// which every other server repeats) in `times`.
#[allow(clippy::too_many_arguments)]
pub fn run_timed<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    shares: &[MixerShares],
    share_coms: &[Vec<G1Projective>],
    q: &BbQuery,
    rng: &mut R,
    times: &mut StepTimes,
) -> Result<DbSmProof, MixnetError> {
    run_with(
        public,
        servers,
        submissions,
        record,
        (shares, share_coms),
        q,
        None,
        rng,
        times,
    )
}

/// [`run_timed`]; `zero_blinding_at = Some(t)` makes the last server cancel the others'
/// blinding of element `t` (all servers colluding; only `crate::faults` uses it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_with<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    (shares, share_coms): (&[MixerShares], &[Vec<G1Projective>]),
    q: &BbQuery,
    zero_blinding_at: Option<usize>,
    rng: &mut R,
    times: &mut StepTimes,
) -> Result<DbSmProof, MixnetError> {
    times.time("M: check BB signatures", None, || {
        check_query(public, &record.outputs, q)
    })?;
    // Step 2: reverse shuffles, server m first.
    let mut reverse: Vec<ReverseStage> = Vec::with_capacity(servers.len());
    let init = initial_list(public.n, q);
    for srv in servers.iter().rev() {
        let cur = reverse
            .last()
            .map(|s| s.outputs.as_slice())
            .unwrap_or(&init);
        let st = times.time(
            "M: re-encrypt + reverse shuffle + proof",
            Some(srv.id),
            || srv.reverse_shuffle(public, cur, rng),
        )?;
        reverse.push(st);
    }
    let mut proof = DbSmProof {
        reverse,
        blinding: Vec::new(),
        decryption: Vec::new(),
        s: Vec::new(),
        non_members: Vec::new(),
        dpk_commits: Vec::new(),
        dpk_responses: Vec::new(),
    };
    let bases = times.time("M: verify all reverse shuffles", None, || {
        verify_reverse(public, q, &proof)
    })?;
    // Step 3: blinding.
    let mut blind_secrets: Vec<BlindSecrets> = Vec::with_capacity(servers.len());
    for (pos, srv) in servers.iter().enumerate() {
        let fixed = zero_blinding_at
            .filter(|_| pos + 1 == servers.len())
            .map(|t| {
                let others: Scalar = blind_secrets.iter().filter_map(|b| b.b.get(t)).sum();
                (t, -others)
            });
        let (st, sec) = times.time("M: homomorphic blinding + proofs", Some(srv.id), || {
            srv.blind(public, &q.inputs, &bases, fixed, rng)
        });
        proof.blinding.push(st);
        blind_secrets.push(sec);
    }
    let blinded = times.time("M: verify all blinding proofs", None, || {
        verify_blinding(public, &q.inputs, &bases, &proof.blinding)
    })?;
    // Step 4: threshold ElGamal decryption.
    for srv in servers {
        let shares = times.time(
            "M: ElGamal decryption shares + proofs",
            Some(srv.id),
            || {
                srv.elgamal_share.decrypt_shares(
                    &public.gens,
                    &public.elgamal,
                    &public.sid,
                    &blinded,
                    rng,
                )
            },
        )?;
        proof.decryption.push(ElGamalDecStage {
            mixer: srv.id,
            shares,
        });
    }
    let dec_refs: Vec<(PartyId, &[ElGamalDecShare])> = proof
        .decryption
        .iter()
        .map(|st| (st.mixer, st.shares.as_slice()))
        .collect();
    proof.s = times.time("M: verify all decryption shares + combine", None, || {
        elgamal::verify_and_combine(
            &public.gens,
            &public.elgamal,
            &public.sid,
            &blinded,
            &dec_refs,
        )
    })?;
    let s = proof.s.clone();
    // Every server opens its blinding commitments where S_i = 1 (non-members).
    let non: Vec<usize> = (0..s.len())
        .filter(|&t| bool::from(s[t].is_identity()))
        .collect();
    proof.non_members = servers
        .iter()
        .zip(&blind_secrets)
        .map(|(srv, sec)| NonMemberOpening {
            mixer: srv.id,
            b: non.iter().map(|&t| sec.b[t]).collect(),
            s: non.iter().map(|&t| sec.s[t]).collect(),
        })
        .collect();
    // Step 5: DPK_BB for the members.
    let members: Vec<(usize, usize)> = (0..s.len())
        .filter(|&t| !bool::from(s[t].is_identity()))
        .map(|t| (q.inputs[t], t))
        .collect();
    if shares.len() != servers.len() || shares.iter().zip(servers).any(|(sh, sv)| sh.mixer != sv.id)
    {
        return Err(ParamError::Invalid("one set of input shares per server, in order").into());
    }
    let mut dpk_secrets = Vec::with_capacity(servers.len());
    for srv in servers {
        let (st, sec) = times.time("M: DPK_BB commitments + share proofs", Some(srv.id), || {
            srv.dpk_commit(public, &members, &bases, &s, rng)
        });
        proof.dpk_commits.push(st);
        dpk_secrets.push(sec);
    }
    let inputs: Vec<&SenderInput> = q
        .inputs
        .iter()
        .map(|&i| {
            record
                .accepted
                .get(i)
                .and_then(|&a| submissions.get(a))
                .ok_or(ParamError::Invalid("missing submission"))
        })
        .collect::<Result<_, _>>()?;
    let t_ch = Instant::now();
    let coms_u: Vec<&[G1Projective]> = members
        .iter()
        .map(|&(idx, _)| {
            share_coms
                .get(idx)
                .filter(|c| c.len() == servers.len())
                .map(|c| c.as_slice())
                .ok_or(ParamError::Invalid("missing share commitments"))
        })
        .collect::<Result<_, _>>()?;
    let gammas: Vec<G1Projective> = members.iter().map(|&(_, t)| inputs[t].gamma).collect();
    let blind_lists: Vec<&[ElGamalCiphertext]> = proof
        .blinding
        .iter()
        .map(|b| b.contributions.as_slice())
        .collect();
    let commit_lists: Vec<&[DpkCommit]> = proof
        .dpk_commits
        .iter()
        .map(|c| c.commits.as_slice())
        .collect();
    let ag = AffineGens::new(public, &q.y);
    let (_, _, challenges) = member_challenges(
        public,
        &ag,
        &members,
        &gammas,
        &coms_u,
        &bases,
        &blind_lists,
        &s,
        &commit_lists,
    );
    times.add("M: DPK_BB challenges", None, t_ch.elapsed());
    for (((srv, bsec), dsec), sh) in servers
        .iter()
        .zip(&blind_secrets)
        .zip(&dpk_secrets)
        .zip(shares)
    {
        let t_resp = Instant::now();
        let cnt = members.len();
        let mut st = DpkResponseStage {
            mixer: srv.id,
            z_v: Vec::with_capacity(cnt),
            z_r: Vec::with_capacity(cnt),
            z_b: Vec::with_capacity(cnt),
            z_tau: Vec::with_capacity(cnt),
        };
        for (u, &(idx, t)) in members.iter().enumerate() {
            let e = challenges[u];
            let v = sh.v.get(idx).ok_or(ParamError::Invalid("missing share"))?;
            let r = sh.r.get(idx).ok_or(ParamError::Invalid("missing share"))?;
            st.z_v.push(dsec.rho_v[u] - e * v);
            st.z_r.push(dsec.rho_r[u] - e * r);
            st.z_b.push(dsec.rho_b[u] - e * bsec.b[t]);
            st.z_tau.push(dsec.tau[u] - e * bsec.rho[t]);
        }
        times.add("M: DPK_BB responses", Some(srv.id), t_resp.elapsed());
        proof.dpk_responses.push(st);
    }
    Ok(proof)
}
