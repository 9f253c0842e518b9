//! What a DB-RSM querier publishes: the query identifier (the label that ties a query to the
//! Beaver triples dealt for it), the quasi-signatures and the query itself. A leaf module of
//! data types, so the protocol steps ([`crate::reverse_membership`]) and the witness track
//! ([`crate::reverse_membership::witness_track`]) can both use them.

use blstrs::{G1Projective, G2Projective, Scalar};
use core::fmt;
use rand_core::{CryptoRng, RngCore};

/// A DB-RSM query's identifier: 32 random bytes the querier draws when it quasi-signs
/// ([`crate::reverse_membership::querier_quasi_sign`]) and publishes in the [`crate::reverse_membership::BbsQuery`].
/// The dealer deals Beaver triples for one query id ([`crate::beaver::deal_triples`]); the
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

/// One quasi-signature `S = (f1 h^{r̂} γ)^{1/(c+x)}` with its public randomness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuasiSignature {
    /// `S`.
    pub s: G1Projective,
    /// `c`.
    pub c: Scalar,
    /// `r̂`.
    pub r_hat: Scalar,
}

/// The querier's DB-RSM query: its id, inputs `I`, BBS+ key and one quasi-signature per
/// input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BbsQuery {
    /// The query's id (fresh, drawn by the querier): the dealer deals the Beaver triples for
    /// it, and triples dealt for another id are refused.
    pub query_id: QueryId,
    /// `I`: queried input positions (strictly increasing).
    pub inputs: Vec<usize>,
    /// `y = f2^x`.
    pub y: G2Projective,
    /// Quasi-signatures in `I` order.
    pub sigs: Vec<QuasiSignature>,
}
