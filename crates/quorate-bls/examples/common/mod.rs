//! What the profiling examples (`cpu_profile`, `client_profile`) share: the process CPU
//! clock and the `(t,n)` sets on the command line.

/// CPU time of every thread of this process (`/proc/self/task/*/schedstat`): rayon runs
/// on the measuring thread, but `blst`'s multi-scalar multiplications and multi-Miller
/// loops hand work to `blst`'s own thread pool, which must be counted too.
pub fn process_cpu_ns() -> u64 {
    std::fs::read_dir("/proc/self/task")
        .expect("Linux procfs")
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok())
        .map(|s| s.split_whitespace().next().unwrap().parse::<u64>().unwrap())
        .sum()
}

/// The `(t,n)` sets of the first argument (`3/5,5/20`), or the three sizes of the rows.
pub fn size_sets() -> Vec<(u16, u16)> {
    std::env::args()
        .nth(1)
        .map(|a| {
            a.split(',')
                .map(|p| {
                    let (t, n) = p.split_once('/').unwrap();
                    (t.parse().unwrap(), n.parse().unwrap())
                })
                .collect()
        })
        .unwrap_or_else(|| vec![(3, 5), (5, 20), (67, 100)])
}
