//! Argon2id key derivation, XChaCha20-Poly1305 sealing and the associated-data encoding.

use super::error::KeystoreError;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand_core::{OsRng, RngCore};
use zeroize::Zeroizing;

/// Length of a key (KEK or data key) in bytes.
pub(crate) const KEY_LEN: usize = 32;
/// Length of the per-store Argon2id salt in bytes.
pub(crate) const SALT_LEN: usize = 16;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;

/// Argon2id cost parameters (stored in the keystore header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfParams {
    /// Memory in KiB.
    pub m_kib: u32,
    /// Passes.
    pub t: u32,
    /// Lanes.
    pub p: u32,
}

impl KdfParams {
    /// The production parameters: 64 MiB, 3 passes, 1 lane.
    pub const DEFAULT: KdfParams = KdfParams {
        m_kib: 65536,
        t: 3,
        p: 1,
    };
    /// Upper bounds accepted when opening a store.
    const MAX_M_KIB: u32 = 1 << 20;
    const MAX_T: u32 = 64;
    const MAX_P: u32 = 16;

    /// Cheap parameters for tests only (64 KiB, 1 pass): they make a passphrase easy to
    /// brute-force, so nothing but tests and `--insecure-test-kdf` may choose them.
    pub fn insecure_for_tests() -> KdfParams {
        KdfParams {
            m_kib: 64,
            t: 1,
            p: 1,
        }
    }

    /// Checks the parameters are within the bounds the keystore accepts.
    pub fn validate(&self) -> Result<(), KeystoreError> {
        if self.p == 0 || self.p > Self::MAX_P {
            return Err(KeystoreError::KdfParams("lanes must be in 1..=16"));
        }
        if self.t == 0 || self.t > Self::MAX_T {
            return Err(KeystoreError::KdfParams("passes must be in 1..=64"));
        }
        if self.m_kib < 8 * self.p || self.m_kib > Self::MAX_M_KIB {
            return Err(KeystoreError::KdfParams(
                "memory must be at least 8 KiB per lane and at most 1 GiB",
            ));
        }
        Ok(())
    }
}

/// A 32-byte symmetric key, zeroized on drop.
pub(crate) struct SymKey(Zeroizing<[u8; KEY_LEN]>);

impl SymKey {
    pub(crate) fn random() -> SymKey {
        let mut k = Zeroizing::new([0u8; KEY_LEN]);
        OsRng.fill_bytes(&mut *k);
        SymKey(k)
    }

    pub(crate) fn from_slice(bytes: &[u8]) -> Option<SymKey> {
        let arr: [u8; KEY_LEN] = bytes.try_into().ok()?;
        Some(SymKey(Zeroizing::new(arr)))
    }

    pub(crate) fn bytes(&self) -> &[u8; KEY_LEN] {
        &self.0
    }

    /// Seals `plaintext` with a fresh random nonce: `nonce ‖ ciphertext ‖ tag`.
    pub(crate) fn seal(&self, ad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, KeystoreError> {
        let cipher = XChaCha20Poly1305::new(self.0.as_ref().into());
        let mut nonce = [0u8; NONCE_LEN];
        OsRng.fill_bytes(&mut nonce);
        let ct = cipher
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: plaintext,
                    aad: ad,
                },
            )
            .map_err(|_| KeystoreError::Corrupt("encryption failed".into()))?;
        let mut out = Vec::with_capacity(NONCE_LEN + ct.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&ct);
        Ok(out)
    }

    /// Opens a blob made by [`SymKey::seal`]; `None` if it fails authentication.
    pub(crate) fn open(&self, ad: &[u8], blob: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        if blob.len() < NONCE_LEN + TAG_LEN {
            return None;
        }
        let (nonce, ct) = blob.split_at(NONCE_LEN);
        let nonce = XNonce::from(<[u8; NONCE_LEN]>::try_from(nonce).ok()?);
        let cipher = XChaCha20Poly1305::new(self.0.as_ref().into());
        cipher
            .decrypt(&nonce, Payload { msg: ct, aad: ad })
            .ok()
            .map(Zeroizing::new)
    }
}

/// Derives the key-encryption key with Argon2id.
pub(crate) fn derive_kek(
    passphrase: &[u8],
    salt: &[u8],
    params: KdfParams,
) -> Result<SymKey, KeystoreError> {
    params.validate()?;
    let p = argon2::Params::new(params.m_kib, params.t, params.p, Some(KEY_LEN))
        .map_err(|_| KeystoreError::KdfParams("rejected by Argon2"))?;
    let argon = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, p);
    let mut out = Zeroizing::new([0u8; KEY_LEN]);
    argon
        .hash_password_into(passphrase, salt, &mut *out)
        .map_err(|_| KeystoreError::KdfParams("rejected by Argon2"))?;
    Ok(SymKey(out))
}

/// Derives a child store's KEK from its parent's (the node keystore's Argon2id KEK) with
/// HKDF-SHA256 (RFC 5869): `HKDF(salt = the child's random salt, IKM = parent KEK,
/// info = Ad("derived-kek", node id, purpose))`. The info binds the node and the file's
/// purpose, so two derived stores (or two nodes) never share a KEK even under one
/// passphrase; the salt is the child's own, so a re-created child gets a fresh key.
pub(crate) fn derive_child_kek(
    parent: &SymKey,
    salt: &[u8],
    node: u16,
    purpose: &str,
) -> Result<SymKey, KeystoreError> {
    let mut info = Ad::new("derived-kek");
    info.u16(node).str(purpose);
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(salt), parent.bytes());
    let mut out = Zeroizing::new([0u8; KEY_LEN]);
    hk.expand(info.as_bytes(), &mut *out)
        .map_err(|_| KeystoreError::Corrupt("HKDF output length".into()))?;
    Ok(SymKey(out))
}

/// Associated data: a domain label then typed fields, each length-prefixed or fixed-width,
/// so distinct tuples never encode to the same bytes.
pub(crate) struct Ad(Vec<u8>);

impl Ad {
    pub(crate) fn new(domain: &str) -> Ad {
        let mut ad = Ad(Vec::with_capacity(96));
        ad.str("quorate/keystore/v1");
        ad.str(domain);
        ad
    }

    pub(crate) fn str(&mut self, s: &str) -> &mut Ad {
        self.bytes(s.as_bytes())
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) -> &mut Ad {
        // Every field is at most a few hundred bytes; u32 lengths cannot overflow.
        self.0
            .extend_from_slice(&u32::try_from(b.len()).unwrap_or(u32::MAX).to_be_bytes());
        self.0.extend_from_slice(b);
        self
    }

    pub(crate) fn u16(&mut self, v: u16) -> &mut Ad {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub(crate) fn u32(&mut self, v: u32) -> &mut Ad {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub(crate) fn u64(&mut self, v: u64) -> &mut Ad {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_open_roundtrip_and_ad_binding() {
        let k = SymKey::random();
        let mut ad = Ad::new("t");
        ad.u16(1).str("k").u64(2);
        let blob = k.seal(ad.as_bytes(), b"secret").expect("seal");
        assert_eq!(
            k.open(ad.as_bytes(), &blob).expect("open").as_slice(),
            b"secret"
        );
        let mut other = Ad::new("t");
        other.u16(1).str("k").u64(3);
        assert!(k.open(other.as_bytes(), &blob).is_none());
        assert!(SymKey::random().open(ad.as_bytes(), &blob).is_none());
        assert!(k.open(ad.as_bytes(), &blob[..10]).is_none());
    }

    #[test]
    fn ad_encoding_is_unambiguous() {
        let mut a = Ad::new("d");
        a.str("ab").str("c");
        let mut b = Ad::new("d");
        b.str("a").str("bc");
        assert_ne!(a.as_bytes(), b.as_bytes());
    }

    #[test]
    fn kdf_depends_on_passphrase_salt_and_params_and_checks_bounds() {
        let p = KdfParams::insecure_for_tests();
        let a = derive_kek(b"pw", &[1; SALT_LEN], p).expect("kdf");
        let b = derive_kek(b"pw", &[1; SALT_LEN], p).expect("kdf");
        assert_eq!(a.bytes(), b.bytes());
        assert_ne!(
            a.bytes(),
            derive_kek(b"pX", &[1; SALT_LEN], p).expect("kdf").bytes()
        );
        assert_ne!(
            a.bytes(),
            derive_kek(b"pw", &[2; SALT_LEN], p).expect("kdf").bytes()
        );
        let p2 = KdfParams { t: 2, ..p };
        assert_ne!(
            a.bytes(),
            derive_kek(b"pw", &[1; SALT_LEN], p2).expect("kdf").bytes()
        );
        for bad in [
            KdfParams { m_kib: 4, ..p },
            KdfParams { t: 0, ..p },
            KdfParams { p: 0, ..p },
            KdfParams {
                m_kib: u32::MAX,
                ..p
            },
        ] {
            assert!(matches!(
                derive_kek(b"pw", &[1; SALT_LEN], bad),
                Err(KeystoreError::KdfParams(_))
            ));
        }
        KdfParams::DEFAULT
            .validate()
            .expect("default params are valid");
    }

    #[test]
    fn child_kek_binds_parent_salt_node_and_purpose() {
        let parent = SymKey::random();
        let salt = [7u8; SALT_LEN];
        let a = derive_child_kek(&parent, &salt, 1, "bls-hot").expect("hkdf");
        assert_eq!(
            a.bytes(),
            derive_child_kek(&parent, &salt, 1, "bls-hot")
                .expect("hkdf")
                .bytes()
        );
        for other in [
            derive_child_kek(&SymKey::random(), &salt, 1, "bls-hot"),
            derive_child_kek(&parent, &[8u8; SALT_LEN], 1, "bls-hot"),
            derive_child_kek(&parent, &salt, 2, "bls-hot"),
            derive_child_kek(&parent, &salt, 1, "bls-hotx"),
        ] {
            assert_ne!(a.bytes(), other.expect("hkdf").bytes());
        }
        assert_ne!(a.bytes(), parent.bytes());
    }
}
