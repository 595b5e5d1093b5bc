//! The verifier against a real JWKS HTTP server, with RS256 keys made by the `openssl` command,
//! ES256 keys made by ring and tokens signed with them (all from `agora-test-tokens`): every refusal the
//! local server must give (no token, expired, not yet valid, wrong issuer, wrong audience,
//! wrong signature, unknown `kid` read once then refused, `alg: none`, HMAC with the public key)
//! and the callers it must accept.

use agora_auth::verify::{KeySource, Verifier, VerifierConfig};
use agora_auth::{AuthError, Caller, ClaimRules};
use agora_test_tokens::{claims, hs256_with_public_key, now, sign, unsigned, with, Jwks, TestKey, AUDIENCE, ISSUER};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

fn config(keys: KeySource) -> VerifierConfig {
    VerifierConfig { keys, issuer: ISSUER.into(), audience: AUDIENCE.into(), rules: ClaimRules::default() }
}

fn caller(subject: &str, admin: bool) -> Arc<Caller> {
    Arc::new(Caller { subject: subject.into(), admin })
}

#[tokio::test]
async fn tokens_signed_by_a_jwks_key_name_their_caller_and_every_bad_token_is_refused() {
    let (rsa, ec) = (TestKey::rs256("rsa-1"), TestKey::es256("ec-1"));
    let server = Jwks::start(vec![rsa.jwk.clone(), ec.jwk.clone()]).await;
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
    let mut forger = TestKey::es256("ec-1");
    forger.kid = "ec-1".into();
    assert_eq!(verifier.verify(&sign(&forger, &claims("agent-1"))).await, Err(AuthError::BadSignature));
    // An RS256 header on the EC key's kid.
    let mut mixed = TestKey::rs256("rsa-2");
    mixed.kid = "ec-1".into();
    assert!(matches!(verifier.verify(&sign(&mixed, &claims("agent-1"))).await, Err(AuthError::Algorithm(_))));

    // alg: none, and HS256 with the public key as the secret.
    let forged = unsigned("ec-1", &claims("agent-1"));
    assert!(matches!(verifier.verify(&forged).await, Err(AuthError::Algorithm(a)) if a.contains("none")));
    let confused = hs256_with_public_key(&rsa, &claims("agent-1"));
    assert!(matches!(verifier.verify(&confused).await, Err(AuthError::Algorithm(a)) if a.contains("HS256")));
    for garbage in ["", "abc", "a.b.c", "Zm9v.e30.", "eyJhbGciOiJSUzI1NiJ9.e30"] {
        assert!(matches!(verifier.verify(garbage).await, Err(AuthError::Malformed(_) | AuthError::Algorithm(_))), "{garbage:?}");
    }
    assert_eq!(verifier.jwks_reads(), 1, "no bad token read the JWKS again");
}

#[tokio::test]
async fn an_unknown_kid_reads_the_jwks_once_then_is_refused_and_a_rotated_key_is_taken_up() {
    let (old, new) = (TestKey::es256("old"), TestKey::rs256("new"));
    let server = Jwks::start(vec![old.jwk.clone()]).await;
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
    assert_eq!(server.hits(), 2, "the JWKS server saw the same reads");

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
    let (ec, rsa) = (TestKey::es256("any"), TestKey::rs256("any"));
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

/// A token verified once is taken again without its signature checked, until it expires; a token
/// changed by one byte is another token, checked (and refused); an expired one (taken within the
/// clock leeway) is checked each time.
#[tokio::test]
async fn a_token_seen_is_not_checked_again_until_it_expires() {
    let key = TestKey::es256("ec-1");
    let server = Jwks::start(vec![key.jwk.clone()]).await;
    let verifier = Verifier::new(config(KeySource::Jwks(server.url.clone()))).await.expect("verifier");
    let token = sign(&key, &claims("agent-1"));
    assert_eq!(verifier.verified(&token), None, "not seen yet");
    for _ in 0..3 {
        assert_eq!(verifier.verify(&token).await, Ok(caller("agent-1", false)));
    }
    assert_eq!(verifier.signature_checks(), 1, "checked once");
    assert_eq!(verifier.verified(&token), Some(caller("agent-1", false)), "taken from the verified tokens");

    let mut forged = token.clone().into_bytes();
    let last = forged.len() - 2;
    forged[last] = if forged[last] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).expect("ASCII");
    assert_eq!(verifier.verify(&forged).await, Err(AuthError::BadSignature));
    assert_eq!(verifier.signature_checks(), 2, "another token, checked");
    assert_eq!(verifier.verified(&forged), None, "a refused token is not remembered");

    let lapsing = sign(&key, &with(claims("agent-2"), json!({"exp": now() - 5})));
    for _ in 0..2 {
        assert_eq!(verifier.verify(&lapsing).await, Ok(caller("agent-2", false)), "within the leeway");
    }
    assert_eq!(verifier.signature_checks(), 4, "an expired token is checked each time");
    assert_eq!(verifier.verified(&lapsing), None, "an expired token is never taken as verified");
}

/// Behind API Gateway's HTTP API, whose JWT authorizer validates RSA-based algorithms only, a
/// verifier of [`Algorithms::Rsa`] accepts the same: RS256, RS384 and RS512, never ES256; the
/// default (the local server) keeps RS256 and ES256.
#[tokio::test]
async fn the_rsa_set_takes_what_the_http_apis_authorizer_takes_and_the_default_keeps_rs256_and_es256() {
    use agora_auth::verify::Algorithms;
    use jsonwebtoken::Algorithm;
    let (rs256, ec) = (TestKey::rs256("rsa-1"), TestKey::es256("ec-1"));
    // An RSA key whose JWK names no algorithm: any of the RS family.
    let mut any_rsa = TestKey::rs256("rsa-any");
    any_rsa.jwk.as_object_mut().unwrap().remove("alg");
    let server = Jwks::start(vec![rs256.jwk.clone(), ec.jwk.clone(), any_rsa.jwk.clone()]).await;
    let as_alg = |key: &TestKey, alg| TestKey { alg, ..key.clone() };

    let rsa = Verifier::new(config(KeySource::Jwks(server.url.clone()))).await.expect("verifier").with_algorithms(Algorithms::Rsa);
    assert_eq!(rsa.algorithms(), Algorithms::Rsa);
    assert_eq!(rsa.verify(&sign(&rs256, &claims("a"))).await, Ok(caller("a", false)));
    for alg in [Algorithm::RS256, Algorithm::RS384, Algorithm::RS512] {
        assert_eq!(rsa.verify(&sign(&as_alg(&any_rsa, alg), &claims("b"))).await, Ok(caller("b", false)), "{alg:?}");
    }
    let refused = rsa.verify(&sign(&ec, &claims("c"))).await;
    assert!(matches!(&refused, Err(AuthError::Algorithm(a)) if a.contains("ES256") && a.contains("RS256, RS384 or RS512")), "{refused:?}");
    // A key whose JWK names RS256 verifies RS256 alone.
    let refused = rsa.verify(&sign(&as_alg(&rs256, Algorithm::RS384), &claims("d"))).await;
    assert!(matches!(&refused, Err(AuthError::Algorithm(a)) if a.contains("RS384")), "{refused:?}");

    let default = Verifier::new(config(KeySource::Jwks(server.url.clone()))).await.expect("verifier");
    assert_eq!(default.algorithms(), Algorithms::Rs256Es256);
    assert_eq!(default.verify(&sign(&ec, &claims("e"))).await, Ok(caller("e", false)));
    assert_eq!(default.verify(&sign(&any_rsa, &claims("f"))).await, Ok(caller("f", false)));
    let refused = default.verify(&sign(&as_alg(&any_rsa, Algorithm::RS512), &claims("g"))).await;
    assert!(matches!(&refused, Err(AuthError::Algorithm(a)) if a.contains("RS512") && a.contains("RS256 or ES256")), "{refused:?}");
}
