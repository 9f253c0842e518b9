//! quorate-paillier: public and secret keys, ciphertexts, the threshold public key, key
//! shares and decryption shares (whose proofs are checked by `verify_share`).

use crate::{re, rng, Case};
use quorate_core::transcript::SessionId;
use quorate_core::ThresholdParams;
use quorate_paillier::paillier::{PublicKey, SecretKey};
use quorate_paillier::rug::Integer;
use quorate_paillier::threshold::{deal_with_primes, KeyShare, ThresholdPublicKey};
use quorate_paillier::{generate_safe_prime, Ciphertext};
use std::rc::Rc;

/// The cases (keys of 512 bits: the smallest the crate accepts, so checks stay fast).
pub fn cases() -> Vec<Case> {
    let mut r = rng(0x5041);
    let sk = SecretKey::generate(512, &mut r).expect("keygen");
    let pk = sk.public_key().clone();
    let p = generate_safe_prime(256, &mut r).expect("safe prime");
    let q = loop {
        let q = generate_safe_prime(256, &mut r).expect("safe prime");
        if q != p {
            break q;
        }
    };
    let params = ThresholdParams::new(2, 3).expect("params");
    let (tpk, shares) = deal_with_primes(params, &p, &q, &mut r).expect("deal");
    let tpk = Rc::new(tpk);
    let c = pk.encrypt(&Integer::from(42), &mut r).expect("encrypt");
    let tc = tpk
        .encryption_key()
        .encrypt(&Integer::from(7), &mut r)
        .expect("encrypt");
    let sid = SessionId::new(b"quorate-fuzz".to_vec());
    let dshare = shares[1]
        .decrypt_share(&tpk, &sid, &tc, &mut r)
        .expect("decryption share");

    // decode(encode(x)) == x for every type with equality.
    assert!(PublicKey::from_bytes(&pk.to_bytes()).expect("pk") == pk);
    assert!(pk.decode_ciphertext(&pk.encode_ciphertext(&c)).expect("ct") == c);
    assert!(ThresholdPublicKey::from_bytes(&tpk.to_bytes()).expect("tpk") == *tpk);
    assert!(tpk.decode_share(&tpk.encode_share(&dshare)).expect("share") == dshare);

    let mut out = vec![Case::new("paillier::PublicKey", pk.to_bytes(), |b| {
        re(PublicKey::from_bytes(b), PublicKey::to_bytes)
    })];
    out.push(Case::new(
        "paillier::SecretKey",
        sk.to_bytes().to_vec(),
        |b| re(SecretKey::from_bytes(b), |k| k.to_bytes().to_vec()),
    ));
    {
        let pk2 = pk.clone();
        let pk3 = pk.clone();
        out.push(
            Case::new("paillier::Ciphertext", pk.encode_ciphertext(&c), move |b| {
                re(pk2.decode_ciphertext(b), |c: &Ciphertext| {
                    pk2.encode_ciphertext(c)
                })
            })
            .with_check(false, move |b| {
                // Every accepted ciphertext decrypts (0 < c < n², unit).
                let c = pk3.decode_ciphertext(b).expect("decoded before");
                sk.decrypt(&c).is_ok()
            }),
        );
    }
    out.push(Case::new(
        "threshold::ThresholdPublicKey",
        tpk.to_bytes(),
        |b| {
            re(
                ThresholdPublicKey::from_bytes(b),
                ThresholdPublicKey::to_bytes,
            )
        },
    ));
    {
        let t = Rc::clone(&tpk);
        out.push(Case::new(
            "threshold::KeyShare",
            shares[0].to_bytes(&tpk).to_vec(),
            move |b| re(KeyShare::from_bytes(&t, b), |s| s.to_bytes(&t).to_vec()),
        ));
    }
    {
        let t = Rc::clone(&tpk);
        let t2 = Rc::clone(&tpk);
        out.push(
            Case::new(
                "threshold::DecryptionShare",
                tpk.encode_share(&dshare),
                move |b| re(t.decode_share(b), |s| t.encode_share(s)),
            )
            .with_check(true, move |b| {
                let s = t2.decode_share(b).expect("decoded before");
                match t2.verify_share(&sid, &tc, &s) {
                    Ok(_) => true,
                    Err(e) => {
                        // A rejected share names its sender, and only its sender.
                        use quorate_core::error::Culprits;
                        assert_eq!(e.culprits(), &[s.id()], "blame names the sender");
                        false
                    }
                }
            }),
        );
    }
    out
}
