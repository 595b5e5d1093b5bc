//! Standard Webhooks signatures for outgoing hook calls: `webhook-id` (`msg_<uuid>`),
//! `webhook-timestamp` (unix seconds) and `webhook-signature`
//! (`v1,<base64(HMAC-SHA256(secret, "{id}.{timestamp}.{body}"))>`), with the secret given as
//! `whsec_<base64>`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The signing secret is not `whsec_` + base64.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("AGORA_HOOK_SIGNING_SECRET must be \"whsec_\" followed by base64: {0}")]
pub struct SecretError(String);

/// A decoded signing secret.
#[derive(Clone)]
pub struct Signer {
    key: Vec<u8>,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer(..)")
    }
}

/// The three headers of one signed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureHeaders {
    pub id: String,
    pub timestamp: String,
    pub signature: String,
}

impl Signer {
    /// Reads `whsec_<base64>` (the prefix may be left out).
    pub fn from_secret(secret: &str) -> Result<Self, SecretError> {
        let encoded = secret.trim();
        let encoded = encoded.strip_prefix("whsec_").unwrap_or(encoded);
        let key = STANDARD.decode(encoded).map_err(|e| SecretError(e.to_string()))?;
        if key.is_empty() {
            return Err(SecretError("the key is empty".into()));
        }
        Ok(Self { key })
    }

    /// Signs `body` as message `id` sent at `timestamp` (unix seconds).
    pub fn sign_with(&self, id: &str, timestamp: i64, body: &[u8]) -> SignatureHeaders {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC accepts keys of any length");
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        let signature = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
        SignatureHeaders { id: id.to_owned(), timestamp: timestamp.to_string(), signature }
    }

    /// Signs `body` as a new message sent now.
    pub fn sign(&self, body: &[u8]) -> SignatureHeaders {
        let id = format!("msg_{}", uuid::Uuid::new_v4().simple());
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        self.sign_with(&id, now, body)
    }

    /// Whether `signature` (a `webhook-signature` header, possibly several space-separated
    /// `v1,<sig>` entries) matches `body` sent as message `id` at `timestamp`.
    pub fn verify(&self, id: &str, timestamp: &str, body: &[u8], signature: &str) -> bool {
        let Ok(ts) = timestamp.parse::<i64>() else { return false };
        let expected = self.sign_with(id, ts, body).signature;
        signature.split_whitespace().any(|candidate| constant_time_eq(candidate.as_bytes(), expected.as_bytes()))
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl SignatureHeaders {
    /// Adds the three headers to a request.
    pub fn apply(self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        request.header("webhook-id", self.id).header("webhook-timestamp", self.timestamp).header("webhook-signature", self.signature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification.
    #[test]
    fn matches_the_standard_webhooks_example() {
        let signer = Signer::from_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        let h = signer.sign_with("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(h.signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(signer.verify("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", body, &h.signature));
        assert!(!signer.verify("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265331", body, &h.signature));
    }

    #[test]
    fn refuses_a_secret_that_is_not_base64() {
        assert!(Signer::from_secret("whsec_not base64!").is_err());
        assert!(Signer::from_secret("whsec_").is_err());
    }

    #[test]
    fn fresh_messages_have_ids_and_verify() {
        let signer = Signer::from_secret("whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM=").unwrap();
        let h = signer.sign(b"{}");
        assert!(h.id.starts_with("msg_"));
        assert!(signer.verify(&h.id, &h.timestamp, b"{}", &h.signature));
    }
}
