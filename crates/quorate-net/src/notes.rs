//! # Notes: the simulation model
//!
//! This module holds no code; it documents what the simulator measures, what it merely
//! models, and where results can vary between runs.
//!
//! ## Same code, one process
//!
//! Every node runs the real protocol code: the simulator owns one [`Process`] per node and
//! calls its handlers one at a time on a single thread. Nothing is copied or mocked; the
//! adapter between a sans-I/O protocol and [`Process`] (or [`Lockstep`] for round-based
//! protocols) is the same glue a production transport uses. Nodes are numbered by dense
//! [`NodeId`]s; node `i` is production party `PartyId(i + 1)`.
//!
//! ## Simulated time
//!
//! Time is a `u64` count of nanoseconds ([`SimTime`]). Pending events are ordered by
//! `(time, sequence number)`; the sequence number is the order of insertion, so ties are
//! broken first-come first-served and the run is a pure function of the inputs, the seed
//! and the charged compute times. Since no event is ever scheduled before the one being
//! processed, the queue is a radix heap (monotone priority queue) rather than a binary
//! heap: same order, O(1) pushes and cache-friendly pops, which matters once millions of
//! messages are in flight (a property test checks it against a binary heap).
//!
//! ## Compute: measured, then charged
//!
//! Each handler call is timed with [`std::time::Instant`] (wall-clock time of the real
//! protocol code on this machine, from just before the call to just after
//! [`Process::take_output`]). The [`ComputeModel`] decides what that costs in simulated
//! time. Under [`ComputeModel::Measured`] a handler that starts at simulated time `t` and
//! runs for `d` keeps its node busy until `t + d`:
//!
//! * events for the node that arrive before `t + d` wait in a per-node FIFO and run, in
//!   arrival order, as soon as the node is free (this is how a loaded root shows up as
//!   queueing delay);
//! * every message the handler sends departs at `t + d`, and timers count from `t + d`;
//! * an output returned by the handler is stamped `t + d`.
//!
//! `Context::now()` inside the handler is `t`. Each node has its own simulated CPU, so
//! thousands of nodes compute concurrently in simulated time.
//!
//! Caveats of measuring this way: the measurement includes allocator and cache effects of
//! running thousands of parties in one address space, and anything else the machine is
//! doing; `Instant` costs tens of nanoseconds, which dominates trivially small handlers;
//! and handlers that sleep or block would be charged for it.
//!
//! [`SimConfig::with_cpu_clock`]`(`[`CpuClock::Thread`]`)` times handlers with the
//! simulator thread's CPU clock instead (user + system time, as the CoSi paper's Fig. 4
//! reports): a handler is no longer charged for time the thread spent descheduled while
//! other processes ran, at the price of a system call (well under a microsecond) per
//! handler. The default stays [`CpuClock::Wall`].
//!
//! ## Network
//!
//! Each node has a NIC with an uplink and a downlink ([`Nic`], [`Bandwidth`]), each a FIFO
//! server. A message of `s` bytes (its [`WireSize`] plus the model's per-message framing
//! overhead) sent from `a` to `b` at time `t` with one-way latency `L` (plus jitter, if
//! configured) travels as follows, with `up(a)` and `down(b)` the rates:
//!
//! ```text
//! up_start   = max(t, uplink of a free)          up_end   = up_start + s / up(a)
//! first bit reaches b at  up_start + L,          last bit at  up_end + L
//! down_start = max(up_start + L, downlink of b free)
//! delivered  = max(down_start + s / down(b), up_end + L)
//! ```
//!
//! This is cut-through transmission: a message is on the uplink and downlink at the same
//! time, shifted by the latency, so a 1 MB message over a 1 MB/s path with latency `L`
//! arrives after exactly `L + 1 s`, not `L + 2 s`. Messages queue behind one another on
//! each NIC in order (uplink: in order of sending; downlink: in order of first-bit
//! arrival), so ten concurrent 1 MB messages into one 1 MB/s downlink arrive one second
//! apart instead of sharing the rate fairly; total throughput and the completion time of
//! the last message are the same as with fair sharing. There is no congestion inside the
//! network: all contention is at the end points. A "link" of rate `r` between two nodes
//! is modelled by giving both NICs rate `r`.
//!
//! A broadcast is `n - 1` unicast copies serialized one after another on the sender's
//! uplink. Messages to oneself are delivered at the departure time without touching the
//! network. Unlimited bandwidth means zero serialization delay and no queueing.
//!
//! ## Faults
//!
//! * Loss: each message is dropped independently with the configured probability (drawn
//!   from the seeded generator at send time, after it has used the sender's uplink).
//! * Offline nodes never start and never run a handler; messages to them are counted and
//!   dropped. Crashed nodes stop at the crash time; queued work and timers are discarded,
//!   messages already in flight from them are still delivered.
//! * Timers can be cancelled; a cancelled timer never fires.
//!
//! ## Counters
//!
//! Messages and bytes sent are counted when a handler sends (including lost, misaddressed
//! and undeliverable messages), received when a message is handed to a handler. CPU time
//! is the measured time; `compute` is what was charged. See [`NodeStats`] and [`Report`].
//!
//! ## Determinism
//!
//! The simulated timeline is reproducible when the charged compute is: with
//! [`ComputeModel::Ignore`] (or `MeasureOnly` / `Fixed`, which charge nothing or a
//! constant), the same processes, network, seed and configuration give the same event
//! order, timestamps, drops and counters; under `Ignore` the entire [`Report`] is equal,
//! and [`Report::without_measurements`] removes the measured CPU fields for the other two.
//! With `Measured` or `Scaled`, measured times differ from run to run, so timestamps, the
//! interleaving of events, and through them the jitter and loss draws, differ too. The
//! protocol itself must also be deterministic (seed its own RNGs) for runs to repeat.
//!
//! [`Process`]: crate::Process
//! [`Process::take_output`]: crate::Process::take_output
//! [`Lockstep`]: crate::rounds::Lockstep
//! [`NodeId`]: crate::NodeId
//! [`SimTime`]: crate::SimTime
//! [`ComputeModel`]: crate::ComputeModel
//! [`ComputeModel::Measured`]: crate::ComputeModel::Measured
//! [`ComputeModel::Ignore`]: crate::ComputeModel::Ignore
//! [`SimConfig::with_cpu_clock`]: crate::SimConfig::with_cpu_clock
//! [`CpuClock::Thread`]: crate::CpuClock::Thread
//! [`CpuClock::Wall`]: crate::CpuClock::Wall
//! [`Nic`]: crate::Nic
//! [`Bandwidth`]: crate::Bandwidth
//! [`WireSize`]: crate::WireSize
//! [`NodeStats`]: crate::NodeStats
//! [`Report`]: crate::Report
//! [`Report::without_measurements`]: crate::Report::without_measurements
