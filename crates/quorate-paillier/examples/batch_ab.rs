//! `cargo run --release -p quorate-paillier --example batch_ab -- BITS L ROUNDS THREADS`:
//! A/B of one party's threshold decryption of `L` ciphertexts, one proof per share
//! ([`KeyShare::decrypt_share`] / [`ThresholdPublicKey::verify_share`]) against one batched
//! proof ([`KeyShare::decrypt_batch`] / [`ThresholdPublicKey::verify_batch`]), interleaved
//! in the same process so both see the same machine load (issue 17, lever 1).
use quorate_core::transcript::SessionId;
use quorate_core::ThresholdParams;
use quorate_paillier::bigint::random_below;
use quorate_paillier::threshold::deal;
use rand_chacha::ChaCha20Rng;
use rand_core::{OsRng, SeedableRng};
use std::time::Instant;

fn arg(i: usize, default: usize) -> usize {
    std::env::args()
        .nth(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (bits, l, rounds, threads) = (arg(1, 3072), arg(2, 12), arg(3, 3), arg(4, 1));
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()?;
    let mut rng = ChaCha20Rng::seed_from_u64(17);
    let t0 = Instant::now();
    let (tpk, keys) = deal(ThresholdParams::new(4, 4)?, u32::try_from(bits)?, &mut rng)?;
    println!("deal {bits}-bit: {:.1} s", t0.elapsed().as_secs_f64());
    let pk = tpk.encryption_key();
    let cts = (0..l)
        .map(|_| pk.encrypt(&random_below(&mut rng, pk.n()), &mut rng))
        .collect::<Result<Vec<_>, _>>()?;
    let sid = SessionId::new(b"batch-ab".to_vec());
    let key = &keys[0];
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for round in 0..rounds {
        let t = Instant::now();
        let singles = cts
            .iter()
            .map(|c| key.decrypt_share(&tpk, &sid, c, &mut OsRng))
            .collect::<Result<Vec<_>, _>>()?;
        let prove_single = ms(t);
        let t = Instant::now();
        for (c, s) in cts.iter().zip(&singles) {
            tpk.verify_share(&sid, c, s)?;
        }
        let verify_single = ms(t);
        let t = Instant::now();
        let batch = key.decrypt_batch(&tpk, &sid, &cts, &mut OsRng)?;
        let prove_batch = ms(t);
        let t = Instant::now();
        tpk.verify_batch(&sid, &cts, &batch)?;
        let verify_batch = ms(t);
        println!(
            "round {round} L={l} threads={threads}: prove single {prove_single:.1} ms, batch {prove_batch:.1} ms ({:.2}x); verify single {verify_single:.1} ms, batch {verify_batch:.1} ms ({:.2}x)",
            prove_single / prove_batch,
            verify_single / verify_batch
        );
    }
    Ok(())
}
