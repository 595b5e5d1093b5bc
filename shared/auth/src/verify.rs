//! Bearer tokens verified by Agora itself (the local server; on AWS the JWT authorizer does it).
//!
//! * Algorithms: RS256 and ES256 by default ([`Algorithms::Rs256Es256`], the local server), or
//!   the RSA family alone, RS256, RS384 and RS512 ([`Algorithms::Rsa`]), where a door must
//!   accept exactly what API Gateway's HTTP API JWT authorizer accepts (it validates RSA-based
//!   algorithms only): the live stream's `$connect` on AWS. `alg: none`, every HMAC algorithm (so
//!   a token "signed" with HS256 and a public key as the secret), an algorithm outside the set
//!   and a key of the other family are refused.
//! * Keys: a JWKS URL (`AGORA_AUTH_JWKS_URL`), read at start-up and kept; a token whose `kid`
//!   is not among them makes one new read of the set (at most one every
//!   [`MIN_REFRESH_INTERVAL`]), so a rotated key is taken up and an unknown one is refused
//!   without a read per request. Or one key from a PEM file (`AGORA_AUTH_PUBLIC_KEY_FILE`),
//!   which takes any `kid`.
//! * Claims: `iss` must be `AGORA_AUTH_ISSUER`, `aud` must hold `AGORA_AUTH_AUDIENCE`, `exp` is
//!   required and `nbf` checked, with 30 s of leeway for clocks; then [`ClaimRules`] names the
//!   caller.

use crate::{AuthError, Caller, ClaimRules};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// Environment variable: the URL of the identity provider's JWKS.
pub const JWKS_URL_ENV: &str = "AGORA_AUTH_JWKS_URL";
/// Environment variable: a PEM file holding the one public key tokens are signed with.
pub const PUBLIC_KEY_FILE_ENV: &str = "AGORA_AUTH_PUBLIC_KEY_FILE";
/// Environment variable: the issuer tokens must name.
pub const ISSUER_ENV: &str = "AGORA_AUTH_ISSUER";
/// Environment variable: the audience tokens must name.
pub const AUDIENCE_ENV: &str = "AGORA_AUTH_AUDIENCE";
/// The shortest time between two reads of the JWKS for unknown key ids.
pub const MIN_REFRESH_INTERVAL: Duration = Duration::from_secs(10);
/// How long a read of the JWKS may take.
const JWKS_TIMEOUT: Duration = Duration::from_secs(5);
/// Clock skew allowed on `exp` and `nbf`.
const LEEWAY_SECS: u64 = 30;

/// Where the trusted keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    Jwks(String),
    PemFile(PathBuf),
}

/// What a verifier trusts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifierConfig {
    pub keys: KeySource,
    pub issuer: String,
    pub audience: String,
    pub rules: ClaimRules,
}

impl VerifierConfig {
    /// From the settings' values (`None`: unset): `None` when no key source is set (auth is
    /// off), else the configuration, or an error naming the setting that is missing or wrong.
    pub fn from_values(
        jwks_url: Option<&str>,
        public_key_file: Option<&str>,
        issuer: Option<&str>,
        audience: Option<&str>,
        rules: ClaimRules,
    ) -> Result<Option<Self>, String> {
        let set = |v: Option<&str>| v.map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
        let keys = match (set(jwks_url), set(public_key_file)) {
            (None, None) => return Ok(None),
            (Some(_), Some(_)) => return Err(format!("set {JWKS_URL_ENV} or {PUBLIC_KEY_FILE_ENV}, not both")),
            (Some(url), None) if url.starts_with("http://") || url.starts_with("https://") => KeySource::Jwks(url),
            (Some(url), None) => return Err(format!("{JWKS_URL_ENV} must be an http(s) URL, got {url:?}")),
            (None, Some(file)) => KeySource::PemFile(PathBuf::from(file)),
        };
        let issuer = set(issuer).ok_or_else(|| format!("{ISSUER_ENV} is required when tokens are verified"))?;
        let audience = set(audience).ok_or_else(|| format!("{AUDIENCE_ENV} is required when tokens are verified"))?;
        Ok(Some(Self { keys, issuer, audience, rules }))
    }

    /// From the environment (see [`VerifierConfig::from_values`] and [`ClaimRules::from_env`]).
    pub fn from_env() -> Result<Option<Self>, String> {
        let var = agora_support::env::var;
        Self::from_values(
            var(JWKS_URL_ENV).as_deref(),
            var(PUBLIC_KEY_FILE_ENV).as_deref(),
            var(ISSUER_ENV).as_deref(),
            var(AUDIENCE_ENV).as_deref(),
            ClaimRules::from_env(),
        )
    }
}

/// The token algorithms a verifier accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithms {
    /// RS256, and ES256 (P-256): the local server's verifier, at both its doors.
    #[default]
    Rs256Es256,
    /// The RSA family, RS256, RS384 and RS512: what API Gateway's HTTP API JWT authorizer
    /// accepts ("only RSA-based algorithms"), for a door beside it that must accept the same
    /// tokens (the live stream's `$connect` on AWS).
    Rsa,
}

impl Algorithms {
    /// The algorithms accepted.
    pub fn accepted(self) -> &'static [Algorithm] {
        match self {
            Algorithms::Rs256Es256 => &[Algorithm::RS256, Algorithm::ES256],
            Algorithms::Rsa => &[Algorithm::RS256, Algorithm::RS384, Algorithm::RS512],
        }
    }

    /// The accepted algorithms in words, for refusals.
    pub fn names(self) -> &'static str {
        match self {
            Algorithms::Rs256Es256 => "RS256 or ES256",
            Algorithms::Rsa => "RS256, RS384 or RS512",
        }
    }
}

/// A key's family: which token algorithms it can verify at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Rsa,
    /// EC P-256: ES256.
    P256,
}

/// A trusted key, its family, and the one algorithm its JWK names (`alg`), if it names one.
#[derive(Clone)]
struct Key {
    key: DecodingKey,
    family: Family,
    alg: Option<Algorithm>,
}

impl Key {
    /// Whether this key verifies tokens of `alg`: of its family, and its JWK's `alg` if named.
    fn verifies(&self, alg: Algorithm) -> bool {
        let family = match alg {
            Algorithm::RS256 | Algorithm::RS384 | Algorithm::RS512 => Family::Rsa,
            Algorithm::ES256 => Family::P256,
            _ => return false,
        };
        family == self.family && self.alg.is_none_or(|named| named == alg)
    }
}

/// The keys, and when the set was last read.
struct Keys {
    by_kid: HashMap<String, Key>,
    read_at: Instant,
}

/// Verifies bearer tokens. Cheap to share (`Arc`); verification takes no lock across an await.
pub struct Verifier {
    config: VerifierConfig,
    /// The token algorithms accepted.
    algorithms: Algorithms,
    /// The PEM file's key, for any `kid`.
    single: Option<Key>,
    keys: RwLock<Keys>,
    /// One JWKS read at a time.
    refresh: tokio::sync::Mutex<()>,
    http: reqwest::Client,
    /// Reads of the JWKS so far (for tests and logs).
    reads: std::sync::atomic::AtomicUsize,
    /// The shortest time between two reads for unknown key ids.
    min_refresh: Duration,
    /// Tokens verified lately, by their exact text: a client sends the same token with each
    /// request until it expires, and checking its signature again each time would cost more
    /// than the request itself (see [`VERIFIED_FOR`]).
    verified: RwLock<HashMap<String, Verified>>,
    /// Signatures checked so far (for tests and benches).
    checks: std::sync::atomic::AtomicUsize,
}

/// A token verified, with its caller, until it must be verified again.
struct Verified {
    caller: Arc<Caller>,
    until: Instant,
}

/// How long a verified token is taken again without checking its signature: its expiry, at most
/// this long after it was verified (a key the identity provider withdrew stops being trusted
/// within this time for tokens already seen, as for new ones when the JWKS is next read).
pub const VERIFIED_FOR: Duration = Duration::from_secs(300);
/// The most tokens remembered; past it, the expired ones are dropped, and if that is not
/// enough, all of them.
const MAX_VERIFIED: usize = 10_000;

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Verifier {
    /// A verifier with its keys read (the JWKS fetched, or the PEM file read); an error says
    /// why they could not be, naming the setting.
    pub async fn new(config: VerifierConfig) -> Result<Verifier, String> {
        let http = reqwest::Client::builder().timeout(JWKS_TIMEOUT).build().map_err(|e| format!("HTTP client: {e}"))?;
        let single = match &config.keys {
            KeySource::PemFile(path) => {
                let pem = std::fs::read(path).map_err(|e| format!("{PUBLIC_KEY_FILE_ENV} ({}) cannot be read: {e}", path.display()))?;
                Some(pem_key(&pem).map_err(|e| format!("{PUBLIC_KEY_FILE_ENV} ({}): {e}", path.display()))?)
            }
            KeySource::Jwks(_) => None,
        };
        let verifier = Verifier {
            config,
            algorithms: Algorithms::default(),
            single,
            keys: RwLock::new(Keys { by_kid: HashMap::new(), read_at: Instant::now() }),
            refresh: tokio::sync::Mutex::new(()),
            http,
            reads: Default::default(),
            min_refresh: MIN_REFRESH_INTERVAL,
            verified: RwLock::new(HashMap::new()),
            checks: Default::default(),
        };
        if let KeySource::Jwks(url) = &verifier.config.keys {
            let keys = verifier.read_jwks(url).await.map_err(|e| format!("{JWKS_URL_ENV} ({url}): {e}"))?;
            tracing::info!(jwks = %url, keys = keys.len(), "bearer tokens are verified against the JWKS");
            *verifier.keys.write().expect("keys lock") = Keys { by_kid: keys, read_at: Instant::now() };
        }
        Ok(verifier)
    }

    /// The same verifier, reading the JWKS for an unknown key id at most once every `interval`
    /// (default [`MIN_REFRESH_INTERVAL`]).
    pub fn with_min_refresh(mut self, interval: Duration) -> Self {
        self.min_refresh = interval;
        self
    }

    /// The same verifier, accepting tokens of `algorithms` only (default
    /// [`Algorithms::Rs256Es256`]).
    pub fn with_algorithms(mut self, algorithms: Algorithms) -> Self {
        self.algorithms = algorithms;
        self
    }

    /// The token algorithms accepted.
    pub fn algorithms(&self) -> Algorithms {
        self.algorithms
    }

    pub fn config(&self) -> &VerifierConfig {
        &self.config
    }

    /// How many times the JWKS was read.
    pub fn jwks_reads(&self) -> usize {
        self.reads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many tokens had their signature checked (a token taken again from the verified ones is
    /// not counted).
    pub fn signature_checks(&self) -> usize {
        self.checks.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The caller of an `Authorization` header's value.
    pub async fn caller_of_header(&self, authorization: Option<&str>) -> Result<Arc<Caller>, AuthError> {
        self.verify(crate::bearer_token(authorization)?).await
    }

    /// The caller of `token` if it was verified in the last [`VERIFIED_FOR`] and has not expired
    /// since (the same text, byte for byte: any change is another token); `None` when it must be
    /// verified ([`Verifier::verify`]). Takes no lock but a shared read one, and allocates
    /// nothing: this is the path of every request but a token's first.
    pub fn verified(&self, token: &str) -> Option<Arc<Caller>> {
        let verified = self.verified.read().expect("verified lock");
        verified.get(token).filter(|seen| seen.until > Instant::now()).map(|seen| seen.caller.clone())
    }

    /// Verifies `token` and names its caller: from the verified tokens
    /// ([`Verifier::verified`]), else by checking its signature and claims.
    pub async fn verify(&self, token: &str) -> Result<Arc<Caller>, AuthError> {
        if let Some(caller) = self.verified(token) {
            return Ok(caller);
        }
        let (caller, exp) = self.verify_fully(token).await?;
        let caller = Arc::new(caller);
        let now = Instant::now();
        let left = exp.map_or(Duration::ZERO, |exp| Duration::from_secs(u64::try_from(exp - unix_now()).unwrap_or(0)));
        let until = now + left.min(VERIFIED_FOR);
        let mut verified = self.verified.write().expect("verified lock");
        if verified.len() >= MAX_VERIFIED {
            verified.retain(|_, v| v.until > now);
            if verified.len() >= MAX_VERIFIED {
                verified.clear();
            }
        }
        verified.insert(token.to_owned(), Verified { caller: caller.clone(), until });
        Ok(caller)
    }

    /// Verifies `token` (its signature, then its claims); its caller and its `exp`.
    async fn verify_fully(&self, token: &str) -> Result<(Caller, Option<i64>), AuthError> {
        let (alg, kid) = header(token, self.algorithms)?;
        let key = self.key_for(alg, kid.as_deref()).await?;
        if !key.verifies(alg) {
            let named = key.alg.map_or_else(|| format!("{:?}", key.family), |a| format!("{a:?}"));
            return Err(AuthError::Algorithm(format!("{alg:?} with a key for {named}")));
        }
        self.checks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut validation = Validation::new(alg);
        validation.algorithms = vec![alg];
        validation.leeway = LEEWAY_SECS;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.config.issuer]);
        validation.set_audience(&[&self.config.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation).map_err(|e| match e.kind() {
            ErrorKind::ExpiredSignature => AuthError::Expired,
            ErrorKind::ImmatureSignature => AuthError::NotYetValid,
            ErrorKind::InvalidIssuer => AuthError::WrongIssuer,
            ErrorKind::InvalidAudience => AuthError::WrongAudience,
            ErrorKind::InvalidSignature => AuthError::BadSignature,
            ErrorKind::InvalidAlgorithm => AuthError::Algorithm(format!("{alg:?} (accepted: {})", self.algorithms.names())),
            ErrorKind::MissingRequiredClaim(claim) => AuthError::Invalid(format!("the {claim:?} claim is required")),
            _ => AuthError::Invalid(e.to_string()),
        })?;
        let exp = data.claims.get("exp").and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)));
        Ok((self.config.rules.caller(&data.claims, &[])?, exp))
    }

    /// The key a token names: the PEM key, or the JWKS key of its `kid` (reading the set again
    /// once when the `kid` is unknown and the last read is old enough).
    async fn key_for(&self, alg: Algorithm, kid: Option<&str>) -> Result<Key, AuthError> {
        let url = match (&self.single, &self.config.keys) {
            (Some(key), _) => return Ok(key.clone()),
            (None, KeySource::Jwks(url)) => url,
            (None, KeySource::PemFile(path)) => return Err(AuthError::KeysUnavailable(format!("no key read from {}", path.display()))),
        };
        let kid = kid.ok_or_else(|| AuthError::Malformed(format!("a {alg:?} token verified against a JWKS needs a kid")))?;
        if let Some(key) = self.cached(kid) {
            return Ok(key);
        }
        let _one_read = self.refresh.lock().await;
        if let Some(key) = self.cached(kid) {
            return Ok(key);
        }
        if self.keys.read().expect("keys lock").read_at.elapsed() < self.min_refresh {
            return Err(AuthError::UnknownKey(kid.to_owned()));
        }
        let keys = self.read_jwks(url).await.map_err(AuthError::KeysUnavailable)?;
        tracing::info!(jwks = %url, keys = keys.len(), %kid, "JWKS read again for an unknown key id");
        let mut stored = self.keys.write().expect("keys lock");
        *stored = Keys { by_kid: keys, read_at: Instant::now() };
        stored.by_kid.get(kid).cloned().ok_or_else(|| AuthError::UnknownKey(kid.to_owned()))
    }

    fn cached(&self, kid: &str) -> Option<Key> {
        self.keys.read().expect("keys lock").by_kid.get(kid).cloned()
    }

    /// Reads the JWKS: its RSA keys (for RS256, RS384 and RS512, or the one their `alg` names)
    /// and EC P-256 keys (ES256) with a `kid`; others are left out. Which algorithms a token may
    /// use is [`Algorithms`]' business, checked before a key is looked up.
    async fn read_jwks(&self, url: &str) -> Result<HashMap<String, Key>, String> {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let response = self.http.get(url).send().await.map_err(|e| format!("unreachable: {e}"))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("answered HTTP {status}"));
        }
        let set: JwkSet = response.json().await.map_err(|e| format!("not a JWKS: {e}"))?;
        let mut keys = HashMap::new();
        for jwk in &set.keys {
            let Some(kid) = jwk.common.key_id.clone() else { continue };
            let (family, alg) = match (&jwk.algorithm, jwk.common.key_algorithm) {
                (AlgorithmParameters::RSA(_), None) => (Family::Rsa, None),
                (AlgorithmParameters::RSA(_), Some(KeyAlgorithm::RS256)) => (Family::Rsa, Some(Algorithm::RS256)),
                (AlgorithmParameters::RSA(_), Some(KeyAlgorithm::RS384)) => (Family::Rsa, Some(Algorithm::RS384)),
                (AlgorithmParameters::RSA(_), Some(KeyAlgorithm::RS512)) => (Family::Rsa, Some(Algorithm::RS512)),
                (AlgorithmParameters::EllipticCurve(ec), None | Some(KeyAlgorithm::ES256)) if ec.curve == EllipticCurve::P256 => {
                    (Family::P256, Some(Algorithm::ES256))
                }
                _ => continue,
            };
            match DecodingKey::from_jwk(jwk) {
                Ok(key) => {
                    keys.insert(kid, Key { key, family, alg });
                }
                Err(e) => tracing::warn!(%kid, error = %e, "a JWKS key was left out"),
            }
        }
        Ok(keys)
    }
}

/// Seconds since the epoch.
fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// The key of a PEM file: RSA (the RS family) or EC P-256 (ES256).
fn pem_key(pem: &[u8]) -> Result<Key, String> {
    if let Ok(key) = DecodingKey::from_rsa_pem(pem) {
        return Ok(Key { key, family: Family::Rsa, alg: None });
    }
    match DecodingKey::from_ec_pem(pem) {
        Ok(key) => Ok(Key { key, family: Family::P256, alg: Some(Algorithm::ES256) }),
        Err(e) => Err(format!("not an RSA or EC public key in PEM: {e}")),
    }
}

/// The token's algorithm (one of `accepted`, else refused) and key id.
fn header(token: &str, accepted: Algorithms) -> Result<(Algorithm, Option<String>), AuthError> {
    use base64::Engine as _;
    let first = token.split('.').next().unwrap_or_default();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(first.trim_end_matches('='))
        .map_err(|_| AuthError::Malformed("its header is not base64url".into()))?;
    let header: Value = serde_json::from_slice(&bytes).map_err(|_| AuthError::Malformed("its header is not JSON".into()))?;
    let alg = header.get("alg").and_then(Value::as_str).unwrap_or_default();
    let refused = || AuthError::Algorithm(format!("{alg:?} (accepted: {})", accepted.names()));
    let alg = match alg {
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        "ES256" => Algorithm::ES256,
        _ => return Err(refused()),
    };
    if !accepted.accepted().contains(&alg) {
        return Err(refused());
    }
    if token.split('.').count() != 3 {
        return Err(AuthError::Malformed("a JWT has three parts".into()));
    }
    Ok((alg, header.get("kid").and_then(Value::as_str).map(str::to_owned)))
}
