//! Wire encodings: round trips from a small real run (n = 8, m = 2, 1024-bit test modulus)
//! whose decoded messages still verify, and hostile bytes (every truncation, byte flips,
//! garbage, oversized length prefixes, wrong tag/version, trailing bytes, identity points,
//! non-canonical scalars, out-of-range Paillier integers) that must give typed errors.
//! A flipped byte that still decodes must make the protocol's verifier reject the message
//! and name the server (or sender) that sent it.
#![allow(clippy::unwrap_used)]

use blstrs::G1Projective;
use group::Group;
use quorate_core::{DecodeError, PartyId};
use quorate_mixnet::dkg::{self, DkgBroadcast};
use quorate_mixnet::membership::{self, BbQuery, DbSmProof};
use quorate_mixnet::mix::{self, MixRecord};
use quorate_mixnet::sender::{self, SenderInput};
use quorate_mixnet::setup::MixnetPublic;
use quorate_mixnet::wire::{self, NativeShuffleCodec, WireLimits};
use quorate_mixnet::MixnetError;
use quorate_paillier::bigint::to_be_bytes_padded;
use quorate_paillier::rug::Integer;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::sync::OnceLock;

use crate::common::{culprits, g1_identity, replace, scalar_q};

const N: usize = 8;
const T: u16 = 2;
const M: u16 = 2;

struct World {
    public: MixnetPublic,
    inputs: Vec<SenderInput>,
    record: MixRecord,
    coms: Vec<Vec<G1Projective>>,
    query: BbQuery,
    proof: DbSmProof,
    codec: NativeShuffleCodec,
}

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(606);
        let mixed = crate::common::mixed(b"wire-test", N, T, M, &mut rng);
        let crate::common::Mixed {
            public,
            servers,
            inputs,
            record,
        } = mixed;
        let (_sharing, shares, coms) =
            crate::common::share(&public, &servers, &inputs, &record, &mut rng);
        // Inputs 0 and 1 are members of J, inputs 2 and 3 are not.
        let comp = mix::composed_permutation(&servers);
        let fwd = |i: usize| comp.iter().position(|&x| x == i).unwrap();
        let mut j = vec![fwd(0), fwd(1)];
        j.sort_unstable();
        let (_key, query) =
            membership::querier_sign(&public, &record.outputs, &[0, 1, 2, 3], &j, &mut rng)
                .unwrap();
        let proof = membership::run(
            &public, &servers, &inputs, &record, &shares, &coms, &query, &mut rng,
        )
        .unwrap();
        World {
            public,
            inputs,
            record,
            coms,
            query,
            proof,
            codec: NativeShuffleCodec,
        }
    })
}

fn pid(k: u16) -> PartyId {
    PartyId::new(k).unwrap()
}

/// The hostile-bytes effort of this file.
const HOSTILITY: crate::common::Hostility = crate::common::Hostility {
    long: 2000,
    trunc_div: 200,
    trunc_edge: 100,
    trailing: &[1, 2, 3],
    mutations: 60,
    flip_div: 250,
    long_masks: &[0x01],
};

fn hostile<T>(
    name: &str,
    good: &[u8],
    dec: impl Fn(&[u8]) -> Result<T, MixnetError>,
    enc: impl Fn(&T) -> Vec<u8>,
) {
    crate::common::hostile(&HOSTILITY, name, good, dec, enc)
}

/// Overwrites `width` bytes at `offset` with `0xFF…` (an oversized length prefix).
fn oversize(good: &[u8], offset: usize, width: usize) -> Vec<u8> {
    let mut b = good.to_vec();
    b[offset..offset + width].fill(0xFF);
    b
}

/// The compressed identity of G1.
fn decode_err<T: core::fmt::Debug>(r: Result<T, MixnetError>) -> DecodeError {
    match r {
        Err(MixnetError::Decode(d)) => d,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

// ------------------------------------------------------------------------------------------

#[test]
fn mixnet_public_round_trip_and_hostile() {
    let w = world();
    let codec = &w.codec;
    let lim = WireLimits::default();
    let bytes = wire::encode_mixnet_public(codec, &w.public).unwrap();
    let p = wire::decode_mixnet_public(codec, &lim, &bytes).unwrap();
    assert_eq!(p.sid, w.public.sid);
    assert_eq!(p.n, w.public.n);
    assert_eq!(p.params, w.public.params);
    assert_eq!(p.gens, w.public.gens);
    assert_eq!(p.paillier, w.public.paillier);
    assert_eq!(p.ring_pedersen, w.public.ring_pedersen);
    assert_eq!(p.elgamal, w.public.elgamal);
    assert_eq!(p.perm_commitments, w.public.perm_commitments);
    assert_eq!(p.perm_proofs, w.public.perm_proofs);
    p.verify_setup().unwrap();
    hostile(
        "mixnet public",
        &bytes,
        |b| wire::decode_mixnet_public(codec, &lim, b),
        |x| wire::encode_mixnet_public(codec, x).unwrap(),
    );
    // Oversized session-id length, oversized n, too many servers.
    assert!(wire::decode_mixnet_public(codec, &lim, &oversize(&bytes, 2, 2)).is_err());
    let sid_len = w.public.sid.as_bytes().len();
    let n_at = 4 + sid_len;
    assert!(wire::decode_mixnet_public(codec, &lim, &oversize(&bytes, n_at, 4)).is_err());
    let small = WireLimits {
        max_n: N - 1,
        ..lim
    };
    assert!(wire::decode_mixnet_public(codec, &small, &bytes).is_err());
    let few = WireLimits { max_m: 1, ..lim };
    assert!(wire::decode_mixnet_public(codec, &few, &bytes).is_err());
    // Degenerate ring-Pedersen parameters: s = 1, s = t, s = N.
    for (s_rp, t_rp) in [
        (Integer::from(1), w.public.ring_pedersen.t.clone()),
        (
            w.public.ring_pedersen.t.clone(),
            w.public.ring_pedersen.t.clone(),
        ),
        (
            w.public.ring_pedersen.n_hat.clone(),
            w.public.ring_pedersen.t.clone(),
        ),
    ] {
        let mut bad = w.public.clone();
        bad.ring_pedersen.s = s_rp;
        bad.ring_pedersen.t = t_rp;
        let b = wire::encode_mixnet_public(codec, &bad);
        // Each passes the encoder (fixed width) and fails `RingPedersenParams::check`.
        if let Ok(b) = b {
            assert!(wire::decode_mixnet_public(codec, &lim, &b).is_err());
        }
    }
    // The ring-Pedersen modulus (issue 6): Ñ = N — which t Paillier shareholders can
    // factor — is refused even with non-degenerate s, t (squares mod N); so are an Ñ
    // sharing a factor with N (3N), an even Ñ and an Ñ shorter than N. Each passes the
    // encoder and fails the decoder and `verify_setup`.
    let pn = w.public.paillier.encryption_key().n().clone();
    let sq = |x: u32| Integer::from(x).pow_mod(&Integer::from(2), &pn).unwrap();
    let short = (Integer::from(1) << (pn.significant_bits() - 1)) - 1u32;
    for (n_hat, s_rp, t_rp) in [
        (pn.clone(), sq(1_000_003), sq(1_000_033)),
        (Integer::from(&pn * 3u32), sq(1_000_003), sq(1_000_033)),
        (
            Integer::from(&w.public.ring_pedersen.n_hat + 1u32),
            sq(5),
            sq(7),
        ),
        (short, sq(5) % 1_000_000_007u64, sq(7) % 1_000_000_007u64),
    ] {
        let mut bad = w.public.clone();
        bad.ring_pedersen = quorate_mixnet::ring_pedersen::RingPedersenParams {
            n_hat,
            s: s_rp,
            t: t_rp,
        };
        let b = wire::encode_mixnet_public(codec, &bad).unwrap();
        assert!(
            matches!(
                wire::decode_mixnet_public(codec, &lim, &b),
                Err(MixnetError::Decode(_))
            ),
            "Ñ = {}",
            bad.ring_pedersen.n_hat
        );
        assert!(bad.verify_setup().is_err());
    }
    // Ñ's length prefix: a leading zero byte is non-canonical, an oversized length a typed
    // error (no allocation).
    let nh = w
        .public
        .ring_pedersen
        .n_hat
        .to_digits::<u8>(quorate_paillier::rug::integer::Order::Msf);
    let nh_at = bytes
        .windows(nh.len())
        .position(|win| win == nh.as_slice())
        .unwrap();
    let len_at = nh_at - 4;
    assert_eq!(bytes[len_at..nh_at], (nh.len() as u32).to_be_bytes());
    let mut padded = bytes[..len_at].to_vec();
    padded.extend_from_slice(&(nh.len() as u32 + 1).to_be_bytes());
    padded.push(0);
    padded.extend_from_slice(&bytes[nh_at..]);
    assert_eq!(
        decode_err(wire::decode_mixnet_public(codec, &lim, &padded)),
        DecodeError::NonCanonical {
            what: "ring-Pedersen modulus"
        }
    );
    assert!(wire::decode_mixnet_public(codec, &lim, &oversize(&bytes, len_at, 4)).is_err());
    // Identity generator g; a generator that is a valid point but not hash-to-curve.
    let g_at = n_at + 4 + 4;
    assert_eq!(
        decode_err(wire::decode_mixnet_public(
            codec,
            &lim,
            &replace(&bytes, g_at, &g1_identity())
        )),
        DecodeError::Identity {
            what: "generator g"
        }
    );
    let h_bytes = bytes[g_at + 48..g_at + 96].to_vec();
    assert!(
        wire::decode_mixnet_public(codec, &lim, &replace(&bytes, g_at, &h_bytes)).is_err(),
        "a trapdoored generator set must be rejected"
    );
    // An ElGamal verification key swapped for another valid point is inconsistent.
    let mut bad = w.public.clone();
    bad.elgamal.verification_keys.swap(0, 1);
    let b = wire::encode_mixnet_public(codec, &bad).unwrap();
    assert!(wire::decode_mixnet_public(codec, &lim, &b).is_err());
}

#[test]
fn sender_input_round_trip_hostile_and_blame() {
    let w = world();
    let pk = w.public.paillier.encryption_key();
    let ct = pk.ciphertext_len();
    let zn = (pk.modulus_bits() as usize).div_ceil(8);
    for (i, s) in w.inputs.iter().enumerate() {
        let bytes = wire::encode_sender_input(&w.public, s).unwrap();
        let d = wire::decode_sender_input(&w.public, &bytes).unwrap();
        assert_eq!(&d, s);
        let p = &w.public;
        sender::check_input(p, i as u64, &d).unwrap();
        let lp = wire::encode_link_proof(&w.public, &s.proof).unwrap();
        assert_eq!(wire::decode_link_proof(&w.public, &lp).unwrap(), s.proof);
    }
    let s = &w.inputs[3];
    let bytes = wire::encode_sender_input(&w.public, s).unwrap();
    eprintln!("sender input: {} bytes", bytes.len());
    hostile(
        "sender input",
        &bytes,
        |b| wire::decode_sender_input(&w.public, b),
        |x| wire::encode_sender_input(&w.public, x).unwrap(),
    );
    let lp = wire::encode_link_proof(&w.public, &s.proof).unwrap();
    hostile(
        "link proof",
        &lp,
        |b| wire::decode_link_proof(&w.public, b),
        |x| wire::encode_link_proof(&w.public, x).unwrap(),
    );
    // c ∉ (0, N²) or not a unit.
    let n2 = to_be_bytes_padded(pk.n_squared(), ct).unwrap();
    let n1 = to_be_bytes_padded(pk.n(), ct).unwrap();
    for bad in [vec![0u8; ct], vec![0xFF; ct], n2, n1] {
        assert!(wire::decode_sender_input(&w.public, &replace(&bytes, 2, &bad)).is_err());
    }
    // γ = 1.
    let gamma_at = 2 + 2 * ct;
    assert_eq!(
        decode_err(wire::decode_sender_input(
            &w.public,
            &replace(&bytes, gamma_at, &g1_identity())
        )),
        DecodeError::Identity {
            what: "sender gamma"
        }
    );
    // z_{ρ1} above its bound (top byte all ones); z_{μv} above its bound.
    let zr = (sender::rho_response_bits(pk) as usize).div_ceil(8);
    let zrho_at = gamma_at + 48 + 2 * ct + 48 + 2 * 53;
    assert!(wire::decode_sender_input(&w.public, &replace(&bytes, zrho_at, &[0xFF])).is_err());
    let zmu_at = zrho_at + 2 * zr + 4 * zn;
    assert!(wire::decode_sender_input(&w.public, &replace(&bytes, zmu_at, &[0xFF])).is_err());
    // A response scalar that exceeds its bound is refused by the encoder too.
    let mut big = s.clone();
    big.proof.z_mu_v = Integer::from(1) << 5000;
    assert!(wire::encode_sender_input(&w.public, &big).is_err());

    // Flips inside the proof that still decode: input checking rejects them and names the
    // sender's position.
    let p = &w.public;
    let mut rejected = 0;
    for pos in (gamma_at + 48..bytes.len()).step_by(97) {
        let mut b = bytes.clone();
        b[pos] ^= 0x04;
        if let Ok(d) = wire::decode_sender_input(p, &b) {
            let e = sender::check_input(p, 3, &d).expect_err("a changed proof must not verify");
            assert!(
                matches!(e, MixnetError::InvalidInput { index: 3, .. }),
                "{e:?}"
            );
            rejected += 1;
        }
    }
    assert!(rejected > 5, "too few flips decoded ({rejected})");
}

#[test]
fn elgamal_items_round_trip_and_hostile() {
    let w = world();
    let share = w.proof.decryption[0].shares[1];
    let b = wire::encode_elgamal_dec_share(&share);
    assert_eq!(wire::decode_elgamal_dec_share(&b).unwrap(), share);
    hostile(
        "elgamal dec share",
        &b,
        wire::decode_elgamal_dec_share,
        wire::encode_elgamal_dec_share,
    );
    // R1 = 1; z = q.
    assert!(wire::decode_elgamal_dec_share(&replace(&b, 2 + 48, &g1_identity())).is_err());
    assert_eq!(
        decode_err(wire::decode_elgamal_dec_share(&replace(
            &b,
            2 + 144,
            &scalar_q()
        ))),
        DecodeError::NonCanonical {
            what: "elgamal decryption share z"
        }
    );
    let c = w.proof.reverse[1].outputs[2];
    let b = wire::encode_elgamal_ciphertext(&c);
    assert_eq!(wire::decode_elgamal_ciphertext(&b).unwrap(), c);
    hostile(
        "elgamal ciphertext",
        &b,
        wire::decode_elgamal_ciphertext,
        wire::encode_elgamal_ciphertext,
    );
    // The trivial encryption (1, σ) has an identity component and is allowed.
    let triv = membership::initial_list(N, &w.query)[w.query.outputs[0]];
    let b = wire::encode_elgamal_ciphertext(&triv);
    assert_eq!(wire::decode_elgamal_ciphertext(&b).unwrap(), triv);
    let bp = w.proof.blinding[1].proofs[0];
    let b = wire::encode_blind_proof(&bp);
    assert_eq!(wire::decode_blind_proof(&b).unwrap(), bp);
    hostile(
        "blind proof",
        &b,
        wire::decode_blind_proof,
        wire::encode_blind_proof,
    );
    assert!(wire::decode_blind_proof(&replace(&b, 2 + 96 + 48, &scalar_q())).is_err());
}

#[test]
fn mix_messages_round_trip_hostile_and_blame() {
    let w = world();
    let (p, codec) = (&w.public, &w.codec);
    let groups = wire::mix_decryption_groups(p);
    for st in &w.record.stages {
        let b = wire::encode_mix_stage(p, codec, st).unwrap();
        assert_eq!(&wire::decode_mix_stage(p, codec, &b).unwrap(), st);
    }
    for st in &w.record.decryptions {
        let b = wire::encode_decryption_stage(p, st).unwrap();
        assert_eq!(&wire::decode_decryption_stage(p, groups, &b).unwrap(), st);
        assert!(wire::decode_decryption_stage(p, groups + 1, &b).is_err());
    }
    let b = wire::encode_mix_record(p, codec, &w.record).unwrap();
    let rec = wire::decode_mix_record(p, codec, &b).unwrap();
    assert_eq!(rec.accepted, w.record.accepted);
    assert_eq!(rec.inputs, w.record.inputs);
    assert_eq!(rec.stages, w.record.stages);
    assert_eq!(rec.decryptions, w.record.decryptions);
    assert_eq!(rec.outputs, w.record.outputs);
    assert_eq!(
        mix::verify_record(p, &w.inputs, &rec).unwrap(),
        w.record.outputs
    );
    hostile(
        "mix record",
        &b,
        |x| wire::decode_mix_record(p, codec, x),
        |x| wire::encode_mix_record(p, codec, x).unwrap(),
    );
    assert!(wire::decode_mix_record(p, codec, &oversize(&b, 2, 4)).is_err());
    // A non-canonical output scalar (the last 32 bytes).
    let at = b.len() - 32;
    assert!(wire::decode_mix_record(p, codec, &replace(&b, at, &scalar_q())).is_err());
    // Accepted positions not strictly increasing.
    assert!(wire::decode_mix_record(p, codec, &replace(&b, 6, &[0, 0, 0, 1])).is_err());

    let st = &w.record.stages[1];
    let sb = wire::encode_mix_stage(p, codec, st).unwrap();
    hostile(
        "mix stage",
        &sb,
        |x| wire::decode_mix_stage(p, codec, x),
        |x| wire::encode_mix_stage(p, codec, x).unwrap(),
    );
    assert!(wire::decode_mix_stage(p, codec, &oversize(&sb, 4, 4)).is_err());
    // Oversized proof length prefix.
    let proof_len_at = 8 + N * p.paillier.encryption_key().ciphertext_len();
    assert!(wire::decode_mix_stage(p, codec, &oversize(&sb, proof_len_at, 4)).is_err());
    // An output ciphertext ≥ N² or not a unit.
    let ctl = p.paillier.encryption_key().ciphertext_len();
    let n2 = to_be_bytes_padded(p.paillier.encryption_key().n_squared(), ctl).unwrap();
    let nn = to_be_bytes_padded(p.paillier.encryption_key().n(), ctl).unwrap();
    assert!(wire::decode_mix_stage(p, codec, &replace(&sb, 8, &n2)).is_err());
    assert!(wire::decode_mix_stage(p, codec, &replace(&sb, 8 + ctl, &nn)).is_err());
    // Server id 0 and an unknown server.
    assert!(wire::decode_mix_stage(p, codec, &replace(&sb, 2, &[0, 0])).is_err());
    assert!(wire::decode_mix_stage(p, codec, &replace(&sb, 2, &[0, 3])).is_err());
    // A flipped output ciphertext byte that still decodes: the shuffle proof of server 2
    // fails and server 2 is named.
    let ct = p.paillier.encryption_key().ciphertext_len();
    let mut named = 0;
    for pos in [8 + 5, 8 + ct + 77, 8 + 3 * ct + 1, 8 + 7 * ct + ct - 1] {
        let mut x = sb.clone();
        x[pos] ^= 0x10;
        if let Ok(d) = wire::decode_mix_stage(p, codec, &x) {
            let mut rec2 = w.record.clone();
            rec2.stages[1] = d;
            let e = mix::verify_record(p, &w.inputs, &rec2).unwrap_err();
            assert_eq!(culprits(&e), vec![2], "{e:?}");
            named += 1;
        }
    }
    assert!(named >= 3);
    // Flips inside the shuffle proof that still decode (scalars, integer responses, units):
    // server 2's shuffle proof fails and server 2 is named.
    let mut named = 0;
    for pos in (proof_len_at + 4 + 2..sb.len()).step_by(61) {
        let mut x = sb.clone();
        x[pos] ^= 0x01;
        if let Ok(d) = wire::decode_mix_stage(p, codec, &x) {
            let mut stages = w.record.stages.clone();
            stages[1] = d;
            let e = mix::verify_mixing(p, &w.record.inputs, &stages).unwrap_err();
            assert_eq!(culprits(&e), vec![2], "flip at {pos}: {e:?}");
            named += 1;
        }
    }
    assert!(named >= 5, "shuffle proof flips: {named}");
    // A proof of another kind (server 2's permutation-commitment proof) is refused.
    let mut other = st.clone();
    other.proof = p.perm_proofs[1].clone();
    let ob = wire::encode_mix_stage(p, codec, &other).unwrap();
    assert!(wire::decode_mix_stage(p, codec, &ob).is_err());

    let db = wire::encode_decryption_stage(p, &w.record.decryptions[0]).unwrap();
    hostile(
        "decryption stage",
        &db,
        |x| wire::decode_decryption_stage(p, groups, x),
        |x| wire::encode_decryption_stage(p, x).unwrap(),
    );
    // c_i ≥ N² inside the first share (stage header 2, server 2, count 4, share length 4,
    // share header 2, share server 2).
    assert!(wire::decode_decryption_stage(p, groups, &replace(&db, 16, &[0xFF; 8])).is_err());
    // A share under the other server's id inside server 1's stage.
    let own = wire::encode_decryption_stage(p, &w.record.decryptions[1]).unwrap();
    let mut mixed = own.clone();
    mixed[2..4].copy_from_slice(&[0, 1]);
    assert!(wire::decode_decryption_stage(p, groups, &mixed).is_err());
    // A flipped byte inside server 1's decryption share proof: server 1 is named.
    let mut named = 0;
    for back in [1usize, 5, 40, 100] {
        let mut x = db.clone();
        let pos = x.len() - back;
        x[pos] ^= 0x02;
        if let Ok(d) = wire::decode_decryption_stage(p, groups, &x) {
            let mut rec2 = w.record.clone();
            rec2.decryptions[0] = d;
            let e = mix::verify_record(p, &w.inputs, &rec2).unwrap_err();
            assert_eq!(culprits(&e), vec![1], "{e:?}");
            named += 1;
        }
    }
    assert!(named >= 3);
}

#[test]
fn bb_query_round_trip_and_hostile() {
    let w = world();
    let p = &w.public;
    let b = wire::encode_bb_query(&w.query).unwrap();
    let q = wire::decode_bb_query(p, &b).unwrap();
    assert_eq!(q, w.query);
    membership::check_query(p, &w.record.outputs, &q).unwrap();
    hostile(
        "BB query",
        &b,
        |x| wire::decode_bb_query(p, x),
        |x| wire::encode_bb_query(x).unwrap(),
    );
    assert!(wire::decode_bb_query(p, &oversize(&b, 2, 4)).is_err());
    // I = [0, 1, 2, 3]: J's prefix sits after it; y (G2) after J.
    let j_at = 2 + 4 + 4 * 4;
    let y_at = j_at + 4 + 4 * w.query.outputs.len();
    let sig_at = y_at + 96 + 4;
    let mut g2_id = [0u8; 96];
    g2_id[0] = 0xC0;
    assert_eq!(
        decode_err(wire::decode_bb_query(p, &replace(&b, y_at, &g2_id))),
        DecodeError::Identity {
            what: "BB public key y"
        }
    );
    assert_eq!(
        decode_err(wire::decode_bb_query(
            p,
            &replace(&b, sig_at, &g1_identity())
        )),
        DecodeError::Identity {
            what: "BB signature"
        }
    );
    // Indices not increasing, or not below n.
    assert!(wire::decode_bb_query(p, &replace(&b, 6, &[0, 0, 0, 1])).is_err());
    assert!(wire::decode_bb_query(p, &replace(&b, 18, &[0, 0, 0, N as u8])).is_err());
    // A signature flipped to another valid point is caught by the batched check.
    let mut q2 = w.query.clone();
    q2.sigs[0] = q2.sigs[0].double();
    let b2 = wire::encode_bb_query(&q2).unwrap();
    let d2 = wire::decode_bb_query(p, &b2).unwrap();
    assert!(membership::check_query(p, &w.record.outputs, &d2).is_err());
}

#[test]
fn dbsm_proof_round_trip_and_hostile() {
    let w = world();
    let (p, codec, q) = (&w.public, &w.codec, &w.query);
    let b = wire::encode_dbsm_proof(codec, &w.proof).unwrap();
    let d = wire::decode_dbsm_proof(p, codec, q, &b).unwrap();
    assert_eq!(d, w.proof);
    let answer = membership::verify(p, &w.inputs, &w.record, &w.coms, q, &d).unwrap();
    assert_eq!(answer, vec![true, true, false, false]);
    hostile(
        "DB-SM proof",
        &b,
        |x| wire::decode_dbsm_proof(p, codec, q, x),
        |x| wire::encode_dbsm_proof(codec, x).unwrap(),
    );
    assert!(wire::decode_dbsm_proof(p, codec, q, &oversize(&b, 2, 2)).is_err());
    // Wrong context: a query with another |I| cannot decode this proof.
    let mut q3 = q.clone();
    q3.inputs.pop();
    assert!(wire::decode_dbsm_proof(p, codec, &q3, &b).is_err());
}

/// Each DB-SM stage type: round trip, hostile bytes, and a flipped byte in server 2's stage
/// that still decodes makes `membership::verify` name server 2.
#[test]
fn dbsm_stages_round_trip_hostile_and_blame() {
    let w = world();
    let (p, codec, q) = (&w.public, &w.codec, &w.query);
    let count = q.inputs.len();
    let members = w
        .proof
        .s
        .iter()
        .filter(|s| !bool::from(s.is_identity()))
        .count();
    assert_eq!(members, 2);
    let verify_named = |proof: &DbSmProof, what: &str| {
        let e = match membership::verify(p, &w.inputs, &w.record, &w.coms, q, proof) {
            Err(e) => e,
            Ok(a) => panic!("{what}: a changed stage verified ({a:?})"),
        };
        assert_eq!(culprits(&e), vec![2], "{what}: {e:?}");
    };
    // Flips at a sample of positions past the header and server id; count those that
    // decode (scalars mostly do, points mostly do not).
    let flips = |bytes: &[u8]| -> Vec<Vec<u8>> {
        (4..bytes.len())
            .step_by(29)
            .map(|pos| {
                let mut x = bytes.to_vec();
                x[pos] ^= 0x01;
                x
            })
            .collect()
    };

    // Reverse shuffle (server 2 is first: the reverse order is m … 1).
    let st = &w.proof.reverse[0];
    assert_eq!(st.mixer, pid(2));
    let b = wire::encode_reverse_stage(codec, st).unwrap();
    assert_eq!(&wire::decode_reverse_stage(p, codec, &b).unwrap(), st);
    hostile(
        "reverse stage",
        &b,
        |x| wire::decode_reverse_stage(p, codec, x),
        |x| wire::encode_reverse_stage(codec, x).unwrap(),
    );
    assert!(wire::decode_reverse_stage(p, codec, &oversize(&b, 4, 4)).is_err());
    // Another valid proof handle in place of server 2's: its shuffle proof fails.
    let mut wrong = st.clone();
    wrong.proof = w.proof.reverse[1].proof.clone();
    let wb = wire::encode_reverse_stage(codec, &wrong).unwrap();
    let mut proof = w.proof.clone();
    proof.reverse[0] = wire::decode_reverse_stage(p, codec, &wb).unwrap();
    verify_named(&proof, "reverse proof");
    // A Paillier shuffle proof or a permutation proof in a reverse stage is refused.
    for proof in [w.record.stages[1].proof.clone(), p.perm_proofs[1].clone()] {
        let mut other = st.clone();
        other.proof = proof;
        let ob = wire::encode_reverse_stage(codec, &other).unwrap();
        assert!(wire::decode_reverse_stage(p, codec, &ob).is_err());
    }
    // Flips inside the ElGamal shuffle proof that still decode: server 2 is named.
    let proof_at = 8 + N * 96 + 4;
    let mut named = 0;
    for pos in (proof_at + 2..b.len()).step_by(67) {
        let mut x = b.clone();
        x[pos] ^= 0x01;
        if let Ok(d) = wire::decode_reverse_stage(p, codec, &x) {
            let mut proof = w.proof.clone();
            proof.reverse[0] = d;
            verify_named(&proof, "reverse shuffle proof flip");
            named += 1;
        }
    }
    assert!(named >= 3, "reverse proof flips: {named}");

    // Blinding.
    let st = &w.proof.blinding[1];
    let b = wire::encode_blinding_stage(st).unwrap();
    assert_eq!(&wire::decode_blinding_stage(p, count, &b).unwrap(), st);
    assert!(wire::decode_blinding_stage(p, count - 1, &b).is_err());
    hostile(
        "blinding stage",
        &b,
        |x| wire::decode_blinding_stage(p, count, x),
        |x| wire::encode_blinding_stage(x).unwrap(),
    );
    assert!(wire::decode_blinding_stage(p, count, &oversize(&b, 4, 4)).is_err());
    let mut named = 0;
    for x in flips(&b) {
        if let Ok(d) = wire::decode_blinding_stage(p, count, &x) {
            let mut proof = w.proof.clone();
            proof.blinding[1] = d;
            verify_named(&proof, "blinding");
            named += 1;
        }
    }
    assert!(named >= 3, "blinding: {named}");

    // ElGamal decryption.
    let st = &w.proof.decryption[1];
    let b = wire::encode_elgamal_dec_stage(st).unwrap();
    assert_eq!(&wire::decode_elgamal_dec_stage(p, count, &b).unwrap(), st);
    hostile(
        "elgamal dec stage",
        &b,
        |x| wire::decode_elgamal_dec_stage(p, count, x),
        |x| wire::encode_elgamal_dec_stage(x).unwrap(),
    );
    assert!(wire::decode_elgamal_dec_stage(p, count, &oversize(&b, 4, 4)).is_err());
    let mut named = 0;
    for x in flips(&b) {
        if let Ok(d) = wire::decode_elgamal_dec_stage(p, count, &x) {
            let mut proof = w.proof.clone();
            proof.decryption[1] = d;
            verify_named(&proof, "decryption");
            named += 1;
        }
    }
    assert!(named >= 2, "decryption: {named}");

    // DPK commitments.
    let st = &w.proof.dpk_commits[1];
    let b = wire::encode_dpk_commit_stage(st).unwrap();
    assert_eq!(&wire::decode_dpk_commit_stage(p, members, &b).unwrap(), st);
    assert!(wire::decode_dpk_commit_stage(p, members + 1, &b).is_err());
    hostile(
        "DPK commit stage",
        &b,
        |x| wire::decode_dpk_commit_stage(p, members, x),
        |x| wire::encode_dpk_commit_stage(x).unwrap(),
    );
    assert!(wire::decode_dpk_commit_stage(p, members, &oversize(&b, 4, 4)).is_err());
    // Version 1 (which published `P_k`, `W_k` apart, issue 13) is refused.
    assert_eq!(b[1], wire::WIRE_VERSION);
    assert!(matches!(
        decode_err(wire::decode_dpk_commit_stage(
            p,
            members,
            &replace(&b, 1, &[1])
        )),
        DecodeError::UnknownVersion { .. }
    ));
    // A commitment replaced by another valid point decodes, and server 2 is named. (A
    // one-bit flip of a point almost never gives a point of the subgroup: those are decode
    // errors, covered by `hostile`.)
    for which in 0..3 {
        let mut c = st.clone();
        let pt = match which {
            0 => &mut c.commits[0].r_k,
            1 => &mut c.commits[1].m_k,
            _ => &mut c.commits[0].a_k.a,
        };
        *pt += p.gens.g;
        let x = wire::encode_dpk_commit_stage(&c).unwrap();
        let mut proof = w.proof.clone();
        proof.dpk_commits[1] = wire::decode_dpk_commit_stage(p, members, &x).unwrap();
        verify_named(&proof, "DPK commitments");
    }

    // DPK responses.
    let st = &w.proof.dpk_responses[1];
    let b = wire::encode_dpk_response_stage(st).unwrap();
    assert_eq!(
        &wire::decode_dpk_response_stage(p, members, &b).unwrap(),
        st
    );
    hostile(
        "DPK response stage",
        &b,
        |x| wire::decode_dpk_response_stage(p, members, x),
        |x| wire::encode_dpk_response_stage(x).unwrap(),
    );
    assert!(wire::decode_dpk_response_stage(p, members, &oversize(&b, 4, 4)).is_err());
    assert!(wire::decode_dpk_response_stage(p, members, &replace(&b, 8, &scalar_q())).is_err());
    // Flips in any response, z_τ included: the querier checks every server's responses
    // on every run (issue 6), so each decoded flip names server 2.
    let z_end = 8 + 4 * members * 32;
    assert_eq!(z_end, b.len());
    let mut named = 0;
    // The sampled flips, plus one low-order byte of the first scalar of each of z_v, z_r,
    // z_b and z_τ (big-endian scalars: the last byte always decodes).
    let mut cases = flips(&b[..z_end]);
    for j in 0..4 {
        let mut x = b.clone();
        x[8 + j * members * 32 + 31] ^= 0x01;
        cases.push(x);
    }
    for x in cases {
        if let Ok(d) = wire::decode_dpk_response_stage(p, members, &x) {
            let mut proof = w.proof.clone();
            proof.dpk_responses[1] = d;
            verify_named(&proof, "DPK responses");
            named += 1;
        }
    }
    assert!(named >= 4, "DPK responses: {named}");
}

#[test]
fn dkg_broadcast_round_trip_hostile_and_blame() {
    let w = world();
    let p = &w.public;
    let mut rng = ChaCha20Rng::seed_from_u64(77);
    let (bc, _shares) = dkg::deal(&p.gens, p.params, &p.sid, pid(2), &mut rng);
    let b = wire::encode_dkg_broadcast(&bc).unwrap();
    let d: DkgBroadcast = wire::decode_dkg_broadcast(p.params, &b).unwrap();
    assert_eq!(d, bc);
    dkg::verify_broadcast(&p.gens, p.params, &p.sid, &d).unwrap();
    hostile(
        "DKG broadcast",
        &b,
        |x| wire::decode_dkg_broadcast(p.params, x),
        |x| wire::encode_dkg_broadcast(x).unwrap(),
    );
    assert!(wire::decode_dkg_broadcast(p.params, &oversize(&b, 4, 2)).is_err());
    assert_eq!(
        decode_err(wire::decode_dkg_broadcast(
            p.params,
            &replace(&b, 6, &g1_identity())
        )),
        DecodeError::Identity {
            what: "DKG commitment C_0"
        }
    );
    let z_at = b.len() - 32;
    assert!(wire::decode_dkg_broadcast(p.params, &replace(&b, z_at, &scalar_q())).is_err());
    // A flipped byte of z that decodes: the proof of knowledge fails and dealer 2 is named.
    for back in [1usize, 9, 20] {
        let mut x = b.clone();
        let pos = x.len() - back;
        x[pos] ^= 0x01;
        let d = wire::decode_dkg_broadcast(p.params, &x).unwrap();
        let e = dkg::verify_broadcast(&p.gens, p.params, &p.sid, &d).unwrap_err();
        assert_eq!(culprits(&e), vec![2]);
    }
}

/// Encoded sizes at n = 8, m = 2, |N| = 1024 (printed for the report; each is also checked
/// against the module's size formulas).
#[test]
fn encoded_sizes() {
    let w = world();
    let (p, codec, q) = (&w.public, &w.codec, &w.query);
    let pk = p.paillier.encryption_key();
    let (ct, zn) = (
        pk.ciphertext_len(),
        (pk.modulus_bits() as usize).div_ceil(8),
    );
    let sender = wire::encode_sender_input(p, &w.inputs[0]).unwrap().len();
    let zmu = (p.ring_pedersen.mu_mask_bits() as usize + 1).div_ceil(8);
    let zhat = (p.ring_pedersen.n_hat.significant_bits() as usize).div_ceil(8);
    assert_eq!(zhat, zn, "keygen makes |Ñ| = |N|");
    // z_{ρ1}, z_{ρ2}: ⌈|N|/2⌉ + 128 + 40 + 1 bits (fixed-base randomness, wire version 6).
    let zrho = (pk.modulus_bits().div_ceil(2) as usize + 169).div_ceil(8);
    assert_eq!(zrho, (sender::rho_response_bits(pk) as usize).div_ceil(8));
    assert_eq!(
        sender,
        2 + 4 * ct + 2 * 48 + 2 * 53 + 2 * zrho + 4 * zhat + 2 * zmu
    );
    let i = q.inputs.len();
    let members = 2;
    let sizes = [
        ("sender input", sender),
        (
            "mix stage (with shuffle proof)",
            wire::encode_mix_stage(p, codec, &w.record.stages[0])
                .unwrap()
                .len(),
        ),
        (
            "decryption stage",
            wire::encode_decryption_stage(p, &w.record.decryptions[0])
                .unwrap()
                .len(),
        ),
        ("BB query", wire::encode_bb_query(q).unwrap().len()),
        (
            "blinding stage",
            wire::encode_blinding_stage(&w.proof.blinding[0])
                .unwrap()
                .len(),
        ),
        (
            "elgamal dec stage",
            wire::encode_elgamal_dec_stage(&w.proof.decryption[0])
                .unwrap()
                .len(),
        ),
        (
            "DPK commit stage",
            wire::encode_dpk_commit_stage(&w.proof.dpk_commits[0])
                .unwrap()
                .len(),
        ),
        (
            "DPK response stage",
            wire::encode_dpk_response_stage(&w.proof.dpk_responses[0])
                .unwrap()
                .len(),
        ),
    ];
    // Decryption stage (wire version 8): the shares, then the batched proof's a, b
    // (one residue mod N² each) and z (|N²| + |Δ| + 256 + 128 + 1 bits).
    let zd = (pk.n_squared().significant_bits() as usize
        + p.paillier.delta().significant_bits() as usize
        + 385)
        .div_ceil(8);
    assert_eq!(
        sizes[2].1,
        16 + (wire::mix_decryption_groups(p) + 2) * ct + zd
    );
    assert_eq!(
        sizes[3].1,
        14 + 4 * i + 4 * q.outputs.len() + 96 + 48 * q.outputs.len()
    );
    assert_eq!(sizes[4].1, 8 + i * (6 * 48 + 96));
    assert_eq!(sizes[5].1, 8 + i * (3 * 48 + 32));
    assert_eq!(sizes[6].1, 8 + members * (8 * 48 + 128));
    assert_eq!(sizes[7].1, 8 + members * 128);
    let mut rng = ChaCha20Rng::seed_from_u64(78);
    let (bc, _) = dkg::deal(&p.gens, p.params, &p.sid, pid(1), &mut rng);
    let more = [
        (
            "mixnet public",
            wire::encode_mixnet_public(codec, p).unwrap().len(),
        ),
        (
            "mix record",
            wire::encode_mix_record(p, codec, &w.record).unwrap().len(),
        ),
        (
            "reverse stage (with shuffle proof)",
            wire::encode_reverse_stage(codec, &w.proof.reverse[0])
                .unwrap()
                .len(),
        ),
        (
            "DB-SM proof",
            wire::encode_dbsm_proof(codec, &w.proof).unwrap().len(),
        ),
        (
            "DKG broadcast",
            wire::encode_dkg_broadcast(&bc).unwrap().len(),
        ),
    ];
    for (name, len) in sizes.iter().chain(more.iter()) {
        eprintln!("{name}: {len} bytes");
    }
}
