//! Throw-away PostgreSQL databases for tests (of this crate, the server and
//! the command line) and for `monte loadtest`; with the `testing` feature,
//! the storage failures of the fault tests too.
//!
//! The server to use comes from `MONTE_TEST_POSTGRES` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`, the one every machine of
//! this project runs). A test that cannot reach it fails; setting
//! `MONTE_SKIP_POSTGRES=1` is the only way to skip the PostgreSQL tests, and
//! each skipped test says so on stderr.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::{Connection, Executor, PgConnection};

#[cfg(feature = "testing")]
pub use crate::faults::{SqliteFault, sqlite_fault, terminate_connections};

/// The admin URL of the test server.
pub fn admin_url() -> String {
    std::env::var("MONTE_TEST_POSTGRES").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string())
}

/// Whether the PostgreSQL tests were explicitly switched off; prints why a
/// test does nothing.
pub fn skip_postgres(test: &str) -> bool {
    let skip = std::env::var("MONTE_SKIP_POSTGRES").is_ok_and(|v| !v.is_empty() && v != "0");
    if skip {
        eprintln!("{test}: skipped on PostgreSQL because MONTE_SKIP_POSTGRES is set");
    }
    skip
}

/// A database created for one test and dropped when this value is.
#[derive(Debug)]
pub struct TestDatabase {
    pub name: String,
    pub url: String,
    /// The server's admin URL (where the database is dropped from).
    admin: String,
}

impl TestDatabase {
    /// Creates `monte_test_<unique>` on the test server. Panics (failing the
    /// test) when the server cannot be reached: a missing database must not
    /// pass for a green run.
    pub async fn create() -> TestDatabase {
        let admin = admin_url();
        TestDatabase::create_on(&admin, "monte_test").await.unwrap_or_else(|e| {
            panic!(
                "cannot create a test database at {admin} ({e}); start PostgreSQL, or set MONTE_SKIP_POSTGRES=1 to skip"
            )
        })
    }

    /// Creates `<prefix>_<unique>` on the server of `admin` (any database
    /// URL of it), dropped again when the value is dropped; `prefix` must be
    /// a plain SQL identifier.
    pub async fn create_on(admin: &str, prefix: &str) -> Result<TestDatabase, sqlx::Error> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let name = format!("{prefix}_{}_{}_{}", std::process::id(), nanos, COUNTER.fetch_add(1, Ordering::Relaxed));
        let mut conn = PgConnection::connect(admin).await?;
        conn.execute(format!("CREATE DATABASE {name}").as_str()).await?;
        conn.close().await.ok();
        let url = database_url(admin, &name);
        Ok(TestDatabase { name, url, admin: admin.to_string() })
    }
}

/// `admin` with its database name replaced by `name`.
fn database_url(admin: &str, name: &str) -> String {
    let (base, query) = match admin.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (admin, None),
    };
    let authority_start = base.find("://").map(|i| i + 3).unwrap_or(0);
    let base = match base[authority_start..].find('/') {
        Some(i) => &base[..authority_start + i],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        // Drop may run inside a test's runtime: use a thread of our own.
        let name = self.name.clone();
        let admin = self.admin.clone();
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            runtime.block_on(async {
                let mut conn = PgConnection::connect(&admin).await.ok()?;
                conn.execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str()).await.ok()?;
                conn.close().await.ok()
            })
        })
        .join();
        if !matches!(dropped, Ok(Some(()))) {
            eprintln!("warning: could not drop test database {}", self.name);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_the_database_name() {
        assert_eq!(super::database_url("postgres://u@h:5432/postgres", "x"), "postgres://u@h:5432/x");
        assert_eq!(super::database_url("postgres://u@h", "x"), "postgres://u@h/x");
        assert_eq!(super::database_url("postgres://u@h/db?sslmode=disable", "x"), "postgres://u@h/x?sslmode=disable");
    }
}
