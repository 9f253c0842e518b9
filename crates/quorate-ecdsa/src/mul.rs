//! Two-party multiplication from correlated OT: DKLs19 Protocol 1 ("random multiplication",
//! eprint 2019/523 §3), in the random-receiver-input / vector-sender-input form that DKLs23
//! (eprint 2023/765, Functionality 3.5 "RVOLE") uses, with DKLs19's consistency check.
//!
//! * **Receiver (Bob)** samples `γ ∈ {0,1}^ℓ` (`ℓ = κ_q + 2s = 256 + 160 = 416`) and so holds
//!   the random input `χ = ⟨g, γ⟩` for a public random gadget vector `g`. Because `γ` has
//!   `2s` more bits of entropy than `χ` needs, selective-failure probes on individual bits
//!   of `γ` reveal (statistically) nothing about `χ`. It runs the OT-extension receiver with
//!   choice bits `γ` ([`crate::ot::ext`]).
//! * **Sender (Alice)** has inputs `a = (a_1, a_2)` and a random check input `â`. For every
//!   row `j` the random-OT messages are hashed to pads `ω^0_j = H(sid, j, q_j)`,
//!   `ω^1_j = H(sid, j, q_j ⊕ Δ)` (three scalars each); she keeps `z^A_j = −ω^0_j` and sends
//!   `τ_j = ω^0_j − ω^1_j + (a_1, a_2, â)`. Bob sets `z^B_j = ω^{γ_j}_j + γ_j·τ_j`, so
//!   `z^A_j + z^B_j = γ_j·(a_1, a_2, â)`.
//! * **Check** (DKLs19 Protocol 1, steps 5–7): `θ_1, θ_2 = H(sid, τ)`; Alice computes
//!   `r_j = θ_1 z^A_{j,1} + θ_2 z^A_{j,2} + z^A_{j,3}` and sends `u = θ_1 a_1 + θ_2 a_2 + â`;
//!   Bob checks `θ_1 z^B_{j,1} + θ_2 z^B_{j,2} + z^B_{j,3} + r_j = γ_j·u` for every `j`. A
//!   sender who used different inputs in different rows fails unless it guessed the
//!   affected bits of `γ`; either way the failure is attributed to it and it is banned.
//!
//!   *Compression.* DKLs19 sends the vector `r` (`ℓ` scalars, 13 KB). Bob can compute the
//!   only acceptable value of every `r_j` himself, `r'_j = γ_j·u − (θ_1 z^B_{j,1} +
//!   θ_2 z^B_{j,2} + z^B_{j,3})`, so Alice sends `ρ = H(sid, r_1, …, r_ℓ)` instead (32 bytes)
//!   and Bob accepts iff `H(sid, r'_1, …, r'_ℓ) = ρ`. Equal hashes mean `r = r'` unless
//!   Alice found a SHA-256 collision, so this is the same check with the same attribution
//!   (the DKLs23 implementations compress it the same way); only the bytes change.
//! * **Fresh pads.** The pads above use `sid' = H(sid, salt)` with a fresh salt of
//!   Alice's, sent with `τ` (and the extension uses a fresh nonce of Bob's), so a reused
//!   session id never reuses pads; see `salted_sid` for the key-extraction attack this
//!   prevents.
//! * Outputs: Alice `c_l = Σ_j g_j z^A_{j,l}`, Bob `d_l = Σ_j g_j z^B_{j,l}`, with
//!   `c_l + d_l = a_l·χ`.

use crate::curve::{
    read_scalar, scalar_from_bytes, scalar_reduce, tagged_hash, write_scalar, SCALAR_LEN,
};
use crate::error::{EcdsaError, Result};
use crate::ot::ext::{self, OteMsg, OteReceiverSeeds, OteSenderSeeds, ReceiverRows};
use k256::elliptic_curve::Field;
use k256::Scalar;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, PartyId};
use rand_core::CryptoRngCore;
use sha2::digest::generic_array::GenericArray;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Number of OTs per multiplication: `κ_q + 2s` with `κ_q = 256`, `s = 80`.
pub const ELL: usize = 416;
/// Number of sender inputs multiplied by the same receiver input (forced reuse).
pub const L: usize = 2;
/// Scalars per row: the `L` inputs plus the check input.
const W: usize = L + 1;

const TAG_PAD: &[u8; 32] = b"quorate/ecdsa/mul/pad/v1________";
const TAG_THETA: &[u8] = b"quorate/ecdsa/mul/theta/v1";
const TAG_CHECK: &[u8] = b"quorate/ecdsa/mul/check-vector/v1";
const TAG_GADGET: &[u8] = b"quorate/ecdsa/mul/gadget/v1";
const TAG_SALT: &[u8] = b"quorate/ecdsa/mul/salted-sid/v1";

/// The multiplication's own session id `H(sid, salt)` with a fresh 32-byte salt chosen by
/// the sender (Alice) and sent with `τ`. Pads, `θ` and the check vector are derived from
/// it.
///
/// *Why.* The random-OT pads must never be reused. The pads were `H(sid, j, q_j)` and
/// `H(sid, j, q_j ⊕ Δ)`, and `q_j` is determined by the long-lived seeds, the session id and
/// the receiver's message. If the same `sid` is used twice (the signing session id is
/// chosen outside the protocol, possibly by a malicious co-signer), a receiver that flips
/// its choice bit `γ_j` between the two runs swaps Alice's two pads: the second run's pads
/// are the first run's in the other order, so `τ_j + τ'_j = a + a'`. With `a_2 = sk_i`
/// (the same in every signing with the same signer set) that reveals `2·sk_i`, i.e. the key
/// share, after two signings. Salting the pads with Alice's fresh randomness makes every
/// run's pads independent of every other run's, whatever `sid` the caller supplies.
fn salted_sid(sid: &[u8; 32], salt: &[u8; 32]) -> [u8; 32] {
    tagged_hash(TAG_SALT, &[sid, salt])
}

/// The public gadget vector `g` (random, derived from a fixed tag).
fn gadget() -> &'static [Scalar] {
    static G: OnceLock<Vec<Scalar>> = OnceLock::new();
    G.get_or_init(|| {
        (0..ELL)
            .map(|j| scalar_reduce(&tagged_hash(TAG_GADGET, &[&(j as u32).to_be_bytes()])))
            .collect()
    })
}

/// The pad hash of one multiplication: the SHA-256 state after the one-block prefix
/// `TAG_PAD ‖ sid`, and scratch space for the final block and the digest (secret: they
/// hold an OT row and a pad). The scratch is wiped once, on drop, instead of after every
/// pad.
#[derive(Zeroize, ZeroizeOnDrop)]
struct PadHasher {
    prefix: [u32; 8],
    block: [u8; 64],
    state: [u32; 8],
    digest: [u8; 32],
}

impl PadHasher {
    fn new(sid: &[u8; 32]) -> Self {
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(TAG_PAD);
        block[32..].copy_from_slice(sid);
        let mut prefix = crate::curve::SHA256_IV;
        sha2::compress256(&mut prefix, &[block.into()]);
        // The final block: `j ‖ row ‖ l` (21 bytes), then SHA-256's padding for an 85-byte
        // message, written out once here (a unit test checks the result against
        // `Sha256::digest`).
        let mut block = [0u8; 64];
        block[21] = 0x80;
        block[56..].copy_from_slice(&(85u64 * 8).to_be_bytes());
        PadHasher {
            prefix,
            block,
            state: [0; 8],
            digest: [0; 32],
        }
    }

    /// Hashes an OT row to `W` pad scalars: `ω_l = SHA-256(TAG_PAD ‖ sid ‖ j ‖ row ‖ l)`
    /// reduced mod `q`, one compression each on the precomputed prefix state.
    fn pads(&mut self, j: usize, row: u128) -> [Scalar; W] {
        self.block[..4].copy_from_slice(&(j as u32).to_be_bytes());
        self.block[4..20].copy_from_slice(&row.to_le_bytes());
        core::array::from_fn(|l| {
            self.block[20] = l as u8;
            self.state = self.prefix;
            sha2::compress256(
                &mut self.state,
                core::slice::from_ref(GenericArray::from_slice(&self.block)),
            );
            for (d, w) in self.digest.chunks_exact_mut(4).zip(&self.state) {
                d.copy_from_slice(&w.to_be_bytes());
            }
            scalar_reduce(&self.digest)
        })
    }
}

fn bit(bits: &[u8], j: usize) -> Choice {
    Choice::from((bits[j / 8] >> (j % 8)) & 1)
}

/// Bob's state between his message and Alice's answer. Consumed by [`receiver_finish`].
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct MulReceiver {
    sid: [u8; 32],
    rows: ReceiverRows,
    gamma: Vec<u8>,
    chi: Scalar,
}

impl core::fmt::Debug for MulReceiver {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("MulReceiver(<redacted>)")
    }
}

impl MulReceiver {
    /// Bob's random input `χ`.
    pub fn chi(&self) -> Scalar {
        self.chi
    }
}

/// Alice → Bob: the corrections `τ` and the check values `ρ = H(sid, r)`, `u`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MulMsg {
    /// Alice's fresh salt (see `salted_sid`).
    salt: [u8; 32],
    tau: Vec<[Scalar; W]>,
    /// The canonical encoding of `tau` (kept so that it is hashed and sent without
    /// re-encoding).
    tau_bytes: Vec<u8>,
    r_hash: [u8; 32],
    u: Scalar,
}

/// `ρ = H(sid, r_1, …, r_ℓ)`, the commitment to the check vector.
fn check_vector_hash(sid: &[u8; 32], r: impl Iterator<Item = Scalar>) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update((TAG_CHECK.len() as u64).to_be_bytes());
    h.update(TAG_CHECK);
    h.update(sid);
    for s in r {
        h.update(s.to_bytes());
    }
    h.finalize().into()
}

/// Bob, first message: samples `γ`, runs the extension receiver.
pub fn receiver_round1(
    seeds: &OteReceiverSeeds,
    sid: &[u8; 32],
    rng: &mut impl CryptoRngCore,
) -> (MulReceiver, OteMsg) {
    receiver_round1_inner(seeds, sid, 0, rng)
}

/// Fault-injection hook: a malicious Bob whose extension message deviates in the columns
/// of `deviate` (see `ext::receiver_extend_malicious`) and is otherwise honest, so that a
/// check that passes leaves a correct multiplication (a selective-failure probe of `Δ`).
#[cfg(any(test, feature = "test-faults"))]
pub fn receiver_round1_malicious(
    seeds: &OteReceiverSeeds,
    sid: &[u8; 32],
    deviate: u128,
    rng: &mut impl CryptoRngCore,
) -> (MulReceiver, OteMsg) {
    receiver_round1_inner(seeds, sid, deviate, rng)
}

fn receiver_round1_inner(
    seeds: &OteReceiverSeeds,
    sid: &[u8; 32],
    deviate: u128,
    rng: &mut impl CryptoRngCore,
) -> (MulReceiver, OteMsg) {
    let mut gamma = vec![0u8; ELL / 8];
    rng.fill_bytes(&mut gamma);
    let g = gadget();
    let mut chi = Scalar::ZERO;
    for (j, gj) in g.iter().enumerate() {
        chi += Scalar::conditional_select(&Scalar::ZERO, gj, bit(&gamma, j));
    }
    let (rows, msg) = ext::receiver_extend_deviating(seeds, sid, ELL, &gamma, deviate, rng);
    (
        MulReceiver {
            sid: *sid,
            rows,
            gamma,
            chi,
        },
        msg,
    )
}

/// Alice: checks Bob's extension message (blaming `receiver`), multiplies her `inputs` by
/// Bob's random `χ`, returns her output shares `c` and the message for Bob.
pub fn sender_round2(
    seeds: &OteSenderSeeds,
    sid: &[u8; 32],
    receiver: PartyId,
    inputs: &[Scalar; L],
    ote: &OteMsg,
    rng: &mut impl CryptoRngCore,
) -> Result<([Scalar; L], MulMsg)> {
    sender_round2_inner(seeds, sid, receiver, inputs, ote, None, rng)
}

/// Fault-injection hook: a malicious Alice who uses `a_1 + 1` instead of `a_1` in row
/// `row` only, and otherwise follows the protocol (including the Fiat–Shamir check values).
/// Bob detects it exactly when `γ_row = 1`.
#[cfg(any(test, feature = "test-faults"))]
pub fn sender_round2_malicious(
    seeds: &OteSenderSeeds,
    sid: &[u8; 32],
    receiver: PartyId,
    inputs: &[Scalar; L],
    ote: &OteMsg,
    row: usize,
    rng: &mut impl CryptoRngCore,
) -> Result<([Scalar; L], MulMsg)> {
    sender_round2_inner(seeds, sid, receiver, inputs, ote, Some(row), rng)
}

fn sender_round2_inner(
    seeds: &OteSenderSeeds,
    sid: &[u8; 32],
    receiver: PartyId,
    inputs: &[Scalar; L],
    ote: &OteMsg,
    deviate: Option<usize>,
    rng: &mut impl CryptoRngCore,
) -> Result<([Scalar; L], MulMsg)> {
    let rows = ext::sender_extend(seeds, sid, ELL, receiver, ote)?;
    let delta = seeds.delta_row();
    let a = zeroize::Zeroizing::new([inputs[0], inputs[1], Scalar::random(&mut *rng)]);
    let mut salt = [0u8; 32];
    rng.fill_bytes(&mut salt);
    let msid = salted_sid(sid, &salt);
    let sid = &msid;
    let mut hasher = PadHasher::new(sid);
    let mut z_a: Vec<[Scalar; W]> = Vec::with_capacity(ELL);
    let mut tau: Vec<[Scalar; W]> = Vec::with_capacity(ELL);
    let mut tau_bytes = Vec::with_capacity(ELL * W * 32);
    for (j, q) in rows.0.iter().enumerate() {
        let mut w0 = hasher.pads(j, *q);
        let mut w1 = hasher.pads(j, *q ^ delta);
        let mut z = [Scalar::ZERO; W];
        let mut t = [Scalar::ZERO; W];
        for l in 0..W {
            z[l] = -w0[l];
            t[l] = w0[l] - w1[l] + a[l];
        }
        w0.zeroize();
        w1.zeroize();
        if deviate == Some(j) {
            t[0] += Scalar::ONE;
        }
        z_a.push(z);
        for x in &t {
            tau_bytes.extend_from_slice(&x.to_bytes());
        }
        tau.push(t);
    }
    let theta = theta(sid, &tau_bytes);
    let r_hash = check_vector_hash(
        sid,
        z_a.iter().map(|z| theta[0] * z[0] + theta[1] * z[1] + z[2]),
    );
    let u = theta[0] * a[0] + theta[1] * a[1] + a[2];
    let g = gadget();
    let mut c = [Scalar::ZERO; L];
    for (gj, z) in g.iter().zip(&z_a) {
        for l in 0..L {
            c[l] += *gj * z[l];
        }
    }
    for z in z_a.iter_mut() {
        z.zeroize();
    }
    Ok((
        c,
        MulMsg {
            salt,
            tau,
            tau_bytes,
            r_hash,
            u,
        },
    ))
}

/// Fiat–Shamir coefficients `θ_1, θ_2 = H(sid, τ)` over the canonical encoding of `τ`.
fn theta(sid: &[u8; 32], tau_bytes: &[u8]) -> [Scalar; 2] {
    let mut h = Sha256::new();
    h.update(TAG_THETA);
    h.update(sid);
    h.update(tau_bytes);
    let d: [u8; 32] = h.finalize().into();
    [
        scalar_reduce(&tagged_hash(TAG_THETA, &[&d, b"1"])),
        scalar_reduce(&tagged_hash(TAG_THETA, &[&d, b"2"])),
    ]
}

/// Bob: runs the DKLs19 check (blaming `sender`) and returns `(χ, d)` with
/// `c_l + d_l = a_l·χ`.
pub fn receiver_finish(
    state: MulReceiver,
    sender: PartyId,
    msg: &MulMsg,
) -> Result<(Scalar, [Scalar; L])> {
    if msg.tau.len() != ELL {
        return Err(EcdsaError::blame(sender, "multiplication: message length"));
    }
    let msid = salted_sid(&state.sid, &msg.salt);
    let theta = theta(&msid, &msg.tau_bytes);
    let mut hasher = PadHasher::new(&msid);
    let g = gadget();
    let mut d = [Scalar::ZERO; L];
    // r'_j = γ_j·u − θ·z^B_j: the only value of r_j that passes DKLs19's check in row j.
    let mut expected_r = Vec::with_capacity(ELL);
    for (j, t_row) in state.rows.0.iter().enumerate() {
        let gamma = bit(&state.gamma, j);
        let mut w = hasher.pads(j, *t_row);
        let mut z = [Scalar::ZERO; W];
        for l in 0..W {
            z[l] = w[l] + Scalar::conditional_select(&Scalar::ZERO, &msg.tau[j][l], gamma);
        }
        w.zeroize();
        let rhs = Scalar::conditional_select(&Scalar::ZERO, &msg.u, gamma);
        expected_r.push(rhs - (theta[0] * z[0] + theta[1] * z[1] + z[2]));
        for l in 0..L {
            d[l] += g[j] * z[l];
        }
        z.zeroize();
    }
    let ok = check_vector_hash(&msid, expected_r.iter().copied()).ct_eq(&msg.r_hash);
    expected_r.zeroize();
    if !bool::from(ok) {
        return Err(EcdsaError::blame(
            sender,
            "multiplication: DKLs19 consistency check",
        ));
    }
    Ok((state.chi, d))
}

impl MulMsg {
    /// Writes the message.
    pub fn write(&self, w: &mut Writer) {
        w.bytes(&self.salt);
        w.u16(self.tau.len() as u16);
        w.bytes(&self.tau_bytes);
        w.bytes(&self.r_hash);
        write_scalar(w, &self.u);
    }

    /// Reads the message (length-prefixed; the protocol checks the exact length).
    pub fn read(r: &mut Reader<'_>) -> core::result::Result<Self, DecodeError> {
        let salt = r.array()?;
        let n = r.len_prefix(2 * ELL)?;
        let tau_bytes = r.take(n * W * SCALAR_LEN)?;
        let mut tau = Vec::with_capacity(n);
        for row in tau_bytes.chunks_exact(W * SCALAR_LEN) {
            let mut t = [Scalar::ZERO; W];
            for (s, b) in t.iter_mut().zip(row.chunks_exact(SCALAR_LEN)) {
                *s = scalar_from_bytes("multiplication tau", b)?;
            }
            tau.push(t);
        }
        let r_hash = r.array()?;
        let u = read_scalar(r, "multiplication check u")?;
        Ok(MulMsg {
            salt,
            tau,
            tau_bytes: tau_bytes.to_vec(),
            r_hash,
            u,
        })
    }

    /// Test hook: drops the last row (a wrong-length vector).
    #[cfg(any(test, feature = "test-faults"))]
    pub fn truncate_for_test(&mut self) {
        self.tau.pop();
        self.tau_bytes.truncate(self.tau.len() * W * SCALAR_LEN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ot::base;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn pid(i: u16) -> PartyId {
        PartyId::new(i).expect("nonzero")
    }

    fn setup(rng: &mut ChaCha20Rng) -> (OteSenderSeeds, OteReceiverSeeds) {
        let sid = [3u8; 32];
        let (s, m1) = base::sender_round1(sid, pid(2), rng);
        let (r_out, m2) = base::receiver_round(sid, pid(2), &m1, rng).expect("ok");
        let s_out = base::sender_finish(s, pid(1), &m2).expect("ok");
        (r_out.into(), s_out.into())
    }

    #[test]
    fn pads_are_sha256_of_the_documented_input() {
        let sid = [0x5au8; 32];
        let row = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        let mut hasher = PadHasher::new(&sid);
        // Twice: the scratch left by a first row must not change the second.
        hasher.pads(7, !row);
        let got = hasher.pads(300, row);
        for (l, p) in got.iter().enumerate() {
            let mut h = Sha256::new();
            h.update(TAG_PAD);
            h.update(sid);
            h.update(300u32.to_be_bytes());
            h.update(row.to_le_bytes());
            h.update([l as u8]);
            assert_eq!(*p, scalar_reduce(&h.finalize().into()));
        }
    }

    #[test]
    fn products_are_correct() {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let (alice, bob) = setup(&mut rng);
        for round in 0..3u8 {
            let sid = [round; 32];
            let a = [Scalar::random(&mut rng), Scalar::random(&mut rng)];
            let (st, m1) = receiver_round1(&bob, &sid, &mut rng);
            let (c, m2) = sender_round2(&alice, &sid, pid(2), &a, &m1, &mut rng).expect("honest");
            let mut w = Writer::new();
            m2.write(&mut w);
            let bytes = w.into_bytes();
            let mut r = Reader::new("mul", &bytes);
            let decoded = MulMsg::read(&mut r).expect("decodes");
            r.finish().expect("exact");
            assert_eq!(decoded, m2);
            let (chi, d) = receiver_finish(st, pid(1), &decoded).expect("honest");
            assert_eq!(c[0] + d[0], a[0] * chi);
            assert_eq!(c[1] + d[1], a[1] * chi);
        }
    }

    /// A reused session id must not reuse pads. The attack: a receiver that replays its
    /// extension nonce under the same `sid` and flips every choice bit between two runs
    /// swaps Alice's two pads, so without fresh pads `τ_j + τ'_j = a + a'` reveals
    /// `2·sk` when the second input is the same in both runs (it was, before the salt).
    #[test]
    fn reused_session_id_does_not_reveal_the_sender_input() {
        let mut rng = ChaCha20Rng::seed_from_u64(21);
        let (alice, bob) = setup(&mut rng);
        let sid = [9u8; 32];
        let sk = Scalar::random(&mut rng);
        let bob_rng = ChaCha20Rng::seed_from_u64(22);
        let mut taus = Vec::new();
        for flip in [0x00u8, 0xFF] {
            let gamma = vec![flip; ELL / 8];
            // The same Bob randomness both times: the same extension nonce (a replay).
            let (rows, m1) = ext::receiver_extend(&bob, &sid, ELL, &gamma, &mut bob_rng.clone());
            let chi = gadget()
                .iter()
                .enumerate()
                .fold(Scalar::ZERO, |acc, (j, g)| {
                    Scalar::conditional_select(&acc, &(acc + g), bit(&gamma, j))
                });
            let st = MulReceiver {
                sid,
                rows,
                gamma,
                chi,
            };
            let a = [Scalar::random(&mut rng), sk];
            let (c, m2) = sender_round2(&alice, &sid, pid(2), &a, &m1, &mut rng).expect("ok");
            // Both runs pass every check: the replay itself is not detectable.
            let (chi, d) = receiver_finish(st, pid(1), &m2).expect("consistent");
            assert_eq!(c[1] + d[1], sk * chi);
            taus.push(m2.tau[0][1]);
        }
        assert_ne!(taus[0] + taus[1], sk + sk, "pads were reused across runs");
    }

    #[test]
    fn inconsistent_sender_is_blamed() {
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        let (alice, bob) = setup(&mut rng);
        let sid = [1u8; 32];
        let a = [Scalar::ONE, Scalar::ONE];
        let mut caught = 0;
        for j in 0..16 {
            let (st, m1) = receiver_round1(&bob, &sid, &mut rng);
            let gamma_j = bool::from(bit(&st.gamma, j));
            let (_c, m2) =
                sender_round2_malicious(&alice, &sid, pid(2), &a, &m1, j, &mut rng).expect("ok");
            match receiver_finish(st, pid(1), &m2) {
                Err(e) => {
                    // Detected exactly when the probed bit is 1 (selective failure on γ_j,
                    // which is why γ carries 2s bits of slack and failures ban).
                    assert!(gamma_j);
                    assert_eq!(e.culprits(), &[pid(1)]);
                    caught += 1;
                }
                Ok(_) => assert!(!gamma_j),
            }
        }
        assert!(caught > 0);
        // Wrong length.
        let (st, m1) = receiver_round1(&bob, &sid, &mut rng);
        let (_c, mut m2) = sender_round2(&alice, &sid, pid(2), &a, &m1, &mut rng).expect("ok");
        m2.truncate_for_test();
        let err = receiver_finish(st, pid(1), &m2).expect_err("short");
        assert_eq!(err.check(), Some("multiplication: message length"));
    }
}
