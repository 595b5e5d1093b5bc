//! The parsed, validated representation of a filter.

use serde_json::Value;

use crate::error::FilterError;

/// One conjunct of a filter: a condition on a field, or a disjunction.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Clause {
    /// All operators must match the field.
    Field(FieldClause),
    /// At least one branch must match; each branch is a conjunction of clauses.
    /// Never empty, and no branch is empty (an `$or` with an empty branch is always true and is
    /// dropped at parse time).
    Or(Vec<Vec<Clause>>),
}

/// `{path: value}` or `{path: {"$op": operand, ...}}`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldClause {
    pub(crate) path: FieldPath,
    /// Never empty. Each operator is evaluated over the whole path on its own (MongoDB
    /// semantics: `{a: {$gt: 1, $lt: 5}}` may be satisfied by different array elements).
    pub(crate) ops: Vec<Op>,
}

/// A field operator with its operand.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Op {
    /// `$eq` and plain `{field: value}`.
    Eq(Value),
    /// `$ne`: not `$eq`.
    Ne(Value),
    /// `$gt`, `$gte`, `$lt`, `$lte`; the operand is a number, a string or a boolean.
    Cmp(CmpOp, Value),
    /// `$in`: equal to one of the values. No value is an operator object.
    In(Vec<Value>),
    /// `$nin`: not `$in`.
    Nin(Vec<Value>),
    /// `$exists`.
    Exists(bool),
    /// `$not`: not all of the operators (never empty).
    Not(Vec<Op>),
}

/// The ordering comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Gt,
    Gte,
    Lt,
    Lte,
}

impl CmpOp {
    /// The operator's name, with its `$`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CmpOp::Gt => "$gt",
            CmpOp::Gte => "$gte",
            CmpOp::Lt => "$lt",
            CmpOp::Lte => "$lte",
        }
    }

    /// Does `field_value.cmp(operand) == ordering` satisfy the operator?
    pub(crate) fn accepts(self, ordering: std::cmp::Ordering) -> bool {
        match self {
            CmpOp::Gt => ordering.is_gt(),
            CmpOp::Gte => ordering.is_ge(),
            CmpOp::Lt => ordering.is_lt(),
            CmpOp::Lte => ordering.is_le(),
        }
    }
}

/// A dotted field path, split into its components.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldPath {
    /// The path as written, e.g. `items.0.name`.
    pub(crate) dotted: String,
    /// Never empty.
    pub(crate) parts: Vec<Part>,
}

/// One component of a [`FieldPath`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Part {
    /// The component, looked up as an object key.
    pub(crate) name: String,
    /// The array index the component denotes when it is a canonical decimal number (`0`, `12`,
    /// not `01`), as MongoDB matches array offsets by their exact decimal spelling.
    pub(crate) index: Option<usize>,
}

impl FieldPath {
    /// Splits and validates a dotted path: no empty path or component, no component starting
    /// with `$` or holding a NUL.
    pub(crate) fn parse(dotted: &str) -> Result<FieldPath, FilterError> {
        let invalid = |reason| FilterError::InvalidFieldPath { path: dotted.to_owned(), reason };
        if dotted.is_empty() {
            return Err(invalid("field names must not be empty"));
        }
        let parts = dotted
            .split('.')
            .map(|name| {
                if name.is_empty() {
                    Err(invalid("path components must not be empty"))
                } else if name.starts_with('$') {
                    Err(invalid("path components must not start with $"))
                } else if name.contains('\0') {
                    // MongoDB cannot hold a NUL in a field name, so no stored field has one.
                    Err(invalid("path components must not hold a NUL character"))
                } else {
                    Ok(Part { name: name.to_owned(), index: array_index(name) })
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FieldPath { dotted: dotted.to_owned(), parts })
    }
}

/// `Some(n)` when `name` is the canonical decimal spelling of `n`.
fn array_index(name: &str) -> Option<usize> {
    let canonical = name.bytes().all(|b| b.is_ascii_digit()) && (name == "0" || !name.starts_with('0'));
    if canonical {
        name.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_components_and_indexes() {
        let p = FieldPath::parse("items.0.name").expect("valid");
        let names: Vec<_> = p.parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["items", "0", "name"]);
        let indexes: Vec<_> = p.parts.iter().map(|p| p.index).collect();
        assert_eq!(indexes, [None, Some(0), None]);
        assert_eq!(array_index("12"), Some(12));
        assert_eq!(array_index("012"), None);
        assert_eq!(array_index("1a"), None);
        assert_eq!(array_index("99999999999999999999999999"), None);
    }

    #[test]
    fn invalid_paths() {
        for bad in ["", ".a", "a.", "a..b", "a.$b", "a\0b", "a.\0"] {
            assert!(matches!(FieldPath::parse(bad), Err(FilterError::InvalidFieldPath { .. })), "{bad:?}");
        }
    }
}
