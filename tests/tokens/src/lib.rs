//! Bearer tokens for tests: signing keys (RS256 made by the `openssl` command, ES256 made by
//! ring) with their public JWK and PEM, a JWKS HTTP server whose key set a test changes and
//! whose reads it counts, tokens signed with a key, and the forgeries a verifier must refuse
//! (`alg: none`, HS256 with the public key as the secret).

use axum::routing::get;
use axum::{Json, Router};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The issuer the tests' verifiers trust.
pub const ISSUER: &str = "https://idp.test/";
/// The audience the tests' verifiers expect.
pub const AUDIENCE: &str = "agora-api";
/// The scope that marks an operator (agora-auth's default).
pub const ADMIN_SCOPE: &str = "agora:admin";

/// A signing key and its public JWK.
#[derive(Clone)]
pub struct TestKey {
    /// The key id tokens name in their header (change it to forge a token under another kid).
    pub kid: String,
    pub alg: Algorithm,
    pub encoding: EncodingKey,
    /// The public key as a JWK, with its `kid`.
    pub jwk: Value,
    /// The public key in PEM (SPKI).
    pub public_pem: String,
}

impl TestKey {
    /// An ES256 (P-256) key made by ring.
    pub fn es256(kid: &str) -> TestKey {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("P-256 key");
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).expect("P-256 key pair");
        let point = pair.public_key().as_ref().to_vec();
        let (x, y) = (&point[1..33], &point[33..65]);
        // SubjectPublicKeyInfo of a P-256 key: the algorithm identifiers, then the point.
        let mut spki = hex("3059301306072a8648ce3d020106082a8648ce3d030107034200");
        spki.extend_from_slice(&point);
        TestKey {
            kid: kid.to_owned(),
            alg: Algorithm::ES256,
            encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
            jwk: json!({"kty": "EC", "crv": "P-256", "x": b64url(x), "y": b64url(y), "kid": kid, "use": "sig", "alg": "ES256"}),
            public_pem: pem("PUBLIC KEY", &spki),
        }
    }

    /// An RS256 (2048-bit) key made by the `openssl` command.
    pub fn rs256(kid: &str) -> TestKey {
        static SEQ: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!("agora-test-tokens-{}-{}", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir_all(&dir).expect("dir");
        let private = dir.join("rsa.pem");
        let private = private.to_str().expect("path");
        openssl(&["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", private]);
        let modulus = openssl(&["rsa", "-in", private, "-noout", "-modulus"]);
        let n = hex(modulus.trim().trim_start_matches("Modulus="));
        let public_pem = openssl(&["rsa", "-in", private, "-pubout"]);
        let key = TestKey {
            kid: kid.to_owned(),
            alg: Algorithm::RS256,
            encoding: EncodingKey::from_rsa_pem(&std::fs::read(private).expect("key")).expect("RSA key"),
            jwk: json!({"kty": "RSA", "n": b64url(&n), "e": "AQAB", "kid": kid, "use": "sig", "alg": "RS256"}),
            public_pem,
        };
        let _ = std::fs::remove_dir_all(&dir);
        key
    }
}

/// Base64url without padding, as JWTs and JWKs write bytes.
pub fn b64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn pem(label: &str, der: &[u8]) -> String {
    let body: Vec<String> = STANDARD.encode(der).as_bytes().chunks(64).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----\n", body.join("\n"))
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

fn openssl(args: &[&str]) -> String {
    let out = std::process::Command::new("openssl").args(args).output().expect("the openssl command runs");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A JWKS endpoint on loopback whose key set the test changes, counting its reads. It stops
/// when dropped.
pub struct Jwks {
    /// `http://127.0.0.1:<port>/.well-known/jwks.json`
    pub url: String,
    /// The JWKs served, each read answered with the set as it is then.
    pub keys: Arc<Mutex<Vec<Value>>>,
    hits: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Jwks {
    /// Serves `keys` (JWKs) in the current tokio runtime.
    pub async fn start(keys: Vec<Value>) -> Jwks {
        let keys = Arc::new(Mutex::new(keys));
        let hits = Arc::new(AtomicUsize::new(0));
        let (served, counter) = (keys.clone(), hits.clone());
        let app = Router::new().route(
            "/.well-known/jwks.json",
            get(move || {
                counter.fetch_add(1, Ordering::SeqCst);
                let keys = served.lock().expect("keys").clone();
                async move { Json(json!({ "keys": keys })) }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/.well-known/jwks.json", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Jwks { url, keys, hits, task }
    }

    /// How many times the set was read.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

impl Drop for Jwks {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("time").as_secs() as i64
}

/// Valid claims for `sub`: [`ISSUER`], [`AUDIENCE`], issued now, expiring in ten minutes.
pub fn claims(sub: &str) -> Value {
    json!({"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now(), "exp": now() + 600})
}

/// Valid claims for an operator `sub` (scope [`ADMIN_SCOPE`]).
pub fn operator_claims(sub: &str) -> Value {
    let mut c = claims(sub);
    c["scope"] = json!(format!("openid {ADMIN_SCOPE}"));
    c
}

/// `claims` with the fields of `patch` (an object) set or replaced.
pub fn with(mut claims: Value, patch: Value) -> Value {
    if let (Some(c), Value::Object(p)) = (claims.as_object_mut(), patch) {
        c.extend(p);
    }
    claims
}

/// `claims` signed by `key`, its header naming the key's `kid`.
pub fn sign(key: &TestKey, claims: &Value) -> String {
    let mut header = Header::new(key.alg);
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &key.encoding).expect("signed")
}

/// An unsigned token (`alg: none`) naming `kid`.
pub fn unsigned(kid: &str, claims: &Value) -> String {
    let header = json!({"alg": "none", "kid": kid});
    format!("{}.{}.", b64url(header.to_string().as_bytes()), b64url(claims.to_string().as_bytes()))
}

/// A token "signed" with HS256 using `key`'s public PEM as the HMAC secret, under its `kid`
/// (the algorithm-confusion forgery).
pub fn hs256_with_public_key(key: &TestKey, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_secret(key.public_pem.as_bytes())).expect("signed")
}
