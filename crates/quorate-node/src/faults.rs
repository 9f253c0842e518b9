//! Test-only crash hooks at named persist steps.
//!
//! Every durable step of the keystore and of `node init` calls [`crash_point`] with a step
//! name from [`STEPS`]. Built with the cargo feature `test-faults`, a process whose
//! environment has `QUORATE_TEST_CRASH_AT=<step>` aborts (`SIGABRT`, no destructors, no
//! flushing: as abrupt as `kill -9` for everything on disk) when it reaches that step. Without
//! the feature the hook compiles to nothing and the variable is ignored. `<step>#<k>` aborts at
//! the `k`-th time the process reaches the step (from 1; `<step>` alone is `<step>#1`), e.g.
//! `keystore.commit_epoch.before_commit#2` passes a keygen's commit and stops in a refresh's.
//!
//! Step names are `<operation>.before_commit` (inside the SQLite transaction, before
//! `COMMIT`: nothing of the operation is durable) and `<operation>.after_commit` (the
//! transaction is durable; any follow-up such as a WAL checkpoint has not run). The
//! `runtime.*` steps are the session store's (`runtime.db`) claims: a coordinator's
//! `begin_attempt` (claim and request record, before any message is sent) and `end_attempt`
//! (outcome and request record), a participant's `claim_attempt` and `finish_attempt`. Their
//! `before_commit` is inside the group-commit transaction (every write batched with it is
//! lost too), `after_commit` is after it and before the caller is answered.

/// The environment variable naming the step to crash at.
pub const CRASH_ENV: &str = "QUORATE_TEST_CRASH_AT";

/// The environment variable that makes a node advertise another protocol version: its value
/// replaces the node's ALPN identifier ([`crate::transport::ALPN_V1`]), e.g. `quorate/2`.
pub const PROTOCOL_VERSION_ENV: &str = "QUORATE_TEST_PROTOCOL_VERSION";

/// The ALPN identifier `node run` advertises: [`crate::transport::ALPN_V1`], or with the
/// `test-faults` feature the value of [`PROTOCOL_VERSION_ENV`] when it is set.
pub fn advertised_alpn() -> Vec<u8> {
    #[cfg(feature = "test-faults")]
    if let Ok(v) = std::env::var(PROTOCOL_VERSION_ENV) {
        return v.into_bytes();
    }
    crate::transport::ALPN_V1.to_vec()
}

/// Every named persist step, in the order an operator would meet them.
pub const STEPS: &[&str] = &[
    "init.after_keystore",
    "init.after_token",
    "init.after_public_entry",
    "keystore.create.before_commit",
    "keystore.begin_epoch.before_commit",
    "keystore.begin_epoch.after_commit",
    "keystore.put_secret.before_commit",
    "keystore.put_secret.after_commit",
    "keystore.commit_epoch.before_commit",
    "keystore.commit_epoch.after_commit",
    "keystore.abandon_epoch.before_commit",
    "keystore.abandon_epoch.after_commit",
    "keystore.migrate.before_commit",
    "keystore.migrate.after_commit",
    "sessions.begin.before_commit",
    "sessions.begin.after_commit",
    "sessions.update.before_commit",
    "sessions.update.after_commit",
    "sessions.finish.before_commit",
    "sessions.finish.after_commit",
    "bans.add.before_commit",
    "bans.add.after_commit",
    "runtime.begin_attempt.before_commit",
    "runtime.begin_attempt.after_commit",
    "runtime.end_attempt.before_commit",
    "runtime.end_attempt.after_commit",
    "runtime.claim_attempt.before_commit",
    "runtime.claim_attempt.after_commit",
    "runtime.finish_attempt.before_commit",
    "runtime.finish_attempt.after_commit",
];

/// Aborts the process if the `test-faults` feature is on and [`CRASH_ENV`] names `step` (at
/// the occurrence it names).
#[cfg(feature = "test-faults")]
pub fn crash_point(step: &str) {
    use std::sync::atomic::{AtomicU32, Ordering};
    /// How often the process reached the named step so far.
    static SEEN: AtomicU32 = AtomicU32::new(0);
    debug_assert!(STEPS.contains(&step), "unlisted crash step {step}");
    let Ok(want) = std::env::var(CRASH_ENV) else {
        return;
    };
    let (name, k) = match want.split_once('#') {
        Some((name, k)) => (name, k.parse::<u32>().unwrap_or(1)),
        None => (want.as_str(), 1),
    };
    if name == step && SEEN.fetch_add(1, Ordering::SeqCst) + 1 == k {
        eprintln!("test-faults: crashing at {want}");
        std::process::abort();
    }
}

/// Does nothing: built without the `test-faults` feature.
#[cfg(not(feature = "test-faults"))]
#[inline(always)]
pub fn crash_point(_step: &str) {}

/// Delivery before a crash. A process armed with [`CRASH_ENV`] waits, after sending a round's
/// messages, until its peers have acknowledged them ([`sends_delivered`]) before it handles
/// the next round. Its crash then lands at a defined point of the protocol ("crashed at step
/// X of round r, having delivered every message of the rounds before"), instead of also
/// racing the transport for the messages still queued when it aborts. Unarmed processes,
/// and builds without the feature, do not wait.
#[cfg(feature = "test-faults")]
mod delivery {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;
    use tokio::sync::Notify;

    static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
    static SETTLED: Notify = Notify::const_new();

    /// One send of an armed process, counted until it is dropped (delivered or failed).
    #[derive(Debug)]
    pub struct SendTrack(bool);

    impl Drop for SendTrack {
        fn drop(&mut self) {
            if self.0 && IN_FLIGHT.fetch_sub(1, Ordering::SeqCst) == 1 {
                SETTLED.notify_waiters();
            }
        }
    }

    /// Starts counting one send (only in an armed process).
    pub fn track_send() -> SendTrack {
        let armed = std::env::var_os(super::CRASH_ENV).is_some();
        if armed {
            IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
        }
        SendTrack(armed)
    }

    /// Waits (at most `bound`) until every counted send has settled.
    pub async fn sends_delivered(bound: Duration) {
        let settled = async {
            loop {
                let notified = SETTLED.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if IN_FLIGHT.load(Ordering::SeqCst) == 0 {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(bound, settled).await;
    }
}

/// Without the `test-faults` feature: nothing is counted and nothing waits.
#[cfg(not(feature = "test-faults"))]
mod delivery {
    use std::time::Duration;

    /// Counts nothing: built without the `test-faults` feature.
    #[derive(Debug)]
    pub struct SendTrack;

    /// Counts nothing: built without the `test-faults` feature.
    #[inline(always)]
    pub fn track_send() -> SendTrack {
        SendTrack
    }

    /// Returns at once: built without the `test-faults` feature.
    #[inline(always)]
    pub async fn sends_delivered(_bound: Duration) {}
}

pub use delivery::{sends_delivered, track_send, SendTrack};

/// The coordinator's (and a participant's) steps of a session, timed. With the `test-faults`
/// feature and `QUORATE_TEST_TIMELINE=1` in the environment, [`mark`] records the wall-clock
/// time (microseconds since the Unix epoch, comparable between the node processes of one
/// machine) and the thread of each named step, and [`flush`] writes the marks recorded since
/// the last flush to stderr, one line each (`timeline <µs> <thread> <step>`), when a session
/// ends on this node. Merged over the nodes of a cluster and sorted, the lines give the
/// critical path of a session (which step waited for which) without a profiler. Without the
/// feature, or without the variable, nothing is recorded.
#[cfg(feature = "test-faults")]
mod timeline {
    use std::sync::{Mutex, OnceLock};

    /// The environment variable that turns the timeline on.
    pub const TIMELINE_ENV: &str = "QUORATE_TEST_TIMELINE";

    static MARKS: Mutex<Vec<(u128, String, String)>> = Mutex::new(Vec::new());

    fn on() -> bool {
        static ON: OnceLock<bool> = OnceLock::new();
        *ON.get_or_init(|| std::env::var_os(TIMELINE_ENV).is_some_and(|v| v == "1"))
    }

    /// Records step `step` now (if the timeline is on).
    pub fn mark(step: impl std::fmt::Display) {
        if !on() {
            return;
        }
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_micros())
            .unwrap_or(0);
        let thread = std::thread::current();
        let who = match thread.name() {
            Some(n) => format!("{n}/{:?}", thread.id()),
            None => format!("{:?}", thread.id()),
        };
        let mut marks = MARKS.lock().unwrap_or_else(|p| p.into_inner());
        marks.push((at, who.replace(' ', "_"), step.to_string()));
    }

    /// Writes the marks recorded so far to stderr and forgets them (if the timeline is on).
    pub fn flush() {
        if !on() {
            return;
        }
        let marks = std::mem::take(&mut *MARKS.lock().unwrap_or_else(|p| p.into_inner()));
        let mut out = String::new();
        for (at, who, step) in marks {
            out.push_str(&format!("timeline {at} {who} {step}\n"));
        }
        eprint!("{out}");
    }
}

/// Without the `test-faults` feature: nothing is recorded.
#[cfg(not(feature = "test-faults"))]
mod timeline {
    /// Records nothing: built without the `test-faults` feature.
    #[inline(always)]
    pub fn mark(_step: impl std::fmt::Display) {}

    /// Writes nothing: built without the `test-faults` feature.
    #[inline(always)]
    pub fn flush() {}
}

pub use timeline::{flush as timeline_flush, mark as timeline_mark};
