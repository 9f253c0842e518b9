//! TZ21 DKGitH / RDKGitH: round trips on every curve, rejections, encodings and pinned
//! known-answer digests.
#![allow(clippy::unwrap_used)]

use ff::Field;
use group::Group;
use quorate_verenc::group::{Bls12381G1, Ed25519, Secp256k1, P256};
use quorate_verenc::tz21::{
    self, CompressedCiphertext, Proof, Scheme, Tz21Curve, Tz21Error, Tz21Params,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha2::{Digest, Sha256};

/// Small test-only sets (not secure: see `soundness_bits`), one per scheme, with `N` not a
/// power of two so that the seed tree has unused nodes.
fn small_dk() -> Tz21Params {
    Tz21Params::dkgith(6, 5, 3).unwrap()
}
fn small_rdk() -> Tz21Params {
    Tz21Params::rdkgith(12, 5, 4).unwrap()
}

struct Setup<C: Tz21Curve> {
    ek: tz21::EncryptionKey<C>,
    dk: tz21::DecryptionKey<C>,
    x: C::Scalar,
    big_x: C::Point,
}

fn setup<C: Tz21Curve>(rng: &mut ChaCha20Rng) -> Setup<C> {
    let (ek, dk) = tz21::keygen::<C>(rng);
    let x = C::Scalar::random(&mut *rng);
    let big_x = C::Point::generator() * x;
    Setup { ek, dk, x, big_x }
}

fn roundtrip<C: Tz21Curve>(params: Tz21Params, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let s = setup::<C>(&mut rng);
    let label = b"quorate test label";
    let proof = tz21::prove(&mut rng, &params, &s.ek, &s.x, &s.big_x, label).unwrap();
    let bytes = proof.to_bytes();
    assert_eq!(bytes.len(), proof.size());
    let proof2 = Proof::<C>::from_bytes(&bytes).unwrap();
    assert_eq!(proof2, proof);
    tz21::verify(&params, &s.ek, &s.big_x, label, &proof2).unwrap();
    let comp = tz21::compress(&mut rng, &params, &s.ek, &s.big_x, label, &proof2).unwrap();
    let cb = comp.to_bytes();
    assert_eq!(cb.len(), comp.size());
    let comp2 = CompressedCiphertext::<C>::from_bytes(&cb).unwrap();
    assert_eq!(comp2, comp);
    tz21::check_compressed(&params, &proof2, &comp2).unwrap();
    let x = tz21::recover(&params, &s.dk, &s.big_x, label, &comp2).unwrap();
    assert_eq!(x, s.x);
}

#[test]
fn hashed_elgamal_roundtrip() {
    fn go<C: Tz21Curve>() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let (ek, dk) = tz21::keygen::<C>(&mut rng);
        let m = C::Scalar::random(&mut rng);
        let ct = tz21::encrypt(&mut rng, &ek, &m);
        assert_eq!(tz21::decrypt(&dk, &ct), m);
        assert_eq!(dk.public_key(), ek);
        let dk2 = tz21::DecryptionKey::<C>::from_bytes(&dk.to_bytes()).unwrap();
        assert_eq!(dk2.public_key(), ek);
        assert_eq!(
            tz21::EncryptionKey::<C>::from_bytes(&ek.to_bytes()).unwrap(),
            ek
        );
        assert!(!format!("{dk:?}").contains(&hex::encode(dk.to_bytes().as_slice())));
    }
    go::<P256>();
    go::<Secp256k1>();
    go::<Bls12381G1>();
    go::<Ed25519>();
}

#[test]
fn dkgith_roundtrip_every_curve() {
    roundtrip::<P256>(small_dk(), 10);
    roundtrip::<Secp256k1>(small_dk(), 11);
    roundtrip::<Bls12381G1>(small_dk(), 12);
    roundtrip::<Ed25519>(small_dk(), 13);
    // power-of-two N and N = 2
    roundtrip::<Secp256k1>(Tz21Params::dkgith(8, 3, 2).unwrap(), 14);
    roundtrip::<Secp256k1>(Tz21Params::dkgith(2, 3, 3).unwrap(), 15);
}

#[test]
fn rdkgith_roundtrip_every_curve() {
    roundtrip::<P256>(small_rdk(), 20);
    roundtrip::<Secp256k1>(small_rdk(), 21);
    roundtrip::<Bls12381G1>(small_rdk(), 22);
    roundtrip::<Ed25519>(small_rdk(), 23);
    roundtrip::<Secp256k1>(Tz21Params::rdkgith(2, 1, 1).unwrap(), 24);
}

#[test]
fn reference_sets_roundtrip() {
    // The two default sets on the paper's curve, and the cheapest DKGitH set.
    roundtrip::<P256>(Tz21Params::RDKGITH_132_64_67, 30);
    roundtrip::<P256>(Tz21Params::DKGITH_4_64_48, 31);
    roundtrip::<Secp256k1>(Tz21Params::DKGITH_85_20_20, 32);
    roundtrip::<Ed25519>(Tz21Params::RDKGITH_160_80_55, 33);
}

#[test]
fn soundness_of_reference_sets() {
    for p in Tz21Params::DKGITH_REFERENCE
        .iter()
        .chain(Tz21Params::RDKGITH_REFERENCE.iter())
    {
        p.validate().unwrap();
        let bits = p.soundness_bits();
        assert!(bits > 127.5, "{p:?}: {bits}");
    }
    assert!((Tz21Params::DKGITH_85_20_20.soundness_bits() - 128.2).abs() < 0.1);
    assert!((Tz21Params::RDKGITH_132_64_67.soundness_bits() - 128.1).abs() < 0.1);
    assert!(small_dk().soundness_bits() < 20.0);
    assert_eq!(Tz21Params::default_dkgith().scheme(), Scheme::Dkgith);
    assert_eq!(Tz21Params::default_rdkgith().parties(), 132);
    for p in Tz21Params::DKGITH_REFERENCE
        .iter()
        .chain(Tz21Params::RDKGITH_REFERENCE.iter())
    {
        assert_eq!(Tz21Params::from_bytes(&p.to_bytes()).unwrap(), *p);
        assert_eq!(Tz21Params::default_for(p.scheme()).scheme(), p.scheme());
        assert_eq!(Scheme::from_name(p.scheme().name()), Some(p.scheme()));
    }
    assert!(Tz21Params::from_bytes(&[1, 0, 6, 0, 5]).is_err());
    assert!(Tz21Params::from_bytes(&[3, 0, 6, 0, 5, 0, 3]).is_err());
    assert!(Tz21Params::from_bytes(&[1, 0, 6, 0, 5, 0, 9]).is_err());
    assert_eq!(Scheme::from_name("CS03"), None);
}

#[test]
fn invalid_params_are_rejected() {
    assert!(Tz21Params::dkgith(1, 5, 3).is_err());
    assert!(Tz21Params::dkgith(6, 5, 6).is_err());
    assert!(Tz21Params::dkgith(6, 0, 0).is_err());
    assert!(Tz21Params::rdkgith(12, 12, 1).is_err());
    assert!(Tz21Params::rdkgith(12, 5, 8).is_err());
    assert!(Tz21Params::rdkgith(5000, 5, 8).is_err());
    assert!(Tz21Params::dkgith(1024, 64, 8).is_err());
}

/// A verified proof plus everything needed to attack it.
struct Fixture<C: Tz21Curve> {
    params: Tz21Params,
    s: Setup<C>,
    proof: Proof<C>,
    label: Vec<u8>,
}

fn fixture<C: Tz21Curve>(params: Tz21Params, seed: u64) -> Fixture<C> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let s = setup::<C>(&mut rng);
    let label = b"backup of share #3".to_vec();
    let proof = tz21::prove(&mut rng, &params, &s.ek, &s.x, &s.big_x, &label).unwrap();
    tz21::verify(&params, &s.ek, &s.big_x, &label, &proof).unwrap();
    Fixture {
        params,
        s,
        proof,
        label,
    }
}

fn statement_rejections<C: Tz21Curve>(params: Tz21Params) {
    let f = fixture::<C>(params, 40);
    let mut rng = ChaCha20Rng::seed_from_u64(41);
    // a different X
    let other_x = f.s.big_x + C::Point::generator();
    assert!(matches!(
        tz21::verify(&f.params, &f.s.ek, &other_x, &f.label, &f.proof),
        Err(Tz21Error::ProofRejected(_))
    ));
    // a different label
    assert!(matches!(
        tz21::verify(
            &f.params,
            &f.s.ek,
            &f.s.big_x,
            b"backup of share #4",
            &f.proof
        ),
        Err(Tz21Error::ProofRejected(_))
    ));
    assert!(tz21::verify(&f.params, &f.s.ek, &f.s.big_x, b"", &f.proof).is_err());
    // a different escrow key
    let (ek2, _) = tz21::keygen::<C>(&mut rng);
    assert!(matches!(
        tz21::verify(&f.params, &ek2, &f.s.big_x, &f.label, &f.proof),
        Err(Tz21Error::ProofRejected(_))
    ));
    // other parameters
    let other = match params.scheme() {
        Scheme::Dkgith => small_rdk(),
        Scheme::Rdkgith => small_dk(),
    };
    assert!(matches!(
        tz21::verify(&other, &f.s.ek, &f.s.big_x, &f.label, &f.proof),
        Err(Tz21Error::ParamsMismatch { .. })
    ));
    // the identity as statement
    assert!(tz21::verify(
        &f.params,
        &f.s.ek,
        &C::Point::identity(),
        &f.label,
        &f.proof
    )
    .is_err());
    // a secret that does not match X
    let wrong = f.s.x + C::Scalar::ONE;
    assert_eq!(
        tz21::prove(&mut rng, &f.params, &f.s.ek, &wrong, &f.s.big_x, &f.label).unwrap_err(),
        Tz21Error::WitnessMismatch
    );
}

#[test]
fn wrong_statement_label_key_or_params_are_rejected() {
    statement_rejections::<P256>(small_dk());
    statement_rejections::<P256>(small_rdk());
    statement_rejections::<Secp256k1>(small_dk());
    statement_rejections::<Secp256k1>(small_rdk());
    statement_rejections::<Bls12381G1>(small_dk());
    statement_rejections::<Ed25519>(small_rdk());
}

/// Flips one bit of every byte of the proof encoding: each result must fail to decode or
/// fail to verify (responses, commitments, ciphertexts, seeds, salt, challenge, header).
fn every_bit_flip_is_rejected<C: Tz21Curve>(params: Tz21Params, seed: u64) {
    let f = fixture::<C>(params, seed);
    let bytes = f.proof.to_bytes();
    for pos in 0..bytes.len() {
        for bit in [0u8, 5] {
            let mut b = bytes.clone();
            b[pos] ^= 1 << bit;
            if let Ok(p) = Proof::<C>::from_bytes(&b) {
                assert!(
                    tz21::verify(&f.params, &f.s.ek, &f.s.big_x, &f.label, &p).is_err(),
                    "flip at byte {pos} bit {bit} accepted"
                );
            }
        }
    }
}

#[test]
fn tampered_proofs_are_rejected() {
    every_bit_flip_is_rejected::<Secp256k1>(small_dk(), 50);
    every_bit_flip_is_rejected::<Secp256k1>(small_rdk(), 51);
    every_bit_flip_is_rejected::<P256>(Tz21Params::dkgith(5, 2, 1).unwrap(), 52);
    every_bit_flip_is_rejected::<Ed25519>(Tz21Params::rdkgith(6, 2, 2).unwrap(), 53);
}

fn compressed_tampering<C: Tz21Curve>(params: Tz21Params, seed: u64) {
    let f = fixture::<C>(params, seed);
    let mut rng = ChaCha20Rng::seed_from_u64(seed + 1000);
    let comp =
        tz21::compress(&mut rng, &f.params, &f.s.ek, &f.s.big_x, &f.label, &f.proof).unwrap();
    let bytes = comp.to_bytes();
    tz21::check_compressed(&f.params, &f.proof, &comp).unwrap();
    // Any single flip: a typed error, or the true x (another entry still decrypts) — never
    // a wrong x; and `check_compressed` notices it.
    for pos in 0..bytes.len() {
        let mut b = bytes.clone();
        b[pos] ^= 0x10;
        if let Ok(c) = CompressedCiphertext::<C>::from_bytes(&b) {
            assert!(tz21::check_compressed(&f.params, &f.proof, &c).is_err());
            match tz21::recover(&f.params, &f.s.dk, &f.s.big_x, &f.label, &c) {
                Ok(x) => assert_eq!(x, f.s.x),
                Err(e) => assert!(matches!(
                    e,
                    Tz21Error::RecoveryFailed | Tz21Error::ParamsMismatch { .. }
                )),
            }
        }
    }
    // Every entry's c2 changed: recovery fails with a typed error.
    let entry = bytes.len().saturating_sub(tz21::HEADER_LEN) / f.params.compressed();
    let c2_end = tz21::HEADER_LEN + C::POINT_LEN + 32; // end of the first entry's c2
    let mut b = bytes.clone();
    for k in 0..f.params.compressed() {
        b[c2_end - 1 + k * entry] ^= 1;
    }
    let c = CompressedCiphertext::<C>::from_bytes(&b).unwrap();
    assert_eq!(
        tz21::recover(&f.params, &f.s.dk, &f.s.big_x, &f.label, &c).unwrap_err(),
        Tz21Error::RecoveryFailed
    );
    // A repeated entry, or entries of another proof, are not vouched for.
    if f.params.compressed() >= 2 {
        let mut b = bytes.clone();
        let (first, rest) = b[tz21::HEADER_LEN..].split_at_mut(entry);
        rest[..entry].copy_from_slice(first);
        let c = CompressedCiphertext::<C>::from_bytes(&b).unwrap();
        assert_eq!(
            tz21::check_compressed(&f.params, &f.proof, &c).unwrap_err(),
            Tz21Error::ProofRejected("compressed entry repeated")
        );
    }
    let g = fixture::<C>(f.params, seed + 7);
    let other_comp =
        tz21::compress(&mut rng, &g.params, &g.s.ek, &g.s.big_x, &g.label, &g.proof).unwrap();
    assert!(tz21::check_compressed(&f.params, &f.proof, &other_comp).is_err());
    // The wrong decryption key finds nothing.
    let (_, dk2) = tz21::keygen::<C>(&mut rng);
    assert_eq!(
        tz21::recover(&f.params, &dk2, &f.s.big_x, &f.label, &comp).unwrap_err(),
        Tz21Error::RecoveryFailed
    );
    // Another statement finds nothing.
    let other = f.s.big_x + C::Point::generator();
    assert_eq!(
        tz21::recover(&f.params, &f.s.dk, &other, &f.label, &comp).unwrap_err(),
        Tz21Error::RecoveryFailed
    );
}

#[test]
fn tampered_compressed_ciphertexts_never_give_a_wrong_secret() {
    compressed_tampering::<Secp256k1>(small_dk(), 60);
    compressed_tampering::<Secp256k1>(small_rdk(), 61);
    compressed_tampering::<P256>(small_rdk(), 62);
    compressed_tampering::<Bls12381G1>(small_dk(), 63);
    compressed_tampering::<Ed25519>(small_rdk(), 64);
}

/// A proof whose unopened ciphertexts were all replaced fails verification; the tamper
/// sweep above covers single flips, this covers a coordinated change of every `c2`.
#[test]
fn proof_with_every_hidden_ciphertext_changed_is_rejected() {
    let f = fixture::<Secp256k1>(small_dk(), 70);
    let mut b = f.proof.to_bytes();
    // DKGitH body: challenge, salt, then per repetition Δ ‖ c1 ‖ c2 ‖ seeds.
    let rep = 32 + 33 + 32 + 3 * 16;
    for j in 0..f.params.rounds_or_threshold() {
        let c2_last = tz21::HEADER_LEN + 64 + j * rep + 32 + 33 + 31;
        b[c2_last] ^= 1;
    }
    let p = Proof::<Secp256k1>::from_bytes(&b).unwrap();
    assert!(tz21::verify(&f.params, &f.s.ek, &f.s.big_x, &f.label, &p).is_err());
}

fn malformed_encodings<C: Tz21Curve>(params: Tz21Params, seed: u64) {
    let f = fixture::<C>(params, seed);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let comp =
        tz21::compress(&mut rng, &f.params, &f.s.ek, &f.s.big_x, &f.label, &f.proof).unwrap();
    for bytes in [f.proof.to_bytes(), comp.to_bytes()] {
        let is_proof = bytes.len() == f.proof.size();
        let decode = |b: &[u8]| -> Result<(), Tz21Error> {
            if is_proof {
                Proof::<C>::from_bytes(b).map(|_| ())
            } else {
                CompressedCiphertext::<C>::from_bytes(b).map(|_| ())
            }
        };
        decode(&bytes).unwrap();
        for len in 0..bytes.len() {
            assert!(
                decode(&bytes[..len]).is_err(),
                "prefix of {len} bytes accepted"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            decode(&longer),
            Err(Tz21Error::TrailingBytes { extra: 1 })
        ));
        let mut bad_version = bytes.clone();
        bad_version[0] = 9;
        assert_eq!(decode(&bad_version), Err(Tz21Error::Version(9)));
        let mut bad_scheme = bytes.clone();
        bad_scheme[1] = 7;
        assert_eq!(decode(&bad_scheme), Err(Tz21Error::UnknownScheme(7)));
        let mut huge = bytes.clone();
        huge[2] = 0xff; // N = 0xff.. > MAX_PARTIES
        assert!(matches!(decode(&huge), Err(Tz21Error::InvalidParams(_))));
        // garbage of the right length (all 0xff: scalars and points are non-canonical)
        let mut garbage = bytes.clone();
        for b in garbage[tz21::HEADER_LEN..].iter_mut() {
            *b = 0xff;
        }
        assert!(decode(&garbage).is_err());
    }
    // Pseudo-random garbage never panics.
    let mut g = ChaCha20Rng::seed_from_u64(99);
    for len in [0usize, 1, 7, 8, 9, 64, 500, 5000] {
        let mut b = vec![0u8; len];
        rand_core::RngCore::fill_bytes(&mut g, &mut b);
        assert!(Proof::<C>::from_bytes(&b).is_err());
        assert!(CompressedCiphertext::<C>::from_bytes(&b).is_err());
        assert!(tz21::EncryptionKey::<C>::from_bytes(&b).is_err() || len == C::POINT_LEN);
    }
}

#[test]
fn truncated_and_garbage_encodings_give_typed_errors() {
    malformed_encodings::<P256>(small_dk(), 80);
    malformed_encodings::<P256>(small_rdk(), 81);
    malformed_encodings::<Bls12381G1>(small_rdk(), 82);
    malformed_encodings::<Ed25519>(small_dk(), 83);
    assert!(tz21::DecryptionKey::<P256>::from_bytes(&[0u8; 32]).is_err());
    assert!(tz21::DecryptionKey::<P256>::from_bytes(&[0xffu8; 32]).is_err());
    assert!(tz21::DecryptionKey::<P256>::from_bytes(&[1u8; 31]).is_err());
}

fn kat<C: Tz21Curve>(params: Tz21Params) -> (String, String) {
    let mut rng = ChaCha20Rng::from_seed([7u8; 32]);
    let s = setup::<C>(&mut rng);
    let proof = tz21::prove(&mut rng, &params, &s.ek, &s.x, &s.big_x, b"KAT").unwrap();
    tz21::verify(&params, &s.ek, &s.big_x, b"KAT", &proof).unwrap();
    let comp = tz21::compress(&mut rng, &params, &s.ek, &s.big_x, b"KAT", &proof).unwrap();
    assert_eq!(
        tz21::recover(&params, &s.dk, &s.big_x, b"KAT", &comp).unwrap(),
        s.x
    );
    (
        hex::encode(Sha256::digest(proof.to_bytes())),
        hex::encode(Sha256::digest(comp.to_bytes())),
    )
}

/// Known-answer tests: fixed ChaCha20 seeds, pinned SHA-256 digests of the proof and of
/// the compressed ciphertext. A change here is a change of the wire format or of the
/// protocol's derivations.
#[test]
fn known_answers() {
    let cases = [
        (
            kat::<P256>(Tz21Params::dkgith(8, 4, 2).unwrap()),
            KAT_P256_DK,
        ),
        (
            kat::<P256>(Tz21Params::rdkgith(10, 4, 3).unwrap()),
            KAT_P256_RDK,
        ),
        (
            kat::<Secp256k1>(Tz21Params::dkgith(8, 4, 2).unwrap()),
            KAT_K256_DK,
        ),
        (
            kat::<Ed25519>(Tz21Params::rdkgith(10, 4, 3).unwrap()),
            KAT_ED_RDK,
        ),
        (
            kat::<Bls12381G1>(Tz21Params::dkgith(5, 3, 2).unwrap()),
            KAT_BLS_DK,
        ),
    ];
    for (i, (got, want)) in cases.iter().enumerate() {
        assert_eq!((got.0.as_str(), got.1.as_str()), *want, "KAT case {i}");
    }
}

const KAT_P256_DK: (&str, &str) = (
    "eac5de442808ca6f15179ea9cacf9a6c8eeaedf9b3f0ce8ada23c801120bd5ec",
    "fb5697c283124f9de6be6845e79a71a4f9b85da797a32334db9eeac9af4db4a0",
);
const KAT_P256_RDK: (&str, &str) = (
    "dcdc01eb41561c06d8242aedbc18b6eee5d596165e9ced522b9c20cf07d9629c",
    "854085655c359ee3012d71b01e2a377ba27777de99899461e95ec54f12a0dcb8",
);
const KAT_K256_DK: (&str, &str) = (
    "23d03744da5ab79edecb12306ff36b34d44d7a863097df413311dde2d969ab45",
    "e08edecbaaa2693af1a2b47b7f27869751a9fa73212f162e64b000e31612671b",
);
const KAT_ED_RDK: (&str, &str) = (
    "8a392fe1b5ee13dfb3fe9bb9d9bca5c5b763305afafedc3fc78d0e8c4e070820",
    "7727fdbd6d419172ddc5af3de8356a6fcd202d78df133f71dc46a6cdc15f05d7",
);
const KAT_BLS_DK: (&str, &str) = (
    "3661859d1beb61b38855f8c7c7d53b8e35176fb76cbae51b96813499512146b9",
    "bbe024ea573ad0c07da52597110151ca518c4a6e397e7797b3453f13570691cd",
);
