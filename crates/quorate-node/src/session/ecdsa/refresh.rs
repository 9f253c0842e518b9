//! `ecdsa-refresh`: a proactive refresh of a stored key by all its holders: the library's
//! `keygen::refresh_round1` and the same later rounds as a keygen (see [`super::keygen`]),
//! the new share sealed under the pending epoch `e + 1`, the epoch certificate signed by
//! every holder, then `commit_epoch`, which in the same transaction retires epoch `e`: its
//! data key and share are destroyed. Until the commit the old epoch stays active and signs; a
//! refresh that fails abandons the pending epoch.
//!
//! The request's epoch is the key's active epoch `e` (envelopes and attempts are bound to
//! it); params `{"n": N}` with `N` the number of holders; participants: every holder. Output: `key_id`, `public_key`, `epoch`
//! (`e + 1`), `t`, `n`, `holders`.

use std::sync::Arc;

use serde_json::Value;

use super::keygen::DkgDriver;
use super::{param_u16, EcdsaNode};
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

/// The number of holders, `{"n": N}` (so that the runtime never retries with fewer).
fn holders_param(params: &Value) -> Result<u16, String> {
    if let Some(k) = params
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != "n"))
    {
        return Err(format!("unknown parameter {k:?}"));
    }
    param_u16(params, "n")
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
        Ok(usize::from(holders_param(params)?))
    }

    fn driver(&self, ctx: &SessionContext) -> Result<Box<dyn ProtocolDriver>, String> {
        holders_param(&ctx.params)?;
        let (share, cert) = self.node.load_share(&ctx.key_id, ctx.epoch)?;
        if ctx.participants != cert.holders {
            return Err(format!(
                "a refresh of key {} needs exactly its holders {:?}",
                ctx.key_id, cert.holders
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
            share.params(),
            share.id(),
            cert.holders.clone(),
            Some(share),
            new_epoch,
        )))
    }
}
