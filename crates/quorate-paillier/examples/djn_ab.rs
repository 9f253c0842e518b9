//! `cargo run --release -p quorate-paillier --example djn_ab -- BITS REPS`: A/B of one
//! Paillier encryption's randomness at a `BITS`-bit `N` (issue 17, lever 3), interleaved in
//! one process: `r^N mod N²` on the constant-time path (what the Enc-to-shares masks and
//! their check used) against `h_N^α` from fixed-base tables with `|α| = ⌈|N|/2⌉`
//! (prover: full-scan comb table; verifier: Yao table for the public response).
use quorate_paillier::bigint::{pow_mod_secret, random_bits, random_unit, SecretInteger};
use quorate_paillier::fixed_base::{FixedBase, FixedBaseCt};
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (bits, reps) = (arg(1, 3072), arg(2, 10));
    let mut rng = ChaCha20Rng::seed_from_u64(173);
    // Timing does not depend on N's factorisation: any odd N of the right size will do.
    let n: Integer = random_bits(&mut rng, bits) | (Integer::from(1) << (bits - 1)) | 1u32;
    let n2 = Integer::from(n.square_ref());
    let h_n = pow_mod_secret(&random_unit(&mut rng, &n)?, &n, &n2)?;
    let alpha_bits = bits.div_ceil(2);
    let (mask_bits, resp_bits) = (alpha_bits + 128 + 40, alpha_bits + 128 + 40 + 1);
    let t = Instant::now();
    let ct = FixedBaseCt::new(&h_n, &n2, mask_bits)?;
    let pubt = FixedBase::new(&h_n, &n2, resp_bits)?;
    println!(
        "tables: {:.0} ms, {:.1} MB + {:.2} MB",
        t.elapsed().as_secs_f64() * 1e3,
        ct.memory_bytes() as f64 / 1e6,
        pubt.memory_bytes() as f64 / 1e6
    );
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let (mut old_p, mut new_p, mut old_v, mut new_v) = (0.0, 0.0, 0.0, 0.0);
    for _ in 0..reps {
        let r = random_unit(&mut rng, &n)?;
        let t = Instant::now();
        std::hint::black_box(pow_mod_secret(&r, &n, &n2)?);
        old_p += ms(t);
        let a = SecretInteger::new(random_bits(&mut rng, alpha_bits));
        let t = Instant::now();
        std::hint::black_box(ct.pow(&a)?);
        new_p += ms(t);
        let w = random_unit(&mut rng, &n)?;
        let t = Instant::now();
        std::hint::black_box(pow_mod_secret(&w, &n, &n2)?);
        old_v += ms(t);
        let z = random_bits(&mut rng, resp_bits);
        let t = Instant::now();
        std::hint::black_box(pubt.pow_vartime(&z)?);
        new_v += ms(t);
    }
    let r = f64::from(reps);
    println!(
        "N={bits}b reps={reps}: prover r^N (ct) {:.2} ms, h_N^alpha (comb) {:.2} ms ({:.1}x); verifier w^N (ct, as before) {:.2} ms, h_N^z (Yao) {:.2} ms ({:.1}x)",
        old_p / r,
        new_p / r,
        old_p / new_p,
        old_v / r,
        new_v / r,
        old_v / new_v
    );
    Ok(())
}
