//! Calls to several hot nodes at once. Each node's call runs on a worker thread, bounded
//! by the call's own timeout, so a slow or dead node costs one timeout, not one per node, and
//! never holds the others up; every result stays attributed to its node id.

use std::sync::Mutex;

/// Most calls in flight at once (a client facing 100 hot nodes opens 32 connections at a
/// time, not 100).
const MAX_IN_FLIGHT: usize = 32;

/// Runs `f(id, job)` for every `(id, job)`, up to [`MAX_IN_FLIGHT`] at once, and returns
/// the results in the jobs' order, each with its node id. A panic in `f` is re-raised.
///
/// A sliding window: [`MAX_IN_FLIGHT`] workers each take the next job as soon as their
/// last call returns, so one slow node delays only its own worker (fixed batches of 32
/// used to wait for the slowest call of each batch before starting the next 32).
pub(crate) fn on_each<T, R, F>(jobs: Vec<(u16, T)>, f: F) -> Vec<(u16, R)>
where
    T: Send,
    R: Send,
    F: Fn(u16, T) -> R + Sync,
{
    let workers = jobs.len().min(MAX_IN_FLIGHT);
    let queue = Mutex::new(jobs.into_iter().enumerate());
    let mut done: Vec<(usize, u16, R)> = std::thread::scope(|s| {
        let running: Vec<_> = (0..workers)
            .map(|_| {
                let (f, queue) = (&f, &queue);
                s.spawn(move || {
                    let mut out = Vec::new();
                    loop {
                        // The lock is held only to take a job, never across a call.
                        let next = match queue.lock() {
                            Ok(mut q) => q.next(),
                            Err(poisoned) => poisoned.into_inner().next(),
                        };
                        let Some((pos, (id, job))) = next else {
                            return out;
                        };
                        out.push((pos, id, f(id, job)));
                    }
                })
            })
            .collect();
        let mut all = Vec::new();
        for handle in running {
            match handle.join() {
                Ok(results) => all.extend(results),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    done.sort_unstable_by_key(|(pos, _, _)| *pos);
    done.into_iter().map(|(_, id, r)| (id, r)).collect()
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

    /// A slow call holds up only its own worker: with `MAX_IN_FLIGHT + 1` jobs, the first
    /// waits until every other job has finished, which needs the last job to start while
    /// the first is still running (fixed batches never started it, and the first job gave
    /// up after its deadline). At no time are more than `MAX_IN_FLIGHT` calls running.
    #[test]
    fn a_slow_call_does_not_hold_up_the_others_and_the_window_is_bounded() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::time::{Duration, Instant};
        let others = MAX_IN_FLIGHT;
        let finished = AtomicUsize::new(0);
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let jobs: Vec<(u16, ())> = (1..=u16::try_from(others + 1).expect("small"))
            .map(|id| (id, ()))
            .collect();
        let out = on_each(jobs, |id, ()| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            let saw_all = if id == 1 {
                let deadline = Instant::now() + Duration::from_secs(20);
                while finished.load(Ordering::SeqCst) < others && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(5));
                }
                finished.load(Ordering::SeqCst) == others
            } else {
                std::thread::sleep(Duration::from_millis(2));
                finished.fetch_add(1, Ordering::SeqCst);
                true
            };
            running.fetch_sub(1, Ordering::SeqCst);
            saw_all
        });
        assert_eq!(out.len(), others + 1);
        assert!(
            out.iter().all(|(_, ok)| *ok),
            "the slow call held up another"
        );
        assert!(most.load(Ordering::SeqCst) <= MAX_IN_FLIGHT);
    }
}
