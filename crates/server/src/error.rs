//! The one error type of the API: every failure becomes a status code and
//! `{ "error": "..." }` naming the problem.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use monte_store::StoreError;
use serde::Serialize;
use utoipa::{ToResponse, ToSchema};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// What a client may translate instead of `message`, if it has a name.
    pub refusal: Option<Refusal>,
}

/// A refusal with a stable name (`code`) and its parameters, for clients
/// that say it in their own words: the message stays English.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The rules refuse the move, given as it was sent.
    IllegalMove(String),
    NotYourTurn,
    /// The move was meant for another ply.
    StalePly,
    GameOver,
    GameNotStarted,
    /// An account name that is not 2 to 20 letters, digits, `-` or `_`.
    NameInvalid,
    NameReserved,
    NameTaken,
    PasswordInvalid,
    /// A sign-in with a wrong name or password (which, it does not say).
    WrongCredentials,
    TooManyAttempts,
    NotSignedIn,
    /// A rated game's seat is for a signed-in player.
    RatedNeedsAccount,
}

impl Refusal {
    /// Every code, for the OpenAPI document.
    pub const CODES: &[&str] = &[
        "illegal_move",
        "not_your_turn",
        "stale_ply",
        "game_over",
        "game_not_started",
        "name_invalid",
        "name_reserved",
        "name_taken",
        "password_invalid",
        "wrong_credentials",
        "too_many_attempts",
        "not_signed_in",
        "rated_needs_account",
    ];

    pub fn code(&self) -> &'static str {
        match self {
            Refusal::IllegalMove(_) => "illegal_move",
            Refusal::NotYourTurn => "not_your_turn",
            Refusal::StalePly => "stale_ply",
            Refusal::GameOver => "game_over",
            Refusal::GameNotStarted => "game_not_started",
            Refusal::NameInvalid => "name_invalid",
            Refusal::NameReserved => "name_reserved",
            Refusal::NameTaken => "name_taken",
            Refusal::PasswordInvalid => "password_invalid",
            Refusal::WrongCredentials => "wrong_credentials",
            Refusal::TooManyAttempts => "too_many_attempts",
            Refusal::NotSignedIn => "not_signed_in",
            Refusal::RatedNeedsAccount => "rated_needs_account",
        }
    }

    /// The move a refusal names, if any.
    pub fn move_text(&self) -> Option<&str> {
        match self {
            Refusal::IllegalMove(text) => Some(text),
            _ => None,
        }
    }
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), refusal: None }
    }
    /// The same error, named for clients that translate it.
    pub fn named(self, refusal: Refusal) -> ApiError {
        ApiError { refusal: Some(refusal), ..self }
    }
    /// A malformed request.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
    /// A well-formed request the rules refuse (an illegal move).
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }
    /// No token, or a token that holds no seat of this game.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, message)
    }
    /// A seat holder asking for something not theirs to do.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }
    /// Not possible in the game's current state (not your turn, over, lost a race).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl std::error::Error for ApiError {}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("storage unavailable: {e}"))
    }
}

/// The body of every error answer, whatever its status.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Error, example = json!({ "error": "it is not your turn", "code": "not_your_turn" }))]
pub struct ErrorBody {
    /// What is wrong (in English).
    pub error: String,
    /// The refusal's stable name, to translate instead of `error`; left out
    /// for errors without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = error_code)]
    pub code: Option<&'static str>,
    /// With `illegal_move`: the move as it was sent.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub mv: Option<String>,
}

/// The schema of an error's `code`.
pub fn error_code() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new().schema_type(Type::String).enum_values(Some(Refusal::CODES.iter().copied())).build()
}

impl From<ApiError> for ErrorBody {
    fn from(e: ApiError) -> ErrorBody {
        let code = e.refusal.as_ref().map(Refusal::code);
        let mv = e.refusal.as_ref().and_then(Refusal::move_text).map(str::to_string);
        ErrorBody { error: e.message, code, mv }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(ErrorBody::from(self))).into_response()
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// Declares the error answers that many routes share: each is described
/// once in the OpenAPI document (`#/components/responses/NAME`), and the
/// routes' `#[utoipa::path]` refer to it.
macro_rules! shared_error_answers {
    ($($name:ident: $description:literal;)*) => {$(
        #[derive(Debug, ToResponse)]
        #[response(description = $description)]
        pub struct $name(pub ErrorBody);
    )*};
}

shared_error_answers! {
    Malformed: "malformed request (bad JSON, unknown field, bad value)";
    NoToken: "no seat token";
    NoSeat: "the token holds no seat of this game";
    NoSuchGame: "no such game or invite";
    NotNow: "not possible now (not your turn, game over, stale ply, lost a race)";
    IllegalMove: "illegal move";
    Unavailable: "database unavailable";
    NotSignedIn: "not signed in (no session cookie, or an expired one)";
    NoSuchPlayer: "no such player";
}
