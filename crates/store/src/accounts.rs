//! Accounts, their sessions and their ratings: the rows and the queries.
//! The rules for names and passwords are the server's; the store keeps
//! what it is given, and updates the ratings of a rated game in the
//! transaction that ends it ([`settle_ratings!`]).

use monte_rules::Side;
use sqlx::{Connection, Row};

use crate::glicko2::{Rating, Score};
use crate::rows::{GAME_COLUMNS, GameRow, GameState, decode_game};
use crate::{BackendKind, Result, Store, on_pool};

/// An account as stored.
#[derive(Clone, PartialEq, Eq)]
pub struct AccountRow {
    pub id: String,
    /// As its owner wrote it.
    pub name: String,
    /// Argon2id in the PHC string format.
    pub password_hash: String,
    pub created_at: i64,
}

impl std::fmt::Debug for AccountRow {
    /// Without the password's hash: rows end up in logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccountRow").field("id", &self.id).field("name", &self.name).finish_non_exhaustive()
    }
}

/// A player's rating in one game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    /// The game (`salta`, `focus`).
    pub kind: String,
    pub rating: Rating,
    /// Rated games played.
    pub games: i64,
}

/// A player's rating after a rated game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingPoint {
    /// The player's account.
    pub account: String,
    pub kind: String,
    pub game_id: String,
    pub at: i64,
    pub rating_before: f64,
    pub rating: f64,
    pub deviation: f64,
}

/// A line of a leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Leader {
    pub name: String,
    pub rating: RatingRow,
}

/// The score of White in a rated game that ended in `state`, if the game
/// counts: it has a result, and each side made a move (a game aborted,
/// or resigned before a side moved, counts nothing).
pub fn rated_score(state: &GameState) -> Option<Score> {
    if state.ply < 2 {
        return None;
    }
    match (state.result.as_deref(), state.winner) {
        (_, Some(Side::White)) => Some(1.0),
        (_, Some(Side::Black)) => Some(0.0),
        (Some("1/2-1/2"), None) => Some(0.5),
        _ => None,
    }
}

/// In the transaction `$tx` (on PostgreSQL when `$postgres`) that ends the
/// rated game `$id` in state `$state`: both players' ratings in the game's
/// kind, updated by Glicko-2, and their history. Nothing when the game
/// does not count ([`rated_score`]) or was not rated at creation.
macro_rules! settle_ratings {
    ($tx:expr, $postgres:expr, $id:expr, $state:expr, $now:expr) => {
        async {
            use sqlx::Row;
            let state: &$crate::rows::GameState = $state;
            let (Some(score), Some(white), Some(black)) =
                ($crate::accounts::rated_score(state), &state.white.account, &state.black.account)
            else {
                return $crate::Result::Ok(());
            };
            let Some(game) = sqlx::query("SELECT kind FROM games WHERE id = $1 AND rated = 1")
                .bind($id)
                .fetch_optional(&mut *$tx)
                .await?
            else {
                return Ok(());
            };
            let kind: String = game.try_get("kind")?;
            // Locked in the order of their ids: two games ending at once
            // for the same players cannot deadlock.
            let lock = if $postgres { " FOR UPDATE" } else { "" };
            let read =
                format!("SELECT rating, deviation, volatility FROM ratings WHERE account_id = $1 AND kind = $2{lock}");
            let accounts = [white, black];
            let mut before = [$crate::glicko2::Rating::NEW; 2];
            for i in if white <= black { [0, 1] } else { [1, 0] } {
                let account = accounts[i];
                sqlx::query(
                    "INSERT INTO ratings (account_id, kind, rating, deviation, volatility, games, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, 0, $6) ON CONFLICT (account_id, kind) DO NOTHING",
                )
                .bind(account)
                .bind(&kind)
                .bind($crate::glicko2::Rating::NEW.rating)
                .bind($crate::glicko2::Rating::NEW.deviation)
                .bind($crate::glicko2::Rating::NEW.volatility)
                .bind($now)
                .execute(&mut *$tx)
                .await?;
                let r = sqlx::query(&read).bind(account).bind(&kind).fetch_one(&mut *$tx).await?;
                before[i] = $crate::glicko2::Rating {
                    rating: r.try_get("rating")?,
                    deviation: r.try_get("deviation")?,
                    volatility: r.try_get("volatility")?,
                };
            }
            let [w, b] = before;
            let (w_after, b_after) = $crate::glicko2::rate_game(w, b, score);
            for (account, old, new) in [(white, w, w_after), (black, b, b_after)] {
                sqlx::query(
                    "UPDATE ratings SET rating = $3, deviation = $4, volatility = $5, games = games + 1, \
                     updated_at = $6 WHERE account_id = $1 AND kind = $2",
                )
                .bind(account)
                .bind(&kind)
                .bind(new.rating)
                .bind(new.deviation)
                .bind(new.volatility)
                .bind($now)
                .execute(&mut *$tx)
                .await?;
                sqlx::query(
                    "INSERT INTO rating_history (account_id, game_id, kind, at, rating_before, rating, deviation, \
                     volatility) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(account)
                .bind($id)
                .bind(&kind)
                .bind($now)
                .bind(old.rating)
                .bind(new.rating)
                .bind(new.deviation)
                .bind(new.volatility)
                .execute(&mut *$tx)
                .await?;
            }
            Ok(())
        }
        .await
    };
}
pub(crate) use settle_ratings;

/// Announces changed games to the other instances (PostgreSQL), in the
/// transaction `$tx` that changed them: `$changed` holds (id, version).
macro_rules! announce {
    ($tx:expr, $store:expr, $changed:expr) => {
        if $store.kind() == BackendKind::Postgres {
            for (id, version) in $changed {
                sqlx::query("SELECT pg_notify($1, $2)")
                    .bind(crate::postgres::CHANNEL)
                    .bind(format!("{id} {version} {}", $store.instance))
                    .execute(&mut *$tx)
                    .await?;
            }
        }
    };
}

/// Reads an [`AccountRow`] from a row of either backend.
macro_rules! decode_account {
    ($r:expr) => {{
        let r = $r;
        Ok::<_, crate::StoreError>(AccountRow {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
            password_hash: r.try_get("password_hash")?,
            created_at: r.try_get("created_at")?,
        })
    }};
}

/// Reads a [`RatingRow`] (`kind`, `rating`, `deviation`, `volatility`,
/// `games`) from a row of either backend.
macro_rules! decode_rating {
    ($r:expr) => {{
        let r = $r;
        Ok::<_, crate::StoreError>(RatingRow {
            kind: r.try_get("kind")?,
            rating: Rating {
                rating: r.try_get("rating")?,
                deviation: r.try_get("deviation")?,
                volatility: r.try_get("volatility")?,
            },
            games: r.try_get("games")?,
        })
    }};
}

const ACCOUNT_COLUMNS: &str = "accounts.id, accounts.name, accounts.password_hash, accounts.created_at";

impl Store {
    /// Stores a new account unless its `name_key` is taken; whether it was.
    pub async fn create_account(&self, account: &AccountRow, name_key: &str) -> Result<bool> {
        on_pool!(self, pool => {
            let done = sqlx::query(
                "INSERT INTO accounts (id, name, name_key, password_hash, created_at) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (name_key) DO NOTHING",
            )
            .bind(&account.id)
            .bind(&account.name)
            .bind(name_key)
            .bind(&account.password_hash)
            .bind(account.created_at)
            .execute(pool)
            .await?;
            Ok(done.rows_affected() == 1)
        })
    }

    /// The account of a name (by its `name_key`).
    pub async fn account_by_name(&self, name_key: &str) -> Result<Option<AccountRow>> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE name_key = $1");
        on_pool!(read self, pool => {
            let row = sqlx::query(&sql).bind(name_key).fetch_optional(pool).await?;
            row.as_ref().map(|r| decode_account!(r)).transpose()
        })
    }

    /// Opens a session (its token's hash) for an account until `expires_at`;
    /// sessions expired by `now` are removed on the way.
    pub async fn create_session(&self, token_hash: &str, account_id: &str, now: i64, expires_at: i64) -> Result<()> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM sessions WHERE expires_at <= $1").bind(now).execute(&mut *tx).await?;
            sqlx::query("INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)")
                .bind(token_hash)
                .bind(account_id)
                .bind(now)
                .bind(expires_at)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    /// The account signed in by a session token's hash, unless expired.
    pub async fn session_account(&self, token_hash: &str, now: i64) -> Result<Option<AccountRow>> {
        let sql = format!(
            "SELECT {ACCOUNT_COLUMNS} FROM sessions JOIN accounts ON accounts.id = sessions.account_id \
             WHERE sessions.token_hash = $1 AND sessions.expires_at > $2"
        );
        on_pool!(read self, pool => {
            let row = sqlx::query(&sql).bind(token_hash).bind(now).fetch_optional(pool).await?;
            row.as_ref().map(|r| decode_account!(r)).transpose()
        })
    }

    /// Ends a session.
    pub async fn delete_session(&self, token_hash: &str) -> Result<()> {
        on_pool!(self, pool => {
            sqlx::query("DELETE FROM sessions WHERE token_hash = $1").bind(token_hash).execute(pool).await?;
            Ok(())
        })
    }

    /// Sets an account's password hash and ends all its sessions; whether
    /// the account exists.
    pub async fn set_password(&self, name_key: &str, password_hash: &str) -> Result<bool> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let row = sqlx::query("UPDATE accounts SET password_hash = $2 WHERE name_key = $1 RETURNING id")
                .bind(name_key)
                .bind(password_hash)
                .fetch_optional(&mut *tx)
                .await?;
            let Some(row) = row else { return Ok(false) };
            let id: String = row.try_get("id")?;
            sqlx::query("DELETE FROM sessions WHERE account_id = $1").bind(&id).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    /// Gives an account the guest seats held by these token hashes (its
    /// name on them): the games changed.
    pub async fn attach_seats(&self, account: &AccountRow, token_hashes: &[String]) -> Result<Vec<String>> {
        if token_hashes.is_empty() {
            return Ok(Vec::new());
        }
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let mut changed = Vec::new();
            for side in Side::BOTH {
                let p = side.key();
                let sql = format!(
                    "UPDATE games SET {p}_account = $1, {p}_name = $2, version = version + 1 \
                     WHERE {p}_token = $3 AND {p}_account IS NULL AND {p}_player = 'human' RETURNING id, version"
                );
                for hash in token_hashes {
                    for r in sqlx::query(&sql).bind(&account.id).bind(&account.name).bind(hash).fetch_all(&mut *tx).await? {
                        changed.push((r.try_get::<String, _>("id")?, r.try_get::<i64, _>("version")?));
                    }
                }
            }
            announce!(tx, self, &changed);
            tx.commit().await?;
            Ok(changed.into_iter().map(|(id, _)| id).collect())
        })
    }

    /// Deletes an account, its sessions and ratings; its games stay, their
    /// seats without its name. Returns the games changed.
    pub async fn delete_account(&self, account_id: &str) -> Result<Vec<String>> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let mut changed = Vec::new();
            for side in Side::BOTH {
                let p = side.key();
                let sql = format!(
                    "UPDATE games SET {p}_account = NULL, {p}_name = NULL, version = version + 1 \
                     WHERE {p}_account = $1 RETURNING id, version"
                );
                for r in sqlx::query(&sql).bind(account_id).fetch_all(&mut *tx).await? {
                    changed.push((r.try_get::<String, _>("id")?, r.try_get::<i64, _>("version")?));
                }
            }
            sqlx::query("DELETE FROM accounts WHERE id = $1").bind(account_id).execute(&mut *tx).await?;
            announce!(tx, self, &changed);
            tx.commit().await?;
            Ok(changed.into_iter().map(|(id, _)| id).collect())
        })
    }

    /// An account's ratings, one per game it has played rated.
    pub async fn ratings(&self, account_id: &str) -> Result<Vec<RatingRow>> {
        on_pool!(read self, pool => {
            let rows = sqlx::query(
                "SELECT kind, rating, deviation, volatility, games FROM ratings WHERE account_id = $1 ORDER BY kind",
            )
            .bind(account_id)
            .fetch_all(pool)
            .await?;
            rows.iter().map(|r| decode_rating!(r)).collect()
        })
    }

    /// An account's rating after each of its rated games, oldest first.
    pub async fn rating_history(&self, account_id: &str) -> Result<Vec<RatingPoint>> {
        self.rating_points("account_id", account_id).await
    }

    /// The rating changes a rated game made, one per player.
    pub async fn game_ratings(&self, game_id: &str) -> Result<Vec<RatingPoint>> {
        self.rating_points("game_id", game_id).await
    }

    /// The rating history's rows whose `column` is `value`, oldest first.
    async fn rating_points(&self, column: &str, value: &str) -> Result<Vec<RatingPoint>> {
        let sql = format!(
            "SELECT account_id, kind, game_id, at, rating_before, rating, deviation FROM rating_history \
             WHERE {column} = $1 ORDER BY at, game_id, account_id"
        );
        on_pool!(read self, pool => {
            let rows = sqlx::query(&sql).bind(value).fetch_all(pool).await?;
            rows.iter()
                .map(|r| {
                    Ok(RatingPoint {
                        account: r.try_get("account_id")?,
                        kind: r.try_get("kind")?,
                        game_id: r.try_get("game_id")?,
                        at: r.try_get("at")?,
                        rating_before: r.try_get("rating_before")?,
                        rating: r.try_get("rating")?,
                        deviation: r.try_get("deviation")?,
                    })
                })
                .collect()
        })
    }

    /// The best rated players of a game, highest rating first.
    pub async fn leaderboard(&self, kind: &str, limit: i64) -> Result<Vec<Leader>> {
        on_pool!(read self, pool => {
            let rows = sqlx::query(
                "SELECT accounts.name, ratings.kind, ratings.rating, ratings.deviation, ratings.volatility, \
                 ratings.games FROM ratings JOIN accounts ON accounts.id = ratings.account_id \
                 WHERE ratings.kind = $1 AND ratings.games > 0 ORDER BY ratings.rating DESC, accounts.name LIMIT $2",
            )
            .bind(kind)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter().map(|r| Ok(Leader { name: r.try_get("name")?, rating: decode_rating!(r)? })).collect()
        })
    }

    /// An account's games, newest first: `limit` of them after skipping
    /// `offset`, without their moves.
    pub async fn account_games(&self, account_id: &str, limit: i64, offset: i64) -> Result<Vec<GameRow>> {
        let sql = format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE white_account = $1 OR black_account = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
        );
        on_pool!(read self, pool => {
            let rows = sqlx::query(&sql).bind(account_id).bind(limit).bind(offset).fetch_all(pool).await?;
            rows.iter().map(|r| decode_game!(r)).collect()
        })
    }
}
