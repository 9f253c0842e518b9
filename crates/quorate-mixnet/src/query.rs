//! Query identifiers: the label that ties a DB-RSM query to the Beaver triples dealt for it.

use core::fmt;
use rand_core::{CryptoRng, RngCore};

/// A DB-RSM query's identifier: 32 random bytes the querier draws when it quasi-signs
/// ([`crate::dbrsm::querier_quasi_sign`]) and publishes in the [`crate::dbrsm::BbsQuery`].
/// The dealer deals Beaver triples for one query id ([`crate::dbrsm::deal_triples`]); the
/// triple proofs bind it, and servers and verifiers refuse triples dealt for another id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QueryId(pub [u8; 32]);

impl QueryId {
    /// Bytes of the encoding.
    pub const BYTES: usize = 32;

    /// A fresh random id.
    pub fn random<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        let mut id = [0u8; 32];
        rng.fill_bytes(&mut id);
        QueryId(id)
    }

    /// The 32 bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for QueryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0[..8].iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for QueryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "QueryId({self}…)")
    }
}
