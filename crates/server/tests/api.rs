//! The API through `oneshot` (no sockets), the same tests on SQLite and on
//! PostgreSQL; the WebSocket tests listen on a loopback port.

mod common;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{Server, Ws, config, listen, next_of, postgres, some_move, sqlite, sqlite_with};
use futures_util::{SinkExt, StreamExt};
use monte_rules::any::AnyGame;
use monte_store::testing::skip_postgres;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tower::ServiceExt;

/// The `n`-th legal move of a view, counting round.
fn nth_move(game: &Value, n: usize) -> String {
    let legal = &game["legal_moves"];
    let mut all: Vec<&str> = legal["from"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|v| v.as_array().unwrap())
        .collect::<Vec<_>>()
        .iter()
        .map(|m| m["notation"].as_str().unwrap())
        .collect();
    all.extend(legal["drops"].as_array().unwrap().iter().map(|m| m["notation"].as_str().unwrap()));
    all.extend(legal["pass"].as_str());
    all[n % all.len()].to_string()
}

/// A whole game between two humans through the API, to its end by the rules.
async fn full_game(s: &Server, kind: &str) {
    let created = s.create(json!({ "game": kind, "rules": "seed,move-limit=15", "name": "Ann", "public": true })).await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let white = created["tokens"]["white"].as_str().unwrap().to_string();
    assert!(created["tokens"].get("black").is_none());
    let code = created["invite"]["code"].as_str().unwrap().to_string();
    assert_eq!(created["game"]["status"], "waiting");

    let open = s.ok("GET", "/api/games/open", None, None).await;
    assert!(open["games"].as_array().unwrap().iter().any(|g| g["id"] == id.as_str()));
    let invite = s.ok("GET", &format!("/api/invites/{code}"), None, None).await;
    assert_eq!(invite["open"], json!(["black"]));
    // Moving before the game starts is refused.
    let (status, _) = s.call("POST", &format!("/api/games/{id}/moves"), Some(&white), Some(json!({"move": "x"}))).await;
    assert_eq!(status, StatusCode::CONFLICT);

    let joined = s.ok("POST", &format!("/api/invites/{code}"), None, Some(json!({ "name": "Bob" }))).await;
    assert_eq!(joined["you"], "black");
    let black = joined["token"].as_str().unwrap().to_string();
    assert_eq!(joined["game"]["status"], "active");
    let (status, used) = s.call("POST", &format!("/api/invites/{code}"), None, None).await;
    assert_eq!(status, StatusCode::CONFLICT, "an invite is used once: {used}");
    let (status, _) = s.call("POST", "/api/invites/nosuchcode", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a code that never was");
    let live = s.ok("GET", "/api/games/live", None, None).await;
    assert!(live["games"].as_array().unwrap().iter().any(|g| g["id"] == id.as_str()));
    let mine = s.ok("POST", "/api/games/mine", None, Some(json!({ "tokens": [black] }))).await;
    assert_eq!(mine["games"][0]["id"], id.as_str());

    let mut game = joined["game"].clone();
    let mut played = Vec::new();
    while game["status"] == "active" {
        let token = if game["side_to_move"] == "white" { &white } else { &black };
        let ply = game["ply"].as_i64().unwrap();
        let mv = nth_move(&game, ply as usize * 7);
        let v =
            s.ok("POST", &format!("/api/games/{id}/moves"), Some(token), Some(json!({ "move": mv, "ply": ply }))).await;
        game = v["game"].clone();
        assert_eq!(game["ply"].as_i64().unwrap(), ply + 1);
        played.push(mv);
        assert!(played.len() <= 30, "the move limit ends the game");
    }
    assert_eq!(game["status"], "over");
    let reason = game["result"]["reason"].as_str().unwrap();
    assert!(["move limit", "threefold repetition", "goal", "no pieces"].contains(&reason), "{reason}");
    assert!(game["legal_moves"]["from"].as_object().unwrap().is_empty());
    // Spectators read the same; the record replays to the same position.
    let seen = s.ok("GET", &format!("/api/games/{id}"), None, None).await;
    assert_eq!(seen["game"]["history"], json!(played));
    assert_eq!(seen["you"], Value::Null);
    let record = s.raw("GET", &format!("/api/games/{id}/record"), None, String::new()).await.1;
    let replayed = AnyGame::from_record(record.as_str().unwrap()).expect("the record replays");
    assert_eq!(replayed.fen(), game["fen"].as_str().unwrap());
    assert!(record.as_str().unwrap().contains("Ann") && record.as_str().unwrap().contains("Bob"));
    assert_record_date_and_time(record.as_str().unwrap());
    let (status, _) = s.call("POST", &format!("/api/games/{id}/resign"), Some(&white), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "over is over");
}

/// A record's `Date` (`2026.12.03`) and `Time` (`10:04:10`) tags.
fn assert_record_date_and_time(record: &str) {
    let tag = |key: &str| {
        let line = record.lines().find(|l| l.starts_with(&format!("[{key} \""))).unwrap_or_else(|| panic!("{record}"));
        line[key.len() + 3..line.len() - 2].to_string()
    };
    let digits = |text: &str, pattern: &str| {
        text.len() == pattern.len()
            && text.chars().zip(pattern.chars()).all(|(c, p)| if p == '9' { c.is_ascii_digit() } else { c == p })
    };
    assert!(digits(&tag("Date"), "9999.99.99"), "{record}");
    assert!(digits(&tag("Time"), "99:99:99"), "{record}");
    assert!(!record.contains("[Created "), "{record}");
}

#[tokio::test]
async fn the_record_names_the_ai_and_an_anonymous_player() {
    let s = sqlite().await;
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "ai:3" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let record = s.raw("GET", &format!("/api/games/{id}/record"), None, String::new()).await.1;
    let record = record.as_str().unwrap();
    assert!(record.contains("[White \"Anonymous\"]\n[Black \"Monte level 3\"]"), "{record}");
    assert_record_date_and_time(record);
    AnyGame::from_record(record).expect("the record replays");
}

/// Sends `req` as it is: (status, JSON body).
async fn send(s: &Server, req: Request<Body>) -> (StatusCode, Value) {
    let res = s.router().oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn invite_codes_are_shown_only_to_seat_holders() {
    let s = sqlite().await;
    let created = s.create(json!({ "game": "salta", "name": "Ann", "public": true })).await;
    let id = created["game"]["id"].as_str().unwrap();
    let white = created["tokens"]["white"].as_str().unwrap();
    let code = created["invite"]["code"].as_str().unwrap();
    let open = s.ok("GET", "/api/games/open", None, None).await;
    let listed = open["games"].as_array().unwrap().iter().find(|g| g["id"] == id).expect("listed");
    assert!(listed.get("invite").is_none(), "{listed}");
    assert!(!open.to_string().contains(code));
    let public = s.ok("GET", &format!("/api/games/{id}"), None, None).await;
    assert_eq!(public["game"]["invite"], Value::Null);
    assert!(!public.to_string().contains(code));
    let mine = s.ok("GET", &format!("/api/games/{id}"), Some(white), None).await;
    assert_eq!(mine["game"]["invite"], code);
}

#[tokio::test]
async fn only_games_open_to_anyone_are_listed_and_joined_by_id() {
    let s = sqlite().await;
    let public = s.create(json!({ "game": "salta", "name": "Ann", "public": true })).await;
    let private = s.create(json!({ "game": "focus", "name": "Ann" })).await;
    let (pid, qid) = (public["game"]["id"].as_str().unwrap(), private["game"]["id"].as_str().unwrap());
    assert_eq!(public["game"]["public"], true);
    let open = s.ok("GET", "/api/games/open", None, None).await;
    let ids: Vec<&str> = open["games"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [pid], "only the game open to anyone");
    // A friend's seat is taken only through the invite.
    let (status, body) = s.call("POST", &format!("/api/games/{qid}/join"), None, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let joined = s.ok("POST", &format!("/api/games/{pid}/join"), None, Some(json!({ "name": "Bob" }))).await;
    assert_eq!((joined["you"].as_str(), joined["game"]["status"].as_str()), (Some("black"), Some("active")));
    assert!(joined["token"].is_string());
    let (status, _) = s.call("POST", &format!("/api/games/{pid}/join"), None, None).await;
    assert_eq!(status, StatusCode::CONFLICT, "the seat is taken");
    let (status, _) = s.call("POST", "/api/games/nosuchgame/join", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Open to anyone needs an open seat.
    let (status, body) =
        s.call("POST", "/api/games", None, Some(json!({ "game": "salta", "black": "me", "public": true }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[tokio::test]
async fn state_changes_need_json_and_this_servers_origin() {
    let s = sqlite().await;
    let created = s.create(json!({ "game": "salta", "name": "Ann" })).await;
    let code = created["invite"]["code"].as_str().unwrap();
    let uri = format!("/api/invites/{code}");
    let post = |content_type: &str, origin: Option<&str>| {
        let mut req = Request::builder()
            .method("POST")
            .uri(&uri)
            .header("host", "monte.example")
            .header("content-type", content_type);
        if let Some(o) = origin {
            req = req.header("origin", o);
        }
        req.body(Body::from(r#"{"name":"Eve"}"#)).unwrap()
    };
    // A cross-site form or text/plain fetch, as any page can send.
    let (status, body) = send(&s, post("text/plain;charset=UTF-8", Some("https://evil.example"))).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    let (status, _) = send(&s, post("application/x-www-form-urlencoded", None)).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let (status, body) = send(&s, post("application/json", Some("https://evil.example"))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(body["error"].as_str().unwrap().contains("evil.example"));
    // Nothing was taken: the seat is still open.
    let invite = s.ok("GET", &uri, None, None).await;
    assert_eq!(invite["open"], json!(["black"]));
    // This server's own page.
    let (status, body) = send(&s, post("application/json; charset=utf-8", Some("https://monte.example"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["token"].is_string());
}

#[tokio::test]
async fn full_games_on_sqlite() {
    let s = sqlite().await;
    full_game(&s, "salta").await;
    full_game(&s, "focus").await;
}

#[tokio::test]
async fn full_games_on_postgres() {
    if skip_postgres("full_games_on_postgres") {
        return;
    }
    let s = postgres().await;
    full_game(&s, "salta").await;
    full_game(&s, "focus").await;
}

async fn tokens_and_turns(s: &Server) {
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let (white, black) = (a["tokens"]["white"].as_str().unwrap(), a["tokens"]["black"].as_str().unwrap());
    assert_eq!(a["game"]["status"], "active");
    let other = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let stranger = other["tokens"]["white"].as_str().unwrap();
    let uri = format!("/api/games/{id}/moves");
    let mv = Some(json!({ "move": "c3-d4" }));
    for (token, expected) in [
        (None, StatusCode::UNAUTHORIZED),
        (Some("not-a-token"), StatusCode::FORBIDDEN),
        (Some(stranger), StatusCode::FORBIDDEN),
        (Some(black), StatusCode::CONFLICT),
    ] {
        let (status, v) = s.call("POST", &uri, token, mv.clone()).await;
        assert_eq!(status, expected, "{token:?}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    }
    // Nothing changed; then the right token plays.
    assert_eq!(s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"]["ply"], 0);
    let v = s.ok("POST", &uri, Some(white), mv.clone()).await;
    assert_eq!(v["you"], "white");
    // An illegal move names the problem and changes nothing.
    let (status, v) = s.call("POST", &uri, Some(black), Some(json!({ "move": "c3-d4" }))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(v["error"].as_str().unwrap().contains("c3-d4"));
    assert_eq!(s.ok("GET", &format!("/api/games/{id}"), Some(black), None).await["you"], "black");
    // Resigning needs a token too; draws need an offer first.
    assert_eq!(s.call("POST", &format!("/api/games/{id}/resign"), None, None).await.0, StatusCode::UNAUTHORIZED);
    let draw = format!("/api/games/{id}/draw");
    assert_eq!(s.call("POST", &draw, Some(white), Some(json!({"action": "accept"}))).await.0, StatusCode::CONFLICT);
    let offered = s.ok("POST", &draw, Some(white), Some(json!({"action": "offer"}))).await;
    assert_eq!(offered["game"]["draw_offer"], "white");
    assert_eq!(s.call("POST", &draw, Some(white), Some(json!({"action": "offer"}))).await.0, StatusCode::CONFLICT);
    let v = s.ok("POST", &draw, Some(black), Some(json!({"action": "accept"}))).await;
    assert_eq!(
        v["game"]["result"],
        json!({ "result": "1/2-1/2", "winner": null, "reason": "agreement", "margin": null })
    );
    let record = s.raw("GET", &format!("/api/games/{id}/record"), None, String::new()).await.1;
    assert!(record.as_str().unwrap().contains("1/2-1/2"), "{record}");
    // Resignation.
    let id2 = other["game"]["id"].as_str().unwrap();
    let v = s.ok("POST", &format!("/api/games/{id2}/resign"), Some(stranger), None).await;
    assert_eq!(v["game"]["result"]["result"], "0-1");
    assert_eq!(v["game"]["result"]["winner"], "black");
    assert_eq!(v["game"]["result"]["reason"], "resignation");
}

#[tokio::test]
async fn tokens_turns_draws_and_resignation_on_sqlite() {
    tokens_and_turns(&sqlite().await).await;
}

#[tokio::test]
async fn tokens_turns_draws_and_resignation_on_postgres() {
    if skip_postgres("tokens_turns_draws_and_resignation_on_postgres") {
        return;
    }
    tokens_and_turns(&postgres().await).await;
}

/// Waits until the game reaches `ply` or goes past it (the AI moves in the background).
async fn wait_for_ply(s: &Server, id: &str, ply: i64) -> Value {
    for _ in 0..200 {
        let v = s.ok("GET", &format!("/api/games/{id}"), None, None).await;
        if v["game"]["ply"].as_i64() >= Some(ply) {
            return v["game"].clone();
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("game {id} did not reach ply {ply}");
}

async fn against_the_ai(s: &Server) {
    let a = s.create(json!({ "game": "focus", "white": "me", "black": "ai:1" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let white = a["tokens"]["white"].as_str().unwrap();
    let mv = some_move(&a["game"]);
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(white), Some(json!({ "move": mv }))).await;
    let after = wait_for_ply(s, id, 2).await;
    assert_eq!(after["side_to_move"], "white");
    assert!(!after["ai_thinking"].as_bool().unwrap());
}

#[tokio::test]
async fn ai_replies_and_moves_are_taken_back() {
    let s = sqlite().await;
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "ai:1" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let white = a["tokens"]["white"].as_str().unwrap();
    let uri = format!("/api/games/{id}/takeback");
    assert_eq!(s.call("POST", &uri, Some(white), None).await.0, StatusCode::CONFLICT, "nothing to take back");
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(white), Some(json!({ "move": "c3-d4" }))).await;
    let after = wait_for_ply(&s, id, 2).await;
    assert_eq!(after["history"][0], "c3-d4");
    // Your move and the AI's reply go back together.
    let v = s.ok("POST", &uri, Some(white), None).await;
    assert_eq!(v["game"]["ply"], 0);
    assert_eq!(v["game"]["fen"], a["game"]["fen"]);
    assert_eq!(s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"]["history"], json!([]));
    // The AI plays white too, and both AIs play on by themselves.
    let b = s.create(json!({ "game": "focus", "white": "ai:1", "black": "ai:1" })).await;
    wait_for_ply(&s, b["game"]["id"].as_str().unwrap(), 3).await;
    // No draws against the AI, and no take-backs between humans.
    let h = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let (hid, hw) = (h["game"]["id"].as_str().unwrap(), h["tokens"]["white"].as_str().unwrap());
    s.ok("POST", &format!("/api/games/{hid}/moves"), Some(hw), Some(json!({ "move": "c3-d4" }))).await;
    assert_eq!(s.call("POST", &format!("/api/games/{hid}/takeback"), Some(hw), None).await.0, StatusCode::CONFLICT);
    let (status, _) =
        s.call("POST", &format!("/api/games/{id}/draw"), Some(white), Some(json!({"action":"offer"}))).await;
    assert_eq!(status, StatusCode::CONFLICT);
}

#[tokio::test]
async fn a_game_at_the_length_cap_ends_by_the_rule_sets_count() {
    let s = sqlite_with(|c| c.max_plies = 6).await;
    // Between people: the sixth ply ends the game, scored by the distances
    // as the Salta rule set scores its move limit.
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let mut game = a["game"].clone();
    let mut replay = AnyGame::new(monte_rules::GameKind::Salta, "seed", None).unwrap();
    while game["status"] == "active" {
        let token = a["tokens"][game["side_to_move"].as_str().unwrap()].as_str().unwrap();
        let ply = game["ply"].as_i64().unwrap();
        let mv = nth_move(&game, ply as usize * 5);
        replay.play(&mv).unwrap();
        let v =
            s.ok("POST", &format!("/api/games/{id}/moves"), Some(token), Some(json!({ "move": mv, "ply": ply }))).await;
        game = v["game"].clone();
        assert!(ply < 6, "the cap ends the game at ply 6");
    }
    assert_eq!(game["ply"], 6);
    assert_eq!(game["result"]["reason"], "length cap");
    let expected = replay.limit_outcome();
    assert_eq!(game["result"]["result"], expected.result_string());
    assert_eq!(game["result"]["margin"].as_u64(), expected.margin.map(u64::from));
    let (status, _) = s
        .call("POST", &format!("/api/games/{id}/moves"), a["tokens"]["white"].as_str(), Some(json!({ "move": "x" })))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "over is over");
    // Two AIs stop there by themselves; a Focus cap is a draw.
    let b = s.create(json!({ "game": "focus", "white": "ai:1", "black": "ai:1" })).await;
    let over = wait_for_ply(&s, b["game"]["id"].as_str().unwrap(), 6).await;
    assert_eq!(over["ply"], 6);
    assert_eq!(over["status"], "over");
    assert_eq!(over["result"]["reason"], "length cap");
    assert_eq!(over["result"]["result"], "1/2-1/2");
}

#[tokio::test]
async fn a_game_between_two_ais_is_stopped_by_its_creator_alone() {
    let s = sqlite().await;
    let b = s.create(json!({ "game": "salta", "white": "ai:1", "black": "ai:1" })).await;
    let id = b["game"]["id"].as_str().unwrap();
    let owner = b["tokens"]["white"].as_str().expect("the creator's token");
    assert_eq!(b["tokens"]["black"], owner, "one token holds both AI seats");
    assert!(b["invite"].is_null());
    let other = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let stranger = other["tokens"]["white"].as_str().unwrap();
    let game = wait_for_ply(&s, id, 1).await;
    // The token cannot move for the AIs, and no other token can stop them.
    let mv = Some(json!({ "move": some_move(&game) }));
    let (status, v) = s.call("POST", &format!("/api/games/{id}/moves"), Some(owner), mv).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{v}");
    let resign = format!("/api/games/{id}/resign");
    assert_eq!(s.call("POST", &resign, Some(stranger), None).await.0, StatusCode::FORBIDDEN);
    assert_eq!(s.call("POST", &resign, None, None).await.0, StatusCode::UNAUTHORIZED);
    let stopped = s.ok("POST", &resign, Some(owner), None).await;
    assert_eq!(stopped["game"]["status"], "over");
    assert_eq!(stopped["game"]["result"]["reason"], "stopped");
    assert_eq!(stopped["game"]["result"]["result"], "1/2-1/2");
    let ply = stopped["game"]["ply"].as_i64().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"]["ply"], ply, "the AIs stopped");
    // One client address has at most two such games playing at once.
    let ai_game = json!({ "game": "focus", "white": "ai:1", "black": "ai:1" });
    let second = s.create(ai_game.clone()).await;
    s.create(ai_game.clone()).await;
    let (status, v) = s.call("POST", "/api/games", None, Some(ai_game.clone())).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(v["error"].as_str().unwrap().contains("stop one first"), "{v}");
    let (sid, sowner) = (second["game"]["id"].as_str().unwrap(), second["tokens"]["white"].as_str().unwrap());
    s.ok("POST", &format!("/api/games/{sid}/resign"), Some(sowner), None).await;
    s.create(ai_game).await;
}

#[tokio::test]
async fn a_person_waiting_for_the_ai_goes_before_games_between_ais() {
    let s = sqlite_with(|c| {
        c.ai.max_threads = 2;
        c.ai.max_move = Duration::from_secs(3);
        c.ai.watched_per_address = 0;
    })
    .await;
    // Six games between two strongest AIs want every thread, all the time.
    let mut crowd = Vec::new();
    for _ in 0..6 {
        let b = s.create(json!({ "game": "salta", "white": "ai:8", "black": "ai:8" })).await;
        crowd.push((b["game"]["id"].as_str().unwrap().to_string(), b["tokens"]["white"].as_str().unwrap().to_string()));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "ai:1" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let started = std::time::Instant::now();
    s.ok("POST", &format!("/api/games/{id}/moves"), a["tokens"]["white"].as_str(), Some(json!({ "move": "c3-d4" })))
        .await;
    wait_for_ply(&s, id, 2).await;
    let waited = started.elapsed();
    eprintln!("level 1 replied in {} ms beside six level-8 games between AIs", waited.as_millis());
    // Behind the crowd's searches (up to 3 s each, two threads each) the
    // reply would wait many seconds; beside their one thread it does not.
    assert!(waited < Duration::from_secs(2), "the reply took {waited:?}");
    for (id, owner) in &crowd {
        s.ok("POST", &format!("/api/games/{id}/resign"), Some(owner), None).await;
    }
}

#[tokio::test]
async fn reading_a_long_game_replays_nothing() {
    let s = sqlite().await;
    let a = s.create(json!({ "game": "focus", "white": "me", "black": "me" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let mut game = a["game"].clone();
    while game["status"] == "active" && game["ply"].as_i64() < Some(300) {
        let token = a["tokens"][game["side_to_move"].as_str().unwrap()].as_str().unwrap();
        let ply = game["ply"].as_i64().unwrap();
        let mv = nth_move(&game, ply as usize * 3);
        let v =
            s.ok("POST", &format!("/api/games/{id}/moves"), Some(token), Some(json!({ "move": mv, "ply": ply }))).await;
        game = v["game"].clone();
    }
    let replays = |h: &Value| h["games_replayed"].as_u64().unwrap();
    let before = replays(&s.ok("GET", "/api/health", None, None).await);
    let started = std::time::Instant::now();
    for _ in 0..50 {
        let seen = s.ok("GET", &format!("/api/games/{id}"), None, None).await;
        assert_eq!(seen["game"]["ply"], game["ply"]);
    }
    let each = started.elapsed() / 50;
    let after = replays(&s.ok("GET", "/api/health", None, None).await);
    eprintln!("{} plies: {} µs a read, {} replays", game["ply"], each.as_micros(), after - before);
    assert_eq!(after, before, "a read of a current cached game replays nothing");
}

#[tokio::test]
async fn metrics_liveness_and_readiness() {
    let s = sqlite().await;
    assert_eq!(s.ok("GET", "/api/live", None, None).await["status"], "alive");
    assert_eq!(s.ok("GET", "/api/ready", None, None).await["status"], "ok");
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    s.ok("POST", &format!("/api/games/{id}/moves"), a["tokens"]["white"].as_str(), Some(json!({ "move": "c3-d4" })))
        .await;
    let (status, text) = s.raw("GET", "/metrics", None, String::new()).await;
    assert_eq!(status, StatusCode::OK);
    let text = text.as_str().expect("the text format").to_string();
    for line in [
        "monte_moves_total{by=\"player\"} 1",
        "monte_http_requests_total{method=\"POST\",route=\"/api/games/{id}/moves\",status=\"200\"} 1",
        "monte_store_commit_seconds_count 1",
        "monte_store_errors_total 0",
        "monte_ai_queue_depth 0",
        "monte_games_in_memory 1",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in\n{text}");
    }
    assert!(!text.contains(id), "routes are templates, never paths");
}

/// A game without the reading time (`server_time`, and the clock's time
/// left, which is worked out at it).
fn strip_time(game: &Value) -> Value {
    let mut game = game.clone();
    game["server_time"] = Value::Null;
    game["clock"] = Value::Null;
    game
}

#[tokio::test]
async fn a_take_back_is_pushed_as_an_update_that_shortens_the_move_list() {
    let s = sqlite().await;
    let addr = listen(&s).await;
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "ai:1" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let white = a["tokens"]["white"].as_str().unwrap();
    let mut ws = connect(addr, id, Some(white)).await;
    let mut game = next_of(&mut ws, "state").await["game"].clone();
    ws.send(Message::Text(json!({ "type": "move", "move": "c3-d4", "ply": 0 }).to_string().into())).await.unwrap();
    while game["ply"] != 2 {
        assert_eq!(next_change(&mut ws, &mut game).await, "update");
    }
    assert_eq!(game["history"][0], "c3-d4");
    ws.send(Message::Text(json!({ "type": "takeback" }).to_string().into())).await.unwrap();
    let update = next_of(&mut ws, "update").await;
    // The update is what the OpenAPI document says: a GameNow (a Game
    // without `history`) and the change of the move list.
    let doc = s.ok("GET", "/api/openapi.json", None, None).await;
    let schema = &doc["components"]["schemas"]["GameNow"];
    let fields: Vec<&String> = update["game"].as_object().unwrap().keys().collect();
    let mut documented: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    documented.sort();
    let mut sorted = fields.clone();
    sorted.sort();
    assert_eq!(sorted, documented);
    for required in schema["required"].as_array().unwrap() {
        assert!(fields.contains(&&required.as_str().unwrap().to_string()), "{required} missing");
    }
    assert_eq!(update["history"], json!({ "keep": 0, "add": [] }));
    assert_eq!(apply(&mut game, &update), "update");
    assert_eq!(game["history"], json!([]));
    assert_eq!(game["ply"], 0);
    let read = s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"].clone();
    assert_eq!(strip_time(&game), strip_time(&read));
}

#[tokio::test]
async fn finished_games_nobody_watches_leave_memory() {
    let s = sqlite().await;
    let over = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let live = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let (id, white) = (over["game"]["id"].as_str().unwrap(), over["tokens"]["white"].as_str().unwrap());
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(white), None).await;
    let games = &s.instance.app.games;
    assert_eq!(games.cached(), 2);
    games.trim_cache(10_000);
    assert_eq!(games.cached(), 1, "the finished game left, the live one stayed");
    // And is read again when asked for.
    assert_eq!(s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"]["status"], "over");
    let live_id = live["game"]["id"].as_str().unwrap();
    assert_eq!(s.ok("GET", &format!("/api/games/{live_id}"), None, None).await["game"]["status"], "active");
}

#[tokio::test]
async fn ai_on_postgres() {
    if skip_postgres("ai_on_postgres") {
        return;
    }
    let s = postgres().await;
    let a = s.create(json!({ "game": "focus", "white": "me", "black": "ai:2" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let white = a["tokens"]["white"].as_str().unwrap();
    let mv = some_move(&a["game"]);
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(white), Some(json!({ "move": mv }))).await;
    let after = wait_for_ply(&s, id, 2).await;
    assert_eq!(after["side_to_move"], "white");
}

#[tokio::test]
async fn a_fallen_flag_ends_the_game() {
    let s = sqlite().await;
    // One second for each side, no increment.
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "me", "clock": { "minutes": 0.0167 } })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let (white, black) = (a["tokens"]["white"].as_str().unwrap(), a["tokens"]["black"].as_str().unwrap());
    // Each side's clock starts at its first move: none runs before.
    assert_eq!(a["game"]["clock"]["running"], Value::Null);
    assert!(a["game"]["clock"]["white_ms"].as_i64().unwrap() <= 1002);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let moves = format!("/api/games/{id}/moves");
    let v = s.ok("POST", &moves, Some(white), Some(json!({"move":"c3-d4"}))).await;
    assert_eq!(v["game"]["clock"]["running"], Value::Null);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let v = s.ok("POST", &moves, Some(black), Some(json!({"move":"h8-g7"}))).await;
    assert_eq!(v["game"]["clock"]["running"], "white");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    // Moving after the flag fell loses on time (the sweeper may come first).
    let (status, _) =
        s.call("POST", &format!("/api/games/{id}/moves"), Some(white), Some(json!({"move":"d4-e5"}))).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let g = s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"].clone();
    assert_eq!(g["result"]["reason"], "time");
    assert_eq!(g["result"]["result"], "0-1");
    assert_eq!(g["clock"]["white_ms"], 0);
    assert_eq!(g["history"], json!(["c3-d4", "h8-g7"]));
    // The sweeper ends games nobody touches.
    let b = s
        .create(json!({ "game": "focus", "white": "me", "black": "me", "clock": { "minutes": 0, "increment": 1 } }))
        .await;
    let bid = b["game"]["id"].as_str().unwrap();
    let (bw, bb) = (b["tokens"]["white"].as_str().unwrap(), b["tokens"]["black"].as_str().unwrap());
    let mut game = b["game"].clone();
    for token in [bw, bb] {
        let mv = some_move(&game);
        game = s.ok("POST", &format!("/api/games/{bid}/moves"), Some(token), Some(json!({ "move": mv }))).await["game"]
            .clone();
    }
    tokio::time::sleep(Duration::from_millis(2300)).await;
    assert_eq!(s.ok("GET", &format!("/api/games/{bid}"), None, None).await["game"]["status"], "over");
}

#[tokio::test]
async fn conflicting_moves_for_one_turn_exactly_one_wins() {
    let s = sqlite().await;
    for _ in 0..5 {
        let a = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
        let id = a["game"]["id"].as_str().unwrap();
        let white = a["tokens"]["white"].as_str().unwrap();
        let uri = format!("/api/games/{id}/moves");
        let (r1, r2, r3) = tokio::join!(
            s.call("POST", &uri, Some(white), Some(json!({ "move": "c3-d4", "ply": 0 }))),
            s.call("POST", &uri, Some(white), Some(json!({ "move": "e3-f4", "ply": 0 }))),
            s.call("POST", &uri, Some(white), Some(json!({ "move": "g3-h4" }))),
        );
        let wins = [&r1, &r2, &r3].iter().filter(|r| r.0 == StatusCode::OK).count();
        assert_eq!(wins, 1, "{r1:?} {r2:?} {r3:?}");
        assert!([&r1, &r2, &r3].iter().all(|r| r.0 == StatusCode::OK || r.0 == StatusCode::CONFLICT));
        let g = s.ok("GET", &format!("/api/games/{id}"), None, None).await;
        assert_eq!(g["game"]["history"].as_array().unwrap().len(), 1);
    }
}

/// Each of these gets a 4xx with a JSON error, and changes nothing.
#[tokio::test]
async fn malformed_requests_get_json_4xx_and_the_server_stays_healthy() {
    let s = sqlite().await;
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let id = a["game"]["id"].as_str().unwrap().to_string();
    let white = a["tokens"]["white"].as_str().unwrap().to_string();
    let big = "x".repeat(100 * 1024);
    let moves = format!("/api/games/{id}/moves");
    let cases: Vec<(&str, String, Option<&str>, String)> = vec![
        ("POST", "/api/games".into(), None, "not json".into()),
        ("POST", "/api/games".into(), None, "{\"game\":".into()),
        ("POST", "/api/games".into(), None, "[]".into()),
        ("POST", "/api/games".into(), None, "{}".into()),
        ("POST", "/api/games".into(), None, r#"{"game":"chess"}"#.into()),
        ("POST", "/api/games".into(), None, r#"{"game":"salta","rules":"nonsense"}"#.into()),
        ("POST", "/api/games".into(), None, r#"{"game":"salta","rules":"seed,move-limit=abc"}"#.into()),
        ("POST", "/api/games".into(), None, r#"{"game":"salta","fen":"garbage"}"#.into()),
        ("POST", "/api/games".into(), None, r#"{"game":"salta","white":"ai:9"}"#.into()),
        ("POST", "/api/games".into(), None, r#"{"game":"salta","white":"robot"}"#.into()),
        ("POST", "/api/games".into(), None, r#"{"game":"salta","clock":{"minutes":-1}}"#.into()),
        ("POST", "/api/games".into(), None, r#"{"game":"salta","clock":{"minutes":"5"}}"#.into()),
        ("POST", "/api/games".into(), None, r#"{"game":"salta","unknown":1}"#.into()),
        ("POST", "/api/games".into(), None, format!(r#"{{"game":"salta","name":"{}"}}"#, "n".repeat(100))),
        ("POST", "/api/games".into(), None, format!(r#"{{"game":"salta","name":"{big}"}}"#)),
        ("POST", moves.clone(), Some(&white), "{}".into()),
        ("POST", moves.clone(), Some(&white), r#"{"move":42}"#.into()),
        ("POST", moves.clone(), Some(&white), r#"{"move":"z9-z10"}"#.into()),
        ("POST", moves.clone(), Some(&white), r#"{"move":""}"#.into()),
        ("POST", moves.clone(), Some(&white), r#"{"move":"c3-d4","ply":7}"#.into()),
        ("POST", moves.clone(), Some(&white), format!(r#"{{"move":"{}"}}"#, "c3-".repeat(100))),
        ("POST", format!("/api/games/{id}/draw"), Some(&white), r#"{"action":"maybe"}"#.into()),
        ("POST", format!("/api/games/{id}/resign"), Some(&white), r#"{"why":"tired"}"#.into()),
        ("GET", "/api/games/doesnotexist".into(), None, String::new()),
        ("GET", "/api/games/..%2F..%2Fetc".into(), None, String::new()),
        ("GET", format!("/api/games/{}", "a".repeat(300)), None, String::new()),
        ("GET", "/api/games/open?limit=0".into(), None, String::new()),
        ("GET", "/api/games/open?limit=abc".into(), None, String::new()),
        ("GET", "/api/games/live?x=1".into(), None, String::new()),
        ("POST", "/api/games/mine".into(), None, r#"{"tokens":"abc"}"#.into()),
        ("GET", "/api/invites/nope".into(), None, String::new()),
        ("POST", "/api/invites/nope".into(), None, String::new()),
        ("GET", "/api/nothing".into(), None, String::new()),
        ("DELETE", format!("/api/games/{id}"), None, String::new()),
        ("PUT", "/api/games".into(), None, "{}".into()),
        ("GET", format!("/api/games/{id}/ws"), None, String::new()),
    ];
    for (method, uri, token, body) in &cases {
        let (status, v) = s.raw(method, uri, *token, body.clone()).await;
        assert!(status.is_client_error(), "{method} {uri} {body:.60}: {status} {v}");
        let error = v["error"].as_str().unwrap_or_else(|| panic!("{method} {uri}: JSON error expected, got {v}"));
        assert!(!error.is_empty());
    }
    let g = s.ok("GET", &format!("/api/games/{id}"), None, None).await;
    assert_eq!(g["game"]["ply"], 0, "nothing changed");
    assert_eq!(g["game"]["version"], 1);
    assert_eq!(s.ok("GET", "/api/health", None, None).await["status"], "ok");
}

#[tokio::test]
async fn clients_are_rate_limited() {
    let s = sqlite_with(|c| {
        c.rate_limit = 1.0;
        c.rate_burst = 3.0;
    })
    .await;
    for _ in 0..3 {
        s.ok("GET", "/api/health", None, None).await;
    }
    let (status, v) = s.call("GET", "/api/health", None, None).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert!(v["error"].as_str().unwrap().contains("too many"));
    // When to come back: a request a second.
    let res = s.router().oneshot(Request::get("/api/health").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(res.headers()["retry-after"], "1");
}

#[tokio::test]
async fn the_router_serves_exactly_the_routes_of_the_openapi_document() {
    let s = sqlite().await;
    let doc = s.ok("GET", "/api/openapi.json", None, None).await;
    assert_eq!(doc, serde_json::from_str::<Value>(monte_server::api::openapi_json()).unwrap(), "the served document");
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.len() >= 19, "{} paths", paths.len());
    for (path, item) in paths {
        let uri = path.replace("{id}", "nosuchgame").replace("{code}", "nosuchcode").replace("{game}", "salta");
        for method in ["GET", "POST", "PUT", "DELETE", "PATCH"] {
            let (status, v) = s.call(method, &uri, None, None).await;
            let fallback = v["error"].as_str().is_some_and(|e| e == monte_server::api::NO_SUCH_ENDPOINT);
            assert!(!fallback, "{method} {path}: documented, but not served");
            if item.get(method.to_lowercase()).is_some() {
                assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}: documented, but not served");
            } else {
                assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}: served, but not documented");
            }
        }
    }
    // What is served besides the document: the web board's pages and
    // helpers (docs/web.md), and the fallback.
    let (status, v) = s.call("GET", "/api/no-such-thing", None, None).await;
    assert_eq!((status, v["error"].as_str()), (StatusCode::NOT_FOUND, Some(monte_server::api::NO_SUCH_ENDPOINT)));
    let page = s.raw("GET", "/", None, String::new()).await;
    assert!(page.1.as_str().unwrap().contains("/api/openapi.json"));
}

#[tokio::test]
async fn kinds_describe_the_board_start_and_targets_from_the_rules() {
    let s = sqlite().await;
    let salta = s.ok("GET", "/api/kinds/salta", None, None).await;
    assert_eq!((salta["game"].as_str(), salta["rules"].as_str()), (Some("salta"), Some("seed")));
    assert_eq!(salta["start_fen"], monte_rules::salta::START_FEN);
    let board = &salta["board"];
    assert_eq!(
        (board["files"].as_u64(), board["ranks"].as_u64(), board["pieces_per_side"].as_u64()),
        (Some(10), Some(10), Some(15))
    );
    // The dark squares, rank 10 first: b10 d10 f10 h10 j10.
    assert_eq!(board["rows"][0], json!(["b10", "d10", "f10", "h10", "j10"]));
    assert_eq!(board["rows"][9][0], "a1");
    let targets = salta["targets"].as_object().unwrap();
    assert_eq!(targets.len(), 30);
    // Symbol-matched goal: White's Star 1 goes to Black's Star 1 square, and back.
    assert_eq!(
        (targets["S1"].as_str(), targets["S5"].as_str(), targets["s1"].as_str()),
        (Some("j10"), Some("b10"), Some("a1"))
    );
    // Seven ranks forward in the same order (docs/rules.md, meyer1908).
    let meyer = s.ok("GET", "/api/kinds/salta?rules=meyer1908", None, None).await;
    assert_eq!((meyer["targets"]["S1"].as_str(), meyer["targets"]["O5"].as_str()), (Some("b8"), Some("j10")));
    let goal = s.ok("GET", "/api/kinds/salta?rules=seed,goal=seven-ranks", None, None).await;
    assert_eq!(goal["targets"]["S1"], "b8");

    let focus = s.ok("GET", "/api/kinds/focus?rules=sackson", None, None).await;
    assert_eq!(focus["start_fen"], monte_rules::focus::START_FEN);
    assert_eq!(focus["board"]["rows"][0], json!(["c8", "d8", "e8", "f8"]));
    let squares: usize = focus["board"]["rows"].as_array().unwrap().iter().map(|r| r.as_array().unwrap().len()).sum();
    assert_eq!((squares, focus["board"]["pieces_per_side"].as_u64()), (52, Some(18)));
    assert_eq!(focus["targets"], json!({}));

    let (status, v) = s.call("GET", "/api/kinds/chess", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{v}");
    let (status, v) = s.call("GET", "/api/kinds/salta?rules=nosuch", None, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(v["error"].as_str().unwrap().contains("nosuch"), "{v}");
}

/// The test-only toy game (`monte_rules::toy`): the server has no code of
/// its own for it, only the game's line in the list of games.
#[tokio::test]
async fn the_toy_game_is_served_like_the_real_ones() {
    let s = sqlite().await;
    full_game(&s, "toy").await;
    let kind = s.ok("GET", "/api/kinds/toy", None, None).await;
    assert_eq!(kind["start_fen"], monte_rules::toy::START_FEN);
    assert_eq!(
        kind["board"]["rows"],
        json!([["a4", "b4", "c4"], ["a3", "b3", "c3"], ["a2", "b2", "c2"], ["a1", "b1", "c1"]])
    );

    let created = s.create(json!({ "game": "toy", "white": "me", "black": "ai:1" })).await;
    let id = created["game"]["id"].as_str().unwrap();
    let white = created["tokens"]["white"].as_str().unwrap();
    let from = &created["game"]["legal_moves"]["from"];
    let counts: Vec<(&str, usize)> = from
        .as_object()
        .unwrap()
        .iter()
        .map(|(square, moves)| (square.as_str(), moves.as_array().unwrap().len()))
        .collect();
    assert_eq!(counts, [("a1", 2), ("b1", 3), ("c1", 2)], "{from}");
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(white), Some(json!({ "move": "b1-b2" }))).await;
    let after = wait_for_ply(&s, id, 2).await;
    assert_eq!(after["history"][0], "b1-b2");
    assert_eq!(after["side_to_move"], "white");
    let (status, v) =
        s.call("POST", &format!("/api/games/{id}/moves"), Some(white), Some(json!({ "move": "a1-a3" }))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
}

#[tokio::test]
async fn the_last_move_comes_with_its_squares() {
    let s = sqlite().await;
    let created = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(created["game"]["last_move"], Value::Null);
    let (white, black) = (created["tokens"]["white"].as_str().unwrap(), created["tokens"]["black"].as_str().unwrap());
    // The example of docs/rules.md: Black's sun on g5 jumps to e3 and on to c5.
    let mut game = Value::Null;
    for (i, text) in ["e3-d4", "h8-g7", "g3-f4", "g7-h6", "i3-j4", "h6-g5", "j4-i5", "g5:c5"].into_iter().enumerate() {
        let token = if i % 2 == 0 { white } else { black };
        game = s.ok("POST", &format!("/api/games/{id}/moves"), Some(token), Some(json!({ "move": text }))).await;
    }
    let last = &game["game"]["last_move"];
    assert_eq!(
        last,
        &json!({ "notation": "g5:e3:c5", "kind": "jump", "from": "g5", "to": "c5", "path": ["e3", "c5"] })
    );
    let positions = s.ok("GET", &format!("/web/games/{id}/positions"), None, None).await;
    let moves = positions["moves"].as_array().unwrap();
    assert_eq!((moves.len(), &moves[7]), (8, last));
    assert_eq!(moves[0], json!({ "notation": "e3-d4", "kind": "step", "from": "e3", "to": "d4" }));

    // White to move with a piece in reserve (docs/rules.md's overflow, then White's turn).
    let fen = ".,.,.,./.,.,.,.,.,./.,.,.,wb,.,w,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,bbbww,.,./.,.,.,.,.,./.,.,.,. w 1 0 62";
    let focus = s.create(json!({ "game": "focus", "white": "me", "black": "me", "fen": fen })).await;
    let fid = focus["game"]["id"].as_str().unwrap();
    let token = focus["tokens"]["white"].as_str().unwrap();
    let dropped = s.ok("POST", &format!("/api/games/{fid}/moves"), Some(token), Some(json!({ "move": "@d4" }))).await;
    assert_eq!(dropped["game"]["last_move"], json!({ "notation": "@d4", "kind": "drop", "from": null, "to": "d4" }));
}

#[tokio::test]
async fn the_game_carries_each_sides_standing_from_the_rules() {
    use monte_rules::salta::{SaltaPosition, SaltaRules};
    use monte_rules::{Position, Side};
    let s = sqlite().await;
    let rules = "seed,move-limit=60";
    let a = s.create(json!({ "game": "salta", "rules": rules, "white": "me", "black": "me" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let white = a["tokens"]["white"].as_str().unwrap();
    // Salta's standing is minus each side's distance to its targets.
    let minus_distances = |game: &Value| {
        let position = SaltaPosition::from_fen(rules.parse::<SaltaRules>().unwrap(), game["fen"].as_str().unwrap());
        let position = position.unwrap();
        let minus = |side| -i64::from(position.distance(side));
        json!({ "white": minus(Side::White), "black": minus(Side::Black) })
    };
    assert_eq!(a["game"]["standing"], minus_distances(&a["game"]));
    assert!(a["game"]["standing"]["white"].as_i64().unwrap() < 0);
    let moved = s.ok("POST", &format!("/api/games/{id}/moves"), Some(white), Some(json!({ "move": "e3-f4" }))).await;
    assert_eq!(moved["game"]["standing"], minus_distances(&moved["game"]));
    assert_ne!(moved["game"]["standing"], a["game"]["standing"]);
    // Focus: the pieces each side has in play.
    let f = s.create(json!({ "game": "focus", "white": "me", "black": "me" })).await;
    let focus = AnyGame::new(monte_rules::GameKind::Focus, "seed", None).unwrap();
    let standing = json!({ "white": focus.standing(Side::White), "black": focus.standing(Side::Black) });
    assert_eq!(f["game"]["standing"], standing);
}

#[tokio::test]
async fn refusals_carry_a_stable_code_and_their_parameters() {
    let s = sqlite().await;
    let addr = listen(&s).await;
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let (white, black) = (a["tokens"]["white"].as_str().unwrap(), a["tokens"]["black"].as_str().unwrap());
    let moves = format!("/api/games/{id}/moves");
    let (status, v) = s.call("POST", &moves, Some(white), Some(json!({ "move": " a1-a2 " }))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!((v["code"].as_str(), v["move"].as_str()), (Some("illegal_move"), Some("a1-a2")), "{v}");
    assert!(v["error"].as_str().unwrap().contains("a1-a2"), "the English message stays: {v}");
    let (status, v) = s.call("POST", &moves, Some(black), Some(json!({ "move": "d8-e7" }))).await;
    assert_eq!((status, v["code"].as_str()), (StatusCode::CONFLICT, Some("not_your_turn")), "{v}");
    assert!(v.get("move").is_none(), "{v}");
    let (status, v) = s.call("POST", &moves, Some(white), Some(json!({ "move": "e3-f4", "ply": 3 }))).await;
    assert_eq!((status, v["code"].as_str()), (StatusCode::CONFLICT, Some("stale_ply")), "{v}");
    // Errors without a name have none.
    let (status, v) = s.call("POST", &moves, None, Some(json!({ "move": "e3-f4" }))).await;
    assert_eq!((status, v.get("code")), (StatusCode::UNAUTHORIZED, None), "{v}");
    // The socket's errors carry the same.
    let mut w = connect(addr, id, Some(white)).await;
    w.send(Message::Text(json!({ "type": "move", "move": "zz", "id": 3 }).to_string().into())).await.unwrap();
    let e = next_of(&mut w, "error").await;
    assert_eq!(
        (e["code"].as_str(), e["move"].as_str(), e["status"].as_i64()),
        (Some("illegal_move"), Some("zz"), Some(422))
    );
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(white), None).await;
    let (status, v) = s.call("POST", &moves, Some(black), Some(json!({ "move": "d8-e7" }))).await;
    assert_eq!((status, v["code"].as_str()), (StatusCode::CONFLICT, Some("game_over")), "{v}");
}

/// A game's WebSocket, as a seat holder (`token`) or a spectator.
async fn connect(addr: std::net::SocketAddr, id: &str, token: Option<&str>) -> Ws {
    let url = match token {
        Some(t) => format!("ws://{addr}/api/games/{id}/ws?token={t}"),
        None => format!("ws://{addr}/api/games/{id}/ws"),
    };
    tokio_tungstenite::connect_async(url).await.expect("websocket").0
}

/// Brings a client's copy of a game up to date with a pushed message, as a
/// board does: a `state` replaces it, an `update` is applied to it (and
/// must follow it). Returns the message's type.
fn apply(game: &mut Value, message: &Value) -> String {
    match message["type"].as_str() {
        Some("state") => *game = message["game"].clone(),
        Some("update") => {
            let (old, new) = (game["version"].as_i64().unwrap(), message["game"]["version"].as_i64().unwrap());
            assert_eq!(new, old + 1, "an update follows the state the client has: {message}");
            assert!(message["game"].get("history").is_none(), "an update does not carry every move: {message}");
            let keep = message["history"]["keep"].as_u64().unwrap() as usize;
            let mut history = game["history"].as_array().unwrap()[..keep].to_vec();
            history.extend(message["history"]["add"].as_array().unwrap().iter().cloned());
            *game = message["game"].clone();
            game["history"] = Value::Array(history);
        }
        _ => panic!("not a state or an update: {message}"),
    }
    message["type"].as_str().unwrap().to_string()
}

/// Waits for the next state or update of `ws` and applies it to `game`:
/// the message's type.
async fn next_change(ws: &mut Ws, game: &mut Value) -> String {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message in time");
        let Some(Ok(Message::Text(t))) = msg else { panic!("websocket ended: {msg:?}") };
        let v: Value = serde_json::from_str(&t).unwrap();
        if v["type"] == "state" || v["type"] == "update" {
            return apply(game, &v);
        }
    }
}

#[tokio::test]
async fn websocket_pushes_every_change_to_players_and_spectators() {
    let s = sqlite().await;
    let addr = listen(&s).await;
    let a = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let (white, black) = (a["tokens"]["white"].as_str().unwrap(), a["tokens"]["black"].as_str().unwrap());
    let mut w = connect(addr, id, Some(white)).await;
    let mut b = connect(addr, id, Some(black)).await;
    let mut watcher = connect(addr, id, None).await;
    assert_eq!(next_of(&mut w, "hello").await["you"], "white");
    assert_eq!(next_of(&mut watcher, "hello").await["you"], Value::Null);
    let mut games = Vec::new();
    for ws in [&mut w, &mut b, &mut watcher] {
        let greeting = next_of(ws, "state").await["game"].clone();
        assert_eq!(greeting["ply"], 0);
        games.push(greeting);
    }
    // A move over the socket reaches everyone, as an update.
    w.send(Message::Text(json!({ "type": "move", "move": "c3-d4", "ply": 0 }).to_string().into())).await.unwrap();
    for (ws, game) in [&mut w, &mut b, &mut watcher].into_iter().zip(&mut games) {
        assert_eq!(next_change(ws, game).await, "update");
        assert_eq!(game["history"], json!(["c3-d4"]));
    }
    // A move over HTTP too: the updated copies are the game as read.
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(black), Some(json!({ "move": "h8-g7" }))).await;
    let read = s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"].clone();
    for (ws, game) in [&mut w, &mut b, &mut watcher].into_iter().zip(&mut games) {
        assert_eq!(next_change(ws, game).await, "update");
        assert_eq!(strip_time(game), strip_time(&read));
    }
    // Spectators cannot act; wrong commands are answered with errors.
    watcher.send(Message::Text(json!({ "type": "resign" }).to_string().into())).await.unwrap();
    assert_eq!(next_of(&mut watcher, "error").await["status"], 401);
    b.send(Message::Text(json!({ "type": "move", "move": "e3-f4", "id": 7 }).to_string().into())).await.unwrap();
    let e = next_of(&mut b, "error").await;
    assert_eq!((e["status"].as_i64(), e["id"].as_i64()), (Some(409), Some(7)));
    b.send(Message::Text("{{{".into())).await.unwrap();
    assert_eq!(next_of(&mut b, "error").await["status"], 400);
    // A token of no seat cannot even connect.
    let bad = tokio_tungstenite::connect_async(format!("ws://{addr}/api/games/{id}/ws?token=nope")).await;
    assert!(bad.is_err());
}

#[tokio::test]
async fn the_offerer_is_told_that_the_draw_was_declined() {
    let s = sqlite().await;
    let addr = listen(&s).await;
    let a = s.create(json!({ "game": "salta", "name": "Ann" })).await;
    let id = a["game"]["id"].as_str().unwrap();
    let white = a["tokens"]["white"].as_str().unwrap();
    let code = a["invite"]["code"].as_str().unwrap();
    let joined = s.ok("POST", &format!("/api/invites/{code}"), None, Some(json!({ "name": "Bob" }))).await;
    let black = joined["token"].as_str().unwrap();
    let mut w = connect(addr, id, Some(white)).await;
    let mut game = next_of(&mut w, "state").await["game"].clone();
    let draw = format!("/api/games/{id}/draw");
    s.ok("POST", &draw, Some(white), Some(json!({ "action": "offer" }))).await;
    let offered = next_of(&mut w, "update").await;
    assert!(offered.get("event").is_none(), "{offered}");
    apply(&mut game, &offered);
    assert_eq!(game["draw_offer"], "white");
    s.ok("POST", &draw, Some(black), Some(json!({ "action": "decline" }))).await;
    let declined = next_of(&mut w, "update").await;
    assert_eq!(declined["event"], json!({ "type": "draw_declined", "by": "black" }));
    apply(&mut game, &declined);
    assert_eq!((game["draw_offer"].clone(), game["status"].clone()), (Value::Null, json!("active")));
}

#[tokio::test]
async fn two_instances_on_one_postgres_share_games_and_push() {
    if skip_postgres("two_instances_on_one_postgres_share_games_and_push") {
        return;
    }
    let a = postgres().await;
    let db_url = a._db.as_ref().unwrap().url.clone();
    let b = Server { instance: monte_server::start(config(db_url)).await.unwrap(), _db: None, dir: None };
    let addr_b = listen(&b).await;
    let created = a.create(json!({ "game": "focus", "white": "me", "black": "me" })).await;
    let id = created["game"]["id"].as_str().unwrap();
    let white = created["tokens"]["white"].as_str().unwrap();
    let mut watcher = connect(addr_b, id, None).await;
    let mut seen = next_of(&mut watcher, "state").await["game"].clone();
    let mv = some_move(&created["game"]);
    a.ok("POST", &format!("/api/games/{id}/moves"), Some(white), Some(json!({ "move": mv }))).await;
    // A change made on another instance comes complete.
    assert_eq!(next_change(&mut watcher, &mut seen).await, "state");
    assert_eq!(seen["history"], json!([mv]), "a move on A reaches a spectator on B");
    // B's cached copy was refreshed by the notice: black plays through B,
    // and B's spectator gets an update of what it has.
    let black = created["tokens"]["black"].as_str().unwrap();
    let reply = some_move(&seen);
    b.ok("POST", &format!("/api/games/{id}/moves"), Some(black), Some(json!({ "move": reply }))).await;
    assert_eq!(next_change(&mut watcher, &mut seen).await, "update");
    let read = a.ok("GET", &format!("/api/games/{id}"), None, None).await["game"].clone();
    assert_eq!(read["ply"], 2);
    assert_eq!(strip_time(&seen), strip_time(&read));
    // Against the AI, with both instances ready to move for it: one move each time.
    let ai = a.create(json!({ "game": "salta", "white": "ai:1", "black": "ai:1" })).await;
    let aid = ai["game"]["id"].as_str().unwrap();
    let g = wait_for_ply(&b, aid, 6).await;
    assert_eq!(g["history"].as_array().unwrap().len() as i64, g["ply"].as_i64().unwrap());
    against_the_ai(&b).await;
}
