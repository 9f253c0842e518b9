//! The tlog-witness parsers of quorate-node on untrusted bytes: the `add-checkpoint` request
//! body, signed notes, checkpoints and note verifier keys must return typed errors, never
//! panic; an accepted request's checkpoint must describe its note text; and consistency
//! proof verification must not panic for any sizes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use quorate_node::tlog_witness::checkpoint::Checkpoint;
use quorate_node::tlog_witness::note::{SignedNote, Verifier};
use quorate_node::tlog_witness::proof::verify_consistency;
use quorate_node::tlog_witness::request::AddCheckpoint;

fuzz_target!(|data: &[u8]| {
    if let Ok(req) = AddCheckpoint::parse(data) {
        let again = Checkpoint::parse(req.note.text).expect("an accepted request's checkpoint parses");
        assert_eq!(again, req.checkpoint);
        assert!(req.proof.len() <= 63);
        let _ = verify_consistency(
            req.old_size,
            req.checkpoint.size,
            &req.checkpoint.root,
            &req.checkpoint.root,
            &req.proof,
        );
        if let Ok(v) = Verifier::parse(req.checkpoint.origin) {
            let _ = req.note.verify(&[v]);
        }
    }
    if let Ok(note) = SignedNote::parse(data) {
        assert!(note.text.ends_with('\n') && !note.signatures.is_empty());
        let _ = Checkpoint::parse(note.text);
    }
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(v) = Verifier::parse(s) {
            assert_eq!(Verifier::parse(&v.to_string()).ok(), Some(v));
        }
    }
});
