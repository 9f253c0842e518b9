//! Wire encodings of the DB-RSM messages ([`crate::reverse_membership`], paper Fig. 9), of its
//! Paillier witness track ([`crate::reverse_membership::witness_track`]) and of the Enc-to-shares conversion
//! ([`crate::sharing`]), with typed, panic-free decoders (issue 6: malformed or oversized
//! messages give typed errors, never panics).
//!
//! # Conventions
//! The same as [`crate::wire`]: every message starts with a type tag ([`tag`], `0x81..`)
//! and the format version [`WIRE_VERSION`]; G1/G2 points are compressed and checked for the
//! curve, the subgroup and (where the protocol forbids it) the identity; scalars are 32
//! bytes big-endian and canonical; Paillier ciphertexts are `⌈|N²|/8⌉` bytes, units below
//! `N²`; elements of `Z_N^*` / `Z_Ñ^*` are `⌈|N|/8⌉` / `⌈|Ñ|/8⌉` bytes, units in range;
//! integer responses with bit bound `B` are `⌈B/8⌉` bytes with at most `B` significant bits
//! (the verifiers' bounds); vector lengths (`u32`, `u16` for per-server lists) must equal
//! what the context fixes and are checked against the remaining bytes before anything is
//! allocated; party ids are one of the `m` servers; trailing bytes are an error. Every
//! error is [`MixnetError::Decode`].
//!
//! Target-group elements `Y_k`, `T_k` of DPK_BBS+ ([`BbsDpkCommit`]) use the torus
//! compression of `Gt` (288 bytes, six canonical `Fp` little-endian as blstrs writes them);
//! decoding checks membership in the order-`q` subgroup. The identity of `Gt` has no
//! compressed form, so it is rejected on encoding (an honest server produces it with
//! negligible probability).
//!
//! Messages that contain a whole [`crate::wire`] message (a Terelius–Wikström
//! [`crate::membership::ReverseStage`] or [`MixStage`], a [`crate::membership::ElGamalDecStage`]) embed it as `u32 len ‖ bytes`,
//! produced and checked by the public encoders of [`crate::wire`] (with a
//! [`ShuffleProofCodec`] for the shuffle proofs).
//!
//! # What may be the identity
//! * Rejected: the BBS+ key `y`, the quasi-signatures `S_i`, every Pedersen commitment
//!   (triples `A_k, B_k, C_k`, blinding commitments `B_{k,j}`, witness commitments
//!   `C_k, B_k, R_k`, value commitments `C_k, R_k`, mask commitments `A_k, A′_k`), every
//!   proof commitment (`T_B`, `T_C`, `U_k`), and `S̃` in a DPK statement: each is a product
//!   with a hash-to-curve generator and a uniform exponent, the identity only for someone
//!   who knows a discrete logarithm between the generators.
//! * Allowed: ElGamal ciphertexts (`D_{k,j}`, `T` of a blinding proof; as in
//!   [`crate::wire`]) and `S̃_j` in the signature track: `S̃_j = 1` is the verified answer
//!   "output `j` is not a member" ([`crate::reverse_membership::verify`] splits the outputs on it).
//!
//! # Secrets are never encoded
//! `TripleShares`, `WitnessShares`, `BlindingShares`, `BbsDpkNonces`, `MixerShares`,
//! `BbsQuerierKey` and a server's `CommittedShare` stay with their owner; only what travels
//! between parties has an encoding here.
//!
//! # Contexts
//! Decoders take the counts from what the receiver already trusts: [`MixnetPublic`] (`n`,
//! `m`, the Paillier key, the ring-Pedersen modulus) and explicit counts (`|I|`, the number
//! of members or non-members, the number of converted elements). Inside a whole
//! [`DbRsmProof`], the member count is taken from the decoded `S̃_j` (non-identity ones),
//! exactly as the verifier does.
//!
//! # Sizes (bytes; `c = ⌈|N²|/8⌉`, `z = ⌈|N|/8⌉`, `ẑ = ⌈|Ñ|/8⌉`, `G1 = 48`, `G2 = 96`,
//! `Gt = 288`, `s = 32`)
//! * [`BbsQuery`]: `6 + 32 + 4|I| + G2 + |I|·(G1 + 2s)` (32: the query id).
//! * [`TriplePublic`]: `4 + 32 + 3m·G1 + 2·G1 + 3s`; [`BeaverOpening`]: `8 + 4·count·s`.
//! * [`BbsDpkProof`]: `4 + m·(2 + 2·Gt + 3·G1 + 6s)`.
//! * [`RsmBlindingStage`]: `8 + n·(2·G1 + G1 + (3·G1 + 3s))`.
//! * [`NonMemberOpening`]: `8 + 2·count·s`.
//! * [`ShareCommit`]: `2 + c + G1 + link` (per-value layout: `2 + c + 2·G1 + link`), the
//!   link proof body `16 + 2⌈(PROOF_MASK_BITS + 1)/8⌉ + z + 2ẑ + 2⌈(μ + 1)/8⌉` (per-value:
//!   `+ 2s`), `μ` the ring-Pedersen mask bits; every standalone message adds its 2-byte
//!   header, nested bodies do not.
//!
//! Measured at `n = 6`, `m = 2`, `|I| = 3` (3 members, 3 non-members), 1024-bit `N`
//! (`tests/mixnet/wire_rsm.rs`, `encoded_sizes`): BBS+ query 482, triples for `|I|` 1548, Beaver
//! opening (one server) 392, DPK_BBS+ proof (one output) 1832, signature track 11018
//! (one blinding stage 2312), non-member opening 200, witness shuffle 7258, witness track
//! 18344, joint sharing record for `n` inputs 20802, whole DB-RSM proof 36034.

use crate::beaver::{BeaverOpening, TripleProof, TriplePublic};
use crate::djn;
use crate::error::MixnetError;
use crate::mix::MixStage;
use crate::packing;
use crate::reverse_membership::query::QueryId;
use crate::reverse_membership::witness_track::{WitnessShuffle, WitnessTrack};
use crate::reverse_membership::{
    BbsDpkCommit, BbsDpkProof, BbsDpkResponse, BbsDpkStatement, BbsQuery, DbRsmProof,
    NonMemberOpening, QuasiSignature, RsmBlindProof, RsmBlindingStage, SignatureTrack,
    WitnessCommitments,
};
use crate::setup::MixnetPublic;
use crate::sharing::{
    Layout, ShareCommit, ShareCommitStage, ShareDecStage, ShareLinkProof, SharingRecord,
    ValueCommitments, INPUT_BITS, PROOF_MASK_BITS,
};
use crate::wire::{
    self, get_batch, get_bounded, get_ct, get_eg, get_non_member, get_party, get_scalars, get_unit,
    invalid, len_exact, modulus_len, put_batch, put_bounded, put_ct, put_eg, put_g1,
    put_non_member, put_scalar, put_scalars, put_uint, read_msg, read_vec, u16_exact, u16_len,
    u32_len, write_msg, ShuffleProofCodec, EG_BYTES, WIRE_VERSION,
};
use blstrs::{Compress, Gt, Scalar};
use group::Group;
use quorate_core::bls12_381::wire::{g2_to_bytes, ReadBls, G1_BYTES, SCALAR_BYTES};
use quorate_core::encoding::{Reader, Writer};

/// Message type tags of this module (`0x81..=0x98`; [`crate::wire`] uses `0x70..=0x80`).
pub mod tag {
    /// [`crate::reverse_membership::BbsQuery`].
    pub const BBS_QUERY: u8 = 0x81;
    /// [`crate::reverse_membership::QuasiSignature`].
    pub const QUASI_SIGNATURE: u8 = 0x82;
    /// [`crate::beaver::TriplePublic`].
    pub const TRIPLE_PUBLIC: u8 = 0x83;
    /// [`crate::beaver::TripleProof`].
    pub const TRIPLE_PROOF: u8 = 0x84;
    /// A list of [`crate::beaver::TriplePublic`] (the dealer's publication).
    pub const TRIPLES: u8 = 0x85;
    /// [`crate::beaver::BeaverOpening`].
    pub const BEAVER_OPENING: u8 = 0x86;
    /// [`crate::reverse_membership::WitnessCommitments`].
    pub const WITNESS_COMMITMENTS: u8 = 0x87;
    /// [`crate::reverse_membership::BbsDpkStatement`].
    pub const BBS_DPK_STATEMENT: u8 = 0x88;
    /// [`crate::reverse_membership::BbsDpkCommit`].
    pub const BBS_DPK_COMMIT: u8 = 0x89;
    /// [`crate::reverse_membership::BbsDpkResponse`].
    pub const BBS_DPK_RESPONSE: u8 = 0x8A;
    /// [`crate::reverse_membership::BbsDpkProof`].
    pub const BBS_DPK_PROOF: u8 = 0x8B;
    /// [`crate::reverse_membership::RsmBlindProof`].
    pub const RSM_BLIND_PROOF: u8 = 0x8C;
    /// [`crate::reverse_membership::RsmBlindingStage`].
    pub const RSM_BLINDING_STAGE: u8 = 0x8D;
    /// [`crate::reverse_membership::SignatureTrack`].
    pub const SIGNATURE_TRACK: u8 = 0x8E;
    /// [`crate::reverse_membership::NonMemberOpening`].
    pub const NON_MEMBER_OPENING: u8 = 0x8F;
    /// [`crate::reverse_membership::witness_track::WitnessShuffle`].
    pub const WITNESS_SHUFFLE: u8 = 0x90;
    /// [`crate::sharing::ShareLinkProof`].
    pub const SHARE_LINK_PROOF: u8 = 0x91;
    /// [`crate::sharing::ShareCommit`].
    pub const SHARE_COMMIT: u8 = 0x92;
    /// [`crate::sharing::ShareCommitStage`].
    pub const SHARE_COMMIT_STAGE: u8 = 0x93;
    /// [`crate::sharing::ShareDecStage`].
    pub const SHARE_DEC_STAGE: u8 = 0x94;
    /// [`crate::sharing::SharingRecord`].
    pub const SHARING_RECORD: u8 = 0x95;
    /// [`crate::reverse_membership::witness_track::WitnessTrack`].
    pub const WITNESS_TRACK: u8 = 0x96;
    /// [`crate::sharing::ValueCommitments`].
    pub const VALUE_COMMITMENTS: u8 = 0x97;
    /// [`crate::reverse_membership::DbRsmProof`].
    pub const DBRSM_PROOF: u8 = 0x98;
}

/// Bytes of a compressed `Gt` element.
pub const GT_BYTES: usize = crate::reverse_membership::GT_COMPRESSED_BYTES;

// ---------------------------------------------------------------------------------------
// Primitives: the shared ones are `wire.rs`'s; these are DB-RSM's own.

/// A `u16` count that must equal `expected`.
fn expect16(r: &mut Reader<'_>, what: &'static str, expected: usize) -> Result<(), MixnetError> {
    u16_exact(r, what, expected, "count differs from the expected count")
}

fn put_gt(w: &mut Writer, what: &'static str, x: &Gt) -> Result<(), MixnetError> {
    let out = crate::reverse_membership::gt_compressed(x)
        .ok_or_else(|| invalid(what, "the identity of Gt has no compressed form"))?;
    w.bytes(&out);
    Ok(())
}

/// A compressed `Gt` element: canonical `Fp` coordinates, in the order-q subgroup (checked
/// by blstrs on decompression); never the identity (it has no compressed form).
fn get_gt(r: &mut Reader<'_>, what: &'static str) -> Result<Gt, MixnetError> {
    Gt::read_compressed(r.take(GT_BYTES)?).map_err(|_| invalid(what, "not an element of Gt"))
}

/// `u32 len ‖ bytes` of an embedded message.
fn put_sub(w: &mut Writer, what: &'static str, bytes: &[u8]) -> Result<(), MixnetError> {
    w.u32(u32_len(what, bytes.len())?).bytes(bytes);
    Ok(())
}

fn get_sub<'a>(r: &mut Reader<'a>, what: &'static str) -> Result<&'a [u8], MixnetError> {
    let len = usize::try_from(r.u32()?).map_err(|_| invalid(what, "length overflows"))?;
    if len > r.remaining() {
        return Err(invalid(what, "embedded length exceeds the message"));
    }
    Ok(r.take(len)?)
}

fn m_of(public: &MixnetPublic) -> usize {
    usize::from(public.params.n())
}

// ---------------------------------------------------------------------------------------
// The query (Fig. 9, step 1-3: the querier's BBS+ quasi-signatures).

const QSIG_BYTES: usize = G1_BYTES + 2 * SCALAR_BYTES;

fn put_qsig(w: &mut Writer, s: &QuasiSignature) {
    put_g1(w, &s.s);
    put_scalar(w, &s.c);
    put_scalar(w, &s.r_hat);
}

/// `S_i = 1` is refused by the servers' check (`S_i ≠ 1`, issue 6), so already here.
fn get_qsig(r: &mut Reader<'_>) -> Result<QuasiSignature, MixnetError> {
    Ok(QuasiSignature {
        s: r.g1("quasi-signature S")?,
        c: r.scalar("quasi-signature c")?,
        r_hat: r.scalar("quasi-signature r_hat")?,
    })
}

/// Encodes one quasi-signature: `S ‖ c ‖ r̂`.
pub fn encode_quasi_signature(s: &QuasiSignature) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag::QUASI_SIGNATURE, WIRE_VERSION);
    put_qsig(&mut w, s);
    w.into_bytes()
}

/// Decodes [`encode_quasi_signature`] (`S ≠ 1`, canonical scalars).
pub fn decode_quasi_signature(bytes: &[u8]) -> Result<QuasiSignature, MixnetError> {
    read_msg("quasi-signature", tag::QUASI_SIGNATURE, bytes, get_qsig)
}

/// Encodes the DB-RSM query: `query id (32) ‖ u32 |I| ‖ |I| × u32 index ‖ y ‖
/// |I| × (S ‖ c ‖ r̂)`.
pub fn encode_bbs_query(q: &BbsQuery) -> Result<Vec<u8>, MixnetError> {
    if q.sigs.len() != q.inputs.len() {
        return Err(invalid(
            "BBS+ query",
            "one quasi-signature per queried input",
        ));
    }
    write_msg(tag::BBS_QUERY, |w| {
        w.bytes(q.query_id.as_bytes());
        w.u32(u32_len("BBS+ query inputs", q.inputs.len())?);
        for &i in &q.inputs {
            w.u32(u32_len("BBS+ query input index", i)?);
        }
        w.bytes(&g2_to_bytes(&q.y));
        q.sigs.iter().for_each(|s| put_qsig(w, s));
        Ok(())
    })
}

/// Decodes [`encode_bbs_query`] for a batch of `n = public.n`: `1 ≤ |I| ≤ n`, indices
/// strictly increasing and below `n`, `y ≠ 1`, every `S_i ≠ 1`.
pub fn decode_bbs_query(public: &MixnetPublic, bytes: &[u8]) -> Result<BbsQuery, MixnetError> {
    read_msg("BBS+ query", tag::BBS_QUERY, bytes, |r| {
        let query_id = QueryId(r.array()?);
        let k = usize::try_from(r.u32()?).map_err(|_| invalid("BBS+ query", "length overflows"))?;
        if k == 0 || k > public.n {
            return Err(invalid("BBS+ query inputs", "|I| must be in 1..=n"));
        }
        let inputs = read_vec(r, "BBS+ query inputs", k, 4 + QSIG_BYTES, |r| {
            usize::try_from(r.u32()?).map_err(|_| invalid("BBS+ query input", "overflows"))
        })?;
        if !inputs.windows(2).all(|w| w[0] < w[1]) || inputs.last().is_some_and(|&l| l >= public.n)
        {
            return Err(invalid(
                "BBS+ query inputs",
                "indices not strictly increasing below n",
            ));
        }
        let y = r.g2("BBS+ public key y")?;
        let sigs = read_vec(r, "quasi-signatures", k, QSIG_BYTES, get_qsig)?;
        Ok(BbsQuery {
            query_id,
            inputs,
            y,
            sigs,
        })
    })
}

// ---------------------------------------------------------------------------------------
// Beaver triples and openings (Fig. 9, step 8: r′ = ρ·b).

const TRIPLE_PROOF_BYTES: usize = 2 * G1_BYTES + 3 * SCALAR_BYTES;

fn put_triple_proof(w: &mut Writer, p: &TripleProof) {
    put_g1(w, &p.t_b);
    put_g1(w, &p.t_c);
    put_scalars(w, &[p.z_b, p.z_beta, p.z_tau]);
}

fn get_triple_proof(r: &mut Reader<'_>) -> Result<TripleProof, MixnetError> {
    Ok(TripleProof {
        t_b: r.g1("triple proof T_B")?,
        t_c: r.g1("triple proof T_C")?,
        z_b: r.scalar("triple proof z_b")?,
        z_beta: r.scalar("triple proof z_beta")?,
        z_tau: r.scalar("triple proof z_tau")?,
    })
}

/// Encodes the dealer's proof for one triple: `T_B ‖ T_C ‖ z_b ‖ z_β ‖ z_τ`.
pub fn encode_triple_proof(p: &TripleProof) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag::TRIPLE_PROOF, WIRE_VERSION);
    put_triple_proof(&mut w, p);
    w.into_bytes()
}

/// Decodes [`encode_triple_proof`] (`T_B, T_C ≠ 1`).
pub fn decode_triple_proof(bytes: &[u8]) -> Result<TripleProof, MixnetError> {
    read_msg("triple proof", tag::TRIPLE_PROOF, bytes, get_triple_proof)
}

fn put_triple(w: &mut Writer, t: &TriplePublic) -> Result<(), MixnetError> {
    let m = t.a.len();
    if t.b.len() != m || t.c.len() != m {
        return Err(invalid("Beaver triple", "one commitment per server"));
    }
    w.bytes(t.query.as_bytes());
    w.u16(u16_len("Beaver triple servers", m)?);
    for v in [&t.a, &t.b, &t.c] {
        v.iter().for_each(|p| put_g1(w, p));
    }
    put_triple_proof(w, &t.proof);
    Ok(())
}

fn get_triple(r: &mut Reader<'_>, public: &MixnetPublic) -> Result<TriplePublic, MixnetError> {
    let m = m_of(public);
    let query = QueryId(r.array()?);
    expect16(r, "Beaver triple servers", m)?;
    let mut get = |what| read_vec(r, what, m, G1_BYTES, |r| Ok(r.g1(what)?));
    let a = get("triple commitment A_k")?;
    let b = get("triple commitment B_k")?;
    let c = get("triple commitment C_k")?;
    let proof = get_triple_proof(r)?;
    Ok(TriplePublic {
        query,
        a,
        b,
        c,
        proof,
    })
}

fn triple_bytes(m: usize) -> usize {
    QueryId::BYTES + 2 + 3 * m * G1_BYTES + TRIPLE_PROOF_BYTES
}

/// Encodes one dealt triple: `query id (32) ‖ u16 m ‖ A_1…A_m ‖ B_1…B_m ‖ C_1…C_m ‖ proof`.
pub fn encode_triple_public(t: &TriplePublic) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::TRIPLE_PUBLIC, |w| put_triple(w, t))
}

/// Decodes [`encode_triple_public`]: exactly `m` commitments of each kind, none the
/// identity.
pub fn decode_triple_public(
    public: &MixnetPublic,
    bytes: &[u8],
) -> Result<TriplePublic, MixnetError> {
    read_msg("Beaver triple", tag::TRIPLE_PUBLIC, bytes, |r| {
        get_triple(r, public)
    })
}

/// Encodes the dealer's list of triples: `u32 count ‖ triples`.
pub fn encode_triples(ts: &[TriplePublic]) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::TRIPLES, |w| {
        w.u32(u32_len("Beaver triples", ts.len())?);
        ts.iter().try_for_each(|t| put_triple(w, t))
    })
}

/// Decodes [`encode_triples`] with exactly `count` triples.
pub fn decode_triples(
    public: &MixnetPublic,
    count: usize,
    bytes: &[u8],
) -> Result<Vec<TriplePublic>, MixnetError> {
    read_msg("Beaver triples", tag::TRIPLES, bytes, |r| {
        len_exact(r, "Beaver triples", count)?;
        read_vec(
            r,
            "Beaver triples",
            count,
            triple_bytes(m_of(public)),
            |r| get_triple(r, public),
        )
    })
}

fn put_beaver(w: &mut Writer, o: &BeaverOpening) -> Result<(), MixnetError> {
    let k = o.d.len();
    if o.d_rand.len() != k || o.e.len() != k || o.e_rand.len() != k {
        return Err(invalid("Beaver opening", "vectors of different lengths"));
    }
    w.party(o.mixer);
    w.u32(u32_len("Beaver opening", k)?);
    for v in [&o.d, &o.d_rand, &o.e, &o.e_rand] {
        put_scalars(w, v);
    }
    Ok(())
}

fn get_beaver(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    count: usize,
) -> Result<BeaverOpening, MixnetError> {
    let mixer = get_party(r, "Beaver opening server", &public.params)?;
    len_exact(r, "Beaver opening", count)?;
    if r.remaining() < count.saturating_mul(4 * SCALAR_BYTES) {
        return Err(invalid("Beaver opening", "shorter than its count"));
    }
    Ok(BeaverOpening {
        mixer,
        d: get_scalars(r, "Beaver opening d", count)?,
        d_rand: get_scalars(r, "Beaver opening d_rand", count)?,
        e: get_scalars(r, "Beaver opening e", count)?,
        e_rand: get_scalars(r, "Beaver opening e_rand", count)?,
    })
}

/// Encodes one server's Beaver openings: `server ‖ u32 k ‖ d* ‖ d_rand* ‖ e* ‖ e_rand*`.
pub fn encode_beaver_opening(o: &BeaverOpening) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::BEAVER_OPENING, |w| put_beaver(w, o))
}

/// Decodes [`encode_beaver_opening`] with exactly `count` (the member count) openings.
pub fn decode_beaver_opening(
    public: &MixnetPublic,
    count: usize,
    bytes: &[u8],
) -> Result<BeaverOpening, MixnetError> {
    read_msg("Beaver opening", tag::BEAVER_OPENING, bytes, |r| {
        get_beaver(r, public, count)
    })
}

// ---------------------------------------------------------------------------------------
// DPK_BBS+ (Fig. 9, step 8).

const WCOM_BYTES: usize = 3 * G1_BYTES;

fn put_wcom(w: &mut Writer, c: &WitnessCommitments) {
    [c.c, c.b, c.r].iter().for_each(|p| put_g1(w, p));
}

fn get_wcom(r: &mut Reader<'_>) -> Result<WitnessCommitments, MixnetError> {
    Ok(WitnessCommitments {
        c: r.g1("witness commitment C_k")?,
        b: r.g1("witness commitment B_k")?,
        r: r.g1("witness commitment R_k")?,
    })
}

/// Encodes one server's witness commitments: `C_k ‖ B_k ‖ R_k`.
pub fn encode_witness_commitments(c: &WitnessCommitments) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag::WITNESS_COMMITMENTS, WIRE_VERSION);
    put_wcom(&mut w, c);
    w.into_bytes()
}

/// Decodes [`encode_witness_commitments`] (no identity).
pub fn decode_witness_commitments(bytes: &[u8]) -> Result<WitnessCommitments, MixnetError> {
    read_msg(
        "witness commitments",
        tag::WITNESS_COMMITMENTS,
        bytes,
        get_wcom,
    )
}

/// Encodes a DPK_BBS+ statement: `u32 j ‖ S̃ ‖ v′ ‖ u16 m ‖ m × (C_k ‖ B_k ‖ R_k)`.
pub fn encode_bbs_dpk_statement(st: &BbsDpkStatement) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::BBS_DPK_STATEMENT, |w| {
        w.u32(u32_len("DPK statement index", st.index)?);
        put_g1(w, &st.s_tilde);
        put_scalar(w, &st.v_out);
        w.u16(u16_len("DPK statement commitments", st.coms.len())?);
        st.coms.iter().for_each(|c| put_wcom(w, c));
        Ok(())
    })
}

/// Decodes [`encode_bbs_dpk_statement`]: `j < n`, `S̃ ≠ 1` (a statement exists only for a
/// member), `m` commitment triples.
pub fn decode_bbs_dpk_statement(
    public: &MixnetPublic,
    bytes: &[u8],
) -> Result<BbsDpkStatement, MixnetError> {
    read_msg("DPK_BBS+ statement", tag::BBS_DPK_STATEMENT, bytes, |r| {
        let index = usize::try_from(r.u32()?).map_err(|_| invalid("DPK index", "overflows"))?;
        if index >= public.n {
            return Err(invalid("DPK_BBS+ statement index", "not below n"));
        }
        let s_tilde = r.g1("DPK_BBS+ statement S~")?;
        let v_out = r.scalar("DPK_BBS+ statement v'")?;
        let m = m_of(public);
        expect16(r, "DPK_BBS+ statement commitments", m)?;
        let coms = read_vec(r, "DPK_BBS+ statement commitments", m, WCOM_BYTES, get_wcom)?;
        Ok(BbsDpkStatement {
            index,
            s_tilde,
            v_out,
            coms,
        })
    })
}

const DPK_COMMIT_BYTES: usize = 2 * GT_BYTES + 3 * G1_BYTES;
const DPK_RESPONSE_BYTES: usize = 6 * SCALAR_BYTES;

fn put_dpk_commit(w: &mut Writer, c: &BbsDpkCommit) -> Result<(), MixnetError> {
    put_gt(w, "DPK_BBS+ Y_k", &c.y_k)?;
    put_gt(w, "DPK_BBS+ T_k", &c.t_k)?;
    c.u.iter().for_each(|p| put_g1(w, p));
    Ok(())
}

fn get_dpk_commit(r: &mut Reader<'_>) -> Result<BbsDpkCommit, MixnetError> {
    Ok(BbsDpkCommit {
        y_k: get_gt(r, "DPK_BBS+ Y_k")?,
        t_k: get_gt(r, "DPK_BBS+ T_k")?,
        u: [
            r.g1("DPK_BBS+ U_c")?,
            r.g1("DPK_BBS+ U_b")?,
            r.g1("DPK_BBS+ U_r")?,
        ],
    })
}

/// Encodes one server's DPK_BBS+ commitment: `Y_k ‖ T_k ‖ U_c ‖ U_b ‖ U_r` (fails on a
/// `Gt` identity).
pub fn encode_bbs_dpk_commit(c: &BbsDpkCommit) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::BBS_DPK_COMMIT, |w| put_dpk_commit(w, c))
}

/// Decodes [`encode_bbs_dpk_commit`] (`Y_k, T_k` in the order-q subgroup of `Gt`, `U ≠ 1`).
pub fn decode_bbs_dpk_commit(bytes: &[u8]) -> Result<BbsDpkCommit, MixnetError> {
    read_msg(
        "DPK_BBS+ commit",
        tag::BBS_DPK_COMMIT,
        bytes,
        get_dpk_commit,
    )
}

fn put_dpk_response(w: &mut Writer, z: &BbsDpkResponse) {
    put_scalars(w, &z.z_w);
    put_scalars(w, &z.z_s);
}

fn get_dpk_response(r: &mut Reader<'_>) -> Result<BbsDpkResponse, MixnetError> {
    let mut z_w = [Scalar::from(0u64); 3];
    let mut z_s = [Scalar::from(0u64); 3];
    for x in z_w.iter_mut() {
        *x = r.scalar("DPK_BBS+ z_w")?;
    }
    for x in z_s.iter_mut() {
        *x = r.scalar("DPK_BBS+ z_s")?;
    }
    Ok(BbsDpkResponse { z_w, z_s })
}

/// Encodes one server's DPK_BBS+ responses: `z_w (3) ‖ z_s (3)`.
pub fn encode_bbs_dpk_response(z: &BbsDpkResponse) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag::BBS_DPK_RESPONSE, WIRE_VERSION);
    put_dpk_response(&mut w, z);
    w.into_bytes()
}

/// Decodes [`encode_bbs_dpk_response`] (canonical scalars).
pub fn decode_bbs_dpk_response(bytes: &[u8]) -> Result<BbsDpkResponse, MixnetError> {
    read_msg(
        "DPK_BBS+ response",
        tag::BBS_DPK_RESPONSE,
        bytes,
        get_dpk_response,
    )
}

fn put_dpk_proof(w: &mut Writer, p: &BbsDpkProof) -> Result<(), MixnetError> {
    let m = p.mixers.len();
    if p.commits.len() != m || p.responses.len() != m {
        return Err(invalid(
            "DPK_BBS+ proof",
            "one commitment and response per server",
        ));
    }
    w.u16(u16_len("DPK_BBS+ servers", m)?);
    p.mixers.iter().for_each(|&k| {
        w.party(k);
    });
    p.commits.iter().try_for_each(|c| put_dpk_commit(w, c))?;
    p.responses.iter().for_each(|z| put_dpk_response(w, z));
    Ok(())
}

fn dpk_proof_bytes(m: usize) -> usize {
    2 + m * (2 + DPK_COMMIT_BYTES + DPK_RESPONSE_BYTES)
}

fn get_dpk_proof(r: &mut Reader<'_>, public: &MixnetPublic) -> Result<BbsDpkProof, MixnetError> {
    let m = m_of(public);
    expect16(r, "DPK_BBS+ servers", m)?;
    if r.remaining() < dpk_proof_bytes(m) - 2 {
        return Err(invalid(
            "DPK_BBS+ proof",
            "shorter than m servers' messages",
        ));
    }
    let mixers = read_vec(r, "DPK_BBS+ servers", m, 2, |r| {
        get_party(r, "DPK_BBS+ server", &public.params)
    })?;
    let commits = read_vec(r, "DPK_BBS+ commits", m, DPK_COMMIT_BYTES, get_dpk_commit)?;
    let responses = read_vec(
        r,
        "DPK_BBS+ responses",
        m,
        DPK_RESPONSE_BYTES,
        get_dpk_response,
    )?;
    Ok(BbsDpkProof {
        mixers,
        commits,
        responses,
    })
}

/// Encodes a distributed DPK_BBS+ for one output: `u16 m ‖ m server ids ‖ m commits ‖ m
/// responses`.
pub fn encode_bbs_dpk_proof(p: &BbsDpkProof) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::BBS_DPK_PROOF, |w| put_dpk_proof(w, p))
}

/// Decodes [`encode_bbs_dpk_proof`] (exactly `m` servers; their order is left to
/// [`crate::reverse_membership::bbs_dpk_verify`], which names a server out of place).
pub fn decode_bbs_dpk_proof(
    public: &MixnetPublic,
    bytes: &[u8],
) -> Result<BbsDpkProof, MixnetError> {
    read_msg("DPK_BBS+ proof", tag::BBS_DPK_PROOF, bytes, |r| {
        get_dpk_proof(r, public)
    })
}

// ---------------------------------------------------------------------------------------
// Signature track (Fig. 9, steps 5–7 for the quasi-signatures).

const BLIND_PROOF_BYTES: usize = EG_BYTES + G1_BYTES + 3 * SCALAR_BYTES;

fn put_blind_proof(w: &mut Writer, p: &RsmBlindProof) {
    put_eg(w, &p.t);
    put_g1(w, &p.t_b);
    put_scalars(w, &[p.z_rho, p.z_b, p.z_s]);
}

fn get_blind_proof(r: &mut Reader<'_>) -> Result<RsmBlindProof, MixnetError> {
    Ok(RsmBlindProof {
        t: get_eg(r, "blinding proof T")?,
        t_b: r.g1("blinding proof T_B")?,
        z_rho: r.scalar("blinding proof z_rho")?,
        z_b: r.scalar("blinding proof z_b")?,
        z_s: r.scalar("blinding proof z_s")?,
    })
}

/// Encodes one blinding proof: `T ‖ T_B ‖ z_ρ ‖ z_b ‖ z_s`.
pub fn encode_rsm_blind_proof(p: &RsmBlindProof) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag::RSM_BLIND_PROOF, WIRE_VERSION);
    put_blind_proof(&mut w, p);
    w.into_bytes()
}

/// Decodes [`encode_rsm_blind_proof`] (`T` may contain the identity, `T_B ≠ 1`).
pub fn decode_rsm_blind_proof(bytes: &[u8]) -> Result<RsmBlindProof, MixnetError> {
    read_msg(
        "DB-RSM blinding proof",
        tag::RSM_BLIND_PROOF,
        bytes,
        get_blind_proof,
    )
}

fn put_blinding(w: &mut Writer, s: &RsmBlindingStage) -> Result<(), MixnetError> {
    let k = s.contributions.len();
    if s.b_coms.len() != k || s.proofs.len() != k {
        return Err(invalid(
            "DB-RSM blinding stage",
            "vectors of different lengths",
        ));
    }
    w.party(s.mixer);
    w.u32(u32_len("DB-RSM blinding stage", k)?);
    s.contributions.iter().for_each(|c| put_eg(w, c));
    s.b_coms.iter().for_each(|p| put_g1(w, p));
    s.proofs.iter().for_each(|p| put_blind_proof(w, p));
    Ok(())
}

fn get_blinding(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    count: usize,
) -> Result<RsmBlindingStage, MixnetError> {
    let mixer = get_party(r, "DB-RSM blinding server", &public.params)?;
    len_exact(r, "DB-RSM blinding stage", count)?;
    let each = EG_BYTES + G1_BYTES + BLIND_PROOF_BYTES;
    if r.remaining() < count.saturating_mul(each) {
        return Err(invalid("DB-RSM blinding stage", "shorter than its count"));
    }
    let contributions = read_vec(r, "blinding contributions", count, EG_BYTES, |r| {
        get_eg(r, "blinding contribution D")
    })?;
    let b_coms = read_vec(r, "blinding commitments", count, G1_BYTES, |r| {
        Ok(r.g1("blinding commitment B_kj")?)
    })?;
    let proofs = read_vec(
        r,
        "blinding proofs",
        count,
        BLIND_PROOF_BYTES,
        get_blind_proof,
    )?;
    Ok(RsmBlindingStage {
        mixer,
        contributions,
        b_coms,
        proofs,
    })
}

/// Encodes one server's blinding stage: `server ‖ u32 n ‖ n × D ‖ n × B ‖ n × proof`.
pub fn encode_rsm_blinding_stage(s: &RsmBlindingStage) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::RSM_BLINDING_STAGE, |w| put_blinding(w, s))
}

/// Decodes [`encode_rsm_blinding_stage`] with exactly `count` (`n`) positions.
pub fn decode_rsm_blinding_stage(
    public: &MixnetPublic,
    count: usize,
    bytes: &[u8],
) -> Result<RsmBlindingStage, MixnetError> {
    read_msg(
        "DB-RSM blinding stage",
        tag::RSM_BLINDING_STAGE,
        bytes,
        |r| get_blinding(r, public, count),
    )
}

fn put_signature_track(
    w: &mut Writer,
    codec: &dyn ShuffleProofCodec,
    t: &SignatureTrack,
) -> Result<(), MixnetError> {
    w.u16(u16_len("forward stages", t.forward.len())?);
    for s in &t.forward {
        put_sub(w, "forward stage", &wire::encode_reverse_stage(codec, s)?)?;
    }
    w.u16(u16_len("blinding stages", t.blinding.len())?);
    t.blinding.iter().try_for_each(|s| put_blinding(w, s))?;
    w.u16(u16_len("decryption stages", t.decryption.len())?);
    for s in &t.decryption {
        put_sub(w, "decryption stage", &wire::encode_elgamal_dec_stage(s)?)?;
    }
    w.u32(u32_len("S~", t.s_tilde.len())?);
    t.s_tilde.iter().for_each(|p| put_g1(w, p));
    Ok(())
}

fn get_signature_track(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
) -> Result<SignatureTrack, MixnetError> {
    let (m, n) = (m_of(public), public.n);
    expect16(r, "forward stages", m)?;
    let forward = read_vec(r, "forward stages", m, 4, |r| {
        wire::decode_reverse_stage(public, codec, get_sub(r, "forward stage")?)
    })?;
    expect16(r, "blinding stages", m)?;
    let blinding = read_vec(r, "blinding stages", m, 6, |r| get_blinding(r, public, n))?;
    expect16(r, "decryption stages", m)?;
    let decryption = read_vec(r, "decryption stages", m, 4, |r| {
        wire::decode_elgamal_dec_stage(public, n, get_sub(r, "decryption stage")?)
    })?;
    len_exact(r, "S~", n)?;
    // `S̃_j = 1` is the verified answer "output j is not a member".
    let s_tilde = read_vec(r, "S~", n, G1_BYTES, |r| Ok(r.g1_or_identity("S~_j")?))?;
    Ok(SignatureTrack {
        forward,
        blinding,
        decryption,
        s_tilde,
    })
}

/// Encodes the signature track: `u16 m ‖ m × (u32 len ‖ reverse stage) ‖ u16 m ‖ m ×
/// blinding stage ‖ u16 m ‖ m × (u32 len ‖ ElGamal decryption stage) ‖ u32 n ‖ n × S̃`.
pub fn encode_signature_track(
    codec: &dyn ShuffleProofCodec,
    t: &SignatureTrack,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::SIGNATURE_TRACK, |w| put_signature_track(w, codec, t))
}

/// Decodes [`encode_signature_track`]: `m` stages of each kind over `n` positions, `n`
/// values `S̃_j` (identity allowed).
pub fn decode_signature_track(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    bytes: &[u8],
) -> Result<SignatureTrack, MixnetError> {
    read_msg("DB-RSM signature track", tag::SIGNATURE_TRACK, bytes, |r| {
        get_signature_track(r, public, codec)
    })
}

/// Encodes one server's non-member openings: `server ‖ u32 k ‖ b* ‖ s*`.
pub fn encode_non_member_opening(o: &NonMemberOpening) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::NON_MEMBER_OPENING, |w| put_non_member(w, o))
}

/// Decodes [`encode_non_member_opening`] with exactly `count` (non-member count) openings.
pub fn decode_non_member_opening(
    public: &MixnetPublic,
    count: usize,
    bytes: &[u8],
) -> Result<NonMemberOpening, MixnetError> {
    read_msg("non-member opening", tag::NON_MEMBER_OPENING, bytes, |r| {
        get_non_member(r, public, count)
    })
}

// ---------------------------------------------------------------------------------------
// Enc-to-shares conversion (`sharing`; DB-RSM steps 6–7 in the per-value layout).

/// Bits of `z_μ` (the ring-Pedersen verifier's bound).
fn z_mu_bits(public: &MixnetPublic) -> u32 {
    public.ring_pedersen.mu_mask_bits() + 1
}

/// Bits of `s_a`, `s_a′` (the verifier's bound in `sharing::verify_link`).
const S_BITS: u32 = PROOF_MASK_BITS + 1;

fn put_link(
    w: &mut Writer,
    public: &MixnetPublic,
    layout: Layout,
    p: &ShareLinkProof,
) -> Result<(), MixnetError> {
    let pk = public.paillier.encryption_key();
    let n_hat = &public.ring_pedersen.n_hat;
    put_bounded(w, "share link proof s_a", &p.s_a, S_BITS)?;
    put_bounded(w, "share link proof s_b", &p.s_b, S_BITS)?;
    put_bounded(
        w,
        "share link proof z_alpha",
        &p.z_alpha,
        djn::response_bits(pk),
    )?;
    put_uint(w, "share link proof S_a", &p.rp_a, modulus_len(n_hat))?;
    put_uint(w, "share link proof S_b", &p.rp_b, modulus_len(n_hat))?;
    put_bounded(w, "share link proof z_mu_a", &p.z_mu_a, z_mu_bits(public))?;
    put_bounded(w, "share link proof z_mu_b", &p.z_mu_b, z_mu_bits(public))?;
    match (layout, &p.z_sigma) {
        (Layout::Joint, None) => {}
        (Layout::PerValue, Some(z)) => put_scalars(w, z),
        _ => {
            return Err(invalid(
                "share link proof",
                "z_sigma does not match the layout",
            ))
        }
    }
    put_ct(w, pk, &p.e1)?;
    put_g1(w, &p.a1);
    match (layout, &p.a1_b) {
        (Layout::Joint, None) => {}
        (Layout::PerValue, Some(a)) => put_g1(w, a),
        _ => return Err(invalid("share link proof", "A‴ does not match the layout")),
    }
    put_uint(w, "share link proof D_a", &p.d_a, modulus_len(n_hat))?;
    put_uint(w, "share link proof D_b", &p.d_b, modulus_len(n_hat))?;
    Ok(())
}

fn get_link(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    layout: Layout,
) -> Result<ShareLinkProof, MixnetError> {
    let pk = public.paillier.encryption_key();
    let n_hat = &public.ring_pedersen.n_hat;
    let s_a = get_bounded(r, "share link proof s_a", S_BITS)?;
    let s_b = get_bounded(r, "share link proof s_b", S_BITS)?;
    let z_alpha = get_bounded(r, "share link proof z_alpha", djn::response_bits(pk))?;
    let rp_a = get_unit(r, "share link proof S_a", n_hat)?;
    let rp_b = get_unit(r, "share link proof S_b", n_hat)?;
    let z_mu_a = get_bounded(r, "share link proof z_mu_a", z_mu_bits(public))?;
    let z_mu_b = get_bounded(r, "share link proof z_mu_b", z_mu_bits(public))?;
    let z_sigma = match layout {
        Layout::Joint => None,
        Layout::PerValue => Some([
            r.scalar("share link proof z_sigma")?,
            r.scalar("share link proof z_sigma'")?,
        ]),
    };
    let e1 = get_ct(r, pk)?;
    let a1 = r.g1("share link proof A″")?;
    let a1_b = match layout {
        Layout::Joint => None,
        Layout::PerValue => Some(r.g1("share link proof A‴")?),
    };
    let d_a = get_unit(r, "share link proof D_a", n_hat)?;
    let d_b = get_unit(r, "share link proof D_b", n_hat)?;
    Ok(ShareLinkProof {
        e1,
        a1,
        a1_b,
        d_a,
        d_b,
        s_a,
        s_b,
        z_alpha,
        rp_a,
        rp_b,
        z_mu_a,
        z_mu_b,
        z_sigma,
    })
}

/// Encodes a mask link proof: `s_a ‖ s_a′ ‖ z_α ‖ S_a ‖ S_a′ ‖ z_{μa} ‖ z_{μa′} [‖ z_σ ‖ z_σ′] ‖
/// E′ ‖ A″ [‖ A‴] ‖ D_a ‖ D_a′` (bracketed parts in the per-value layout); fails if a
/// response exceeds its bound.
pub fn encode_share_link_proof(
    public: &MixnetPublic,
    layout: Layout,
    p: &ShareLinkProof,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::SHARE_LINK_PROOF, |w| put_link(w, public, layout, p))
}

/// Decodes [`encode_share_link_proof`]: bounded responses (`z_α` included), `E′` a
/// ciphertext, `A″`, `A‴` G1 points, `S_a, S_a′, D_a, D_a′ ∈ Z_Ñ^*`.
pub fn decode_share_link_proof(
    public: &MixnetPublic,
    layout: Layout,
    bytes: &[u8],
) -> Result<ShareLinkProof, MixnetError> {
    read_msg("share link proof", tag::SHARE_LINK_PROOF, bytes, |r| {
        get_link(r, public, layout)
    })
}

fn put_share_commit(
    w: &mut Writer,
    public: &MixnetPublic,
    layout: Layout,
    c: &ShareCommit,
) -> Result<(), MixnetError> {
    put_ct(w, public.paillier.encryption_key(), &c.e_k)?;
    put_g1(w, &c.a_k);
    match (layout, &c.a2_k) {
        (Layout::Joint, None) => {}
        (Layout::PerValue, Some(a2)) => put_g1(w, a2),
        _ => return Err(invalid("share commit", "A'_k does not match the layout")),
    }
    put_link(w, public, layout, &c.proof)
}

fn get_share_commit(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    layout: Layout,
) -> Result<ShareCommit, MixnetError> {
    let e_k = get_ct(r, public.paillier.encryption_key())?;
    let a_k = r.g1("share commit A_k")?;
    let a2_k = match layout {
        Layout::Joint => None,
        Layout::PerValue => Some(r.g1("share commit A'_k")?),
    };
    let proof = get_link(r, public, layout)?;
    Ok(ShareCommit {
        e_k,
        a_k,
        a2_k,
        proof,
    })
}

/// A lower bound on an encoded [`ShareCommit`] (for the length check before allocation).
fn share_commit_min(public: &MixnetPublic) -> usize {
    public.paillier.encryption_key().ciphertext_len() + G1_BYTES
}

/// Encodes one mask commitment: `E_k ‖ A_k (‖ A′_k) ‖ link proof`.
pub fn encode_share_commit(
    public: &MixnetPublic,
    layout: Layout,
    c: &ShareCommit,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::SHARE_COMMIT, |w| {
        put_share_commit(w, public, layout, c)
    })
}

/// Decodes [`encode_share_commit`] (`E_k` a unit below `N²`, `A_k, A′_k ≠ 1`).
pub fn decode_share_commit(
    public: &MixnetPublic,
    layout: Layout,
    bytes: &[u8],
) -> Result<ShareCommit, MixnetError> {
    read_msg("share commit", tag::SHARE_COMMIT, bytes, |r| {
        get_share_commit(r, public, layout)
    })
}

fn put_commit_stage(
    w: &mut Writer,
    public: &MixnetPublic,
    layout: Layout,
    s: &ShareCommitStage,
) -> Result<(), MixnetError> {
    w.party(s.mixer);
    w.u32(u32_len("share commit stage", s.commits.len())?);
    s.commits
        .iter()
        .try_for_each(|c| put_share_commit(w, public, layout, c))
}

fn get_commit_stage(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    layout: Layout,
    count: usize,
) -> Result<ShareCommitStage, MixnetError> {
    let mixer = get_party(r, "share commit stage server", &public.params)?;
    len_exact(r, "share commit stage", count)?;
    let commits = read_vec(r, "share commits", count, share_commit_min(public), |r| {
        get_share_commit(r, public, layout)
    })?;
    Ok(ShareCommitStage { mixer, commits })
}

/// Encodes one server's round-1 conversion message: `server ‖ u32 k ‖ k × commit`.
pub fn encode_share_commit_stage(
    public: &MixnetPublic,
    layout: Layout,
    s: &ShareCommitStage,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::SHARE_COMMIT_STAGE, |w| {
        put_commit_stage(w, public, layout, s)
    })
}

/// Decodes [`encode_share_commit_stage`] with exactly `count` converted elements.
pub fn decode_share_commit_stage(
    public: &MixnetPublic,
    layout: Layout,
    count: usize,
    bytes: &[u8],
) -> Result<ShareCommitStage, MixnetError> {
    read_msg("share commit stage", tag::SHARE_COMMIT_STAGE, bytes, |r| {
        get_commit_stage(r, public, layout, count)
    })
}

/// The number of packed decryption groups (one Paillier decryption share per server and
/// group) when converting `count` elements ([`crate::sharing`], [`crate::packing`]).
pub fn sharing_decryption_groups(
    public: &MixnetPublic,
    count: usize,
) -> Result<usize, MixnetError> {
    let slots = packing::slots_per_ciphertext(public.paillier.encryption_key(), INPUT_BITS);
    if slots == 0 {
        return Err(invalid(
            "share decryption",
            "the Paillier modulus holds no slot",
        ));
    }
    Ok(count.div_ceil(slots))
}

fn put_dec_stage(
    w: &mut Writer,
    public: &MixnetPublic,
    s: &ShareDecStage,
) -> Result<(), MixnetError> {
    put_batch(w, public, s.mixer, &s.shares)
}

fn get_dec_stage(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    groups: usize,
) -> Result<ShareDecStage, MixnetError> {
    let (mixer, shares) = get_batch(r, public, "share decryption server", groups)?;
    Ok(ShareDecStage { mixer, shares })
}

/// Encodes one server's round-2 conversion message: `server ‖ u32 len ‖ batch` (`g` shares
/// with one batched proof, in `quorate_paillier`'s encoding).
pub fn encode_share_dec_stage(
    public: &MixnetPublic,
    s: &ShareDecStage,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::SHARE_DEC_STAGE, |w| put_dec_stage(w, public, s))
}

/// Decodes [`encode_share_dec_stage`] with exactly `groups` shares
/// ([`sharing_decryption_groups`]), each under the stage's server id.
pub fn decode_share_dec_stage(
    public: &MixnetPublic,
    groups: usize,
    bytes: &[u8],
) -> Result<ShareDecStage, MixnetError> {
    read_msg("share decryption stage", tag::SHARE_DEC_STAGE, bytes, |r| {
        get_dec_stage(r, public, groups)
    })
}

fn put_sharing(
    w: &mut Writer,
    public: &MixnetPublic,
    layout: Layout,
    s: &SharingRecord,
) -> Result<(), MixnetError> {
    w.u16(u16_len("share commit stages", s.commits.len())?);
    s.commits
        .iter()
        .try_for_each(|c| put_commit_stage(w, public, layout, c))?;
    w.u16(u16_len("share decryption stages", s.decryptions.len())?);
    s.decryptions
        .iter()
        .try_for_each(|d| put_dec_stage(w, public, d))
}

fn get_sharing(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    layout: Layout,
    count: usize,
) -> Result<SharingRecord, MixnetError> {
    let m = m_of(public);
    let groups = sharing_decryption_groups(public, count)?;
    expect16(r, "share commit stages", m)?;
    let commits = read_vec(r, "share commit stages", m, 6, |r| {
        get_commit_stage(r, public, layout, count)
    })?;
    expect16(r, "share decryption stages", m)?;
    let decryptions = read_vec(r, "share decryption stages", m, 6, |r| {
        get_dec_stage(r, public, groups)
    })?;
    Ok(SharingRecord {
        commits,
        decryptions,
    })
}

/// Encodes a conversion record: `u16 m ‖ m × commit stage ‖ u16 m ‖ m × decryption stage`.
pub fn encode_sharing_record(
    public: &MixnetPublic,
    layout: Layout,
    s: &SharingRecord,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::SHARING_RECORD, |w| put_sharing(w, public, layout, s))
}

/// Decodes [`encode_sharing_record`] for `count` converted elements (the accepted inputs
/// for [`Layout::Joint`], the members for the DB-RSM witness conversion): `m` stages of
/// each kind. The server order is left to the verifier, which names a server out of place.
pub fn decode_sharing_record(
    public: &MixnetPublic,
    layout: Layout,
    count: usize,
    bytes: &[u8],
) -> Result<SharingRecord, MixnetError> {
    read_msg("sharing record", tag::SHARING_RECORD, bytes, |r| {
        get_sharing(r, public, layout, count)
    })
}

/// Encodes one server's per-value commitments: `C_k ‖ R_k`.
pub fn encode_value_commitments(c: &ValueCommitments) -> Vec<u8> {
    let mut w = Writer::new();
    w.header(tag::VALUE_COMMITMENTS, WIRE_VERSION);
    put_g1(&mut w, &c.v);
    put_g1(&mut w, &c.r);
    w.into_bytes()
}

/// Decodes [`encode_value_commitments`] (no identity).
pub fn decode_value_commitments(bytes: &[u8]) -> Result<ValueCommitments, MixnetError> {
    read_msg("value commitments", tag::VALUE_COMMITMENTS, bytes, |r| {
        Ok(ValueCommitments {
            v: r.g1("value commitment C_k")?,
            r: r.g1("value commitment R_k")?,
        })
    })
}

// ---------------------------------------------------------------------------------------
// Witness track (Fig. 9, steps 4–7 for the Paillier witnesses).

fn put_witness_shuffle(
    w: &mut Writer,
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    s: &WitnessShuffle,
) -> Result<(), MixnetError> {
    w.u16(u16_len("witness shuffle stages", s.forward.len())?);
    for st in &s.forward {
        put_sub(
            w,
            "witness shuffle stage",
            &wire::encode_mix_stage(public, codec, st)?,
        )?;
    }
    Ok(())
}

fn get_witness_shuffle(
    r: &mut Reader<'_>,
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
) -> Result<WitnessShuffle, MixnetError> {
    let m = m_of(public);
    expect16(r, "witness shuffle stages", m)?;
    let forward: Vec<MixStage> = read_vec(r, "witness shuffle stages", m, 4, |r| {
        wire::decode_mix_stage(public, codec, get_sub(r, "witness shuffle stage")?)
    })?;
    Ok(WitnessShuffle { forward })
}

/// Encodes the witness shuffle: `u16 m ‖ m × (u32 len ‖ Mix stage)`.
pub fn encode_witness_shuffle(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    s: &WitnessShuffle,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::WITNESS_SHUFFLE, |w| {
        put_witness_shuffle(w, public, codec, s)
    })
}

/// Decodes [`encode_witness_shuffle`]: `m` Paillier shuffle stages of `n` ciphertexts.
pub fn decode_witness_shuffle(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    bytes: &[u8],
) -> Result<WitnessShuffle, MixnetError> {
    read_msg("witness shuffle", tag::WITNESS_SHUFFLE, bytes, |r| {
        get_witness_shuffle(r, public, codec)
    })
}

/// Encodes the witness track: witness shuffle body ‖ per-value sharing record body.
pub fn encode_witness_track(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    t: &WitnessTrack,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::WITNESS_TRACK, |w| {
        put_witness_shuffle(w, public, codec, &t.shuffle)?;
        put_sharing(w, public, Layout::PerValue, &t.conversion)
    })
}

/// Decodes [`encode_witness_track`] whose conversion covers `members` outputs.
pub fn decode_witness_track(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    members: usize,
    bytes: &[u8],
) -> Result<WitnessTrack, MixnetError> {
    if members > public.n {
        return Err(invalid("witness track", "more members than outputs"));
    }
    read_msg("witness track", tag::WITNESS_TRACK, bytes, |r| {
        Ok(WitnessTrack {
            shuffle: get_witness_shuffle(r, public, codec)?,
            conversion: get_sharing(r, public, Layout::PerValue, members)?,
        })
    })
}

// ---------------------------------------------------------------------------------------
// The whole DB-RSM proof.

/// Encodes a whole DB-RSM proof: signature track ‖ `u16 m ‖ m ×` non-member openings ‖
/// witness shuffle ‖ per-value sharing record ‖ `u16 m ‖ m ×` Beaver openings ‖ `u32 k ‖
/// k ×` DPK_BBS+ proof (bodies without their own headers, except the embedded
/// [`crate::wire`] messages).
pub fn encode_dbrsm_proof(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    p: &DbRsmProof,
) -> Result<Vec<u8>, MixnetError> {
    write_msg(tag::DBRSM_PROOF, |w| {
        put_signature_track(w, codec, &p.signature)?;
        w.u16(u16_len("non-member openings", p.non_members.len())?);
        p.non_members
            .iter()
            .try_for_each(|o| put_non_member(w, o))?;
        put_witness_shuffle(w, public, codec, &p.witness.shuffle)?;
        put_sharing(w, public, Layout::PerValue, &p.witness.conversion)?;
        w.u16(u16_len("Beaver openings", p.beaver.len())?);
        p.beaver.iter().try_for_each(|o| put_beaver(w, o))?;
        w.u32(u32_len("DPK_BBS+ proofs", p.dpk.len())?);
        p.dpk.iter().try_for_each(|d| put_dpk_proof(w, d))
    })
}

/// Decodes [`encode_dbrsm_proof`]. The counts come from `public` (`n`, `m`) and from the
/// decoded `S̃_j`: `k` members (`S̃_j ≠ 1`) fix the witness conversion, the Beaver openings
/// and the DPK_BBS+ proofs; `n − k` non-members fix the non-member openings. Every
/// per-server list has exactly `m` entries; their order is checked by
/// [`crate::reverse_membership::verify`], which names a server out of place or failing its proof.
pub fn decode_dbrsm_proof(
    public: &MixnetPublic,
    codec: &dyn ShuffleProofCodec,
    bytes: &[u8],
) -> Result<DbRsmProof, MixnetError> {
    let m = m_of(public);
    read_msg("DB-RSM proof", tag::DBRSM_PROOF, bytes, |r| {
        let signature = get_signature_track(r, public, codec)?;
        let members = signature
            .s_tilde
            .iter()
            .filter(|s| !bool::from(s.is_identity()))
            .count();
        let non = public.n - members;
        expect16(r, "non-member openings", m)?;
        let non_members = read_vec(r, "non-member openings", m, 6, |r| {
            get_non_member(r, public, non)
        })?;
        let shuffle = get_witness_shuffle(r, public, codec)?;
        let conversion = get_sharing(r, public, Layout::PerValue, members)?;
        expect16(r, "Beaver openings", m)?;
        let beaver = read_vec(r, "Beaver openings", m, 6, |r| {
            get_beaver(r, public, members)
        })?;
        len_exact(r, "DPK_BBS+ proofs", members)?;
        let dpk = read_vec(r, "DPK_BBS+ proofs", members, dpk_proof_bytes(m), |r| {
            get_dpk_proof(r, public)
        })?;
        Ok(DbRsmProof {
            signature,
            non_members,
            witness: WitnessTrack {
                shuffle,
                conversion,
            },
            beaver,
            dpk,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gt_round_trip_and_identity_rejected() {
        let g = blstrs::pairing(
            &blstrs::G1Affine::from(blstrs::G1Projective::generator()),
            &blstrs::G2Affine::from(blstrs::G2Projective::generator()),
        );
        let mut w = Writer::new();
        put_gt(&mut w, "gt", &g).unwrap_or_else(|e| panic!("{e}"));
        let b = w.into_bytes();
        assert_eq!(b.len(), GT_BYTES);
        let mut r = Reader::new("gt", &b);
        assert_eq!(get_gt(&mut r, "gt").ok(), Some(g));
        assert!(put_gt(&mut Writer::new(), "gt", &Gt::identity()).is_err());
        // Not in the subgroup / not canonical.
        let mut bad = b.clone();
        bad[0] ^= 1;
        assert!(get_gt(&mut Reader::new("gt", &bad), "gt").is_err());
        assert!(get_gt(&mut Reader::new("gt", &[0xFF; GT_BYTES]), "gt").is_err());
        assert!(get_gt(&mut Reader::new("gt", &b[..100]), "gt").is_err());
    }
}
