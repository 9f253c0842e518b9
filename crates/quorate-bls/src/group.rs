//! The public record of a registered key: what every hot party, combiner and auditor holds.
//!
//! [`GroupPublic`] = `(crs id, t, n, epoch, vk, PoP(vk), com_T, vs_1..vs_n)`. It is produced by
//! ClientRegister, checked by [`GroupPublic::validate`] before anyone relies on it, and
//! advanced by [`GroupPublic::refreshed`] ([`crate::refresh::check`]), which performs every global check of a refresh
//! (zero opening, degree proof, SCRAPE check of the `Δvs_j`) and returns a new record. The
//! old record is never modified, so a refresh that fails changes nothing.
//!
//! How a refresh is bound to the record and authenticated: [`crate::refresh`].

use crate::ciphersuite::{PublicKey, Signature};
use crate::error::BlsError;
use crate::kzg::Crs;
use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::bls12_381::msm::g2_msm_vartime;
use quorate_core::bls12_381::normalize::g2_batch_vartime;
use quorate_core::bls12_381::wire::ReadBls;
use quorate_core::bls12_381::wire::{g1_to_bytes, G1_BYTES, G2_BYTES};
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
    pub(crate) digest: [u8; 32],
}

pub(crate) const TAG_GROUP_PUBLIC: u8 = 0x01;
/// Format version of the record encoding.
pub(crate) const VERSION: u8 = 1;
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
        record.digest = record_digest(&record.to_bytes());
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
        for v in &g2_batch_vartime(&self.vs) {
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

/// A record that passed every check of a refresh against its predecessor: only
/// [`GroupPublic::refreshed`] makes one. [`crate::refresh::PendingRefresh::accept_record`]
/// takes this type, not a plain [`GroupPublic`], so a hot party cannot be made to commit
/// a refresh with a record nobody checked (review finding F3, docs/decisions.md).
///
/// Besides the record it names what it was made from: the digest of the predecessor
/// record and the id of the refresh applied to it. Both are set by `refreshed` itself, so
/// a hot party that matches them against its own current digest and the refresh it
/// checked knows the record is `apply(its record, that refresh)` without rebuilding it
/// (the record's contents are a deterministic function of the two, and the predecessor
/// digest and the refresh id are SHA-256 over their full encodings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcceptedRecord {
    pub(crate) record: GroupPublic,
    /// [`GroupPublic::digest`] of the record the refresh was applied to.
    pub(crate) predecessor: [u8; 32],
    /// [`crate::RefreshPublic::refresh_id`] of the applied refresh.
    pub(crate) refresh_id: [u8; 32],
}

impl AcceptedRecord {
    /// The checked record.
    pub fn record(&self) -> &GroupPublic {
        &self.record
    }

    /// The checked record, by value (the new current record of its holder).
    pub fn into_record(self) -> GroupPublic {
        self.record
    }

    /// The digest of the record the refresh was applied to.
    pub fn predecessor_digest(&self) -> [u8; 32] {
        self.predecessor
    }

    /// The id of the refresh that led to this record.
    pub fn refresh_id(&self) -> [u8; 32] {
        self.refresh_id
    }
}

impl std::ops::Deref for AcceptedRecord {
    type Target = GroupPublic;
    fn deref(&self) -> &GroupPublic {
        &self.record
    }
}

/// What hot party `i`'s own registration checks read of a record
/// ([`crate::HotParty::check_registration`]): the digest (over the exact encoding), the
/// CRS id, `(t, n)`, the epoch, `vk`, `com_T` and `vs_i`. [`PartyRecord::from_bytes`]
/// decodes only those points: the other `n − 1` verification shares and the PoP are
/// hashed into the digest but not decompressed or subgroup-checked, because the party's
/// own checks do not use them (their consistency is [`GroupPublic::validate`]'s, run by
/// the record's users). That keeps a hot party's registration independent of `n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartyRecord {
    pub(crate) index: PartyId,
    pub(crate) crs_id: [u8; 32],
    pub(crate) params: ThresholdParams,
    pub(crate) epoch: u64,
    pub(crate) vk: PublicKey,
    pub(crate) com_t: G1Projective,
    pub(crate) vs_i: G2Projective,
    pub(crate) digest: [u8; 32],
}

impl PartyRecord {
    /// Party `index`'s view of a decoded record.
    pub fn of(public: &GroupPublic, index: PartyId) -> Result<Self, ParamError> {
        let vs_i = *public.verification_share(index)?;
        Ok(PartyRecord {
            index,
            crs_id: public.crs_id,
            params: public.params,
            epoch: public.epoch,
            vk: public.vk,
            com_t: public.com_t,
            vs_i,
            digest: public.digest,
        })
    }

    /// Party `index`'s view of an encoded record ([`GroupPublic::to_bytes`]): checks the
    /// header, the threshold, the length, and decodes `vk`, `com_T` and `vs_index`
    /// (canonical, in the subgroup, not the identity); the digest is that of
    /// [`GroupPublic::digest`] for the same bytes.
    pub fn from_bytes(bytes: &[u8], index: PartyId) -> Result<Self, BlsError> {
        let mut r = Reader::new("group public record", bytes);
        r.header(TAG_GROUP_PUBLIC, VERSION)?;
        let crs_id = r.array::<32>()?;
        let params = read_params(&mut r)?;
        if !params.contains(index) {
            return Err(ParamError::UnknownParty {
                id: index,
                n: params.n(),
            }
            .into());
        }
        let epoch = r.u64()?;
        let vk = PublicKey::from_point(r.g2("vk")?)?;
        r.take(G1_BYTES)?;
        let com_t = r.g1_or_identity("com_T")?;
        r.take(G2_BYTES * index.position())?;
        let vs_i = r.g2("verification share")?;
        r.take(G2_BYTES * (usize::from(params.n()) - 1 - index.position()))?;
        r.finish()?;
        Ok(PartyRecord {
            index,
            crs_id,
            params,
            epoch,
            vk,
            com_t,
            vs_i,
            digest: record_digest(bytes),
        })
    }

    /// The record's digest ([`GroupPublic::digest`]).
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// The party whose view this is.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// `(t, n)`.
    pub fn params(&self) -> ThresholdParams {
        self.params
    }

    /// The CRS id.
    pub fn crs_id(&self) -> [u8; 32] {
        self.crs_id
    }

    /// The epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The client's public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.vk
    }
}

/// SHA-256 over the record's domain tag and its encoding.
fn record_digest(encoding: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"quorate/bls/group-public/v1");
    h.update(encoding);
    h.finalize().into()
}

pub(crate) fn read_params(r: &mut Reader<'_>) -> Result<ThresholdParams, DecodeError> {
    let t = r.u16()?;
    let n = r.u16()?;
    ThresholdParams::new(t, n).map_err(|_| DecodeError::InvalidValue {
        what: "threshold parameters",
        reason: "need 2 <= t <= n",
    })
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
