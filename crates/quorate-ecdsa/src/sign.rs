//! DKLs23 three-round signing (eprint 2023/765, Protocol 3.6) for any `t` of the `n`
//! parties, over the DKLs19 multiplication of [`crate::mul`].
//!
//! For signers `S` (sorted), party `i` holds `sk_i = λ_i·p(i)` (so `Σ sk_i = sk`).
//!
//! * **Round 1** (`i → j`, p2p): sample the instance-key share `r_i` and the mask `φ_i`;
//!   send `H(sid, i, R_i, salt)` with `R_i = r_i·G`, and — as multiplication receiver
//!   (Bob) of the pair `(j → i)` — the OT-extension message for a random `χ_{ji}`.
//! * **Round 2** (`i → j`, p2p): as multiplication sender (Alice) of `(i → j)` with inputs
//!   `(r_i, sk_i)`: check `j`'s extension message and compute the transfer, getting
//!   `c_u, c_v`. Send the opening of `R_i`, `pk_i = sk_i·G`, `Γ_u = c_u·G`, `Γ_v = c_v·G`,
//!   the multiplication message, and `ψ_{ji} = φ_i − χ_{ji}`.
//! * **Round 3** (broadcast; the only message-dependent round): check `Σ_j pk_j = pk` (and
//!   on failure `pk_j = λ_j·T_j` for each `j`, to name the culprit); for each `j`, check the
//!   opening of `R_j`, the multiplication check (getting `d_u, d_v`), and
//!   `χ_{ji}·R_j = d_u·G + Γ_u`, `χ_{ji}·pk_j = d_v·G + Γ_v` (DKLs23 step 3 — failure
//!   bans `j`). Then `R = Σ R_j`, `r = x(R) mod q`, and broadcast
//!   `u_i = r_i·(φ_i + Σ_j ψ_{ij}) + Σ_j (c_u^{ij} + d_u^{ji})` and
//!   `w_i = H(m)·φ_i + r·v_i` with `v_i` the same expression for `sk_i`.
//! * **Combine**: `s = Σ w_i / Σ u_i = (H(m) + r·sk)/k`, normalised to low-S, with the
//!   recovery id; the signature is verified before it is returned.
//!
//! Rounds 1–2 do not depend on the message, so they can run ahead (presigning); the state
//! between rounds is consumed by value, so it cannot be used twice.

use crate::curve::{
    base_mul, malformed, point_bytes, point_from_bytes, read_point, read_scalar, scalar_reduce,
    tagged_hash, write_scalar, POINT_LEN,
};
use crate::error::{EcdsaError, Result};
use crate::keyshare::{pair_sid, KeyShare};
use crate::mul::{self, MulMsg, MulReceiver};
use crate::ot::ext::OteMsg;
use k256::ecdsa::{signature::hazmat::PrehashVerifier, VerifyingKey};
use k256::elliptic_curve::group::{Group, GroupEncoding};
use k256::elliptic_curve::point::AffineCoordinates;
use k256::elliptic_curve::scalar::IsHigh;
use k256::elliptic_curve::BatchNormalize;
use k256::elliptic_curve::{Field, PrimeField};
use k256::{AffinePoint, ProjectivePoint, Scalar};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::party::check_distinct;
use quorate_core::{ParamError, PartyId};
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRngCore, RngCore, SeedableRng};
use rayon::prelude::*;
use std::collections::BTreeMap;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop};

const TAG_SIGN: &[u8] = b"quorate/ecdsa/dkls23-sign/v1";
const TAG_MUL: &[u8] = b"quorate/ecdsa/dkls23-mul/v1";
const TAG_COMMIT: &[u8] = b"quorate/ecdsa/dkls23-commit/v1";
const MSG1_TAG: u8 = 0xD1;
const MSG2_TAG: u8 = 0xD2;
const MSG3_TAG: u8 = 0xD3;
const VERSION: u8 = 1;

/// A standard ECDSA signature over secp256k1, low-S, with its recovery id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    r: Scalar,
    s: Scalar,
    recovery_id: u8,
}

impl Signature {
    /// `r ‖ s`, 64 bytes big-endian.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.r.to_bytes());
        out[32..].copy_from_slice(&self.s.to_bytes());
        out
    }

    /// The recovery id (bit 0: parity of `R.y`; bit 1: `R.x ≥ q`).
    pub fn recovery_id(&self) -> u8 {
        self.recovery_id
    }

    /// As a `k256` signature.
    pub fn to_k256(&self) -> Result<k256::ecdsa::Signature> {
        k256::ecdsa::Signature::from_scalars(self.r.to_bytes(), self.s.to_bytes())
            .map_err(|_| EcdsaError::InvalidSignature)
    }

    /// DER encoding.
    pub fn to_der(&self) -> Result<Vec<u8>> {
        Ok(self.to_k256()?.to_der().as_bytes().to_vec())
    }
}

/// Checks an ECDSA signature on a 32-byte digest (low-S not required).
pub fn verify_prehash(
    public_key: &ProjectivePoint,
    digest: &[u8; 32],
    sig: &k256::ecdsa::Signature,
) -> bool {
    match VerifyingKey::from_affine(public_key.to_affine()) {
        Ok(vk) => vk.verify_prehash(digest, sig).is_ok(),
        Err(_) => false,
    }
}

/// Round-1 message (`i → j`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignMsg1 {
    commitment: [u8; 32],
    ote: OteMsg,
}

/// Round-2 message (`i → j`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignMsg2 {
    big_r: ProjectivePoint,
    /// The compressed encoding of `R_i` (as committed in round 1 and sent).
    big_r_bytes: [u8; POINT_LEN],
    salt: [u8; 32],
    pk_i: ProjectivePoint,
    gamma_u: ProjectivePoint,
    gamma_v: ProjectivePoint,
    psi: Scalar,
    mul: MulMsg,
}

/// Round-3 broadcast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignMsg3 {
    u: Scalar,
    w: Scalar,
}

/// State after round 1 (consumed by [`sign_round2`]).
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct SignRound1 {
    #[zeroize(skip)]
    me: PartyId,
    #[zeroize(skip)]
    signers: Vec<PartyId>,
    sid: [u8; 32],
    r_i: Scalar,
    phi_i: Scalar,
    #[zeroize(skip)]
    big_r: ProjectivePoint,
    big_r_bytes: [u8; POINT_LEN],
    salt: [u8; 32],
    #[zeroize(skip)]
    receivers: BTreeMap<PartyId, MulReceiver>,
}

/// This party's multiplication outputs per counterparty (`c_u, c_v` as sender, or
/// `d_u, d_v` as receiver): additive shares of `χ·r` and `χ·sk`, wiped on drop.
#[derive(Default)]
struct PairOutputs(BTreeMap<PartyId, [Scalar; 2]>);

impl Zeroize for PairOutputs {
    fn zeroize(&mut self) {
        for v in self.0.values_mut() {
            v.zeroize();
        }
    }
}

impl Drop for PairOutputs {
    fn drop(&mut self) {
        self.zeroize();
    }
}

/// State after round 2 (consumed by [`sign_round3`]).
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct SignRound2 {
    #[zeroize(skip)]
    r1: SignRound1,
    sk_i: Scalar,
    #[zeroize(skip)]
    pk_i: ProjectivePoint,
    #[zeroize(skip)]
    lambdas: BTreeMap<PartyId, Scalar>,
    #[zeroize(skip)]
    commitments: BTreeMap<PartyId, [u8; 32]>,
    c: PairOutputs,
}

/// State after round 3 (consumed by [`combine`]).
#[derive(Debug)]
pub struct SignRound3 {
    me: PartyId,
    signers: Vec<PartyId>,
    public_key: ProjectivePoint,
    digest: [u8; 32],
    big_r: AffinePoint,
    own: SignMsg3,
}

impl core::fmt::Debug for SignRound1 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SignRound1")
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}
impl core::fmt::Debug for SignRound2 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SignRound2")
            .field("me", &self.r1.me)
            .finish_non_exhaustive()
    }
}

fn commit_r(sid: &[u8; 32], i: PartyId, big_r: &[u8; POINT_LEN], salt: &[u8; 32]) -> [u8; 32] {
    tagged_hash(TAG_COMMIT, &[sid, &i.to_bytes(), big_r, salt])
}

fn collect<'a, M>(
    me: PartyId,
    signers: &[PartyId],
    msgs: &'a [(PartyId, M)],
) -> Result<BTreeMap<PartyId, &'a M>> {
    let mut map = BTreeMap::new();
    for (from, m) in msgs {
        if *from == me || !signers.contains(from) || map.insert(*from, m).is_some() {
            return Err(EcdsaError::MissingMessage { from: *from });
        }
    }
    for j in signers {
        if *j != me && !map.contains_key(j) {
            return Err(EcdsaError::MissingMessage { from: *j });
        }
    }
    Ok(map)
}

/// Collects the per-counterparty results of a round. Every counterparty whose check failed
/// (an [`EcdsaError::Aborted`]) is banned, not only the first: each failed check may have
/// leaked about a bit of the correlation with it. The error names every such culprit (with
/// the check of the lowest-indexed one); other errors are returned as they are.
fn settle<T>(
    share: &mut KeyShare,
    results: Vec<(PartyId, Result<T>)>,
) -> Result<Vec<(PartyId, T)>> {
    let mut ok = Vec::with_capacity(results.len());
    let mut aborted: Option<EcdsaError> = None;
    let mut other: Option<EcdsaError> = None;
    let mut culprits = Vec::new();
    for (j, res) in results {
        match res {
            Ok(v) => ok.push((j, v)),
            Err(e @ EcdsaError::Aborted(_)) => {
                share.ban(j);
                culprits.push(j);
                aborted.get_or_insert(e);
            }
            Err(e) => {
                other.get_or_insert(e);
            }
        }
    }
    match (aborted, other) {
        (Some(e), _) if culprits.len() == 1 => Err(e),
        (Some(e), _) => Err(EcdsaError::Aborted(quorate_core::Blame::many(
            culprits,
            e.check().unwrap_or("signing: multiplication checks"),
        ))),
        (None, Some(e)) => Err(e),
        (None, None) => Ok(ok),
    }
}

fn child_rngs(rng: &mut impl CryptoRngCore, n: usize) -> Vec<ChaCha20Rng> {
    (0..n)
        .map(|_| {
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            let r = ChaCha20Rng::from_seed(seed);
            seed.zeroize();
            r
        })
        .collect()
}

/// Round 1. `sign_id` must be agreed by the signers and should be unique per signing
/// session (it separates sessions); secrecy does not depend on its uniqueness, because every
/// OT extension and multiplication mixes in fresh randomness of the honest party (see the
/// crate notes, "Session-id reuse"). `signers` is the signing set (at least `t` distinct
/// parties including this one).
pub fn sign_round1(
    share: &KeyShare,
    sign_id: &[u8],
    signers: &[PartyId],
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound1, Vec<(PartyId, SignMsg1)>)> {
    sign_round1_inner(share, sign_id, signers, false, rng)
}

/// Fault-injection variant of [`sign_round1`]: the OT-extension message uses inconsistent
/// choice bits in every column (detected by the KOS check of each counterparty).
#[doc(hidden)]
pub fn sign_round1_malicious_ote(
    share: &KeyShare,
    sign_id: &[u8],
    signers: &[PartyId],
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound1, Vec<(PartyId, SignMsg1)>)> {
    sign_round1_inner(share, sign_id, signers, true, rng)
}

fn sign_round1_inner(
    share: &KeyShare,
    sign_id: &[u8],
    signers: &[PartyId],
    malicious_ote: bool,
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound1, Vec<(PartyId, SignMsg1)>)> {
    share.params.check_quorum(signers)?;
    check_distinct(signers)?;
    if !signers.contains(&share.id) {
        return Err(ParamError::Invalid("the signing set must include this party").into());
    }
    let mut signers = signers.to_vec();
    signers.sort_unstable();
    let me = share.id;
    let mut set = Writer::new();
    for s in &signers {
        set.party(*s);
    }
    let sid = tagged_hash(
        TAG_SIGN,
        &[
            &share.key_id,
            &share.epoch.to_be_bytes(),
            &share.public_key_bytes(),
            sign_id,
            &set.into_bytes(),
        ],
    );
    let others: Vec<PartyId> = signers.iter().copied().filter(|j| *j != me).collect();
    for j in &others {
        share.pair(*j)?;
    }
    let r_i = Scalar::random(&mut *rng);
    let phi_i = Scalar::random(&mut *rng);
    let big_r = base_mul(&r_i);
    let mut salt = [0u8; 32];
    rng.fill_bytes(&mut salt);
    let big_r_bytes = point_bytes(&big_r);
    let commitment = commit_r(&sid, me, &big_r_bytes, &salt);
    let rngs = child_rngs(rng, others.len());
    let results: Vec<Result<(PartyId, MulReceiver, OteMsg)>> = others
        .par_iter()
        .zip(rngs)
        .map(|(j, mut r)| {
            let (_, recv_seeds) = share.pair(*j)?;
            let psid = pair_sid(TAG_MUL, &sid, *j, me);
            let (st, ote) = if malicious_ote {
                let (st, _) = mul::receiver_round1(recv_seeds, &psid, &mut r);
                let mut gamma = vec![0u8; mul::ELL / 8];
                r.fill_bytes(&mut gamma);
                let (_, ote) = crate::ot::ext::receiver_extend_malicious(
                    recv_seeds,
                    &psid,
                    mul::ELL,
                    &gamma,
                    u128::MAX,
                    &mut r,
                );
                (st, ote)
            } else {
                mul::receiver_round1(recv_seeds, &psid, &mut r)
            };
            Ok((*j, st, ote))
        })
        .collect();
    let mut receivers = BTreeMap::new();
    let mut out = Vec::with_capacity(others.len());
    for res in results {
        let (j, st, ote) = res?;
        receivers.insert(j, st);
        out.push((j, SignMsg1 { commitment, ote }));
    }
    Ok((
        SignRound1 {
            me,
            signers,
            sid,
            r_i,
            phi_i,
            big_r,
            big_r_bytes,
            salt,
            receivers,
        },
        out,
    ))
}

/// Round 2. A failed OT-extension check bans the culprit in `share` and names it.
pub fn sign_round2(
    state: SignRound1,
    share: &mut KeyShare,
    msgs: &[(PartyId, SignMsg1)],
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound2, Vec<(PartyId, SignMsg2)>)> {
    sign_round2_inner(state, share, msgs, None, rng)
}

/// Fault-injection variant of [`sign_round2`]: the multiplication message towards every
/// counterparty uses a different input in `row` (a selective-failure probe).
#[doc(hidden)]
pub fn sign_round2_malicious_mul(
    state: SignRound1,
    share: &mut KeyShare,
    msgs: &[(PartyId, SignMsg1)],
    row: usize,
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound2, Vec<(PartyId, SignMsg2)>)> {
    sign_round2_inner(state, share, msgs, Some(row), rng)
}

fn sign_round2_inner(
    state: SignRound1,
    share: &mut KeyShare,
    msgs: &[(PartyId, SignMsg1)],
    malicious_row: Option<usize>,
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound2, Vec<(PartyId, SignMsg2)>)> {
    if share.id != state.me {
        return Err(
            ParamError::Invalid("key share does not belong to this signing session").into(),
        );
    }
    let map = collect(state.me, &state.signers, msgs)?;
    // All Lagrange coefficients of the signing set at once (one batched inversion); round 3
    // reuses them.
    let xs: Vec<Scalar> = state
        .signers
        .iter()
        .map(|p| Scalar::from(u64::from(p.get())))
        .collect();
    let lambdas: BTreeMap<PartyId, Scalar> = state
        .signers
        .iter()
        .copied()
        .zip(quorate_core::lagrange::coefficients_at_zero(&xs)?)
        .collect();
    let lambda_me = lambdas
        .get(&state.me)
        .ok_or(EcdsaError::MissingMessage { from: state.me })?;
    let sk_i = share.additive_share(lambda_me);
    let pk_i = base_mul(&sk_i);
    let me = state.me;
    let sid = state.sid;
    let inputs = [state.r_i, sk_i];
    let jobs: Vec<(PartyId, &SignMsg1, ChaCha20Rng)> = map
        .iter()
        .map(|(j, m)| (*j, *m))
        .zip(child_rngs(rng, map.len()))
        .map(|((j, m), r)| (j, m, r))
        .collect();
    let shared: &KeyShare = share;
    type SenderResult = (PartyId, Result<([Scalar; 2], MulMsg)>);
    let results: Vec<SenderResult> = jobs
        .into_par_iter()
        .map(|(j, m, mut r)| {
            let res = shared.pair(j).and_then(|(sender_seeds, _)| {
                let psid = pair_sid(TAG_MUL, &sid, me, j);
                match malicious_row {
                    None => mul::sender_round2(sender_seeds, &psid, j, &inputs, &m.ote, &mut r),
                    Some(row) => mul::sender_round2_malicious(
                        sender_seeds,
                        &psid,
                        j,
                        &inputs,
                        &m.ote,
                        row,
                        &mut r,
                    ),
                }
            });
            (j, res)
        })
        .collect();
    let results = settle(share, results)?;
    let mut c = PairOutputs::default();
    let mut out = Vec::with_capacity(results.len());
    for (j, (cj, mul_msg)) in results {
        let chi = state
            .receivers
            .get(&j)
            .map(MulReceiver::chi)
            .ok_or(EcdsaError::MissingMessage { from: j })?;
        out.push((
            j,
            SignMsg2 {
                big_r: state.big_r,
                big_r_bytes: state.big_r_bytes,
                salt: state.salt,
                pk_i,
                gamma_u: base_mul(&cj[0]),
                gamma_v: base_mul(&cj[1]),
                psi: state.phi_i - chi,
                mul: mul_msg,
            },
        ));
        c.0.insert(j, cj);
    }
    let commitments = map.iter().map(|(j, m)| (*j, m.commitment)).collect();
    Ok((
        SignRound2 {
            r1: state,
            sk_i,
            pk_i,
            lambdas,
            commitments,
            c,
        },
        out,
    ))
}

/// Round 3: verifies round 2 (banning and naming a cheating counterparty), then computes
/// this party's broadcast for the 32-byte `digest`.
pub fn sign_round3(
    mut state: SignRound2,
    share: &mut KeyShare,
    digest: &[u8; 32],
    msgs: &[(PartyId, SignMsg2)],
) -> Result<(SignRound3, SignMsg3)> {
    let me = state.r1.me;
    let signers = state.r1.signers.clone();
    let map = collect(me, &signers, msgs)?;
    let mut receivers = core::mem::take(&mut state.r1.receivers);
    let lambdas = &state.lambdas;
    // DKLs23 Protocol 3.6 step 3 checks Σ_j pk_j = pk. Honest signers send pk_j = λ_j·T_j,
    // so the sum holds unless someone deviated; only then is every pk_j compared with
    // λ_j·T_j (a variable-base multiplication each) to name the culprit. Deviations that
    // keep the sum (several colluders shifting their pk_j by opposite amounts) must also
    // shift their multiplication inputs to pass the Γ check below, and then leave the
    // signature unchanged.
    let pk_sum = map.values().fold(state.pk_i, |acc, m| acc + m.pk_i);
    if pk_sum != share.public_key {
        for (j, m) in &map {
            let lambda_j = lambdas
                .get(j)
                .ok_or(EcdsaError::MissingMessage { from: *j })?;
            if share.additive_public(*j, lambda_j)? != m.pk_i {
                return Err(EcdsaError::blame(*j, "signing: pk_j = λ_j·T_j"));
            }
        }
        return Err(
            ParamError::Invalid("own key share is inconsistent with the public key").into(),
        );
    }
    let mut jobs = Vec::with_capacity(map.len());
    for (j, m) in &map {
        let com = state
            .commitments
            .get(j)
            .ok_or(EcdsaError::MissingMessage { from: *j })?;
        if !bool::from(commit_r(&state.r1.sid, *j, &m.big_r_bytes, &m.salt).ct_eq(com)) {
            return Err(EcdsaError::blame(*j, "signing: opening of R_j"));
        }
        let recv = receivers
            .remove(j)
            .ok_or(EcdsaError::MissingMessage { from: *j })?;
        jobs.push((*j, *m, recv));
    }
    let results: Vec<(PartyId, Result<[Scalar; 2]>)> = jobs
        .into_par_iter()
        .map(|(j, m, recv)| {
            let res = mul::receiver_finish(recv, j, &m.mul).and_then(|(chi, d)| {
                // DKLs23 Protocol 3.6, step 3: the sender's inputs were r_j and sk_j.
                let ok_u = m.big_r * chi == base_mul(&d[0]) + m.gamma_u;
                let ok_v = m.pk_i * chi == base_mul(&d[1]) + m.gamma_v;
                if ok_u && ok_v {
                    Ok(d)
                } else {
                    Err(EcdsaError::blame(
                        j,
                        "signing: multiplication output check (Γ)",
                    ))
                }
            });
            (j, res)
        })
        .collect();
    let mut d = PairOutputs::default();
    for (j, v) in settle(share, results)? {
        d.0.insert(j, v);
    }
    let big_r = map.values().fold(state.r1.big_r, |acc, m| acc + m.big_r);
    if bool::from(big_r.is_identity()) {
        return Err(EcdsaError::InvalidSignature);
    }
    let big_r = big_r.to_affine();
    let r_x = scalar_reduce(&big_r.x().into());
    let mut psi_sum = state.r1.phi_i;
    let mut u = Scalar::ZERO;
    let mut v = Scalar::ZERO;
    for (j, m) in &map {
        psi_sum += m.psi;
        let cj = state
            .c
            .0
            .get(j)
            .ok_or(EcdsaError::MissingMessage { from: *j })?;
        let dj = d.0.get(j).ok_or(EcdsaError::MissingMessage { from: *j })?;
        u += cj[0] + dj[0];
        v += cj[1] + dj[1];
    }
    u += state.r1.r_i * psi_sum;
    v += state.sk_i * psi_sum;
    let h = scalar_reduce(digest);
    let w = h * state.r1.phi_i + r_x * v;
    v.zeroize();
    let own = SignMsg3 { u, w };
    Ok((
        SignRound3 {
            me,
            signers,
            public_key: share.public_key,
            digest: *digest,
            big_r,
            own,
        },
        own,
    ))
}

/// Combines the round-3 broadcasts into a verified, low-S signature with recovery id.
pub fn combine(state: SignRound3, msgs: &[(PartyId, SignMsg3)]) -> Result<Signature> {
    let map = collect(state.me, &state.signers, msgs)?;
    let (u, w) = map
        .values()
        .fold((state.own.u, state.own.w), |(u, w), m| (u + m.u, w + m.w));
    // u = Σ u_i is public (the sum of the broadcast shares), so a variable-time inversion
    // is fine.
    let u_inv: Option<Scalar> = k256::elliptic_curve::ops::Invert::invert_vartime(&u).into();
    let u_inv = u_inv.ok_or(EcdsaError::InvalidSignature)?;
    let mut s = w * u_inv;
    let aff = state.big_r;
    let x_bytes = aff.x();
    let r = scalar_reduce(&x_bytes.into());
    let x_reduced = Scalar::from_repr(x_bytes).is_none();
    let mut recovery_id =
        u8::from(bool::from(aff.y_is_odd())) | (u8::from(bool::from(x_reduced)) << 1);
    if bool::from(s.is_high()) {
        s = -s;
        recovery_id ^= 1;
    }
    let sig = Signature { r, s, recovery_id };
    let k = sig.to_k256()?;
    if !verify_prehash(&state.public_key, &state.digest, &k) {
        return Err(EcdsaError::InvalidSignature);
    }
    Ok(sig)
}

impl SignMsg1 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG1_TAG, VERSION).bytes(&self.commitment);
        self.ote.write(&mut w);
        w.into_bytes()
    }

    /// Decodes a message from `from`.
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("signing round 1", bytes);
        r.header(MSG1_TAG, VERSION).map_err(&f)?;
        let commitment = r.array().map_err(&f)?;
        let ote = OteMsg::read(&mut r, 4096).map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(SignMsg1 { commitment, ote })
    }
}

impl SignMsg2 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG2_TAG, VERSION);
        w.bytes(&self.big_r_bytes);
        w.bytes(&self.salt);
        // One field inversion for the three points.
        for p in ProjectivePoint::batch_normalize(&[self.pk_i, self.gamma_u, self.gamma_v]) {
            w.bytes(&p.to_bytes());
        }
        write_scalar(&mut w, &self.psi);
        self.mul.write(&mut w);
        w.into_bytes()
    }

    /// Decodes a message from `from`.
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("signing round 2", bytes);
        r.header(MSG2_TAG, VERSION).map_err(&f)?;
        let big_r_bytes: [u8; POINT_LEN] = r.array().map_err(&f)?;
        let big_r = point_from_bytes("R_i", &big_r_bytes).map_err(&f)?;
        let salt = r.array().map_err(&f)?;
        let pk_i = read_point(&mut r, "pk_i").map_err(&f)?;
        let gamma_u = read_point(&mut r, "Gamma_u").map_err(&f)?;
        let gamma_v = read_point(&mut r, "Gamma_v").map_err(&f)?;
        let psi = read_scalar(&mut r, "psi").map_err(&f)?;
        let mul = MulMsg::read(&mut r).map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(SignMsg2 {
            big_r,
            big_r_bytes,
            salt,
            pk_i,
            gamma_u,
            gamma_v,
            psi,
            mul,
        })
    }

    /// Fault-injection hook: shifts `Γ_u` (an output inconsistent with `R_i`).
    #[doc(hidden)]
    pub fn corrupt_gamma_for_test(&mut self) {
        self.gamma_u += ProjectivePoint::GENERATOR;
    }

    /// Fault-injection hook: shifts `pk_i` (a public key share that is not `λ_i·T_i`).
    #[doc(hidden)]
    pub fn corrupt_pk_for_test(&mut self) {
        self.pk_i += ProjectivePoint::GENERATOR;
    }

    /// Fault-injection hook: drops a row of the multiplication message (wrong length).
    #[doc(hidden)]
    pub fn truncate_mul_for_test(&mut self) {
        self.mul.truncate_for_test();
    }
}

impl SignMsg3 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG3_TAG, VERSION);
        write_scalar(&mut w, &self.u);
        write_scalar(&mut w, &self.w);
        w.into_bytes()
    }

    /// Decodes a message from `from`.
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("signing round 3", bytes);
        r.header(MSG3_TAG, VERSION).map_err(&f)?;
        let u = read_scalar(&mut r, "u_i").map_err(&f)?;
        let w = read_scalar(&mut r, "w_i").map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(SignMsg3 { u, w })
    }
}
