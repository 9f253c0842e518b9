//! What a timestamp witness checks before it cosigns a round.

use super::chain::ChainHead;
use super::merkle::Hash;
use super::round::RoundHeader;
use crate::validator::Validator;
use std::sync::Arc;

/// A witness's clock: milliseconds since the Unix epoch.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// The default bound on `|round time − witness clock|`: 10 seconds.
pub const DEFAULT_MAX_SKEW_MS: u64 = 10_000;

/// The system clock (0 if it reads before 1970).
pub fn system_clock() -> Clock {
    Arc::new(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    })
}

/// The [`Validator`] of a timestamp witness. It cosigns a message only if it is a
/// [`RoundHeader`] of this witness's roster that
/// 1. has the round number right after the last round this witness cosigned
///    ([`ChainHead::next_round`]);
/// 2. links to that round: `prev` is its [`RoundHeader::hash`] ([`ChainHead::prev`]);
/// 3. has a time no earlier than that round's, and within `max_skew_ms` of the witness's
///    clock.
///
/// After cosigning it moves its head to the new round, so it never cosigns two rounds at one
/// position. A witness's head must survive restarts (an in-process cosigner resumes from the
/// service's store).
pub struct TimestampValidator {
    roster_id: Hash,
    head: ChainHead,
    max_skew_ms: u64,
    clock: Clock,
}

impl std::fmt::Debug for TimestampValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimestampValidator")
            .field("roster_id", &hex::encode(self.roster_id))
            .field("head", &self.head)
            .field("max_skew_ms", &self.max_skew_ms)
            .finish_non_exhaustive()
    }
}

impl TimestampValidator {
    /// A witness of roster `roster_id` whose last cosigned round left the chain at `head`
    /// ([`ChainHead::genesis`] for a new chain).
    pub fn new(roster_id: Hash, head: ChainHead, max_skew_ms: u64, clock: Clock) -> Self {
        TimestampValidator {
            roster_id,
            head,
            max_skew_ms,
            clock,
        }
    }

    /// Where this witness expects the chain to continue.
    pub fn head(&self) -> &ChainHead {
        &self.head
    }
}

impl Validator for TimestampValidator {
    fn check(&mut self, message: &[u8]) -> Result<(), String> {
        let h = RoundHeader::from_message(message)
            .ok_or_else(|| "not a timestamp round header".to_owned())?;
        if h.roster_id != self.roster_id {
            return Err("round header names another roster".into());
        }
        if h.round != self.head.next_round {
            return Err(format!(
                "round {} is not the next round ({})",
                h.round, self.head.next_round
            ));
        }
        if h.prev != self.head.prev {
            return Err("prev does not extend the last round this witness cosigned".into());
        }
        if h.time_ms < self.head.last_time_ms {
            return Err("round time goes backwards".into());
        }
        let now = (self.clock)();
        if h.time_ms.abs_diff(now) > self.max_skew_ms {
            return Err(format!(
                "round time {} ms is more than {} ms from this witness's clock ({now} ms)",
                h.time_ms, self.max_skew_ms
            ));
        }
        Ok(())
    }

    fn cosigned(&mut self, message: &[u8]) {
        if let Some(h) = RoundHeader::from_message(message) {
            self.head = ChainHead::after(&h);
        }
    }
}
