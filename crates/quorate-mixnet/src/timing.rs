//! Wall-clock timing of protocol steps for benchmark reports ([`StepTimes`]). The protocol
//! steps take a `&mut StepTimes` in their `*_timed` variants; nothing in the protocol reads it.

use quorate_core::PartyId;
use std::time::{Duration, Instant};

/// Wall-clock time per protocol step (`Some(server)` for one server's own work, `None` for
/// checks done once on the whole published data), for benchmark reports.
#[derive(Clone, Debug, Default)]
pub struct StepTimes {
    /// `(step, server, duration)`.
    pub entries: Vec<(&'static str, Option<PartyId>, Duration)>,
}

impl StepTimes {
    /// Records one measurement.
    pub fn add(&mut self, step: &'static str, who: Option<PartyId>, d: Duration) {
        self.entries.push((step, who, d));
    }

    /// Runs `f`, recording its wall-clock time.
    pub fn time<T>(
        &mut self,
        step: &'static str,
        who: Option<PartyId>,
        f: impl FnOnce() -> T,
    ) -> T {
        let start = Instant::now();
        let out = f();
        self.add(step, who, start.elapsed());
        out
    }

    /// The sum over all entries of `step`.
    pub fn total(&self, step: &str) -> Duration {
        self.entries
            .iter()
            .filter(|(s, _, _)| *s == step)
            .map(|(_, _, d)| *d)
            .sum()
    }

    /// The mean over the servers' entries of `step` (zero if none).
    pub fn mean_per_server(&self, step: &str) -> Duration {
        let v: Vec<Duration> = self
            .entries
            .iter()
            .filter(|(s, w, _)| *s == step && w.is_some())
            .map(|(_, _, d)| *d)
            .collect();
        if v.is_empty() {
            return Duration::ZERO;
        }
        v.iter().sum::<Duration>() / (v.len() as u32)
    }

    /// The distinct step names in first-seen order.
    pub fn steps(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for (s, _, _) in &self.entries {
            if !out.contains(s) {
                out.push(s);
            }
        }
        out
    }
}
