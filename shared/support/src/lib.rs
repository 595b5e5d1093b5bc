//! Small helpers the platform's crates share, each written once: settings read from the
//! environment ([`env`]), a stable hash ([`fnv1a`]), text cut for error messages and logs
//! ([`truncate`]), an error told with its causes ([`error_chain`]), and the internal error every
//! service's error type carries ([`InternalError`]). No dependencies.

/// Settings from the environment.
pub mod env {
    /// The value of the environment variable `name`, trimmed; `None` when it is unset, blank or
    /// not UTF-8.
    pub fn var(name: &str) -> Option<String> {
        std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
    }

    /// The variable `name` as a whole number; `None` when it is unset or is not one.
    pub fn number(name: &str) -> Option<u64> {
        var(name).and_then(|v| v.parse().ok())
    }
}

/// 64-bit FNV-1a: a hash that is the same on every machine and in every release (shards,
/// instance names, seeds). Not for anything an attacker chooses to collide.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// `text` cut to at most `max` bytes on a character boundary, with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// An error and its sources, `: `-joined (a source whose text the chain ends with already is
/// left out: many errors repeat their cause in their own message).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.ends_with(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn truncate_cuts_on_a_character_boundary() {
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(truncate("abcdef", 3), "abc…");
        assert_eq!(truncate("ééé", 3), "é…");
    }

    #[test]
    fn blank_variables_are_unset() {
        assert_eq!(env::var("AGORA_SUPPORT_TEST_SURELY_UNSET"), None);
    }
}

/// An internal error (a service's 500): what the flow was doing, and the cause, kept whole for
/// the log. Every service's error type carries one.
#[derive(Debug, Clone)]
pub struct InternalError {
    context: String,
    cause: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl InternalError {
    /// An error with no cause beyond `context`.
    pub fn new(context: impl Into<String>) -> Self {
        Self { context: context.into(), cause: None }
    }

    /// `cause`, met while doing `context`.
    pub fn caused(context: impl Into<String>, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self { context: context.into(), cause: Some(std::sync::Arc::new(cause)) }
    }
}

impl std::fmt::Display for InternalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cause {
            Some(cause) => write!(f, "{}: {}", self.context, error_chain(cause.as_ref())),
            None => f.write_str(&self.context),
        }
    }
}

impl std::error::Error for InternalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(|c| c as &(dyn std::error::Error + 'static))
    }
}

/// Two internal errors are the same when they say the same.
impl PartialEq for InternalError {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}
