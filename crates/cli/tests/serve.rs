//! `monte serve` as real processes: killed with SIGKILL in the middle of
//! games and restarted, raced, fed garbage, and run as two instances on one
//! PostgreSQL database.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use monte_store::testing::{TestDatabase, skip_postgres};
use serde_json::{Value, json};

/// A running `monte serve`, killed (SIGKILL) when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(database: &str) -> Server {
        Server::start_as(database, &[])
    }

    fn start_as(database: &str, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_monte"))
            .args(["serve", "--database", database, "--listen", "127.0.0.1:0", "--rate-limit", "0"])
            .args(["--ai-threads", "1"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start monte serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("read the address");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .parse()
            .expect("an address");
        Server { child, addr }
    }

    /// SIGKILL: no chance to flush or finish anything.
    fn kill9(mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().ok();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request on a fresh connection: (status, JSON or text body).
fn http(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: Option<&Value>) -> Option<(u16, Value)> {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    raw(addr, request.as_bytes())
}

/// Sends raw bytes; parses the answer. With `close`, the sending side is
/// shut after the bytes: a request cut short is seen as such, not waited for.
fn raw(addr: SocketAddr, bytes: &[u8]) -> Option<(u16, Value)> {
    send(addr, bytes, false)
}

fn send(addr: SocketAddr, bytes: &[u8], close: bool) -> Option<(u16, Value)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    stream.write_all(bytes).ok()?;
    if close {
        stream.shutdown(std::net::Shutdown::Write).ok()?;
    }
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(body) } else { body.into() };
    let value = serde_json::from_str(&body).unwrap_or(Value::String(body));
    Some((status, value))
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

fn ok(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Value {
    let (status, v) = http(addr, method, path, token, body.as_ref()).expect("an answer");
    assert!((200..300).contains(&status), "{method} {path}: {status} {v}");
    v
}

/// Every legal move of a view, in a fixed order.
fn legal(game: &Value) -> Vec<String> {
    let l = &game["legal_moves"];
    let mut all: Vec<String> = Vec::new();
    for moves in l["from"].as_object().unwrap().values() {
        all.extend(moves.as_array().unwrap().iter().map(|m| m["notation"].as_str().unwrap().to_string()));
    }
    all.extend(l["drops"].as_array().unwrap().iter().map(|m| m["notation"].as_str().unwrap().to_string()));
    all.extend(l["pass"].as_str().map(str::to_string));
    all
}

fn temp_db(tag: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("monte-serve-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("monte.db").to_string_lossy().into_owned();
    (dir, db)
}

/// Players hammer games with moves; the server is killed with SIGKILL in
/// the middle; after a restart every acknowledged move is there, and the
/// games (AI seats included) go on.
fn nothing_acknowledged_is_lost(database: &str) {
    // The restarted instance keeps its name, so it takes its AI claims back
    // at once (a stranger's claims would wait for their lease to run out).
    let name = ["--instance", "restarted"];
    let server = Server::start_as(database, &name);
    let addr = server.addr;
    let games: Vec<(String, String, String)> = (0..12)
        .map(|i| {
            let kind = if i % 2 == 0 { "salta" } else { "focus" };
            let v = ok(addr, "POST", "/api/games", None, Some(json!({ "game": kind, "white": "me", "black": "me" })));
            let t = &v["tokens"];
            (
                v["game"]["id"].as_str().unwrap().into(),
                t["white"].as_str().unwrap().into(),
                t["black"].as_str().unwrap().into(),
            )
        })
        .collect();
    let ai = ok(addr, "POST", "/api/games", None, Some(json!({ "game": "salta", "white": "ai:1", "black": "ai:1" })));
    let ai_id = ai["game"]["id"].as_str().unwrap().to_string();

    let players: Vec<_> = games
        .iter()
        .cloned()
        .map(|(id, white, black)| {
            std::thread::spawn(move || {
                // (ply, move) for every move the server acknowledged.
                let mut acked: Vec<(i64, String)> = Vec::new();
                let mut game = ok(addr, "GET", &format!("/api/games/{id}"), None, None)["game"].clone();
                while game["status"] == "active" {
                    let ply = game["ply"].as_i64().unwrap();
                    let moves = legal(&game);
                    let mv = moves[(ply as usize * 5 + 3) % moves.len()].clone();
                    let token = if game["side_to_move"] == "white" { &white } else { &black };
                    let body = json!({ "move": mv, "ply": ply });
                    match http(addr, "POST", &format!("/api/games/{id}/moves"), Some(token), Some(&body)) {
                        Some((200, v)) => {
                            acked.push((ply, mv));
                            game = v["game"].clone();
                        }
                        Some((status, v)) => panic!("move refused: {status} {v}"),
                        None => break, // the server is gone
                    }
                }
                acked
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1200));
    server.kill9();
    let acked: Vec<Vec<(i64, String)>> = players.into_iter().map(|p| p.join().expect("player")).collect();
    let total: usize = acked.iter().map(Vec::len).sum();
    assert!(total >= 24, "moves were in flight when the server died ({total} acknowledged)");

    let server = Server::start_as(database, &name);
    let addr = server.addr;
    for ((id, white, black), acked) in games.iter().zip(&acked) {
        let game = ok(addr, "GET", &format!("/api/games/{id}"), None, None)["game"].clone();
        let history = game["history"].as_array().unwrap();
        // Everything acknowledged is there; at most the one move whose
        // answer was lost in the kill is there too.
        assert!(history.len() >= acked.len() && history.len() <= acked.len() + 1, "{id}: {history:?} vs {acked:?}");
        for (ply, mv) in acked {
            assert_eq!(history[*ply as usize], mv.as_str(), "{id}: acknowledged move {ply} lost");
        }
        // And the game goes on.
        if game["status"] == "active" {
            let token = if game["side_to_move"] == "white" { white } else { black };
            let mv = legal(&game)[0].clone();
            ok(addr, "POST", &format!("/api/games/{id}/moves"), Some(token), Some(json!({ "move": mv })));
        }
    }
    // The AI game resumes by itself.
    let before = ok(addr, "GET", &format!("/api/games/{ai_id}"), None, None)["game"]["ply"].as_i64().unwrap();
    let deadline = Instant::now() + Duration::from_secs(25);
    loop {
        let g = ok(addr, "GET", &format!("/api/games/{ai_id}"), None, None)["game"].clone();
        if g["ply"].as_i64().unwrap() >= before + 2 || g["status"] == "over" {
            break;
        }
        assert!(Instant::now() < deadline, "the AI game did not resume after the restart");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn sigkill_mid_game_loses_nothing_acknowledged_on_sqlite() {
    let (dir, db) = temp_db("kill");
    nothing_acknowledged_is_lost(&db);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sigkill_mid_game_loses_nothing_acknowledged_on_postgres() {
    if skip_postgres("sigkill_mid_game_loses_nothing_acknowledged_on_postgres") {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let db = runtime.block_on(TestDatabase::create());
    nothing_acknowledged_is_lost(&db.url);
}

/// Many clients send different moves for the same turn at once: exactly one lands.
#[test]
fn concurrent_conflicting_moves_exactly_one_wins() {
    let (dir, db) = temp_db("race");
    let server = Server::start(&db);
    let addr = server.addr;
    for round in 0..4 {
        let v = ok(addr, "POST", "/api/games", None, Some(json!({ "game": "focus", "white": "me", "black": "me" })));
        let id = v["game"]["id"].as_str().unwrap().to_string();
        let white = v["tokens"]["white"].as_str().unwrap().to_string();
        let moves = legal(&v["game"]);
        let racers = 8;
        let barrier = Arc::new(Barrier::new(racers));
        let results: Vec<u16> = (0..racers)
            .map(|i| {
                let (id, white, mv, barrier) = (id.clone(), white.clone(), moves[i].clone(), barrier.clone());
                // Half say which turn the move is for, half do not.
                let body = if i % 2 == 0 { json!({ "move": mv, "ply": 0 }) } else { json!({ "move": mv }) };
                std::thread::spawn(move || {
                    barrier.wait();
                    http(addr, "POST", &format!("/api/games/{id}/moves"), Some(&white), Some(&body)).unwrap().0
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        assert_eq!(results.iter().filter(|&&s| s == 200).count(), 1, "round {round}: {results:?}");
        assert!(results.iter().all(|&s| s == 200 || s == 409), "round {round}: {results:?}");
        let g = ok(addr, "GET", &format!("/api/games/{id}"), None, None);
        assert_eq!(g["game"]["ply"], 1);
    }
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}

/// Garbage on the wire gets 4xx answers (or a closed connection), never a
/// dead server.
#[test]
fn garbage_requests_get_4xx_and_the_server_stays_up() {
    let (dir, db) = temp_db("garbage");
    let server = Server::start(&db);
    let addr = server.addr;
    let long_header = format!(
        "GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Long: {}\r\n\r\n",
        "a".repeat(1_000_000)
    );
    let huge_body = format!(
        "POST /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: 1000000\r\n\r\n{}",
        "{".repeat(1_000_000)
    );
    let cases: Vec<Vec<u8>> = vec![
        b"GARBAGE\r\n\r\n".to_vec(),
        b"GET / HTTP/9.9\r\n\r\n".to_vec(),
        b"\x00\x01\x02\x03\xff\xfe\r\n\r\n".to_vec(),
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\n{\"ga".to_vec(),
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: abc\r\n\r\n".to_vec(),
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
            .to_vec(),
        b"GET /api/games/%ff%fe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
        b"GET /api/games/open?limit=%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
        b"GET /api/games/x/ws HTTP/1.1\r\nHost: x\r\nConnection: close\r\nUpgrade: websocket\r\n\r\n".to_vec(),
    ];
    // The server may answer and close before all of a huge request is sent.
    for (huge, expected) in [(huge_body, 413), (long_header, 431)] {
        if let Some((status, _)) = send(addr, huge.as_bytes(), false) {
            assert_eq!(status, expected);
        }
    }
    for case in &cases {
        // Requests cut short are closed after sending (or they would be
        // waited for); all others must be answered.
        let cut_short = case.windows(8).any(|w| w == b"\r\n\r\n{\"ga") || case.ends_with(b"zz\r\n");
        let answer = send(addr, case, cut_short);
        let shown = String::from_utf8_lossy(&case[..case.len().min(60)]).into_owned();
        assert!(answer.is_some() || cut_short, "{shown:?}: no answer");
        if let Some((status, v)) = answer {
            assert!((400..500).contains(&status), "{shown:?}: {status} {v}");
        }
    }
    let (status, v) = http(addr, "POST", "/api/games", None, Some(&json!({ "game": "chess" }))).unwrap();
    assert_eq!(status, 400);
    assert!(v["error"].as_str().unwrap().contains("chess"));
    assert_eq!(ok(addr, "GET", "/api/health", None, None)["status"], "ok");
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}

/// Two processes on one PostgreSQL database act as one service.
#[test]
fn two_instances_on_one_postgres() {
    if skip_postgres("two_instances_on_one_postgres") {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let db = runtime.block_on(TestDatabase::create());
    let a = Server::start(&db.url);
    let b = Server::start(&db.url);
    let v = ok(a.addr, "POST", "/api/games", None, Some(json!({ "game": "salta", "white": "me", "black": "me" })));
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let (white, black) = (v["tokens"]["white"].as_str().unwrap(), v["tokens"]["black"].as_str().unwrap());
    runtime.block_on(async {
        let url = format!("ws://{}/api/games/{id}/ws", b.addr);
        let (mut spectator, _) = tokio_tungstenite::connect_async(url).await.expect("spectator on B");
        // The spectator's copy of the game: a `state` replaces it, an
        // `update` (a change made on B itself) is applied to it.
        let mut seen = Value::Null;
        let mut next_state = async || loop {
            let msg = tokio::time::timeout(Duration::from_secs(10), spectator.next()).await.expect("in time");
            let text = msg.expect("open").expect("a message").into_text().unwrap();
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["type"] == "state" {
                seen = v["game"].clone();
                return seen.clone();
            }
            if v["type"] == "update" {
                assert_eq!(v["game"]["version"].as_i64(), seen["version"].as_i64().map(|n| n + 1), "{v}");
                let keep = v["history"]["keep"].as_u64().unwrap() as usize;
                let mut history = seen["history"].as_array().unwrap()[..keep].to_vec();
                history.extend(v["history"]["add"].as_array().unwrap().iter().cloned());
                seen = v["game"].clone();
                seen["history"] = Value::Array(history);
                return seen.clone();
            }
        };
        assert_eq!(next_state().await["ply"], 0);
        // Moves through A (white) and through B (black) all reach the spectator on B.
        let mut game = v["game"].clone();
        for ply in 0..6 {
            let (server, token) = if ply % 2 == 0 { (&a, white) } else { (&b, black) };
            let mv = legal(&game)[ply % 3].clone();
            ok(
                server.addr,
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(token),
                Some(json!({ "move": mv, "ply": ply })),
            );
            game = next_state().await;
            assert_eq!(game["ply"], ply as i64 + 1);
            assert_eq!(game["history"][ply], mv.as_str());
        }
    });
    // An AI game with both instances ready to move: each AI move is searched once.
    let v = ok(
        b.addr,
        "POST",
        "/api/games",
        None,
        Some(json!({ "game": "focus", "rules": "seed,move-limit=6", "white": "ai:1", "black": "ai:2" })),
    );
    let ai_id = v["game"]["id"].as_str().unwrap();
    let deadline = Instant::now() + Duration::from_secs(40);
    let finished = loop {
        let g = ok(a.addr, "GET", &format!("/api/games/{ai_id}"), None, None)["game"].clone();
        if g["status"] == "over" {
            break g;
        }
        assert!(Instant::now() < deadline, "the AI game did not finish: {g}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let count = |s: &Server, key: &str| ok(s.addr, "GET", "/api/health", None, None)[key].as_u64().unwrap();
    let plies = finished["ply"].as_u64().unwrap();
    assert!(plies > 0);
    assert_eq!(count(&a, "ai_searches") + count(&b, "ai_searches"), plies, "one search per AI move");
    assert_eq!(count(&a, "ai_moves") + count(&b, "ai_moves"), plies);
    drop(a);
    drop(b);
}
