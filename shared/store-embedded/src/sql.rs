//! Filters as SQL: the equalities on columns go into the `WHERE` clause, the rest stays a
//! [`Filter`] applied to the parsed documents.

use crate::schema::{Table, KEY_COLUMN};
use agora_filter::Filter;
use rusqlite::types::Value as SqlValue;
use serde_json::{Map, Value};

/// A query split between SQLite and Rust.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    /// `column = ?n` conditions, `?n` being the n-th of `params`.
    conditions: Vec<String>,
    /// `" INDEXED BY ..."`, or empty.
    index_hint: String,
    pub params: Vec<SqlValue>,
    /// What SQLite cannot check; [`Filter::all`] when nothing.
    pub rest: Filter,
}

impl Query {
    /// Splits `filter` for `table`.
    pub fn plan(table: &Table, filter: &Filter) -> Query {
        if filter.is_all() {
            return Query { conditions: Vec::new(), index_hint: String::new(), params: Vec::new(), rest: Filter::all() };
        }
        let fields = table.pushable_fields();
        let (equalities, mut rest) = filter.take_equalities(&fields);
        let mut conditions = Vec::new();
        let mut params = Vec::new();
        let mut pushed: Vec<&str> = Vec::new();
        for (field, value) in equalities {
            let column = table.column_of(&field);
            match (column, sql_value(&value, column == Some(KEY_COLUMN))) {
                (Some(column), Some(param)) => {
                    params.push(param);
                    conditions.push(format!("{column} = ?{}", params.len()));
                    if let Some(f) = fields.iter().find(|f| **f == field) {
                        pushed.push(f);
                    }
                }
                // Not faithfully comparable in SQL: leave it to the matcher.
                _ => {
                    let equality = Value::Object(Map::from_iter([(field, value)]));
                    rest = Filter::must(equality).and(rest);
                }
            }
        }
        let index_hint = table.index_for(&pushed).map_or_else(String::new, |index| format!(" INDEXED BY {index}"));
        Query { conditions, index_hint, params, rest }
    }

    /// Whether SQLite checks the whole filter.
    pub fn is_pushed_down(&self) -> bool {
        self.rest.is_all()
    }

    /// `" WHERE ..."` (or nothing), with `extra` conditions first.
    fn where_clause(&self, extra: &[String]) -> String {
        let all: Vec<&str> = extra.iter().chain(&self.conditions).map(String::as_str).collect();
        if all.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", all.join(" AND "))
        }
    }

    /// `SELECT doc ... ORDER BY seq`.
    pub fn select_docs(&self, table: &Table) -> String {
        format!("SELECT doc FROM {}{}{} ORDER BY seq", table.name, self.index_hint, self.where_clause(&[]))
    }

    /// [`Query::select_docs`] restricted to a range of insertion order: `seq BETWEEN` the two
    /// parameters after [`Query::params`].
    pub fn select_docs_between(&self, table: &Table) -> String {
        let n = self.params.len();
        let range = [format!("seq BETWEEN ?{} AND ?{}", n + 1, n + 2)];
        format!("SELECT doc FROM {}{}{} ORDER BY seq", table.name, self.index_hint, self.where_clause(&range))
    }

    /// One batch of a streaming find: `SELECT seq, doc` of the rows after the `seq` given as the
    /// parameter after [`Query::params`], in insertion order, at most the next parameter's
    /// number of them, after skipping the third's.
    pub fn select_batch(&self, table: &Table) -> String {
        let n = self.params.len();
        let after = [format!("seq > ?{}", n + 1)];
        format!(
            "SELECT seq, doc FROM {}{}{} ORDER BY seq LIMIT ?{} OFFSET ?{}",
            table.name,
            self.index_hint,
            self.where_clause(&after),
            n + 2,
            n + 3
        )
    }

    /// The `seq` of the first (or `last`) row meeting the conditions SQLite checks.
    pub fn select_bound(&self, table: &Table, last: bool) -> String {
        let order = if last { "DESC" } else { "ASC" };
        format!("SELECT seq FROM {}{}{} ORDER BY seq {order} LIMIT 1", table.name, self.index_hint, self.where_clause(&[]))
    }

    /// `SELECT count(*)`, stopping at `?N` rows when `limited` (the limit is the parameter after
    /// [`Query::params`]).
    pub fn select_count(&self, table: &Table, limited: bool) -> String {
        if limited {
            let limit = self.params.len() + 1;
            format!("SELECT count(*) FROM (SELECT 1 FROM {}{}{} LIMIT ?{limit})", table.name, self.index_hint, self.where_clause(&[]))
        } else {
            format!("SELECT count(*) FROM {}{}{}", table.name, self.index_hint, self.where_clause(&[]))
        }
    }

    /// `SELECT doc` of the document keyed by the parameter after [`Query::params`], if it meets
    /// the conditions.
    pub fn select_by_key(&self, table: &Table) -> String {
        let key = [format!("{KEY_COLUMN} = ?{}", self.params.len() + 1)];
        format!("SELECT doc FROM {}{}", table.name, self.where_clause(&key))
    }

    /// `DELETE` of the document keyed by the parameter after [`Query::params`], if it meets the
    /// conditions.
    pub fn delete_by_key(&self, table: &Table) -> String {
        let key = [format!("{KEY_COLUMN} = ?{}", self.params.len() + 1)];
        format!("DELETE FROM {}{}", table.name, self.where_clause(&key))
    }

    /// The parameters followed by `last`.
    pub fn params_with(&self, last: SqlValue) -> Vec<SqlValue> {
        let mut params = self.params.clone();
        params.push(last);
        params
    }
}

/// The SQL value a field column (or the key column, which only holds strings) holds for
/// `value`, when the two compare exactly as the filter would.
fn sql_value(value: &Value, key_column: bool) -> Option<SqlValue> {
    match value {
        Value::String(s) => Some(SqlValue::Text(s.clone())),
        _ if key_column => None,
        Value::Bool(b) => Some(SqlValue::Blob(vec![u8::from(*b)])),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Some(SqlValue::Integer(i)),
            // u64 beyond i64 would be rounded: let the matcher compare it.
            (None, Some(_)) if n.is_u64() => None,
            (None, Some(f)) if f.is_finite() => Some(SqlValue::Real(f)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agora_store::CollectionSpec;
    use serde_json::json;

    const VOTES: CollectionSpec = CollectionSpec { name: "votes", key: "vote_id", unique: &[], indexed: &["social_task_id", "qualified"] };

    #[test]
    fn equalities_on_columns_go_to_sql() {
        let table = Table::new(&VOTES).expect("spec");
        let filter = Filter::must(json!({
            "social_task_id": "t", "qualified": true, "vote_data.x": 1
        }));
        let q = Query::plan(&table, &filter);
        assert_eq!(
            q.select_docs(&table),
            "SELECT doc FROM \"votes\" INDEXED BY \"votes__social_task_id\" WHERE \"f_social_task_id\" = ?1 AND \"f_qualified\" = ?2 ORDER BY seq"
        );
        assert_eq!(
            q.select_by_key(&table),
            "SELECT doc FROM \"votes\" WHERE id = ?3 AND \"f_social_task_id\" = ?1 AND \"f_qualified\" = ?2"
        );
        assert_eq!(q.params, [SqlValue::Text("t".into()), SqlValue::Blob(vec![1])]);
        assert!(!q.rest.is_all());
        assert!(q.rest.matches(&json!({"vote_data": {"x": 1}})));
        assert_eq!(
            q.select_docs_between(&table),
            "SELECT doc FROM \"votes\" INDEXED BY \"votes__social_task_id\" WHERE seq BETWEEN ?3 AND ?4 AND \"f_social_task_id\" = ?1 AND \"f_qualified\" = ?2 ORDER BY seq"
        );
        assert_eq!(
            q.select_batch(&table),
            "SELECT seq, doc FROM \"votes\" INDEXED BY \"votes__social_task_id\" WHERE seq > ?3 AND \"f_social_task_id\" = ?1 AND \"f_qualified\" = ?2 ORDER BY seq LIMIT ?4 OFFSET ?5"
        );
        assert_eq!(
            q.select_bound(&table, true),
            "SELECT seq FROM \"votes\" INDEXED BY \"votes__social_task_id\" WHERE \"f_social_task_id\" = ?1 AND \"f_qualified\" = ?2 ORDER BY seq DESC LIMIT 1"
        );
    }

    #[test]
    fn key_equality_on_a_number_stays_in_rust() {
        let table = Table::new(&VOTES).expect("spec");
        let q = Query::plan(&table, &Filter::must(json!({"vote_id": 5})));
        assert_eq!(q.select_docs(&table), "SELECT doc FROM \"votes\" ORDER BY seq");
        assert!(q.rest.matches(&json!({"vote_id": 5})));
        assert!(!q.rest.matches(&json!({"vote_id": "5"})));
    }

    #[test]
    fn all_needs_no_sql() {
        let table = Table::new(&VOTES).expect("spec");
        let q = Query::plan(&table, &Filter::all());
        assert!(q.is_pushed_down());
        assert_eq!(q.select_count(&table, true), "SELECT count(*) FROM (SELECT 1 FROM \"votes\" LIMIT ?1)");
    }
}
