//! The analysis board's server side (docs/api.md, Analysis): lines of
//! positions replayed by the rules (`POST /api/analysis/line`), and the
//! engine over a WebSocket (`/api/analysis/ws`): the best lines of a
//! position as the search deepens, and the review of a whole game.
//!
//! The engine runs on the AI's pool of search threads ([`crate::ai::Pool`]):
//! one thread per search, a few analyses at once, each bounded in time; a
//! person waiting for an AI move takes the thread first (the analysis
//! yields it and gets back in line).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use futures_util::StreamExt;
use monte_engine::ai::{analyse_any, eval_scale};
use monte_engine::{Limits, PvLine, Score, SearchOptions, Searcher};
use monte_rules::any::{AnyError, AnyGame};
use monte_rules::{GameKind, Side};
use monte_store::{GameStatus, side_name};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use utoipa::ToSchema;

use crate::App;
use crate::api::{Bucket, JsonBody, deliver, same_origin, stopped};
use crate::error::{ApiError, ApiResult, ErrorBody, Malformed, NoSuchGame, Unavailable};
use crate::model::{LegalMoves, PlayedMove, ResultView, one_of};

/// Most moves in a line (a game's length cap by default).
pub const MAX_LINE: usize = 2000;

/// How many lines an analysis shows: the engine's three best moves.
pub const LINES: usize = 3;

/// Nodes searched for each position of a review: a few hundredths of a
/// second, so that a game of a hundred moves is reviewed in seconds.
pub const REVIEW_NODES: u64 = 20_000;

/// A review of Focus (and of any game but Salta): White's expected score
/// ([`Eval::white`]); a move that loses its mover 0.05 of it is an
/// inaccuracy, 0.10 a mistake, 0.20 a blunder.
pub const EXPECTED_SCORE: Scale =
    Scale { unit: Unit::ExpectedScore, min: 0.0, max: 1.0, inaccuracy: 0.05, mistake: 0.10, blunder: 0.20 };

/// The largest lead in steps a Salta review gives; a side found to win,
/// or having won, is given it.
pub const MAX_LEAD: f64 = 40.0;

/// A review of Salta: White's lead in steps. Salta's expected score
/// hardly moves (a lead of ten steps is 0.55 through its evaluation's
/// scale, fitted to game results), so a graph of it is flat and its
/// thresholds mark almost nothing; the lead in steps is the unit of its
/// evaluation and of the move limit's count. A move that loses its mover
/// 2 steps of lead is an inaccuracy, 4 a mistake, 8 a blunder.
pub const STEPS: Scale =
    Scale { unit: Unit::Steps, min: -MAX_LEAD, max: MAX_LEAD, inaccuracy: 2.0, mistake: 4.0, blunder: 8.0 };

/// What a review plots and judges moves by, for a game (docs/api.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, ToSchema)]
pub struct Scale {
    pub unit: Unit,
    /// The least value, White's worst (a side found to win is at an end).
    pub min: f64,
    /// The greatest value, White's best.
    pub max: f64,
    /// What a move must lose of its mover's value to be an inaccuracy.
    pub inaccuracy: f64,
    /// What a move must lose of its mover's value to be a mistake.
    pub mistake: f64,
    /// What a move must lose of its mover's value to be a blunder.
    pub blunder: f64,
}

/// The unit of a review's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// White's expected score, 0 to 1.
    ExpectedScore,
    /// White's lead in steps (Salta): the engine's score over 100.
    Steps,
}

impl Scale {
    /// The scale a game's review uses.
    pub fn of(kind: GameKind) -> Scale {
        match kind {
            GameKind::Salta => STEPS,
            _ => EXPECTED_SCORE,
        }
    }

    /// A position's value for White on this scale.
    pub fn value(&self, eval: &Eval) -> f64 {
        match self.unit {
            Unit::ExpectedScore => eval.white,
            Unit::Steps => match (eval.units, &eval.win) {
                (Some(units), _) => (f64::from(units) / 100.0).clamp(self.min, self.max),
                (None, Some(win)) if win.side == side_name(Side::White) => self.max,
                (None, Some(_)) => self.min,
                // A game drawn.
                (None, None) => (self.min + self.max) / 2.0,
            },
        }
    }

    /// `value` for White as `side` sees it (the scale turned for Black).
    fn for_side(&self, value: f64, side: Side) -> f64 {
        if side == Side::White { value } else { self.min + self.max - value }
    }

    /// The judgement of a move that loses `loss` of its mover's value.
    pub fn judge(&self, loss: f64) -> Option<Judgement> {
        [
            (Judgement::Blunder, self.blunder),
            (Judgement::Mistake, self.mistake),
            (Judgement::Inaccuracy, self.inaccuracy),
        ]
        .into_iter()
        .find(|(_, at)| loss >= *at)
        .map(|(j, _)| j)
    }
}

/// Where a line starts: a position, a record (its start and its moves) or a
/// game of this server (its start and its moves).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Start {
    Position(PositionSpec),
    /// A game record (docs/notation.md), as `monte` and `/api/games/{id}/record` write them.
    Record(String),
    /// A game's id.
    Game(String),
}

/// A position of a game under a rule set.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PositionSpec {
    #[schema(schema_with = one_of::game_kind)]
    pub game: String,
    /// Rule set: preset[,key=value...] (docs/rules.md).
    #[serde(default = "seed")]
    #[schema(default = "seed")]
    pub rules: String,
    /// A position string (docs/notation.md); the rule set's start if left out.
    pub fen: Option<String>,
}

fn seed() -> String {
    "seed".into()
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LineRequest {
    pub start: Start,
    /// The moves to play from the start; the start's own moves (a record's,
    /// a game's) if left out.
    pub moves: Option<Vec<String>>,
}

/// A line replayed by the rules: every position along it, and what the
/// last one allows.
#[derive(Debug, Serialize, ToSchema)]
pub struct LineView {
    #[schema(schema_with = one_of::game_kind)]
    pub game: &'static str,
    /// The rule set, in its canonical text form.
    pub rules: String,
    pub start_fen: String,
    /// The start's own moves: a record's or a game's (empty for a position).
    pub main: Vec<String>,
    /// How the start's game ended, if it has.
    pub result: Option<ResultView>,
    /// The position at the start and after every move of the line.
    pub positions: Vec<String>,
    /// The line's moves with their squares.
    pub moves: Vec<PlayedMove>,
    /// The legal moves at the line's end (none when the game is over there).
    pub legal_moves: LegalMoves,
    /// The line's end: whose move it is, and whether the game is over there.
    #[schema(schema_with = one_of::side)]
    pub side_to_move: &'static str,
    pub over: bool,
}

/// A start resolved: the start position as a game, its own moves, its result.
struct Resolved {
    start: AnyGame,
    main: Vec<String>,
    result: Option<ResultView>,
}

fn kind_of(name: &str) -> ApiResult<GameKind> {
    name.parse().map_err(|e| ApiError::bad_request(format!("game: {e}")))
}

/// A position of `kind` under `rules`, or the error naming what is wrong.
fn position(kind: GameKind, rules: &str, fen: Option<&str>) -> ApiResult<AnyGame> {
    AnyGame::new(kind, rules, fen).map_err(|e| match e {
        AnyError::Rules(e) => ApiError::bad_request(format!("rules: {e}")),
        e => ApiError::bad_request(format!("fen: {e}")),
    })
}

async fn resolve(app: &App, start: Start) -> ApiResult<Resolved> {
    match start {
        Start::Position(p) => {
            let start = position(kind_of(&p.game)?, &p.rules, p.fen.as_deref())?;
            Ok(Resolved { start, main: Vec::new(), result: None })
        }
        Start::Record(text) => {
            let game = AnyGame::from_record(&text).map_err(|e| ApiError::bad_request(format!("{e}")))?;
            let start = position(game.kind(), &game.rules(), Some(&game.start_fen()))?;
            let result = monte_rules::record::Record::parse(&text)
                .ok()
                .filter(|r| r.result != "*")
                .map(|r| ResultView { result: r.result, winner: None, reason: String::new(), margin: None })
                .map(|mut view| {
                    view.winner = match view.result.as_str() {
                        "1-0" => Some(side_name(Side::White)),
                        "0-1" => Some(side_name(Side::Black)),
                        _ => None,
                    };
                    view
                });
            Ok(Resolved { start, main: game.history(), result })
        }
        Start::Game(id) => {
            let (kind, rules, fen, main, result) = app
                .games
                .read(&id, |l| {
                    let view = l.view_now(0);
                    let over = l.row.state.status == GameStatus::Over;
                    let main = l.row.moves.iter().map(|m| m.notation.clone()).collect::<Vec<_>>();
                    (
                        l.row.kind.clone(),
                        l.row.rules.clone(),
                        l.row.start_fen.clone(),
                        main,
                        view.result.filter(|_| over),
                    )
                })
                .await?;
            let start = position(kind_of(&kind)?, &rules, Some(&fen))?;
            Ok(Resolved { start, main, result })
        }
    }
}

/// Plays `moves` on `game`, giving `visit` the game before the first and
/// after each; an illegal move is refused by its index.
fn play_line(game: &mut AnyGame, moves: &[String], visit: &mut dyn FnMut(&AnyGame)) -> ApiResult<()> {
    if moves.len() > MAX_LINE {
        return Err(ApiError::bad_request(format!("moves: {} moves, at most {MAX_LINE}", moves.len())));
    }
    visit(game);
    for (i, text) in moves.iter().enumerate() {
        game.play(text).map_err(|e| ApiError::unprocessable(format!("moves[{i}] `{text}`: {e}")))?;
        visit(game);
    }
    Ok(())
}

/// A line of positions from a position, a record or a game
///
/// The rules replay the line: every position along it, each move's
/// squares, and the legal moves at its end. The analysis board asks for
/// one whenever it shows a node of its move tree (it holds no rules).
#[utoipa::path(post, path = "/api/analysis/line",
    request_body(content = LineRequest, example = json!({
        "start": { "position": { "game": "salta", "rules": "seed" } }, "moves": ["c3-d4", "h8-g7"]
    })),
    responses(
        (status = 200, description = "the line", body = LineView),
        (status = 400, response = Malformed),
        (status = 404, response = NoSuchGame),
        (status = 422, description = "a move of the line is illegal (named by its index)", body = ErrorBody),
        (status = 503, response = Unavailable),
    ),
)]
pub async fn line(State(app): State<Arc<App>>, JsonBody(body): JsonBody<LineRequest>) -> ApiResult<Response> {
    let Resolved { start, main, result } = resolve(&app, body.start).await?;
    let mut game = start.clone();
    let moves = body.moves.as_ref().unwrap_or(&main);
    let mut positions = Vec::with_capacity(moves.len() + 1);
    play_line(&mut game, moves, &mut |g| positions.push(g.fen()))?;
    let played = (0..game.moves_played()).filter_map(|n| game.played(n)).map(PlayedMove::from).collect();
    let view = LineView {
        game: game.kind().name(),
        rules: game.rules(),
        start_fen: start.fen(),
        main,
        result,
        positions,
        moves: played,
        legal_moves: LegalMoves::of(&game),
        side_to_move: side_name(game.side_to_move()),
        over: game.status().is_over(),
    };
    Ok(axum::response::IntoResponse::into_response(([(header::CACHE_CONTROL, "no-cache")], axum::Json(view))))
}

/// A position's value, from White's point of view.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Eval {
    /// White's expected score, 0 (Black wins) to 1 (White wins): the
    /// engine's score through the logistic curve fitted to game results
    /// (`EngineGame::eval_scale`).
    pub white: f64,
    /// The engine's score in evaluation units (Salta: a hundredth of a
    /// step; Focus: of a piece); none when a side is found to win.
    pub units: Option<i32>,
    /// The side found to win, in how many plies.
    pub win: Option<Win>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Win {
    #[schema(schema_with = one_of::side)]
    pub side: &'static str,
    pub plies: u32,
}

impl Eval {
    /// `score`, from the point of view of `mover` (the side to move where
    /// it was searched), as White sees it.
    fn of(kind: GameKind, score: Score, mover: Side) -> Eval {
        let flip = |s: Side| if mover == Side::White { s } else { !s };
        let expected = score.expected(eval_scale(kind));
        let white = if mover == Side::White { expected } else { 1.0 - expected };
        let (units, win) = match score {
            Score::Units(u) => (Some(if mover == Side::White { u } else { -u }), None),
            Score::WinIn(p) => (None, Some(Win { side: side_name(flip(Side::White)), plies: p })),
            Score::LossIn(p) => (None, Some(Win { side: side_name(flip(Side::Black)), plies: p })),
        };
        Eval { white, units, win }
    }

    /// The value of a game over: its result.
    fn over(game: &AnyGame) -> Eval {
        let outcome = match game.status() {
            monte_rules::Status::Over(o) => o.winner,
            monte_rules::Status::Ongoing => None,
        };
        let white = match outcome {
            Some(Side::White) => 1.0,
            Some(Side::Black) => 0.0,
            None => 0.5,
        };
        Eval { white, units: None, win: outcome.map(|side| Win { side: side_name(side), plies: 0 }) }
    }
}

/// How bad a move is, by what it loses of its mover's value ([`Scale`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

/// A move of a review marked as an inaccuracy, a mistake or a blunder.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Mark {
    /// The move's number in the line, from 1: it leads to position `ply`.
    pub ply: usize,
    #[schema(schema_with = one_of::side)]
    pub side: &'static str,
    pub judgement: Judgement,
    /// What the move lost of its mover's value, in the review's unit.
    pub loss: f64,
}

/// The marks of a review: each move judged by what it loses of its
/// mover's value (`values`, White's, on `scale`) between the position
/// before it and the one after.
pub fn marks(scale: &Scale, values: &[f64], movers: &[Side]) -> Vec<Mark> {
    values
        .windows(2)
        .zip(movers)
        .enumerate()
        .filter_map(|(i, (pair, &mover))| {
            let loss = scale.for_side(pair[0], mover) - scale.for_side(pair[1], mover);
            scale.judge(loss).map(|judgement| Mark { ply: i + 1, side: side_name(mover), judgement, loss })
        })
        .collect()
}

/// One of the engine's lines in a position.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LineEval {
    pub eval: Eval,
    /// The position's value for White on the game's scale (the
    /// `Analysis` message's `scale`, the review's): the evaluation bar's.
    pub value: f64,
    /// The line, from its first move, in notation.
    pub moves: Vec<String>,
    /// The first move with its squares (the board's arrow).
    pub first: PlayedMove,
}

/// What the analysis socket sends.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AnalysisMessage {
    /// An analysis's lines at a depth completed, best first.
    Analysis {
        position: String,
        depth: u32,
        nodes: u64,
        time_ms: u64,
        lines: Vec<LineEval>,
        /// The scale of the lines' `value`: the game's, as in its review.
        scale: Scale,
    },
    /// The analysis of `position` ended (its time is up, or the search
    /// cannot change its result).
    AnalysisDone {
        position: String,
    },
    /// The value of the review's position `ply` (0: the start).
    Review {
        ply: usize,
        eval: Eval,
        /// What the graph plots: the position's value for White on `scale`.
        value: f64,
        /// The review's scale: its unit, its ends and what a move must
        /// lose to be marked.
        scale: Scale,
    },
    /// The review is complete: its marked moves.
    ReviewDone {
        marks: Vec<Mark>,
    },
    Error {
        status: u16,
        error: String,
    },
}

impl AnalysisMessage {
    fn text(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|e| format!("{{\"type\":\"error\",\"status\":500,\"error\":\"{e}\"}}"))
    }
    fn error(e: ApiError) -> AnalysisMessage {
        AnalysisMessage::Error { status: e.status.as_u16(), error: e.message }
    }
}

/// A line: `moves` played from the position `fen` (the rule set's start
/// if left out); the moves give the history, for repetition.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    #[schema(schema_with = one_of::game_kind)]
    game: String,
    #[serde(default = "seed")]
    #[schema(default = "seed")]
    rules: String,
    fen: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
}

impl LineSpec {
    /// The start, then the game after each move, each given to `visit`.
    fn replay(&self, mut visit: impl FnMut(&AnyGame)) -> ApiResult<AnyGame> {
        let mut game = position(kind_of(&self.game)?, &self.rules, self.fen.as_deref())?;
        play_line(&mut game, &self.moves, &mut visit)?;
        Ok(game)
    }
}

/// What a client sends on /api/analysis/ws (JSON text, at most 64 KiB).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AnalysisCommand {
    /// Analyse the position at the end of the line; replaces the
    /// analysis running.
    Analyse(LineSpec),
    /// Review every position of the line; replaces the review running.
    Review(LineSpec),
    /// Stop the analysis and the review.
    Stop,
    Ping,
}

/// The engine on the analysis board: lines and reviews
///
/// Upgrade to a WebSocket. `{"type":"analyse","game":"salta","rules":"seed","fen":"...","moves":[...]}`
/// analyses the position after `moves` from `fen` (the rule set's start
/// if left out): the server sends `{"type":"analysis",...}` with the
/// engine's three best lines after every depth completed, then
/// `{"type":"analysis_done"}`. `{"type":"review",...}` (the same fields)
/// evaluates every position of the line: `{"type":"review","ply":i,"eval":...}`
/// each, then `{"type":"review_done","marks":[...]}`. A new command
/// replaces the one of its kind running, `{"type":"stop"}` stops both, and
/// closing the socket stops them. Each analysis searches at most the
/// server's time per analysis (10 s by default, docs/api.md). Failures:
/// `{"type":"error","status":400,"error":"..."}`.
#[utoipa::path(get, path = "/api/analysis/ws", responses(
    (status = 101, description = "switching to the WebSocket protocol"),
    (status = 403, description = "cross-site request: the Origin header names another site", body = ErrorBody),
))]
pub async fn socket(State(app): State<Arc<App>>, headers: HeaderMap, ws: WebSocketUpgrade) -> ApiResult<Response> {
    // Another site's page would spend this server's engine time.
    if let Some(origin) = headers.get(header::ORIGIN)
        && !same_origin(origin.as_bytes(), &headers)
    {
        return Err(ApiError::forbidden("cross-site request refused: the Origin is not this server"));
    }
    let ws = ws.max_message_size(64 * 1024).read_buffer_size(4 * 1024);
    Ok(ws.on_upgrade(move |socket| serve(socket, app)))
}

/// A search running for a socket: stopped when dropped.
struct Job {
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.task.abort();
    }
}

async fn serve(socket: WebSocket, app: Arc<App>) {
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<AnalysisMessage>();
    let mut stopping = app.stopping.subscribe();
    let within = app.config.limits.ws_timeout;
    // Dropping a job stops its search.
    let mut jobs = Jobs::default();
    let ws_burst = (app.config.ws_rate * 2.0).max(1.0);
    let mut bucket = Bucket::new(ws_burst);
    loop {
        tokio::select! {
            () = stopped(&mut stopping) => break,
            Some(message) = rx.recv() => {
                if !deliver(&mut sink, Message::Text(message.text().into()), within).await {
                    break;
                }
            }
            incoming = stream.next() => {
                let text = match incoming {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                let limited = app.config.ws_rate > 0.0 && !bucket.take(ws_burst, app.config.ws_rate);
                let command = match limited {
                    true => Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too many commands: slow down")),
                    false => serde_json::from_str::<AnalysisCommand>(text.as_str())
                        .map_err(|e| ApiError::bad_request(format!("invalid command: {e}"))),
                };
                let outcome = match command {
                    Ok(AnalysisCommand::Analyse(line)) => {
                        jobs.analysis = None;
                        analysed(&line).map(|game| jobs.analysis = Some(spawn_analysis(app.clone(), game, tx.clone())))
                    }
                    Ok(AnalysisCommand::Review(line)) => {
                        jobs.review = None;
                        let mut games = Vec::new();
                        line.replay(|game| games.push(game.clone()))
                            .map(|_| jobs.review = Some(spawn_review(app.clone(), games, tx.clone())))
                    }
                    Ok(AnalysisCommand::Stop) => {
                        jobs = Jobs::default();
                        Ok(())
                    }
                    Ok(AnalysisCommand::Ping) => Ok(()),
                    Err(e) => Err(e),
                };
                if let Err(e) = outcome
                    && !deliver(&mut sink, Message::Text(AnalysisMessage::error(e).text().into()), within).await
                {
                    break;
                }
            }
        }
    }
}

/// A socket's searches: one analysis and one review at most.
#[derive(Default)]
struct Jobs {
    analysis: Option<Job>,
    review: Option<Job>,
}

/// The game at the end of a line, to analyse.
fn analysed(line: &LineSpec) -> ApiResult<AnyGame> {
    let game = line.replay(|_| {})?;
    if game.status().is_over() {
        return Err(ApiError::new(StatusCode::CONFLICT, "the game is over in this position: nothing to analyse"));
    }
    Ok(game)
}

/// A searcher for the analysis board: one thread, draws worth nothing
/// (the value of the position, as `monte analyze` gives it).
fn searcher() -> Searcher {
    Searcher::new(SearchOptions { hash_mb: 16, threads: 1, contempt: 0, ..Default::default() })
}

fn spawn_analysis(app: Arc<App>, game: AnyGame, tx: mpsc::UnboundedSender<AnalysisMessage>) -> Job {
    let stop = Arc::new(AtomicBool::new(false));
    let cancelled = stop.clone();
    let task = tokio::spawn(async move {
        let budget = app.config.ai.max_analysis;
        let searcher = Arc::new(searcher());
        let position = game.fen();
        let kind = game.kind();
        let mover = game.side_to_move();
        let started = Instant::now();
        // Each completed depth once, also across the searches of a run that
        // yielded its thread (the next one goes deeper from a warm table).
        let mut reported = 0;
        loop {
            let left = budget.saturating_sub(started.elapsed());
            if left.is_zero() {
                break;
            }
            let Some(slice) = app.pool.analysis_slice(&cancelled).await else { return };
            let (game, searcher, tx, slice_stop) = (game.clone(), searcher.clone(), tx.clone(), slice.stop.clone());
            let position = position.clone();
            let searched = tokio::task::spawn_blocking(move || {
                let mut on_info = |info: &monte_engine::SearchInfo| {
                    if info.depth <= reported {
                        return;
                    }
                    reported = info.depth;
                    let lines = info.lines.iter().filter_map(|l| line_eval(&game, mover, l)).collect();
                    let _ = tx.send(AnalysisMessage::Analysis {
                        position: position.clone(),
                        depth: info.depth,
                        nodes: info.nodes,
                        time_ms: info.time.as_millis() as u64,
                        lines,
                        scale: Scale::of(kind),
                    });
                };
                let r = analyse_any(&searcher, &game, &Limits::movetime(left), LINES, &slice_stop, &mut on_info);
                (r, reported)
            })
            .await;
            let yielded = slice.yielded();
            drop(slice);
            let Ok((result, depth)) = searched else { return };
            reported = depth;
            if cancelled.load(Ordering::Relaxed) || result.is_err() || !yielded {
                break;
            }
        }
        if !cancelled.load(Ordering::Relaxed) {
            let _ = tx.send(AnalysisMessage::AnalysisDone { position });
        }
    });
    Job { stop, task }
}

/// An engine line as the board shows it, if its first move is legal.
fn line_eval(game: &AnyGame, mover: Side, line: &PvLine) -> Option<LineEval> {
    let first = line.pv.first()?;
    let info = game.legal_moves().into_iter().find(|m| &m.notation == first)?;
    let eval = Eval::of(game.kind(), line.score, mover);
    let value = Scale::of(game.kind()).value(&eval);
    Some(LineEval { eval, value, moves: line.pv.clone(), first: info.into() })
}

fn spawn_review(app: Arc<App>, line: Vec<AnyGame>, tx: mpsc::UnboundedSender<AnalysisMessage>) -> Job {
    let stop = Arc::new(AtomicBool::new(false));
    let cancelled = stop.clone();
    let task = tokio::spawn(async move {
        let searcher = Arc::new(searcher());
        let line = Arc::new(line);
        let scale = line.first().map_or(EXPECTED_SCORE, |game| Scale::of(game.kind()));
        let mut evals: Vec<Eval> = Vec::with_capacity(line.len());
        // Position after position, a slice of the thread at a time.
        while evals.len() < line.len() {
            let Some(slice) = app.pool.analysis_slice(&cancelled).await else { return };
            let (line, searcher, stop, tx) = (line.clone(), searcher.clone(), slice.stop.clone(), tx.clone());
            let from = evals.len();
            let found = tokio::task::spawn_blocking(move || {
                let mut found = Vec::new();
                for (ply, game) in line.iter().enumerate().skip(from) {
                    let eval = if game.status().is_over() {
                        Eval::over(game)
                    } else {
                        let lines = analyse_any(&searcher, game, &Limits::nodes(REVIEW_NODES), 1, &stop, &mut |_| {});
                        // A search cut short is done again in the next slice.
                        let Some(best) = lines.ok().and_then(|l| l.into_iter().next()) else { break };
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        Eval::of(game.kind(), best.score, game.side_to_move())
                    };
                    let value = scale.value(&eval);
                    let _ = tx.send(AnalysisMessage::Review { ply, eval: eval.clone(), value, scale });
                    found.push(eval);
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                found
            })
            .await;
            let yielded = slice.yielded();
            drop(slice);
            let Ok(found) = found else { return };
            if cancelled.load(Ordering::Relaxed) || (found.is_empty() && !yielded) {
                return;
            }
            evals.extend(found);
        }
        let movers: Vec<Side> = line.iter().map(AnyGame::side_to_move).collect();
        let values: Vec<f64> = evals.iter().map(|e| scale.value(e)).collect();
        let _ = tx.send(AnalysisMessage::ReviewDone { marks: marks(&scale, &values, &movers) });
    });
    Job { stop, task }
}

/// How long an analysis may search, at most, by default.
pub const MAX_ANALYSIS: Duration = Duration::from_secs(10);

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(white: f64) -> Eval {
        Eval { white, units: None, win: None }
    }

    fn units(units: i32) -> Eval {
        Eval { white: Score::Units(units).expected(eval_scale(GameKind::Salta)), units: Some(units), win: None }
    }

    fn won(side: Side) -> Eval {
        Eval { white: 0.5, units: None, win: Some(Win { side: side_name(side), plies: 0 }) }
    }

    #[test]
    fn moves_are_judged_by_what_they_lose_for_their_mover() {
        let scale = EXPECTED_SCORE;
        assert_eq!(scale.judge(0.04), None);
        assert_eq!(scale.judge(0.05), Some(Judgement::Inaccuracy));
        assert_eq!(scale.judge(0.12), Some(Judgement::Mistake));
        assert_eq!(scale.judge(0.5), Some(Judgement::Blunder));
        // White loses 0.3 with the first move; Black then gains, and loses
        // 0.06 with the second.
        let values: Vec<f64> = [eval(0.8), eval(0.5), eval(0.56)].iter().map(|e| scale.value(e)).collect();
        let marks = marks(&scale, &values, &[Side::White, Side::Black]);
        assert_eq!(marks.len(), 2);
        assert_eq!((marks[0].ply, marks[0].side, marks[0].judgement), (1, "white", Judgement::Blunder));
        assert_eq!((marks[1].ply, marks[1].side, marks[1].judgement), (2, "black", Judgement::Inaccuracy));
    }

    #[test]
    fn focus_is_reviewed_by_expected_score_and_salta_by_steps() {
        assert_eq!(Scale::of(GameKind::Focus), EXPECTED_SCORE);
        assert_eq!(Scale::of(GameKind::Salta), STEPS);
        assert_eq!(EXPECTED_SCORE.value(&eval(0.61)), 0.61);
        // Salta: the score over 100, a win at the scale's end, a draw in the middle.
        assert_eq!(STEPS.value(&units(-350)), -3.5);
        assert_eq!(STEPS.value(&units(100 * 1000)), MAX_LEAD);
        assert_eq!(STEPS.value(&won(Side::White)), MAX_LEAD);
        assert_eq!(STEPS.value(&won(Side::Black)), -MAX_LEAD);
        assert_eq!(STEPS.value(&Eval { white: 0.5, units: None, win: None }), 0.0);
    }

    #[test]
    fn salta_moves_are_judged_by_the_steps_they_lose() {
        // Ten steps are barely 0.05 of Salta's expected score: by that, a
        // move that gives ten steps away would be only an inaccuracy.
        let (before, after) = (units(500), units(-500));
        assert!(before.white - after.white < EXPECTED_SCORE.mistake);
        // By steps: White's move loses 1.5 steps (nothing), Black's gains
        // half a step; White's next loses 2.5 (an inaccuracy), Black's 5 (a
        // mistake); White's walks into a loss (a blunder).
        let values: Vec<f64> = [units(300), units(150), units(100), units(-150), units(350), won(Side::Black)]
            .iter()
            .map(|e| STEPS.value(e))
            .collect();
        let movers = [Side::White, Side::Black, Side::White, Side::Black, Side::White];
        let judged: Vec<_> =
            marks(&STEPS, &values, &movers).iter().map(|m| (m.ply, m.side, m.judgement, m.loss)).collect();
        assert_eq!(
            judged,
            [
                (3, "white", Judgement::Inaccuracy, 2.5),
                (4, "black", Judgement::Mistake, 5.0),
                (5, "white", Judgement::Blunder, 3.5 + MAX_LEAD),
            ]
        );
        // A win missed: also a blunder.
        let missed = [won(Side::White), units(-100)].map(|e| STEPS.value(&e));
        let blunder = marks(&STEPS, &missed, &[Side::White]);
        assert_eq!((blunder[0].judgement, blunder[0].loss), (Judgement::Blunder, MAX_LEAD + 1.0));
    }

    #[test]
    fn an_eval_is_seen_from_white() {
        let e = Eval::of(GameKind::Salta, Score::Units(500), Side::Black);
        assert_eq!(e.units, Some(-500));
        assert!(e.white < 0.5);
        let e = Eval::of(GameKind::Focus, Score::WinIn(3), Side::Black);
        assert_eq!((e.white, e.win.map(|w| (w.side, w.plies))), (0.0, Some(("black", 3))));
        let e = Eval::of(GameKind::Focus, Score::LossIn(2), Side::Black);
        assert_eq!((e.white, e.win.map(|w| w.side)), (1.0, Some("white")));
    }
}
