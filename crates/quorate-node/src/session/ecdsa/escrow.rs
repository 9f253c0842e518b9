//! The escrow round of an ECDSA keygen or refresh (issue 16 §2): round 5 of
//! [`super::keygen`], between the sealed new share and the epoch-certificate signatures.
//!
//! * **Send.** A node configured with an escrow ([`crate::escrow`]) encrypts its new share
//!   `x_j` to it with `quorate_verenc::backup::backup` under the label
//!   [`crate::escrow::label`] (session id, protocol, version, key id, new epoch, node id)
//!   and broadcasts the backup; a node without an escrow sends an empty payload. The proof
//!   starts as soon as the new share is known, at the end of round 3
//!   ([`EscrowRound::start_backup`] on [`quorate_ecdsa::keygen::DkgRound4`]'s
//!   `expose_new_secret_share`), on its own thread, so it runs while the pending share is
//!   sealed and the round-4 agreement messages are exchanged; round 4's end only waits for
//!   what is left of it ([`EscrowRound::payload`]), and checks that the backup is of the
//!   agreed share's `T_j`.
//! * **Check, before signing the certificate.** A node with an escrow requires from every
//!   other holder `j` a backup whose public share is the `T_j` the DKG agreed
//!   ([`quorate_ecdsa::KeyShare::public_share_bytes`]) and whose proof verifies
//!   (`quorate_verenc::backup::check`) under this node's escrow key and the label it
//!   computes for `j`. A missing, malformed, wrong-share or invalid backup is
//!   [`DriverError::Blame`] naming every such holder: the pending epoch is abandoned and no
//!   certificate signature leaves this node. The runtime attaches the culprits' signed
//!   round-5 envelopes as evidence; anyone can re-run the verification on them, and the
//!   wrong-share case against `T_j` from the DKG's broadcast Feldman commitments.
//! * **Store.** The checked backups are compressed into the escrow ciphertexts this node
//!   keeps (TZ21: with this node's randomness, `Checked::escrow_ciphertext`) and written
//!   durably before the certificate signature leaves ([`crate::escrow::store`]), both
//!   concurrently with the keystore transaction that seals the share and the
//!   certificate-to-be (two independent durable writes: the signature waits for both). A
//!   node without an escrow ignores what it receives.
//!
//! **What the escrow adds to one node's refresh** ([`EscrowTiming`], logged per session at
//! `info` as `escrow round`): the wall time the node's session waits on escrow work, i.e.
//! the part of its own proof not done when round 4 ends (`prove_wait_us`), the check of the
//! other holders' backups (`check_us`), and the compression and store beyond the keystore
//! seal they run beside (`store_wait_us`). The proof's own time (`prove_us`) is logged too;
//! what of it overlapped round 4 is not added.
//!
//! Test hook (feature `test-faults`): `QUORATE_TEST_ESCROW_FAULT=wrong-share` backs up
//! another scalar than the share (a valid proof for the wrong `X`), `missing` sends no
//! backup.

use std::collections::BTreeMap;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use quorate_ecdsa::KeyShare;
use quorate_verenc::backup::{self, Backup, BackupError, Checked};
use rand_core::OsRng;
use rayon::prelude::*;
use tracing::{info, warn};
use zeroize::Zeroizing;

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

/// This node's backup proof, running on its own thread since the new share was known.
pub(crate) struct BackupJob {
    handle: JoinHandle<(Result<Backup, String>, Duration)>,
}

/// Where the escrow's time went in one session at this node (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct EscrowTiming {
    /// The whole proof of this node's backup (mostly overlapping round 4).
    pub(crate) prove: Duration,
    /// Round 4's end waiting for the rest of the proof.
    pub(crate) prove_wait: Duration,
    /// The check of the other holders' backups.
    pub(crate) check: Duration,
    /// The compression and store of the checked backups beyond the keystore seal.
    pub(crate) store_wait: Duration,
}

impl EscrowTiming {
    /// Logs the session's escrow timing (`escrow round`, at `info`).
    pub(crate) fn log(&self, key_id: &str, epoch: u64) {
        let us = |d: Duration| d.as_micros() as u64;
        info!(
            key_id,
            epoch,
            prove_us = us(self.prove),
            prove_wait_us = us(self.prove_wait),
            check_us = us(self.check),
            store_wait_us = us(self.store_wait),
            added_us = us(self.prove_wait + self.check + self.store_wait),
            "escrow round"
        );
    }
}

/// The test fault `what` is set (feature `test-faults`; never without it).
fn fault(what: &str) -> bool {
    #[cfg(feature = "test-faults")]
    if std::env::var(FAULT_ENV).as_deref() == Ok(what) {
        return true;
    }
    let _ = what;
    false
}

/// A backup the round checked, with its escrow ciphertext still to make.
pub(crate) type CheckedBackup = (u16, Backup, Checked);

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

    /// Starts the proof of this node's backup of its new secret share `secret` (from the
    /// library's round-4 state) on its own thread; `None` without an escrow.
    pub(crate) fn start_backup(&self, secret: Zeroizing<[u8; 32]>) -> Option<BackupJob> {
        let esc = self.node.escrow()?;
        let mut secret = secret;
        if fault("wrong-share") {
            secret[31] ^= 1;
        }
        let key = esc.key.clone();
        let label = self.label(self.ctx.self_id);
        let handle = std::thread::spawn(move || {
            let started = Instant::now();
            let b = backup::backup(&mut OsRng, &key, &secret, &label)
                .map_err(|e| format!("escrow backup of our share: {e}"));
            (b, started.elapsed())
        });
        Some(BackupJob { handle })
    }

    /// This node's round-5 payload: the backup `job` made of the new share (empty without
    /// an escrow), once it is checked to be of `share`'s (the agreed share's) own `T_j`.
    pub(crate) fn payload(
        &self,
        job: Option<BackupJob>,
        share: &KeyShare,
        timing: &mut EscrowTiming,
    ) -> Result<Vec<u8>, DriverError> {
        if self.node.escrow().is_none() {
            return Ok(Vec::new());
        }
        if fault("missing") {
            return Ok(Vec::new());
        }
        let job = job
            .or_else(|| self.start_backup(share.expose_secret_share()))
            .ok_or_else(|| failed("no escrow backup was started"))?;
        let waited = Instant::now();
        let (b, prove) = job
            .handle
            .join()
            .map_err(|_| failed("the escrow backup's thread panicked"))?;
        timing.prove_wait = waited.elapsed();
        timing.prove = prove;
        let b = b.map_err(failed)?;
        // The proof started before the agreement: it must be of the agreed share's T_j
        // (the library guarantees it; a mismatch would get this node blamed by the others).
        let own = party_of(self.holders, self.ctx.self_id).map_err(failed)?;
        let ours = share.public_share_bytes(own);
        if ours.as_ref().map(|t| t.as_slice()) != Some(b.public_share.as_slice())
            && !fault("wrong-share")
        {
            return Err(failed(
                "our escrow backup is not of the agreed share's public share",
            ));
        }
        Ok(escrow::encode_wire(&b))
    }

    /// Checks every other holder's backup against its `T_j` in `share` (the holders in
    /// parallel) and returns the checked backups for [`Self::store`]; `Blame` names every
    /// holder whose backup is missing or bad. Without an escrow: nothing to keep.
    pub(crate) fn check(
        &self,
        share: &KeyShare,
        incoming: &BTreeMap<u16, Incoming>,
    ) -> Result<Vec<CheckedBackup>, DriverError> {
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

    /// Makes the escrow ciphertexts of the backups [`Self::check`] accepted (the holders in
    /// parallel, each with this node's randomness) and durably stores them (nothing without
    /// an escrow).
    pub(crate) fn store(&self, checked: Vec<CheckedBackup>) -> Result<(), DriverError> {
        let Some(esc) = self.node.escrow() else {
            return Ok(());
        };
        let verified: Vec<(u16, Backup)> = checked
            .into_par_iter()
            .map(|(j, mut b, c)| {
                b.ciphertext = c
                    .escrow_ciphertext(&mut OsRng)
                    .map_err(|e| failed(format!("escrow ciphertext of node {j}'s backup: {e}")))?;
                Ok((j, b))
            })
            .collect::<Result<_, DriverError>>()?;
        let key = KeyId::new(&self.ctx.key_id).map_err(failed)?;
        escrow::store(&esc.dir, &key, self.new_epoch, &verified)
            .map_err(|e| failed(format!("storing the verified escrow backups: {e}")))
    }
}

type Results = (Vec<CheckedBackup>, BTreeMap<u16, String>);

fn check(
    r: &EscrowRound<'_>,
    esc: &Escrow,
    share: &KeyShare,
    incoming: &BTreeMap<u16, Incoming>,
) -> Result<Results, DriverError> {
    let mut jobs = Vec::new();
    for &j in r.holders.iter().filter(|&&h| h != r.ctx.self_id) {
        let t_j = share
            .public_share_bytes(party_of(r.holders, j).map_err(failed)?)
            .ok_or_else(|| failed(format!("no public share of holder {j}")))?;
        jobs.push((j, t_j, r.label(j)));
    }
    // The holders' proofs are independent: all of them at once (each verification is
    // itself parallel inside, so this only fills the cores between its parallel parts).
    let results: Vec<_> = jobs
        .into_par_iter()
        .map(|(j, t_j, label)| (j, check_one(esc, &t_j, label, incoming.get(&j))))
        .collect();
    let mut verified = Vec::new();
    let mut bad = BTreeMap::new();
    for (j, res) in results {
        match res {
            Ok((b, c)) => verified.push((j, b, c)),
            Err(why) => {
                bad.insert(j, why);
            }
        }
    }
    Ok((verified, bad))
}

/// Checks one holder's payload: present, well formed, of `T_j`, and a valid proof. Returns
/// the backup and its checked proof (which makes the escrow ciphertext to keep).
pub(crate) fn check_one(
    esc: &Escrow,
    t_j: &[u8; 33],
    label: Vec<u8>,
    msg: Option<&Incoming>,
) -> Result<(Backup, Checked), String> {
    let payload = msg.map(|m| m.payload.as_slice()).unwrap_or_default();
    if payload.is_empty() {
        return Err("sent no backup".into());
    }
    let b = escrow::decode_wire(payload, &esc.key, label)?;
    if b.public_share.as_slice() != t_j.as_slice() {
        return Err(format!(
            "backup is of X = {}, not of its public share T_j = {}",
            hex::encode(&b.public_share),
            hex::encode(t_j)
        ));
    }
    match backup::check(&b) {
        Ok(c) => Ok((b, c)),
        Err(BackupError::Invalid(why)) => Err(format!("proof rejected: {why}")),
        Err(e) => Err(format!("malformed backup: {e}")),
    }
}
