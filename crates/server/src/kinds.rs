//! What a client needs to draw a game of a kind without knowing its rules:
//! the board, the start position and, for Salta, where each piece is going.
//! Every answer comes from the rules crate.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use monte_rules::GameKind;
use monte_rules::any::{AnyGame, BoardLayout, board_layout};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::{ApiError, ApiResult, ErrorBody, Malformed};
use crate::model::one_of;

/// The game kind a route names.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct KindName {
    /// `salta` or `focus`.
    #[param(schema_with = one_of::game_kind)]
    game: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RulesQuery {
    /// Rule set: preset[,key=value...] (docs/rules.md).
    #[param(default = "seed", max_length = 200)]
    rules: Option<String>,
}

/// A game kind under one rule set, as a board draws it.
#[derive(Debug, Serialize, ToSchema)]
pub struct KindView {
    #[schema(schema_with = one_of::game_kind)]
    pub game: &'static str,
    /// The rule set, in its canonical text form.
    pub rules: String,
    pub board: BoardView,
    /// The rule set's start position.
    pub start_fen: String,
    /// Salta: each piece's token (`S1`) and the square it must reach under
    /// this rule set; empty for Focus.
    #[schema(example = json!({ "S1": "j10", "s1": "a1" }))]
    pub targets: BTreeMap<String, String>,
}

/// The board: a grid of `files` x `ranks`, pieces on the squares of `rows`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Board)]
pub struct BoardView {
    pub files: u8,
    pub ranks: u8,
    /// The squares pieces stand on (Salta: the dark ones; Focus: all but
    /// the corners), rank by rank from the last rank down, each from the
    /// `a` file: the order of the cells in a position string.
    #[schema(example = json!([["c8", "d8", "e8", "f8"], ["b7", "c7", "d7", "e7", "f7", "g7"]]))]
    pub rows: Vec<Vec<String>>,
    /// Each side's pieces in a game, wherever they are (Focus: on the
    /// board, in reserve, or captured).
    pub pieces_per_side: u8,
}

impl From<BoardLayout> for BoardView {
    fn from(layout: BoardLayout) -> BoardView {
        BoardView {
            files: layout.files,
            ranks: layout.ranks,
            rows: layout.rows,
            pieces_per_side: layout.pieces_per_side,
        }
    }
}

/// Longest rule set text taken (as in a created game).
const MAX_RULES: usize = 200;

/// A game kind's board, and a rule set's start position and targets
///
/// Everything a board needs besides a game's state: the page draws any
/// position of the kind with it and knows no rules of its own.
#[utoipa::path(get, path = "/api/kinds/{game}", params(KindName, RulesQuery), responses(
    (status = 200, description = "the kind under the rule set", body = KindView),
    (status = 400, response = Malformed),
    (status = 404, description = "no such game kind", body = ErrorBody),
))]
pub async fn describe_kind(
    Path(KindName { game }): Path<KindName>,
    Query(q): Query<RulesQuery>,
) -> ApiResult<Response> {
    let kind: GameKind = game.parse().map_err(|e| ApiError::not_found(format!("{e}")))?;
    let rules = q.rules.unwrap_or_else(|| "seed".into());
    if rules.len() > MAX_RULES {
        return Err(ApiError::bad_request(format!("rules: longer than {MAX_RULES} bytes")));
    }
    let start = AnyGame::new(kind, &rules, None).map_err(|e| ApiError::bad_request(format!("rules: {e}")))?;
    let body = KindView {
        game: kind.name(),
        rules: start.rules(),
        board: board_layout(kind).into(),
        start_fen: start.start_fen(),
        targets: start.targets().into_iter().collect(),
    };
    // The answer changes only with the server's binary.
    Ok(([(header::CACHE_CONTROL, "public, max-age=3600")], Json(body)).into_response())
}
