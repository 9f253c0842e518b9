//! OT extension: IKNP/KOS with the *revised* consistency check (KOS15, eprint 2015/546,
//! revised Fig. 10, after SoftSpokenOT, eprint 2022/192 — the original KOS check relied on a
//! false lemma).
//!
//! Roles (IKNP reversal): the extension **sender** holds `Δ ∈ {0,1}^κ` (its base-OT choice
//! bits) and `k_i^{Δ_i}`; the extension **receiver** holds both base keys `k_i^0, k_i^1`.
//!
//! For `m = ℓ + σ` rows (σ = 128 padding rows that are sacrificed to the check) and the
//! session id `sid = H(sid_caller, nonce)` with the receiver's fresh nonce (sent first in its
//! message, see `fresh_sid`):
//!
//! 1. The receiver picks choice bits `x ∈ {0,1}^ℓ` and random padding bits, and for each
//!    column `i < κ` sets `t_i = G(k_i^0, sid)`, sends `u_i = t_i ⊕ G(k_i^1, sid) ⊕ x`.
//! 2. The sender computes `q_i = G(k_i^{Δ_i}, sid) ⊕ Δ_i·u_i = t_i ⊕ Δ_i·x`.
//! 3. **Check** (on the untransposed columns, per the revised protocol): split each column
//!    into 128-bit blocks `(c^0, …, c^{B−1}, c^pad)` over GF(2^128). Challenges
//!    `χ_0..χ_{B−1}` come from a random oracle on `(sid, u)` (Fiat–Shamir, so no extra round).
//!    The universal hash is `h(c) = Σ_b χ_b·c^b + c^pad`. The receiver sends `x̃ = h(x)` and
//!    `t̃_i = h(t_i)` for every column; the sender accepts iff `h(q_i) = t̃_i + Δ_i·x̃` for all
//!    `i`. Because `h` is GF(2)-linear this holds for an honest receiver; a receiver that
//!    used a different `x` in different columns is caught except with probability about
//!    `2^-128` per inconsistency pattern (or learns a bit of `Δ` and is then banned).
//!
//!    *Computation.* The `κ` values `t̃_i` are sent bit-sliced: word `r` of the message holds
//!    bit `r` of every `t̃_i` (bit `i` of the word), and the sender compares word-wise,
//!    `h(q)[r] = t̃[r] ⊕ x̃_r·Δ`, which is the same set of `κ·128` bit equations. Since `h`
//!    is GF(2)-linear, `h(c)[r] = ⊕_j e_j[r]·c[j] ⊕ c[ℓ + r]` with the public constants
//!    `e_j = χ_{⌊j/128⌋}·X^{j mod 128}`, so all `κ` columns are hashed at once from the
//!    transposed rows: `h[r] = ⊕_{j : e_j[r] = 1} row_j ⊕ row_{ℓ+r}`. The only branches are
//!    on the public challenge bits; the secret rows are only XORed.
//! 4. Rows: the receiver holds `t_j` and the sender `q_j`, with `q_j = t_j ⊕ x_j·Δ`, so
//!    `(H(q_j), H(q_j ⊕ Δ))` are the sender's random OT messages and `H(t_j)` is the
//!    receiver's chosen one.

use super::base::{BaseOtReceiverOutput, BaseOtSenderOutput, Seed, KAPPA, KAPPA_BYTES};
use crate::error::{EcdsaError, Result};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, PartyId};
use rand_core::CryptoRngCore;
use subtle::{Choice, ConstantTimeEq};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Padding rows sacrificed to the consistency check.
pub const PAD_ROWS: usize = 128;

const TAG_PRG: &[u8; 32] = b"quorate/ecdsa/ote/prg/v1________";
const TAG_CHI: &[u8] = b"quorate/ecdsa/ote/kos-chi/v1";
const TAG_BOOT: &[u8] = b"quorate/ecdsa/ote/bootstrap-key/v1";
const TAG_NONCE: &[u8] = b"quorate/ecdsa/ote/fresh-sid/v1";

/// The extension's own session id `H(sid, nonce)`: the caller's session id (protocol, key,
/// parties, signing session) together with a fresh 32-byte nonce chosen by the receiver and
/// sent in its message. The PRG expansion and the check's challenges use it, so an honest
/// receiver's rows are fresh even if a caller (or a malicious counterparty proposing the
/// session id) reuses `sid`; without it, two extensions under one `sid` would expose the XOR
/// of the receiver's two choice vectors.
fn fresh_sid(sid: &[u8; 32], nonce: &[u8; 32]) -> [u8; 32] {
    crate::curve::tagged_hash(TAG_NONCE, &[sid, nonce])
}

/// Extension-sender seeds: `Δ` and `k_i^{Δ_i}`. Long-lived pairwise state.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct OteSenderSeeds {
    delta: [u8; KAPPA_BYTES],
    /// PRG keys of `k_i^{Δ_i}` (see [`PrgKey`]).
    seeds: Vec<PrgKey>,
}

/// Extension-receiver seeds: both base keys. Long-lived pairwise state.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct OteReceiverSeeds {
    seeds0: Vec<PrgKey>,
    seeds1: Vec<PrgKey>,
}

/// A column PRG key: the SHA-256 state after the first block `TAG_PRG ‖ seed` of every PRG
/// call on `seed`, computed once when the pairwise seeds are set up.
type PrgKey = [u32; 8];

fn prg_key(seed: &Seed) -> PrgKey {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(TAG_PRG);
    block[32..].copy_from_slice(seed);
    let mut state = crate::curve::SHA256_IV;
    sha2::compress256(&mut state, &[block.into()]);
    block.zeroize();
    state
}

impl core::fmt::Debug for OteSenderSeeds {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("OteSenderSeeds(<redacted>)")
    }
}
impl core::fmt::Debug for OteReceiverSeeds {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("OteReceiverSeeds(<redacted>)")
    }
}

impl From<BaseOtReceiverOutput> for OteSenderSeeds {
    fn from(b: BaseOtReceiverOutput) -> Self {
        OteSenderSeeds {
            delta: b.choices,
            seeds: b.keys.iter().map(prg_key).collect(),
        }
    }
}

impl From<BaseOtSenderOutput> for OteReceiverSeeds {
    fn from(b: BaseOtSenderOutput) -> Self {
        OteReceiverSeeds {
            seeds0: b.keys0.iter().map(prg_key).collect(),
            seeds1: b.keys1.iter().map(prg_key).collect(),
        }
    }
}

impl OteSenderSeeds {
    /// `Δ` as a 128-bit row value (bit `i` is `Δ_i`).
    pub(crate) fn delta_row(&self) -> u128 {
        u128::from_le_bytes(self.delta)
    }

    /// Writes `Δ` and the `κ` PRG keys (secret: only into a key-share encoding).
    pub(crate) fn write_secret(&self, w: &mut Writer) {
        w.bytes(&self.delta);
        for k in &self.seeds {
            write_key(w, k);
        }
    }

    /// Reads what [`OteSenderSeeds::write_secret`] wrote.
    pub(crate) fn read_secret(r: &mut Reader<'_>) -> core::result::Result<Self, DecodeError> {
        let delta = r.array()?;
        let seeds = (0..KAPPA)
            .map(|_| read_key(r))
            .collect::<core::result::Result<_, _>>()?;
        Ok(OteSenderSeeds { delta, seeds })
    }
}

impl OteReceiverSeeds {
    /// Writes both sets of `κ` PRG keys (secret: only into a key-share encoding).
    pub(crate) fn write_secret(&self, w: &mut Writer) {
        for k in self.seeds0.iter().chain(&self.seeds1) {
            write_key(w, k);
        }
    }

    /// Reads what [`OteReceiverSeeds::write_secret`] wrote.
    pub(crate) fn read_secret(r: &mut Reader<'_>) -> core::result::Result<Self, DecodeError> {
        let mut read = || {
            (0..KAPPA)
                .map(|_| read_key(&mut *r))
                .collect::<core::result::Result<Vec<_>, _>>()
        };
        let seeds0 = read()?;
        let seeds1 = read()?;
        Ok(OteReceiverSeeds { seeds0, seeds1 })
    }
}

fn write_key(w: &mut Writer, k: &PrgKey) {
    for word in k {
        w.bytes(&word.to_be_bytes());
    }
}

fn read_key(r: &mut Reader<'_>) -> core::result::Result<PrgKey, DecodeError> {
    let mut k = [0u32; 8];
    for word in k.iter_mut() {
        *word = u32::from_be_bytes(r.array()?);
    }
    Ok(k)
}

/// The receiver's extension message: the column corrections and the check values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OteMsg {
    nonce: [u8; 32],
    col_bytes: usize,
    u: Vec<u8>,
    x_check: u128,
    t_check: Vec<u128>,
}

/// PRG `G(seed, sid)` expanded to `len` bytes: SHA-256 in counter mode,
/// `chunk_c = SHA-256(TAG_PRG ‖ seed ‖ sid ‖ c)` (100-byte messages). The first block is
/// the precomputed [`PrgKey`]; the second (`sid ‖ c` and the padding, written out here and
/// checked against `Sha256` in a unit test) is one compression per 32 output bytes.
fn prg(key: &PrgKey, sid: &[u8; 32], out: &mut [u8]) {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(sid);
    block[36] = 0x80;
    block[56..].copy_from_slice(&(100u64 * 8).to_be_bytes());
    let mut state = *key;
    for (ctr, chunk) in out.chunks_mut(32).enumerate() {
        block[32..36].copy_from_slice(&(ctr as u32).to_be_bytes());
        state = *key;
        sha2::compress256(&mut state, &[block.into()]);
        for (bytes, word) in chunk.chunks_mut(4).zip(&state) {
            bytes.copy_from_slice(&word.to_be_bytes()[..bytes.len()]);
        }
    }
    state.zeroize();
}

/// GF(2^128) with the polynomial `X^128 + X^7 + X^2 + X + 1`; multiplication by a fixed
/// element through a table of `χ·X^k`, with masked (constant-time) selection.
struct GfTable([u128; 128]);

impl GfTable {
    fn new(chi: u128) -> Self {
        let mut t = [0u128; 128];
        let mut a = chi;
        for slot in t.iter_mut() {
            *slot = a;
            let carry = 0u128.wrapping_sub(a >> 127);
            a = (a << 1) ^ (carry & 0x87);
        }
        GfTable(t)
    }

    fn mul(&self, b: u128) -> u128 {
        let mut r = 0u128;
        for (k, t) in self.0.iter().enumerate() {
            r ^= t & 0u128.wrapping_sub((b >> k) & 1);
        }
        r
    }
}

/// Reads block `b` of a column: bytes `[16b, 16b+16)` clipped to `[0, end)`, zero-extended.
fn block(col: &[u8], start: usize, end: usize) -> u128 {
    let mut buf = [0u8; 16];
    let stop = end.min(start + 16);
    if let (Some(src), Some(dst)) = (
        col.get(start..stop),
        buf.get_mut(..stop.saturating_sub(start)),
    ) {
        dst.copy_from_slice(src);
    }
    u128::from_le_bytes(buf)
}

struct Check {
    tables: Vec<GfTable>,
    data_bytes: usize,
}

impl Check {
    fn new(sid: &[u8; 32], u: &[u8], data_bytes: usize) -> Self {
        let digest = crate::curve::tagged_hash(TAG_CHI, &[sid, u]);
        let nblocks = data_bytes.div_ceil(16);
        let tables = (0..nblocks)
            .map(|b| {
                let c = crate::curve::tagged_hash(TAG_CHI, &[&digest, &(b as u32).to_be_bytes()]);
                let mut x = [0u8; 16];
                x.copy_from_slice(&c[..16]);
                GfTable::new(u128::from_le_bytes(x))
            })
            .collect();
        Check { tables, data_bytes }
    }

    /// `h(c) = Σ_b χ_b·c^b + c^pad`.
    fn hash(&self, col: &[u8]) -> u128 {
        let mut acc = block(col, self.data_bytes, self.data_bytes + 16);
        for (b, t) in self.tables.iter().enumerate() {
            acc ^= t.mul(block(col, 16 * b, self.data_bytes));
        }
        acc
    }
}

/// Transposes a 128×128 bit matrix in place: on entry bit `c` of `a[r]` is entry `(r, c)`,
/// on exit bit `r` of `a[c]` is. Seven rounds of block swaps (Eklundh's method); data-
/// independent.
fn transpose128(a: &mut [u128; 128]) {
    let mut s = 64usize;
    let mut mask: u128 = u128::from(u64::MAX);
    while s > 0 {
        for r in 0..128 {
            if r & s == 0 {
                let t = ((a[r] >> s) ^ a[r + s]) & mask;
                a[r + s] ^= t;
                a[r] ^= t << s;
            }
        }
        s >>= 1;
        mask ^= mask << s;
    }
}

/// Transposes `κ` columns of `col_bytes·8` bits into `rows` values of 128 bits (row `j`
/// has bit `i` equal to bit `j` of column `i`), 128 rows at a time.
fn transpose(cols: &[u8], col_bytes: usize, rows: usize) -> Vec<u128> {
    let mut out = Vec::with_capacity(col_bytes.div_ceil(16) * 128);
    let mut a = [0u128; 128];
    for start in (0..col_bytes).step_by(16) {
        for (word, col) in a.iter_mut().zip(cols.chunks_exact(col_bytes)) {
            *word = block(col, start, col_bytes);
        }
        transpose128(&mut a);
        out.extend_from_slice(&a);
    }
    a.zeroize();
    out.truncate(rows);
    out
}

/// The bit-sliced check values of all `κ` columns, from the transposed rows (`ℓ` data rows
/// followed by the 128 padding rows): word `r` has bit `i` equal to bit `r` of `h(column_i)`.
fn check_rows(check: &Check, rows: &[u128]) -> Vec<u128> {
    let ell = 8 * check.data_bytes;
    let mut lo = [0u128; 64];
    let mut hi = [0u128; 64];
    for (r, row) in rows.iter().skip(ell).take(128).enumerate() {
        if r < 64 {
            lo[r] = *row;
        } else {
            hi[r - 64] = *row;
        }
    }
    for (j, row) in rows.iter().take(ell).enumerate() {
        // Public constant e_j = χ_{j/128}·X^{j mod 128}, as two 64-bit halves (single-word
        // bit scans).
        let e = check.tables[j / 128].0[j % 128];
        xor_selected(&mut lo, e as u64, *row);
        xor_selected(&mut hi, (e >> 64) as u64, *row);
    }
    let mut y = Vec::with_capacity(128);
    y.extend_from_slice(&lo);
    y.extend_from_slice(&hi);
    lo.zeroize();
    hi.zeroize();
    y
}

/// `y[r] ^= row` for every set bit `r` of the public mask `bits`.
fn xor_selected(y: &mut [u128; 64], mut bits: u64, row: u128) {
    while bits != 0 {
        y[(bits.trailing_zeros() & 63) as usize] ^= row;
        bits &= bits - 1;
    }
}

/// Bootstrapping the reverse direction (DKG): the extension receiver of this pair extends
/// `κ` random OTs with fresh random choice bits `Δ'` and keys `H(sid, k, t_k)`. They are the
/// base OTs of the opposite direction, in which it becomes the extension *sender* with
/// correlation `Δ'` (the standard use of extended OTs as base OTs; the rows are used for
/// nothing else). Returns its new sender seeds and the message for the counterparty.
pub(crate) fn bootstrap_receiver(
    seeds: &OteReceiverSeeds,
    sid: &[u8; 32],
    rng: &mut impl CryptoRngCore,
) -> (OteSenderSeeds, OteMsg) {
    let mut delta = [0u8; KAPPA_BYTES];
    rng.fill_bytes(&mut delta);
    let (rows, msg) = receiver_extend(seeds, sid, KAPPA, &delta, rng);
    let keys = rows
        .0
        .iter()
        .enumerate()
        .map(|(k, t)| prg_key(&bootstrap_key(sid, k, *t)))
        .collect();
    let out = OteSenderSeeds { delta, seeds: keys };
    delta.zeroize();
    (out, msg)
}

/// The other side of [`bootstrap_receiver`]: checks the extension (blaming `receiver`) and
/// derives both keys `H(sid, k, q_k)`, `H(sid, k, q_k ⊕ Δ)` of every reverse base OT.
pub(crate) fn bootstrap_sender(
    seeds: &OteSenderSeeds,
    sid: &[u8; 32],
    receiver: PartyId,
    msg: &OteMsg,
) -> Result<OteReceiverSeeds> {
    let rows = sender_extend(seeds, sid, KAPPA, receiver, msg)?;
    let delta = seeds.delta_row();
    let seeds0 = rows
        .0
        .iter()
        .enumerate()
        .map(|(k, q)| prg_key(&bootstrap_key(sid, k, *q)))
        .collect();
    let seeds1 = rows
        .0
        .iter()
        .enumerate()
        .map(|(k, q)| prg_key(&bootstrap_key(sid, k, *q ^ delta)))
        .collect();
    Ok(OteReceiverSeeds { seeds0, seeds1 })
}

fn bootstrap_key(sid: &[u8; 32], k: usize, row: u128) -> Seed {
    crate::curve::tagged_hash(
        TAG_BOOT,
        &[sid, &(k as u32).to_be_bytes(), &row.to_le_bytes()],
    )
}

/// Receiver rows `t_j` (secret). Wiped on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct ReceiverRows(pub(crate) Vec<u128>);

/// Sender rows `q_j` (secret). Wiped on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct SenderRows(pub(crate) Vec<u128>);

impl core::fmt::Debug for SenderRows {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SenderRows(<redacted>)")
    }
}

impl core::fmt::Debug for ReceiverRows {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ReceiverRows(<redacted>)")
    }
}

/// Receiver: extends to `ell` OTs (`ell` a multiple of 8) with choice bits `choices`
/// (packed little-endian, `ell/8` bytes). Returns its rows and the message for the sender.
pub fn receiver_extend(
    seeds: &OteReceiverSeeds,
    sid: &[u8; 32],
    ell: usize,
    choices: &[u8],
    rng: &mut impl CryptoRngCore,
) -> (ReceiverRows, OteMsg) {
    receiver_extend_deviating(seeds, sid, ell, choices, 0, rng)
}

/// Fault-injection hook: a malicious receiver that uses choice bits `x ⊕ e` (for a fixed
/// non-zero `e`) in the columns selected by `deviate` and `x` elsewhere, then computes the
/// check values `x̃ = h(x)`, `t̃_i = h(t_i)` as if it were honest. It passes the check only
/// if `Δ_i = 0` for every deviating column: the ~1-bit selective-failure leakage that makes
/// banning after a failure mandatory.
#[cfg(any(test, feature = "test-faults"))]
pub fn receiver_extend_malicious(
    seeds: &OteReceiverSeeds,
    sid: &[u8; 32],
    ell: usize,
    choices: &[u8],
    deviate: u128,
    rng: &mut impl CryptoRngCore,
) -> (ReceiverRows, OteMsg) {
    receiver_extend_deviating(seeds, sid, ell, choices, deviate, rng)
}

pub(crate) fn receiver_extend_deviating(
    seeds: &OteReceiverSeeds,
    sid: &[u8; 32],
    ell: usize,
    choices: &[u8],
    deviate: u128,
    rng: &mut impl CryptoRngCore,
) -> (ReceiverRows, OteMsg) {
    let data_bytes = ell / 8;
    let col_bytes = data_bytes + PAD_ROWS / 8;
    let mut x = vec![0u8; col_bytes];
    x[..data_bytes].copy_from_slice(&choices[..data_bytes]);
    rng.fill_bytes(&mut x[data_bytes..]);
    let mut nonce = [0u8; 32];
    rng.fill_bytes(&mut nonce);
    let xsid = fresh_sid(sid, &nonce);
    let sid = &xsid;
    let mut t = vec![0u8; KAPPA * col_bytes];
    let mut u = vec![0u8; KAPPA * col_bytes];
    let mut g1 = vec![0u8; col_bytes];
    for i in 0..KAPPA {
        let tc = &mut t[i * col_bytes..(i + 1) * col_bytes];
        prg(&seeds.seeds0[i], sid, tc);
        prg(&seeds.seeds1[i], sid, &mut g1);
        for ((uo, (a, b)), xb) in u[i * col_bytes..(i + 1) * col_bytes]
            .iter_mut()
            .zip(tc.iter().zip(&g1))
            .zip(&x)
        {
            *uo = a ^ b ^ xb;
        }
        if (deviate >> i) & 1 == 1 {
            if let Some(b) = u.get_mut(i * col_bytes) {
                *b ^= 1;
            }
        }
    }
    g1.zeroize();
    let check = Check::new(sid, &u, data_bytes);
    let x_check = check.hash(&x);
    x.zeroize();
    let mut rows = transpose(&t, col_bytes, ell + PAD_ROWS);
    t.zeroize();
    let t_check = check_rows(&check, &rows);
    rows[ell..].zeroize();
    rows.truncate(ell);
    (
        ReceiverRows(rows),
        OteMsg {
            nonce,
            col_bytes,
            u,
            x_check,
            t_check,
        },
    )
}

/// Sender: checks the receiver's message (blaming `receiver` on any failure) and returns its
/// rows `q_j` for `ell` OTs.
pub fn sender_extend(
    seeds: &OteSenderSeeds,
    sid: &[u8; 32],
    ell: usize,
    receiver: PartyId,
    msg: &OteMsg,
) -> Result<SenderRows> {
    let data_bytes = ell / 8;
    let col_bytes = data_bytes + PAD_ROWS / 8;
    if msg.col_bytes != col_bytes || msg.u.len() != KAPPA * col_bytes || msg.t_check.len() != KAPPA
    {
        return Err(EcdsaError::blame(receiver, "OT extension: message length"));
    }
    let xsid = fresh_sid(sid, &msg.nonce);
    let sid = &xsid;
    let check = Check::new(sid, &msg.u, data_bytes);
    let delta = seeds.delta_row();
    let mut q = vec![0u8; KAPPA * col_bytes];
    for i in 0..KAPPA {
        let qc = &mut q[i * col_bytes..(i + 1) * col_bytes];
        prg(&seeds.seeds[i], sid, qc);
        let mask = 0u8.wrapping_sub(((delta >> i) & 1) as u8);
        for (qb, ub) in qc
            .iter_mut()
            .zip(&msg.u[i * col_bytes..(i + 1) * col_bytes])
        {
            *qb ^= ub & mask;
        }
    }
    let mut rows = transpose(&q, col_bytes, ell + PAD_ROWS);
    q.zeroize();
    // h(q_i) = t̃_i ⊕ Δ_i·x̃ for every column i, checked bit-sliced: word r of h(q) must be
    // word r of t̃ ⊕ (x̃_r ? Δ : 0).
    let mut hq = check_rows(&check, &rows);
    let mut ok = Choice::from(1u8);
    for (r, (h, t)) in hq.iter().zip(&msg.t_check).enumerate() {
        let xmask = 0u128.wrapping_sub((msg.x_check >> r) & 1);
        ok &= h.ct_eq(&(t ^ (xmask & delta)));
    }
    hq.zeroize();
    rows[ell..].zeroize();
    rows.truncate(ell);
    if !bool::from(ok) {
        rows.zeroize();
        return Err(EcdsaError::blame(
            receiver,
            "OT extension: KOS consistency check",
        ));
    }
    Ok(SenderRows(rows))
}

impl OteMsg {
    /// Writes the message.
    pub fn write(&self, w: &mut Writer) {
        w.bytes(&self.nonce);
        w.u16(self.col_bytes as u16);
        w.bytes(&self.u);
        w.bytes(&self.x_check.to_le_bytes());
        for t in &self.t_check {
            w.bytes(&t.to_le_bytes());
        }
    }

    /// Reads the message: the receiver's nonce, a column length (at most `max_col_bytes`), `κ` columns, `x̃` and
    /// `κ` values `t̃_i`.
    pub fn read(
        r: &mut Reader<'_>,
        max_col_bytes: usize,
    ) -> core::result::Result<Self, DecodeError> {
        let nonce = r.array()?;
        let col_bytes = r.len_prefix(max_col_bytes)?;
        let u = r.take(KAPPA * col_bytes)?.to_vec();
        let x_check = u128::from_le_bytes(r.array()?);
        let mut t_check = Vec::with_capacity(KAPPA);
        for _ in 0..KAPPA {
            t_check.push(u128::from_le_bytes(r.array()?));
        }
        Ok(OteMsg {
            nonce,
            col_bytes,
            u,
            x_check,
            t_check,
        })
    }

    /// Test hook: flips one bit of one column correction (an inconsistent extension).
    #[cfg(any(test, feature = "test-faults"))]
    pub fn corrupt_for_test(&mut self, column: usize, byte: usize) {
        if let Some(b) = self.u.get_mut(column * self.col_bytes + byte) {
            *b ^= 1;
        }
    }

    /// Test hook: flips a bit of `x̃`.
    #[cfg(any(test, feature = "test-faults"))]
    pub fn corrupt_check_for_test(&mut self) {
        self.x_check ^= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ot::base;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{RngCore, SeedableRng};
    use sha2::{Digest, Sha256};

    fn setup(rng: &mut ChaCha20Rng) -> (OteSenderSeeds, OteReceiverSeeds) {
        let p1 = PartyId::new(1).expect("nonzero");
        let sid = [3u8; 32];
        let (s, m1) = base::sender_round1(sid, p1, rng);
        let (r_out, m2) = base::receiver_round(sid, p1, &m1, rng).expect("ok");
        let s_out = base::sender_finish(s, p1, &m2).expect("ok");
        (r_out.into(), s_out.into())
    }

    #[test]
    fn prg_is_sha256_counter_mode() {
        let seed = [0x11u8; 32];
        let sid = [0x22u8; 32];
        let mut out = [0u8; 68];
        prg(&prg_key(&seed), &sid, &mut out);
        for (ctr, chunk) in out.chunks(32).enumerate() {
            let mut h = Sha256::new();
            h.update(TAG_PRG);
            h.update(seed);
            h.update(sid);
            h.update((ctr as u32).to_be_bytes());
            let d = h.finalize();
            assert_eq!(chunk, &d[..chunk.len()]);
        }
    }

    #[test]
    fn gf_table_matches_schoolbook() {
        fn slow(mut a: u128, b: u128) -> u128 {
            let mut r = 0;
            for i in 0..128 {
                if (b >> i) & 1 == 1 {
                    r ^= a;
                }
                let c = a >> 127;
                a <<= 1;
                if c == 1 {
                    a ^= 0x87;
                }
            }
            r
        }
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        for _ in 0..20 {
            let a = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
            let b = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
            assert_eq!(GfTable::new(a).mul(b), slow(a, b));
            assert_eq!(GfTable::new(a).mul(b), GfTable::new(b).mul(a));
        }
    }

    #[test]
    fn fast_transpose_and_bitsliced_check_match_the_definitions() {
        let mut rng = ChaCha20Rng::seed_from_u64(10);
        let col_bytes = 68;
        let mut cols = vec![0u8; KAPPA * col_bytes];
        rng.fill_bytes(&mut cols);
        let rows = transpose(&cols, col_bytes, col_bytes * 8);
        assert_eq!(rows.len(), col_bytes * 8);
        for (i, col) in cols.chunks_exact(col_bytes).enumerate() {
            for (j, row) in rows.iter().enumerate() {
                assert_eq!((row >> i) & 1, u128::from((col[j / 8] >> (j % 8)) & 1));
            }
        }
        // Bit-sliced hashes equal the per-column hashes.
        let check = Check::new(&[1u8; 32], &cols, col_bytes - PAD_ROWS / 8);
        let y = check_rows(&check, &rows);
        for (i, col) in cols.chunks_exact(col_bytes).enumerate() {
            let h = check.hash(col);
            for (r, word) in y.iter().enumerate() {
                assert_eq!((word >> i) & 1, (h >> r) & 1);
            }
        }
    }

    #[test]
    fn correlation_holds_and_check_passes() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let (ss, rs) = setup(&mut rng);
        let ell = 416;
        let mut choices = vec![0u8; ell / 8];
        rng.fill_bytes(&mut choices);
        let sid = [5u8; 32];
        let (t, msg) = receiver_extend(&rs, &sid, ell, &choices, &mut rng);
        let p2 = PartyId::new(2).expect("nonzero");
        let q = sender_extend(&ss, &sid, ell, p2, &msg).expect("honest");
        let delta = ss.delta_row();
        for j in 0..ell {
            let x = u128::from((choices[j / 8] >> (j % 8)) & 1);
            assert_eq!(q.0[j], t.0[j] ^ (0u128.wrapping_sub(x) & delta));
        }
        // Different session ids give unrelated rows.
        let (t2, _) = receiver_extend(&rs, &[6u8; 32], ell, &choices, &mut rng);
        assert_ne!(t.0[0], t2.0[0]);
    }

    #[test]
    fn bootstrapped_reverse_seeds_extend_correctly() {
        let mut rng = ChaCha20Rng::seed_from_u64(14);
        let (ss, rs) = setup(&mut rng);
        let boot = [8u8; 32];
        let p2 = PartyId::new(2).expect("nonzero");
        // The extension receiver becomes the sender of the reverse direction.
        let (rev_sender, msg) = bootstrap_receiver(&rs, &boot, &mut rng);
        let rev_receiver = bootstrap_sender(&ss, &boot, p2, &msg).expect("honest");
        for k in 0..KAPPA {
            let bit = (rev_sender.delta[k / 8] >> (k % 8)) & 1;
            let (chosen, other) = if bit == 0 {
                (&rev_receiver.seeds0[k], &rev_receiver.seeds1[k])
            } else {
                (&rev_receiver.seeds1[k], &rev_receiver.seeds0[k])
            };
            assert_eq!(&rev_sender.seeds[k], chosen);
            assert_ne!(&rev_sender.seeds[k], other);
        }
        // And they work as extension seeds.
        let ell = 416;
        let choices = vec![0x3Cu8; ell / 8];
        let (t, m) = receiver_extend(&rev_receiver, &[4u8; 32], ell, &choices, &mut rng);
        let q = sender_extend(&rev_sender, &[4u8; 32], ell, p2, &m).expect("honest");
        let delta = rev_sender.delta_row();
        for j in 0..ell {
            let x = u128::from((choices[j / 8] >> (j % 8)) & 1);
            assert_eq!(q.0[j], t.0[j] ^ (0u128.wrapping_sub(x) & delta));
        }
        // A tampered bootstrap message is blamed on its sender.
        let (_s, mut msg) = bootstrap_receiver(&rs, &boot, &mut rng);
        msg.corrupt_for_test(5, 1);
        let err = bootstrap_sender(&ss, &boot, p2, &msg).expect_err("tampered");
        assert_eq!(err.culprits(), &[p2]);
    }

    #[test]
    fn inconsistent_columns_fail_the_check() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let (ss, rs) = setup(&mut rng);
        let ell = 416;
        let choices = vec![0xA5u8; ell / 8];
        let sid = [5u8; 32];
        let p2 = PartyId::new(2).expect("nonzero");
        let delta = ss.delta_row();
        // Deviating in every column: caught (fails unless Δ = 0).
        let (_t, msg) = receiver_extend_malicious(&rs, &sid, ell, &choices, u128::MAX, &mut rng);
        let err = sender_extend(&ss, &sid, ell, p2, &msg).expect_err("must fail");
        assert_eq!(err.culprits(), &[p2]);
        assert_eq!(err.check(), Some("OT extension: KOS consistency check"));
        // Deviating in one column with Δ_i = 1: caught; with Δ_i = 0: undetected but also
        // harmless for the correlation (the sender ignores u_i), leaking that Δ_i = 0.
        let one = (0..128)
            .find(|i| (delta >> i) & 1 == 1)
            .expect("some bit set");
        let zero = (0..128)
            .find(|i| (delta >> i) & 1 == 0)
            .expect("some bit clear");
        let (_t, msg) = receiver_extend_malicious(&rs, &sid, ell, &choices, 1u128 << one, &mut rng);
        assert!(sender_extend(&ss, &sid, ell, p2, &msg).is_err());
        let (_t, msg) =
            receiver_extend_malicious(&rs, &sid, ell, &choices, 1u128 << zero, &mut rng);
        assert!(sender_extend(&ss, &sid, ell, p2, &msg).is_ok());
        // Tampering after the fact changes the Fiat–Shamir challenges: caught.
        let (_t, mut msg) = receiver_extend(&rs, &sid, ell, &choices, &mut rng);
        msg.corrupt_for_test(3, 7);
        assert!(sender_extend(&ss, &sid, ell, p2, &msg).is_err());
        let (_t, mut msg) = receiver_extend(&rs, &sid, ell, &choices, &mut rng);
        msg.corrupt_check_for_test();
        assert!(sender_extend(&ss, &sid, ell, p2, &msg).is_err());
        // A different session id at the sender also fails (binding).
        let (_t, msg) = receiver_extend(&rs, &sid, ell, &choices, &mut rng);
        assert!(sender_extend(&ss, &[9u8; 32], ell, p2, &msg).is_err());
    }
}
