//! Calls to several hot nodes at once. Each node's call runs on its own thread, bounded by
//! the call's own timeout, so a slow or dead node costs one timeout, not one per node, and
//! never holds the others up; every result stays attributed to its node id.

/// Most calls in flight at once (a client facing 100 hot nodes opens 32 connections at a
/// time, not 100).
const MAX_IN_FLIGHT: usize = 32;

/// Runs `f(id, job)` for every `(id, job)`, up to [`MAX_IN_FLIGHT`] at once, and returns
/// the results in the jobs' order, each with its node id. A panic in `f` is re-raised.
pub(crate) fn on_each<T, R, F>(jobs: Vec<(u16, T)>, f: F) -> Vec<(u16, R)>
where
    T: Send,
    R: Send,
    F: Fn(u16, T) -> R + Sync,
{
    let mut out = Vec::with_capacity(jobs.len());
    let mut jobs = jobs.into_iter().peekable();
    while jobs.peek().is_some() {
        let batch: Vec<(u16, T)> = jobs.by_ref().take(MAX_IN_FLIGHT).collect();
        std::thread::scope(|s| {
            let running: Vec<_> = batch
                .into_iter()
                .map(|(id, job)| {
                    let f = &f;
                    (id, s.spawn(move || f(id, job)))
                })
                .collect();
            for (id, handle) in running {
                match handle.join() {
                    Ok(r) => out.push((id, r)),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_their_node_and_order_beyond_one_batch() {
        let jobs: Vec<(u16, u32)> = (1..=70u16).map(|id| (id, u32::from(id) * 10)).collect();
        let out = on_each(jobs, |id, x| (id, x + 1));
        assert_eq!(out.len(), 70);
        for (pos, (id, (seen, x))) in out.into_iter().enumerate() {
            assert_eq!(usize::from(id), pos + 1);
            assert_eq!(seen, id);
            assert_eq!(x, u32::from(id) * 10 + 1);
        }
    }
}
