//! The CoSi witness role: a node that cosigns timestamp rounds with its own witness key, over
//! the node transport, as leader, subleader or leaf of the paper's tree.
//!
//! * **Key.** [`create_witness_key`] draws the node's CoSi witness key at `node init` and seals
//!   it in the keystore under the reserved key id `_cosi-witness` (separate from the identity
//!   key). The public entry carries the key with its proof of possession (`cosi = …` in
//!   `public.toml`), which every roster load checks ([`crate::roster`]).
//! * **Statement check** ([`head`]). A witness cosigns a timestamp round only if it extends
//!   the chain head it last cosigned (or is that very round again), and it stores the new
//!   head durably before its response leaves. A conflicting request is refused, and the
//!   leader's signed request is kept as evidence.
//! * **Rounds** ([`service`]). The two-nonce CoSi rounds of [`quorate_cosi::protocol`] run
//!   over the transport as signed envelopes: the leader's announcement and challenge are
//!   forwarded verbatim down the tree (every node checks the leader's signature), commitments
//!   and responses go up, each node waiting for its children for one level timeout per level
//!   of its subtree. A witness that does not commit in time is left out of the mask; one that
//!   commits and then fails is named by its parent, and the leader restarts the round
//!   without it.
//! * **Messages** ([`wire`]): the payloads and their bounds.

pub mod head;
pub mod service;
pub mod wire;

use crate::keystore::{KeyId, Keystore, KeystoreError, Kind};
use rand_core::OsRng;
use zeroize::Zeroizing;

pub use service::{CosiService, LeaderConfig, RemoteCosigner, WitnessSetup};

/// The protocol name bound into every CoSi envelope.
pub const PROTOCOL: &str = "cosi-timestamp";
/// Its version.
pub const PROTOCOL_VERSION: u16 = 1;

/// The keystore kind of the CoSi witness secret key.
fn witness_kind() -> Kind {
    Kind::COSI_WITNESS
}

/// Draws a fresh CoSi witness key, seals it in `keystore` under [`KeyId::cosi_witness`]
/// (epoch 0) and returns its roster entry (key and proof of possession).
pub fn create_witness_key(
    keystore: &mut Keystore,
) -> Result<quorate_cosi::RosterEntry, KeystoreError> {
    let key = quorate_cosi::SecretKey::generate(&mut OsRng);
    let id = KeyId::cosi_witness();
    keystore.begin_epoch(&id, 0)?;
    keystore.put_secret(&id, 0, 0, &witness_kind(), &key.to_bytes()[..])?;
    keystore.commit_epoch(&id, 0, b"self-generated CoSi witness key")?;
    Ok(key.roster_entry(&mut OsRng))
}

/// The node's CoSi witness key, if it has one (nodes initialised before the witness role
/// have none).
pub fn load_witness_key(
    keystore: &Keystore,
) -> Result<Option<quorate_cosi::SecretKey>, KeystoreError> {
    let id = KeyId::cosi_witness();
    if keystore.active_epoch(&id)?.is_none() {
        return Ok(None);
    }
    let Some(secret) = keystore.get_secret(&id, 0, &witness_kind())? else {
        return Ok(None);
    };
    let bytes: Zeroizing<[u8; 32]> =
        Zeroizing::new(secret.bytes.expose().try_into().map_err(|_| {
            KeystoreError::Corrupt("the CoSi witness key has the wrong length".into())
        })?);
    quorate_cosi::SecretKey::from_bytes(&bytes)
        .map(Some)
        .map_err(|e| KeystoreError::Corrupt(format!("the CoSi witness key: {e}")))
}
