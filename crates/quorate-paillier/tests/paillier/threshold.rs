//! Threshold Paillier: any t-subset decrypts, cheating shares are caught and named.
#![allow(clippy::unwrap_used)]

use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_core::{DecodeError, ParamError, PartyId, ThresholdParams};
use quorate_paillier::bigint::{random_below, to_be_bytes_padded};
use quorate_paillier::primes::generate_safe_prime;
use quorate_paillier::threshold::{deal, deal_with_primes};
use quorate_paillier::{Ciphertext, DecryptionShare, KeyShare, PaillierError, ThresholdPublicKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rug::Integer;
use std::sync::OnceLock;

type Dealt = (ThresholdPublicKey, Vec<KeyShare>);

/// 256-bit safe primes (n = 512 bits), generated once per test binary.
fn safe_primes() -> &'static (Integer, Integer) {
    static PRIMES: OnceLock<(Integer, Integer)> = OnceLock::new();
    PRIMES.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(30);
        let p = generate_safe_prime(256, &mut rng).unwrap();
        loop {
            let q = generate_safe_prime(256, &mut rng).unwrap();
            if q != p {
                return (p, q);
            }
        }
    })
}

fn dealt(t: u16, n: u16) -> Dealt {
    let (p, q) = safe_primes();
    let params = ThresholdParams::new(t, n).unwrap();
    deal_with_primes(
        params,
        p,
        q,
        &mut ChaCha20Rng::seed_from_u64(31 + u64::from(t)),
    )
    .unwrap()
}

fn key_2_3() -> &'static Dealt {
    static K: OnceLock<Dealt> = OnceLock::new();
    K.get_or_init(|| dealt(2, 3))
}

fn key_3_5() -> &'static Dealt {
    static K: OnceLock<Dealt> = OnceLock::new();
    K.get_or_init(|| dealt(3, 5))
}

fn pid(i: u16) -> PartyId {
    PartyId::new(i).unwrap()
}

fn sid() -> SessionId {
    SessionId::new(b"test-session".to_vec())
}

fn subsets(n: u16, k: usize) -> Vec<Vec<u16>> {
    let mut out = Vec::new();
    for mask in 0u32..(1 << n) {
        if mask.count_ones() as usize == k {
            out.push((1..=n).filter(|i| mask & (1 << (i - 1)) != 0).collect());
        }
    }
    out
}

fn shares_for(
    (tpk, keys): &Dealt,
    c: &Ciphertext,
    ids: &[u16],
    rng: &mut ChaCha20Rng,
) -> Vec<DecryptionShare> {
    ids.iter()
        .map(|&i| {
            keys[usize::from(i) - 1]
                .decrypt_share(tpk, &sid(), c, rng)
                .unwrap()
        })
        .collect()
}

fn check_every_subset(key: &Dealt, seed: u64) {
    let (tpk, keys) = key;
    let params = tpk.params();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let pk = tpk.encryption_key();
    let m = random_below(&mut rng, pk.n());
    let c = pk.encrypt(&m, &mut rng).unwrap();
    // All shares once, then every t-subset (and the full set) combines to m.
    let all: Vec<u16> = (1..=params.n()).collect();
    let shares = shares_for(key, &c, &all, &mut rng);
    let verified: Vec<_> = shares
        .iter()
        .map(|s| tpk.verify_share(&sid(), &c, s).unwrap())
        .collect();
    for set in subsets(params.n(), usize::from(params.t())) {
        let chosen: Vec<_> = set
            .iter()
            .map(|&i| verified[usize::from(i) - 1].clone())
            .collect();
        assert_eq!(tpk.combine(&chosen).unwrap(), m, "subset {set:?}");
        let raw: Vec<_> = set
            .iter()
            .map(|&i| shares[usize::from(i) - 1].clone())
            .collect();
        assert_eq!(
            tpk.verify_and_combine(&sid(), &c, &raw).unwrap(),
            m,
            "subset {set:?}"
        );
    }
    assert_eq!(tpk.combine(&verified).unwrap(), m);
    assert_eq!(keys.len(), usize::from(params.n()));
}

#[test]
fn two_of_three_every_subset_decrypts() {
    check_every_subset(key_2_3(), 40);
}

#[test]
fn three_of_five_every_subset_decrypts() {
    check_every_subset(key_3_5(), 41);
}

#[test]
fn fresh_dealer_keygen() {
    let mut rng = ChaCha20Rng::seed_from_u64(42);
    let params = ThresholdParams::new(2, 3).unwrap();
    let (tpk, keys) = deal(params, 512, &mut rng).unwrap();
    assert_eq!(tpk.encryption_key().modulus_bits(), 512);
    let m = Integer::from(123_456_789u64);
    let c = tpk.encryption_key().encrypt(&m, &mut rng).unwrap();
    let shares = shares_for(&(tpk.clone(), keys), &c, &[3, 1], &mut rng);
    assert_eq!(tpk.verify_and_combine(&sid(), &c, &shares).unwrap(), m);
}

#[test]
fn homomorphic_sum_decrypts_under_the_threshold_key() {
    let key = key_3_5();
    let (tpk, _) = key;
    let pk = tpk.encryption_key();
    let mut rng = ChaCha20Rng::seed_from_u64(43);
    let a = pk.encrypt(&Integer::from(1000), &mut rng).unwrap();
    let b = pk.encrypt(&Integer::from(337), &mut rng).unwrap();
    let c = pk
        .mul_plain_vartime(&pk.add(&a, &b), &Integer::from(3))
        .unwrap();
    let shares = shares_for(key, &c, &[2, 4, 5], &mut rng);
    assert_eq!(tpk.verify_and_combine(&sid(), &c, &shares).unwrap(), 4011);
}

fn blamed(err: &PaillierError) -> Vec<u16> {
    err.culprits().iter().map(|p| p.get()).collect()
}

#[test]
fn cheating_shares_are_detected_and_named() {
    let key = key_3_5();
    let (tpk, _) = key;
    let pk = tpk.encryption_key();
    let n2 = pk.n_squared().clone();
    let mut rng = ChaCha20Rng::seed_from_u64(44);
    let m = Integer::from(77);
    let c = pk.encrypt(&m, &mut rng).unwrap();
    let honest = shares_for(key, &c, &[1, 2, 3, 4, 5], &mut rng);

    // 1. Party 2 multiplies its share by a unit (e.g. to shift the plaintext).
    let mut shares = honest.clone();
    let s = &shares[1];
    let (e, z) = s.proof();
    let g = Integer::from(pk.n() + 1u32);
    let tweaked = Integer::from(s.value() * &g) % &n2;
    shares[1] = DecryptionShare::from_parts(pid(2), tweaked, e.clone(), z.clone());
    let err = tpk
        .verify_and_combine(&sid(), &c, &shares[..3])
        .unwrap_err();
    assert!(matches!(err, PaillierError::Aborted(_)));
    assert_eq!(blamed(&err), vec![2]);
    let single = tpk.verify_share(&sid(), &c, &shares[1]).unwrap_err();
    assert_eq!(blamed(&single), vec![2]);

    // 2. Party 4 sends a correct value with a mangled response, party 5 an honest share for
    //    another ciphertext: both are named, in order.
    let other = pk.encrypt(&m, &mut rng).unwrap();
    let mut shares = honest.clone();
    let s4 = &shares[3];
    let (e4, z4) = s4.proof();
    shares[3] = DecryptionShare::from_parts(
        pid(4),
        s4.value().clone(),
        e4.clone(),
        Integer::from(z4 + 1u32),
    );
    shares[4] = key.1[4]
        .decrypt_share(tpk, &sid(), &other, &mut rng)
        .unwrap();
    let err = tpk.verify_and_combine(&sid(), &c, &shares).unwrap_err();
    assert_eq!(blamed(&err), vec![4, 5]);

    // 3. A share proven for another session is rejected (proofs bind the session id).
    let replay = key.1[0]
        .decrypt_share(tpk, &SessionId::new(b"other".to_vec()), &c, &mut rng)
        .unwrap();
    assert_eq!(
        blamed(&tpk.verify_share(&sid(), &c, &replay).unwrap_err()),
        vec![1]
    );

    // 4. A share claiming to come from another party (party 3 relabels party 1's share).
    let s1 = &honest[0];
    let (e1, z1) = s1.proof();
    let relabelled =
        DecryptionShare::from_parts(pid(3), s1.value().clone(), e1.clone(), z1.clone());
    assert_eq!(
        blamed(&tpk.verify_share(&sid(), &c, &relabelled).unwrap_err()),
        vec![3]
    );

    // 5. Out-of-range proof values and a non-unit share value.
    let bad_e = DecryptionShare::from_parts(
        pid(1),
        s1.value().clone(),
        Integer::from(1) << 256u32,
        z1.clone(),
    );
    assert_eq!(
        blamed(&tpk.verify_share(&sid(), &c, &bad_e).unwrap_err()),
        vec![1]
    );
    let bad_c = DecryptionShare::from_parts(pid(1), pk.n().clone(), e1.clone(), z1.clone());
    assert_eq!(
        blamed(&tpk.verify_share(&sid(), &c, &bad_c).unwrap_err()),
        vec![1]
    );

    // Robust use: drop the culprits, combine any t verified honest shares.
    let good: Vec<_> = [0usize, 2, 4]
        .iter()
        .map(|&i| tpk.verify_share(&sid(), &c, &honest[i]).unwrap())
        .collect();
    assert_eq!(tpk.combine(&good).unwrap(), m);
}

#[test]
fn combination_preconditions() {
    let key = key_3_5();
    let (tpk, keys) = key;
    let pk = tpk.encryption_key();
    let mut rng = ChaCha20Rng::seed_from_u64(45);
    let c1 = pk.encrypt(&Integer::from(1), &mut rng).unwrap();
    let c2 = pk.encrypt(&Integer::from(2), &mut rng).unwrap();
    let v = |c: &Ciphertext, i: u16, rng: &mut ChaCha20Rng| {
        let s = keys[usize::from(i) - 1]
            .decrypt_share(tpk, &sid(), c, rng)
            .unwrap();
        tpk.verify_share(&sid(), c, &s).unwrap()
    };
    let a = v(&c1, 1, &mut rng);
    let b = v(&c1, 2, &mut rng);
    let d = v(&c2, 3, &mut rng);
    assert_eq!(
        tpk.combine(&[a.clone(), b.clone()]),
        Err(PaillierError::Param(ParamError::NotEnoughShares {
            needed: 3,
            got: 2
        }))
    );
    assert!(matches!(
        tpk.combine(&[a.clone(), b.clone(), a.clone()]),
        Err(PaillierError::Param(ParamError::DuplicateIndex { .. }))
    ));
    assert!(matches!(
        tpk.combine(&[a, b, d]),
        Err(PaillierError::Mismatch(_))
    ));
    // A share made for c1 does not verify for another ciphertext; its sender is blamed.
    let other = pk
        .ciphertext_from_integer(Integer::from(pk.n_squared() - 1u32))
        .unwrap();
    let s1 = &shares_for(key, &c1, &[1], &mut rng)[0];
    let err = tpk.verify_share(&sid(), &other, s1).unwrap_err();
    assert_eq!(err.culprits(), &[pid(1)]);
    // A ciphertext of a larger key is not in Z*_{n²} of this key: refused before any work.
    let big_key = quorate_paillier::SecretKey::generate(1024, &mut rng).unwrap();
    let foreign = big_key
        .public_key()
        .encrypt(&Integer::from(3), &mut rng)
        .unwrap();
    assert!(foreign.as_integer() >= pk.n_squared());
    assert!(matches!(
        keys[0].decrypt_share(tpk, &sid(), &foreign, &mut rng),
        Err(PaillierError::Mismatch(_))
    ));
    assert!(matches!(
        tpk.verify_share(&sid(), &foreign, s1),
        Err(PaillierError::Mismatch(_))
    ));
}

#[test]
fn public_key_and_share_encodings() {
    let key = key_2_3();
    let (tpk, keys) = key;
    let bytes = tpk.to_bytes();
    let back = ThresholdPublicKey::from_bytes(&bytes).unwrap();
    assert_eq!(&back, tpk);
    assert_eq!(back.fingerprint(), tpk.fingerprint());
    assert!(ThresholdPublicKey::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(ThresholdPublicKey::from_bytes(&trailing).is_err());
    // t > ℓ.
    let mut bad_t = bytes.clone();
    bad_t[3] = 9;
    assert!(matches!(
        ThresholdPublicKey::from_bytes(&bad_t),
        Err(PaillierError::Param(
            ParamError::ThresholdExceedsParties { .. }
        ))
    ));
    // Tampering with a verification key changes the fingerprint (and thus every proof).
    let mut vk = bytes.clone();
    let last = vk.len() - 1;
    vk[last] ^= 2;
    if let Ok(other) = ThresholdPublicKey::from_bytes(&vk) {
        assert_ne!(other.fingerprint(), tpk.fingerprint());
    }
    // A zero verification key is refused.
    let len = tpk.encryption_key().ciphertext_len();
    let mut zero_vk = bytes.clone();
    let start = zero_vk.len() - len;
    zero_vk[start..].iter_mut().for_each(|b| *b = 0);
    assert!(matches!(
        ThresholdPublicKey::from_bytes(&zero_vk),
        Err(PaillierError::NotAUnit { .. })
    ));

    // Decryption shares.
    let mut rng = ChaCha20Rng::seed_from_u64(46);
    let c = tpk
        .encryption_key()
        .encrypt(&Integer::from(5), &mut rng)
        .unwrap();
    let share = keys[1].decrypt_share(tpk, &sid(), &c, &mut rng).unwrap();
    let enc = tpk.encode_share(&share);
    assert_eq!(tpk.decode_share(&enc).unwrap(), share);
    assert!(matches!(
        tpk.decode_share(&enc[..enc.len() - 1]),
        Err(PaillierError::Decode(DecodeError::WrongLength { .. }))
    ));
    let mut unknown = enc.clone();
    unknown[3] = 9; // party 9 of 3
    assert!(matches!(
        tpk.decode_share(&unknown),
        Err(PaillierError::Param(ParamError::UnknownParty { .. }))
    ));
    let mut zero_party = enc.clone();
    zero_party[3] = 0;
    assert!(matches!(
        tpk.decode_share(&zero_party),
        Err(PaillierError::Decode(_))
    ));
    let mut non_unit = enc.clone();
    let n_bytes = to_be_bytes_padded(tpk.encryption_key().n(), len).unwrap();
    non_unit[4..4 + len].copy_from_slice(&n_bytes);
    assert!(matches!(
        tpk.decode_share(&non_unit),
        Err(PaillierError::Decode(DecodeError::InvalidValue { .. }))
    ));
    // A tampered share still decodes but fails verification, blaming the sender.
    let mut flipped = enc.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let s = tpk.decode_share(&flipped).unwrap();
    assert_eq!(
        tpk.verify_share(&sid(), &c, &s).unwrap_err().culprits(),
        &[pid(2)]
    );

    // Key shares.
    for k in keys {
        let b = k.to_bytes(tpk);
        let back = KeyShare::from_bytes(tpk, &b).unwrap();
        assert_eq!(back.id(), k.id());
        let mut t = b.to_vec();
        let last = t.len() - 1;
        t[last] ^= 1;
        assert!(matches!(
            KeyShare::from_bytes(tpk, &t),
            Err(PaillierError::InvalidKey(_))
        ));
        let mut relabelled = b.to_vec();
        relabelled[3] = if k.id().get() == 1 { 2 } else { 1 };
        assert!(KeyShare::from_bytes(tpk, &relabelled).is_err());
        assert!(KeyShare::from_bytes(tpk, &b[..b.len() - 1]).is_err());
        assert!(format!("{k:?}").contains("KeyShare") && !format!("{k:?}").contains("s:"));
    }
}

#[test]
fn dealer_rejects_unsuitable_primes() {
    let mut rng = ChaCha20Rng::seed_from_u64(47);
    let (p, _) = safe_primes();
    let params = ThresholdParams::new(2, 3).unwrap();
    // Not safe.
    let r = quorate_paillier::primes::generate_prime(256, &mut rng).unwrap();
    assert!(matches!(
        deal_with_primes(params, p, &r, &mut rng),
        Err(PaillierError::InvalidKey(_))
    ));
    // Equal.
    assert!(matches!(
        deal_with_primes(params, p, p, &mut rng),
        Err(PaillierError::InvalidKey(_))
    ));
    assert!(deal(params, 500, &mut rng).is_err());
}

fn batch_world(seed: u64, count: usize) -> (Vec<Integer>, Vec<Ciphertext>) {
    let (tpk, _) = key_3_5();
    let pk = tpk.encryption_key();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let ms: Vec<Integer> = (0..count).map(|_| random_below(&mut rng, pk.n())).collect();
    let cts = ms
        .iter()
        .map(|m| pk.encrypt(m, &mut rng).unwrap())
        .collect();
    (ms, cts)
}

#[test]
fn batched_shares_verify_and_combine_like_single_shares() {
    let (tpk, keys) = key_3_5();
    let (ms, cts) = batch_world(40, 5);
    let mut rng = ChaCha20Rng::seed_from_u64(41);
    let verified: Vec<Vec<_>> = keys[1..4]
        .iter()
        .map(|k| {
            let b = k.decrypt_batch(tpk, &sid(), &cts, &mut rng).unwrap();
            let wire = tpk.encode_batch(&b);
            assert_eq!(wire.len(), tpk.batch_len(cts.len()));
            let back = tpk.decode_batch(cts.len(), &wire).unwrap();
            assert_eq!(back, b);
            tpk.verify_batch(&sid(), &cts, &back).unwrap()
        })
        .collect();
    for (j, m) in ms.iter().enumerate() {
        let shares: Vec<_> = verified.iter().map(|v| v[j].clone()).collect();
        assert_eq!(tpk.combine(&shares).unwrap(), *m);
        // The batched share of c_j is the single share's value.
        let single = keys[1]
            .decrypt_share(tpk, &sid(), &cts[j], &mut rng)
            .unwrap();
        assert_eq!(single.value(), verified[0][j].value());
    }
    // An empty batch is a valid (vacuous) statement.
    let empty = keys[0].decrypt_batch(tpk, &sid(), &[], &mut rng).unwrap();
    assert!(tpk.verify_batch(&sid(), &[], &empty).unwrap().is_empty());
}

#[test]
fn a_bad_share_inside_a_batch_names_its_party() {
    let (tpk, keys) = key_3_5();
    let (_, cts) = batch_world(42, 4);
    let mut rng = ChaCha20Rng::seed_from_u64(43);
    let n2 = tpk.encryption_key().n_squared().clone();
    let honest = keys[2].decrypt_batch(tpk, &sid(), &cts, &mut rng).unwrap();
    let (a, b, z) = honest.proof();
    let tweak = |f: &dyn Fn(&mut Vec<Integer>)| {
        let mut values = honest.values().to_vec();
        f(&mut values);
        quorate_paillier::BatchDecryptionShares::from_parts(
            pid(3),
            values,
            a.clone(),
            b.clone(),
            z.clone(),
        )
    };
    // One share multiplied by a unit (it stays a unit mod n², so only the proof catches it).
    let bad_one = tweak(&|v| v[2] = Integer::from(&v[2] * 5u32) % &n2);
    // Two shares swapped: the weights bind each share to its ciphertext.
    let swapped = tweak(&|v| v.swap(0, 1));
    // The last share replaced by the first one (right value for the wrong ciphertext).
    let replayed = tweak(&|v| v[3] = v[0].clone());
    for bad in [bad_one, swapped, replayed] {
        assert_eq!(
            blamed(&tpk.verify_batch(&sid(), &cts, &bad).unwrap_err()),
            vec![3]
        );
    }
    // Wrong count, another session, another party's label: the same culprit.
    let short = tweak(&|v| {
        v.pop();
    });
    assert_eq!(
        blamed(&tpk.verify_batch(&sid(), &cts, &short).unwrap_err()),
        vec![3]
    );
    let other_sid = SessionId::new(b"other".to_vec());
    assert_eq!(
        blamed(&tpk.verify_batch(&other_sid, &cts, &honest).unwrap_err()),
        vec![3]
    );
    let relabelled = quorate_paillier::BatchDecryptionShares::from_parts(
        pid(4),
        honest.values().to_vec(),
        a.clone(),
        b.clone(),
        z.clone(),
    );
    assert_eq!(
        blamed(&tpk.verify_batch(&sid(), &cts, &relabelled).unwrap_err()),
        vec![4]
    );
    // The honest batch still verifies (the checks above can fail for the right reason only).
    assert_eq!(tpk.verify_batch(&sid(), &cts, &honest).unwrap().len(), 4);
    // A commitment or response changed after the fact: the same culprit.
    let n2 = tpk.encryption_key().n_squared();
    let with_proof = |a: Integer, b: Integer, z: Integer| {
        quorate_paillier::BatchDecryptionShares::from_parts(
            pid(3),
            honest.values().to_vec(),
            a,
            b,
            z,
        )
    };
    for bad in [
        with_proof(Integer::from(a * 3u32) % n2, b.clone(), z.clone()),
        with_proof(a.clone(), Integer::from(b * 3u32) % n2, z.clone()),
        with_proof(a.clone(), b.clone(), Integer::from(z + 1u32)),
        with_proof(Integer::new(), b.clone(), z.clone()),
        with_proof(a.clone(), b.clone(), Integer::from(-1)),
    ] {
        assert_eq!(
            blamed(&tpk.verify_batch(&sid(), &cts, &bad).unwrap_err()),
            vec![3]
        );
    }
    // `−a` has the same square, but the challenge hashes `a` itself, so it fails as well.
    let neg_a = with_proof(Integer::from(n2 - a), b.clone(), z.clone());
    assert_eq!(
        blamed(&tpk.verify_batch(&sid(), &cts, &neg_a).unwrap_err()),
        vec![3]
    );
    // Decoding rejects a wrong count, a non-unit share or commitment, and truncation.
    let wire = tpk.encode_batch(&honest);
    assert!(tpk.decode_batch(3, &wire).is_err());
    let len = tpk.encryption_key().ciphertext_len();
    for at in [8, 8 + 4 * len, 8 + 5 * len] {
        let mut zero = wire.clone();
        zero[at..at + len].fill(0);
        assert!(tpk.decode_batch(4, &zero).is_err(), "zeroed at {at}");
    }
    assert!(tpk.decode_batch(4, &wire[..wire.len() - 1]).is_err());
    let mut old_version = wire.clone();
    old_version[1] = 1;
    assert!(tpk.decode_batch(4, &old_version).is_err());
}

/// All parties' batches checked at once: honest batches pass and combine; a bad share in
/// one or two parties' batches names exactly those parties (the one-by-one fallback), and a
/// malformed batch is named next to a failing one.
#[test]
fn batches_of_all_parties_checked_at_once_name_exactly_the_bad_ones() {
    let (tpk, keys) = key_3_5();
    let (ms, cts) = batch_world(45, 4);
    let mut rng = ChaCha20Rng::seed_from_u64(46);
    let n2 = tpk.encryption_key().n_squared().clone();
    let honest: Vec<_> = keys
        .iter()
        .map(|k| k.decrypt_batch(tpk, &sid(), &cts, &mut rng).unwrap())
        .collect();
    let refs: Vec<_> = honest.iter().collect();
    let verified = tpk.verify_batches(&sid(), &cts, &refs, &mut rng).unwrap();
    assert_eq!(verified.len(), 5);
    for (j, m) in ms.iter().enumerate() {
        let shares: Vec<_> = verified[1..4].iter().map(|v| v[j].clone()).collect();
        assert_eq!(tpk.combine(&shares).unwrap(), *m);
    }
    let bad_share = |k: usize, j: usize| {
        let mut v = honest[k].values().to_vec();
        v[j] = Integer::from(&v[j] * 7u32) % &n2;
        honest[k].with_values(v)
    };
    let culprits = |list: &[&quorate_paillier::BatchDecryptionShares], rng: &mut ChaCha20Rng| {
        blamed(&tpk.verify_batches(&sid(), &cts, list, rng).unwrap_err())
    };
    let b2 = bad_share(1, 3);
    let list = [refs[0], &b2, refs[2], refs[3], refs[4]];
    assert_eq!(culprits(&list, &mut rng), vec![2]);
    let b5 = bad_share(4, 0);
    let list = [refs[0], &b2, refs[2], refs[3], &b5];
    assert_eq!(culprits(&list, &mut rng), vec![2, 5]);
    // A short batch (shape check) and a bad share (equation) are both named.
    let short = honest[0].with_values(honest[0].values()[..3].to_vec());
    let list = [&short, refs[1], refs[2], &b5];
    assert_eq!(culprits(&list, &mut rng), vec![1, 5]);
    // Any subset of honest batches passes; duplicates are refused.
    assert!(tpk
        .verify_batches(&sid(), &cts, &refs[2..4], &mut rng)
        .is_ok());
    assert!(tpk
        .verify_batches(&sid(), &cts, &[], &mut rng)
        .unwrap()
        .is_empty());
    assert!(tpk
        .verify_batches(&sid(), &cts, &[refs[0], refs[0]], &mut rng)
        .is_err());
}

#[test]
fn multi_exponentiation_matches_separate_powers() {
    use quorate_paillier::bigint::{multi_pow_vartime, pow_mod_vartime};
    let (tpk, _) = key_2_3();
    let n2 = tpk.encryption_key().n_squared();
    let mut rng = ChaCha20Rng::seed_from_u64(44);
    for count in [0usize, 1, 2, 7] {
        let bases: Vec<Integer> = (0..count).map(|_| random_below(&mut rng, n2)).collect();
        let mut exps: Vec<Integer> = (0..count)
            .map(|i| random_below(&mut rng, &(Integer::from(1) << (40 * i as u32 + 3))))
            .collect();
        if let Some(e) = exps.first_mut() {
            *e = Integer::new();
        }
        let want = bases
            .iter()
            .zip(&exps)
            .fold(Integer::from(1), |acc, (b, e)| {
                acc * pow_mod_vartime(b, e, n2).unwrap() % n2
            });
        assert_eq!(multi_pow_vartime(&bases, &exps, n2).unwrap(), want);
    }
    assert!(multi_pow_vartime(&[Integer::from(3)], &[Integer::from(-1)], n2).is_err());
}
