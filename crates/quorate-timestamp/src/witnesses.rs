//! The in-process witnesses of a store: their key seed lives in the store's `meta` table, so a
//! restarted server has the same roster.

use crate::store::Store;
use anyhow::{ensure, Context as _};
use quorate_cosi::timestamp::InProcessCosigner;
use rand_core::{OsRng, RngCore as _};

/// `meta` key of the in-process witnesses' key seed.
const META_WITNESS_SEED: &str = "witness_seed";
/// `meta` key of the number of in-process witnesses (u64, big-endian).
const META_WITNESSES: &str = "witnesses";

/// The in-process witnesses of the store at hand. The first start draws a random key seed
/// and records it with the witness count; later starts rebuild the same roster, and fail if
/// `witnesses` differs from the recorded count.
///
/// The seed is kept in the store because in-process witnesses are a single-operator
/// deployment anyway: whoever holds the database holds the witnesses. Independent witnesses
/// keep their own keys.
pub fn open_cosigner(store: &Store, witnesses: usize) -> anyhow::Result<InProcessCosigner> {
    ensure!(witnesses > 0, "need at least one witness");
    let seed = match (store.meta(META_WITNESS_SEED)?, store.meta(META_WITNESSES)?) {
        (Some(seed), Some(count)) => {
            let count = <[u8; 8]>::try_from(count.as_slice())
                .map(u64::from_be_bytes)
                .map_err(|_| anyhow::anyhow!("corrupt witness count in store"))?;
            ensure!(
                count == witnesses as u64,
                "this store belongs to a roster of {count} witnesses, not {witnesses}"
            );
            <[u8; 32]>::try_from(seed.as_slice())
                .map_err(|_| anyhow::anyhow!("corrupt witness seed in store"))?
        }
        (None, None) => {
            ensure!(
                store.round_count()? == 0,
                "store has rounds but no witness keys"
            );
            let mut seed = [0u8; 32];
            OsRng.fill_bytes(&mut seed);
            store.set_meta(META_WITNESS_SEED, &seed)?;
            store.set_meta(META_WITNESSES, &(witnesses as u64).to_be_bytes())?;
            seed
        }
        _ => anyhow::bail!("store has incomplete witness metadata"),
    };
    // The witnesses resume at the store's last round: they cosign only its continuation.
    InProcessCosigner::from_seed(seed, witnesses, store.chain_head()?)
        .context("setting up the witness roster")
}
