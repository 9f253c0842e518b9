//! The client `C`: ClientRegister, and the refresh dealer.
//!
//! ClientRegister (notes §ClientRegister):
//! 1. Shamir: `f(0) = sk`, `deg f = t−1`, `x_i = f(z_i)` with `z_i = ω^(i−1)`.
//! 2. Pads `k_i` from `sk·ek_i` ([`crate::cold`]); hot shares `hx_i = x_i + k_i`.
//! 3. `T` = the polynomial of degree `< N` with `T(z_i) = hx_i` for `i ≤ n` and `T = 0` on
//!    the unused domain points (one inverse FFT), `com_T = [T(τ)]_1`.
//! 4. All openings `π_i` at once by Feist–Khovratovich.
//! 5. `vs_i = x_i·g2`, and a proof of possession of `vk`.
//!
//! Refresh ([`Client::refresh`]) is dealt and signed by the client, who plays the paper's
//! trusted functionality `F_s`; every hot party nevertheless checks all of it before
//! applying it (the reference's "untrusted" checks, here mandatory), so a faulty or
//! malicious client cannot break the sharing through a refresh either. The signature and
//! the digest of the current record stop anyone else from dealing or replaying one.

use crate::ciphersuite::{PublicKey, SecretKey, Signature};
use crate::cold::{derive_pad, registration_context, ColdPublicKey, ColdRegistration};
use crate::error::BlsError;
use crate::group::{authorization_message, GroupPublic, RefreshPublic, DST_REFRESH};
use crate::kzg::Crs;
use crate::proofs::batch_verify_cold;
use crate::wire::{g1_to_bytes, scalar_to_bytes, ReadBls, G1_BYTES, SCALAR_BYTES};
use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::poly::SecretPolynomial;
use quorate_core::secret::{wipe_field, wipe_fields, REDACTED};
use quorate_core::{DecodeError, ParamError, PartyId, ThresholdParams};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use std::fmt;

/// The client: owner of the BLS key `sk`.
#[derive(Debug)]
pub struct Client {
    sk: SecretKey,
    vk: PublicKey,
}

/// The output of ClientRegister: the public record and one private payload per hot party.
#[derive(Debug)]
pub struct Registration {
    /// Broadcast to everyone.
    pub public: GroupPublic,
    /// `payloads[i−1]` goes to hot party `i` over a private channel.
    pub payloads: Vec<HotRegistration>,
}

/// The private registration payload of hot party `i`: `(i, hx_i, π_i)`.
pub struct HotRegistration {
    pub(crate) index: PartyId,
    pub(crate) hot_share: Scalar,
    pub(crate) opening: G1Projective,
}

impl fmt::Debug for HotRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HotRegistration")
            .field("index", &self.index)
            .field("hot_share", &REDACTED)
            .finish_non_exhaustive()
    }
}

impl Drop for HotRegistration {
    fn drop(&mut self) {
        wipe_field(&mut self.hot_share);
    }
}

const TAG_HOT_REGISTRATION: u8 = 0x02;
const TAG_REFRESH_SHARE: u8 = 0x04;
const VERSION: u8 = 1;

impl HotRegistration {
    /// The addressee.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// Encoding: header, index, hx_i, π_i. **Contains a secret**; send it encrypted.
    pub fn to_bytes(&self) -> Vec<u8> {
        private_payload(
            TAG_HOT_REGISTRATION,
            self.index,
            &self.hot_share,
            &self.opening,
        )
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let (index, hot_share, opening) =
            read_private_payload("hot registration payload", TAG_HOT_REGISTRATION, bytes)?;
        Ok(HotRegistration {
            index,
            hot_share,
            opening,
        })
    }
}

fn private_payload(tag: u8, index: PartyId, secret: &Scalar, opening: &G1Projective) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag, VERSION)
        .party(index)
        .bytes(&scalar_to_bytes(secret))
        .bytes(&g1_to_bytes(opening));
    w.into_bytes()
}

fn read_private_payload(
    what: &'static str,
    tag: u8,
    bytes: &[u8],
) -> Result<(PartyId, Scalar, G1Projective), DecodeError> {
    if bytes.len() != 2 + 2 + SCALAR_BYTES + G1_BYTES {
        return Err(DecodeError::WrongLength {
            what,
            expected: 2 + 2 + SCALAR_BYTES + G1_BYTES,
            got: bytes.len(),
        });
    }
    let mut r = Reader::new(what, bytes);
    r.header(tag, VERSION)?;
    let index = r.party()?;
    let secret = r.scalar("secret share")?;
    // An opening is the identity only with negligible probability for honest data, but
    // it is a well-formed group element; the KZG check decides.
    let opening = r.g1_or_identity("KZG opening")?;
    r.finish()?;
    Ok((index, secret, opening))
}

/// Cold public keys whose Π_DL proofs the client has checked: the only input
/// [`Client::register`] accepts, so pads are never derived from a key nobody can prove
/// knowledge of (or from a copy of another party's key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedColdKeys(Vec<ColdPublicKey>);

impl VerifiedColdKeys {
    /// Checks registrations `regs[i−1]` of parties `1..=n`: indices in order, distinct
    /// keys, and every Π_DL proof (one batched check; on failure each proof alone, naming
    /// every culprit).
    pub fn verify<R: RngCore + CryptoRng>(
        regs: &[ColdRegistration],
        rng: &mut R,
    ) -> Result<Self, BlsError> {
        for (pos, reg) in regs.iter().enumerate() {
            if reg.index.position() != pos {
                return Err(
                    ParamError::Invalid("cold registrations must be in index order 1..=n").into(),
                );
            }
            if regs[..pos].iter().any(|other| other.ek == reg.ek) {
                return Err(BlsError::blame(
                    reg.index,
                    "cold key repeats another party's key",
                ));
            }
        }
        let items: Vec<_> = regs.iter().map(|r| (r.index, r.ek.0, r.proof)).collect();
        batch_verify_cold(&items, &registration_context(), rng)?;
        Ok(VerifiedColdKeys(regs.iter().map(|r| r.ek).collect()))
    }

    /// The keys, `ek_1..ek_n`.
    pub fn keys(&self) -> &[ColdPublicKey] {
        &self.0
    }
}

impl Client {
    /// A client with a fresh random key.
    pub fn generate<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        Self::from_secret_key(SecretKey::random(rng))
    }

    /// A client with a given key (for example from [`SecretKey::key_gen`]).
    pub fn from_secret_key(sk: SecretKey) -> Self {
        let vk = sk.public_key();
        Client { sk, vk }
    }

    /// `vk`.
    pub fn public_key(&self) -> PublicKey {
        self.vk
    }

    /// The proof of possession of `vk`.
    pub fn proof_of_possession(&self) -> Signature {
        self.sk.prove_possession()
    }

    /// ClientRegister for `params` with checked cold keys `ek_1..ek_n`.
    pub fn register<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        params: ThresholdParams,
        cold_keys: &VerifiedColdKeys,
        rng: &mut R,
    ) -> Result<Registration, BlsError> {
        let cold_keys = cold_keys.keys();
        let n = usize::from(params.n());
        crs.check_parties(params.n())?;
        if cold_keys.len() != n {
            return Err(ParamError::LengthMismatch {
                what: "cold public keys",
                expected: n,
                got: cold_keys.len(),
            }
            .into());
        }
        for (i, a) in cold_keys.iter().enumerate() {
            if cold_keys[..i].contains(a) {
                return Err(ParamError::Invalid(
                    "two parties use the same cold key: the pads would collide",
                )
                .into());
            }
        }
        let domain = crs.domain();
        let points = domain.party_points(params.n());
        let f = SecretPolynomial::random_with_constant(
            *self.sk.scalar(),
            usize::from(params.t()) - 1,
            rng,
        );
        let sk = self.sk.scalar();
        let vk = *self.vk.point();

        // Per party: x_i, the pad k_i (one G2 multiplication), hx_i and vs_i = x_i·g2.
        let mut per_party: Vec<(Scalar, G2Projective)> = points
            .par_iter()
            .zip(cold_keys.par_iter())
            .zip(params.parties().collect::<Vec<_>>().into_par_iter())
            .map(|((z, ek), id)| {
                let mut x = f.evaluate(z);
                let dh = ek.point() * sk;
                let mut pad = derive_pad(&dh, &vk, ek.point(), id);
                let hx = x + pad;
                let vs = G2Projective::generator() * x;
                wipe_field(&mut x);
                wipe_field(&mut pad);
                (hx, vs)
            })
            .collect();
        let mut values = vec![Scalar::ZERO; domain.size()];
        let mut vs = Vec::with_capacity(n);
        for (slot, (hx, v)) in values.iter_mut().zip(&per_party) {
            *slot = *hx;
            vs.push(*v);
        }
        domain.ifft(&mut values)?;
        let com_t = crs.commit_ct(&values)?;
        let openings = crs.open_all_ct(&values)?;
        wipe_fields(&mut values);

        let payloads = per_party
            .iter()
            .zip(params.parties())
            .zip(openings)
            .map(|(((hot_share, _), index), opening)| HotRegistration {
                index,
                hot_share: *hot_share,
                opening,
            })
            .collect();
        for (hx, _) in per_party.iter_mut() {
            wipe_field(hx);
        }
        Ok(Registration {
            public: GroupPublic::new(
                crs.id(),
                params,
                0,
                self.vk,
                self.sk.prove_possession(),
                com_t,
                vs,
            ),
            payloads,
        })
    }
}

/// A dealt refresh: the public part and one private share per hot party.
#[derive(Debug)]
pub struct Refresh {
    /// Broadcast to everyone.
    pub public: RefreshPublic,
    /// `shares[i−1]` goes to hot party `i` over a private channel.
    pub shares: Vec<RefreshShare>,
}

/// Hot party `i`'s private refresh share `(i, δ_i)`. (Its KZG opening `π_δ,i` is public,
/// in [`RefreshPublic`].)
pub struct RefreshShare {
    pub(crate) index: PartyId,
    pub(crate) delta: Scalar,
}

impl fmt::Debug for RefreshShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RefreshShare")
            .field("index", &self.index)
            .field("delta", &REDACTED)
            .finish_non_exhaustive()
    }
}

impl Drop for RefreshShare {
    fn drop(&mut self) {
        wipe_field(&mut self.delta);
    }
}

impl RefreshShare {
    /// Encoded size: header, index, δ_i.
    pub const BYTES: usize = 2 + 2 + SCALAR_BYTES;

    /// The addressee.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// Encoding: header, index, δ_i. **Contains a secret**; send it encrypted.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_REFRESH_SHARE, VERSION)
            .party(self.index)
            .bytes(&scalar_to_bytes(&self.delta));
        w.into_bytes()
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("refresh share", bytes);
        r.header(TAG_REFRESH_SHARE, VERSION)?;
        let index = r.party()?;
        let delta = r.scalar("refresh share δ_i")?;
        r.finish()?;
        Ok(RefreshShare { index, delta })
    }
}

impl Client {
    /// Deals a refresh of `current` (notes §Refresh): a random `δ` with `δ(0) = 0`,
    /// `deg δ ≤ t−1`; `C_δ`, the zero opening `π_0 = [δ(τ)/τ]_1`, the degree proof
    /// `[δ(τ)·τ^(D−t+1)]_1`, `Δvs_j = δ_j·g2`, the openings `π_δ,j` (FK), the digest of
    /// `current` and the client's authorisation signature over all of it.
    pub fn refresh<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        current: &GroupPublic,
        rng: &mut R,
    ) -> Result<Refresh, BlsError> {
        let t = usize::from(current.params.t());
        deal_refresh(
            &self.sk,
            crs,
            current,
            current.epoch.wrapping_add(1),
            SecretPolynomial::random_zero_sharing(t - 1, rng),
        )
    }
}

/// Deals a refresh from a given polynomial without checking it (the checks are the
/// receivers' job). Used by [`Client::refresh`] and by tests that play a cheating dealer.
fn deal_refresh(
    sk: &SecretKey,
    crs: &Crs,
    current: &GroupPublic,
    epoch: u64,
    delta: SecretPolynomial<Scalar>,
) -> Result<Refresh, BlsError> {
    let params = current.params;
    crs.check_parties(params.n())?;
    let coeffs = delta.coefficients();
    let size = crs.domain().size();
    if coeffs.len() > size {
        return Err(ParamError::Invalid("refresh polynomial exceeds the CRS").into());
    }
    let delta_commitment = crs.commit_ct(coeffs)?;
    let zero_proof = crs.commit_ct(coeffs.get(1..).unwrap_or(&[]))?;
    let shift = crs.max_degree() + 1 - usize::from(params.t());
    // A dishonest δ of higher degree cannot be shifted that far; commit what fits so the
    // receivers see (and reject) a wrong degree proof.
    let degree_proof = if coeffs.len() + shift <= size {
        crs.commit_shifted_ct(coeffs, shift)?
    } else {
        crs.commit_ct(coeffs)?
    };
    let mut values = vec![Scalar::ZERO; size];
    values[..coeffs.len()].copy_from_slice(coeffs);
    let openings = crs.open_all_ct(coeffs)?;
    crs.domain().fft(&mut values)?;
    let delta_vs: Vec<G2Projective> = values[..usize::from(params.n())]
        .par_iter()
        .map(|d| G2Projective::generator() * d)
        .collect();
    let shares = params
        .parties()
        .map(|id| RefreshShare {
            index: id,
            delta: values[id.position()],
        })
        .collect();
    wipe_fields(&mut values);
    let mut public = RefreshPublic::new(
        current.digest(),
        epoch,
        delta_commitment,
        zero_proof,
        degree_proof,
        delta_vs,
        openings[..usize::from(params.n())].to_vec(),
    );
    sign_refresh(sk, &mut public);
    Ok(Refresh { public, shares })
}

/// Signs `refresh` (every field but the signature) with the client key.
fn sign_refresh(sk: &SecretKey, refresh: &mut RefreshPublic) {
    let msg = authorization_message(&refresh.group_digest, refresh.epoch, &refresh.refresh_id());
    refresh.authorization = sk.sign_with_dst(&msg, DST_REFRESH);
}

/// Playing a misbehaving dealer, for tests and audits. Hot parties check every refresh,
/// so nothing here can hurt them; it exists to show that they do.
pub mod testing {
    use super::*;

    /// Re-signs a (tampered) refresh with `client`'s key, so that only the content
    /// checks can reject it.
    pub fn resign(client: &Client, refresh: &mut RefreshPublic) {
        sign_refresh(&client.sk, refresh);
    }

    /// Deals a refresh from arbitrary coefficients `δ_0, δ_1, …` (even `δ(0) ≠ 0` or too
    /// high a degree) for an arbitrary `epoch`, with otherwise honest openings and proofs.
    /// `client` signs it, so it passes the authorisation check and only the content
    /// checks can reject it.
    pub fn deal_refresh_from(
        client: &Client,
        crs: &Crs,
        current: &GroupPublic,
        epoch: u64,
        coeffs: Vec<Scalar>,
    ) -> Result<Refresh, BlsError> {
        deal_refresh(
            &client.sk,
            crs,
            current,
            epoch,
            SecretPolynomial::from_coefficients(coeffs),
        )
    }
}
