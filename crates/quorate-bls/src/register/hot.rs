//! HotRegister: a hot party checks what protects its own share and its own accountability
//! (notes §ClientRegister, "Who checks what at registration"); the record's global
//! properties (PoP, SCRAPE) are [`GroupPublic::validate`]'s, run by whoever uses the
//! record as a whole (combiner, auditor, `bls audit`).

use crate::ciphersuite::Signature;
use crate::error::BlsError;
use crate::group::{GroupPublic, PartyRecord};
use crate::hot::HotParty;
use crate::kzg::Crs;
use crate::register::messages::{registration_point, HotRegistration, PadCommitment, DST_REGISTER};
use blstrs::{G1Affine, G1Projective, G2Prepared};
use group::prime::PrimeCurveAffine;
use group::Curve;
use quorate_core::bls12_381::msm::{
    g1_generator_mul_ct, g2_generator_mul_ct, lincomb_u128_vartime,
};
use quorate_core::bls12_381::pairing::prepared_product_is_identity;
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};

/// What a failed registration check says.
const NOT_AUTHORISED: &str = "registration is not authorised by the client key";
const BAD_OPENING: &str = "hot share does not open com_T at this party's point";
const BAD_PAD: &str = "hot share minus pad does not match vs_i";

impl HotParty {
    /// HotRegister: accepts hot party `index`'s payload after its **own** checks
    /// ([`HotParty::check_registration`] on the record's [`PartyRecord`] view). It does
    /// not check the record's global properties (PoP of `vk`, SCRAPE check of all `vs_j`):
    /// they protect the record's users, who run [`GroupPublic::validate`] before they rely
    /// on the record as a whole (notes §ClientRegister).
    pub fn register<R: RngCore + CryptoRng>(
        crs: &Crs,
        index: PartyId,
        public: &GroupPublic,
        authorization: &Signature,
        payload: &HotRegistration,
        pad_commitment: &PadCommitment,
        rng: &mut R,
    ) -> Result<Self, BlsError> {
        let view = PartyRecord::of(public, index)?;
        let vk_prepared = check_own(
            crs,
            &view,
            Some(authorization),
            payload,
            pad_commitment,
            rng,
        )?;
        Ok(Self::assemble(
            index,
            public,
            payload,
            pad_commitment,
            vk_prepared,
        ))
    }

    /// HotRegister's checks on a record view, for a hot party that keeps the record as
    /// bytes and decodes only its own part ([`PartyRecord::from_bytes`]): the payload and
    /// `K_i` addressed to this party; the record under this CRS, for at most the CRS's
    /// party count; then, in one 3-term multi-pairing with a random 128-bit weight `r`,
    /// its own KZG opening and the client's authorisation of the record digest:
    ///
    /// ```text
    /// e(com_T − hx_i g1 + r σ_reg, g2) · e(π_i, z_i g2 − [τ]_2) · e(−r H(reg), vk) = 1
    /// ```
    ///
    /// and `hx_i·g2 = vs_i + K_i` (the hot share minus the pad is the share behind
    /// `vs_i`; a failure means the client's payload or the cold partner's `K_i` is wrong,
    /// and the hot party refuses either way). Nothing here grows with `n`.
    pub fn check_registration<R: RngCore + CryptoRng>(
        crs: &Crs,
        record: &PartyRecord,
        authorization: &Signature,
        payload: &HotRegistration,
        pad_commitment: &PadCommitment,
        rng: &mut R,
    ) -> Result<(), BlsError> {
        check_own(
            crs,
            record,
            Some(authorization),
            payload,
            pad_commitment,
            rng,
        )
        .map(|_| ())
    }

    /// Rebuilds a hot party from its sealed state ([`HotParty::to_payload`]), the current
    /// record and `K_i`: the same own checks as [`HotParty::register`] except the
    /// authorisation, which signed the epoch-0 record (every later record was reached by
    /// refreshes this party checked and committed). So a corrupted state is never used.
    pub fn restore<R: RngCore + CryptoRng>(
        crs: &Crs,
        index: PartyId,
        public: &GroupPublic,
        payload: &HotRegistration,
        pad_commitment: &PadCommitment,
        rng: &mut R,
    ) -> Result<Self, BlsError> {
        let view = PartyRecord::of(public, index)?;
        let vk_prepared = check_own(crs, &view, None, payload, pad_commitment, rng)?;
        Ok(Self::assemble(
            index,
            public,
            payload,
            pad_commitment,
            vk_prepared,
        ))
    }

    fn assemble(
        index: PartyId,
        public: &GroupPublic,
        payload: &HotRegistration,
        pad_commitment: &PadCommitment,
        vk_prepared: G2Prepared,
    ) -> Self {
        HotParty {
            index,
            public: public.clone(),
            hot_share: payload.hot_share,
            opening: payload.opening,
            pad_commitment: G2Prepared::from(pad_commitment.point.to_affine()),
            vk_prepared,
        }
    }
}

/// The own checks (see [`HotParty::check_registration`]); without `authorization` the
/// multi-pairing has the opening's two terms only. Returns `vk` prepared (the party keeps
/// it for the refresh check).
fn check_own<R: RngCore + CryptoRng>(
    crs: &Crs,
    record: &PartyRecord,
    authorization: Option<&Signature>,
    payload: &HotRegistration,
    pad_commitment: &PadCommitment,
    rng: &mut R,
) -> Result<G2Prepared, BlsError> {
    let index = record.index;
    if payload.index != index || pad_commitment.index != index {
        return Err(BlsError::InvalidRegistration {
            check: "payload is addressed to another party",
        });
    }
    if crs.id() != record.crs_id {
        return Err(BlsError::InvalidRegistration {
            check: "record was registered under another CRS",
        });
    }
    crs.check_parties(record.params.n())?;
    let opening_base = crs
        .opening_base_prepared(index)
        .ok_or(ParamError::UnknownParty {
            id: index,
            n: record.params.n(),
        })?;
    let vk_prepared = G2Prepared::from(record.vk.point().to_affine());
    // e(com_T − hx_i g1 + r σ_reg, g2) · e(π_i, z_i g2 − [τ]_2) · e(−r H(reg), vk) = 1;
    // hx_i is secret: constant-time fixed-base multiplication; the weighted terms are
    // public (variable time).
    let mut g2_side = record.com_t - g1_generator_mul_ct(&payload.hot_share);
    let mut auth_side = None;
    if let Some(sig) = authorization {
        let mut b = [0u8; 16];
        rng.fill_bytes(&mut b);
        let r = u128::from_le_bytes(b);
        g2_side += lincomb_u128_vartime(&[sig.0], &[r]);
        auth_side = Some(-lincomb_u128_vartime(
            &[registration_point(&record.digest)],
            &[r],
        ));
    }
    let mut affine = [G1Affine::identity(); 3];
    G1Projective::batch_normalize(
        &[g2_side, payload.opening, auth_side.unwrap_or(g2_side)],
        &mut affine,
    );
    let mut terms = vec![(affine[0], crs.g2_prepared()), (affine[1], opening_base)];
    if auth_side.is_some() {
        terms.push((affine[2], &vk_prepared));
    }
    let ok = prepared_product_is_identity(&terms);
    if !ok {
        let authorised = authorization.is_none_or(|sig| {
            record.vk.verify_with_dst(
                &crate::register::messages::registration_message(&record.digest),
                sig,
                DST_REGISTER,
            )
        });
        return Err(BlsError::InvalidRegistration {
            check: if authorised {
                BAD_OPENING
            } else {
                NOT_AUTHORISED
            },
        });
    }
    if g2_generator_mul_ct(&payload.hot_share) != record.vs_i + pad_commitment.point {
        return Err(BlsError::InvalidRegistration { check: BAD_PAD });
    }
    Ok(vk_prepared)
}
