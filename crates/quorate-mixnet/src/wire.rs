//! Wire encodings of the mixnet's messages, with typed, panic-free decoders (artifact
//! defect 14: the artifact had no encoding, subgroup or range checks).
//!
//! # Conventions
//! Every message starts with a one-byte type tag and a one-byte format version ([`tag`],
//! [`WIRE_VERSION`]), so bytes of one message type never decode as another. Then:
//!
//! * G1 / G2 points: compressed (48 / 96 bytes); decoding checks the flags, the curve
//!   equation and membership in the prime-order subgroup (`quorate_core::bls12_381::wire`), and rejects
//!   the identity wherever the protocol forbids it (see each decoder).
//! * Scalars: 32 bytes big-endian, rejected unless canonical (below `q`).
//! * Paillier ciphertexts: exactly `⌈|N²|/8⌉` bytes big-endian, `0 < c < N²` and
//!   `gcd(c, N) = 1` (`PublicKey::decode_ciphertext`).
//! * Elements of `Z_N^*` (nonce responses): exactly `⌈|N|/8⌉` bytes, `0 < x < N`,
//!   `gcd(x, N) = 1`. Ring-Pedersen values are elements of `Z_Ñ^*` for the **auxiliary**
//!   modulus `Ñ` ([`crate::ring_pedersen`]; never the Paillier `N`): exactly `⌈|Ñ|/8⌉` bytes,
//!   `0 < x < Ñ`, `gcd(x, Ñ) = 1`.
//! * Integer responses with a bit bound `B`: exactly `⌈B/8⌉` bytes; more than `B`
//!   significant bits is rejected (the same bounds as the verifiers').
//! * Vector lengths: `u32` big-endian (`u16` for per-server lists); every length must equal
//!   the length the context fixes (`n`, `m`, `|I|`, the member count, …) or stay below a
//!   stated bound, and is checked against the bytes that remain **before** anything is
//!   allocated.
//! * Party ids: 2 bytes, non-zero and one of the `m` servers.
//! * Every decoder consumes the whole input ([`Reader::finish`]); trailing bytes are an
//!   error.
//!
//! Every error is [`MixnetError::Decode`]; the decoders never panic on any input.
//! Decoding is only the syntactic layer: a decoded message must still be verified by the
//! protocol ([`crate::sender::check_input`], [`crate::mix::verify_record`],
//! [`crate::membership::verify`], [`crate::dkg::verify_broadcast`],
//! [`crate::setup::MixnetPublic::verify_setup`]), which names a misbehaving server.
//!
//! # Contexts
//! Decoders take the bounds from what the receiver already trusts: [`MixnetPublic`] (gives
//! `n`, `m`, `t`, the Paillier key and the ring-Pedersen parameters `(Ñ, s, t)`), explicit
//! expected counts (`|I|`, the number of DB-SM members), or, for [`MixnetPublic`] itself,
//! [`WireLimits`].
//!
//! # Shuffle proofs
//! Messages that carry a Terelius–Wikström proof ([`MixStage`], [`ReverseStage`],
//! [`MixRecord`], [`DbSmProof`], [`MixnetPublic`]) embed it as a length-prefixed byte string
//! (`u32 len ‖ bytes`) produced and parsed by a [`ShuffleProofCodec`].
//!
//! [`NativeShuffleCodec`] uses the proof's own format ([`ShuffleProof::to_bytes`] /
//! [`ShuffleProof::from_bytes`], owned by `shuffle.rs`) and checks the proof kind.
//!
//! # Messages encoded elsewhere
//! * The DB-RSM messages, the witness track and the input sharing are encoded in
//!   [`crate::wire_rsm`] (tags `0x81..=0x98`, same conventions; DPK_BBS+ `Gt` elements
//!   compressed to 288 bytes and subgroup-checked).
//! * The shuffle proof's own format is [`ShuffleProof::to_bytes`] (tag `0x6F`).
//! * Secrets never travel in the clear and have no encoding here: the DKG's private share
//!   ([`crate::dkg::DkgShare`], to be sent encrypted), Beaver triple shares, witness and
//!   blinding shares, DPK nonces, the querier's signing keys.
//!
//! # Sizes (bytes; `c = ⌈|N²|/8⌉`, `z = ⌈|N|/8⌉`, `G1 = 48`, `G2 = 96`, `s = 32`)
//! * [`SenderInput`]: `2 + 4c + 2·G1 + 2·53 + 2⌈(⌈|N|/2⌉ + 169)/8⌉ + 4ẑ + 2⌈(|Ñ| + 209)/8⌉`
//!   with `ẑ = ⌈|Ñ|/8⌉` (`|Ñ| = |N|` from keygen; 1024-bit moduli: 2222, 2306 before
//!   wire version 6).
//! * [`ElGamalCiphertext`] `2 + 2·G1`; [`ElGamalDecShare`] `2 + 3·G1 + s`.
//! * [`MixStage`]: `12 + n·c + proof`; [`DecryptionStage`]: `16 + (groups + 2)·c + ẑ_d` with
//!   `ẑ_d = ⌈(|N²| + |Δ| + 385)/8⌉` (the shares, the batched proof's `a`, `b` and `z`).
//! * [`BbQuery`]: `14 + 4|I| + 4|J| + G2 + |J|·G1`.
//! * [`ReverseStage`]: `12 + 2n·G1 + proof`; [`BlindingStage`]: `8 + |I|·(6·G1 + 3s)`;
//!   [`ElGamalDecStage`]: `8 + |I|·(3·G1 + s)`; [`DpkCommitStage`]:
//!   `8 + members·(8·G1 + 4s)`; [`DpkResponseStage`]: `8 + 4·members·s`.
//! * [`DkgBroadcast`]: `6 + (t + 1)·G1 + s`.
//!
//! Measured at `n = 8`, `m = 2`, `|I| = 4` (2 members), 1024-bit `N` and `Ñ`
//! (`tests/mixnet/wire.rs`, wire version 2): sender input 2306, Mix stage 4473 (shuffle proof
//! 2413), decryption stage 2412 (2 outputs per 1024-bit group), Mix record 16116,
//! [`MixnetPublic`] 5964, BB query 230, reverse stage 2507, blinding stage 1544, DPK commit
//! stage 1032, DB-SM proof 12576 (11666 in version 1: `M_k` saves 2 G1 per member and
//! server, the blinding commitments and non-member openings add 2 G1 + 1 scalar per
//! element and server and 2 scalars per non-member and server), DKG broadcast 182.

use crate::dkg::{DkgBroadcast, ElGamalPublic};
use crate::elgamal::{ElGamalCiphertext, ElGamalDecShare};
use crate::error::MixnetError;
use crate::membership::{
    BbQuery, BlindProof, BlindingStage, DbSmProof, DpkCommit, DpkCommitStage, DpkResponseStage,
    DpkShareProof, ElGamalDecStage, NonMemberOpening, ReverseStage,
};
use crate::mix::{DecryptionStage, MixRecord, MixStage, OUTPUT_SLOT_BITS};
use crate::packing;
use crate::params::{Generators, MAX_SENDERS, MIN_PAILLIER_BITS};
use crate::ring_pedersen::{check_auxiliary_modulus, RingPedersenParams, MAX_RING_PEDERSEN_BITS};
use crate::sender::{rho_response_bits, LinkProof, SenderInput, MASK_BITS};
use crate::setup::MixnetPublic;
use crate::shuffle::{PaillierModuli, PermutationCommitment, ShuffleProof};
use blstrs::{G1Projective, G2Projective, Scalar};
use group::Group;
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::bls12_381::wire::{
    g1_to_bytes, g2_to_bytes, scalar_to_bytes, ReadBls, G1_BYTES, SCALAR_BYTES,
};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::lagrange::{coefficients_at, coefficients_at_zero};
use quorate_core::shamir::eval_point;
use quorate_core::transcript::SessionId;
use quorate_core::{DecodeError, PartyId, ThresholdParams};
use quorate_paillier::bigint::{
    from_be_bytes, is_unit_in_range, to_be_bytes_minimal, to_be_bytes_padded,
};
use quorate_paillier::rug::Integer;
use quorate_paillier::threshold::{ThresholdPublicKey, MAX_PARTIES};
use quorate_paillier::{BatchDecryptionShares, Ciphertext, PaillierError, PublicKey};

/// The format version of every message in this module and in [`crate::wire_rsm`].
/// Version 2: the DB-SM DPK commitment publishes `M_k = S^{ρ_v} g^{−ρ_b}` instead of
/// `P_k`, `W_k`; version 3: the DB-RSM query and every Beaver triple carry the query id
/// ([`crate::reverse_membership::query::QueryId`]); version 4: a server's threshold-Paillier decryption shares
/// (Mix and Enc-to-shares) are one batch with one proof (`quorate_paillier::batch`);
/// version 5: the Enc-to-shares mask proof answers for fixed-base randomness with an
/// integer `z_α` instead of `w ∈ Z_N^*` ([`crate::djn`]); version 6: the sender's link proof
/// answers for fixed-base randomness with integers `z_{ρ1}, z_{ρ2}` instead of `w₁, w₂ ∈ Z_N^*`
/// ([`crate::sender`]); version 7: the Enc-to-shares link proof carries its first messages
/// (`E′`, `A″`, `A‴`, `D_a`, `D_a′`) instead of the challenge, for the batched check
/// ([`crate::wire_rsm::encode_share_link_proof`]); version 8: the batched decryption
/// proof inside every decryption stage (Mix and Enc-to-shares) carries its first messages
/// `(a, b)` instead of the challenge, so all servers' proofs are checked at once
/// (`quorate_paillier::batch` format version 2). Bytes of older versions are refused.
pub const WIRE_VERSION: u8 = 8;

/// Message type tags (`0x70..=0x80`; the shuffle proof uses `0x6F`, [`crate::wire_rsm`]
/// `0x81..=0x98`, other crates `0x41..=0x46`, `0x50..=0x54` (Paillier), `0x61..=0x62` and
/// `0xD1..=0xE3` (ECDSA)).
pub mod tag {
    /// [`crate::elgamal::ElGamalCiphertext`].
    pub const ELGAMAL_CIPHERTEXT: u8 = 0x70;
    /// [`crate::elgamal::ElGamalDecShare`].
    pub const ELGAMAL_DEC_SHARE: u8 = 0x71;
    /// [`crate::sender::SenderInput`].
    pub const SENDER_INPUT: u8 = 0x72;
    /// [`crate::mix::MixStage`].
    pub const MIX_STAGE: u8 = 0x73;
    /// [`crate::mix::DecryptionStage`].
    pub const DECRYPTION_STAGE: u8 = 0x74;
    /// [`crate::mix::MixRecord`].
    pub const MIX_RECORD: u8 = 0x75;
    /// [`crate::membership::BbQuery`].
    pub const BB_QUERY: u8 = 0x76;
    /// [`crate::membership::ReverseStage`].
    pub const REVERSE_STAGE: u8 = 0x77;
    /// [`crate::membership::BlindingStage`].
    pub const BLINDING_STAGE: u8 = 0x78;
    /// [`crate::membership::BlindProof`].
    pub const BLIND_PROOF: u8 = 0x79;
    /// [`crate::membership::ElGamalDecStage`].
    pub const ELGAMAL_DEC_STAGE: u8 = 0x7A;
    /// [`crate::membership::DpkCommitStage`].
    pub const DPK_COMMIT_STAGE: u8 = 0x7B;
    /// [`crate::membership::DpkResponseStage`].
    pub const DPK_RESPONSE_STAGE: u8 = 0x7C;
    /// [`crate::membership::DbSmProof`].
    pub const DBSM_PROOF: u8 = 0x7D;
    /// [`crate::dkg::DkgBroadcast`].
    pub const DKG_BROADCAST: u8 = 0x7E;
    /// [`crate::setup::MixnetPublic`].
    pub const MIXNET_PUBLIC: u8 = 0x7F;
    /// [`crate::sender::LinkProof`].
    pub const LINK_PROOF: u8 = 0x80;
}

/// What a shuffle proof proves (which optional parts its decoder must expect).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleKind {
    /// Proof of knowledge of a permutation-commitment opening (keygen).
    Permutation,
    /// Paillier re-encryption shuffle (Mix).
    Paillier,
    /// ElGamal re-encryption shuffle (DB-SM reverse shuffle).
    ElGamal,
}

/// The context a shuffle-proof decoder gets: the kind, the list length `n` and, for a
/// Paillier shuffle, the Paillier key and the ring-Pedersen modulus `Ñ` of the statement
/// (`Z`, `Z′`, `k_μ` are range-checked against `Ñ`, `F′`, `k_F` against `N`).
#[derive(Clone, Copy, Debug)]
pub struct ShuffleContext<'a> {
    /// What the proof proves.
    pub kind: ShuffleKind,
    /// The list length (`n`).
    pub n: usize,
    /// The Paillier key and `Ñ` (`Some` exactly for [`ShuffleKind::Paillier`]).
    pub paillier: Option<PaillierModuli<'a>>,
}

/// Encodes and decodes the [`ShuffleProof`]s embedded in other messages. The decoder must
/// check every length, point and range against `ctx` and never panic.
pub trait ShuffleProofCodec {
    /// The proof's bytes.
    fn encode_proof(&self, proof: &ShuffleProof) -> Result<Vec<u8>, MixnetError>;
    /// Parses a proof of kind `ctx.kind` for lists of length `ctx.n`.
    fn decode_proof(
        &self,
        ctx: ShuffleContext<'_>,
        bytes: &[u8],
    ) -> Result<ShuffleProof, MixnetError>;
}

/// The shuffle proofs' own format ([`ShuffleProof::to_bytes`] / [`ShuffleProof::from_bytes`]),
/// with the kind checked against the context: a permutation proof has neither the Paillier
/// nor the ElGamal part, a Paillier shuffle proof the Paillier part (decoded against the
/// statement's key and `Ñ`), an ElGamal one the ElGamal part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NativeShuffleCodec;

impl ShuffleProofCodec for NativeShuffleCodec {
    fn encode_proof(&self, proof: &ShuffleProof) -> Result<Vec<u8>, MixnetError> {
        Ok(proof.to_bytes())
    }

    fn decode_proof(
        &self,
        ctx: ShuffleContext<'_>,
        bytes: &[u8],
    ) -> Result<ShuffleProof, MixnetError> {
        let pk = match ctx.kind {
            ShuffleKind::Paillier => Some(
                ctx.paillier
                    .ok_or_else(|| invalid("shuffle proof", "no Paillier moduli in the context"))?,
            ),
            ShuffleKind::Permutation | ShuffleKind::ElGamal => None,
        };
        let p = ShuffleProof::from_bytes(bytes, ctx.n, pk).map_err(|e| match e {
            MixnetError::Decode(d) => MixnetError::Decode(d),
            _ => invalid("shuffle proof", "rejected by the shuffle-proof decoder"),
        })?;
        let kind_ok = match ctx.kind {
            ShuffleKind::Permutation => p.f_p.is_none() && p.f_eg.is_none(),
            ShuffleKind::Paillier => p.f_p.is_some(),
            ShuffleKind::ElGamal => p.f_eg.is_some(),
        };
        if !kind_ok {
            return Err(invalid(
                "shuffle proof",
                "another kind of proof than expected",
            ));
        }
        Ok(p)
    }
}

/// Bounds for decoding a [`MixnetPublic`] (nothing is trusted yet at that point).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireLimits {
    /// The largest batch size `n` accepted.
    pub max_n: usize,
    /// The largest number of servers `m` accepted.
    pub max_m: u16,
    /// The longest session id accepted (bytes).
    pub max_sid_bytes: usize,
}

impl Default for WireLimits {
    fn default() -> Self {
        WireLimits {
            max_n: MAX_SENDERS,
            max_m: 64,
            max_sid_bytes: 1024,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Primitive helpers (`pub(crate)`: [`crate::wire_rsm`] encodes with the same ones).

pub(crate) fn invalid(what: &'static str, reason: &'static str) -> MixnetError {
    DecodeError::InvalidValue { what, reason }.into()
}

/// Maps a Paillier decoding failure to the crate's decode error (never blames anyone: the
/// bytes, not a server's proof, are at fault).
pub(crate) fn from_paillier(what: &'static str, e: PaillierError) -> MixnetError {
    match e {
        PaillierError::Decode(d) => d.into(),
        _ => invalid(what, "rejected by the Paillier decoder"),
    }
}

pub(crate) fn u32_len(what: &'static str, len: usize) -> Result<u32, MixnetError> {
    u32::try_from(len).map_err(|_| invalid(what, "too many elements to encode"))
}

pub(crate) fn u16_len(what: &'static str, len: usize) -> Result<u16, MixnetError> {
    u16::try_from(len).map_err(|_| invalid(what, "too many elements to encode"))
}

/// Reads a `u32` length that must equal `expected`.
pub(crate) fn len_exact(
    r: &mut Reader<'_>,
    what: &'static str,
    expected: usize,
) -> Result<(), MixnetError> {
    let len = r.u32()?;
    if usize::try_from(len).ok() != Some(expected) {
        return Err(invalid(
            what,
            "vector length differs from the expected length",
        ));
    }
    Ok(())
}

/// Reads a `u16` length that must equal `expected`.
pub(crate) fn len16_exact(
    r: &mut Reader<'_>,
    what: &'static str,
    expected: usize,
) -> Result<(), MixnetError> {
    u16_exact(
        r,
        what,
        expected,
        "stage count differs from the expected count",
    )
}

/// Reads a `u16` count that must equal `expected`, failing with `reason` otherwise.
pub(crate) fn u16_exact(
    r: &mut Reader<'_>,
    what: &'static str,
    expected: usize,
    reason: &'static str,
) -> Result<(), MixnetError> {
    if usize::from(r.u16()?) != expected {
        return Err(invalid(what, reason));
    }
    Ok(())
}

/// Reads a `u32` length `≤ max`.
pub(crate) fn len_at_most(
    r: &mut Reader<'_>,
    what: &'static str,
    max: usize,
) -> Result<usize, MixnetError> {
    let len = usize::try_from(r.u32()?).map_err(|_| invalid(what, "length overflows"))?;
    if len > max {
        return Err(invalid(what, "vector length exceeds the permitted maximum"));
    }
    Ok(len)
}

/// Checks that at least `count · each` bytes remain, before allocating for `count` items.
pub(crate) fn need(
    r: &Reader<'_>,
    what: &'static str,
    count: usize,
    each: usize,
) -> Result<(), MixnetError> {
    let bytes = count
        .checked_mul(each)
        .ok_or_else(|| invalid(what, "length overflows"))?;
    if r.remaining() < bytes {
        return Err(DecodeError::WrongLength {
            what,
            expected: bytes,
            got: r.remaining(),
        }
        .into());
    }
    Ok(())
}

/// Reads `count` items of at least `each` bytes each.
pub(crate) fn read_vec<T>(
    r: &mut Reader<'_>,
    what: &'static str,
    count: usize,
    each: usize,
    mut f: impl FnMut(&mut Reader<'_>) -> Result<T, MixnetError>,
) -> Result<Vec<T>, MixnetError> {
    need(r, what, count, each)?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(f(r)?);
    }
    Ok(out)
}

pub(crate) fn put_g1(w: &mut Writer, p: &G1Projective) {
    w.bytes(&g1_to_bytes(p));
}

pub(crate) fn put_g2(w: &mut Writer, p: &G2Projective) {
    w.bytes(&g2_to_bytes(p));
}

pub(crate) fn put_scalar(w: &mut Writer, s: &Scalar) {
    w.bytes(&scalar_to_bytes(s));
}

/// Non-negative `x` as exactly `len` big-endian bytes.
pub(crate) fn put_uint(
    w: &mut Writer,
    what: &'static str,
    x: &Integer,
    len: usize,
) -> Result<(), MixnetError> {
    let b = to_be_bytes_padded(x, len).ok_or_else(|| invalid(what, "integer out of range"))?;
    w.bytes(&b);
    Ok(())
}

/// An integer of at most `bits` bits, stored in `⌈bits/8⌉` bytes.
pub(crate) fn put_bounded(
    w: &mut Writer,
    what: &'static str,
    x: &Integer,
    bits: u32,
) -> Result<(), MixnetError> {
    if *x < 0 || x.significant_bits() > bits {
        return Err(invalid(what, "integer exceeds its bit bound"));
    }
    put_uint(w, what, x, bounded_len(bits))
}

pub(crate) fn bounded_len(bits: u32) -> usize {
    (bits as usize).div_ceil(8)
}

pub(crate) fn get_bounded(
    r: &mut Reader<'_>,
    what: &'static str,
    bits: u32,
) -> Result<Integer, MixnetError> {
    let x = from_be_bytes(r.take(bounded_len(bits))?);
    if x.significant_bits() > bits {
        return Err(invalid(what, "integer exceeds its bit bound"));
    }
    Ok(x)
}

pub(crate) fn modulus_len(m: &Integer) -> usize {
    (m.significant_bits() as usize).div_ceil(8)
}

pub(crate) fn put_unit(
    w: &mut Writer,
    what: &'static str,
    x: &Integer,
    m: &Integer,
) -> Result<(), MixnetError> {
    put_uint(w, what, x, modulus_len(m))
}

/// A unit of `Z_m` in `⌈|m|/8⌉` bytes: `0 < x < m`, `gcd(x, m) = 1`.
pub(crate) fn get_unit(
    r: &mut Reader<'_>,
    what: &'static str,
    m: &Integer,
) -> Result<Integer, MixnetError> {
    let x = from_be_bytes(r.take(modulus_len(m))?);
    if !is_unit_in_range(&x, m) {
        return Err(invalid(what, "not a unit in range"));
    }
    Ok(x)
}

pub(crate) fn put_ct(w: &mut Writer, pk: &PublicKey, c: &Ciphertext) -> Result<(), MixnetError> {
    put_uint(
        w,
        "paillier ciphertext",
        c.as_integer(),
        pk.ciphertext_len(),
    )
}

pub(crate) fn get_ct(r: &mut Reader<'_>, pk: &PublicKey) -> Result<Ciphertext, MixnetError> {
    pk.decode_ciphertext(r.take(pk.ciphertext_len())?)
        .map_err(|e| from_paillier("paillier ciphertext", e))
}

pub(crate) fn get_party(
    r: &mut Reader<'_>,
    what: &'static str,
    params: &ThresholdParams,
) -> Result<PartyId, MixnetError> {
    let id = r.party()?;
    if !params.contains(id) {
        return Err(invalid(what, "not one of the servers"));
    }
    Ok(id)
}

pub(crate) fn put_eg(w: &mut Writer, c: &ElGamalCiphertext) {
    put_g1(w, &c.a);
    put_g1(w, &c.b);
}

/// ElGamal ciphertexts may contain the identity (`(1, σ)` is the trivial encryption).
pub(crate) fn get_eg(
    r: &mut Reader<'_>,
    what: &'static str,
) -> Result<ElGamalCiphertext, MixnetError> {
    Ok(ElGamalCiphertext {
        a: r.g1_or_identity(what)?,
        b: r.g1_or_identity(what)?,
    })
}

pub(crate) const EG_BYTES: usize = 2 * G1_BYTES;

pub(crate) fn put_proof(
    w: &mut Writer,
    codec: &dyn ShuffleProofCodec,
    proof: &ShuffleProof,
) -> Result<(), MixnetError> {
    let b = codec.encode_proof(proof)?;
    w.u32(u32_len("shuffle proof", b.len())?).bytes(&b);
    Ok(())
}

pub(crate) fn get_proof(
    r: &mut Reader<'_>,
    codec: &dyn ShuffleProofCodec,
    ctx: ShuffleContext<'_>,
) -> Result<ShuffleProof, MixnetError> {
    let max = r.remaining();
    let len = len_at_most(r, "shuffle proof", max)?;
    codec.decode_proof(ctx, r.take(len)?)
}

/// Reads a whole message: header, body, no trailing bytes.
pub(crate) fn read_msg<T>(
    what: &'static str,
    tag: u8,
    bytes: &[u8],
    body: impl FnOnce(&mut Reader<'_>) -> Result<T, MixnetError>,
) -> Result<T, MixnetError> {
    let mut r = Reader::new(what, bytes);
    r.header(tag, WIRE_VERSION)?;
    let out = body(&mut r)?;
    r.finish()?;
    Ok(out)
}

pub(crate) fn write_msg(
    tag: u8,
    body: impl FnOnce(&mut Writer) -> Result<(), MixnetError>,
) -> Result<Vec<u8>, MixnetError> {
    let mut w = Writer::new();
    w.header(tag, WIRE_VERSION);
    body(&mut w)?;
    Ok(w.into_bytes())
}

// ---------------------------------------------------------------------------------------
// ElGamal.

/// Encodes an ElGamal ciphertext: `a ‖ b` (identity allowed in both).
pub fn encode_elgamal_ciphertext(c: &ElGamalCiphertext) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag::ELGAMAL_CIPHERTEXT, WIRE_VERSION);
    put_eg(&mut w, c);
    w.into_bytes()
}

/// Decodes [`encode_elgamal_ciphertext`].
pub fn decode_elgamal_ciphertext(bytes: &[u8]) -> Result<ElGamalCiphertext, MixnetError> {
    read_msg("elgamal ciphertext", tag::ELGAMAL_CIPHERTEXT, bytes, |r| {
        get_eg(r, "elgamal ciphertext")
    })
}

fn put_dec_share(w: &mut Writer, s: &ElGamalDecShare) {
    put_g1(w, &s.d);
    put_g1(w, &s.r1);
    put_g1(w, &s.r2);
    put_scalar(w, &s.z);
}

/// `R1 = g^r` is never the identity for an honest server (`r ≠ 0`); `d = a^{x_k}` and
/// `R2 = a^r` may be when `a` is, and the DLEQ verifier handles `d = 1` with `a ≠ 1`.
fn get_dec_share(r: &mut Reader<'_>) -> Result<ElGamalDecShare, MixnetError> {
    Ok(ElGamalDecShare {
        d: r.g1_or_identity("elgamal decryption share d")?,
        r1: r.g1("elgamal decryption share R1")?,
        r2: r.g1_or_identity("elgamal decryption share R2")?,
        z: r.scalar("elgamal decryption share z")?,
    })
}

const DEC_SHARE_BYTES: usize = 3 * G1_BYTES + SCALAR_BYTES;

/// Encodes one ElGamal decryption share with its DLEQ proof: `d ‖ R1 ‖ R2 ‖ z`.
pub fn encode_elgamal_dec_share(s: &ElGamalDecShare) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag::ELGAMAL_DEC_SHARE, WIRE_VERSION);
    put_dec_share(&mut w, s);
    w.into_bytes()
}

/// Decodes [`encode_elgamal_dec_share`].
pub fn decode_elgamal_dec_share(bytes: &[u8]) -> Result<ElGamalDecShare, MixnetError> {
    read_msg(
        "elgamal decryption share",
        tag::ELGAMAL_DEC_SHARE,
        bytes,
        get_dec_share,
    )
}

// ---------------------------------------------------------------------------------------
// Sender input (Fig. 6 Enc) and its linking proof.

/// Bits of the link proof's `z_v`, `z_r` (as in [`crate::sender::check_input`]).
const Z_BITS: u32 = MASK_BITS + 1;

/// Bits of `z_μ` (as in [`RingPedersenParams::recompute_vartime`]).
fn z_mu_bits(rp: &RingPedersenParams) -> u32 {
    rp.mu_mask_bits() + 1
}

fn put_link_proof(w: &mut Writer, public: &MixnetPublic, p: &LinkProof) -> Result<(), MixnetError> {
    let pk = public.paillier.encryption_key();
    let rp = &public.ring_pedersen;
    put_ct(w, pk, &p.a1)?;
    put_ct(w, pk, &p.a2)?;
    put_g1(w, &p.big_gamma);
    put_bounded(w, "link proof z_v", &p.z_v, Z_BITS)?;
    put_bounded(w, "link proof z_r", &p.z_r, Z_BITS)?;
    put_bounded(w, "link proof z_rho1", &p.z_rho1, rho_response_bits(pk))?;
    put_bounded(w, "link proof z_rho2", &p.z_rho2, rho_response_bits(pk))?;
    for x in [&p.rp_v, &p.rp_r, &p.rp_dv, &p.rp_dr] {
        put_unit(w, "link proof ring-Pedersen value", x, &rp.n_hat)?;
    }
    put_bounded(w, "link proof z_mu_v", &p.z_mu_v, z_mu_bits(rp))?;
    put_bounded(w, "link proof z_mu_r", &p.z_mu_r, z_mu_bits(rp))?;
    Ok(())
}

/// `Γ = g^{α_v} h^{α_r}` with hash-to-curve `g, h`: the identity only for someone who
/// knows `log_g h`, so it is rejected.
fn get_link_proof(r: &mut Reader<'_>, public: &MixnetPublic) -> Result<LinkProof, MixnetError> {
    let pk = public.paillier.encryption_key();
    let rp = &public.ring_pedersen;
    let a1 = get_ct(r, pk)?;
    let a2 = get_ct(r, pk)?;
    let big_gamma = r.g1("link proof Gamma")?;
    let z_v = get_bounded(r, "link proof z_v", Z_BITS)?;
    let z_r = get_bounded(r, "link proof z_r", Z_BITS)?;
    let z_rho1 = get_bounded(r, "link proof z_rho1", rho_response_bits(pk))?;
    let z_rho2 = get_bounded(r, "link proof z_rho2", rho_response_bits(pk))?;
    let rp_v = get_unit(r, "link proof S_v", &rp.n_hat)?;
    let rp_r = get_unit(r, "link proof S_r", &rp.n_hat)?;
    let rp_dv = get_unit(r, "link proof D_v", &rp.n_hat)?;
    let rp_dr = get_unit(r, "link proof D_r", &rp.n_hat)?;
    let z_mu_v = get_bounded(r, "link proof z_mu_v", z_mu_bits(rp))?;
    let z_mu_r = get_bounded(r, "link proof z_mu_r", z_mu_bits(rp))?;
    Ok(LinkProof {
        a1,
        a2,
        big_gamma,
        z_v,
        z_r,
        z_rho1,
        z_rho2,
        rp_v,
        rp_r,
        rp_dv,
        rp_dr,
        z_mu_v,
        z_mu_r,
    })
}

/// Encodes a link proof: `A₁ ‖ A₂ ‖ Γ ‖ z_v ‖ z_r ‖ z_{ρ1} ‖ z_{ρ2} ‖ S_v ‖ S_r ‖ D_v ‖ D_r ‖ z_{μv} ‖
/// z_{μr}` (fails if a response exceeds its bound).
pub fn encode_link_proof(public: &MixnetPublic, p: &LinkProof) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::LINK_PROOF, |w| put_link_proof(w, public, p))
}

/// Decodes [`encode_link_proof`].
pub fn decode_link_proof(public: &MixnetPublic, bytes: &[u8]) -> Result<LinkProof, MixnetError> {
    read_msg("link proof", tag::LINK_PROOF, bytes, |r| {
        get_link_proof(r, public)
    })
}

/// Encodes a sender's submission: `c ‖ c′ ‖ γ ‖ link proof`.
pub fn encode_sender_input(public: &MixnetPublic, s: &SenderInput) -> Result<Vec<u8>, MixnetError> {
    let pk = public.paillier.encryption_key();
    write_msg(tag::SENDER_INPUT, |w| {
        put_ct(w, pk, &s.c)?;
        put_ct(w, pk, &s.c_prime)?;
        put_g1(w, &s.gamma);
        put_link_proof(w, public, &s.proof)
    })
}

/// Decodes [`encode_sender_input`]. `γ = g^v h^r` must not be the identity (only someone
/// who knows `log_g h` could open it).
pub fn decode_sender_input(
    public: &MixnetPublic,
    bytes: &[u8],
) -> Result<SenderInput, MixnetError> {
    let pk = public.paillier.encryption_key();
    read_msg("sender input", tag::SENDER_INPUT, bytes, |r| {
        let c = get_ct(r, pk)?;
        let c_prime = get_ct(r, pk)?;
        let gamma = r.g1("sender gamma")?;
        let proof = get_link_proof(r, public)?;
        Ok(SenderInput {
            c,
            c_prime,
            gamma,
            proof,
        })
    })
}

// ---------------------------------------------------------------------------------------
// Mix (Fig. 6): stages, decryption stages, record.

fn put_mix_stage(
    w: &mut Writer,
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    s: &MixStage,
) -> Result<(), MixnetError> {
    let pk = public.paillier.encryption_key();
    w.party(s.mixer);
    w.u32(u32_len("mix stage outputs", s.outputs.len())?);
    for c in &s.outputs {
        put_ct(w, pk, c)?;
    }
    put_proof(w, codec, &s.proof)
}

fn get_mix_stage(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
) -> Result<MixStage, MixnetError> {
    let pk = public.paillier.encryption_key();
    let mixer = get_party(r, "mix stage server", &public.params)?;
    len_exact(r, "mix stage outputs", public.n)?;
    let outputs = read_vec(r, "mix stage outputs", public.n, pk.ciphertext_len(), |r| {
        get_ct(r, pk)
    })?;
    let proof = get_proof(
        r,
        codec,
        ShuffleContext {
            kind: ShuffleKind::Paillier,
            n: public.n,
            paillier: Some(PaillierModuli {
                pk,
                n_hat: &public.ring_pedersen.n_hat,
            }),
        },
    )?;
    Ok(MixStage {
        mixer,
        outputs,
        proof,
    })
}

/// Encodes one server's Mix stage: `server ‖ u32 n ‖ n ciphertexts ‖ u32 len ‖ proof`.
pub fn encode_mix_stage(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    s: &MixStage,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::MIX_STAGE, |w| put_mix_stage(w, public, codec, s))
}

/// Decodes [`encode_mix_stage`]: exactly `n` valid ciphertexts, a server id among the `m`.
pub fn decode_mix_stage(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    bytes: &[u8],
) -> Result<MixStage, MixnetError> {
    read_msg("mix stage", tag::MIX_STAGE, bytes, |r| {
        get_mix_stage(r, public, codec)
    })
}

/// The number of packed decryption groups of the Mix output list (one Paillier decryption
/// share per server and group, [`crate::packing`]).
pub fn mix_decryption_groups(public: &MixnetPublic) -> usize {
    let slots = packing::slots_per_ciphertext(public.paillier.encryption_key(), OUTPUT_SLOT_BITS);
    public.n.div_ceil(slots)
}

/// `server ‖ u32 len ‖ batch` (the batch in `quorate_paillier`'s encoding).
pub(crate) fn put_batch(
    w: &mut Writer,
    public: &MixnetPublic,
    mixer: PartyId,
    batch: &BatchDecryptionShares,
) -> Result<(), MixnetError> {
    let b = public.paillier.encode_batch(batch);
    w.party(mixer);
    w.u32(u32_len("decryption shares", b.len())?).bytes(&b);
    Ok(())
}

/// Reads [`put_batch`]: exactly `groups` shares, every share a unit mod `N²`, the response in
/// range, under the stage's server id.
pub(crate) fn get_batch(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    what: &'static str,
    groups: usize,
) -> Result<(PartyId, BatchDecryptionShares), MixnetError> {
    let mixer = get_party(r, what, &public.params)?;
    let want = public.paillier.batch_len(groups);
    let len = len_at_most(r, what, want)?;
    if len != want {
        return Err(invalid(what, "wrong length of the decryption shares"));
    }
    let batch = public
        .paillier
        .decode_batch(groups, r.take(len)?)
        .map_err(|e| from_paillier("paillier batched decryption shares", e))?;
    if batch.id() != mixer {
        return Err(invalid(
            "paillier batched decryption shares",
            "shares under another server's id",
        ));
    }
    Ok((mixer, batch))
}

fn put_decryption_stage(
    w: &mut Writer,
    public: &MixnetPublic,
    s: &DecryptionStage,
) -> Result<(), MixnetError> {
    put_batch(w, public, s.mixer, &s.shares)
}

fn get_decryption_stage(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    groups: usize,
) -> Result<DecryptionStage, MixnetError> {
    let (mixer, shares) = get_batch(r, public, "decryption stage server", groups)?;
    Ok(DecryptionStage { mixer, shares })
}

/// Encodes one server's threshold-Paillier decryption shares: `server ‖ u32 len ‖ batch`
/// (one share per group with one batched proof, in `quorate_paillier`'s encoding).
pub fn encode_decryption_stage(
    public: &MixnetPublic,
    s: &DecryptionStage,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::DECRYPTION_STAGE, |w| {
        put_decryption_stage(w, public, s)
    })
}

/// Decodes [`encode_decryption_stage`] with exactly `groups` shares (for the Mix outputs:
/// [`mix_decryption_groups`]), each under the stage's server id, every share and the
/// proof's `a`, `b` units mod `N²` and the response in range.
pub fn decode_decryption_stage(
    public: &MixnetPublic,
    groups: usize,
    bytes: &[u8],
) -> Result<DecryptionStage, MixnetError> {
    read_msg("decryption stage", tag::DECRYPTION_STAGE, bytes, |r| {
        get_decryption_stage(r, public, groups)
    })
}

/// Encodes a whole Mix record: `u32 n ‖ accepted positions (u32) ‖ n input ciphertexts ‖
/// u16 m ‖ m stages ‖ u16 d ‖ d decryption stages ‖ u32 n ‖ n output scalars`.
pub fn encode_mix_record(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    rec: &MixRecord,
) -> Result<Vec<u8>, MixnetError> {
    let pk = public.paillier.encryption_key();
    write_msg(tag::MIX_RECORD, |w| {
        w.u32(u32_len("accepted", rec.accepted.len())?);
        for &a in &rec.accepted {
            w.u32(u32_len("accepted position", a)?);
        }
        w.u32(u32_len("mix inputs", rec.inputs.len())?);
        for c in &rec.inputs {
            put_ct(w, pk, c)?;
        }
        w.u16(u16_len("mix stages", rec.stages.len())?);
        for s in &rec.stages {
            put_mix_stage(w, public, codec, s)?;
        }
        w.u16(u16_len("decryption stages", rec.decryptions.len())?);
        for d in &rec.decryptions {
            put_decryption_stage(w, public, d)?;
        }
        w.u32(u32_len("mix outputs", rec.outputs.len())?);
        for s in &rec.outputs {
            put_scalar(w, s);
        }
        Ok(())
    })
}

/// Decodes [`encode_mix_record`]: `n` strictly increasing accepted positions below
/// [`MAX_SENDERS`], `n` valid input ciphertexts, exactly `m` stages, between `t` and `m`
/// decryption stages from distinct servers with [`mix_decryption_groups`] shares each, `n`
/// canonical output scalars.
pub fn decode_mix_record(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    bytes: &[u8],
) -> Result<MixRecord, MixnetError> {
    let pk = public.paillier.encryption_key();
    let n = public.n;
    let m = usize::from(public.params.n());
    read_msg("mix record", tag::MIX_RECORD, bytes, |r| {
        len_exact(r, "accepted", n)?;
        let accepted = read_vec(r, "accepted", n, 4, |r| {
            usize::try_from(r.u32()?).map_err(|_| invalid("accepted", "position overflows"))
        })?;
        if !accepted.windows(2).all(|w| w[0] < w[1])
            || accepted.last().is_some_and(|&l| l >= MAX_SENDERS)
        {
            return Err(invalid(
                "accepted",
                "positions must be strictly increasing and below MAX_SENDERS",
            ));
        }
        len_exact(r, "mix inputs", n)?;
        let inputs = read_vec(r, "mix inputs", n, pk.ciphertext_len(), |r| get_ct(r, pk))?;
        len16_exact(r, "mix stages", m)?;
        let stages = read_vec(r, "mix stages", m, 2, |r| get_mix_stage(r, public, codec))?;
        let d = usize::from(r.u16()?);
        if d < usize::from(public.params.t()) || d > m {
            return Err(invalid(
                "decryption stages",
                "count must be between t and m",
            ));
        }
        let groups = mix_decryption_groups(public);
        let decryptions = read_vec(r, "decryption stages", d, 2, |r| {
            get_decryption_stage(r, public, groups)
        })?;
        let ids: Vec<PartyId> = decryptions.iter().map(|s| s.mixer).collect();
        if quorate_core::party::check_distinct(&ids).is_err() {
            return Err(invalid("decryption stages", "a server appears twice"));
        }
        len_exact(r, "mix outputs", n)?;
        let outputs = read_vec(r, "mix outputs", n, SCALAR_BYTES, |r| {
            Ok(r.scalar("mix output")?)
        })?;
        Ok(MixRecord {
            accepted,
            inputs,
            stages,
            decryptions,
            outputs,
        })
    })
}

// ---------------------------------------------------------------------------------------
// DB-SM (Fig. 8).

fn put_indices(w: &mut Writer, what: &'static str, set: &[usize]) -> Result<(), MixnetError> {
    w.u32(u32_len(what, set.len())?);
    for &i in set {
        w.u32(u32_len(what, i)?);
    }
    Ok(())
}

fn get_indices(
    r: &mut Reader<'_>,
    what: &'static str,
    n: usize,
) -> Result<Vec<usize>, MixnetError> {
    let len = len_at_most(r, what, n)?;
    let set = read_vec(r, what, len, 4, |r| {
        usize::try_from(r.u32()?).map_err(|_| invalid(what, "index overflows"))
    })?;
    if !set.windows(2).all(|w| w[0] < w[1]) || set.last().is_some_and(|&l| l >= n) {
        return Err(invalid(
            what,
            "indices must be strictly increasing and below n",
        ));
    }
    Ok(set)
}

/// Encodes a DB-SM query: `I ‖ J ‖ y ‖ σ_j for j ∈ J`.
pub fn encode_bb_query(q: &BbQuery) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::BB_QUERY, |w| {
        put_indices(w, "query inputs I", &q.inputs)?;
        put_indices(w, "query outputs J", &q.outputs)?;
        put_g2(w, &q.y);
        w.u32(u32_len("BB signatures", q.sigs.len())?);
        for s in &q.sigs {
            put_g1(w, s);
        }
        Ok(())
    })
}

/// Decodes [`encode_bb_query`]: `I`, `J` strictly increasing below `n`, the BB key `y` and
/// every signature not the identity, one signature per element of `J`. (The signatures
/// themselves are checked by [`crate::membership::check_query`].)
pub fn decode_bb_query(public: &MixnetPublic, bytes: &[u8]) -> Result<BbQuery, MixnetError> {
    read_msg("BB query", tag::BB_QUERY, bytes, |r| {
        let inputs = get_indices(r, "query inputs I", public.n)?;
        let outputs = get_indices(r, "query outputs J", public.n)?;
        let y = r.g2("BB public key y")?;
        len_exact(r, "BB signatures", outputs.len())?;
        let sigs = read_vec(r, "BB signatures", outputs.len(), G1_BYTES, |r| {
            Ok(r.g1("BB signature")?)
        })?;
        Ok(BbQuery {
            inputs,
            outputs,
            y,
            sigs,
        })
    })
}

fn put_reverse_stage(
    w: &mut Writer,
    codec: &dyn ShuffleProofCodec,
    s: &ReverseStage,
) -> Result<(), MixnetError> {
    w.party(s.mixer);
    w.u32(u32_len("reverse stage outputs", s.outputs.len())?);
    for c in &s.outputs {
        put_eg(w, c);
    }
    put_proof(w, codec, &s.proof)
}

fn get_reverse_stage(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
) -> Result<ReverseStage, MixnetError> {
    let mixer = get_party(r, "reverse stage server", &public.params)?;
    len_exact(r, "reverse stage outputs", public.n)?;
    let outputs = read_vec(r, "reverse stage outputs", public.n, EG_BYTES, |r| {
        get_eg(r, "reverse stage output")
    })?;
    let proof = get_proof(
        r,
        codec,
        ShuffleContext {
            kind: ShuffleKind::ElGamal,
            n: public.n,
            paillier: None,
        },
    )?;
    Ok(ReverseStage {
        mixer,
        outputs,
        proof,
    })
}

/// Encodes a reverse-shuffle stage: `server ‖ u32 n ‖ n ElGamal ciphertexts ‖ u32 len ‖
/// proof`.
pub fn encode_reverse_stage(
    codec: &dyn ShuffleProofCodec,
    s: &ReverseStage,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::REVERSE_STAGE, |w| put_reverse_stage(w, codec, s))
}

/// Decodes [`encode_reverse_stage`] (exactly `n` ciphertexts).
pub fn decode_reverse_stage(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    bytes: &[u8],
) -> Result<ReverseStage, MixnetError> {
    read_msg("reverse stage", tag::REVERSE_STAGE, bytes, |r| {
        get_reverse_stage(r, public, codec)
    })
}

fn put_blind_proof(w: &mut Writer, p: &BlindProof) {
    put_eg(w, &p.t);
    put_g1(w, &p.t_b);
    put_scalar(w, &p.z_rho);
    put_scalar(w, &p.z_b);
    put_scalar(w, &p.z_s);
}

/// `T_B` may be the identity (a uniformly random point for an honest server; the proof
/// check decides).
fn get_blind_proof(r: &mut Reader<'_>) -> Result<BlindProof, MixnetError> {
    Ok(BlindProof {
        t: get_eg(r, "blinding proof T")?,
        t_b: r.g1_or_identity("blinding proof T_B")?,
        z_rho: r.scalar("blinding proof z_rho")?,
        z_b: r.scalar("blinding proof z_b")?,
        z_s: r.scalar("blinding proof z_s")?,
    })
}

const BLIND_PROOF_BYTES: usize = EG_BYTES + G1_BYTES + 3 * SCALAR_BYTES;

/// Encodes one blinding proof: `T ‖ T_B ‖ z_ρ ‖ z_b ‖ z_s`.
pub fn encode_blind_proof(p: &BlindProof) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag::BLIND_PROOF, WIRE_VERSION);
    put_blind_proof(&mut w, p);
    w.into_bytes()
}

/// Decodes [`encode_blind_proof`].
pub fn decode_blind_proof(bytes: &[u8]) -> Result<BlindProof, MixnetError> {
    read_msg("blinding proof", tag::BLIND_PROOF, bytes, get_blind_proof)
}

fn put_blinding_stage(w: &mut Writer, s: &BlindingStage) -> Result<(), MixnetError> {
    if s.contributions.len() != s.proofs.len() || s.contributions.len() != s.b_coms.len() {
        return Err(invalid(
            "blinding stage",
            "one commitment and one proof per contribution",
        ));
    }
    w.party(s.mixer);
    w.u32(u32_len("blinding contributions", s.contributions.len())?);
    for c in &s.contributions {
        put_eg(w, c);
    }
    for b in &s.b_coms {
        put_g1(w, b);
    }
    for p in &s.proofs {
        put_blind_proof(w, p);
    }
    Ok(())
}

fn get_blinding_stage(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    count: usize,
) -> Result<BlindingStage, MixnetError> {
    let mixer = get_party(r, "blinding stage server", &public.params)?;
    len_exact(r, "blinding contributions", count)?;
    need(
        r,
        "blinding stage",
        count,
        EG_BYTES + G1_BYTES + BLIND_PROOF_BYTES,
    )?;
    let contributions = read_vec(r, "blinding contributions", count, EG_BYTES, |r| {
        get_eg(r, "blinding contribution")
    })?;
    // A commitment may be the identity (`g^b h^s` is uniformly random for an honest server).
    let b_coms = read_vec(r, "blinding commitments", count, G1_BYTES, |r| {
        Ok(r.g1_or_identity("blinding commitment B")?)
    })?;
    let proofs = read_vec(
        r,
        "blinding proofs",
        count,
        BLIND_PROOF_BYTES,
        get_blind_proof,
    )?;
    Ok(BlindingStage {
        mixer,
        contributions,
        b_coms,
        proofs,
    })
}

/// Encodes one server's blinding stage: `server ‖ u32 |I| ‖ D_{k,i}* ‖ B_{k,i}* ‖ proofs*`.
pub fn encode_blinding_stage(s: &BlindingStage) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::BLINDING_STAGE, |w| put_blinding_stage(w, s))
}

/// Decodes [`encode_blinding_stage`] with exactly `count = |I|` contributions and proofs.
pub fn decode_blinding_stage(
    public: &MixnetPublic,
    count: usize,
    bytes: &[u8],
) -> Result<BlindingStage, MixnetError> {
    read_msg("blinding stage", tag::BLINDING_STAGE, bytes, |r| {
        get_blinding_stage(r, public, count)
    })
}

fn put_eg_dec_stage(w: &mut Writer, s: &ElGamalDecStage) -> Result<(), MixnetError> {
    w.party(s.mixer);
    w.u32(u32_len("elgamal decryption shares", s.shares.len())?);
    for sh in &s.shares {
        put_dec_share(w, sh);
    }
    Ok(())
}

fn get_eg_dec_stage(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    count: usize,
) -> Result<ElGamalDecStage, MixnetError> {
    let mixer = get_party(r, "elgamal decryption stage server", &public.params)?;
    len_exact(r, "elgamal decryption shares", count)?;
    let shares = read_vec(
        r,
        "elgamal decryption shares",
        count,
        DEC_SHARE_BYTES,
        get_dec_share,
    )?;
    Ok(ElGamalDecStage { mixer, shares })
}

/// Encodes one server's ElGamal decryption stage: `server ‖ u32 |I| ‖ shares*`.
pub fn encode_elgamal_dec_stage(s: &ElGamalDecStage) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::ELGAMAL_DEC_STAGE, |w| put_eg_dec_stage(w, s))
}

/// Decodes [`encode_elgamal_dec_stage`] with exactly `count = |I|` shares.
pub fn decode_elgamal_dec_stage(
    public: &MixnetPublic,
    count: usize,
    bytes: &[u8],
) -> Result<ElGamalDecStage, MixnetError> {
    read_msg(
        "elgamal decryption stage",
        tag::ELGAMAL_DEC_STAGE,
        bytes,
        |r| get_eg_dec_stage(r, public, count),
    )
}

fn put_dpk_commit(w: &mut Writer, c: &DpkCommit) {
    put_g1(w, &c.r_k);
    put_g1(w, &c.m_k);
    put_eg(w, &c.a_k);
    let p = &c.proof;
    put_g1(w, &p.r1);
    put_g1(w, &p.m1);
    put_eg(w, &p.a1);
    for s in [&p.s_v, &p.s_r, &p.s_b, &p.s_tau] {
        put_scalar(w, s);
    }
}

/// Every point is allowed to be the identity (each is a uniformly random group element for
/// an honest server; the share proof and the aggregate DPK check decide).
fn get_dpk_commit(r: &mut Reader<'_>) -> Result<DpkCommit, MixnetError> {
    let r_k = r.g1_or_identity("DPK R_k")?;
    let m_k = r.g1_or_identity("DPK M_k")?;
    let a_k = get_eg(r, "DPK A_k")?;
    let r1 = r.g1_or_identity("DPK share proof R'")?;
    let m1 = r.g1_or_identity("DPK share proof M'")?;
    let a1 = get_eg(r, "DPK share proof A'")?;
    Ok(DpkCommit {
        r_k,
        m_k,
        a_k,
        proof: DpkShareProof {
            r1,
            m1,
            a1,
            s_v: r.scalar("DPK share proof s_v")?,
            s_r: r.scalar("DPK share proof s_r")?,
            s_b: r.scalar("DPK share proof s_b")?,
            s_tau: r.scalar("DPK share proof s_tau")?,
        },
    })
}

const DPK_COMMIT_BYTES: usize = 8 * G1_BYTES + 4 * SCALAR_BYTES;

fn put_dpk_commit_stage(w: &mut Writer, s: &DpkCommitStage) -> Result<(), MixnetError> {
    w.party(s.mixer);
    w.u32(u32_len("DPK commitments", s.commits.len())?);
    for c in &s.commits {
        put_dpk_commit(w, c);
    }
    Ok(())
}

fn get_dpk_commit_stage(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    members: usize,
) -> Result<DpkCommitStage, MixnetError> {
    let mixer = get_party(r, "DPK commitment stage server", &public.params)?;
    len_exact(r, "DPK commitments", members)?;
    let commits = read_vec(
        r,
        "DPK commitments",
        members,
        DPK_COMMIT_BYTES,
        get_dpk_commit,
    )?;
    Ok(DpkCommitStage { mixer, commits })
}

/// Encodes one server's DPK_BB commitments: `server ‖ u32 members ‖ (R_k ‖ P_k ‖ W_k ‖ A_k ‖
/// R′ ‖ P′ ‖ W′ ‖ A′ ‖ s_v ‖ s_r ‖ s_b ‖ s_τ)*`.
pub fn encode_dpk_commit_stage(s: &DpkCommitStage) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::DPK_COMMIT_STAGE, |w| put_dpk_commit_stage(w, s))
}

/// Decodes [`encode_dpk_commit_stage`] with exactly `members` commitments (the number of
/// `S_i ≠ 1`).
pub fn decode_dpk_commit_stage(
    public: &MixnetPublic,
    members: usize,
    bytes: &[u8],
) -> Result<DpkCommitStage, MixnetError> {
    read_msg("DPK commitment stage", tag::DPK_COMMIT_STAGE, bytes, |r| {
        get_dpk_commit_stage(r, public, members)
    })
}

fn put_dpk_response_stage(w: &mut Writer, s: &DpkResponseStage) -> Result<(), MixnetError> {
    let cnt = s.z_v.len();
    if s.z_r.len() != cnt || s.z_b.len() != cnt || s.z_tau.len() != cnt {
        return Err(invalid(
            "DPK responses",
            "response vectors differ in length",
        ));
    }
    w.party(s.mixer);
    w.u32(u32_len("DPK responses", cnt)?);
    for v in [&s.z_v, &s.z_r, &s.z_b, &s.z_tau] {
        for z in v.iter() {
            put_scalar(w, z);
        }
    }
    Ok(())
}

fn get_dpk_response_stage(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    members: usize,
) -> Result<DpkResponseStage, MixnetError> {
    let mixer = get_party(r, "DPK response stage server", &public.params)?;
    len_exact(r, "DPK responses", members)?;
    need(r, "DPK responses", members, 4 * SCALAR_BYTES)?;
    let mut vs: [Vec<Scalar>; 4] = Default::default();
    for v in vs.iter_mut() {
        *v = read_vec(r, "DPK responses", members, SCALAR_BYTES, |r| {
            Ok(r.scalar("DPK response")?)
        })?;
    }
    let [z_v, z_r, z_b, z_tau] = vs;
    Ok(DpkResponseStage {
        mixer,
        z_v,
        z_r,
        z_b,
        z_tau,
    })
}

/// Encodes one server's DPK_BB responses: `server ‖ u32 members ‖ z_v* ‖ z_r* ‖ z_b* ‖ z_τ*`.
pub fn encode_dpk_response_stage(s: &DpkResponseStage) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::DPK_RESPONSE_STAGE, |w| put_dpk_response_stage(w, s))
}

/// Decodes [`encode_dpk_response_stage`] with exactly `members` responses per vector.
pub fn decode_dpk_response_stage(
    public: &MixnetPublic,
    members: usize,
    bytes: &[u8],
) -> Result<DpkResponseStage, MixnetError> {
    read_msg("DPK response stage", tag::DPK_RESPONSE_STAGE, bytes, |r| {
        get_dpk_response_stage(r, public, members)
    })
}

/// Encodes a whole DB-SM proof: `m` reverse stages, `m` blinding stages, `m` decryption
/// stages, `u32 |I| ‖ S_i*`, `m` DPK commitment stages, `m` DPK response stages (each list
/// `u16`-counted).
pub fn encode_dbsm_proof(
    codec: &dyn ShuffleProofCodec,
    p: &DbSmProof,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::DBSM_PROOF, |w| {
        w.u16(u16_len("reverse stages", p.reverse.len())?);
        for s in &p.reverse {
            put_reverse_stage(w, codec, s)?;
        }
        w.u16(u16_len("blinding stages", p.blinding.len())?);
        for s in &p.blinding {
            put_blinding_stage(w, s)?;
        }
        w.u16(u16_len("decryption stages", p.decryption.len())?);
        for s in &p.decryption {
            put_eg_dec_stage(w, s)?;
        }
        w.u32(u32_len("S", p.s.len())?);
        for s in &p.s {
            put_g1(w, s);
        }
        w.u16(u16_len("non-member openings", p.non_members.len())?);
        for o in &p.non_members {
            put_non_member(w, o)?;
        }
        w.u16(u16_len("DPK commitment stages", p.dpk_commits.len())?);
        for s in &p.dpk_commits {
            put_dpk_commit_stage(w, s)?;
        }
        w.u16(u16_len("DPK response stages", p.dpk_responses.len())?);
        for s in &p.dpk_responses {
            put_dpk_response_stage(w, s)?;
        }
        Ok(())
    })
}

/// Decodes [`encode_dbsm_proof`] for the query `q`: exactly `m` stages of each kind, every
/// blinding and decryption stage with `|I|` elements, `|I|` values `S_i` (the identity is
/// allowed: `S_i = 1` is the verified answer "not a member"), and every DPK stage with one
/// entry per member (`S_i ≠ 1`). The order of the servers is left to
/// [`crate::membership::verify`], which names a server whose stage is out of place.
pub fn decode_dbsm_proof(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    q: &BbQuery,
    bytes: &[u8],
) -> Result<DbSmProof, MixnetError> {
    let m = usize::from(public.params.n());
    let count = q.inputs.len();
    if count > public.n {
        return Err(invalid("DB-SM proof", "query larger than the batch"));
    }
    read_msg("DB-SM proof", tag::DBSM_PROOF, bytes, |r| {
        len16_exact(r, "reverse stages", m)?;
        let reverse = read_vec(r, "reverse stages", m, 2, |r| {
            get_reverse_stage(r, public, codec)
        })?;
        len16_exact(r, "blinding stages", m)?;
        let blinding = read_vec(r, "blinding stages", m, 2, |r| {
            get_blinding_stage(r, public, count)
        })?;
        len16_exact(r, "decryption stages", m)?;
        let decryption = read_vec(r, "decryption stages", m, 2, |r| {
            get_eg_dec_stage(r, public, count)
        })?;
        len_exact(r, "S", count)?;
        let s = read_vec(r, "S", count, G1_BYTES, |r| Ok(r.g1_or_identity("S_i")?))?;
        let members = s.iter().filter(|x| !bool::from(x.is_identity())).count();
        len16_exact(r, "non-member openings", m)?;
        let non_members = read_vec(r, "non-member openings", m, 6, |r| {
            get_non_member(r, public, count - members)
        })?;
        len16_exact(r, "DPK commitment stages", m)?;
        let dpk_commits = read_vec(r, "DPK commitment stages", m, 2, |r| {
            get_dpk_commit_stage(r, public, members)
        })?;
        len16_exact(r, "DPK response stages", m)?;
        let dpk_responses = read_vec(r, "DPK response stages", m, 2, |r| {
            get_dpk_response_stage(r, public, members)
        })?;
        Ok(DbSmProof {
            reverse,
            blinding,
            decryption,
            s,
            non_members,
            dpk_commits,
            dpk_responses,
        })
    })
}

pub(crate) fn put_scalars(w: &mut Writer, s: &[Scalar]) {
    s.iter().for_each(|x| put_scalar(w, x));
}

pub(crate) fn get_scalars(
    r: &mut Reader<'_>,
    what: &'static str,
    count: usize,
) -> Result<Vec<Scalar>, MixnetError> {
    read_vec(r, what, count, SCALAR_BYTES, |r| Ok(r.scalar(what)?))
}

/// One server's non-member openings: `server ‖ u32 k ‖ b* ‖ s*` (DB-SM and DB-RSM).
pub(crate) fn put_non_member(w: &mut Writer, o: &NonMemberOpening) -> Result<(), MixnetError> {
    if o.b.len() != o.s.len() {
        return Err(invalid(
            "non-member opening",
            "vectors of different lengths",
        ));
    }
    w.party(o.mixer);
    w.u32(u32_len("non-member opening", o.b.len())?);
    put_scalars(w, &o.b);
    put_scalars(w, &o.s);
    Ok(())
}

/// Decodes [`put_non_member`] with exactly `count` openings.
pub(crate) fn get_non_member(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    count: usize,
) -> Result<NonMemberOpening, MixnetError> {
    let mixer = get_party(r, "non-member opening server", &public.params)?;
    len_exact(r, "non-member opening", count)?;
    if r.remaining() < count.saturating_mul(2 * SCALAR_BYTES) {
        return Err(invalid("non-member opening", "shorter than its count"));
    }
    Ok(NonMemberOpening {
        mixer,
        b: get_scalars(r, "non-member opening b", count)?,
        s: get_scalars(r, "non-member opening s", count)?,
    })
}

// ---------------------------------------------------------------------------------------
// DKG and the public parameters.

/// Encodes a DKG round-1 broadcast: `dealer ‖ u16 t ‖ C_0 … C_{t−1} ‖ R ‖ z`.
pub fn encode_dkg_broadcast(b: &DkgBroadcast) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::DKG_BROADCAST, |w| {
        w.party(b.from);
        w.u16(u16_len("DKG commitments", b.commitments.len())?);
        for c in &b.commitments {
            put_g1(w, c);
        }
        put_g1(w, &b.pok.0);
        put_scalar(w, &b.pok.1);
        Ok(())
    })
}

/// Decodes [`encode_dkg_broadcast`]: the dealer is one of the `m` parties, exactly `t`
/// commitments, `C_0` (the dealer's share of the public key) not the identity (as
/// [`crate::dkg::verify_broadcast`] requires); the other coefficients and `R` may be.
pub fn decode_dkg_broadcast(
    params: ThresholdParams,
    bytes: &[u8],
) -> Result<DkgBroadcast, MixnetError> {
    read_msg("DKG broadcast", tag::DKG_BROADCAST, bytes, |r| {
        let from = get_party(r, "DKG dealer", &params)?;
        let t = usize::from(params.t());
        len16_exact(r, "DKG commitments", t)?;
        need(r, "DKG commitments", t, G1_BYTES)?;
        let mut commitments = Vec::with_capacity(t);
        commitments.push(r.g1("DKG commitment C_0")?);
        for _ in 1..t {
            commitments.push(r.g1_or_identity("DKG commitment")?);
        }
        let big_r = r.g1_or_identity("DKG proof R")?;
        let z = r.scalar("DKG proof z")?;
        Ok(DkgBroadcast {
            from,
            commitments,
            pok: (big_r, z),
        })
    })
}

/// Encodes everything a querier needs to verify: `u16 |sid| ‖ sid ‖ u32 n ‖ u16 t ‖ u16 m ‖
/// g ‖ h ‖ h_0 ‖ h_1 … h_n ‖ u32 len ‖ threshold Paillier key ‖ u32 len ‖ Ñ (minimal
/// big-endian) ‖ s ‖ t (ring-Pedersen, `⌈|Ñ|/8⌉` bytes each) ‖ ElGamal pk ‖ X_1 … X_m ‖
/// m permutation commitments (n points each) ‖ m × (u32 len ‖ permutation proof)`.
pub fn encode_mixnet_public(
    codec: &dyn ShuffleProofCodec,
    p: &MixnetPublic,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::MIXNET_PUBLIC, |w| {
        let sid = p.sid.as_bytes();
        w.u16(u16_len("session id", sid.len())?).bytes(sid);
        w.u32(u32_len("batch size", p.n)?);
        w.u16(p.params.t()).u16(p.params.n());
        if p.gens.hs.len() != p.n {
            return Err(invalid("generators", "one h_i per sender"));
        }
        for g in [&p.gens.g, &p.gens.h, &p.gens.h0] {
            put_g1(w, g);
        }
        for g in &p.gens.hs {
            put_g1(w, g);
        }
        let tpk = p.paillier.to_bytes();
        w.u32(u32_len("threshold paillier key", tpk.len())?)
            .bytes(&tpk);
        let rp = &p.ring_pedersen;
        if rp.n_hat <= 0 {
            return Err(invalid("ring-Pedersen modulus", "not positive"));
        }
        let n_hat = to_be_bytes_minimal(&rp.n_hat);
        w.u32(u32_len("ring-Pedersen modulus", n_hat.len())?)
            .bytes(&n_hat);
        put_unit(w, "ring-Pedersen s", &rp.s, &rp.n_hat)?;
        put_unit(w, "ring-Pedersen t", &rp.t, &rp.n_hat)?;
        put_g1(w, &p.elgamal.pk);
        let m = usize::from(p.params.n());
        if p.elgamal.verification_keys.len() != m
            || p.perm_commitments.len() != m
            || p.perm_proofs.len() != m
        {
            return Err(invalid("mixnet public", "one entry per server"));
        }
        for x in &p.elgamal.verification_keys {
            put_g1(w, x);
        }
        for com in &p.perm_commitments {
            if com.u.len() != p.n {
                return Err(invalid("permutation commitment", "one point per sender"));
            }
            for u in &com.u {
                put_g1(w, u);
            }
        }
        for proof in &p.perm_proofs {
            put_proof(w, codec, proof)?;
        }
        Ok(())
    })
}

/// Decodes [`encode_mixnet_public`] within `limits`. Beyond the encoding checks it checks
/// that the generators are exactly the hash-to-curve ones for `n` (no trapdoor can be
/// slipped in), that the Paillier key has the same `t`-of-`m` and at least
/// [`MIN_PAILLIER_BITS`] bits, that the ring-Pedersen parameters `(Ñ, s, t)` pass
/// [`RingPedersenParams::check_auxiliary`] against the Paillier `N` (`Ñ ≠ N`,
/// `gcd(Ñ, N) = 1`, `|N| ≤ |Ñ| ≤` [`MAX_RING_PEDERSEN_BITS`], non-degenerate `s, t`; `Ñ` is
/// read canonically, at most `⌈`[`MAX_RING_PEDERSEN_BITS`]`/8⌉` bytes, and checked before
/// `s, t` are read), that no key or commitment point is the identity, and that
/// the ElGamal verification keys lie on one polynomial of degree `t − 1` whose value at 0 is
/// the public key. The permutation proofs are only parsed: run
/// [`MixnetPublic::verify_setup`] on the result.
pub fn decode_mixnet_public(
    codec: &dyn ShuffleProofCodec,
    limits: &WireLimits,
    bytes: &[u8],
) -> Result<MixnetPublic, MixnetError> {
    read_msg("mixnet public", tag::MIXNET_PUBLIC, bytes, |r| {
        let sid_len = usize::from(r.u16()?);
        if sid_len > limits.max_sid_bytes {
            return Err(invalid("session id", "longer than the limit"));
        }
        let sid = SessionId::new(r.take(sid_len)?.to_vec());
        let n = usize::try_from(r.u32()?).map_err(|_| invalid("batch size", "overflows"))?;
        if n == 0 || n > limits.max_n.min(MAX_SENDERS) {
            return Err(invalid("batch size", "zero or above the limit"));
        }
        let (t, m) = (r.u16()?, r.u16()?);
        if m > limits.max_m.min(MAX_PARTIES) {
            return Err(invalid("servers", "more servers than the limit"));
        }
        let params =
            ThresholdParams::new(t, m).map_err(|_| invalid("threshold", "not 2 ≤ t ≤ m"))?;
        let mu = usize::from(m);
        // Generators: read, then compare with the derivation (before the expensive part,
        // make sure the bytes for every point are there).
        need(r, "generators", n + 3, G1_BYTES)?;
        let g = r.g1("generator g")?;
        let h = r.g1("generator h")?;
        let h0 = r.g1("generator h_0")?;
        let hs = read_vec(r, "generators h_i", n, G1_BYTES, |r| {
            Ok(r.g1("generator h_i")?)
        })?;
        let gens = Generators { g, h, h0, hs };
        let max = r.remaining();
        let tpk_len = len_at_most(r, "threshold paillier key", max)?;
        let paillier = ThresholdPublicKey::from_bytes(r.take(tpk_len)?)
            .map_err(|e| from_paillier("threshold paillier key", e))?;
        if paillier.params() != params {
            return Err(invalid(
                "threshold paillier key",
                "other t-of-m than the mixnet",
            ));
        }
        let paillier_n = paillier.encryption_key().n();
        if paillier_n.significant_bits() < MIN_PAILLIER_BITS {
            return Err(invalid(
                "threshold paillier key",
                "modulus below 1024 bits (MIN_PAILLIER_BITS)",
            ));
        }
        let n_hat_len = len_at_most(
            r,
            "ring-Pedersen modulus",
            bounded_len(MAX_RING_PEDERSEN_BITS),
        )?;
        let n_hat_bytes = r.take(n_hat_len)?;
        if matches!(n_hat_bytes.first(), None | Some(0)) {
            return Err(DecodeError::NonCanonical {
                what: "ring-Pedersen modulus",
            }
            .into());
        }
        let n_hat = from_be_bytes(n_hat_bytes);
        if check_auxiliary_modulus(&n_hat, paillier_n).is_err() {
            return Err(invalid(
                "ring-Pedersen modulus",
                "not an auxiliary modulus independent of the Paillier N",
            ));
        }
        let s = get_unit(r, "ring-Pedersen s", &n_hat)?;
        let t_rp = get_unit(r, "ring-Pedersen t", &n_hat)?;
        let ring_pedersen = RingPedersenParams { n_hat, s, t: t_rp };
        if ring_pedersen.check_auxiliary(paillier_n).is_err() {
            return Err(invalid("ring-Pedersen parameters", "degenerate generators"));
        }
        let epk = r.g1("ElGamal public key")?;
        let vks = read_vec(r, "ElGamal verification keys", mu, G1_BYTES, |r| {
            Ok(r.g1("ElGamal verification key")?)
        })?;
        let elgamal = ElGamalPublic {
            params,
            pk: epk,
            verification_keys: vks,
        };
        check_verification_keys(&elgamal)?;
        let per_com = n
            .checked_mul(G1_BYTES)
            .ok_or_else(|| invalid("permutation commitments", "length overflows"))?;
        let perm_commitments = read_vec(r, "permutation commitments", mu, per_com, |r| {
            let u = read_vec(r, "permutation commitment", n, G1_BYTES, |r| {
                Ok(r.g1("permutation commitment u_j")?)
            })?;
            Ok(PermutationCommitment { u })
        })?;
        let ctx = ShuffleContext {
            kind: ShuffleKind::Permutation,
            n,
            paillier: None,
        };
        let perm_proofs = read_vec(r, "permutation proofs", mu, 4, |r| get_proof(r, codec, ctx))?;
        if gens != Generators::derive(n) {
            return Err(invalid("generators", "not the hash-to-curve generators"));
        }
        Ok(MixnetPublic {
            sid,
            n,
            params,
            gens,
            paillier,
            ring_pedersen,
            elgamal,
            perm_commitments,
            perm_proofs,
            djn: std::sync::Arc::default(),
            rp_tables: std::sync::Arc::default(),
            elgamal_tables: std::sync::Arc::default(),
        })
    })
}

/// `X_1 … X_m` lie on a polynomial of degree `t − 1` in the exponent with value `pk` at 0:
/// Lagrange interpolation from `X_1 … X_t` reproduces `pk` and every further `X_j`.
fn check_verification_keys(e: &ElGamalPublic) -> Result<(), MixnetError> {
    let bad = || {
        invalid(
            "ElGamal verification keys",
            "inconsistent with the public key",
        )
    };
    let t = usize::from(e.params.t());
    let ids: Vec<PartyId> = e.params.parties().collect();
    let (base_ids, rest_ids) = ids.split_at(t.min(ids.len()));
    let xs: Vec<Scalar> = base_ids.iter().map(|&k| eval_point(k)).collect();
    let base = e.verification_keys.get(..xs.len()).ok_or_else(bad)?;
    let l0 = coefficients_at_zero(&xs).map_err(|_| bad())?;
    if g1_msm_vartime(base, &l0) != e.pk {
        return Err(bad());
    }
    for (&j, xj) in rest_ids.iter().zip(e.verification_keys.iter().skip(t)) {
        let l = coefficients_at(&xs, &eval_point(j)).map_err(|_| bad())?;
        if g1_msm_vartime(base, &l) != *xj {
            return Err(bad());
        }
    }
    Ok(())
}
