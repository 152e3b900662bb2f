//! The game policy: who may do what to a game, and what it does to the
//! game's state (turns, seats, clocks, draw offers, take-backs, the end
//! of a game). Pure: each function takes the game as it stands and the
//! time, and returns the change to commit ([`Plan`]) or the reason it is
//! refused; locking, the store and the push are `games.rs`'s.

use monte_rules::any::AnyGame;
use monte_rules::{Side, Status};
use monte_store::{GameRow, GameState, GameStatus, MoveRow, Player, SeatRow, side_name};

use crate::error::{ApiError, ApiResult, Refusal};
use crate::model::{GameEvent, Loaded, outcome_columns};

/// How a seat is taken: through the game's invite code, or by its id when
/// the game is open to anyone.
#[derive(Clone, Copy, Debug)]
pub enum Door<'a> {
    Invite(&'a str),
    Public,
}

/// What a client may ask of a game.
#[derive(Clone, Debug)]
pub enum Action {
    Move { text: String, ply: Option<i64> },
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    TakeBack,
}

/// A change to commit: the new state, and the moves taken back and added.
#[derive(Debug)]
pub struct Plan {
    pub state: GameState,
    pub truncate_from: Option<i64>,
    pub append: Vec<MoveRow>,
    pub game: GameChange,
    /// Reported to the caller after the commit (the mover's flag had fallen).
    pub then_fail: Option<ApiError>,
    /// Told to the watchers with the change: what the new state does not show.
    pub event: Option<GameEvent>,
    /// A game the change creates, stored in the same transaction (an
    /// accepted rematch, which the new state names).
    pub creates: Option<GameRow>,
}

/// What a plan does to the rules' game held in the cache.
#[derive(Debug)]
pub enum GameChange {
    /// Nothing (a resignation, a draw offer, a seat taken).
    Same,
    /// The move was already played on the cached game, in place: copying a
    /// game copies every position since its start, a cost that grew with
    /// its length. If the change is not committed, the cached game is
    /// reloaded or dropped (`act`).
    Played,
    /// A new game (a take-back).
    Replaced(AnyGame),
}

impl Plan {
    /// A change of the state alone.
    pub fn state(state: GameState) -> Plan {
        Plan {
            state,
            truncate_from: None,
            append: Vec::new(),
            game: GameChange::Same,
            then_fail: None,
            event: None,
            creates: None,
        }
    }
}

/// The reason of a game ended by the server's cap on its length.
pub const LENGTH_CAP: &str = "length cap";

/// The reason of a game between two AIs stopped by its creator.
pub const STOPPED: &str = "stopped";

/// The reason of a game with a clock aborted because a person's first
/// move did not come within [`FIRST_MOVE_MS`]; it has no result (`*`).
pub const ABORTED: &str = "aborted";

/// How long a person has for each side's first move of a game with a
/// clock: that side's clock does not run before it.
pub const FIRST_MOVE_MS: i64 = 60_000;

/// The state of a new game: active with its clock started, or waiting
/// while a seat is `open`; `clock` is (initial, increment) in ms.
pub fn new_state(
    game: &AnyGame,
    (white, black): (SeatRow, SeatRow),
    open: bool,
    clock: Option<(i64, i64)>,
    invite: Option<String>,
    now: i64,
) -> GameState {
    let mut state = GameState {
        status: if open { GameStatus::Waiting } else { GameStatus::Active },
        ply: 0,
        fen: game.fen(),
        side_to_move: game.side_to_move(),
        white,
        black,
        invite,
        white_ms: clock.map(|c| c.0),
        black_ms: clock.map(|c| c.0),
        turn_started_at: None,
        deadline_at: None,
        draw_offer: None,
        result: None,
        winner: None,
        reason: None,
        margin: None,
        ai_to_move: false,
        updated_at: now,
        rematch_offer: None,
        rematch: None,
    };
    if !open {
        start_clock(&mut state, now);
    }
    state.ai_to_move = ai_to_move(&state);
    state
}

/// Takes an open seat of `l` through `door` for `seat` (the newcomer's
/// row): the side asked for, or the first open one. The game starts when
/// no seat is left open.
pub fn seat_plan(l: &Loaded, door: Door<'_>, side: Option<Side>, seat: SeatRow, now: i64) -> ApiResult<(Plan, Side)> {
    let s = &l.row.state;
    match door {
        // The code stays with the game once used, so that it can be told
        // apart from a code that never was.
        Door::Invite(code) if s.invite.as_deref() != Some(code) || s.status != GameStatus::Waiting => {
            return Err(ApiError::conflict("this invite has been used"));
        }
        Door::Public if !l.row.listed => {
            return Err(ApiError::forbidden("this game is not open to anyone: join it through its invite"));
        }
        Door::Public if s.status != GameStatus::Waiting => {
            return Err(ApiError::conflict("no seat is open"));
        }
        _ => {}
    }
    let open = |sd: Side| l.seat(sd).player == Player::Human && l.seat(sd).token_hash.is_none();
    let side = match side {
        Some(sd) if open(sd) => sd,
        Some(sd) => return Err(ApiError::conflict(format!("the {} seat is taken", side_name(sd)))),
        None => Side::BOTH.into_iter().find(|&sd| open(sd)).ok_or_else(|| ApiError::conflict("no seat is open"))?,
    };
    if l.row.rated {
        let Some(account) = &seat.account else {
            return Err(ApiError::unauthorized("this game is rated: sign in to take the seat")
                .named(Refusal::RatedNeedsAccount));
        };
        if l.seat(!side).account.as_ref() == Some(account) {
            return Err(ApiError::conflict("you hold the other seat: a rated game is against someone else"));
        }
    }
    let mut state = s.clone();
    match side {
        Side::White => state.white = seat,
        Side::Black => state.black = seat,
    }
    let still_open = Side::BOTH.into_iter().any(|sd| sd != side && open(sd));
    if !still_open {
        state.status = GameStatus::Active;
        start_clock(&mut state, now);
    }
    state.ai_to_move = ai_to_move(&state);
    state.updated_at = now;
    Ok((Plan::state(state), side))
}

pub fn plan(l: &mut Loaded, side: Side, action: &Action, now: i64, max_plies: i64) -> ApiResult<Plan> {
    let s = &l.row.state;
    match s.status {
        GameStatus::Waiting => {
            return Err(
                ApiError::conflict("the game has not started: a seat is still open").named(Refusal::GameNotStarted)
            );
        }
        GameStatus::Over => return Err(ApiError::conflict("the game is over").named(Refusal::GameOver)),
        GameStatus::Active => {}
    }
    // A fallen flag (or a first move that did not come) ends the game
    // before anything else happens.
    if let Some(mut p) = flag_plan(l, now) {
        let message = if p.state.reason.as_deref() == Some(ABORTED) {
            "the first move did not come in time: the game is aborted"
        } else {
            "time ran out: the game is over"
        };
        p.then_fail = Some(ApiError::conflict(message).named(Refusal::GameOver));
        return Ok(p);
    }
    let mut state = s.clone();
    state.updated_at = now;
    let opponent = !side;
    match action {
        Action::Move { text, ply } => {
            if let Some(p) = ply
                && *p != s.ply
            {
                let message = format!("the move is for ply {p} but the game is at ply {}", s.ply);
                return Err(ApiError::conflict(message).named(Refusal::StalePly));
            }
            if l.game.side_to_move() != side {
                return Err(ApiError::conflict("it is not your turn").named(Refusal::NotYourTurn));
            }
            if text.len() > 200 {
                return Err(ApiError::bad_request("the move text is too long"));
            }
            // Nothing fails after this: the game is changed in place.
            let text = text.trim();
            let notation = l.game.play(text).map_err(|e| {
                ApiError::unprocessable(format!("`{text}`: {e}")).named(Refusal::IllegalMove(text.into()))
            })?;
            let game = &l.game;
            // The mover's clock: time used, then the increment.
            if let Some(left) = l.time_left(side, now) {
                // A first move, made before its side's clock ran, earns no increment.
                let ran = s.turn_started_at.is_some();
                let left = left + if ran { l.row.clock_increment_ms.unwrap_or(0) } else { 0 };
                match side {
                    Side::White => state.white_ms = Some(left),
                    Side::Black => state.black_ms = Some(left),
                }
            }
            state.ply += 1;
            state.fen = game.fen();
            state.side_to_move = game.side_to_move();
            state.draw_offer = None;
            let append = vec![MoveRow {
                ply: s.ply,
                notation,
                played_at: now,
                white_ms: state.white_ms,
                black_ms: state.black_ms,
            }];
            if let Some((result, winner, reason, margin)) = outcome_columns(game.status()) {
                finish(&mut state, result, winner, reason, margin);
            } else if state.ply >= max_plies
                && let Some((result, winner, _, margin)) = outcome_columns(Status::Over(game.limit_outcome()))
            {
                finish(&mut state, result, winner, LENGTH_CAP.into(), margin);
            } else {
                start_clock(&mut state, now);
            }
            state.ai_to_move = ai_to_move(&state);
            Ok(Plan { append, game: GameChange::Played, ..Plan::state(state) })
        }
        Action::Resign if l.seat(side).player.is_ai() => {
            // The creator of a game between two AIs stops it.
            charge_running(&mut state, l, now);
            finish(&mut state, result_for(None), None, STOPPED.into(), None);
            state.ai_to_move = false;
            Ok(Plan::state(state))
        }
        Action::Resign => {
            charge_running(&mut state, l, now);
            finish(&mut state, result_for(Some(opponent)), Some(opponent), "resignation".into(), None);
            state.ai_to_move = false;
            Ok(Plan::state(state))
        }
        Action::OfferDraw => {
            if l.seat(opponent).player.is_ai() {
                return Err(ApiError::conflict("the AI does not accept draw offers"));
            }
            match s.draw_offer {
                Some(sd) if sd == side => return Err(ApiError::conflict("you already offered a draw")),
                Some(_) => return plan(l, side, &Action::AcceptDraw, now, max_plies),
                None => state.draw_offer = Some(side),
            }
            Ok(Plan::state(state))
        }
        Action::AcceptDraw | Action::DeclineDraw => {
            if s.draw_offer != Some(opponent) {
                return Err(ApiError::conflict("your opponent has not offered a draw"));
            }
            state.draw_offer = None;
            if matches!(action, Action::AcceptDraw) {
                charge_running(&mut state, l, now);
                finish(&mut state, result_for(None), None, "agreement".into(), None);
                state.ai_to_move = false;
                return Ok(Plan::state(state));
            }
            // The offer is gone from the state either way: the offerer is told why.
            Ok(Plan { event: Some(GameEvent::DrawDeclined { by: side_name(side) }), ..Plan::state(state) })
        }
        Action::TakeBack => {
            if !l.seat(opponent).player.is_ai() {
                return Err(ApiError::conflict("moves can be taken back only against the AI"));
            }
            // Back to the last position where it was your turn before your
            // last move: your move, and the AI's reply if it came.
            let plies = if l.game.side_to_move() == side { 2 } else { 1 };
            if s.ply < plies {
                return Err(ApiError::conflict("you have no move to take back"));
            }
            let mut game = l.game.clone();
            for _ in 0..plies {
                game.undo().ok_or_else(|| ApiError::conflict("you have no move to take back"))?;
            }
            let keep = s.ply - plies;
            // The clocks as they were after the last kept move.
            let before = keep.checked_sub(1).and_then(|i| l.row.moves.get(i as usize));
            if l.row.clock_initial_ms.is_some() {
                state.white_ms = before.and_then(|m| m.white_ms).or(l.row.clock_initial_ms);
                state.black_ms = before.and_then(|m| m.black_ms).or(l.row.clock_initial_ms);
            }
            state.ply = keep;
            state.fen = game.fen();
            state.side_to_move = game.side_to_move();
            state.draw_offer = None;
            start_clock(&mut state, now);
            state.ai_to_move = ai_to_move(&state);
            Ok(Plan { truncate_from: Some(keep), game: GameChange::Replaced(game), ..Plan::state(state) })
        }
    }
}

/// `side` offers a rematch of a finished game between two people, or
/// accepts the opponent's offer: then the game names its rematch,
/// `new_id`, which the plan creates ([`rematch_game`]), and this returns
/// the rematch's game for the cache.
pub fn rematch_plan(l: &Loaded, side: Side, new_id: &str, now: i64) -> ApiResult<(Plan, Option<AnyGame>)> {
    let s = &l.row.state;
    if s.status != GameStatus::Over {
        return Err(ApiError::conflict("a rematch is offered once the game is over"));
    }
    let person = |sd: Side| l.seat(sd).player == Player::Human && l.seat(sd).token_hash.is_some();
    if !(person(Side::White) && person(Side::Black)) || s.white.token_hash == s.black.token_hash {
        return Err(ApiError::conflict("a rematch is offered between two people: start a new game instead"));
    }
    if s.rematch.is_some() {
        return Err(ApiError::conflict("the rematch has started"));
    }
    let mut state = s.clone();
    state.updated_at = now;
    match s.rematch_offer {
        Some(sd) if sd == side => Err(ApiError::conflict("you already offered a rematch")),
        Some(_) => {
            state.rematch_offer = None;
            state.rematch = Some(new_id.to_string());
            let (row, game) = rematch_game(l, new_id, now)?;
            Ok((Plan { creates: Some(row), ..Plan::state(state) }, Some(game)))
        }
        None => {
            state.rematch_offer = Some(side);
            Ok((Plan::state(state), None))
        }
    }
}

/// The rematch of a finished game, `id`: the same game, rule set, start,
/// clock and rating, the colours swapped. Each seat keeps its holder's
/// token (so the browsers that held the seats hold the new ones), name and
/// account; the game starts at once.
fn rematch_game(l: &Loaded, id: &str, now: i64) -> ApiResult<(GameRow, AnyGame)> {
    let row = &l.row;
    let kind = row.kind.parse().map_err(|e| ApiError::internal(format!("{e}")))?;
    let game = AnyGame::new(kind, &row.rules, Some(&row.start_fen)).map_err(|e| ApiError::internal(format!("{e}")))?;
    let seats = (row.state.black.clone(), row.state.white.clone());
    let clock = row.clock_initial_ms.map(|initial| (initial, row.clock_increment_ms.unwrap_or(0)));
    let state = new_state(&game, seats, false, clock, None, now);
    let rematch = GameRow {
        id: id.to_string(),
        kind: row.kind.clone(),
        rules: row.rules.clone(),
        start_fen: row.start_fen.clone(),
        clock_initial_ms: row.clock_initial_ms,
        clock_increment_ms: row.clock_increment_ms,
        created_at: crate::model::creation_ms(now),
        listed: false,
        rated: row.rated,
        version: 1,
        state,
        moves: Vec::new(),
    };
    Ok((rematch, game))
}

/// The plan that ends the game on time, if the side to move's flag fell.
pub fn flag_plan(l: &Loaded, now: i64) -> Option<Plan> {
    let s = &l.row.state;
    if s.status != GameStatus::Active {
        return None;
    }
    let side = l.game.side_to_move();
    if s.turn_started_at.is_none() {
        // No clock runs: a first move is due by `deadline_at`, if anything is.
        if s.deadline_at? > now {
            return None;
        }
        let mut state = s.clone();
        finish(&mut state, "*".into(), None, ABORTED.into(), None);
        state.ai_to_move = false;
        state.updated_at = now;
        return Some(Plan::state(state));
    }
    if l.time_left(side, now)? > 0 {
        return None;
    }
    let mut state = s.clone();
    match side {
        Side::White => state.white_ms = Some(0),
        Side::Black => state.black_ms = Some(0),
    }
    let winner = !side;
    finish(&mut state, result_for(Some(winner)), Some(winner), "time".into(), None);
    state.ai_to_move = false;
    state.updated_at = now;
    Some(Plan::state(state))
}

/// Stops the running clock where it stands (the game ends off the board).
fn charge_running(state: &mut GameState, l: &Loaded, now: i64) {
    let side = l.game.side_to_move();
    if let Some(left) = l.time_left(side, now) {
        match side {
            Side::White => state.white_ms = Some(left.max(0)),
            Side::Black => state.black_ms = Some(left.max(0)),
        }
    }
}

fn result_for(winner: Option<Side>) -> String {
    monte_rules::result_string(winner).into()
}

fn finish(state: &mut GameState, result: String, winner: Option<Side>, reason: String, margin: Option<i64>) {
    state.status = GameStatus::Over;
    state.result = Some(result);
    state.winner = winner;
    state.reason = Some(reason);
    state.margin = margin;
    state.turn_started_at = None;
    state.deadline_at = None;
    state.draw_offer = None;
}

/// Starts the side to move's clock at `now` (games with a clock), once
/// that side has made its first move. Before it the clock stands, and a
/// person's first move is due by `now + FIRST_MOVE_MS` (`deadline_at`),
/// or the game is aborted ([`flag_plan`]).
pub fn start_clock(state: &mut GameState, now: i64) {
    let left = match state.side_to_move {
        Side::White => state.white_ms,
        Side::Black => state.black_ms,
    };
    let Some(left) = left else { return };
    // The sides alternate: the side to move has moved once two plies are played.
    if state.ply >= 2 {
        state.turn_started_at = Some(now);
        state.deadline_at = Some(now + left);
    } else {
        state.turn_started_at = None;
        let person = !state.seat(state.side_to_move).player.is_ai();
        state.deadline_at = person.then_some(now + FIRST_MOVE_MS);
    }
}

pub fn ai_to_move(state: &GameState) -> bool {
    state.status == GameStatus::Active && state.seat(state.side_to_move).player.is_ai()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;
    use monte_rules::GameKind;
    use monte_store::GameRow;

    const NOW: i64 = 1_000_000;
    const CAP: i64 = 2000;

    fn person(token: &str) -> SeatRow {
        SeatRow { player: Player::Human, name: None, token_hash: Some(token.into()), account: None }
    }
    fn open_seat() -> SeatRow {
        SeatRow { player: Player::Human, name: None, token_hash: None, account: None }
    }
    fn ai(level: u8) -> SeatRow {
        SeatRow { player: Player::Ai(level), name: None, token_hash: None, account: None }
    }

    /// A new Salta game, in memory: no store, no server.
    fn game(white: SeatRow, black: SeatRow, clock: Option<(i64, i64)>, listed: bool) -> Loaded {
        let game = AnyGame::new(GameKind::Salta, "seed", None).unwrap();
        let open = [&white, &black].iter().any(|s| s.player == Player::Human && s.token_hash.is_none());
        let state = new_state(&game, (white, black), open, clock, open.then(|| "code".to_string()), NOW);
        let row = GameRow {
            id: "g".into(),
            kind: "salta".into(),
            rules: "seed".into(),
            start_fen: game.start_fen(),
            clock_initial_ms: clock.map(|c| c.0),
            clock_increment_ms: clock.map(|c| c.1),
            created_at: NOW,
            listed,
            rated: false,
            version: 1,
            state,
            moves: Vec::new(),
        };
        Loaded { row, game }
    }

    /// Applies a plan as a commit would.
    fn commit(l: &mut Loaded, plan: Plan) {
        if let Some(keep) = plan.truncate_from {
            l.row.moves.truncate(keep as usize);
        }
        l.row.moves.extend(plan.append);
        l.row.state = plan.state;
        if let GameChange::Replaced(game) = plan.game {
            l.game = game;
        }
    }

    fn act(l: &mut Loaded, side: Side, action: Action, now: i64) -> ApiResult<()> {
        let p = plan(l, side, &action, now, CAP)?;
        commit(l, p);
        Ok(())
    }

    fn play(text: &str) -> Action {
        Action::Move { text: text.into(), ply: None }
    }

    fn status_of(r: ApiResult<()>) -> StatusCode {
        r.expect_err("refused").status
    }

    #[test]
    fn turns_alternate_and_a_stale_or_illegal_move_changes_nothing() {
        let mut l = game(person("w"), person("b"), None, false);
        assert_eq!(l.row.state.status, GameStatus::Active);
        assert_eq!(status_of(act(&mut l, Side::Black, play("h8-g7"), NOW)), StatusCode::CONFLICT);
        act(&mut l, Side::White, play("c3-d4"), NOW).unwrap();
        let s = &l.row.state;
        assert_eq!((s.ply, s.side_to_move, l.row.moves.len()), (1, Side::Black, 1));
        assert_eq!(l.row.moves[0].notation, "c3-d4");
        let before = l.row.state.clone();
        let stale = Action::Move { text: "h8-g7".into(), ply: Some(0) };
        assert_eq!(status_of(act(&mut l, Side::Black, stale, NOW)), StatusCode::CONFLICT);
        assert_eq!(status_of(act(&mut l, Side::Black, play("a1-a2"), NOW)), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(l.row.state, before);
        assert_eq!(l.game.fen(), before.fen);
        act(&mut l, Side::Black, Action::Move { text: "h8-g7".into(), ply: Some(1) }, NOW).unwrap();
        assert_eq!(l.row.state.side_to_move, Side::White);
    }

    #[test]
    fn a_game_starts_when_its_open_seat_is_taken() {
        let mut l = game(person("w"), open_seat(), None, false);
        assert_eq!(l.row.state.status, GameStatus::Waiting);
        assert_eq!(status_of(act(&mut l, Side::White, play("c3-d4"), NOW)), StatusCode::CONFLICT);
        let seat = || person("b");
        let refused = |r: ApiResult<(Plan, Side)>| r.expect_err("refused").status;
        assert_eq!(refused(seat_plan(&l, Door::Invite("other"), None, seat(), NOW)), StatusCode::CONFLICT);
        assert_eq!(refused(seat_plan(&l, Door::Public, None, seat(), NOW)), StatusCode::FORBIDDEN);
        assert_eq!(refused(seat_plan(&l, Door::Invite("code"), Some(Side::White), seat(), NOW)), StatusCode::CONFLICT);
        let (p, side) = seat_plan(&l, Door::Invite("code"), None, seat(), NOW).unwrap();
        assert_eq!(side, Side::Black);
        commit(&mut l, p);
        assert_eq!(l.row.state.status, GameStatus::Active);
        // The code is used: it is kept, and refused.
        assert_eq!(refused(seat_plan(&l, Door::Invite("code"), None, seat(), NOW)), StatusCode::CONFLICT);
        act(&mut l, Side::White, play("c3-d4"), NOW).unwrap();
    }

    #[test]
    fn draws_are_offered_declined_and_agreed_between_people_only() {
        let mut l = game(person("w"), person("b"), None, false);
        act(&mut l, Side::White, Action::OfferDraw, NOW).unwrap();
        assert_eq!(l.row.state.draw_offer, Some(Side::White));
        assert_eq!(status_of(act(&mut l, Side::White, Action::OfferDraw, NOW)), StatusCode::CONFLICT);
        assert_eq!(status_of(act(&mut l, Side::White, Action::AcceptDraw, NOW)), StatusCode::CONFLICT);
        act(&mut l, Side::Black, Action::DeclineDraw, NOW).unwrap();
        assert_eq!(l.row.state.draw_offer, None);
        // A move withdraws an offer; an offer answered by an offer is agreed.
        act(&mut l, Side::White, Action::OfferDraw, NOW).unwrap();
        act(&mut l, Side::White, play("c3-d4"), NOW).unwrap();
        assert_eq!(l.row.state.draw_offer, None);
        act(&mut l, Side::White, Action::OfferDraw, NOW).unwrap();
        act(&mut l, Side::Black, Action::OfferDraw, NOW).unwrap();
        let s = &l.row.state;
        assert_eq!(
            (s.status, s.result.as_deref(), s.reason.as_deref()),
            (GameStatus::Over, Some("1/2-1/2"), Some("agreement"))
        );
        assert_eq!(status_of(act(&mut l, Side::Black, play("h8-g7"), NOW)), StatusCode::CONFLICT);
        let mut against_ai = game(person("w"), ai(3), None, false);
        assert_eq!(status_of(act(&mut against_ai, Side::White, Action::OfferDraw, NOW)), StatusCode::CONFLICT);
    }

    #[test]
    fn a_take_back_against_the_ai_takes_its_reply_too() {
        let mut l = game(person("w"), ai(3), None, false);
        assert!(!l.row.state.ai_to_move);
        act(&mut l, Side::White, play("c3-d4"), NOW).unwrap();
        assert!(l.row.state.ai_to_move);
        act(&mut l, Side::Black, play("h8-g7"), NOW).unwrap();
        act(&mut l, Side::White, Action::TakeBack, NOW).unwrap();
        let s = &l.row.state;
        assert_eq!((s.ply, s.side_to_move, l.row.moves.len()), (0, Side::White, 0));
        assert_eq!(l.game.fen(), l.row.state.fen);
        assert_eq!(status_of(act(&mut l, Side::White, Action::TakeBack, NOW)), StatusCode::CONFLICT);
        let mut people = game(person("w"), person("b"), None, false);
        act(&mut people, Side::White, play("c3-d4"), NOW).unwrap();
        assert_eq!(status_of(act(&mut people, Side::White, Action::TakeBack, NOW)), StatusCode::CONFLICT);
    }

    #[test]
    fn clocks_charge_the_mover_and_a_fallen_flag_ends_the_game() {
        let mut l = game(person("w"), person("b"), Some((60_000, 2_000)), false);
        // Each side's clock starts at its first move: the first moves are free.
        assert_eq!((l.row.state.turn_started_at, l.row.state.deadline_at), (None, Some(NOW + FIRST_MOVE_MS)));
        act(&mut l, Side::White, play("c3-d4"), NOW + 5_000).unwrap();
        let s = &l.row.state;
        assert_eq!(s.white_ms, Some(60_000), "no time used, no increment");
        assert_eq!((s.turn_started_at, s.deadline_at), (None, Some(NOW + 5_000 + FIRST_MOVE_MS)));
        act(&mut l, Side::Black, play("h8-g7"), NOW + 8_000).unwrap();
        let s = &l.row.state;
        assert_eq!(s.black_ms, Some(60_000));
        assert_eq!((s.turn_started_at, s.deadline_at), (Some(NOW + 8_000), Some(NOW + 68_000)), "White's clock runs");
        act(&mut l, Side::White, play("d4-e5"), NOW + 11_000).unwrap();
        let s = &l.row.state;
        assert_eq!(s.white_ms, Some(59_000), "3 s used, 2 s added");
        assert_eq!((s.turn_started_at, s.deadline_at), (Some(NOW + 11_000), Some(NOW + 71_000)));
        // The flag falls at the deadline, not a millisecond later.
        assert!(flag_plan(&l, NOW + 70_999).is_none());
        let late = NOW + 71_000;
        let p = plan(&mut l, Side::Black, &play("g7-f6"), late, CAP).unwrap();
        assert_eq!(p.then_fail.as_ref().map(|e| e.status), Some(StatusCode::CONFLICT));
        let s = &p.state;
        assert_eq!(
            (s.status, s.winner, s.reason.as_deref(), s.black_ms),
            (GameStatus::Over, Some(Side::White), Some("time"), Some(0))
        );
        assert_eq!(p.append.len(), 0, "the late move is not played");
    }

    #[test]
    fn a_first_move_that_does_not_come_in_time_aborts_the_game() {
        // White does not move: aborted, no result, at the deadline and not before.
        let l = game(person("w"), person("b"), Some((60_000, 0)), false);
        assert!(flag_plan(&l, NOW + FIRST_MOVE_MS - 1).is_none());
        let s = flag_plan(&l, NOW + FIRST_MOVE_MS).unwrap().state;
        assert_eq!(
            (s.status, s.result.as_deref(), s.winner, s.reason.as_deref()),
            (GameStatus::Over, Some("*"), None, Some(ABORTED))
        );
        // Its record (as `Games::record` writes it) reads back.
        let record = l.game.record(&[("Termination", ABORTED)], s.result.as_deref()).to_string();
        assert!(record.contains("[Result \"*\"]"), "{record}");
        AnyGame::from_record(&record).expect("the record of an aborted game reads");
        // Black's first move, too late: refused, and the game aborted.
        let mut l = game(person("w"), person("b"), Some((60_000, 0)), false);
        act(&mut l, Side::White, play("c3-d4"), NOW).unwrap();
        let p = plan(&mut l, Side::Black, &play("h8-g7"), NOW + FIRST_MOVE_MS, CAP).unwrap();
        assert_eq!(p.then_fail.as_ref().map(|e| e.status), Some(StatusCode::CONFLICT));
        assert_eq!((p.state.reason.as_deref(), p.append.len()), (Some(ABORTED), 0));
        // A game waiting for its second seat has no deadline; the AI's first move has none either.
        let waiting = game(person("w"), open_seat(), Some((60_000, 0)), false);
        assert_eq!(waiting.row.state.deadline_at, None);
        let mut against_ai = game(person("w"), ai(1), Some((60_000, 0)), false);
        act(&mut against_ai, Side::White, play("c3-d4"), NOW).unwrap();
        assert_eq!((against_ai.row.state.deadline_at, against_ai.row.state.turn_started_at), (None, None));
        // Without a clock nothing is due.
        assert_eq!(game(person("w"), person("b"), None, false).row.state.deadline_at, None);
    }

    #[test]
    fn resigning_ends_the_game_and_the_length_cap_scores_it() {
        let mut l = game(person("w"), person("b"), None, false);
        act(&mut l, Side::Black, Action::Resign, NOW).unwrap();
        let s = &l.row.state;
        assert_eq!(
            (s.winner, s.result.as_deref(), s.reason.as_deref()),
            (Some(Side::White), Some("1-0"), Some("resignation"))
        );
        // Between two AIs the creator's token stops the game: a draw.
        let mut ais = game(ai(1), ai(1), None, false);
        assert!(ais.row.state.ai_to_move);
        act(&mut ais, Side::White, Action::Resign, NOW).unwrap();
        let s = &ais.row.state;
        assert_eq!((s.winner, s.reason.as_deref(), s.ai_to_move), (None, Some(STOPPED), false));
        // At the cap the game ends as at a move limit: by the distance count.
        let mut capped = game(person("w"), person("b"), None, false);
        let p = plan(&mut capped, Side::White, &play("c3-d4"), NOW, 1).unwrap();
        let s = &p.state;
        assert_eq!((s.status, s.winner, s.reason.as_deref()), (GameStatus::Over, Some(Side::White), Some(LENGTH_CAP)));
    }
}
