//! The rows the store keeps (a game, its state, its seats, its moves) and
//! the SQL both back ends share: `$N` placeholders work on SQLite too, so
//! the statements and their bindings are written once.

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
    /// Open to anyone (chosen at creation): listed by
    /// [`ListFilter::Open`](crate::ListFilter::Open)
    /// and joined by id; otherwise only through the invite code.
    pub listed: bool,
    pub version: i64,
    pub state: GameState,
    /// In order of ply; empty in lists.
    pub moves: Vec<MoveRow>,
}

pub(crate) const GAME_COLUMNS: &str = "id, kind, rules, start_fen, clock_initial_ms, clock_increment_ms, created_at, version, \
     status, ply, fen, side_to_move, white_player, white_name, white_token, black_player, black_name, black_token, \
     invite, white_ms, black_ms, turn_started_at, deadline_at, draw_offer, result, winner, reason, margin, \
     ai_to_move, ai_claimed_by, ai_claimed_at, updated_at, listed";

/// Binds the mutable state columns in the order of `UPDATE_STATE` and
/// `INSERT_GAME` (placeholders $3..$24): those of `bind_play!`, then the
/// seats.
macro_rules! bind_state {
    ($q:expr, $s:expr) => {
        $crate::rows::bind_play!($q, $s)
            .bind(&$s.white.player)
            .bind(&$s.white.name)
            .bind(&$s.white.token_hash)
            .bind(&$s.black.player)
            .bind(&$s.black.name)
            .bind(&$s.black.token_hash)
    };
}
pub(crate) use bind_state;

/// Compare-and-swap of the whole state; the AI claim is released because
/// the position changed.
pub(crate) const UPDATE_STATE: &str = "UPDATE games SET version = version + 1, status = $3, ply = $4, fen = $5, \
     side_to_move = $6, invite = $7, white_ms = $8, black_ms = $9, turn_started_at = $10, deadline_at = $11, \
     draw_offer = $12, result = $13, winner = $14, reason = $15, margin = $16, ai_to_move = $17, updated_at = $18, \
     white_player = $19, white_name = $20, white_token = $21, black_player = $22, black_name = $23, \
     black_token = $24, ai_claimed_by = NULL, ai_claimed_at = NULL \
     WHERE id = $1 AND version = $2";

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
pub(crate) use bind_play;

pub(crate) const INSERT_GAME: &str = "INSERT INTO games (id, version, status, ply, fen, side_to_move, invite, white_ms, \
     black_ms, turn_started_at, deadline_at, draw_offer, result, winner, reason, margin, ai_to_move, updated_at, \
     white_player, white_name, white_token, black_player, black_name, black_token, kind, rules, start_fen, \
     clock_initial_ms, clock_increment_ms, created_at, listed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
     $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31)";

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

/// Decodes a row of `GAME_COLUMNS` (the same code for both backends).
macro_rules! decode_game {
    ($row:expr) => {{
        let r = $row;
        let seat = |p: &str| -> std::result::Result<$crate::rows::SeatRow, sqlx::Error> {
            Ok($crate::rows::SeatRow {
                player: r.try_get(format!("{p}_player").as_str())?,
                name: r.try_get(format!("{p}_name").as_str())?,
                token_hash: r.try_get(format!("{p}_token").as_str())?,
            })
        };
        let decoded: std::result::Result<$crate::rows::GameRow, sqlx::Error> = (|| {
            Ok($crate::rows::GameRow {
                id: r.try_get("id")?,
                kind: r.try_get("kind")?,
                rules: r.try_get("rules")?,
                start_fen: r.try_get("start_fen")?,
                clock_initial_ms: r.try_get("clock_initial_ms")?,
                clock_increment_ms: r.try_get("clock_increment_ms")?,
                created_at: r.try_get("created_at")?,
                listed: r.try_get::<i64, _>("listed")? != 0,
                version: r.try_get("version")?,
                state: $crate::rows::GameState {
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
pub(crate) use decode_game;
