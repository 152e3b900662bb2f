//! The group commit, on either back end: commits wait in a queue, writer
//! tasks take whatever is waiting and commit it as one transaction; a
//! take-back, or a batch that failed, is committed alone.

use std::collections::HashSet;
use std::sync::Arc;

use sqlx::Connection;
use sqlx::postgres::PgConnection;
use tokio::sync::{Mutex as AsyncMutex, mpsc, oneshot};

use crate::postgres::{self, CHANNEL};
use crate::rows::{GameState, INSERT_GAME, INSERT_MOVE, MoveRow, UPDATE_STATE, bind_move, bind_new_game, bind_state};
use crate::sqlite::sqlite_batch;
use crate::{Backend, Result, StoreError, Update, on_pool};

/// Commits one update in a transaction of its own (see
/// [`Store::commit`](crate::Store::commit)).
pub(crate) async fn commit_alone(
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
            let inserted = bind_move!(sqlx::query(INSERT_MOVE), id, m).execute(&mut *tx).await?;
            if inserted.rows_affected() != 1 {
                // (game_id, ply) is unique: a second move for the same
                // turn never lands, whatever the version said.
                tx.rollback().await?;
                return Ok(false);
            }
        }
        if let Some(game) = update.creates {
            bind_new_game!(sqlx::query(INSERT_GAME), game).execute(&mut *tx).await?;
        }
        if update.settles_ratings {
            let postgres = matches!(backend, Backend::Postgres(_));
            crate::accounts::settle_ratings!(tx, postgres, id, s, s.updated_at)?;
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

/// A commit waiting for a group-commit writer.
#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) id: String,
    pub(crate) expected_version: i64,
    pub(crate) state: GameState,
    pub(crate) append: Option<MoveRow>,
    pub(crate) reply: oneshot::Sender<Result<bool>>,
}

/// The most commits in one transaction: at 10,000 moves a second, the
/// moves of 50 ms (a slow WAL flush on a busy disk).
const MAX_BATCH: usize = 512;

/// A group-commit writer: takes every waiting commit (up to
/// [`MAX_BATCH`]), commits them as one transaction, then answers each.
pub(crate) async fn write_batches(
    backend: Backend,
    instance: String,
    queue: Arc<AsyncMutex<mpsc::UnboundedReceiver<Job>>>,
) {
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
                    let update = Update {
                        state: &job.state,
                        truncate_from: None,
                        append: &append,
                        settles_ratings: false,
                        creates: None,
                    };
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
    let mut others_applied = Vec::with_capacity(others.len());
    let applied = match backend {
        Backend::SqliteWriter(writer) => writer.lock().await.write_batch(&moves, &others, &mut others_applied).await?,
        // Not used for writes (`Store::connect`); still right.
        Backend::Sqlite(pool) => {
            let mut conn = pool.acquire().await?;
            sqlite_batch(&mut conn, &moves, &others, &mut others_applied).await?
        }
        Backend::Postgres(pool) => {
            postgres::write_batch(pool, own, instance, &moves, &others, &mut others_applied).await?
        }
    };
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
