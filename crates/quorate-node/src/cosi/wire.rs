//! The payloads of the CoSi envelopes (JSON; protocol byte strings in hex). Every payload is
//! parsed with [`decode`], which bounds its size before parsing; the protocol objects inside
//! are decoded by `quorate_cosi`'s own length-checked codecs.
//!
//! | round | direction | payload |
//! |---|---|---|
//! | 1 [`ANNOUNCE`] | leader → every node (forwarded verbatim down the tree) | [`Announce`] |
//! | 2 [`COMMIT`] | child → parent | [`Commit`] |
//! | 3 [`CHALLENGE`] | leader → every committed node (forwarded verbatim) | [`ChallengeMsg`] |
//! | 4 [`RESPOND`] | child → parent | [`Respond`] |

use serde::{Deserialize, Serialize};

/// Round of the announcement.
pub const ANNOUNCE: u16 = 1;
/// Round of a commitment.
pub const COMMIT: u16 = 2;
/// Round of the challenge.
pub const CHALLENGE: u16 = 3;
/// Round of a response.
pub const RESPOND: u16 = 4;

/// The largest payload accepted (a 1024-witness tree and announcement fit easily).
pub const MAX_PAYLOAD: usize = 256 * 1024;

/// The leader's announcement: the signing tree of this attempt and the CoSi announcement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Announce {
    /// Roster index of the tree's root (the leader).
    pub root: u16,
    /// Each roster index's children, in order (`children.len()` is the roster size).
    pub children: Vec<Vec<u16>>,
    /// How long a node waits for its children, per level of its subtree, in milliseconds.
    pub level_timeout_ms: u64,
    /// [`quorate_cosi::Announcement::to_bytes`], hex.
    pub announcement: String,
    /// Signed rounds the recipient missed (sent by the leader to its direct children that
    /// did not sign the last round), oldest first; see [`super::head::HeadValidator::catch_up`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<SignedHex>,
}

/// A signed round: its message and collective signature, hex.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedHex {
    /// [`quorate_cosi::timestamp::RoundHeader::message`], hex.
    pub message: String,
    /// The collective signature, hex.
    pub signature: String,
}

impl SignedHex {
    /// The round, if both fields decode.
    pub fn decode(&self) -> Option<quorate_cosi::timestamp::SignedRound> {
        let message = hex::decode(&self.message).ok()?;
        Some(quorate_cosi::timestamp::SignedRound {
            header: quorate_cosi::timestamp::RoundHeader::from_message(&message)?,
            signature: hex::decode(&self.signature).ok()?,
        })
    }
}

/// A witness that declined the statement, with its reason and, for a conflict, the round
/// header it last cosigned (hex of the round message), as evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decline {
    /// Roster index.
    pub index: u16,
    /// Why.
    pub reason: String,
    /// The last round header this witness cosigned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_cosigned: Option<String>,
}

/// A subtree's aggregated commitment (none if nobody in it committed) and its refusals.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Commit {
    /// [`quorate_cosi::Commitment::to_bytes`], hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// Witnesses of the subtree that declined.
    #[serde(default)]
    pub declined: Vec<Decline>,
}

/// The leader's challenge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChallengeMsg {
    /// [`quorate_cosi::Challenge::to_bytes`], hex.
    pub challenge: String,
}

/// A subtree's aggregated response, or the culprits its aggregator named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Respond {
    /// [`quorate_cosi::Response::to_bytes`], hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// Roster indices named by an aggregator of the subtree.
    #[serde(default)]
    pub culprits: Vec<u16>,
    /// The check they failed.
    #[serde(default)]
    pub check: String,
}

/// Encodes a payload.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Plain structs of strings and integers always serialize.
    serde_json::to_vec(value).unwrap_or_default()
}

/// Decodes a payload of at most [`MAX_PAYLOAD`] bytes.
pub fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, String> {
    if bytes.len() > MAX_PAYLOAD {
        return Err(format!("payload of {} bytes is too large", bytes.len()));
    }
    serde_json::from_slice(bytes).map_err(|e| format!("malformed payload: {e}"))
}

/// Decodes a hex field.
pub fn unhex(field: &'static str, text: &str) -> Result<Vec<u8>, String> {
    hex::decode(text).map_err(|_| format!("{field}: not hex"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_round_trip_and_are_bounded() {
        let a = Announce {
            root: 0,
            children: vec![vec![1], vec![]],
            level_timeout_ms: 500,
            announcement: "00".into(),
            chain: Vec::new(),
        };
        assert_eq!(decode::<Announce>(&encode(&a)), Ok(a));
        assert!(decode::<Announce>(b"{\"root\":0}").is_err());
        assert!(decode::<Commit>(&vec![b' '; MAX_PAYLOAD + 1]).is_err());
        assert!(decode::<Respond>(br#"{"culprits":[1],"check":"x","extra":1}"#).is_err());
    }
}
