//! quorate-node: the signed envelope (checked by `Envelope::verify` against the roster;
//! strict: the signature covers the header and the payload hash).

use crate::{re, Case};
use ed25519_dalek::SigningKey;
use quorate_node::envelope::{Envelope, Header, Recipient};

const MAX_PAYLOAD: usize = 1 << 16;

/// The cases: a broadcast and a direct message.
pub fn cases() -> Vec<Case> {
    let keys: Vec<SigningKey> = (1u8..=3)
        .map(|i| SigningKey::from_bytes(&[i; 32]))
        .collect();
    let roster: Vec<_> = keys.iter().map(SigningKey::verifying_key).collect();
    let mut out = Vec::new();
    for (name, recipient, payload) in [
        (
            "envelope::Envelope(all)",
            Recipient::All,
            b"round 1 broadcast".to_vec(),
        ),
        (
            "envelope::Envelope(node)",
            Recipient::Node(3),
            vec![7u8; 100],
        ),
    ] {
        let header = Header {
            protocol: "quorate.fuzz-1".to_string(),
            protocol_version: 1,
            key_id: "fuzz-key".to_string(),
            epoch: 4,
            session: [5; 32],
            attempt: 0,
            round: 2,
            sender: 2,
            recipient,
        };
        let env = Envelope::seal(header, payload, &keys[1]).expect("seal");
        assert_eq!(
            Envelope::decode(&env.encode(), MAX_PAYLOAD).expect("decodes"),
            env
        );
        let roster = roster.clone();
        out.push(
            Case::new(name, env.encode(), |b| {
                re(Envelope::decode(b, MAX_PAYLOAD), Envelope::encode)
            })
            .with_check(true, move |b| {
                let e = Envelope::decode(b, MAX_PAYLOAD).expect("decoded");
                e.verify(|id| roster.get(usize::from(id).checked_sub(1)?).copied())
                    .is_ok()
            }),
        );
    }
    out
}
