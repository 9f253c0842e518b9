//! Integration tests for CS03 verifiable encryption (small, insecure test parameters with
//! pinned seeds; full-size runs belong to the benchmark).
#![allow(clippy::unwrap_used)]

use ff::Field;
use group::Group;
use quorate_paillier::rug::Integer;
use quorate_verenc::cs03::{
    self, ciphertext_len, proof_len, AuxParams, Ciphertext, Cs03Error, Cs03Params, Proof,
    PublicKey, SecretKey,
};
use quorate_verenc::group::{Bls12381G1, Curve, Ed25519, Secp256k1, P256};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

struct Fixture {
    pk: PublicKey,
    sk: SecretKey,
    aux: AuxParams,
}

/// |n| = |N| = 1024, k = 256, k' = 128, from a pinned seed.
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(0x0c50_3001);
        let params = Cs03Params::insecure_test_params(1024, 256).unwrap();
        let (pk, sk) = cs03::keygen(&mut rng, &params).unwrap();
        let aux = AuxParams::generate(&mut rng, 1024).unwrap();
        Fixture { pk, sk, aux }
    })
}

fn statement<C: Curve>(rng: &mut ChaCha20Rng) -> (C::Scalar, C::Point) {
    let x = C::Scalar::random(&mut *rng);
    (x, C::Point::generator() * x)
}

fn roundtrip<C: Curve>(seed: u64) {
    let f = fixture();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let (x, big_x) = statement::<C>(&mut rng);
    let label = format!("backup of a {} share", C::NAME);
    let (ct, proof) =
        cs03::encrypt_and_prove::<C>(&mut rng, &f.pk, &f.aux, &x, &big_x, label.as_bytes())
            .unwrap();
    let ct_bytes = ct.to_bytes();
    let proof_bytes = proof.to_bytes();
    assert_eq!(ct_bytes.len(), ciphertext_len(&f.pk));
    assert_eq!(ct_bytes.len(), 3 * 1024 / 4);
    assert_eq!(proof_bytes.len(), proof_len::<C>(&f.pk, &f.aux));
    assert_eq!(proof_bytes.len(), proof.encoded_len());
    let ct2 = Ciphertext::from_bytes(&f.pk, &ct_bytes).unwrap();
    let proof2 = Proof::from_bytes::<C>(&f.pk, &f.aux, &proof_bytes).unwrap();
    assert_eq!(ct2, ct);
    assert_eq!(proof2, proof);
    cs03::verify::<C>(&f.pk, &f.aux, &big_x, label.as_bytes(), &ct2, &proof2).unwrap();
    assert_eq!(
        cs03::decrypt::<C>(&f.sk, label.as_bytes(), &ct2).unwrap(),
        x
    );
    assert_eq!(
        cs03::recover::<C>(&f.sk, label.as_bytes(), &ct2, &big_x).unwrap(),
        x
    );
    // A different public point: the proof fails, and recovery refuses it.
    let (_, other) = statement::<C>(&mut rng);
    assert!(matches!(
        cs03::verify::<C>(&f.pk, &f.aux, &other, label.as_bytes(), &ct, &proof),
        Err(Cs03Error::ProofRejected(_))
    ));
    assert_eq!(
        cs03::recover::<C>(&f.sk, label.as_bytes(), &ct, &other),
        Err(Cs03Error::WrongPublicShare)
    );
    // A different label: the proof fails and decryption rejects (the label is in H).
    assert!(cs03::verify::<C>(&f.pk, &f.aux, &big_x, b"another label", &ct, &proof).is_err());
    assert_eq!(
        cs03::decrypt::<C>(&f.sk, b"another label", &ct),
        Err(Cs03Error::Decryption)
    );
    // The prover refuses a statement it does not hold.
    assert_eq!(
        cs03::encrypt_and_prove::<C>(&mut rng, &f.pk, &f.aux, &x, &other, b"x").unwrap_err(),
        Cs03Error::InvalidStatement
    );
}

#[test]
fn roundtrip_p256() {
    roundtrip::<P256>(1);
}

#[test]
fn roundtrip_secp256k1() {
    roundtrip::<Secp256k1>(2);
}

#[test]
fn roundtrip_bls12_381_g1() {
    roundtrip::<Bls12381G1>(3);
}

#[test]
fn roundtrip_ed25519() {
    roundtrip::<Ed25519>(4);
}

#[test]
fn roundtrip_with_k128_and_1536_bits() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let params = Cs03Params::insecure_test_params(1536, 128).unwrap();
    let (pk, sk) = cs03::keygen(&mut rng, &params).unwrap();
    let aux = &fixture().aux;
    let (x, big_x) = statement::<Secp256k1>(&mut rng);
    let (ct, proof) =
        cs03::encrypt_and_prove::<Secp256k1>(&mut rng, &pk, aux, &x, &big_x, b"k=128").unwrap();
    assert!(proof.challenge().significant_bits() <= 128);
    cs03::verify::<Secp256k1>(&pk, aux, &big_x, b"k=128", &ct, &proof).unwrap();
    assert_eq!(
        cs03::recover::<Secp256k1>(&sk, b"k=128", &ct, &big_x).unwrap(),
        x
    );
    // Objects of one key do not verify under another.
    let f = fixture();
    assert!(cs03::verify::<Secp256k1>(&f.pk, aux, &big_x, b"k=128", &ct, &proof).is_err());
    assert!(Ciphertext::from_bytes(&f.pk, &ct.to_bytes()).is_err());
}

/// A change to one ciphertext element `x` modulo `n²`.
type Change = Box<dyn Fn(&Integer, &Integer) -> Integer>;

/// Element `i` (0 = u, 1 = e, 2 = v) of a ciphertext encoding, changed by `f`.
fn malleate(
    pk: &PublicKey,
    ct: &Ciphertext,
    i: usize,
    f: impl Fn(&Integer, &Integer) -> Integer,
) -> Ciphertext {
    let len = ct.encoded_len() / 3;
    let mut bytes = ct.to_bytes();
    let x = Integer::from_digits(
        &bytes[i * len..(i + 1) * len],
        quorate_paillier::rug::integer::Order::Msf,
    );
    let n2 = Integer::from(pk.modulus().square_ref());
    let y = f(&x, &n2);
    let enc = y.to_digits::<u8>(quorate_paillier::rug::integer::Order::Msf);
    let slot = &mut bytes[i * len..(i + 1) * len];
    slot.fill(0);
    slot[len - enc.len()..].copy_from_slice(&enc);
    Ciphertext::from_bytes(pk, &bytes).unwrap()
}

#[test]
fn malleated_ciphertexts_fail_decryption_and_verification() {
    let f = fixture();
    let mut rng = ChaCha20Rng::seed_from_u64(6);
    let (x, big_x) = statement::<P256>(&mut rng);
    let (ct, proof) =
        cs03::encrypt_and_prove::<P256>(&mut rng, &f.pk, &f.aux, &x, &big_x, b"L").unwrap();
    let n = f.pk.modulus().clone();
    let changes: Vec<(usize, Change)> = vec![
        // u·(1 + n), e·(1 + n) (adds 1 to the plaintext), v·(1 + n).
        (
            0,
            Box::new({
                let n = n.clone();
                move |x, n2| (x * Integer::from(&n + 1u32)) % n2
            }),
        ),
        (
            1,
            Box::new({
                let n = n.clone();
                move |x, n2| (x * Integer::from(&n + 1u32)) % n2
            }),
        ),
        (
            2,
            Box::new({
                let n = n.clone();
                move |x, n2| (x * Integer::from(&n + 1u32)) % n2
            }),
        ),
        // e·(−1): same plaintext as far as ^{2t} is concerned, but H changes.
        (1, Box::new(|x, n2| Integer::from(n2 - x))),
        // u² and e² (a plausible-looking re-randomisation).
        (0, Box::new(|x, n2| Integer::from(x.square_ref()) % n2)),
        (1, Box::new(|x, n2| Integer::from(x.square_ref()) % n2)),
        // −v: fails abs(v) = v.
        (2, Box::new(|x, n2| Integer::from(n2 - x))),
    ];
    for (k, (i, change)) in changes.iter().enumerate() {
        let bad = malleate(&f.pk, &ct, *i, change);
        assert_ne!(bad, ct);
        assert_eq!(
            cs03::decrypt::<P256>(&f.sk, b"L", &bad),
            Err(Cs03Error::Decryption),
            "change {k}"
        );
        assert!(
            cs03::verify::<P256>(&f.pk, &f.aux, &big_x, b"L", &bad, &proof).is_err(),
            "change {k}"
        );
    }
    // The unchanged ciphertext still decrypts.
    assert_eq!(cs03::decrypt::<P256>(&f.sk, b"L", &ct).unwrap(), x);
}

/// Offsets of the fields of a proof encoding: (l, c, r̃, s̃, m̃).
fn proof_fields(f: &Fixture, total: usize) -> [(usize, usize); 5] {
    let l = f.aux.modulus_bits() as usize / 8;
    let c = f.pk.params().challenge_bits as usize / 8;
    let kk = (f.pk.params().challenge_bits + f.pk.params().slack_bits) as usize;
    let r = (f.pk.params().modulus_bits as usize + kk).div_ceil(8);
    let s = (f.aux.modulus_bits() as usize + kk).div_ceil(8);
    let m = total - l - c - r - s;
    let mut off = 0;
    let mut out = [(0, 0); 5];
    for (i, len) in [l, c, r, s, m].into_iter().enumerate() {
        out[i] = (off, len);
        off += len;
    }
    out
}

#[test]
fn tampered_and_out_of_range_proofs_are_rejected() {
    let f = fixture();
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let (x, big_x) = statement::<P256>(&mut rng);
    let (ct, proof) =
        cs03::encrypt_and_prove::<P256>(&mut rng, &f.pk, &f.aux, &x, &big_x, b"L").unwrap();
    let bytes = proof.to_bytes();
    let fields = proof_fields(f, bytes.len());
    // m̃ = 2B − 1 − B = B − 1 fits; all-ones is ≥ 2B and out of range.
    let (off, len) = fields[4];
    let mut bad = bytes.clone();
    bad[off..off + len].fill(0xff);
    assert_eq!(
        Proof::from_bytes::<P256>(&f.pk, &f.aux, &bad),
        Err(Cs03Error::OutOfRange { what: "m̃" })
    );
    // Same for r̃ and s̃.
    for (i, what) in [(2, "r̃"), (3, "s̃")] {
        let (off, len) = fields[i];
        let mut bad = bytes.clone();
        bad[off..off + len].fill(0xff);
        assert_eq!(
            Proof::from_bytes::<P256>(&f.pk, &f.aux, &bad),
            Err(Cs03Error::OutOfRange { what })
        );
    }
    // Flipping one bit of any field leaves a decodable proof that does not verify.
    for (i, (off, len)) in fields.iter().enumerate() {
        let mut bad = bytes.clone();
        bad[off + len - 1] ^= 1;
        match Proof::from_bytes::<P256>(&f.pk, &f.aux, &bad) {
            Ok(p) => assert!(
                cs03::verify::<P256>(&f.pk, &f.aux, &big_x, b"L", &ct, &p).is_err(),
                "field {i}"
            ),
            Err(e) => assert!(matches!(e, Cs03Error::NotAUnit { .. }), "field {i}: {e}"),
        }
    }
    // A proof for another curve's statement has another length.
    assert!(matches!(
        Proof::from_bytes::<Ed25519>(&f.pk, &f.aux, &bytes),
        Err(Cs03Error::Length { .. })
    ));
}

#[test]
fn encodings_roundtrip_and_reject_garbage() {
    let f = fixture();
    let pk_bytes = f.pk.to_bytes();
    assert_eq!(pk_bytes.len(), f.pk.encoded_len());
    assert_eq!(PublicKey::from_bytes(&pk_bytes).unwrap(), f.pk);
    let sk_bytes = f.sk.to_bytes();
    assert_eq!(sk_bytes.len(), f.sk.encoded_len());
    let sk2 = SecretKey::from_bytes(&sk_bytes).unwrap();
    assert_eq!(sk2.public_key(), &f.pk);
    let aux_bytes = f.aux.to_bytes();
    assert_eq!(aux_bytes.len(), f.aux.encoded_len());
    assert_eq!(AuxParams::from_bytes(&aux_bytes).unwrap(), f.aux);

    // Truncated and extended inputs: typed length errors.
    for (name, bytes) in [
        ("pk", &pk_bytes[..]),
        ("sk", &sk_bytes[..]),
        ("aux", &aux_bytes[..]),
    ] {
        for cut in [0, 1, 5, bytes.len() / 2, bytes.len() - 1] {
            let r = match name {
                "pk" => PublicKey::from_bytes(&bytes[..cut]).map(|_| ()),
                "sk" => SecretKey::from_bytes(&bytes[..cut]).map(|_| ()),
                _ => AuxParams::from_bytes(&bytes[..cut]).map(|_| ()),
            };
            assert!(
                matches!(r, Err(Cs03Error::Length { .. })),
                "{name} cut {cut}: {r:?}"
            );
        }
        let mut long = bytes.to_vec();
        long.push(0);
        let r = match name {
            "pk" => PublicKey::from_bytes(&long).map(|_| ()),
            "sk" => SecretKey::from_bytes(&long).map(|_| ()),
            _ => AuxParams::from_bytes(&long).map(|_| ()),
        };
        assert!(matches!(r, Err(Cs03Error::Length { .. })), "{name} long");
        let mut v = bytes.to_vec();
        v[0] = 9;
        let r = match name {
            "pk" => PublicKey::from_bytes(&v).map(|_| ()),
            "sk" => SecretKey::from_bytes(&v).map(|_| ()),
            _ => AuxParams::from_bytes(&v).map(|_| ()),
        };
        assert!(
            matches!(r, Err(Cs03Error::Version { got: 9, .. })),
            "{name} version"
        );
    }

    // Garbage of the right length after a valid header: typed errors, never a panic.
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    for _ in 0..20 {
        // A random n can pass the structural checks (nobody can check that n is a product of
        // two safe primes without its factors); then the key must round-trip exactly.
        let mut g = pk_bytes.clone();
        rng.fill_bytes(&mut g[7..]);
        if let Ok(k) = PublicKey::from_bytes(&g) {
            assert_eq!(k.to_bytes(), g);
        }
        let mut g = sk_bytes.to_vec();
        rng.fill_bytes(&mut g[pk_bytes.len()..]);
        assert!(SecretKey::from_bytes(&g).is_err());
        let mut g = aux_bytes.clone();
        rng.fill_bytes(&mut g[3..]);
        assert!(AuxParams::from_bytes(&g).is_err());
    }
    // Unsupported parameters in the header.
    let mut g = pk_bytes.clone();
    g[3..5].copy_from_slice(&64u16.to_be_bytes());
    assert_eq!(
        PublicKey::from_bytes(&g),
        Err(Cs03Error::Params("k must be 128 or 256"))
    );

    // Ciphertexts: length, range (≥ n²) and units.
    let len = ciphertext_len(&f.pk);
    assert!(matches!(
        Ciphertext::from_bytes(&f.pk, &vec![1u8; len - 1]),
        Err(Cs03Error::Length { .. })
    ));
    assert_eq!(
        Ciphertext::from_bytes(&f.pk, &vec![0xffu8; len]),
        Err(Cs03Error::OutOfRange { what: "u" })
    );
    assert_eq!(
        Ciphertext::from_bytes(&f.pk, &vec![0u8; len]),
        Err(Cs03Error::NotAUnit { what: "u" })
    );
    let mut n_multiple = vec![0u8; len];
    let n =
        f.pk.modulus()
            .to_digits::<u8>(quorate_paillier::rug::integer::Order::Msf);
    n_multiple[len / 3 - n.len()..len / 3].copy_from_slice(&n);
    assert_eq!(
        Ciphertext::from_bytes(&f.pk, &n_multiple),
        Err(Cs03Error::NotAUnit { what: "u" })
    );
    // Proofs: garbage of every length.
    let plen = proof_len::<P256>(&f.pk, &f.aux);
    for l in [0, 1, plen - 1, plen + 1] {
        assert!(matches!(
            Proof::from_bytes::<P256>(&f.pk, &f.aux, &vec![0x5a; l]),
            Err(Cs03Error::Length { .. })
        ));
    }
    for _ in 0..20 {
        let mut g = vec![0u8; plen];
        rng.fill_bytes(&mut g);
        let _ = Proof::from_bytes::<P256>(&f.pk, &f.aux, &g);
    }
}

#[test]
fn tampered_aux_params_are_rejected() {
    let f = fixture();
    let bytes = f.aux.to_bytes();
    let len = f.aux.modulus_bits() as usize / 8;
    // A byte of g̃ (then the proofs fail or g̃ is not a unit), of τ (h̃ ≠ τ²), of a response.
    for pos in [
        3 + len + 10,
        3 + 3 * len + 10,
        bytes.len() - 5,
        3 + 4 * len + 3,
    ] {
        let mut bad = bytes.clone();
        bad[pos] ^= 0x10;
        assert!(
            matches!(
                AuxParams::from_bytes(&bad),
                Err(Cs03Error::InvalidAux(_)
                    | Cs03Error::NotAUnit { .. }
                    | Cs03Error::OutOfRange { .. })
            ),
            "position {pos}"
        );
    }
}

/// The proof binds the auxiliary parameters: the same proof under other `(N, g̃, h̃)` of the
/// same size fails.
#[test]
fn proofs_bind_the_auxiliary_parameters() {
    let f = fixture();
    let mut rng = ChaCha20Rng::seed_from_u64(10);
    let other = AuxParams::generate(&mut rng, 1024).unwrap();
    let (x, big_x) = statement::<Ed25519>(&mut rng);
    let (ct, proof) =
        cs03::encrypt_and_prove::<Ed25519>(&mut rng, &f.pk, &f.aux, &x, &big_x, b"a").unwrap();
    cs03::verify::<Ed25519>(&f.pk, &f.aux, &big_x, b"a", &ct, &proof).unwrap();
    let moved = Proof::from_bytes::<Ed25519>(&f.pk, &other, &proof.to_bytes());
    if let Ok(p) = moved {
        assert!(cs03::verify::<Ed25519>(&f.pk, &other, &big_x, b"a", &ct, &p).is_err());
    }
}

#[test]
fn secrets_are_redacted() {
    let f = fixture();
    let s = format!("{:?}", f.sk);
    assert!(s.contains("<redacted>"));
    let n_hex = f.pk.modulus().to_string_radix(16);
    assert!(!s.contains(&n_hex[..16]));
}

/// r̃ uses the full |n| + k + k' − 1 bits (the deviating implementations give |n| + k bits).
#[test]
fn responses_span_the_full_blinding_range() {
    let f = fixture();
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let params = f.pk.params();
    let full = params.modulus_bits + params.challenge_bits + params.slack_bits - 1;
    let (mut max_r, mut max_s, mut max_m) = (0, 0, 0);
    let (mut neg, mut total) = (0, 0);
    for _ in 0..12 {
        let (x, big_x) = statement::<Secp256k1>(&mut rng);
        let (_, proof) =
            cs03::encrypt_and_prove::<Secp256k1>(&mut rng, &f.pk, &f.aux, &x, &big_x, b"s")
                .unwrap();
        let (r, s, m) = proof.responses();
        max_r = max_r.max(r.significant_bits());
        max_s = max_s.max(s.significant_bits());
        max_m = max_m.max(m.significant_bits());
        neg += usize::from(*r < 0);
        total += 1;
    }
    assert!(
        max_r >= full - 3 && max_r <= full,
        "r̃ has {max_r} bits, want about {full}"
    );
    let full_s = f.aux.modulus_bits() + params.challenge_bits + params.slack_bits - 1;
    assert!(max_s >= full_s - 3 && max_s <= full_s);
    let full_m = 256 + params.challenge_bits + params.slack_bits;
    assert!(max_m >= full_m - 4 && max_m <= full_m + 1);
    assert!(neg > 0 && neg < total, "r̃ should take both signs");
}

/// Known answer: keys, auxiliary parameters and a proof from one pinned ChaCha20 seed.
#[test]
fn known_answer() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x4b41_5400);
    let params = Cs03Params::insecure_test_params(1024, 128).unwrap();
    let (pk, sk) = cs03::keygen(&mut rng, &params).unwrap();
    let aux = AuxParams::generate(&mut rng, 1024).unwrap();
    let x = <P256 as Curve>::Scalar::from(0x0123_4567_89ab_cdefu64);
    let big_x = <P256 as Curve>::Point::generator() * x;
    let (ct, proof) =
        cs03::encrypt_and_prove::<P256>(&mut rng, &pk, &aux, &x, &big_x, b"kat").unwrap();
    cs03::verify::<P256>(&pk, &aux, &big_x, b"kat", &ct, &proof).unwrap();
    assert_eq!(cs03::recover::<P256>(&sk, b"kat", &ct, &big_x).unwrap(), x);
    let mut h = Sha256::new();
    h.update(pk.to_bytes());
    h.update(aux.to_bytes());
    h.update(ct.to_bytes());
    h.update(proof.to_bytes());
    let digest = hex::encode(h.finalize());
    assert_eq!(
        digest,
        "d44c26e657657cb7570fc5dbebfe3d6bace8dd47750c0a794dd18d2baf6491f3"
    );
}
