//! SQLite: the one write connection ([`Writer`]) and its checks of the
//! write-ahead log, the pragmas the file is opened with, the checkpoints
//! made off the write path, and the batches of moves the group commit
//! writes in a few statements.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, Connection, Executor, Row};
use tokio::sync::Mutex as AsyncMutex;

use crate::commit::Job;
use crate::rows::{INSERT_MOVE, UPDATE_PLAY, UPDATE_STATE, bind_move, bind_play, bind_state};
use crate::{Backend, Pools, Result, StoreError, ping_if_idle};

/// Group-commit writers on SQLite: one, as the file has one writer at a
/// time anyway.
pub(crate) const WRITERS: usize = 1;

/// Opens the SQLite database of `url` (`sqlite:PATH`, `sqlite::memory:`
/// or a plain file path), creating the file if missing, and brings the
/// schema up to date.
pub(crate) async fn connect(url: &str) -> Result<Pools> {
    let url = if url.starts_with("sqlite:") { url.to_string() } else { format!("sqlite:{url}") };
    let options = SqliteConnectOptions::from_str(&url)
        .map_err(|_| StoreError::Url(url.clone()))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // In WAL mode NORMAL keeps every commit through a crash of
        // the process (the WAL is in the OS's hands); only a power
        // loss can take the last commits (docs/api.md).
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10))
        // Checkpoints are made off the write path (`checkpoints`);
        // the writer makes one only if they fall this far behind.
        .pragma("wal_autocheckpoint", WRITER_CHECKPOINT_PAGES);
    let memory = url.contains(":memory:") || url.contains("mode=memory");
    let mut write = options.connect().await?;
    sqlx::migrate!("./migrations/sqlite").run(&mut write).await?;
    let wal = if memory {
        None
    } else {
        let mut path = options.get_filename().as_os_str().to_owned();
        path.push("-wal");
        let path = PathBuf::from(path);
        wal_identity(&path).map(|(dev, ino)| (path, dev, ino))
    };
    let writer = Arc::new(AsyncMutex::new(Writer {
        conn: Some(write),
        options: (!memory).then(|| options.clone()),
        closed: false,
        wal,
        wal_lost: false,
        #[cfg(feature = "testing")]
        fault: None,
    }));
    if !memory {
        tokio::spawn(checkpoints(options.connect().await?, Arc::downgrade(&writer)));
    }
    let write = Backend::SqliteWriter(writer);
    // An in-memory database lives in its one connection.
    let read = if memory {
        write.clone()
    } else {
        Backend::Sqlite(
            SqlitePoolOptions::new()
                .max_connections(4)
                .idle_timeout(Some(Duration::from_secs(600)))
                .max_lifetime(Some(Duration::from_secs(3600)))
                .test_before_acquire(false)
                .before_acquire(ping_if_idle)
                .connect_with(options)
                .await?,
        )
    };
    Ok(Pools { write, read })
}

/// SQLite's write connection, opened again after an error.
///
/// After a failed statement or `COMMIT` SQLite rolls back the statement
/// or the whole transaction, depending on the error and the statement,
/// while sqlx keeps its own count of open transactions, which it only
/// lowers when a `COMMIT` or `ROLLBACK` succeeds. Once the two disagree,
/// sqlx's next transaction is a `SAVEPOINT`, and its commit a `RELEASE`
/// that commits nothing while an older transaction is still open: moves
/// were acknowledged that a later `ROLLBACK` took away (docs/reliability.md).
/// So after any error the connection is closed, which rolls back whatever
/// it held, and the next write opens a new one.
#[derive(Debug)]
pub(crate) struct Writer {
    pub(crate) conn: Option<SqliteConnection>,
    /// How to open the connection again; `None` for an in-memory
    /// database, which lives in its one connection (rolled back instead).
    options: Option<SqliteConnectOptions>,
    closed: bool,
    /// The WAL file as the store found it, (path, device, inode): commits
    /// written to a WAL that is no longer at its path are lost when the
    /// process ends, and a new connection would start another WAL beside it.
    wal: Option<(PathBuf, u64, u64)>,
    /// Set once the WAL was found removed or replaced.
    wal_lost: bool,
    /// A storage failure made on purpose, for the fault tests.
    #[cfg(feature = "testing")]
    pub(crate) fault: Option<crate::faults::SqliteFault>,
}

impl Writer {
    /// The connection, opened if there is none.
    pub(crate) async fn connection(&mut self) -> Result<&mut SqliteConnection> {
        if self.closed {
            return Err(StoreError::Database(sqlx::Error::PoolClosed));
        }
        if self.wal_lost {
            return Err(self.wal_error());
        }
        if self.conn.is_none() {
            let options = self.options.as_ref().ok_or(StoreError::Database(sqlx::Error::PoolClosed))?;
            #[cfg_attr(not(feature = "testing"), expect(unused_mut))]
            let mut conn = options.connect().await?;
            #[cfg(feature = "testing")]
            if let Some(fault) = self.fault {
                fault.apply(&mut conn).await?;
            }
            self.conn = Some(conn);
            self.check_wal().await?;
        }
        self.conn.as_mut().ok_or(StoreError::Database(sqlx::Error::PoolClosed))
    }

    /// After an error: the connection is closed (a file) or rolled back
    /// (in memory), so nothing of a failed transaction can be committed
    /// later by accident.
    pub(crate) async fn failed(&mut self) {
        match (self.options.is_some(), self.conn.take()) {
            (true, Some(conn)) => {
                let _ = conn.close().await;
            }
            (false, Some(mut conn)) => {
                let _ = conn.execute("ROLLBACK").await;
                self.conn = Some(conn);
            }
            (_, None) => {}
        }
    }

    fn wal_error(&self) -> StoreError {
        let path = self.wal.as_ref().map(|w| w.0.display().to_string()).unwrap_or_default();
        StoreError::WalLost(path)
    }

    /// After a commit: the WAL it went to must still be the file at its
    /// path. If not, everything in it is copied into the database file
    /// (which makes the commit durable) and writes are refused from then on.
    pub(crate) async fn check_wal(&mut self) -> Result<()> {
        let Some((path, dev, ino)) = &self.wal else { return Ok(()) };
        if wal_identity(path) == Some((*dev, *ino)) {
            return Ok(());
        }
        self.wal_lost = true;
        let conn = self.conn.as_mut().ok_or(StoreError::Database(sqlx::Error::PoolClosed))?;
        let row = sqlx::query("PRAGMA wal_checkpoint(FULL)").fetch_one(&mut *conn).await?;
        let (busy, log, copied): (i64, i64, i64) = (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
        if busy != 0 || log != copied {
            return Err(self.wal_error());
        }
        Ok(())
    }

    /// Closes the connection after copying every commit into the database
    /// file and emptying the WAL: the file alone is then the database.
    /// Writes are refused from then on.
    pub(crate) async fn close(&mut self) {
        self.closed = true;
        if let Some(mut conn) = self.conn.take() {
            // The checkpoint task may be in the middle of one of its own
            // (SQLite answers busy): tried again for up to a second.
            for _ in 0..50 {
                let done = match sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").fetch_one(&mut conn).await {
                    Ok(row) => row.try_get::<i64, _>(0).map_or(true, |busy| busy == 0),
                    Err(_) => true,
                };
                if done {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            let _ = conn.close().await;
        }
    }

    /// A batch of the group commit on this connection (see
    /// [`sqlite_batch`]), which is reset if the batch fails.
    pub(crate) async fn write_batch<'j>(
        &mut self,
        moves: &[&'j Job],
        others: &[&Job],
        others_applied: &mut Vec<bool>,
    ) -> Result<HashSet<&'j str>> {
        let conn = self.connection().await?;
        let applied = match sqlite_batch(conn, moves, others, others_applied).await {
            Ok(done) => done,
            Err(e) => {
                self.failed().await;
                return Err(e);
            }
        };
        self.check_wal().await?;
        Ok(applied)
    }
}

/// The device and inode of the file at `path`.
fn wal_identity(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The WAL's size, in pages, at which SQLite's writer checkpoints by
/// itself (64 MiB of 4 KiB pages; SQLite's default is 1,000 pages): the
/// bound should [`checkpoints`] not keep up.
const WRITER_CHECKPOINT_PAGES: &str = "16384";

/// How often [`checkpoints`] copies the WAL into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

/// Checkpoints the WAL every [`CHECKPOINT_EVERY`] on a connection of its
/// own, until the store is closed or dropped.
///
/// SQLite's automatic checkpoint runs in the committing connection, after
/// the commit and before it returns: with the default 1,000 pages that was
/// about 17 times a second under load, each with two fsyncs, and every move
/// of the batch waited for it (and so did the next batches). A passive
/// checkpoint from another connection lets the writer go on meanwhile; the
/// WAL starts again from its beginning once a checkpoint has caught up
/// with it, and [`WRITER_CHECKPOINT_PAGES`] bounds it if none does.
/// Durability is the same: with `synchronous = NORMAL` a checkpoint syncs
/// the WAL before it copies, and the database file after.
async fn checkpoints(mut conn: SqliteConnection, writer: Weak<AsyncMutex<Writer>>) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(writer) = writer.upgrade() else { break };
        // Closed (`Store::close`); a writer busy with a batch is not waited for.
        if writer.try_lock().is_ok_and(|w| w.closed) {
            break;
        }
        // Busy (the writer checkpointing by itself) or failing: next time.
        let _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").await;
        // The frames appended meanwhile, with the writer held back for
        // that moment: the checkpoint then reaches the end of the WAL, and
        // the next commit starts the WAL again from its beginning. Without
        // it the WAL grows to the writer's own bound, and the batch that
        // reaches it waits for a long checkpoint (SQLite's tail latency).
        let guard = writer.lock().await;
        if guard.closed {
            break;
        }
        let _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").await;
        drop(guard);
    }
    let _ = conn.close().await;
}

/// SQLite: a batch as one transaction on `conn`: the moves of different
/// games (see [`sqlite_moves`]), then the other commits one by one (their
/// answers pushed to `others_applied`). Returns the games whose move went
/// in. An error means that nothing was committed.
///
/// The batch's own statements begin and commit the transaction (`BEGIN
/// IMMEDIATE` before the first chunk of moves, `COMMIT` after the last),
/// not sqlx's `Transaction`: every call is a round trip to the
/// connection's thread and back (two thread wake-ups), and a batch of up
/// to [`SQLITE_CHUNK`] moves is then one call instead of four.
pub(crate) async fn sqlite_batch<'j>(
    conn: &mut SqliteConnection,
    moves: &[&'j Job],
    others: &[&Job],
    others_applied: &mut Vec<bool>,
) -> Result<HashSet<&'j str>> {
    let written = async {
        let mut applied = HashSet::new();
        // In chunks of a power of two, so that a handful of statement
        // shapes, prepared once, serve every batch size.
        let mut rest = moves;
        let mut begun = false;
        while !rest.is_empty() {
            let size = 1 << rest.len().min(SQLITE_CHUNK).ilog2();
            let (chunk, tail) = rest.split_at(size);
            let commit = tail.is_empty() && others.is_empty();
            applied.extend(sqlite_moves(conn, chunk, !begun, commit).await?);
            begun = true;
            rest = tail;
        }
        if !others.is_empty() {
            if !begun {
                conn.execute("BEGIN IMMEDIATE").await?;
            }
            for job in others {
                others_applied.push(sqlite_single(conn, job).await?);
            }
            conn.execute("COMMIT").await?;
        }
        Ok(applied)
    }
    .await;
    if written.is_err() {
        // A statement failed inside the transaction, which is still open
        // (or none was begun, and this fails harmlessly).
        let _ = conn.execute("ROLLBACK").await;
    }
    written
}

/// Most rows in one SQLite batch statement (`sqlite_batch` cuts bigger
/// batches into chunks).
const SQLITE_CHUNK: usize = 64;

/// `(?, ?, ...), (?, ...)`: `rows` groups of `columns` placeholders, each
/// group wrapped by `wrap` (given the group's placeholders).
///
/// Anonymous `?`, not `$N`: for a numbered or named parameter sqlx asks
/// SQLite its name, which SQLite finds by a linear search, so binding the
/// 1,152 parameters of a batch of 64 took a quadratic 11% of the server's
/// time (docs/server-load.md); `?` has no name to look up.
fn placeholder_rows(rows: usize, columns: usize, wrap: impl Fn(&[&str]) -> String) -> String {
    let group = vec!["?"; columns];
    vec![wrap(&group); rows].join(", ")
}

/// The statement texts of a chunk of moves, made once: by its number of
/// rows (1 to [`SQLITE_CHUNK`]), then whether it begins the transaction
/// (bit 0) and commits it (bit 1). sqlx keeps the prepared statements, but
/// the text of a big batch took as long to write as to run.
static SQLITE_MOVES: [[OnceLock<String>; 4]; SQLITE_CHUNK + 1] =
    [const { [const { OnceLock::new() }; 4] }; SQLITE_CHUNK + 1];

fn sqlite_moves_text(rows: usize, begin: bool, commit: bool) -> Cow<'static, str> {
    match SQLITE_MOVES.get(rows) {
        Some(cells) => Cow::Borrowed(
            cells[usize::from(begin) | usize::from(commit) << 1].get_or_init(|| sqlite_moves_sql(rows, begin, commit)),
        ),
        // Not reached (chunks are at most SQLITE_CHUNK rows); still right.
        None => Cow::Owned(sqlite_moves_sql(rows, begin, commit)),
    }
}

/// `[BEGIN IMMEDIATE;] INSERT ...; UPDATE ... RETURNING id[; COMMIT]` for
/// `rows` moves: the moves of the games still at the version expected,
/// then the guarded state changes of the same games.
fn sqlite_moves_sql(rows: usize, begin: bool, commit: bool) -> String {
    let moves = placeholder_rows(rows, 7, |p| {
        format!(
            "SELECT {} AS gid, {} AS expected, {} AS ply, {} AS notation, {} AS played_at, {} AS white_ms, \
             {} AS black_ms",
            p[0], p[1], p[2], p[3], p[4], p[5], p[6]
        )
    })
    .replace(", SELECT", " UNION ALL SELECT");
    format!(
        "{}INSERT INTO moves (game_id, ply, notation, played_at, white_ms, black_ms) \
         SELECT v.gid, v.ply, v.notation, v.played_at, v.white_ms, v.black_ms FROM ({moves}) AS v, games \
         WHERE games.id = v.gid AND games.version = v.expected; {}{}",
        if begin { "BEGIN IMMEDIATE; " } else { "" },
        sqlite_update_games_sql(rows),
        if commit { "; COMMIT" } else { "" },
    )
}

/// UPDATE ... FROM a list of rows (id, expected version, then the columns
/// of UPDATE_PLAY in order).
fn sqlite_update_games_sql(rows: usize) -> String {
    const NAMES: [&str; 18] = [
        "gid",
        "expected",
        "status",
        "ply",
        "fen",
        "side_to_move",
        "invite",
        "white_ms",
        "black_ms",
        "turn_started_at",
        "deadline_at",
        "draw_offer",
        "result",
        "winner",
        "reason",
        "margin",
        "ai_to_move",
        "updated_at",
    ];
    let rows = placeholder_rows(rows, NAMES.len(), |p| {
        let columns: Vec<String> = p.iter().zip(NAMES).map(|(p, n)| format!("{p} AS {n}")).collect();
        format!("SELECT {}", columns.join(", "))
    });
    format!(
        "UPDATE games SET version = version + 1, status = v.status, ply = v.ply, fen = v.fen, \
         side_to_move = v.side_to_move, invite = v.invite, white_ms = v.white_ms, black_ms = v.black_ms, \
         turn_started_at = v.turn_started_at, deadline_at = v.deadline_at, draw_offer = v.draw_offer, \
         result = v.result, winner = v.winner, reason = v.reason, margin = v.margin, ai_to_move = v.ai_to_move, \
         updated_at = v.updated_at, ai_claimed_by = NULL, ai_claimed_at = NULL \
         FROM ({}) AS v WHERE games.id = v.gid AND games.version = v.expected RETURNING id",
        rows.replace(", SELECT", " UNION ALL SELECT")
    )
}

/// SQLite: the moves of different games in one call (`begin`: opening the
/// transaction, `commit`: committing it): the moves of the games still at
/// the version expected, then those games' guarded state changes, which
/// are the same games (one writer, one transaction, one move per game in
/// a chunk). A move already stored for its ply fails the statement, and
/// the batch is then committed one by one (`write_batches`): a second move
/// for the same turn never lands, whatever the version said. Returns the
/// games that changed.
async fn sqlite_moves<'j>(
    conn: &mut SqliteConnection,
    jobs: &[&'j Job],
    begin: bool,
    commit: bool,
) -> Result<HashSet<&'j str>> {
    let sql = sqlite_moves_text(jobs.len(), begin, commit);
    let mut q = sqlx::query(&sql);
    for job in jobs {
        let m = job.append.as_ref().ok_or_else(|| corrupt_batch(&job.id))?;
        q = q
            .bind(&job.id)
            .bind(job.expected_version)
            .bind(m.ply)
            .bind(&m.notation)
            .bind(m.played_at)
            .bind(m.white_ms)
            .bind(m.black_ms);
    }
    for job in jobs {
        q = bind_play!(q.bind(&job.id).bind(job.expected_version), job.state);
    }
    let changed: HashSet<String> =
        q.fetch_all(&mut *conn).await?.iter().map(|r| r.try_get("id")).collect::<sqlx::Result<_>>()?;
    Ok(jobs.iter().filter(|j| changed.contains(&j.id)).map(|j| j.id.as_str()).collect())
}

fn corrupt_batch(id: &str) -> StoreError {
    StoreError::Corrupt { id: id.to_string(), problem: "a batched move without its move".into() }
}

/// SQLite: one commit of a batch on its own (a change without a move, or
/// a game's second commit in the batch).
async fn sqlite_single(conn: &mut SqliteConnection, job: &Job) -> Result<bool> {
    let Some(m) = &job.append else {
        let q = sqlx::query(UPDATE_STATE).bind(&job.id).bind(job.expected_version);
        return Ok(bind_state!(q, job.state).execute(&mut *conn).await?.rows_affected() == 1);
    };
    // The move first: a move already stored for this ply refuses the
    // commit without touching the game.
    let inserted = bind_move!(sqlx::query(INSERT_MOVE), &job.id, m).execute(&mut *conn).await?;
    if inserted.rows_affected() != 1 {
        return Ok(false);
    }
    let q = sqlx::query(UPDATE_PLAY).bind(&job.id).bind(job.expected_version);
    let done = bind_play!(q, job.state).execute(&mut *conn).await?;
    if done.rows_affected() != 1 {
        // Lost the compare-and-swap: take the move out again.
        sqlx::query("DELETE FROM moves WHERE game_id = $1 AND ply = $2")
            .bind(&job.id)
            .bind(m.ply)
            .execute(&mut *conn)
            .await?;
    }
    Ok(done.rows_affected() == 1)
}
