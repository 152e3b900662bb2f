//! The rows the store keeps (a game, its state, its seats, its moves) and
//! the SQL both back ends share: `$N` placeholders work on SQLite too, so
//! the statements and their bindings are written once. The typed values
//! ([`crate::values`]) become their text here, in the bindings and
//! `decode_game!`.

use monte_rules::Side;

use crate::values::{GameStatus, Player};

/// One seat of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRow {
    pub player: Player,
    pub name: Option<String>,
    /// SHA-256 (hex) of the seat's secret token; `None` while the seat is open
    /// (and for AI seats).
    pub token_hash: Option<String>,
    /// The id of the account holding the seat (none for a guest or the AI).
    pub account: Option<String>,
}

/// Everything about a game that changes as it is played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameState {
    pub status: GameStatus,
    /// Moves played.
    pub ply: i64,
    pub fen: String,
    pub side_to_move: Side,
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
    pub draw_offer: Option<Side>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: Option<String>,
    pub winner: Option<Side>,
    pub reason: Option<String>,
    pub margin: Option<i64>,
    /// An AI seat is to move in an active game.
    pub ai_to_move: bool,
    pub updated_at: i64,
    /// The side that offers a rematch of the finished game.
    pub rematch_offer: Option<Side>,
    /// The rematch, once accepted: the new game's id.
    pub rematch: Option<String>,
}

impl GameState {
    /// The seat of `side`.
    pub fn seat(&self, side: Side) -> &SeatRow {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }
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
    /// Open to anyone (chosen at creation): listed by
    /// [`ListFilter::Open`](crate::ListFilter::Open)
    /// and joined by id; otherwise only through the invite code.
    pub listed: bool,
    /// Counts for the players' ratings (chosen at creation): both seats
    /// held by accounts, the game's default rule set and a clock.
    pub rated: bool,
    pub version: i64,
    pub state: GameState,
    /// In order of ply; empty in lists.
    pub moves: Vec<MoveRow>,
}

pub(crate) const GAME_COLUMNS: &str = "id, kind, rules, start_fen, clock_initial_ms, clock_increment_ms, created_at, version, \
     status, ply, fen, side_to_move, white_player, white_name, white_token, black_player, black_name, black_token, \
     invite, white_ms, black_ms, turn_started_at, deadline_at, draw_offer, result, winner, reason, margin, \
     ai_to_move, ai_claimed_by, ai_claimed_at, updated_at, listed, white_account, black_account, rated, rematch_offer, \
     rematch_id";

/// Binds the mutable state columns in the order of `UPDATE_STATE` and
/// `INSERT_GAME` (placeholders $3..$28): those of `bind_play!`, then the
/// seats and the rematch.
macro_rules! bind_state {
    ($q:expr, $s:expr) => {
        $crate::rows::bind_play!($q, $s)
            .bind($s.white.player.to_string())
            .bind(&$s.white.name)
            .bind(&$s.white.token_hash)
            .bind($s.black.player.to_string())
            .bind(&$s.black.name)
            .bind(&$s.black.token_hash)
            .bind(&$s.white.account)
            .bind(&$s.black.account)
            .bind($s.rematch_offer.map($crate::values::side_name))
            .bind(&$s.rematch)
    };
}
pub(crate) use bind_state;

/// Compare-and-swap of the whole state; the AI claim is released because
/// the position changed.
pub(crate) const UPDATE_STATE: &str = "UPDATE games SET version = version + 1, status = $3, ply = $4, fen = $5, \
     side_to_move = $6, invite = $7, white_ms = $8, black_ms = $9, turn_started_at = $10, deadline_at = $11, \
     draw_offer = $12, result = $13, winner = $14, reason = $15, margin = $16, ai_to_move = $17, updated_at = $18, \
     white_player = $19, white_name = $20, white_token = $21, black_player = $22, black_name = $23, \
     black_token = $24, white_account = $25, black_account = $26, rematch_offer = $27, rematch_id = $28, \
     ai_claimed_by = NULL, ai_claimed_at = NULL WHERE id = $1 AND version = $2";

/// The compare-and-swap of a move: [`UPDATE_STATE`] without the seat
/// columns (a move does not change them; see [`Update`](crate::Update)), bound by
/// `bind_play!` (placeholders $3..$18).
pub(crate) const UPDATE_PLAY: &str = "UPDATE games SET version = version + 1, status = $3, ply = $4, fen = $5, \
     side_to_move = $6, invite = $7, white_ms = $8, black_ms = $9, turn_started_at = $10, deadline_at = $11, \
     draw_offer = $12, result = $13, winner = $14, reason = $15, margin = $16, ai_to_move = $17, updated_at = $18, \
     ai_claimed_by = NULL, ai_claimed_at = NULL \
     WHERE id = $1 AND version = $2";

/// Binds the columns of `UPDATE_PLAY` in order.
macro_rules! bind_play {
    ($q:expr, $s:expr) => {
        $q.bind($s.status.as_str())
            .bind($s.ply)
            .bind(&$s.fen)
            .bind($crate::values::side_name($s.side_to_move))
            .bind(&$s.invite)
            .bind($s.white_ms)
            .bind($s.black_ms)
            .bind($s.turn_started_at)
            .bind($s.deadline_at)
            .bind($s.draw_offer.map($crate::values::side_name))
            .bind(&$s.result)
            .bind($s.winner.map($crate::values::side_name))
            .bind(&$s.reason)
            .bind($s.margin)
            .bind($s.ai_to_move as i64)
            .bind($s.updated_at)
    };
}
pub(crate) use bind_play;

pub(crate) const INSERT_GAME: &str = "INSERT INTO games (id, version, status, ply, fen, side_to_move, invite, white_ms, \
     black_ms, turn_started_at, deadline_at, draw_offer, result, winner, reason, margin, ai_to_move, updated_at, \
     white_player, white_name, white_token, black_player, black_name, black_token, white_account, black_account, \
     rematch_offer, rematch_id, kind, rules, start_fen, clock_initial_ms, clock_increment_ms, created_at, listed, rated) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, \
     $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36)";

/// Binds the columns of `INSERT_GAME` in order: the new game `$g` (a [`GameRow`]).
macro_rules! bind_new_game {
    ($q:expr, $g:expr) => {
        $crate::rows::bind_state!($q.bind(&$g.id).bind($g.version), &$g.state)
            .bind(&$g.kind)
            .bind(&$g.rules)
            .bind(&$g.start_fen)
            .bind($g.clock_initial_ms)
            .bind($g.clock_increment_ms)
            .bind($g.created_at)
            .bind($g.listed as i64)
            .bind($g.rated as i64)
    };
}
pub(crate) use bind_new_game;

/// A move, unless one is already stored for its ply; bound by `bind_move!`.
pub(crate) const INSERT_MOVE: &str = "INSERT INTO moves (game_id, ply, notation, played_at, white_ms, black_ms) \
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING";

/// Binds the columns of `INSERT_MOVE` in order: move `$m` of game `$id`.
macro_rules! bind_move {
    ($q:expr, $id:expr, $m:expr) => {
        $q.bind($id).bind($m.ply).bind(&$m.notation).bind($m.played_at).bind($m.white_ms).bind($m.black_ms)
    };
}
pub(crate) use bind_move;

/// Decodes a row of `GAME_COLUMNS` (the same code for both backends) into
/// a [`Result`](crate::Result): a text that names no value of its column
/// is [`StoreError::UnknownValue`](crate::StoreError::UnknownValue).
macro_rules! decode_game {
    ($row:expr) => {{
        use $crate::values::{UnknownValue, parse_side};
        let r = $row;
        let decoded: $crate::Result<$crate::rows::GameRow> = (|| {
            let id: String = r.try_get("id")?;
            let unknown = |source: UnknownValue| $crate::StoreError::UnknownValue { id: id.clone(), source };
            let text = |column: &str| -> $crate::Result<String> { Ok(r.try_get(column)?) };
            let side = |column: &str| -> $crate::Result<Option<::monte_rules::Side>> {
                let text: Option<String> = r.try_get(column)?;
                text.as_deref().map(parse_side).transpose().map_err(unknown)
            };
            let seat = |p: &str| -> $crate::Result<$crate::rows::SeatRow> {
                Ok($crate::rows::SeatRow {
                    player: text(&format!("{p}_player"))?.parse().map_err(unknown)?,
                    name: r.try_get(format!("{p}_name").as_str())?,
                    token_hash: r.try_get(format!("{p}_token").as_str())?,
                    account: r.try_get(format!("{p}_account").as_str())?,
                })
            };
            Ok($crate::rows::GameRow {
                id: id.clone(),
                kind: r.try_get("kind")?,
                rules: r.try_get("rules")?,
                start_fen: r.try_get("start_fen")?,
                clock_initial_ms: r.try_get("clock_initial_ms")?,
                clock_increment_ms: r.try_get("clock_increment_ms")?,
                created_at: r.try_get("created_at")?,
                listed: r.try_get::<i64, _>("listed")? != 0,
                rated: r.try_get::<i64, _>("rated")? != 0,
                version: r.try_get("version")?,
                state: $crate::rows::GameState {
                    status: text("status")?.parse().map_err(unknown)?,
                    ply: r.try_get("ply")?,
                    fen: r.try_get("fen")?,
                    side_to_move: parse_side(&text("side_to_move")?).map_err(unknown)?,
                    white: seat("white")?,
                    black: seat("black")?,
                    invite: r.try_get("invite")?,
                    white_ms: r.try_get("white_ms")?,
                    black_ms: r.try_get("black_ms")?,
                    turn_started_at: r.try_get("turn_started_at")?,
                    deadline_at: r.try_get("deadline_at")?,
                    draw_offer: side("draw_offer")?,
                    result: r.try_get("result")?,
                    winner: side("winner")?,
                    reason: r.try_get("reason")?,
                    margin: r.try_get("margin")?,
                    ai_to_move: r.try_get::<i64, _>("ai_to_move")? != 0,
                    updated_at: r.try_get("updated_at")?,
                    rematch_offer: side("rematch_offer")?,
                    rematch: r.try_get("rematch_id")?,
                },
                moves: Vec::new(),
            })
        })();
        decoded
    }};
}
pub(crate) use decode_game;
