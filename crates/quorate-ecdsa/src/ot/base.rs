//! Base oblivious transfer: the "simplest OT" of Chou–Orlandi (eprint 2015/267) with the
//! sender's proof of knowledge of `b` for `B = b·G`, every point validated, and every derived
//! key bound to the session id, the OT index and the full exchanged transcript `(B, A_k)`.
//! It is **not** DKLs18's VSOT: there is no challenge/response verification phase; the
//! consistency of the base OTs is checked afterwards by the KOS check of every extension
//! that uses them (see [`crate::notes`]).
//!
//! * Sender → receiver: `B = b·G` and a Schnorr proof of knowledge of `b`.
//! * Receiver (choice bit `c_k` for `k < κ`): `A_k = a_k·G + c_k·B`, keeps
//!   `H(sid, k, B, A_k, a_k·B)`.
//! * Sender: `k_0 = H(sid, k, B, A_k, b·A_k)`, `k_1 = H(sid, k, B, A_k, b·(A_k − B))`.
//!
//! The receiver's choice bits are perfectly hidden (`A_k` is uniform for either bit), and a
//! receiver who could compute both keys would compute `b·B` from `B`, i.e. solve CDH. The
//! proof of knowledge makes the sender's `B` extractable and rules out the identity; the
//! receiver rejects the identity and invalid encodings for every `A_k` (decoders here never
//! accept the identity), which closes the malformed-point key-extraction paths reported in
//! the "Devious Transfer" work (see [`crate::notes`]).
//!
//! In this crate the base-OT *receiver* is the OT-extension *sender*: its choice bits become
//! the extension correlation `Δ` (KOS/IKNP role reversal).

use crate::curve::{base_mul, read_point, tagged_hash, write_point, DlogProof, POINT_LEN};
use crate::error::{EcdsaError, Result};
use k256::elliptic_curve::group::GroupEncoding;
use k256::elliptic_curve::BatchNormalize;
use k256::{ProjectivePoint, Scalar};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, PartyId};
use rand_core::CryptoRngCore;
use subtle::{Choice, ConditionallySelectable};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Number of base OTs, and width of the extension correlation `Δ` (bits).
pub const KAPPA: usize = 128;
/// Bytes of `Δ`.
pub const KAPPA_BYTES: usize = KAPPA / 8;

/// A 32-byte OT key (used as a PRG seed by the extension).
pub type Seed = [u8; 32];

const TAG_KEY: &[u8] = b"quorate/ecdsa/base-ot/key/v1";
const PROOF_LABEL: &[u8] = b"base-ot sender key";

/// The base-OT sender's state after its first message. Consumed by [`sender_finish`].
#[derive(Zeroize, ZeroizeOnDrop)]
#[cfg_attr(feature = "fuzzing", derive(Clone))]
pub struct BaseOtSender {
    sid: [u8; 32],
    b: Scalar,
    #[zeroize(skip)]
    big_b: ProjectivePoint,
}

impl core::fmt::Debug for BaseOtSender {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BaseOtSender").finish_non_exhaustive()
    }
}

/// Sender → receiver: `B` and a proof of knowledge of its discrete log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseOtMsg1 {
    big_b: ProjectivePoint,
    proof: DlogProof,
}

/// Receiver → sender: the points `A_k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseOtMsg2 {
    a_points: Vec<ProjectivePoint>,
}

/// What the base-OT sender ends with: both keys of every OT.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct BaseOtSenderOutput {
    /// `k_0` for each OT.
    pub keys0: Vec<Seed>,
    /// `k_1` for each OT.
    pub keys1: Vec<Seed>,
}

/// What the base-OT receiver ends with: its choice bits and the chosen keys.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct BaseOtReceiverOutput {
    /// Choice bits, packed little-endian (bit `k` is `(choices[k/8] >> (k%8)) & 1`).
    pub choices: [u8; KAPPA_BYTES],
    /// `k_{c_k}` for each OT.
    pub keys: Vec<Seed>,
}

impl core::fmt::Debug for BaseOtSenderOutput {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("BaseOtSenderOutput(<redacted>)")
    }
}
impl core::fmt::Debug for BaseOtReceiverOutput {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("BaseOtReceiverOutput(<redacted>)")
    }
}

fn derive_key(sid: &[u8; 32], k: usize, big_b: &[u8], a_k: &[u8], shared: &[u8]) -> Seed {
    tagged_hash(
        TAG_KEY,
        &[sid, &(k as u32).to_be_bytes(), big_b, a_k, shared],
    )
}

/// Sender, first (and only outgoing) message.
pub fn sender_round1(
    sid: [u8; 32],
    me: PartyId,
    rng: &mut impl CryptoRngCore,
) -> (BaseOtSender, BaseOtMsg1) {
    let b = Scalar::generate_biased(rng);
    let big_b = base_mul(&b);
    let proof = DlogProof::prove(PROOF_LABEL, &sid, me, &b, &big_b, rng);
    (BaseOtSender { sid, b, big_b }, BaseOtMsg1 { big_b, proof })
}

/// Receiver: checks the sender's proof, picks `κ` random choice bits and answers.
/// `sender` is the sender's id (bound into the proof) and is blamed if the proof fails.
pub fn receiver_round(
    sid: [u8; 32],
    sender: PartyId,
    msg: &BaseOtMsg1,
    rng: &mut impl CryptoRngCore,
) -> Result<(BaseOtReceiverOutput, BaseOtMsg2)> {
    if !msg.proof.verify(PROOF_LABEL, &sid, sender, &msg.big_b) {
        return Err(EcdsaError::blame(
            sender,
            "base OT: proof of knowledge of B",
        ));
    }
    let mut choices = [0u8; KAPPA_BYTES];
    rng.fill_bytes(&mut choices);
    let big_b_bytes = msg.big_b.to_affine().to_bytes();
    let mut a_points = Vec::with_capacity(KAPPA);
    let mut shared = Vec::with_capacity(KAPPA);
    for k in 0..KAPPA {
        let mut a = Scalar::generate_biased(rng);
        let a_g = base_mul(&a);
        let bit = Choice::from((choices[k / 8] >> (k % 8)) & 1);
        a_points.push(ProjectivePoint::conditional_select(
            &a_g,
            &(a_g + msg.big_b),
            bit,
        ));
        shared.push(msg.big_b * a);
        a.zeroize();
    }
    let a_aff = ProjectivePoint::batch_normalize(a_points.as_slice());
    let mut s_aff = ProjectivePoint::batch_normalize(shared.as_slice());
    shared.zeroize();
    let keys = a_aff
        .iter()
        .zip(&s_aff)
        .enumerate()
        .map(|(k, (a, s))| {
            let mut s_bytes = s.to_bytes();
            let key = derive_key(&sid, k, &big_b_bytes, &a.to_bytes(), &s_bytes);
            let s_slice: &mut [u8] = &mut s_bytes;
            s_slice.zeroize();
            key
        })
        .collect();
    s_aff.zeroize();
    Ok((
        BaseOtReceiverOutput { choices, keys },
        BaseOtMsg2 { a_points },
    ))
}

/// Sender: derives both keys of every OT. `receiver` is blamed for a wrong-length message.
pub fn sender_finish(
    state: BaseOtSender,
    receiver: PartyId,
    msg: &BaseOtMsg2,
) -> Result<BaseOtSenderOutput> {
    if msg.a_points.len() != KAPPA {
        return Err(EcdsaError::blame(
            receiver,
            "base OT: number of receiver points",
        ));
    }
    let mut bb = state.big_b * state.b;
    let mut pts = Vec::with_capacity(2 * KAPPA);
    for a in &msg.a_points {
        let ba = *a * state.b;
        pts.push(ba);
        pts.push(ba - bb);
    }
    let mut aff = ProjectivePoint::batch_normalize(pts.as_slice());
    pts.zeroize();
    bb.zeroize();
    let a_aff = ProjectivePoint::batch_normalize(msg.a_points.as_slice());
    let big_b_bytes = state.big_b.to_affine().to_bytes();
    let mut keys0 = Vec::with_capacity(KAPPA);
    let mut keys1 = Vec::with_capacity(KAPPA);
    for (k, a) in a_aff.iter().enumerate() {
        let a_bytes = a.to_bytes();
        let (p0, p1) = (aff[2 * k], aff[2 * k + 1]);
        keys0.push(derive_key(
            &state.sid,
            k,
            &big_b_bytes,
            &a_bytes,
            &p0.to_bytes(),
        ));
        keys1.push(derive_key(
            &state.sid,
            k,
            &big_b_bytes,
            &a_bytes,
            &p1.to_bytes(),
        ));
    }
    aff.zeroize();
    Ok(BaseOtSenderOutput { keys0, keys1 })
}

impl BaseOtMsg1 {
    /// Encoded length.
    pub const LEN: usize = POINT_LEN + crate::curve::DLOG_PROOF_LEN;

    /// Writes the message.
    pub fn write(&self, w: &mut Writer) {
        write_point(w, &self.big_b);
        self.proof.write(w);
    }

    /// Reads the message.
    pub fn read(r: &mut Reader<'_>) -> core::result::Result<Self, DecodeError> {
        Ok(BaseOtMsg1 {
            big_b: read_point(r, "base OT B")?,
            proof: DlogProof::read(r)?,
        })
    }
}

impl BaseOtMsg2 {
    /// Writes the message (length-prefixed).
    pub fn write(&self, w: &mut Writer) {
        w.u16(self.a_points.len() as u16);
        for a in &self.a_points {
            write_point(w, a);
        }
    }

    /// Reads the message (any length up to `2κ`; the protocol checks the exact length).
    pub fn read(r: &mut Reader<'_>) -> core::result::Result<Self, DecodeError> {
        let len = r.len_prefix(2 * KAPPA)?;
        let mut a_points = Vec::with_capacity(len);
        for _ in 0..len {
            a_points.push(read_point(r, "base OT A_k")?);
        }
        Ok(BaseOtMsg2 { a_points })
    }

    /// Test hook: drops the last point (a wrong-length vector).
    #[cfg(any(test, feature = "test-faults"))]
    pub fn truncate_for_test(&mut self) {
        self.a_points.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn pid(i: u16) -> PartyId {
        PartyId::new(i).expect("nonzero")
    }

    #[test]
    fn receiver_gets_chosen_key_only() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let sid = [7u8; 32];
        let (s, m1) = sender_round1(sid, pid(1), &mut rng);
        let (r_out, m2) = receiver_round(sid, pid(1), &m1, &mut rng).expect("valid");
        let s_out = sender_finish(s, pid(2), &m2).expect("valid");
        for k in 0..KAPPA {
            let c = (r_out.choices[k / 8] >> (k % 8)) & 1;
            let (chosen, other) = if c == 0 {
                (&s_out.keys0[k], &s_out.keys1[k])
            } else {
                (&s_out.keys1[k], &s_out.keys0[k])
            };
            assert_eq!(&r_out.keys[k], chosen);
            assert_ne!(&r_out.keys[k], other);
        }
    }

    #[test]
    fn bad_proof_and_wrong_sid_are_blamed() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let (_s, m1) = sender_round1([1u8; 32], pid(3), &mut rng);
        // Wrong session id: the proof is bound to the session.
        let err = receiver_round([2u8; 32], pid(3), &m1, &mut rng).expect_err("must fail");
        assert_eq!(err.culprits(), &[pid(3)]);
        // Wrong prover id.
        let err = receiver_round([1u8; 32], pid(4), &m1, &mut rng).expect_err("must fail");
        assert_eq!(err.culprits(), &[pid(4)]);
    }

    #[test]
    fn identity_and_garbage_points_are_rejected() {
        let mut w = Writer::new();
        w.bytes(&[0u8; BaseOtMsg1::LEN]);
        let bytes = w.into_bytes();
        assert!(BaseOtMsg1::read(&mut Reader::new("m", &bytes)).is_err());
        let mut garbage = vec![2u8; BaseOtMsg1::LEN];
        garbage[0] = 5;
        assert!(BaseOtMsg1::read(&mut Reader::new("m", &garbage)).is_err());
    }
}
