//! The benchmark harness shared by every `quorate bench <system>`.
//!
//! A [`BenchSuite`] collects two kinds of rows:
//!
//! * **timing rows** ([`BenchSuite::time`], [`BenchSuite::time_with_setup`]): the operation is
//!   run once to warm up and then `samples` times, each timed with wall-clock
//!   [`Instant`]; the row keeps median, min, max and the sample count;
//! * **size rows** ([`BenchSuite::size`]): the encoded size of an object in bytes.
//!
//! Every row can carry a published figure to compare against ([`PaperFigure`], printed with a
//! ratio *ours / paper*), a second *reference* figure (for example a reference
//! implementation) and a speed target, which is reported as met or missed but never asserted.
//!
//! [`BenchSuite::report`] renders the machine header and a fixed-width table;
//! [`BenchSuite::write_json`] writes the same data as JSON for `docs/benchmarks.md`.

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A published timing to compare a measurement against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperFigure {
    /// The published time in milliseconds.
    pub value_ms: f64,
    /// Where the figure comes from, e.g. `"paper Table 1"`.
    pub source: &'static str,
}

impl PaperFigure {
    /// A figure of `value_ms` milliseconds taken from `source`.
    pub const fn new(value_ms: f64, source: &'static str) -> Self {
        PaperFigure { value_ms, source }
    }
}

/// Median, minimum, maximum and count of a set of timings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    /// The median (mean of the two middle samples for an even count).
    pub median: Duration,
    /// The fastest sample.
    pub min: Duration,
    /// The slowest sample.
    pub max: Duration,
    /// How many samples were taken.
    pub samples: usize,
}

impl Stats {
    /// Statistics from figures already summarised in milliseconds (median, min, max, count).
    pub fn from_ms(median_ms: f64, min_ms: f64, max_ms: f64, samples: usize) -> Stats {
        let d = |ms: f64| Duration::from_secs_f64(ms.max(0.0) / 1e3);
        Stats {
            median: d(median_ms),
            min: d(min_ms),
            max: d(max_ms),
            samples,
        }
    }

    /// Statistics of `durations`; `None` when it is empty.
    pub fn from_durations(durations: &[Duration]) -> Option<Stats> {
        if durations.is_empty() {
            return None;
        }
        let mut sorted = durations.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        };
        Some(Stats {
            median,
            min: sorted[0],
            max: sorted[n - 1],
            samples: n,
        })
    }
}

/// What a row measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RowKind {
    /// A timing.
    Time,
    /// An encoded size in bytes.
    Size,
}

/// One line of the results table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Timing or size.
    pub kind: RowKind,
    /// The operation (or, for size rows, the item) measured.
    pub operation: String,
    /// The parameters, e.g. `"t=3 n=5"`.
    pub params: String,
    /// The published figure, if any (timing rows).
    pub paper: Option<PaperFigure>,
    /// A second comparison figure, e.g. a reference implementation (timing rows).
    pub reference: Option<PaperFigure>,
    /// The measured statistics (timing rows).
    pub stats: Option<Stats>,
    /// A speed target in milliseconds, compared against the median (timing rows).
    pub target_ms: Option<f64>,
    /// Our encoded size (size rows).
    pub bytes: Option<usize>,
    /// The published size (size rows).
    pub paper_bytes: Option<usize>,
}

impl Row {
    fn new(kind: RowKind, operation: &str, params: &str) -> Row {
        Row {
            kind,
            operation: operation.to_owned(),
            params: params.to_owned(),
            paper: None,
            reference: None,
            stats: None,
            target_ms: None,
            bytes: None,
            paper_bytes: None,
        }
    }

    /// Adds a reference figure (printed next to the paper figure). Returns `self` for chaining.
    pub fn reference(&mut self, figure: PaperFigure) -> &mut Row {
        self.reference = Some(figure);
        self
    }

    /// Adds a speed target in milliseconds (reported as met or missed, never asserted).
    pub fn target_ms(&mut self, target_ms: f64) -> &mut Row {
        self.target_ms = Some(target_ms);
        self
    }

    /// The median in milliseconds (timing rows).
    pub fn median_ms(&self) -> Option<f64> {
        self.stats.map(|s| duration_ms(s.median))
    }

    /// `ours / paper`: median over the paper time, or our bytes over the paper bytes.
    pub fn ratio(&self) -> Option<f64> {
        match self.kind {
            RowKind::Time => {
                let ours = self.median_ms()?;
                let paper = self.paper?.value_ms;
                (paper > 0.0).then(|| ours / paper)
            }
            RowKind::Size => {
                let ours = self.bytes? as f64;
                let paper = self.paper_bytes? as f64;
                (paper > 0.0).then(|| ours / paper)
            }
        }
    }

    /// Whether the median meets the target (`None` without a target or a measurement).
    pub fn target_met(&self) -> Option<bool> {
        Some(self.median_ms()? <= self.target_ms?)
    }
}

/// The rows of one `quorate bench <system>` run.
#[derive(Debug)]
pub struct BenchSuite {
    system: String,
    quick: bool,
    progress: bool,
    started: SystemTime,
    rows: Vec<Row>,
    notes: Vec<String>,
}

/// Progress bars are only drawn when the whole row is expected to take at least this long.
const PROGRESS_THRESHOLD: Duration = Duration::from_millis(500);

impl BenchSuite {
    /// An empty suite for `system`; `quick` asks the system for fewer samples and smaller
    /// parameter sets.
    pub fn new(system: impl Into<String>, quick: bool) -> Self {
        BenchSuite {
            system: system.into(),
            quick,
            progress: true,
            started: SystemTime::now(),
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Turns the per-row progress bars on or off (on by default; they are drawn on stderr
    /// and only when stderr is a terminal).
    pub fn set_progress(&mut self, on: bool) {
        self.progress = on;
    }

    /// The name of the system benchmarked.
    pub fn system(&self) -> &str {
        &self.system
    }

    /// Whether this is a `--quick` run.
    pub fn is_quick(&self) -> bool {
        self.quick
    }

    /// `quick` in a quick run, `full` otherwise: a convenience for sample counts.
    pub fn samples(&self, full: usize, quick: usize) -> usize {
        if self.quick {
            quick
        } else {
            full
        }
    }

    /// The rows recorded so far.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Adds a free-text note printed under the table (e.g. why a row was skipped).
    pub fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    /// The notes recorded so far.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Times `f`: one untimed warm-up call, then `samples` timed calls (at least one).
    /// The value returned by `f` is passed through [`black_box`] and dropped outside the
    /// timed region.
    pub fn time<R>(
        &mut self,
        operation: &str,
        params: &str,
        paper: Option<PaperFigure>,
        samples: usize,
        mut f: impl FnMut() -> R,
    ) -> &mut Row {
        self.time_with_setup(operation, params, paper, samples, || (), move |()| f())
    }

    /// Like [`BenchSuite::time`], but each sample first calls `setup` (untimed) and then
    /// times only `f(input)`. For operations that consume their input by value.
    pub fn time_with_setup<T, R>(
        &mut self,
        operation: &str,
        params: &str,
        paper: Option<PaperFigure>,
        samples: usize,
        mut setup: impl FnMut() -> T,
        mut f: impl FnMut(T) -> R,
    ) -> &mut Row {
        let samples = samples.max(1);
        let mut once = || {
            let input = setup();
            let start = Instant::now();
            let out = black_box(f(black_box(input)));
            let elapsed = start.elapsed();
            drop(out);
            elapsed
        };

        let warm_up = once();
        let bar = self.progress_bar(operation, params, samples, warm_up);
        let mut durations = Vec::with_capacity(samples);
        for _ in 0..samples {
            durations.push(once());
            bar.inc(1);
        }
        bar.finish_and_clear();

        let mut row = Row::new(RowKind::Time, operation, params);
        row.paper = paper;
        row.stats = Stats::from_durations(&durations);
        self.push(row)
    }

    /// Records a timing measured elsewhere (for example thread CPU time taken by a library's
    /// own benchmark helper, or a simulated network latency), with its statistics.
    pub fn record(
        &mut self,
        operation: &str,
        params: &str,
        paper: Option<PaperFigure>,
        stats: Stats,
    ) -> &mut Row {
        let mut row = Row::new(RowKind::Time, operation, params);
        row.paper = paper;
        row.stats = Some(stats);
        self.push(row)
    }

    /// Records an encoded size: ours, and the published one if known.
    pub fn size(
        &mut self,
        item: &str,
        params: &str,
        paper_bytes: Option<usize>,
        ours_bytes: usize,
    ) -> &mut Row {
        let mut row = Row::new(RowKind::Size, item, params);
        row.paper_bytes = paper_bytes;
        row.bytes = Some(ours_bytes);
        self.push(row)
    }

    fn push(&mut self, row: Row) -> &mut Row {
        self.rows.push(row);
        let last = self.rows.len() - 1;
        &mut self.rows[last]
    }

    fn progress_bar(
        &self,
        operation: &str,
        params: &str,
        samples: usize,
        warm_up: Duration,
    ) -> ProgressBar {
        let expected = warm_up.saturating_mul(u32::try_from(samples).unwrap_or(u32::MAX));
        if !self.progress || expected < PROGRESS_THRESHOLD {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(samples as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{msg:40} [{bar:30}] {pos}/{len} eta {eta}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(format!("{operation} ({params})"));
        bar
    }

    /// The header lines: system, CPU, cores, build profile, compiler and date.
    pub fn header(&self) -> String {
        let machine = Machine::detect();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "quorate bench {}{}",
            self.system,
            if self.quick { " (quick)" } else { "" }
        );
        let _ = writeln!(out, "cpu:     {}", machine.cpu);
        let _ = writeln!(out, "cores:   {} logical", machine.cores);
        let _ = writeln!(
            out,
            "build:   {} profile, {}",
            build_profile(),
            rustc_version()
        );
        let _ = writeln!(out, "date:    {}", format_utc(unix_seconds(self.started)));
        out
    }

    /// The results as a fixed-width table (one line per row, then the notes).
    pub fn table(&self) -> String {
        const HEAD: [&str; 8] = [
            "operation",
            "params",
            "paper",
            "ours median",
            "min–max",
            "n",
            "ratio",
            "target",
        ];
        let cells: Vec<[String; 8]> = self.rows.iter().map(row_cells).collect();
        let mut widths = HEAD.map(|h| h.chars().count());
        for row in &cells {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, cols: [&str; 8]| {
            let mut s = String::new();
            for (i, (cell, w)) in cols.iter().zip(widths).enumerate() {
                if i > 0 {
                    s.push_str(" | ");
                }
                // Text columns left-aligned, numbers right-aligned.
                if i < 2 || i == 7 {
                    let _ = write!(s, "{cell:<w$}");
                } else {
                    let _ = write!(s, "{cell:>w$}");
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        line(&mut out, HEAD);
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        out.push_str(&rule.join("-+-"));
        out.push('\n');
        for row in &cells {
            line(&mut out, row.each_ref().map(String::as_str));
        }
        let references: Vec<&Row> = self.rows.iter().filter(|r| r.reference.is_some()).collect();
        if !references.is_empty() {
            out.push('\n');
            for row in references {
                if let Some(reference) = row.reference {
                    let ratio = row
                        .median_ms()
                        .filter(|_| reference.value_ms > 0.0)
                        .map(|m| format!(" (ours {})", format_ratio(m / reference.value_ms)))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "reference for {} ({}): {} [{}]{}",
                        row.operation,
                        row.params,
                        format_ms(reference.value_ms),
                        reference.source,
                        ratio
                    );
                }
            }
        }
        let sources = self.paper_sources();
        if !sources.is_empty() {
            let _ = writeln!(out, "\npaper figures from: {}", sources.join("; "));
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        out
    }

    fn paper_sources(&self) -> Vec<&'static str> {
        let mut sources: Vec<&'static str> = Vec::new();
        for source in self.rows.iter().filter_map(|r| r.paper.map(|p| p.source)) {
            if !sources.contains(&source) {
                sources.push(source);
            }
        }
        sources
    }

    /// [`BenchSuite::header`], a blank line, then [`BenchSuite::table`].
    pub fn report(&self) -> String {
        format!("{}\n{}", self.header(), self.table())
    }

    /// The results as a JSON value (see [`BenchSuite::write_json`] for the layout).
    pub fn to_json(&self) -> serde_json::Value {
        self.to_json_with(&Machine::detect())
    }

    fn to_json_with(&self, machine: &Machine) -> serde_json::Value {
        let report = JsonReport {
            system: &self.system,
            machine,
            quick: self.quick,
            profile: build_profile(),
            rustc: rustc_version(),
            timestamp_unix: unix_seconds(self.started),
            rows: self.rows.iter().map(JsonRow::from).collect(),
            notes: &self.notes,
        };
        serde_json::to_value(report).unwrap_or(serde_json::Value::Null)
    }

    /// Writes the results to `path` as pretty-printed JSON:
    /// `{"system", "machine": {"cpu", "cores"}, "quick", "profile", "rustc",
    /// "timestamp_unix", "rows": [{"kind": "time"|"size", "operation", "params", "paper_ms",
    /// "paper_source", "reference_ms", "reference_source", "median_ms", "min_ms", "max_ms",
    /// "samples", "ratio", "target_ms", "target_met", "bytes", "paper_bytes"}], "notes"}`.
    /// Absent values are `null`.
    pub fn write_json(&self, path: impl AsRef<Path>) -> anyhow::Result<()> {
        let path = path.as_ref();
        let text = serde_json::to_string_pretty(&self.to_json())?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("writing benchmark results to {}", path.display()))
    }
}

/// The machine the benchmark ran on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Machine {
    /// The CPU model name from `/proc/cpuinfo`, or `"unknown CPU"`.
    pub cpu: String,
    /// The number of logical cores available to this process.
    pub cores: usize,
}

impl Machine {
    /// Reads the CPU model and core count of this machine.
    pub fn detect() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| cpu_model(&s))
            .unwrap_or_else(|| "unknown CPU".to_owned());
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Machine { cpu, cores }
    }
}

/// The first `model name` in the text of `/proc/cpuinfo`.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        let value = value.trim();
        (key.trim() == "model name" && !value.is_empty()).then(|| value.to_owned())
    })
}

#[derive(Serialize)]
struct JsonReport<'a> {
    system: &'a str,
    machine: &'a Machine,
    quick: bool,
    profile: &'static str,
    rustc: &'static str,
    timestamp_unix: u64,
    rows: Vec<JsonRow<'a>>,
    notes: &'a [String],
}

#[derive(Serialize)]
struct JsonRow<'a> {
    kind: RowKind,
    operation: &'a str,
    params: &'a str,
    paper_ms: Option<f64>,
    paper_source: Option<&'static str>,
    reference_ms: Option<f64>,
    reference_source: Option<&'static str>,
    median_ms: Option<f64>,
    min_ms: Option<f64>,
    max_ms: Option<f64>,
    samples: Option<usize>,
    ratio: Option<f64>,
    target_ms: Option<f64>,
    target_met: Option<bool>,
    bytes: Option<usize>,
    paper_bytes: Option<usize>,
}

impl<'a> From<&'a Row> for JsonRow<'a> {
    fn from(r: &'a Row) -> Self {
        JsonRow {
            kind: r.kind,
            operation: &r.operation,
            params: &r.params,
            paper_ms: r.paper.map(|p| p.value_ms),
            paper_source: r.paper.map(|p| p.source),
            reference_ms: r.reference.map(|p| p.value_ms),
            reference_source: r.reference.map(|p| p.source),
            median_ms: r.stats.map(|s| duration_ms(s.median)),
            min_ms: r.stats.map(|s| duration_ms(s.min)),
            max_ms: r.stats.map(|s| duration_ms(s.max)),
            samples: r.stats.map(|s| s.samples),
            ratio: r.ratio(),
            target_ms: r.target_ms,
            target_met: r.target_met(),
            bytes: r.bytes,
            paper_bytes: r.paper_bytes,
        }
    }
}

fn row_cells(r: &Row) -> [String; 8] {
    let dash = || "–".to_owned();
    let ratio = r.ratio().map_or_else(dash, format_ratio);
    match r.kind {
        RowKind::Time => {
            let paper = r.paper.map_or_else(dash, |p| format_ms(p.value_ms));
            let (median, range, n) = match r.stats {
                Some(s) => (
                    format_duration(s.median),
                    format_range(s.min, s.max),
                    s.samples.to_string(),
                ),
                None => (dash(), dash(), dash()),
            };
            let target = match (r.target_ms, r.target_met()) {
                (Some(t), Some(met)) => format!(
                    "target ≤ {}: {}",
                    format_ms(t),
                    if met { "met" } else { "missed" }
                ),
                (Some(t), None) => format!("target ≤ {}", format_ms(t)),
                (None, _) => String::new(),
            };
            [
                r.operation.clone(),
                r.params.clone(),
                paper,
                median,
                range,
                n,
                ratio,
                target,
            ]
        }
        RowKind::Size => [
            r.operation.clone(),
            r.params.clone(),
            r.paper_bytes.map_or_else(dash, format_bytes),
            r.bytes.map_or_else(dash, format_bytes),
            String::new(),
            String::new(),
            ratio,
            String::new(),
        ],
    }
}

fn duration_ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A time in milliseconds, human-readably: µs below 1 ms, s from 10 s, ms otherwise.
pub fn format_ms(ms: f64) -> String {
    let (value, unit) = split_ms(ms);
    format!("{value} {unit}")
}

/// A duration, formatted like [`format_ms`].
pub fn format_duration(d: Duration) -> String {
    format_ms(duration_ms(d))
}

fn split_ms(ms: f64) -> (String, &'static str) {
    if ms < 1.0 {
        (format!("{:.1}", ms * 1e3), "µs")
    } else if ms >= 10_000.0 {
        (format!("{:.2}", ms / 1e3), "s")
    } else {
        (format!("{ms:.2}"), "ms")
    }
}

fn format_range(min: Duration, max: Duration) -> String {
    let (lo, lo_unit) = split_ms(duration_ms(min));
    let (hi, hi_unit) = split_ms(duration_ms(max));
    if lo_unit == hi_unit {
        format!("{lo}–{hi} {hi_unit}")
    } else {
        format!("{lo} {lo_unit}–{hi} {hi_unit}")
    }
}

fn format_ratio(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}×")
    } else {
        format!("{r:.2}×")
    }
}

fn format_bytes(b: usize) -> String {
    format!("{b} B")
}

fn build_profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

fn rustc_version() -> &'static str {
    option_env!("QUORATE_RUSTC_VERSION").unwrap_or("unknown rustc")
}

fn unix_seconds(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Formats unix seconds as `YYYY-MM-DD HH:MM:SS UTC`, from the one calendar conversion of
/// the workspace ([`quorate_cosi::timestamp::rfc3339_utc`], which adds milliseconds).
fn format_utc(unix: u64) -> String {
    let rfc = quorate_cosi::timestamp::rfc3339_utc(unix.saturating_mul(1000));
    let (date, rest) = rfc.split_once('T').unwrap_or((rfc.as_str(), ""));
    let time = rest.split('.').next().unwrap_or(rest);
    format!("{date} {time} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        let odd = Stats::from_durations(&[ms(5), ms(1), ms(3)]).expect("non-empty");
        assert_eq!(odd.median, ms(3));
        assert_eq!((odd.min, odd.max, odd.samples), (ms(1), ms(5), 3));

        let even = Stats::from_durations(&[ms(8), ms(2), ms(4), ms(100)]).expect("non-empty");
        assert_eq!(even.median, ms(6));
        assert_eq!((even.min, even.max, even.samples), (ms(2), ms(100), 4));

        let one = Stats::from_durations(&[ms(7)]).expect("non-empty");
        assert_eq!((one.median, one.min, one.max), (ms(7), ms(7), ms(7)));

        assert_eq!(Stats::from_durations(&[]), None);
    }

    #[test]
    fn time_runs_warm_up_plus_samples() {
        let mut suite = BenchSuite::new("test", true);
        suite.set_progress(false);
        let mut calls = 0;
        suite.time("op", "p", None, 4, || calls += 1);
        assert_eq!(calls, 5);
        let stats = suite.rows()[0].stats.expect("timed");
        assert_eq!(stats.samples, 4);
        assert!(stats.min <= stats.median && stats.median <= stats.max);

        // Zero samples still measures once.
        suite.time("op", "p", None, 0, || ());
        assert_eq!(suite.rows()[1].stats.map(|s| s.samples), Some(1));
    }

    #[test]
    fn setup_is_called_per_sample_and_not_timed() {
        let mut suite = BenchSuite::new("test", false);
        suite.set_progress(false);
        let mut setups = 0;
        let mut consumed = Vec::new();
        suite.time_with_setup(
            "consume",
            "",
            None,
            3,
            || {
                setups += 1;
                std::thread::sleep(ms(30));
                vec![setups]
            },
            |v: Vec<i32>| consumed.extend(v),
        );
        assert_eq!(setups, 4);
        assert_eq!(consumed, vec![1, 2, 3, 4]);
        let stats = suite.rows()[0].stats.expect("timed");
        assert!(stats.max < ms(30), "setup time leaked into {stats:?}");
    }

    #[test]
    fn ratio_and_target() {
        let mut suite = BenchSuite::new("test", false);
        suite.set_progress(false);
        suite
            .time("sleep", "", Some(PaperFigure::new(1.0, "paper")), 1, || {
                std::thread::sleep(ms(2))
            })
            .target_ms(1.0);
        let row = &suite.rows()[0];
        assert!(row.ratio().expect("ratio") >= 2.0);
        assert_eq!(row.target_met(), Some(false));
        suite.size("sig", "", Some(96), 48);
        assert_eq!(suite.rows()[1].ratio(), Some(0.5));
        suite.size("pk", "", None, 48);
        assert_eq!(suite.rows()[2].ratio(), None);
    }

    #[test]
    fn units_are_human_readable() {
        assert_eq!(format_ms(0.25), "250.0 µs");
        assert_eq!(format_ms(0.0012), "1.2 µs");
        assert_eq!(format_ms(1.0), "1.00 ms");
        assert_eq!(format_ms(1234.5), "1234.50 ms");
        assert_eq!(format_ms(12_345.0), "12.35 s");
        assert_eq!(format_duration(Duration::from_micros(1500)), "1.50 ms");
        assert_eq!(format_range(ms(1), ms(2)), "1.00–2.00 ms");
        assert_eq!(
            format_range(Duration::from_micros(900), ms(2)),
            "900.0 µs–2.00 ms"
        );
        assert_eq!(format_ratio(0.3125), "0.31×");
        assert_eq!(format_ratio(250.0), "250×");
        assert_eq!(format_bytes(96), "96 B");
    }

    fn fixed_suite() -> BenchSuite {
        let mut suite = BenchSuite::new("bls", true);
        suite.rows.push(Row {
            kind: RowKind::Time,
            operation: "sign".into(),
            params: "t=3 n=5".into(),
            paper: Some(PaperFigure::new(2.0, "paper Table 1")),
            reference: Some(PaperFigure::new(4.0, "reference impl")),
            stats: Some(Stats {
                median: Duration::from_micros(500),
                min: Duration::from_micros(400),
                max: Duration::from_micros(900),
                samples: 10,
            }),
            target_ms: Some(1.0),
            bytes: None,
            paper_bytes: None,
        });
        suite.size("signature", "G1", Some(48), 96);
        suite.note("a note");
        suite
    }

    #[test]
    fn table_layout() {
        let table = fixed_suite().table();
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("operation | params"));
        assert!(lines[0].contains("ours median"));
        assert!(lines[1].starts_with("---------"));
        let sign = lines[2];
        for want in [
            "sign",
            "t=3 n=5",
            "2.00 ms",
            "500.0 µs",
            "400.0–900.0 µs",
            "10",
            "0.25×",
            "target ≤ 1.00 ms: met",
        ] {
            assert!(sign.contains(want), "{want:?} missing from {sign:?}");
        }
        let size = lines[3];
        assert!(size.contains("48 B") && size.contains("96 B") && size.contains("2.00×"));
        // Columns line up: every separator is at the same char offset in every table line.
        let seps = |l: &str| -> Vec<usize> {
            l.chars()
                .enumerate()
                .filter(|(_, c)| *c == '|')
                .map(|(i, _)| i)
                .collect()
        };
        assert_eq!(seps(lines[0]), seps(lines[2]));
        assert_eq!(seps(lines[0])[..5], seps(lines[3])[..5]);
        assert!(
            table.contains("reference for sign (t=3 n=5): 4.00 ms [reference impl] (ours 0.12×)")
        );
        assert!(table.contains("paper figures from: paper Table 1"));
        assert!(table.contains("note: a note"));
    }

    #[test]
    fn json_structure() {
        let suite = fixed_suite();
        let machine = Machine {
            cpu: "Test CPU".into(),
            cores: 2,
        };
        let v = suite.to_json_with(&machine);
        assert_eq!(v["system"], "bls");
        assert_eq!(v["quick"], true);
        assert_eq!(v["machine"]["cpu"], "Test CPU");
        assert_eq!(v["machine"]["cores"], 2);
        let rows = v["rows"].as_array().expect("rows");
        assert_eq!(rows.len(), 2);
        let t = &rows[0];
        assert_eq!(t["kind"], "time");
        assert_eq!(t["operation"], "sign");
        assert_eq!(t["params"], "t=3 n=5");
        assert_eq!(t["paper_ms"], 2.0);
        assert_eq!(t["paper_source"], "paper Table 1");
        assert_eq!(t["reference_ms"], 4.0);
        assert_eq!(t["median_ms"], 0.5);
        assert_eq!(t["min_ms"], 0.4);
        assert_eq!(t["max_ms"], 0.9);
        assert_eq!(t["samples"], 10);
        assert_eq!(t["ratio"], 0.25);
        assert_eq!(t["target_ms"], 1.0);
        assert_eq!(t["target_met"], true);
        assert!(t["bytes"].is_null() && t["paper_bytes"].is_null());
        let s = &rows[1];
        assert_eq!(s["kind"], "size");
        assert_eq!(s["bytes"], 96);
        assert_eq!(s["paper_bytes"], 48);
        assert_eq!(s["ratio"], 2.0);
        assert!(s["median_ms"].is_null() && s["samples"].is_null());
    }

    #[test]
    fn write_json_round_trips() -> anyhow::Result<()> {
        let path = std::env::temp_dir().join(format!("quorate-bench-{}.json", std::process::id()));
        fixed_suite().write_json(&path)?;
        let text = std::fs::read_to_string(&path)?;
        std::fs::remove_file(&path)?;
        let v: serde_json::Value = serde_json::from_str(&text)?;
        assert_eq!(v["rows"][1]["operation"], "signature");
        Ok(())
    }

    #[test]
    fn cpu_model_and_dates() {
        let info = "processor\t: 0\nvendor_id\t: X\nmodel name\t: Fancy CPU @ 3GHz\n";
        assert_eq!(cpu_model(info).as_deref(), Some("Fancy CPU @ 3GHz"));
        assert_eq!(cpu_model("processor : 0\n"), None);
        assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(format_utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(format_utc(1_700_000_000), "2023-11-14 22:13:20 UTC");
        let header = fixed_suite().header();
        assert!(header.starts_with("quorate bench bls (quick)\n"));
        assert!(header.contains("cores:") && header.contains("profile"));
    }
}
