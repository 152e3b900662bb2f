//! The web board's files as the server gives them (the board itself is
//! tested in Chromium: web/tests, scripts/web-test.sh).

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use monte_server::web::{ASSETS, PAGES, content_type, version};
use monte_server::{Config, Instance};
use serde_json::{Value, json};
use tower::ServiceExt;

struct Server {
    instance: Instance,
    dir: std::path::PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn server() -> Server {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir =
        std::env::temp_dir().join(format!("monte-web-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).unwrap();
    let config =
        Config { database: dir.join("monte.db").to_string_lossy().into_owned(), rate_limit: 0.0, ..Config::default() };
    Server { instance: monte_server::start(config).await.expect("start on sqlite"), dir }
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: header::HeaderName) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Server {
    async fn call(&self, method: &str, uri: &str, body: Option<Value>, extra: &[(&str, &str)]) -> Answer {
        let mut req = Request::builder().method(method).uri(uri).header("content-type", "application/json");
        for (k, v) in extra {
            req = req.header(*k, *v);
        }
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let res = self.instance.router.clone().oneshot(req.body(Body::from(body)).unwrap()).await.unwrap();
        let status = res.status();
        let headers = res.headers().clone();
        let body = axum::body::to_bytes(res.into_body(), 1 << 24).await.unwrap().to_vec();
        Answer { status, headers, body }
    }
}

#[test]
fn every_file_of_the_page_is_embedded() {
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let mut on_disk: Vec<String> = std::fs::read_dir(&web)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = ASSETS.iter().map(|a| a.path.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "web/ and web::ASSETS differ: add new files to the list");
    for asset in ASSETS {
        assert_ne!(content_type(asset.path), "application/octet-stream", "{}: unknown content type", asset.path);
    }
}

#[tokio::test]
async fn pages_are_the_shell_with_this_versions_assets() {
    let s = server().await;
    for page in PAGES {
        let uri = page.replace("{id}", "abc123").replace("{code}", "xyz");
        let a = s.call("GET", &uri, None, &[]).await;
        assert_eq!(a.status, StatusCode::OK, "{uri}");
        assert_eq!(a.header(header::CONTENT_TYPE), "text/html; charset=utf-8", "{uri}");
        assert_eq!(a.header(header::CACHE_CONTROL), "no-cache", "{uri}");
        let html = a.text();
        assert!(html.contains(&format!("/assets/{}/app.js", version())), "{uri}: {html}");
        assert!(!html.contains("__VERSION__"), "{uri}");
        assert!(html.contains("/api/openapi.json"), "{uri}: the page links to the API description");
    }
}

#[tokio::test]
async fn other_paths_get_the_page_and_api_paths_a_json_404() {
    let s = server().await;
    let shell = |a: &Answer, uri: &str| {
        assert_eq!(a.header(header::CONTENT_TYPE), "text/html; charset=utf-8", "{uri}");
        assert!(a.text().contains(&format!("/assets/{}/app.js", version())), "{uri}");
    };
    // A page with a trailing slash is the page.
    for uri in ["/rules/", "/game/abc123/", "/live//", "/invite/xyz/"] {
        let a = s.call("GET", uri, None, &[]).await;
        assert_eq!(a.status, StatusCode::OK, "{uri}");
        shell(&a, uri);
    }
    // Any other path: the page, which says it has no such page.
    for uri in ["/nonsense", "/no/such/page", "/game", "/game/abc/def", "/rules/more", "/apix"] {
        let a = s.call("GET", uri, None, &[]).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{uri}");
        shell(&a, uri);
    }
    // The API's own paths, and other methods, stay JSON.
    for (method, uri) in [
        ("GET", "/api/nonsense"),
        ("GET", "/api/"),
        ("GET", "/api"),
        ("GET", "/ws"),
        ("GET", "/web/x"),
        ("GET", "/assets"),
        ("POST", "/nonsense"),
        ("DELETE", "/rules/"),
    ] {
        let a = s.call(method, uri, None, &[]).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{method} {uri}");
        assert_eq!(a.json()["error"], monte_server::api::NO_SUCH_ENDPOINT, "{method} {uri}");
    }
}

#[tokio::test]
async fn assets_have_their_types_and_are_cached_for_their_version() {
    let s = server().await;
    let v = version();
    let a = s.call("GET", &format!("/assets/{v}/app.js"), None, &[]).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.header(header::CONTENT_TYPE), "text/javascript; charset=utf-8");
    assert_eq!(a.header(header::CACHE_CONTROL), "public, max-age=31536000, immutable");
    assert!(a.text().contains("import"));
    let etag = a.header(header::ETAG).to_string();
    let again = s.call("GET", &format!("/assets/{v}/app.js"), None, &[("if-none-match", &etag)]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);

    let css = s.call("GET", &format!("/assets/{v}/style.css"), None, &[]).await;
    assert_eq!(css.header(header::CONTENT_TYPE), "text/css; charset=utf-8");
    let svg = s.call("GET", &format!("/assets/{v}/favicon.svg"), None, &[]).await;
    assert_eq!(svg.header(header::CONTENT_TYPE), "image/svg+xml");

    // A page loaded before an upgrade asks for an old version: it gets the file, not cached.
    let stale = s.call("GET", "/assets/0123456789ab/app.js", None, &[]).await;
    assert_eq!(stale.status, StatusCode::OK);
    assert_eq!(stale.header(header::CACHE_CONTROL), "no-cache");

    for missing in ["nothing.js", "../Cargo.toml", "tests/package.json", "index.html"] {
        let a = s.call("GET", &format!("/assets/{v}/{missing}"), None, &[]).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{missing}");
        assert!(a.json()["error"].as_str().unwrap().contains("no asset"), "{missing}");
    }
}

#[tokio::test]
async fn positions_replay_a_game_ply_by_ply() {
    let s = server().await;
    let created =
        s.call("POST", "/api/games", Some(json!({ "game": "salta", "white": "me", "black": "me" })), &[]).await;
    assert_eq!(created.status, StatusCode::CREATED);
    let created = created.json();
    let id = created["game"]["id"].as_str().unwrap();
    let white = created["tokens"]["white"].as_str().unwrap().to_string();
    let black = created["tokens"]["black"].as_str().unwrap().to_string();
    let auth = |t: &str| format!("Bearer {t}");
    for (mv, token) in [("e3-f4", &white), ("d8-e7", &black), ("f4-g5", &white)] {
        let a = s
            .call(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(json!({ "move": mv })),
                &[("authorization", &auth(token))],
            )
            .await;
        assert_eq!(a.status, StatusCode::OK, "{mv}: {}", a.text());
    }
    let a = s.call("GET", &format!("/web/games/{id}/positions"), None, &[]).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    let v = a.json();
    let positions = v["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 4);
    assert_eq!(positions[0], monte_rules::salta::START_FEN);
    let now = s.call("GET", &format!("/api/games/{id}"), None, &[]).await.json();
    assert_eq!(positions[3], now["game"]["fen"]);
    // After 1. e3-f4 the sun has left e3 for f4, Black to move.
    assert!(positions[1].as_str().unwrap().ends_with(" b - 1"));

    let missing = s.call("GET", "/web/games/nosuchgame/positions", None, &[]).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    let bad = s.call("GET", "/web/games/bad%20id/positions", None, &[]).await;
    assert_eq!(bad.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn previews_give_the_current_position_of_several_games() {
    let s = server().await;
    let mut games = Vec::new();
    for kind in ["salta", "focus"] {
        let created =
            s.call("POST", "/api/games", Some(json!({ "game": kind, "white": "me", "black": "me" })), &[]).await;
        assert_eq!(created.status, StatusCode::CREATED);
        games.push(created.json());
    }
    let salta = games[0]["game"]["id"].as_str().unwrap();
    let focus = games[1]["game"]["id"].as_str().unwrap();
    let white = format!("Bearer {}", games[0]["tokens"]["white"].as_str().unwrap());
    let moved = s
        .call(
            "POST",
            &format!("/api/games/{salta}/moves"),
            Some(json!({ "move": "e3-f4" })),
            &[("authorization", &white)],
        )
        .await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.text());

    let a = s.call("GET", &format!("/web/games/previews?ids={salta},{focus},nosuchgame"), None, &[]).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text());
    let previews = a.json()["previews"].clone();
    assert_eq!(previews.as_object().unwrap().len(), 2, "{previews}");
    for id in [salta, focus] {
        let now = s.call("GET", &format!("/api/games/{id}"), None, &[]).await.json();
        assert_eq!(previews[id]["fen"], now["game"]["fen"], "{id}");
        assert_eq!(previews[id]["version"], now["game"]["version"], "{id}");
    }
    assert!(previews[salta]["fen"].as_str().unwrap().ends_with(" b - 1"));

    let many = vec![salta; 25].join(",");
    let too_many = s.call("GET", &format!("/web/games/previews?ids={many}"), None, &[]).await;
    assert_eq!(too_many.status, StatusCode::BAD_REQUEST);
    assert!(too_many.json()["error"].as_str().unwrap().contains("at most 24"), "{}", too_many.text());
    let missing = s.call("GET", "/web/games/previews", None, &[]).await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST);
}
