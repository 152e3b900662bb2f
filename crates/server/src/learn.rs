//! Lessons (`/learn`, docs/api.md, Lessons): short tasks on positions of
//! Salta and Focus, each checked by the rules. The lessons are data
//! (`lessons.json`, embedded): a position, the task's text in English and
//! Russian, and the goals a move must meet. The page sends the learner's
//! move; the server plays it with the rules crate and says whether it is
//! legal and which goal, if any, it misses. The page holds no rules and no
//! answers.

use std::sync::OnceLock;

use axum::Json;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use monte_rules::any::{AnyGame, MoveInfo, MoveShape};
use monte_rules::{GameKind, Side, Status};
use monte_store::side_name;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::JsonBody;
use crate::error::{ApiError, ApiResult, ErrorBody, Malformed, Refusal};
use crate::model::{PlayedMove, one_of};

/// The lessons as written (checked when first read and by the tests).
const LESSONS: &str = include_str!("lessons.json");

/// A text in every language of the page.
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub en: String,
    pub ru: String,
}

/// What a task's move must do. A task lists one or more; the move must
/// meet them all.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(tag = "goal", rename_all = "snake_case", deny_unknown_fields)]
pub enum Goal {
    /// The move starts on `square` (moves that piece or stack).
    From { square: String },
    /// The move ends on `square`.
    Reach { square: String },
    /// Salta: a jump sequence of at least `jumps` jumps; Focus: a jump.
    Jump { jumps: usize },
    /// Salta: the move carries a Salta call.
    Call,
    /// Salta: the piece moved ends on its own target.
    Home,
    /// Focus: a group of exactly `pieces` pieces.
    Pieces { pieces: u32 },
    /// Focus: a group that sweeps up at least one stack on its way.
    Sweep,
    /// Focus: after the move, the mover controls the stack on `square`.
    Control { square: String },
    /// Focus: at least `pieces` of the mover's pieces go to his reserve.
    Reserve { pieces: u32 },
    /// Focus: at least `pieces` of the opponent's pieces are captured.
    Capture { pieces: u32 },
    /// Focus: a piece dropped from the reserve.
    Drop,
    /// The move wins the game.
    Win,
}

/// A task as written in the lessons' data.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskData {
    fen: String,
    text: Text,
    goals: Vec<Goal>,
    solution: String,
    wrong: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LessonData {
    id: String,
    game: String,
    rules: String,
    title: Text,
    tasks: Vec<TaskData>,
}

/// A task: a position, what to do there, and (for the tests) a move that
/// does it and moves that do not.
#[derive(Debug)]
pub struct Task {
    pub start: AnyGame,
    pub text: Text,
    pub goals: Vec<Goal>,
    pub solution: String,
    pub wrong: Vec<String>,
}

#[derive(Debug)]
pub struct Lesson {
    pub id: String,
    pub game: GameKind,
    /// The rule set in its canonical text form.
    pub rules: String,
    pub title: Text,
    pub tasks: Vec<Task>,
}

/// What is wrong with the lessons' data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("lessons.json: {0}")]
pub struct LessonsError(String);

fn read(text: &str) -> Result<Vec<Lesson>, LessonsError> {
    let data: Vec<LessonData> = serde_json::from_str(text).map_err(|e| LessonsError(e.to_string()))?;
    data.into_iter()
        .map(|lesson| {
            let at = |what: String| LessonsError(format!("{}: {what}", lesson.id));
            let game: GameKind = lesson.game.parse().map_err(|e| at(format!("{e}")))?;
            let rules = AnyGame::canonical_rules(game, &lesson.rules).map_err(|e| at(format!("rules: {e}")))?;
            let tasks = lesson
                .tasks
                .into_iter()
                .enumerate()
                .map(|(i, task)| {
                    let start =
                        AnyGame::new(game, &rules, Some(&task.fen)).map_err(|e| at(format!("task {i}: {e}")))?;
                    if task.goals.is_empty() {
                        return Err(at(format!("task {i}: no goals")));
                    }
                    Ok(Task { start, text: task.text, goals: task.goals, solution: task.solution, wrong: task.wrong })
                })
                .collect::<Result<Vec<_>, _>>()?;
            if tasks.is_empty() {
                return Err(at("no tasks".into()));
            }
            Ok(Lesson { id: lesson.id, game, rules, title: lesson.title, tasks })
        })
        .collect()
}

/// Every lesson, read once from the embedded data.
pub fn lessons() -> Result<&'static [Lesson], LessonsError> {
    static LESSONS_READ: OnceLock<Result<Vec<Lesson>, LessonsError>> = OnceLock::new();
    LESSONS_READ.get_or_init(|| read(LESSONS)).as_ref().map(Vec::as_slice).map_err(Clone::clone)
}

/// A move tried on a task: the game after it, the move as played, and the
/// first goal it misses (none: the task is done).
#[derive(Debug)]
pub struct Tried {
    pub after: AnyGame,
    pub played: MoveInfo,
    pub missed: Option<Goal>,
}

/// Plays `text` on the task's position; an illegal move is the rules' error.
pub fn attempt(task: &Task, text: &str) -> Result<Tried, monte_rules::any::AnyError> {
    let mut after = task.start.clone();
    after.play(text)?;
    let played = after.played(after.moves_played() - 1).ok_or_else(|| {
        monte_rules::any::AnyError::Rules(monte_rules::RulesError::new("the move played cannot be described"))
    })?;
    let missed = task.goals.iter().find(|goal| !meets(goal, &task.start, &after, &played)).cloned();
    Ok(Tried { after, played, missed })
}

/// Whether the move `played` from `before` to `after` meets `goal`.
fn meets(goal: &Goal, before: &AnyGame, after: &AnyGame, played: &MoveInfo) -> bool {
    let mover = before.side_to_move();
    match goal {
        Goal::From { square } => played.from.as_deref() == Some(square),
        Goal::Reach { square } => played.to.as_deref() == Some(square),
        Goal::Jump { jumps } => played.kind == MoveShape::Jump && played.path.len().max(1) >= *jumps,
        Goal::Call => played.call,
        Goal::Home => home(after, played),
        Goal::Pieces { pieces } => played.kind == MoveShape::Group && played.count == Some(*pieces),
        Goal::Sweep => {
            played.kind == MoveShape::Group
                && played.count.is_some_and(|count| focus_stack(after, played.to.as_deref()).1 > count)
        }
        Goal::Control { square } => focus_stack(after, Some(square)).0 == Some(mover),
        Goal::Reserve { pieces } => focus_counts(after, mover).0 >= focus_counts(before, mover).0 + pieces,
        Goal::Capture { pieces } => focus_counts(after, !mover).1 >= focus_counts(before, !mover).1 + pieces,
        Goal::Drop => played.kind == MoveShape::Drop,
        Goal::Win => matches!(after.status(), Status::Over(o) if o.winner == Some(mover)),
    }
}

/// Salta: the piece on the move's last square stands on its own target.
fn home(game: &AnyGame, played: &MoveInfo) -> bool {
    let AnyGame::Salta(g) = game else { return false };
    let Some(square) = played.to.as_deref().and_then(|s| monte_rules::salta::geometry::parse_square(s).ok()) else {
        return false;
    };
    g.position().target_of_square(square) == Some(square)
}

/// Focus: who controls the stack on `square`, and its height.
fn focus_stack(game: &AnyGame, square: Option<&str>) -> (Option<Side>, u32) {
    let AnyGame::Focus(g) = game else { return (None, 0) };
    let Some(square) = square.and_then(|s| monte_rules::focus::geometry::parse_square(s).ok()) else {
        return (None, 0);
    };
    let stack = g.position().stack(square);
    (stack.top(), stack.height())
}

/// Focus: `side`'s reserve and its pieces captured.
fn focus_counts(game: &AnyGame, side: Side) -> (u32, u32) {
    let AnyGame::Focus(g) = game else { return (0, 0) };
    (g.position().reserve(side), g.position().captured(side))
}

// ---- the API ----

/// A task as the page shows it (without its solution).
#[derive(Debug, Serialize, ToSchema)]
pub struct TaskView {
    /// The position to play in.
    pub fen: String,
    /// Whose move it is there: the learner's side.
    #[schema(schema_with = one_of::side)]
    pub side_to_move: &'static str,
    pub text: Text,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LessonView {
    pub id: String,
    #[schema(schema_with = one_of::game_kind)]
    pub game: &'static str,
    /// The rule set, in its canonical text form.
    pub rules: String,
    pub title: Text,
    pub tasks: Vec<TaskView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LessonList {
    pub lessons: Vec<LessonView>,
}

fn unavailable(e: LessonsError) -> ApiError {
    ApiError::internal(e.to_string())
}

/// The lessons
///
/// Every lesson of both games, in order: its tasks' positions and texts.
/// What each task asks for is checked by `POST /api/learn/try`.
#[utoipa::path(get, path = "/api/learn", responses(
    (status = 200, description = "the lessons", body = LessonList),
))]
pub async fn list() -> ApiResult<Response> {
    let lessons = lessons().map_err(unavailable)?;
    let body = LessonList {
        lessons: lessons
            .iter()
            .map(|lesson| LessonView {
                id: lesson.id.clone(),
                game: lesson.game.name(),
                rules: lesson.rules.clone(),
                title: lesson.title.clone(),
                tasks: lesson
                    .tasks
                    .iter()
                    .map(|task| TaskView {
                        fen: task.start.fen(),
                        side_to_move: side_name(task.start.side_to_move()),
                        text: task.text.clone(),
                    })
                    .collect(),
            })
            .collect(),
    };
    // The lessons change only with the server's binary.
    Ok(([(header::CACHE_CONTROL, "public, max-age=3600")], Json(body)).into_response())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TryRequest {
    /// The lesson's id.
    pub lesson: String,
    /// The task's index in the lesson, from 0.
    pub task: usize,
    /// The learner's move, in notation.
    #[serde(rename = "move")]
    pub mv: String,
}

/// A legal move tried on a task.
#[derive(Debug, Serialize, ToSchema)]
pub struct TryView {
    /// The move meets every goal of the task.
    pub solved: bool,
    /// The move with its squares.
    pub played: PlayedMove,
    /// The position after it.
    pub fen: String,
    /// The first goal the move misses (none when solved).
    pub missed: Option<Goal>,
}

/// Try a move on a lesson's task
///
/// The rules play the move on the task's position: an illegal move is
/// refused (422, `illegal_move`); a legal one is answered with the position
/// after it and whether it does what the task asks (`solved`), or else the
/// first goal it misses. Nothing is stored.
#[utoipa::path(post, path = "/api/learn/try",
    request_body(content = TryRequest, example = json!({ "lesson": "salta-steps", "task": 0, "move": "e3-f4" })),
    responses(
        (status = 200, description = "the move is legal: solved or not", body = TryView),
        (status = 400, response = Malformed),
        (status = 404, description = "no such lesson or task", body = ErrorBody),
        (status = 422, description = "the move is illegal there (`illegal_move`)", body = ErrorBody),
    ),
)]
pub async fn try_move(JsonBody(body): JsonBody<TryRequest>) -> ApiResult<Json<TryView>> {
    let lessons = lessons().map_err(unavailable)?;
    let task = lessons
        .iter()
        .find(|l| l.id == body.lesson)
        .ok_or_else(|| ApiError::not_found(format!("no lesson `{}`", body.lesson)))?
        .tasks
        .get(body.task)
        .ok_or_else(|| ApiError::not_found(format!("lesson `{}` has no task {}", body.lesson, body.task)))?;
    let tried = attempt(task, &body.mv).map_err(|e| {
        ApiError::unprocessable(format!("`{}`: {e}", body.mv)).named(Refusal::IllegalMove(body.mv.clone()))
    })?;
    Ok(Json(TryView {
        solved: tried.missed.is_none(),
        played: PlayedMove::from(tried.played),
        fen: tried.after.fen(),
        missed: tried.missed,
    }))
}
