//! Verifiable key-share backup: one interface over the three schemes and four curves.
//!
//! A key holder encrypts a secret scalar `x` (a threshold key share, say) to an escrow, with
//! a proof that the plaintext is the discrete log of its public share `X = x·G`. Anyone can
//! check the proof against `X`, the escrow's public key and the label; only the escrow can
//! recover `x`, and recovery checks `x·G = X` before returning anything.
//!
//! ```text
//! escrow:     escrow_keygen(scheme, curve)            -> (EscrowPublicKey, EscrowSecretKey)
//! key holder: backup(escrow_pk, x, label)             -> Backup { X, ciphertext, proof, … }
//! verifier:   verify(&backup, rng)                    -> Verified { escrow_ciphertext }
//!             (or check(&backup) -> Checked, then .escrow_ciphertext(rng) later)
//! escrow:     recover(&escrow_sk, &backup)            -> x   (with x·G = X checked)
//! ```
//!
//! | scheme | ciphertext in the [`Backup`] | what the verifier keeps |
//! |---|---|---|
//! | [`Scheme::Cs03`] | the CS03 ciphertext `(u, e, v)` | the same ciphertext |
//! | [`Scheme::Dkgith`], [`Scheme::Rdkgith`] | empty until a verifier compresses the proof | the compressed ciphertext, chosen with the *verifier's* randomness (TZ21 soundness rests on the prover not predicting it) |
//!
//! [`verify`] checks the proof and, for a TZ21 backup whose `ciphertext` is already filled,
//! that every kept ciphertext is one the proof vouches for
//! ([`crate::tz21::check_compressed`]); it returns the ciphertext the escrow should store.
//! For TZ21 that is always a compression made with the verifier's own randomness: a
//! ciphertext found in the backup may have been chosen by the prover, and a prover that
//! picks which entries are kept needs only `n` bad entries instead of hoping that the
//! verifier picks them (the soundness error of RDKGitH (132, 64, 67) would rise from about
//! `2^{−128}` to `2^{−122}`, that of DKGitH (64, 48, 15) from `2^{−130}` to `2^{−90}`).
//! Recovery from any ciphertext still never returns a wrong scalar (it checks `x·G = X`).
//!
//! **Labels.** Every scheme binds the label: CS03 through its native label (a changed label
//! fails both verification and decryption), TZ21 through the Fiat–Shamir transcript.
//!
//! **CS03 escrow keys** carry the auxiliary parameters `(N, g̃, h̃)` of the range proof. The
//! escrow generates them and discards their factorisation; they come with the setup proofs
//! of [`crate::cs03::AuxParams::check`], so a verifier can check their form (not that the
//! factorisation was erased: see the CS03 module notes). A verifier that does not trust the
//! escrow for this can replace them with its own before the key holder proves.

use crate::cs03::{self, AuxParams, Cs03Error, Cs03Params};
use crate::group::{Bls12381G1, Curve, Ed25519, GroupDecodeError, Secp256k1, P256};
use crate::tz21::{self, Tz21Error, Tz21Params};
use group::Group;
use quorate_core::secret::wipe_field;
use rand_core::{CryptoRng, CryptoRngCore, RngCore};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use zeroize::Zeroizing;

/// The verifiable-encryption scheme of a backup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Camenisch–Shoup (ePrint 2002/161) with the auxiliary-modulus range proof.
    Cs03,
    /// TZ21 Protocol 4 (DKGitH), default set `(N, τ, n) = (85, 20, 20)`.
    Dkgith,
    /// TZ21 Protocol 5 (RDKGitH), default set `(N, t, n) = (132, 64, 67)`.
    Rdkgith,
}

impl Scheme {
    /// Every scheme, in the CLI's order.
    pub const ALL: [Scheme; 3] = [Scheme::Cs03, Scheme::Dkgith, Scheme::Rdkgith];

    /// The scheme's name (`cs03`, `dkgith`, `rdkgith`).
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Cs03 => "cs03",
            Scheme::Dkgith => "dkgith",
            Scheme::Rdkgith => "rdkgith",
        }
    }

    fn tz21_params(self) -> Option<Tz21Params> {
        match self {
            Scheme::Cs03 => None,
            Scheme::Dkgith => Some(Tz21Params::default_dkgith()),
            Scheme::Rdkgith => Some(Tz21Params::default_rdkgith()),
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = BackupError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scheme::ALL
            .into_iter()
            .find(|x| x.name().eq_ignore_ascii_case(s.trim()))
            .ok_or(BackupError::UnknownScheme)
    }
}

/// The group of the public share `X = x·G`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CurveId {
    /// NIST P-256.
    P256,
    /// secp256k1 (threshold ECDSA shares).
    Secp256k1,
    /// BLS12-381 G1.
    Bls12381G1,
    /// The prime-order subgroup of edwards25519.
    Ed25519,
}

impl CurveId {
    /// Every curve, in the CLI's order.
    pub const ALL: [CurveId; 4] = [
        CurveId::Secp256k1,
        CurveId::P256,
        CurveId::Bls12381G1,
        CurveId::Ed25519,
    ];

    /// The curve's name, as [`Curve::NAME`].
    pub fn name(self) -> &'static str {
        match self {
            CurveId::P256 => P256::NAME,
            CurveId::Secp256k1 => Secp256k1::NAME,
            CurveId::Bls12381G1 => Bls12381G1::NAME,
            CurveId::Ed25519 => Ed25519::NAME,
        }
    }
}

impl fmt::Display for CurveId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CurveId {
    type Err = BackupError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CurveId::ALL
            .into_iter()
            .find(|x| x.name().eq_ignore_ascii_case(s.trim()))
            .ok_or(BackupError::UnknownCurve)
    }
}

/// Runs `$body` with the type alias `$c` bound to the curve marker of `$curve`.
macro_rules! with_curve {
    ($curve:expr, $c:ident => $body:expr) => {
        match $curve {
            CurveId::P256 => {
                type $c = P256;
                $body
            }
            CurveId::Secp256k1 => {
                type $c = Secp256k1;
                $body
            }
            CurveId::Bls12381G1 => {
                type $c = Bls12381G1;
                $body
            }
            CurveId::Ed25519 => {
                type $c = Ed25519;
                $body
            }
        }
    };
}

/// Everything that can go wrong in a backup, a verification or a recovery.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BackupError {
    /// Not one of `cs03`, `dkgith`, `rdkgith`.
    #[error("unknown scheme (expected cs03, dkgith or rdkgith)")]
    UnknownScheme,
    /// Not one of the supported curves.
    #[error("unknown curve (expected secp256k1, p256, bls12-381-g1 or ed25519)")]
    UnknownCurve,
    /// The key belongs to another scheme or curve than the backup.
    #[error("the key is for {key_scheme}/{key_curve}, the backup for {scheme}/{curve}")]
    KeyMismatch {
        /// The key's scheme.
        key_scheme: Scheme,
        /// The key's curve.
        key_curve: CurveId,
        /// The backup's scheme.
        scheme: Scheme,
        /// The backup's curve.
        curve: CurveId,
    },
    /// A malformed encoding (of a key, a point, a scalar, a ciphertext or a proof).
    #[error("malformed {what}: {reason}")]
    Malformed {
        /// What was being decoded.
        what: &'static str,
        /// Why it was rejected.
        reason: String,
    },
    /// The secret scalar is zero (its public share would be the identity).
    #[error("the secret scalar is zero")]
    ZeroSecret,
    /// A TZ21 backup that no verifier has compressed yet cannot be recovered.
    #[error(
        "the backup has no escrow ciphertext yet: a verifier must verify (and compress) it first"
    )]
    NotCompressed,
    /// The proof (or the ciphertext it covers) is invalid.
    #[error("invalid backup: {0}")]
    Invalid(String),
    /// Recovery failed: decryption rejected the ciphertext or no candidate matched `X`.
    #[error("recovery failed: {0}")]
    Recovery(String),
}

fn malformed(what: &'static str, e: impl fmt::Display) -> BackupError {
    BackupError::Malformed {
        what,
        reason: e.to_string(),
    }
}

/// An escrow's public key for one scheme and curve.
///
/// Encoding: CS03 — `len(pk) (4 bytes, big-endian) ‖ pk ‖ aux`; TZ21 — the point `ek`.
///
/// A CS03 key keeps its parsed public key and auxiliary parameters (checked once, when the
/// key is decoded: the setup proofs take about half a second at 3072 bits) together with
/// their lazily built fixed-base tables, shared by clones.
#[derive(Clone)]
pub struct EscrowPublicKey {
    scheme: Scheme,
    curve: CurveId,
    bytes: Vec<u8>,
    cs03: Option<Arc<(cs03::PublicKey, AuxParams)>>,
}

impl PartialEq for EscrowPublicKey {
    fn eq(&self, other: &Self) -> bool {
        (self.scheme, self.curve) == (other.scheme, other.curve) && self.bytes == other.bytes
    }
}
impl Eq for EscrowPublicKey {}

impl fmt::Debug for EscrowPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EscrowPublicKey")
            .field("scheme", &self.scheme)
            .field("curve", &self.curve)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

impl EscrowPublicKey {
    /// Parses and checks a key (CS03: the public key and the auxiliary parameters with their
    /// setup proofs; TZ21: a non-identity point of the curve).
    pub fn from_bytes(scheme: Scheme, curve: CurveId, bytes: &[u8]) -> Result<Self, BackupError> {
        let mut key = EscrowPublicKey {
            scheme,
            curve,
            bytes: bytes.to_vec(),
            cs03: None,
        };
        match scheme {
            Scheme::Cs03 => {
                key.cs03 = Some(key.cs03_parts()?);
            }
            Scheme::Dkgith | Scheme::Rdkgith => with_curve!(curve, C => {
                tz21::EncryptionKey::<C>::from_bytes(bytes)
                    .map_err(|e| malformed("escrow public key", e))?;
            }),
        }
        Ok(key)
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The curve.
    pub fn curve(&self) -> CurveId {
        self.curve
    }

    /// The encoding.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The key file's JSON form (what `quorate verenc keygen --public-out` writes):
    /// `scheme`, `curve`, `escrow_public_key` (hex).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "scheme": self.scheme.name(),
            "curve": self.curve.name(),
            "escrow_public_key": hex::encode(&self.bytes),
        })
    }

    /// Parses and checks the key file's JSON form (as [`EscrowPublicKey::from_bytes`]).
    pub fn from_json(v: &serde_json::Value) -> Result<Self, BackupError> {
        let text = |k: &'static str| -> Result<&str, BackupError> {
            v.get(k).and_then(serde_json::Value::as_str).ok_or_else(|| {
                malformed(
                    "escrow public key file",
                    format!("field `{k}` is missing or not a string"),
                )
            })
        };
        let bytes = hex::decode(text("escrow_public_key")?.trim())
            .map_err(|e| malformed("escrow public key", e))?;
        Self::from_bytes(text("scheme")?.parse()?, text("curve")?.parse()?, &bytes)
    }

    /// The parsed CS03 public key and auxiliary parameters (parsed and checked now unless the
    /// key already holds them).
    fn cs03_parts(&self) -> Result<Arc<(cs03::PublicKey, AuxParams)>, BackupError> {
        if let Some(parts) = &self.cs03 {
            return Ok(Arc::clone(parts));
        }
        let b = &self.bytes;
        let len_bytes: [u8; 4] = b
            .get(..4)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| malformed("escrow public key", "truncated length prefix"))?;
        let len = u32::from_be_bytes(len_bytes) as usize;
        let pk_end = 4usize
            .checked_add(len)
            .filter(|&e| e <= b.len())
            .ok_or_else(|| malformed("escrow public key", "length prefix beyond the input"))?;
        let pk = cs03::PublicKey::from_bytes(&b[4..pk_end])
            .map_err(|e| malformed("escrow public key", e))?;
        let aux = AuxParams::from_bytes(&b[pk_end..])
            .map_err(|e| malformed("auxiliary parameters", e))?;
        Ok(Arc::new((pk, aux)))
    }
}

/// An escrow's secret key (wiped on drop, redacted in `Debug`).
pub struct EscrowSecretKey {
    scheme: Scheme,
    curve: CurveId,
    bytes: Zeroizing<Vec<u8>>,
    /// The parsed CS03 key (its decoding checks the factorisation), kept so that recovery
    /// does not parse it again.
    cs03: Option<cs03::SecretKey>,
}

impl fmt::Debug for EscrowSecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EscrowSecretKey")
            .field("scheme", &self.scheme)
            .field("curve", &self.curve)
            .field("bytes", &quorate_core::secret::REDACTED)
            .finish()
    }
}

impl EscrowSecretKey {
    /// Parses a secret key.
    pub fn from_bytes(scheme: Scheme, curve: CurveId, bytes: &[u8]) -> Result<Self, BackupError> {
        let cs03 = match scheme {
            Scheme::Cs03 => Some(
                cs03::SecretKey::from_bytes(bytes)
                    .map_err(|e| malformed("escrow secret key", e))?,
            ),
            Scheme::Dkgith | Scheme::Rdkgith => with_curve!(curve, C => {
                tz21::DecryptionKey::<C>::from_bytes(bytes)
                    .map_err(|e| malformed("escrow secret key", e))?;
                None
            }),
        };
        Ok(EscrowSecretKey {
            scheme,
            curve,
            bytes: Zeroizing::new(bytes.to_vec()),
            cs03,
        })
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The curve.
    pub fn curve(&self) -> CurveId {
        self.curve
    }

    /// The encoding (handle with care).
    pub fn expose_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Generates an escrow key pair. CS03 uses `cs03_params` (default: |n| = 3072, k = 256,
/// k' = 128) and generates the auxiliary parameters at the same size; this takes two safe
/// primes for `n` and two for `N` (seconds to a minute at 3072 bits).
pub fn escrow_keygen<R: RngCore + CryptoRng>(
    rng: &mut R,
    scheme: Scheme,
    curve: CurveId,
    cs03_params: Option<Cs03Params>,
) -> Result<(EscrowPublicKey, EscrowSecretKey), BackupError> {
    match scheme {
        Scheme::Cs03 => {
            let params = cs03_params.unwrap_or_else(Cs03Params::aggressive);
            let (pk, sk) = cs03::keygen(rng, &params).map_err(|e| malformed("cs03 keygen", e))?;
            let aux = AuxParams::generate(rng, params.modulus_bits)
                .map_err(|e| malformed("cs03 auxiliary parameters", e))?;
            let pk_bytes = pk.to_bytes();
            let len = u32::try_from(pk_bytes.len())
                .map_err(|_| malformed("cs03 public key", "too long"))?;
            let mut bytes = len.to_be_bytes().to_vec();
            bytes.extend_from_slice(&pk_bytes);
            bytes.extend_from_slice(&aux.to_bytes());
            Ok((
                EscrowPublicKey {
                    scheme,
                    curve,
                    bytes,
                    cs03: Some(Arc::new((pk, aux))),
                },
                EscrowSecretKey {
                    scheme,
                    curve,
                    bytes: sk.to_bytes(),
                    cs03: Some(sk),
                },
            ))
        }
        Scheme::Dkgith | Scheme::Rdkgith => with_curve!(curve, C => {
            let (ek, dk) = tz21::keygen::<C>(rng);
            Ok((
                EscrowPublicKey { scheme, curve, bytes: ek.to_bytes(), cs03: None },
                EscrowSecretKey { scheme, curve, bytes: dk.to_bytes(), cs03: None },
            ))
        }),
    }
}

/// A verifiable backup of one secret scalar: everything a verifier needs, and (once the
/// ciphertext is filled) everything the escrow needs besides its secret key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backup {
    /// The scheme.
    pub scheme: Scheme,
    /// The curve of the public share.
    pub curve: CurveId,
    /// Human-readable scheme parameters (e.g. `|n|=3072 k=256 k'=128`, `N=132 t=64 n=67`).
    pub params: String,
    /// `X = x·G`, in the curve's canonical compressed encoding.
    pub public_share: Vec<u8>,
    /// The escrow's public key encoding ([`EscrowPublicKey::as_bytes`]).
    pub escrow_public_key: Vec<u8>,
    /// CS03: the ciphertext. TZ21: the compressed ciphertext once a verifier made it, else
    /// empty.
    pub ciphertext: Vec<u8>,
    /// The proof.
    pub proof: Vec<u8>,
    /// The label (context bytes) bound into the ciphertext or proof.
    pub label: Vec<u8>,
}

impl Backup {
    /// The JSON form (what `quorate verenc backup` writes and `verify`/`recover` read):
    /// `scheme`, `curve`, `params`, and `public_share`, `escrow_public_key`, `ciphertext`,
    /// `proof`, `label` in hex.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "scheme": self.scheme.name(),
            "curve": self.curve.name(),
            "params": self.params,
            "public_share": hex::encode(&self.public_share),
            "escrow_public_key": hex::encode(&self.escrow_public_key),
            "ciphertext": hex::encode(&self.ciphertext),
            "proof": hex::encode(&self.proof),
            "label": hex::encode(&self.label),
        })
    }

    /// Parses the JSON form; every field is checked for presence, type and hex (the
    /// cryptographic checks are [`verify`]'s and [`recover`]'s).
    pub fn from_json(v: &serde_json::Value) -> Result<Backup, BackupError> {
        use serde_json::Value;
        let text = |k: &'static str| -> Result<&str, BackupError> {
            match v.get(k) {
                Some(Value::String(s)) => Ok(s.as_str()),
                None => Err(malformed("backup", format!("field `{k}` is missing"))),
                Some(_) => Err(malformed("backup", format!("field `{k}` is not a string"))),
            }
        };
        let bytes = |k: &'static str| -> Result<Vec<u8>, BackupError> {
            hex::decode(text(k)?.trim())
                .map_err(|e| malformed("backup", format!("field `{k}`: invalid hex: {e}")))
        };
        Ok(Backup {
            scheme: text("scheme")?.parse()?,
            curve: text("curve")?.parse()?,
            params: v
                .get("params")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            public_share: bytes("public_share")?,
            escrow_public_key: bytes("escrow_public_key")?,
            ciphertext: bytes("ciphertext")?,
            proof: bytes("proof")?,
            label: bytes("label")?,
        })
    }
}

/// What a successful [`verify`] returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The ciphertext the escrow should store: CS03's ciphertext, or a TZ21 compressed
    /// ciphertext made now with the verifier's randomness (always fresh, even when the
    /// backup already carries one: see the module docs).
    pub escrow_ciphertext: Vec<u8>,
}

fn params_label(scheme: Scheme, pk: Option<&cs03::PublicKey>) -> String {
    match (scheme, pk) {
        (Scheme::Cs03, Some(pk)) => {
            let p = pk.params();
            format!(
                "|n|={} k={} k'={}",
                p.modulus_bits, p.challenge_bits, p.slack_bits
            )
        }
        _ => scheme
            .tz21_params()
            .map(|p| match p.scheme() {
                tz21::Scheme::Dkgith => format!(
                    "N={} tau={} n={}",
                    p.parties(),
                    p.rounds_or_threshold(),
                    p.compressed()
                ),
                tz21::Scheme::Rdkgith => format!(
                    "N={} t={} n={}",
                    p.parties(),
                    p.rounds_or_threshold(),
                    p.compressed()
                ),
            })
            .unwrap_or_default(),
    }
}

/// The key holder's step: encrypts the secret scalar `secret_be` (32 big-endian bytes,
/// below the group order, not zero) to `escrow` under `label`, with the proof that it is
/// the discrete log of the returned public share.
pub fn backup<R: RngCore + CryptoRng>(
    rng: &mut R,
    escrow: &EscrowPublicKey,
    secret_be: &[u8; 32],
    label: &[u8],
) -> Result<Backup, BackupError> {
    let scheme = escrow.scheme;
    let curve = escrow.curve;
    with_curve!(curve, C => {
        let mut x = C::scalar_from_be_bytes(secret_be)
            .ok_or_else(|| malformed("secret", GroupDecodeError::Scalar { what: "secret" }))?;
        if bool::from(ff::Field::is_zero(&x)) {
            return Err(BackupError::ZeroSecret);
        }
        let public = <<C as Curve>::Point as Group>::generator() * x;
        let result = backup_with::<C, R>(rng, escrow, &x, &public, label);
        wipe_field(&mut x);
        let (params, ciphertext, proof) = result?;
        Ok(Backup {
            scheme,
            curve,
            params,
            public_share: C::point_to_bytes(&public),
            escrow_public_key: escrow.bytes.clone(),
            ciphertext,
            proof,
            label: label.to_vec(),
        })
    })
}

type Parts = (String, Vec<u8>, Vec<u8>);

fn backup_with<C: tz21::Tz21Curve, R: RngCore + CryptoRng>(
    rng: &mut R,
    escrow: &EscrowPublicKey,
    x: &C::Scalar,
    public: &C::Point,
    label: &[u8],
) -> Result<Parts, BackupError> {
    match escrow.scheme {
        Scheme::Cs03 => {
            let parts = escrow.cs03_parts()?;
            let (pk, aux) = (&parts.0, &parts.1);
            let (ct, proof) = cs03::encrypt_and_prove::<C>(rng, pk, aux, x, public, label)
                .map_err(cs03_invalid)?;
            Ok((
                params_label(Scheme::Cs03, Some(pk)),
                ct.to_bytes(),
                proof.to_bytes(),
            ))
        }
        scheme @ (Scheme::Dkgith | Scheme::Rdkgith) => {
            let params = scheme.tz21_params().ok_or(BackupError::UnknownScheme)?;
            let ek = tz21::EncryptionKey::<C>::from_bytes(&escrow.bytes)
                .map_err(|e| malformed("escrow public key", e))?;
            let proof =
                tz21::prove::<C>(rng, &params, &ek, x, public, label).map_err(tz21_invalid)?;
            Ok((params_label(scheme, None), Vec::new(), proof.to_bytes()))
        }
    }
}

fn cs03_invalid(e: Cs03Error) -> BackupError {
    BackupError::Invalid(e.to_string())
}

fn tz21_invalid(e: Tz21Error) -> BackupError {
    BackupError::Invalid(e.to_string())
}

/// The verifier's step: checks the proof against the public share, the escrow key and the
/// label, and returns the ciphertext the escrow should store (see the module docs): the
/// same as [`check`] followed by [`Checked::escrow_ciphertext`].
///
/// Malformed input gives [`BackupError::Malformed`] (or a scheme/curve error); a well-formed
/// backup that does not verify gives [`BackupError::Invalid`].
pub fn verify<R: RngCore + CryptoRng>(
    backup: &Backup,
    rng: &mut R,
) -> Result<Verified, BackupError> {
    Ok(Verified {
        escrow_ciphertext: check(backup)?.escrow_ciphertext(rng)?,
    })
}

/// A backup whose proof [`check`] accepted. [`Checked::escrow_ciphertext`] makes the
/// ciphertext the escrow stores (for TZ21 a compression of the decoded proof with the
/// verifier's randomness). A verifier that must decide quickly, such as a node before it
/// signs an epoch certificate, checks every backup first and compresses later, beside its
/// durable writes; nothing about the backup is decoded twice.
pub struct Checked {
    make: MakeCiphertext,
}

type MakeCiphertext =
    Box<dyn FnOnce(&mut &mut dyn CryptoRngCore) -> Result<Vec<u8>, BackupError> + Send>;

impl fmt::Debug for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checked").finish_non_exhaustive()
    }
}

impl Checked {
    /// The ciphertext the escrow should store ([`Verified::escrow_ciphertext`]); `rng` must
    /// be the verifier's own (TZ21 soundness rests on the prover not predicting it).
    pub fn escrow_ciphertext<R: RngCore + CryptoRng>(
        self,
        rng: &mut R,
    ) -> Result<Vec<u8>, BackupError> {
        let mut rng: &mut dyn CryptoRngCore = rng;
        (self.make)(&mut rng)
    }
}

/// The verification of [`verify`] without making the escrow's ciphertext: checks the proof
/// (and a TZ21 ciphertext already in the backup) and returns the decoded, checked backup.
/// Errors as [`verify`].
pub fn check(backup: &Backup) -> Result<Checked, BackupError> {
    let escrow =
        EscrowPublicKey::from_bytes(backup.scheme, backup.curve, &backup.escrow_public_key)?;
    with_curve!(backup.curve, C => check_with::<C>(backup, &escrow))
}

fn check_with<C: tz21::Tz21Curve>(
    backup: &Backup,
    escrow: &EscrowPublicKey,
) -> Result<Checked, BackupError>
where
    C::Point: Send + 'static,
    tz21::Proof<C>: Send + 'static,
    tz21::EncryptionKey<C>: Send + 'static,
{
    let public = C::point_from_bytes("public share", &backup.public_share)
        .map_err(|e| malformed("public share", e))?;
    match backup.scheme {
        Scheme::Cs03 => {
            let parts = escrow.cs03_parts()?;
            let (pk, aux) = (&parts.0, &parts.1);
            let ct = cs03::Ciphertext::from_bytes(pk, &backup.ciphertext)
                .map_err(|e| malformed("ciphertext", e))?;
            let proof = cs03::Proof::from_bytes::<C>(pk, aux, &backup.proof)
                .map_err(|e| malformed("proof", e))?;
            cs03::verify::<C>(pk, aux, &public, &backup.label, &ct, &proof)
                .map_err(cs03_invalid)?;
            let ciphertext = backup.ciphertext.clone();
            Ok(Checked {
                make: Box::new(move |_| Ok(ciphertext)),
            })
        }
        scheme @ (Scheme::Dkgith | Scheme::Rdkgith) => {
            let params = scheme.tz21_params().ok_or(BackupError::UnknownScheme)?;
            let ek = tz21::EncryptionKey::<C>::from_bytes(&escrow.bytes)
                .map_err(|e| malformed("escrow public key", e))?;
            let proof =
                tz21::Proof::<C>::from_bytes(&backup.proof).map_err(|e| malformed("proof", e))?;
            tz21::verify::<C>(&params, &ek, &public, &backup.label, &proof)
                .map_err(tz21_invalid)?;
            if !backup.ciphertext.is_empty() {
                // A ciphertext already in the backup must be made of entries the proof
                // vouches for; whether it was chosen at random cannot be checked, so it is
                // not what this verifier hands to the escrow.
                let given = tz21::CompressedCiphertext::<C>::from_bytes(&backup.ciphertext)
                    .map_err(|e| malformed("compressed ciphertext", e))?;
                tz21::check_compressed::<C>(&params, &proof, &given).map_err(tz21_invalid)?;
            }
            let label = backup.label.clone();
            Ok(Checked {
                make: Box::new(move |rng| {
                    // Compression with this verifier's randomness (TZ21 soundness needs the
                    // kept entries to be unpredictable to the prover).
                    let compressed =
                        tz21::compress::<C>(rng, &params, &ek, &public, &label, &proof)
                            .map_err(tz21_invalid)?;
                    Ok(compressed.to_bytes())
                }),
            })
        }
    }
}

/// The escrow's step: decrypts the backup's ciphertext and returns `x` (32 big-endian
/// bytes) after checking `x·G = X`. It does not re-verify the proof (the verifier did); a
/// ciphertext that does not decrypt to `log_G X` gives [`BackupError::Recovery`], never a
/// wrong scalar.
pub fn recover(
    escrow: &EscrowSecretKey,
    backup: &Backup,
) -> Result<Zeroizing<[u8; 32]>, BackupError> {
    if escrow.scheme != backup.scheme || escrow.curve != backup.curve {
        return Err(BackupError::KeyMismatch {
            key_scheme: escrow.scheme,
            key_curve: escrow.curve,
            scheme: backup.scheme,
            curve: backup.curve,
        });
    }
    if backup.ciphertext.is_empty() {
        return Err(BackupError::NotCompressed);
    }
    with_curve!(backup.curve, C => {
        let public = C::point_from_bytes("public share", &backup.public_share)
            .map_err(|e| malformed("public share", e))?;
        let mut x = match backup.scheme {
            Scheme::Cs03 => {
                let sk = escrow
                    .cs03
                    .as_ref()
                    .ok_or_else(|| malformed("escrow secret key", "not a CS03 key"))?;
                let ct = cs03::Ciphertext::from_bytes(sk.public_key(), &backup.ciphertext)
                    .map_err(|e| malformed("ciphertext", e))?;
                cs03::recover::<C>(sk, &backup.label, &ct, &public)
                    .map_err(|e| BackupError::Recovery(e.to_string()))?
            }
            scheme @ (Scheme::Dkgith | Scheme::Rdkgith) => {
                let params = scheme.tz21_params().ok_or(BackupError::UnknownScheme)?;
                let dk = tz21::DecryptionKey::<C>::from_bytes(&escrow.bytes)
                    .map_err(|e| malformed("escrow secret key", e))?;
                let compressed = tz21::CompressedCiphertext::<C>::from_bytes(&backup.ciphertext)
                    .map_err(|e| malformed("compressed ciphertext", e))?;
                tz21::recover::<C>(&params, &dk, &public, &backup.label, &compressed)
                    .map_err(|e| BackupError::Recovery(e.to_string()))?
            }
        };
        let out = Zeroizing::new(C::scalar_to_be_bytes(&x));
        wipe_field(&mut x);
        Ok(out)
    })
}
