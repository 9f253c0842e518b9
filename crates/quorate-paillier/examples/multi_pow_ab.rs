//! `cargo run --release -p quorate-paillier --example multi_pow_ab -- BITS N REPS`: A/B of
//! the shuffle prover's secret-exponent products (issue 17), interleaved in one process, at a
//! `BITS`-bit `N`: `Π w′_i^{ε_i} mod N²` for `N` bases with 296-bit exponents and
//! `Π s_i^{e′_i} mod Ñ` (`|Ñ| = BITS`) with 128-bit exponents, computed as before (one
//! `mpz_powm_sec` per base with the exponent offset to a fixed length, the public factor
//! divided out) and with [`multi_pow_secret`] (one interleaved pass, shared squarings).
//! Last, the verifier's `v^z mod N²` of a (batched) decryption-share proof, `|z| ≈ |N²| + 400`:
//! `mpz_powm` against the Yao table that `ThresholdPublicKey` now keeps for `v`.
use quorate_paillier::bigint::{
    inv_mod, mul_mod, multi_pow_secret, pow_mod_secret, pow_mod_vartime, random_bits, random_unit,
};
use quorate_paillier::fixed_base::FixedBase;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rug::Integer;
use std::time::Instant;

fn arg(i: usize, default: u32) -> u32 {
    std::env::args()
        .nth(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The previous method: offset exponents, `mpz_powm_sec` per base, public factor divided out.
fn per_base(bases: &[Integer], exps: &[Integer], bits: u32, m: &Integer) -> Integer {
    let off = Integer::from(1) << bits;
    let prod = bases.iter().zip(exps).fold(Integer::from(1), |a, (b, e)| {
        let x = pow_mod_secret(b, &Integer::from(e + &off), m).expect("pow");
        mul_mod(&a, &x, m)
    });
    let all = bases
        .iter()
        .fold(Integer::from(1), |a, b| mul_mod(&a, b, m));
    let corr = inv_mod(&pow_mod_vartime(&all, &off, m).expect("pow"), m).expect("unit");
    mul_mod(&prod, &corr, m)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (bits, n, reps) = (arg(1, 3072), arg(2, 100) as usize, arg(3, 3));
    let mut rng = ChaCha20Rng::seed_from_u64(172);
    // Timing does not depend on the factorisation: any odd moduli of the right sizes will do.
    let odd =
        |rng: &mut ChaCha20Rng, b: u32| random_bits(rng, b) | (Integer::from(1) << (b - 1)) | 1u32;
    let n2 = odd(&mut rng, 2 * bits);
    let n_hat = odd(&mut rng, bits);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for (label, m, exp_bits) in [
        ("prod w'_i^eps_i mod N^2, 296-bit", &n2, 296u32),
        ("prod s_i^e'_i mod N~, 128-bit", &n_hat, 128),
        ("prod s_i^eps_i mod N~, 296-bit", &n_hat, 296),
    ] {
        let bases: Vec<Integer> = (0..n)
            .map(|_| random_unit(&mut rng, m).expect("unit"))
            .collect();
        let (mut old, mut new) = (0.0, 0.0);
        for _ in 0..reps {
            let exps: Vec<Integer> = (0..n).map(|_| random_bits(&mut rng, exp_bits)).collect();
            let t = Instant::now();
            let a = per_base(&bases, &exps, exp_bits, m);
            old += ms(t);
            let t = Instant::now();
            let b = multi_pow_secret(&bases, &exps, exp_bits, m)?;
            new += ms(t);
            assert_eq!(a, b);
        }
        let r = f64::from(reps);
        println!(
            "{label} (n = {n}): per-base powm_sec {:.1} ms  multi_pow_secret {:.1} ms  ratio {:.2}x",
            old / r,
            new / r,
            old / new
        );
    }
    let v = random_unit(&mut rng, &n2)?;
    let z_bits = 2 * bits + 2 + 256 + 128 + 1;
    let t = Instant::now();
    let table = FixedBase::new(&v, &n2, z_bits)?;
    let build = ms(t);
    let (mut old, mut new) = (0.0, 0.0);
    for _ in 0..reps * 4 {
        let z = random_bits(&mut rng, z_bits);
        let t = Instant::now();
        let a = pow_mod_vartime(&v, &z, &n2)?;
        old += ms(t);
        let t = Instant::now();
        let b = table.pow_vartime(&z)?;
        new += ms(t);
        assert_eq!(a, b);
    }
    let r = f64::from(reps * 4);
    println!(
        "v^z mod N^2, {z_bits}-bit z: mpz_powm {:.1} ms  Yao table {:.1} ms  ratio {:.2}x (table built once: {build:.0} ms)",
        old / r,
        new / r,
        old / new
    );
    Ok(())
}
