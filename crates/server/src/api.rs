//! The HTTP/JSON API and the WebSocket (docs/api.md, `/api/openapi.json`).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::extract::{ConnectInfo, FromRequest, Path, Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use monte_store::{ListFilter, StoreHealth, parse_side, side_name};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tower_http::limit::RequestBodyLimitLayer;

use crate::App;
use crate::error::{ApiError, ApiResult};
use crate::games::{Action, NewGame, SeatSpec};
use crate::hub::{Push, state_message};
use crate::model::{GameView, hash_token, now_ms};
use monte_rules::Side;

/// The OpenAPI document (written by hand, checked against the routes by a test).
pub const OPENAPI: &str = include_str!("openapi.json");

/// Every route: (method, path as in the OpenAPI document).
pub const ROUTES: &[(&str, &str)] = &[
    ("get", "/"),
    ("get", "/api/health"),
    ("get", "/api/live"),
    ("get", "/api/ready"),
    ("get", "/metrics"),
    ("get", "/api/openapi.json"),
    ("post", "/api/games"),
    ("get", "/api/games/open"),
    ("get", "/api/games/live"),
    ("post", "/api/games/mine"),
    ("get", "/api/games/{id}"),
    ("post", "/api/games/{id}/moves"),
    ("post", "/api/games/{id}/resign"),
    ("post", "/api/games/{id}/draw"),
    ("post", "/api/games/{id}/takeback"),
    ("post", "/api/games/{id}/join"),
    ("get", "/api/games/{id}/record"),
    ("get", "/api/games/{id}/ws"),
    ("get", "/api/invites/{code}"),
    ("post", "/api/invites/{code}"),
];

pub fn router(app: Arc<App>) -> Router {
    let limiter = Arc::new(RateLimiter::new(app.config.rate_limit, app.config.rate_burst));
    Router::new()
        .route("/", get(crate::web::page_shell))
        .route("/api/health", get(health))
        .route("/api/live", get(live))
        .route("/api/ready", get(health))
        .route("/metrics", get(metrics))
        .route("/api/openapi.json", get(openapi))
        .route("/api/games", post(create_game))
        .route("/api/games/open", get(list_open))
        .route("/api/games/live", get(list_live))
        .route("/api/games/mine", post(list_mine))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/moves", post(play_move))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/draw", post(draw))
        .route("/api/games/{id}/takeback", post(take_back))
        .route("/api/games/{id}/join", post(join_public))
        .route("/api/games/{id}/record", get(record))
        .route("/api/games/{id}/ws", get(websocket))
        .route("/api/invites/{code}", get(show_invite).post(join))
        .merge(crate::web::router())
        .fallback(|| async { ApiError::not_found("no such endpoint (see /api/openapi.json)") })
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
/// server does not grant), and its browser names its origin. Tokens do
/// not travel by themselves (no cookies), but an invite code in a URL
/// would: a cross-site POST could take the seat.
async fn same_origin_json(req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let headers = req.headers();
    let json = headers
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
fn same_origin(origin: &[u8], headers: &HeaderMap) -> bool {
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

fn game_json(view: &GameView, you: Option<&str>) -> Value {
    json!({ "game": view, "you": you })
}

/// 200 when the database answers and takes writes; 503 when it does not
/// answer, or a write failed lately (`"status": "degraded"`, docs/api.md).
async fn health(State(app): State<Arc<App>>) -> ApiResult<Response> {
    let store = &app.games.store;
    store.ping().await?;
    let mut body = json!({
        "status": "ok",
        "database": store.kind().name(),
        "instance": store.instance(),
        "games_in_memory": app.games.cached(),
        "watchers": app.games.hub.watchers(),
        "connections": app.connections.open(),
        "ai_searches": app.stats.ai_searches.load(std::sync::atomic::Ordering::Relaxed),
        "ai_moves": app.stats.ai_moves.load(std::sync::atomic::Ordering::Relaxed),
        "games_replayed": app.games.replays(),
    });
    match store.health() {
        StoreHealth::Ok => Ok(Json(body).into_response()),
        StoreHealth::Degraded { error, for_ms, lasting } => {
            body["status"] = json!("degraded");
            body["store_error"] = json!(error);
            body["store_error_ms_ago"] = json!(for_ms);
            body["writes_refused"] = json!(lasting);
            Ok((StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response())
        }
    }
}

/// Liveness: the process answers (no database query).
async fn live() -> Json<Value> {
    Json(json!({ "status": "alive" }))
}

/// The metrics in the Prometheus text format.
async fn metrics(State(app): State<Arc<App>>) -> Response {
    let text = app.games.metrics.render(app.games.cached(), app.games.hub.watchers(), app.connections.open());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response()
}

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateGame {
    game: String,
    rules: Option<String>,
    fen: Option<String>,
    white: Option<String>,
    black: Option<String>,
    name: Option<String>,
    clock: Option<ClockSpec>,
    /// Open to anyone (listed, joined by id); by default an open seat is
    /// for whoever holds the invite.
    #[serde(default)]
    public: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockSpec {
    minutes: f64,
    #[serde(default)]
    increment: f64,
}

async fn create_game(
    State(app): State<Arc<App>>,
    peer: Option<axum::Extension<ConnectInfo<SocketAddr>>>,
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
    };
    let created = if new.between_ais() {
        let address = peer.map(|p| p.0.0.ip()).unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        let cap = app.config.ai.watched_per_address;
        app.watched.admit(&app.games, address, cap, app.games.create(new)).await?
    } else {
        app.games.create(new).await?
    };
    let tokens: serde_json::Map<String, Value> =
        created.tokens.iter().map(|(side, t)| (side_name(*side).to_string(), Value::from(t.clone()))).collect();
    let invite = created.invite.map(|code| json!({ "code": code, "url": format!("/api/invites/{code}") }));
    let body = json!({ "game": created.view, "tokens": tokens, "invite": invite });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    limit: Option<i64>,
}

fn limit(q: &ListQuery) -> ApiResult<i64> {
    match q.limit {
        None => Ok(50),
        Some(n) if (1..=200).contains(&n) => Ok(n),
        Some(n) => Err(ApiError::bad_request(format!("limit {n}: expected 1 to 200"))),
    }
}

async fn list_open(State(app): State<Arc<App>>, Query(q): Query<ListQuery>) -> ApiResult<Json<Value>> {
    Ok(Json(json!({ "games": app.games.list(&ListFilter::Open, limit(&q)?).await? })))
}

async fn list_live(State(app): State<Arc<App>>, Query(q): Query<ListQuery>) -> ApiResult<Json<Value>> {
    Ok(Json(json!({ "games": app.games.list(&ListFilter::Live, limit(&q)?).await? })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Mine {
    tokens: Vec<String>,
    limit: Option<i64>,
}

async fn list_mine(State(app): State<Arc<App>>, JsonBody(body): JsonBody<Mine>) -> ApiResult<Json<Value>> {
    if body.tokens.len() > 100 || body.tokens.iter().any(|t| t.len() > 128) {
        return Err(ApiError::bad_request("tokens: at most 100, of at most 128 characters"));
    }
    let hashes = body.tokens.iter().map(|t| crate::model::hash_token(t)).collect();
    let n = limit(&ListQuery { limit: body.limit })?;
    Ok(Json(json!({ "games": app.games.list(&ListFilter::Seats(hashes), n).await? })))
}

async fn get_game(State(app): State<Arc<App>>, Path(id): Path<String>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    let token = bearer(&headers);
    let (view, you) = app
        .games
        .fresh(&id, |loaded| {
            let you = token.and_then(|t| loaded.side_of(t)).map(side_name);
            let mut view = loaded.view(now_ms());
            if you.is_some() {
                view.now.invite = loaded.open_invite();
            }
            (view, you)
        })
        .await?;
    Ok(Json(game_json(&view, you)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    text: String,
    ply: Option<i64>,
}

async fn act(app: &App, id: &str, headers: &HeaderMap, action: Action) -> ApiResult<Json<Value>> {
    let (view, side) = app.games.perform(id, bearer(headers), action).await?;
    Ok(Json(game_json(&view, Some(side_name(side)))))
}

async fn play_move(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<MoveBody>,
) -> ApiResult<Json<Value>> {
    act(&app, &id, &headers, Action::Move { text: body.text, ply: body.ply }).await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

async fn resign(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(_): JsonBody<Empty>,
) -> ApiResult<Json<Value>> {
    act(&app, &id, &headers, Action::Resign).await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawBody {
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

async fn draw(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<DrawBody>,
) -> ApiResult<Json<Value>> {
    act(&app, &id, &headers, draw_action(&body.action)?).await
}

async fn take_back(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(_): JsonBody<Empty>,
) -> ApiResult<Json<Value>> {
    act(&app, &id, &headers, Action::TakeBack).await
}

async fn record(State(app): State<Arc<App>>, Path(id): Path<String>) -> ApiResult<Response> {
    let text = app.games.record(&id).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

async fn show_invite(State(app): State<Arc<App>>, Path(code): Path<String>) -> ApiResult<Json<Value>> {
    let id = find_invite(&app, &code).await?;
    let loaded = app.games.get(&id).await?;
    let view = loaded.view(now_ms());
    let seats = &view.now.seats;
    let open: Vec<&str> = [("white", seats.white.open), ("black", seats.black.open)]
        .into_iter()
        .filter_map(|(s, o)| o.then_some(s))
        .collect();
    Ok(Json(json!({ "game": view, "open": open })))
}

async fn find_invite(app: &App, code: &str) -> ApiResult<String> {
    if code.is_empty() || code.len() > 32 || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(ApiError::not_found(format!("no invite `{}`", code.chars().take(40).collect::<String>())));
    }
    app.games.store.find_invite(code).await?.ok_or_else(|| ApiError::not_found(format!("no invite `{code}`")))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    name: Option<String>,
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

fn joined((view, side, token): (GameView, Side, String)) -> Json<Value> {
    Json(json!({ "game": view, "you": side_name(side), "token": token }))
}

async fn join(
    State(app): State<Arc<App>>,
    Path(code): Path<String>,
    JsonBody(body): JsonBody<JoinBody>,
) -> ApiResult<Json<Value>> {
    let side = body.side()?;
    Ok(joined(app.games.join(&code, side, body.name).await?))
}

/// Takes an open seat of a game open to anyone.
async fn join_public(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<JoinBody>,
) -> ApiResult<Json<Value>> {
    let side = body.side()?;
    Ok(joined(app.games.join_public(&id, side, body.name).await?))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WsQuery {
    token: Option<String>,
}

async fn websocket(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WsCommand {
    #[serde(rename = "type")]
    kind: String,
    #[serde(rename = "move")]
    text: Option<String>,
    ply: Option<i64>,
    action: Option<String>,
    /// Echoed in the error, to match it to the command.
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
    let hello = json!({ "type": "hello", "you": you }).to_string();
    if !deliver(&mut sink, Message::Text(hello.into()), within).await
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
                        let e = json!({ "type": "error", "error": "send commands as JSON text" }).to_string();
                        if !deliver(&mut sink, Message::Text(e.into()), within).await { break; }
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
                    let e = json!({ "type": "error", "status": e.status.as_u16(), "error": e.message, "id": cid });
                    if !deliver(&mut sink, Message::Text(e.to_string().into()), within).await {
                        break;
                    }
                }
            }
        }
    }
}

/// Returns once the server is stopping.
async fn stopped(stopping: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = stopping.wait_for(|s| *s).await;
}

/// Sends one message to a socket's peer: false when the socket is gone,
/// or the peer did not take the message `within` this time (it does not
/// read: its buffers are full).
async fn deliver(sink: &mut SplitSink<WebSocket, Message>, message: Message, within: Duration) -> bool {
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
    let is_json =
        res.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if is_json {
        return res;
    }
    let bytes = axum::body::to_bytes(res.into_body(), 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).trim().to_string();
    let message = if text.is_empty() { status.canonical_reason().unwrap_or("error").to_lowercase() } else { text };
    ApiError::new(status, message).into_response()
}

/// A token bucket.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn new(burst: f64) -> Bucket {
        Bucket { tokens: burst, at: Instant::now() }
    }
    /// Refills at `rate` per second up to `burst`, then takes one if it can.
    fn take(&mut self, burst: f64, rate: f64) -> bool {
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

/// Requests per second per client address (0 = no limit).
#[derive(Debug)]
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

impl RateLimiter {
    pub fn new(rate: f64, burst: f64) -> RateLimiter {
        RateLimiter { rate, burst: burst.max(1.0), buckets: Mutex::new(HashMap::new()) }
    }

    pub fn allow(&self, ip: IpAddr) -> bool {
        if self.rate <= 0.0 {
            return true;
        }
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() > 100_000 {
            // Forget clients whose buckets have refilled.
            let (burst, rate) = (self.burst, self.rate);
            buckets.retain(|_, b| b.tokens + b.at.elapsed().as_secs_f64() * rate < burst);
        }
        buckets.entry(ip).or_insert_with(|| Bucket::new(self.burst)).take(self.burst, self.rate)
    }
}

async fn rate_limit(State(limiter): State<Arc<RateLimiter>>, req: Request<Body>, next: Next) -> Response {
    let ip = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    if !limiter.allow(ip) {
        // A token comes back every 1/rate seconds.
        let retry_after = (1.0 / limiter.rate).ceil().max(1.0).to_string();
        let mut refused = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too many requests: slow down").into_response();
        if let Ok(value) = header::HeaderValue::from_str(&retry_after) {
            refused.headers_mut().insert(header::RETRY_AFTER, value);
        }
        return refused;
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
