//! `ecdsa-refresh`: a proactive refresh of a stored key by all its holders: the library's
//! `keygen::refresh_round1` and the same later rounds as a keygen (see [`super::keygen`]),
//! the new share sealed under the pending epoch `e + 1`, the epoch certificate signed by
//! every holder, then `commit_epoch`, which in the same transaction retires epoch `e`: its
//! data key and share are destroyed. Until the commit the old epoch stays active and signs; a
//! refresh that fails abandons the pending epoch.
//!
//! The request's epoch is the key's active epoch `e` (envelopes and attempts are bound to
//! it); params `{"n": N}` with `N` the number of holders, or `{"n": N, "restored": J}` when
//! holder node `J` was restored from the escrow ([`super::restore`]): `J` runs the library's
//! `restore_round1` from its stored `RestoredShare` and commits with `commit_restored`,
//! every other holder runs `refresh_round1_restoring` with `J`'s roster key (the epoch
//! identity key `J` lost is replaced by the key the roster pins) and checks `J`'s proof of
//! knowledge of its old share; each of them first requires a verified escrow backup of
//! `J`'s share of epoch `e` ([`require_escrowed`]). Everything else (rounds,
//! escrow backups, epoch certificate, pending/commit, recovery, blame) is the plain refresh;
//! afterwards `J` holds an ordinary share of epoch `e + 1`. Participants: every holder.
//! Output: `key_id`, `public_key`, `epoch` (`e + 1`), `t`, `n`, `holders`.

use std::sync::Arc;

use serde_json::Value;

use super::keygen::{DkgDriver, Source};
use super::{param_u16, party_of, restore, EcdsaNode};
use crate::keystore::KeyId;
use crate::session::driver::{Protocol, ProtocolDriver, SessionContext};

/// Protocol name.
pub const NAME: &str = super::REFRESH_PROTOCOL;

/// The `ecdsa-refresh` protocol of one node.
#[derive(Debug)]
pub struct EcdsaRefresh {
    node: Arc<EcdsaNode>,
}

impl EcdsaRefresh {
    /// The protocol, over the keys of `node`.
    pub fn new(node: Arc<EcdsaNode>) -> Self {
        Self { node }
    }
}

/// The refresh's params: the number of holders `"n"` (so that the runtime never retries
/// with fewer) and the holder restored from the escrow, `"restored"`, if any.
fn refresh_params(params: &Value) -> Result<(u16, Option<u16>), String> {
    if let Some(k) = params
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != "n" && *k != "restored"))
    {
        return Err(format!("unknown parameter {k:?}"));
    }
    let restored = match params.get("restored") {
        None => None,
        Some(_) => Some(param_u16(params, "restored")?),
    };
    Ok((param_u16(params, "n")?, restored))
}

/// A holder takes part in a refresh naming `j` restored only if it holds a verified escrow
/// backup of `j`'s share of the epoch being refreshed (review finding F1): the restored
/// party proves knowledge of `x_j` in the refresh itself, and this backup is the node's own
/// evidence that `x_j` was escrowed (so only the escrow's holder can have recovered it). A
/// key set up without an escrow cannot be restored: it needs a new keygen.
fn require_escrowed(node: &EcdsaNode, key_id: &str, epoch: u64, j: u16) -> Result<(), String> {
    let esc = node.escrow().ok_or_else(|| {
        format!(
            "refusing to restore node {j}: this node has no escrow configured, so key \
             {key_id} was not backed up here (a key set up without an escrow cannot be \
             restored from one)"
        )
    })?;
    let key = KeyId::new(key_id).map_err(|e| e.to_string())?;
    crate::escrow::export(&esc.dir, &key, j, Some(epoch)).map_err(|e| {
        format!(
            "refusing to restore node {j}: no verified escrow backup of its share of key \
             {key_id} epoch {epoch} here ({e})"
        )
    })?;
    Ok(())
}

impl Protocol for EcdsaRefresh {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> u16 {
        1
    }

    /// The key is usable on every holder once the operator has the answer.
    fn confirms_done(&self) -> bool {
        true
    }

    fn min_participants(&self, params: &Value) -> Result<usize, String> {
        // Every holder takes part; a refresh never retries with fewer.
        Ok(usize::from(refresh_params(params)?.0))
    }

    fn driver(&self, ctx: &SessionContext) -> Result<Box<dyn ProtocolDriver>, String> {
        let (_, restored) = refresh_params(&ctx.params)?;
        let (params, me, source, holders) = if restored == Some(ctx.self_id) {
            let (share, cert) = restore::load_restored(&self.node, &ctx.key_id, ctx.epoch)?;
            (
                share.params(),
                share.id(),
                Source::Restore(Box::new(share)),
                cert.holders,
            )
        } else {
            let (share, cert) = self.node.load_share(&ctx.key_id, ctx.epoch)?;
            let restored = match restored {
                None => None,
                Some(j) => {
                    let party = party_of(&cert.holders, j)?;
                    require_escrowed(&self.node, &ctx.key_id, ctx.epoch, j)?;
                    let key = self
                        .node
                        .roster
                        .get(&j)
                        .copied()
                        .ok_or_else(|| format!("restored node {j} is not in the roster"))?;
                    Some((party, key))
                }
            };
            (
                share.params(),
                share.id(),
                Source::Refresh {
                    share: Box::new(share),
                    restored,
                },
                cert.holders,
            )
        };
        if ctx.participants != holders {
            return Err(format!(
                "a refresh of key {} needs exactly its holders {holders:?}",
                ctx.key_id
            ));
        }
        let new_epoch = ctx
            .epoch
            .checked_add(1)
            .ok_or("the epoch counter is exhausted")?;
        Ok(Box::new(DkgDriver::new(
            self.node.clone(),
            ctx,
            KeyId::new(&ctx.key_id).map_err(|e| e.to_string())?,
            params,
            me,
            holders,
            source,
            new_epoch,
        )))
    }
}
