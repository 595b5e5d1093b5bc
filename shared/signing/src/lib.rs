//! Standard Webhooks signatures (<https://www.standardwebhooks.com>) of Agora's outgoing calls:
//! the hook calls of `agora-hooks-remote` and the delegate-system calls of `agora-delegate`, all
//! signed with the one secret of [`SIGNING_SECRET_ENV`], so that a receiver can tell Agora's calls
//! from anyone else's.
//!
//! A signed request carries three headers:
//!
//! | Header | Value |
//! |---|---|
//! | `webhook-id` ([`ID_HEADER`]) | `msg_<uuid>`, new for every message |
//! | `webhook-timestamp` ([`TIMESTAMP_HEADER`]) | when it was signed, in unix seconds |
//! | `webhook-signature` ([`SIGNATURE_HEADER`]) | `v1,<base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}"))>` |
//!
//! The secret is `whsec_<base64 of the key>` (the `whsec_` prefix may be left out). [`verify`] is
//! the receiver's side: the signature over the exact body bytes received, and a timestamp within
//! [`DEFAULT_TOLERANCE`] of now.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::time::Duration;

type HmacSha256 = Hmac<Sha256>;

/// The variable holding the signing secret, for hooks and delegate calls alike.
pub const SIGNING_SECRET_ENV: &str = "AGORA_HOOK_SIGNING_SECRET";

/// The header naming the message.
pub const ID_HEADER: &str = "webhook-id";

/// The header saying when the message was signed (unix seconds).
pub const TIMESTAMP_HEADER: &str = "webhook-timestamp";

/// The header holding the signature (`v1,<base64>`; a receiver accepts any of several
/// space-separated ones).
pub const SIGNATURE_HEADER: &str = "webhook-signature";

/// How far from now a received timestamp may be, either way, for [`verify`].
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(5 * 60);

/// The signing secret is not `whsec_` + base64. The message names the variable, never the secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("AGORA_HOOK_SIGNING_SECRET must be \"whsec_\" followed by base64: {0}")]
pub struct SecretError(String);

/// Why a received request does not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The secret to verify with is unusable.
    #[error(transparent)]
    Secret(#[from] SecretError),
    /// One of the three headers is missing (or is not text).
    #[error("the {0} header is missing")]
    MissingHeader(&'static str),
    /// `webhook-timestamp` is not a whole number of seconds.
    #[error("the webhook-timestamp header is not unix seconds: {0:?}")]
    Timestamp(String),
    /// `webhook-timestamp` is further from now than the tolerance.
    #[error("the webhook-timestamp {timestamp} is {off_by_secs} s from now, more than the {tolerance_secs} s allowed")]
    Stale { timestamp: i64, off_by_secs: u64, tolerance_secs: u64 },
    /// No signature of `webhook-signature` matches the body, id and timestamp.
    #[error("no signature in the webhook-signature header matches the body")]
    Mismatch,
}

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

/// Two signers are equal when they hold the same key (compared in constant time).
impl PartialEq for Signer {
    fn eq(&self, other: &Self) -> bool {
        constant_time_eq(&self.key, &other.key)
    }
}

impl Eq for Signer {}

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
        self.sign_with(&id, unix_now(), body)
    }

    /// Whether `signature` (a `webhook-signature` header, possibly several space-separated
    /// `v1,<sig>` entries) matches `body` sent as message `id` at `timestamp`. The time itself
    /// is not checked: see [`Signer::verify_at`].
    pub fn verify(&self, id: &str, timestamp: &str, body: &[u8], signature: &str) -> bool {
        let Ok(ts) = timestamp.parse::<i64>() else { return false };
        let expected = self.sign_with(id, ts, body).signature;
        signature.split_whitespace().any(|candidate| constant_time_eq(candidate.as_bytes(), expected.as_bytes()))
    }

    /// Checks a received request: its timestamp is within `tolerance` of `now` (unix seconds),
    /// either way, and one of its signatures matches `body`, the exact bytes received.
    pub fn verify_at(&self, headers: &SignatureHeaders, body: &[u8], now: i64, tolerance: Duration) -> Result<(), VerifyError> {
        let timestamp = headers.timestamp.trim();
        let ts: i64 = timestamp.parse().map_err(|_| VerifyError::Timestamp(timestamp.to_owned()))?;
        let off_by_secs = now.abs_diff(ts);
        if off_by_secs > tolerance.as_secs() {
            return Err(VerifyError::Stale { timestamp: ts, off_by_secs, tolerance_secs: tolerance.as_secs() });
        }
        if self.verify(&headers.id, timestamp, body, &headers.signature) {
            Ok(())
        } else {
            Err(VerifyError::Mismatch)
        }
    }
}

/// Checks a received request against `secret` (`whsec_<base64>`): the signature over `body`, the
/// exact bytes received, and a timestamp within [`DEFAULT_TOLERANCE`] of now.
pub fn verify(secret: &str, headers: &SignatureHeaders, body: &[u8]) -> Result<(), VerifyError> {
    Signer::from_secret(secret)?.verify_at(headers, body, unix_now(), DEFAULT_TOLERANCE)
}

impl SignatureHeaders {
    /// The three headers as `(name, value)` pairs, to add to a request.
    pub fn pairs(&self) -> [(&'static str, &str); 3] {
        [(ID_HEADER, &self.id), (TIMESTAMP_HEADER, &self.timestamp), (SIGNATURE_HEADER, &self.signature)]
    }

    /// The three headers of a received request, read with `get` (a header's value by its
    /// lower-case name); an error names the first one missing.
    pub fn from_lookup<'a>(mut get: impl FnMut(&str) -> Option<&'a str>) -> Result<Self, VerifyError> {
        let mut header = |name: &'static str| get(name).map(str::to_owned).ok_or(VerifyError::MissingHeader(name));
        Ok(Self { id: header(ID_HEADER)?, timestamp: header(TIMESTAMP_HEADER)?, signature: header(SIGNATURE_HEADER)? })
    }
}

/// Now, in unix seconds.
fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const SECRET: &str = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM=";
    const OTHER_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    /// The example of the Standard Webhooks specification.
    #[test]
    fn matches_the_standard_webhooks_example() {
        let signer = Signer::from_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        let h = signer.sign_with("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(h.signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(signer.verify("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", body, &h.signature));
        assert!(!signer.verify("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265331", body, &h.signature));
        // The same example through the receiver's check, at the example's own time.
        assert_eq!(signer.verify_at(&h, body, 1614265330 + 10, DEFAULT_TOLERANCE), Ok(()));
    }

    #[test]
    fn refuses_a_secret_that_is_not_base64() {
        assert!(Signer::from_secret("whsec_not base64!").is_err());
        assert!(Signer::from_secret("whsec_").is_err());
    }

    #[test]
    fn a_secret_error_names_the_variable_and_not_the_secret() {
        let error = Signer::from_secret("whsec_hunter2!!").unwrap_err();
        let message = error.to_string();
        assert!(message.contains(SIGNING_SECRET_ENV), "{message}");
        assert!(!message.contains("hunter2"), "{message}");
        assert_eq!(SIGNING_SECRET_ENV, "AGORA_HOOK_SIGNING_SECRET");
    }

    #[test]
    fn the_prefix_is_optional_and_equal_keys_are_equal_signers() {
        let with = Signer::from_secret(SECRET).unwrap();
        let without = Signer::from_secret(SECRET.trim_start_matches("whsec_")).unwrap();
        assert_eq!(with, without);
        assert_ne!(with, Signer::from_secret(OTHER_SECRET).unwrap());
        assert_eq!(format!("{with:?}"), "Signer(..)");
    }

    #[test]
    fn fresh_messages_have_ids_and_verify() {
        let signer = Signer::from_secret(SECRET).unwrap();
        let h = signer.sign(b"{}");
        assert!(h.id.starts_with("msg_"));
        assert!(signer.verify(&h.id, &h.timestamp, b"{}", &h.signature));
        assert_ne!(signer.sign(b"{}").id, h.id);
    }

    #[test]
    fn verify_accepts_a_fresh_signature_and_nothing_else() {
        let body = br#"{"subject_id":"s-1"}"#;
        let h = Signer::from_secret(SECRET).unwrap().sign(body);
        assert_eq!(verify(SECRET, &h, body), Ok(()));
        assert_eq!(verify(OTHER_SECRET, &h, body), Err(VerifyError::Mismatch));
        assert_eq!(verify(SECRET, &h, br#"{"subject_id":"s-2"}"#), Err(VerifyError::Mismatch));
        let other_id = SignatureHeaders { id: "msg_other".into(), ..h.clone() };
        assert_eq!(verify(SECRET, &other_id, body), Err(VerifyError::Mismatch));
        let error = verify("whsec_not base64!", &h, body).unwrap_err();
        assert!(matches!(error, VerifyError::Secret(_)) && error.to_string().contains(SIGNING_SECRET_ENV), "{error}");
    }

    #[test]
    fn verify_accepts_any_of_several_signatures() {
        let body = b"{}";
        let h = Signer::from_secret(SECRET).unwrap().sign(body);
        let old_key = Signer::from_secret(OTHER_SECRET).unwrap().sign_with(&h.id, h.timestamp.parse().unwrap(), body);
        let both = SignatureHeaders { signature: format!("{} {}", old_key.signature, h.signature), ..h.clone() };
        assert_eq!(verify(SECRET, &both, body), Ok(()));
        let only_other = SignatureHeaders { signature: old_key.signature, ..h };
        assert_eq!(verify(SECRET, &only_other, body), Err(VerifyError::Mismatch));
    }

    #[test]
    fn verify_refuses_timestamps_outside_the_tolerance_either_way() {
        let signer = Signer::from_secret(SECRET).unwrap();
        let now = 1_700_000_000;
        let tolerance = Duration::from_secs(300);
        for (sent, ok) in [(now, true), (now - 300, true), (now + 300, true), (now - 301, false), (now + 301, false)] {
            let h = signer.sign_with("msg_1", sent, b"{}");
            let result = signer.verify_at(&h, b"{}", now, tolerance);
            if ok {
                assert_eq!(result, Ok(()), "sent at {sent}");
            } else {
                assert_eq!(result, Err(VerifyError::Stale { timestamp: sent, off_by_secs: 301, tolerance_secs: 300 }), "sent at {sent}");
            }
        }
        let h = SignatureHeaders { timestamp: "yesterday".into(), ..signer.sign_with("msg_1", now, b"{}") };
        assert_eq!(signer.verify_at(&h, b"{}", now, tolerance), Err(VerifyError::Timestamp("yesterday".into())));
    }

    #[test]
    fn headers_round_trip_through_pairs_and_lookup() {
        let h = Signer::from_secret(SECRET).unwrap().sign(b"{}");
        let received: HashMap<&str, &str> = h.pairs().into_iter().collect();
        assert_eq!(
            received.keys().copied().collect::<std::collections::BTreeSet<_>>(),
            [ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER].into()
        );
        assert_eq!(SignatureHeaders::from_lookup(|name| received.get(name).copied()), Ok(h.clone()));
        let without_signature = |name: &str| if name == SIGNATURE_HEADER { None } else { received.get(name).copied() };
        assert_eq!(SignatureHeaders::from_lookup(without_signature), Err(VerifyError::MissingHeader(SIGNATURE_HEADER)));
        assert_eq!(SignatureHeaders::from_lookup(|_| None), Err(VerifyError::MissingHeader(ID_HEADER)));
    }
}
