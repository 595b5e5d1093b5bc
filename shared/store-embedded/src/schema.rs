//! The SQLite layout of one collection, and the DDL that creates it.
//!
//! Each collection is one table:
//!
//! ```sql
//! CREATE TABLE "votes" (
//!     seq INTEGER PRIMARY KEY,       -- rowid: insertion order
//!     id  TEXT NOT NULL UNIQUE,      -- the document's key field
//!     doc TEXT NOT NULL,             -- the document, as the caller wrote it
//!     "f_social_task_id",            -- the value of $.social_task_id, written by the store
//!     ...
//! );
//! ```
//!
//! with one column per indexed or unique field, a plain index per indexed field and a UNIQUE
//! index per unique field set. The store writes each column with the document (it has the
//! document's top level at hand anyway), holding the field's value with its JSON type kept
//! apart: strings as TEXT, numbers as INTEGER/REAL, `true`/`false` as the BLOBs `x'01'`/`x'00'`
//! (so that `true` never equals the number `1`), and NULL when the field is missing, `null`, an
//! object or an array. Queries compare these columns without parsing `doc`. (Generated columns
//! would do the same, but SQLite would parse the whole document to compute them: seconds for a
//! task whose report holds a million votes.)

use agora_store::{CollectionSpec, StoreError};

/// A field that has its own column.
#[derive(Debug, Clone)]
pub(crate) struct FieldColumn {
    pub field: &'static str,
    /// Quoted column identifier, ready for SQL.
    pub column: String,
}

/// The SQL of one collection's hot paths, built once.
#[derive(Debug, Clone)]
pub(crate) struct Statements {
    pub insert: String,
    pub get: String,
    pub update: String,
}

/// One collection's table.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    pub spec: &'static CollectionSpec,
    /// Quoted table identifier.
    pub name: String,
    /// Generated columns, indexed fields first, then unique-only fields.
    pub columns: Vec<FieldColumn>,
    pub sql: Statements,
}

/// Name of the column holding the document's key.
pub(crate) const KEY_COLUMN: &str = "id";

impl Table {
    /// Lays out `spec`'s table. Fails on field names SQLite paths cannot carry.
    pub fn new(spec: &'static CollectionSpec) -> Result<Table, StoreError> {
        let mut columns: Vec<FieldColumn> = Vec::new();
        let unique_fields = spec.unique.iter().flat_map(|set| set.iter());
        for field in spec.indexed.iter().chain(unique_fields) {
            check_field_name(spec, field)?;
            if *field != spec.key && !columns.iter().any(|c| c.field == *field) {
                columns.push(FieldColumn { field, column: quote_ident(&format!("f_{field}")) });
            }
        }
        let name = quote_ident(spec.name);
        let field_columns: String = columns.iter().map(|c| format!(", {}", c.column)).collect();
        let placeholders: String = (0..columns.len()).map(|i| format!(", ?{}", i + 3)).collect();
        let assignments: String = columns.iter().enumerate().map(|(i, c)| format!(", {} = ?{}", c.column, i + 3)).collect();
        let sql = Statements {
            insert: format!("INSERT INTO {name} ({KEY_COLUMN}, doc{field_columns}) VALUES (?1, ?2{placeholders})"),
            get: format!("SELECT doc FROM {name} WHERE {KEY_COLUMN} = ?1"),
            update: format!("UPDATE {name} SET doc = ?2{assignments} WHERE {KEY_COLUMN} = ?1"),
        };
        Ok(Table { spec, name, columns, sql })
    }

    /// The column that holds `field`'s value, if any: the key column or a field column.
    pub fn column_of(&self, field: &str) -> Option<&str> {
        if field == self.spec.key {
            return Some(KEY_COLUMN);
        }
        self.columns.iter().find(|c| c.field == field).map(|c| c.column.as_str())
    }

    /// The fields a filter's equalities can be pushed down on.
    pub fn pushable_fields(&self) -> Vec<&'static str> {
        std::iter::once(self.spec.key).chain(self.columns.iter().map(|c| c.field)).collect()
    }

    /// `CREATE TABLE IF NOT EXISTS` with a column per indexed or unique field. `name` is the
    /// table's quoted name (another while the table is rebuilt).
    pub fn create_table(&self, name: &str) -> String {
        let mut sql =
            format!("CREATE TABLE IF NOT EXISTS {name} (seq INTEGER PRIMARY KEY, {KEY_COLUMN} TEXT NOT NULL UNIQUE, doc TEXT NOT NULL");
        for c in &self.columns {
            // No declared type: the column keeps the SQL type of what the store writes.
            sql.push_str(&format!(", {}", c.column));
        }
        sql.push(')');
        sql
    }

    /// `ALTER TABLE` adding the column of a field indexed after the table was created (the
    /// store then fills it).
    pub fn add_column(&self, c: &FieldColumn) -> String {
        format!("ALTER TABLE {} ADD COLUMN {}", self.name, c.column)
    }

    /// `CREATE [UNIQUE] INDEX IF NOT EXISTS` for every indexed field and unique field set.
    pub fn create_indexes(&self) -> Vec<String> {
        let mut out = Vec::new();
        for field in self.spec.indexed {
            if let (Some(column), Some(index)) = (self.column_of(field), self.index_of(field)) {
                out.push(format!("CREATE INDEX IF NOT EXISTS {index} ON {}({column})", self.name));
            }
        }
        for set in self.spec.unique {
            let columns: Vec<&str> = set.iter().filter_map(|f| self.column_of(f)).collect();
            let index = self.unique_index(set);
            out.push(format!("CREATE UNIQUE INDEX IF NOT EXISTS {index} ON {}({})", self.name, columns.join(", ")));
        }
        out
    }

    /// The quoted name of the index of the indexed field `field` (none for the key, which has
    /// the table's own unique index).
    fn index_of(&self, field: &str) -> Option<String> {
        let indexed = self.spec.indexed.contains(&field) && field != self.spec.key;
        indexed.then(|| quote_ident(&format!("{}__{}", self.spec.name, field)))
    }

    /// The quoted name of the unique index over `set`.
    fn unique_index(&self, set: &[&str]) -> String {
        quote_ident(&format!("{}__unique__{}", self.spec.name, set.join("__")))
    }

    /// The index a query with equalities on `fields` is made to use (`INDEXED BY`), rather than
    /// leaving the choice to SQLite, which without statistics may walk the index of a boolean
    /// (`qualified`) across every task: none when the key is among them (its own unique index
    /// is the obvious choice); else the unique index of a unique set they cover (one row at
    /// most); else the index of the first field of the collection's `indexed` list they name.
    pub fn index_for(&self, fields: &[&str]) -> Option<String> {
        if fields.contains(&self.spec.key) {
            return None;
        }
        if let Some(set) = self.spec.unique.iter().find(|set| set.iter().all(|f| fields.contains(f))) {
            return Some(self.unique_index(set));
        }
        self.spec.indexed.iter().find(|f| fields.contains(f)).and_then(|f| self.index_of(f))
    }

    /// The constraint a SQLite "UNIQUE constraint failed: t.a, t.b" message names, as the
    /// `fields` of [`StoreError::Duplicate`]: the key field, or the unique set joined by `,`.
    pub fn constraint_fields(&self, message: &str) -> String {
        let listed = message.split_once("constraint failed:").map_or(message, |(_, rest)| rest);
        let fields: Vec<&str> = listed
            .split(',')
            .map(|part| {
                let column = part.trim().rsplit_once('.').map_or(part.trim(), |(_, c)| c);
                if column == KEY_COLUMN {
                    return self.spec.key;
                }
                self.columns.iter().find(|c| c.column.trim_matches('"') == column).map_or(column, |c| c.field)
            })
            .collect();
        fields.join(",")
    }
}

/// Refuses field names that cannot sit inside a quoted JSON path in a SQL string literal.
fn check_field_name(spec: &CollectionSpec, field: &str) -> Result<(), StoreError> {
    if field.is_empty() || field.contains(['"', '\'', '.', '\0']) {
        return Err(StoreError::Backend(format!("collection {}: field name {field:?} cannot be indexed by the embedded store", spec.name)));
    }
    Ok(())
}

/// Quotes an SQL identifier.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    const VOTES: CollectionSpec = CollectionSpec {
        name: "votes",
        key: "vote_id",
        unique: &[&["social_task_id", "submitter_subject_id"]],
        indexed: &["social_task_id", "qualified"],
    };

    #[test]
    fn columns_cover_indexed_and_unique_fields_once() {
        let t = Table::new(&VOTES).expect("valid spec");
        let fields: Vec<_> = t.columns.iter().map(|c| c.field).collect();
        assert_eq!(fields, ["social_task_id", "qualified", "submitter_subject_id"]);
        assert_eq!(t.pushable_fields()[0], "vote_id");
        assert_eq!(t.column_of("vote_id"), Some(KEY_COLUMN));
        assert_eq!(t.column_of("vote_data"), None);
    }

    #[test]
    fn queries_are_given_their_index() {
        let t = Table::new(&VOTES).expect("valid spec");
        assert_eq!(t.index_for(&["qualified", "social_task_id"]).as_deref(), Some("\"votes__social_task_id\""));
        assert_eq!(t.index_for(&["qualified"]).as_deref(), Some("\"votes__qualified\""));
        assert_eq!(
            t.index_for(&["submitter_subject_id", "qualified", "social_task_id"]).as_deref(),
            Some("\"votes__unique__social_task_id__submitter_subject_id\"")
        );
        assert_eq!(t.index_for(&["vote_id", "social_task_id"]), None);
        assert_eq!(t.index_for(&["submitter_subject_id"]), None, "unique-only fields have no index of their own");
    }

    #[test]
    fn constraint_messages_name_fields() {
        let t = Table::new(&VOTES).expect("valid spec");
        assert_eq!(t.constraint_fields("UNIQUE constraint failed: votes.id"), "vote_id");
        assert_eq!(
            t.constraint_fields("UNIQUE constraint failed: votes.f_social_task_id, votes.f_submitter_subject_id"),
            "social_task_id,submitter_subject_id"
        );
    }

    #[test]
    fn odd_field_names_are_refused() {
        const BAD: CollectionSpec = CollectionSpec { name: "x", key: "id", unique: &[], indexed: &["a'b"] };
        assert!(Table::new(&BAD).is_err());
    }
}
