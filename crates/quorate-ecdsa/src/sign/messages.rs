//! The signing messages and their canonical encodings: round 1 ([`SignMsg1`]), round 2
//! ([`SignMsg2`]: the signed broadcast body, the p2p entry and the multiplication message),
//! round 3 ([`SignMsg3`]), and the failure-only rounds ([`BlameMsg`], [`DisputeMsg`]).
//! Every decoder checks lengths, flags, orderings, canonical scalars and valid non-identity
//! points, ends with `finish`, and names the sender on failure.

use crate::curve::{
    malformed, point_from_bytes, read_point, read_scalar, tagged_hash, write_scalar, POINT_LEN,
};
use crate::error::Result;
use crate::mul::MulMsg;
use crate::ot::ext::OteMsg;
use ed25519_dalek::VerifyingKey as IdentityKey;
use k256::elliptic_curve::group::GroupEncoding;
use k256::{AffinePoint, ProjectivePoint, Scalar};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::PartyId;

const MSG1_TAG: u8 = 0xD1;
const MSG2_TAG: u8 = 0xD2;
const MSG3_TAG: u8 = 0xD3;
const BODY_TAG: u8 = 0xD4;
const BLAME_TAG: u8 = 0xD5;
const DISPUTE_TAG: u8 = 0xD6;
const TAG_BODY_SIG: &[u8] = b"quorate/ecdsa/dkls23-body-signature/v1";
const TAG_ECHO: &[u8] = b"quorate/ecdsa/dkls23-echo/v1";
const TAG_ENTRY: &[u8] = b"quorate/ecdsa/dkls23-entry/v1";
/// The version of the signing messages (3: broadcast bodies carrying per-entry hashes,
/// entries p2p, echo digests, blame round publishing the entries).
pub(crate) const VERSION: u8 = 3;
/// Largest accepted encoded body (a signing set of up to about 10,000 parties).
const MAX_BODY_LEN: usize = 1 << 20;

/// Round-1 message (`i → j`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignMsg1 {
    pub(crate) commitment: [u8; 32],
    pub(crate) ote: OteMsg,
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
    pub(crate) fn new(
        to: PartyId,
        gamma_u: &AffinePoint,
        gamma_v: &AffinePoint,
        psi: Scalar,
    ) -> Self {
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
    /// public key, signing session id and signer set ([`super::round1`]).
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
    pub(crate) signed: SignedBody,
    pub(crate) entry: Entry,
    pub(crate) mul: MulMsg,
}

/// Round-3 broadcast: `(u_i, w_i)` and, with three or more signers, the echo digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignMsg3 {
    pub(crate) u: Scalar,
    pub(crate) w: Scalar,
    pub(crate) echo: Option<[u8; 32]>,
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

/// The echo digest: a hash of every signer's body, in signer order (own included).
pub(crate) fn echo_digest<'a>(
    sid: &[u8; 32],
    bodies: impl Iterator<Item = &'a SignedBody>,
) -> [u8; 32] {
    let mut parts: Vec<&[u8]> = vec![sid];
    parts.extend(bodies.map(|b| b.body.bytes.as_slice()));
    tagged_hash(TAG_ECHO, &parts)
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
pub(crate) fn affine_bytes(p: &AffinePoint) -> [u8; POINT_LEN] {
    let mut out = [0u8; POINT_LEN];
    out.copy_from_slice(p.to_bytes().as_ref());
    out
}

impl Body {
    /// Builds and encodes a body.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
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
        w.u32(self.body.bytes.len() as u32)
            .bytes(&self.body.bytes)
            .optional(self.signature.as_ref(), |w, sig| {
                w.bytes(&sig.to_bytes());
            });
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
        let signature = r.optional(|r| Ok(ed25519_dalek::Signature::from_bytes(&r.array()?)))?;
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
}

impl SignMsg3 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG3_TAG, VERSION);
        write_scalar(&mut w, &self.u);
        write_scalar(&mut w, &self.w);
        w.optional(self.echo.as_ref(), |w, e| {
            w.bytes(e);
        });
        w.into_bytes()
    }

    /// Decodes a message from `from`.
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("signing round 3", bytes);
        r.header(MSG3_TAG, VERSION).map_err(&f)?;
        let u = read_scalar(&mut r, "u_i").map_err(&f)?;
        let w = read_scalar(&mut r, "w_i").map_err(&f)?;
        let echo = r.optional(|r| r.array()).map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(SignMsg3 { u, w, echo })
    }
}

/// A signer's blame-round broadcast: the entries `(Γ_u, Γ_v, ψ)` it sent to every
/// co-signer in round 2 (each checked against its hash in the signer's agreed body), and a
/// Chaum–Pedersen proof `(c, z)` that `log_R(u_i·G − Δ^u_i) = log_B(w_i·G − r·Δ^v_i)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlameMsg {
    pub(crate) entries: Vec<Entry>,
    pub(crate) c: Scalar,
    pub(crate) z: Scalar,
}

impl BlameMsg {
    /// Canonical encoding: `count ‖ entries ‖ c ‖ z`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(BLAME_TAG, VERSION);
        Entry::write_list(&self.entries, &mut w);
        write_scalar(&mut w, &self.c);
        write_scalar(&mut w, &self.z);
        w.into_bytes()
    }

    /// Decodes a message from `from` (errors name `from`).
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("signing blame round", bytes);
        r.header(BLAME_TAG, VERSION).map_err(&f)?;
        let entries = Entry::read_list(&mut r).map_err(&f)?;
        let c = read_scalar(&mut r, "blame challenge").map_err(&f)?;
        let z = read_scalar(&mut r, "blame response").map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(BlameMsg { entries, c, z })
    }
}

/// A signer's dispute broadcast: the signed body of every signer as it received them (its
/// own included), in signer order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisputeMsg {
    pub(crate) bodies: Vec<SignedBody>,
}

impl DisputeMsg {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(DISPUTE_TAG, VERSION).u16(self.bodies.len() as u16);
        for b in &self.bodies {
            b.write(&mut w);
        }
        w.into_bytes()
    }

    /// Decodes a message from `from` (errors name `from`).
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("signing dispute round", bytes);
        r.header(DISPUTE_TAG, VERSION).map_err(&f)?;
        let n = r.len_prefix(u16::MAX as usize).map_err(&f)?;
        let mut bodies = Vec::with_capacity(n.min(r.remaining() / 64));
        for _ in 0..n {
            bodies.push(SignedBody::read(&mut r).map_err(&f)?);
        }
        r.finish().map_err(&f)?;
        Ok(DisputeMsg { bodies })
    }
}
