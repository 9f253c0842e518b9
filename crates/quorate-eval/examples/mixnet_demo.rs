//! `cargo run --release -p quorate-eval --example mixnet_demo -- N M T PAILLIER_BITS`:
//! one timed run with every proof verified; prints statuses, per-step times and sizes.
use quorate_eval::mixnet::{run_demo, DemoConfig};
use rand_core::OsRng;

fn arg<T: std::str::FromStr>(i: usize, default: T) -> T {
    std::env::args()
        .nth(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = DemoConfig {
        n: arg(1, 10),
        m: arg(2, 2),
        t: arg(3, 2),
        paillier_bits: arg(4, 1024),
        progress: false,
    };
    let r = run_demo(cfg, &mut OsRng)?;
    println!("config: {:?}", r.config);
    for (k, v) in &r.statuses {
        println!("status_{k}: {v}");
    }
    let n = cfg.n as f64;
    let mut section = "";
    for (s, row, d) in &r.timings {
        if *s != section {
            println!("== {s}");
            section = s;
        }
        let ms = d.as_secs_f64() * 1e3;
        println!("  {row:<70} {ms:>10.1} ms  ({:.3} ms/elt)", ms / n);
    }
    println!("== sizes");
    for (k, b) in &r.sizes {
        println!("  {k:<70} {b:>10} B  ({:.0} B/elt)", *b as f64 / n);
    }
    Ok(())
}
