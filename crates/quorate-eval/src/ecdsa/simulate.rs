//! In-process runs of the threshold-ECDSA protocols for demos and benchmarks: every message
//! goes through its canonical byte encoding and is counted. No network is modelled here;
//! [`super::netsim`] runs the same rounds over a simulated LAN or WAN.

use ed25519_dalek::SigningKey;
use quorate_core::{PartyId, ThresholdParams};
use quorate_ecdsa::keygen::{self, DkgMsg1, DkgMsg2, DkgMsg3, DkgMsg4};
use quorate_ecdsa::sign::{
    self, blame, dispute, BlameMsg, Combined, DisputeMsg, SignMsg1, SignMsg2, SignMsg3, Signature,
};
use quorate_ecdsa::{EcdsaError, KeyShare, Result, SessionId};
use rand_core::CryptoRngCore;
use std::collections::BTreeMap;

/// Bytes sent, per sending party (broadcasts counted once per recipient).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes sent by each party.
    pub sent: BTreeMap<PartyId, usize>,
    /// Messages sent in total.
    pub messages: usize,
}

impl Traffic {
    fn add(&mut self, from: PartyId, bytes: usize) {
        *self.sent.entry(from).or_default() += bytes;
        self.messages += 1;
    }

    /// Total bytes sent by all parties.
    pub fn total(&self) -> usize {
        self.sent.values().sum()
    }

    /// The largest number of bytes sent by one party.
    pub fn max_per_party(&self) -> usize {
        self.sent.values().copied().max().unwrap_or(0)
    }
}

type Inbox<M> = BTreeMap<PartyId, Vec<(PartyId, M)>>;

fn deliver<M>(inbox: &mut Inbox<M>, from: PartyId, to: PartyId, m: M) {
    inbox.entry(to).or_default().push((from, m));
}

fn take<M>(inbox: &mut Inbox<M>, me: PartyId) -> Vec<(PartyId, M)> {
    inbox.remove(&me).unwrap_or_default()
}

fn run_setup(
    params: ThresholdParams,
    old: Option<&[KeyShare]>,
    session: &[u8],
    rng: &mut impl CryptoRngCore,
) -> Result<(Vec<KeyShare>, Traffic)> {
    let session = SessionId::new(session.to_vec());
    let mut traffic = Traffic::default();
    let mut states = Vec::new();
    let mut inbox: Inbox<DkgMsg1> = BTreeMap::new();
    // Identity keys: the keygen roster, or the keys a refresh rotates to.
    let ids: Vec<SigningKey> = params
        .parties()
        .map(|_| SigningKey::generate(&mut *rng))
        .collect();
    let roster: Vec<_> = ids.iter().map(SigningKey::verifying_key).collect();
    for (i, id) in params.parties().zip(ids) {
        let (st, msgs) = match old {
            Some(o) => {
                let share = o
                    .get(i.position())
                    .ok_or(EcdsaError::MissingMessage { from: i })?;
                keygen::refresh_round1(share, &session, id, rng)?
            }
            None => keygen::round1(params, i, &session, id, &roster, rng)?,
        };
        for (to, m) in msgs {
            let b = m.to_bytes();
            traffic.add(i, b.len());
            deliver(&mut inbox, i, to, DkgMsg1::from_bytes(i, &b)?);
        }
        states.push((i, st));
    }
    let mut states2 = Vec::new();
    let mut inbox2: Inbox<DkgMsg2> = BTreeMap::new();
    for (i, st) in states {
        let (st2, msgs) = keygen::round2(st, &take(&mut inbox, i), rng)?;
        for (to, m) in msgs {
            let b = m.to_bytes();
            traffic.add(i, b.len());
            deliver(&mut inbox2, i, to, DkgMsg2::from_bytes(i, &b)?);
        }
        states2.push((i, st2));
    }
    let mut states3 = Vec::new();
    let mut inbox3: Inbox<DkgMsg3> = BTreeMap::new();
    for (i, st) in states2 {
        let (st3, msgs) = keygen::round3(st, &take(&mut inbox2, i), rng)?;
        for (to, m) in msgs {
            let b = m.to_bytes();
            traffic.add(i, b.len());
            deliver(&mut inbox3, i, to, DkgMsg3::from_bytes(i, &b)?);
        }
        states3.push((i, st3));
    }
    let mut states4 = Vec::new();
    let mut inbox4: Inbox<DkgMsg4> = BTreeMap::new();
    for (i, st) in states3 {
        let (st4, m) = keygen::round4(st, &take(&mut inbox3, i))?;
        // The agreement message is a broadcast.
        let b = m.to_bytes();
        for to in params.parties().filter(|j| *j != i) {
            traffic.add(i, b.len());
            deliver(&mut inbox4, i, to, DkgMsg4::from_bytes(i, &b)?);
        }
        states4.push((i, st4));
    }
    let mut shares = Vec::new();
    for (i, st) in states4 {
        let msgs = take(&mut inbox4, i);
        match old {
            None => shares.push(keygen::finish(st, &msgs)?),
            Some(o) => {
                let (pending, cert) = keygen::certify(st, &msgs)?;
                let mut current = o
                    .get(i.position())
                    .ok_or(EcdsaError::MissingMessage { from: i })?
                    .clone();
                pending.commit(&mut current, &cert)?;
                shares.push(current);
            }
        }
    }
    Ok((shares, traffic))
}

/// Runs key generation for all `n` parties.
pub fn keygen(
    params: ThresholdParams,
    session: &[u8],
    rng: &mut impl CryptoRngCore,
) -> Result<(Vec<KeyShare>, Traffic)> {
    run_setup(params, None, session, rng)
}

/// Runs a proactive refresh for all parties (`shares[k]` belongs to party `k + 1`).
pub fn refresh(
    shares: &[KeyShare],
    session: &[u8],
    rng: &mut impl CryptoRngCore,
) -> Result<(Vec<KeyShare>, Traffic)> {
    let params = shares
        .first()
        .map(KeyShare::params)
        .ok_or(EcdsaError::Param(quorate_core::ParamError::Invalid(
            "no shares",
        )))?;
    run_setup(params, Some(shares), session, rng)
}

/// Signs `digest` with `signers` (`shares[k]` belongs to party `k + 1`).
pub fn sign(
    shares: &mut [KeyShare],
    signers: &[PartyId],
    digest: &[u8; 32],
    sign_id: &[u8],
    rng: &mut impl CryptoRngCore,
) -> Result<(Signature, Traffic)> {
    let sign_id = SessionId::new(sign_id.to_vec());
    let mut traffic = Traffic::default();
    let get = |shares: &[KeyShare], i: PartyId| -> Result<usize> {
        if shares.get(i.position()).is_some() {
            Ok(i.position())
        } else {
            Err(EcdsaError::MissingMessage { from: i })
        }
    };
    let mut st1 = Vec::new();
    let mut inbox: Inbox<SignMsg1> = BTreeMap::new();
    for &i in signers {
        let k = get(shares, i)?;
        let (st, msgs) = sign::round1(&shares[k], &sign_id, signers, rng)?;
        for (to, m) in msgs {
            let b = m.to_bytes();
            traffic.add(i, b.len());
            deliver(&mut inbox, i, to, SignMsg1::from_bytes(i, &b)?);
        }
        st1.push((i, k, st));
    }
    let mut st2 = Vec::new();
    let mut inbox2: Inbox<SignMsg2> = BTreeMap::new();
    for (i, k, st) in st1 {
        let (st, msgs) = sign::round2(st, &shares[k], &take(&mut inbox, i), rng)?;
        for (to, m) in msgs {
            let b = m.to_bytes();
            traffic.add(i, b.len());
            deliver(&mut inbox2, i, to, SignMsg2::from_bytes(i, &b)?);
        }
        st2.push((i, k, st));
    }
    let mut st3 = Vec::new();
    let mut inbox3: Inbox<SignMsg3> = BTreeMap::new();
    for (i, k, st) in st2 {
        let (st, m) = sign::round3(st, &shares[k], digest, &take(&mut inbox2, i))?;
        let b = m.to_bytes();
        for &to in signers.iter().filter(|j| **j != i) {
            traffic.add(i, b.len());
            deliver(&mut inbox3, i, to, SignMsg3::from_bytes(i, &b)?);
        }
        st3.push((i, st));
    }
    let mut out = None;
    let mut blames = Vec::new();
    let mut disputes = Vec::new();
    for (i, st) in st3 {
        match sign::combine(st, &take(&mut inbox3, i))? {
            Combined::Signature(sig) => {
                out.get_or_insert(sig);
            }
            Combined::Blame(b) => blames.push((i, *b)),
            Combined::Dispute(d) => disputes.push((i, *d)),
        }
    }
    // Only on failure: the dispute round (inconsistent round-2 bodies) or the blame round
    // (a signature that does not verify), each ending in an error naming the culprits.
    if !disputes.is_empty() {
        let (states, msgs): (Vec<_>, Vec<_>) = disputes
            .into_iter()
            .map(|(i, d)| {
                let (st, m) = d.respond();
                ((i, st), (i, m))
            })
            .unzip();
        let mut inbox: Inbox<DisputeMsg> = BTreeMap::new();
        for (i, m) in msgs {
            let b = m.to_bytes();
            for &to in signers.iter().filter(|j| **j != i) {
                traffic.add(i, b.len());
                deliver(&mut inbox, i, to, DisputeMsg::from_bytes(i, &b)?);
            }
        }
        let mut first = None;
        for (i, st) in states {
            let e = dispute::resolve(&st, &take(&mut inbox, i));
            first.get_or_insert(e);
        }
        return Err(first.unwrap_or(EcdsaError::InvalidSignature));
    }
    if !blames.is_empty() {
        let mut states = Vec::new();
        let mut inbox: Inbox<BlameMsg> = BTreeMap::new();
        for (i, b) in blames {
            let (st, m) = b.respond(rng);
            let b = m.to_bytes();
            for &to in signers.iter().filter(|j| **j != i) {
                traffic.add(i, b.len());
                deliver(&mut inbox, i, to, BlameMsg::from_bytes(i, &b)?);
            }
            states.push((i, st));
        }
        let mut first = None;
        for (i, st) in states {
            let e = blame::resolve(&st, &take(&mut inbox, i));
            first.get_or_insert(e);
        }
        return Err(first.unwrap_or(EcdsaError::InvalidSignature));
    }
    out.map(|s| (s, traffic))
        .ok_or(EcdsaError::InvalidSignature)
}
