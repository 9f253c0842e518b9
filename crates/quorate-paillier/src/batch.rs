//! Batched threshold decryption: one party's decryption shares of a whole list of
//! ciphertexts with **one** proof (issue 17, lever 1).
//!
//! # Protocol
//! Party `i` with secret `x = Δ·s_i` (so `v_i = v^x`) and ciphertexts `c_1 … c_L`:
//! 1. Shares `c_{i,j} = c_j^{2x} mod n²` (the same values as [`crate::threshold`]'s single
//!    shares, so they combine the same way).
//! 2. Weights `ρ_j ∈ [0, 2^128)` from a `merlin` transcript that binds the protocol name and
//!    version, the session id, the key fingerprint, the party, `L`, every `c_j` and every
//!    `c_{i,j}`.
//! 3. `X = Π_j c_j^{ρ_j}`, `Y = Π_j c_{i,j}^{ρ_j}`, and the Chaum–Pedersen proof of
//!    [`crate::threshold`] for `log_{X⁴} Y² = log_v v_i`: mask `r` of
//!    `|n²| + |Δ| + 256 + 128` bits, `a = X^{4r}`, `b = v^r`, `e` (256 bits) from the same
//!    transcript after it absorbed `X`, `Y`, `v_i`, `a`, `b`; `z = r + e·x` over the integers.
//!    The proof is sent as `(e, z)`.
//!
//! The verifier recomputes the weights, `X` and `Y` (two multi-exponentiations with 128-bit
//! exponents, [`crate::bigint::multi_pow_vartime`], Pippenger's buckets), `a = X^{4z}·Y^{−2e}`, `b = v^z·v_i^{−e}`
//! and the challenge. Per party that is four full-length exponentiations in all, instead
//! of four per ciphertext; the prover does one per ciphertext (the share itself) plus two.
//!
//! # Soundness
//! Write `δ_j = c_{i,j}²·c_j^{−4x} ∈ QR_{n²}` (`x = log_v v_i`, defined because `v`
//! generates `QR_{n²}`). The Chaum–Pedersen proof shows `Y² = X^{4x}`, i.e.
//! `Π_j δ_j^{ρ_j} = 1`. The `δ_j` are fixed before the weights are drawn (the transcript
//! binds every `c_{i,j}`). If some `δ_{j₀} ≠ 1`, its order divides `nm = pp′qq′` and so has
//! a prime factor above `2^{128}` (all four primes are far larger); for any values of the
//! other weights, at most one residue of `ρ_{j₀}` modulo that prime makes the product 1,
//! and `ρ_{j₀} < 2^{128}` hits it with probability `≤ 2^{−128}` (times the number of
//! random-oracle queries). So an accepted batch proves every single share, like `L`
//! separate proofs. A failed batch names its party, so no fallback is needed to find the
//! culprit: the whole batch is that party's statement.
//!
//! Zero knowledge is that of the single-share proof (`z` statistically hides `x` with the
//! 128-bit slack); the weights and `X`, `Y` are public functions of public values.

use crate::bigint::{
    from_be_bytes, is_unit_in_range, mul_mod, multi_pow_vartime, pow_mod_secret, pow_mod_vartime,
    random_bits, to_be_bytes_padded, SecretInteger,
};
use crate::error::PaillierError;
use crate::paillier::Ciphertext;
use crate::threshold::{KeyShare, ThresholdPublicKey, VerifiedDecryptionShare, CHALLENGE_BITS};
use merlin::Transcript;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{Blame, DecodeError, ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use rug::Integer;

/// Bits of each batching weight `ρ_j`.
pub const WEIGHT_BITS: u32 = 128;

/// Most ciphertexts in one batch (a bound for decoders).
pub const MAX_BATCH: usize = 1 << 20;

const PROTOCOL: &[u8] = b"quorate/paillier/threshold-decryption-batch";
const PROTOCOL_VERSION: u16 = 1;
const BATCH_TAG: u8 = 0x55;
const FORMAT_VERSION: u8 = 1;
const CHALLENGE_BYTES: usize = (CHALLENGE_BITS / 8) as usize;

/// One party's decryption shares of a list of ciphertexts with one batched proof `(e, z)`.
#[derive(Clone, PartialEq, Eq)]
pub struct BatchDecryptionShares {
    id: PartyId,
    values: Vec<Integer>,
    e: Integer,
    z: Integer,
}

impl BatchDecryptionShares {
    /// The sender.
    pub fn id(&self) -> PartyId {
        self.id
    }

    /// The shares `c_{i,j} = c_j^{2Δs_i} mod n²`, in ciphertext order.
    pub fn values(&self) -> &[Integer] {
        &self.values
    }

    /// The proof's challenge `e` and response `z`.
    pub fn proof(&self) -> (&Integer, &Integer) {
        (&self.e, &self.z)
    }

    /// Builds a batch from parts (for fault-injection tests and other encodings); nothing is
    /// checked until [`ThresholdPublicKey::verify_batch`].
    pub fn from_parts(id: PartyId, values: Vec<Integer>, e: Integer, z: Integer) -> Self {
        BatchDecryptionShares { id, values, e, z }
    }

    /// The same sender and proof over other share values (for fault-injection tests).
    pub fn with_values(&self, values: Vec<Integer>) -> Self {
        BatchDecryptionShares {
            values,
            ..self.clone()
        }
    }
}

impl core::fmt::Debug for BatchDecryptionShares {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BatchDecryptionShares")
            .field("id", &self.id)
            .field("count", &self.values.len())
            .finish_non_exhaustive()
    }
}

/// The transcript after step 2, and `X⁴`, `Y²`.
struct Batched {
    t: Transcript,
    x4: Integer,
    y2: Integer,
}

fn batch_statement(
    tpk: &ThresholdPublicKey,
    sid: &SessionId,
    id: PartyId,
    cts: &[Ciphertext],
    values: &[Integer],
) -> Result<Batched, PaillierError> {
    let n2 = tpk.encryption_key().n_squared();
    let mut t = Transcript::for_protocol(PROTOCOL, PROTOCOL_VERSION, sid);
    t.append_message(b"key-fingerprint", tpk.fingerprint());
    t.append_party(b"party", id);
    t.append_u64_be(b"count", cts.len() as u64);
    for (c, v) in cts.iter().zip(values) {
        t.append_message(b"ciphertext", &tpk.element_bytes(c.as_integer()));
        t.append_message(b"decryption-share", &tpk.element_bytes(v));
    }
    let mut weights = Vec::with_capacity(cts.len());
    let mut buf = [0u8; (WEIGHT_BITS / 8) as usize];
    for _ in cts {
        t.challenge_bytes(b"weight", &mut buf);
        weights.push(from_be_bytes(&buf));
    }
    let bases: Vec<Integer> = cts.iter().map(|c| c.as_integer().clone()).collect();
    let (x, y) = rayon::join(
        || multi_pow_vartime(&bases, &weights, n2),
        || multi_pow_vartime(values, &weights, n2),
    );
    let (x, y) = (x?, y?);
    let x2 = mul_mod(&x, &x, n2);
    let x4 = mul_mod(&x2, &x2, n2);
    let y2 = mul_mod(&y, &y, n2);
    Ok(Batched { t, x4, y2 })
}

fn challenge(
    tpk: &ThresholdPublicKey,
    mut t: Transcript,
    b: &Batched,
    v_i: &Integer,
    a: &Integer,
    bb: &Integer,
) -> Integer {
    t.append_message(b"batched-ciphertext", &tpk.element_bytes(&b.x4));
    t.append_message(b"batched-share", &tpk.element_bytes(&b.y2));
    t.append_message(b"verification-key", &tpk.element_bytes(v_i));
    t.append_message(b"commitment-a", &tpk.element_bytes(a));
    t.append_message(b"commitment-b", &tpk.element_bytes(bb));
    let mut e = [0u8; CHALLENGE_BYTES];
    t.challenge_bytes(b"challenge", &mut e);
    from_be_bytes(&e)
}

impl KeyShare {
    /// This party's decryption shares of every ciphertext in `cts` with one batched proof,
    /// bound to session `sid` (shares computed in parallel on rayon's pool).
    pub fn decrypt_batch<R: RngCore + CryptoRng>(
        &self,
        tpk: &ThresholdPublicKey,
        sid: &SessionId,
        cts: &[Ciphertext],
        rng: &mut R,
    ) -> Result<BatchDecryptionShares, PaillierError> {
        if cts.len() > MAX_BATCH {
            return Err(ParamError::Invalid("more ciphertexts than MAX_BATCH").into());
        }
        let pk = tpk.encryption_key();
        for c in cts {
            pk.check_ciphertext(c)?;
        }
        let id = self.id();
        let v_i = tpk.verification_key(id).ok_or(ParamError::UnknownParty {
            id,
            n: tpk.params().n(),
        })?;
        let n2 = pk.n_squared();
        let x = SecretInteger::new(Integer::from(tpk.delta() * self.secret().expose()));
        let two_x = SecretInteger::new(Integer::from(x.expose() * 2u32));
        let values = cts
            .par_iter()
            .map(|c| pow_mod_secret(c.as_integer(), two_x.expose(), n2))
            .collect::<Result<Vec<_>, _>>()?;
        let st = batch_statement(tpk, sid, id, cts, &values)?;
        let r = SecretInteger::new(random_bits(rng, tpk.mask_bits()));
        let (a, b) = rayon::join(
            || pow_mod_secret(&st.x4, r.expose(), n2),
            || pow_mod_secret(tpk.v(), r.expose(), n2),
        );
        let (a, b) = (a?, b?);
        let e = challenge(tpk, st.t.clone(), &st, v_i, &a, &b);
        let z = Integer::from(&e * x.expose()) + r.expose();
        Ok(BatchDecryptionShares { id, values, e, z })
    }
}

impl ThresholdPublicKey {
    /// Checks a batch of decryption shares of `cts` in session `sid` and returns one
    /// verified share per ciphertext. Any failure (wrong count, a non-unit share, a proof
    /// out of range or wrong) blames the batch's sender.
    pub fn verify_batch(
        &self,
        sid: &SessionId,
        cts: &[Ciphertext],
        batch: &BatchDecryptionShares,
    ) -> Result<Vec<VerifiedDecryptionShare>, PaillierError> {
        let pk = self.encryption_key();
        for c in cts {
            pk.check_ciphertext(c)?;
        }
        let blame = |check| PaillierError::Aborted(Blame::one(batch.id, check));
        let v_i = self
            .verification_key(batch.id)
            .ok_or_else(|| blame("decryption shares from an unknown party"))?;
        if batch.values.len() != cts.len() {
            return Err(blame("wrong number of decryption shares in the batch"));
        }
        let n2 = pk.n_squared();
        if batch.values.iter().any(|c| !is_unit_in_range(c, n2)) {
            return Err(blame("decryption share is not a unit mod n^2"));
        }
        if batch.e < 0
            || batch.e.significant_bits() > CHALLENGE_BITS
            || batch.z < 0
            || batch.z.significant_bits() > self.z_bits()
        {
            return Err(blame("batched decryption proof out of range"));
        }
        let st = batch_statement(self, sid, batch.id, cts, &batch.values)?;
        let neg_e = Integer::from(-&batch.e);
        let (a, b) = rayon::join(
            || -> Result<Integer, PaillierError> {
                Ok(mul_mod(
                    &pow_mod_vartime(&st.x4, &batch.z, n2)?,
                    &pow_mod_vartime(&st.y2, &neg_e, n2)?,
                    n2,
                ))
            },
            || -> Result<Integer, PaillierError> {
                Ok(mul_mod(
                    &self.v_pow_vartime(&batch.z)?,
                    &pow_mod_vartime(v_i, &neg_e, n2)?,
                    n2,
                ))
            },
        );
        let (a, b) = (
            a.map_err(|_| blame("batched decryption proof"))?,
            b.map_err(|_| blame("batched decryption proof"))?,
        );
        if challenge(self, st.t.clone(), &st, v_i, &a, &b) != batch.e {
            return Err(blame("batched decryption proof"));
        }
        Ok(cts
            .iter()
            .zip(&batch.values)
            .map(|(c, v)| VerifiedDecryptionShare::new(batch.id, v.clone(), c.clone()))
            .collect())
    }

    /// Encodes a batch: `0x55 ‖ version ‖ party ‖ u32 L ‖ L × c_{i,j} ‖ e (32 B) ‖ z`, with
    /// `c_{i,j}` and `z` fixed-length for this key.
    pub fn encode_batch(&self, batch: &BatchDecryptionShares) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(BATCH_TAG, FORMAT_VERSION)
            .party(batch.id)
            .u32(u32::try_from(batch.values.len()).unwrap_or(u32::MAX));
        for v in &batch.values {
            w.bytes(&self.element_bytes(v));
        }
        w.bytes(&to_be_bytes_padded(&batch.e, CHALLENGE_BYTES).unwrap_or_default())
            .bytes(&to_be_bytes_padded(&batch.z, self.z_len()).unwrap_or_default());
        w.into_bytes()
    }

    /// Decodes [`ThresholdPublicKey::encode_batch`] with exactly `count` shares, checking
    /// lengths, the party id, every share `∈ Z_{n²}^*` and the range of `z`. (The proof
    /// itself is checked by [`ThresholdPublicKey::verify_batch`].)
    pub fn decode_batch(
        &self,
        count: usize,
        bytes: &[u8],
    ) -> Result<BatchDecryptionShares, PaillierError> {
        let what = "paillier batched decryption shares";
        let mut r = Reader::new(what, bytes);
        r.header(BATCH_TAG, FORMAT_VERSION)?;
        let id = r.party()?;
        if !self.params().contains(id) {
            return Err(ParamError::UnknownParty {
                id,
                n: self.params().n(),
            }
            .into());
        }
        let got = r.u32()?;
        if usize::try_from(got).ok() != Some(count) || count > MAX_BATCH {
            return Err(DecodeError::InvalidValue {
                what,
                reason: "wrong number of shares",
            }
            .into());
        }
        let len = self.n2_len();
        if r.remaining() < count.saturating_mul(len) {
            return Err(DecodeError::InvalidValue {
                what,
                reason: "truncated",
            }
            .into());
        }
        let mut values = Vec::with_capacity(count);
        for _ in 0..count {
            let v = from_be_bytes(r.take(len)?);
            if !is_unit_in_range(&v, self.encryption_key().n_squared()) {
                return Err(DecodeError::InvalidValue {
                    what,
                    reason: "share is not a unit mod n^2",
                }
                .into());
            }
            values.push(v);
        }
        let e = from_be_bytes(r.take(CHALLENGE_BYTES)?);
        let z = from_be_bytes(r.take(self.z_len())?);
        r.finish()?;
        if z.significant_bits() > self.z_bits() {
            return Err(DecodeError::InvalidValue {
                what,
                reason: "response out of range",
            }
            .into());
        }
        Ok(BatchDecryptionShares { id, values, e, z })
    }

    /// The encoded length of a batch of `count` shares.
    pub fn batch_len(&self, count: usize) -> usize {
        2 + 2 + 4 + count * self.n2_len() + CHALLENGE_BYTES + self.z_len()
    }
}
