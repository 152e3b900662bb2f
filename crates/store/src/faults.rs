//! Storage failures made on purpose, for the fault tests (the `testing`
//! feature: they do not ship in the binary).

use sqlx::sqlite::SqliteConnection;
use sqlx::{Connection, Executor, PgConnection};

use crate::{Backend, Store, StoreError};

/// A storage failure of SQLite made on purpose (see [`sqlite_fault`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqliteFault {
    /// A full disk: the database file cannot grow (`max_page_count`
    /// capped at its size: `SQLITE_FULL` in the statement), and no commit
    /// goes through, as when the WAL cannot grow (a commit hook that turns
    /// each into a rollback: SQLite then answers
    /// `SQLITE_CONSTRAINT_COMMITHOOK` instead of `SQLITE_FULL`, and leaves
    /// the connection in the same state).
    Full,
    /// Writes fail as on a read-only file (`SQLITE_READONLY`): `query_only`.
    ReadOnly,
}

impl SqliteFault {
    /// Starts this fault on `conn`.
    pub(crate) async fn apply(self, conn: &mut SqliteConnection) -> sqlx::Result<()> {
        match self {
            SqliteFault::Full => {
                // Never below the file's size: capped there.
                conn.execute("PRAGMA max_page_count = 1").await?;
                conn.lock_handle().await?.set_commit_hook(|| false);
            }
            SqliteFault::ReadOnly => {
                conn.execute("PRAGMA query_only = 1").await?;
            }
        }
        Ok(())
    }

    /// Ends any fault on `conn`.
    async fn lift(conn: &mut SqliteConnection) -> sqlx::Result<()> {
        conn.execute("PRAGMA max_page_count = 4294967294; PRAGMA query_only = 0").await?;
        conn.lock_handle().await?.remove_commit_hook();
        Ok(())
    }
}

/// Starts (`Some`) or ends (`None`) a fault of the store's SQLite writer:
/// on its open connection and on those it opens again after an error.
/// Does nothing on PostgreSQL.
pub async fn sqlite_fault(store: &Store, fault: Option<SqliteFault>) -> Result<(), StoreError> {
    let Backend::SqliteWriter(writer) = &store.pools.write else { return Ok(()) };
    let mut writer = writer.lock().await;
    writer.fault = fault;
    if let Some(conn) = writer.conn.as_mut() {
        SqliteFault::lift(conn).await?;
        if let Some(fault) = fault {
            fault.apply(conn).await?;
        }
    }
    Ok(())
}

/// Ends every other session on the database of `url` (as an operator's
/// `pg_terminate_backend` or a failover would): how many were ended.
pub async fn terminate_connections(url: &str) -> Result<usize, sqlx::Error> {
    let mut conn = PgConnection::connect(url).await?;
    let rows = sqlx::query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .fetch_all(&mut conn)
    .await?;
    conn.close().await.ok();
    Ok(rows.len())
}
