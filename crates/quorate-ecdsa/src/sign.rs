//! DKLs23 three-round signing (eprint 2023/765, Protocol 3.6) for any `t` of the `n`
//! parties, over the DKLs19 multiplication of [`crate::mul`].
//!
//! For signers `S` (sorted), party `i` holds `sk_i = λ_i·p(i)` (so `Σ sk_i = sk`).
//!
//! * **Round 1** (`i → j`, p2p): sample the instance-key share `r_i` and the mask `φ_i`;
//!   send `H(sid, i, R_i, salt)` with `R_i = r_i·G`, and — as multiplication receiver
//!   (Bob) of the pair `(j → i)` — the OT-extension message for a random `χ_{ji}`.
//! * **Round 2** (`i → j`): as multiplication sender (Alice) of `(i → j)` with inputs
//!   `(r_i, sk_i)`: check `j`'s extension message and compute the transfer, getting
//!   `c_u, c_v`. The message is a **broadcast body**, identical for every recipient, plus
//!   a p2p part. The body holds the sender, the session id, the opening of `R_i`,
//!   `pk_i = sk_i·G` and, for **every** co-signer `k`, the 32-byte hash
//!   `h_{i→k} = H(tag, sid, i, k, Γ_u^{i→k}, Γ_v^{i→k}, ψ_{i→k})` of the *entry*
//!   `Γ_u^{i→k} = c_u^{i→k}·G`, `Γ_v^{i→k} = c_v^{i→k}·G`, `ψ_{i→k} = φ_i − χ^{k→i}`
//!   (`χ^{k→i}` is `i`'s random receiver input in the pair where `k` is Alice). With three or
//!   more signers the body is signed with the sender's Ed25519 identity key. The p2p part
//!   to `k` is the full entry towards `k` and the multiplication message.
//! * **Round 3** (broadcast; the only message-dependent round): check each body (sender,
//!   session, entry hashes, identity signature — failures name the sender) and that the
//!   p2p entry hashes to `h_{j→i}` in `j`'s body ([`CHECK_ENTRY`], names `j`), `Σ_j pk_j = pk` (and
//!   on failure `pk_j = λ_j·T_j` for each `j`, to name the culprit); for each `j`, check the
//!   opening of `R_j`, the multiplication check (getting `d_u, d_v`), and
//!   `χ^{j→i}·R_j = d_u·G + Γ_u^{j→i}`, `χ^{j→i}·pk_j = d_v·G + Γ_v^{j→i}` (DKLs23 step 3 —
//!   failure bans `j`). Then `R = Σ R_j`, `r = x(R) mod q`, and broadcast
//!   `u_i = r_i·(φ_i + Σ_j ψ_{j→i}) + Σ_j (c_u^{i→j} + d_u^{j→i})`,
//!   `w_i = H(m)·φ_i + r·v_i` with `v_i` the same expression for `sk_i`, and (three or more
//!   signers) the **echo digest**: a hash of every signer's body as received, own included.
//! * **Combine**: if an echo digest differs from one's own, [`Combined::Dispute`] (see
//!   [`crate::blame`]); otherwise `s = Σ w_i / Σ u_i = (H(m) + r·sk)/k`, normalised to
//!   low-S, with the recovery id. The signature is verified; if it does not verify,
//!   [`Combined::Blame`]: every signer proves its `(u_i, w_i)` correct (a Chaum–Pedersen
//!   proof, [`crate::blame`]) and the resolution names every signer whose proof fails.
//!
//! Rounds 1–2 do not depend on the message, so they can run ahead (presigning); the state
//! between rounds is consumed by value, so it cannot be used twice.

use crate::blame::{BlameRound, DisputeRound};
use crate::curve::{
    base_mul, malformed, point_bytes, point_from_bytes, read_point, read_scalar, scalar_reduce,
    tagged_hash, write_scalar, POINT_LEN,
};
use crate::error::{EcdsaError, Result};
use crate::keyshare::{pair_sid, KeyShare};
use crate::mul::{self, MulMsg, MulReceiver};
use crate::ot::ext::OteMsg;
use ed25519_dalek::{Signer, VerifyingKey as IdentityKey};
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
const BODY_TAG: u8 = 0xD4;
const TAG_BODY_SIG: &[u8] = b"quorate/ecdsa/dkls23-body-signature/v1";
const TAG_ECHO: &[u8] = b"quorate/ecdsa/dkls23-echo/v1";
const TAG_ENTRY: &[u8] = b"quorate/ecdsa/dkls23-entry/v1";
/// The check named when a round-2 entry does not match its hash in the sender's body.
pub const CHECK_ENTRY: &str = "signing: round-2 entry matches its hash in the body";
/// The version of the signing messages (3: broadcast bodies carrying per-entry hashes,
/// entries p2p, echo digests, blame round publishing the entries).
pub(crate) const VERSION: u8 = 3;
/// Largest accepted encoded body (a signing set of up to about 10,000 parties).
const MAX_BODY_LEN: usize = 1 << 20;

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

/// A signer's public values towards one co-signer `to` (DKLs23 Protocol 3.6 step 2:
/// `Γ_u, Γ_v, ψ`). The full entry travels only in the p2p part of the round-2 message to
/// `to`; the broadcast body carries its hash ([`Entry::hash`]). In the blame round every
/// signer publishes the entries it sent, checked against the hashes in its agreed body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) to: PartyId,
    /// `Γ_u^{from→to}`, compressed (the encoding that is hashed and sent).
    pub(crate) gamma_u_bytes: [u8; POINT_LEN],
    /// `Γ_v^{from→to}`, compressed.
    pub(crate) gamma_v_bytes: [u8; POINT_LEN],
    /// `Γ_u^{from→to} = c_u^{from→to}·G` (a valid, non-identity point).
    pub(crate) gamma_u: ProjectivePoint,
    /// `Γ_v^{from→to} = c_v^{from→to}·G`.
    pub(crate) gamma_v: ProjectivePoint,
    /// `ψ_{from→to} = φ_from − χ^{to→from}`.
    pub(crate) psi: Scalar,
}

/// Encoded length of an [`Entry`]: recipient, two compressed points, one scalar.
pub(crate) const ENTRY_LEN: usize = 2 + 2 * POINT_LEN + 32;

impl Entry {
    fn new(to: PartyId, gamma_u: &AffinePoint, gamma_v: &AffinePoint, psi: Scalar) -> Self {
        Entry {
            to,
            gamma_u_bytes: affine_bytes(gamma_u),
            gamma_v_bytes: affine_bytes(gamma_v),
            gamma_u: ProjectivePoint::from(*gamma_u),
            gamma_v: ProjectivePoint::from(*gamma_v),
            psi,
        }
    }

    /// `h_{from→to} = H(tag, sid, from, to, Γ_u, Γ_v, ψ)`. `sid` binds the key id, epoch,
    /// public key, signing session id and signer set ([`sign_round1`]).
    pub(crate) fn hash(&self, sid: &[u8; 32], from: PartyId) -> [u8; 32] {
        tagged_hash(
            TAG_ENTRY,
            &[
                sid,
                &from.to_bytes(),
                &self.to.to_bytes(),
                &self.gamma_u_bytes,
                &self.gamma_v_bytes,
                &self.psi.to_bytes(),
            ],
        )
    }

    /// Writes `to ‖ Γ_u ‖ Γ_v ‖ ψ`.
    pub(crate) fn write(&self, w: &mut Writer) {
        w.party(self.to)
            .bytes(&self.gamma_u_bytes)
            .bytes(&self.gamma_v_bytes);
        write_scalar(w, &self.psi);
    }

    /// Reads what [`Entry::write`] wrote; both points are validated (canonical encoding, on
    /// the curve, not the identity) and `ψ` must be canonical.
    pub(crate) fn read(
        r: &mut Reader<'_>,
    ) -> core::result::Result<Self, quorate_core::DecodeError> {
        let to = r.party()?;
        let gamma_u_bytes: [u8; POINT_LEN] = r.array()?;
        let gamma_v_bytes: [u8; POINT_LEN] = r.array()?;
        let psi = read_scalar(r, "psi")?;
        Ok(Entry {
            to,
            gamma_u: point_from_bytes("Gamma_u", &gamma_u_bytes)?,
            gamma_v: point_from_bytes("Gamma_v", &gamma_v_bytes)?,
            gamma_u_bytes,
            gamma_v_bytes,
            psi,
        })
    }

    /// Writes a list of entries with a 16-bit count.
    pub(crate) fn write_list(entries: &[Entry], w: &mut Writer) {
        w.u16(entries.len() as u16);
        for e in entries {
            e.write(w);
        }
    }

    /// Reads what [`Entry::write_list`] wrote: recipients strictly increasing.
    pub(crate) fn read_list(
        r: &mut Reader<'_>,
    ) -> core::result::Result<Vec<Self>, quorate_core::DecodeError> {
        let n = r.len_prefix(u16::MAX as usize)?;
        let mut out: Vec<Entry> = Vec::with_capacity(n.min(r.remaining() / ENTRY_LEN));
        for _ in 0..n {
            let e = Entry::read(r)?;
            if out.last().is_some_and(|l| l.to >= e.to) {
                return Err(quorate_core::DecodeError::InvalidValue {
                    what: "signing entries",
                    reason: "entries must be in increasing recipient order",
                });
            }
            out.push(e);
        }
        Ok(out)
    }

    /// Fault injection only: `Γ_u + G` (an output inconsistent with `R_i`).
    fn shift_gamma_u_for_test(&mut self) {
        self.gamma_u += ProjectivePoint::GENERATOR;
        self.gamma_u_bytes = point_bytes(&self.gamma_u);
    }
}

/// The public part of a signer's round-2 message, identical for every recipient: sender,
/// session id, opening of `R_i`, `pk_i`, and the 32-byte hash `h_{i→k}` of its entry
/// towards every co-signer `k` ([`Entry::hash`]). `bytes` is its canonical encoding (what
/// is signed, echoed and published in a dispute).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Body {
    pub(crate) from: PartyId,
    pub(crate) sid: [u8; 32],
    pub(crate) big_r: ProjectivePoint,
    pub(crate) big_r_bytes: [u8; POINT_LEN],
    pub(crate) salt: [u8; 32],
    pub(crate) pk: ProjectivePoint,
    /// `(k, h_{from→k})` for every co-signer `k`, in increasing order of `k`.
    pub(crate) hashes: Vec<(PartyId, [u8; 32])>,
    pub(crate) bytes: Vec<u8>,
}

/// A body with the sender's identity signature (absent with two signers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SignedBody {
    pub(crate) body: Body,
    pub(crate) signature: Option<ed25519_dalek::Signature>,
}

/// Round-2 message (`i → j`): the broadcast body and its signature, then the p2p part: the
/// full entry `(Γ_u, Γ_v, ψ)` towards `j` (checked against `h_{i→j}` in the body) and the
/// multiplication message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignMsg2 {
    signed: SignedBody,
    entry: Entry,
    mul: MulMsg,
}

/// Round-3 broadcast: `(u_i, w_i)` and, with three or more signers, the echo digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignMsg3 {
    pub(crate) u: Scalar,
    pub(crate) w: Scalar,
    pub(crate) echo: Option<[u8; 32]>,
}

/// State after round 1 (consumed by [`sign_round2`]).
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct SignRound1 {
    #[zeroize(skip)]
    me: PartyId,
    #[zeroize(skip)]
    signers: Vec<PartyId>,
    #[zeroize(skip)]
    sign_id: Vec<u8>,
    sid: [u8; 32],
    r_i: Scalar,
    phi_i: Scalar,
    #[zeroize(skip)]
    big_r: ProjectivePoint,
    big_r_bytes: [u8; POINT_LEN],
    salt: [u8; 32],
    #[zeroize(skip)]
    receivers: BTreeMap<PartyId, MulReceiver>,
    /// Fault injection only ([`sign_round1_equivocating_r`]): the victim and `R'_i`.
    #[zeroize(skip)]
    alt_r: Option<(PartyId, ProjectivePoint, [u8; POINT_LEN])>,
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
    /// Our own signed broadcast body.
    #[zeroize(skip)]
    own_body: SignedBody,
    /// The entries we sent (public; published in the blame round).
    #[zeroize(skip)]
    own_entries: Vec<Entry>,
    c: PairOutputs,
}

/// The public context of one signing session, as needed by the blame and dispute rounds.
#[derive(Clone, Debug)]
pub(crate) struct SessionCtx {
    pub(crate) me: PartyId,
    pub(crate) signers: Vec<PartyId>,
    pub(crate) sid: [u8; 32],
    pub(crate) key_id: [u8; 32],
    pub(crate) epoch: u64,
    pub(crate) sign_id: Vec<u8>,
    pub(crate) public_key: ProjectivePoint,
    pub(crate) digest: [u8; 32],
    /// `R = Σ R_j`.
    pub(crate) big_r: AffinePoint,
    /// `r = x(R) mod q`.
    pub(crate) r_x: Scalar,
    /// Identity keys of the signers (used with three or more signers).
    pub(crate) identities: BTreeMap<PartyId, IdentityKey>,
}

/// State after round 3 (consumed by [`combine`], or by [`SignRound3::blame`] /
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

/// What [`combine`] produced.
#[derive(Debug)]
pub enum Combined {
    /// The verified, low-S signature.
    Signature(Signature),
    /// The signature did not verify: run the blame round ([`BlameRound::respond`], then
    /// [`crate::blame::resolve_blame`]) to name the signers whose shares were wrong.
    Blame(Box<BlameRound>),
    /// Some co-signer's echo digest differs from ours (someone sent different round-2
    /// bodies to different co-signers, or lied about them): run the dispute round
    /// ([`DisputeRound::respond`], then [`crate::blame::resolve_dispute`]).
    Dispute(Box<DisputeRound>),
}

impl Combined {
    /// The signature, if there is one.
    pub fn signature(&self) -> Option<Signature> {
        match self {
            Combined::Signature(s) => Some(*s),
            _ => None,
        }
    }
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
/// crate notes, "Session-id reuse"). Identifiable abort does: with three or more signers
/// [`sign_round2`] signs a body at most once per session id and refuses a reused one.
/// `signers` is the signing set (at least `t` distinct parties including this one).
pub fn sign_round1(
    share: &KeyShare,
    sign_id: &[u8],
    signers: &[PartyId],
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound1, Vec<(PartyId, SignMsg1)>)> {
    sign_round1_inner(share, sign_id, signers, false, None, rng)
}

/// Fault-injection variant of [`sign_round1`]: equivocates `R_i`. Towards `victim` the
/// signer commits to (and in round 2 opens, with a multiplication input to match)
/// `R'_i = R_i + G`, towards everyone else to `R_i`. Every pairwise check passes; the echo
/// digests differ and the dispute names the signer.
#[doc(hidden)]
pub fn sign_round1_equivocating_r(
    share: &KeyShare,
    sign_id: &[u8],
    signers: &[PartyId],
    victim: PartyId,
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound1, Vec<(PartyId, SignMsg1)>)> {
    sign_round1_inner(share, sign_id, signers, false, Some(victim), rng)
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
    sign_round1_inner(share, sign_id, signers, true, None, rng)
}

fn sign_round1_inner(
    share: &KeyShare,
    sign_id: &[u8],
    signers: &[PartyId],
    malicious_ote: bool,
    equivocate_r: Option<PartyId>,
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
    // Fault injection only: R'_i = R_i + G towards the victim.
    let alt_r = equivocate_r.map(|v| {
        let p = big_r + ProjectivePoint::GENERATOR;
        (v, p, point_bytes(&p))
    });
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
        let commitment = match &alt_r {
            Some((v, _, bytes)) if *v == j => commit_r(&sid, me, bytes, &salt),
            _ => commitment,
        };
        out.push((j, SignMsg1 { commitment, ote }));
    }
    Ok((
        SignRound1 {
            me,
            signers,
            sign_id: sign_id.to_vec(),
            sid,
            r_i,
            phi_i,
            big_r,
            big_r_bytes,
            salt,
            receivers,
            alt_r,
        },
        out,
    ))
}

/// Round 2. A failed OT-extension check bans the culprit in `share` and names it. With three
/// or more signers, a session id (`sign_id` and signer set) under which `share` already
/// signed a round-2 body is refused ([`EcdsaError::Param`]): a second signed body would be
/// evidence of equivocation that a co-signer could replay in a dispute.
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
    // With three or more signers this round signs the body with the identity key: at most
    // once per session id, or a co-signer could replay an earlier run's body in a dispute
    // and get this party named for equivocation (see `KeyShare::signed_sessions`).
    if state.signers.len() > 2 && !share.signed_sessions.insert(state.sid) {
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
    let pk_i = base_mul(&sk_i);
    let me = state.me;
    let sid = state.sid;
    let inputs = [state.r_i, sk_i];
    let alt_r_victim = state.alt_r.as_ref().map(|(v, _, _)| *v);
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
                // Fault injection only: the victim of an equivocated R_i gets r_i + 1.
                let alt_inputs;
                let inputs = match &alt_r_victim {
                    Some(v) if *v == j => {
                        alt_inputs = [inputs[0] + Scalar::ONE, inputs[1]];
                        &alt_inputs
                    }
                    _ => &inputs,
                };
                match malicious_row {
                    None => mul::sender_round2(sender_seeds, &psid, j, inputs, &m.ote, &mut r),
                    Some(row) => mul::sender_round2_malicious(
                        sender_seeds,
                        &psid,
                        j,
                        inputs,
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

/// Fault injection for tests: how a malicious signer deviates in round 3. The deviation is
/// applied to the signer's own state as well as to its broadcast, so that it behaves
/// consistently afterwards (it enters the blame or dispute round like everyone else).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round3Fault {
    /// Honest.
    None,
    /// Broadcasts `u_i + 1`.
    WrongU,
    /// Broadcasts `w_i + 1`.
    WrongW,
    /// Broadcasts a wrong echo digest.
    WrongEcho,
}

/// Round 3: verifies round 2 (banning and naming a cheating counterparty), then computes
/// this party's broadcast for the 32-byte `digest`.
pub fn sign_round3(
    state: SignRound2,
    share: &mut KeyShare,
    digest: &[u8; 32],
    msgs: &[(PartyId, SignMsg2)],
) -> Result<(SignRound3, SignMsg3)> {
    sign_round3_inner(state, share, digest, msgs, Round3Fault::None)
}

/// Fault-injection variant of [`sign_round3`].
#[doc(hidden)]
pub fn sign_round3_faulty(
    state: SignRound2,
    share: &mut KeyShare,
    digest: &[u8; 32],
    msgs: &[(PartyId, SignMsg2)],
    fault: Round3Fault,
) -> Result<(SignRound3, SignMsg3)> {
    sign_round3_inner(state, share, digest, msgs, fault)
}

/// The message an identity signature covers: a domain tag and the body's encoding.
pub(crate) fn body_sig_message(body: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(TAG_BODY_SIG.len() + body.len());
    m.extend_from_slice(TAG_BODY_SIG);
    m.extend_from_slice(body);
    m
}

/// Whether `signed` is a body of signer `j` for session `sid` carrying `j`'s valid identity
/// signature (strict Ed25519 verification).
pub(crate) fn validly_signed(
    j: PartyId,
    signed: &SignedBody,
    sid: &[u8; 32],
    vk: Option<&IdentityKey>,
) -> bool {
    let b = &signed.body;
    match (&signed.signature, vk) {
        (Some(sig), Some(vk)) if b.from == j && b.sid == *sid => {
            vk.verify_strict(&body_sig_message(&b.bytes), sig).is_ok()
        }
        _ => false,
    }
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

/// The echo digest: a hash of every signer's body, in signer order (own included).
pub(crate) fn echo_digest<'a>(
    sid: &[u8; 32],
    bodies: impl Iterator<Item = &'a SignedBody>,
) -> [u8; 32] {
    let mut parts: Vec<&[u8]> = vec![sid];
    parts.extend(bodies.map(|b| b.body.bytes.as_slice()));
    tagged_hash(TAG_ECHO, &parts)
}

fn sign_round3_inner(
    mut state: SignRound2,
    share: &mut KeyShare,
    digest: &[u8; 32],
    msgs: &[(PartyId, SignMsg2)],
    fault: Round3Fault,
) -> Result<(SignRound3, SignMsg3)> {
    let me = state.r1.me;
    let signers = state.r1.signers.clone();
    let sid = state.r1.sid;
    let map = collect(me, &signers, msgs)?;
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
    let results: Vec<(PartyId, Result<[Scalar; 2]>)> = jobs
        .into_par_iter()
        .map(|(j, m, recv, gamma_u, gamma_v)| {
            let res = mul::receiver_finish(recv, j, &m.mul).and_then(|(chi, d)| {
                // DKLs23 Protocol 3.6, step 3: the sender's inputs were r_j and sk_j.
                let b = &m.signed.body;
                let ok_u = b.big_r * chi == base_mul(&d[0]) + gamma_u;
                let ok_v = b.pk * chi == base_mul(&d[1]) + gamma_v;
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
    let mut w = h * state.r1.phi_i + r_x * v;
    v.zeroize();
    psi_sum.zeroize();
    let mut bodies = BTreeMap::new();
    bodies.insert(me, state.own_body.clone());
    for (j, m) in &map {
        bodies.insert(*j, m.signed.clone());
    }
    let mut echo = (signers.len() > 2).then(|| echo_digest(&sid, bodies.values()));
    match fault {
        Round3Fault::None => {}
        Round3Fault::WrongU => u += Scalar::ONE,
        Round3Fault::WrongW => w += Scalar::ONE,
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
        },
        own,
    ))
}

/// Checks the presence of the echo digests (present exactly with three or more signers)
/// and returns whether any differs from ours.
fn echoes_differ(state: &SignRound3, map: &BTreeMap<PartyId, &SignMsg3>) -> Result<bool> {
    let mut differ = false;
    for (j, m) in map {
        match (state.own.echo, m.echo) {
            (Some(a), Some(b)) => differ |= a != b,
            (None, None) => {}
            _ => return Err(EcdsaError::blame(*j, "signing: echo digest presence")),
        }
    }
    Ok(differ)
}

/// `s = w/u` as a low-S signature with recovery id for `R`, if it verifies.
fn finish_signature(ctx: &SessionCtx, u: &Scalar, w: &Scalar) -> Option<Signature> {
    // u = Σ u_i is public (the sum of the broadcast shares), so a variable-time inversion
    // is fine.
    let u_inv: Option<Scalar> = k256::elliptic_curve::ops::Invert::invert_vartime(u).into();
    let mut s = *w * u_inv?;
    let aff = ctx.big_r;
    let x_bytes = aff.x();
    let x_reduced = Scalar::from_repr(x_bytes).is_none();
    let mut recovery_id =
        u8::from(bool::from(aff.y_is_odd())) | (u8::from(bool::from(x_reduced)) << 1);
    if bool::from(s.is_high()) {
        s = -s;
        recovery_id ^= 1;
    }
    let sig = Signature {
        r: ctx.r_x,
        s,
        recovery_id,
    };
    let k = sig.to_k256().ok()?;
    verify_prehash(&ctx.public_key, &ctx.digest, &k).then_some(sig)
}

/// Combines the round-3 broadcasts. With agreed bodies and a signature that verifies, the
/// low-S signature with recovery id; otherwise the state for the dispute round (an echo
/// digest differs) or for the blame round (the signature does not verify). Errors: a
/// missing, duplicated or misaddressed message, or an echo digest that is present with two
/// signers or absent with more (both name the sender).
pub fn combine(state: SignRound3, msgs: &[(PartyId, SignMsg3)]) -> Result<Combined> {
    let map = collect(state.ctx.me, &state.ctx.signers, msgs)?;
    if echoes_differ(&state, &map)? {
        return Ok(Combined::Dispute(Box::new(DisputeRound::new(&state, &map))));
    }
    let (u, w) = map
        .values()
        .fold((state.own.u, state.own.w), |(u, w), m| (u + m.u, w + m.w));
    match finish_signature(&state.ctx, &u, &w) {
        Some(sig) => Ok(Combined::Signature(sig)),
        None => Ok(Combined::Blame(Box::new(BlameRound::new(state, &map)))),
    }
}

impl SignRound3 {
    /// Combines without consuming the state: the verified signature, or `None` where
    /// [`combine`] would return [`Combined::Blame`] or [`Combined::Dispute`]. Keeping the
    /// state lets a signer with a valid signature still answer a co-signer's blame or
    /// dispute request (if the round-3 broadcast was not consistent).
    pub fn signature(&self, msgs: &[(PartyId, SignMsg3)]) -> Result<Option<Signature>> {
        let map = collect(self.ctx.me, &self.ctx.signers, msgs)?;
        if echoes_differ(self, &map)? {
            return Ok(None);
        }
        let (u, w) = map
            .values()
            .fold((self.own.u, self.own.w), |(u, w), m| (u + m.u, w + m.w));
        Ok(finish_signature(&self.ctx, &u, &w))
    }

    /// Enters the blame round without combining, e.g. to answer a co-signer whose
    /// [`combine`] returned [`Combined::Blame`] (it may have received other round-3 shares).
    pub fn blame(self, msgs: &[(PartyId, SignMsg3)]) -> Result<BlameRound> {
        let map = collect(self.ctx.me, &self.ctx.signers, msgs)?;
        Ok(BlameRound::new(self, &map))
    }

    /// Enters the dispute round without combining, e.g. to answer a co-signer whose
    /// [`combine`] returned [`Combined::Dispute`].
    pub fn dispute(self, msgs: &[(PartyId, SignMsg3)]) -> Result<DisputeRound> {
        let map = collect(self.ctx.me, &self.ctx.signers, msgs)?;
        echoes_differ(&self, &map)?;
        Ok(DisputeRound::new(&self, &map))
    }
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

/// The compressed encoding of an affine point.
fn affine_bytes(p: &AffinePoint) -> [u8; POINT_LEN] {
    let mut out = [0u8; POINT_LEN];
    out.copy_from_slice(p.to_bytes().as_ref());
    out
}

impl Body {
    /// Builds and encodes a body.
    #[allow(clippy::too_many_arguments)]
    fn new(
        from: PartyId,
        sid: [u8; 32],
        big_r: ProjectivePoint,
        big_r_bytes: [u8; POINT_LEN],
        salt: [u8; 32],
        pk: ProjectivePoint,
        pk_bytes: &[u8; POINT_LEN],
        hashes: Vec<(PartyId, [u8; 32])>,
    ) -> Self {
        let mut w = Writer::new();
        w.header(BODY_TAG, VERSION)
            .party(from)
            .bytes(&sid)
            .bytes(&big_r_bytes)
            .bytes(&salt)
            .bytes(pk_bytes)
            .u16(hashes.len() as u16);
        for (to, h) in &hashes {
            w.party(*to).bytes(h);
        }
        Body {
            from,
            sid,
            big_r,
            big_r_bytes,
            salt,
            pk,
            hashes,
            bytes: w.into_bytes(),
        }
    }

    /// `h_{from→to}`, the hash of the entry towards `to`.
    pub(crate) fn hash_for(&self, to: PartyId) -> Option<&[u8; 32]> {
        self.hashes
            .binary_search_by_key(&to, |(k, _)| *k)
            .ok()
            .and_then(|k| self.hashes.get(k))
            .map(|(_, h)| h)
    }

    /// Decodes a body; `R` and `pk` are validated. Entry hashes must be in strictly
    /// increasing order of the recipient, none addressed to the sender.
    pub(crate) fn decode(bytes: &[u8]) -> core::result::Result<Self, quorate_core::DecodeError> {
        let mut r = Reader::new("signing round-2 body", bytes);
        r.header(BODY_TAG, VERSION)?;
        let from = r.party()?;
        let sid = r.array()?;
        let big_r_bytes: [u8; POINT_LEN] = r.array()?;
        let big_r = point_from_bytes("R_i", &big_r_bytes)?;
        let salt = r.array()?;
        let pk = read_point(&mut r, "pk_i")?;
        let n = r.len_prefix(u16::MAX as usize)?;
        let mut hashes: Vec<(PartyId, [u8; 32])> = Vec::with_capacity(n.min(r.remaining() / 34));
        for _ in 0..n {
            let to = r.party()?;
            if to == from || hashes.last().is_some_and(|(k, _)| *k >= to) {
                return Err(quorate_core::DecodeError::InvalidValue {
                    what: "signing round-2 body",
                    reason: "entries must be in increasing recipient order, none to the sender",
                });
            }
            hashes.push((to, r.array()?));
        }
        r.finish()?;
        Ok(Body {
            from,
            sid,
            big_r,
            big_r_bytes,
            salt,
            pk,
            hashes,
            bytes: bytes.to_vec(),
        })
    }
}

impl SignedBody {
    /// Writes `len ‖ body ‖ flag ‖ [signature]`.
    pub(crate) fn write(&self, w: &mut Writer) {
        w.u32(self.body.bytes.len() as u32).bytes(&self.body.bytes);
        match &self.signature {
            Some(sig) => {
                w.bytes(&[1]).bytes(&sig.to_bytes());
            }
            None => {
                w.bytes(&[0]);
            }
        }
    }

    /// Reads what [`SignedBody::write`] wrote.
    pub(crate) fn read(
        r: &mut Reader<'_>,
    ) -> core::result::Result<Self, quorate_core::DecodeError> {
        let len = r.u32()? as usize;
        if len > MAX_BODY_LEN {
            return Err(quorate_core::DecodeError::InvalidValue {
                what: "signing round-2 body",
                reason: "body longer than the permitted maximum",
            });
        }
        let body = Body::decode(r.take(len)?)?;
        let signature = match r.array::<1>()? {
            [0] => None,
            [1] => Some(ed25519_dalek::Signature::from_bytes(&r.array()?)),
            _ => {
                return Err(quorate_core::DecodeError::InvalidValue {
                    what: "signing round-2 body",
                    reason: "signature flag must be 0 or 1",
                })
            }
        };
        Ok(SignedBody { body, signature })
    }
}

impl SignMsg2 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG2_TAG, VERSION);
        self.signed.write(&mut w);
        self.entry.write(&mut w);
        self.mul.write(&mut w);
        w.into_bytes()
    }

    /// Decodes a message from `from`.
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("signing round 2", bytes);
        r.header(MSG2_TAG, VERSION).map_err(&f)?;
        let signed = SignedBody::read(&mut r).map_err(&f)?;
        let entry = Entry::read(&mut r).map_err(&f)?;
        let mul = MulMsg::read(&mut r).map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(SignMsg2 { signed, entry, mul })
    }

    /// Re-encodes the body after a change to its fields, re-signing it with `key`'s identity
    /// key when it was signed (test hooks only).
    fn rebuild_for_test(&mut self, key: &KeyShare) {
        let b = &self.signed.body;
        let body = Body::new(
            b.from,
            b.sid,
            b.big_r,
            b.big_r_bytes,
            b.salt,
            b.pk,
            &point_bytes(&b.pk),
            b.hashes.clone(),
        );
        if self.signed.signature.is_some() {
            self.signed.signature = Some(key.identity.sign(&body_sig_message(&body.bytes)));
        }
        self.signed.body = body;
    }

    /// Fault-injection hook: shifts `Γ_u` in the entry for the recipient (an output
    /// inconsistent with `R_i`), updating its hash in the body and re-signing the body with
    /// `key`, so only the Γ check can catch it.
    #[doc(hidden)]
    pub fn corrupt_gamma_for_test(&mut self, key: &KeyShare) {
        self.entry.shift_gamma_u_for_test();
        let (from, sid, to) = (self.signed.body.from, self.signed.body.sid, self.entry.to);
        let h = self.entry.hash(&sid, from);
        if let Some(slot) = self.signed.body.hashes.iter_mut().find(|(k, _)| *k == to) {
            slot.1 = h;
        }
        self.rebuild_for_test(key);
    }

    /// Fault-injection hook: changes `ψ` in the p2p entry without updating its hash in the
    /// (signed) body.
    #[doc(hidden)]
    pub fn corrupt_entry_for_test(&mut self) {
        self.entry.psi += Scalar::ONE;
    }

    /// Fault-injection hook: shifts `pk_i` (a public key share that is not `λ_i·T_i`),
    /// re-signing the body with `key`.
    #[doc(hidden)]
    pub fn corrupt_pk_for_test(&mut self, key: &KeyShare) {
        self.signed.body.pk += ProjectivePoint::GENERATOR;
        self.rebuild_for_test(key);
    }

    /// Fault-injection hook: equivocation. Changes the entry hash for the first co-signer
    /// other than `to` (which `to` does not check) and re-signs the body with `key`, so
    /// `to` receives a validly signed body that differs from everyone else's.
    #[doc(hidden)]
    pub fn equivocate_for_test(&mut self, to: PartyId, key: &KeyShare) {
        if let Some(slot) = self.signed.body.hashes.iter_mut().find(|(k, _)| *k != to) {
            slot.1[0] ^= 1;
        }
        self.rebuild_for_test(key);
    }

    /// Fault-injection hook: flips a bit of the identity signature (if any).
    #[doc(hidden)]
    pub fn corrupt_signature_for_test(&mut self) {
        if let Some(sig) = self.signed.signature.as_mut() {
            let mut b = sig.to_bytes();
            b[5] ^= 1;
            *sig = ed25519_dalek::Signature::from_bytes(&b);
        }
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
        match &self.echo {
            Some(e) => {
                w.bytes(&[1]).bytes(e);
            }
            None => {
                w.bytes(&[0]);
            }
        }
        w.into_bytes()
    }

    /// Decodes a message from `from`.
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("signing round 3", bytes);
        r.header(MSG3_TAG, VERSION).map_err(&f)?;
        let u = read_scalar(&mut r, "u_i").map_err(&f)?;
        let w = read_scalar(&mut r, "w_i").map_err(&f)?;
        let echo = match r.array::<1>().map_err(&f)? {
            [0] => None,
            [1] => Some(r.array().map_err(&f)?),
            _ => {
                return Err(f(quorate_core::DecodeError::InvalidValue {
                    what: "signing round 3",
                    reason: "echo flag must be 0 or 1",
                }))
            }
        };
        r.finish().map_err(&f)?;
        Ok(SignMsg3 { u, w, echo })
    }
}
