//! `ecdsa-keygen`: the library's dealerless key generation between the session's
//! participants (who become the key's holders), the share sealed in the keystore, and the
//! node's epoch certificate signed by every holder. The same driver runs a refresh
//! ([`super::refresh`]).
//!
//! | round | sends | on receipt |
//! |---|---|---|
//! | 1 | `DkgMsg1` to every other holder | `keygen::round2` |
//! | 2 | `DkgMsg2` to every other holder | `keygen::round3` |
//! | 3 | `DkgMsg3` to every lower-index holder | `keygen::round4`; this holder's escrow proof of its new share starts (own thread, [`super::escrow`]); a refresh seals the `PendingRefresh` under the pending epoch before sending |
//! | 4 | `DkgMsg4`, the library's agreement message (broadcast) | `keygen::finish` (a refresh: `certify`, then `PendingRefresh::commit`, or `commit_restored` on a holder restored from the escrow) |
//! | 5 | this holder's escrow backup of its new share, or nothing without an escrow (broadcast; [`super::escrow`]) | check every other holder's backup against its `T_j` and store them (a missing or bad one names its sender); then the share sealed under the pending epoch with the certificate-to-be |
//! | 6 | this holder's node-certificate signature (broadcast) | check every signature, `commit_epoch` |
//!
//! In key generation each holder's library identity key is its roster key (the node's
//! identity key), so the library's agreement step is signed with the keys the roster pins.
//! Params `{"t": T, "n": N}` with `N` = the number of participants (a keygen never retries
//! with fewer holders). The key id is the request's; epoch 0.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use ed25519_dalek::{SigningKey, VerifyingKey};
use quorate_core::ThresholdParams;
use quorate_ecdsa::keygen::{
    self, DkgMsg1, DkgMsg2, DkgMsg3, DkgMsg4, DkgRound1, DkgRound2, DkgRound3, DkgRound4,
    RestoredShare,
};
use quorate_ecdsa::{EcdsaError, KeyShare, PartyId, SessionId};
use rand_core::OsRng;
use serde_json::{json, Value};
use tracing::warn;

use super::cert::{CertStatement, EpochCertificate};
use super::escrow::{BackupJob, EscrowTiming};
use super::{driver_error, failed, limits, node_of, param_u16, party_of, recovery, EcdsaNode};
use crate::keystore::{KeyId, Kind};
use crate::session::driver::{
    DriverError, Incoming, Outgoing, Protocol, ProtocolDriver, Recipient, SessionContext, Step,
};

/// Protocol name.
pub const NAME: &str = "ecdsa-keygen";

/// The `ecdsa-keygen` protocol of one node.
#[derive(Debug)]
pub struct EcdsaKeygen {
    node: Arc<EcdsaNode>,
}

impl EcdsaKeygen {
    /// The protocol, storing keys through `node`.
    pub fn new(node: Arc<EcdsaNode>) -> Self {
        Self { node }
    }
}

fn params_of(params: &Value) -> Result<ThresholdParams, String> {
    let t = param_u16(params, "t")?;
    let n = param_u16(params, "n")?;
    if let Some(obj) = params.as_object() {
        if let Some(k) = obj.keys().find(|k| *k != "t" && *k != "n") {
            return Err(format!("unknown parameter {k:?}"));
        }
    }
    ThresholdParams::new(t, n).map_err(|e| e.to_string())
}

impl Protocol for EcdsaKeygen {
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
        Ok(usize::from(params_of(params)?.n()))
    }

    fn driver(&self, ctx: &SessionContext) -> Result<Box<dyn ProtocolDriver>, String> {
        let params = params_of(&ctx.params)?;
        if ctx.participants.len() != usize::from(params.n()) {
            return Err(format!(
                "keygen for n = {} needs exactly {} participants",
                params.n(),
                params.n()
            ));
        }
        if ctx.epoch != 0 {
            return Err("a keygen creates epoch 0".into());
        }
        let key = KeyId::new(&ctx.key_id).map_err(|e| e.to_string())?;
        if !self
            .node
            .keystore()
            .epochs(&key)
            .map_err(|e| e.to_string())?
            .is_empty()
        {
            return Err(format!("key {} already exists on this node", ctx.key_id));
        }
        let holders = ctx.participants.clone();
        let me = party_of(&holders, ctx.self_id)?;
        Ok(Box::new(DkgDriver::new(
            self.node.clone(),
            ctx,
            key,
            params,
            me,
            holders,
            Source::Keygen,
            0,
        )))
    }
}

pub(crate) enum State {
    Start,
    R1(Box<DkgRound1>),
    R2(Box<DkgRound2>),
    R3(Box<DkgRound3>),
    R4(Box<DkgRound4>),
    /// Our escrow backup is out (round 5); the new share is kept to check the others'.
    Escrow(Box<EscrowWait>),
    /// Our node-certificate signature is out; the library's certificate (refresh) is kept.
    Cert(Box<CertRound>),
    Finished,
}

/// Round 5's state: the certificate with our signature only (and, in a refresh, the
/// library's certificate), as sealed beside the share.
pub(crate) struct CertRound {
    cert: EpochCertificate,
}

/// Round 5's state: the statement to sign once every backup checks, the library's
/// certificate (refresh), and the new share (its `T_j` check the backups).
pub(crate) struct EscrowWait {
    statement: CertStatement,
    library: Option<Vec<u8>>,
    share: KeyShare,
    timing: EscrowTiming,
}

/// What a refresh seals under the pending epoch before its agreement message leaves.
pub const KIND_PENDING_REFRESH: &str = "ecdsa-pending-refresh";

/// What a [`DkgDriver`] starts from.
pub(crate) enum Source {
    /// A key generation.
    Keygen,
    /// A refresh of this holder's share; `restored` names the other holder restored from
    /// the escrow in this refresh, if any (its party and roster key: the library checks its
    /// broadcasts against that key, [`keygen::refresh_round1_restoring`]).
    Refresh {
        share: Box<KeyShare>,
        restored: Option<(PartyId, VerifyingKey)>,
    },
    /// A refresh in which this holder takes part from its share restored from the escrow
    /// ([`keygen::restore_round1`]; committed with `PendingRefresh::commit_restored`).
    Restore(Box<RestoredShare>),
}

/// The driver of a key generation or a refresh (see [`Source`]): the same library rounds,
/// the new share sealed under the pending epoch `new_epoch`, then the certificate round.
pub(crate) struct DkgDriver {
    pub(crate) node: Arc<EcdsaNode>,
    pub(crate) ctx: SessionContext,
    pub(crate) key: KeyId,
    pub(crate) params: ThresholdParams,
    pub(crate) me: PartyId,
    pub(crate) holders: Vec<u16>,
    /// A keygen, or the share being refreshed.
    pub(crate) source: Source,
    /// The epoch the new share is stored under.
    pub(crate) new_epoch: u64,
    pub(crate) state: State,
    /// A pending epoch was begun and not yet committed (abandoned on drop unless `signed`).
    pub(crate) pending: bool,
    /// Our certificate signature may be out (it is sealed with the share): the pending
    /// epoch is never abandoned here but left to [`super::recovery`].
    pub(crate) signed: bool,
    /// This holder's escrow backup proof, started when round 3 made the new share
    /// ([`super::escrow`]); joined for the round-5 payload.
    pub(crate) backup_job: Option<BackupJob>,
}

impl DkgDriver {
    /// A driver for `ctx`, registered as running until dropped.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        node: Arc<EcdsaNode>,
        ctx: &SessionContext,
        key: KeyId,
        params: ThresholdParams,
        me: PartyId,
        holders: Vec<u16>,
        source: Source,
        new_epoch: u64,
    ) -> Self {
        node.enter(ctx.session_id, key.as_str(), new_epoch);
        Self {
            node,
            ctx: ctx.clone(),
            key,
            params,
            me,
            holders,
            source,
            new_epoch,
            state: State::Start,
            pending: false,
            signed: false,
            backup_job: None,
        }
    }
}

impl Drop for DkgDriver {
    fn drop(&mut self) {
        let unresolved = self.pending && self.signed;
        if unresolved {
            warn!(key_id = %self.key, epoch = self.new_epoch,
                  "our epoch-certificate signature is out: the pending epoch is kept until a holder's status resolves it");
        } else if self.pending {
            if let Err(e) = self
                .node
                .keystore()
                .abandon_epoch(&self.key, self.new_epoch)
            {
                warn!(key_id = %self.key, error = %e, "could not abandon the pending epoch of a failed keygen or refresh");
            }
            self.node.forget(self.key.as_str());
        }
        self.node.leave(&self.ctx.session_id);
        if unresolved {
            self.node.wake_recovery();
        }
    }
}

/// Decodes every incoming payload with the library decoder (errors name the sender).
pub(crate) fn decode_all<M>(
    holders: &[u16],
    incoming: &BTreeMap<u16, Incoming>,
    decode: impl Fn(PartyId, &[u8]) -> quorate_ecdsa::Result<M>,
) -> Result<Vec<(PartyId, M)>, DriverError> {
    let mut out = Vec::with_capacity(incoming.len());
    for (from, m) in incoming {
        let p = party_of(holders, *from).map_err(failed)?;
        out.push((
            p,
            decode(p, &m.payload).map_err(|e| driver_error(holders, &e))?,
        ));
    }
    Ok(out)
}

/// The library's messages as envelopes to each party's node.
pub(crate) fn to_nodes(holders: &[u16], msgs: Vec<(PartyId, Vec<u8>)>) -> Vec<Outgoing> {
    msgs.into_iter()
        .filter_map(|(p, payload)| {
            node_of(holders, p).map(|n| Outgoing {
                to: Recipient::Node(n),
                payload,
            })
        })
        .collect()
}

impl DkgDriver {
    fn lib_err(&self, e: EcdsaError) -> DriverError {
        driver_error(&self.holders, &e)
    }

    /// The holders' roster keys in party order (the library's roster in key generation).
    fn roster_keys(&self) -> Result<Vec<VerifyingKey>, DriverError> {
        self.holders
            .iter()
            .map(|h| {
                self.node
                    .roster
                    .get(h)
                    .copied()
                    .ok_or_else(|| failed(format!("holder {h} is not in the roster")))
            })
            .collect()
    }

    /// Seals `secret` of `kind` under the pending epoch (beginning it first if `begin`).
    fn seal(&mut self, kind: &Kind, secret: &[u8], begin: bool) -> Result<(), DriverError> {
        let mut ks = self.node.keystore();
        if begin {
            ks.begin_epoch(&self.key, self.new_epoch).map_err(failed)?;
            self.pending = true;
        }
        ks.put_secret(&self.key, self.new_epoch, self.ctx.attempt, kind, secret)
            .map_err(failed)
    }

    /// Builds the certificate statement of the new share and returns this holder's escrow
    /// backup (round 5) to broadcast; nothing is sealed or signed before the backups check.
    fn persist(
        &mut self,
        share: &KeyShare,
        library_cert: Option<Vec<u8>>,
    ) -> Result<Vec<Outgoing>, DriverError> {
        if share.epoch() != self.new_epoch {
            return Err(failed(format!(
                "the library produced epoch {}, expected {}",
                share.epoch(),
                self.new_epoch
            )));
        }
        let statement = CertStatement {
            key_id: self.ctx.key_id.clone(),
            epoch: self.new_epoch,
            t: self.params.t(),
            holders: self.holders.clone(),
            public_key: share.public_key_bytes(),
            transcript: share.setup_transcript(),
            session_id: self.ctx.session_id,
            public_digest: Some(super::cert::public_digest(&share.epoch_public())),
        };
        let mut timing = EscrowTiming::default();
        let job = self.backup_job.take();
        let payload = self.escrow_round().payload(job, share, &mut timing)?;
        self.state = State::Escrow(Box::new(EscrowWait {
            statement,
            library: library_cert,
            share: share.clone(),
            timing,
        }));
        Ok(vec![Outgoing {
            to: Recipient::All,
            payload,
        }])
    }

    /// The escrow round of this session ([`super::escrow`]).
    fn escrow_round(&self) -> super::escrow::EscrowRound<'_> {
        super::escrow::EscrowRound {
            node: &self.node,
            ctx: &self.ctx,
            protocol: match self.source {
                Source::Keygen => NAME,
                Source::Refresh { .. } | Source::Restore(_) => super::REFRESH_PROTOCOL,
            },
            version: 1,
            new_epoch: self.new_epoch,
            holders: &self.holders,
        }
    }

    /// Round 5: checks the other holders' escrow backups; then stores them while it seals
    /// the new share with the certificate-to-be, and returns this holder's node-certificate
    /// signature to broadcast.
    fn certify_after_escrow(
        &mut self,
        wait: EscrowWait,
        incoming: &BTreeMap<u16, Incoming>,
    ) -> Result<Vec<Outgoing>, DriverError> {
        let checking = Instant::now();
        let backups = self.escrow_round().check(&wait.share, incoming)?;
        let EscrowWait {
            statement,
            library: library_cert,
            share,
            mut timing,
        } = wait;
        timing.check = checking.elapsed();
        let share = &share;
        let sig = statement.sign(&self.node.identity);
        let mut cert = EpochCertificate::new(&statement, BTreeMap::from([(self.ctx.self_id, sig)]));
        cert.library = library_cert;
        // The share and the certificate-to-be go in one transaction, before our signature
        // leaves: a sealed share always comes with what recovery needs to finish the epoch.
        // The verified escrow backups (their own file) are written at the same time: two
        // independent durable writes, and the signature waits for both.
        let escrow_round = self.escrow_round();
        let mut began = false;
        let (stored, sealed) = std::thread::scope(|s| {
            let stored = s.spawn(|| escrow_round.store(backups));
            let sealed = (|| -> Result<(), DriverError> {
                let mut ks = self.node.keystore();
                // A refresh began the epoch when it sealed its pending share.
                if !self.pending {
                    ks.begin_epoch(&self.key, self.new_epoch).map_err(failed)?;
                    began = true;
                }
                let kind = recovery::epoch_cert_kind().map_err(failed)?;
                ks.put_secrets(
                    &self.key,
                    self.new_epoch,
                    self.ctx.attempt,
                    &[
                        (&Kind::KEY_SHARE, &share.to_bytes()),
                        (&kind, &cert.to_bytes()),
                    ],
                )
                .map_err(failed)
            })();
            let seal_done = Instant::now();
            let stored = stored
                .join()
                .unwrap_or_else(|_| Err(failed("storing the escrow backups panicked")));
            timing.store_wait = seal_done.elapsed();
            (stored, sealed)
        });
        if began {
            self.pending = true;
        }
        sealed?;
        stored?;
        if self.node.escrow().is_some() {
            timing.log(&self.ctx.key_id, self.new_epoch);
        }
        self.signed = true;
        self.state = State::Cert(Box::new(CertRound { cert }));
        Ok(vec![Outgoing {
            to: Recipient::All,
            payload: sig.to_vec(),
        }])
    }

    /// Checks every holder's certificate signature and commits the epoch.
    fn commit(
        &mut self,
        mut cert: EpochCertificate,
        incoming: &BTreeMap<u16, Incoming>,
    ) -> Result<Step, DriverError> {
        let statement = cert.statement();
        let mut sigs = std::mem::take(&mut cert.signatures);
        let mut bad = Vec::new();
        for (from, m) in incoming {
            let ok = self
                .node
                .roster
                .get(from)
                .is_some_and(|k| statement.verify(k, &m.payload));
            match <[u8; 64]>::try_from(m.payload.as_slice()) {
                Ok(s) if ok => {
                    sigs.insert(*from, s);
                }
                _ => bad.push(*from),
            }
        }
        if !bad.is_empty() {
            return Err(DriverError::Blame {
                culprits: bad,
                reason: "epoch certificate signature does not verify over our transcript".into(),
            });
        }
        cert.signatures = sigs;
        self.node
            .commit_epoch(&self.key, self.new_epoch, &cert.to_bytes())
            .map_err(failed)?;
        self.pending = false;
        // Older epochs are retired (their data keys destroyed): drop their loaded shares
        // and delete their escrow backups.
        self.node.epoch_committed(&self.key, self.new_epoch);
        Ok(Step::Done(json!({
            "key_id": self.ctx.key_id,
            "public_key": hex::encode(statement.public_key),
            "epoch": statement.epoch,
            "t": statement.t,
            "n": statement.holders.len(),
            "holders": statement.holders,
        })))
    }
}

impl ProtocolDriver for DkgDriver {
    fn start(&mut self) -> Result<Vec<Outgoing>, DriverError> {
        let sid = SessionId::new(self.ctx.session_id.to_vec());
        // A refresh announces a fresh identity key for the next epoch.
        let next = || SigningKey::generate(&mut OsRng);
        let started = match &self.source {
            Source::Refresh {
                share,
                restored: None,
            } => keygen::refresh_round1(share, &sid, next(), &mut OsRng),
            Source::Refresh {
                share,
                restored: Some(r),
            } => keygen::refresh_round1_restoring(share, &sid, next(), &[*r], &mut OsRng),
            Source::Restore(restored) => keygen::restore_round1(restored, &sid, next(), &mut OsRng),
            Source::Keygen => {
                let roster = self.roster_keys()?;
                keygen::round1(
                    self.params,
                    self.me,
                    &sid,
                    self.node.identity.clone(),
                    &roster,
                    &mut OsRng,
                )
            }
        };
        let (st, msgs) = started.map_err(|e| self.lib_err(e))?;
        self.state = State::R1(Box::new(st));
        Ok(to_nodes(
            &self.holders,
            msgs.into_iter().map(|(p, m)| (p, m.to_bytes())).collect(),
        ))
    }

    fn expected_from(&self, round: u16) -> Vec<u16> {
        match round {
            // Round-3 messages go to lower-index parties only.
            3 => self
                .holders
                .iter()
                .copied()
                .filter(|h| *h > self.ctx.self_id)
                .collect(),
            _ => self.ctx.others(),
        }
    }

    fn max_payload(&self, round: u16) -> usize {
        match round {
            5 => crate::escrow::MAX_WIRE,
            6 => 64,
            r => limits::keygen(r, self.params.t(), self.params.n()),
        }
    }

    fn handle(
        &mut self,
        round: u16,
        incoming: BTreeMap<u16, Incoming>,
    ) -> Result<Step, DriverError> {
        let holders = self.holders.clone();
        match (round, std::mem::replace(&mut self.state, State::Finished)) {
            (1, State::R1(st)) => {
                let msgs = decode_all(&holders, &incoming, DkgMsg1::from_bytes)?;
                let (st, out) =
                    keygen::round2(*st, &msgs, &mut OsRng).map_err(|e| self.lib_err(e))?;
                self.state = State::R2(Box::new(st));
                Ok(Step::Next(to_nodes(
                    &holders,
                    out.into_iter().map(|(p, m)| (p, m.to_bytes())).collect(),
                )))
            }
            (2, State::R2(st)) => {
                let msgs = decode_all(&holders, &incoming, DkgMsg2::from_bytes)?;
                let (st, out) =
                    keygen::round3(*st, &msgs, &mut OsRng).map_err(|e| self.lib_err(e))?;
                self.state = State::R3(Box::new(st));
                Ok(Step::Next(to_nodes(
                    &holders,
                    out.into_iter().map(|(p, m)| (p, m.to_bytes())).collect(),
                )))
            }
            (3, State::R3(st)) => {
                let msgs = decode_all(&holders, &incoming, DkgMsg3::from_bytes)?;
                let (st, m) = keygen::round4(*st, &msgs).map_err(|e| self.lib_err(e))?;
                // The new share is final here: this holder's escrow proof starts now and
                // runs while the pending share is sealed and round 4 is exchanged.
                self.backup_job = self
                    .escrow_round()
                    .start_backup(st.expose_new_secret_share());
                // A refresh seals its pending share before the agreement message leaves:
                // once it is out, the others may complete a certificate.
                if let Some(p) = st.pending() {
                    let kind = Kind::new(KIND_PENDING_REFRESH).map_err(failed)?;
                    self.seal(&kind, &p.to_bytes(), true)?;
                }
                self.state = State::R4(Box::new(st));
                Ok(Step::Next(vec![Outgoing {
                    to: Recipient::All,
                    payload: m.to_bytes(),
                }]))
            }
            (4, State::R4(st)) => {
                let msgs = decode_all(&holders, &incoming, DkgMsg4::from_bytes)?;
                let (current, cert) = match &self.source {
                    Source::Keygen => {
                        let share = keygen::finish(*st, &msgs).map_err(|e| self.lib_err(e))?;
                        return Ok(Step::Next(self.persist(&share, None)?));
                    }
                    Source::Refresh { share, .. } => {
                        let (pending, cert) =
                            keygen::certify(*st, &msgs).map_err(|e| self.lib_err(e))?;
                        let mut current = KeyShare::clone(share);
                        pending
                            .commit(&mut current, &cert)
                            .map_err(|e| self.lib_err(e))?;
                        (current, cert)
                    }
                    // The restored holder's commit (its refresh ran from the escrowed share).
                    Source::Restore(restored) => {
                        let (pending, cert) =
                            keygen::certify(*st, &msgs).map_err(|e| self.lib_err(e))?;
                        let current = pending
                            .commit_restored(restored, &cert)
                            .map_err(|e| self.lib_err(e))?;
                        (current, cert)
                    }
                };
                Ok(Step::Next(self.persist(&current, Some(cert.to_bytes()))?))
            }
            (5, State::Escrow(w)) => Ok(Step::Next(self.certify_after_escrow(*w, &incoming)?)),
            (6, State::Cert(c)) => self.commit(c.cert, &incoming),
            (r, _) => Err(DriverError::Failed(format!(
                "ecdsa DKG: unexpected round {r}"
            ))),
        }
    }
}
