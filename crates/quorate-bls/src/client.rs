//! The client `C`, owner of the BLS key `sk`. Its steps live with their phase:
//! ClientRegister in [`crate::register::client`], dealing a refresh in
//! [`crate::refresh::deal`].

use crate::ciphersuite::{PublicKey, SecretKey, Signature};
use rand_core::{CryptoRng, RngCore};

/// The client: owner of the BLS key `sk`.
#[derive(Debug)]
pub struct Client {
    pub(crate) sk: SecretKey,
    pub(crate) vk: PublicKey,
    /// `PopProve(sk)`, computed once: it is deterministic (a signature on `vk`'s
    /// encoding), and every ClientRegister puts it in the record.
    pop: Signature,
}

impl Client {
    /// A client with a fresh random key.
    pub fn generate<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        Self::from_secret_key(SecretKey::random(rng))
    }

    /// A client with a given key (for example from [`SecretKey::key_gen`]).
    pub fn from_secret_key(sk: SecretKey) -> Self {
        let vk = sk.public_key();
        let pop = sk.prove_possession();
        Client { sk, vk, pop }
    }

    /// `vk`.
    pub fn public_key(&self) -> PublicKey {
        self.vk
    }

    /// The proof of possession of `vk`.
    pub fn proof_of_possession(&self) -> Signature {
        self.pop
    }
}
