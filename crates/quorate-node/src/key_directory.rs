//! What the operator API needs from a protocol's key store: the public facts about the keys
//! a node holds (served by `GET /v1/keys[/{key_id}]`) and the keys that cannot be read
//! (reported by `/health`). Implemented by [`crate::session::ecdsa::EcdsaNode`].

/// Public facts about the keys a node holds, served by `GET /v1/keys[/{key_id}]`.
pub trait KeyDirectory: Send + Sync {
    /// One key as JSON, `None` if this node does not hold it.
    fn key(&self, key_id: &str) -> Result<Option<serde_json::Value>, String>;
    /// Every key as JSON.
    fn keys(&self) -> Result<Vec<serde_json::Value>, String>;
    /// Stored keys that cannot be read (`/health` reports them as degraded); none by default.
    fn problems(&self) -> Vec<serde_json::Value> {
        Vec::new()
    }
}
