//! The HTTP/JSON API and the WebSocket (docs/api.md, `/api/openapi.json`).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::extract::{ConnectInfo, FromRequest, Path, Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use monte_store::{ListFilter, StoreHealth, parse_side, side_name};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use tower_http::limit::RequestBodyLimitLayer;
use utoipa::openapi::OpenApi as Document;
use utoipa::openapi::request_body::RequestBody;
use utoipa::openapi::schema::{SchemaType, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response as Answer, ResponseBuilder, Schema};
use utoipa::{IntoParams, IntoResponses, OpenApi, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::App;
use crate::accounts::SignedIn;
use crate::error::{
    ApiError, ApiResult, ErrorBody, IllegalMove, Malformed, NoSeat, NoSuchGame, NoSuchPlayer, NoToken, NotNow,
    NotSignedIn, Unavailable,
};
use crate::games::{Action, NewGame, SeatSpec};
use crate::hub::{Push, WsServerMessage, state_message};
use crate::model::{GameSummary, GameView, hash_token, now_ms, one_of};
use monte_rules::Side;

/// What the OpenAPI document says beyond the handlers: what the API is,
/// the answers shared by many routes, and the WebSocket's messages (sent
/// over the socket, so in no HTTP answer).
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Monte game server",
        description = "Salta and Focus online: games, seats with secret tokens, AI seats, clocks, WebSocket push. \
            Every error is `{\"error\": \"...\"}` (the schema Error) with a 4xx/5xx status; a change is committed \
            to the database before it is answered or pushed. Limits: 20 HTTP requests/s per client address in \
            bursts of 100 (429, with Retry-After), 64 open connections per client address (429) and 10,000 in \
            all (503), request headers in 10 s and bodies in 10 s more (408), 64 KiB request bodies (413), \
            16 KiB WebSocket commands, 20 WebSocket commands/s per connection. See docs/api.md for the flows, \
            guarantees, clocks and deployment (SQLite, PostgreSQL, several instances)."
    ),
    components(
        schemas(
            WsServerMessage,
            WsCommand,
            GameList,
            crate::lobby::LobbyCommand,
            crate::lobby::Started,
            crate::analysis::AnalysisCommand,
            crate::analysis::AnalysisMessage
        ),
        responses(Malformed, NoToken, NoSeat, NoSuchGame, NotNow, IllegalMove, Unavailable, NotSignedIn, NoSuchPlayer)
    )
)]
struct ApiDoc;

/// The API's routes, each declared once: the router serves them and the
/// OpenAPI document describes them, from each handler's `#[utoipa::path]`.
fn api_routes() -> OpenApiRouter<Arc<App>> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(crate::web::page_shell))
        .routes(routes!(health))
        .routes(routes!(live))
        .routes(routes!(ready))
        .routes(routes!(metrics))
        .routes(routes!(openapi_document))
        .routes(routes!(crate::kinds::describe_kind))
        .routes(routes!(create_game))
        .routes(routes!(list_open))
        .routes(routes!(list_live))
        .routes(routes!(list_mine))
        .routes(routes!(get_game))
        .routes(routes!(play_move))
        .routes(routes!(resign))
        .routes(routes!(draw))
        .routes(routes!(take_back))
        .routes(routes!(rematch))
        .routes(routes!(join_public))
        .routes(routes!(record))
        .routes(routes!(websocket))
        .routes(routes!(show_invite, join))
        .routes(routes!(crate::accounts::sign_up))
        .routes(routes!(crate::accounts::sign_in, crate::accounts::sign_out))
        .routes(routes!(crate::accounts::me, crate::accounts::delete_me))
        .routes(routes!(crate::accounts::my_data))
        .routes(routes!(crate::accounts::player))
        .routes(routes!(crate::accounts::player_games))
        .routes(routes!(crate::accounts::leaderboard))
        .routes(routes!(crate::lobby::list_seeks))
        .routes(routes!(crate::lobby::lobby_socket))
        .routes(routes!(crate::lobby::accept_seek))
        .routes(routes!(crate::analysis::line))
        .routes(routes!(crate::analysis::socket))
        .routes(routes!(crate::learn::list))
        .routes(routes!(crate::learn::try_move))
}

/// The OpenAPI document of the API (served at `/api/openapi.json`; a copy
/// is checked in at `docs/openapi.json`).
pub fn openapi() -> Document {
    let mut document = api_routes().into_openapi();
    let components = document.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "seatToken",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some("the secret token of a seat, given once when the seat is taken"))
                .build(),
        ),
    );
    describe_layers(&mut document);
    document
}

/// [`openapi`] as JSON text, made once.
pub fn openapi_json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| {
        openapi().to_pretty_json().unwrap_or_else(|e| format!("{{\"error\": \"the document cannot be written: {e}\"}}"))
    })
}

/// Adds to every operation what the layers around the handlers do
/// ([`router`]): any request may be refused by the rate limit, any POST
/// or DELETE by [`same_origin_json`], and one with a body by the body
/// limit and [`JsonBody`], which also reads a body left out as `{}`.
fn describe_layers(document: &mut Document) {
    let shared = document.components.as_ref().map(|c| c.responses.clone()).unwrap_or_default();
    let description = |answer: &RefOr<Answer>| match answer {
        RefOr::T(own) => own.description.clone(),
        RefOr::Ref(to) => {
            let name = to.ref_location.rsplit('/').next().unwrap_or_default();
            match shared.get(name) {
                Some(RefOr::T(answer)) => answer.description.clone(),
                _ => String::new(),
            }
        }
    };
    for item in document.paths.paths.values_mut() {
        for (method, operation) in [("get", &mut item.get), ("post", &mut item.post), ("delete", &mut item.delete)] {
            let Some(operation) = operation else { continue };
            let answers = &mut operation.responses.responses;
            answers.entry("429".into()).or_insert_with(|| error_answer("rate limit"));
            if method == "get" {
                continue;
            }
            let cross_site = "cross-site request: the Origin header names another site";
            let forbidden = match answers.get("403") {
                Some(own) => format!("{}; {cross_site}", description(own)),
                None => cross_site.to_string(),
            };
            answers.insert("403".into(), error_answer(&forbidden));
            if method == "delete" && operation.request_body.is_none() {
                continue;
            }
            if let Some(RefOr::T(body)) = &mut operation.request_body {
                may_be_left_out(body);
            }
            let answers = &mut operation.responses.responses;
            answers.entry("400".into()).or_insert_with(|| RefOr::Ref(Ref::from_response_name("Malformed")));
            answers.entry("413".into()).or_insert_with(|| error_answer("request body too large"));
            if method == "post" {
                answers.entry("415".into()).or_insert_with(|| {
                    error_answer("the body is not declared JSON (Content-Type: application/json is required)")
                });
            }
        }
    }
}

/// An optional request body (`Option<T>` in `#[utoipa::path]`) is one
/// that may be left out, not a JSON `null`: its schema is `T`'s alone.
fn may_be_left_out(body: &mut RequestBody) {
    let is_null = |schema: &&RefOr<Schema>| matches!(schema, RefOr::T(Schema::Object(object)) if object.schema_type == SchemaType::new(Type::Null));
    for content in body.content.values_mut() {
        let RefOr::T(content) = content else { continue };
        let Some(RefOr::T(Schema::OneOf(one_of))) = &content.schema else { continue };
        let mut not_null = one_of.items.iter().filter(|s| !is_null(s));
        if let (Some(only), None) = (not_null.next(), not_null.next()) {
            content.schema = Some(only.clone());
        }
    }
}

/// An error answer: `description`, and the body [`ErrorBody`].
fn error_answer(description: &str) -> RefOr<Answer> {
    let body = ContentBuilder::new().schema(Some(Ref::from_schema_name("Error"))).build();
    RefOr::T(ResponseBuilder::new().description(description).content("application/json", body).build())
}

/// What a request for a route that is not served is answered (404).
pub const NO_SUCH_ENDPOINT: &str = "no such endpoint (see /api/openapi.json)";

pub fn router(app: Arc<App>) -> Router {
    let limiter = Arc::new(RateLimiter::new(app.config.rate_limit, app.config.rate_burst));
    Router::from(api_routes())
        .merge(crate::web::router())
        .fallback(crate::web::fallback)
        .layer(RequestBodyLimitLayer::new(app.config.body_limit))
        .layer(middleware::from_fn(same_origin_json))
        .layer(middleware::map_response(json_errors))
        .layer(middleware::from_fn_with_state(limiter, rate_limit))
        .layer(middleware::from_fn_with_state(app.games.metrics.clone(), crate::metrics::observe))
        .with_state(app)
}

/// Every request that changes state (a POST) must say its body is JSON,
/// and come from this server's own pages when it names its origin: a
/// page of another site can send a form or a `text/plain` POST without
/// asking, but not a JSON one (that takes a CORS preflight, which this
/// server does not grant), and its browser names its origin. Seat tokens
/// do not travel by themselves, but an invite code in a URL would, and so
/// does the session cookie (SameSite=Lax keeps it off cross-site POSTs in
/// browsers that honour it): a cross-site POST could take the seat. A
/// DELETE (signing out, deleting an account) must come from this server's
/// pages too.
async fn same_origin_json(req: Request, next: Next) -> Response {
    if req.method() != Method::POST && req.method() != Method::DELETE {
        return next.run(req).await;
    }
    let headers = req.headers();
    // A DELETE cannot be sent by a form, nor across sites without a
    // preflight: only its origin is checked.
    let json = req.method() == Method::DELETE
        || headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a request that changes state must be sent as JSON (Content-Type: application/json)",
        )
        .into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN)
        && !same_origin(origin.as_bytes(), headers)
    {
        let origin = String::from_utf8_lossy(origin.as_bytes()).chars().take(100).collect::<String>();
        return ApiError::forbidden(format!("cross-site request refused: Origin `{origin}` is not this server"))
            .into_response();
    }
    next.run(req).await
}

/// Whether `origin` (`scheme://host[:port]`) names the host the request
/// was sent to (`Host`, or `X-Forwarded-Host` behind a proxy: a page of
/// another site cannot set either).
pub(crate) fn same_origin(origin: &[u8], headers: &HeaderMap) -> bool {
    let Ok(origin) = std::str::from_utf8(origin) else { return false };
    let Some((_, authority)) = origin.split_once("://") else { return false };
    ["host", "x-forwarded-host"]
        .into_iter()
        .filter_map(|name| headers.get(name)?.to_str().ok())
        .any(|host| host.trim().eq_ignore_ascii_case(authority))
}

/// A JSON request body; an empty body reads as `{}`. Unknown fields are
/// refused by the request types.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;
    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if crate::net::is_body_timeout(&e) {
                ApiError::new(StatusCode::REQUEST_TIMEOUT, "the request body came too slowly")
            } else {
                ApiError::new(e.status(), e.body_text())
            }
        })?;
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}" } else { &bytes };
        serde_json::from_slice(bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::bad_request(format!("invalid JSON body: {e}")))
    }
}

/// The token of `Authorization: Bearer TOKEN`.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer "))?.trim();
    (!token.is_empty()).then_some(token)
}

/// A game, and the side whose seat the caller's token holds.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameResponse {
    game: GameView,
    #[schema(schema_with = one_of::side_or_null)]
    you: Option<&'static str>,
}

/// The counters of this instance, and whether its store takes writes.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `degraded` (with 503): a write failed in the last 5 s, or writes are
    /// refused until a restart.
    #[schema(schema_with = one_of::health)]
    status: &'static str,
    #[schema(schema_with = one_of::database)]
    database: &'static str,
    instance: String,
    games_in_memory: usize,
    watchers: usize,
    /// Open connections to this instance, WebSockets included.
    connections: usize,
    /// AI moves this instance claimed and searched.
    ai_searches: u64,
    /// AI moves this instance committed.
    ai_moves: u64,
    /// Games read from the database and replayed.
    games_replayed: u64,
    /// When degraded: the latest failed write.
    #[serde(skip_serializing_if = "Option::is_none")]
    store_error: Option<String>,
    /// When degraded: how long ago it failed, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    store_error_ms_ago: Option<u64>,
    /// When degraded: writes are refused until the server is restarted.
    #[serde(skip_serializing_if = "Option::is_none")]
    writes_refused: Option<bool>,
}

/// What a 503 from `/api/health` carries: an error when the database does
/// not answer, the health when the store is degraded.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum Unhealthy {
    Unreachable(ErrorBody),
    Degraded(Health),
}

/// Health: the database answers and takes writes
#[utoipa::path(get, path = "/api/health", responses(
    (status = 200, description = "healthy", body = Health),
    (status = 503, body = Unhealthy, description = "the database does not answer (an error), or the store is \
        degraded (the health object, `status` `degraded`)"),
))]
async fn health(State(app): State<Arc<App>>) -> ApiResult<Response> {
    let store = &app.games.store;
    store.ping().await?;
    let mut health = Health {
        status: "ok",
        database: store.kind().name(),
        instance: store.instance().to_string(),
        games_in_memory: app.games.cached(),
        watchers: app.games.hub.watchers(),
        connections: app.connections.open(),
        ai_searches: app.stats.ai_searches.load(std::sync::atomic::Ordering::Relaxed),
        ai_moves: app.stats.ai_moves.load(std::sync::atomic::Ordering::Relaxed),
        games_replayed: app.games.replays(),
        store_error: None,
        store_error_ms_ago: None,
        writes_refused: None,
    };
    match store.health() {
        StoreHealth::Ok => Ok(Json(health).into_response()),
        StoreHealth::Degraded { error, for_ms, lasting } => {
            health.status = "degraded";
            health.store_error = Some(error);
            health.store_error_ms_ago = Some(for_ms);
            health.writes_refused = Some(lasting);
            Ok((StatusCode::SERVICE_UNAVAILABLE, Json(health)).into_response())
        }
    }
}

/// Readiness: the same checks and answers as /api/health
#[utoipa::path(get, path = "/api/ready", responses(
    (status = 200, description = "healthy", body = Health),
    (status = 503, body = Unhealthy, description = "the database does not answer (an error), or the store is \
        degraded (the health object, `status` `degraded`)"),
))]
async fn ready(app: State<Arc<App>>) -> ApiResult<Response> {
    health(app).await
}

#[derive(Debug, Serialize, ToSchema)]
struct Alive {
    #[schema(schema_with = one_of::alive)]
    status: &'static str,
}

/// Liveness: the process answers (no database query)
#[utoipa::path(get, path = "/api/live", responses((status = 200, description = "alive", body = Alive)))]
async fn live() -> Json<Alive> {
    Json(Alive { status: "alive" })
}

/// Metrics of this instance in the Prometheus text format (docs/api.md#metrics)
#[utoipa::path(get, path = "/metrics", responses(
    (status = 200, description = "the metrics", body = String, content_type = "text/plain"),
))]
async fn metrics(State(app): State<Arc<App>>) -> Response {
    let text = app.games.metrics.render(app.games.cached(), app.games.hub.watchers(), app.connections.open());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response()
}

/// This document
#[utoipa::path(get, path = "/api/openapi.json", responses(
    (status = 200, description = "OpenAPI 3.1 document", content_type = "application/json"),
))]
async fn openapi_document() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], openapi_json()).into_response()
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CreateGame {
    #[schema(schema_with = one_of::game_kind)]
    game: String,
    /// Rule set: preset[,key=value...] (docs/rules.md).
    #[schema(default = "seed")]
    rules: Option<String>,
    /// Start position (default: the rule set's).
    fen: Option<String>,
    /// `me` | `open` | `ai:LEVEL`.
    #[schema(default = "me")]
    white: Option<String>,
    /// `me` | `open` | `ai:LEVEL`.
    #[schema(default = "open")]
    black: Option<String>,
    /// The creator's name.
    #[schema(max_length = 40)]
    name: Option<String>,
    clock: Option<ClockSpec>,
    /// Open to anyone: listed in /api/games/open and joined by id (POST
    /// /api/games/{id}/join); otherwise an open seat is for whoever holds
    /// the invite code. Needs an open seat.
    #[serde(default)]
    public: bool,
    /// Counts for the ratings: the creator signed in, the game's default
    /// rule set from its start position, a clock, one seat `me` and the
    /// other `open` (taken by a signed-in player).
    #[serde(default)]
    rated: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockSpec {
    #[schema(minimum = 0, maximum = 1440)]
    pub minutes: f64,
    /// Seconds added after each move.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 600)]
    pub increment: f64,
}

/// A created game, and the tokens of the seats its creator took.
#[derive(Debug, Serialize, ToSchema)]
struct CreatedGame {
    game: GameView,
    tokens: Tokens,
    invite: Option<Invite>,
}

/// The secret token of each seat the creator took.
#[derive(Debug, Default, Serialize, ToSchema)]
struct Tokens {
    #[serde(skip_serializing_if = "Option::is_none")]
    white: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    black: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
struct Invite {
    code: String,
    #[schema(example = "/api/invites/k3mz8q2ab7xw")]
    url: String,
}

/// Create a game
///
/// Each seat is `me` (the creator takes it and gets its token), `open`
/// (someone joins with the invite) or `ai:LEVEL` (1-8). Defaults: white
/// `me`, black `open`. Tokens are given only in this answer.
#[utoipa::path(post, path = "/api/games",
    request_body(content = CreateGame, example = json!({
        "game": "salta", "rules": "seed", "white": "me", "black": "open", "name": "Ann",
        "clock": { "minutes": 5, "increment": 3 }
    })),
    responses(
        (status = 201, description = "created", body = CreatedGame),
        (status = 401, description = "a rated game needs the creator signed in", body = ErrorBody),
        (status = 503, response = Unavailable),
    ),
)]
async fn create_game(
    State(app): State<Arc<App>>,
    peer: Option<axum::Extension<ConnectInfo<SocketAddr>>>,
    signed_in: SignedIn,
    JsonBody(body): JsonBody<CreateGame>,
) -> ApiResult<Response> {
    let seat = |s: &Option<String>, default: &str| s.as_deref().unwrap_or(default).parse::<SeatSpec>();
    let new = NewGame {
        kind: body.game,
        rules: body.rules.unwrap_or_else(|| "seed".into()),
        fen: body.fen,
        white: seat(&body.white, "me")?,
        black: seat(&body.black, "open")?,
        name: body.name,
        clock: body.clock.map(|c| (c.minutes, c.increment)),
        public: body.public,
        rated: body.rated,
        creator: signed_in.0,
    };
    let created = if new.between_ais() {
        let address = client_address(peer.as_ref().map(|p| &p.0));
        let cap = app.config.ai.watched_per_address;
        app.watched.admit(&app.games, address, cap, app.games.create(new)).await?
    } else {
        app.games.create(new).await?
    };
    let mut tokens = Tokens::default();
    for (side, token) in created.tokens {
        match side {
            Side::White => tokens.white = Some(token),
            Side::Black => tokens.black = Some(token),
        }
    }
    let invite = created.invite.map(|code| Invite { url: format!("/api/invites/{code}"), code });
    let body = CreatedGame { game: created.view, tokens, invite };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    #[param(minimum = 1, maximum = 200, default = 50)]
    limit: Option<i64>,
}

fn limit(q: &ListQuery) -> ApiResult<i64> {
    match q.limit {
        None => Ok(50),
        Some(n) if (1..=200).contains(&n) => Ok(n),
        Some(n) => Err(ApiError::bad_request(format!("limit {n}: expected 1 to 200"))),
    }
}

/// Games, newest change first.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameList {
    games: Vec<GameSummary>,
}

/// What a request for a list of games is answered.
#[derive(Debug, IntoResponses)]
pub enum ListAnswers {
    /// games
    #[response(status = 200)]
    Games(GameList),
    #[response(status = 400)]
    Malformed(#[ref_response] Malformed),
    #[response(status = 503)]
    Unavailable(#[ref_response] Unavailable),
}

async fn list(app: &App, filter: &ListFilter, limit: i64) -> ApiResult<Json<GameList>> {
    Ok(Json(GameList { games: app.games.list(filter, limit).await? }))
}

/// Games waiting for an opponent (never with their invite codes)
#[utoipa::path(get, path = "/api/games/open", params(ListQuery), responses(ListAnswers))]
async fn list_open(State(app): State<Arc<App>>, Query(q): Query<ListQuery>) -> ApiResult<Json<GameList>> {
    list(&app, &ListFilter::Open, limit(&q)?).await
}

/// Games being played, to watch
#[utoipa::path(get, path = "/api/games/live", params(ListQuery), responses(ListAnswers))]
async fn list_live(State(app): State<Arc<App>>, Query(q): Query<ListQuery>) -> ApiResult<Json<GameList>> {
    list(&app, &ListFilter::Live, limit(&q)?).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct Mine {
    #[schema(max_items = 100)]
    tokens: Vec<String>,
    #[schema(minimum = 1, maximum = 200)]
    limit: Option<i64>,
}

/// My games: the games where these tokens hold a seat (tokens in the body, not the URL)
#[utoipa::path(post, path = "/api/games/mine", request_body = Mine, responses(ListAnswers))]
async fn list_mine(State(app): State<Arc<App>>, JsonBody(body): JsonBody<Mine>) -> ApiResult<Json<GameList>> {
    if body.tokens.len() > 100 || body.tokens.iter().any(|t| t.len() > 128) {
        return Err(ApiError::bad_request("tokens: at most 100, of at most 128 characters"));
    }
    let hashes = body.tokens.iter().map(|t| crate::model::hash_token(t)).collect();
    let n = limit(&ListQuery { limit: body.limit })?;
    list(&app, &ListFilter::Seats(hashes), n).await
}

/// The game a route names.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
struct GameId {
    /// Game id.
    id: String,
}

/// What reading a game (or the game behind an invite) can fail with.
#[derive(Debug, IntoResponses)]
pub enum ReadErrors {
    #[response(status = 404)]
    NoSuchGame(#[ref_response] NoSuchGame),
    #[response(status = 503)]
    Unavailable(#[ref_response] Unavailable),
}

/// The game's state (anyone may read; with a seat token `you` names the seat)
#[utoipa::path(get, path = "/api/games/{id}", params(GameId), security((), ("seatToken" = [])), responses(
    (status = 200, description = "the game, and the caller's side", body = GameResponse),
    ReadErrors,
))]
async fn get_game(
    State(app): State<Arc<App>>,
    Path(GameId { id }): Path<GameId>,
    headers: HeaderMap,
) -> ApiResult<Json<GameResponse>> {
    let token = bearer(&headers);
    let (game, you) = app
        .games
        .fresh(&id, |loaded| {
            let you = token.and_then(|t| loaded.side_of(t)).map(side_name);
            let mut game = loaded.view(now_ms());
            if you.is_some() {
                game.now.invite = loaded.open_invite();
            }
            (game, you)
        })
        .await?;
    Ok(Json(GameResponse { game, you }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    text: String,
    ply: Option<i64>,
}

/// What the actions of a seat's holder (a move, a resignation, a draw's
/// offer or answer, a take-back) are answered.
#[derive(Debug, IntoResponses)]
pub enum SeatActionAnswers {
    /// the game after the change, and the caller's side
    #[response(status = 200)]
    Done(Box<GameResponse>),
    #[response(status = 401)]
    NoToken(#[ref_response] NoToken),
    #[response(status = 403)]
    NoSeat(#[ref_response] NoSeat),
    #[response(status = 404)]
    NoSuchGame(#[ref_response] NoSuchGame),
    #[response(status = 409)]
    NotNow(#[ref_response] NotNow),
    #[response(status = 503)]
    Unavailable(#[ref_response] Unavailable),
}

async fn act(app: &App, id: &str, headers: &HeaderMap, action: Action) -> ApiResult<Json<GameResponse>> {
    let (game, side) = app.games.perform(id, bearer(headers), action).await?;
    Ok(Json(GameResponse { game, you: Some(side_name(side)) }))
}

/// Play a move
///
/// `move` in the game's notation (as listed in `legal_moves`). `ply`, if
/// given, must equal the game's `ply`: a move for a turn that has passed is
/// refused (409). Committed to the database before the answer and the push.
#[utoipa::path(post, path = "/api/games/{id}/moves", params(GameId), security(("seatToken" = [])),
    request_body(content = MoveBody, example = json!({ "move": "c3-d4", "ply": 0 })),
    responses(SeatActionAnswers, (status = 422, response = IllegalMove)),
)]
async fn play_move(
    State(app): State<Arc<App>>,
    Path(GameId { id }): Path<GameId>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<MoveBody>,
) -> ApiResult<Json<GameResponse>> {
    act(&app, &id, &headers, Action::Move { text: body.text, ply: body.ply }).await
}

/// No fields: an empty body, or `{}`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct Empty {}

/// Resign
#[utoipa::path(post, path = "/api/games/{id}/resign", params(GameId), security(("seatToken" = [])),
    request_body = Option<Empty>,
    responses(SeatActionAnswers),
)]
async fn resign(
    State(app): State<Arc<App>>,
    Path(GameId { id }): Path<GameId>,
    headers: HeaderMap,
    JsonBody(_): JsonBody<Empty>,
) -> ApiResult<Json<GameResponse>> {
    act(&app, &id, &headers, Action::Resign).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct DrawBody {
    #[schema(schema_with = one_of::draw_action)]
    action: String,
}

fn draw_action(name: &str) -> ApiResult<Action> {
    match name {
        "offer" => Ok(Action::OfferDraw),
        "accept" => Ok(Action::AcceptDraw),
        "decline" => Ok(Action::DeclineDraw),
        _ => Err(ApiError::bad_request(format!("draw action `{name}`: expected offer, accept or decline"))),
    }
}

/// Offer, accept or decline a draw
///
/// An offer stands until the opponent answers or a move is made; offering
/// when the opponent has offered accepts. The AI accepts no draws.
#[utoipa::path(post, path = "/api/games/{id}/draw", params(GameId), security(("seatToken" = [])),
    request_body(content = DrawBody, example = json!({ "action": "offer" })),
    responses(SeatActionAnswers),
)]
async fn draw(
    State(app): State<Arc<App>>,
    Path(GameId { id }): Path<GameId>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<DrawBody>,
) -> ApiResult<Json<GameResponse>> {
    act(&app, &id, &headers, draw_action(&body.action)?).await
}

/// Take back your last move against the AI (with the AI's reply if it came)
#[utoipa::path(post, path = "/api/games/{id}/takeback", params(GameId), security(("seatToken" = [])),
    request_body = Option<Empty>,
    responses(SeatActionAnswers),
)]
async fn take_back(
    State(app): State<Arc<App>>,
    Path(GameId { id }): Path<GameId>,
    headers: HeaderMap,
    JsonBody(_): JsonBody<Empty>,
) -> ApiResult<Json<GameResponse>> {
    act(&app, &id, &headers, Action::TakeBack).await
}

/// Offer a rematch of a finished game, or accept the opponent's offer
///
/// Between two people only. Accepting starts the rematch at once: the
/// same game, rule set, start, clock and rating, the colours swapped; its
/// id is the game's `rematch`, and each player's token holds the seat of
/// the other colour there.
#[utoipa::path(post, path = "/api/games/{id}/rematch", params(GameId), security(("seatToken" = [])),
    request_body = Option<Empty>,
    responses(SeatActionAnswers),
)]
async fn rematch(
    State(app): State<Arc<App>>,
    Path(GameId { id }): Path<GameId>,
    headers: HeaderMap,
    JsonBody(_): JsonBody<Empty>,
) -> ApiResult<Json<GameResponse>> {
    let hash = bearer(&headers).map(hash_token);
    let (game, side) = app.games.rematch(&id, hash.as_deref(), true).await?;
    Ok(Json(GameResponse { game: crate::games::full(game)?, you: Some(side_name(side)) }))
}

/// The game record (tags and moves, docs/notation.md)
#[utoipa::path(get, path = "/api/games/{id}/record", params(GameId), responses(
    (status = 200, description = "record", body = String, content_type = "text/plain"),
    ReadErrors,
))]
async fn record(State(app): State<Arc<App>>, Path(GameId { id }): Path<GameId>) -> ApiResult<Response> {
    let text = app.games.record(&id).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// The invite a route names.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
struct InviteCode {
    /// Invite code.
    code: String,
}

/// The game behind an invite, and its open seats.
#[derive(Debug, Serialize, ToSchema)]
struct InviteView {
    game: GameView,
    /// `white`, `black`, or both.
    open: Vec<&'static str>,
}

/// The game behind an invite and its open seats
#[utoipa::path(get, path = "/api/invites/{code}", params(InviteCode), responses(
    (status = 200, description = "invite", body = InviteView),
    ReadErrors,
))]
async fn show_invite(
    State(app): State<Arc<App>>,
    Path(InviteCode { code }): Path<InviteCode>,
) -> ApiResult<Json<InviteView>> {
    let id = find_invite(&app, &code).await?;
    let loaded = app.games.get(&id).await?;
    let game = loaded.view(now_ms());
    let seats = &game.now.seats;
    let open = [("white", seats.white.open), ("black", seats.black.open)]
        .into_iter()
        .filter_map(|(s, o)| o.then_some(s))
        .collect();
    Ok(Json(InviteView { game, open }))
}

async fn find_invite(app: &App, code: &str) -> ApiResult<String> {
    if code.is_empty() || code.len() > 32 || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(ApiError::not_found(format!("no invite `{}`", code.chars().take(40).collect::<String>())));
    }
    app.games.store.find_invite(code).await?.ok_or_else(|| ApiError::not_found(format!("no invite `{code}`")))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({ "name": "Bob" }))]
struct JoinBody {
    #[schema(max_length = 40)]
    name: Option<String>,
    /// The seat to take (by default the first open one).
    #[schema(schema_with = one_of::side)]
    side: Option<String>,
}

impl JoinBody {
    fn side(&self) -> ApiResult<Option<Side>> {
        match self.side.as_deref() {
            None => Ok(None),
            Some(s) => {
                Ok(Some(parse_side(s).map_err(|_| ApiError::bad_request(format!("side `{s}`: white or black")))?))
            }
        }
    }
}

/// A seat taken: the game, the seat, and its secret token (given only here).
#[derive(Debug, Serialize, ToSchema)]
struct Joined {
    game: GameView,
    #[schema(schema_with = one_of::side)]
    you: &'static str,
    token: String,
}

fn joined((game, side, token): (GameView, Side, String)) -> Json<Joined> {
    Json(Joined { game, you: side_name(side), token })
}

/// Join: take an open seat (the first one, or `side`); the token is given only here
#[utoipa::path(post, path = "/api/invites/{code}", params(InviteCode),
    request_body = Option<JoinBody>,
    responses(
        (status = 200, description = "joined", body = Joined),
        (status = 401, description = "the game is rated: sign in to take the seat", body = ErrorBody),
        (status = 404, description = "no such invite", body = ErrorBody),
        (status = 409, description = "the invite has been used, or the seat asked for is taken", body = ErrorBody),
        (status = 503, response = Unavailable),
    ),
)]
async fn join(
    State(app): State<Arc<App>>,
    Path(InviteCode { code }): Path<InviteCode>,
    signed_in: SignedIn,
    JsonBody(body): JsonBody<JoinBody>,
) -> ApiResult<Json<Joined>> {
    let side = body.side()?;
    Ok(joined(app.games.join(&code, side, body.name, signed_in.0).await?))
}

/// Take an open seat of a game open to anyone
#[utoipa::path(post, path = "/api/games/{id}/join", params(GameId),
    request_body = Option<JoinBody>,
    responses(
        (status = 200, description = "joined", body = Joined),
        (status = 401, description = "the game is rated: sign in to take the seat", body = ErrorBody),
        (status = 403, description = "the game is not open to anyone (join it through its invite)", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "no seat is open, or the seat asked for is taken", body = ErrorBody),
        (status = 503, response = Unavailable),
    ),
)]
async fn join_public(
    State(app): State<Arc<App>>,
    Path(GameId { id }): Path<GameId>,
    signed_in: SignedIn,
    JsonBody(body): JsonBody<JoinBody>,
) -> ApiResult<Json<Joined>> {
    let side = body.side()?;
    Ok(joined(app.games.join_public(&id, side, body.name, signed_in.0).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct WsQuery {
    /// Seat token (absent for spectators).
    token: Option<String>,
}

/// WebSocket: the game's state now, and what changes
///
/// Upgrade to a WebSocket. The server sends
/// `{"type":"hello","you":"white"|"black"|null}`, then
/// `{"type":"state","game":Game}` now, then after every change
/// `{"type":"update","game":GameNow,"history":{"keep":N,"add":[...]}}` (the
/// game but its moves, and the move list cut to `keep` moves with `add`
/// appended; it applies to the game of version `game.version - 1`, which the
/// socket sent last) or, when an update would not follow what the socket
/// sent (a change made on another instance), the complete `state`. A seat
/// holder (token in the query: browsers cannot set headers on WebSockets)
/// may send `{"type":"move","move":"c3-d4","ply":0}`, `{"type":"resign"}`,
/// `{"type":"draw","action":"offer"}`, `{"type":"takeback"}`,
/// `{"type":"rematch"}`, `{"type":"ping"}`, each with an optional `id`; success shows as the next
/// update, failure as `{"type":"error","status":409,"error":"...","id":...}`.
/// Messages: see the schemas WsServerMessage and WsCommand. A client more
/// than 2 changes behind skips to the latest state, sent complete.
#[utoipa::path(get, path = "/api/games/{id}/ws", params(GameId, WsQuery), responses(
    (status = 101, description = "switching to the WebSocket protocol"),
    (status = 400, response = Malformed),
    (status = 403, response = NoSeat),
    ReadErrors,
))]
async fn websocket(
    State(app): State<Arc<App>>,
    Path(GameId { id }): Path<GameId>,
    Query(q): Query<WsQuery>,
    ws: WebSocketUpgrade,
) -> ApiResult<Response> {
    let hash = q.token.as_deref().map(hash_token);
    let seated = app.games.read(&id, |l| hash.as_deref().map(|h| l.side_of_hash(h).is_some())).await?;
    if seated == Some(false) {
        return Err(ApiError::forbidden("this token holds no seat of this game"));
    }
    // Commands are small: a small read buffer (the default, 128 KiB, is
    // zeroed on every read and held per socket; docs/server-load.md).
    let ws = ws.max_message_size(16 * 1024).read_buffer_size(4 * 1024);
    Ok(ws.on_upgrade(move |socket| session(socket, app, id, hash)))
}

/// What a seat holder sends on /api/games/{id}/ws (JSON text, at most 16
/// KiB). Success shows as the next `update` (or `state`) message.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({ "type": "move", "move": "c3-d4", "ply": 0, "id": 17 }))]
pub struct WsCommand {
    #[serde(rename = "type")]
    #[schema(schema_with = one_of::ws_command)]
    kind: String,
    /// `move`: the move's notation.
    #[serde(rename = "move")]
    text: Option<String>,
    /// `move`: must equal the game's ply if given.
    ply: Option<i64>,
    /// `draw`: `offer`, `accept` or `decline`.
    action: Option<String>,
    /// Any JSON value, echoed in the error, to match it to the command.
    id: Option<Value>,
}

/// One WebSocket client: the game's state now and after every change, and
/// the seat holder's commands. `token_hash`: the [`hash_token`] of the
/// socket's token.
///
/// The socket keeps the version its client has (`sent`) and sends an
/// `update` only if it applies to that version; otherwise (a change heard
/// of from another instance, a game reloaded in between) it sends the
/// complete state. So a client can apply every update to the state it has.
async fn session(socket: WebSocket, app: Arc<App>, id: String, token_hash: Option<String>) {
    let changes = app.games.hub.subscribe(&id);
    serve_socket(socket, &app, &id, token_hash, changes).await;
    // `changes` is dropped by now.
    app.games.hub.unsubscribe(&id);
}

async fn serve_socket(
    socket: WebSocket,
    app: &Arc<App>,
    id: &str,
    token_hash: Option<String>,
    mut changes: tokio::sync::broadcast::Receiver<Push>,
) {
    let (mut sink, mut stream) = socket.split();
    // Subscribed first, then the current state: no change falls between
    // (changes up to the greeting's version are skipped below).
    let greeting = app
        .games
        .read(id, |l| {
            let you = token_hash.as_deref().and_then(|h| l.side_of_hash(h)).map(side_name);
            (you, l.row.version, state_message(&l.view(now_ms())))
        })
        .await;
    let Ok((you, mut sent, greeting)) = greeting else { return };
    let within = app.config.limits.ws_timeout;
    let hello = WsServerMessage::Hello { you }.text();
    if !deliver(&mut sink, Message::Text(hello), within).await
        || !deliver(&mut sink, Message::Text(greeting), within).await
    {
        return;
    }
    let ws_burst = (app.config.ws_rate * 2.0).max(1.0);
    let mut bucket = Bucket::new(ws_burst);
    // A ping every `ws_ping`; a peer heard nothing from (no pong, no
    // command) for `ws_timeout` is dead, and its socket is closed.
    let mut heard = Instant::now();
    let mut ping =
        tokio::time::interval_at(tokio::time::Instant::now() + app.config.limits.ws_ping, app.config.limits.ws_ping);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut stopping = app.stopping.subscribe();
    loop {
        tokio::select! {
            () = stopped(&mut stopping) => {
                let goodbye = CloseFrame { code: close_code::AWAY, reason: "the server is stopping".into() };
                deliver(&mut sink, Message::Close(Some(goodbye)), within).await;
                break;
            }
            _ = ping.tick() => {
                if heard.elapsed() >= within || !deliver(&mut sink, Message::Ping(Bytes::new()), within).await {
                    break;
                }
            }
            change = changes.recv() => {
                let push = match change {
                    Ok(push) if forward(sent, &push) == Forward::Skip => continue,
                    Ok(push) if forward(sent, &push) == Forward::Send => push,
                    // Too slow for the backlog, or an update that does not
                    // follow what the client has: the complete state.
                    Ok(_) | Err(RecvError::Lagged(_)) => {
                        let latest = app.games.read(id, |l| Push {
                            version: l.row.version,
                            update: false,
                            text: state_message(&l.view(now_ms())),
                        });
                        match latest.await {
                            Ok(push) => push,
                            Err(_) => break,
                        }
                    }
                    Err(RecvError::Closed) => break,
                };
                sent = push.version;
                if !deliver(&mut sink, Message::Text(push.text), within).await {
                    break;
                }
            }
            incoming = stream.next() => {
                heard = Instant::now();
                let text = match incoming {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Binary(_))) => {
                        let e = ApiError::bad_request("send commands as JSON text");
                        let e = WsServerMessage::error(e, None);
                        if !deliver(&mut sink, Message::Text(e.text()), within).await { break; }
                        continue;
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue, // ping/pong
                };
                let limited = app.config.ws_rate > 0.0;
                let reply = if !limited || bucket.take(ws_burst, app.config.ws_rate) {
                    command(app, id, token_hash.as_deref(), text.as_str()).await
                } else {
                    Err((ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too many commands: slow down"), None))
                };
                if let Err((e, cid)) = reply {
                    let e = WsServerMessage::error(e, cid);
                    if !deliver(&mut sink, Message::Text(e.text()), within).await {
                        break;
                    }
                }
            }
        }
    }
}

/// Returns once the server is stopping.
pub(crate) async fn stopped(stopping: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = stopping.wait_for(|s| *s).await;
}

/// Sends one message to a socket's peer: false when the socket is gone,
/// or the peer did not take the message `within` this time (it does not
/// read: its buffers are full).
pub(crate) async fn deliver(sink: &mut SplitSink<WebSocket, Message>, message: Message, within: Duration) -> bool {
    matches!(tokio::time::timeout(within, sink.send(message)).await, Ok(Ok(())))
}

/// What a socket does with a push, its client having version `sent`.
#[derive(Debug, PartialEq, Eq)]
enum Forward {
    /// The client has it already (it came with the greeting).
    Skip,
    Send,
    /// An update that does not follow what the client has: send the
    /// complete state instead.
    Complete,
}

fn forward(sent: i64, push: &Push) -> Forward {
    if push.version <= sent {
        Forward::Skip
    } else if !push.update || push.version == sent + 1 {
        Forward::Send
    } else {
        Forward::Complete
    }
}

/// Runs a WebSocket command; success is seen as the push that follows.
async fn command(app: &App, id: &str, token_hash: Option<&str>, text: &str) -> Result<(), (ApiError, Option<Value>)> {
    let cmd: WsCommand =
        serde_json::from_str(text).map_err(|e| (ApiError::bad_request(format!("invalid command: {e}")), None))?;
    let cid = cmd.id.clone();
    let fail = |e: ApiError| (e, cid.clone());
    let action = match cmd.kind.as_str() {
        "move" => Action::Move {
            text: cmd.text.ok_or_else(|| fail(ApiError::bad_request("a move command needs `move`")))?,
            ply: cmd.ply,
        },
        "resign" => Action::Resign,
        "takeback" => Action::TakeBack,
        "draw" => draw_action(cmd.action.as_deref().unwrap_or("")).map_err(fail)?,
        "rematch" => return app.games.rematch(id, token_hash, false).await.map(|_| ()).map_err(fail),
        "ping" => return Ok(()),
        other => return Err(fail(ApiError::bad_request(format!("unknown command `{other}`")))),
    };
    app.games.perform_quietly(id, token_hash, action).await.map(|_| ()).map_err(fail)
}

/// Every error answer is JSON: errors from layers and extractors that are
/// not ours (body too large, method not allowed, bad query) are rewrapped.
async fn json_errors(res: Response) -> Response {
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    // JSON already, or the page shell (the page says what is missing).
    let keep = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json") || v.as_bytes().starts_with(b"text/html"));
    if keep {
        return res;
    }
    let bytes = axum::body::to_bytes(res.into_body(), 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).trim().to_string();
    let message = if text.is_empty() { status.canonical_reason().unwrap_or("error").to_lowercase() } else { text };
    ApiError::new(status, message).into_response()
}

/// A token bucket.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    pub(crate) fn new(burst: f64) -> Bucket {
        Bucket { tokens: burst, at: Instant::now() }
    }
    /// Refills at `rate` per second up to `burst`, then takes one if it can.
    pub(crate) fn take(&mut self, burst: f64, rate: f64) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * rate).min(burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Requests per second per key (by default a client address; 0 = no limit).
#[derive(Debug)]
pub struct RateLimiter<K = IpAddr> {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<K, Bucket>>,
}

impl<K: std::hash::Hash + Eq> RateLimiter<K> {
    pub fn new(rate: f64, burst: f64) -> RateLimiter<K> {
        RateLimiter { rate, burst: burst.max(1.0), buckets: Mutex::new(HashMap::new()) }
    }

    pub fn allow(&self, key: K) -> bool {
        if self.rate <= 0.0 {
            return true;
        }
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() > 100_000 {
            // Forget keys whose buckets have refilled.
            let (burst, rate) = (self.burst, self.rate);
            buckets.retain(|_, b| b.tokens + b.at.elapsed().as_secs_f64() * rate < burst);
        }
        buckets.entry(key).or_insert_with(|| Bucket::new(self.burst)).take(self.burst, self.rate)
    }

    /// Seconds until a refused key has a token again (at least one).
    pub fn retry_after(&self) -> u64 {
        (1.0 / self.rate).ceil().max(1.0) as u64
    }
}

/// The client's address (unspecified when the connection's is not known,
/// as in tests through `oneshot`).
pub fn client_address(peer: Option<&ConnectInfo<SocketAddr>>) -> IpAddr {
    peer.map(|c| c.0.ip()).unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

/// 429 with `Retry-After` in seconds.
pub fn too_many(error: ApiError, retry_after: u64) -> Response {
    let mut refused = error.into_response();
    refused.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from(retry_after));
    refused
}

async fn rate_limit(State(limiter): State<Arc<RateLimiter>>, req: Request<Body>, next: Next) -> Response {
    if !limiter.allow(client_address(req.extensions().get())) {
        let error = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too many requests: slow down");
        return too_many(error, limiter.retry_after());
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::{Forward, Push, forward};

    #[test]
    fn a_socket_sends_only_updates_that_follow_what_its_client_has() {
        let push = |version, update| Push { version, update, text: "{}".into() };
        // Changes up to the greeting's version are not sent again.
        assert_eq!(forward(5, &push(5, true)), Forward::Skip);
        assert_eq!(forward(5, &push(4, false)), Forward::Skip);
        // The next version: the update applies.
        assert_eq!(forward(5, &push(6, true)), Forward::Send);
        // A version missed (a change this instance did not push): an update
        // would not apply, so the complete state goes instead.
        assert_eq!(forward(5, &push(7, true)), Forward::Complete);
        // A complete state always applies.
        assert_eq!(forward(5, &push(9, false)), Forward::Send);
    }
}
