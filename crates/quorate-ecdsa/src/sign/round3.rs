//! Signing round 3: check every co-signer's body and p2p entry, `Σ pk_j = pk`, the openings
//! of `R_j`, the multiplication checks and DKLs23 step 3 (a failure bans the culprit), then
//! broadcast `(u_i, w_i)` for the digest and, with three or more signers, the echo digest.

use super::messages::{echo_digest, validly_signed, Entry, SignMsg2, SignMsg3, SignedBody};
use super::round2::SignRound2;
use super::session::{collect, commit_r, settle, PairOutputs, SessionCtx};
use crate::curve::{base_mul, scalar_reduce};
use crate::error::{EcdsaError, Result};
use crate::fixed_base::FixedBaseTable;
use crate::keyshare::KeyShare;
use crate::mul;
use ed25519_dalek::VerifyingKey as IdentityKey;
use k256::elliptic_curve::group::Group;
use k256::elliptic_curve::ops::LinearCombinationExt;
use k256::elliptic_curve::point::AffineCoordinates;
use k256::{ProjectivePoint, Scalar};
use quorate_core::{ParamError, PartyId};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// The check named when a round-2 entry does not match its hash in the sender's body.
pub const CHECK_ENTRY: &str = "signing: round-2 entry matches its hash in the body";

/// Fault injection (feature `test-faults`): how a malicious signer deviates in round 3. The deviation is
/// applied to the signer's own state as well as to its broadcast, so that it behaves
/// consistently afterwards (it enters the blame or dispute round like everyone else).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round3Fault {
    /// Honest.
    None,
    /// Broadcasts `u_i + 1`.
    #[cfg(any(test, feature = "test-faults"))]
    WrongU,
    /// Broadcasts `w_i + 1`.
    #[cfg(any(test, feature = "test-faults"))]
    WrongW,
    /// Broadcasts a wrong echo digest.
    #[cfg(any(test, feature = "test-faults"))]
    WrongEcho,
}

/// State after round 3 (consumed by [`super::combine`], or by [`SignRound3::blame`] /
/// [`SignRound3::dispute`]). Holds `φ_i` for the blame round: wiped on drop, redacted in
/// `Debug`.
pub struct SignRound3 {
    pub(crate) ctx: SessionCtx,
    /// Every signer's body as received (own included).
    pub(crate) bodies: BTreeMap<PartyId, SignedBody>,
    /// The entries this signer sent (published in the blame round).
    pub(crate) entries: Vec<Entry>,
    pub(crate) phi: Scalar,
    pub(crate) own: SignMsg3,
    /// The public key's table for the final verification ([`crate::KeyShare`]'s memo).
    pub(crate) key_table: Arc<FixedBaseTable>,
}

impl Drop for SignRound3 {
    fn drop(&mut self) {
        self.phi.zeroize();
    }
}

impl core::fmt::Debug for SignRound3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SignRound3")
            .field("me", &self.ctx.me)
            .field("signers", &self.ctx.signers)
            .field("phi", &quorate_core::secret::REDACTED)
            .finish_non_exhaustive()
    }
}

/// Round 3: verifies round 2 (banning and naming a cheating counterparty), then computes
/// this party's broadcast for the 32-byte `digest`.
pub fn round3(
    state: SignRound2,
    share: &KeyShare,
    digest: &[u8; 32],
    msgs: &[(PartyId, SignMsg2)],
) -> Result<(SignRound3, SignMsg3)> {
    round3_inner(state, share, digest, msgs, Round3Fault::None)
}

/// Fault-injection variant of [`round3`] (feature `test-faults`).
#[cfg(any(test, feature = "test-faults"))]
pub fn round3_faulty(
    state: SignRound2,
    share: &KeyShare,
    digest: &[u8; 32],
    msgs: &[(PartyId, SignMsg2)],
    fault: Round3Fault,
) -> Result<(SignRound3, SignMsg3)> {
    round3_inner(state, share, digest, msgs, fault)
}

/// The checks on receipt of signer `j`'s body: sender, session, one entry hash per
/// co-signer in order, and (three or more signers) `j`'s identity signature. Failures name `j`.
fn check_body(
    j: PartyId,
    signed: &SignedBody,
    sid: &[u8; 32],
    signers: &[PartyId],
    vk: Option<&IdentityKey>,
) -> Result<()> {
    let b = &signed.body;
    if b.from != j || b.sid != *sid {
        return Err(EcdsaError::blame(
            j,
            "signing: round-2 body sender and session",
        ));
    }
    let expected = signers.iter().copied().filter(|k| *k != j);
    if b.hashes.len() + 1 != signers.len() || !b.hashes.iter().map(|(k, _)| *k).eq(expected) {
        return Err(EcdsaError::blame(j, "signing: round-2 body entries"));
    }
    let ok = match signed.signature {
        Some(_) => signers.len() > 2 && validly_signed(j, signed, sid, vk),
        None => signers.len() == 2,
    };
    if !ok {
        return Err(EcdsaError::blame(j, "signing: round-2 body signature"));
    }
    Ok(())
}

fn round3_inner(
    mut state: SignRound2,
    share: &KeyShare,
    digest: &[u8; 32],
    msgs: &[(PartyId, SignMsg2)],
    fault: Round3Fault,
) -> Result<(SignRound3, SignMsg3)> {
    let me = state.r1.me;
    let signers = state.r1.signers.clone();
    let sid = state.r1.sid;
    let map = collect(me, &signers, msgs)?;
    // A counterparty banned meanwhile (by another session, through any copy of the share)
    // is refused here too.
    if let Some(j) = map.keys().find(|j| share.is_banned(**j)) {
        return Err(EcdsaError::Banned { counterparty: *j });
    }
    let mut identities = BTreeMap::new();
    for j in &signers {
        let vk = share
            .identity_key(*j)
            .ok_or(EcdsaError::Param(ParamError::UnknownParty {
                id: *j,
                n: share.params.n(),
            }))?;
        identities.insert(*j, vk);
    }
    // The bodies: checked on receipt (signatures verified in parallel).
    let checks: Vec<Result<()>> = map
        .par_iter()
        .map(|(j, m)| check_body(*j, &m.signed, &sid, &signers, identities.get(j)))
        .collect();
    for c in checks {
        c?;
    }
    // Our entry from each co-signer, p2p: Γ_u^{j→me}, Γ_v^{j→me}, ψ_{j→me}, which must
    // match h_{j→me} in j's (signed, echoed) body. A mismatch names j.
    let mut mine = BTreeMap::new();
    for (j, m) in &map {
        let e = &m.entry;
        let expected = m.signed.body.hash_for(me);
        if e.to != me || expected != Some(&e.hash(&sid, *j)) {
            return Err(EcdsaError::blame(*j, CHECK_ENTRY));
        }
        mine.insert(*j, (e.gamma_u, e.gamma_v, e.psi));
    }
    let mut receivers = core::mem::take(&mut state.r1.receivers);
    let lambdas = &state.lambdas;
    // DKLs23 Protocol 3.6 step 3 checks Σ_j pk_j = pk. Honest signers send pk_j = λ_j·T_j,
    // so the sum holds unless someone deviated; only then is every pk_j compared with
    // λ_j·T_j (a variable-base multiplication each) to name the culprit. Deviations that
    // keep the sum (several colluders shifting their pk_j by opposite amounts) must also
    // shift their multiplication inputs to pass the Γ check below, and then leave the
    // signature unchanged.
    let pk_sum = map
        .values()
        .fold(state.pk_i, |acc, m| acc + m.signed.body.pk);
    if pk_sum != share.public_key {
        for (j, m) in &map {
            let lambda_j = lambdas
                .get(j)
                .ok_or(EcdsaError::MissingMessage { from: *j })?;
            if share.additive_public(*j, lambda_j)? != m.signed.body.pk {
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
        let b = &m.signed.body;
        if !bool::from(commit_r(&sid, *j, &b.big_r_bytes, &b.salt).ct_eq(com)) {
            return Err(EcdsaError::blame(*j, "signing: opening of R_j"));
        }
        let recv = receivers
            .remove(j)
            .ok_or(EcdsaError::MissingMessage { from: *j })?;
        let (gu, gv, _) = mine
            .get(j)
            .copied()
            .ok_or(EcdsaError::MissingMessage { from: *j })?;
        jobs.push((*j, *m, recv, gu, gv));
    }
    let rho = zeroize::Zeroizing::new(state.r1.rho);
    let results: Vec<(PartyId, Result<[Scalar; 2]>)> = jobs
        .into_par_iter()
        .map(|(j, m, recv, gamma_u, gamma_v)| {
            let res = mul::receiver_finish(recv, j, &m.mul).and_then(|(mut chi, d)| {
                // DKLs23 Protocol 3.6, step 3: the sender's inputs were r_j and sk_j, i.e.
                // χ·R_j = d_u·G + Γ_u and χ·pk_j = d_v·G + Γ_v. Both equations are checked
                // at once, as
                //     χ·R_j + (ρχ)·pk_j − ρ·Γ_v = (d_u + ρ·d_v)·G + Γ_u,
                // with this signer's secret random ρ (drawn in round 1, never sent): one
                // three-point multiplication and one multiplication of G instead of two
                // and two. If either equation fails, the combination holds for exactly one
                // ρ, so a sender whose message was fixed without knowledge of ρ passes with
                // probability 1/q (see the crate notes, "Performance work").
                let b = &m.signed.body;
                let mut terms = [(b.big_r, chi), (b.pk, *rho * chi), (gamma_v, -*rho)];
                let lhs = ProjectivePoint::lincomb_ext(&terms);
                let mut d_rho = d[0] + *rho * d[1];
                let rhs = base_mul(&d_rho) + gamma_u;
                // ρ and χ are secret: wipe the copies made for the check.
                for (_, s) in terms.iter_mut() {
                    s.zeroize();
                }
                d_rho.zeroize();
                chi.zeroize();
                if lhs == rhs {
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
    let big_r = map
        .values()
        .fold(state.r1.big_r, |acc, m| acc + m.signed.body.big_r);
    if bool::from(big_r.is_identity()) {
        // Every R_j was committed before any was opened, so this happens only with
        // negligible probability.
        return Err(EcdsaError::InvalidSignature);
    }
    let big_r = big_r.to_affine();
    let r_x = scalar_reduce(&big_r.x().into());
    let mut psi_sum = state.r1.phi_i;
    let mut u = Scalar::ZERO;
    let mut v = Scalar::ZERO;
    for j in map.keys() {
        let (_, _, psi) = mine.get(j).ok_or(EcdsaError::MissingMessage { from: *j })?;
        psi_sum += psi;
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
    #[cfg_attr(not(any(test, feature = "test-faults")), allow(unused_mut))]
    let mut w = h * state.r1.phi_i + r_x * v;
    v.zeroize();
    psi_sum.zeroize();
    let mut bodies = BTreeMap::new();
    bodies.insert(me, state.own_body.clone());
    for (j, m) in &map {
        bodies.insert(*j, m.signed.clone());
    }
    #[cfg_attr(not(any(test, feature = "test-faults")), allow(unused_mut))]
    let mut echo = (signers.len() > 2).then(|| echo_digest(&sid, bodies.values()));
    match fault {
        Round3Fault::None => {}
        #[cfg(any(test, feature = "test-faults"))]
        Round3Fault::WrongU => u += Scalar::ONE,
        #[cfg(any(test, feature = "test-faults"))]
        Round3Fault::WrongW => w += Scalar::ONE,
        #[cfg(any(test, feature = "test-faults"))]
        Round3Fault::WrongEcho => {
            if let Some(e) = echo.as_mut() {
                e[0] ^= 1;
            }
        }
    }
    let own = SignMsg3 { u, w, echo };
    let ctx = SessionCtx {
        me,
        signers,
        sid,
        key_id: share.key_id,
        epoch: share.epoch,
        sign_id: state.r1.sign_id.clone(),
        public_key: share.public_key,
        digest: *digest,
        big_r,
        r_x,
        identities,
    };
    Ok((
        SignRound3 {
            ctx,
            bodies,
            entries: state.own_entries.clone(),
            phi: state.r1.phi_i,
            own,
            key_table: share.public_key_table(),
        },
        own,
    ))
}
