//! The SQLite store of issued rounds.
//!
//! One row per signed round: number, time, tree size, `prev` (the previous header's hash),
//! root, roster id,
//! signature, and the round's submitted hashes as one blob (32 bytes each, in leaf order).
//! Receipts are re-served by rebuilding the tree from that blob. Rounds are appended in a
//! transaction that first checks the new round continues the stored chain, so a crash leaves
//! either the whole round or none of it. The database runs in WAL mode with
//! `synchronous=FULL`, so a committed round survives a power loss. A small `meta` table keeps
//! the in-process witnesses' key seed and count, so a restarted server has the same roster.
//! Each round also records the instance nonce of the server run that handed out its tickets
//! (tickets are `ROUND-INDEX-INSTANCE`), so a ticket from a run that died before sealing is
//! never matched to a hash submitted to a later run. The database file is created mode 0600.

use anyhow::{bail, ensure, Context as _};
use quorate_cosi::timestamp::{ChainHead, Hash, IssuedRound, RoundHeader, SignedRound};
use rusqlite::{params, Connection, OptionalExtension as _};
use std::path::Path;

/// An open store.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    round     INTEGER PRIMARY KEY,
    time_ms   INTEGER NOT NULL,
    tree_size INTEGER NOT NULL,
    prev      BLOB NOT NULL,
    root      BLOB NOT NULL,
    roster_id BLOB NOT NULL,
    signature BLOB NOT NULL,
    leaves    BLOB NOT NULL,
    instance  BLOB NOT NULL DEFAULT x''
);
";

fn to_i64(v: u64) -> anyhow::Result<i64> {
    i64::try_from(v).context("value does not fit the store's 63-bit integers")
}

fn to_hash(bytes: Vec<u8>, what: &str) -> anyhow::Result<Hash> {
    Hash::try_from(bytes.as_slice()).map_err(|_| anyhow::anyhow!("stored {what} is not 32 bytes"))
}

/// Creates `path` mode 0600 if it does not exist yet (an existing file is left as it is).
fn create_private(path: &Path) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e).with_context(|| format!("creating store {}", path.display())),
    }
}

impl Store {
    /// Opens (creating if needed) the store at `path`.
    /// A new file is created mode 0600 (owner only; SQLite gives its `-wal` and `-shm` files
    /// the same mode): it holds the in-process witnesses' key seed.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        create_private(path)?;
        let conn =
            Connection::open(path).with_context(|| format!("opening store {}", path.display()))?;
        Self::init(conn)
    }

    /// A store in memory (for tests).
    pub fn in_memory() -> anyhow::Result<Store> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> anyhow::Result<Store> {
        // `journal_mode` returns a row, so it is read rather than executed.
        let _mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        conn.execute_batch("PRAGMA synchronous=FULL;")?;
        conn.execute_batch(SCHEMA)?;
        // Stores from before instance nonces: their rounds get the empty instance, which no
        // ticket carries.
        let has_instance: bool = conn.query_row(
            "SELECT COUNT(*) > 0 FROM pragma_table_info('rounds') WHERE name = 'instance'",
            [],
            |r| r.get(0),
        )?;
        if !has_instance {
            conn.execute_batch("ALTER TABLE rounds ADD COLUMN instance BLOB NOT NULL DEFAULT x''")?;
        }
        Ok(Store { conn })
    }

    /// A value from the `meta` table.
    pub fn meta(&self, key: &str) -> anyhow::Result<Option<Vec<u8>>> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    /// Sets a value in the `meta` table.
    pub fn set_meta(&self, key: &str, value: &[u8]) -> anyhow::Result<()> {
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }

    /// The header of the last stored round, if any.
    pub fn last_header(&self) -> anyhow::Result<Option<RoundHeader>> {
        let round: Option<i64> = self
            .conn
            .query_row("SELECT MAX(round) FROM rounds", [], |r| r.get(0))?;
        match round {
            None => Ok(None),
            Some(r) => Ok(self
                .load_round(u64::try_from(r).context("negative round number in store")?)?
                .map(|s| s.header)),
        }
    }

    /// Where the chain continues after the stored rounds.
    pub fn chain_head(&self) -> anyhow::Result<ChainHead> {
        Ok(self
            .last_header()?
            .map_or_else(ChainHead::genesis, |h| ChainHead::after(&h)))
    }

    /// Number of stored rounds.
    pub fn round_count(&self) -> anyhow::Result<u64> {
        let n: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM rounds", [], |r| r.get(0))?;
        Ok(u64::try_from(n)?)
    }

    /// Appends a signed round atomically. Fails (and stores nothing) unless the round
    /// directly follows the last stored one (its `prev` is the hash of the last stored
    /// header, or round 0 with the genesis `prev` in an empty store). `instance` is the nonce
    /// of the server run whose tickets name this round.
    pub fn append(&mut self, round: &IssuedRound, instance: &[u8]) -> anyhow::Result<()> {
        let h = round.header();
        let mut leaves = Vec::with_capacity(round.hashes.len() * 32);
        for hash in &round.hashes {
            leaves.extend_from_slice(hash);
        }
        let expected = self.chain_head()?;
        ensure!(
            h.round == expected.next_round && h.prev == expected.prev,
            "round {} does not continue the stored chain (expected round {})",
            h.round,
            expected.next_round
        );
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO rounds
               (round, time_ms, tree_size, prev, root, roster_id, signature, leaves, instance)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                to_i64(h.round)?,
                to_i64(h.time_ms)?,
                to_i64(h.tree_size)?,
                &h.prev[..],
                &h.root[..],
                &h.roster_id[..],
                &round.signed.signature,
                leaves,
                instance,
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The instance nonce of the server run that handed out round `round`'s tickets, if the
    /// round is stored.
    pub fn round_instance(&self, round: u64) -> anyhow::Result<Option<Vec<u8>>> {
        let Ok(key) = i64::try_from(round) else {
            return Ok(None);
        };
        Ok(self
            .conn
            .query_row("SELECT instance FROM rounds WHERE round = ?1", [key], |r| {
                r.get(0)
            })
            .optional()?)
    }

    /// The signed header of round `round`, if stored.
    /// A number beyond the store's 63-bit range was never stored: `None`, not an error (a
    /// client asking `GET /v1/round/18446744073709551615` gets 404, not 500).
    pub fn load_round(&self, round: u64) -> anyhow::Result<Option<SignedRound>> {
        let Ok(key) = i64::try_from(round) else {
            return Ok(None);
        };
        let row = self
            .conn
            .query_row(
                "SELECT time_ms, tree_size, prev, root, roster_id, signature
                 FROM rounds WHERE round = ?1",
                [key],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, Vec<u8>>(2)?,
                        r.get::<_, Vec<u8>>(3)?,
                        r.get::<_, Vec<u8>>(4)?,
                        r.get::<_, Vec<u8>>(5)?,
                    ))
                },
            )
            .optional()?;
        let Some((time_ms, tree_size, prev, root, roster_id, signature)) = row else {
            return Ok(None);
        };
        Ok(Some(SignedRound {
            header: RoundHeader {
                roster_id: to_hash(roster_id, "roster id")?,
                round,
                time_ms: u64::try_from(time_ms)?,
                tree_size: u64::try_from(tree_size)?,
                prev: to_hash(prev, "prev")?,
                root: to_hash(root, "root")?,
            },
            signature,
        }))
    }

    /// Round `round` with its leaves, checked against its stored root, if stored.
    pub fn load_issued(&self, round: u64) -> anyhow::Result<Option<IssuedRound>> {
        let Some(signed) = self.load_round(round)? else {
            return Ok(None);
        };
        let leaves: Vec<u8> = self.conn.query_row(
            "SELECT leaves FROM rounds WHERE round = ?1",
            [to_i64(round)?],
            |r| r.get(0),
        )?;
        if !leaves.len().is_multiple_of(32) {
            bail!("stored leaves of round {round} are not a multiple of 32 bytes");
        }
        let hashes: Vec<Hash> = leaves
            .chunks_exact(32)
            .map(|c| {
                let mut h = [0u8; 32];
                h.copy_from_slice(c);
                h
            })
            .collect();
        IssuedRound::from_parts(signed, hashes)
            .map(Some)
            .with_context(|| format!("stored leaves of round {round} do not match its root"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_beyond_the_stores_range_are_absent_not_errors() -> anyhow::Result<()> {
        let store = Store::in_memory()?;
        for round in [0, i64::MAX as u64, i64::MAX as u64 + 1, u64::MAX] {
            assert!(store.load_round(round)?.is_none(), "{round}");
            assert!(store.load_issued(round)?.is_none(), "{round}");
        }
        Ok(())
    }
}
