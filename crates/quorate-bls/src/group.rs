//! The public record of a registered key: what every hot party, combiner and auditor holds.
//!
//! [`GroupPublic`] = `(crs id, t, n, epoch, vk, PoP(vk), com_T, vs_1..vs_n)`. It is produced by
//! ClientRegister, checked by [`GroupPublic::validate`] before anyone relies on it, and
//! advanced by [`GroupPublic::refreshed`], which performs every global check of a refresh
//! (zero opening, degree proof, SCRAPE check of the `Δvs_j`) and returns a new record. The
//! old record is never modified, so a refresh that fails changes nothing.
//!
//! A refresh is **bound and authenticated**: [`RefreshPublic`] names the digest of the
//! record it applies to (so it cannot be replayed on another key, another epoch or another
//! CRS) and carries the client's BLS signature over all of its contents under a dedicated
//! DST ([`DST_REFRESH`]), so nobody but the key owner can deal one. (Otherwise an attacker
//! who stole a hot share could deal the next refresh itself, learn every `δ_i`, and keep
//! the share current: proactive security would be void.) Its contents are checked in full
//! all the same, so even the client cannot break the sharing through a refresh.

use crate::ciphersuite::{hash_to_g1, PublicKey, Signature};
use crate::error::BlsError;
use crate::kzg::random_u128_scalar;
use crate::kzg::Crs;
use crate::msm::{g1_msm_vartime, g2_msm_vartime};
use crate::pairing::prepared_product_is_identity;
use crate::wire::{g1_to_bytes, ReadBls, G1_BYTES, G2_BYTES};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Prepared, G2Projective, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::Curve;
use group::Group;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, ParamError, PartyId, ThresholdParams};
use rand_core::{CryptoRng, RngCore};

/// The public state of one registered key at one epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupPublic {
    pub(crate) crs_id: [u8; 32],
    pub(crate) params: ThresholdParams,
    pub(crate) epoch: u64,
    pub(crate) vk: PublicKey,
    pub(crate) pop: Signature,
    pub(crate) com_t: G1Projective,
    pub(crate) vs: Vec<G2Projective>,
    /// [`GroupPublic::digest`], computed once when the record is built.
    digest: [u8; 32],
}

const TAG_GROUP_PUBLIC: u8 = 0x01;
const TAG_REFRESH_PUBLIC: u8 = 0x03;
const VERSION: u8 = 1;

/// DST of the client's authorisation signature on a refresh (never a message signature:
/// the ciphersuite's `DST_SIGN` and `DST_POP` differ).
pub const DST_REFRESH: &[u8] = b"QUORATE-V01-BLS-REFRESH-AUTH_BLS12381G1_XMD:SHA-256_SSWU_RO_";

impl GroupPublic {
    /// The id of the CRS this record was registered under.
    pub fn crs_id(&self) -> [u8; 32] {
        self.crs_id
    }

    /// Builds a record and computes its digest.
    pub(crate) fn new(
        crs_id: [u8; 32],
        params: ThresholdParams,
        epoch: u64,
        vk: PublicKey,
        pop: Signature,
        com_t: G1Projective,
        vs: Vec<G2Projective>,
    ) -> Self {
        let mut record = GroupPublic {
            crs_id,
            params,
            epoch,
            vk,
            pop,
            com_t,
            vs,
            digest: [0; 32],
        };
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"quorate/bls/group-public/v1");
        h.update(record.to_bytes());
        record.digest = h.finalize().into();
        record
    }

    /// SHA-256 over a domain tag and the record's encoding (so over the CRS id, `(t, n)`,
    /// the epoch, `vk`, its PoP, `com_T` and every `vs_j`): what refreshes, partial
    /// signatures and Π_EKS proofs name.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// `(t, n)`.
    pub fn params(&self) -> ThresholdParams {
        self.params
    }

    /// The refresh epoch (0 after registration).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The client's public key `vk`.
    pub fn public_key(&self) -> &PublicKey {
        &self.vk
    }

    /// The client's proof of possession of `vk`.
    pub fn proof_of_possession(&self) -> &Signature {
        &self.pop
    }

    /// `com_T`, the KZG commitment to the hot-share polynomial.
    pub fn hot_share_commitment(&self) -> &G1Projective {
        &self.com_t
    }

    /// `vs_i = x_i·g2`.
    pub fn verification_share(&self, id: PartyId) -> Result<&G2Projective, ParamError> {
        if !self.params.contains(id) {
            return Err(ParamError::UnknownParty {
                id,
                n: self.params.n(),
            });
        }
        Ok(&self.vs[id.position()])
    }

    /// Checks the record: the CRS serves `n` parties, the PoP of `vk` verifies, and the
    /// `vs_j` together with `vk` at 0 lie on one polynomial of degree `≤ t−1` "in the
    /// exponent" (SCRAPE check), so `vk = Σ λ_j·vs_j` for every `t`-subset.
    pub fn validate<R: RngCore + CryptoRng>(&self, crs: &Crs, rng: &mut R) -> Result<(), BlsError> {
        let bad = |check| BlsError::InvalidRegistration { check };
        if crs.id() != self.crs_id {
            return Err(bad("record was registered under another CRS"));
        }
        crs.check_parties(self.params.n())?;
        if self.vs.len() != usize::from(self.params.n()) {
            return Err(bad("wrong number of verification shares"));
        }
        if !self.vk.verify_possession(&self.pop) {
            return Err(bad("client proof of possession"));
        }
        if !scrape_check(crs, self.params, self.vk.point(), &self.vs, rng) {
            return Err(bad(
                "verification shares do not interpolate to vk with degree t-1",
            ));
        }
        Ok(())
    }

    /// The combiner's (and any auditor's) refresh step: checks **all** of the public part
    /// of `refresh` and returns the next record; `self` is untouched whatever happens.
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
    ) -> Result<GroupPublic, BlsError> {
        self.check_refresh(crs, refresh, rng)?;
        Ok(self.apply_refresh(refresh))
    }

    /// Every check of [`GroupPublic::refreshed`], without building the next record.
    pub(crate) fn check_refresh<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        refresh: &RefreshPublic,
        rng: &mut R,
    ) -> Result<(), BlsError> {
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
        let check = RefreshCheck::new(crs, self, refresh)?;
        if check.batched(rng) {
            return Ok(());
        }
        Err(bad(check.first_failure()))
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

    /// Encoding: header, CRS id, t, n, epoch, vk, PoP, com_T, vs_1..vs_n.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_GROUP_PUBLIC, VERSION)
            .bytes(&self.crs_id)
            .u16(self.params.t())
            .u16(self.params.n())
            .u64(self.epoch)
            .bytes(&self.vk.to_bytes())
            .bytes(&self.pop.to_bytes())
            .bytes(&g1_to_bytes(&self.com_t));
        let mut affine = vec![G2Affine::identity(); self.vs.len()];
        G2Projective::batch_normalize(&self.vs, &mut affine);
        for v in &affine {
            w.bytes(&v.to_compressed());
        }
        w.into_bytes()
    }

    /// Checked decoding (lengths, threshold, canonical subgroup points, no identities).
    /// Decoding does not run [`GroupPublic::validate`]; callers must.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("group public record", bytes);
        r.header(TAG_GROUP_PUBLIC, VERSION)?;
        let crs_id = r.array::<32>()?;
        let params = read_params(&mut r)?;
        let epoch = r.u64()?;
        let vk = PublicKey::from_point(r.g2("vk")?)?;
        let pop = Signature(r.g1("proof of possession")?);
        let com_t = r.g1_or_identity("com_T")?;
        let vs = (0..params.n())
            .map(|_| r.g2("verification share"))
            .collect::<Result<Vec<_>, _>>()?;
        r.finish()?;
        Ok(GroupPublic::new(crs_id, params, epoch, vk, pop, com_t, vs))
    }
}

pub(crate) fn read_params(r: &mut Reader<'_>) -> Result<ThresholdParams, DecodeError> {
    let t = r.u16()?;
    let n = r.u16()?;
    ThresholdParams::new(t, n).map_err(|_| DecodeError::InvalidValue {
        what: "threshold parameters",
        reason: "need 2 <= t <= n",
    })
}

/// The public part of a refresh, broadcast to every hot party and the combiner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefreshPublic {
    pub(crate) group_digest: [u8; 32],
    pub(crate) authorization: Signature,
    pub(crate) epoch: u64,
    pub(crate) delta_commitment: G1Projective,
    pub(crate) zero_proof: G1Projective,
    pub(crate) degree_proof: G1Projective,
    pub(crate) delta_vs: Vec<G2Projective>,
    pub(crate) openings: Vec<G1Projective>,
    /// [`RefreshPublic::refresh_id`], computed once (from the received bytes when decoded).
    id: [u8; 32],
}

impl RefreshPublic {
    /// Builds the public part of a refresh (unsigned: the dealer signs it next).
    pub(crate) fn new(
        group_digest: [u8; 32],
        epoch: u64,
        delta_commitment: G1Projective,
        zero_proof: G1Projective,
        degree_proof: G1Projective,
        delta_vs: Vec<G2Projective>,
        openings: Vec<G1Projective>,
    ) -> Self {
        let mut refresh = RefreshPublic {
            group_digest,
            authorization: Signature(G1Projective::generator()),
            epoch,
            delta_commitment,
            zero_proof,
            degree_proof,
            delta_vs,
            openings,
            id: [0; 32],
        };
        refresh.id = refresh_id_of(&refresh.unsigned_bytes());
        refresh
    }

    /// The epoch this refresh moves to.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The digest of the record this refresh applies to.
    pub fn group_digest(&self) -> [u8; 32] {
        self.group_digest
    }

    /// `C_δ = [δ(τ)]_1`.
    pub fn delta_commitment(&self) -> &G1Projective {
        &self.delta_commitment
    }

    /// The degree proof `[δ(τ)·τ^(D−t+1)]_1`.
    pub fn degree_proof(&self) -> &G1Projective {
        &self.degree_proof
    }

    /// The public opening `π_δ,j = [(δ(τ) − δ(z_j))/(τ − z_j)]_1` of party `j` (the paper's
    /// 48-byte per-party refresh proof). It is public because `Δvs_j = δ(z_j)·g2` already
    /// is, and the opening reveals nothing more about `δ(z_j)`.
    pub fn opening(&self, id: PartyId) -> Option<&G1Projective> {
        self.openings.get(id.position())
    }

    /// `SHA-256(tag ‖ every field but the signature)`: what the client signs and what hot
    /// parties echo to each other before committing.
    pub fn refresh_id(&self) -> [u8; 32] {
        self.id
    }

    /// `H(tag ‖ group digest ‖ epoch ‖ refresh id)` under [`DST_REFRESH`].
    pub(crate) fn authorization_point(&self) -> G1Projective {
        hash_to_g1(
            &authorization_message(&self.group_digest, self.epoch, &self.refresh_id()),
            DST_REFRESH,
        )
    }

    fn unsigned_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(&self.group_digest)
            .u64(self.epoch)
            .u16(self.delta_vs.len() as u16)
            .bytes(&g1_to_bytes(&self.delta_commitment))
            .bytes(&g1_to_bytes(&self.zero_proof))
            .bytes(&g1_to_bytes(&self.degree_proof));
        let mut vs = vec![G2Affine::identity(); self.delta_vs.len()];
        G2Projective::batch_normalize(&self.delta_vs, &mut vs);
        for d in &vs {
            w.bytes(&d.to_compressed());
        }
        let mut pis = vec![G1Affine::identity(); self.openings.len()];
        G1Projective::batch_normalize(&self.openings, &mut pis);
        for p in &pis {
            w.bytes(&p.to_compressed());
        }
        w.into_bytes()
    }

    /// Encoding: header, client signature, group digest, epoch, n, C_δ, π_0, dcom,
    /// Δvs_1..Δvs_n, π_δ,1..π_δ,n.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_REFRESH_PUBLIC, VERSION)
            .bytes(&self.authorization.to_bytes())
            .bytes(&self.unsigned_bytes());
        w.into_bytes()
    }

    /// Checked decoding. The identity is allowed for `π_0`, `dcom`, the `Δvs_j` and the
    /// openings (they are well-formed group elements; the checks decide) and for `C_δ`,
    /// which [`GroupPublic::refreshed`] then rejects with a typed error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("refresh public part", bytes);
        r.header(TAG_REFRESH_PUBLIC, VERSION)?;
        let authorization = Signature(r.g1("refresh authorisation")?);
        let group_digest = r.array::<32>()?;
        let epoch = r.u64()?;
        let n = r.u16()?;
        if n == 0 {
            return Err(DecodeError::InvalidValue {
                what: "refresh public part",
                reason: "no parties",
            });
        }
        let body = 3 * G1_BYTES + usize::from(n) * (G2_BYTES + G1_BYTES);
        if r.remaining() != body {
            return Err(DecodeError::WrongLength {
                what: "refresh public part",
                expected: 2 + G1_BYTES + 32 + 8 + 2 + body,
                got: bytes.len(),
            });
        }
        let delta_commitment = r.g1_or_identity("C_δ")?;
        let zero_proof = r.g1_or_identity("zero opening")?;
        let degree_proof = r.g1_or_identity("degree proof")?;
        let delta_vs = (0..n)
            .map(|_| r.g2_or_identity("Δvs"))
            .collect::<Result<Vec<_>, _>>()?;
        let openings = (0..n)
            .map(|_| r.g1_or_identity("refresh opening"))
            .collect::<Result<Vec<_>, _>>()?;
        r.finish()?;
        Ok(RefreshPublic {
            group_digest,
            authorization,
            epoch,
            delta_commitment,
            zero_proof,
            degree_proof,
            delta_vs,
            openings,
            id: refresh_id_of(&bytes[2 + G1_BYTES..]),
        })
    }
}

/// `SHA-256(tag ‖ unsigned encoding)`.
fn refresh_id_of(unsigned: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"quorate/bls/refresh-id/v2");
    h.update(unsigned);
    h.finalize().into()
}

/// The message the client signs to authorise a refresh.
pub(crate) fn authorization_message(
    group_digest: &[u8; 32],
    epoch: u64,
    refresh_id: &[u8; 32],
) -> Vec<u8> {
    let mut m = Vec::with_capacity(22 + 32 + 8 + 32);
    m.extend_from_slice(b"quorate/bls/refresh/v2");
    m.extend_from_slice(group_digest);
    m.extend_from_slice(&epoch.to_be_bytes());
    m.extend_from_slice(refresh_id);
    m
}

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
    crs: &'a Crs,
    record: &'a GroupPublic,
    refresh: &'a RefreshPublic,
    shift: usize,
}

impl<'a> RefreshCheck<'a> {
    pub(crate) fn new(
        crs: &'a Crs,
        record: &'a GroupPublic,
        refresh: &'a RefreshPublic,
    ) -> Result<Self, BlsError> {
        let bound = usize::from(record.params.t()) - 1;
        let shift = crs
            .max_degree()
            .checked_sub(bound)
            .ok_or(ParamError::Invalid("degree bound exceeds the CRS"))?;
        Ok(RefreshCheck {
            crs,
            record,
            refresh,
            shift,
        })
    }

    /// The batched equation over every party's opening.
    pub(crate) fn batched<R: RngCore + CryptoRng>(&self, rng: &mut R) -> bool {
        let rf = self.refresh;
        let c = rf.delta_commitment;
        let (r0, r1, r2) = (
            random_u128_scalar(rng),
            random_u128_scalar(rng),
            random_u128_scalar(rng),
        );
        let points = self.crs.domain().party_points(self.record.params.n());
        let s: Vec<Scalar> = points.iter().map(|_| random_u128_scalar(rng)).collect();
        let s_sum: Scalar = s.iter().sum();
        let mut g2_side = vec![rf.authorization.0, c, rf.degree_proof];
        let mut g2_scalars = vec![r0, r1 + s_sum, -r2];
        g2_side.extend_from_slice(&rf.openings);
        g2_scalars.extend(s.iter().zip(&points).map(|(s, z)| s * z));
        let mut tau_side = vec![rf.zero_proof];
        let mut tau_scalars = vec![r1];
        tau_side.extend_from_slice(&rf.openings);
        tau_scalars.extend_from_slice(&s);
        let delta_vs_sum = g2_msm_vartime(&rf.delta_vs, &s);
        prepared_product_is_identity(&[
            (
                g1_msm_vartime(&g2_side, &g2_scalars).to_affine(),
                self.crs.g2_prepared().clone(),
            ),
            (
                g1_msm_vartime(&tau_side, &tau_scalars).to_affine(),
                self.crs.neg_tau_g2_prepared().clone(),
            ),
            (
                (c * r2).to_affine(),
                G2Prepared::from(self.crs.g2_powers()[self.shift]),
            ),
            (
                (-(rf.authorization_point() * r0)).to_affine(),
                G2Prepared::from(self.record.vk.point().to_affine()),
            ),
            (
                (-G1Projective::generator()).to_affine(),
                G2Prepared::from(delta_vs_sum.to_affine()),
            ),
        ])
    }

    /// After a failed batch: the first equation that fails on its own.
    pub(crate) fn first_failure(&self) -> &'static str {
        let rf = self.refresh;
        let c = rf.delta_commitment;
        if !self.record.vk.verify_with_dst(
            &authorization_message(&rf.group_digest, rf.epoch, &rf.refresh_id()),
            &rf.authorization,
            DST_REFRESH,
        ) {
            return "refresh is not authorised by the client key";
        }
        if !self
            .crs
            .verify_opening(&c, &Scalar::ZERO, &Scalar::ZERO, &rf.zero_proof)
        {
            return "δ(0) is not zero";
        }
        let degree_ok = crate::pairing::pairing_product_is_identity(&[
            (rf.degree_proof.to_affine(), -G2Affine::generator()),
            (c.to_affine(), self.crs.g2_powers()[self.shift]),
        ]);
        if !degree_ok {
            return "δ has degree above t-1";
        }
        "some Δvs_j is not δ(z_j)·g2 for the committed δ"
    }
}

/// Hot party `i`'s echo of the refresh it accepted: its index, the record and epoch the
/// refresh applies to, the refresh id and the client's signature on them. Hot parties
/// send it to each other; a party commits only after `t` parties (itself included) echo
/// the same refresh id ([`crate::hot::PendingRefresh`]). Because the client's signature
/// travels with it, two confirmations naming different refresh ids for the same record
/// and epoch are evidence, checkable by anyone holding `vk`, that the client equivocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefreshConfirmation {
    pub(crate) index: PartyId,
    pub(crate) group_digest: [u8; 32],
    pub(crate) epoch: u64,
    pub(crate) refresh_id: [u8; 32],
    pub(crate) authorization: Signature,
}

const TAG_CONFIRMATION: u8 = 0x09;

impl RefreshConfirmation {
    /// Encoded size: header, index, record digest, epoch, refresh id, signature.
    pub const BYTES: usize = 2 + 2 + 32 + 8 + 32 + G1_BYTES;

    pub(crate) fn of(index: PartyId, refresh: &RefreshPublic) -> Self {
        RefreshConfirmation {
            index,
            group_digest: refresh.group_digest,
            epoch: refresh.epoch,
            refresh_id: refresh.refresh_id(),
            authorization: refresh.authorization,
        }
    }

    /// The sender.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// The confirmed refresh.
    pub fn refresh_id(&self) -> [u8; 32] {
        self.refresh_id
    }

    /// Whether the client key `vk` signed this refresh id for this record and epoch.
    pub fn is_signed_by(&self, vk: &PublicKey) -> bool {
        vk.verify_with_dst(
            &authorization_message(&self.group_digest, self.epoch, &self.refresh_id),
            &self.authorization,
            DST_REFRESH,
        )
    }

    /// Encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_CONFIRMATION, VERSION)
            .party(self.index)
            .bytes(&self.group_digest)
            .u64(self.epoch)
            .bytes(&self.refresh_id)
            .bytes(&self.authorization.to_bytes());
        w.into_bytes()
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("refresh confirmation", bytes);
        r.header(TAG_CONFIRMATION, VERSION)?;
        let index = r.party()?;
        let group_digest = r.array::<32>()?;
        let epoch = r.u64()?;
        let refresh_id = r.array::<32>()?;
        let authorization = Signature(r.g1("refresh authorisation")?);
        r.finish()?;
        Ok(RefreshConfirmation {
            index,
            group_digest,
            epoch,
            refresh_id,
            authorization,
        })
    }
}

/// Evidence that the client signed two different refreshes of one record and epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefreshEquivocation {
    /// One signed refresh.
    pub first: RefreshConfirmation,
    /// Another one, for the same record and epoch.
    pub second: RefreshConfirmation,
}

impl RefreshEquivocation {
    /// Checks the evidence against the client key: same record and epoch, different
    /// refresh ids, both signed by `vk`.
    pub fn verify(&self, vk: &PublicKey) -> bool {
        self.first.group_digest == self.second.group_digest
            && self.first.epoch == self.second.epoch
            && self.first.refresh_id != self.second.refresh_id
            && self.first.is_signed_by(vk)
            && self.second.is_signed_by(vk)
    }
}

/// SCRAPE check (Cascudo–David): the values `V_0 = at_zero` and `V_j = shares[j−1]` at the
/// points `α_0 = 0`, `α_j = z_j` lie on a polynomial of degree `≤ t−1` in the exponent iff
/// `Σ_j v_j·f(α_j)·V_j = 0` for every polynomial `f` of degree `≤ n−t`, where
/// `v_j = Π_{k≠j} (α_j − α_k)^(-1)` (the dual Reed–Solomon code). One random `f` gives
/// soundness error `≤ n/r`. Cost: `O(n²)` field operations and one size-`n+1` G2 MSM.
pub(crate) fn scrape_check<R: RngCore + CryptoRng>(
    crs: &Crs,
    params: ThresholdParams,
    at_zero: &G2Projective,
    shares: &[G2Projective],
    rng: &mut R,
) -> bool {
    let n = usize::from(params.n());
    if shares.len() != n {
        return false;
    }
    let mut alphas = Vec::with_capacity(n + 1);
    alphas.push(Scalar::ZERO);
    alphas.extend(crs.domain().party_points(params.n()));
    // v_j = 1 / Π_{k≠j} (α_j − α_k), inverted in one batch.
    let mut denominators: Vec<Scalar> = (0..=n)
        .map(|j| {
            (0..=n)
                .filter(|&k| k != j)
                .fold(Scalar::ONE, |acc, k| acc * (alphas[j] - alphas[k]))
        })
        .collect();
    if !batch_invert(&mut denominators) {
        return false;
    }
    let f: Vec<Scalar> = (0..=n - usize::from(params.t()))
        .map(|_| Scalar::random(&mut *rng))
        .collect();
    let coefficients: Vec<Scalar> = alphas
        .iter()
        .zip(&denominators)
        .map(|(a, v)| *v * quorate_core::poly::evaluate(&f, a))
        .collect();
    let mut points = Vec::with_capacity(n + 1);
    points.push(*at_zero);
    points.extend_from_slice(shares);
    bool::from(g2_msm_vartime(&points, &coefficients).is_identity())
}

/// Montgomery batch inversion; `false` if any input is zero.
pub(crate) fn batch_invert(values: &mut [Scalar]) -> bool {
    let mut prefix = Vec::with_capacity(values.len());
    let mut acc = Scalar::ONE;
    for v in values.iter() {
        prefix.push(acc);
        acc *= v;
    }
    let Some(mut inv) = Option::<Scalar>::from(acc.invert()) else {
        return false;
    };
    for (v, p) in values.iter_mut().zip(prefix).rev() {
        let next = inv * *v;
        *v = inv * p;
        inv = next;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kzg::ceremony;
    use quorate_core::transcript::SessionId;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn scrape_accepts_degree_t_minus_1_and_rejects_degree_t() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let crs = ceremony::run_in_process(7, 2, &SessionId::new(b"s".to_vec())).unwrap();
        let params = ThresholdParams::new(3, 7).unwrap();
        let g2 = G2Projective::generator();
        for (deg, ok) in [(2usize, true), (3, false)] {
            let f: Vec<Scalar> = (0..=deg).map(|_| Scalar::random(&mut rng)).collect();
            let zero = g2 * f[0];
            let shares: Vec<G2Projective> = crs
                .domain()
                .party_points(7)
                .iter()
                .map(|z| g2 * quorate_core::poly::evaluate(&f, z))
                .collect();
            assert_eq!(scrape_check(&crs, params, &zero, &shares, &mut rng), ok);
            assert!(!scrape_check(&crs, params, &(zero + g2), &shares, &mut rng));
        }
    }

    #[test]
    fn batch_inversion() {
        let mut v = vec![Scalar::from(2u64), Scalar::from(5u64), Scalar::from(9u64)];
        let orig = v.clone();
        assert!(batch_invert(&mut v));
        for (a, b) in v.iter().zip(orig) {
            assert_eq!(*a * b, Scalar::ONE);
        }
        assert!(!batch_invert(&mut [Scalar::ONE, Scalar::ZERO]));
    }
}
