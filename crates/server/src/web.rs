//! The web board: the files of the top-level `web/` directory, embedded in
//! the binary (so `monte serve` alone serves everything), and the two small
//! helpers the board asks for that the game API does not give (docs/web.md).
//!
//! Pages (`/`, `/game/{id}`, `/invite/{code}`, `/join/{id}`, `/rules`, `/live`,
//! `/analysis`, `/learn`, `/signin`, `/signup`, `/player/{name}`, `/leaderboard`) are one
//! HTML shell whose script draws the page; they are never cached. Assets
//! live under `/assets/{version}/`, where the version is a hash of all the
//! embedded files: a new binary means new URLs, so assets can be cached for
//! ever.
//!
//! For work on the page itself, `MONTE_WEB_DIR=web monte serve` reads the
//! same files from that directory at every request instead (uncached), so
//! an edit shows on reload without rebuilding.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use monte_rules::GameKind;
use monte_rules::any::AnyGame;
use serde::Deserialize;
use serde_json::{Map, json};
use sha2::{Digest, Sha256};

use crate::App;
use crate::api::NO_SUCH_ENDPOINT;
use crate::error::{ApiError, ApiResult};
use crate::model::PlayedMove;

/// One embedded file of `web/`.
#[derive(Debug)]
pub struct Asset {
    /// The path below `web/`.
    pub path: &'static str,
    pub bytes: &'static [u8],
}

macro_rules! assets {
    ($($path:literal),* $(,)?) => {
        &[$(Asset { path: $path, bytes: include_bytes!(concat!("../../../web/", $path)) }),*]
    };
}

/// Every file the browser loads (a test checks this list against `web/`).
pub const ASSETS: &[Asset] = assets![
    "index.html",
    "favicon.svg",
    "style.css",
    "app.js",
    "api.js",
    "dom.js",
    "i18n.js",
    "router.js",
    "position.js",
    "pieces.js",
    "board.js",
    "salta-board.js",
    "focus-board.js",
    "games.js",
    "game.js",
    "game-board.js",
    "game-players.js",
    "game-status.js",
    "game-moves.js",
    "game-actions.js",
    "pages.js",
    "rules.js",
    "account.js",
    "lobby.js",
    "analysis.js",
    "analysis-graph.js",
    "learn.js",
    "sound.js",
];

/// The pages: every one is the same shell, drawn by `app.js`.
pub const PAGES: &[&str] = &[
    "/",
    "/game/{id}",
    "/invite/{code}",
    "/join/{id}",
    "/rules",
    "/live",
    "/analysis",
    "/learn",
    "/signin",
    "/signup",
    "/player/{name}",
    "/leaderboard",
];

/// The version of the embedded files: the start of their SHA-256.
pub fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut hasher = Sha256::new();
        for asset in ASSETS {
            hasher.update(asset.path.as_bytes());
            hasher.update([0]);
            hasher.update(asset.bytes);
        }
        hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
    })
}

fn asset(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.path == path)
}

/// `MONTE_WEB_DIR`: serve the files from there (page development).
fn dev_dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| std::env::var_os("MONTE_WEB_DIR").filter(|d| !d.is_empty()).map(PathBuf::from)).as_ref()
}

/// A listed file's contents: embedded, or read from `MONTE_WEB_DIR`.
fn contents(asset: &'static Asset) -> Cow<'static, [u8]> {
    match dev_dir().and_then(|dir| std::fs::read(dir.join(asset.path)).ok()) {
        Some(bytes) => Cow::Owned(bytes),
        None => Cow::Borrowed(asset.bytes),
    }
}

/// The page shell with the asset URLs of this version.
fn shell() -> Cow<'static, str> {
    static SHELL: OnceLock<String> = OnceLock::new();
    let render = || {
        let html = asset("index.html").map(|a| String::from_utf8_lossy(&contents(a)).into_owned()).unwrap_or_default();
        html.replace("__VERSION__", version())
    };
    if dev_dir().is_some() {
        return Cow::Owned(render());
    }
    Cow::Borrowed(SHELL.get_or_init(render))
}

/// The content type of a file, by its extension.
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The routes of the web board, to merge into the API's router.
pub fn router() -> Router<Arc<App>> {
    let mut router = Router::new();
    // `/` is among the API's routes (it is in the OpenAPI document).
    for page in PAGES.iter().filter(|p| **p != "/") {
        router = router.route(page, get(page_shell));
    }
    router
        .route("/assets/{version}/{*file}", get(serve_asset))
        .route("/web/games/{id}/positions", get(positions))
        .route("/web/games/previews", get(previews))
}

/// Paths that belong to the API and the machinery, never to the page.
const NOT_PAGES: &[&str] = &["/api", "/assets", "/web", "/ws", "/metrics"];

/// Whether `path` is one of [`PAGES`], a trailing slash allowed.
fn is_page(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    let segments: Vec<&str> = path.split('/').collect();
    PAGES.iter().any(|page| {
        let pattern: Vec<&str> = page.trim_end_matches('/').split('/').collect();
        pattern.len() == segments.len()
            && pattern.iter().zip(&segments).all(|(p, s)| p == s || (p.starts_with('{') && !s.is_empty()))
    })
}

/// What a path no route serves is answered: under the API's prefixes (and
/// for any method but GET and HEAD) a JSON 404; any other path gets the
/// page shell, so that the page shows a page asked for with a trailing
/// slash, or its own translated "not found" (then with status 404).
pub async fn fallback(method: Method, uri: Uri) -> Response {
    let path = uri.path();
    let reserved = NOT_PAGES.iter().any(|p| path == *p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/')));
    if reserved || !(method == Method::GET || method == Method::HEAD) {
        return ApiError::not_found(NO_SUCH_ENDPOINT).into_response();
    }
    let mut page = page_shell().await;
    if !is_page(path) {
        *page.status_mut() = StatusCode::NOT_FOUND;
    }
    page
}

/// The web board (its start page; docs/web.md)
#[utoipa::path(get, path = "/", responses((status = 200, description = "HTML page", content_type = "text/html")))]
pub async fn page_shell() -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            (header::REFERRER_POLICY, HeaderValue::from_static("same-origin")),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'self'; connect-src 'self'; img-src 'self' data:; \
                     style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
                ),
            ),
        ],
        shell(),
    )
        .into_response()
}

/// An asset: for ever in caches when asked for under this version; a stale
/// version (a page loaded before an upgrade) still gets the file, uncached.
async fn serve_asset(Path((wanted, file)): Path<(String, String)>, headers: HeaderMap) -> Response {
    let Some(asset) = asset(&file).filter(|a| a.path != "index.html") else {
        return ApiError::not_found(format!("no asset `{}`", file.chars().take(80).collect::<String>()))
            .into_response();
    };
    let current = wanted == version() && dev_dir().is_none();
    let etag = format!("\"{}\"", version());
    let cache = if current { "public, max-age=31536000, immutable" } else { "no-cache" };
    let unchanged =
        dev_dir().is_none() && headers.get(header::IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes());
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, content_type(asset.path))], contents(asset)).into_response()
    };
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    response
}

/// The position after every ply of a game, from its start (index 0) to
/// now, and every move with its squares, for stepping through the move
/// list: the page has no rules of its own, so it cannot replay the moves
/// itself.
async fn positions(State(app): State<Arc<App>>, Path(id): Path<String>) -> ApiResult<Response> {
    let loaded = app.games.current(&id).await?;
    let row = &loaded.row;
    let kind: GameKind = row.kind.parse().map_err(|e| ApiError::internal(format!("{e}")))?;
    let mut game =
        AnyGame::new(kind, &row.rules, Some(&row.start_fen)).map_err(|e| ApiError::internal(format!("{e}")))?;
    let mut fens = Vec::with_capacity(row.moves.len() + 1);
    fens.push(game.fen());
    for m in &row.moves {
        game.play(&m.notation).map_err(|e| ApiError::internal(format!("stored move `{}`: {e}", m.notation)))?;
        fens.push(game.fen());
    }
    let moves: Vec<PlayedMove> =
        (0..game.moves_played()).filter_map(|n| game.played(n)).map(PlayedMove::from).collect();
    let body = json!({ "id": row.id, "version": row.version, "positions": fens, "moves": moves });
    Ok(([(header::CACHE_CONTROL, "no-cache")], Json(body)).into_response())
}

/// At most this many games in one `previews` request (a page of the live list).
const MAX_PREVIEWS: usize = 24;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PreviewsQuery {
    ids: String,
}

/// The current position of several games (`{"previews": {id: {fen, version}}}`),
/// for the small boards of the live list; games that do not exist are left
/// out.
async fn previews(State(app): State<Arc<App>>, Query(q): Query<PreviewsQuery>) -> ApiResult<Response> {
    let ids: Vec<&str> = q.ids.split(',').filter(|id| !id.is_empty()).collect();
    if ids.len() > MAX_PREVIEWS {
        return Err(ApiError::bad_request(format!("ids: {} games, at most {MAX_PREVIEWS}", ids.len())));
    }
    let mut previews = Map::new();
    for id in ids {
        match app.games.current(id).await {
            Ok(loaded) => {
                let preview = json!({ "fen": loaded.row.state.fen, "version": loaded.row.version });
                previews.insert(id.to_string(), preview);
            }
            Err(e) if e.status == StatusCode::NOT_FOUND => {}
            Err(e) => return Err(e),
        }
    }
    Ok(([(header::CACHE_CONTROL, "no-cache")], Json(json!({ "previews": previews }))).into_response())
}
