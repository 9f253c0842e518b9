//! What a hot node seals per client key: its state at an epoch ([`HotState`]) and, while a
//! refresh is pending, the refresh it checked ([`PendingMaterial`]). Both are binary,
//! versioned and checked on decoding; the secret parts are wiped when the buffers drop.

use quorate_bls::{
    BlsError, GroupPublic, HotRegistration, PadCommitment, PartyRecord, RefreshPublic, RefreshShare,
};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, PartyId};
use zeroize::Zeroizing;

const TAG_STATE: u8 = 0x51;
const TAG_PENDING: u8 = 0x52;
const VERSION: u8 = 1;
/// Most hot parties of one key (the BLS library's CRS serves at most this many).
pub const MAX_HOLDERS: usize = 1024;
/// Largest encoded public record or refresh accepted (n ≤ 1024: about 100 KiB and 150 KiB).
const MAX_PART: usize = 256 * 1024;

/// A hot party's sealed state at one epoch: its index, the holders' node ids (party `k`
/// is `holders[k−1]`), the client's Ed25519 authorisation key, the CRS id, the cold
/// partner's `K_i`, the public record (kept encoded; decoding reads only this party's
/// part of it, [`PartyRecord`], and the whole record is decoded only when a refresh needs
/// it, [`HotState::public`]) and the private `(i, hx_i, π_i)`.
pub struct HotState {
    /// Party index `i`.
    pub index: PartyId,
    /// Node ids of parties `1..=n`.
    pub holders: Vec<u16>,
    /// The client's Ed25519 key that authorises signing requests.
    pub auth_key: [u8; 32],
    /// The CRS id (also inside the record).
    pub crs_id: [u8; 32],
    /// `K_i = k_i·g2` from the cold partner.
    pub pad: PadCommitment,
    /// The public record at this epoch, encoded (`GroupPublic::to_bytes`).
    pub record: Vec<u8>,
    /// This party's view of `record` (digest, `(t, n)`, `vk`, `com_T`, `vs_i`).
    pub view: PartyRecord,
    /// `(i, hx_i, π_i)`: the secret.
    pub payload: HotRegistration,
}

fn part<'a>(r: &mut Reader<'a>) -> Result<&'a [u8], DecodeError> {
    let len = r.u32()? as usize;
    if len > MAX_PART {
        return Err(DecodeError::InvalidValue {
            what: "sealed BLS state",
            reason: "a part is longer than 256 KiB",
        });
    }
    r.take(len)
}

fn put_part(w: &mut Writer, bytes: &[u8]) {
    w.u32(bytes.len() as u32).bytes(bytes);
}

impl HotState {
    /// The sealed encoding (contains the hot share).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut w = Writer::new();
        w.header(TAG_STATE, VERSION).party(self.index);
        w.u16(self.holders.len() as u16);
        for h in &self.holders {
            w.u16(*h);
        }
        w.bytes(&self.auth_key).bytes(&self.crs_id);
        w.bytes(&self.pad.to_bytes());
        put_part(&mut w, &self.record);
        let payload = Zeroizing::new(self.payload.to_bytes());
        put_part(&mut w, &payload);
        Zeroizing::new(w.into_bytes())
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("sealed BLS hot state", bytes);
        r.header(TAG_STATE, VERSION)?;
        let index = r.party()?;
        let n = usize::from(r.u16()?);
        if n > MAX_HOLDERS {
            return Err(DecodeError::InvalidValue {
                what: "sealed BLS state",
                reason: "more than 1024 holders",
            });
        }
        let holders = (0..n).map(|_| r.u16()).collect::<Result<Vec<_>, _>>()?;
        let auth_key = r.array::<32>()?;
        let crs_id = r.array::<32>()?;
        let pad = PadCommitment::from_bytes(r.take(PadCommitment::BYTES)?)?;
        let record = part(&mut r)?.to_vec();
        let view = PartyRecord::from_bytes(&record, index).map_err(|e| match e {
            BlsError::Decode(d) => d,
            _ => DecodeError::InvalidValue {
                what: "sealed BLS state",
                reason: "the record does not include this party",
            },
        })?;
        let payload = HotRegistration::from_bytes(part(&mut r)?)?;
        r.finish()?;
        Ok(HotState {
            index,
            holders,
            auth_key,
            crs_id,
            pad,
            record,
            view,
            payload,
        })
    }

    /// The whole record, decoded and subgroup-checked (`n` G2 points): only a refresh
    /// needs it.
    pub fn public(&self) -> Result<GroupPublic, DecodeError> {
        GroupPublic::from_bytes(&self.record)
    }
}

/// A checked refresh waiting for its commit: the public part and this party's share
/// `δ_i` (a secret), sealed under the pending epoch so a restarted node can finish it.
pub struct PendingMaterial {
    /// The refresh's public part.
    pub public: RefreshPublic,
    /// This party's share.
    pub share: RefreshShare,
}

impl PendingMaterial {
    /// The sealed encoding (contains `δ_i`).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut w = Writer::new();
        w.header(TAG_PENDING, VERSION);
        put_part(&mut w, &self.public.to_bytes());
        let share = Zeroizing::new(self.share.to_bytes());
        put_part(&mut w, &share);
        Zeroizing::new(w.into_bytes())
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("sealed BLS pending refresh", bytes);
        r.header(TAG_PENDING, VERSION)?;
        let public = RefreshPublic::from_bytes(part(&mut r)?)?;
        let share = RefreshShare::from_bytes(part(&mut r)?)?;
        r.finish()?;
        Ok(PendingMaterial { public, share })
    }
}
