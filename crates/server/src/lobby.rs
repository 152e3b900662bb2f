//! The lobby: seeks for an opponent, live to everyone on the start page.
//!
//! A seek lives as long as the WebSocket that posted it (`/api/lobby/ws`):
//! its creator leaving (the socket closed) or cancelling takes it away.
//! Whoever accepts it (`POST /api/lobby/{id}/accept`) takes one seat of a
//! new game, and the creator's socket is sent the token of the other.
//! Seeks are this instance's own, held in memory: several instances on one
//! database each have their lobby.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, header};
use axum::response::Response;
use futures_util::StreamExt;
use monte_store::{AccountRow, side_name};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};
use utoipa::ToSchema;

use crate::App;
use crate::accounts::SignedIn;
use crate::api::{JsonBody, deliver, same_origin, stopped};
use crate::error::{ApiError, ApiResult, ErrorBody, Unavailable};
use crate::games::{NewGame, SeatSpec};
use crate::model::{GameView, now_ms, one_of, random_id};

/// The most seeks open at once on an instance.
const MAX_SEEKS: usize = 500;

/// The most seeks one socket may have open.
const MAX_SEEKS_PER_SOCKET: usize = 3;

/// A seek as everybody sees it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeekView {
    id: String,
    #[schema(schema_with = one_of::game_kind)]
    game: String,
    rules: String,
    /// `[initial_ms, increment_ms]`.
    #[schema(value_type = Option<Vec<i64>>, min_items = 2, max_items = 2)]
    clock: Option<[i64; 2]>,
    rated: bool,
    /// The creator's name (none for a guest who gave none).
    name: Option<String>,
    /// The creator's rating in the game, if signed in.
    rating: Option<i64>,
    /// Accepted only by players rated from `min_rating` to `max_rating`.
    min_rating: Option<i64>,
    max_rating: Option<i64>,
    created_at: i64,
}

/// A seek, and what only the server knows of it.
#[derive(Debug)]
struct Seek {
    view: SeekView,
    new_game: NewGame,
    /// The socket that posted it: told when the game starts.
    socket: u64,
}

/// What the creator's socket is told when its seek is accepted.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename = "started")]
pub struct Started {
    /// The seek.
    seek: String,
    /// The new game.
    game: String,
    #[schema(schema_with = one_of::side)]
    you: &'static str,
    /// The creator's seat token (given only here).
    token: String,
}

/// The seeks of this instance.
#[derive(Debug)]
pub struct Lobby {
    seeks: Mutex<BTreeMap<String, Seek>>,
    /// The list as JSON text after every change.
    list: watch::Sender<Arc<str>>,
    /// Each open socket's private channel.
    sockets: Mutex<BTreeMap<u64, mpsc::UnboundedSender<String>>>,
    next_socket: std::sync::atomic::AtomicU64,
}

impl Default for Lobby {
    fn default() -> Lobby {
        Lobby {
            seeks: Mutex::default(),
            list: watch::Sender::new(Arc::from(list_message(&[]).as_str())),
            sockets: Mutex::default(),
            next_socket: Default::default(),
        }
    }
}

/// `{"type":"seeks","seeks":[...]}`, newest first.
fn list_message(seeks: &[&SeekView]) -> String {
    serde_json::json!({ "type": "seeks", "seeks": seeks }).to_string()
}

impl Lobby {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Seek>> {
        self.seeks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The seeks, newest first.
    pub fn seeks(&self) -> Vec<SeekView> {
        let mut all: Vec<SeekView> = self.lock().values().map(|s| s.view.clone()).collect();
        all.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.id.cmp(&b.id)));
        all
    }

    /// Tells every socket the list as it is now.
    fn changed(&self) {
        let seeks = self.seeks();
        self.list.send_replace(Arc::from(list_message(&seeks.iter().collect::<Vec<_>>()).as_str()));
    }

    fn post(&self, seek: Seek) -> ApiResult<()> {
        {
            let mut seeks = self.lock();
            if seeks.len() >= MAX_SEEKS {
                return Err(ApiError::conflict("the lobby is full: try again later"));
            }
            if seeks.values().filter(|s| s.socket == seek.socket).count() >= MAX_SEEKS_PER_SOCKET {
                return Err(ApiError::conflict(format!("at most {MAX_SEEKS_PER_SOCKET} seeks at once")));
            }
            seeks.insert(seek.view.id.clone(), seek);
        }
        self.changed();
        Ok(())
    }

    /// Takes away the seeks of `socket` (all of them, or the one `id`).
    fn cancel(&self, socket: u64, id: Option<&str>) -> bool {
        let removed = {
            let mut seeks = self.lock();
            let before = seeks.len();
            seeks.retain(|seek_id, s| s.socket != socket || id.is_some_and(|id| id != seek_id));
            before != seeks.len()
        };
        if removed {
            self.changed();
        }
        removed
    }

    /// Takes a seek off the list to start its game.
    fn take(&self, id: &str) -> Option<Seek> {
        let seek = self.lock().remove(id);
        if seek.is_some() {
            self.changed();
        }
        seek
    }
}

/// What a socket sends to post a seek.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "type": "seek", "game": "salta", "clock": { "minutes": 5, "increment": 3 }, "rated": true, "rating_range": 200
}))]
pub struct LobbyCommand {
    #[serde(rename = "type")]
    #[schema(schema_with = lobby_command)]
    kind: String,
    /// `seek`: the game.
    #[schema(schema_with = one_of::game_kind)]
    game: Option<String>,
    /// `seek`: the rule set (default `seed`).
    rules: Option<String>,
    /// `seek`: the clock.
    clock: Option<crate::api::ClockSpec>,
    /// `seek`: counts for the ratings (signed in, the default rule set, a clock).
    #[serde(default)]
    rated: bool,
    /// `seek`: only players rated within this many points of the creator
    /// (signed in) may accept.
    #[schema(minimum = 50, maximum = 1000)]
    rating_range: Option<i64>,
    /// `seek`: a guest's name.
    #[schema(max_length = 40)]
    name: Option<String>,
    /// `cancel`: the seek to cancel (by default all of this socket's).
    id: Option<String>,
}

fn lobby_command() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new().schema_type(Type::String).enum_values(Some(["seek", "cancel", "ping"])).build()
}

/// The lobby: the seeks now and after every change, and one's own seeks
///
/// Upgrade to a WebSocket. The server sends `{"type":"seeks","seeks":[...]}`
/// now and after every change (newest first). The socket posts a seek with
/// `{"type":"seek","game":"salta","rules":"seed","clock":{"minutes":5,"increment":3},"rated":true,"rating_range":200}`
/// (the session cookie says who posts it; a guest may give `name`), and
/// cancels with `{"type":"cancel","id":"..."}` (or all its seeks without
/// `id`); a seek posted is told to its socket alone as
/// `{"type":"posted","seek":"..."}`. Its seeks go when it closes. When one is accepted it is sent
/// `{"type":"started","seek":"...","game":"...","you":"white","token":"..."}`:
/// the token of its seat. Failures: `{"type":"error","status":400,"error":"..."}`.
#[utoipa::path(get, path = "/api/lobby/ws", responses(
    (status = 101, description = "switching to the WebSocket protocol"),
    (status = 403, description = "cross-site request: the Origin header names another site", body = ErrorBody),
    (status = 503, response = Unavailable),
))]
pub async fn lobby_socket(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    signed_in: SignedIn,
    ws: WebSocketUpgrade,
) -> ApiResult<Response> {
    // A page of another site could open the socket with the session
    // cookie and post seeks in the player's name.
    if let Some(origin) = headers.get(header::ORIGIN)
        && !same_origin(origin.as_bytes(), &headers)
    {
        return Err(ApiError::forbidden("cross-site request refused: the Origin is not this server"));
    }
    let ws = ws.max_message_size(4 * 1024).read_buffer_size(4 * 1024);
    Ok(ws.on_upgrade(move |socket| serve_lobby(socket, app, signed_in.0)))
}

async fn serve_lobby(socket: WebSocket, app: Arc<App>, account: Option<AccountRow>) {
    let lobby = &app.lobby;
    let id = lobby.next_socket.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (private, mut told) = mpsc::unbounded_channel();
    lobby.sockets.lock().unwrap_or_else(|p| p.into_inner()).insert(id, private);
    let mut list = lobby.list.subscribe();
    let (mut sink, mut stream) = socket.split();
    let mut stopping = app.stopping.subscribe();
    let within = app.config.limits.ws_timeout;
    let text = |text: String| Message::Text(text.into());
    let greeting = list.borrow_and_update().to_string();
    let mut alive = deliver(&mut sink, text(greeting), within).await;
    while alive {
        tokio::select! {
            () = stopped(&mut stopping) => break,
            changed = list.changed() => {
                let seeks = list.borrow_and_update().to_string();
                alive = changed.is_ok() && deliver(&mut sink, text(seeks), within).await;
            }
            Some(private) = told.recv() => alive = deliver(&mut sink, text(private), within).await,
            incoming = stream.next() => {
                let text = match incoming {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                if let Err(e) = lobby_command_of(&app, id, account.as_ref(), text.as_str()).await {
                    let error = serde_json::json!({ "type": "error", "status": e.status.as_u16(), "error": e.message });
                    alive = deliver(&mut sink, Message::Text(error.to_string().into()), within).await;
                }
            }
        }
    }
    lobby.sockets.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
    lobby.cancel(id, None);
}

async fn lobby_command_of(app: &App, socket: u64, account: Option<&AccountRow>, text: &str) -> ApiResult<()> {
    let cmd: LobbyCommand =
        serde_json::from_str(text).map_err(|e| ApiError::bad_request(format!("invalid command: {e}")))?;
    match cmd.kind.as_str() {
        "seek" => post_seek(app, socket, account, cmd).await,
        "cancel" => {
            app.lobby.cancel(socket, cmd.id.as_deref());
            Ok(())
        }
        "ping" => Ok(()),
        other => Err(ApiError::bad_request(format!("unknown command `{other}` (expected seek, cancel or ping)"))),
    }
}

async fn post_seek(app: &App, socket: u64, account: Option<&AccountRow>, cmd: LobbyCommand) -> ApiResult<()> {
    let game = cmd.game.ok_or_else(|| ApiError::bad_request("a seek needs `game`"))?;
    let new_game = NewGame {
        kind: game,
        rules: cmd.rules.unwrap_or_else(|| "seed".into()),
        fen: None,
        white: SeatSpec::Me,
        black: SeatSpec::Open,
        name: cmd.name,
        clock: cmd.clock.map(|c| (c.minutes, c.increment)),
        public: false,
        rated: cmd.rated,
        creator: account.cloned(),
    };
    let checked = app.games.check_new(&new_game)?;
    let rating = match account {
        Some(a) => Some(crate::accounts::rating_of(app, a, checked.kind).await?),
        None => None,
    };
    let range = match (cmd.rating_range, rating) {
        (None, _) => None,
        (Some(r), Some(rating)) if (50..=1000).contains(&r) => Some((rating - r, rating + r)),
        (Some(_), Some(_)) => return Err(ApiError::bad_request("rating_range: 50 to 1000 points")),
        (Some(_), None) => return Err(ApiError::unauthorized("a rating range needs you signed in")),
    };
    let view = SeekView {
        id: random_id(10),
        game: checked.kind.name().to_string(),
        rules: checked.rules,
        clock: checked.clock.map(|(initial, increment)| [initial, increment]),
        rated: new_game.rated,
        name: account.map(|a| a.name.clone()).or_else(|| new_game.name.clone()),
        rating,
        min_rating: range.map(|r| r.0),
        max_rating: range.map(|r| r.1),
        created_at: now_ms(),
    };
    let id = view.id.clone();
    app.lobby.post(Seek { view, new_game, socket })?;
    // The creator's own seek, told to its socket alone.
    if let Some(private) = app.lobby.sockets.lock().unwrap_or_else(|p| p.into_inner()).get(&socket) {
        let _ = private.send(serde_json::json!({ "type": "posted", "seek": id }).to_string());
    }
    Ok(())
}

/// The open seeks.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeekList {
    seeks: Vec<SeekView>,
}

/// The seeks open now, newest first
#[utoipa::path(get, path = "/api/lobby", responses((status = 200, description = "the seeks", body = SeekList)))]
pub async fn list_seeks(State(app): State<Arc<App>>) -> Json<SeekList> {
    Json(SeekList { seeks: app.lobby.seeks() })
}

/// The seek a route names.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
pub struct SeekId {
    id: String,
}

/// A guest's name, when accepting.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptBody {
    #[schema(max_length = 40)]
    name: Option<String>,
}

/// The game a seek started: the acceptor's seat and its token (given only here).
#[derive(Debug, Serialize, ToSchema)]
pub struct Accepted {
    game: GameView,
    #[schema(schema_with = one_of::side)]
    you: &'static str,
    token: String,
}

/// Accept a seek: the game starts for both
///
/// The colours are drawn by lot. A rated seek is for a signed-in player
/// other than its creator, and a seek with a rating range for one rated
/// within it.
#[utoipa::path(post, path = "/api/lobby/{id}/accept", params(SeekId), request_body = Option<AcceptBody>, responses(
    (status = 200, description = "the game started", body = Accepted),
    (status = 401, description = "the seek is rated, or has a rating range: sign in", body = ErrorBody),
    (status = 403, description = "your rating is outside the seek's range", body = ErrorBody),
    (status = 404, description = "no such seek (taken, cancelled, or its creator left)", body = ErrorBody),
    (status = 409, description = "your own seek", body = ErrorBody),
    (status = 503, response = Unavailable),
))]
pub async fn accept_seek(
    State(app): State<Arc<App>>,
    Path(SeekId { id }): Path<SeekId>,
    signed_in: SignedIn,
    JsonBody(body): JsonBody<AcceptBody>,
) -> ApiResult<Json<Accepted>> {
    let gone = || ApiError::not_found(format!("no seek `{}`", id.chars().take(40).collect::<String>()));
    let (view, creator) = {
        let seeks = app.lobby.lock();
        let seek = seeks.get(&id).ok_or_else(gone)?;
        (seek.view.clone(), seek.new_game.creator.clone())
    };
    let acceptor = signed_in.0;
    if let (Some(a), Some(c)) = (&acceptor, &creator)
        && a.id == c.id
    {
        return Err(ApiError::conflict("this is your own seek"));
    }
    if view.rated && acceptor.is_none() {
        return Err(ApiError::unauthorized("this seek is rated: sign in to accept it")
            .named(crate::error::Refusal::RatedNeedsAccount));
    }
    if let (Some(low), Some(high)) = (view.min_rating, view.max_rating) {
        let account =
            acceptor.as_ref().ok_or_else(|| ApiError::unauthorized("this seek has a rating range: sign in"))?;
        let kind = view.game.parse().map_err(|e| ApiError::internal(format!("{e}")))?;
        let rating = crate::accounts::rating_of(&app, account, kind).await?;
        if !(low..=high).contains(&rating) {
            return Err(ApiError::forbidden(format!("your rating {rating} is outside the seek's range {low}-{high}")));
        }
    }
    let mut seek = app.lobby.take(&id).ok_or_else(gone)?;
    // The creator's colour by lot.
    if rand::random::<bool>() {
        (seek.new_game.white, seek.new_game.black) = (SeatSpec::Open, SeatSpec::Me);
    }
    let created = app.games.create(seek.new_game).await?;
    let (creator_side, creator_token) =
        created.tokens.into_iter().next().ok_or_else(|| ApiError::internal("no seat"))?;
    let code = created.invite.ok_or_else(|| ApiError::internal("no open seat"))?;
    let (game, side, token) = app.games.join(&code, Some(!creator_side), body.name, acceptor).await?;
    let started = Started { seek: id, game: game.now.id.clone(), you: side_name(creator_side), token: creator_token };
    if let Some(socket) = app.lobby.sockets.lock().unwrap_or_else(|p| p.into_inner()).get(&seek.socket)
        && let Ok(text) = serde_json::to_string(&started)
    {
        let _ = socket.send(text);
    }
    Ok(Json(Accepted { game, you: side_name(side), token }))
}
