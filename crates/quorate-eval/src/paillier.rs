//! Paillier and modexp measurements for `quorate bench verenc`: they measure and return
//! numbers, and leave printing to the caller.
//!
//! * [`modexp_table`]: modular exponentiation at the CS03 note's sizes (modulus bits ^
//!   exponent bits: 8192^{8192, 4096, 512, 256} and 6144^{6144, 3072, 512, 256}) with GMP's
//!   `mpz_powm` and `mpz_powm_sec` (our backend) **and** crypto-bigint 0.5 `DynResidue::pow`
//!   (the note's backend) in the same run, so the ratio is meaningful on any machine.
//! * [`fixed_base_table`]: the fixed-base tables of [`quorate_paillier::fixed_base`] against plain
//!   exponentiation.
//! * [`paillier_table`]: Paillier encryption and decryption (CRT and textbook).
//! * [`threshold_row`]: threshold decryption shares, their verification and combination.
//! * [`NOTE_MODEXP`], [`NOTE_CS03_ESTIMATES`], [`NOTE_FIXED_BASE_SPEEDUP`]: the figures printed
//!   in the seed note and the project's design notes, to show beside ours.
//!
//! Timings are **thread CPU time** (`cpu_time::ThreadTime`), like the design notes', so
//! other jobs on a shared machine inflate them less than wall-clock time; each [`Timing`]
//! reports the median, minimum and maximum over samples, and the backends are interleaved
//! sample by sample so that their ratio is fair even when the machine is busy. (The notes
//! quote minima; compare our `min_ms` with them when the machine is loaded.)

use cpu_time::ThreadTime;
use crypto_bigint::modular::runtime_mod::{DynResidue, DynResidueParams};
use crypto_bigint::{Uint, U6144, U8192};
use quorate_paillier::bigint::{pow_mod_vartime, random_bits, SecretInteger};
use quorate_paillier::error::PaillierError;
use quorate_paillier::fixed_base::{FixedBase, FixedBaseCt};
use quorate_paillier::paillier::SecretKey;
use quorate_paillier::rug::integer::Order;
use quorate_paillier::rug::Integer;
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore, SeedableRng};
use std::hint::black_box;

/// Median, minimum and maximum of a set of timings, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Median.
    pub median_ms: f64,
    /// Fastest sample.
    pub min_ms: f64,
    /// Slowest sample.
    pub max_ms: f64,
    /// Number of samples.
    pub samples: usize,
}

impl Timing {
    /// Summarises raw samples (milliseconds). Empty input gives zeros.
    pub fn from_samples(mut samples: Vec<f64>) -> Timing {
        samples.sort_by(|a, b| a.total_cmp(b));
        let len = samples.len();
        if len == 0 {
            return Timing {
                median_ms: 0.0,
                min_ms: 0.0,
                max_ms: 0.0,
                samples: 0,
            };
        }
        let median = if len % 2 == 1 {
            samples[len / 2]
        } else {
            (samples[len / 2 - 1] + samples[len / 2]) / 2.0
        };
        Timing {
            median_ms: median,
            min_ms: samples[0],
            max_ms: samples[len - 1],
            samples: len,
        }
    }
}

/// Thread CPU time of `f`, in milliseconds.
fn time_ms<T>(f: impl FnOnce() -> T) -> f64 {
    let start = ThreadTime::now();
    black_box(f());
    start.elapsed().as_secs_f64() * 1e3
}

/// Thread CPU time of a fallible `f`, in milliseconds, with its result.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = ThreadTime::now();
    let out = f();
    (out, start.elapsed().as_secs_f64() * 1e3)
}

/// Figures from the design notes for one `modulus^exponent` size, in milliseconds.
///
/// `seed_crypto_bigint_052_ms` is the CS03 note's printed criterion median (crypto-bigint
/// 0.5.2 on its authors' machine). The other columns are the verifiable-encryption design
/// note's measurements on a 2-core shared Xeon VM like the project's (thread CPU time,
/// minimum of runs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoteModexp {
    /// Modulus bits.
    pub modulus_bits: u32,
    /// Exponent bits.
    pub exponent_bits: u32,
    /// The seed note's crypto-bigint 0.5.2 figure (their hardware), if it printed one.
    pub seed_crypto_bigint_052_ms: Option<f64>,
    /// crypto-bigint 0.5.5 `DynResidue::pow`.
    pub crypto_bigint_055_ms: f64,
    /// crypto-bigint 0.7.10, constant time.
    pub crypto_bigint_0710_ct_ms: f64,
    /// num-bigint 0.4.8 `modpow`.
    pub num_bigint_ms: f64,
    /// rug's bundled GMP 6.3 `mpz_powm`.
    pub gmp63_powm_ms: f64,
    /// rug's bundled GMP 6.3 `mpz_powm_sec`.
    pub gmp63_powm_sec_ms: f64,
    /// Debian GMP 6.2.1 `mpz_powm` (the library this crate links).
    pub gmp621_powm_ms: f64,
    /// Debian GMP 6.2.1 `mpz_powm_sec`.
    pub gmp621_powm_sec_ms: f64,
    /// OpenSSL 3.0 BN variable time.
    pub openssl_vt_ms: f64,
    /// OpenSSL 3.0 BN constant time.
    pub openssl_ct_ms: f64,
}

const fn note(modulus_bits: u32, exponent_bits: u32, seed: Option<f64>, v: [f64; 9]) -> NoteModexp {
    NoteModexp {
        modulus_bits,
        exponent_bits,
        seed_crypto_bigint_052_ms: seed,
        crypto_bigint_055_ms: v[0],
        crypto_bigint_0710_ct_ms: v[1],
        num_bigint_ms: v[2],
        gmp63_powm_ms: v[3],
        gmp63_powm_sec_ms: v[4],
        gmp621_powm_ms: v[5],
        gmp621_powm_sec_ms: v[6],
        openssl_vt_ms: v[7],
        openssl_ct_ms: v[8],
    }
}

/// The design notes' modexp table (verifiable-encryption note §3; seed column from the CS03
/// note). The first eight rows are the sizes [`modexp_table`] measures.
// 3.14 below is a measured time, not an approximation of π.
#[allow(clippy::approx_constant)]
pub const NOTE_MODEXP: [NoteModexp; 11] = [
    note(
        8192,
        8192,
        Some(353.4),
        [253.9, 204.3, 203.0, 89.6, 188.7, 69.8, 133.8, 93.6, 101.9],
    ),
    note(
        8192,
        4096,
        Some(176.9),
        [124.9, 103.8, 99.1, 44.3, 97.4, 35.1, 67.0, 47.4, 51.2],
    ),
    note(
        8192,
        512,
        Some(22.5),
        [15.0, 12.6, 12.0, 5.59, 12.7, 4.64, 9.03, 6.14, 6.65],
    ),
    note(
        8192,
        256,
        Some(11.5),
        [7.60, 6.49, 6.29, 2.83, 6.83, 2.35, 4.55, 3.14, 3.47],
    ),
    note(
        6144,
        6144,
        Some(150.3),
        [100.7, 87.9, 85.5, 50.0, 73.4, 33.2, 58.1, 39.4, 42.5],
    ),
    note(
        6144,
        3072,
        Some(75.3),
        [49.6, 43.6, 41.9, 25.9, 38.0, 18.0, 28.7, 20.5, 21.4],
    ),
    note(
        6144,
        512,
        Some(12.8),
        [8.17, 7.02, 6.95, 4.45, 7.08, 2.98, 5.02, 3.51, 3.74],
    ),
    note(
        6144,
        256,
        Some(6.5),
        [4.15, 3.50, 3.50, 2.21, 3.33, 1.48, 2.53, 1.85, 2.11],
    ),
    note(
        4096,
        4096,
        None,
        [29.2, 26.1, 26.2, 15.4, 21.2, 14.0, 16.6, 12.0, 12.7],
    ),
    note(
        3072,
        3072,
        None,
        [11.5, 11.4, 11.8, 6.72, 9.04, 6.01, 7.01, 5.10, 5.47],
    ),
    note(
        2048,
        2048,
        Some(6.17),
        [3.32, 3.29, 2.82, 2.12, 2.71, 1.75, 1.97, 1.52, 1.61],
    ),
];

/// The note's figure for a size, if any.
pub fn note_for(modulus_bits: u32, exponent_bits: u32) -> Option<&'static NoteModexp> {
    NOTE_MODEXP
        .iter()
        .find(|r| r.modulus_bits == modulus_bits && r.exponent_bits == exponent_bits)
}

/// The CS03 note's cost estimates (its Table-1 row), in ms and bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoteCs03Estimate {
    /// `|n|` in bits (4096 "conservative", 3072 "aggressive").
    pub modulus_bits: u32,
    /// Encryption.
    pub encrypt_ms: f64,
    /// Proof generation (without encryption).
    pub prove_ms: f64,
    /// Verification.
    pub verify_ms: f64,
    /// Decryption (two full `n²` exponentiations, no CRT).
    pub decrypt_ms: f64,
    /// P = encrypt + prove.
    pub p_ms: f64,
    /// V = verify.
    pub v_ms: f64,
    /// `|C|` (three `Z_{n²}` elements).
    pub ciphertext_bytes: usize,
    /// `|tr|` as the note computed it.
    pub proof_bytes: usize,
}

/// The CS03 note's printed estimates (crypto-bigint 0.5.2 on its authors' machine).
pub const NOTE_CS03_ESTIMATES: [NoteCs03Estimate; 2] = [
    NoteCs03Estimate {
        modulus_bits: 4096,
        encrypt_ms: 719.1,
        prove_ms: 522.8,
        verify_ms: 391.9,
        decrypt_ms: 706.8,
        p_ms: 1241.9,
        v_ms: 391.9,
        ciphertext_bytes: 3072,
        proof_bytes: 1568,
    },
    NoteCs03Estimate {
        modulus_bits: 3072,
        encrypt_ms: 307.7,
        prove_ms: 246.7,
        verify_ms: 197.4,
        decrypt_ms: 300.6,
        p_ms: 554.4,
        v_ms: 197.4,
        ciphertext_bytes: 2304,
        proof_bytes: 1184,
    },
];

/// The design note's measured fixed-base speed-up over `mpz_powm` (Yao/BGMW, window 7):
/// `(low, high)` for `|n|`-bit exponents, and for 256-bit exponents.
pub const NOTE_FIXED_BASE_SPEEDUP: ((f64, f64), f64) = ((4.4, 4.6), 3.1);

/// The `(modulus bits, exponent bits)` pairs of the CS03 note.
pub const MODEXP_SIZES: [(u32, u32); 8] = [
    (8192, 8192),
    (8192, 4096),
    (8192, 512),
    (8192, 256),
    (6144, 6144),
    (6144, 3072),
    (6144, 512),
    (6144, 256),
];

/// One measured row of [`modexp_table`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModexpRow {
    /// Modulus bits.
    pub modulus_bits: u32,
    /// Exponent bits.
    pub exponent_bits: u32,
    /// GMP `mpz_powm` (variable time) via `rug::Integer::pow_mod`.
    pub gmp_powm: Timing,
    /// GMP `mpz_powm_sec` (constant time) via `rug::Integer::secure_pow_mod`.
    pub gmp_powm_sec: Timing,
    /// crypto-bigint 0.5 `DynResidue::pow_bounded_exp` (constant time in the exponent value).
    pub crypto_bigint: Timing,
    /// The design notes' figures for this size.
    pub note: Option<&'static NoteModexp>,
}

impl ModexpRow {
    /// crypto-bigint median / GMP `powm_sec` median (how much faster our constant-time path
    /// is than the note's backend).
    pub fn speedup_ct(&self) -> f64 {
        self.crypto_bigint.median_ms / self.gmp_powm_sec.median_ms
    }

    /// crypto-bigint median / GMP `powm` median.
    pub fn speedup_vartime(&self) -> f64 {
        self.crypto_bigint.median_ms / self.gmp_powm.median_ms
    }
}

fn random_odd_modulus<R: RngCore + CryptoRng>(rng: &mut R, bits: u32) -> Integer {
    let mut m = random_bits(rng, bits);
    m.set_bit(bits - 1, true);
    m.set_bit(0, true);
    m
}

fn random_exponent<R: RngCore + CryptoRng>(rng: &mut R, bits: u32) -> Integer {
    let mut e = random_bits(rng, bits);
    e.set_bit(bits - 1, true);
    e
}

/// A crypto-bigint exponentiation prepared outside the timed region.
struct CbCase<const L: usize> {
    base: DynResidue<L>,
    exp: Uint<L>,
    exp_bits: usize,
}

impl<const L: usize> CbCase<L> {
    fn new(m: &Integer, b: &Integer, e: &Integer, exp_bits: u32) -> Self {
        let to_uint = |x: &Integer| {
            let mut words = [0u64; L];
            x.write_digits(&mut words[..], Order::Lsf);
            Uint::<L>::from_words(words)
        };
        let params = DynResidueParams::new(&to_uint(m));
        CbCase {
            base: DynResidue::new(&to_uint(b), params),
            exp: to_uint(e),
            exp_bits: exp_bits as usize,
        }
    }

    fn run(&self) -> Integer {
        let r = self
            .base
            .pow_bounded_exp(&self.exp, self.exp_bits)
            .retrieve();
        Integer::from_digits(r.as_words(), Order::Lsf)
    }
}

enum Cb {
    U6144(Box<CbCase<{ U6144::LIMBS }>>),
    U8192(Box<CbCase<{ U8192::LIMBS }>>),
}

impl Cb {
    fn run(&self) -> Integer {
        match self {
            Cb::U6144(c) => c.run(),
            Cb::U8192(c) => c.run(),
        }
    }
}

/// Measures one `modulus_bits ^ exponent_bits` size with all three backends, interleaving
/// them sample by sample. Only 6144- and 8192-bit moduli are supported (crypto-bigint needs
/// a fixed size); other sizes are measured with GMP only and report zero for crypto-bigint.
pub fn modexp_row(modulus_bits: u32, exponent_bits: u32, samples: usize) -> ModexpRow {
    let mut rng = bench_rng(u64::from(modulus_bits) << 32 | u64::from(exponent_bits));
    let m = random_odd_modulus(&mut rng, modulus_bits);
    let b = random_bits(&mut rng, modulus_bits - 1);
    let e = random_exponent(&mut rng, exponent_bits);
    let cb = match modulus_bits {
        6144 => Some(Cb::U6144(Box::new(CbCase::new(&m, &b, &e, exponent_bits)))),
        8192 => Some(Cb::U8192(Box::new(CbCase::new(&m, &b, &e, exponent_bits)))),
        _ => None,
    };
    let mut t_vt = Vec::with_capacity(samples);
    let mut t_ct = Vec::with_capacity(samples);
    let mut t_cb = Vec::with_capacity(samples);
    for _ in 0..samples.max(1) {
        t_vt.push(time_ms(|| b.pow_mod_ref(&e, &m).map(Integer::from)));
        t_ct.push(time_ms(|| Integer::from(b.secure_pow_mod_ref(&e, &m))));
        if let Some(cb) = &cb {
            t_cb.push(time_ms(|| cb.run()));
        }
    }
    ModexpRow {
        modulus_bits,
        exponent_bits,
        gmp_powm: Timing::from_samples(t_vt),
        gmp_powm_sec: Timing::from_samples(t_ct),
        crypto_bigint: Timing::from_samples(t_cb),
        note: note_for(modulus_bits, exponent_bits),
    }
}

/// Checks that the three backends agree on one random case per size (a sanity check for
/// the benchmark, run by the tests).
pub fn modexp_backends_agree() -> bool {
    MODEXP_SIZES.iter().all(|&(mb, eb)| {
        let mut rng = bench_rng(7 + u64::from(mb) + u64::from(eb));
        let m = random_odd_modulus(&mut rng, mb);
        let b = random_bits(&mut rng, mb - 1);
        let e = random_exponent(&mut rng, eb.min(64));
        let cb = match mb {
            6144 => Cb::U6144(Box::new(CbCase::new(&m, &b, &e, eb.min(64)))),
            _ => Cb::U8192(Box::new(CbCase::new(&m, &b, &e, eb.min(64)))),
        };
        let want = pow_mod_vartime(&b, &e, &m).unwrap_or_default();
        let ct = Integer::from(b.secure_pow_mod_ref(&e, &m));
        cb.run() == want && ct == want
    })
}

/// Measures every size of [`MODEXP_SIZES`]: 3 samples each if `quick` (about 5 s of CPU on
/// the project's VM), 11 otherwise (about 15 s).
pub fn modexp_table(quick: bool) -> Vec<ModexpRow> {
    let samples = if quick { 3 } else { 11 };
    MODEXP_SIZES
        .iter()
        .map(|&(mb, eb)| modexp_row(mb, eb, samples))
        .collect()
}

/// One measured row of [`fixed_base_table`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedBaseRow {
    /// Modulus bits.
    pub modulus_bits: u32,
    /// Exponent bits.
    pub exponent_bits: u32,
    /// Plain `mpz_powm`.
    pub gmp_powm: Timing,
    /// Plain `mpz_powm_sec`.
    pub gmp_powm_sec: Timing,
    /// [`FixedBase::pow_vartime`] (Yao, best window).
    pub yao_vartime: Timing,
    /// [`FixedBaseCt::pow`] (full-scan comb, window 4).
    pub comb_scan: Timing,
    /// Time to build the Yao table.
    pub yao_setup_ms: f64,
    /// Time to build the comb table.
    pub comb_setup_ms: f64,
    /// Yao table size in bytes.
    pub yao_bytes: usize,
    /// Comb table size in bytes.
    pub comb_bytes: usize,
}

/// Fixed-base tables against plain exponentiation at 6144^{3072, 256} and
/// 8192^{4096, 256} (3 samples if `quick`, 9 otherwise).
pub fn fixed_base_table(quick: bool) -> Result<Vec<FixedBaseRow>, PaillierError> {
    let samples = if quick { 3 } else { 9 };
    let sizes = [(6144u32, 3072u32), (6144, 256), (8192, 4096), (8192, 256)];
    let mut rows = Vec::with_capacity(sizes.len());
    for (mb, eb) in sizes {
        let mut rng = bench_rng(11 + u64::from(mb) * 3 + u64::from(eb));
        let m = random_odd_modulus(&mut rng, mb);
        let b = quorate_paillier::bigint::random_unit(&mut rng, &m)?;
        let (yao, yao_setup_ms) = timed(|| FixedBase::new(&b, &m, eb));
        let yao = yao?;
        let (comb, comb_setup_ms) = timed(|| FixedBaseCt::new(&b, &m, eb));
        let comb = comb?;
        let (mut t_vt, mut t_ct, mut t_yao, mut t_comb) = (vec![], vec![], vec![], vec![]);
        for _ in 0..samples {
            let e = random_exponent(&mut rng, eb);
            let se = SecretInteger::new(e.clone());
            t_vt.push(time_ms(|| b.pow_mod_ref(&e, &m).map(Integer::from)));
            t_ct.push(time_ms(|| Integer::from(b.secure_pow_mod_ref(&e, &m))));
            t_yao.push(time_ms(|| yao.pow_vartime(&e)));
            t_comb.push(time_ms(|| comb.pow(&se)));
        }
        rows.push(FixedBaseRow {
            modulus_bits: mb,
            exponent_bits: eb,
            gmp_powm: Timing::from_samples(t_vt),
            gmp_powm_sec: Timing::from_samples(t_ct),
            yao_vartime: Timing::from_samples(t_yao),
            comb_scan: Timing::from_samples(t_comb),
            yao_setup_ms,
            comb_setup_ms,
            yao_bytes: yao.memory_bytes(),
            comb_bytes: comb.memory_bytes(),
        });
    }
    Ok(rows)
}

/// One measured row of [`paillier_table`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaillierRow {
    /// `|n|` in bits.
    pub modulus_bits: u32,
    /// Key generation from random (non-safe) primes.
    pub keygen: Timing,
    /// Encryption (constant-time `r^n`).
    pub encrypt: Timing,
    /// CRT decryption.
    pub decrypt_crt: Timing,
    /// Textbook decryption (`c^λ mod n²`).
    pub decrypt_textbook: Timing,
    /// Homomorphic scalar multiplication by a 256-bit public scalar.
    pub mul_plain_256: Timing,
}

/// Paillier operations at `|n|` = 2048 and 3072 (and 4096 unless `quick`).
pub fn paillier_table(quick: bool) -> Result<Vec<PaillierRow>, PaillierError> {
    let samples = if quick { 3 } else { 9 };
    let sizes: &[u32] = if quick {
        &[2048, 3072]
    } else {
        &[2048, 3072, 4096]
    };
    let mut rows = Vec::new();
    for &bits in sizes {
        let mut rng = bench_rng(100 + u64::from(bits));
        let mut t_kg = Vec::new();
        let mut sk = None;
        for _ in 0..samples.min(3) {
            let (k, ms) = timed(|| SecretKey::generate(bits, &mut rng));
            let k = k?;
            t_kg.push(ms);
            sk = Some(k);
        }
        let sk = sk.ok_or(PaillierError::InvalidKey("no key generated"))?;
        let pk = sk.public_key().clone();
        let (mut t_enc, mut t_crt, mut t_tb, mut t_mul) = (vec![], vec![], vec![], vec![]);
        for _ in 0..samples {
            let m = quorate_paillier::bigint::random_below(&mut rng, pk.n());
            let k = random_bits(&mut rng, 256);
            let (c, ms) = timed(|| pk.encrypt(&m, &mut rng));
            let c = c?;
            t_enc.push(ms);
            let (d, ms) = timed(|| sk.decrypt(&c));
            let d = d?;
            t_crt.push(ms);
            let (d2, ms) = timed(|| sk.decrypt_textbook(&c));
            let d2 = d2?;
            t_tb.push(ms);
            if d != m || d2 != m {
                return Err(PaillierError::Combination("benchmark round trip failed"));
            }
            t_mul.push(time_ms(|| pk.mul_plain_vartime(&c, &k)));
        }
        rows.push(PaillierRow {
            modulus_bits: bits,
            keygen: Timing::from_samples(t_kg),
            encrypt: Timing::from_samples(t_enc),
            decrypt_crt: Timing::from_samples(t_crt),
            decrypt_textbook: Timing::from_samples(t_tb),
            mul_plain_256: Timing::from_samples(t_mul),
        });
    }
    Ok(rows)
}

/// One measured row of [`threshold_row`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThresholdRow {
    /// `|n|` in bits.
    pub modulus_bits: u32,
    /// Threshold `t`.
    pub t: u16,
    /// Number of parties `ℓ`.
    pub parties: u16,
    /// The dealer's work, safe-prime generation included (one sample).
    pub deal_ms: f64,
    /// One decryption share with its proof.
    pub share_and_prove: Timing,
    /// Verifying one share.
    pub verify_share: Timing,
    /// Combining `t` verified shares.
    pub combine: Timing,
}

/// Threshold decryption at `|n| = modulus_bits` with a `t`-of-`parties` dealer key
/// (fresh safe primes: seconds at 2048 bits, tens of seconds at 3072; see
/// [`quorate_paillier::primes`]).
pub fn threshold_row(
    modulus_bits: u32,
    t: u16,
    parties: u16,
    samples: usize,
) -> Result<ThresholdRow, PaillierError> {
    use quorate_core::transcript::SessionId;
    use quorate_core::ThresholdParams;
    let mut rng = bench_rng(200 + u64::from(modulus_bits));
    let params = ThresholdParams::new(t, parties)?;
    let (dealt, deal_ms) =
        timed(|| quorate_paillier::threshold::deal(params, modulus_bits, &mut rng));
    let (tpk, keys) = dealt?;
    let sid = SessionId::new(b"bench".to_vec());
    let pk = tpk.encryption_key();
    let (mut t_share, mut t_verify, mut t_combine) = (vec![], vec![], vec![]);
    for _ in 0..samples.max(1) {
        let m = quorate_paillier::bigint::random_below(&mut rng, pk.n());
        let c = pk.encrypt(&m, &mut rng)?;
        let mut verified = Vec::new();
        for key in keys.iter().take(usize::from(t)) {
            let (share, ms) = timed(|| key.decrypt_share(&tpk, &sid, &c, &mut rng));
            let share = share?;
            t_share.push(ms);
            let (v, ms) = timed(|| tpk.verify_share(&sid, &c, &share));
            verified.push(v?);
            t_verify.push(ms);
        }
        let (out, ms) = timed(|| tpk.combine(&verified));
        let out = out?;
        t_combine.push(ms);
        if out != m {
            return Err(PaillierError::Combination("benchmark round trip failed"));
        }
    }
    Ok(ThresholdRow {
        modulus_bits,
        t,
        parties,
        deal_ms,
        share_and_prove: Timing::from_samples(t_share),
        verify_share: Timing::from_samples(t_verify),
        combine: Timing::from_samples(t_combine),
    })
}

/// A deterministic RNG for benchmark operands (never for keys in real use).
fn bench_rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_summary() {
        let t = Timing::from_samples(vec![3.0, 1.0, 2.0]);
        assert_eq!(
            (t.median_ms, t.min_ms, t.max_ms, t.samples),
            (2.0, 1.0, 3.0, 3)
        );
        let t = Timing::from_samples(vec![4.0, 1.0, 2.0, 3.0]);
        assert_eq!(t.median_ms, 2.5);
        assert_eq!(Timing::from_samples(vec![]).samples, 0);
    }

    #[test]
    fn notes_cover_every_measured_size() {
        for (mb, eb) in MODEXP_SIZES {
            let n = note_for(mb, eb).expect("note row");
            assert!(n.seed_crypto_bigint_052_ms.is_some());
        }
        // The seed's cost model: encrypt = 4·E(n) + E(256) at 4096 bits.
        let e = NOTE_CS03_ESTIMATES[0];
        assert!((e.encrypt_ms - (4.0 * 176.9 + 11.5)).abs() < 1e-9);
        assert!((e.p_ms - (e.encrypt_ms + e.prove_ms)).abs() < 1e-9);
    }

    #[test]
    fn backends_agree() {
        assert!(modexp_backends_agree());
    }

    #[test]
    fn bench_rng_is_deterministic() {
        let mut a = bench_rng(1);
        let mut b = bench_rng(1);
        let mut c = bench_rng(2);
        let (x, y, z) = (a.next_u64(), b.next_u64(), c.next_u64());
        assert_eq!(x, y);
        assert_ne!(x, z);
    }
}
