//! Signing round 2: as multiplication sender (Alice) towards every co-signer, check its
//! extension message and multiply `(r_i, sk_i)` by its random `χ`; send the signed
//! broadcast body, the p2p entry `(Γ_u, Γ_v, ψ)` and the multiplication message.

use super::messages::{
    affine_bytes, body_sig_message, Body, Entry, SignMsg1, SignMsg2, SignedBody,
};
use super::round1::SignRound1;
use super::session::{child_rngs, collect, settle, PairOutputs, TAG_MUL};
use crate::curve::base_mul;
use crate::error::{EcdsaError, Result};
use crate::keyshare::{pair_sid, KeyShare};
use crate::mul::{self, MulMsg, MulReceiver};
use ed25519_dalek::Signer;
use k256::elliptic_curve::BatchNormalize;
use k256::{AffinePoint, ProjectivePoint, Scalar};
use quorate_core::{ParamError, PartyId};
use rand_chacha::ChaCha20Rng;
use rand_core::CryptoRngCore;
use rayon::prelude::*;
use std::collections::BTreeMap;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// How a signer deviates in round 2 (fault injection, feature `test-faults`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round2Fault {
    /// Honest.
    None,
    /// The multiplication message towards every counterparty uses a different input in
    /// this row (a selective-failure probe, caught iff the receiver's `γ_row = 1`).
    #[cfg(any(test, feature = "test-faults"))]
    MulRow(usize),
}

/// State after round 2 (consumed by [`super::round3`]).
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct SignRound2 {
    #[zeroize(skip)]
    pub(crate) r1: SignRound1,
    pub(crate) sk_i: Scalar,
    #[zeroize(skip)]
    pub(crate) pk_i: ProjectivePoint,
    #[zeroize(skip)]
    pub(crate) lambdas: BTreeMap<PartyId, Scalar>,
    #[zeroize(skip)]
    pub(crate) commitments: BTreeMap<PartyId, [u8; 32]>,
    /// Our own signed broadcast body.
    #[zeroize(skip)]
    pub(crate) own_body: SignedBody,
    /// The entries we sent (public; published in the blame round).
    #[zeroize(skip)]
    pub(crate) own_entries: Vec<Entry>,
    pub(crate) c: PairOutputs,
}

impl core::fmt::Debug for SignRound2 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SignRound2")
            .field("me", &self.r1.me)
            .finish_non_exhaustive()
    }
}

/// Round 2. A failed OT-extension check bans the culprit in `share` and names it. With three
/// or more signers, a session id (session and signer set) under which `share` already
/// signed a round-2 body is refused ([`EcdsaError::Param`]): a second signed body would be
/// evidence of equivocation that a co-signer could replay in a dispute.
pub fn round2(
    state: SignRound1,
    share: &KeyShare,
    msgs: &[(PartyId, SignMsg1)],
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound2, Vec<(PartyId, SignMsg2)>)> {
    round2_inner(state, share, msgs, Round2Fault::None, rng)
}

/// Fault-injection variant of [`round2`] (feature `test-faults`).
#[cfg(any(test, feature = "test-faults"))]
pub fn round2_faulty(
    state: SignRound1,
    share: &KeyShare,
    msgs: &[(PartyId, SignMsg1)],
    fault: Round2Fault,
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound2, Vec<(PartyId, SignMsg2)>)> {
    round2_inner(state, share, msgs, fault, rng)
}

fn round2_inner(
    state: SignRound1,
    share: &KeyShare,
    msgs: &[(PartyId, SignMsg1)],
    fault: Round2Fault,
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound2, Vec<(PartyId, SignMsg2)>)> {
    if share.id != state.me {
        return Err(
            ParamError::Invalid("key share does not belong to this signing session").into(),
        );
    }
    let map = collect(state.me, &state.signers, msgs)?;
    // With three or more signers this round signs the body with the identity key: at most
    // once per session id, or a co-signer could replay an earlier run's body in a dispute
    // and get this party named for equivocation. The record is shared by every clone and
    // derived child of the share and persisted with it.
    if state.signers.len() > 2 && !share.record_signed_session(state.sid) {
        return Err(ParamError::Invalid(
            "this key share already signed a round-2 body for this session id (reused sign_id \
             with three or more signers): choose a fresh sign_id",
        )
        .into());
    }
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
    let pk_i = share.own_additive_public(lambda_me, &sk_i);
    let me = state.me;
    let sid = state.sid;
    let inputs = Zeroizing::new([state.r_i, sk_i]);
    let alt_r_victim = state.alt_r.as_ref().map(|(v, _, _)| *v);
    let jobs: Vec<(PartyId, &SignMsg1, ChaCha20Rng)> = map
        .iter()
        .map(|(j, m)| (*j, *m))
        .zip(child_rngs(rng, map.len()))
        .map(|((j, m), r)| (j, m, r))
        .collect();
    type SenderResult = (PartyId, Result<([Scalar; 2], MulMsg)>);
    let results: Vec<SenderResult> = jobs
        .into_par_iter()
        .map(|(j, m, mut r)| {
            // The KOS check on j's extension message runs under the pair's lock and a
            // failure bans j there, for every copy of the share.
            let res = share.checked(j, |seeds| {
                let sender_seeds = &seeds.sender;
                let psid = pair_sid(TAG_MUL, &sid, me, j);
                // Fault injection only: the victim of an equivocated R_i gets r_i + 1.
                let alt_inputs;
                let inputs: &[Scalar; 2] = match &alt_r_victim {
                    Some(v) if *v == j => {
                        alt_inputs = Zeroizing::new([inputs[0] + Scalar::ONE, inputs[1]]);
                        &alt_inputs
                    }
                    _ => &inputs,
                };
                match fault {
                    #[cfg(any(test, feature = "test-faults"))]
                    Round2Fault::MulRow(row) => mul::sender_round2_malicious(
                        sender_seeds,
                        &psid,
                        j,
                        inputs,
                        &m.ote,
                        row,
                        &mut r,
                    ),
                    _ => mul::sender_round2(sender_seeds, &psid, j, inputs, &m.ote, &mut r),
                }
            });
            (j, res)
        })
        .collect();
    let results = settle(share, results)?;
    let mut c = PairOutputs::default();
    // The entries Γ_u, Γ_v, ψ towards every co-signer (in signer order): each goes p2p to
    // its co-signer and its hash into the broadcast body, so that everyone can later
    // recompute every signer's blame statement from published entries checked against
    // agreed hashes.
    let mut points = Vec::with_capacity(2 * results.len() + 1);
    let mut psis = Vec::with_capacity(results.len());
    let mut muls = Vec::with_capacity(results.len());
    for (j, (cj, mul_msg)) in results {
        let chi = state
            .receivers
            .get(&j)
            .map(MulReceiver::chi)
            .ok_or(EcdsaError::MissingMessage { from: j })?;
        psis.push((j, state.phi_i - chi));
        points.push(base_mul(&cj[0]));
        points.push(base_mul(&cj[1]));
        muls.push((j, mul_msg));
        c.0.insert(j, cj);
    }
    points.push(pk_i);
    // One field inversion for all the points.
    let affine: Vec<AffinePoint> = ProjectivePoint::batch_normalize(points.as_slice());
    let mut entries = Vec::with_capacity(psis.len());
    for (k, (to, psi)) in psis.into_iter().enumerate() {
        let (gu, gv) = (affine.get(2 * k), affine.get(2 * k + 1));
        let (Some(gu), Some(gv)) = (gu, gv) else {
            return Err(EcdsaError::MissingMessage { from: to });
        };
        entries.push(Entry::new(to, gu, gv, psi));
    }
    let pk_bytes = affine
        .last()
        .map(affine_bytes)
        .ok_or(EcdsaError::MissingMessage { from: me })?;
    // The body carries only h_{me→k} per co-signer; the entry itself goes p2p to k.
    let hashes = entries.iter().map(|e| (e.to, e.hash(&sid, me))).collect();
    let body = Body::new(
        me,
        sid,
        state.big_r,
        state.big_r_bytes,
        state.salt,
        pk_i,
        &pk_bytes,
        hashes,
    );
    // With two signers there is no third party to equivocate to: no signature (see the
    // crate notes, "Broadcast").
    let signature = if state.signers.len() > 2 {
        Some(share.identity.sign(&body_sig_message(&body.bytes)))
    } else {
        None
    };
    // Fault injection only: the victim of an equivocated R_i gets a body opening R'_i.
    let alt_body = state.alt_r.as_ref().map(|(v, p, bytes)| {
        let alt = Body::new(
            me,
            sid,
            *p,
            *bytes,
            state.salt,
            pk_i,
            &pk_bytes,
            body.hashes.clone(),
        );
        let signature = signature
            .is_some()
            .then(|| share.identity.sign(&body_sig_message(&alt.bytes)));
        (
            *v,
            SignedBody {
                body: alt,
                signature,
            },
        )
    });
    let own_body = SignedBody { body, signature };
    let out = muls
        .into_iter()
        .zip(entries.iter().cloned())
        .map(|((j, mul), entry)| {
            let signed = match &alt_body {
                Some((v, b)) if *v == j => b.clone(),
                _ => own_body.clone(),
            };
            (j, SignMsg2 { signed, entry, mul })
        })
        .collect();
    let commitments = map.iter().map(|(j, m)| (*j, m.commitment)).collect();
    Ok((
        SignRound2 {
            r1: state,
            sk_i,
            pk_i,
            lambdas,
            commitments,
            own_body,
            own_entries: entries,
            c,
        },
        out,
    ))
}
