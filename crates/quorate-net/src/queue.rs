//! The deterministic event queue.
//!
//! Events are ordered by `(time, sequence number)`, where the sequence number is the
//! order of insertion, so a run is a pure function of the order in which events are
//! pushed. Because a discrete-event simulation never schedules into the past (every new
//! event is at or after the event being processed), the queue is a *radix heap*
//! (Ahuja, Mehlhorn, Orlin and Tarjan 1990) rather than a binary heap: 64 buckets keyed by
//! the highest bit in which an event's time differs from the last time popped. Pushing
//! is O(1); each event moves to a strictly lower bucket at most 64 times before it is
//! popped, and all moves are sequential `Vec` traffic, so large queues (millions of
//! pending messages) stay cache-friendly where a binary heap's pops would miss the
//! cache at every level. Events with equal times are popped in insertion order.

use std::collections::VecDeque;

const BUCKETS: usize = 64;

pub(crate) struct EventQueue<E> {
    /// The time of the last popped (or peeked) event; no pending event is earlier.
    last: u64,
    seq: u64,
    len: usize,
    /// Events at exactly `last`, in sequence order.
    front: VecDeque<(u64, E)>,
    /// `buckets[i]` holds events whose time differs from `last` first in bit `i`
    /// (counting from the least significant), in no particular order.
    buckets: Vec<Vec<(u64, u64, E)>>,
}

fn bucket_of(time: u64, last: u64) -> Option<usize> {
    let diff = time ^ last;
    if diff == 0 {
        None
    } else {
        Some(63 - diff.leading_zeros() as usize)
    }
}

impl<E> EventQueue<E> {
    pub(crate) fn new() -> Self {
        EventQueue {
            last: 0,
            seq: 0,
            len: 0,
            front: VecDeque::new(),
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
        }
    }

    /// Schedules `event` at `time`. Times before the last popped time cannot occur in
    /// the simulator; they are treated as "now".
    pub(crate) fn push(&mut self, time: u64, event: E) {
        debug_assert!(time >= self.last, "event scheduled in the past");
        let time = time.max(self.last);
        let seq = self.seq;
        self.seq += 1;
        self.len += 1;
        match bucket_of(time, self.last) {
            None => self.front.push_back((seq, event)),
            Some(b) => {
                if let Some(bucket) = self.buckets.get_mut(b) {
                    bucket.push((time, seq, event));
                }
            }
        }
    }

    /// Makes `front` hold the earliest events, if any are pending.
    fn refill(&mut self) {
        if !self.front.is_empty() {
            return;
        }
        let Some(b) = self.buckets.iter().position(|v| !v.is_empty()) else {
            return;
        };
        let mut items = std::mem::take(&mut self.buckets[b]);
        let Some(min) = items.iter().map(|(t, _, _)| *t).min() else {
            return;
        };
        self.last = min;
        let mut now = Vec::new();
        for (t, seq, e) in items.drain(..) {
            match bucket_of(t, min) {
                None => now.push((seq, e)),
                Some(nb) => {
                    if let Some(bucket) = self.buckets.get_mut(nb) {
                        bucket.push((t, seq, e));
                    }
                }
            }
        }
        // Keep the allocation for reuse.
        self.buckets[b] = items;
        now.sort_unstable_by_key(|(seq, _)| *seq);
        self.front.extend(now);
    }

    pub(crate) fn peek_time(&mut self) -> Option<u64> {
        self.refill();
        if self.front.is_empty() {
            None
        } else {
            Some(self.last)
        }
    }

    pub(crate) fn pop(&mut self) -> Option<(u64, E)> {
        self.refill();
        let (_, e) = self.front.pop_front()?;
        self.len -= 1;
        Some((self.last, e))
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn time_then_fifo() {
        let mut q = EventQueue::new();
        q.push(5, 'a');
        q.push(1, 'b');
        q.push(5, 'c');
        q.push(1, 'd');
        q.push(0, 'e');
        assert_eq!(q.len(), 5);
        let mut out = String::new();
        while let Some((_, e)) = q.pop() {
            out.push(e);
        }
        assert_eq!(out, "ebdac");
        assert_eq!(q.peek_time(), None);
        assert_eq!(q.len(), 0);
    }

    proptest! {
        /// Matches a binary heap on (time, seq) under any monotone schedule: each step
        /// pushes events at offsets from the current time, then pops some.
        #[test]
        fn matches_binary_heap(
            steps in proptest::collection::vec(
                (proptest::collection::vec(
                    prop_oneof![Just(0u64), 0u64..4, 0u64..1_000, 0u64..u64::MAX / 4],
                    0..6,
                ), 0usize..5),
                1..200,
            )
        ) {
            let mut q = EventQueue::new();
            let mut reference = BinaryHeap::new();
            let mut seq = 0u64;
            let mut now = 0u64;
            for (pushes, pops) in steps {
                for off in pushes {
                    let t = now.saturating_add(off);
                    q.push(t, seq);
                    reference.push(Reverse((t, seq)));
                    seq += 1;
                }
                for _ in 0..pops {
                    let expect = reference.pop().map(|Reverse(x)| x);
                    prop_assert_eq!(q.peek_time(), expect.map(|(t, _)| t));
                    let got = q.pop();
                    prop_assert_eq!(got, expect);
                    if let Some((t, _)) = got {
                        now = t;
                    }
                }
                prop_assert_eq!(q.len(), reference.len());
            }
            while let Some(Reverse(x)) = reference.pop() {
                prop_assert_eq!(q.pop(), Some(x));
            }
            prop_assert_eq!(q.pop(), None);
        }
    }
}
