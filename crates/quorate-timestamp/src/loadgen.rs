//! A small HTTP/1.1 load generator for the timestamp server, bounded in time and count.
//!
//! `connections` keep-alive TCP connections each send `POST /v1/submit` requests with fresh
//! 64-hex-character hashes. With `pipeline = 1` a connection waits for each response before
//! sending the next request, as `wrk` does. With a larger value it keeps that many requests in
//! flight (HTTP/1.1 pipelining). The run stops at `duration` or after `max_requests`, whichever
//! comes first. In-flight responses are still awaited, but only for a short grace period (at
//! most one second, and never longer than `duration`), so a stalled server cannot hold the
//! run open. Connections that cannot be opened, requests not answered 200 and requests lost
//! with their connection are all counted in [`LoadReport::errors`].
//!
//! The client speaks just enough HTTP/1.1 for this: it writes fixed-layout requests and reads
//! responses framed by `Content-Length`. It is written directly on tokio's `TcpStream`,
//! because on a 2-core machine the generator shares the CPU with the server, and a
//! general-purpose client would leave less of it to the server being measured.

use anyhow::{bail, Context as _};
use quorate_cosi::timestamp::Hash;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// What load to generate.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// The server.
    pub addr: SocketAddr,
    /// Number of concurrent keep-alive connections.
    pub connections: usize,
    /// Requests kept in flight per connection (1 = no pipelining).
    pub pipeline: usize,
    /// Stop sending after this long.
    pub duration: Duration,
    /// Stop sending after this many requests in total.
    pub max_requests: Option<u64>,
    /// Keep one (hash, ticket) pair out of every `sample_every` successful submits.
    pub sample_every: u64,
    /// Makes the submitted hashes differ between runs.
    pub seed: u64,
}

impl LoadConfig {
    /// `connections` connections for `duration`, no pipelining, no request cap.
    pub fn new(addr: SocketAddr, connections: usize, duration: Duration) -> LoadConfig {
        LoadConfig {
            addr,
            connections,
            pipeline: 1,
            duration,
            max_requests: None,
            sample_every: 10_000,
            seed: 0,
        }
    }
}

/// What a load run measured.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Requests answered with 200.
    pub ok: u64,
    /// Requests answered otherwise or lost with their connection, plus connections that
    /// could not be opened.
    pub errors: u64,
    /// Connections that could not be opened (also counted in `errors`).
    pub connect_failures: u64,
    /// From the first connect to the last response.
    pub elapsed: Duration,
    /// Median request latency.
    pub latency_p50: Duration,
    /// 99th-percentile request latency.
    pub latency_p99: Duration,
    /// A sample of submitted hashes with the tickets the server returned.
    pub samples: Vec<(Hash, String)>,
}

impl LoadReport {
    /// Successful requests per second over the whole run.
    pub fn requests_per_second(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.ok as f64 / secs
        } else {
            0.0
        }
    }
}

/// How long in-flight responses are awaited after the deadline (capped at the run's duration).
const GRACE: Duration = Duration::from_secs(1);

/// Refuses any target that is not a loopback address: load runs stay on this machine.
pub fn check_loopback(addr: &SocketAddr) -> anyhow::Result<()> {
    anyhow::ensure!(
        addr.ip().is_loopback(),
        "the load generator only targets loopback addresses (127.0.0.0/8, ::1), not {addr}"
    );
    Ok(())
}

/// Runs the load (inside a tokio runtime). Refuses non-loopback targets
/// ([`check_loopback`]) before opening any connection.
pub async fn run_load(config: &LoadConfig) -> anyhow::Result<LoadReport> {
    anyhow::ensure!(config.connections > 0, "need at least one connection");
    check_loopback(&config.addr)?;
    let start = Instant::now();
    let deadline = start + config.duration;
    let grace = GRACE.min(config.duration);
    let sent = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::with_capacity(config.connections);
    for conn in 0..config.connections {
        let config = config.clone();
        let sent = sent.clone();
        tasks.push(tokio::spawn(async move {
            let mut stats = ConnStats::default();
            let result = tokio::time::timeout_at(
                (deadline + grace).into(),
                drive_connection(&config, conn as u64, deadline, &sent, &mut stats),
            )
            .await;
            match result {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(_) => {
                    stats.errors += stats.in_flight + u64::from(!stats.connected);
                }
            }
            stats
        }));
    }
    let mut report = LoadReport::default();
    let mut latencies = Vec::new();
    for task in tasks {
        let stats = task.await.context("load connection task panicked")?;
        report.ok += stats.ok;
        report.errors += stats.errors;
        report.connect_failures += u64::from(!stats.connected);
        latencies.extend(stats.latencies_us);
        report.samples.extend(stats.samples);
    }
    report.elapsed = start.elapsed();
    if report.connect_failures == config.connections as u64 {
        bail!("could not connect to {}", config.addr);
    }
    latencies.sort_unstable();
    let pct = |p: f64| -> Duration {
        if latencies.is_empty() {
            return Duration::ZERO;
        }
        let i = ((latencies.len() - 1) as f64 * p).round() as usize;
        Duration::from_micros(u64::from(latencies[i.min(latencies.len() - 1)]))
    };
    report.latency_p50 = pct(0.50);
    report.latency_p99 = pct(0.99);
    Ok(report)
}

/// Runs the load on a fresh single-threaded runtime on the current thread.
pub fn run_load_blocking(config: &LoadConfig) -> anyhow::Result<LoadReport> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(run_load(config))
}

#[derive(Default)]
struct ConnStats {
    connected: bool,
    ok: u64,
    errors: u64,
    in_flight: u64,
    latencies_us: Vec<u32>,
    samples: Vec<(Hash, String)>,
}

/// splitmix64: a fast, well-mixed sequence for test hashes.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const REQUEST_HEAD: &[u8] = b"POST /v1/submit HTTP/1.1\r\nHost: quorate\r\nContent-Type: text/plain\r\nContent-Length: 64\r\n\r\n";

async fn drive_connection(
    config: &LoadConfig,
    conn: u64,
    deadline: Instant,
    sent: &AtomicU64,
    stats: &mut ConnStats,
) -> anyhow::Result<()> {
    let mut stream = TcpStream::connect(config.addr).await?;
    stream.set_nodelay(true)?;
    stats.connected = true;
    let mut rng = config.seed ^ conn.wrapping_mul(0xa076_1d64_78bd_642f);
    let mut reader = ResponseReader::default();
    let mut out = Vec::with_capacity(256 * config.pipeline.max(1));
    let mut in_flight: VecDeque<(Instant, Hash)> = VecDeque::new();
    let mut hex_buf = [0u8; 64];
    let mut since_sample = 0u64;
    loop {
        out.clear();
        while in_flight.len() < config.pipeline.max(1) {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            if let Some(max) = config.max_requests {
                if sent.fetch_add(1, Ordering::Relaxed) >= max {
                    break;
                }
            }
            let mut hash = [0u8; 32];
            for chunk in hash.chunks_exact_mut(8) {
                chunk.copy_from_slice(&splitmix(&mut rng).to_le_bytes());
            }
            hex::encode_to_slice(hash, &mut hex_buf)?;
            out.extend_from_slice(REQUEST_HEAD);
            out.extend_from_slice(&hex_buf);
            in_flight.push_back((now, hash));
        }
        stats.in_flight = in_flight.len() as u64;
        if !out.is_empty() {
            stream.write_all(&out).await?;
        }
        let Some((sent_at, hash)) = in_flight.pop_front() else {
            return Ok(());
        };
        let (status, body) = reader.read(&mut stream).await?;
        let micros = u32::try_from(sent_at.elapsed().as_micros()).unwrap_or(u32::MAX);
        stats.latencies_us.push(micros);
        if status == 200 {
            stats.ok += 1;
            since_sample += 1;
            if since_sample >= config.sample_every.max(1) || stats.samples.is_empty() {
                since_sample = 0;
                if let Some(ticket) = ticket_of(body) {
                    stats.samples.push((hash, ticket));
                }
            }
        } else {
            stats.errors += 1;
        }
        stats.in_flight = in_flight.len() as u64;
    }
}

/// The `ticket` field of a submit response.
pub fn ticket_of(body: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    v.get("ticket")?.as_str().map(str::to_owned)
}

/// Reads `Content-Length`-framed HTTP/1.1 responses from a stream.
#[derive(Default)]
struct ResponseReader {
    buf: Vec<u8>,
    /// Bytes of `buf` already handed out (dropped on the next read).
    consumed: usize,
}

impl ResponseReader {
    /// The next response's status and body.
    async fn read(&mut self, stream: &mut TcpStream) -> anyhow::Result<(u16, &[u8])> {
        self.buf.drain(..self.consumed);
        self.consumed = 0;
        loop {
            if let Some((status, body_start, total)) = parse_head(&self.buf)? {
                if self.buf.len() >= total {
                    self.consumed = total;
                    return Ok((status, &self.buf[body_start..total]));
                }
            }
            if self.buf.len() > 1 << 20 {
                bail!("response larger than 1 MiB");
            }
            let len = self.buf.len();
            self.buf.resize(len + 16 * 1024, 0);
            let n = stream.read(&mut self.buf[len..]).await?;
            self.buf.truncate(len + n);
            if n == 0 {
                bail!("connection closed by the server");
            }
        }
    }
}

/// Parses a response head: `(status, body start, total length)` once the head is complete.
fn parse_head(buf: &[u8]) -> anyhow::Result<Option<(u16, usize, usize)>> {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let head = std::str::from_utf8(&buf[..end]).context("response head is not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("bad status line {status_line:?}"))?;
    let mut length = None;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .context("bad content-length")?,
                );
            } else if name.trim().eq_ignore_ascii_case("transfer-encoding") {
                bail!("chunked responses are not supported by the load generator");
            }
        }
    }
    let body_start = end + 4;
    Ok(Some((status, body_start, body_start + length.unwrap_or(0))))
}

/// How long [`http_call`] waits for its answer (long polls included).
pub const HTTP_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// One HTTP/1.1 request on a fresh connection: `(status, body)`, failing after
/// [`HTTP_CALL_TIMEOUT`]. For tests and tools.
pub async fn http_call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
) -> anyhow::Result<(u16, Vec<u8>)> {
    tokio::time::timeout(HTTP_CALL_TIMEOUT, http_call_inner(addr, method, path, body))
        .await
        .with_context(|| format!("{method} {path}: no answer within {HTTP_CALL_TIMEOUT:?}"))?
}

async fn http_call_inner(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
) -> anyhow::Result<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(addr).await?;
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: quorate\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    stream.write_all(&request).await?;
    let mut reader = ResponseReader::default();
    let (status, body) = reader.read(&mut stream).await?;
    Ok((status, body.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_heads() -> anyhow::Result<()> {
        let head: &[u8] =
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5\r\n\r\n";
        let r = [head, b"helloHTTP/1.1"].concat();
        let n = head.len();
        assert_eq!(parse_head(&r)?, Some((200, n, n + 5)));
        assert_eq!(&r[n..n + 5], b"hello");
        assert_eq!(parse_head(b"HTTP/1.1 200 OK\r\n")?, None);
        assert_eq!(
            parse_head(b"HTTP/1.1 202 Accepted\r\n\r\n")?,
            Some((202, 25, 25))
        );
        assert!(parse_head(b"HTTP/1.1 abc\r\n\r\n").is_err());
        assert!(parse_head(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n").is_err());
        Ok(())
    }

    #[test]
    fn tickets() {
        assert_eq!(
            ticket_of(br#"{"ticket":"3-14","round":3,"index":14}"#).as_deref(),
            Some("3-14")
        );
        assert_eq!(ticket_of(b"{}"), None);
    }

    #[test]
    fn only_loopback_targets_are_accepted() {
        for ok in ["127.0.0.1:8080", "127.1.2.3:1", "[::1]:443"] {
            assert!(check_loopback(&ok.parse().expect("addr")).is_ok(), "{ok}");
        }
        for bad in [
            "10.0.0.1:80",
            "192.168.1.1:80",
            "0.0.0.0:80",
            "[::]:80",
            "8.8.8.8:53",
        ] {
            assert!(
                check_loopback(&bad.parse().expect("addr")).is_err(),
                "{bad}"
            );
        }
    }
}
