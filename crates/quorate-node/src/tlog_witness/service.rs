//! The witness service: `add-checkpoint` from request bytes to a response, independent of
//! HTTP (see [`super::http`] for the listener).
//!
//! Order of checks (C2SP tlog-witness): malformed body → 400; unknown or disabled origin →
//! 404; no signature by the log's key verifies → 403; old size above the checkpoint size →
//! 400; then, in the store's compare-and-swap ([`super::store::WitnessStore::apply`]): old
//! size not the stored size → 409 with the stored size; same size and another root hash →
//! 409; a consistency proof that does not verify → 422; otherwise the new state is
//! committed durably and only then cosigned (200).
//!
//! All compare-and-swaps go through one writer thread that owns a store connection and
//! commits the requests waiting at that moment together (group commit: one fsync per batch,
//! each request still checked against the state its predecessors in the batch left).

use super::key::WitnessKey;
use super::note::{NoteError, Verifier};
use super::request::AddCheckpoint;
use super::store::{Outcome, StoreError, Update, WitnessStore};
use std::collections::HashMap;
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, RwLock};
use tracing::{info, warn};

/// The content type of a 409 answer's body (the stored tree size).
pub const SIZE_CONTENT_TYPE: &str = "text/x.tlog.size";
/// The content type of every other answer.
pub const TEXT_CONTENT_TYPE: &str = "text/plain; charset=utf-8";
/// Requests waiting for the writer before new ones are answered 503.
const QUEUE: usize = 4096;
/// Most requests committed in one transaction.
const MAX_BATCH: usize = 512;

/// An answer to `add-checkpoint`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

impl Reply {
    fn text(status: u16, body: impl Into<String>) -> Reply {
        let mut body = body.into();
        body.push('\n');
        Reply {
            status,
            content_type: TEXT_CONTENT_TYPE,
            body,
        }
    }

    fn size(size: u64) -> Reply {
        Reply {
            status: 409,
            content_type: SIZE_CONTENT_TYPE,
            body: format!("{size}\n"),
        }
    }
}

struct Job {
    update: Update,
    reply: tokio::sync::oneshot::Sender<Result<Outcome, String>>,
}

/// The tlog-witness: its key, the logs' keys and the store writer.
pub struct Witness {
    key: WitnessKey,
    /// Keys of logs seen enabled (a log's key never changes; disabling is re-checked by the
    /// compare-and-swap).
    keys: RwLock<HashMap<String, Verifier>>,
    /// A connection for looking up logs not yet in `keys` (added while the node runs).
    reader: Mutex<WitnessStore>,
    writer: SyncSender<Job>,
}

impl std::fmt::Debug for Witness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Witness")
            .field("vkey", &self.key.vkey())
            .finish_non_exhaustive()
    }
}

impl Witness {
    /// Opens the witness database at `db` (creating it if absent) and starts its writer
    /// thread, which ends when the returned witness is dropped.
    pub fn open(db: &Path, key: WitnessKey) -> Result<Arc<Witness>, StoreError> {
        let reader = WitnessStore::open(db)?;
        let store = WitnessStore::open(db)?;
        let (writer, rx) = sync_channel(QUEUE);
        std::thread::Builder::new()
            .name("tlog-witness-store".into())
            .spawn(move || write_loop(store, rx))
            .map_err(|source| StoreError::Io {
                path: db.display().to_string(),
                source,
            })?;
        info!(vkey = %key.vkey(), "tlog-witness ready");
        Ok(Arc::new(Witness {
            key,
            keys: RwLock::new(HashMap::new()),
            reader: Mutex::new(reader),
            writer,
        }))
    }

    /// The witness's note verifier key.
    pub fn vkey(&self) -> String {
        self.key.vkey()
    }

    fn log_key(&self, origin: &str) -> Result<Option<Verifier>, String> {
        if let Some(v) = self.keys.read().map_err(|_| "poisoned")?.get(origin) {
            return Ok(Some(v.clone()));
        }
        let record = self
            .reader
            .lock()
            .map_err(|_| "poisoned")?
            .log(origin)
            .map_err(|e| e.to_string())?;
        let Some(record) = record.filter(|r| r.enabled) else {
            return Ok(None);
        };
        let v = Verifier::parse(&record.vkey).map_err(|e| format!("stored vkey: {e}"))?;
        self.keys
            .write()
            .map_err(|_| "poisoned")?
            .insert(origin.to_string(), v.clone());
        Ok(Some(v))
    }

    /// Handles one `add-checkpoint` request body.
    pub async fn add_checkpoint(&self, body: &[u8]) -> Reply {
        let req = match AddCheckpoint::parse(body) {
            Ok(r) => r,
            Err(e) => return Reply::text(400, format!("malformed request: {e}")),
        };
        let origin = req.checkpoint.origin;
        let key = match self.log_key(origin) {
            Ok(Some(k)) => k,
            Ok(None) => return Reply::text(404, "unknown log"),
            Err(e) => {
                warn!(error = %e, "tlog-witness: log lookup failed");
                return Reply::text(500, "internal error");
            }
        };
        match req.note.verify(std::slice::from_ref(&key)) {
            Ok(()) => {}
            Err(NoteError::BadSignature(_) | NoteError::NoKnownSignature) => {
                return Reply::text(403, "no valid signature by the log's key")
            }
            Err(e) => return Reply::text(400, format!("malformed request: {e}")),
        }
        if req.old_size > req.checkpoint.size {
            return Reply::text(400, "old size is above the checkpoint size");
        }
        let update = Update {
            origin: origin.to_string(),
            old_size: req.old_size,
            proof: req.proof.clone(),
            size: req.checkpoint.size,
            root: req.checkpoint.root,
            request: body.to_vec(),
            note_offset: req.note_offset,
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        match self.writer.try_send(Job { update, reply: tx }) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return Reply::text(503, "busy: try again"),
            Err(TrySendError::Disconnected(_)) => return Reply::text(503, "shutting down"),
        }
        let outcome = match rx.await {
            Ok(Ok(o)) => o,
            Ok(Err(e)) => {
                warn!(error = %e, "tlog-witness: store commit failed");
                return Reply::text(500, "internal error");
            }
            Err(_) => return Reply::text(503, "shutting down"),
        };
        match outcome {
            Outcome::Cosign => Reply {
                status: 200,
                content_type: TEXT_CONTENT_TYPE,
                body: self.key.cosign(req.note.text, unix_now()),
            },
            Outcome::UnknownLog => Reply::text(404, "unknown log"),
            Outcome::StaleSize(n) | Outcome::RootMismatch(n) => Reply::size(n),
            Outcome::BadProof => Reply::text(422, "the consistency proof does not verify"),
        }
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn write_loop(mut store: WitnessStore, rx: Receiver<Job>) {
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        while jobs.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(j) => jobs.push(j),
                Err(_) => break,
            }
        }
        let (updates, replies): (Vec<Update>, Vec<_>) =
            jobs.into_iter().map(|j| (j.update, j.reply)).unzip();
        match store.apply(&updates) {
            Ok(outcomes) => {
                for (reply, o) in replies.into_iter().zip(outcomes) {
                    let _ = reply.send(Ok(o));
                }
            }
            Err(e) => {
                let msg = e.to_string();
                for reply in replies {
                    let _ = reply.send(Err(msg.clone()));
                }
            }
        }
    }
}
