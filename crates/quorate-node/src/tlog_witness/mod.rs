//! The C2SP tlog-witness role: the node cosigns transparency-log checkpoints.
//!
//! A log sends `POST /add-checkpoint` to the node's public HTTP listener with the size it
//! believes the witness last cosigned, a consistency proof and its new signed checkpoint;
//! the witness checks the log's signature and the proof against the state it stored for the
//! log, stores the new state durably, and only then returns its cosignature.
//!
//! ```
//! use quorate_node::tlog_witness::{
//!     checkpoint::format_checkpoint, proof::MemoryLog, request::format_request,
//!     note::sign_note_ed25519, store::WitnessStore, Verifier, Witness, WitnessKey,
//! };
//! use ed25519_dalek::{Signer, SigningKey};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let db = dir.path().join("witness.db");
//! // The log: a Merkle tree and an Ed25519 note key named after its origin.
//! let log_key = SigningKey::from_bytes(&[7; 32]);
//! let log_vkey = Verifier::ed25519("example.com/log", log_key.verifying_key());
//! let mut tree = MemoryLog::new();
//! for leaf in [&b"a"[..], b"b", b"c"] {
//!     tree.append(leaf);
//! }
//! // The operator registers the log (`quorate node witness add-log`).
//! WitnessStore::open(&db)?.add_log("example.com/log", &log_vkey)?;
//! let witness = Witness::open(&db, WitnessKey::generate("witness.example/w1")?)?;
//!
//! // The log signs its checkpoint and asks for a cosignature from size 0.
//! let text = format_checkpoint("example.com/log", 3, &tree.root(3));
//! let signed = sign_note_ed25519(&text, "example.com/log", &log_key);
//! let reply = witness.add_checkpoint(format_request(0, &[], &signed).as_bytes()).await;
//! assert_eq!(reply.status, 200);
//! let wv = Verifier::parse(&witness.vkey())?;
//! wv.verify_cosignature_line(&text, &reply.body)?;
//!
//! // A second request from size 0 is stale: 409 with the stored size.
//! let reply = witness.add_checkpoint(format_request(0, &[], &signed).as_bytes()).await;
//! assert_eq!((reply.status, reply.body.as_str()), (409, "3\n"));
//! # Ok(())
//! # }
//! ```
//!
//! * [`note`]: signed notes and note verifier keys ([C2SP signed-note]);
//! * [`checkpoint`]: checkpoint bodies ([C2SP tlog-checkpoint]);
//! * [`proof`]: RFC 6962 consistency proofs (and an in-memory log for tests);
//! * [`request`]: the `add-checkpoint` request body;
//! * [`key`]: the witness's own cosignature/v1 Ed25519 key, sealed in the keystore, and the
//!   cosignatures it makes ([C2SP tlog-cosignature]);
//! * [`store`]: the durable per-log state and its compare-and-swap;
//! * [`service`]: the request handling, from body to answer ([C2SP tlog-witness]);
//! * [`http`]: the public HTTP listener; [`client`]: a small client for tests and benches.
//!
//! [C2SP signed-note]: https://c2sp.org/signed-note
//! [C2SP tlog-checkpoint]: https://c2sp.org/tlog-checkpoint
//! [C2SP tlog-cosignature]: https://c2sp.org/tlog-cosignature
//! [C2SP tlog-witness]: https://c2sp.org/tlog-witness

pub mod checkpoint;
pub mod client;
pub mod http;
pub mod key;
pub mod note;
pub mod proof;
pub mod request;
pub mod service;
pub mod store;

pub use key::WitnessKey;
pub use note::{NoteError, SignedNote, Verifier};
pub use service::{Reply, Witness};
