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
//!
//! **The round being signed.** Before the witnesses are asked to cosign a round header, the
//! header and its leaves are stored as the single `pending` row ([`Store::set_pending`]);
//! appending the signed round deletes it in the same transaction. A server killed while its
//! witnesses cosign finds the row at start and asks for that very header again: remote
//! witnesses that already cosigned it accept it unchanged, whereas a new header for the same
//! round would conflict with what they signed. The row also keeps the tickets of the dead run
//! (its instance nonce) valid.
//!
//! **Lookup by hash.** `leaf_index` maps the first 8 bytes of every stored hash to its
//! `(round, index)`, written in the same transaction as the round, so a client that lost its
//! ticket can still find its receipt ([`Store::find_hash`]). An 8-byte integer key keeps the
//! index small and its inserts cheap; a lookup confirms the full hash against the round's
//! leaves, so prefix collisions are harmless. Stores from before the index are indexed once
//! when opened.

use anyhow::{bail, ensure, Context as _};
use quorate_cosi::timestamp::{ChainHead, Hash, IssuedRound, RoundHeader, SignedRound};
use rusqlite::{params, Connection, OptionalExtension as _};
use std::path::Path;

/// The round a server was having cosigned ([`Store::pending`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingRound {
    /// The header the witnesses were asked to cosign.
    pub header: RoundHeader,
    /// Its leaves.
    pub hashes: Vec<Hash>,
    /// The instance nonce of the run whose tickets name the round.
    pub instance: Vec<u8>,
}

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
CREATE TABLE IF NOT EXISTS pending (
    one       INTEGER PRIMARY KEY CHECK (one = 1),
    round     INTEGER NOT NULL,
    time_ms   INTEGER NOT NULL,
    tree_size INTEGER NOT NULL,
    prev      BLOB NOT NULL,
    root      BLOB NOT NULL,
    roster_id BLOB NOT NULL,
    leaves    BLOB NOT NULL,
    instance  BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS leaf_index (
    prefix INTEGER NOT NULL,
    round  INTEGER NOT NULL,
    idx    INTEGER NOT NULL,
    PRIMARY KEY (prefix, round, idx)
) WITHOUT ROWID;
";

/// `meta` key set once every stored round is in `leaf_index`.
const META_LEAF_INDEX: &str = "leaf_index_v1";

/// The `leaf_index` key of a hash: its first 8 bytes as a big-endian signed integer.
fn hash_prefix(hash: &Hash) -> i64 {
    let mut p = [0u8; 8];
    p.copy_from_slice(&hash[..8]);
    i64::from_be_bytes(p)
}

/// Inserts the index rows of one round's leaves.
fn index_leaves(tx: &rusqlite::Transaction<'_>, round: i64, hashes: &[Hash]) -> anyhow::Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT OR IGNORE INTO leaf_index (prefix, round, idx) VALUES (?1, ?2, ?3)",
    )?;
    for (i, hash) in hashes.iter().enumerate() {
        insert.execute(params![hash_prefix(hash), round, to_i64(i as u64)?])?;
    }
    Ok(())
}

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
        let mut store = Store { conn };
        if store.meta(META_LEAF_INDEX)?.is_none() {
            store.backfill_leaf_index()?;
        }
        Ok(store)
    }

    /// Indexes the leaves of every stored round (stores written before `leaf_index`), then
    /// records that the index is complete, in one transaction.
    fn backfill_leaf_index(&mut self) -> anyhow::Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut rounds = tx.prepare("SELECT round, leaves FROM rounds")?;
            let rows =
                rounds.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)))?;
            for row in rows {
                let (round, leaves) = row?;
                let hashes: Vec<Hash> = leaves
                    .chunks_exact(32)
                    .filter_map(|c| Hash::try_from(c).ok())
                    .collect();
                index_leaves(&tx, round, &hashes)?;
            }
        }
        tx.execute(
            "INSERT INTO meta (key, value) VALUES (?1, x'01')
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [META_LEAF_INDEX],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The earliest stored `(round, index)` whose leaf is `hash`, if any.
    pub fn find_hash(&self, hash: &Hash) -> anyhow::Result<Option<(u64, u64)>> {
        let mut candidates = self.conn.prepare_cached(
            "SELECT round, idx FROM leaf_index WHERE prefix = ?1 ORDER BY round, idx",
        )?;
        let rows: Vec<(i64, i64)> = candidates
            .query_map([hash_prefix(hash)], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut leaf = self.conn.prepare_cached(
            "SELECT substr(leaves, ?2 * 32 + 1, 32) FROM rounds WHERE round = ?1",
        )?;
        for (round, idx) in rows {
            let stored: Option<Vec<u8>> = leaf
                .query_row(params![round, idx], |r| r.get(0))
                .optional()?;
            if stored.as_deref() == Some(&hash[..]) {
                return Ok(Some((u64::try_from(round)?, u64::try_from(idx)?)));
            }
        }
        Ok(None)
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
        index_leaves(&tx, to_i64(h.round)?, &round.hashes)?;
        tx.execute("DELETE FROM pending", [])?;
        tx.commit()?;
        Ok(())
    }

    /// Records the round about to be cosigned (replacing any earlier pending round).
    pub fn set_pending(
        &mut self,
        header: &RoundHeader,
        hashes: &[Hash],
        instance: &[u8],
    ) -> anyhow::Result<()> {
        let mut leaves = Vec::with_capacity(hashes.len() * 32);
        for hash in hashes {
            leaves.extend_from_slice(hash);
        }
        self.conn.execute(
            "INSERT OR REPLACE INTO pending
               (one, round, time_ms, tree_size, prev, root, roster_id, leaves, instance)
             VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                to_i64(header.round)?,
                to_i64(header.time_ms)?,
                to_i64(header.tree_size)?,
                &header.prev[..],
                &header.root[..],
                &header.roster_id[..],
                leaves,
                instance,
            ],
        )?;
        Ok(())
    }

    /// The round that was being cosigned when the last run stopped, if it was never
    /// appended: its header, leaves and the instance nonce of the run that handed out its
    /// tickets. The header is checked against the leaves.
    pub fn pending(&self) -> anyhow::Result<Option<PendingRound>> {
        type Row = (i64, i64, i64, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);
        let row: Option<Row> = self
            .conn
            .query_row(
                "SELECT round, time_ms, tree_size, prev, root, roster_id, leaves, instance
                 FROM pending WHERE one = 1",
                [],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                    ))
                },
            )
            .optional()?;
        let Some((round, time_ms, tree_size, prev, root, roster_id, leaves, instance)) = row else {
            return Ok(None);
        };
        ensure!(
            leaves.len().is_multiple_of(32),
            "pending round's leaves are not a multiple of 32 bytes"
        );
        let hashes: Vec<Hash> = leaves
            .chunks_exact(32)
            .filter_map(|c| Hash::try_from(c).ok())
            .collect();
        let header = RoundHeader {
            roster_id: to_hash(roster_id, "roster id")?,
            round: u64::try_from(round)?,
            time_ms: u64::try_from(time_ms)?,
            tree_size: u64::try_from(tree_size)?,
            prev: to_hash(prev, "prev")?,
            root: to_hash(root, "root")?,
        };
        let tree = quorate_cosi::timestamp::build_tree(&hashes);
        ensure!(
            tree.root() == header.root && tree.size() == header.tree_size,
            "pending round's leaves do not match its root"
        );
        Ok(Some(PendingRound {
            header,
            hashes,
            instance,
        }))
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
    use quorate_cosi::timestamp::{build_tree, SignedRound};

    /// Round `head.next_round` over `hashes` with a placeholder signature (the store does not
    /// check signatures).
    fn round_after(head: &ChainHead, hashes: Vec<Hash>) -> IssuedRound {
        let tree = build_tree(&hashes);
        let header = RoundHeader {
            roster_id: [9; 32],
            round: head.next_round,
            time_ms: 1000 + head.next_round,
            tree_size: tree.size(),
            prev: head.prev,
            root: tree.root(),
        };
        let signed = SignedRound {
            header,
            signature: vec![0; 65],
        };
        IssuedRound::from_parts(signed, hashes).expect("consistent round")
    }

    #[test]
    fn find_hash_gives_the_earliest_leaf_and_confirms_the_full_hash() -> anyhow::Result<()> {
        let mut store = Store::in_memory()?;
        let a = [1u8; 32];
        let b = [2u8; 32];
        // Same 8-byte prefix as `a`, different hash: must not be mistaken for it.
        let mut a_twin = a;
        a_twin[31] = 7;
        store.append(&round_after(&store.chain_head()?, vec![b, a_twin]), b"")?;
        store.append(&round_after(&store.chain_head()?, vec![b, b, a]), b"")?;
        store.append(&round_after(&store.chain_head()?, vec![a]), b"")?;
        assert_eq!(store.find_hash(&a)?, Some((1, 2)));
        assert_eq!(store.find_hash(&b)?, Some((0, 0)));
        assert_eq!(store.find_hash(&a_twin)?, Some((0, 1)));
        assert_eq!(store.find_hash(&[3u8; 32])?, None);
        Ok(())
    }

    #[test]
    fn stores_from_before_the_index_are_indexed_when_opened() -> anyhow::Result<()> {
        let dir = std::env::temp_dir().join(format!(
            "quorate-ts-store-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("old.sqlite");
        {
            let mut store = Store::open(&path)?;
            store.append(&round_after(&store.chain_head()?, vec![[5u8; 32]]), b"")?;
            // What a store written before the index looks like.
            store.conn.execute_batch(
                "DELETE FROM leaf_index; DELETE FROM meta WHERE key = 'leaf_index_v1';",
            )?;
            assert_eq!(store.find_hash(&[5u8; 32])?, None);
        }
        let store = Store::open(&path)?;
        assert_eq!(store.find_hash(&[5u8; 32])?, Some((0, 0)));
        drop(store);
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

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
