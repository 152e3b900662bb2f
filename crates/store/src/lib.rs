//! Monte's game storage: one API over SQLite (the default, an embedded file
//! in WAL mode) and PostgreSQL, through sqlx with embedded migrations.
//!
//! The store knows nothing of the rules but their two sides: it keeps what
//! the server decided (the game row and its moves) and guards every write
//! with a compare-and-swap on the game's `version`, so two conflicting
//! writes for the same turn cannot both succeed. On PostgreSQL every
//! committed change is announced with `NOTIFY` (inside the same
//! transaction, so only committed changes are announced) for the other
//! server instances.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::pool::PoolConnectionMetadata;
use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;
use sqlx::{Connection, Executor, Row};
use tokio::sync::{Mutex as AsyncMutex, mpsc, oneshot};

mod accounts;
mod commit;
pub mod glicko2;
mod postgres;
mod rows;
mod sqlite;
mod values;

pub mod testing;

#[cfg(feature = "testing")]
mod faults;

pub use accounts::{AccountRow, Leader, RatingPoint, RatingRow, rated_score};
pub use postgres::{CHANNEL, Listener, Notice};
pub use rows::{GameRow, GameState, MoveRow, SeatRow};
pub use values::{GameStatus, Player, UnknownValue, parse_side, side_name};

use commit::{Job, commit_alone, write_batches};
use rows::{GAME_COLUMNS, INSERT_GAME, bind_new_game, decode_game};
use sqlite::Writer;

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
    #[error("corrupt row in game {id}: {source}")]
    UnknownValue { id: String, source: UnknownValue },
    #[error(
        "the SQLite write-ahead log {0} was removed or replaced while the server ran: \
         writes are refused until the server is restarted"
    )]
    WalLost(String),
    #[error("synchronous commit off is a PostgreSQL setting; SQLite's durability is fixed (docs/operations.md)")]
    SynchronousCommitOnSqlite,
}

/// Whether a commit on PostgreSQL returns only once its WAL record is
/// flushed to disk (PostgreSQL's `synchronous_commit`, for this store's
/// connections).
///
/// `Off` saves the flush wait of every commit. A crash of PostgreSQL or of
/// its machine can then lose the last commits acknowledged before it (at
/// most about three times `wal_writer_delay`: 600 ms by default), the
/// latest ones first and whole transactions only; the database stays
/// consistent, and a crash of the game server alone loses nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SynchronousCommit {
    #[default]
    On,
    Off,
}

impl SynchronousCommit {
    pub fn as_str(self) -> &'static str {
        match self {
            SynchronousCommit::On => "on",
            SynchronousCommit::Off => "off",
        }
    }
}

impl std::str::FromStr for SynchronousCommit {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "on" => Ok(SynchronousCommit::On),
            "off" => Ok(SynchronousCommit::Off),
            _ => Err(format!("`{s}`: expected on or off")),
        }
    }
}

impl std::fmt::Display for SynchronousCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
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
        let done = $crate::on_pool!(@ &$store.pools.write, $pool => $body);
        $store.health.record(&done);
        done
    }};
    (read $store:expr, $pool:ident => $body:expr) => {
        $crate::on_pool!(@ &$store.pools.read, $pool => $body)
    };
    (@ $backend:expr, $pool:ident => $body:expr) => {
        match $backend {
            $crate::Backend::Sqlite($pool) => $crate::attempt(async { $body }).await,
            $crate::Backend::SqliteWriter(writer) => {
                let mut guard = writer.lock().await;
                match guard.connection().await {
                    Err(e) => Err(e),
                    Ok($pool) => {
                        let done = $crate::attempt(async { $body }).await;
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
            $crate::Backend::Postgres($pool) => $crate::attempt(async { $body }).await,
        }
    };
}
pub(crate) use on_pool;

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
    /// The change ends a rated game: the players' ratings are updated in
    /// its transaction (if the game counts: [`rated_score`]).
    pub settles_ratings: bool,
    /// A game created by the change, stored in its transaction: a rematch,
    /// which the finished game's state names, so that neither is stored
    /// (or told) without the other.
    pub creates: Option<&'a GameRow>,
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

impl Store {
    /// Connects to `url` (`sqlite:PATH`, `sqlite::memory:`, a plain file
    /// path, or `postgres://...`), creating the SQLite file if missing, and
    /// brings the schema up to date. `instance` names this server instance
    /// in notices and AI claims.
    pub async fn connect(url: &str, instance: &str) -> Result<Store> {
        Store::connect_with(url, instance, SynchronousCommit::On).await
    }

    /// [`Store::connect`], with the commits' durability on PostgreSQL
    /// ([`SynchronousCommit`]); `Off` is refused on SQLite.
    pub async fn connect_with(url: &str, instance: &str, synchronous_commit: SynchronousCommit) -> Result<Store> {
        let (pools, writers) = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (postgres::connect(url, synchronous_commit).await?, postgres::WRITERS)
        } else if synchronous_commit == SynchronousCommit::Off {
            return Err(StoreError::SynchronousCommitOnSqlite);
        } else {
            (sqlite::connect(url).await?, sqlite::WRITERS)
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
                Backend::SqliteWriter(writer) => writer.lock().await.close().await,
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
        on_pool!(self, pool => {
            bind_new_game!(sqlx::query(INSERT_GAME), game).execute(pool).await?;
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
    /// Take-backs, the ends of rated games and changes that create a game
    /// go alone.
    pub async fn commit(&self, id: &str, expected_version: i64, update: &Update<'_>) -> Result<bool> {
        let done = self.commit_unrecorded(id, expected_version, update).await;
        self.health.record(&done);
        done
    }

    async fn commit_unrecorded(&self, id: &str, expected_version: i64, update: &Update<'_>) -> Result<bool> {
        if update.truncate_from.is_some()
            || update.append.len() > 1
            || update.settles_ratings
            || update.creates.is_some()
        {
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
            rows.iter().map(|r| decode_game!(r)).collect()
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
            Backend::Postgres(pool) => Ok(Some(Listener::connect(pool).await?)),
        }
    }
}
