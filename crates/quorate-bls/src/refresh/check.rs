//! Step 2: the checks of a refresh. The record maintainer (combiner, auditor) runs all of
//! them once per refresh ([`GroupPublic::refreshed`]); each hot party runs the ones that
//! protect its own share and its own accountability, none of which grows with `n`
//! ([`HotParty::refresh`], which returns a [`PendingRefresh`]), and commits only after
//! the maintainer's record is accepted (notes §Refresh, "Who checks what").

use crate::error::BlsError;
use crate::group::{AcceptedRecord, GroupPublic};
use crate::hot::HotParty;
use crate::kzg::Crs;
use crate::refresh::commit::PendingRefresh;
use crate::refresh::messages::{
    authorization_message, RefreshConfirmation, RefreshPublic, RefreshShare, DST_REFRESH,
};
use quorate_core::bls12_381::glv::PublicScalarVartime;
use quorate_core::bls12_381::msm::{
    g1_generator_mul_ct, g1_msm_u128_vartime, g1_msm_vartime, g2_generator_mul_ct,
    g2_msm_u128_vartime, lincomb_u128_vartime,
};
use quorate_core::bls12_381::normalize::g1_batch_vartime;
use quorate_core::bls12_381::pairing::prepared_product_is_identity;

use blstrs::{G1Projective, G2Affine, G2Prepared, Scalar};
use ff::{Field, PrimeField};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use quorate_core::ParamError;
use rand_core::{CryptoRng, RngCore};

impl GroupPublic {
    /// The combiner's (and any auditor's) refresh step: checks **all** of the public part
    /// of `refresh` and returns the next record as an [`AcceptedRecord`], the only value
    /// [`PendingRefresh::accept_record`] takes; `self` is untouched whatever happens.
    ///
    /// Checks: next epoch, lengths, CRS id, the digest of `self`, the client's
    /// authorisation, `C_δ ≠ 0`, `δ(0) = 0` (zero opening), `deg δ ≤ t−1` (degree proof),
    /// and that every `Δvs_j` is `δ(z_j)·g2` for the committed `δ` (its public opening
    /// `π_δ,j`, verified with the value in G2). All in one random-weight multi-pairing
    /// (see `RefreshCheck` in the notes, §Refresh).
    pub fn refreshed<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        refresh: &RefreshPublic,
        rng: &mut R,
    ) -> Result<AcceptedRecord, BlsError> {
        self.check_refresh(crs, refresh, rng)?;
        Ok(AcceptedRecord {
            record: self.apply_refresh(refresh),
            predecessor: self.digest,
            refresh_id: refresh.refresh_id(),
        })
    }

    /// Every check of [`GroupPublic::refreshed`], without building the next record.
    pub(crate) fn check_refresh<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        refresh: &RefreshPublic,
        rng: &mut R,
    ) -> Result<(), BlsError> {
        self.check_envelope(crs, refresh)?;
        let check = RefreshCheck::new(crs, self, refresh)?;
        if check.batched(rng) {
            return Ok(());
        }
        Err(BlsError::InvalidRefresh {
            check: check.first_failure("some Δvs_j is not δ(z_j)·g2 for the committed δ"),
        })
    }

    /// The checks that need no group operation: next epoch, lengths, CRS id, the digest
    /// of `self`, `C_δ ≠ 0`.
    fn check_envelope(&self, crs: &Crs, refresh: &RefreshPublic) -> Result<(), BlsError> {
        let bad = |check| BlsError::InvalidRefresh { check };
        if refresh.epoch != self.epoch.wrapping_add(1) || refresh.epoch == 0 {
            return Err(bad("refresh is not for the next epoch"));
        }
        if refresh.delta_vs.len() != self.vs.len() || refresh.openings.len() != self.vs.len() {
            return Err(bad(
                "wrong number of verification-share updates or openings",
            ));
        }
        if crs.id() != self.crs_id {
            return Err(bad("CRS is not the one this record was registered under"));
        }
        if refresh.group_digest != self.digest() {
            return Err(bad("refresh is for another key, epoch or record"));
        }
        if bool::from(refresh.delta_commitment.is_identity()) {
            return Err(bad("δ is zero: the refresh would re-randomise nothing"));
        }
        Ok(())
    }

    /// `com_T += C_δ`, `vs_j += Δvs_j`, epoch + 1 (after [`GroupPublic::check_refresh`]).
    pub(crate) fn apply_refresh(&self, refresh: &RefreshPublic) -> GroupPublic {
        GroupPublic::new(
            self.crs_id,
            self.params,
            refresh.epoch,
            self.vk,
            self.pop,
            self.com_t + refresh.delta_commitment,
            self.vs
                .iter()
                .zip(&refresh.delta_vs)
                .map(|(v, d)| v + d)
                .collect(),
        )
    }
}

/// What a refresh that the client did not sign fails with, at every checker.
const AUTH_FAILURE: &str = "refresh is not authorised by the client key";

/// The random-weight batched check of a refresh's public part against a record: with
/// independent 128-bit weights `r_0` (authorisation), `r_1` (zero opening), `r_2`
/// (degree proof) and `s_j` (opening of party `j`),
///
/// ```text
/// e(r_0 σ_auth + r_1 C_δ − r_2 dcom + Σ s_j (C_δ + z_j π_δ,j), g2)
///   · e(r_1 π_0 + Σ s_j π_δ,j, −[τ]_2) · e(r_2 C_δ, [τ^(D−t+1)]_2)
///   · e(−r_0 H(auth), vk) · e(−g1, Σ s_j Δvs_j) = 1
/// ```
///
/// which holds for honest data and, if any single equation fails, with probability
/// `≤ 2^-128`.
pub(crate) struct RefreshCheck<'a> {
    pub(crate) crs: &'a Crs,
    pub(crate) record: &'a GroupPublic,
    pub(crate) refresh: &'a RefreshPublic,
    pub(crate) shift: usize,
}

impl<'a> RefreshCheck<'a> {
    pub(crate) fn new(
        crs: &'a Crs,
        record: &'a GroupPublic,
        refresh: &'a RefreshPublic,
    ) -> Result<Self, BlsError> {
        Ok(RefreshCheck {
            crs,
            record,
            refresh,
            shift: Self::degree_shift(crs, record)?,
        })
    }

    /// `D − (t−1)`: the shift of the degree proof.
    fn degree_shift(crs: &Crs, record: &GroupPublic) -> Result<usize, BlsError> {
        let bound = usize::from(record.params.t()) - 1;
        Ok(crs
            .max_degree()
            .checked_sub(bound)
            .ok_or(ParamError::Invalid("degree bound exceeds the CRS"))?)
    }

    /// The batched equation over every party's opening. The weights are 128-bit
    /// integers; the sums whose weights are plain `r`'s and `s_j`'s go through
    /// [`weighted_sum`] (one shared doubling chain for a few points, `blst`'s bucket
    /// method for many); only `(Σ s_j)·C_δ + Σ s_j·z_j·π_δ,j` has full-width weights.
    pub(crate) fn batched<R: RngCore + CryptoRng>(&self, rng: &mut R) -> bool {
        let rf = self.refresh;
        let c = rf.delta_commitment;
        let mut weight = || {
            let mut b = [0u8; 16];
            rng.fill_bytes(&mut b);
            u128::from_le_bytes(b)
        };
        let (r0, r1, r2) = (weight(), weight(), weight());
        let points = self.crs.domain().party_points(self.record.params.n());
        let s: Vec<u128> = points.iter().map(|_| weight()).collect();
        let mut wide_points = vec![c];
        let mut wide_scalars = vec![s.iter().map(|w| Scalar::from_u128(*w)).sum::<Scalar>()];
        wide_points.extend_from_slice(&rf.openings);
        wide_scalars.extend(
            s.iter()
                .zip(&points)
                .map(|(s, z)| Scalar::from_u128(*s) * z),
        );
        let g2_side =
            lincomb_u128_vartime(&[rf.authorization.0, c, -rf.degree_proof], &[r0, r1, r2])
                + g1_msm_vartime(&wide_points, &wide_scalars);
        let mut tau_points = vec![rf.zero_proof];
        tau_points.extend_from_slice(&rf.openings);
        let mut tau_weights = vec![r1];
        tau_weights.extend_from_slice(&s);
        let tau_side = weighted_sum(&tau_points, &tau_weights, g1_msm_u128_vartime);
        let degree_side = lincomb_u128_vartime(&[c], &[r2]);
        let auth_side = -lincomb_u128_vartime(&[rf.authorization_point()], &[r0]);
        let delta_vs_sum = weighted_sum(&rf.delta_vs, &s, g2_msm_u128_vartime);
        let Some(shift_prepared) = self.crs.g2_power_prepared(self.shift) else {
            return false;
        };
        let affine = g1_batch_vartime(&[g2_side, tau_side, degree_side, auth_side]);
        prepared_product_is_identity(&[
            (affine[0], self.crs.g2_prepared()),
            (affine[1], self.crs.neg_tau_g2_prepared()),
            (affine[2], shift_prepared),
            (
                affine[3],
                &G2Prepared::from(self.record.vk.point().to_affine()),
            ),
            (
                (-G1Projective::generator()).to_affine(),
                &G2Prepared::from(delta_vs_sum.to_affine()),
            ),
        ])
    }

    /// Hot party `i`'s equation: its own opening `δ_i = δ(z_i)` with `π_δ,i` (weight 1)
    /// and the client's authorisation (random weight `r = a + b·z²`, `a, b < 2^64`,
    /// uniform over `2^128` values: [`PublicScalarVartime::random_weight`]), in one 3-term
    /// multi-pairing whose G2 arguments are all prepared once (`g2`, the party's opening
    /// base `z_i·g2 − [τ]_2` kept with the CRS, and `vk` kept with the party):
    ///
    /// ```text
    /// e(C_δ − δ_i g1 + r σ_auth, g2) · e(π_δ,i, z_i g2 − [τ]_2) · e(−r H(auth), vk) = 1
    /// ```
    ///
    /// (the opening equation `C_δ − δ_i g1 = (τ − z_i)·π_δ,i` and `e(σ_auth, g2) =
    /// e(H(auth), vk)`; a failure of either passes with probability `≤ 2^-128`). Nothing
    /// here grows with `n`. `δ_i` is secret: `δ_i·g1` is a constant-time multiplication;
    /// the two weighted terms are public (variable time).
    pub(crate) fn party(
        &self,
        index: quorate_core::PartyId,
        delta: &Scalar,
        vk: &G2Prepared,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> bool {
        let rf = self.refresh;
        let Some(opening_base) = self.crs.opening_base_prepared(index) else {
            return false;
        };
        // r = a + b·z² with a, b < 2^64: uniform over 2^128 values, applied by GLV in
        // 64 doublings per point.
        let (r, _) = PublicScalarVartime::random_weight(rng);
        let g2_side =
            rf.delta_commitment - g1_generator_mul_ct(delta) + r.mul_vartime(&rf.authorization.0);
        let auth_side = -r.mul_vartime(&rf.authorization_point());
        let mut affine = [blstrs::G1Affine::identity(); 3];
        G1Projective::batch_normalize(
            &[g2_side, rf.openings[index.position()], auth_side],
            &mut affine,
        );
        prepared_product_is_identity(&[
            (affine[0], self.crs.g2_prepared()),
            (affine[1], opening_base),
            (affine[2], vk),
        ])
    }

    /// Whether the client's authorisation verifies on its own (for diagnosis after a
    /// failed batch).
    fn authorised(&self) -> bool {
        let rf = self.refresh;
        self.record.vk.verify_with_dst(
            &authorization_message(&rf.group_digest, rf.epoch, &rf.refresh_id()),
            &rf.authorization,
            DST_REFRESH,
        )
    }

    /// After a failed maintainer batch: the first global equation that fails on its own,
    /// else `fallback` (the equation the batch adds: every `Δvs_j`).
    pub(crate) fn first_failure(&self, fallback: &'static str) -> &'static str {
        let rf = self.refresh;
        let c = rf.delta_commitment;
        if !self.authorised() {
            return AUTH_FAILURE;
        }
        if !self
            .crs
            .verify_opening(&c, &Scalar::ZERO, &Scalar::ZERO, &rf.zero_proof)
        {
            return "δ(0) is not zero";
        }
        let degree_ok = quorate_core::bls12_381::pairing::pairing_product_is_identity(&[
            (rf.degree_proof.to_affine(), -G2Affine::generator()),
            (c.to_affine(), self.crs.g2_powers()[self.shift]),
        ]);
        if !degree_ok {
            return "δ has degree above t-1";
        }
        fallback
    }
}

/// `Σ w_i·P_i` over **public** points and public 128-bit weights: below 32 points one
/// interleaved 4-bit-window combination on the calling thread ([`lincomb_u128_vartime`];
/// `blst`'s multi-scalar multiplication would take one full-width multiplication per
/// point there), from 32 points on `blst`'s bucket method over 128-bit scalars (`msm`),
/// which is then the faster one (measured, docs/benchmarks.md §1, issue 19 session 9).
/// Variable time.
fn weighted_sum<G: Group>(points: &[G], weights: &[u128], msm: fn(&[G], &[u128]) -> G) -> G {
    if points.len() < 32 {
        return lincomb_u128_vartime(points, weights);
    }
    msm(points, weights)
}

impl HotParty {
    /// Checks a refresh as hot party `i` and returns the next state as a
    /// [`PendingRefresh`]; `self` is not changed. The checks (notes §Refresh, "Who checks
    /// what"): the share is addressed to this party; next epoch, CRS and this record's
    /// digest; `C_δ ≠ 0`; the client's authorisation; this party's own opening
    /// (`δ_i = δ(z_i)` for the committed `δ`); and `Δvs_i = δ_i·g2`. None of them grows
    /// with `n`. The global checks (`δ(0) = 0`, `deg δ ≤ t−1` and every other party's
    /// `Δvs_j` against `C_δ`) are the record maintainer's ([`GroupPublic::refreshed`]):
    /// the pending refresh commits only after [`PendingRefresh::accept_record`] received
    /// the record the maintainer accepted (or this party's own `refreshed` result). The
    /// next state is `hx_i + δ_i`, `π_i + π_δ,i`, and that record (this party does not
    /// build the next record itself: [`PendingRefresh::accept_record`] matches the
    /// record's predecessor digest and refresh id instead).
    pub fn refresh<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        refresh: &RefreshPublic,
        share: &RefreshShare,
        rng: &mut R,
    ) -> Result<PendingRefresh, BlsError> {
        let bad = |check| BlsError::InvalidRefresh { check };
        if share.index != self.index {
            return Err(bad("refresh share is addressed to another party"));
        }
        self.public.check_envelope(crs, refresh)?;
        let pos = self.index.position();
        let own_update_ok = refresh.delta_vs[pos] == g2_generator_mul_ct(&share.delta);
        let check = RefreshCheck::new(crs, &self.public, refresh)?;
        if !check.party(self.index, &share.delta, &self.vk_prepared, rng) {
            return Err(bad(if !check.authorised() {
                AUTH_FAILURE
            } else if own_update_ok {
                "δ_i is not δ(z_i) for the committed δ (own opening π_δ,i)"
            } else {
                "Δvs_i is not δ_i·g2"
            }));
        }
        if !own_update_ok {
            return Err(bad("Δvs_i is not δ_i·g2"));
        }
        Ok(PendingRefresh {
            index: self.index,
            params: self.public.params,
            vk: self.public.vk,
            hot_share: self.hot_share + share.delta,
            opening: self.opening + refresh.openings[pos],
            own: RefreshConfirmation::of(self.index, refresh),
            confirmed: vec![self.index],
            equivocation: None,
            record: None,
        })
    }
}
