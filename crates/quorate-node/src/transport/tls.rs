//! TLS 1.3 identities pinned to roster keys.
//!
//! Each node's certificate is self-signed with its Ed25519 identity key, and it is trusted for
//! exactly one reason: its subject public key is the roster key of the node it claims to be.
//! There is no CA, no name check and no expiry check; possession of the key is proven by the
//! TLS 1.3 `CertificateVerify` signature, which the verifiers below check with `ed25519-dalek`
//! (strict verification) against that same key.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use ed25519_dalek::pkcs8::EncodePrivateKey;
use ed25519_dalek::{Signature, SigningKey, VerifyingKey};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{CertificateError, DigitallySignedStruct, DistinguishedName, SignatureScheme};
use x509_cert::der::Decode;

use super::TransportError;

/// The one QUIC/TLS server name every node uses. Peers are identified by key, not by name.
pub const SERVER_NAME: &str = "quorate-node.invalid";

/// Object identifier of Ed25519 (RFC 8410).
const ED25519_OID: &str = "1.3.101.112";

/// A node's TLS credentials: its self-signed certificate and the PKCS#8 encoding of its key.
pub struct TlsIdentity {
    pub(crate) cert: CertificateDer<'static>,
    pub(crate) key: PrivatePkcs8KeyDer<'static>,
}

impl fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsIdentity")
            .field("cert_len", &self.cert.len())
            .field("key", &"<redacted>")
            .finish()
    }
}

impl TlsIdentity {
    /// Builds the self-signed certificate of `key` (subject `CN=quorate node <id>`).
    pub fn new(key: &SigningKey, id: u16) -> Result<Self, TransportError> {
        let pkcs8 = key
            .to_pkcs8_der()
            .map_err(|e| TransportError::Tls(format!("encoding the identity key: {e}")))?;
        let der = PrivatePkcs8KeyDer::from(pkcs8.as_bytes().to_vec());
        let pair = rcgen::KeyPair::from_pkcs8_der_and_sign_algo(&der, &rcgen::PKCS_ED25519)
            .map_err(|e| TransportError::Tls(format!("identity key for the certificate: {e}")))?;
        let mut params = rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()])
            .map_err(|e| TransportError::Tls(format!("certificate parameters: {e}")))?;
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, format!("quorate node {id}"));
        let cert = params
            .self_signed(&pair)
            .map_err(|e| TransportError::Tls(format!("self-signing the certificate: {e}")))?;
        Ok(Self {
            cert: cert.der().clone(),
            key: der,
        })
    }

    /// The certificate in DER.
    pub fn cert_der(&self) -> &[u8] {
        &self.cert
    }

    pub(crate) fn key_der(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(self.key.clone_key())
    }
}

/// Why a certificate's key could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CertKeyError {
    /// Not a DER X.509 certificate.
    #[error("certificate is not valid DER X.509: {0}")]
    BadEncoding(String),
    /// The subject key is not an Ed25519 key.
    #[error("certificate key is not Ed25519 (algorithm {0})")]
    NotEd25519(String),
    /// The key bytes are not a usable Ed25519 point.
    #[error("certificate key is not a valid Ed25519 public key")]
    BadKey,
}

/// Reads the Ed25519 subject public key of a DER certificate. Rejects other algorithms,
/// algorithm parameters (RFC 8410 forbids them), malformed and small-order keys.
pub fn cert_public_key(cert: &[u8]) -> Result<VerifyingKey, CertKeyError> {
    let cert = x509_cert::Certificate::from_der(cert)
        .map_err(|e| CertKeyError::BadEncoding(e.to_string()))?;
    let spki = &cert.tbs_certificate.subject_public_key_info;
    let oid = spki.algorithm.oid.to_string();
    if oid != ED25519_OID || spki.algorithm.parameters.is_some() {
        return Err(CertKeyError::NotEd25519(oid));
    }
    let raw = spki
        .subject_public_key
        .as_bytes()
        .ok_or(CertKeyError::BadKey)?;
    let bytes: [u8; 32] = raw.try_into().map_err(|_| CertKeyError::BadKey)?;
    let key = VerifyingKey::from_bytes(&bytes).map_err(|_| CertKeyError::BadKey)?;
    if key.is_weak() {
        return Err(CertKeyError::BadKey);
    }
    Ok(key)
}

fn other(msg: String) -> rustls::Error {
    // rustls prints a certificate error with `{:?}`, so Debug is the plain message too
    // (the transport strips rustls's wrapper, see `transport::tidy_tls_reason`).
    struct Msg(String);
    impl fmt::Display for Msg {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.0)
        }
    }
    impl fmt::Debug for Msg {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.0)
        }
    }
    impl std::error::Error for Msg {}
    rustls::Error::InvalidCertificate(CertificateError::Other(rustls::OtherError(Arc::new(Msg(
        msg,
    )))))
}

/// Checks a TLS 1.3 `CertificateVerify` signature: Ed25519 only, strict verification with the
/// certificate's key.
fn verify_handshake_signature(
    message: &[u8],
    cert: &CertificateDer<'_>,
    dss: &DigitallySignedStruct,
) -> Result<HandshakeSignatureValid, rustls::Error> {
    if dss.scheme != SignatureScheme::ED25519 {
        return Err(rustls::Error::PeerMisbehaved(
            rustls::PeerMisbehaved::SignedHandshakeWithUnadvertisedSigScheme,
        ));
    }
    let key = cert_public_key(cert).map_err(|e| other(e.to_string()))?;
    let sig = Signature::from_slice(dss.signature())
        .map_err(|_| rustls::Error::InvalidCertificate(CertificateError::BadSignature))?;
    key.verify_strict(message, &sig)
        .map_err(|_| rustls::Error::InvalidCertificate(CertificateError::BadSignature))?;
    Ok(HandshakeSignatureValid::assertion())
}

/// Client side: accepts the server only if its certificate key is the roster key of the node
/// we dialled.
#[derive(Debug)]
pub(crate) struct PinnedServerVerifier {
    pub(crate) expected_id: u16,
    pub(crate) expected_key: VerifyingKey,
}

impl ServerCertVerifier for PinnedServerVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let key = cert_public_key(end_entity)
            .map_err(|e| other(format!("node {}: {e}", self.expected_id)))?;
        if key != self.expected_key {
            return Err(other(format!(
                "node {} presented key {} but its roster key is {}",
                self.expected_id,
                hex::encode(key.as_bytes()),
                hex::encode(self.expected_key.as_bytes())
            )));
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::PeerIncompatible(
            rustls::PeerIncompatible::Tls13RequiredForQuic,
        ))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_handshake_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SignatureScheme::ED25519]
    }
}

/// Server side: client authentication is mandatory and a client is accepted only if its
/// certificate key is one of the roster's keys (which node it is follows from the key).
#[derive(Debug)]
pub(crate) struct RosterClientVerifier {
    pub(crate) keys: BTreeMap<[u8; 32], u16>,
}

impl ClientCertVerifier for RosterClientVerifier {
    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        true
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        let key = cert_public_key(end_entity).map_err(|e| other(e.to_string()))?;
        if !self.keys.contains_key(key.as_bytes()) {
            return Err(other(format!(
                "client key {} is not in the roster",
                hex::encode(key.as_bytes())
            )));
        }
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::PeerIncompatible(
            rustls::PeerIncompatible::Tls13RequiredForQuic,
        ))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_handshake_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SignatureScheme::ED25519]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::OsRng;

    #[test]
    fn certificate_carries_the_identity_key() {
        let key = SigningKey::generate(&mut OsRng);
        let id = TlsIdentity::new(&key, 7).expect("cert");
        let got = cert_public_key(id.cert_der()).expect("key");
        assert_eq!(got, key.verifying_key());
    }

    #[test]
    fn hostile_certificate_bytes_are_errors() {
        assert!(matches!(
            cert_public_key(&[]),
            Err(CertKeyError::BadEncoding(_))
        ));
        assert!(matches!(
            cert_public_key(&[0x30, 0x82, 0xff, 0xff, 0]),
            Err(CertKeyError::BadEncoding(_))
        ));
        let key = SigningKey::generate(&mut OsRng);
        let der = TlsIdentity::new(&key, 1).expect("cert").cert;
        for cut in [1, der.len() / 2, der.len() - 1] {
            assert!(cert_public_key(&der[..cut]).is_err());
        }
    }

    #[test]
    fn non_ed25519_certificate_is_refused() {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("p256");
        let cert = rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()])
            .expect("params")
            .self_signed(&pair)
            .expect("cert");
        assert!(matches!(
            cert_public_key(cert.der()),
            Err(CertKeyError::NotEd25519(_))
        ));
    }
}
