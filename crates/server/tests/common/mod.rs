//! A started server and its API through `oneshot` (no sockets), on
//! SQLite or PostgreSQL, for the server's test files.

// Each test file uses a different part of this module.
#![allow(dead_code)]

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use monte_server::{Config, Instance};
use monte_store::testing::TestDatabase;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;
use tower::ServiceExt;

/// A started server instance and what it needs to stay alive.
pub struct Server {
    pub instance: Instance,
    pub _db: Option<TestDatabase>,
    pub dir: Option<std::path::PathBuf>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

pub fn config(database: String) -> Config {
    Config { database, rate_limit: 0.0, ..Config::default() }
}

pub async fn sqlite_with(f: impl FnOnce(&mut Config)) -> Server {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir =
        std::env::temp_dir().join(format!("monte-api-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).unwrap();
    let mut c = config(dir.join("monte.db").to_string_lossy().into_owned());
    f(&mut c);
    Server { instance: monte_server::start(c).await.expect("start on sqlite"), _db: None, dir: Some(dir) }
}

pub async fn sqlite() -> Server {
    sqlite_with(|_| {}).await
}

pub async fn postgres() -> Server {
    let db = TestDatabase::create().await;
    let instance = monte_server::start(config(db.url.clone())).await.expect("start on postgres");
    Server { instance, _db: Some(db), dir: None }
}

impl Server {
    pub fn router(&self) -> Router {
        self.instance.router.clone()
    }

    pub async fn call(&self, method: &str, uri: &str, token: Option<&str>, body: Option<Value>) -> (StatusCode, Value) {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        self.raw(method, uri, token, body).await
    }

    pub async fn raw(&self, method: &str, uri: &str, token: Option<&str>, body: String) -> (StatusCode, Value) {
        let authorization = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = authorization.iter().map(|a| ("authorization", a.as_str())).collect();
        let (status, _, value) = self.send(method, uri, &headers, body).await;
        (status, value)
    }

    /// A JSON request with these headers: the status, the answer's
    /// headers, and its body (JSON, or the text as a JSON string).
    pub async fn send(
        &self,
        method: &str,
        uri: &str,
        headers: &[(&str, &str)],
        body: String,
    ) -> (StatusCode, HeaderMap, Value) {
        let mut req = Request::builder().method(method).uri(uri).header("content-type", "application/json");
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let res = self.router().oneshot(req.body(Body::from(body)).unwrap()).await.unwrap();
        let status = res.status();
        let headers = res.headers().clone();
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 24).await.unwrap();
        let value =
            serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
        (status, headers, value)
    }

    pub async fn ok(&self, method: &str, uri: &str, token: Option<&str>, body: Option<Value>) -> Value {
        let (status, value) = self.call(method, uri, token, body).await;
        assert!(status.is_success(), "{method} {uri}: {status} {value}");
        value
    }

    /// Creates a game: (id, white token, black token or invite code).
    pub async fn create(&self, body: Value) -> Value {
        let (status, v) = self.call("POST", "/api/games", None, Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
        v
    }
}

/// Any legal move of a view (the first one listed).
pub fn some_move(game: &Value) -> String {
    let legal = &game["legal_moves"];
    if let Some((_, moves)) = legal["from"].as_object().and_then(|m| m.iter().next()) {
        return moves[0]["notation"].as_str().unwrap().to_string();
    }
    if let Some(m) = legal["drops"].as_array().and_then(|d| d.first()) {
        return m["notation"].as_str().unwrap().to_string();
    }
    legal["pass"].as_str().expect("a legal move").to_string()
}

/// Serves the server's router on a loopback port (for WebSockets).
pub async fn listen(s: &Server) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = s.router().into_make_service_with_connect_info::<std::net::SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, service).await });
    addr
}

pub type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The next JSON message of type `kind`.
pub async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message in time");
        if let Some(Ok(Message::Text(t))) = msg {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["type"] == kind {
                return v;
            }
        } else {
            panic!("websocket ended: {msg:?}");
        }
    }
}
