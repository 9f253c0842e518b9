//! Batched threshold decryption: one party's decryption shares of a whole list of
//! ciphertexts with **one** proof, and one check of every party's batch at once
//! (issue 17, lever 1).
//!
//! # Protocol
//! Party `i` with secret `x = Δ·s_i` (so `v_i = v^x`) and ciphertexts `c_1 … c_L`:
//! 1. Shares `c_{i,j} = c_j^{2x} mod n²` (the same values as [`crate::threshold`]'s single
//!    shares, so they combine the same way).
//! 2. Weights `ρ_j ∈ [0, 2^128)` from a `merlin` transcript that binds the protocol name and
//!    version, the session id, the key fingerprint, the party, `L`, every `c_j` and every
//!    `c_{i,j}` (Fiat–Shamir over the whole statement).
//! 3. `X = Π_j c_j^{ρ_j}`, `Y = Π_j c_{i,j}^{ρ_j}`, and the Chaum–Pedersen proof of
//!    [`crate::threshold`] for `log_{X⁴} Y² = log_v v_i`: mask `r` of
//!    `|n²| + |Δ| + 256 + 128` bits, `a = X^{4r}`, `b = v^r`, `e` (256 bits) from the same
//!    transcript after it absorbed `X⁴`, `Y²`, `v_i`, `a`, `b`; `z = r + e·x` over the
//!    integers. The proof is sent in **commitment form** `(a, b, z)` (format version 2;
//!    version 1 sent `(e, z)`), so that a checker can combine the equations of every party.
//!
//! # Verification
//! For each batch the checker recomputes the weights, `X⁴` and `Y²` (two
//! multi-exponentiations with 128-bit exponents, [`crate::bigint::multi_pow_vartime`]) and
//! the challenge `e_i` from `a_i`, `b_i`. One party's batch holds when
//!
//! ```text
//! (X_i^{4 z_i})² = (a_i · Y_i^{2 e_i})²   and   (v^{z_i})² = (b_i · v_i^{e_i})²   (mod n²)
//! ```
//!
//! ([`ThresholdPublicKey::verify_batch`]). All parties' batches of one list are checked
//! together ([`ThresholdPublicKey::verify_batches`]) with independent 128-bit weights
//! `β_i, γ_i` drawn by the checker **after** it holds every batch (from its own RNG, so no
//! party can predict them):
//!
//! ```text
//! (Π_i X_i^{4 β_i z_i})² = (Π_i a_i^{β_i} · Y_i^{2 β_i e_i})²
//! (v^{Σ_i γ_i z_i})²     = (Π_i b_i^{γ_i} · v_i^{γ_i e_i})²
//! ```
//!
//! The first is one interleaved multi-exponentiation over the `m` bases `X_i⁴` (the
//! squarings of the ≈ 6.7k-bit exponents are paid once, not once per party), the second one
//! table-backed `v^{Σγz}`; the right-hand sides have exponents of at most 384 bits. If
//! either fails, every batch is checked on its own to name exactly the failing parties
//! (the failing batch is its party's statement, third-party checkable from the published
//! list and batch).
//!
//! # Soundness (the artifact's Mix step "threshold decryption with proofs", Fig. 6; its
//! Bellare–Garay–Rabin batching used 80-bit weights, here 128)
//! Everything below needs the dealer's **safe primes** `p = 2p′ + 1`, `q = 2q′ + 1`
//! ([`crate::threshold`]'s setup assumption): then the squares `QR_{n²}` form a cyclic group
//! of odd order `n·p′q′` whose prime factors `p, q, p′, q′` all exceed `2^{254}` (the smallest key
//! [`crate::threshold::deal`] accepts; `2^{1534}` at `|n| = 3072`), and `v`
//! generates it (the dealer checks its order). With a modulus of another shape `QR_{n²}`
//! could have elements of small order `r`, and a batched check would miss an error of that
//! order with probability `1/r`.
//! * **Comparing squares.** `a`, `b` are arbitrary units, but `A = a²`, `B = b²` lie in
//!   `QR_{n²}`, and so do `X⁴`, `Y²`, `v`, `v_i`. Squaring is a bijection of a group of odd
//!   order, so the squared equations say exactly `X^{4z} = Ã·Y^{2e}`, `v^z = B̃·v_i^e` for
//!   the unique square roots `Ã, B̃ ∈ QR_{n²}` of `A`, `B`, which `a`, `b` fix before `e`
//!   is drawn. This is the Chaum–Pedersen proof of [`crate::threshold`] with first message
//!   `(Ã, B̃)`: two accepting challenges `e ≠ e′` for one `(a, b)` give
//!   `v^{z−z′} = v_i^{e−e′}`, so `z − z′ ≡ x(e − e′) (mod n·p′q′)`, and
//!   `(X^{4x}·Y^{−2})^{e−e′} = 1`; since `|e − e′| < 2^{256}` is prime to the group order,
//!   `Y² = X^{4x}`. So for a false statement at most one challenge per `(a, b)` can be
//!   answered, and the random oracle hits it with probability `2^{−256}` per query. (A
//!   factor of order 2 in `a` or `b` is invisible, as in the single-share proof whose
//!   squarings remove the sign ambiguity.)
//! * **The weights `ρ_j`.** Write `δ_j = c_{i,j}²·c_j^{−4x} ∈ QR_{n²}`. `Y² = X^{4x}` means
//!   `Π_j δ_j^{ρ_j} = 1`. The `δ_j` are fixed before the weights (the transcript binds every
//!   `c_j` and `c_{i,j}`). If some `δ_{j₀} ≠ 1`, its order `o > 2^{128}` (a product of the
//!   primes above); for any values of the other weights, two values `ρ, ρ′ < 2^{128}` of
//!   `ρ_{j₀}` that both give 1 would have `o | ρ − ρ′`, so at most one does, and the
//!   128-bit weight hits it with probability `≤ 2^{−128}` (times the number of
//!   random-oracle queries). So an accepted batch proves every single share
//!   `c_{i,j}² = c_j^{4x}`, like `L` separate proofs.
//! * **The weights `β_i`, `γ_i` across parties.** Write
//!   `w_i = (X_i^{4z_i}·a_i^{−1}·Y_i^{−2e_i})² ∈ QR_{n²}`; the first batched equation is
//!   `Π_i w_i^{β_i} = 1`, and every `w_i` is fixed (a function of the received bytes)
//!   before the checker draws the `β_i`. If some `w_{i₀} ≠ 1`, the same argument leaves at
//!   most one value of `β_{i₀}` (given the others) that passes: probability `≤ 2^{−128}`,
//!   likewise for the second equation and the `γ_i`. In particular errors that two or more
//!   colluding parties choose to cancel (`w_1 = u`, `w_2 = u^{−1}`, which an unweighted
//!   product would accept) leave `u^{β_1−β_2}`, which is 1 only if `β_1 ≡ β_2 (mod ord u)`
//!   (test `colluding_parties_with_cancelling_errors_are_both_named`). Conversely, if every
//!   party's own check holds, every `w_i = 1` and the batch holds: the batch accepts
//!   exactly the lists of batches that the one-by-one checks accept, except with
//!   probability `≤ 2^{−128}` per equation.
//!
//! Zero knowledge is that of the single-share proof (`z` statistically hides `x` with the
//! 128-bit slack; `a`, `b` are what the `(e, z)` form let anyone recompute); the weights and
//! `X`, `Y` are public functions of public values.

use crate::bigint::{
    from_be_bytes, is_unit_in_range, mul_mod, multi_pow_vartime, pow_mod_secret, pow_mod_vartime,
    random_bits, to_be_bytes_padded, SecretInteger,
};
use crate::error::PaillierError;
use crate::paillier::Ciphertext;
use crate::threshold::{
    KeyShare, ThresholdPublicKey, VerifiedDecryptionShare, CHALLENGE_BITS, WEIGHT_BITS,
};
use merlin::Transcript;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::party::check_distinct;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{Blame, DecodeError, ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use rug::Integer;

/// Most ciphertexts in one batch (a bound for decoders).
pub const MAX_BATCH: usize = 1 << 20;

const PROTOCOL: &[u8] = b"quorate/paillier/threshold-decryption-batch";
/// Version 2: the proof travels as `(a, b, z)` and is checked with squared equations.
const PROTOCOL_VERSION: u16 = 2;
const BATCH_TAG: u8 = 0x55;
/// Version 2: `(a, b, z)` instead of `(e, z)`; version-1 bytes are refused.
const FORMAT_VERSION: u8 = 2;
const CHALLENGE_BYTES: usize = (CHALLENGE_BITS / 8) as usize;

/// The check named when a batch fails (its shape, its range checks or its equations).
const CHECK: &str = "batched decryption proof";

/// One party's decryption shares of a list of ciphertexts with one batched proof in
/// commitment form `(a, b, z)`.
#[derive(Clone, PartialEq, Eq)]
pub struct BatchDecryptionShares {
    id: PartyId,
    values: Vec<Integer>,
    a: Integer,
    b: Integer,
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

    /// The proof's first messages `a = X^{4r}`, `b = v^r` and response `z`.
    pub fn proof(&self) -> (&Integer, &Integer, &Integer) {
        (&self.a, &self.b, &self.z)
    }

    /// Builds a batch from parts (for fault-injection tests and other encodings); nothing is
    /// checked until [`ThresholdPublicKey::verify_batch`] / [`ThresholdPublicKey::verify_batches`].
    pub fn from_parts(
        id: PartyId,
        values: Vec<Integer>,
        a: Integer,
        b: Integer,
        z: Integer,
    ) -> Self {
        BatchDecryptionShares {
            id,
            values,
            a,
            b,
            z,
        }
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
    st: &Batched,
    v_i: &Integer,
    a: &Integer,
    b: &Integer,
) -> Integer {
    let mut t = st.t.clone();
    t.append_message(b"batched-ciphertext", &tpk.element_bytes(&st.x4));
    t.append_message(b"batched-share", &tpk.element_bytes(&st.y2));
    t.append_message(b"verification-key", &tpk.element_bytes(v_i));
    t.append_message(b"commitment-a", &tpk.element_bytes(a));
    t.append_message(b"commitment-b", &tpk.element_bytes(b));
    let mut e = [0u8; CHALLENGE_BYTES];
    t.challenge_bytes(b"challenge", &mut e);
    from_be_bytes(&e)
}

/// `x² = y² (mod m)`: equality up to a factor of order at most 2 (see the module notes).
fn squares_equal(x: &Integer, y: &Integer, m: &Integer) -> bool {
    mul_mod(x, x, m) == mul_mod(y, y, m)
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
        let e = challenge(tpk, &st, v_i, &a, &b);
        let z = Integer::from(&e * x.expose()) + r.expose();
        Ok(BatchDecryptionShares {
            id,
            values,
            a,
            b,
            z,
        })
    }
}

/// A batch that passed its shape and range checks, with its recomputed statement
/// (`X⁴`, `Y²`) and challenge `e`.
struct Candidate<'a> {
    batch: &'a BatchDecryptionShares,
    v_i: &'a Integer,
    x4: Integer,
    y2: Integer,
    e: Integer,
}

impl ThresholdPublicKey {
    /// The shape and range checks of one batch and its statement; every failure blames the
    /// batch's sender.
    fn batch_candidate<'a>(
        &'a self,
        sid: &SessionId,
        cts: &[Ciphertext],
        batch: &'a BatchDecryptionShares,
    ) -> Result<Candidate<'a>, PaillierError> {
        let blame = |check| PaillierError::Aborted(Blame::one(batch.id, check));
        let v_i = self
            .verification_key(batch.id)
            .ok_or_else(|| blame("decryption shares from an unknown party"))?;
        if batch.values.len() != cts.len() {
            return Err(blame("wrong number of decryption shares in the batch"));
        }
        let n2 = self.encryption_key().n_squared();
        if batch.values.iter().any(|c| !is_unit_in_range(c, n2)) {
            return Err(blame("decryption share is not a unit mod n^2"));
        }
        if !is_unit_in_range(&batch.a, n2)
            || !is_unit_in_range(&batch.b, n2)
            || batch.z < 0
            || batch.z.significant_bits() > self.z_bits()
        {
            return Err(blame("batched decryption proof out of range"));
        }
        let st = batch_statement(self, sid, batch.id, cts, &batch.values)?;
        let e = challenge(self, &st, v_i, &batch.a, &batch.b);
        Ok(Candidate {
            batch,
            v_i,
            x4: st.x4,
            y2: st.y2,
            e,
        })
    }

    /// One party's equations, squared: `(X⁴)^z = a·(Y²)^e` and `v^z = b·v_i^e` up to factors
    /// of order ≤ 2 (module notes).
    fn candidate_holds(&self, c: &Candidate<'_>) -> bool {
        let n2 = self.encryption_key().n_squared();
        let (x, y) = rayon::join(
            || pow_mod_vartime(&c.x4, &c.batch.z, n2),
            || pow_mod_vartime(&c.y2, &c.e, n2),
        );
        let first = match (x, y) {
            (Ok(x), Ok(y)) => squares_equal(&x, &mul_mod(&c.batch.a, &y, n2), n2),
            _ => false,
        };
        first
            && match (
                self.v_pow_vartime(&c.batch.z),
                pow_mod_vartime(c.v_i, &c.e, n2),
            ) {
                (Ok(v), Ok(vi)) => squares_equal(&v, &mul_mod(&c.batch.b, &vi, n2), n2),
                _ => false,
            }
    }

    /// Every candidate's equations at once, with independent 128-bit weights `β_i`, `γ_i`
    /// from `rng` (module notes): one interleaved multi-exponentiation over the `X_i⁴` with
    /// the long exponents `β_i z_i`, one table-backed `v^{Σγ_i z_i}`, and two
    /// multi-exponentiations with exponents of at most `WEIGHT_BITS + CHALLENGE_BITS` bits.
    fn candidates_hold<R: RngCore + CryptoRng>(
        &self,
        cands: &[Candidate<'_>],
        rng: &mut R,
    ) -> Result<bool, PaillierError> {
        let n2 = self.encryption_key().n_squared();
        let k = cands.len();
        let (mut x_bases, mut x_exps) = (Vec::with_capacity(k), Vec::with_capacity(k));
        let (mut a_bases, mut a_exps) = (Vec::with_capacity(2 * k), Vec::with_capacity(2 * k));
        let (mut b_bases, mut b_exps) = (Vec::with_capacity(2 * k), Vec::with_capacity(2 * k));
        let mut z_sum = Integer::new();
        for c in cands {
            let beta = random_bits(rng, WEIGHT_BITS);
            let gamma = random_bits(rng, WEIGHT_BITS);
            x_bases.push(c.x4.clone());
            x_exps.push(Integer::from(&beta * &c.batch.z));
            // a_i^{β_i} (Y_i²)^{β_i e_i} and b_i^{γ_i} v_i^{γ_i e_i}.
            a_bases.extend([c.batch.a.clone(), c.y2.clone()]);
            let beta_e = Integer::from(&beta * &c.e);
            a_exps.extend([beta, beta_e]);
            b_bases.extend([c.batch.b.clone(), c.v_i.clone()]);
            z_sum += Integer::from(&gamma * &c.batch.z);
            let gamma_e = Integer::from(&gamma * &c.e);
            b_exps.extend([gamma, gamma_e]);
        }
        let ((lhs_a, rhs_a), (lhs_b, rhs_b)) = rayon::join(
            || {
                rayon::join(
                    || multi_pow_vartime(&x_bases, &x_exps, n2),
                    || multi_pow_vartime(&a_bases, &a_exps, n2),
                )
            },
            || {
                rayon::join(
                    || self.v_pow_vartime(&z_sum),
                    || multi_pow_vartime(&b_bases, &b_exps, n2),
                )
            },
        );
        Ok(squares_equal(&lhs_a?, &rhs_a?, n2) && squares_equal(&lhs_b?, &rhs_b?, n2))
    }

    /// Checks one party's batch of decryption shares of `cts` in session `sid` and returns
    /// one verified share per ciphertext. Any failure (wrong count, a non-unit share or
    /// commitment, a response out of range, a failing equation) blames the batch's sender.
    /// To check every party's batch of the same list, [`ThresholdPublicKey::verify_batches`]
    /// is cheaper and accepts the same batches.
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
        let cand = self.batch_candidate(sid, cts, batch)?;
        if !self.candidate_holds(&cand) {
            return Err(PaillierError::Aborted(Blame::one(batch.id, CHECK)));
        }
        Ok(verified_shares(cts, batch))
    }

    /// Checks several parties' batches of decryption shares of the same `cts` at once (one
    /// random linear combination of all their equations, weights from `rng`) and returns
    /// each batch's verified shares, in the order of `batches`. If the combination fails,
    /// every batch is checked on its own; the error then names **every** party whose batch
    /// is malformed or fails its own check ([`PaillierError::Aborted`]), and no one else.
    /// Batches must come from distinct parties.
    pub fn verify_batches<R: RngCore + CryptoRng>(
        &self,
        sid: &SessionId,
        cts: &[Ciphertext],
        batches: &[&BatchDecryptionShares],
        rng: &mut R,
    ) -> Result<Vec<Vec<VerifiedDecryptionShare>>, PaillierError> {
        let pk = self.encryption_key();
        for c in cts {
            pk.check_ciphertext(c)?;
        }
        let ids: Vec<PartyId> = batches.iter().map(|b| b.id).collect();
        check_distinct(&ids)?;
        let results: Vec<_> = batches
            .par_iter()
            .map(|b| self.batch_candidate(sid, cts, b))
            .collect();
        let mut culprits = Vec::new();
        let mut cands = Vec::with_capacity(batches.len());
        for r in results {
            match r {
                Ok(c) => cands.push(c),
                Err(PaillierError::Aborted(b)) => culprits.extend_from_slice(b.culprits()),
                Err(e) => return Err(e),
            }
        }
        if !cands.is_empty() && !self.candidates_hold(&cands, rng).unwrap_or(false) {
            // One by one, only to name the culprits: if every party's own check holds, the
            // combination held too (module notes), so this names at least one party.
            let failed: Vec<PartyId> = cands
                .par_iter()
                .filter(|c| !self.candidate_holds(c))
                .map(|c| c.batch.id)
                .collect();
            culprits.extend(failed);
        }
        if !culprits.is_empty() {
            culprits.sort();
            culprits.dedup();
            return Err(PaillierError::Aborted(Blame::many(culprits, CHECK)));
        }
        Ok(batches.iter().map(|b| verified_shares(cts, b)).collect())
    }

    /// Encodes a batch: `0x55 ‖ version ‖ party ‖ u32 L ‖ L × c_{i,j} ‖ a ‖ b ‖ z`, with
    /// `c_{i,j}`, `a`, `b` (`⌈|n²|/8⌉` bytes each) and `z` fixed-length for this key.
    pub fn encode_batch(&self, batch: &BatchDecryptionShares) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(BATCH_TAG, FORMAT_VERSION)
            .party(batch.id)
            .u32(u32::try_from(batch.values.len()).unwrap_or(u32::MAX));
        for v in &batch.values {
            w.bytes(&self.element_bytes(v));
        }
        w.bytes(&self.element_bytes(&batch.a))
            .bytes(&self.element_bytes(&batch.b))
            .bytes(&to_be_bytes_padded(&batch.z, self.z_len()).unwrap_or_default());
        w.into_bytes()
    }

    /// Decodes [`ThresholdPublicKey::encode_batch`] with exactly `count` shares
    /// (`count ≤ MAX_BATCH`), checking the length against the remaining bytes before
    /// allocating, the party id, every share and both commitments `∈ Z_{n²}^*` and the range
    /// of `z`. (The proof itself is checked by [`ThresholdPublicKey::verify_batch`] or
    /// [`ThresholdPublicKey::verify_batches`].)
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
        if r.remaining() < count.saturating_add(2).saturating_mul(len) {
            return Err(DecodeError::InvalidValue {
                what,
                reason: "truncated",
            }
            .into());
        }
        let n2 = self.encryption_key().n_squared();
        let mut unit = |reason| -> Result<Integer, PaillierError> {
            let v = from_be_bytes(r.take(len)?);
            if !is_unit_in_range(&v, n2) {
                return Err(DecodeError::InvalidValue { what, reason }.into());
            }
            Ok(v)
        };
        let mut values = Vec::with_capacity(count);
        for _ in 0..count {
            values.push(unit("share is not a unit mod n^2")?);
        }
        let a = unit("commitment a is not a unit mod n^2")?;
        let b = unit("commitment b is not a unit mod n^2")?;
        let z = from_be_bytes(r.take(self.z_len())?);
        r.finish()?;
        if z.significant_bits() > self.z_bits() {
            return Err(DecodeError::InvalidValue {
                what,
                reason: "response out of range",
            }
            .into());
        }
        Ok(BatchDecryptionShares {
            id,
            values,
            a,
            b,
            z,
        })
    }

    /// The encoded length of a batch of `count` shares.
    pub fn batch_len(&self, count: usize) -> usize {
        2 + 2 + 4 + (count + 2) * self.n2_len() + self.z_len()
    }
}

fn verified_shares(
    cts: &[Ciphertext],
    batch: &BatchDecryptionShares,
) -> Vec<VerifiedDecryptionShare> {
    cts.iter()
        .zip(&batch.values)
        .map(|(c, v)| VerifiedDecryptionShare::new(batch.id, v.clone(), c.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bigint::{inv_mod, random_below};
    use crate::threshold::deal;
    use quorate_core::error::Culprits;
    use quorate_core::ThresholdParams;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// A cheating prover: honest shares, but first messages `a·u`, `b·u′`, and the honest
    /// response for the challenge of those messages. Its own equations fail by the factors
    /// `u`, `u′`.
    fn prove_with_factors(
        key: &KeyShare,
        tpk: &ThresholdPublicKey,
        sid: &SessionId,
        cts: &[Ciphertext],
        (u, u2): (&Integer, &Integer),
        rng: &mut ChaCha20Rng,
    ) -> BatchDecryptionShares {
        let n2 = tpk.encryption_key().n_squared();
        let x = Integer::from(tpk.delta() * key.secret().expose());
        let values: Vec<Integer> = cts
            .iter()
            .map(|c| pow_mod_vartime(c.as_integer(), &Integer::from(&x * 2u32), n2).expect("unit"))
            .collect();
        let st = batch_statement(tpk, sid, key.id(), cts, &values).expect("statement");
        let r = random_bits(rng, tpk.mask_bits());
        let a = mul_mod(&pow_mod_vartime(&st.x4, &r, n2).expect("pow"), u, n2);
        let b = mul_mod(&pow_mod_vartime(tpk.v(), &r, n2).expect("pow"), u2, n2);
        let v_i = tpk.verification_key(key.id()).expect("party");
        let e = challenge(tpk, &st, v_i, &a, &b);
        let z = Integer::from(&e * &x) + r;
        BatchDecryptionShares::from_parts(key.id(), values, a, b, z)
    }

    /// Review item (issue 17, session 11): two colluding parties choose errors that cancel
    /// in an unweighted product of their equations (`u` and `u^{−1}` in the first, `u′` and
    /// `u′^{−1}` in the second). The unweighted product holds, which shows the errors
    /// really cancel; the check with independent weights still fails, and the one-by-one
    /// fallback names exactly the two colluders, not the honest third party.
    #[test]
    fn colluding_parties_with_cancelling_errors_are_both_named() {
        let mut rng = ChaCha20Rng::seed_from_u64(91);
        let (tpk, keys) =
            deal(ThresholdParams::new(2, 3).expect("params"), 512, &mut rng).expect("deal");
        let pk = tpk.encryption_key();
        let n2 = pk.n_squared();
        let cts: Vec<Ciphertext> = (0..3)
            .map(|_| {
                let m = random_below(&mut rng, pk.n());
                pk.encrypt(&m, &mut rng).expect("encrypt")
            })
            .collect();
        let sid = SessionId::new(b"collusion".to_vec());
        let u = pk
            .encrypt(&Integer::from(5), &mut rng)
            .expect("unit")
            .as_integer()
            .clone();
        let u2 = Integer::from(&u * 3u32) % n2;
        let (u_inv, u2_inv) = (
            inv_mod(&u, n2).expect("unit"),
            inv_mod(&u2, n2).expect("unit"),
        );
        let b1 = prove_with_factors(&keys[0], &tpk, &sid, &cts, (&u, &u2), &mut rng);
        let b2 = prove_with_factors(&keys[1], &tpk, &sid, &cts, (&u_inv, &u2_inv), &mut rng);
        let b3 = keys[2]
            .decrypt_batch(&tpk, &sid, &cts, &mut rng)
            .expect("honest");
        // The unweighted products of the two colluders' equations hold.
        let cands: Vec<Candidate<'_>> = [&b1, &b2]
            .iter()
            .map(|b| tpk.batch_candidate(&sid, &cts, b).expect("well formed"))
            .collect();
        let (mut lhs_a, mut rhs_a, mut lhs_b, mut rhs_b) = (
            Integer::from(1),
            Integer::from(1),
            Integer::from(1),
            Integer::from(1),
        );
        for c in &cands {
            let pow = |b: &Integer, e: &Integer| pow_mod_vartime(b, e, n2).expect("pow");
            lhs_a = mul_mod(&lhs_a, &pow(&c.x4, &c.batch.z), n2);
            rhs_a = mul_mod(&rhs_a, &mul_mod(&c.batch.a, &pow(&c.y2, &c.e), n2), n2);
            lhs_b = mul_mod(&lhs_b, &pow(tpk.v(), &c.batch.z), n2);
            rhs_b = mul_mod(&rhs_b, &mul_mod(&c.batch.b, &pow(c.v_i, &c.e), n2), n2);
            assert!(!tpk.candidate_holds(c), "each colluder fails on its own");
        }
        assert_eq!(lhs_a, rhs_a, "the first errors cancel without weights");
        assert_eq!(lhs_b, rhs_b, "the second errors cancel without weights");
        // With weights they do not.
        assert!(!tpk.candidates_hold(&cands, &mut rng).expect("computed"));
        let err = tpk
            .verify_batches(&sid, &cts, &[&b1, &b2, &b3], &mut rng)
            .expect_err("caught");
        let named: Vec<u16> = err.culprits().iter().map(|p| p.get()).collect();
        assert_eq!(named, vec![1, 2]);
        // The honest parties' batches alone pass.
        assert!(tpk.verify_batches(&sid, &cts, &[&b3], &mut rng).is_ok());
    }
}
