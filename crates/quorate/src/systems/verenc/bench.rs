//! `quorate bench verenc`: the CS03 note's modexp table, CS03 and TZ21 rows.

use anyhow::anyhow;
use quorate_eval::bench::{BenchSuite, PaperFigure, Stats};
use quorate_eval::paillier::{modexp_table, ModexpRow};
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;
use std::time::Instant;

use super::cs03_params;
use crate::common::os_rng;

/// Section 1 of `quorate bench verenc`: the note's modular-exponentiation table, with GMP
/// (our backend, constant-time and variable-time) and crypto-bigint 0.5 (the note's backend)
/// measured in the same run, and the note's figures beside them.
fn bench_modexp(suite: &mut BenchSuite) {
    let rows = modexp_table(suite.is_quick());
    println!("\nModular exponentiation (thread CPU ms; modulus bits ^ exponent bits)");
    println!(
        "{:>10} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>7} {:>7}",
        "size",
        "note cb",
        "note gmp",
        "note gmp",
        "ours cb",
        "ours gmp",
        "ours gmp",
        "cb/ct",
        "cb/vt"
    );
    println!(
        "{:>10} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>7} {:>7}",
        "", "0.5.2", "powm", "powm_sec", "0.5", "powm", "powm_sec", "", ""
    );
    for r in &rows {
        print_modexp_row(r);
        let size = format!("{}^{}", r.modulus_bits, r.exponent_bits);
        let note_cb = r
            .note
            .and_then(|n| n.seed_crypto_bigint_052_ms)
            .map(|ms| PaperFigure::new(ms, "CS03 note (crypto-bigint 0.5.2, authors' machine)"));
        let stats = |t: &quorate_eval::paillier::Timing| {
            Stats::from_ms(t.median_ms, t.min_ms, t.max_ms, t.samples)
        };
        suite.record(
            "modexp GMP powm_sec (ours, ct)",
            &size,
            note_cb,
            stats(&r.gmp_powm_sec),
        );
        suite.record(
            "modexp GMP powm (ours, vartime)",
            &size,
            note_cb,
            stats(&r.gmp_powm),
        );
        if r.crypto_bigint.samples > 0 {
            suite.record(
                "modexp crypto-bigint 0.5 (same run)",
                &size,
                note_cb,
                stats(&r.crypto_bigint),
            );
        }
    }
    suite.note(
        "modexp rows: thread CPU time; 'paper' = the CS03 note's crypto-bigint 0.5.2 median on \
         its authors' machine; the printed table also shows the design notes' GMP 6.2.1 figures \
         on this VM kind and the crypto-bigint / GMP ratio measured in this run",
    );
}

fn print_modexp_row(r: &ModexpRow) {
    let opt = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.2}"));
    let note = r.note;
    let cb = (r.crypto_bigint.samples > 0).then_some(r.crypto_bigint.median_ms);
    println!(
        "{:>10} | {:>9} {:>9} {:>9} | {:>9} {:>9.2} {:>9.2} | {:>7} {:>7}",
        format!("{}^{}", r.modulus_bits, r.exponent_bits),
        opt(note.and_then(|n| n.seed_crypto_bigint_052_ms)),
        opt(note.map(|n| n.gmp621_powm_ms)),
        opt(note.map(|n| n.gmp621_powm_sec_ms)),
        opt(cb),
        r.gmp_powm.median_ms,
        r.gmp_powm_sec.median_ms,
        opt(cb.map(|_| r.speedup_ct())),
        opt(cb.map(|_| r.speedup_vartime())),
    );
}

/// CS03 targets at |n| = 3072 (issue 5), in ms.
const TARGET_CS03_P_MS: f64 = 150.0;
const TARGET_CS03_V_MS: f64 = 40.0;

/// Section 2: CS03 at |n| = 3072 and 4096 (k = 256, k' = 128) on P-256, the note's curve.
fn bench_cs03(suite: &mut BenchSuite, rng: &mut ChaCha20Rng) -> anyhow::Result<()> {
    use quorate_eval::paillier::NOTE_CS03_ESTIMATES;
    use quorate_verenc::cs03::{self, AuxParams};
    use quorate_verenc::group::{Curve, P256};
    type C = P256;
    let source = "CS03 note estimate (crypto-bigint 0.5.2, authors' machine)";
    let sizes: &[u32] = if suite.is_quick() {
        &[3072]
    } else {
        &[3072, 4096]
    };
    for &bits in sizes {
        let params = cs03_params(bits)?;
        let note = NOTE_CS03_ESTIMATES.iter().find(|e| e.modulus_bits == bits);
        let label = format!("|n|=|N|={bits} k=256 k'=128 P-256");
        let t = Instant::now();
        let (pk, sk) = cs03::keygen(rng, &params).map_err(|e| anyhow!("{e}"))?;
        let aux = AuxParams::generate(rng, bits).map_err(|e| anyhow!("{e}"))?;
        let keygen_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        pk.precompute().map_err(|e| anyhow!("{e}"))?;
        aux.precompute().map_err(|e| anyhow!("{e}"))?;
        suite.note(format!(
            "CS03 |n|={bits}: escrow keygen + aux generation {keygen_s:.1} s, fixed-base tables \
             {:.2} s (once per key; not in the rows)",
            t.elapsed().as_secs_f64()
        ));
        let x = <C as Curve>::Scalar::from(0x5eed_u64) * <C as Curve>::Scalar::from(rng.next_u64());
        let public = <<C as Curve>::Point as group::Group>::generator() * x;
        let lab = b"quorate bench verenc";
        let samples = suite.samples(15, 3);
        let p_row = suite.time(
            "CS03 P (encrypt + prove)",
            &label,
            note.map(|e| PaperFigure::new(e.p_ms, source)),
            samples,
            || cs03::encrypt_and_prove::<C>(&mut *rng, &pk, &aux, &x, &public, lab).is_ok(),
        );
        if bits == 3072 {
            p_row.target_ms(TARGET_CS03_P_MS);
        }
        let (ct, proof) = cs03::encrypt_and_prove::<C>(rng, &pk, &aux, &x, &public, lab)
            .map_err(|e| anyhow!("{e}"))?;
        cs03::verify::<C>(&pk, &aux, &public, lab, &ct, &proof).map_err(|e| anyhow!("{e}"))?;
        let v_row = suite.time(
            "CS03 V (verify)",
            &label,
            note.map(|e| PaperFigure::new(e.v_ms, source)),
            samples,
            || cs03::verify::<C>(&pk, &aux, &public, lab, &ct, &proof).is_ok(),
        );
        if bits == 3072 {
            v_row.target_ms(TARGET_CS03_V_MS);
        }
        suite.time(
            "CS03 Dec (CRT, all checks)",
            &label,
            note.map(|e| PaperFigure::new(e.decrypt_ms, source)),
            samples,
            || cs03::recover::<C>(&sk, lab, &ct, &public).is_ok(),
        );
        suite.size(
            "CS03 |C| (u, e, v)",
            &label,
            note.map(|e| e.ciphertext_bytes),
            ct.to_bytes().len(),
        );
        suite.size(
            "CS03 |tr| (proof)",
            &label,
            note.map(|e| e.proof_bytes),
            proof.to_bytes().len(),
        );
    }
    suite.note(
        "CS03 'paper' = the note's estimates; its |tr| drops the k+k' slack of the responses \
         (the design notes give 1360 / 1744 B for k = 256, k' = 128); its Dec assumes no CRT",
    );
    Ok(())
}

/// The reference implementation's measured rows (design notes §1, 2-core VM): scheme set,
/// P ms, V ms, compress ms, |tr| B, |C| B.
const TZ21_REFERENCE: &[(
    quorate_verenc::tz21::Tz21Params,
    f64,
    f64,
    f64,
    usize,
    usize,
)] = {
    use quorate_verenc::tz21::Tz21Params as T;
    &[
        (T::DKGITH_64_48_15, 159.6, 149.9, 1.7, 9360, 975),
        (T::DKGITH_85_20_20, 84.9, 82.1, 3.1, 4276, 1300),
        (T::DKGITH_16_32_30, 24.8, 24.6, 0.8, 5248, 1950),
        (T::DKGITH_4_64_48, 13.0, 10.3, 0.3, 8352, 3120),
        (T::RDKGITH_132_64_67, 5.5, 3.5, 34.4, 11781, 6499),
        (T::RDKGITH_160_80_55, 6.7, 4.2, 42.9, 14337, 5335),
        (T::RDKGITH_256_226_30, 12.8, 12.2, 189.0, 26017, 2910),
        (T::RDKGITH_704_684_20, 44.4, 48.7, 1508.0, 73377, 1940),
    ]
};
/// The reference's recovery time, about the same for every set (design notes §1).
const TZ21_REFERENCE_RECOVER_MS: f64 = 0.15;

/// Section 3: TZ21 at the reference's parameter sets on P-256 (the reference's curve), and
/// the two target sets on secp256k1 (threshold ECDSA shares).
fn bench_tz21(suite: &mut BenchSuite, rng: &mut ChaCha20Rng) -> anyhow::Result<()> {
    use quorate_verenc::group::{Secp256k1, P256};
    use quorate_verenc::tz21::Tz21Params;
    bench_tz21_on::<P256>(suite, rng, "P-256", &|_| true)?;
    bench_tz21_on::<Secp256k1>(suite, rng, "secp256k1", &|p| {
        p == Tz21Params::RDKGITH_132_64_67 || p == Tz21Params::DKGITH_85_20_20
    })?;
    suite.note(
        "TZ21 'paper' = the reference implementation (akiratk0355/verenc-mpcith, arkworks \
         P-256) run on this VM kind by the design notes' author; our sizes include an 8-byte \
         header; the secp256k1 rows compare our secp256k1 with the reference's P-256",
    );
    Ok(())
}

fn bench_tz21_on<C: quorate_verenc::tz21::Tz21Curve>(
    suite: &mut BenchSuite,
    rng: &mut ChaCha20Rng,
    curve: &str,
    include: &dyn Fn(quorate_verenc::tz21::Tz21Params) -> bool,
) -> anyhow::Result<()> {
    use quorate_verenc::group::Curve;
    use quorate_verenc::tz21::{self, Tz21Params};
    let source = "verenc-mpcith reference, measured on this VM kind (design notes §1)";
    let (ek, dk) = tz21::keygen::<C>(rng);
    let x = <C as Curve>::Scalar::from(rng.next_u64()) + <C as Curve>::Scalar::from(7u64);
    let public = <<C as Curve>::Point as group::Group>::generator() * x;
    let lab = b"quorate bench verenc";
    for &(params, p_ms, v_ms, c_ms, tr_b, c_b) in TZ21_REFERENCE {
        let slow = params.parties() * params.rounds_or_threshold() > 20_000;
        if (suite.is_quick() && slow) || !include(params) {
            continue;
        }
        let label = match params.scheme() {
            tz21::Scheme::Dkgith => format!(
                "DKGitH N={} tau={} n={} {curve}",
                params.parties(),
                params.rounds_or_threshold(),
                params.compressed()
            ),
            tz21::Scheme::Rdkgith => format!(
                "RDKGitH N={} t={} n={} {curve}",
                params.parties(),
                params.rounds_or_threshold(),
                params.compressed()
            ),
        };
        let samples = suite.samples(if slow { 7 } else { 25 }, 3);
        let p_row = suite.time(
            "TZ21 P (prove)",
            &label,
            Some(PaperFigure::new(p_ms, source)),
            samples,
            || tz21::prove::<C>(&mut *rng, &params, &ek, &x, &public, lab).is_ok(),
        );
        let proof =
            tz21::prove::<C>(rng, &params, &ek, &x, &public, lab).map_err(|e| anyhow!("{e}"))?;
        if params == Tz21Params::RDKGITH_132_64_67 {
            p_row.target_ms(2.5);
        } else if params == Tz21Params::DKGITH_85_20_20 {
            p_row.target_ms(40.0);
        }
        let v_row = suite.time(
            "TZ21 V (verify)",
            &label,
            Some(PaperFigure::new(v_ms, source)),
            samples,
            || tz21::verify::<C>(&params, &ek, &public, lab, &proof).is_ok(),
        );
        if params == Tz21Params::RDKGITH_132_64_67 {
            v_row.target_ms(1.5);
        } else if params == Tz21Params::DKGITH_85_20_20 {
            v_row.target_ms(40.0);
        }
        suite.time(
            "TZ21 compress",
            &label,
            Some(PaperFigure::new(c_ms, source)),
            samples,
            || tz21::compress::<C>(&mut *rng, &params, &ek, &public, lab, &proof).is_ok(),
        );
        let compressed = tz21::verify_and_compress::<C>(rng, &params, &ek, &public, lab, &proof)
            .map_err(|e| anyhow!("{e}"))?;
        suite.time(
            "TZ21 recover (decrypt compressed)",
            &label,
            Some(PaperFigure::new(TZ21_REFERENCE_RECOVER_MS, source)),
            samples,
            || tz21::recover::<C>(&params, &dk, &public, lab, &compressed).is_ok(),
        );
        suite.size("TZ21 |tr| (proof)", &label, Some(tr_b), proof.size());
        suite.size(
            "TZ21 |C| (compressed)",
            &label,
            Some(c_b),
            compressed.size(),
        );
    }
    Ok(())
}

/// `quorate bench verenc`: the modexp table, CS03 and TZ21 rows.
///
/// With `threads = Some(k)` only the TZ21 rows run, on a rayon pool of `k` threads: the
/// form used to compare with the single-threaded reference implementation in the same run
/// (`--threads 1`, pinned with `taskset`; docs/benchmarks.md §5).
pub fn bench(suite: &mut BenchSuite, _large: bool, threads: Option<usize>) -> anyhow::Result<()> {
    let mut rng = os_rng();
    if let Some(k) = threads {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(k).build()?;
        pool.install(|| bench_tz21(suite, &mut rng))?;
        suite.note(format!(
            "--threads {k}: only the TZ21 rows, P and V as wall time on a pool of {k} \
             thread(s) (the modexp and CS03 sections are skipped)"
        ));
        return Ok(());
    }
    bench_modexp(suite);
    bench_tz21(suite, &mut rng)?;
    bench_cs03(suite, &mut rng)?;
    suite.note(format!(
        "P and V rows are wall time with rayon on {} thread(s)",
        rayon::current_num_threads()
    ));
    Ok(())
}
