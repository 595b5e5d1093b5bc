//! The verifier against a real JWKS HTTP server started here, with RS256 keys made by the
//! `openssl` command and ES256 keys made by ring, and tokens signed here: every refusal the
//! local server must give (no token, expired, not yet valid, wrong issuer, wrong audience,
//! wrong signature, unknown `kid` read once then refused, `alg: none`, HMAC with the public key)
//! and the callers it must accept.

use agora_auth::verify::{KeySource, Verifier, VerifierConfig};
use agora_auth::{AuthError, Caller, ClaimRules};
use axum::routing::get;
use axum::{Json, Router};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const ISSUER: &str = "https://idp.test/";
const AUDIENCE: &str = "agora-api";

/// A signing key and its public JWK.
struct TestKey {
    kid: String,
    alg: Algorithm,
    encoding: EncodingKey,
    jwk: Value,
    /// The public key in PEM (SPKI).
    public_pem: String,
}

fn b64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn pem(label: &str, der: &[u8]) -> String {
    let body: Vec<String> = STANDARD.encode(der).as_bytes().chunks(64).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----\n", body.join("\n"))
}

/// An ES256 key made by ring.
fn es256(kid: &str) -> TestKey {
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

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

fn openssl(args: &[&str]) -> String {
    let out = std::process::Command::new("openssl").args(args).output().expect("the openssl command runs");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// An RS256 key made by the `openssl` command.
fn rs256(kid: &str) -> TestKey {
    let dir = std::env::temp_dir().join(format!("agora-auth-{}-{kid}", std::process::id()));
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

/// A JWKS endpoint whose key set the test changes.
struct Jwks {
    url: String,
    keys: Arc<Mutex<Vec<Value>>>,
}

async fn jwks(keys: Vec<Value>) -> Jwks {
    let keys = Arc::new(Mutex::new(keys));
    let served = keys.clone();
    let app = Router::new().route(
        "/.well-known/jwks.json",
        get(move || {
            let keys = served.lock().unwrap().clone();
            async move { Json(json!({ "keys": keys })) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/.well-known/jwks.json", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, app).await.expect("JWKS server") });
    Jwks { url, keys }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("time").as_secs() as i64
}

fn claims(sub: &str) -> Value {
    json!({"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now(), "exp": now() + 600})
}

fn sign(key: &TestKey, claims: &Value) -> String {
    let mut header = Header::new(key.alg);
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &key.encoding).expect("signed")
}

fn config(keys: KeySource) -> VerifierConfig {
    VerifierConfig { keys, issuer: ISSUER.into(), audience: AUDIENCE.into(), rules: ClaimRules::default() }
}

fn caller(subject: &str, admin: bool) -> Caller {
    Caller { subject: subject.into(), admin }
}

#[tokio::test]
async fn tokens_signed_by_a_jwks_key_name_their_caller_and_every_bad_token_is_refused() {
    let (rsa, ec) = (rs256("rsa-1"), es256("ec-1"));
    let server = jwks(vec![rsa.jwk.clone(), ec.jwk.clone()]).await;
    let verifier = Verifier::new(config(KeySource::Jwks(server.url.clone()))).await.expect("verifier");
    assert_eq!(verifier.jwks_reads(), 1);

    // Accepted: RS256 and ES256, the operator scope.
    assert_eq!(verifier.verify(&sign(&rsa, &claims("agent-1"))).await, Ok(caller("agent-1", false)));
    assert_eq!(verifier.verify(&sign(&ec, &claims("agent-2"))).await, Ok(caller("agent-2", false)));
    let mut operator = claims("ops-1");
    operator["scope"] = json!("openid agora:admin");
    let header = format!("Bearer {}", sign(&ec, &operator));
    assert_eq!(verifier.caller_of_header(Some(&header)).await, Ok(caller("ops-1", true)));
    let mut two_audiences = claims("agent-3");
    two_audiences["aud"] = json!(["other", AUDIENCE]);
    assert_eq!(verifier.verify(&sign(&rsa, &two_audiences)).await, Ok(caller("agent-3", false)));

    // Refused, each saying why.
    assert_eq!(verifier.caller_of_header(None).await, Err(AuthError::Missing));
    let with = |patch: Value| {
        let mut c = claims("agent-1");
        c.as_object_mut().unwrap().extend(patch.as_object().unwrap().clone());
        c
    };
    let cases = [
        (sign(&ec, &with(json!({"exp": now() - 120}))), AuthError::Expired),
        (sign(&ec, &with(json!({"nbf": now() + 120}))), AuthError::NotYetValid),
        (sign(&rsa, &with(json!({"iss": "https://evil.test/"}))), AuthError::WrongIssuer),
        (sign(&rsa, &with(json!({"aud": "someone-else"}))), AuthError::WrongAudience),
        (sign(&ec, &with(json!({"sub": ""}))), AuthError::NoSubject("sub".into())),
    ];
    for (token, want) in cases {
        assert_eq!(verifier.verify(&token).await, Err(want.clone()), "{want}");
    }
    let mut no_exp = claims("agent-1");
    no_exp.as_object_mut().unwrap().remove("exp");
    assert!(matches!(verifier.verify(&sign(&ec, &no_exp)).await, Err(AuthError::Invalid(e)) if e.contains("exp")));

    // Signed by another key under a trusted kid.
    let mut forger = es256("ec-1");
    forger.kid = "ec-1".into();
    assert_eq!(verifier.verify(&sign(&forger, &claims("agent-1"))).await, Err(AuthError::BadSignature));
    // An RS256 header on the EC key's kid.
    let mut mixed = rs256("rsa-2");
    mixed.kid = "ec-1".into();
    assert!(matches!(verifier.verify(&sign(&mixed, &claims("agent-1"))).await, Err(AuthError::Algorithm(_))));

    // alg: none, and HS256 with the public key as the secret.
    let unsigned = format!("{}.{}.", b64url(br#"{"alg":"none","kid":"ec-1"}"#), b64url(claims("agent-1").to_string().as_bytes()));
    assert!(matches!(verifier.verify(&unsigned).await, Err(AuthError::Algorithm(a)) if a.contains("none")));
    let mut hs = Header::new(Algorithm::HS256);
    hs.kid = Some("rsa-1".into());
    let confused = jsonwebtoken::encode(&hs, &claims("agent-1"), &EncodingKey::from_secret(rsa.public_pem.as_bytes())).unwrap();
    assert!(matches!(verifier.verify(&confused).await, Err(AuthError::Algorithm(a)) if a.contains("HS256")));
    for garbage in ["", "abc", "a.b.c", "Zm9v.e30.", "eyJhbGciOiJSUzI1NiJ9.e30"] {
        assert!(matches!(verifier.verify(garbage).await, Err(AuthError::Malformed(_) | AuthError::Algorithm(_))), "{garbage:?}");
    }
    assert_eq!(verifier.jwks_reads(), 1, "no bad token read the JWKS again");
}

#[tokio::test]
async fn an_unknown_kid_reads_the_jwks_once_then_is_refused_and_a_rotated_key_is_taken_up() {
    let (old, new) = (es256("old"), rs256("new"));
    let server = jwks(vec![old.jwk.clone()]).await;
    let verifier = Verifier::new(config(KeySource::Jwks(server.url.clone()))).await.expect("verifier");
    // The set was just read: an unknown kid is refused without another read.
    assert_eq!(verifier.verify(&sign(&new, &claims("a"))).await, Err(AuthError::UnknownKey("new".into())));
    assert_eq!(verifier.jwks_reads(), 1);

    // Once the set is older than the interval, an unknown kid reads it once more; a kid still
    // unknown is refused, and refused again without a read.
    let verifier = verifier.with_min_refresh(Duration::from_millis(200));
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(verifier.verify(&sign(&new, &claims("a"))).await, Err(AuthError::UnknownKey("new".into())));
    assert_eq!(verifier.jwks_reads(), 2, "read once for the unknown kid");
    assert_eq!(verifier.verify(&sign(&new, &claims("a"))).await, Err(AuthError::UnknownKey("new".into())));
    assert_eq!(verifier.jwks_reads(), 2, "not read again at once");

    // The provider rotates its key in: the next read takes it up; the old one is dropped.
    server.keys.lock().unwrap().push(new.jwk.clone());
    server.keys.lock().unwrap().remove(0);
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(verifier.verify(&sign(&new, &claims("b"))).await, Ok(caller("b", false)));
    assert_eq!(verifier.jwks_reads(), 3);
    assert_eq!(verifier.verify(&sign(&new, &claims("c"))).await, Ok(caller("c", false)), "kept");
    assert_eq!(verifier.jwks_reads(), 3);
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(verifier.verify(&sign(&old, &claims("d"))).await, Err(AuthError::UnknownKey("old".into())));
}

#[tokio::test]
async fn a_pem_key_verifies_its_own_family_and_settings_name_what_is_wrong() {
    let (ec, rsa) = (es256("any"), rs256("any"));
    let dir = std::env::temp_dir().join(format!("agora-auth-pem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, key, other) in [("ec.pem", &ec, &rsa), ("rsa.pem", &rsa, &ec)] {
        let file = dir.join(name);
        std::fs::write(&file, &key.public_pem).unwrap();
        let verifier = Verifier::new(config(KeySource::PemFile(file))).await.expect("verifier");
        assert_eq!(verifier.verify(&sign(key, &claims("p"))).await, Ok(caller("p", false)), "{name}");
        assert!(matches!(verifier.verify(&sign(other, &claims("p"))).await, Err(AuthError::Algorithm(_))), "{name}");
    }
    let missing = Verifier::new(config(KeySource::PemFile(dir.join("none.pem")))).await.expect_err("no file");
    assert!(missing.contains("AGORA_AUTH_PUBLIC_KEY_FILE"), "{missing}");
    let down = Verifier::new(config(KeySource::Jwks("http://127.0.0.1:9/jwks".into()))).await.expect_err("no JWKS");
    assert!(down.contains("AGORA_AUTH_JWKS_URL"), "{down}");
    let _ = std::fs::remove_dir_all(&dir);

    let rules = ClaimRules::default();
    let values = |jwks: Option<&str>, file: Option<&str>, iss: Option<&str>, aud: Option<&str>| {
        VerifierConfig::from_values(jwks, file, iss, aud, rules.clone())
    };
    assert_eq!(values(None, None, Some(ISSUER), None), Ok(None), "no key source: auth is off");
    let both = values(Some("http://x/jwks"), Some("/k.pem"), Some(ISSUER), Some(AUDIENCE)).unwrap_err();
    assert!(both.contains("not both"), "{both}");
    assert!(values(Some("ftp://x"), None, Some(ISSUER), Some(AUDIENCE)).unwrap_err().contains("AGORA_AUTH_JWKS_URL"));
    assert!(values(Some("http://x/jwks"), None, None, Some(AUDIENCE)).unwrap_err().contains("AGORA_AUTH_ISSUER"));
    assert!(values(Some("http://x/jwks"), None, Some(ISSUER), Some(" ")).unwrap_err().contains("AGORA_AUTH_AUDIENCE"));
}
