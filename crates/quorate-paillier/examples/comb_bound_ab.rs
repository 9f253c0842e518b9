//! `cargo run --release -p quorate-paillier --example comb_bound_ab -- REPS`: interleaved
//! A/B of [`FixedBaseCt::pow`] (every row of the table) against [`FixedBaseCt::pow_bits`]
//! (only the rows a public bound needs) at the table shapes the mixnet uses at
//! `|N| = 3072` (issue 17, lever 3): `h_N` mod the 6144-bit `N²` (table for 1704-bit masks,
//! randomness `α` of 1536 bits), the ring-Pedersen `t` mod a 3072-bit `Ñ` (table for
//! 3280-bit masks, randomness `μ` of 3112 bits) and `s` (table for 465-bit values, masks
//! `a` of 295 bits). Each round times both on the same exponent, alternating which goes
//! first, and checks they agree; prints the medians.
use quorate_paillier::bigint::{random_bits, SecretInteger};
use quorate_paillier::fixed_base::FixedBaseCt;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for (what, mod_bits, table_bits, bits) in [
        ("h_N^alpha", 6144u32, 1704u32, 1536u32),
        ("t^mu", 3072, 3280, 3112),
        ("s^a", 3072, 465, 295),
    ] {
        let mut m = random_bits(&mut rng, mod_bits);
        m.set_bit(mod_bits - 1, true);
        m.set_bit(0, true);
        let m = m.next_prime();
        let base = random_bits(&mut rng, mod_bits - 8) + 3u32;
        let table = FixedBaseCt::new(&base, &m, table_bits)?;
        let (mut full, mut bounded) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
        for round in 0..reps {
            let e = SecretInteger::new(random_bits(&mut rng, bits));
            let run = |use_bound: bool| -> Result<_, Box<dyn std::error::Error>> {
                let t0 = Instant::now();
                let x = if use_bound {
                    table.pow_bits(&e, bits)?
                } else {
                    table.pow(&e)?
                };
                Ok((x, t0.elapsed().as_secs_f64() * 1e6))
            };
            let (a, b) = if round % 2 == 0 {
                let a = run(false)?;
                (a, run(true)?)
            } else {
                let b = run(true)?;
                (run(false)?, b)
            };
            assert_eq!(a.0, b.0, "bounded and full comb disagree");
            full.push(a.1);
            bounded.push(b.1);
        }
        full.sort_by(f64::total_cmp);
        bounded.sort_by(f64::total_cmp);
        let (f, b) = (full[reps / 2], bounded[reps / 2]);
        println!(
            "{what}: table {table_bits} bits, exponent {bits} bits mod {mod_bits}: full {f:.0} us, bounded {b:.0} us ({:.2}x)",
            f / b
        );
    }
    Ok(())
}
