//! Opening connections to the database file with the store's settings, and the pool of reader
//! connections (WAL lets readers run alongside the writer and each other).

use crate::error::backend;
use agora_store::StoreError;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// How long a connection waits on a lock held by another process before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Prepared statements kept per connection.
const STATEMENT_CACHE: usize = 128;
/// Page cache per connection, in KiB.
const CACHE_KIB: i64 = 64 * 1024;
/// Bytes of the database file each connection reads through a memory map instead of `read`
/// calls (SQLite clamps it to its compiled maximum, 2 GB). The file only grows at checkpoints,
/// so connections seldom have to map it again.
const MMAP_BYTES: i64 = 1 << 31;
/// Idle readers kept open; more are opened under bursts and closed afterwards.
const MAX_IDLE_READERS: usize = 16;

/// How a connection caches the file: its page cache and how much of the file it maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Caching {
    /// Page cache, in KiB.
    cache_kib: i64,
    /// Bytes of the file read through a memory map.
    mmap_bytes: i64,
}

impl Caching {
    /// The writer and the readers of `get`, `find` and `count`: a large page cache, and the file
    /// mapped, so that pages read again cost nothing.
    pub const RANDOM_ACCESS: Caching = Caching { cache_kib: CACHE_KIB, mmap_bytes: MMAP_BYTES };
    /// The readers of streaming finds, which read each page once, in order: no map and a small
    /// page cache, so that a stream's memory is a few pages however much of the file it reads
    /// (the OS's file cache serves the reads, outside the process). A mapped file's pages stay in
    /// the process's resident memory once read: a stream through 200,000 votes would add the
    /// 100 MB of the file to it.
    pub const ONE_PASS: Caching = Caching { cache_kib: ONE_PASS_CACHE_KIB, mmap_bytes: 0 };
}

/// Page cache of a streaming reader, in KiB.
const ONE_PASS_CACHE_KIB: i64 = 2 * 1024;

/// Opens a connection with the store's settings: `synchronous = NORMAL` (a commit is durable
/// against a crash of the process, and against power loss once checkpointed), a busy timeout,
/// a statement cache, and `caching`. `read_only` connections refuse writes.
pub(crate) fn open(path: &Path, read_only: bool, caching: Caching) -> Result<Connection, StoreError> {
    let flags =
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags).map_err(backend)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(backend)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(backend)?;
    conn.pragma_update(None, "cache_size", -caching.cache_kib).map_err(backend)?;
    conn.pragma_update(None, "temp_store", "MEMORY").map_err(backend)?;
    // `PRAGMA mmap_size` answers with the size set: read, not updated.
    conn.query_row(&format!("PRAGMA mmap_size = {}", caching.mmap_bytes), [], |_| Ok(())).map_err(backend)?;
    if read_only {
        conn.pragma_update(None, "query_only", true).map_err(backend)?;
    }
    Ok(conn)
}

/// Idle reader connections, opened on demand.
pub(crate) struct Readers {
    path: PathBuf,
    caching: Caching,
    idle: Mutex<Vec<Connection>>,
}

impl Readers {
    /// Readers of `get`, `find` and `count` ([`Caching::RANDOM_ACCESS`]), one opened now (which
    /// checks the file opens).
    pub fn new(path: &Path) -> Result<Readers, StoreError> {
        let first = open(path, true, Caching::RANDOM_ACCESS)?;
        Ok(Readers { path: path.to_path_buf(), caching: Caching::RANDOM_ACCESS, idle: Mutex::new(vec![first]) })
    }

    /// Readers of streaming finds ([`Caching::ONE_PASS`]), none opened before the first stream.
    pub fn one_pass(path: &Path) -> Readers {
        Readers { path: path.to_path_buf(), caching: Caching::ONE_PASS, idle: Mutex::new(Vec::new()) }
    }

    /// Runs `f` on an idle reader connection (opening one when none is idle).
    pub fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let idle = lock(&self.idle).pop();
        let conn = match idle {
            Some(conn) => conn,
            None => open(&self.path, true, self.caching)?,
        };
        let out = f(&conn);
        let mut idle = lock(&self.idle);
        if idle.len() < MAX_IDLE_READERS {
            idle.push(conn);
        }
        out
    }
}

/// Locks a mutex, carrying on after a panic elsewhere (the vector of idle connections stays
/// consistent whatever happened to its holder).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
