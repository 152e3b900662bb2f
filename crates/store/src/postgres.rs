//! PostgreSQL: the pool, the group commit's statements (a batch of moves
//! in one statement, each commit with its notice), and the notices of
//! other instances ([`Listener`]).

use std::collections::HashSet;
use std::str::FromStr;
use std::sync::LazyLock;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgConnection, PgListener, PgPool, PgPoolOptions};
use sqlx::{Connection, Row};

use crate::commit::Job;
use crate::rows::{MoveRow, UPDATE_PLAY, UPDATE_STATE, bind_play, bind_state};
use crate::values::side_name;
use crate::{Backend, Pools, Result, SynchronousCommit, ping_if_idle};

/// The PostgreSQL channel that carries change notices.
pub const CHANNEL: &str = "monte_games";

/// Group-commit writers on PostgreSQL: one per instance. The moves that
/// arrive while a batch waits for its WAL flush make the next batch, so a
/// flush carries more moves, PostgreSQL commits fewer transactions, and
/// commits leave in the order they came (docs/server-load.md: with 4
/// writers, each waiting for its own flush, the median latency was higher
/// on a busy machine).
pub(crate) const WRITERS: usize = 1;

/// Connects a pool to the PostgreSQL database of `url` and brings the
/// schema up to date.
///
/// With [`SynchronousCommit::Off`] every connection of this store (the
/// group-commit writers' too, which are opened with the pool's options)
/// commits without waiting for the WAL flush.
pub(crate) async fn connect(url: &str, synchronous_commit: SynchronousCommit) -> Result<Pools> {
    let mut options = PgConnectOptions::from_str(url)?;
    if synchronous_commit == SynchronousCommit::Off {
        options = options.options([("synchronous_commit", "off")]);
    }
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .acquire_timeout(Duration::from_secs(10))
        .test_before_acquire(false)
        .before_acquire(ping_if_idle)
        .connect_with(options)
        .await?;
    sqlx::migrate!("./migrations/postgres").run(&pool).await?;
    let backend = Backend::Postgres(pool);
    Ok(Pools { write: backend.clone(), read: backend })
}

/// A batch of the group commit on `own`, this writer's connection (opened
/// if there is none): the moves in one statement ([`pg_moves`]), then
/// the other commits one by one (their answers pushed to
/// `others_applied`). Returns the games whose move went in.
pub(crate) async fn write_batch<'j>(
    pool: &PgPool,
    own: &mut Option<PgConnection>,
    instance: &str,
    moves: &[&'j Job],
    others: &[&Job],
    others_applied: &mut Vec<bool>,
) -> Result<HashSet<&'j str>> {
    let conn = match own {
        Some(conn) => conn,
        None => own.insert(PgConnection::connect_with(&pool.connect_options()).await?),
    };
    if others.is_empty() {
        // One statement needs no transaction around it.
        return pg_moves(&mut *conn, instance, moves).await;
    }
    let mut applied = HashSet::new();
    let mut tx = conn.begin().await?;
    if !moves.is_empty() {
        applied = pg_moves(&mut *tx, instance, moves).await?;
    }
    for job in others {
        others_applied.push(pg_commit_statement(&mut *tx, instance, job).await?);
    }
    tx.commit().await?;
    Ok(applied)
}

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
         SELECT (SELECT count(*) FROM upd) AS updated, (SELECT pg_notify($29, $30)::text FROM upd) AS notified"
    )
});

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
        .bind(column!(|j| j.state.status.as_str()))
        .bind(column!(|j| j.state.ply))
        .bind(column!(|j| j.state.fen.clone()))
        .bind(column!(|j| side_name(j.state.side_to_move)))
        .bind(column!(|j| j.state.invite.clone()))
        .bind(column!(|j| j.state.white_ms))
        .bind(column!(|j| j.state.black_ms))
        .bind(column!(|j| j.state.turn_started_at))
        .bind(column!(|j| j.state.deadline_at))
        .bind(column!(|j| j.state.draw_offer.map(side_name)))
        .bind(column!(|j| j.state.result.clone()))
        .bind(column!(|j| j.state.winner.map(side_name)))
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

/// A change announced by an instance (PostgreSQL only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Game `id` reached `version` through instance `instance`.
    Changed { id: String, version: i64, instance: String },
    /// The listening connection was lost and re-established: notices may
    /// have been missed.
    Resync,
}

/// A stream of [`Notice`]s from PostgreSQL.
#[derive(Debug)]
pub struct Listener {
    inner: PgListener,
}

impl Listener {
    /// Listens on [`CHANNEL`] through a connection of its own (`pool`'s
    /// options).
    pub(crate) async fn connect(pool: &PgPool) -> Result<Listener> {
        let mut listener = PgListener::connect_with(pool).await?;
        listener.listen(CHANNEL).await?;
        Ok(Listener { inner: listener })
    }

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
