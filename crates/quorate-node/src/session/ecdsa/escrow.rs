//! The escrow round of an ECDSA keygen or refresh (issue 16 §2): round 5 of
//! [`super::keygen`], between the sealed new share and the epoch-certificate signatures.
//!
//! * **Send.** A node configured with an escrow ([`crate::escrow`]) encrypts its new share
//!   `x_j` to it with `quorate_verenc::backup::backup` under the label
//!   [`crate::escrow::label`] (session id, protocol, version, key id, new epoch, node id)
//!   and broadcasts the backup; a node without an escrow sends an empty payload.
//! * **Check, before signing the certificate.** A node with an escrow requires from every
//!   other holder `j` a backup whose public share is the `T_j` the DKG agreed
//!   ([`quorate_ecdsa::KeyShare::public_share_bytes`]) and whose proof verifies
//!   (`quorate_verenc::backup::verify`) under this node's escrow key and the label it
//!   computes for `j`. A missing, malformed, wrong-share or invalid backup is
//!   [`DriverError::Blame`] naming every such holder: the pending epoch is abandoned and no
//!   certificate signature leaves this node. The runtime attaches the culprits' signed
//!   round-5 envelopes as evidence; anyone can re-run the verification on them, and the
//!   wrong-share case against `T_j` from the DKG's broadcast Feldman commitments.
//! * **Store.** The verified backups (with the escrow ciphertext this node's verification
//!   chose) are written durably before the certificate signature leaves
//!   ([`crate::escrow::store`]), concurrently with the keystore transaction that seals the
//!   share and the certificate-to-be (two independent durable writes: the signature waits
//!   for both). A node without an escrow ignores what it receives.
//!
//! Test hook (feature `test-faults`): `QUORATE_TEST_ESCROW_FAULT=wrong-share` backs up
//! another scalar than the share (a valid proof for the wrong `X`), `missing` sends no
//! backup.

use std::collections::BTreeMap;

use quorate_ecdsa::KeyShare;
use quorate_verenc::backup::{self, Backup, BackupError};
use rand_core::OsRng;
use rayon::prelude::*;
use tracing::warn;

use super::{failed, party_of, EcdsaNode};
use crate::escrow::{self, Escrow};
use crate::keystore::KeyId;
use crate::session::driver::{DriverError, Incoming, SessionContext};

/// The environment variable of the test fault (feature `test-faults`).
pub const FAULT_ENV: &str = "QUORATE_TEST_ESCROW_FAULT";

/// What the escrow round needs besides the driver: the protocol and the new epoch.
pub(crate) struct EscrowRound<'a> {
    pub(crate) node: &'a EcdsaNode,
    pub(crate) ctx: &'a SessionContext,
    pub(crate) protocol: &'static str,
    pub(crate) version: u16,
    pub(crate) new_epoch: u64,
    pub(crate) holders: &'a [u16],
}

impl EscrowRound<'_> {
    fn label(&self, node: u16) -> Vec<u8> {
        escrow::label(
            &self.ctx.session_id,
            self.protocol,
            self.version,
            &self.ctx.key_id,
            self.new_epoch,
            node,
        )
    }

    /// This node's round-5 payload: the backup of `share` (empty without an escrow).
    pub(crate) fn payload(&self, share: &KeyShare) -> Result<Vec<u8>, DriverError> {
        let Some(esc) = self.node.escrow() else {
            return Ok(Vec::new());
        };
        #[allow(unused_mut)]
        let mut secret = share.expose_secret_share();
        #[cfg(feature = "test-faults")]
        match std::env::var(FAULT_ENV).as_deref() {
            Ok("missing") => return Ok(Vec::new()),
            Ok("wrong-share") => secret[31] ^= 1,
            _ => {}
        }
        let b = backup::backup(&mut OsRng, &esc.key, &secret, &self.label(self.ctx.self_id))
            .map_err(|e| failed(format!("escrow backup of our share: {e}")))?;
        Ok(escrow::encode_wire(&b))
    }

    /// Checks every other holder's backup against its `T_j` in `share` (the holders in
    /// parallel) and returns the verified backups for [`Self::store`]; `Blame` names every
    /// holder whose backup is missing or bad. Without an escrow: nothing to keep.
    pub(crate) fn check(
        &self,
        share: &KeyShare,
        incoming: &BTreeMap<u16, Incoming>,
    ) -> Result<Vec<(u16, Backup)>, DriverError> {
        let Some(esc) = self.node.escrow() else {
            return Ok(Vec::new());
        };
        let (verified, bad) = check(self, esc, share, incoming)?;
        if !bad.is_empty() {
            let culprits: Vec<u16> = bad.keys().copied().collect();
            let reason = bad
                .iter()
                .map(|(n, why)| format!("node {n}: {why}"))
                .collect::<Vec<_>>()
                .join("; ");
            warn!(key_id = %self.ctx.key_id, ?culprits, %reason, "escrow backup rejected: the epoch does not commit");
            return Err(DriverError::Blame {
                culprits,
                reason: format!("escrow backup missing or invalid: {reason}"),
            });
        }
        // Every verified backup is to this node's own escrow key, and so is ours: when that
        // is t or more holders, the escrow alone can rebuild the signing key.
        let t = usize::from(share.params().t());
        if verified.len() + 1 >= t {
            warn!(key_id = %self.ctx.key_id, holders = verified.len() + 1, t,
                "{} holders (at least t) back up to this one escrow key: the escrow can rebuild the whole signing key", verified.len() + 1);
        }
        Ok(verified)
    }

    /// Durably stores the backups [`Self::check`] verified (nothing without an escrow).
    pub(crate) fn store(&self, verified: &[(u16, Backup)]) -> Result<(), DriverError> {
        let Some(esc) = self.node.escrow() else {
            return Ok(());
        };
        let key = KeyId::new(&self.ctx.key_id).map_err(failed)?;
        escrow::store(&esc.dir, &key, self.new_epoch, verified)
            .map_err(|e| failed(format!("storing the verified escrow backups: {e}")))
    }
}

type Checked = (Vec<(u16, Backup)>, BTreeMap<u16, String>);

fn check(
    r: &EscrowRound<'_>,
    esc: &Escrow,
    share: &KeyShare,
    incoming: &BTreeMap<u16, Incoming>,
) -> Result<Checked, DriverError> {
    let mut jobs = Vec::new();
    for &j in r.holders.iter().filter(|&&h| h != r.ctx.self_id) {
        let t_j = share
            .public_share_bytes(party_of(r.holders, j).map_err(failed)?)
            .ok_or_else(|| failed(format!("no public share of holder {j}")))?;
        jobs.push((j, t_j, r.label(j)));
    }
    // The holders' proofs are independent: all of them at once (each verification is
    // itself parallel inside, so this only fills the cores between its parallel parts).
    let results: Vec<(u16, Result<Backup, String>)> = jobs
        .into_par_iter()
        .map(|(j, t_j, label)| (j, check_one(esc, &t_j, label, incoming.get(&j))))
        .collect();
    let mut verified = Vec::new();
    let mut bad = BTreeMap::new();
    for (j, res) in results {
        match res {
            Ok(b) => verified.push((j, b)),
            Err(why) => {
                bad.insert(j, why);
            }
        }
    }
    Ok((verified, bad))
}

/// Checks one holder's payload: present, well formed, of `T_j`, and a valid proof. Returns
/// the backup with the escrow ciphertext to keep.
pub(crate) fn check_one(
    esc: &Escrow,
    t_j: &[u8; 33],
    label: Vec<u8>,
    msg: Option<&Incoming>,
) -> Result<Backup, String> {
    let payload = msg.map(|m| m.payload.as_slice()).unwrap_or_default();
    if payload.is_empty() {
        return Err("sent no backup".into());
    }
    let mut b = escrow::decode_wire(payload, &esc.key, label)?;
    if b.public_share.as_slice() != t_j.as_slice() {
        return Err(format!(
            "backup is of X = {}, not of its public share T_j = {}",
            hex::encode(&b.public_share),
            hex::encode(t_j)
        ));
    }
    match backup::verify(&b, &mut OsRng) {
        Ok(v) => {
            b.ciphertext = v.escrow_ciphertext;
            Ok(b)
        }
        Err(BackupError::Invalid(why)) => Err(format!("proof rejected: {why}")),
        Err(e) => Err(format!("malformed backup: {e}")),
    }
}
