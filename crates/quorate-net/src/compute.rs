//! How handler running time is charged to a node's simulated clock.

use crate::time::duration_nanos;
use std::time::Duration;

/// What the simulator does with the time protocol code spends in a handler.
///
/// Handlers run for real; the simulator can time them with [`std::time::Instant`] and
/// make the node *busy* for that long in simulated time, so that its later events queue
/// behind the work and its messages leave only when the work is done. Each node has its
/// own simulated CPU, so thousands of nodes compute "in parallel" in simulated time even
/// though the simulator runs them one after another.
///
/// | model | timed? | charged to the simulated clock | reports reproducible? |
/// |---|---|---|---|
/// | `Ignore` | no | nothing | bit-for-bit |
/// | `MeasureOnly` | yes | nothing | timestamps yes, CPU fields no |
/// | `Measured` (default) | yes | the measured time | no |
/// | `Scaled(f)` | yes | `f ×` the measured time | no |
/// | `Fixed(d)` | yes | `d` per handler call | timestamps yes, CPU fields no |
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum ComputeModel {
    /// Handlers take no simulated time and are not timed (CPU fields stay zero).
    Ignore,
    /// Handlers are timed and the time is recorded, but not charged to the clock.
    MeasureOnly,
    /// Handlers are timed and the measured time is charged.
    #[default]
    Measured,
    /// Handlers are timed and `factor ×` the measured time is charged, e.g. `2.0` to model
    /// machines half as fast as this one. Negative or NaN factors charge nothing.
    Scaled(f64),
    /// Handlers are timed (and recorded), but every call is charged this fixed cost.
    Fixed(Duration),
}

impl ComputeModel {
    /// Whether handlers are timed.
    pub fn measures(&self) -> bool {
        !matches!(self, ComputeModel::Ignore)
    }

    /// The simulated nanoseconds charged for a handler that ran for `measured`.
    pub fn charge_nanos(&self, measured: Duration) -> u64 {
        match *self {
            ComputeModel::Ignore | ComputeModel::MeasureOnly => 0,
            ComputeModel::Measured => duration_nanos(measured),
            ComputeModel::Scaled(f) => {
                let ns = measured.as_nanos() as f64 * f;
                if ns.is_nan() || ns <= 0.0 {
                    0
                } else {
                    // `as` saturates at u64::MAX.
                    ns as u64
                }
            }
            ComputeModel::Fixed(d) => duration_nanos(d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges() {
        let d = Duration::from_micros(10);
        assert_eq!(ComputeModel::Ignore.charge_nanos(d), 0);
        assert_eq!(ComputeModel::MeasureOnly.charge_nanos(d), 0);
        assert_eq!(ComputeModel::Measured.charge_nanos(d), 10_000);
        assert_eq!(ComputeModel::Scaled(2.5).charge_nanos(d), 25_000);
        assert_eq!(ComputeModel::Scaled(-1.0).charge_nanos(d), 0);
        assert_eq!(ComputeModel::Scaled(f64::NAN).charge_nanos(d), 0);
        assert_eq!(
            ComputeModel::Fixed(Duration::from_millis(1)).charge_nanos(d),
            1_000_000
        );
        assert!(!ComputeModel::Ignore.measures());
        assert!(ComputeModel::Fixed(d).measures());
    }
}
