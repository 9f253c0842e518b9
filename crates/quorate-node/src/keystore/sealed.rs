//! A single secret sealed under a passphrase, for secret files kept outside a keystore (the
//! BLS client's and cold custodian's secrets): the keystore's own sealing, Argon2id to a
//! key-encryption key, then XChaCha20-Poly1305.
//!
//! Layout: `"quorate-sealed\0\x01"` (16 bytes) ‖ `m_kib` ‖ `t` ‖ `p` (u32 big-endian) ‖
//! salt (16 bytes) ‖ nonce ‖ ciphertext ‖ tag. The associated data binds the caller's label
//! (what the secret is), the KDF parameters and the salt, so a blob sealed as one kind of
//! secret never opens as another.

use rand_core::{OsRng, RngCore};
use zeroize::Zeroizing;

use super::crypto::{derive_kek, Ad, KdfParams, SALT_LEN};
use super::error::KeystoreError;
use crate::identity::Passphrase;

const MAGIC: &[u8; 16] = b"quorate-sealed\0\x01";
const HEADER_LEN: usize = MAGIC.len() + 12 + SALT_LEN;
/// Largest sealed blob accepted (the secrets sealed here are a few hundred bytes).
pub const MAX_SEALED_BYTES: usize = 64 * 1024;

fn ad(label: &str, params: KdfParams, salt: &[u8]) -> Ad {
    let mut ad = Ad::new("sealed-file");
    ad.str(label)
        .u32(params.m_kib)
        .u32(params.t)
        .u32(params.p)
        .bytes(salt);
    ad
}

/// Seals `plaintext` under `passphrase` (fresh salt and nonce); `label` names the secret.
pub fn seal_with_passphrase(
    passphrase: &Passphrase,
    params: KdfParams,
    label: &str,
    plaintext: &[u8],
) -> Result<Vec<u8>, KeystoreError> {
    let mut salt = [0u8; SALT_LEN];
    OsRng.fill_bytes(&mut salt);
    let kek = derive_kek(passphrase.as_bytes(), &salt, params)?;
    let blob = kek.seal(ad(label, params, &salt).as_bytes(), plaintext)?;
    let mut out = Vec::with_capacity(HEADER_LEN + blob.len());
    out.extend_from_slice(MAGIC);
    for v in [params.m_kib, params.t, params.p] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(&salt);
    out.extend_from_slice(&blob);
    Ok(out)
}

/// The Argon2id parameters a blob made by [`seal_with_passphrase`] was sealed with (read
/// from its header, unauthenticated until the blob is opened), so a related secret can be
/// sealed at the same cost. A blob that is not a sealed file is refused.
pub fn kdf_params_of(sealed: &[u8]) -> Result<KdfParams, KeystoreError> {
    if sealed.len() > MAX_SEALED_BYTES {
        return Err(KeystoreError::Corrupt("sealed file too large".into()));
    }
    if sealed.len() < HEADER_LEN || &sealed[..MAGIC.len()] != MAGIC {
        return Err(KeystoreError::Corrupt(
            "not a quorate sealed file (plaintext or another format)".into(),
        ));
    }
    let word = |i: usize| {
        let at = MAGIC.len() + 4 * i;
        u32::from_be_bytes([sealed[at], sealed[at + 1], sealed[at + 2], sealed[at + 3]])
    };
    Ok(KdfParams {
        m_kib: word(0),
        t: word(1),
        p: word(2),
    })
}

/// Opens a blob made by [`seal_with_passphrase`] with the same `label`. A wrong passphrase
/// (or a blob altered anywhere) is [`KeystoreError::WrongPassphrase`]; a blob that is not a
/// sealed file at all, or whose KDF parameters are out of bounds, is refused before any
/// key derivation work beyond the bounds.
pub fn open_with_passphrase(
    passphrase: &Passphrase,
    label: &str,
    sealed: &[u8],
) -> Result<Zeroizing<Vec<u8>>, KeystoreError> {
    let params = kdf_params_of(sealed)?;
    let salt = &sealed[MAGIC.len() + 12..HEADER_LEN];
    let kek = derive_kek(passphrase.as_bytes(), salt, params)?;
    kek.open(ad(label, params, salt).as_bytes(), &sealed[HEADER_LEN..])
        .ok_or(KeystoreError::WrongPassphrase)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(s: &str) -> Passphrase {
        Passphrase::new(s.to_string()).expect("non-empty")
    }

    #[test]
    fn roundtrip_and_every_tamper_is_refused() {
        let params = KdfParams::insecure_for_tests();
        let blob =
            seal_with_passphrase(&pass("right"), params, "bls client", b"secret").expect("seal");
        assert!(!blob.windows(6).any(|w| w == b"secret"));
        assert_eq!(kdf_params_of(&blob).expect("header"), params);
        assert!(kdf_params_of(b"{\"plaintext\": 1}").is_err());
        let opened = open_with_passphrase(&pass("right"), "bls client", &blob).expect("open");
        assert_eq!(opened.as_slice(), b"secret");
        assert!(matches!(
            open_with_passphrase(&pass("wrong"), "bls client", &blob),
            Err(KeystoreError::WrongPassphrase)
        ));
        assert!(matches!(
            open_with_passphrase(&pass("right"), "bls cold", &blob),
            Err(KeystoreError::WrongPassphrase)
        ));
        // Flipping any bit after the magic (parameters, salt, nonce, ciphertext, tag) fails.
        for at in MAGIC.len()..blob.len() {
            let mut bad = blob.clone();
            bad[at] ^= 1;
            assert!(
                open_with_passphrase(&pass("right"), "bls client", &bad).is_err(),
                "byte {at}"
            );
        }
        assert!(matches!(
            open_with_passphrase(&pass("right"), "bls client", b"{\"plaintext\": 1}"),
            Err(KeystoreError::Corrupt(_))
        ));
        assert!(open_with_passphrase(&pass("right"), "bls client", &blob[..HEADER_LEN]).is_err());
    }
}
