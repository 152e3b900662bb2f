//! A game as the server holds it (the stored row and the rules' replay of
//! it) and as clients see it (the JSON view).

use std::collections::BTreeMap;

use monte_rules::any::{AnyGame, MoveInfo, MoveShape};
use monte_rules::{GameKind, Side, Status};
use monte_store::{GameRow, GameStatus, Player, SeatRow, side_name};
use rand::Rng;
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::error::{ApiError, ApiResult};

/// A stored game and the rules' replay of its moves.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub row: GameRow,
    pub game: AnyGame,
}

impl Loaded {
    /// Replays the stored moves through the rules.
    pub fn replay(row: GameRow) -> ApiResult<Loaded> {
        let corrupt = |what: String| ApiError::internal(format!("stored game {} is unreadable: {what}", row.id));
        let kind: GameKind = row.kind.parse().map_err(|e| corrupt(format!("{e}")))?;
        let mut game = AnyGame::new(kind, &row.rules, Some(&row.start_fen)).map_err(|e| corrupt(format!("{e}")))?;
        for m in &row.moves {
            game.play(&m.notation).map_err(|e| corrupt(format!("move {} `{}`: {e}", m.ply + 1, m.notation)))?;
        }
        Ok(Loaded { row, game })
    }

    pub fn seat(&self, side: Side) -> &SeatRow {
        self.row.state.seat(side)
    }

    /// The side whose seat `token` holds.
    pub fn side_of(&self, token: &str) -> Option<Side> {
        self.side_of_hash(&hash_token(token))
    }

    /// The side whose seat the token of this [`hash_token`] holds.
    pub fn side_of_hash(&self, hash: &str) -> Option<Side> {
        Side::BOTH.into_iter().find(|&s| self.seat(s).token_hash.as_deref() == Some(hash))
    }

    /// Time left for `side` at `now` (the running clock included).
    pub fn time_left(&self, side: Side, now: i64) -> Option<i64> {
        let s = &self.row.state;
        let base = match side {
            Side::White => s.white_ms?,
            Side::Black => s.black_ms?,
        };
        let running = s.turn_started_at.filter(|_| side == s.side_to_move);
        Some(match running {
            Some(start) => base - (now - start).max(0),
            None => base,
        })
    }

    /// The view a client gets: the game now and all its moves.
    pub fn view(&self, now: i64) -> GameView {
        GameView { now: self.view_now(now), history: self.row.moves.iter().map(|m| m.notation.clone()).collect() }
    }

    /// The view without the moves played: what a pushed update carries, so
    /// that its cost does not grow with the game's length.
    pub fn view_now(&self, now: i64) -> GameNow {
        let row = &self.row;
        let s = &row.state;
        let legal = if s.status == GameStatus::Active { LegalMoves::of(&self.game) } else { LegalMoves::default() };
        let clock = row.clock_initial_ms.map(|initial_ms| ClockView {
            initial_ms,
            increment_ms: row.clock_increment_ms.unwrap_or(0),
            white_ms: self.time_left(Side::White, now).unwrap_or(initial_ms).max(0),
            black_ms: self.time_left(Side::Black, now).unwrap_or(initial_ms).max(0),
            running: s.turn_started_at.map(|_| side_name(s.side_to_move)),
            deadline_at: s.deadline_at,
        });
        GameNow {
            id: row.id.clone(),
            version: row.version,
            game: row.kind.clone(),
            rules: row.rules.clone(),
            status: s.status.as_str(),
            start_fen: row.start_fen.clone(),
            fen: s.fen.clone(),
            ply: s.ply,
            side_to_move: side_name(s.side_to_move),
            seats: Seats { white: SeatView::of(&s.white), black: SeatView::of(&s.black) },
            // Only for the seat holders (`api::get_game`).
            invite: None,
            public: row.listed,
            rated: row.rated,
            legal_moves: legal,
            last_move: self.game.moves_played().checked_sub(1).and_then(|n| self.game.played(n)).map(PlayedMove::from),
            clock,
            standing: Standing { white: self.game.standing(Side::White), black: self.game.standing(Side::Black) },
            draw_offer: s.draw_offer.map(side_name),
            result: s.result.as_ref().map(|r| ResultView {
                result: r.clone(),
                winner: s.winner.map(side_name),
                reason: s.reason.clone().unwrap_or_default(),
                margin: s.margin,
            }),
            ai_thinking: s.ai_to_move,
            rematch_offer: s.rematch_offer.map(side_name),
            rematch: s.rematch.clone(),
            created_at: row.created_at,
            updated_at: s.updated_at,
            server_time: now,
        }
    }

    /// The invite code, while a seat is open.
    pub fn open_invite(&self) -> Option<String> {
        let s = &self.row.state;
        s.invite.clone().filter(|_| s.status == GameStatus::Waiting)
    }

    /// A short form for lists (no invite code: lists are public).
    pub fn summary(row: &GameRow) -> GameSummary {
        let s = &row.state;
        GameSummary {
            id: row.id.clone(),
            game: row.kind.clone(),
            rules: row.rules.clone(),
            status: s.status.as_str(),
            ply: s.ply,
            side_to_move: side_name(s.side_to_move),
            seats: Seats { white: SeatView::of(&s.white), black: SeatView::of(&s.black) },
            public: row.listed,
            rated: row.rated,
            clock: row.clock_initial_ms.map(|m| [m, row.clock_increment_ms.unwrap_or(0)]),
            result: s.result.clone(),
            created_at: row.created_at,
            updated_at: s.updated_at,
        }
    }
}

/// The game as every client sees it (players and spectators alike: there
/// is no hidden information): the game now and the moves played.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(as = Game)]
pub struct GameView {
    #[serde(flatten)]
    pub now: GameNow,
    /// The moves played, in notation (`ply` of them).
    pub history: Vec<String>,
}

/// A game without its moves (`history`): what an `update` pushed on the
/// WebSocket carries.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameNow {
    pub id: String,
    /// Bumped by every change.
    pub version: i64,
    #[schema(schema_with = one_of::game_kind)]
    pub game: String,
    pub rules: String,
    /// `waiting` (a seat is open), `active` or `over`.
    #[schema(schema_with = one_of::game_status)]
    pub status: &'static str,
    pub start_fen: String,
    /// The current position string.
    pub fen: String,
    /// Moves played so far.
    pub ply: i64,
    #[schema(schema_with = one_of::side)]
    pub side_to_move: &'static str,
    pub seats: Seats,
    /// The invite code while a seat is open: only in the answer to a seat
    /// holder's `GET /api/games/{id}` (an invite is for whoever holds it).
    pub invite: Option<String>,
    /// Open to anyone: its open seat is taken by id, not only by invite.
    pub public: bool,
    /// Counts for the players' ratings.
    pub rated: bool,
    pub legal_moves: LegalMoves,
    /// The move that led to this position (none at the start).
    pub last_move: Option<PlayedMove>,
    pub clock: Option<ClockView>,
    pub standing: Standing,
    /// The side that offers a draw.
    #[schema(schema_with = one_of::side_or_null)]
    pub draw_offer: Option<&'static str>,
    pub result: Option<ResultView>,
    /// An AI seat is to move.
    pub ai_thinking: bool,
    /// The side that offers a rematch of the finished game.
    #[schema(schema_with = one_of::side_or_null)]
    pub rematch_offer: Option<&'static str>,
    /// The rematch, once accepted: its id. Each player's seat token holds
    /// the seat of the other colour there.
    pub rematch: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    /// Milliseconds since the epoch when this view was made.
    pub server_time: i64,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Seats {
    pub white: SeatView,
    pub black: SeatView,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(as = Seat)]
pub struct SeatView {
    #[schema(schema_with = one_of::player)]
    pub player: &'static str,
    /// An AI seat's level.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 8)]
    pub level: Option<u8>,
    pub name: Option<String>,
    /// A human seat nobody has taken yet.
    pub open: bool,
    /// Held by a signed-in player: `name` is the account's (its profile is
    /// `/api/players/{name}`).
    pub registered: bool,
}

impl SeatView {
    fn of(seat: &SeatRow) -> SeatView {
        match seat.player {
            Player::Ai(level) => {
                SeatView { player: "ai", level: Some(level), name: seat.name.clone(), open: false, registered: false }
            }
            Player::Human => SeatView {
                player: "human",
                level: None,
                name: seat.name.clone(),
                open: seat.token_hash.is_none(),
                registered: seat.account.is_some(),
            },
        }
    }
}

/// Legal moves grouped the way a board needs them.
#[derive(Clone, Debug, Default, Serialize, ToSchema)]
pub struct LegalMoves {
    /// From-square -> the moves starting there.
    pub from: BTreeMap<String, Vec<MoveView>>,
    /// Focus: pieces dropped from the reserve.
    pub drops: Vec<MoveView>,
    /// The pass, when it is the only move.
    pub pass: Option<String>,
}

impl LegalMoves {
    /// The legal moves of `game`'s position, grouped.
    pub fn of(game: &AnyGame) -> LegalMoves {
        let mut legal = LegalMoves::default();
        for m in game.legal_moves() {
            if m.kind == MoveShape::Pass {
                legal.pass = Some(m.notation);
                continue;
            }
            let view = MoveView {
                notation: m.notation,
                kind: m.kind.name(),
                to: m.to.unwrap_or_default(),
                call: m.call,
                path: m.path,
                count: m.count,
            };
            match m.from {
                Some(from) => legal.from.entry(from).or_default().push(view),
                None => legal.drops.push(view),
            }
        }
        legal
    }
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(as = Move)]
pub struct MoveView {
    /// What to send to play it.
    pub notation: String,
    #[schema(schema_with = one_of::move_kind)]
    pub kind: &'static str,
    pub to: String,
    /// Salta: the move makes a call.
    pub call: bool,
    /// Salta jumps: every landing square.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(required = false)]
    pub path: Vec<String>,
    /// Focus: how many pieces move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
}

/// A move played, with the squares it touched: what a board marks and
/// slides, without reading the notation.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayedMove {
    pub notation: String,
    #[schema(schema_with = one_of::played_kind)]
    pub kind: &'static str,
    /// Where the piece or group started (none for a drop or a pass).
    pub from: Option<String>,
    /// Where it ended (none for a pass).
    pub to: Option<String>,
    /// Salta jumps: every landing square in order, `to` last.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(required = false)]
    pub path: Vec<String>,
}

impl From<MoveInfo> for PlayedMove {
    fn from(m: MoveInfo) -> PlayedMove {
        PlayedMove { notation: m.notation, kind: m.kind.name(), from: m.from, to: m.to, path: m.path }
    }
}

/// Each side's standing by the rule set's own count (the rules crate's
/// `Position::standing`), higher is better: in Salta minus the total
/// distance of its pieces to their targets (what a scored move limit
/// compares), in Focus its pieces in play (in stacks it controls, and its
/// reserve).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Standing {
    pub white: i32,
    pub black: i32,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ClockView {
    pub initial_ms: i64,
    pub increment_ms: i64,
    /// Time left now (at `server_time`).
    pub white_ms: i64,
    pub black_ms: i64,
    /// The side whose clock runs: none before the side to move has made
    /// its first move.
    #[schema(schema_with = one_of::side_or_null)]
    pub running: Option<&'static str>,
    /// When the running clock reaches zero, in milliseconds since the
    /// epoch; while no clock runs, when the game is aborted if a person's
    /// first move has not come.
    pub deadline_at: Option<i64>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ResultView {
    #[schema(schema_with = one_of::result)]
    pub result: String,
    #[schema(schema_with = one_of::side_or_null)]
    pub winner: Option<&'static str>,
    /// `length cap` is the server's cap on a game's length; `stopped`, a
    /// game between two AIs stopped by its creator.
    #[schema(schema_with = one_of::reason)]
    pub reason: String,
    /// Salta: the loser's remaining distance.
    pub margin: Option<i64>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameSummary {
    pub id: String,
    #[schema(schema_with = one_of::game_kind)]
    pub game: String,
    pub rules: String,
    #[schema(schema_with = one_of::game_status)]
    pub status: &'static str,
    pub ply: i64,
    #[schema(schema_with = one_of::side)]
    pub side_to_move: &'static str,
    pub seats: Seats,
    /// Open to anyone: its open seat is taken by id, not only by invite.
    pub public: bool,
    /// Counts for the players' ratings.
    pub rated: bool,
    /// `[initial_ms, increment_ms]`.
    #[schema(value_type = Option<Vec<i64>>, min_items = 2, max_items = 2)]
    pub clock: Option<[i64; 2]>,
    pub result: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// Something that came with a change and that the game's state does not
/// show, told to the watchers in the change's `update`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GameEvent {
    /// A draw offer was declined, by the side `by` (the offerer's opponent).
    DrawDeclined {
        #[schema(schema_with = one_of::side)]
        by: &'static str,
    },
}

/// The schemas of the text fields that take one of a few values.
pub mod one_of {
    use monte_rules::GameKind;
    use utoipa::openapi::schema::{Object, ObjectBuilder, Type};

    fn strings(values: &[&str]) -> Object {
        ObjectBuilder::new().schema_type(Type::String).enum_values(Some(values.iter().copied())).build()
    }

    pub fn side() -> Object {
        strings(&["white", "black"])
    }

    /// A side, or `null`.
    pub fn side_or_null() -> Object {
        let values = [serde_json::json!("white"), serde_json::json!("black"), serde_json::Value::Null];
        ObjectBuilder::new()
            .schema_type([Type::String, Type::Null].into_iter().collect::<utoipa::openapi::schema::SchemaType>())
            .enum_values(Some(values))
            .build()
    }

    pub fn draw_action() -> Object {
        strings(&["offer", "accept", "decline"])
    }

    pub fn ws_command() -> Object {
        strings(&["move", "resign", "draw", "takeback", "rematch", "ping"])
    }

    pub fn health() -> Object {
        strings(&["ok", "degraded"])
    }

    pub fn database() -> Object {
        strings(&["sqlite", "postgres"])
    }

    pub fn alive() -> Object {
        strings(&["alive"])
    }

    /// The games of every build (a test-only game is left out, so that
    /// the published document is the shipped server's).
    pub fn game_kind() -> Object {
        let names: Vec<&str> =
            GameKind::ALL.into_iter().filter(|kind| kind.in_every_build()).map(GameKind::name).collect();
        strings(&names)
    }

    pub fn game_status() -> Object {
        strings(&["waiting", "active", "over"])
    }

    pub fn player() -> Object {
        strings(&["human", "ai"])
    }

    pub fn move_kind() -> Object {
        strings(&["step", "jump", "group", "drop"])
    }

    /// A move played: a legal move's kinds, or a pass.
    pub fn played_kind() -> Object {
        strings(&["step", "jump", "group", "drop", "pass"])
    }

    pub fn result() -> Object {
        use monte_rules::{Side, result_string};
        // `*`: a game aborted before its first moves.
        strings(&[result_string(Some(Side::White)), result_string(Some(Side::Black)), result_string(None), "*"])
    }

    pub fn reason() -> Object {
        use monte_rules::EndReason;
        strings(&[
            EndReason::Goal.name(),
            EndReason::NoPieces.name(),
            EndReason::MoveLimit.name(),
            EndReason::Repetition.name(),
            "resignation",
            "time",
            "agreement",
            crate::policy::LENGTH_CAP,
            crate::policy::STOPPED,
            crate::policy::ABORTED,
        ])
    }
}

/// Seat tokens are stored only as their SHA-256.
pub fn hash_token(token: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(token.as_bytes());
    // Every action hashes its token: no string per byte.
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push(HEX[usize::from(b >> 4)] as char);
        hex.push(HEX[usize::from(b & 15)] as char);
    }
    hex
}

/// A random string of `len` characters from an unambiguous alphabet.
pub fn random_id(len: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
    let mut rng = rand::rng();
    (0..len).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

/// A secret seat token (256 bits).
pub fn new_token() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The status of the rules as stored: (result, winner, reason, margin).
pub fn outcome_columns(status: Status) -> Option<(String, Option<Side>, String, Option<i64>)> {
    match status {
        Status::Ongoing => None,
        Status::Over(o) => {
            Some((o.result_string().to_string(), o.winner, o.reason.name().to_string(), o.margin.map(i64::from)))
        }
    }
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// A new game's creation time: `now`, or one millisecond after the last
/// one this process gave if that is later. Lists of games are newest
/// first, and games created within one millisecond (a rematch and the
/// next game) would otherwise come in an arbitrary order.
pub fn creation_ms(now: i64) -> i64 {
    use std::sync::atomic::{AtomicI64, Ordering};
    static LAST: AtomicI64 = AtomicI64::new(0);
    let previous = LAST.fetch_max(now, Ordering::Relaxed);
    if previous < now {
        return now;
    }
    // `now` is not later than the last one given: take the next free one.
    LAST.fetch_add(1, Ordering::Relaxed) + 1
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_stored_as_lowercase_hex_sha256() {
        // The standard SHA-256 test vector of "abc" (FIPS 180-2).
        assert_eq!(super::hash_token("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn games_created_in_one_millisecond_keep_their_order() {
        let now = super::now_ms();
        let (first, second, third) = (super::creation_ms(now), super::creation_ms(now), super::creation_ms(now - 5));
        assert!(now <= first && first < second && second < third, "{now} {first} {second} {third}");
    }
}
