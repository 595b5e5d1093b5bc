//! The paging parameters of a query route: `?limit=100&skip=200`, each optional, each a
//! non-negative integer written in decimal digits. Other parameters are left to the route.

use agora_store::Page;

/// The parameter capping the number of documents.
pub const LIMIT: &str = "limit";
/// The parameter of the number of matches to pass over first.
pub const SKIP: &str = "skip";

/// A paging parameter the route refuses: its name and what is wrong with it (the route words
/// the answer, e.g. `Invalid limit: must be a non-negative integer, got "-1"`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name} {problem}")]
pub struct ParamError {
    /// [`LIMIT`] or [`SKIP`].
    pub name: &'static str,
    /// What is wrong, as a predicate: `must be a non-negative integer, got "abc"`.
    pub problem: String,
}

/// The longest part of a refused value an error quotes.
const QUOTED_BYTES: usize = 40;

/// The page a query string asks for (`None`: no query string): `skip` (default 0) and `limit`
/// (default none), percent-decoded as a form would be. A value that is not a non-negative
/// integer in digits (`-1`, `abc`, `1e3`, `1.5`, empty), one past `u64`, or a parameter given
/// twice is refused, naming it.
pub fn page_of_query(query: Option<&str>) -> Result<Page, ParamError> {
    let (mut skip, mut limit) = (None, None);
    for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        let (name, slot) = match name.as_ref() {
            LIMIT => (LIMIT, &mut limit),
            SKIP => (SKIP, &mut skip),
            _ => continue,
        };
        if slot.is_some() {
            return Err(ParamError { name, problem: "is given more than once".into() });
        }
        *slot = Some(count(name, &value)?);
    }
    Ok(Page { skip: skip.unwrap_or(0), limit })
}

/// A count in decimal digits.
fn count(name: &'static str, value: &str) -> Result<u64, ParamError> {
    let quoted = || format!("{:?}", agora_support::truncate(value, QUOTED_BYTES));
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParamError { name, problem: format!("must be a non-negative integer, got {}", quoted()) });
    }
    value.parse().map_err(|_| ParamError { name, problem: format!("must be at most {}, got {}", u64::MAX, quoted()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_and_skip_are_optional_counts() {
        assert_eq!(page_of_query(None), Ok(Page::ALL));
        assert_eq!(page_of_query(Some("")), Ok(Page::ALL));
        assert_eq!(page_of_query(Some("limit=100&skip=200")), Ok(Page::new(200, Some(100))));
        assert_eq!(page_of_query(Some("skip=7")), Ok(Page::new(7, None)));
        assert_eq!(page_of_query(Some("limit=0")), Ok(Page::new(0, Some(0))));
        assert_eq!(page_of_query(Some("limit=007")), Ok(Page::new(0, Some(7))));
        assert_eq!(page_of_query(Some("limit=%31%30")), Ok(Page::new(0, Some(10))), "percent-decoded");
        assert_eq!(page_of_query(Some("limit=18446744073709551615")), Ok(Page::new(0, Some(u64::MAX))));
        assert_eq!(page_of_query(Some("fields=a&limit=2&x")), Ok(Page::new(0, Some(2))), "other parameters are the route's");
    }

    #[test]
    fn anything_else_is_refused_naming_the_parameter() {
        let refused = |query: &str| page_of_query(Some(query)).expect_err(query).to_string();
        assert_eq!(refused("limit=-1"), r#"limit must be a non-negative integer, got "-1""#);
        assert_eq!(refused("limit=abc"), r#"limit must be a non-negative integer, got "abc""#);
        assert_eq!(refused("limit=1e3"), r#"limit must be a non-negative integer, got "1e3""#);
        assert_eq!(refused("skip=1.5"), r#"skip must be a non-negative integer, got "1.5""#);
        assert_eq!(refused("skip="), r#"skip must be a non-negative integer, got """#);
        assert_eq!(refused("skip"), r#"skip must be a non-negative integer, got """#);
        assert_eq!(refused("limit=+5"), r#"limit must be a non-negative integer, got " 5""#, "+ is a space in a form");
        assert_eq!(refused("limit=%2B5"), r#"limit must be a non-negative integer, got "+5""#);
        assert_eq!(refused("limit=18446744073709551616"), r#"limit must be at most 18446744073709551615, got "18446744073709551616""#);
        assert_eq!(refused("limit=1&limit=2"), "limit is given more than once");
        assert_eq!(refused("skip=1&limit=x"), r#"limit must be a non-negative integer, got "x""#);
        let long = format!("limit={}", "9x".repeat(500));
        assert!(refused(&long).len() < 120, "a long value is quoted in part");
        let error = page_of_query(Some("skip=-2")).unwrap_err();
        assert_eq!((error.name, error.problem.as_str()), (SKIP, r#"must be a non-negative integer, got "-2""#));
    }
}
