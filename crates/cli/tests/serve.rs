//! `monte serve` as real processes: killed with SIGKILL and stopped with
//! SIGTERM in the middle of games and restarted, raced, fed garbage, and
//! run as two instances on one PostgreSQL database.

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
            .env("MONTE_LOG", "warn")
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

    /// SIGTERM (sent with kill(1): no unsafe code, no extra crate), then
    /// waits for the process to end: its exit status, and the time it took.
    fn terminate(mut self) -> (std::process::ExitStatus, Duration) {
        let sent = Instant::now();
        let kill = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().expect("run kill");
        assert!(kill.success(), "kill -TERM: {kill}");
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for monte serve") {
                return (status, sent.elapsed());
            }
            assert!(sent.elapsed() < Duration::from_secs(30), "monte serve still runs 30 s after SIGTERM");
            std::thread::sleep(Duration::from_millis(5));
        }
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

/// The move a test player makes in `game` (a fixed pick among the legal
/// ones): its ply, its notation, and the token of the side to move.
fn choose<'a>(game: &Value, white: &'a str, black: &'a str) -> (i64, String, &'a str) {
    let ply = game["ply"].as_i64().unwrap();
    let moves = legal(game);
    let mv = moves[(ply as usize * 5 + 3) % moves.len()].clone();
    let token = if game["side_to_move"] == "white" { white } else { black };
    (ply, mv, token)
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
                    let (ply, mv, token) = choose(&game, &white, &black);
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

/// Runs `test` on a fresh SQLite database (`tag` names its directory).
fn on_sqlite(tag: &str, test: impl FnOnce(&str)) {
    let (dir, db) = temp_db(tag);
    test(&db);
    let _ = std::fs::remove_dir_all(dir);
}

/// Runs `test` (named `name`) on a fresh PostgreSQL database, unless
/// PostgreSQL tests are skipped.
fn on_postgres(name: &str, test: impl FnOnce(&str)) {
    if skip_postgres(name) {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let db = runtime.block_on(TestDatabase::create());
    test(&db.url);
}

#[test]
fn sigkill_mid_game_loses_nothing_acknowledged_on_sqlite() {
    on_sqlite("kill", nothing_acknowledged_is_lost);
}

#[test]
fn sigkill_mid_game_loses_nothing_acknowledged_on_postgres() {
    on_postgres("sigkill_mid_game_loses_nothing_acknowledged_on_postgres", nothing_acknowledged_is_lost);
}

/// One player's part of the SIGTERM test: its games, and the moves the
/// server acknowledged: (game, ply, move).
#[derive(Debug, Default)]
struct Played {
    games: Vec<(String, String, String)>,
    acked: Vec<(String, i64, String)>,
    /// Every move request: when it was sent, when it ended, and whether
    /// it was answered (no answer: the server had stopped accepting).
    requests: Vec<(Instant, Instant, bool)>,
    /// Answers other than 200 and 201, by status.
    other: Vec<u16>,
}

/// Creates a game both of whose seats `addr`'s caller holds: (id, white's
/// token, black's token), or None when the server does not answer.
fn new_game(addr: SocketAddr, kind: &str) -> Option<(String, String, String)> {
    let (status, v) =
        http(addr, "POST", "/api/games", None, Some(&json!({ "game": kind, "white": "me", "black": "me" })))?;
    assert_eq!(status, 201, "{v}");
    let token = |side: &str| v["tokens"][side].as_str().unwrap().to_string();
    Some((v["game"]["id"].as_str().unwrap().to_string(), token("white"), token("black")))
}

/// Plays game after game, each move sent with its ply, until the server
/// stops answering.
fn play_until_stopped(addr: SocketAddr, kind: &'static str, first: (String, String, String)) -> Played {
    let mut played = Played::default();
    let mut next = Some(first);
    while let Some((id, white, black)) = next.take() {
        played.games.push((id.clone(), white.clone(), black.clone()));
        let Some((_, v)) = http(addr, "GET", &format!("/api/games/{id}"), None, None) else { break };
        let mut game = v["game"].clone();
        while game["status"] == "active" {
            let (ply, mv, token) = choose(&game, &white, &black);
            let body = json!({ "move": mv, "ply": ply });
            let sent = Instant::now();
            let answer = http(addr, "POST", &format!("/api/games/{id}/moves"), Some(token), Some(&body));
            played.requests.push((sent, Instant::now(), answer.is_some()));
            match answer {
                Some((200, v)) => {
                    played.acked.push((id.clone(), ply, mv));
                    game = v["game"].clone();
                }
                Some((status, _)) => {
                    played.other.push(status);
                    return played;
                }
                None => return played,
            }
        }
        next = new_game(addr, kind);
    }
    played
}

/// Players make moves as fast as they can and spectators watch over
/// WebSockets; the server gets SIGTERM in the middle. It must answer the
/// requests in flight, say goodbye (1001) on every WebSocket and exit 0;
/// after a restart on the same database every acknowledged move is there,
/// none was acknowledged twice, and no move was committed without an
/// answer. A client resumes by reading the game and sending its move with
/// the ply: a repeated move is refused (409), not played twice.
fn sigterm_under_load_loses_nothing(database: &str) {
    let shown = if database.starts_with("postgres") { "postgres" } else { "sqlite" };
    let server = Server::start_as(database, &["--drain-timeout", "10"]);
    let addr = server.addr;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let firsts: Vec<_> =
        (0..12).map(|i| new_game(addr, if i % 2 == 0 { "salta" } else { "focus" }).expect("a game")).collect();
    let watchers: Vec<_> = firsts[..4]
        .iter()
        .map(|(id, _, _)| {
            let url = format!("ws://{addr}/api/games/{id}/ws");
            runtime.spawn(async move {
                let (mut ws, _) = tokio_tungstenite::connect_async(url).await.expect("a spectator");
                // The close frame's code, if one came before the end.
                loop {
                    match ws.next().await {
                        Some(Ok(tokio_tungstenite::tungstenite::Message::Close(frame))) => {
                            return frame.map(|f| u16::from(f.code));
                        }
                        Some(Ok(_)) => continue,
                        Some(Err(_)) | None => return None,
                    }
                }
            })
        })
        .collect();
    let players: Vec<_> = firsts
        .into_iter()
        .enumerate()
        .map(|(i, first)| {
            let kind = if i % 2 == 0 { "salta" } else { "focus" };
            std::thread::spawn(move || play_until_stopped(addr, kind, first))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1000));
    let signalled = Instant::now();
    let (status, took) = server.terminate();
    let played: Vec<Played> = players.into_iter().map(|p| p.join().expect("a player")).collect();
    let codes: Vec<Option<u16>> = watchers.into_iter().map(|w| runtime.block_on(w).expect("a spectator")).collect();

    let acked: Vec<&(String, i64, String)> = played.iter().flat_map(|p| &p.acked).collect();
    let requests: Vec<&(Instant, Instant, bool)> = played.iter().flat_map(|p| &p.requests).collect();
    // Sent before the signal, ended after it: (answered, not).
    let flying = requests.iter().filter(|(sent, ended, _)| *sent < signalled && *ended > signalled);
    let (flying_answered, flying_unanswered) =
        flying.fold((0, 0), |(a, u), r| if r.2 { (a + 1, u) } else { (a, u + 1) });
    let unanswered = requests.iter().filter(|r| !r.2).count();
    let other: Vec<u16> = played.iter().flat_map(|p| p.other.iter().copied()).collect();
    let mut plies = std::collections::HashMap::<(&str, i64), usize>::new();
    for (id, ply, _) in &acked {
        *plies.entry((id.as_str(), *ply)).or_default() += 1;
    }
    let twice = plies.values().filter(|&&n| n > 1).count();

    let server = Server::start(database);
    let addr = server.addr;
    let (mut lost, mut unacknowledged, mut resumed) = (0, 0, 0);
    for p in &played {
        for (id, white, black) in &p.games {
            let game = ok(addr, "GET", &format!("/api/games/{id}"), None, None)["game"].clone();
            let history = game["history"].as_array().unwrap();
            let mine: Vec<_> = p.acked.iter().filter(|(g, _, _)| g == id).collect();
            lost += mine.iter().filter(|(_, ply, mv)| history.get(*ply as usize) != Some(&json!(mv))).count();
            unacknowledged += history.len().saturating_sub(mine.len());
            // The client resumes: a retry of its last move is refused, not
            // played again; the game goes on from the ply it reads.
            if let Some((_, ply, mv)) = mine.last() {
                let token = if ply % 2 == 0 { white } else { black };
                let body = json!({ "move": mv, "ply": ply });
                let (status, _) =
                    http(addr, "POST", &format!("/api/games/{id}/moves"), Some(token), Some(&body)).unwrap();
                assert_eq!(status, 409, "{id}: a retry of ply {ply}");
            }
            if game["status"] == "active" {
                let ply = game["ply"].as_i64().unwrap();
                let token = if game["side_to_move"] == "white" { white } else { black };
                let body = json!({ "move": legal(&game)[0], "ply": ply });
                ok(addr, "POST", &format!("/api/games/{id}/moves"), Some(token), Some(body));
                resumed += 1;
            }
        }
    }
    let goodbyes = codes.iter().filter(|&&c| c == Some(1001)).count();
    eprintln!(
        "sigterm ({shown}): {} moves acknowledged in {} games; requests in flight at SIGTERM: {flying_answered} \
         answered, {flying_unanswered} not accepted; {unanswered} requests with no answer in all; other answers \
         {other:?}; exit code {:?} {:.2} s after SIGTERM; \
         WebSockets closed with 1001: {goodbyes} of {}; after the restart: {lost} lost, {twice} plies acknowledged twice, \
         {unacknowledged} moves committed without an answer, {resumed} games resumed",
        acked.len(),
        played.iter().map(|p| p.games.len()).sum::<usize>(),
        status.code(),
        took.as_secs_f64(),
        codes.len()
    );
    assert!(status.success(), "exit status {status}");
    assert!(acked.len() >= 24, "moves were being played ({} acknowledged)", acked.len());
    assert!(other.is_empty(), "answers other than 200: {other:?}");
    assert_eq!((lost, twice, unacknowledged), (0, 0, 0));
    assert_eq!(goodbyes, codes.len(), "close codes {codes:?}");
}

#[test]
fn sigterm_under_load_loses_nothing_on_sqlite() {
    on_sqlite("sigterm", sigterm_under_load_loses_nothing);
}

#[test]
fn sigterm_under_load_loses_nothing_on_postgres() {
    on_postgres("sigterm_under_load_loses_nothing_on_postgres", sigterm_under_load_loses_nothing);
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
