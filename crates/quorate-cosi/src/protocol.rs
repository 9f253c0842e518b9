//! Collective signing over a tree, sans-I/O.
//!
//! Sans-I/O round functions: moving bytes between nodes is the caller's job (the transport
//! must authenticate who sent each message: blame relies on it). Single-use protocol states
//! are taken **by value** and consumed: a witness's nonces ([`CommittedWitness`], by
//! [`Witness::respond`]) and an aggregator's round states
//! ([`Aggregator::finish_commitments`], [`AggregatorAwaitingChallenge::receive_challenge`],
//! [`AggregatorCollecting::finish`]). Long-lived objects are borrowed mutably: a [`Witness`]
//! (its key, validator and session guards) and an [`Aggregator`] or
//! [`AggregatorCollecting`] while it collects messages (`add_commitment`, `add_response`).
//!
//! ## Rounds (default [`Mode::TwoNonce`], MuSig2-style)
//!
//! 0. **Announcement** (root → all, down the tree): [`Announcement`] with a session id, the
//!    mode and the message. Each witness checks the message with its [`crate::Validator`]
//!    and declines ([`CosiError::Declined`]) by not committing.
//! 1. **Commitment** (leaves → root): each witness draws two fresh random nonces `r1, r2`
//!    and sends `R1_i = r1·B`, `R2_i = r2·B` ([`Witness::commit`]). Each interior node
//!    ([`Aggregator`]) sums the commitments of its subtree and ORs the masks. A witness that
//!    does not commit is simply absent from the mask.
//! 2. **Challenge** (root → all): the root turns the total into a [`Challenge`]
//!    `(R̂1, R̂2, mask, M)`. **Every** node derives the rest itself
//!    ([`ChallengeContext::derive`]): `A'` from the mask,
//!    `b = H("quorate/cosi/nonce-coef/v1" ‖ roster_id ‖ mask ‖ A' ‖ R̂1 ‖ R̂2 ‖ M)`,
//!    `R = R̂1 + b·R̂2`, `c = SHA-512(R ‖ A' ‖ M)`.
//! 3. **Response** (leaves → root): a witness answers only a challenge for the announced
//!    message that its validator still accepts: `s_i = r1 + b·r2 + c·a_i`
//!    ([`Witness::respond`]). Each
//!    interior node checks every child's subtree response
//!    `s_j·B = R1_j + b·R2_j + c·A'_j` (batched with random weights, individual checks on
//!    failure, culprits named) and forwards the sum. The root obtains `s = Σ s_i`; the
//!    signature is `(R, s, mask)` ([`ChallengeContext::finalize`]).
//!
//! Nonce states ([`CommittedWitness`]) are single-use: consumed by value, never cloned,
//! zeroized on drop; a [`Witness`] refuses to commit or respond twice in one session.
//!
//! [`Mode::Legacy`] is classic two-round CoSi (one nonce, `R = R̂`); it is **insecure when
//! sessions run concurrently** (Drijvers et al., ePrint 2018/417; the ROS attack, ePrint
//! 2020/945, forges from about 253 concurrent sessions). The leader cannot choose it: a
//! [`Witness`] built by [`Witness::new`] and an [`Aggregator`] built by [`Aggregator::new`]
//! refuse a legacy announcement ([`CosiError::LegacyRefused`]). Only witnesses and
//! aggregators constructed explicitly with `new_insecure_legacy`, behind the
//! `insecure-legacy` cargo feature (off by default), sign or relay it, to reproduce the
//! paper.

use crate::error::{witness_id, CosiError};
use crate::hash::{ed25519_challenge, nonce_coefficient};
use crate::keys::{decode_point, decode_scalar, fresh_nonce, identity, SecretKey};
use crate::mask::{mask_len, Mask};
use crate::policy::Policy;
use crate::roster::{Roster, RosterId};
use crate::signature::{verify_ed25519_strict, Signature};
use crate::tree::KeyTree;
use crate::validator::Validator;
use core::fmt;
use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
use curve25519_dalek::edwards::EdwardsPoint;
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{IsIdentity, VartimeMultiscalarMul};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::transcript::SessionId;
use quorate_core::{DecodeError, PartyId};
use rand_core::{CryptoRng, RngCore};
use std::collections::HashSet;
use std::sync::Arc;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Signing mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Concurrency-safe two-nonce CoSi (MuSig2-style nonce aggregation). The default.
    #[default]
    TwoNonce,
    /// **Legacy** classic CoSi: one nonce per witness and `R = ΣR_i`.
    ///
    /// # Security
    /// Insecure when a witness runs several sessions concurrently: the attacks of Drijvers
    /// et al. (ePrint 2018/417; ROS, ePrint 2020/945) forge signatures from a few hundred
    /// concurrent sessions. Default witnesses and aggregators refuse it
    /// ([`CosiError::LegacyRefused`]); only those built with `new_insecure_legacy` (cargo
    /// feature `insecure-legacy`) accept it, to reproduce the 2016 paper's protocol and
    /// numbers.
    Legacy,
}

impl Mode {
    fn to_byte(self) -> u8 {
        match self {
            Mode::TwoNonce => 1,
            Mode::Legacy => 2,
        }
    }

    fn from_byte(b: u8) -> Result<Self, DecodeError> {
        match b {
            1 => Ok(Mode::TwoNonce),
            2 => Ok(Mode::Legacy),
            found => Err(DecodeError::UnknownVersion {
                what: "signing mode",
                found,
            }),
        }
    }
}

/// How an aggregator checks the partial responses of its children.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ChildCheck {
    /// Check every contribution `s_j·B = R1_j + b·R2_j + c·A'_j` in one random-weight batch
    /// (three 128-bit-scalar multi-scalar multiplications), then individually on failure to
    /// name the culprits.
    Batched,
    /// Check the node's total `(Σs_j)·B = R̂1 + b·R̂2 + c·A'_subtree` exactly (one
    /// three-point multi-scalar multiplication compared with `R̂1`), and only if it fails run the
    /// [`ChildCheck::Batched`] audit and then each contribution, to name the culprits. The
    /// default: the subtree's response is exactly as correct as under
    /// [`ChildCheck::Batched`], and every wrong response that changes the sum is named;
    /// only contributions whose errors cancel out (colluding children of one node, whose
    /// sum is then the honest one) go unnamed (argument in [`crate::notes`], §5).
    #[default]
    Optimistic,
}

/// `R = R̂1 + b·R̂2` in variable time: one NAF multiplication of `R̂2` (curve25519-dalek's
/// `vartime_double_scalar_mul_basepoint` with a zero basepoint scalar) and one addition.
/// For public points and a public scalar only: every input is part of the challenge.
pub fn nonce_sum_vartime(r1: &EdwardsPoint, b: &Scalar, r2: &EdwardsPoint) -> EdwardsPoint {
    r1 + EdwardsPoint::vartime_double_scalar_mul_basepoint(b, r2, &Scalar::ZERO)
}

const TAG_ANNOUNCEMENT: u8 = 0x41;
const TAG_COMMITMENT: u8 = 0x42;
const TAG_CHALLENGE: u8 = 0x43;
const TAG_RESPONSE: u8 = 0x44;
const VERSION: u8 = 1;
const ANNOUNCEMENT_VERSION: u8 = 2;
const MAX_SESSION_BYTES: usize = 1024;

fn write_session(w: &mut Writer, s: &SessionId) {
    w.u16(s.as_bytes().len() as u16).bytes(s.as_bytes());
}

fn read_session(r: &mut Reader<'_>) -> Result<SessionId, DecodeError> {
    let len = r.len_prefix(MAX_SESSION_BYTES)?;
    Ok(SessionId::new(r.take(len)?.to_vec()))
}

fn read_index(r: &mut Reader<'_>, n: usize) -> Result<usize, DecodeError> {
    let i = usize::from(r.u16()?);
    if i >= n {
        return Err(DecodeError::InvalidValue {
            what: "witness index",
            reason: "outside the roster",
        });
    }
    Ok(i)
}

fn read_point(
    r: &mut Reader<'_>,
    what: &'static str,
) -> Result<(EdwardsPoint, [u8; 32]), DecodeError> {
    let b: [u8; 32] = r.array()?;
    Ok((decode_point(what, &b)?, b))
}

fn check_session_len(s: &SessionId) -> Result<(), CosiError> {
    if s.as_bytes().len() > MAX_SESSION_BYTES {
        return Err(CosiError::Misuse {
            check: "session id longer than 1024 bytes",
        });
    }
    Ok(())
}

/// Round 0 (root → all): opens a session for a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Announcement {
    /// Unique per signing attempt; restarts use a new one.
    pub session: SessionId,
    /// The signing mode.
    pub mode: Mode,
    /// The message to be signed. Witnesses check it ([`crate::Validator`]) before they
    /// commit, and refuse a challenge for any other message.
    pub message: Vec<u8>,
}

impl Announcement {
    /// A two-nonce announcement of `message`.
    pub fn new(session: SessionId, message: Vec<u8>) -> Self {
        Announcement {
            session,
            mode: Mode::TwoNonce,
            message,
        }
    }

    /// Encoding: header (version 2), session, mode, `u32`-prefixed message.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_ANNOUNCEMENT, ANNOUNCEMENT_VERSION);
        write_session(&mut w, &self.session);
        w.bytes(&[self.mode.to_byte()])
            .u32(self.message.len() as u32)
            .bytes(&self.message);
        w.into_bytes()
    }

    /// Checked decoding (version 1, whose message was optional, is refused).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("announcement", bytes);
        r.header(TAG_ANNOUNCEMENT, ANNOUNCEMENT_VERSION)?;
        let session = read_session(&mut r)?;
        let [mode] = r.array()?;
        let mode = Mode::from_byte(mode)?;
        let len = r.u32()? as usize;
        let message = r.take(len)?.to_vec();
        r.finish()?;
        Ok(Announcement {
            session,
            mode,
            message,
        })
    }
}

/// Round 1 (up the tree): the commitment of a witness or of a whole subtree.
#[derive(Clone, PartialEq, Eq)]
pub struct Commitment {
    session: SessionId,
    mode: Mode,
    from: usize,
    r1: EdwardsPoint,
    r2: EdwardsPoint,
    mask: Mask,
}

impl Commitment {
    /// The session.
    pub fn session(&self) -> &SessionId {
        &self.session
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The sender: the witness, or the root of the subtree this commitment aggregates.
    pub fn from(&self) -> usize {
        self.from
    }

    /// `R̂1` (sum of first nonces in the subtree).
    pub fn r1(&self) -> &EdwardsPoint {
        &self.r1
    }

    /// `R̂2` (sum of second nonces; the identity in legacy mode).
    pub fn r2(&self) -> &EdwardsPoint {
        &self.r2
    }

    /// The participants covered.
    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// Encoding: header, session, mode, `u16` sender, `R̂1`, `R̂2`, mask (`⌈n/8⌉` bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_COMMITMENT, VERSION);
        write_session(&mut w, &self.session);
        w.bytes(&[self.mode.to_byte()])
            .u16(self.from as u16)
            .bytes(self.r1.compress().as_bytes())
            .bytes(self.r2.compress().as_bytes())
            .bytes(self.mask.as_bytes());
        w.into_bytes()
    }

    /// Checked decoding for a roster of `n` witnesses.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, DecodeError> {
        let mut r = Reader::new("commitment", bytes);
        r.header(TAG_COMMITMENT, VERSION)?;
        let session = read_session(&mut r)?;
        let [mode] = r.array()?;
        let mode = Mode::from_byte(mode)?;
        let from = read_index(&mut r, n)?;
        let (r1, _) = read_point(&mut r, "commitment R1")?;
        let (r2, _) = read_point(&mut r, "commitment R2")?;
        let mask = Mask::from_bytes(n, r.take(mask_len(n))?)?;
        r.finish()?;
        Ok(Commitment {
            session,
            mode,
            from,
            r1,
            r2,
            mask,
        })
    }
}

impl fmt::Debug for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Commitment")
            .field("from", &self.from)
            .field("mode", &self.mode)
            .field("mask", &self.mask)
            .finish_non_exhaustive()
    }
}

/// Round 2 (down the tree): `(R̂1, R̂2, mask, M)`, identical for every node.
#[derive(Clone, PartialEq, Eq)]
pub struct Challenge {
    session: SessionId,
    mode: Mode,
    r1: EdwardsPoint,
    r1_bytes: [u8; 32],
    r2: EdwardsPoint,
    r2_bytes: [u8; 32],
    mask: Mask,
    message: Vec<u8>,
}

impl Challenge {
    /// The leader's challenge from the root's aggregated commitment.
    pub fn new(root: &Commitment, message: Vec<u8>) -> Self {
        Challenge {
            session: root.session.clone(),
            mode: root.mode,
            r1: root.r1,
            r1_bytes: root.r1.compress().to_bytes(),
            r2: root.r2,
            r2_bytes: root.r2.compress().to_bytes(),
            mask: root.mask.clone(),
            message,
        }
    }

    /// The session.
    pub fn session(&self) -> &SessionId {
        &self.session
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The participants.
    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// The message to sign.
    pub fn message(&self) -> &[u8] {
        &self.message
    }

    /// Encoding: header, session, mode, `R̂1`, `R̂2`, mask, `u32`-prefixed message.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_CHALLENGE, VERSION);
        write_session(&mut w, &self.session);
        w.bytes(&[self.mode.to_byte()])
            .bytes(&self.r1_bytes)
            .bytes(&self.r2_bytes)
            .bytes(self.mask.as_bytes())
            .u32(self.message.len() as u32)
            .bytes(&self.message);
        w.into_bytes()
    }

    /// Checked decoding for a roster of `n` witnesses.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, DecodeError> {
        let mut r = Reader::new("challenge", bytes);
        r.header(TAG_CHALLENGE, VERSION)?;
        let session = read_session(&mut r)?;
        let [mode] = r.array()?;
        let mode = Mode::from_byte(mode)?;
        let (r1, r1_bytes) = read_point(&mut r, "challenge R1")?;
        let (r2, r2_bytes) = read_point(&mut r, "challenge R2")?;
        let mask = Mask::from_bytes(n, r.take(mask_len(n))?)?;
        let len = r.u32()? as usize;
        let message = r.take(len)?.to_vec();
        r.finish()?;
        Ok(Challenge {
            session,
            mode,
            r1,
            r1_bytes,
            r2,
            r2_bytes,
            mask,
            message,
        })
    }
}

impl fmt::Debug for Challenge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Challenge")
            .field("mode", &self.mode)
            .field("R1", &hex::encode(self.r1_bytes))
            .field("R2", &hex::encode(self.r2_bytes))
            .field("mask", &self.mask)
            .field("message_len", &self.message.len())
            .finish_non_exhaustive()
    }
}

/// Round 3 (up the tree): the partial response of a witness or of a whole subtree.
#[derive(Clone, PartialEq, Eq)]
pub struct Response {
    session: SessionId,
    from: usize,
    s: Scalar,
}

impl Response {
    /// The session.
    pub fn session(&self) -> &SessionId {
        &self.session
    }

    /// The sender (witness, or subtree root).
    pub fn from(&self) -> usize {
        self.from
    }

    /// The partial response.
    pub fn s(&self) -> &Scalar {
        &self.s
    }

    /// A copy with `s` replaced: for fault-injection tests and simulations of a misbehaving
    /// witness. Honest code never needs it.
    pub fn with_s(&self, s: Scalar) -> Self {
        Response {
            session: self.session.clone(),
            from: self.from,
            s,
        }
    }

    /// Encoding: header, session, `u16` sender, canonical `s`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_RESPONSE, VERSION);
        write_session(&mut w, &self.session);
        w.u16(self.from as u16).bytes(self.s.as_bytes());
        w.into_bytes()
    }

    /// Checked decoding for a roster of `n` witnesses (rejects `s ≥ L`).
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Self, DecodeError> {
        let mut r = Reader::new("response", bytes);
        r.header(TAG_RESPONSE, VERSION)?;
        let session = read_session(&mut r)?;
        let from = read_index(&mut r, n)?;
        let s = decode_scalar("response s", &r.array()?)?;
        r.finish()?;
        Ok(Response { session, from, s })
    }
}

impl fmt::Debug for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Response")
            .field("from", &self.from)
            .field("s", &hex::encode(self.s.as_bytes()))
            .finish_non_exhaustive()
    }
}

/// Everything a node derives from a [`Challenge`] by itself: `A'`, `b`, `R`, `c`.
///
/// There is deliberately no way to decode or otherwise construct one from outside data:
/// the only constructor is [`ChallengeContext::derive`], so a node never uses a value
/// computed by the leader.
#[derive(Clone, PartialEq, Eq)]
pub struct ChallengeContext {
    roster_id: RosterId,
    session: SessionId,
    mode: Mode,
    mask: Mask,
    message: Vec<u8>,
    a_prime: EdwardsPoint,
    a_prime_bytes: [u8; 32],
    b: Scalar,
    r: EdwardsPoint,
    r_bytes: [u8; 32],
    c: Scalar,
}

impl ChallengeContext {
    /// Derives `A'` (from the mask, [`Roster::cached_aggregate_for_mask`]), the nonce
    /// coefficient `b` (zero in legacy mode), `R = R̂1 + b·R̂2` and
    /// `c = SHA-512(R ‖ A' ‖ M)`.
    ///
    /// Refuses ([`CosiError::InvalidChallenge`]) a mask of the wrong size or with no
    /// participant, a legacy challenge with `R̂2 ≠ 0`, and `R` or `A'` of small order (such
    /// a signature could not verify).
    pub fn derive(roster: &Roster, challenge: &Challenge) -> Result<Self, CosiError> {
        if challenge.mask.n() != roster.len() {
            return Err(CosiError::InvalidChallenge {
                check: "mask size differs from the roster size",
            });
        }
        if challenge.mask.is_none() {
            return Err(CosiError::InvalidChallenge {
                check: "mask has no participant",
            });
        }
        let (a_prime, a_prime_bytes) = roster.cached_aggregate_for_mask(&challenge.mask)?;
        if a_prime.is_small_order() {
            return Err(CosiError::InvalidChallenge {
                check: "aggregate key of the mask has small order",
            });
        }
        let (b, r) = match challenge.mode {
            Mode::TwoNonce => {
                let b = nonce_coefficient(
                    &roster.id().0,
                    challenge.mask.as_bytes(),
                    &a_prime_bytes,
                    &challenge.r1_bytes,
                    &challenge.r2_bytes,
                    &challenge.message,
                );
                let r = nonce_sum_vartime(&challenge.r1, &b, &challenge.r2);
                (b, r)
            }
            Mode::Legacy => {
                if !challenge.r2.is_identity() {
                    return Err(CosiError::InvalidChallenge {
                        check: "legacy challenge carries a second nonce",
                    });
                }
                (Scalar::ZERO, challenge.r1)
            }
        };
        if r.is_small_order() {
            return Err(CosiError::InvalidChallenge {
                check: "aggregate nonce R has small order",
            });
        }
        let r_bytes = if challenge.mode == Mode::Legacy {
            challenge.r1_bytes
        } else {
            r.compress().to_bytes()
        };
        let c = ed25519_challenge(&r_bytes, &a_prime_bytes, &challenge.message);
        Ok(ChallengeContext {
            roster_id: *roster.id(),
            session: challenge.session.clone(),
            mode: challenge.mode,
            mask: challenge.mask.clone(),
            message: challenge.message.clone(),
            a_prime,
            a_prime_bytes,
            b,
            r,
            r_bytes,
            c,
        })
    }

    /// The session.
    pub fn session(&self) -> &SessionId {
        &self.session
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The participants.
    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// The message.
    pub fn message(&self) -> &[u8] {
        &self.message
    }

    /// `A'`, compressed (the Ed25519 key the signature will verify under).
    pub fn aggregate_key(&self) -> [u8; 32] {
        self.a_prime_bytes
    }

    /// The nonce coefficient `b` (zero in legacy mode).
    pub fn b(&self) -> &Scalar {
        &self.b
    }

    /// The Ed25519 challenge `c`.
    pub fn c(&self) -> &Scalar {
        &self.c
    }

    /// The encoding of the final nonce `R`.
    pub fn r_bytes(&self) -> &[u8; 32] {
        &self.r_bytes
    }

    /// Assembles `(R, s, mask)` from the root's total response without checking it.
    pub fn signature(&self, total: &Response) -> Signature {
        Signature::from_parts(self.r, self.r_bytes, total.s, self.mask.clone())
    }

    /// Assembles the signature and verifies it (strict Ed25519 under `A'`, and `policy`).
    pub fn finalize(
        &self,
        roster: &Roster,
        total: &Response,
        policy: &Policy,
    ) -> Result<Signature, CosiError> {
        if roster.id() != &self.roster_id {
            return Err(CosiError::Misuse {
                check: "context derived for another roster",
            });
        }
        if total.session != self.session {
            return Err(CosiError::Misuse {
                check: "response belongs to another session",
            });
        }
        policy.validate(roster.len())?;
        if !policy.is_satisfied(&self.mask) {
            return Err(crate::error::VerifyFailure::PolicyNotSatisfied.into());
        }
        let sig = self.signature(total);
        verify_ed25519_strict(&self.a_prime, &self.a_prime_bytes, &self.message, &sig)?;
        Ok(sig)
    }
}

impl fmt::Debug for ChallengeContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChallengeContext")
            .field("mode", &self.mode)
            .field("A'", &hex::encode(self.a_prime_bytes))
            .field("R", &hex::encode(self.r_bytes))
            .field("mask", &self.mask)
            .finish_non_exhaustive()
    }
}

#[derive(Zeroize, ZeroizeOnDrop)]
struct Nonces {
    r1: Scalar,
    r2: Scalar,
}

/// A long-lived witness: its roster position, secret key, and the sessions it has used.
///
/// Use one `Witness` per key: the session guard lives here. It grows by one id per session;
/// [`Witness::forget_sessions`] clears it when session ids can never repeat (e.g. they embed
/// an epoch that has passed).
pub struct Witness {
    index: usize,
    key: SecretKey,
    roster: Arc<Roster>,
    /// Whether this witness was built by [`Witness::new_insecure_legacy`]; a leader can never
    /// switch it on.
    legacy: bool,
    validator: Box<dyn Validator>,
    committed: HashSet<SessionId>,
    responded: HashSet<SessionId>,
}

impl fmt::Debug for Witness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Witness")
            .field("index", &self.index)
            .field("insecure_legacy", &self.legacy)
            .field("sessions", &self.committed.len())
            .finish_non_exhaustive()
    }
}

/// A witness's state between commitment and response: its nonces for one session.
///
/// Not `Clone`; consumed by [`Witness::respond`]; the nonces are zeroized on drop (also when
/// a response is refused, so a refused session can never be answered later).
pub struct CommittedWitness {
    index: usize,
    roster_id: RosterId,
    session: SessionId,
    mode: Mode,
    announced: Vec<u8>,
    nonces: Nonces,
}

impl fmt::Debug for CommittedWitness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommittedWitness")
            .field("index", &self.index)
            .field("mode", &self.mode)
            .field("nonces", &"<redacted>")
            .finish_non_exhaustive()
    }
}

impl CommittedWitness {
    /// The session this state belongs to.
    pub fn session(&self) -> &SessionId {
        &self.session
    }
}

impl Witness {
    /// A witness at roster `index` holding `key` (it must match the roster entry), that
    /// cosigns only messages `validator` accepts.
    ///
    /// It signs only in [`Mode::TwoNonce`]: a [`Mode::Legacy`] announcement is refused with
    /// [`CosiError::LegacyRefused`], whoever sends it.
    pub fn new(
        roster: Arc<Roster>,
        index: usize,
        key: SecretKey,
        validator: impl Validator + 'static,
    ) -> Result<Self, CosiError> {
        Self::build(roster, index, key, Box::new(validator), false)
    }

    /// **Insecure.** A witness that also answers [`Mode::Legacy`] announcements.
    ///
    /// A leader that runs a few hundred legacy sessions with such a witness concurrently
    /// forges a signature on a message of its choice under the witness's key (the ROS attack,
    /// ePrint 2020/945; see `tests/cosi/concurrent_sessions.rs`). Exists only to reproduce the
    /// 2016 paper's protocol and numbers, behind the `insecure-legacy` cargo feature (off by
    /// default).
    #[cfg(feature = "insecure-legacy")]
    pub fn new_insecure_legacy(
        roster: Arc<Roster>,
        index: usize,
        key: SecretKey,
        validator: impl Validator + 'static,
    ) -> Result<Self, CosiError> {
        Self::build(roster, index, key, Box::new(validator), true)
    }

    fn build(
        roster: Arc<Roster>,
        index: usize,
        key: SecretKey,
        validator: Box<dyn Validator>,
        legacy: bool,
    ) -> Result<Self, CosiError> {
        match roster.public_key(index) {
            Some(pk) if pk == key.public_key() => Ok(Witness {
                index,
                key,
                roster,
                legacy,
                validator,
                committed: HashSet::new(),
                responded: HashSet::new(),
            }),
            Some(_) => Err(CosiError::KeyMismatch {
                witness: witness_id(index),
            }),
            None => {
                Err(quorate_core::ParamError::Invalid("witness index outside the roster").into())
            }
        }
    }

    /// The roster position (this witness's mask bit).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The witness id that errors and blame use: roster position + 1.
    pub fn id(&self) -> PartyId {
        witness_id(self.index)
    }

    fn validate(&mut self, message: &[u8]) -> Result<(), CosiError> {
        self.validator
            .check(message)
            .map_err(|reason| CosiError::Declined {
                witness: self.id(),
                reason,
            })
    }

    /// Refuses [`Mode::Legacy`] unless this witness was built for it.
    fn check_mode(&self, mode: Mode) -> Result<(), CosiError> {
        if mode == Mode::Legacy && !self.legacy {
            return Err(CosiError::LegacyRefused { witness: self.id() });
        }
        Ok(())
    }

    /// The roster.
    pub fn roster(&self) -> &Arc<Roster> {
        &self.roster
    }

    /// Forgets all used session ids (only safe if they can never be presented again).
    pub fn forget_sessions(&mut self) {
        self.committed.clear();
        self.responded.clear();
    }

    /// Round 1: draws fresh random nonces for `announcement.session` and commits to them.
    ///
    /// Refuses a [`Mode::Legacy`] announcement ([`CosiError::LegacyRefused`]) unless this
    /// witness was built by `Witness::new_insecure_legacy`, a message its validator rejects
    /// ([`CosiError::Declined`]), and a session this witness already committed in
    /// ([`CosiError::SessionReused`]).
    pub fn commit<R: RngCore + CryptoRng>(
        &mut self,
        announcement: &Announcement,
        rng: &mut R,
    ) -> Result<(CommittedWitness, Commitment), CosiError> {
        self.check_mode(announcement.mode)?;
        check_session_len(&announcement.session)?;
        self.validate(&announcement.message)?;
        if !self.committed.insert(announcement.session.clone()) {
            return Err(CosiError::SessionReused { witness: self.id() });
        }
        let idx = (self.index as u64).to_be_bytes();
        let sid = announcement.session.as_bytes();
        let rid = &self.roster.id().0;
        let r1 = fresh_nonce(rng, self.key.scalar(), &[b"r1", rid, &idx, sid]);
        let r2 = match announcement.mode {
            Mode::TwoNonce => fresh_nonce(rng, self.key.scalar(), &[b"r2", rid, &idx, sid]),
            Mode::Legacy => Scalar::ZERO,
        };
        let big_r1 = EdwardsPoint::mul_base(&r1);
        let big_r2 = match announcement.mode {
            Mode::TwoNonce => EdwardsPoint::mul_base(&r2),
            Mode::Legacy => identity(),
        };
        let mut mask = Mask::empty(self.roster.len());
        mask.insert(self.index)?;
        let state = CommittedWitness {
            index: self.index,
            roster_id: *self.roster.id(),
            session: announcement.session.clone(),
            mode: announcement.mode,
            announced: announcement.message.clone(),
            nonces: Nonces { r1, r2 },
        };
        let commitment = Commitment {
            session: announcement.session.clone(),
            mode: announcement.mode,
            from: self.index,
            r1: big_r1,
            r2: big_r2,
            mask,
        };
        Ok((state, commitment))
    }

    /// Round 2: derives the challenge context itself and answers
    /// `s_i = r1 + b·r2 + c·a_i`.
    pub fn respond(
        &mut self,
        state: CommittedWitness,
        challenge: &Challenge,
    ) -> Result<Response, CosiError> {
        let ctx = ChallengeContext::derive(&self.roster, challenge);
        match ctx {
            Ok(ctx) => self.respond_with_context(state, &ctx),
            Err(e) => {
                drop(state);
                Err(e)
            }
        }
    }

    /// Round 2 with a context this node already derived (an interior node derives it once
    /// for its aggregator and its own witness).
    ///
    /// Refuses, destroying the nonces: a state of another witness or roster; a session
    /// already answered ([`CosiError::SessionReused`]); a context for another session or
    /// mode, whose mask omits this witness, or whose message differs from the announced one
    /// ([`CosiError::InvalidChallenge`]); a message the validator no longer accepts
    /// ([`CosiError::Declined`]). After answering it tells the validator
    /// ([`Validator::cosigned`]).
    pub fn respond_with_context(
        &mut self,
        state: CommittedWitness,
        ctx: &ChallengeContext,
    ) -> Result<Response, CosiError> {
        if state.index != self.index || state.roster_id != *self.roster.id() {
            return Err(CosiError::Misuse {
                check: "nonce state belongs to another witness or roster",
            });
        }
        self.check_mode(ctx.mode)?;
        if ctx.roster_id != *self.roster.id() {
            return Err(CosiError::Misuse {
                check: "context derived for another roster",
            });
        }
        if !self.responded.insert(state.session.clone()) {
            return Err(CosiError::SessionReused { witness: self.id() });
        }
        if ctx.session != state.session {
            return Err(CosiError::InvalidChallenge {
                check: "challenge is for another session",
            });
        }
        if ctx.mode != state.mode {
            return Err(CosiError::InvalidChallenge {
                check: "challenge mode differs from the committed mode",
            });
        }
        if !ctx.mask.contains(self.index) {
            return Err(CosiError::InvalidChallenge {
                check: "challenge mask does not include this witness",
            });
        }
        if state.announced.as_slice() != ctx.message.as_slice() {
            return Err(CosiError::InvalidChallenge {
                check: "challenge message differs from the announced message",
            });
        }
        self.validate(&ctx.message)?;
        let s = state.nonces.r1 + ctx.b * state.nonces.r2 + ctx.c * self.key.scalar();
        self.validator.cosigned(&ctx.message);
        Ok(Response {
            session: state.session.clone(),
            from: self.index,
            s,
        })
    }
}

/// One contributor to an aggregator: its own witness or a child subtree.
#[derive(Clone)]
struct Contribution {
    from: usize,
    r1: EdwardsPoint,
    r2: EdwardsPoint,
    /// `A'_j`: the participants' key of this contribution.
    key: EdwardsPoint,
}

/// Round 1 at an interior node: collects its own commitment and its children's.
#[derive(Debug)]
pub struct Aggregator {
    tree: Arc<KeyTree>,
    node: usize,
    session: SessionId,
    mode: Mode,
    message: Vec<u8>,
    received: Vec<Commitment>,
}

impl Aggregator {
    /// An aggregator for `node` of `tree` in the announced session.
    ///
    /// Refuses a [`Mode::Legacy`] announcement ([`CosiError::LegacyRefused`]): an honest node
    /// does not relay sessions its own witness would refuse.
    pub fn new(
        tree: Arc<KeyTree>,
        node: usize,
        announcement: &Announcement,
    ) -> Result<Self, CosiError> {
        if announcement.mode == Mode::Legacy {
            return Err(CosiError::LegacyRefused {
                witness: witness_id(node),
            });
        }
        Self::build(tree, node, announcement)
    }

    /// **Insecure.** An aggregator that also relays [`Mode::Legacy`] sessions, for the
    /// paper-reproduction runs with `Witness::new_insecure_legacy` witnesses (cargo feature
    /// `insecure-legacy`, off by default).
    #[cfg(feature = "insecure-legacy")]
    pub fn new_insecure_legacy(
        tree: Arc<KeyTree>,
        node: usize,
        announcement: &Announcement,
    ) -> Result<Self, CosiError> {
        Self::build(tree, node, announcement)
    }

    fn build(
        tree: Arc<KeyTree>,
        node: usize,
        announcement: &Announcement,
    ) -> Result<Self, CosiError> {
        if !tree.tree().contains(node) {
            return Err(
                quorate_core::ParamError::Invalid("aggregator node is not in the tree").into(),
            );
        }
        check_session_len(&announcement.session)?;
        Ok(Aggregator {
            tree,
            node,
            session: announcement.session.clone(),
            mode: announcement.mode,
            message: announcement.message.clone(),
            received: Vec::new(),
        })
    }

    /// The node.
    pub fn node(&self) -> usize {
        self.node
    }

    /// Accepts the commitment of this node's own witness or of one of its children.
    ///
    /// Blames the sender for: another session or mode; a sender that is neither this node
    /// nor one of its children; a second commitment; a mask reaching outside the sender's
    /// subtree (or, for the node's own witness, a mask other than itself).
    pub fn add_commitment(&mut self, c: Commitment) -> Result<(), CosiError> {
        let from = c.from;
        let tree = self.tree.tree();
        let is_child = tree.children(self.node).contains(&from);
        if from != self.node && !is_child {
            return Err(CosiError::blame(
                from,
                "commitment from a node that is not a child",
            ));
        }
        if c.session != self.session || c.mode != self.mode {
            return Err(CosiError::blame(
                from,
                "commitment for another session or mode",
            ));
        }
        if self.received.iter().any(|r| r.from == from) {
            return Err(CosiError::blame(from, "second commitment in one session"));
        }
        if c.mask.n() != self.tree.roster().len() {
            return Err(CosiError::blame(from, "commitment mask has the wrong size"));
        }
        if from == self.node {
            if c.mask.count() != 1 || !c.mask.contains(self.node) {
                return Err(CosiError::blame(
                    from,
                    "own commitment must cover exactly itself",
                ));
            }
        } else if !self.tree.mask_within_subtree(from, &c.mask) {
            return Err(CosiError::blame(
                from,
                "commitment mask reaches outside the sender's subtree",
            ));
        }
        if self.mode == Mode::Legacy && !c.r2.is_identity() {
            return Err(CosiError::blame(
                from,
                "legacy commitment carries a second nonce",
            ));
        }
        self.received.push(c);
        Ok(())
    }

    /// Ends round 1: sums the commitments and ORs the masks. Children that sent nothing (or
    /// an empty mask) are left out. Returns the state awaiting the challenge and the
    /// subtree's commitment for the parent.
    pub fn finish_commitments(
        self,
    ) -> Result<(AggregatorAwaitingChallenge, Commitment), CosiError> {
        let n = self.tree.roster().len();
        let mut mask = Mask::empty(n);
        let mut r1 = identity();
        let mut r2 = identity();
        let mut contributions = Vec::with_capacity(self.received.len());
        for c in self.received {
            if c.mask.is_none() {
                continue;
            }
            mask.union_with(&c.mask)?;
            r1 += c.r1;
            r2 += c.r2;
            let key = if c.from == self.node {
                self.tree
                    .roster()
                    .public_key(self.node)
                    .map(|k| *k.point())
                    .unwrap_or_else(identity)
            } else {
                self.tree.subtree_aggregate(c.from, &c.mask)
            };
            contributions.push(Contribution {
                from: c.from,
                r1: c.r1,
                r2: c.r2,
                key,
            });
        }
        let out = Commitment {
            session: self.session.clone(),
            mode: self.mode,
            from: self.node,
            r1,
            r2,
            mask: mask.clone(),
        };
        Ok((
            AggregatorAwaitingChallenge {
                tree: self.tree,
                node: self.node,
                session: self.session,
                mode: self.mode,
                message: self.message,
                mask,
                r1,
                r2,
                contributions,
            },
            out,
        ))
    }
}

/// An interior node between its commitment and the challenge.
pub struct AggregatorAwaitingChallenge {
    tree: Arc<KeyTree>,
    node: usize,
    session: SessionId,
    mode: Mode,
    message: Vec<u8>,
    mask: Mask,
    r1: EdwardsPoint,
    r2: EdwardsPoint,
    contributions: Vec<Contribution>,
}

impl fmt::Debug for AggregatorAwaitingChallenge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AggregatorAwaitingChallenge")
            .field("node", &self.node)
            .field("mask", &self.mask)
            .finish_non_exhaustive()
    }
}

impl AggregatorAwaitingChallenge {
    /// The mask this subtree committed with.
    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    /// Round 2: derives the context from the challenge and starts collecting responses.
    pub fn receive_challenge(
        self,
        challenge: &Challenge,
    ) -> Result<AggregatorCollecting, CosiError> {
        let ctx = ChallengeContext::derive(self.tree.roster(), challenge)?;
        self.receive_context(ctx)
    }

    /// Round 2 with a context this node derived itself (shared with its own witness).
    ///
    /// Refuses a context for another session, mode, roster or message, or whose mask does
    /// not agree, inside this subtree, with what this subtree committed.
    pub fn receive_context(self, ctx: ChallengeContext) -> Result<AggregatorCollecting, CosiError> {
        if ctx.roster_id != *self.tree.roster().id() {
            return Err(CosiError::Misuse {
                check: "context derived for another roster",
            });
        }
        if ctx.session != self.session || ctx.mode != self.mode {
            return Err(CosiError::InvalidChallenge {
                check: "challenge is for another session or mode",
            });
        }
        if ctx.message != self.message {
            return Err(CosiError::InvalidChallenge {
                check: "challenge message differs from the announced message",
            });
        }
        let tree = self.tree.tree();
        let consistent = tree
            .subtree(self.node)
            .iter()
            .all(|&i| ctx.mask.contains(i) == self.mask.contains(i));
        if !consistent {
            return Err(CosiError::InvalidChallenge {
                check: "challenge mask disagrees with this subtree's commitments",
            });
        }
        Ok(AggregatorCollecting {
            node: self.node,
            session: self.session,
            r1: self.r1,
            r2: self.r2,
            responses: vec![None; self.contributions.len()],
            contributions: self.contributions,
            ctx,
        })
    }
}

/// An interior node collecting partial responses.
pub struct AggregatorCollecting {
    node: usize,
    session: SessionId,
    r1: EdwardsPoint,
    r2: EdwardsPoint,
    contributions: Vec<Contribution>,
    responses: Vec<Option<Scalar>>,
    ctx: ChallengeContext,
}

impl fmt::Debug for AggregatorCollecting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AggregatorCollecting")
            .field("node", &self.node)
            .field("expected", &self.contributions.len())
            .finish_non_exhaustive()
    }
}

impl AggregatorCollecting {
    /// The context derived by this node.
    pub fn context(&self) -> &ChallengeContext {
        &self.ctx
    }

    /// The senders this node waits for (its own witness and/or children), in order.
    pub fn expected(&self) -> Vec<usize> {
        self.contributions.iter().map(|c| c.from).collect()
    }

    /// Accepts a partial response. Blames the sender for another session, for not being an
    /// expected contributor (it did not commit), or for answering twice.
    pub fn add_response(&mut self, r: Response) -> Result<(), CosiError> {
        if r.session != self.session {
            return Err(CosiError::blame(r.from, "response for another session"));
        }
        let Some(k) = self.contributions.iter().position(|c| c.from == r.from) else {
            return Err(CosiError::blame(
                r.from,
                "response from a node that did not commit here",
            ));
        };
        match self.responses.get_mut(k) {
            Some(slot @ None) => {
                *slot = Some(r.s);
                Ok(())
            }
            _ => Err(CosiError::blame(r.from, "second response in one session")),
        }
    }

    /// Ends round 2 at this node: every contributor must have answered (else the missing
    /// ones are blamed, "no response"), every partial must verify per `check` (else the
    /// culprits are blamed), and the sum is returned as this subtree's response.
    pub fn finish<R: RngCore + CryptoRng>(
        self,
        check: ChildCheck,
        rng: &mut R,
    ) -> Result<Response, CosiError> {
        let missing: Vec<usize> = self
            .contributions
            .iter()
            .zip(&self.responses)
            .filter(|(_, s)| s.is_none())
            .map(|(c, _)| c.from)
            .collect();
        if !missing.is_empty() {
            return Err(CosiError::blame_many(
                &missing,
                "no response after committing",
            ));
        }
        let shares: Vec<Scalar> = self
            .responses
            .iter()
            .map(|s| s.unwrap_or(Scalar::ZERO))
            .collect();
        let total: Scalar = shares.iter().sum();
        let ok = match check {
            ChildCheck::Optimistic => self.check_total(&total),
            ChildCheck::Batched => false,
        };
        if !ok && !self.check_batch(&shares, rng) {
            let culprits: Vec<usize> = self
                .contributions
                .iter()
                .zip(&shares)
                .filter(|(c, s)| !self.check_one(c, s))
                .map(|(c, _)| c.from)
                .collect();
            if !culprits.is_empty() {
                return Err(CosiError::blame_many(
                    &culprits,
                    "partial response does not verify",
                ));
            }
        }
        Ok(Response {
            session: self.session,
            from: self.node,
            s: total,
        })
    }

    /// `(Σs)·B = R̂1 + b·R̂2 + c·A'_subtree`, using the subtree sums from round 1.
    fn check_total(&self, total: &Scalar) -> bool {
        let key: EdwardsPoint = self.contributions.iter().map(|c| c.key).sum();
        self.nonce_part_vartime(total, &self.r2, &key) == self.r1
    }

    /// `s·B − b·R2 − c·A'` (one three-point variable-time multiplication; public inputs
    /// only). Every check compares it with its `R1` instead of adding `−1·R1` as a fourth
    /// point: `−1 mod ℓ` is a full-length scalar, so that term cost as much as the others.
    fn nonce_part_vartime(
        &self,
        s: &Scalar,
        r2: &EdwardsPoint,
        key: &EdwardsPoint,
    ) -> EdwardsPoint {
        let ctx = &self.ctx;
        EdwardsPoint::vartime_multiscalar_mul(
            [*s, -ctx.b, -ctx.c],
            [ED25519_BASEPOINT_POINT, *r2, *key],
        )
    }

    /// Random-weight batch of all contributions:
    /// `(Σz_j s_j)·B − Σz_j R1_j − b·Σz_j R2_j − c·Σz_j A'_j = 0`, with 128-bit `z_j`.
    fn check_batch<R: RngCore + CryptoRng>(&self, shares: &[Scalar], rng: &mut R) -> bool {
        let z: Vec<Scalar> = self
            .contributions
            .iter()
            .map(|_| {
                let mut w = [0u8; 32];
                rng.fill_bytes(&mut w[..16]);
                Scalar::from_bytes_mod_order(w)
            })
            .collect();
        let weighted_s: Scalar = z.iter().zip(shares).map(|(z, s)| z * s).sum();
        let x1 = EdwardsPoint::vartime_multiscalar_mul(&z, self.contributions.iter().map(|c| c.r1));
        let x3 =
            EdwardsPoint::vartime_multiscalar_mul(&z, self.contributions.iter().map(|c| c.key));
        let x2 = if self.ctx.mode == Mode::Legacy {
            identity()
        } else {
            EdwardsPoint::vartime_multiscalar_mul(&z, self.contributions.iter().map(|c| c.r2))
        };
        self.nonce_part_vartime(&weighted_s, &x2, &x3) == x1
    }

    fn check_one(&self, c: &Contribution, s: &Scalar) -> bool {
        self.nonce_part_vartime(s, &c.r2, &c.key) == c.r1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::SecretKey;
    use crate::validator::ExactMessage;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn setup(n: usize) -> (Arc<Roster>, Vec<SecretKey>, ChaCha20Rng) {
        let mut rng = ChaCha20Rng::seed_from_u64(n as u64);
        let keys: Vec<SecretKey> = (0..n).map(|_| SecretKey::generate(&mut rng)).collect();
        let entries = keys.iter().map(|k| k.roster_entry(&mut rng)).collect();
        (Arc::new(Roster::new(entries).expect("roster")), keys, rng)
    }

    #[test]
    fn derive_refuses_bad_challenges() {
        let (roster, keys, mut rng) = setup(4);
        let mut w = Witness::new(
            roster.clone(),
            2,
            keys[2].clone(),
            ExactMessage(b"m".to_vec()),
        )
        .expect("witness");
        let ann = Announcement::new(SessionId::new(b"d".to_vec()), b"m".to_vec());
        let (_, c) = w.commit(&ann, &mut rng).expect("commit");
        let ok = Challenge::new(&c, b"m".to_vec());
        let ctx = ChallengeContext::derive(&roster, &ok).expect("derives");
        assert_eq!(ctx.aggregate_key(), keys[2].public_key().to_bytes());
        assert_ne!(ctx.b(), &Scalar::ZERO);

        let mut empty = ok.clone();
        empty.mask = Mask::empty(4);
        assert!(matches!(
            ChallengeContext::derive(&roster, &empty),
            Err(CosiError::InvalidChallenge { .. })
        ));
        let mut wrong_size = ok.clone();
        wrong_size.mask = Mask::full(5);
        assert!(matches!(
            ChallengeContext::derive(&roster, &wrong_size),
            Err(CosiError::InvalidChallenge { .. })
        ));
        let mut legacy = ok.clone();
        legacy.mode = Mode::Legacy;
        assert_eq!(
            ChallengeContext::derive(&roster, &legacy).err(),
            Some(CosiError::InvalidChallenge {
                check: "legacy challenge carries a second nonce"
            })
        );
        let mut small = ok;
        small.r1 = identity();
        small.r2 = identity();
        small.r1_bytes = identity().compress().to_bytes();
        small.r2_bytes = small.r1_bytes;
        assert_eq!(
            ChallengeContext::derive(&roster, &small).err(),
            Some(CosiError::InvalidChallenge {
                check: "aggregate nonce R has small order"
            })
        );
    }

    #[test]
    fn messages_round_trip() {
        let (roster, keys, mut rng) = setup(11);
        let ann = Announcement {
            session: SessionId::new(b"rt".to_vec()),
            mode: Mode::Legacy,
            message: b"hello".to_vec(),
        };
        assert_eq!(Announcement::from_bytes(&ann.to_bytes()), Ok(ann.clone()));
        let ann = Announcement {
            mode: Mode::TwoNonce,
            ..ann
        };
        let mut w =
            Witness::new(roster.clone(), 10, keys[10].clone(), |_: &[u8]| Ok(())).expect("witness");
        let (s, c) = w.commit(&ann, &mut rng).expect("commit");
        assert_eq!(Commitment::from_bytes(&c.to_bytes(), 11).as_ref(), Ok(&c));
        let ch = Challenge::new(&c, b"hello".to_vec());
        assert_eq!(Challenge::from_bytes(&ch.to_bytes(), 11).as_ref(), Ok(&ch));
        let r = w.respond(s, &ch).expect("respond");
        assert_eq!(Response::from_bytes(&r.to_bytes(), 11).as_ref(), Ok(&r));
        assert!(Response::from_bytes(&r.to_bytes(), 10).is_err());
        let dbg = format!("{w:?} {r:?}");
        assert!(!dbg.contains(&hex::encode(keys[10].to_bytes().as_ref())));
    }
}
