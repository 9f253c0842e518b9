//! `cargo run --release -p quorate-mixnet --example ring_pedersen_ab -- BITS REPS`: A/B of
//! the ring-Pedersen commitments and their verifier recomputation at a `BITS`-bit `Ñ`
//! (issue 17), interleaved in one process: the plain path ([`RingPedersenParams::commit`]
//! with `mpz_powm_sec`, [`RingPedersenParams::recompute_vartime`]) against the fixed-base
//! tables ([`RingPedersenTables`]: full-scan comb for the prover's secret exponents, Yao
//! tables for the verifier's public responses), at the sender's linking-proof sizes.
use quorate_mixnet::params::CHALLENGE_BITS;
use quorate_mixnet::ring_pedersen::{RingPedersenParams, RingPedersenTables};
use quorate_mixnet::sender::MASK_BITS;
use quorate_mixnet::sharing::PROOF_MASK_BITS;
use quorate_paillier::bigint::{random_bits, random_unit};
use quorate_paillier::rug::Integer;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Instant;

fn arg(i: usize, default: u32) -> u32 {
    std::env::args()
        .nth(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (bits, reps) = (arg(1, 3072), arg(2, 20));
    let mut rng = ChaCha20Rng::seed_from_u64(171);
    // Timing does not depend on Ñ's factorisation: any odd Ñ of the right size will do.
    let n_hat: Integer = random_bits(&mut rng, bits) | (Integer::from(1) << (bits - 1)) | 1u32;
    let t = random_unit(&mut rng, &n_hat)?;
    let s = random_unit(&mut rng, &n_hat)?;
    let rp = RingPedersenParams { n_hat, s, t };
    let x_bits = MASK_BITS.max(PROOF_MASK_BITS) + 2;
    let t0 = Instant::now();
    let tables = RingPedersenTables::new(&rp, x_bits)?;
    println!("tables: {:.0} ms", t0.elapsed().as_secs_f64() * 1e3);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let (mut old_p, mut new_p, mut old_v, mut new_v) = (0.0, 0.0, 0.0, 0.0);
    for _ in 0..reps {
        // Prover: commit to a mask α (MASK_BITS) with a μ-mask, as the linking proof does.
        let (x, mu) = (
            random_bits(&mut rng, MASK_BITS),
            rp.random_mu_mask(&mut rng),
        );
        let t = Instant::now();
        let a = rp.commit(&x, &mu)?;
        old_p += ms(t);
        let t = Instant::now();
        let b = tables.commit(&x, &mu)?;
        new_p += ms(t);
        assert_eq!(a, b);
        // Verifier: s^z t^{z_μ} S^{−e} for a response of the linking proof's size.
        let (z, z_mu) = (
            random_bits(&mut rng, MASK_BITS + 1),
            rp.random_mu_mask(&mut rng),
        );
        let e = random_bits(&mut rng, CHALLENGE_BITS);
        let t = Instant::now();
        let a = rp.recompute_vartime(&z, &z_mu, &b, &e);
        old_v += ms(t);
        let t = Instant::now();
        let c = tables.recompute_vartime(&z, &z_mu, &b, &e);
        new_v += ms(t);
        assert_eq!(a, c);
    }
    let r = f64::from(reps);
    println!(
        "commit (prover, secret):       plain {:.2} ms  tables {:.2} ms  ratio {:.2}x",
        old_p / r,
        new_p / r,
        old_p / new_p
    );
    println!(
        "recompute (verifier, public):  plain {:.2} ms  tables {:.2} ms  ratio {:.2}x",
        old_v / r,
        new_v / r,
        old_v / new_v
    );
    Ok(())
}
