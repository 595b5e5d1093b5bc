//! MongoDB-style filters for the query routes and the storage adapters.
//!
//! The language is MongoDB's query language restricted to: field equality (including dotted
//! paths and array membership) and the operators `$eq $ne $gt $gte $lt $lte $in $nin $exists
//! $not` inside field conditions, `$and $or` at the top level. Anything else — `$nor`,
//! `$regex`, `$elemMatch`, `$size`, `$where`, `$expr`, ... — is rejected by [`Filter::parse`]
//! with an error naming it, never silently mismatched.
//!
//! Matching follows MongoDB's documented behaviour:
//!
//! * A top-level object is the conjunction of its entries; `$and`/`$or` take non-empty arrays
//!   of filter objects.
//! * `{field: value}` is equality, unless `value` is an object whose keys are all operators;
//!   an object mixing operators and plain keys is an error. An object without operator keys is
//!   literal equality with that object.
//! * Dotted paths walk through objects; an array met on the way has the rest of the path
//!   applied to each of its elements, and a numeric component (`items.0.name`) also selects the
//!   element at that position (the `path` module documents the exact rules).
//! * A field holding an array matches an equality if the whole array or any element equals the
//!   value; `$gt`/`$gte`/`$lt`/`$lte`/`$in` likewise match if any element does.
//! * `$ne`, `$nin` and `$not` are the negations of `$eq`, `$in` and their operator object, so
//!   they match documents lacking the field. Equality with `null` (also inside `$in`) matches
//!   a missing field as well as an explicit `null`.
//! * Each operator of a field condition is evaluated on its own: `{a: {$gt: 1, $lt: 5}}`
//!   matches `{a: [0, 10]}`, as in MongoDB (which needs `$elemMatch`, unsupported here, to
//!   constrain one element).
//!
//! Deliberate choices where MongoDB has more to say than JSON can express:
//!
//! * Numbers compare by value across integer and floating point representations (`1 == 1.0`),
//!   exactly (no rounding of large integers).
//! * Ordering comparisons are only made within a type bracket: numbers with numbers, strings
//!   with strings (by bytes, i.e. Unicode code points), booleans with booleans (`false <
//!   true`). Their operand must be a number, a string or a boolean; `null`, arrays and objects
//!   are rejected (MongoDB's ordering of those is not reproduced).
//! * Object equality ignores key order (MongoDB compares embedded documents in field order).
//! * `$exists` accepts a boolean, or a number (0 meaning `false`, anything else `true`).
//! * Field paths must not be empty, have empty components (`a..b`) or components starting
//!   with `$` or holding a NUL; no object inside a compared value (`$eq`, `$ne`, `$in`,
//!   `$nin`, a literal object) may have a key holding a NUL. No stored document has such a
//!   field (MongoDB cannot hold one), and a MongoDB server cannot be sent one: refused here, the
//!   same on every store.
//! * A document that is not a JSON object is matched as if it were `{}`.

mod ast;
mod compare;
mod error;
mod matching;
mod parse;
mod path;
mod render;

#[cfg(test)]
mod tests;

use serde_json::Value;

use crate::ast::{Clause, Op};
pub use crate::error::FilterError;

/// A parsed, validated filter. Cheap to evaluate: matching borrows from the document and does
/// not allocate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Filter {
    /// The conjuncts; empty matches everything. `$and`s are flattened into this list.
    clauses: Vec<Clause>,
}

impl Filter {
    /// Parses and validates a filter document. `{}` matches everything.
    pub fn parse(v: &Value) -> Result<Filter, FilterError> {
        Ok(Filter { clauses: parse::parse_filter(v)? })
    }

    /// A query route's body as a filter: `null` (an empty body) matches everything, anything
    /// else is [`Filter::parse`]d.
    pub fn of_query(v: &Value) -> Result<Filter, FilterError> {
        match v {
            Value::Null => Ok(Filter::all()),
            v => Filter::parse(v),
        }
    }

    /// Like [`Filter::parse`], for filters the program builds itself; panics with the error on
    /// an invalid filter.
    pub fn must(v: Value) -> Filter {
        match Filter::parse(&v) {
            Ok(filter) => filter,
            Err(e) => panic!("invalid built-in filter {v}: {e}"),
        }
    }

    /// Matches everything.
    pub fn all() -> Filter {
        Filter { clauses: Vec::new() }
    }

    /// Does this filter match everything without looking at the document (no conditions)?
    pub fn is_all(&self) -> bool {
        self.clauses.is_empty()
    }

    /// Both filters must match.
    pub fn and(mut self, other: Filter) -> Filter {
        self.clauses.extend(other.clauses);
        self
    }

    /// Does the document match? (MongoDB semantics, see the crate documentation.)
    pub fn matches(&self, doc: &Value) -> bool {
        matching::all_match(&self.clauses, doc)
    }

    /// The filter back as a MongoDB filter document, meaning the same thing to a MongoDB
    /// server (up to the choices listed in the crate documentation).
    /// `Filter::parse(&f.to_json()) == Ok(f)`.
    pub fn to_json(&self) -> Value {
        render::clauses_to_json(&self.clauses)
    }

    /// For adapters that index some fields: splits off the top-level conjuncts of the form
    /// `{field: scalar}` or `{field: {"$eq": scalar}}` whose field is one of `fields` (no dots)
    /// and whose scalar is a string, a number or a boolean. Returns those pairs, in filter
    /// order, and the rest of the filter ([`Filter::all`] when nothing is left); the pairs
    /// AND the rest are equivalent to `self`.
    ///
    /// A pair keeps MongoDB equality semantics: numbers compare by value (`1` matches `1.0`),
    /// and a document whose field is an array matches if an element equals the scalar.
    /// Conjuncts inside `$or`, dotted fields, `null`, arrays and objects are never taken.
    pub fn take_equalities(&self, fields: &[&str]) -> (Vec<(String, Value)>, Filter) {
        let mut pairs = Vec::new();
        let mut rest = Vec::new();
        for clause in &self.clauses {
            match indexable_equality(clause, fields) {
                Some(pair) => pairs.push(pair),
                None => rest.push(clause.clone()),
            }
        }
        (pairs, Filter { clauses: rest })
    }
}

/// The `(field, scalar)` of a clause [`Filter::take_equalities`] may take.
fn indexable_equality(clause: &Clause, fields: &[&str]) -> Option<(String, Value)> {
    let Clause::Field(field) = clause else {
        return None;
    };
    let [Op::Eq(value)] = field.ops.as_slice() else {
        return None;
    };
    let simple_field = field.path.parts.len() == 1 && fields.contains(&field.path.dotted.as_str());
    let scalar = matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_));
    (simple_field && scalar).then(|| (field.path.dotted.clone(), value.clone()))
}
