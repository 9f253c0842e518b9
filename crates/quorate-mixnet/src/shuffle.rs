//! Permutation commitments and the Terelius–Wikström commitment-consistent shuffle proof.
//!
//! Notation (output position `i` takes input `π(i)`):
//!
//! * permutation commitment `u_j = g^{r_j} h_{π⁻¹(j)}`, fixed at keygen;
//! * challenge vector `e_j` (128-bit, from the transcript), `e′_i = e_{π(i)}`, so that
//!   `Π u_j^{e_j} = g^{⟨r,e⟩} Π h_i^{e′_i}`;
//! * chain `B_0 = h_0`, `B_i = g^{b_i} B_{i−1}^{e′_i}`, hence `B_n = g^{d} h_0^{Π e_j}`;
//! * Paillier part: outputs `w′_i = w_{π(i)}·h_N^{α_i}` with fixed-base randomness
//!   ([`crate::djn`]: public `h_N = h^N mod N²`, secret `α_i < 2^{⌈|N|/2⌉}`), so
//!   `Π w′_i^{e′_i} = F·h_N^{A}` with `F = Π w_j^{e_j}` and the integer
//!   `A = Σ_i e′_i α_i < 2^{|α| + 128 + 20}` ([`crate::djn::shuffle_witness_bits`]; at most
//!   [`MAX_SENDERS`]` = 2^{20}` terms).
//!
//! Prover commitments `A′ = g^α Π h_i^{ε_i}`, `B′_i = g^{β_i} B_{i−1}^{ε_i}`, `C′ = g^γ`,
//! `D′ = g^δ`, `F′ = Π w′_i^{ε_i}·h_N^{−φ}` with an integer mask `φ` of
//! `|A| + 128 + 40` bits ([`crate::djn::shuffle_mask_bits`]); in the Paillier case also the ring-Pedersen
//! commitment to the permuted exponents `Z = Π s_i^{e′_i}·t^μ mod Ñ` and its first message
//! `Z′ = Π s_i^{ε_i}·t^{μ′} mod Ñ` over the **auxiliary** modulus `Ñ` of
//! [`crate::setup::MixnetPublic::ring_pedersen`] ([`RingPedersenVectorKey`]: trapdoor-free
//! bases `s_1 … s_n, t` hashed into `QR_Ñ`, `|μ| = |Ñ| + 40`, `|μ′| = |μ| + 128 + 40`);
//! 128-bit challenge `v`; responses `k_A = v⟨r,e⟩ + α`, `k_{B,i} = v b_i + β_i`,
//! `k_C = v Σr_j + γ`, `k_D = v d + δ` (mod q), `k_{E,i} = v e′_i + ε_i` over the integers
//! (`ε_i` has 128 + 128 + 40 bits), `k_μ = v μ + μ′` over the integers and
//! `k_F = v·A + φ` over the integers. The verifier checks, with `A = Π u_j^{e_j}`,
//! `C = Π u_j / Π h_j`, `D = B_n / h_0^{Π e_j}`:
//!
//! * `A^v A′ = g^{k_A} Π h_i^{k_{E,i}}`, `B_i^v B′_i = g^{k_{B,i}} B_{i−1}^{k_{E,i}}`,
//!   `C^v C′ = g^{k_C}`, `D^v D′ = g^{k_D}` — all folded into **one** multi-scalar
//!   multiplication with random 128-bit weights (blst Pippenger);
//! * `0 ≤ k_{E,i} < 2^{297}`;
//! * `Z^v Z′ = Π s_i^{k_{E,i}}·t^{k_μ} (mod Ñ)` with `Z, Z′` units and
//!   `0 ≤ k_μ < 2^{|μ′|+1}` — the **same** `k_{E,i}` as in the G1 and Paillier equations;
//! * `0 ≤ k_F < 2^{|φ|+1}` and `F^v F′ h_N^{k_F} = Π w′_i^{k_{E,i}} (mod N²)` (`h_N^{k_F}`
//!   from the fixed-base Yao table).
//!
//! The ring-Pedersen and Paillier equations are compared **up to a factor of order ≤ 2**
//! (both sides squared), so that the batch check of a whole chain of shuffles
//! ([`verify_chain_batch`], which `crate::mix::verify_mixing` runs first) accepts exactly
//! the proofs that [`verify`] accepts; the soundness note below covers the relaxation.
//!
//! The products `Π s_i^{k_{E,i}}`, `Π w_j^{e_j}` and `Π w′_i^{k_{E,i}}` are bucket
//! multi-exponentiations on public data ([`multi_pow_vartime`]); the prover's products
//! `Π w′_i^{ε_i}`, `Π s_i^{e′_i}`, `Π s_i^{ε_i}` are constant-time interleaved
//! multi-exponentiations ([`multi_pow_secret`], issue 17) that give every exponent the same
//! number of windows (the length of `e′_i = e_{π(i)}` would otherwise leak `π`); `t^μ`,
//! `t^{μ′}` and `h_N^φ` read the rows of a comb table fixed by their public bounds
//! (`RingPedersenVectorKey`'s tables of `t`, [`crate::djn`]), and the G1 chain terms
//! `B_i`, `B′_i`, `C′`, `D′` use constant-time fixed-base tables of `g`, `h_0`
//! ([`Generators::g_h0_mul_ct`]), `A′` (and the ElGamal `F′`) interleaved windows with
//! constant-time selects (issue 17, session 14).
//!
//! Without the Paillier part the same protocol is the proof of knowledge of the
//! permutation-commitment opening (TW "restricted shuffle"), run once per mix-server at
//! keygen. The transcript absorbs the session id, the prover id, every generator, the
//! commitment, both ciphertext lists, `N` and `Ñ` before `e`, then every prover commitment
//! (including `Z`, `Z′` and the tag of the base derivation) before `v` (the artifact's
//! transcripts bound none of the lists: defect 6).
//!
//! # Soundness note
//! *G1 part.* In the prime-order group the TW extractor obtains, from accepting transcripts
//! for several `e`, an opening of the permutation commitment to a permutation `π`, and from
//! two transcripts with challenges `v ≠ v*` (same first message) the relation
//! `Δk_{E,i} ≡ Δv·e_{π(i)} (mod q)`.
//!
//! *Why the G1 part alone is not enough.* In `Z*_{N²}` (unknown order) the Paillier equation
//! only gives `(Π w′_i^{Δk_{E,i}}) / F^{Δv} = h_N^{Δk_F}`, an `N`-th residue; to turn it into a relation
//! with exponents `e′_i` the extractor must divide `Δk_{E,i}` by `Δv` over the integers,
//! and nothing in a mod-`q` relation forces `Δv | Δk_{E,i}` (Wikström, "A
//! commitment-consistent proof of a shuffle", ACISP 2009, uses an integer commitment for
//! exactly this).
//!
//! *What the ring-Pedersen commitment adds.* The same two transcripts give
//! `Z^{Δv} = Π s_i^{Δk_{E,i}}·t^{Δk_μ} (mod Ñ)`. Under the strong-RSA assumption for `Ñ`
//! (bases hashed into `QR_Ñ`, random-oracle model; Damgård–Fujisaki 2002, see
//! [`RingPedersenVectorKey`]) this forces `Δv | Δk_{E,i}` and `Δv | Δk_μ`, so the
//! extractor gets integers `e′_i = Δk_{E,i}/Δv` with `Z = ±Π s_i^{e′_i} t^{μ}` (the sign
//! an element of order ≤ 2); by binding they are the same for every pair of challenges,
//! i.e. `Z` fixes `e′` before `v`. Then:
//! 1. *Paillier relation.* `(F^{−1} Π w′_i^{e′_i})^{Δv} = h_N^{Δk_F} = (h^{Δk_F})^N`; since
//!    `0 < |Δv| < 2^{128}` is coprime to `N`, Bézout (`aΔv + bN = 1`) gives an `N`-th root, so
//!    `Π w′_i^{e′_i} = F·R^N` for an explicit `R`. Only "`h_N^{z}` is an `N`-th power for
//!    every integer `z`" is used: the fixed-base randomness and its shorter exponents change
//!    nothing here, and the range check on `k_F` is not needed for soundness (it bounds the
//!    verifier's work and the encoding). `Δk_F` need not be divisible by `Δv`.
//! 2. *Integer equality with the G1 exponents.* `e′_i ≡ e_{π(i)} (mod q)` from the G1 part.
//!    The range check `0 ≤ k_{E,i} < 2^{297}` ([`EPS_BITS`]` + 1` bits) gives
//!    `|Δk_{E,i}| < 2^{297}` and `|e′_i| < 2^{297}/|Δv|`; a prover that succeeds with
//!    probability `ρ` lets the extractor pick the second challenge with `|Δv| ≥ 2^{44}`
//!    except with probability about `2^{45}/(ρ·2^{128})`, so `|e′_i| < 2^{253}`; with
//!    `0 ≤ e_{π(i)} < 2^{128}` the difference `e′_i − e_{π(i)}` is a multiple of `q` of
//!    absolute value below `2^{253} + 2^{128} < 2^{254} < q` (`q ≈ 2^{254.86}`, 255 bits),
//!    hence zero: `e′_i = e_{π(i)}`. (An earlier wording used `|Δv| ≥ 2^{43}` and
//!    `2^{254} + 2^{128} < q`, which also holds for this `q`; a review read `q` as
//!    `2^{253.86}`. The `2^{44}` version keeps a bit of margin below `2^{254}` and is checked
//!    by the unit test `soundness_note_bound_is_below_q`.)
//! 3. *Shuffle.* Hence `Π_j (w′_{π⁻¹(j)}/w_j)^{e_j}` is an `N`-th residue, i.e.
//!    `Σ_j e_j·d_j ≡ 0 (mod N)` for the plaintext differences `d_j`, which were fixed (the
//!    lists are in the transcript) before `e`. If some `d_j ≢ 0` modulo a prime factor `P`
//!    of `N`, at most one residue of `e_j` mod `P` satisfies this for the other `e`'s fixed,
//!    and `e_j` ranges over `2^{128} < P` values: probability `≤ 2^{−128}`. So every output
//!    re-encrypts the input the committed `π` says.
//!
//!
//! *Errors of order ≤ 2* (the relaxed comparisons, issue 17 session 14). If the verifier
//! only knows `X² = Y²`, each accepting transcript carries a factor `τ`, `τ² = 1`, and the
//! ratio of two transcripts a factor `τ″` of order ≤ 2. Paillier: `τ″ = τ″^N` (`N` odd) is
//! an `N`-th power, so `(F^{−1} Π w′_i^{e′_i})^{Δv} = (τ″ h^{Δk_F})^N` and step 1 goes
//! through unchanged. Ring-Pedersen (`Ñ` a product of safe primes, so `−1` is not a
//! square): a `τ″ ∉ {±1}` gives the factor `gcd(τ″ − 1, Ñ)` of `Ñ`; `τ″ = −1` is
//! impossible for an even `Δv` (both sides of `Z^{Δv} = −Π s_i^{Δk_{E,i}} t^{Δk_μ}` would be
//! squares, `−1` is not one) and for an odd `Δv` it is the exact relation for `−Z`, so the
//! strong-RSA argument gives `Δv | Δk_{E,i}` as before, with `Z` replaced by `±Z` (the
//! sign the binding statement above already allows). The opening is unique up to that
//! sign: `Z` and `−Z` cannot both open in `⟨s_i, t⟩ ⊆ QR_Ñ`, because `−1` is not a square
//! mod `Ñ`. This is the argument of the senders' batch ([`crate::sender::check_inputs`]).
//! Because a verifier of this relaxed comparison accepts proofs the exact comparison of
//! transcript version 1 refused (e.g. `−F′` in the transcript), the Paillier shuffle's
//! transcript is version 2: old and new verifiers never disagree silently on one proof.
//!
//! *Assumptions.* Strong RSA for the auxiliary modulus `Ñ = p̃q̃` (two fresh safe primes of
//! the Paillier primes' size), which the keygen dealer generates independently of `N` and
//! erases ([`crate::setup`]'s setup assumption); random oracle for the transcript and the
//! base derivation. No mix-server ever holds anything about `p̃, q̃`: `t` threshold-Paillier
//! shareholders together can recover a multiple of `λ(N)` and factor `N`, which is exactly
//! why the commitment is **not** over `N` (an earlier version was, and a coalition of `t`
//! servers could then open `Z` two ways, pass step 2 with `e′_i ≠ e_{π(i)}` and replace
//! messages undetectably). Over `Ñ` the guarantee holds even if all `m` servers collude
//! (public verifiability); it falls only if `Ñ` is factored (i.e. the dealer cheated or
//! leaked `p̃, q̃`), in which case Wikström's argument above loses step 2 and the Paillier
//! part is no longer sound. The verifier refuses statements with `Ñ = N`, `gcd(Ñ, N) ≠ 1`
//! or `|Ñ| < |N|` ([`check_auxiliary_modulus`]); `Ñ` is in the transcript, so a proof made
//! for one `Ñ` does not verify under another.
//! Hiding (zero knowledge): `k_F = φ + v·A` is within statistical distance `2^{−40}` of
//! uniform on `[0, 2^{|φ|})` (the mask has 128 + 40 bits more than `v·A` can have), and
//! `F′` is determined by `k_F` and the rest, so a simulator picks `k_F` uniformly; that the
//! outputs hide `π` rests on DCR plus DJN's short-exponent assumption ([`crate::djn`]).
//! `t` generates `QR_Ñ` w.h.p. (safe primes), `t^μ` with `40` bits
//! of slack hides `e′` (hence `π`) statistically, and `k_μ`, `k_{E,i}` are statistically
//! masked by `μ′`, `ε_i`.
//!
//! *Cost.* One vector commitment instead of `n` (the proof grows by three `|Ñ|`-bit
//! integers, not `2n`); prover `+n` constant-time exponentiations mod `Ñ` with 128-bit and
//! `+n` with 296-bit exponents (about a third of the Paillier part, whose `Π w′_i^{ε_i}` is
//! mod `N²`); verifier one extra `n`-base multi-exponentiation mod `Ñ` (`|Ñ| = |N|`).

use crate::djn::{self, DjnTables};
use crate::elgamal::{append_ciphertexts, ElGamalCiphertext};
use crate::error::{blame, MixnetError};
use crate::params::{
    int_to_scalar, scalar_modulus, Generators, BATCH_BITS, CHALLENGE_BITS, MAX_SENDERS, SLACK_BITS,
};
use crate::ring_pedersen::{check_auxiliary_modulus, RingPedersenVectorKey, VECTOR_BASES_DST};
use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use merlin::Transcript;
use quorate_core::bls12_381::msm::{g1_msm_vartime, WindowTablesCt};
use quorate_core::bls12_381::wire::{
    g1_from_bytes, g1_to_bytes, scalar_from_bytes, scalar_to_bytes, G1_BYTES, SCALAR_BYTES,
};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{DecodeError, ParamError, PartyId};
use quorate_paillier::bigint::{
    eq_up_to_order_two, inv_mod, is_unit_in_range, mul_mod, multi_pow_secret,
    multi_pow_signed_vartime, multi_pow_vartime, pow_mod_vartime, random_bits, random_unit,
    to_be_bytes_minimal, to_be_bytes_padded, wipe_integer, SecretInteger,
};
use quorate_paillier::rug::integer::Order;
use quorate_paillier::rug::Integer;
use quorate_paillier::{Ciphertext, PublicKey};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

/// Bits of the masks `ε_i`.
pub const EPS_BITS: u32 = BATCH_BITS + CHALLENGE_BITS + SLACK_BITS;

/// A permutation commitment `u_1 … u_n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermutationCommitment {
    /// `u_j`.
    pub u: Vec<G1Projective>,
}

/// The secret behind a permutation commitment (redacted in `Debug`).
#[derive(Clone)]
pub struct PermutationSecret {
    /// `π`: output `i` takes input `pi[i]`.
    pub(crate) pi: Vec<usize>,
    /// `r_j`.
    pub(crate) r: Vec<Scalar>,
}

impl core::fmt::Debug for PermutationSecret {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("PermutationSecret(<redacted>)")
    }
}

impl PermutationSecret {
    /// Samples a uniform permutation of `n` (Fisher–Yates from the CSPRNG) and commits.
    pub fn generate<R: RngCore + CryptoRng>(
        gens: &Generators,
        n: usize,
        rng: &mut R,
    ) -> Result<(Self, PermutationCommitment), MixnetError> {
        if n > gens.n() {
            return Err(ParamError::Invalid("batch larger than the generator set").into());
        }
        let mut pi: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize; // bias < 2^-40 for n < 2^24
            pi.swap(i, j);
        }
        let r: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
        let mut inv = vec![0usize; n];
        for (i, &p) in pi.iter().enumerate() {
            inv[p] = i;
        }
        let g = gens.g;
        let u = (0..n)
            .into_par_iter()
            .map(|j| g * r[j] + gens.hs[inv[j]])
            .collect();
        Ok((PermutationSecret { pi, r }, PermutationCommitment { u }))
    }

    /// The permutation (output `i` takes input `pi()[i]`).
    pub fn pi(&self) -> &[usize] {
        &self.pi
    }
}

/// The Paillier statement of a shuffle: `outputs[i] = inputs[π(i)]·h_N^{α_i}`.
pub struct PaillierShuffle<'a> {
    /// Key.
    pub pk: &'a PublicKey,
    /// The fixed-base tables of `pk`'s `h_N` ([`crate::setup::MixnetPublic::djn`]).
    pub djn: &'a DjnTables,
    /// The auxiliary ring-Pedersen modulus `Ñ` of the vector commitment to `e′`
    /// ([`crate::setup::MixnetPublic::ring_pedersen`]`.n_hat`; never the Paillier `N`, see
    /// the soundness note).
    pub n_hat: &'a Integer,
    /// Input list.
    pub inputs: &'a [Ciphertext],
    /// Output list.
    pub outputs: &'a [Ciphertext],
}

/// The ElGamal statement of a shuffle (DB-SM's re-encryption of signatures):
/// `outputs[i] = inputs[π(i)]·Enc(1; ρ_i)` under the threshold ElGamal key `pk`.
pub struct ElGamalShuffle<'a> {
    /// ElGamal public key.
    pub pk: &'a G1Projective,
    /// Input list.
    pub inputs: &'a [ElGamalCiphertext],
    /// Output list.
    pub outputs: &'a [ElGamalCiphertext],
}

/// The two moduli a Paillier shuffle proof's integers are range-checked against when it is
/// decoded ([`ShuffleProof::from_bytes`]): the Paillier key (`F′` below `N²`, `k_F` below
/// `N`) and the ring-Pedersen modulus `Ñ` (`Z`, `Z′` below `Ñ`, `k_μ` bounded by `|Ñ|`).
#[derive(Clone, Copy, Debug)]
pub struct PaillierModuli<'a> {
    /// The Paillier key of the statement.
    pub pk: &'a PublicKey,
    /// The auxiliary ring-Pedersen modulus `Ñ`.
    pub n_hat: &'a Integer,
}

/// A shuffle proof (or, without the Paillier / ElGamal fields, a permutation-commitment
/// proof).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShuffleProof {
    /// `B_1 … B_n`.
    pub b: Vec<G1Projective>,
    /// `A′`.
    pub a_p: G1Projective,
    /// `B′_1 … B′_n`.
    pub b_p: Vec<G1Projective>,
    /// `C′`.
    pub c_p: G1Projective,
    /// `D′`.
    pub d_p: G1Projective,
    /// `F′` (Paillier part).
    pub f_p: Option<Integer>,
    /// `k_A`.
    pub k_a: Scalar,
    /// `k_{B,i}`.
    pub k_b: Vec<Scalar>,
    /// `k_C`.
    pub k_c: Scalar,
    /// `k_D`.
    pub k_d: Scalar,
    /// `k_{E,i}` (integers).
    pub k_e: Vec<Integer>,
    /// `k_F` (Paillier part).
    pub k_f: Option<Integer>,
    /// `Z = Π s_i^{e′_i}·t^μ mod Ñ`, the ring-Pedersen commitment to the permuted
    /// exponents (Paillier part; see [`RingPedersenVectorKey`]).
    pub rp_z: Option<Integer>,
    /// `Z′ = Π s_i^{ε_i}·t^{μ′} mod Ñ` (Paillier part).
    pub rp_z_p: Option<Integer>,
    /// `k_μ = v·μ + μ′` over the integers (Paillier part).
    pub k_mu: Option<Integer>,
    /// `F′ = Π w′_i^{ε_i}·Enc(1; φ)` (ElGamal part).
    pub f_eg: Option<ElGamalCiphertext>,
    /// `k_F = φ − v·Σ ρ_i e′_i` (ElGamal part).
    pub k_f_eg: Option<Scalar>,
}

/// Type tag of an encoded [`ShuffleProof`] ([`ShuffleProof::to_bytes`]).
pub const SHUFFLE_PROOF_TAG: u8 = 0x6F;
/// Format version of an encoded [`ShuffleProof`].
/// Version 2: `k_F` is the integer response for fixed-base randomness ([`crate::djn`])
/// instead of a unit mod `N`; version-1 bytes are refused.
pub const SHUFFLE_PROOF_VERSION: u8 = 2;

const KIND_PERMUTATION: u8 = 0;
const KIND_PAILLIER: u8 = 1;
const KIND_ELGAMAL: u8 = 2;
const WHAT: &str = "shuffle proof";

fn put_int(w: &mut Writer, x: &Integer) {
    // Callers only encode non-negative integers (every integer of a proof is).
    let bytes = to_be_bytes_minimal(x);
    w.u32(bytes.len() as u32).bytes(&bytes);
}

/// A length-prefixed minimal big-endian non-negative integer of at most `max_bits` bits.
fn get_int(r: &mut Reader<'_>, max_bits: u32) -> Result<Integer, DecodeError> {
    let len = r.u32()? as usize;
    if len > (max_bits as usize).div_ceil(8) {
        return Err(DecodeError::InvalidValue {
            what: WHAT,
            reason: "integer longer than its bound",
        });
    }
    let bytes = r.take(len)?;
    if bytes.first() == Some(&0) {
        return Err(DecodeError::NonCanonical { what: WHAT });
    }
    let x = Integer::from_digits(bytes, Order::Msf);
    if x.significant_bits() > max_bits {
        return Err(DecodeError::InvalidValue {
            what: WHAT,
            reason: "integer exceeds its bit bound",
        });
    }
    Ok(x)
}

/// A unit of `Z_m` in `(0, m)`.
fn get_unit(r: &mut Reader<'_>, m: &Integer) -> Result<Integer, DecodeError> {
    let x = get_int(r, m.significant_bits())?;
    if !is_unit_in_range(&x, m) {
        return Err(DecodeError::InvalidValue {
            what: WHAT,
            reason: "element is not a unit below its modulus",
        });
    }
    Ok(x)
}

fn get_point(r: &mut Reader<'_>) -> Result<G1Projective, DecodeError> {
    g1_from_bytes(WHAT, r.take(G1_BYTES)?)
}

fn get_points(r: &mut Reader<'_>, n: usize) -> Result<Vec<G1Projective>, DecodeError> {
    (0..n).map(|_| get_point(r)).collect()
}

fn get_scalar(r: &mut Reader<'_>) -> Result<Scalar, DecodeError> {
    scalar_from_bytes(WHAT, r.take(SCALAR_BYTES)?)
}

impl ShuffleProof {
    /// Canonical encoding: header, `n` (u32), the kind (0 permutation, 1 Paillier,
    /// 2 ElGamal), compressed G1 points, 32-byte big-endian scalars, and every integer as a
    /// u32 length followed by its minimal big-endian bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(SHUFFLE_PROOF_TAG, SHUFFLE_PROOF_VERSION);
        w.u32(self.b.len() as u32);
        let kind = if self.f_p.is_some() {
            KIND_PAILLIER
        } else if self.f_eg.is_some() {
            KIND_ELGAMAL
        } else {
            KIND_PERMUTATION
        };
        w.bytes(&[kind]);
        for p in &self.b {
            w.bytes(&g1_to_bytes(p));
        }
        w.bytes(&g1_to_bytes(&self.a_p));
        for p in &self.b_p {
            w.bytes(&g1_to_bytes(p));
        }
        w.bytes(&g1_to_bytes(&self.c_p));
        w.bytes(&g1_to_bytes(&self.d_p));
        w.bytes(&scalar_to_bytes(&self.k_a));
        for k in &self.k_b {
            w.bytes(&scalar_to_bytes(k));
        }
        w.bytes(&scalar_to_bytes(&self.k_c));
        w.bytes(&scalar_to_bytes(&self.k_d));
        for k in &self.k_e {
            put_int(&mut w, k);
        }
        let zero = Integer::new();
        match kind {
            KIND_PAILLIER => {
                for x in [&self.f_p, &self.k_f, &self.rp_z, &self.rp_z_p, &self.k_mu] {
                    put_int(&mut w, x.as_ref().unwrap_or(&zero));
                }
            }
            KIND_ELGAMAL => {
                let f = self
                    .f_eg
                    .unwrap_or(ElGamalCiphertext::trivial(G1Projective::identity()));
                w.bytes(&g1_to_bytes(&f.a));
                w.bytes(&g1_to_bytes(&f.b));
                w.bytes(&scalar_to_bytes(&self.k_f_eg.unwrap_or(Scalar::ZERO)));
            }
            _ => {}
        }
        w.into_bytes()
    }

    /// Decodes a proof for exactly `n` elements (`1 ≤ n ≤` [`MAX_SENDERS`]). `pai` must be
    /// the Paillier key and ring-Pedersen modulus of the statement for a Paillier shuffle
    /// proof and `None` otherwise. Every G1 point is checked (on the curve, in the
    /// prime-order subgroup, not the identity), every scalar canonical, every `k_{E,i}`
    /// below `2^{297}`, `F′` a unit below `N²`, `k_F` a unit below `N`, `Z`, `Z′` units
    /// below `Ñ`, `k_μ` within its mask bound (from `|Ñ|`), and no byte may be left over.
    /// Never panics on untrusted input.
    pub fn from_bytes(
        bytes: &[u8],
        n: usize,
        pai: Option<PaillierModuli<'_>>,
    ) -> Result<Self, MixnetError> {
        let pk = pai.map(|m| m.pk);
        let mut r = Reader::new(WHAT, bytes);
        r.header(SHUFFLE_PROOF_TAG, SHUFFLE_PROOF_VERSION)?;
        if n == 0 || n > MAX_SENDERS {
            return Err(ParamError::Invalid("shuffle proof size out of range").into());
        }
        if r.u32()? as usize != n {
            return Err(DecodeError::InvalidValue {
                what: WHAT,
                reason: "element count differs from the expected n",
            }
            .into());
        }
        let [kind] = r.array::<1>()?;
        match (kind, pk.is_some()) {
            (KIND_PAILLIER, true) | (KIND_PERMUTATION | KIND_ELGAMAL, false) => {}
            (KIND_PAILLIER, false) => {
                return Err(DecodeError::InvalidValue {
                    what: WHAT,
                    reason: "a Paillier shuffle proof needs the Paillier key and Ñ",
                }
                .into())
            }
            _ => {
                return Err(DecodeError::InvalidValue {
                    what: WHAT,
                    reason: "unexpected proof kind",
                }
                .into())
            }
        }
        let b = get_points(&mut r, n)?;
        let a_p = get_point(&mut r)?;
        let b_p = get_points(&mut r, n)?;
        let c_p = get_point(&mut r)?;
        let d_p = get_point(&mut r)?;
        let k_a = get_scalar(&mut r)?;
        let k_b = (0..n)
            .map(|_| get_scalar(&mut r))
            .collect::<Result<Vec<_>, _>>()?;
        let k_c = get_scalar(&mut r)?;
        let k_d = get_scalar(&mut r)?;
        let k_e = (0..n)
            .map(|_| get_int(&mut r, EPS_BITS + 1))
            .collect::<Result<Vec<_>, _>>()?;
        let mut proof = ShuffleProof {
            b,
            a_p,
            b_p,
            c_p,
            d_p,
            f_p: None,
            k_a,
            k_b,
            k_c,
            k_d,
            k_e,
            k_f: None,
            rp_z: None,
            rp_z_p: None,
            k_mu: None,
            f_eg: None,
            k_f_eg: None,
        };
        match (kind, pai) {
            (KIND_PAILLIER, Some(PaillierModuli { pk, n_hat })) => {
                check_auxiliary_modulus(n_hat, pk.n())?;
                proof.f_p = Some(get_unit(&mut r, pk.n_squared())?);
                proof.k_f = Some(get_int(&mut r, djn::shuffle_response_bits(pk))?);
                proof.rp_z = Some(get_unit(&mut r, n_hat)?);
                proof.rp_z_p = Some(get_unit(&mut r, n_hat)?);
                // k_μ < 2^{|μ′|+1} with |μ′| = |Ñ| + 40 + 128 + 40.
                let mu_mask_bits = RingPedersenVectorKey::mu_mask_bits_for(n_hat);
                proof.k_mu = Some(get_int(&mut r, mu_mask_bits + 1)?);
            }
            (KIND_ELGAMAL, None) => {
                let a = get_point(&mut r)?;
                let b = get_point(&mut r)?;
                proof.f_eg = Some(ElGamalCiphertext { a, b });
                proof.k_f_eg = Some(get_scalar(&mut r)?);
            }
            _ => {}
        }
        r.finish()?;
        Ok(proof)
    }
}

fn ct_bytes(pk: &PublicKey, c: &Integer) -> Vec<u8> {
    to_be_bytes_padded(c, pk.ciphertext_len()).unwrap_or_default()
}

fn statement_transcript(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    pai: Option<&PaillierShuffle<'_>>,
    eg: Option<&ElGamalShuffle<'_>>,
) -> Transcript {
    let n = com.u.len();
    let mut t = Transcript::for_protocol(
        if pai.is_some() {
            b"quorate/mixnet/tw-shuffle"
        } else if eg.is_some() {
            b"quorate/mixnet/tw-shuffle-elgamal"
        } else {
            b"quorate/mixnet/tw-permutation"
        },
        // The Paillier shuffle's equations are compared up to order 2 since version 2.
        if pai.is_some() { 2 } else { 1 },
        sid,
    );
    t.append_party(b"prover", prover);
    t.append_point(b"g", &gens.g);
    t.append_point(b"h0", &gens.h0);
    t.append_points(b"h_i", gens.hs.get(..n).unwrap_or(&[]));
    t.append_points(b"u", &com.u);
    if let Some(p) = pai {
        t.append_message(b"N", &p.pk.to_bytes());
        // The ring-Pedersen modulus Ñ of the vector commitment (its bases are hashed from Ñ
        // alone, so this pins them).
        t.append_message(b"N~", &to_be_bytes_minimal(p.n_hat));
        t.append_u64_be(b"inputs", p.inputs.len() as u64);
        for c in p.inputs {
            t.append_message(b"w", &ct_bytes(p.pk, c.as_integer()));
        }
        t.append_u64_be(b"outputs", p.outputs.len() as u64);
        for c in p.outputs {
            t.append_message(b"w'", &ct_bytes(p.pk, c.as_integer()));
        }
    }
    if let Some(p) = eg {
        t.append_point(b"pk", p.pk);
        append_ciphertexts(&mut t, b"inputs", p.inputs);
        append_ciphertexts(&mut t, b"outputs", p.outputs);
    }
    t
}

fn challenge_vector(t: &mut Transcript, n: usize, q: &Integer) -> (Vec<Integer>, Vec<Scalar>) {
    let mut buf = vec![0u8; n * (BATCH_BITS as usize / 8)];
    t.challenge_bytes(b"e", &mut buf);
    let ints: Vec<Integer> = buf
        .chunks(BATCH_BITS as usize / 8)
        .map(|c| Integer::from_digits(c, Order::Msf))
        .collect();
    let scalars = ints.iter().map(|x| int_to_scalar(x, q)).collect();
    (ints, scalars)
}

fn absorb_commitments(
    t: &mut Transcript,
    p: &ShuffleProof,
    pai: Option<&PaillierShuffle<'_>>,
) -> Integer {
    t.append_points(b"B", &p.b);
    t.append_point(b"A'", &p.a_p);
    t.append_points(b"B'", &p.b_p);
    t.append_point(b"C'", &p.c_p);
    t.append_point(b"D'", &p.d_p);
    if let (Some(s), Some(f)) = (pai, &p.f_p) {
        t.append_message(b"F'", &ct_bytes(s.pk, f));
    }
    if let Some(s) = pai {
        // The ring-Pedersen bases are a deterministic function of Ñ (already absorbed) and
        // this tag; absorbing the tag pins the derivation.
        t.append_message(b"rp-bases", VECTOR_BASES_DST);
        let len = (s.n_hat.significant_bits() as usize).div_ceil(8);
        for (label, x) in [(&b"Z"[..], &p.rp_z), (&b"Z'"[..], &p.rp_z_p)] {
            let bytes = x
                .as_ref()
                .and_then(|x| to_be_bytes_padded(x, len))
                .unwrap_or_default();
            t.append_message(label, &bytes);
        }
    }
    if let Some(f) = &p.f_eg {
        t.append_point(b"F'_a", &f.a);
        t.append_point(b"F'_b", &f.b);
    }
    let mut v = [0u8; (CHALLENGE_BITS / 8) as usize];
    t.challenge_bytes(b"v", &mut v);
    Integer::from_digits(&v, Order::Msf)
}

/// `x^{−1} mod m` for a secret unit `x`, blinded: `b·(x·b)^{−1}` with a fresh random unit
/// `b`, so the variable-time extended GCD only ever sees a uniform unit.
fn inv_mod_blinded<R: RngCore + CryptoRng>(
    x: &Integer,
    m: &Integer,
    rng: &mut R,
) -> Result<Integer, MixnetError> {
    let b = random_unit(rng, m)?;
    let y = inv_mod(&mul_mod(x, &b, m), m).ok_or(ParamError::Invalid("not a unit"))?;
    Ok(mul_mod(&y, &b, m))
}

/// Proves the shuffle (`pai = Some`, with the randomness `α_i` of output `i`, i.e.
/// `outputs[i] = inputs[π(i)]·h_N^{α_i}`) or the permutation-commitment opening
/// (`pai = None`).
#[allow(clippy::too_many_arguments)]
pub fn prove<R: RngCore + CryptoRng>(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    secret: &PermutationSecret,
    pai: Option<(&PaillierShuffle<'_>, &[SecretInteger])>,
    rng: &mut R,
) -> Result<ShuffleProof, MixnetError> {
    prove_inner(sid, prover, gens, com, secret, pai, None, &secret.pi, rng)
}

/// Proves an ElGamal shuffle against the permutation commitment: `stmt.outputs[i] =
/// stmt.inputs[π(i)]·Enc(1; rho[i])`.
#[allow(clippy::too_many_arguments)]
pub fn prove_elgamal<R: RngCore + CryptoRng>(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    secret: &PermutationSecret,
    stmt: &ElGamalShuffle<'_>,
    rho: &[Scalar],
    rng: &mut R,
) -> Result<ShuffleProof, MixnetError> {
    prove_inner(
        sid,
        prover,
        gens,
        com,
        secret,
        None,
        Some((stmt, rho)),
        &secret.pi,
        rng,
    )
}

#[allow(clippy::too_many_arguments)]
fn prove_inner<R: RngCore + CryptoRng>(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    secret: &PermutationSecret,
    pai: Option<(&PaillierShuffle<'_>, &[SecretInteger])>,
    eg: Option<(&ElGamalShuffle<'_>, &[Scalar])>,
    rp_pi: &[usize],
    rng: &mut R,
) -> Result<ShuffleProof, MixnetError> {
    let n = com.u.len();
    if secret.pi.len() != n
        || secret.r.len() != n
        || rp_pi.len() != n
        || rp_pi.iter().any(|&j| j >= n)
        || gens.n() < n
        || n == 0
    {
        return Err(ParamError::Invalid("shuffle size mismatch").into());
    }
    let q = scalar_modulus();
    let mut t = statement_transcript(
        sid,
        prover,
        gens,
        com,
        pai.map(|(p, _)| p),
        eg.map(|(p, _)| p),
    );
    let (e_int, e) = challenge_vector(&mut t, n, &q);
    let ep: Vec<Scalar> = secret.pi.iter().map(|&j| e[j]).collect();
    let ep_int: Vec<&Integer> = secret.pi.iter().map(|&j| &e_int[j]).collect();
    // Chain in closed form: B_i = g^{d_i} h0^{p_i}.
    let bs: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
    let mut d = Vec::with_capacity(n + 1);
    let mut pprod = Vec::with_capacity(n + 1);
    d.push(Scalar::ZERO);
    pprod.push(Scalar::ONE);
    for i in 0..n {
        d.push(bs[i] + ep[i] * d[i]);
        pprod.push(pprod[i] * ep[i]);
    }
    let g = gens.g;
    // Fixed-base tables of g, h_0 (constant time, [`Generators::g_h0_mul_ct`]).
    let b: Vec<G1Projective> = (1..=n)
        .into_par_iter()
        .map(|i| gens.g_h0_mul_ct(&d[i], &pprod[i]))
        .collect();
    let alpha = Scalar::random(&mut *rng);
    let beta: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
    let gamma = Scalar::random(&mut *rng);
    let delta = Scalar::random(&mut *rng);
    let mut eps_int: Vec<Integer> = (0..n).map(|_| random_bits(rng, EPS_BITS)).collect();
    let eps: Vec<Scalar> = eps_int.iter().map(|x| int_to_scalar(x, &q)).collect();
    // A′ = g^α Π h_i^{ε_i}: interleaved 4-bit windows with constant-time row selects
    // (per-point tables of the public g, h_i, shared doublings).
    let mut pts = vec![g];
    pts.extend_from_slice(gens.hs.get(..n).unwrap_or(&[]));
    let mut sc = vec![alpha];
    sc.extend_from_slice(&eps);
    let a_p = WindowTablesCt::new(&pts).lincomb_ct(0, &sc);
    let b_p: Vec<G1Projective> = (0..n)
        .into_par_iter()
        .map(|i| gens.g_h0_mul_ct(&(beta[i] + eps[i] * d[i]), &(eps[i] * pprod[i])))
        .collect();
    let c_p = gens.g_mul_ct(&gamma);
    let d_p = gens.g_mul_ct(&delta);
    let (f_p, phi) = match pai {
        Some((p, rho)) => {
            if p.outputs.len() != n || p.inputs.len() != n || rho.len() != n {
                return Err(ParamError::Invalid("shuffle list lengths").into());
            }
            check_auxiliary_modulus(p.n_hat, p.pk.n())?;
            if !p.djn.is_for(p.pk) {
                return Err(
                    ParamError::Invalid("fixed-base tables of another Paillier key").into(),
                );
            }
            let n2 = p.pk.n_squared();
            let phi = SecretInteger::new(random_bits(rng, djn::shuffle_mask_bits(p.pk)));
            // Π w′_i^{ε_i}: one constant-time interleaved multi-exponentiation
            // ([`multi_pow_secret`]: every ε_i gets ⌈|ε|/4⌉ windows whatever its length,
            // the squarings shared by all bases).
            let bases: Vec<Integer> = p.outputs.iter().map(|w| w.as_integer().clone()).collect();
            let prod = SecretInteger::new(multi_pow_secret(&bases, &eps_int, EPS_BITS, n2)?);
            // F′ = Π w′_i^{ε_i}·h_N^{−φ} (the inversion of the secret h_N^φ is blinded).
            let h_phi = p
                .djn
                .pow_secret_long(p.pk, &phi, djn::shuffle_mask_bits(p.pk))?;
            let h_phi_inv = inv_mod_blinded(&h_phi, n2, rng)?;
            let f = mul_mod(prod.expose(), &h_phi_inv, n2);
            (Some(f), Some(phi))
        }
        None => (None, None),
    };
    // Ring-Pedersen commitment to the permuted exponents and its Σ-protocol first message
    // (Wikström's integer commitment; see the soundness note). Normally `rp_pi` is `π`.
    let rp = match pai {
        Some((p, _)) => {
            let key = RingPedersenVectorKey::derive(p.n_hat, n)?;
            let committed: Vec<Integer> = rp_pi.iter().map(|&j| e_int[j].clone()).collect();
            let mu = random_bits(rng, key.mu_bits());
            let mu_p = random_bits(rng, key.mu_mask_bits());
            let z = key.commit_secret(&committed, BATCH_BITS, &mu, key.mu_bits())?;
            let z_p = key.commit_secret(&eps_int, EPS_BITS, &mu_p, key.mu_mask_bits())?;
            Some((z, z_p, mu, mu_p))
        }
        None => None,
    };
    let (f_eg, phi_eg) = match eg {
        Some((p, rho)) => {
            if p.outputs.len() != n || p.inputs.len() != n || rho.len() != n {
                return Err(ParamError::Invalid("shuffle list lengths").into());
            }
            let phi = Scalar::random(&mut *rng);
            let mut pa: Vec<G1Projective> = p.outputs.iter().map(|c| c.a).collect();
            let mut pb: Vec<G1Projective> = p.outputs.iter().map(|c| c.b).collect();
            pa.push(g);
            pb.push(*p.pk);
            let mut sc = eps.clone();
            sc.push(phi);
            // Interleaved windows over the public points, constant-time selects.
            let f = ElGamalCiphertext {
                a: WindowTablesCt::new(&pa).lincomb_ct(0, &sc),
                b: WindowTablesCt::new(&pb).lincomb_ct(0, &sc),
            };
            (Some(f), Some(phi))
        }
        None => (None, None),
    };
    let mut proof = ShuffleProof {
        b,
        a_p,
        b_p,
        c_p,
        d_p,
        f_p,
        k_a: Scalar::ZERO,
        k_b: Vec::new(),
        k_c: Scalar::ZERO,
        k_d: Scalar::ZERO,
        k_e: Vec::new(),
        k_f: None,
        rp_z: rp.as_ref().map(|r| r.0.clone()),
        rp_z_p: rp.as_ref().map(|r| r.1.clone()),
        k_mu: None,
        f_eg,
        k_f_eg: None,
    };
    let v_int = absorb_commitments(&mut t, &proof, pai.map(|(p, _)| p));
    let v = int_to_scalar(&v_int, &q);
    let re: Scalar = secret.r.iter().zip(&e).map(|(r, e)| *r * e).sum();
    let rsum: Scalar = secret.r.iter().sum();
    proof.k_a = v * re + alpha;
    proof.k_b = bs.iter().zip(&beta).map(|(b, be)| v * b + be).collect();
    proof.k_c = v * rsum + gamma;
    proof.k_d = v * d[n] + delta;
    proof.k_e = ep_int
        .iter()
        .zip(&eps_int)
        .map(|(e, x)| Integer::from(&v_int * *e) + x)
        .collect();
    if let (Some((_, alpha)), Some(phi)) = (pai, phi) {
        // k_F = φ + v·A over the integers, A = Σ_i e′_i·α_i (fixed-length operands: the
        // 128-bit e′_i and the |α|-bit α_i occupy full limbs except with probability
        // 2^{−64}, so the products' timing does not reveal π).
        let mut big_a = SecretInteger::new(Integer::new());
        for (a, e) in alpha.iter().zip(&ep_int) {
            let t = SecretInteger::new(Integer::from(a.expose() * *e));
            big_a = SecretInteger::new(Integer::from(big_a.expose() + t.expose()));
        }
        let va = SecretInteger::new(Integer::from(&v_int * big_a.expose()));
        proof.k_f = Some(Integer::from(phi.expose() + va.expose()));
    }
    if let Some((_, _, mut mu, mut mu_p)) = rp {
        proof.k_mu = Some(Integer::from(&v_int * &mu) + &mu_p);
        wipe_integer(&mut mu);
        wipe_integer(&mut mu_p);
    }
    for x in eps_int.iter_mut() {
        wipe_integer(x);
    }
    if let (Some((_, rho)), Some(phi)) = (eg, phi_eg) {
        let big_r: Scalar = rho.iter().zip(&ep).map(|(r, e)| *r * e).sum();
        proof.k_f_eg = Some(phi - v * big_r);
    }
    Ok(proof)
}

/// Verifies a shuffle proof (or a permutation-commitment proof when `pai` is `None`).
/// Failure blames `prover`.
pub fn verify(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    pai: Option<&PaillierShuffle<'_>>,
    proof: &ShuffleProof,
) -> Result<(), MixnetError> {
    verify_inner(sid, prover, gens, com, pai, None, proof)
}

/// Verifies an ElGamal shuffle proof; failure blames `prover`.
pub fn verify_elgamal(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    stmt: &ElGamalShuffle<'_>,
    proof: &ShuffleProof,
) -> Result<(), MixnetError> {
    verify_inner(sid, prover, gens, com, None, Some(stmt), proof)
}

/// What the cheap part of a verification leaves for the equations: the challenge vector and
/// the challenge of one proof, recomputed from its transcript.
struct Prechecked {
    e_int: Vec<Integer>,
    e: Vec<Scalar>,
    v_int: Integer,
    v: Scalar,
    ke: Vec<Scalar>,
}

/// Shapes, ranges, units and the transcript of one proof (no exponentiation but the hash).
fn precheck(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    pai: Option<&PaillierShuffle<'_>>,
    eg: Option<&ElGamalShuffle<'_>>,
    proof: &ShuffleProof,
) -> Result<Prechecked, MixnetError> {
    let n = com.u.len();
    let bad = |check| Err(blame(prover, check));
    if n == 0
        || gens.n() < n
        || proof.b.len() != n
        || proof.b_p.len() != n
        || proof.k_b.len() != n
        || proof.k_e.len() != n
    {
        return bad("shuffle proof has the wrong shape");
    }
    if pai.is_some() != proof.f_p.is_some()
        || pai.is_some() != proof.k_f.is_some()
        || pai.is_some() != proof.rp_z.is_some()
        || pai.is_some() != proof.rp_z_p.is_some()
        || pai.is_some() != proof.k_mu.is_some()
        || eg.is_some() != proof.f_eg.is_some()
        || eg.is_some() != proof.k_f_eg.is_some()
    {
        return bad("shuffle proof has the wrong shape");
    }
    if let Some(p) = eg {
        if p.inputs.len() != n || p.outputs.len() != n {
            return bad("shuffle list lengths");
        }
    }
    if let Some(p) = pai {
        // The statement's Ñ must be an auxiliary modulus, not N (whose factorisation t
        // shareholders can recover) — a public-parameter error, nobody's misbehaviour.
        check_auxiliary_modulus(p.n_hat, p.pk.n())?;
        if !p.djn.is_for(p.pk) {
            return Err(ParamError::Invalid("fixed-base tables of another Paillier key").into());
        }
    }
    if proof
        .k_e
        .iter()
        .any(|k| *k < 0 || k.significant_bits() > EPS_BITS + 1)
    {
        return bad("shuffle proof response out of range");
    }
    if let (Some(p), Some(f_p), Some(k_f), Some(z), Some(z_p), Some(k_mu)) = (
        pai,
        &proof.f_p,
        &proof.k_f,
        &proof.rp_z,
        &proof.rp_z_p,
        &proof.k_mu,
    ) {
        if p.inputs.len() != n || p.outputs.len() != n {
            return bad("shuffle list lengths");
        }
        if !is_unit_in_range(f_p, p.pk.n_squared())
            || *k_f < 0
            || k_f.significant_bits() > djn::shuffle_response_bits(p.pk)
        {
            return bad("shuffle proof Paillier element out of range");
        }
        if !is_unit_in_range(z, p.n_hat)
            || !is_unit_in_range(z_p, p.n_hat)
            || *k_mu < 0
            || k_mu.significant_bits() > RingPedersenVectorKey::mu_mask_bits_for(p.n_hat) + 1
        {
            return bad("shuffle proof: ring-Pedersen commitment equation");
        }
    }
    let q = scalar_modulus();
    let mut t = statement_transcript(sid, prover, gens, com, pai, eg);
    let (e_int, e) = challenge_vector(&mut t, n, &q);
    let v_int = absorb_commitments(&mut t, proof, pai);
    let v = int_to_scalar(&v_int, &q);
    let ke = proof.k_e.iter().map(|k| int_to_scalar(k, &q)).collect();
    Ok(Prechecked {
        e_int,
        e,
        v_int,
        v,
        ke,
    })
}

/// Appends the G1 equations of one proof to a multi-scalar multiplication that must sum to
/// the identity, each equation weighted by a fresh 128-bit `λ` from `OsRng`:
/// `λ_A·(A^v A′ g^{-k_A} Π h^{-k_E}) + λ_C·(C^v C′ g^{-k_C}) + λ_D·(D^v D′ g^{-k_D})
/// + Σ λ_i (B_i^v B′_i g^{-k_B} B_{i-1}^{-k_E})` (+ the ElGamal part); the coefficients of
/// `g` and `h_0` are accumulated in `g_coef`, `h0_coef` (shared by every proof of a batch).
#[allow(clippy::too_many_arguments)]
fn push_g1_terms(
    gens: &Generators,
    com: &PermutationCommitment,
    eg: Option<&ElGamalShuffle<'_>>,
    proof: &ShuffleProof,
    pre: &Prechecked,
    pts: &mut Vec<G1Projective>,
    sc: &mut Vec<Scalar>,
    g_coef: &mut Scalar,
    h0_coef: &mut Scalar,
) {
    let n = com.u.len();
    let q = scalar_modulus();
    let (e, v, ke) = (&pre.e, pre.v, &pre.ke);
    let eprod: Scalar = e.iter().product();
    let hs = gens.hs.get(..n).unwrap_or(&[]);
    let mut rng = OsRng;
    let lam = |rng: &mut OsRng| {
        let x = random_bits(rng, BATCH_BITS);
        int_to_scalar(&x, &q)
    };
    let (la, lc, ld) = (lam(&mut rng), lam(&mut rng), lam(&mut rng));
    let li: Vec<Scalar> = (0..n).map(|_| lam(&mut rng)).collect();
    *g_coef -= la * proof.k_a + lc * proof.k_c + ld * proof.k_d;
    // A = Π u^e; C = Π u / Π h.
    for j in 0..n {
        pts.push(com.u[j]);
        sc.push(la * v * e[j] + lc * v);
        pts.push(hs[j]);
        sc.push(-(la * ke[j]) - lc * v);
    }
    pts.push(proof.a_p);
    sc.push(la);
    pts.push(proof.c_p);
    sc.push(lc);
    // D = B_n / h0^{Π e}.
    pts.push(proof.b[n - 1]);
    sc.push(ld * v);
    *h0_coef -= ld * v * eprod;
    pts.push(proof.d_p);
    sc.push(ld);
    for i in 0..n {
        pts.push(proof.b[i]);
        sc.push(li[i] * v);
        pts.push(proof.b_p[i]);
        sc.push(li[i]);
        *g_coef -= li[i] * proof.k_b[i];
        if i == 0 {
            *h0_coef -= li[i] * ke[i];
        } else {
            pts.push(proof.b[i - 1]);
            sc.push(-(li[i] * ke[i]));
        }
    }
    // ElGamal part, both components: Σ k_{E,i} w′_i − v Σ e_j w_j − F′ + k_F·(g, pk) = 0.
    if let (Some(p), Some(f), Some(k_f)) = (eg, &proof.f_eg, &proof.k_f_eg) {
        let (l0, l1) = (lam(&mut rng), lam(&mut rng));
        for i in 0..n {
            pts.push(p.outputs[i].a);
            sc.push(l0 * ke[i]);
            pts.push(p.outputs[i].b);
            sc.push(l1 * ke[i]);
            pts.push(p.inputs[i].a);
            sc.push(-(l0 * v * e[i]));
            pts.push(p.inputs[i].b);
            sc.push(-(l1 * v * e[i]));
        }
        pts.push(f.a);
        sc.push(-l0);
        pts.push(f.b);
        sc.push(-l1);
        *g_coef += l0 * k_f;
        pts.push(*p.pk);
        sc.push(l1 * k_f);
    }
}

fn verify_inner(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    pai: Option<&PaillierShuffle<'_>>,
    eg: Option<&ElGamalShuffle<'_>>,
    proof: &ShuffleProof,
) -> Result<(), MixnetError> {
    let bad = |check| Err(blame(prover, check));
    let pre = precheck(sid, prover, gens, com, pai, eg, proof)?;
    let n = com.u.len();
    let mut pts: Vec<G1Projective> = Vec::with_capacity(5 * n + 6);
    let mut sc: Vec<Scalar> = Vec::with_capacity(5 * n + 6);
    let (mut g_coef, mut h0_coef) = (Scalar::ZERO, Scalar::ZERO);
    push_g1_terms(
        gens,
        com,
        eg,
        proof,
        &pre,
        &mut pts,
        &mut sc,
        &mut g_coef,
        &mut h0_coef,
    );
    pts.push(gens.g);
    sc.push(g_coef);
    pts.push(gens.h0);
    sc.push(h0_coef);
    if !bool::from(g1_msm_vartime(&pts, &sc).is_identity()) {
        return bad("shuffle proof: commitment equations");
    }
    if let (Some(p), Some(f_p), Some(k_f), Some(z), Some(z_p), Some(k_mu)) = (
        pai,
        &proof.f_p,
        &proof.k_f,
        &proof.rp_z,
        &proof.rp_z_p,
        &proof.k_mu,
    ) {
        let n2 = p.pk.n_squared();
        // Z^v Z′ = Π s_i^{k_{E,i}} t^{k_μ} (mod Ñ) up to a factor of order ≤ 2, with the
        // same k_{E,i} as the G1 and Paillier equations (units and the range of k_μ checked
        // in the precheck).
        let key = RingPedersenVectorKey::derive(p.n_hat, n)
            .map_err(|_| blame(prover, "shuffle proof: ring-Pedersen bases underivable"))?;
        if !key.check_response_vartime(z, z_p, &pre.v_int, &proof.k_e, k_mu) {
            return bad("shuffle proof: ring-Pedersen commitment equation");
        }
        let prod = |ws: &[Ciphertext], ex: &[Integer]| -> Result<Integer, MixnetError> {
            let bases: Vec<Integer> = ws.iter().map(|w| w.as_integer().clone()).collect();
            Ok(multi_pow_vartime(&bases, ex, n2)?)
        };
        let f = prod(p.inputs, &pre.e_int)?;
        // F^v·F′·h_N^{k_F} = Π w′_i^{k_{E,i}}, up to a factor of order ≤ 2.
        let lhs = mul_mod(
            &mul_mod(&pow_mod_vartime(&f, &pre.v_int, n2)?, f_p, n2),
            &p.djn.pow_public_vartime(k_f)?,
            n2,
        );
        let rhs = prod(p.outputs, &proof.k_e)?;
        if !eq_up_to_order_two(&lhs, &rhs, n2) {
            return bad("shuffle proof: Paillier equation");
        }
    }
    Ok(())
}

/// One Paillier shuffle of a chain ([`verify_chain_batch`]): its prover, permutation
/// commitment, output list and proof; its input list is the previous link's output list
/// (the chain's inputs for the first link).
#[derive(Clone, Copy, Debug)]
pub struct ChainLink<'a> {
    /// The prover.
    pub prover: PartyId,
    /// Its permutation commitment.
    pub com: &'a PermutationCommitment,
    /// Its output list.
    pub outputs: &'a [Ciphertext],
    /// Its shuffle proof.
    pub proof: &'a ShuffleProof,
}

/// Batch verification of a chain of Paillier shuffle proofs (the Mix, issue 17 session 14):
/// `true` if every link's proof verifies as [`verify`] would accept it, except with
/// probability at most `2^{−128}`; `false` if any precheck fails or a weighted product does
/// not hold — the caller then runs [`verify`] on each link in order to name the first
/// failing prover. Public data only (variable time).
///
/// After each link's shapes, ranges, units and transcript ([`verify`]'s precheck), three
/// weighted products replace the `3m` equations of `m` separate checks:
/// * G1: the equations of every link in one multi-scalar multiplication (each already
///   carries its own fresh 128-bit weights, a prime-order group: checked exactly);
/// * ring-Pedersen, one weight `β_k` per link (the bases `s_i, t` depend only on `Ñ` and
///   `n`, so they are shared by every link):
///   `[Π_k (Z_k^{v_k} Z′_k)^{β_k}]² = [Π_i s_i^{Σ_k β_k k_{E,k,i}}·t^{Σ_k β_k k_{μ,k}}]² (mod Ñ)`;
/// * Paillier, one weight `γ_k` per link; with the lists `L_0` (the chain's inputs) …
///   `L_m`, link `k` shuffling `L_{k−1}` into `L_k`:
///   `[Π_k F′_k^{γ_k}·h_N^{Σ_k γ_k k_{F,k}}]² = [Π_ℓ Π_j L_{ℓ,j}^{x_{ℓ,j}}]² (mod N²)` with
///   `x_{ℓ,j} = γ_ℓ k_{E,ℓ,j} − γ_{ℓ+1} v_{ℓ+1} e_{ℓ+1,j}` (a term absent at the ends),
///   i.e. link `k`'s `F_k^{v_k} = Π_j L_{k−1,j}^{v_k e_{k,j}}` and the next link's
///   `Π_i L_{k,i}^{k_{E,k,i}}` share their bases: one signed multi-exponentiation over
///   `(m + 1)·n` bases ([`multi_pow_signed_vartime`]) instead of `2m` over `n` bases each,
///   one `h_N^{·}` instead of `m`.
///
/// *Why it accepts exactly what [`verify`] accepts.* [`verify`] compares its
/// ring-Pedersen and Paillier equations up to a factor of order ≤ 2 (squares), so a link
/// it accepts contributes a factor `τ` with `τ² = 1` to each weighted product and the
/// squared products hold. Conversely, if some link's squared error `X_k² ≠ 1`, then
/// `X_k²` lies in a subgroup whose order has no prime factor below `2^{128}` (`N·p′q′`
/// mod `N²`, `p̃′q̃′` mod `Ñ`, the dealer's safe primes: the note on
/// [`crate::sharing`]'s `batch_links`), and the product with independent 128-bit weights
/// from `OsRng`, unknown to every prover when it answered, is 1 with probability at most
/// `2^{−128}` (Bellare–Garay–Rabin small-exponent test), whatever the other links'
/// errors, colluding provers' cancelling errors included. Soundness of the relaxed
/// single equations: see the module's soundness note, step 1 and the ring-Pedersen part.
pub fn verify_chain_batch(
    sid: &SessionId,
    gens: &Generators,
    pk: &PublicKey,
    djn: &DjnTables,
    n_hat: &Integer,
    inputs: &[Ciphertext],
    links: &[ChainLink<'_>],
) -> bool {
    chain_batch(sid, gens, pk, djn, n_hat, inputs, links).unwrap_or(false)
}

fn chain_batch(
    sid: &SessionId,
    gens: &Generators,
    pk: &PublicKey,
    djn: &DjnTables,
    n_hat: &Integer,
    inputs: &[Ciphertext],
    links: &[ChainLink<'_>],
) -> Result<bool, MixnetError> {
    let Some(first) = links.first() else {
        return Ok(true);
    };
    let n = first.com.u.len();
    if n == 0 || inputs.len() != n || links.iter().any(|l| l.com.u.len() != n) {
        return Ok(false);
    }
    let lists: Vec<&[Ciphertext]> = core::iter::once(inputs)
        .chain(links.iter().map(|l| l.outputs))
        .collect();
    let stmts: Vec<PaillierShuffle<'_>> = links
        .iter()
        .enumerate()
        .map(|(k, _)| PaillierShuffle {
            pk,
            djn,
            n_hat,
            inputs: lists[k],
            outputs: lists[k + 1],
        })
        .collect();
    let pre: Vec<Prechecked> = match links
        .par_iter()
        .zip(stmts.par_iter())
        .map(|(l, s)| precheck(sid, l.prover, gens, l.com, Some(s), None, l.proof))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(p) => p,
        Err(_) => return Ok(false),
    };
    // Every Paillier field is present (the precheck compared the shape with the statement).
    let field = |x: &Option<Integer>| x.clone().ok_or(ParamError::Invalid("shuffle proof shape"));
    // G1: every link's weighted equations in one MSM.
    let mut pts: Vec<G1Projective> = Vec::with_capacity(links.len() * (5 * n + 4) + 2);
    let mut sc: Vec<Scalar> = Vec::with_capacity(pts.capacity());
    let (mut g_coef, mut h0_coef) = (Scalar::ZERO, Scalar::ZERO);
    for (l, p) in links.iter().zip(&pre) {
        push_g1_terms(
            gens,
            l.com,
            None,
            l.proof,
            p,
            &mut pts,
            &mut sc,
            &mut g_coef,
            &mut h0_coef,
        );
    }
    pts.push(gens.g);
    sc.push(g_coef);
    pts.push(gens.h0);
    sc.push(h0_coef);
    let mut rng = OsRng;
    let beta: Vec<Integer> = links
        .iter()
        .map(|_| random_bits(&mut rng, BATCH_BITS))
        .collect();
    let gamma: Vec<Integer> = links
        .iter()
        .map(|_| random_bits(&mut rng, BATCH_BITS))
        .collect();
    let (g1_ok, rest) = rayon::join(
        || bool::from(g1_msm_vartime(&pts, &sc).is_identity()),
        || -> Result<bool, MixnetError> {
            // Ring-Pedersen: [Π_k (Z_k^{v_k} Z′_k)^{β_k}]² = [Π_i s_i^{Σβk_E} t^{Σβk_μ}]².
            let key = RingPedersenVectorKey::derive(n_hat, n)?;
            let mut zs = Vec::with_capacity(2 * links.len());
            let mut z_exps = Vec::with_capacity(2 * links.len());
            let mut s_exps = vec![Integer::new(); n];
            let mut t_exp = Integer::new();
            for ((l, p), b) in links.iter().zip(&pre).zip(&beta) {
                zs.push(field(&l.proof.rp_z)?);
                z_exps.push(Integer::from(b * &p.v_int));
                zs.push(field(&l.proof.rp_z_p)?);
                z_exps.push(b.clone());
                for (acc, k) in s_exps.iter_mut().zip(&l.proof.k_e) {
                    *acc += Integer::from(b * k);
                }
                t_exp += Integer::from(b * &field(&l.proof.k_mu)?);
            }
            let lhs = multi_pow_vartime(&zs, &z_exps, n_hat)?;
            let rhs = mul_mod(
                &multi_pow_vartime(&key.s, &s_exps, n_hat)?,
                &key.t_pow_vartime(&t_exp)?,
                n_hat,
            );
            if !eq_up_to_order_two(&lhs, &rhs, n_hat) {
                return Ok(false);
            }
            // Paillier: [Π_k F′_k^{γ_k} h_N^{Σγ_k k_F}]² = [Π_ℓ Π_j L_{ℓ,j}^{x_{ℓ,j}}]².
            let n2 = pk.n_squared();
            let m = links.len();
            let mut bases = Vec::with_capacity((m + 1) * n);
            let mut exps = Vec::with_capacity((m + 1) * n);
            for (ell, list) in lists.iter().enumerate() {
                for (j, w) in list.iter().enumerate() {
                    let mut x = Integer::new();
                    if ell >= 1 {
                        x += Integer::from(&gamma[ell - 1] * &links[ell - 1].proof.k_e[j]);
                    }
                    if ell < m {
                        let gv = Integer::from(&gamma[ell] * &pre[ell].v_int);
                        x -= gv * &pre[ell].e_int[j];
                    }
                    bases.push(w.as_integer().clone());
                    exps.push(x);
                }
            }
            let mut fs = Vec::with_capacity(m);
            let mut k_f_sum = Integer::new();
            for (l, g) in links.iter().zip(&gamma) {
                fs.push(field(&l.proof.f_p)?);
                k_f_sum += Integer::from(g * &field(&l.proof.k_f)?);
            }
            let (lists_prod, f_prod) = rayon::join(
                || multi_pow_signed_vartime(&bases, &exps, n2),
                || multi_pow_vartime(&fs, &gamma, n2),
            );
            let lhs = mul_mod(&f_prod?, &djn.pow_public_any_vartime(&k_f_sum)?, n2);
            Ok(eq_up_to_order_two(&lhs, &lists_prod?, n2))
        },
    );
    Ok(g1_ok && rest?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use quorate_core::error::Culprits;
    use quorate_paillier::primes::generate_safe_prime;
    use quorate_paillier::SecretKey;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// The integer bound of the soundness note (step 2): `2^{EPS_BITS+1−44} + 2^{128} < q`
    /// and below `2^{254}`, and `q` has 255 bits.
    #[test]
    fn soundness_note_bound_is_below_q() {
        let q = scalar_modulus();
        assert_eq!(q.significant_bits(), 255);
        let e_prime = Integer::from(1) << (EPS_BITS + 1 - 44);
        let diff = e_prime + (Integer::from(1) << CHALLENGE_BITS);
        assert!(diff < (Integer::from(1) << 254u32));
        assert!(diff < q);
    }

    struct Fixture {
        sid: SessionId,
        id: PartyId,
        gens: Generators,
        com: PermutationCommitment,
        secret: PermutationSecret,
        pk: PublicKey,
        n_hat: Integer,
        inputs: Vec<Ciphertext>,
        outputs: Vec<Ciphertext>,
        alpha: Vec<SecretInteger>,
        djn: DjnTables,
    }

    /// A Paillier shuffle of `n` fresh encryptions whose outputs follow `sigma` (normally
    /// the committed `π`).
    fn fixture(n: usize, seed: u64, sigma: Option<Vec<usize>>) -> (Fixture, ChaCha20Rng) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let sk = SecretKey::generate(1024, &mut rng).unwrap();
        let pk = sk.public_key().clone();
        // An independent auxiliary modulus of N's size (two fresh 512-bit safe primes).
        let n_hat = generate_safe_prime(512, &mut rng).unwrap()
            * generate_safe_prime(512, &mut rng).unwrap();
        let gens = Generators::derive(n);
        let (secret, com) = PermutationSecret::generate(&gens, n, &mut rng).unwrap();
        let inputs: Vec<Ciphertext> = (0..n)
            .map(|i| pk.encrypt(&Integer::from(100 + i), &mut rng).unwrap())
            .collect();
        let djn = DjnTables::new(&pk).unwrap();
        let alpha: Vec<SecretInteger> = (0..n).map(|_| djn.random_alpha(&mut rng)).collect();
        let sigma = sigma.unwrap_or_else(|| secret.pi.clone());
        let outputs = sigma
            .iter()
            .zip(&alpha)
            .map(|(&j, a)| {
                let r = djn.pow_randomness(a).unwrap();
                let w = mul_mod(inputs[j].as_integer(), &r, pk.n_squared());
                pk.ciphertext_from_integer(w).unwrap()
            })
            .collect();
        let f = Fixture {
            sid: SessionId::new(b"shuffle-unit".to_vec()),
            id: PartyId::new(3).unwrap(),
            gens,
            com,
            secret,
            pk,
            n_hat,
            inputs,
            outputs,
            alpha,
            djn,
        };
        (f, rng)
    }

    fn stmt(f: &Fixture) -> PaillierShuffle<'_> {
        PaillierShuffle {
            pk: &f.pk,
            djn: &f.djn,
            n_hat: &f.n_hat,
            inputs: &f.inputs,
            outputs: &f.outputs,
        }
    }

    /// An honest Paillier-shuffle proof for the fixture.
    fn prove_f(f: &Fixture, rng: &mut ChaCha20Rng) -> ShuffleProof {
        prove(
            &f.sid,
            f.id,
            &f.gens,
            &f.com,
            &f.secret,
            Some((&stmt(f), &f.alpha)),
            rng,
        )
        .unwrap()
    }

    /// A Paillier-shuffle proof whose ring-Pedersen part commits to `sigma` instead of the
    /// fixture's permutation (no other deviation).
    fn prove_inner_f(f: &Fixture, sigma: &[usize], rng: &mut ChaCha20Rng) -> ShuffleProof {
        prove_inner(
            &f.sid,
            f.id,
            &f.gens,
            &f.com,
            &f.secret,
            Some((&stmt(f), &f.alpha)),
            None,
            sigma,
            rng,
        )
        .unwrap()
    }

    fn verify_f(f: &Fixture, proof: &ShuffleProof) -> Result<(), MixnetError> {
        verify(&f.sid, f.id, &f.gens, &f.com, Some(&stmt(f)), proof)
    }

    fn assert_named(err: MixnetError, id: PartyId, needle: &str) {
        assert_eq!(err.culprits(), &[id], "{err}");
        assert!(err.to_string().contains(needle), "{err}");
    }

    /// The challenge `v` an honest verifier derives for `proof`.
    fn challenge_v(f: &Fixture, proof: &ShuffleProof) -> Integer {
        let s = stmt(f);
        let mut t = statement_transcript(&f.sid, f.id, &f.gens, &f.com, Some(&s), None);
        let _ = challenge_vector(&mut t, f.com.u.len(), &scalar_modulus());
        absorb_commitments(&mut t, proof, Some(&s))
    }

    #[test]
    fn honest_shuffle_verifies() {
        let (f, mut rng) = fixture(5, 1, None);
        let proof = prove_f(&f, &mut rng);
        verify_f(&f, &proof).unwrap();
        let bytes = proof.to_bytes();
        let moduli = PaillierModuli {
            pk: &f.pk,
            n_hat: &f.n_hat,
        };
        assert_eq!(
            ShuffleProof::from_bytes(&bytes, 5, Some(moduli)).unwrap(),
            proof
        );
    }

    /// The fixed-base response `k_F`: a changed value fails the Paillier equation, one
    /// beyond `2^{shuffle_response_bits}` (or negative) the range check, and the decoder
    /// refuses an over-long one; each names the prover.
    #[test]
    fn fixed_base_response_is_checked() {
        let (f, mut rng) = fixture(4, 9, None);
        let proof = prove_f(&f, &mut rng);
        let k_f = proof.k_f.clone().unwrap();
        let mut bumped = proof.clone();
        bumped.k_f = Some(Integer::from(&k_f + 1u32));
        assert_named(
            verify_f(&f, &bumped).unwrap_err(),
            f.id,
            "Paillier equation",
        );
        let bits = djn::shuffle_response_bits(&f.pk);
        let mut long = proof.clone();
        long.k_f = Some(Integer::from(1) << bits);
        assert_named(verify_f(&f, &long).unwrap_err(), f.id, "out of range");
        let mut neg = proof.clone();
        neg.k_f = Some(Integer::from(-&k_f));
        assert_named(verify_f(&f, &neg).unwrap_err(), f.id, "out of range");
        let moduli = PaillierModuli {
            pk: &f.pk,
            n_hat: &f.n_hat,
        };
        assert!(ShuffleProof::from_bytes(&long.to_bytes(), 4, Some(moduli)).is_err());
    }

    /// A prover whose ring-Pedersen commitment holds exponents of another permutation than
    /// the one behind its G1 responses (inconsistent `e′` between the parts) is rejected by
    /// the commitment equation and named.
    #[test]
    fn inconsistent_committed_exponents_are_rejected() {
        let (f, mut rng) = fixture(5, 2, None);
        let mut other = f.secret.pi.clone();
        other.swap(0, 1);
        let proof = prove_inner_f(&f, &other, &mut rng);
        assert_named(verify_f(&f, &proof).unwrap_err(), f.id, "ring-Pedersen");
    }

    /// A Paillier list permuted by `σ ≠ π` while the G1 part and `Z` follow the committed
    /// `π`: rejected by the Paillier equation and named; committing `Z` to `σ` instead is
    /// rejected by the commitment equation.
    #[test]
    fn paillier_list_with_another_permutation_is_rejected() {
        let (probe, _) = fixture(5, 3, None);
        let mut sigma = probe.secret.pi.clone();
        sigma.swap(2, 4);
        let (f, mut rng) = fixture(5, 3, Some(sigma.clone()));
        assert_eq!(f.secret.pi, probe.secret.pi);
        let proof = prove_f(&f, &mut rng);
        assert_named(verify_f(&f, &proof).unwrap_err(), f.id, "Paillier equation");
        let proof = prove_inner_f(&f, &sigma, &mut rng);
        assert_named(verify_f(&f, &proof).unwrap_err(), f.id, "ring-Pedersen");
    }

    /// `Z` and `Z′` are bound by the transcript: each forgery below keeps the ring-Pedersen
    /// equation true **for the old challenge** (so it would pass if `Z` or `Z′` were left out
    /// of the transcript) and is rejected because `v` changes.
    #[test]
    fn ring_pedersen_commitments_are_bound_before_v() {
        let (f, mut rng) = fixture(4, 4, None);
        let proof = prove_f(&f, &mut rng);
        verify_f(&f, &proof).unwrap();
        let v = challenge_v(&f, &proof);
        let key = RingPedersenVectorKey::derive(&f.n_hat, 4).unwrap();
        let nn = &f.n_hat;
        let (z, z_p, k_mu) = (
            proof.rp_z.clone().unwrap(),
            proof.rp_z_p.clone().unwrap(),
            proof.k_mu.clone().unwrap(),
        );
        assert!(key.check_response_vartime(&z, &z_p, &v, &proof.k_e, &k_mu));
        // Z* = Z·t, Z′* = Z′·t^{−v}: Z*^v Z′* = Z^v Z′.
        let mut forged = proof.clone();
        let z2 = mul_mod(&z, &key.t, nn);
        let t_neg_v = pow_mod_vartime(&key.t, &Integer::from(-&v), nn).unwrap();
        let z2_p = mul_mod(&z_p, &t_neg_v, nn);
        assert!(key.check_response_vartime(&z2, &z2_p, &v, &proof.k_e, &k_mu));
        forged.rp_z = Some(z2);
        forged.rp_z_p = Some(z2_p);
        assert_ne!(challenge_v(&f, &forged), v);
        assert_named(verify_f(&f, &forged).unwrap_err(), f.id, "shuffle proof");
        // Z′* = Z′·t, k_μ* = k_μ + 1.
        let mut forged = proof.clone();
        let z2_p = mul_mod(&z_p, &key.t, nn);
        let k_mu2 = Integer::from(&k_mu + 1u32);
        assert!(key.check_response_vartime(&z, &z2_p, &v, &proof.k_e, &k_mu2));
        forged.rp_z_p = Some(z2_p);
        forged.k_mu = Some(k_mu2);
        assert_ne!(challenge_v(&f, &forged), v);
        assert_named(verify_f(&f, &forged).unwrap_err(), f.id, "shuffle proof");
    }

    /// Regression (issue 6): a statement whose ring-Pedersen modulus is the Paillier `N` —
    /// which `t` shareholders can factor — is refused by prover, verifier and decoder; a
    /// proof for one `Ñ` does not verify under another (`Ñ` is in the transcript), and its
    /// `Z`, `Z′` are range-checked against `Ñ`, not `N`.
    #[test]
    fn ring_pedersen_modulus_is_auxiliary_and_bound() {
        let (f, mut rng) = fixture(3, 6, None);
        let proof = prove_f(&f, &mut rng);
        verify_f(&f, &proof).unwrap();
        let same = PaillierShuffle {
            n_hat: f.pk.n(),
            ..stmt(&f)
        };
        assert!(prove(
            &f.sid,
            f.id,
            &f.gens,
            &f.com,
            &f.secret,
            Some((&same, &f.alpha)),
            &mut rng
        )
        .is_err());
        let err = verify(&f.sid, f.id, &f.gens, &f.com, Some(&same), &proof).unwrap_err();
        assert!(err.to_string().contains("Paillier modulus"), "{err}");
        let other_hat = generate_safe_prime(512, &mut rng).unwrap()
            * generate_safe_prime(512, &mut rng).unwrap();
        let other = PaillierShuffle {
            n_hat: &other_hat,
            ..stmt(&f)
        };
        assert_named(
            verify(&f.sid, f.id, &f.gens, &f.com, Some(&other), &proof).unwrap_err(),
            f.id,
            "shuffle proof",
        );
        let bytes = proof.to_bytes();
        let moduli = |n_hat| PaillierModuli { pk: &f.pk, n_hat };
        assert_eq!(
            ShuffleProof::from_bytes(&bytes, 3, Some(moduli(&f.n_hat))).unwrap(),
            proof
        );
        assert!(ShuffleProof::from_bytes(&bytes, 3, Some(moduli(f.pk.n()))).is_err());
        // Z ≥ Ñ is refused by the decoder (it is checked against Ñ, whatever N is).
        let mut big = proof.clone();
        big.rp_z = Some(Integer::from(&f.n_hat + 2u32));
        assert!(ShuffleProof::from_bytes(&big.to_bytes(), 3, Some(moduli(&f.n_hat))).is_err());
    }

    #[test]
    fn missing_ring_pedersen_fields_are_a_shape_error() {
        let (f, mut rng) = fixture(3, 5, None);
        let proof = prove_f(&f, &mut rng);
        for k in 0..3 {
            let mut bad = proof.clone();
            match k {
                0 => bad.rp_z = None,
                1 => bad.rp_z_p = None,
                _ => bad.k_mu = None,
            }
            assert_named(verify_f(&f, &bad).unwrap_err(), f.id, "wrong shape");
        }
    }
}
