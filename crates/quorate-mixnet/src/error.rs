//! The crate's error type, with blame for identifiable abort.

use crate::reverse_membership::query::QueryId;
use quorate_core::error::Culprits;
use quorate_core::{Blame, DecodeError, ParamError, PartyId};
use quorate_paillier::PaillierError;
use thiserror::Error;

/// Everything that can go wrong in the mixnet.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MixnetError {
    /// Impossible parameters (threshold, sizes, lengths).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Malformed untrusted bytes.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A Paillier operation failed (including blamed decryption shares).
    #[error(transparent)]
    Paillier(#[from] PaillierError),
    /// A sender's submission failed input checking (`index` is its position in the input
    /// list); it is dropped, never mixed.
    #[error("sender input {index} rejected: {reason}")]
    InvalidInput {
        /// Position of the submission in the input list.
        index: usize,
        /// The failed check.
        reason: &'static str,
    },
    /// The querier's query is malformed (index sets, signatures).
    #[error("invalid query: {0}")]
    InvalidQuery(&'static str),
    /// A DB-SM proof failed its aggregate check although every server's share checked out:
    /// the membership statement for this input is false.
    #[error("DPK for input {input} does not verify")]
    DpkFailed {
        /// The input position (DB-SM) or the output position (DB-RSM's DPK_BBS+).
        input: usize,
    },
    /// A check failed that names nobody: with every message of every party verified, only a
    /// broken assumption (a proof's soundness) leads here.
    #[error("proof rejected: {0}")]
    ProofRejected(&'static str),
    /// Server `mixer` was asked to open Beaver triples it has already opened (for `query`).
    /// Refused: a second opening of the same triple publishes `x − a` and `x′ − a`, whose
    /// difference leaks `x − x′` to everybody.
    #[error(
        "server {mixer} already used its Beaver triples of query {query}; refusing to reuse them"
    )]
    TripleReused {
        /// The server whose triple shares were presented again.
        mixer: PartyId,
        /// The query the triples were dealt for (and already used in).
        query: QueryId,
    },
    /// Beaver triples dealt for query `dealt_for` were offered for query `query`: held by
    /// server `holder`, or (`None`) the dealer's public triples.
    #[error("Beaver triples of query {dealt_for} offered for query {query} (holder {holder:?})")]
    TripleForOtherQuery {
        /// The server holding the shares, `None` for the public triples.
        holder: Option<PartyId>,
        /// The query being answered.
        query: QueryId,
        /// The query the triples were dealt for.
        dealt_for: QueryId,
    },
    /// A mix-server's message failed a check; the blame names it.
    #[error("mix-server misbehaved: {0}")]
    Aborted(Blame),
}

impl Culprits for MixnetError {
    fn culprits(&self) -> &[PartyId] {
        match self {
            MixnetError::Aborted(b) => b.culprits(),
            MixnetError::Paillier(p) => p.culprits(),
            MixnetError::Param(_)
            | MixnetError::Decode(_)
            | MixnetError::InvalidInput { .. }
            | MixnetError::InvalidQuery(_)
            | MixnetError::ProofRejected(_)
            | MixnetError::TripleReused { .. }
            | MixnetError::TripleForOtherQuery { .. }
            | MixnetError::DpkFailed { .. } => &[],
        }
    }
}

/// Shorthand for a blamed failure of party `id`.
pub(crate) fn blame(id: PartyId, check: &'static str) -> MixnetError {
    MixnetError::Aborted(Blame::one(id, check))
}
