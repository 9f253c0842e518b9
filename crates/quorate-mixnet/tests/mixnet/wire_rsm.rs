//! Wire encodings of the DB-RSM, witness-track and input-sharing messages (`wire_rsm`):
//! round trips from one small real run (n = 6, m = 2, 1024-bit test moduli) whose decoded
//! proofs still verify with the same answer, and hostile bytes (truncations, trailing
//! bytes, wrong tag/version, garbage, mutations, oversized length prefixes, identity
//! points, non-canonical scalars, out-of-range integers) that must give typed errors. A
//! flipped byte inside a proof that still decodes makes the verifier reject it and name
//! the server that sent it.
#![allow(clippy::unwrap_used)]

use blstrs::{G1Projective, Gt, Scalar};
use group::Group;
use quorate_core::bls12_381::wire::{g1_to_bytes as g1_bytes, scalar_to_bytes};
use quorate_mixnet::beaver::{self, TriplePublic};
use quorate_mixnet::mix::MixRecord;
use quorate_mixnet::reverse_membership::{
    self, BbsDpkCommit, BbsDpkStatement, BbsQuery, DbRsmProof, WitnessCommitments,
};
use quorate_mixnet::sender::SenderInput;
use quorate_mixnet::setup::MixnetPublic;
use quorate_mixnet::sharing::{self, Layout, SharingRecord, ValueCommitments};
use quorate_mixnet::wire::NativeShuffleCodec;
use quorate_mixnet::wire_rsm as w;
use quorate_mixnet::MixnetError;
use quorate_paillier::bigint::to_be_bytes_padded;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::sync::OnceLock;

use crate::common::{culprits, g1_identity, replace, scalar_q};

const N: usize = 6;
const M: u16 = 2;
const CODEC: NativeShuffleCodec = NativeShuffleCodec;

struct World {
    public: MixnetPublic,
    inputs: Vec<SenderInput>,
    record: MixRecord,
    sharing: SharingRecord,
    query: BbsQuery,
    triples: Vec<TriplePublic>,
    proof: DbRsmProof,
    answer: Vec<bool>,
}

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(0x81);
        let mixed = crate::common::mixed(b"wire-rsm-test", N, M, M, &mut rng);
        let crate::common::Mixed {
            public,
            servers,
            inputs,
            record,
        } = mixed;
        let (sharing, _shares, _coms) =
            crate::common::share(&public, &servers, &inputs, &record, &mut rng);
        let gammas: Vec<G1Projective> = inputs.iter().map(|s| s.gamma).collect();
        let i_set = vec![1, 3, 4];
        let (_key, query) =
            reverse_membership::querier_quasi_sign(&public, &gammas, &i_set, &mut rng).unwrap();
        let (triples, mut tshares) =
            beaver::deal_triples(&public, &query.query_id, i_set.len(), &mut rng);
        let proof = reverse_membership::run(
            &public,
            &servers,
            &inputs,
            &record,
            &triples,
            &mut tshares,
            &query,
            &mut rng,
        )
        .unwrap();
        let answer =
            reverse_membership::verify(&public, &inputs, &record, &triples, &query, &proof)
                .unwrap();
        assert_eq!(answer.iter().filter(|&&b| b).count(), i_set.len());
        World {
            public,
            inputs,
            record,
            sharing,
            query,
            triples,
            proof,
            answer,
        }
    })
}

/// The hostile-bytes effort of this file.
const HOSTILITY: crate::common::Hostility = crate::common::Hostility {
    long: 2000,
    trunc_div: 150,
    trunc_edge: 64,
    trailing: &[7, 7, 7],
    mutations: 40,
    flip_div: 150,
    long_masks: &[0x01, 0x80],
};

fn hostile<T>(
    name: &str,
    good: &[u8],
    dec: impl Fn(&[u8]) -> Result<T, MixnetError>,
    enc: impl Fn(&T) -> Vec<u8>,
) {
    crate::common::hostile(&HOSTILITY, name, good, dec, enc)
}

fn find(hay: &[u8], needle: &[u8]) -> usize {
    let pos: Vec<usize> = hay
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(pos.len(), 1, "needle must occur exactly once");
    pos[0]
}

/// Flips the lowest bit of the (big-endian) scalar `s` inside `good`.
fn flip_scalar(good: &[u8], s: &Scalar) -> Vec<u8> {
    let mut b = good.to_vec();
    b[find(good, &scalar_to_bytes(s)) + 31] ^= 1;
    b
}

fn g2_identity() -> [u8; 96] {
    let mut b = [0u8; 96];
    b[0] = 0xC0;
    b
}

fn is_decode<T>(r: Result<T, MixnetError>) -> bool {
    matches!(r, Err(MixnetError::Decode(_)))
}

fn members(w: &World) -> usize {
    w.answer.iter().filter(|&&b| b).count()
}

// ------------------------------------------------------------------------------------------

#[test]
fn bbs_query_round_trip_and_hostile() {
    let w = world();
    let good = w::encode_bbs_query(&w.query).unwrap();
    assert_eq!(w::decode_bbs_query(&w.public, &good).unwrap(), w.query);
    hostile(
        "BBS+ query",
        &good,
        |b| w::decode_bbs_query(&w.public, b),
        |q| w::encode_bbs_query(q).unwrap(),
    );
    let k = w.query.inputs.len();
    // Header, query id, |I|, indices.
    let y_at = 2 + 32 + 4 + 4 * k;
    let s0_at = y_at + 96;
    assert!(is_decode(w::decode_bbs_query(
        &w.public,
        &replace(&good, y_at, &g2_identity())
    )));
    assert!(is_decode(w::decode_bbs_query(
        &w.public,
        &replace(&good, s0_at, &g1_identity())
    )));
    assert!(is_decode(w::decode_bbs_query(
        &w.public,
        &replace(&good, s0_at + 48, &scalar_q())
    )));
    // Oversized / zero |I|, indices not increasing or out of range.
    for bad in [[0xFF; 4], [0, 0, 0, 0], [0, 0, 0, 7]] {
        assert!(is_decode(w::decode_bbs_query(
            &w.public,
            &replace(&good, 34, &bad)
        )));
    }
    assert!(is_decode(w::decode_bbs_query(
        &w.public,
        &replace(&good, 38, &[0, 0, 0, 3])
    )));
    assert!(is_decode(w::decode_bbs_query(
        &w.public,
        &replace(&good, 38 + 4 * (k - 1), &[0, 0, 0, 6])
    )));
    // The query id round-trips; another id decodes to another query.
    let mut other = good.clone();
    other[2] ^= 1;
    let q2 = w::decode_bbs_query(&w.public, &other).unwrap();
    assert_ne!(q2.query_id, w.query.query_id);
    assert_eq!(q2.sigs, w.query.sigs);
    // The single quasi-signature.
    let s = w::encode_quasi_signature(&w.query.sigs[0]);
    hostile(
        "quasi-signature",
        &s,
        w::decode_quasi_signature,
        w::encode_quasi_signature,
    );
    assert!(is_decode(w::decode_quasi_signature(&replace(
        &s,
        2,
        &g1_identity()
    ))));
}

#[test]
fn triples_and_beaver_round_trip_and_hostile() {
    let w = world();
    let t = &w.triples[0];
    let good = w::encode_triple_public(t).unwrap();
    hostile(
        "triple",
        &good,
        |b| w::decode_triple_public(&w.public, b),
        |x| w::encode_triple_public(x).unwrap(),
    );
    assert!(is_decode(w::decode_triple_public(
        &w.public,
        &replace(&good, 36, &g1_identity())
    )));
    assert!(is_decode(w::decode_triple_public(
        &w.public,
        &replace(&good, 34, &[0, 3])
    )));
    assert_eq!(&good[2..34], t.query.as_bytes());
    let tp = w::encode_triple_proof(&t.proof);
    hostile(
        "triple proof",
        &tp,
        w::decode_triple_proof,
        w::encode_triple_proof,
    );
    assert!(is_decode(w::decode_triple_proof(&replace(
        &tp,
        2 + 96,
        &scalar_q()
    ))));
    let all = w::encode_triples(&w.triples).unwrap();
    assert_eq!(
        w::decode_triples(&w.public, w.triples.len(), &all).unwrap(),
        w.triples
    );
    hostile(
        "triples",
        &all,
        |b| w::decode_triples(&w.public, w.triples.len(), b),
        |x| w::encode_triples(x).unwrap(),
    );
    assert!(is_decode(w::decode_triples(
        &w.public,
        w.triples.len(),
        &replace(&all, 2, &[0xFF; 4])
    )));

    let k = members(w);
    let o = &w.proof.beaver[1];
    let good = w::encode_beaver_opening(o).unwrap();
    assert_eq!(&w::decode_beaver_opening(&w.public, k, &good).unwrap(), o);
    hostile(
        "Beaver opening",
        &good,
        |b| w::decode_beaver_opening(&w.public, k, b),
        |x| w::encode_beaver_opening(x).unwrap(),
    );
    assert!(is_decode(w::decode_beaver_opening(
        &w.public,
        k,
        &replace(&good, 4, &[0xFF; 4])
    )));
    assert!(is_decode(w::decode_beaver_opening(
        &w.public,
        k,
        &replace(&good, 8, &scalar_q())
    )));
    // Party 0 and a party outside the m servers.
    assert!(is_decode(w::decode_beaver_opening(
        &w.public,
        k,
        &replace(&good, 2, &[0, 0])
    )));
    assert!(is_decode(w::decode_beaver_opening(
        &w.public,
        k,
        &replace(&good, 2, &[0, 9])
    )));
}

#[test]
fn dpk_messages_round_trip_and_hostile() {
    let w = world();
    let p = &w.proof.dpk[0];
    let good = w::encode_bbs_dpk_proof(p).unwrap();
    assert_eq!(&w::decode_bbs_dpk_proof(&w.public, &good).unwrap(), p);
    hostile(
        "DPK_BBS+ proof",
        &good,
        |b| w::decode_bbs_dpk_proof(&w.public, b),
        |x| w::encode_bbs_dpk_proof(x).unwrap(),
    );
    assert!(is_decode(w::decode_bbs_dpk_proof(
        &w.public,
        &replace(&good, 2, &[0xFF, 0xFF])
    )));
    let c = w::encode_bbs_dpk_commit(&p.commits[0]).unwrap();
    hostile("DPK_BBS+ commit", &c, w::decode_bbs_dpk_commit, |x| {
        w::encode_bbs_dpk_commit(x).unwrap()
    });
    // A Gt element outside the subgroup / not canonical, and an identity U.
    assert!(is_decode(w::decode_bbs_dpk_commit(&replace(
        &c,
        2,
        &[0xFF; 48]
    ))));
    assert!(is_decode(w::decode_bbs_dpk_commit(&replace(
        &c,
        2 + 2 * w::GT_BYTES,
        &g1_identity()
    ))));
    let id = BbsDpkCommit {
        y_k: Gt::identity(),
        ..p.commits[0]
    };
    assert!(w::encode_bbs_dpk_commit(&id).is_err());
    let z = w::encode_bbs_dpk_response(&p.responses[1]);
    hostile(
        "DPK_BBS+ response",
        &z,
        w::decode_bbs_dpk_response,
        w::encode_bbs_dpk_response,
    );
    assert!(is_decode(w::decode_bbs_dpk_response(&replace(
        &z,
        2 + 32,
        &scalar_q()
    ))));

    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let mut pt = || G1Projective::random(&mut ChaCha20Rng::seed_from_u64(rng.next_u64()));
    let wc = WitnessCommitments {
        c: pt(),
        b: pt(),
        r: pt(),
    };
    let st = BbsDpkStatement {
        index: 4,
        s_tilde: w.proof.signature.s_tilde[w.answer.iter().position(|&b| b).unwrap()],
        v_out: Scalar::from(5u64),
        coms: vec![wc; usize::from(M)],
    };
    let sb = w::encode_bbs_dpk_statement(&st).unwrap();
    hostile(
        "DPK_BBS+ statement",
        &sb,
        |b| w::decode_bbs_dpk_statement(&w.public, b),
        |x| w::encode_bbs_dpk_statement(x).unwrap(),
    );
    assert!(is_decode(w::decode_bbs_dpk_statement(
        &w.public,
        &replace(&sb, 6, &g1_identity())
    )));
    assert!(is_decode(w::decode_bbs_dpk_statement(
        &w.public,
        &replace(&sb, 2, &[0, 0, 0, 6])
    )));
    let wb = w::encode_witness_commitments(&wc);
    hostile(
        "witness commitments",
        &wb,
        w::decode_witness_commitments,
        w::encode_witness_commitments,
    );
    assert!(is_decode(w::decode_witness_commitments(&replace(
        &wb,
        50,
        &g1_identity()
    ))));
    let vc = ValueCommitments { v: pt(), r: pt() };
    let vb = w::encode_value_commitments(&vc);
    hostile(
        "value commitments",
        &vb,
        w::decode_value_commitments,
        w::encode_value_commitments,
    );
    assert!(is_decode(w::decode_value_commitments(&replace(
        &vb,
        2,
        &g1_identity()
    ))));
}

#[test]
fn signature_track_round_trip_and_hostile() {
    let w = world();
    let t = &w.proof.signature;
    let good = w::encode_signature_track(&CODEC, t).unwrap();
    assert_eq!(
        &w::decode_signature_track(&w.public, &CODEC, &good).unwrap(),
        t
    );
    hostile(
        "signature track",
        &good,
        |b| w::decode_signature_track(&w.public, &CODEC, b),
        |x| w::encode_signature_track(&CODEC, x).unwrap(),
    );
    // Oversized stage count and embedded length.
    assert!(is_decode(w::decode_signature_track(
        &w.public,
        &CODEC,
        &replace(&good, 2, &[0xFF, 0xFF])
    )));
    assert!(is_decode(w::decode_signature_track(
        &w.public,
        &CODEC,
        &replace(&good, 4, &[0xFF; 4])
    )));
    // `S̃_j = 1` decodes (a non-member); the track's non-members already are identities.
    assert!(t.s_tilde.iter().any(|s| bool::from(s.is_identity())));

    let st = &t.blinding[1];
    let b = w::encode_rsm_blinding_stage(st).unwrap();
    hostile(
        "blinding stage",
        &b,
        |x| w::decode_rsm_blinding_stage(&w.public, N, x),
        |x| w::encode_rsm_blinding_stage(x).unwrap(),
    );
    let b_at = 2 + 2 + 4 + N * 96;
    assert!(is_decode(w::decode_rsm_blinding_stage(
        &w.public,
        N,
        &replace(&b, b_at, &g1_identity())
    )));
    assert!(is_decode(w::decode_rsm_blinding_stage(
        &w.public,
        N,
        &replace(&b, 4, &[0xFF; 4])
    )));
    assert!(is_decode(w::decode_rsm_blinding_stage(
        &w.public,
        N - 1,
        &b
    )));
    let pb = w::encode_rsm_blind_proof(&st.proofs[0]);
    hostile(
        "blinding proof",
        &pb,
        w::decode_rsm_blind_proof,
        w::encode_rsm_blind_proof,
    );
    assert!(is_decode(w::decode_rsm_blind_proof(&replace(
        &pb,
        2 + 96,
        &g1_identity()
    ))));
    assert!(is_decode(w::decode_rsm_blind_proof(&replace(
        &pb,
        2 + 144,
        &scalar_q()
    ))));

    let non = N - members(w);
    let o = &w.proof.non_members[0];
    let ob = w::encode_non_member_opening(o).unwrap();
    hostile(
        "non-member opening",
        &ob,
        |x| w::decode_non_member_opening(&w.public, non, x),
        |x| w::encode_non_member_opening(x).unwrap(),
    );
    assert!(is_decode(w::decode_non_member_opening(
        &w.public,
        non,
        &replace(&ob, 4, &[0xFF; 4])
    )));
    assert!(is_decode(w::decode_non_member_opening(
        &w.public,
        non,
        &replace(&ob, 8, &scalar_q())
    )));
}

#[test]
fn witness_track_round_trip_and_hostile() {
    let w = world();
    let k = members(w);
    let t = &w.proof.witness;
    let good = w::encode_witness_track(&w.public, &CODEC, t).unwrap();
    assert_eq!(
        &w::decode_witness_track(&w.public, &CODEC, k, &good).unwrap(),
        t
    );
    hostile(
        "witness track",
        &good,
        |b| w::decode_witness_track(&w.public, &CODEC, k, b),
        |x| w::encode_witness_track(&w.public, &CODEC, x).unwrap(),
    );
    assert!(is_decode(w::decode_witness_track(
        &w.public,
        &CODEC,
        k + 1,
        &good
    )));
    let s = w::encode_witness_shuffle(&w.public, &CODEC, &t.shuffle).unwrap();
    assert_eq!(
        w::decode_witness_shuffle(&w.public, &CODEC, &s).unwrap(),
        t.shuffle
    );
    assert!(is_decode(w::decode_witness_shuffle(
        &w.public,
        &CODEC,
        &replace(&s, 4, &[0xFF; 4])
    )));
    // The per-value conversion's pieces.
    let st = &t.conversion.commits[0];
    let cb = w::encode_share_commit_stage(&w.public, Layout::PerValue, st).unwrap();
    hostile(
        "per-value share commit stage",
        &cb,
        |b| w::decode_share_commit_stage(&w.public, Layout::PerValue, k, b),
        |x| w::encode_share_commit_stage(&w.public, Layout::PerValue, x).unwrap(),
    );
    assert!(is_decode(w::decode_share_commit_stage(
        &w.public,
        Layout::Joint,
        k,
        &cb
    )));
    // A joint-layout commit cannot be written as a per-value one.
    let joint = &w.sharing.commits[0].commits[0];
    assert!(w::encode_share_commit(&w.public, Layout::PerValue, joint).is_err());
}

#[test]
fn sharing_record_round_trip_hostile_and_blame() {
    let w = world();
    let n = w.record.accepted.len();
    let good = w::encode_sharing_record(&w.public, Layout::Joint, &w.sharing).unwrap();
    let dec = w::decode_sharing_record(&w.public, Layout::Joint, n, &good).unwrap();
    assert_eq!(dec, w.sharing);
    sharing::verify_sharing(&w.public, &w.inputs, &w.record, &dec).unwrap();
    hostile(
        "sharing record",
        &good,
        |b| w::decode_sharing_record(&w.public, Layout::Joint, n, b),
        |x| w::encode_sharing_record(&w.public, Layout::Joint, x).unwrap(),
    );
    assert!(is_decode(w::decode_sharing_record(
        &w.public,
        Layout::Joint,
        n,
        &replace(&good, 2, &[0xFF, 0xFF])
    )));
    assert!(is_decode(w::decode_sharing_record(
        &w.public,
        Layout::Joint,
        n,
        &replace(&good, 6, &[0xFF; 4])
    )));
    assert!(is_decode(w::decode_sharing_record(
        &w.public,
        Layout::PerValue,
        n,
        &good
    )));

    // One commit with its link proof.
    let c = &w.sharing.commits[1].commits[0];
    let cb = w::encode_share_commit(&w.public, Layout::Joint, c).unwrap();
    hostile(
        "share commit",
        &cb,
        |b| w::decode_share_commit(&w.public, Layout::Joint, b),
        |x| w::encode_share_commit(&w.public, Layout::Joint, x).unwrap(),
    );
    let pk = w.public.paillier.encryption_key();
    let clen = pk.ciphertext_len();
    // E_k = N² (out of range), A_k = 1.
    let n2 = to_be_bytes_padded(pk.n_squared(), clen).unwrap();
    assert!(is_decode(w::decode_share_commit(
        &w.public,
        Layout::Joint,
        &replace(&cb, 2, &n2)
    )));
    assert!(is_decode(w::decode_share_commit(
        &w.public,
        Layout::Joint,
        &replace(&cb, 2 + clen, &g1_identity())
    )));
    let lp = w::encode_share_link_proof(&w.public, Layout::Joint, &c.proof).unwrap();
    hostile(
        "share link proof",
        &lp,
        |b| w::decode_share_link_proof(&w.public, Layout::Joint, b),
        |x| w::encode_share_link_proof(&w.public, Layout::Joint, x).unwrap(),
    );
    // z_α above its bound (|α| + 128 + 40 + 1 bits, `quorate_mixnet::djn`).
    let z_bits = quorate_mixnet::djn::response_bits(pk) as usize;
    let z_len = z_bits.div_ceil(8);
    let s_len = (sharing::PROOF_MASK_BITS as usize + 1).div_ceil(8);
    let z_at = 2 + 2 * s_len;
    let mut over = vec![0u8; z_len];
    over[0] = 1u8 << (z_bits % 8);
    assert!(!z_bits.is_multiple_of(8), "the test needs a spare top bit");
    assert!(is_decode(w::decode_share_link_proof(
        &w.public,
        Layout::Joint,
        &replace(&lp, z_at, &over)
    )));
    // (The bound of s_a (PROOF_MASK_BITS + 1 = 464 bits) fills its bytes exactly, so no
    // byte string exceeds it.)

    let groups = w::sharing_decryption_groups(&w.public, n).unwrap();
    let db = w::encode_share_dec_stage(&w.public, &w.sharing.decryptions[0]).unwrap();
    hostile(
        "share decryption stage",
        &db,
        |b| w::decode_share_dec_stage(&w.public, groups, b),
        |x| w::encode_share_dec_stage(&w.public, x).unwrap(),
    );
    // A share under another server's id, oversized embedded length.
    assert!(is_decode(w::decode_share_dec_stage(
        &w.public,
        groups,
        &replace(&db, 2, &[0, 2])
    )));
    assert!(is_decode(w::decode_share_dec_stage(
        &w.public,
        groups,
        &replace(&db, 8, &[0xFF; 4])
    )));

    // A flipped bit in server 2's s_a still decodes and is blamed on server 2.
    let s_a = &w.sharing.commits[1].commits[0].proof.s_a;
    let needle = to_be_bytes_padded(s_a, s_len).unwrap();
    let mut bad = good.clone();
    bad[find(&good, &needle) + s_len - 1] ^= 1;
    let dec = w::decode_sharing_record(&w.public, Layout::Joint, n, &bad).unwrap();
    let e = sharing::verify_sharing(&w.public, &w.inputs, &w.record, &dec).unwrap_err();
    assert_eq!(culprits(&e), vec![2], "{e}");
}

#[test]
fn dbrsm_proof_round_trip_hostile_and_blame() {
    let w = world();
    let good = w::encode_dbrsm_proof(&w.public, &CODEC, &w.proof).unwrap();
    let dec = w::decode_dbrsm_proof(&w.public, &CODEC, &good).unwrap();
    assert_eq!(dec, w.proof);
    let verify = |p: &DbRsmProof| {
        reverse_membership::verify(&w.public, &w.inputs, &w.record, &w.triples, &w.query, p)
    };
    assert_eq!(verify(&dec).unwrap(), w.answer);
    hostile(
        "DB-RSM proof",
        &good,
        |b| w::decode_dbrsm_proof(&w.public, &CODEC, b),
        |x| w::encode_dbrsm_proof(&w.public, &CODEC, x).unwrap(),
    );
    assert!(is_decode(w::decode_dbrsm_proof(
        &w.public,
        &CODEC,
        &replace(&good, 2, &[0xFF, 0xFF])
    )));
    // A flipped bit in one server's message decodes and the querier names that server.
    let p = &w.proof;
    let cases: Vec<(&str, &Scalar, u16)> = vec![
        (
            "blinding z_rho",
            &p.signature.blinding[1].proofs[2].z_rho,
            2,
        ),
        ("blinding z_b", &p.signature.blinding[0].proofs[0].z_b, 1),
        ("non-member b", &p.non_members[1].b[0], 2),
        ("Beaver d", &p.beaver[0].d[0], 1),
        ("DPK z_w", &p.dpk[0].responses[1].z_w[0], 2),
        ("DPK z_s", &p.dpk[1].responses[0].z_s[2], 1),
        (
            "S~ decryption share z",
            &p.signature.decryption[1].shares[3].z,
            2,
        ),
    ];
    for (what, s, who) in cases {
        let bad = flip_scalar(&good, s);
        let dec = w::decode_dbrsm_proof(&w.public, &CODEC, &bad)
            .unwrap_or_else(|e| panic!("{what}: flipped proof no longer decodes: {e}"));
        let e = verify(&dec).unwrap_err();
        assert_eq!(culprits(&e), vec![who], "{what}: {e}");
    }
    // A member's `S̃_j` replaced by the identity changes the member count, so the counts
    // fixed by the remaining parts no longer match: a decode error, not a wrong answer.
    let j = w.answer.iter().position(|&b| b).unwrap();
    let at = find(&good, &g1_bytes(&p.signature.s_tilde[j]));
    assert!(is_decode(w::decode_dbrsm_proof(
        &w.public,
        &CODEC,
        &replace(&good, at, &g1_identity())
    )));
    // The witness conversion: server 1's z_sigma.
    let z = p.witness.conversion.commits[0].commits[0]
        .proof
        .z_sigma
        .unwrap()[0];
    let dec = w::decode_dbrsm_proof(&w.public, &CODEC, &flip_scalar(&good, &z)).unwrap();
    assert_eq!(culprits(&verify(&dec).unwrap_err()), vec![1]);
}

#[test]
fn encoded_sizes() {
    let w = world();
    let p = &w.proof;
    let k = members(w);
    let sizes = [
        ("BBS+ query", w::encode_bbs_query(&w.query).unwrap().len()),
        (
            "triples (|I|)",
            w::encode_triples(&w.triples).unwrap().len(),
        ),
        (
            "Beaver opening (one server)",
            w::encode_beaver_opening(&p.beaver[0]).unwrap().len(),
        ),
        (
            "DPK_BBS+ proof (one output)",
            w::encode_bbs_dpk_proof(&p.dpk[0]).unwrap().len(),
        ),
        (
            "signature track",
            w::encode_signature_track(&CODEC, &p.signature)
                .unwrap()
                .len(),
        ),
        (
            "blinding stage",
            w::encode_rsm_blinding_stage(&p.signature.blinding[0])
                .unwrap()
                .len(),
        ),
        (
            "non-member opening",
            w::encode_non_member_opening(&p.non_members[0])
                .unwrap()
                .len(),
        ),
        (
            "witness shuffle",
            w::encode_witness_shuffle(&w.public, &CODEC, &p.witness.shuffle)
                .unwrap()
                .len(),
        ),
        (
            "witness track",
            w::encode_witness_track(&w.public, &CODEC, &p.witness)
                .unwrap()
                .len(),
        ),
        (
            "sharing record (joint, n)",
            w::encode_sharing_record(&w.public, Layout::Joint, &w.sharing)
                .unwrap()
                .len(),
        ),
        (
            "DB-RSM proof",
            w::encode_dbrsm_proof(&w.public, &CODEC, p).unwrap().len(),
        ),
    ];
    println!(
        "n = {N}, m = {M}, |I| = {}, members = {k}, 1024-bit N",
        w.query.inputs.len()
    );
    for (name, len) in sizes {
        println!("{name}: {len} bytes");
        assert!(len > 2);
    }
    // Fixed-size layouts.
    assert_eq!(sizes[0].1, 6 + 32 + 4 * k + 96 + k * (48 + 64));
    assert_eq!(sizes[2].1, 8 + 4 * k * 32);
    assert_eq!(
        sizes[3].1,
        4 + usize::from(M) * (2 + 2 * w::GT_BYTES + 3 * 48 + 6 * 32)
    );
    assert_eq!(sizes[5].1, 8 + N * (96 + 48 + 96 + 48 + 96));
}
