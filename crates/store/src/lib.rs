//! Monte's game storage: one API over SQLite (the default, an embedded file
//! in WAL mode) and PostgreSQL, through sqlx with embedded migrations.
//!
//! The store knows nothing of the rules: it keeps what the server decided
//! (the game row and its moves) and guards every write with a
//! compare-and-swap on the game's `version`, so two conflicting writes for
//! the same turn cannot both succeed. On PostgreSQL every committed change
//! is announced with `NOTIFY` (inside the same transaction, so only
//! committed changes are announced) for the other server instances.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, LazyLock, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use sqlx::pool::PoolConnectionMetadata;
use sqlx::postgres::{PgConnection, PgListener, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{ConnectOptions, Connection, Executor, Row};
use tokio::sync::{Mutex as AsyncMutex, mpsc, oneshot};

/// The PostgreSQL channel that carries change notices.
pub const CHANNEL: &str = "monte_games";

/// A storage error: the database could not be reached or refused a query.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("unsupported database URL `{0}` (expected sqlite:PATH or postgres://...)")]
    Url(String),
    #[error("corrupt row in game {id}: {problem}")]
    Corrupt { id: String, problem: String },
    #[error(
        "the SQLite write-ahead log {0} was removed or replaced while the server ran: \
         writes are refused until the server is restarted"
    )]
    WalLost(String),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// Which database is behind a [`Store`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    Sqlite,
    Postgres,
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Sqlite => "sqlite",
            BackendKind::Postgres => "postgres",
        }
    }
}

#[derive(Clone, Debug)]
enum Backend {
    /// SQLite's read connections.
    Sqlite(SqlitePool),
    /// SQLite's one write connection (see [`Pools`]).
    SqliteWriter(Arc<AsyncMutex<Writer>>),
    Postgres(PgPool),
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
struct Writer {
    conn: Option<SqliteConnection>,
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
    fault: Option<faults::SqliteFault>,
}

impl Writer {
    /// The connection, opened if there is none.
    async fn connection(&mut self) -> Result<&mut SqliteConnection> {
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
    async fn failed(&mut self) {
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
    async fn check_wal(&mut self) -> Result<()> {
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
}

/// The device and inode of the file at `path`.
fn wal_identity(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// A future's output as a [`Result`] of this crate: lets the bodies of
/// [`on_pool!`] use `?` on sqlx's errors.
fn attempt<T, F: Future<Output = Result<T>>>(f: F) -> F {
    f
}

/// Writes to SQLite go through one connection (the file has one writer at
/// a time anyway): taken in turn (a fair lock), instead of several
/// connections taking turns through SQLite's sleeping busy handler.
///
/// That connection is held outside sqlx's pool: the pool pings a
/// connection when it is taken and again when it is given back (each a
/// round trip to the connection's thread, and a task spawned), which cost
/// more than a batch's statements.
#[derive(Clone, Debug)]
struct Pools {
    /// All writes (SQLite); every query (PostgreSQL) but the group-commit
    /// writers', which hold connections of their own.
    write: Backend,
    /// Reads (SQLite: several connections, which WAL lets run beside the writer).
    read: Backend,
}

/// Tests a pooled connection before it is handed out only if it has been
/// idle a while: sqlx pings it on every acquire otherwise (a round trip
/// per query), and it pings it anyway when it comes back to the pool.
fn ping_if_idle<C: Connection>(
    conn: &mut C,
    meta: PoolConnectionMetadata,
) -> futures_util::future::BoxFuture<'_, sqlx::Result<bool>> {
    Box::pin(async move {
        if meta.idle_for > Duration::from_secs(30) {
            conn.ping().await?;
        }
        Ok(true)
    })
}

/// The [`Result`] of `$body` (an expression of type `Result<T>`, in which
/// `?` and `return` stay inside) with `$pool` bound to the backend's pool:
/// the SQL is the same on both (`$N` placeholders work on SQLite too),
/// only the types differ. A write's outcome is recorded for
/// [`Store::health`]; a failure on SQLite's writer resets it ([`Writer`]).
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {{
        let done = on_pool!(@ &$store.pools.write, $pool => $body);
        $store.health.record(&done);
        done
    }};
    (read $store:expr, $pool:ident => $body:expr) => {
        on_pool!(@ &$store.pools.read, $pool => $body)
    };
    (@ $backend:expr, $pool:ident => $body:expr) => {
        match $backend {
            Backend::Sqlite($pool) => attempt(async { $body }).await,
            Backend::SqliteWriter(writer) => {
                let mut guard = writer.lock().await;
                match guard.connection().await {
                    Err(e) => Err(e),
                    Ok($pool) => {
                        let done = attempt(async { $body }).await;
                        match done {
                            Ok(_) => guard.check_wal().await.and(done),
                            Err(_) => {
                                guard.failed().await;
                                done
                            }
                        }
                    }
                }
            }
            Backend::Postgres($pool) => attempt(async { $body }).await,
        }
    };
}

/// One seat of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRow {
    /// `human` or `ai:LEVEL`.
    pub player: String,
    pub name: Option<String>,
    /// SHA-256 (hex) of the seat's secret token; `None` while the seat is open
    /// (and for AI seats).
    pub token_hash: Option<String>,
}

/// Everything about a game that changes as it is played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameState {
    /// `waiting` (a seat is open), `active` or `over`.
    pub status: String,
    /// Moves played.
    pub ply: i64,
    pub fen: String,
    /// `white` or `black`.
    pub side_to_move: String,
    pub white: SeatRow,
    pub black: SeatRow,
    /// Invite code while a seat is open.
    pub invite: Option<String>,
    /// Time left on each clock at the start of the current turn.
    pub white_ms: Option<i64>,
    pub black_ms: Option<i64>,
    /// When the current turn's clock started running (none while stopped).
    pub turn_started_at: Option<i64>,
    /// When the side to move runs out of time (none without a running clock).
    pub deadline_at: Option<i64>,
    /// The side that offers a draw.
    pub draw_offer: Option<String>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: Option<String>,
    pub winner: Option<String>,
    pub reason: Option<String>,
    pub margin: Option<i64>,
    /// An AI seat is to move in an active game.
    pub ai_to_move: bool,
    pub updated_at: i64,
}

/// A move as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// 0 for the first move of the game.
    pub ply: i64,
    pub notation: String,
    pub played_at: i64,
    /// Clocks after the move (with the increment).
    pub white_ms: Option<i64>,
    pub black_ms: Option<i64>,
}

/// A game with its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub id: String,
    /// `salta` or `focus`.
    pub kind: String,
    pub rules: String,
    pub start_fen: String,
    pub clock_initial_ms: Option<i64>,
    pub clock_increment_ms: Option<i64>,
    pub created_at: i64,
    /// Open to anyone (chosen at creation): listed by [`ListFilter::Open`]
    /// and joined by id; otherwise only through the invite code.
    pub listed: bool,
    pub version: i64,
    pub state: GameState,
    /// In order of ply; empty in lists.
    pub moves: Vec<MoveRow>,
}

/// A change to commit atomically: the new state, moves taken back (every
/// move from `truncate_from` on) and moves added.
///
/// A move does not change the seats: a commit that adds exactly one move
/// and takes none back writes every column of the state but the seats
/// (`white`, `black`), which keeps their indexes out of the hot path.
#[derive(Clone, Debug)]
pub struct Update<'a> {
    pub state: &'a GameState,
    pub truncate_from: Option<i64>,
    pub append: &'a [MoveRow],
}

/// Which games to list.
#[derive(Clone, Debug)]
pub enum ListFilter {
    /// Games open to anyone with an open seat.
    Open,
    /// Games being played.
    Live,
    /// Games in which one of these token hashes holds a seat.
    Seats(Vec<String>),
}

/// A change announced by an instance (PostgreSQL only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Game `id` reached `version` through instance `instance`.
    Changed { id: String, version: i64, instance: String },
    /// The listening connection was lost and re-established: notices may
    /// have been missed.
    Resync,
}

/// The storage: a connection pool of either backend.
#[derive(Clone, Debug)]
pub struct Store {
    pools: Pools,
    instance: String,
    /// The group-commit writers' queue (see [`Store::commit`]).
    writes: mpsc::UnboundedSender<Job>,
    health: Arc<Health>,
}

/// How long a failed write keeps the store reported degraded.
pub const DEGRADED_FOR: Duration = Duration::from_secs(5);

/// The outcome of the latest failed write.
#[derive(Debug, Default)]
struct Health {
    last_failure: Mutex<Option<(Instant, String)>>,
    /// Writes are refused until a restart ([`StoreError::WalLost`]).
    refusing: std::sync::atomic::AtomicBool,
}

impl Health {
    fn record<T>(&self, done: &Result<T>) {
        if let Err(e) = done {
            if matches!(e, StoreError::WalLost(_)) {
                self.refusing.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            *self.last_failure.lock().unwrap_or_else(|p| p.into_inner()) = Some((Instant::now(), e.to_string()));
        }
    }
}

/// Whether the store takes writes, for `/api/health`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreHealth {
    Ok,
    /// A write failed less than [`DEGRADED_FOR`] ago (`for_ms` before
    /// this answer), or writes are refused until a restart (`lasting`).
    Degraded {
        error: String,
        for_ms: u64,
        lasting: bool,
    },
}

const GAME_COLUMNS: &str = "id, kind, rules, start_fen, clock_initial_ms, clock_increment_ms, created_at, version, \
     status, ply, fen, side_to_move, white_player, white_name, white_token, black_player, black_name, black_token, \
     invite, white_ms, black_ms, turn_started_at, deadline_at, draw_offer, result, winner, reason, margin, \
     ai_to_move, ai_claimed_by, ai_claimed_at, updated_at, listed";

/// Binds the mutable state columns in the order of `UPDATE_STATE` and
/// `INSERT_GAME` (placeholders $3..$24): those of `bind_play!`, then the
/// seats.
macro_rules! bind_state {
    ($q:expr, $s:expr) => {
        bind_play!($q, $s)
            .bind(&$s.white.player)
            .bind(&$s.white.name)
            .bind(&$s.white.token_hash)
            .bind(&$s.black.player)
            .bind(&$s.black.name)
            .bind(&$s.black.token_hash)
    };
}

/// Compare-and-swap of the whole state; the AI claim is released because
/// the position changed.
const UPDATE_STATE: &str = "UPDATE games SET version = version + 1, status = $3, ply = $4, fen = $5, \
     side_to_move = $6, invite = $7, white_ms = $8, black_ms = $9, turn_started_at = $10, deadline_at = $11, \
     draw_offer = $12, result = $13, winner = $14, reason = $15, margin = $16, ai_to_move = $17, updated_at = $18, \
     white_player = $19, white_name = $20, white_token = $21, black_player = $22, black_name = $23, \
     black_token = $24, ai_claimed_by = NULL, ai_claimed_at = NULL \
     WHERE id = $1 AND version = $2";

/// The compare-and-swap of a move: [`UPDATE_STATE`] without the seat
/// columns (a move does not change them; see [`Update`]), bound by
/// `bind_play!` (placeholders $3..$18).
const UPDATE_PLAY: &str = "UPDATE games SET version = version + 1, status = $3, ply = $4, fen = $5, \
     side_to_move = $6, invite = $7, white_ms = $8, black_ms = $9, turn_started_at = $10, deadline_at = $11, \
     draw_offer = $12, result = $13, winner = $14, reason = $15, margin = $16, ai_to_move = $17, updated_at = $18, \
     ai_claimed_by = NULL, ai_claimed_at = NULL \
     WHERE id = $1 AND version = $2";

/// Binds the columns of `UPDATE_PLAY` in order.
macro_rules! bind_play {
    ($q:expr, $s:expr) => {
        $q.bind(&$s.status)
            .bind($s.ply)
            .bind(&$s.fen)
            .bind(&$s.side_to_move)
            .bind(&$s.invite)
            .bind($s.white_ms)
            .bind($s.black_ms)
            .bind($s.turn_started_at)
            .bind($s.deadline_at)
            .bind(&$s.draw_offer)
            .bind(&$s.result)
            .bind(&$s.winner)
            .bind(&$s.reason)
            .bind($s.margin)
            .bind($s.ai_to_move as i64)
            .bind($s.updated_at)
    };
}

const INSERT_GAME: &str = "INSERT INTO games (id, version, status, ply, fen, side_to_move, invite, white_ms, \
     black_ms, turn_started_at, deadline_at, draw_offer, result, winner, reason, margin, ai_to_move, updated_at, \
     white_player, white_name, white_token, black_player, black_name, black_token, kind, rules, start_fen, \
     clock_initial_ms, clock_increment_ms, created_at, listed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
     $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31)";

/// Decodes a row of `GAME_COLUMNS` (the same code for both backends).
macro_rules! decode_game {
    ($row:expr) => {{
        let r = $row;
        let seat = |p: &str| -> std::result::Result<SeatRow, sqlx::Error> {
            Ok(SeatRow {
                player: r.try_get(format!("{p}_player").as_str())?,
                name: r.try_get(format!("{p}_name").as_str())?,
                token_hash: r.try_get(format!("{p}_token").as_str())?,
            })
        };
        let decoded: std::result::Result<GameRow, sqlx::Error> = (|| {
            Ok(GameRow {
                id: r.try_get("id")?,
                kind: r.try_get("kind")?,
                rules: r.try_get("rules")?,
                start_fen: r.try_get("start_fen")?,
                clock_initial_ms: r.try_get("clock_initial_ms")?,
                clock_increment_ms: r.try_get("clock_increment_ms")?,
                created_at: r.try_get("created_at")?,
                listed: r.try_get::<i64, _>("listed")? != 0,
                version: r.try_get("version")?,
                state: GameState {
                    status: r.try_get("status")?,
                    ply: r.try_get("ply")?,
                    fen: r.try_get("fen")?,
                    side_to_move: r.try_get("side_to_move")?,
                    white: seat("white")?,
                    black: seat("black")?,
                    invite: r.try_get("invite")?,
                    white_ms: r.try_get("white_ms")?,
                    black_ms: r.try_get("black_ms")?,
                    turn_started_at: r.try_get("turn_started_at")?,
                    deadline_at: r.try_get("deadline_at")?,
                    draw_offer: r.try_get("draw_offer")?,
                    result: r.try_get("result")?,
                    winner: r.try_get("winner")?,
                    reason: r.try_get("reason")?,
                    margin: r.try_get("margin")?,
                    ai_to_move: r.try_get::<i64, _>("ai_to_move")? != 0,
                    updated_at: r.try_get("updated_at")?,
                },
                moves: Vec::new(),
            })
        })();
        decoded
    }};
}

impl Store {
    /// Connects to `url` (`sqlite:PATH`, `sqlite::memory:`, a plain file
    /// path, or `postgres://...`), creating the SQLite file if missing, and
    /// brings the schema up to date. `instance` names this server instance
    /// in notices and AI claims.
    pub async fn connect(url: &str, instance: &str) -> Result<Store> {
        let (pools, writers) = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = PgPoolOptions::new()
                .max_connections(16)
                .acquire_timeout(Duration::from_secs(10))
                .test_before_acquire(false)
                .before_acquire(ping_if_idle)
                .connect(url)
                .await?;
            sqlx::migrate!("./migrations/postgres").run(&pool).await?;
            let backend = Backend::Postgres(pool);
            // Several writers: each batch waits for its commit's WAL flush,
            // and the next batches are built meanwhile.
            (Pools { write: backend.clone(), read: backend }, 4)
        } else {
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
            (Pools { write, read }, 1)
        };
        let (writes, queue) = mpsc::unbounded_channel();
        let queue = Arc::new(AsyncMutex::new(queue));
        let store = Store { pools, instance: instance.to_string(), writes, health: Arc::default() };
        for _ in 0..writers {
            tokio::spawn(write_batches(store.pools.write.clone(), store.instance.clone(), queue.clone()));
        }
        Ok(store)
    }

    pub fn kind(&self) -> BackendKind {
        match self.pools.write {
            Backend::Sqlite(_) | Backend::SqliteWriter(_) => BackendKind::Sqlite,
            Backend::Postgres(_) => BackendKind::Postgres,
        }
    }

    /// This instance's name.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// Closes the pools (on SQLite, after copying the WAL into the
    /// database file and emptying it). Waits until every pooled
    /// connection is back, including a [`Listener`]'s: drop listeners first.
    pub async fn close(&self) {
        // Readers first: the writer's last checkpoint finds none.
        for backend in [&self.pools.read, &self.pools.write] {
            match backend {
                Backend::Sqlite(pool) => pool.close().await,
                Backend::SqliteWriter(writer) => {
                    let mut writer = writer.lock().await;
                    writer.closed = true;
                    if let Some(mut conn) = writer.conn.take() {
                        // Every commit copied into the database file, and
                        // the WAL emptied: the file alone is the database.
                        // The checkpoint task may be in the middle of one
                        // of its own (SQLite answers busy): tried again
                        // for up to a second.
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
                Backend::Postgres(pool) => pool.close().await,
            }
        }
    }

    /// A cheap query that tells whether the database answers.
    pub async fn ping(&self) -> Result<()> {
        on_pool!(read self, pool => {
            pool.execute("SELECT 1").await?;
            Ok(())
        })
    }

    /// Whether writes went through lately (see [`StoreHealth`]).
    pub fn health(&self) -> StoreHealth {
        let lasting = self.health.refusing.load(std::sync::atomic::Ordering::Relaxed);
        let last = self.health.last_failure.lock().unwrap_or_else(|p| p.into_inner());
        match &*last {
            Some((at, error)) if lasting || at.elapsed() < DEGRADED_FOR => {
                StoreHealth::Degraded { error: error.clone(), for_ms: at.elapsed().as_millis() as u64, lasting }
            }
            _ => StoreHealth::Ok,
        }
    }

    /// Stores a new game (at version 1, without moves).
    pub async fn insert_game(&self, game: &GameRow) -> Result<()> {
        let s = &game.state;
        on_pool!(self, pool => {
            let q = sqlx::query(INSERT_GAME).bind(&game.id).bind(game.version);
            bind_state!(q, s)
                .bind(&game.kind)
                .bind(&game.rules)
                .bind(&game.start_fen)
                .bind(game.clock_initial_ms)
                .bind(game.clock_increment_ms)
                .bind(game.created_at)
                .bind(game.listed as i64)
                .execute(pool)
                .await?;
            Ok(())
        })
    }

    /// A game with all its moves, or `None`.
    pub async fn load_game(&self, id: &str) -> Result<Option<GameRow>> {
        let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1");
        on_pool!(read self, pool => {
            // Read the row and its moves from one snapshot (PostgreSQL's
            // default READ COMMITTED takes a new snapshot per statement).
            let mut tx = pool.begin().await?;
            if self.kind() == BackendKind::Postgres {
                sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ").execute(&mut *tx).await?;
            }
            let Some(row) = sqlx::query(&sql).bind(id).fetch_optional(&mut *tx).await? else {
                return Ok(None);
            };
            let mut game = decode_game!(&row)?;
            let rows = sqlx::query(
                "SELECT ply, notation, played_at, white_ms, black_ms FROM moves WHERE game_id = $1 ORDER BY ply",
            )
            .bind(id)
            .fetch_all(&mut *tx)
            .await?;
            tx.commit().await?;
            for r in rows {
                game.moves.push(MoveRow {
                    ply: r.try_get("ply")?,
                    notation: r.try_get("notation")?,
                    played_at: r.try_get("played_at")?,
                    white_ms: r.try_get("white_ms")?,
                    black_ms: r.try_get("black_ms")?,
                });
            }
            if game.moves.len() as i64 != game.state.ply || game.moves.iter().enumerate().any(|(i, m)| m.ply != i as i64)
            {
                return Err(StoreError::Corrupt {
                    id: id.to_string(),
                    problem: format!("{} moves stored for ply {}", game.moves.len(), game.state.ply),
                });
            }
            Ok(Some(game))
        })
    }

    /// A game's version alone (a cheap check that a copy is current), or
    /// `None` when there is no such game.
    pub async fn game_version(&self, id: &str) -> Result<Option<i64>> {
        on_pool!(read self, pool => {
            let row = sqlx::query("SELECT version FROM games WHERE id = $1").bind(id).fetch_optional(pool).await?;
            Ok(match row {
                Some(r) => Some(r.try_get("version")?),
                None => None,
            })
        })
    }

    /// The id of the game an invite code opens.
    pub async fn find_invite(&self, code: &str) -> Result<Option<String>> {
        on_pool!(read self, pool => {
            let row = sqlx::query("SELECT id FROM games WHERE invite = $1").bind(code).fetch_optional(pool).await?;
            Ok(match row {
                Some(r) => Some(r.try_get("id")?),
                None => None,
            })
        })
    }

    /// Commits `update` if the game is still at `expected_version`; returns
    /// whether it was applied (false: another write came first, nothing
    /// changed). The state, the moves and the notice are one transaction.
    ///
    /// Moves and other changes that add at most one move are group
    /// committed: writer tasks take whatever commits are waiting (of
    /// different games) and make them one transaction, each with its own
    /// compare-and-swap; this returns once that transaction is committed.
    /// Take-backs go alone.
    pub async fn commit(&self, id: &str, expected_version: i64, update: &Update<'_>) -> Result<bool> {
        let done = self.commit_unrecorded(id, expected_version, update).await;
        self.health.record(&done);
        done
    }

    async fn commit_unrecorded(&self, id: &str, expected_version: i64, update: &Update<'_>) -> Result<bool> {
        if update.truncate_from.is_some() || update.append.len() > 1 {
            return commit_alone(&self.pools.write, &self.instance, id, expected_version, update).await;
        }
        let (reply, answer) = oneshot::channel();
        let job = Job {
            id: id.to_string(),
            expected_version,
            state: update.state.clone(),
            append: update.append.first().cloned(),
            reply,
        };
        if self.writes.send(job).is_err() {
            return Err(StoreError::Database(sqlx::Error::PoolClosed));
        }
        answer.await.unwrap_or(Err(StoreError::Database(sqlx::Error::PoolClosed)))
    }

    /// Games for a list, newest change first, without their moves.
    pub async fn list_games(&self, filter: &ListFilter, limit: i64) -> Result<Vec<GameRow>> {
        let (condition, hashes) = match filter {
            ListFilter::Open => ("status = 'waiting' AND listed = 1".to_string(), &[][..]),
            ListFilter::Live => ("status = 'active'".to_string(), &[][..]),
            ListFilter::Seats(hashes) => {
                if hashes.is_empty() {
                    return Ok(Vec::new());
                }
                let marks: Vec<String> = (0..hashes.len()).map(|i| format!("${}", i + 2)).collect();
                let list = marks.join(", ");
                (format!("(white_token IN ({list}) OR black_token IN ({list}))"), &hashes[..])
            }
        };
        let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE {condition} ORDER BY updated_at DESC, id LIMIT $1");
        on_pool!(read self, pool => {
            let mut q = sqlx::query(&sql).bind(limit);
            for h in hashes {
                q = q.bind(h);
            }
            let rows = q.fetch_all(pool).await?;
            rows.iter().map(|r| decode_game!(r).map_err(StoreError::from)).collect()
        })
    }

    /// Claims the AI move of game `id` at `version` for this instance, unless
    /// another instance holds a claim younger than `lease_ms`.
    pub async fn claim_ai(&self, id: &str, version: i64, now: i64, lease_ms: i64) -> Result<bool> {
        on_pool!(self, pool => {
            let done = sqlx::query(
                "UPDATE games SET ai_claimed_by = $3, ai_claimed_at = $4 WHERE id = $1 AND version = $2 \
                 AND ai_to_move = 1 AND status = 'active' AND (ai_claimed_by IS NULL OR ai_claimed_at < $5)",
            )
            .bind(id)
            .bind(version)
            .bind(&self.instance)
            .bind(now)
            .bind(now - lease_ms)
            .execute(pool)
            .await?;
            Ok(done.rows_affected() == 1)
        })
    }

    /// Releases AI claims at start-up: all of them on SQLite (one process
    /// owns the file, so every claim is a dead process's), those made under
    /// this instance's name on PostgreSQL (a restarted instance).
    pub async fn release_claims(&self) -> Result<u64> {
        let all = self.kind() == BackendKind::Sqlite;
        on_pool!(self, pool => {
            let done = sqlx::query(
                "UPDATE games SET ai_claimed_by = NULL, ai_claimed_at = NULL \
                 WHERE ai_claimed_by IS NOT NULL AND ($1 OR ai_claimed_by = $2)",
            )
            .bind(all)
            .bind(&self.instance)
            .execute(pool)
            .await?;
            Ok(done.rows_affected())
        })
    }

    /// Games where an AI is to move and nobody holds a live claim.
    pub async fn pending_ai(&self, now: i64, lease_ms: i64, limit: i64) -> Result<Vec<String>> {
        on_pool!(read self, pool => {
            let rows = sqlx::query(
                "SELECT id FROM games WHERE ai_to_move = 1 AND status = 'active' \
                 AND (ai_claimed_by IS NULL OR ai_claimed_at < $1) ORDER BY updated_at LIMIT $2",
            )
            .bind(now - lease_ms)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter().map(|r| r.try_get("id").map_err(StoreError::from)).collect()
        })
    }

    /// Active games whose side to move has run out of time by `now`.
    pub async fn flagged(&self, now: i64, limit: i64) -> Result<Vec<String>> {
        on_pool!(read self, pool => {
            let rows = sqlx::query(
                "SELECT id FROM games WHERE deadline_at IS NOT NULL AND deadline_at <= $1 AND status = 'active' \
                 ORDER BY deadline_at LIMIT $2",
            )
            .bind(now)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter().map(|r| r.try_get("id").map_err(StoreError::from)).collect()
        })
    }

    /// Records that the service is alive at `now`. At start-up (`starting`)
    /// a gap longer than `down_after_ms` since the last heartbeat means the
    /// whole service was down: the running clocks of all active games are
    /// moved forward by the gap, so nobody is charged for the downtime.
    /// Returns the downtime credited (0 if none).
    pub async fn heartbeat(&self, now: i64, starting: bool, down_after_ms: i64) -> Result<i64> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            // Take the service row's lock first (the update), so two
            // instances starting together credit the downtime once.
            sqlx::query("INSERT INTO service (id, heartbeat_at) VALUES (1, $1) ON CONFLICT (id) DO NOTHING")
                .bind(now)
                .execute(&mut *tx)
                .await?;
            let last: i64 = sqlx::query("UPDATE service SET heartbeat_at = heartbeat_at WHERE id = 1 RETURNING heartbeat_at")
                .fetch_one(&mut *tx)
                .await?
                .try_get("heartbeat_at")?;
            let gap = now - last;
            let mut credited = 0;
            if starting && gap > down_after_ms {
                sqlx::query(
                    "UPDATE games SET turn_started_at = turn_started_at + $1, deadline_at = deadline_at + $1, \
                     version = version + 1 WHERE status = 'active' AND deadline_at IS NOT NULL",
                )
                .bind(gap)
                .execute(&mut *tx)
                .await?;
                credited = gap;
            }
            sqlx::query("UPDATE service SET heartbeat_at = $1 WHERE id = 1 AND heartbeat_at < $1")
                .bind(now)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(credited)
        })
    }

    /// Change notices from all instances (PostgreSQL); `None` on SQLite,
    /// where one process owns the file and needs none.
    pub async fn listen(&self) -> Result<Option<Listener>> {
        match &self.pools.write {
            Backend::Sqlite(_) | Backend::SqliteWriter(_) => Ok(None),
            Backend::Postgres(pool) => {
                let mut listener = PgListener::connect_with(pool).await?;
                listener.listen(CHANNEL).await?;
                Ok(Some(Listener { inner: listener }))
            }
        }
    }
}

/// Commits one update in a transaction of its own (see [`Store::commit`]).
async fn commit_alone(
    backend: &Backend,
    instance: &str,
    id: &str,
    expected_version: i64,
    update: &Update<'_>,
) -> Result<bool> {
    let s = update.state;
    on_pool!(@ backend, pool => {
        let mut tx = pool.begin().await?;
        // The guarded write comes first: it takes the row's write lock.
        let q = sqlx::query(UPDATE_STATE).bind(id).bind(expected_version);
        let done = bind_state!(q, s).execute(&mut *tx).await?;
        if done.rows_affected() != 1 {
            tx.rollback().await?;
            return Ok(false);
        }
        if let Some(from) = update.truncate_from {
            sqlx::query("DELETE FROM moves WHERE game_id = $1 AND ply >= $2")
                .bind(id)
                .bind(from)
                .execute(&mut *tx)
                .await?;
        }
        for m in update.append {
            let inserted = sqlx::query(
                "INSERT INTO moves (game_id, ply, notation, played_at, white_ms, black_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            )
            .bind(id)
            .bind(m.ply)
            .bind(&m.notation)
            .bind(m.played_at)
            .bind(m.white_ms)
            .bind(m.black_ms)
            .execute(&mut *tx)
            .await?;
            if inserted.rows_affected() != 1 {
                // (game_id, ply) is unique: a second move for the same
                // turn never lands, whatever the version said.
                tx.rollback().await?;
                return Ok(false);
            }
        }
        if matches!(backend, Backend::Postgres(_)) {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(CHANNEL)
                .bind(format!("{id} {} {instance}", expected_version + 1))
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(true)
    })
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

/// A commit waiting for a group-commit writer.
#[derive(Debug)]
struct Job {
    id: String,
    expected_version: i64,
    state: GameState,
    append: Option<MoveRow>,
    reply: oneshot::Sender<Result<bool>>,
}

/// The most commits in one transaction.
const MAX_BATCH: usize = 256;

const INSERT_MOVE: &str = "INSERT INTO moves (game_id, ply, notation, played_at, white_ms, black_ms) \
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING";

/// PostgreSQL: a move in one statement (one round trip): the guarded state
/// change, the move if it applied, and the notice. A move already stored
/// for that ply is a unique violation, which fails the whole statement.
static MOVE_PG: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH upd AS ({UPDATE_PLAY} RETURNING id), \
         ins AS (INSERT INTO moves (game_id, ply, notation, played_at, white_ms, black_ms) \
         SELECT id, $19, $20, $21, $22, $23 FROM upd) \
         SELECT (SELECT count(*) FROM upd) AS updated, (SELECT pg_notify($24, $25)::text FROM upd) AS notified"
    )
});

/// PostgreSQL: a change without a move, and its notice, in one statement.
static STATE_PG: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH upd AS ({UPDATE_STATE} RETURNING id) \
         SELECT (SELECT count(*) FROM upd) AS updated, (SELECT pg_notify($25, $26)::text FROM upd) AS notified"
    )
});

/// A group-commit writer: takes every waiting commit (up to
/// [`MAX_BATCH`]), commits them as one transaction, then answers each.
async fn write_batches(backend: Backend, instance: String, queue: Arc<AsyncMutex<mpsc::UnboundedReceiver<Job>>>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    // PostgreSQL: this writer's own connection, opened when first needed
    // and dropped after an error (it may be broken). Taken from the pool
    // for each batch it was pinged twice (see `Pools`).
    let mut own: Option<PgConnection> = None;
    loop {
        {
            let mut queue = queue.lock().await;
            match queue.recv().await {
                Some(job) => batch.push(job),
                None => return,
            }
            while batch.len() < MAX_BATCH {
                match queue.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
        }
        let written = write_batch(&backend, &mut own, &instance, &batch).await;
        if written.is_err() {
            own = None;
        }
        match written {
            Ok(applied) => {
                for (job, applied) in batch.drain(..).zip(applied) {
                    let _ = job.reply.send(Ok(applied));
                }
            }
            // Committed, but the WAL it went to is gone: nothing more
            // is written (see `Writer::check_wal`).
            Err(StoreError::WalLost(path)) => {
                for job in batch.drain(..) {
                    let _ = job.reply.send(Err(StoreError::WalLost(path.clone())));
                }
            }
            // Nothing of the batch was committed: each commit alone, so
            // that each gets its own answer (and one bad commit cannot
            // fail the others).
            Err(_) => {
                for job in batch.drain(..) {
                    let append: Vec<MoveRow> = job.append.into_iter().collect();
                    let update = Update { state: &job.state, truncate_from: None, append: &append };
                    let _ =
                        job.reply.send(commit_alone(&backend, &instance, &job.id, job.expected_version, &update).await);
                }
            }
        }
    }
}

/// Commits `batch` as one transaction: for each commit whether it applied.
/// An error means that nothing was committed, but for
/// [`StoreError::WalLost`] (committed, and maybe not durable).
///
/// The moves of different games are written together, a few statements
/// for the whole batch (on PostgreSQL one); other changes, and a second
/// commit for a game already in the batch, follow one by one.
async fn write_batch(
    backend: &Backend,
    own: &mut Option<PgConnection>,
    instance: &str,
    batch: &[Job],
) -> Result<Vec<bool>> {
    let mut seen = HashSet::new();
    let (moves, others): (Vec<&Job>, Vec<&Job>) =
        batch.iter().partition(|job| job.append.is_some() && seen.insert(job.id.as_str()));
    let mut applied: HashSet<&str> = HashSet::new();
    let mut others_applied = Vec::with_capacity(others.len());
    match backend {
        Backend::SqliteWriter(writer) => {
            let mut guard = writer.lock().await;
            let conn = guard.connection().await?;
            match sqlite_batch(conn, &moves, &others, &mut others_applied).await {
                Ok(done) => applied = done,
                Err(e) => {
                    guard.failed().await;
                    return Err(e);
                }
            }
            guard.check_wal().await?;
        }
        // Not used for writes (`Store::connect`); still right.
        Backend::Sqlite(pool) => {
            let mut conn = pool.acquire().await?;
            applied = sqlite_batch(&mut conn, &moves, &others, &mut others_applied).await?;
        }
        Backend::Postgres(pool) => {
            let conn = match own {
                Some(conn) => conn,
                None => own.insert(PgConnection::connect_with(&pool.connect_options()).await?),
            };
            if others.is_empty() {
                // One statement needs no transaction around it.
                applied = pg_moves(&mut *conn, instance, &moves).await?;
            } else {
                let mut tx = conn.begin().await?;
                if !moves.is_empty() {
                    applied = pg_moves(&mut *tx, instance, &moves).await?;
                }
                for job in &others {
                    others_applied.push(pg_commit_statement(&mut *tx, instance, job).await?);
                }
                tx.commit().await?;
            }
        }
    }
    // Answers in the batch's order.
    let mut others_applied = others_applied.into_iter();
    let mut seen = HashSet::new();
    Ok(batch
        .iter()
        .map(|job| {
            if job.append.is_some() && seen.insert(job.id.as_str()) {
                applied.contains(job.id.as_str())
            } else {
                others_applied.next().unwrap_or(false)
            }
        })
        .collect())
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
async fn sqlite_batch<'j>(
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

/// Most rows in one SQLite batch statement (`write_batch` cuts bigger
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
    let inserted = sqlx::query(INSERT_MOVE)
        .bind(&job.id)
        .bind(m.ply)
        .bind(&m.notation)
        .bind(m.played_at)
        .bind(m.white_ms)
        .bind(m.black_ms)
        .execute(&mut *conn)
        .await?;
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

/// PostgreSQL: the moves of different games in one statement, whatever
/// their number: the rows come as arrays, the guarded state changes, the
/// moves of the games that changed and their notices follow. A move
/// already stored for its ply is a unique violation, which fails the
/// statement (and the batch is then committed one by one).
static MOVES_PG: LazyLock<String> = LazyLock::new(|| {
    "WITH v AS (SELECT * FROM unnest($1::text[], $2::int8[], $3::text[], $4::int8[], $5::text[], $6::text[], \
     $7::text[], $8::int8[], $9::int8[], $10::int8[], $11::int8[], $12::text[], $13::text[], $14::text[], \
     $15::text[], $16::int8[], $17::int8[], $18::int8[], $19::int8[], $20::text[], $21::int8[], $22::int8[], \
     $23::int8[]) AS v(gid, expected, status, ply, fen, side_to_move, invite, white_ms, black_ms, \
     turn_started_at, deadline_at, draw_offer, result, winner, reason, margin, ai_to_move, updated_at, \
     mply, notation, played_at, mwhite_ms, mblack_ms)), \
     upd AS (UPDATE games SET version = games.version + 1, status = v.status, ply = v.ply, fen = v.fen, \
     side_to_move = v.side_to_move, invite = v.invite, white_ms = v.white_ms, black_ms = v.black_ms, \
     turn_started_at = v.turn_started_at, deadline_at = v.deadline_at, draw_offer = v.draw_offer, \
     result = v.result, winner = v.winner, reason = v.reason, margin = v.margin, ai_to_move = v.ai_to_move, \
     updated_at = v.updated_at, ai_claimed_by = NULL, ai_claimed_at = NULL \
     FROM v WHERE games.id = v.gid AND games.version = v.expected RETURNING games.id, games.version), \
     ins AS (INSERT INTO moves (game_id, ply, notation, played_at, white_ms, black_ms) \
     SELECT v.gid, v.mply, v.notation, v.played_at, v.mwhite_ms, v.mblack_ms FROM v JOIN upd ON upd.id = v.gid) \
     SELECT upd.id, pg_notify($24, upd.id || ' ' || upd.version || ' ' || $25)::text AS notified FROM upd"
        .to_string()
});

async fn pg_moves<'e, 'j>(
    executor: impl sqlx::PgExecutor<'e>,
    instance: &str,
    jobs: &[&'j Job],
) -> Result<HashSet<&'j str>> {
    macro_rules! column {
        ($f:expr) => {
            jobs.iter().map($f).collect::<Vec<_>>()
        };
    }
    let mv = |j: &&Job| {
        j.append.clone().unwrap_or(MoveRow {
            ply: -1,
            notation: String::new(),
            played_at: 0,
            white_ms: None,
            black_ms: None,
        })
    };
    let moves: Vec<MoveRow> = jobs.iter().map(mv).collect();
    let rows = sqlx::query(&MOVES_PG)
        .bind(column!(|j| j.id.clone()))
        .bind(column!(|j| j.expected_version))
        .bind(column!(|j| j.state.status.clone()))
        .bind(column!(|j| j.state.ply))
        .bind(column!(|j| j.state.fen.clone()))
        .bind(column!(|j| j.state.side_to_move.clone()))
        .bind(column!(|j| j.state.invite.clone()))
        .bind(column!(|j| j.state.white_ms))
        .bind(column!(|j| j.state.black_ms))
        .bind(column!(|j| j.state.turn_started_at))
        .bind(column!(|j| j.state.deadline_at))
        .bind(column!(|j| j.state.draw_offer.clone()))
        .bind(column!(|j| j.state.result.clone()))
        .bind(column!(|j| j.state.winner.clone()))
        .bind(column!(|j| j.state.reason.clone()))
        .bind(column!(|j| j.state.margin))
        .bind(column!(|j| j.state.ai_to_move as i64))
        .bind(column!(|j| j.state.updated_at))
        .bind(moves.iter().map(|m| m.ply).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| m.notation.clone()).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| m.played_at).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| m.white_ms).collect::<Vec<_>>())
        .bind(moves.iter().map(|m| m.black_ms).collect::<Vec<_>>())
        .bind(CHANNEL)
        .bind(instance)
        .fetch_all(executor)
        .await?;
    let changed: HashSet<String> = rows.iter().map(|r| r.try_get("id")).collect::<sqlx::Result<_>>()?;
    Ok(jobs.iter().filter(|j| changed.contains(&j.id)).map(|j| j.id.as_str()).collect())
}

/// Runs the one statement of a commit on PostgreSQL: whether it applied.
async fn pg_commit_statement<'e>(executor: impl sqlx::PgExecutor<'e>, instance: &str, job: &Job) -> Result<bool> {
    let notice = format!("{} {} {instance}", job.id, job.expected_version + 1);
    let row = match &job.append {
        Some(m) => {
            let q = sqlx::query(&MOVE_PG).bind(&job.id).bind(job.expected_version);
            bind_play!(q, job.state)
                .bind(m.ply)
                .bind(&m.notation)
                .bind(m.played_at)
                .bind(m.white_ms)
                .bind(m.black_ms)
                .bind(CHANNEL)
                .bind(notice)
                .fetch_one(executor)
                .await?
        }
        None => {
            let q = sqlx::query(&STATE_PG).bind(&job.id).bind(job.expected_version);
            bind_state!(q, job.state).bind(CHANNEL).bind(notice).fetch_one(executor).await?
        }
    };
    Ok(row.try_get::<i64, _>("updated")? == 1)
}

/// A stream of [`Notice`]s from PostgreSQL.
#[derive(Debug)]
pub struct Listener {
    inner: PgListener,
}

impl Listener {
    /// The next notice. A lost connection is re-established and reported as
    /// [`Notice::Resync`]; an error means it could not be re-established yet.
    pub async fn next(&mut self) -> Result<Notice> {
        loop {
            match self.inner.try_recv().await? {
                None => return Ok(Notice::Resync),
                Some(n) => {
                    let mut parts = n.payload().split(' ');
                    let (Some(id), Some(version), Some(instance)) = (parts.next(), parts.next(), parts.next()) else {
                        continue;
                    };
                    let Ok(version) = version.parse() else { continue };
                    return Ok(Notice::Changed { id: id.to_string(), version, instance: instance.to_string() });
                }
            }
        }
    }
}

pub mod testing;

#[cfg(feature = "testing")]
mod faults;
