//! `quorate mixnet demo` and the `quorate demo` entry: one whole run, printed.

use super::{run, MixnetDemoArgs, NOT_IMPLEMENTED};
use quorate_eval::mixnet::DemoReport;
use quorate_mixnet::params::TEST_PAILLIER_BITS;
use serde_json::{json, Map, Value};

/// The JSON object of the CLI contract: `n`, `m`, `statuses`, `trace_in`, `trace_out`,
/// `ground_truth_permutation` (demo only), `sizes`, plus `t`, `paillier_bits`,
/// `timings_ms` and `not_implemented`.
pub fn to_json(r: &DemoReport) -> Value {
    let statuses: Map<String, Value> = r
        .statuses
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Value::Bool(*v)))
        .collect();
    let sizes: Map<String, Value> = r
        .sizes
        .iter()
        .map(|(k, v)| ((*k).to_owned(), json!(v)))
        .collect();
    let mut timings = Map::new();
    for (section, row, d) in &r.timings {
        let entry = timings
            .entry((*section).to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(map) = entry {
            map.insert(row.clone(), json!(d.as_secs_f64() * 1e3));
        }
    }
    json!({
        "n": r.config.n,
        "m": r.config.m,
        "t": r.config.t,
        "paillier_bits": r.config.paillier_bits,
        "statuses": statuses,
        "trace_in": { "outputs": r.trace_in_query, "inputs": r.trace_in, "via": "DB-SM" },
        "trace_out": {
            "inputs": r.trace_out_query,
            "outputs": r.trace_out,
            "outputs_not_from_inputs": r.trace_out_not_from,
            "via": "DB-RSM",
        },
        "ground_truth_permutation": r.ground_truth_permutation,
        "sizes": sizes,
        "timings_ms": timings,
        "not_implemented": NOT_IMPLEMENTED,
    })
}

fn summary(r: &DemoReport) -> String {
    let ok = r.statuses.iter().all(|(_, s)| *s);
    let mut out = format!(
        "traceable mixnet: n = {}, m = {}, t = {}, Paillier {} bits: {}\n",
        r.config.n,
        r.config.m,
        r.config.t,
        r.config.paillier_bits,
        if ok {
            "every proof verified"
        } else {
            "a status is false"
        }
    );
    for (k, v) in &r.statuses {
        out.push_str(&format!("  status {k}: {v}\n"));
    }
    out.push_str(&format!(
        "  BTraceIn({:?}) = {:?}\n",
        r.trace_in_query, r.trace_in
    ));
    out.push_str(&format!(
        "  BTraceOut({:?}) = {:?}\n",
        r.trace_out_query, r.trace_out
    ));
    out.push_str(&format!(
        "  not implemented: {}",
        NOT_IMPLEMENTED.join("; ")
    ));
    out
}

/// Runs a small traceable-mixnet demo (n = 10, m = 2, 1024-bit **test** Paillier modulus so
/// that it finishes in seconds) and returns a short summary.
pub fn run_default_demo() -> anyhow::Result<String> {
    Ok(summary(&run(10, 2, None, TEST_PAILLIER_BITS, false)?))
}

/// `quorate mixnet demo`.
pub fn demo(args: &MixnetDemoArgs) -> anyhow::Result<()> {
    let r = run(args.n, args.m, args.t, args.paillier_bits, false)?;
    if args.json {
        println!("{}", serde_json::to_string(&to_json(&r))?);
    } else {
        println!("{}", summary(&r));
    }
    Ok(())
}
