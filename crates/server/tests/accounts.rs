//! Accounts, sessions, ratings, profiles and leaderboards through the API,
//! the same tests on SQLite and on PostgreSQL.

mod common;

use axum::http::{HeaderMap, StatusCode};
use common::{Server, Ws, listen, next_of, postgres, some_move, sqlite};
use futures_util::SinkExt;
use monte_store::testing::skip_postgres;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// A browser: its session cookie, if any.
#[derive(Default)]
struct Browser {
    cookie: Option<String>,
}

impl Browser {
    async fn call(
        &mut self,
        s: &Server,
        method: &str,
        uri: &str,
        body: Option<Value>,
    ) -> (StatusCode, HeaderMap, Value) {
        let cookie = self.cookie.clone();
        let headers: Vec<(&str, &str)> = cookie.iter().map(|c| ("cookie", c.as_str())).collect();
        let (status, answer_headers, value) =
            s.send(method, uri, &headers, body.map(|b| b.to_string()).unwrap_or_default()).await;
        if let Some(set) = answer_headers.get("set-cookie") {
            let pair = set.to_str().unwrap().split(';').next().unwrap().to_string();
            self.cookie = (pair != "monte_session=").then_some(pair);
        }
        (status, answer_headers, value)
    }

    async fn ok(&mut self, s: &Server, method: &str, uri: &str, body: Option<Value>) -> Value {
        let (status, _, value) = self.call(s, method, uri, body).await;
        assert!(status.is_success(), "{method} {uri}: {status} {value}");
        value
    }

    /// Signs up (or in, if `up` is false) as `name`.
    async fn sign(s: &Server, up: bool, name: &str) -> Browser {
        let mut b = Browser::default();
        let uri = if up { "/api/accounts" } else { "/api/session" };
        b.ok(s, "POST", uri, Some(json!({ "name": name, "password": "correct horse" }))).await;
        assert!(b.cookie.is_some());
        b
    }
}

fn refusal(status: StatusCode, value: &Value) -> (u16, &str) {
    (status.as_u16(), value["code"].as_str().unwrap_or(""))
}

async fn sign_up_in_and_out(s: &Server) {
    let mut ann = Browser::default();
    let (status, headers, me) =
        ann.call(s, "POST", "/api/accounts", Some(json!({ "name": "Ann", "password": "correct horse" }))).await;
    assert_eq!(status, StatusCode::CREATED, "{me}");
    assert_eq!(me["name"], "Ann");
    let set = headers["set-cookie"].to_str().unwrap();
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] {
        assert!(set.contains(attribute), "{set}");
    }
    assert!(!set.contains("Secure"), "not over TLS: {set}");
    assert_eq!(ann.ok(s, "GET", "/api/me", None).await["name"], "Ann");
    let (status, _, v) = Browser::default().call(s, "GET", "/api/me", None).await;
    assert_eq!(refusal(status, &v), (401, "not_signed_in"));

    // Names: taken whatever the case, the rules, the reserved ones.
    let mut other = Browser::default();
    for (name, password, expected) in [
        ("aNN", "correct horse", (409, "name_taken")),
        ("a", "correct horse", (400, "name_invalid")),
        ("Ann Lee", "correct horse", (400, "name_invalid")),
        ("Admin", "correct horse", (400, "name_reserved")),
        ("Bob", "short", (400, "password_invalid")),
    ] {
        let (status, _, v) =
            other.call(s, "POST", "/api/accounts", Some(json!({ "name": name, "password": password }))).await;
        assert_eq!(refusal(status, &v), expected, "{name}: {v}");
        assert!(other.cookie.is_none());
    }

    // A wrong password and an unknown name get the same answer.
    let wrong = json!({ "name": "ann", "password": "wrong horse" });
    let (status, _, wrong_password) = other.call(s, "POST", "/api/session", Some(wrong)).await;
    assert_eq!(refusal(status, &wrong_password), (401, "wrong_credentials"));
    let unknown = json!({ "name": "Nobody", "password": "wrong horse" });
    let (status, _, unknown_name) = other.call(s, "POST", "/api/session", Some(unknown)).await;
    assert_eq!((status, &unknown_name), (StatusCode::UNAUTHORIZED, &wrong_password));
    assert!(other.cookie.is_none());

    // Signed in on another browser (any case of the name), then out there.
    let mut elsewhere = Browser::sign(s, false, "aNn").await;
    assert_eq!(elsewhere.ok(s, "GET", "/api/me", None).await["name"], "Ann");
    let old = elsewhere.cookie.clone();
    let (status, headers, _) = elsewhere.call(s, "DELETE", "/api/session", None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert!(headers["set-cookie"].to_str().unwrap().contains("Max-Age=0"));
    let mut replay = Browser { cookie: old };
    let (status, _, _) = replay.call(s, "GET", "/api/me", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a session signed out is over");
    // The first browser is still signed in.
    assert_eq!(ann.ok(s, "GET", "/api/me", None).await["name"], "Ann");

    // Behind a TLS proxy the cookie is Secure.
    let body = json!({ "name": "Ann", "password": "correct horse" }).to_string();
    let (_, headers, _) = s.send("POST", "/api/session", &[("x-forwarded-proto", "https")], body).await;
    assert!(headers["set-cookie"].to_str().unwrap().contains("; Secure"));
    // Signing out and deleting come from this server's pages only.
    let cookie = ann.cookie.clone().unwrap();
    let cross = [("cookie", cookie.as_str()), ("origin", "https://evil.example")];
    let (status, _, _) = s.send("DELETE", "/api/session", &cross, String::new()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn sign_up_in_and_out_on_sqlite() {
    sign_up_in_and_out(&sqlite().await).await;
}

#[tokio::test]
async fn sign_up_in_and_out_on_postgres() {
    if skip_postgres("sign_up_in_and_out_on_postgres") {
        return;
    }
    sign_up_in_and_out(&postgres().await).await;
}

/// Plays `moves` moves of a game through its seat tokens (White's first),
/// then the side to move resigns.
async fn play_and_resign(s: &Server, id: &str, white: &str, black: &str, moves: usize) {
    for ply in 0..moves {
        let token = if ply.is_multiple_of(2) { white } else { black };
        let game = s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"].clone();
        let mv = some_move(&game);
        s.ok("POST", &format!("/api/games/{id}/moves"), Some(token), Some(json!({ "move": mv }))).await;
    }
    let token = if moves.is_multiple_of(2) { white } else { black };
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(token), None).await;
}

/// A game `creator` makes (as White) and `joiner` joins through its invite:
/// (id, White's token, Black's token).
async fn start(s: &Server, creator: &mut Browser, joiner: &mut Browser, body: Value) -> (String, String, String) {
    let created = creator.ok(s, "POST", "/api/games", Some(body)).await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let code = created["invite"]["code"].as_str().unwrap();
    let joined = joiner.ok(s, "POST", &format!("/api/invites/{code}"), None).await;
    (id, created["tokens"]["white"].as_str().unwrap().into(), joined["token"].as_str().unwrap().into())
}

fn rated_salta() -> Value {
    json!({ "game": "salta", "white": "me", "black": "open", "rated": true, "clock": { "minutes": 5, "increment": 2 } })
}

async fn ratings_profiles_and_leaderboards(s: &Server) {
    // A guest's game in this browser becomes Bob's when he signs up.
    let guest = s.create(json!({ "game": "focus", "white": "me", "black": "ai:1" })).await;
    let guest_game = guest["game"]["id"].as_str().unwrap().to_string();
    let mut bob = Browser::default();
    let body = json!({ "name": "Bob", "password": "correct horse", "tokens": [guest["tokens"]["white"]] });
    bob.ok(s, "POST", "/api/accounts", Some(body)).await;
    let seat = &s.ok("GET", &format!("/api/games/{guest_game}"), None, None).await["game"]["seats"]["white"];
    assert_eq!((seat["name"].as_str(), seat["registered"].as_bool()), (Some("Bob"), Some(true)));
    let mut ann = Browser::sign(s, true, "Ann").await;

    // What a rated game needs.
    let (status, _, v) = Browser::default().call(s, "POST", "/api/games", Some(rated_salta())).await;
    assert_eq!(refusal(status, &v), (401, "rated_needs_account"));
    let mut no_clock = rated_salta();
    no_clock.as_object_mut().unwrap().remove("clock");
    let mut other_rules = rated_salta();
    other_rules["rules"] = json!("seed,move-limit=60");
    let mut against_ai = rated_salta();
    against_ai["black"] = json!("ai:2");
    for (body, problem) in [(no_clock, "clock"), (other_rules, "default rule set"), (against_ai, "someone who joins")] {
        let (status, _, v) = ann.call(s, "POST", "/api/games", Some(body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["error"].as_str().unwrap().contains(problem), "{v}");
    }
    let created = ann.ok(s, "POST", "/api/games", Some(rated_salta())).await;
    let code = created["invite"]["code"].as_str().unwrap();
    let (status, _, v) = Browser::default().call(s, "POST", &format!("/api/invites/{code}"), None).await;
    assert_eq!(refusal(status, &v), (401, "rated_needs_account"), "a guest cannot take a rated seat");
    let (status, _, v) = ann.call(s, "POST", &format!("/api/invites/{code}"), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "not against oneself: {v}");

    // Bob beats Ann in a rated game: each moved, then Ann resigns.
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let white = created["tokens"]["white"].as_str().unwrap().to_string();
    let black = bob.ok(s, "POST", &format!("/api/invites/{code}"), None).await["token"].as_str().unwrap().to_string();
    let game = s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"].clone();
    assert_eq!((game["rated"].as_bool(), game["seats"]["black"]["name"].as_str()), (Some(true), Some("Bob")));
    play_and_resign(s, &id, &white, &black, 2).await;
    // Two new players (1500, deviation 350, volatility 0.06), τ = 0.5: an
    // independent computation of Glickman's steps gives the winner
    // 1662.31 and the loser 1337.69, both deviation 290.32.
    let profile = |name: &str| format!("/api/players/{name}");
    let a = s.ok("GET", &profile("ann"), None, None).await;
    let b = s.ok("GET", &profile("BOB"), None, None).await;
    assert_eq!(a["ratings"]["salta"], json!({ "rating": 1338, "deviation": 290, "games": 1, "provisional": true }));
    assert_eq!(b["ratings"]["salta"], json!({ "rating": 1662, "deviation": 290, "games": 1, "provisional": true }));
    assert_eq!(b["ratings"]["focus"], json!({ "rating": 1500, "deviation": 350, "games": 0, "provisional": true }));
    assert_eq!(b["history"]["salta"][0]["game"], id.as_str());
    assert_eq!(b["history"]["salta"][0]["rating"], 1662);
    let record = s.raw("GET", &format!("/api/games/{id}/record"), None, String::new()).await.1;
    let record = record.as_str().unwrap();
    for tag in [
        "[White \"Ann\"]",
        "[Black \"Bob\"]",
        "[WhiteElo \"1500\"]",
        "[WhiteRatingDiff \"-162\"]",
        "[BlackElo \"1500\"]",
        "[BlackRatingDiff \"+162\"]",
    ] {
        assert!(record.contains(tag), "{tag} in\n{record}");
    }

    // Ann offers a rematch, Bob sees it and accepts: the same rated game,
    // colours swapped, each token holding the other colour's seat.
    let rematch = format!("/api/games/{id}/rematch");
    let (status, v) = s.call("POST", &rematch, Some(&white), None).await;
    assert_eq!((status, v["game"]["rematch_offer"].as_str()), (StatusCode::OK, Some("white")), "{v}");
    let (status, v) = s.call("POST", &rematch, Some(&white), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "offered once: {v}");
    let accepted = s.ok("POST", &rematch, Some(&black), None).await["game"].clone();
    let next = accepted["rematch"].as_str().expect("the rematch's id").to_string();
    assert_eq!(accepted["rematch_offer"], Value::Null);
    let (status, _) = s.call("POST", &rematch, Some(&black), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "the rematch has started");
    let swapped = s.ok("GET", &format!("/api/games/{next}"), Some(&black), None).await;
    assert_eq!(swapped["you"], "white");
    let g = &swapped["game"];
    assert_eq!((g["status"].as_str(), g["rated"].as_bool()), (Some("active"), Some(true)));
    assert_eq!(
        (g["seats"]["white"]["name"].as_str(), g["seats"]["black"]["name"].as_str()),
        (Some("Bob"), Some("Ann"))
    );
    let (status, v) = s.call("POST", &format!("/api/games/{next}/rematch"), Some(&white), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "not before the game is over: {v}");
    let guest_token = guest["tokens"]["white"].as_str().unwrap();
    s.ok("POST", &format!("/api/games/{guest_game}/resign"), Some(guest_token), None).await;
    let (status, v) = s.call("POST", &format!("/api/games/{guest_game}/rematch"), Some(guest_token), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "against the AI the page starts a new game: {v}");
    play_and_resign(s, &next, &black, &white, 0).await;

    // Counting nothing: a casual game, a rated one resigned before Black
    // moved, and the rematch resigned before a move.
    let casual = json!({ "game": "salta", "white": "me", "black": "open", "clock": { "minutes": 5 } });
    let (id, white, black) = start(s, &mut ann, &mut bob, casual).await;
    play_and_resign(s, &id, &white, &black, 2).await;
    let (id, white, black) = start(s, &mut ann, &mut bob, rated_salta()).await;
    play_and_resign(s, &id, &white, &black, 1).await;
    let after = s.ok("GET", &profile("ann"), None, None).await;
    assert_eq!(after["ratings"], a["ratings"], "a casual or aborted game changes no rating");
    assert_eq!(after["history"]["salta"].as_array().unwrap().len(), 1);

    // Bob's games, newest first, paged: the rated one aborted, the casual
    // one, the rematch, the rated one, his guest game.
    let page = s.ok("GET", "/api/players/bob/games?limit=3", None, None).await;
    let games = page["games"].as_array().unwrap();
    assert_eq!(games.len(), 3);
    assert_eq!(games[0]["id"], id.as_str());
    assert_eq!(games[2]["id"], next.as_str());
    assert_eq!(page["next_offset"], 3);
    let last = s.ok("GET", "/api/players/bob/games?limit=3&offset=3", None, None).await;
    assert_eq!(last["games"][1]["id"], guest_game.as_str());
    assert_eq!(last["next_offset"], Value::Null);
    let (status, v) = s.call("GET", "/api/players/bob/games?limit=0", None, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    let (status, v) = s.call("GET", "/api/players/nobody", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{v}");

    // The leaderboards.
    let board = s.ok("GET", "/api/leaderboard/salta", None, None).await;
    let names: Vec<&str> = board["players"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Bob", "Ann"]);
    assert_eq!((board["players"][0]["rank"].as_i64(), board["players"][0]["rating"].as_i64()), (Some(1), Some(1662)));
    assert_eq!(s.ok("GET", "/api/leaderboard/focus", None, None).await["players"], json!([]));
    let (status, _) = s.call("GET", "/api/leaderboard/chess", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Ann downloads her data, then deletes her account.
    let (status, headers, data) = ann.call(s, "GET", "/api/me/data", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers["content-disposition"].to_str().unwrap().starts_with("attachment"));
    assert_eq!(data["profile"]["name"], "Ann");
    assert_eq!(data["games"].as_array().unwrap().len(), 4);
    let (status, _, v) = ann.call(s, "DELETE", "/api/me", Some(json!({ "password": "wrong horse" }))).await;
    assert_eq!(refusal(status, &v), (403, "wrong_credentials"));
    let (status, _, _) = ann.call(s, "DELETE", "/api/me", Some(json!({ "password": "correct horse" }))).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert!(ann.cookie.is_none());
    let (status, _) = s.call("GET", &profile("ann"), None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Her games stay, without her name; Bob's rating stays.
    let game = s.ok("GET", &format!("/api/games/{id}"), None, None).await["game"].clone();
    assert_eq!(
        (game["seats"]["white"]["name"].clone(), game["seats"]["white"]["registered"].clone()),
        (Value::Null, json!(false))
    );
    assert_eq!(s.ok("GET", "/api/players/bob/games", None, None).await["games"].as_array().unwrap().len(), 5);
    assert_eq!(s.ok("GET", &profile("bob"), None, None).await["ratings"]["salta"]["rating"], 1662);
    let names = s.ok("GET", "/api/leaderboard/salta", None, None).await;
    assert_eq!(names["players"].as_array().unwrap().len(), 1);
    // The name is free again.
    Browser::sign(s, true, "ANN").await;
}

#[tokio::test]
async fn ratings_profiles_and_leaderboards_on_sqlite() {
    ratings_profiles_and_leaderboards(&sqlite().await).await;
}

#[tokio::test]
async fn ratings_profiles_and_leaderboards_on_postgres() {
    if skip_postgres("ratings_profiles_and_leaderboards_on_postgres") {
        return;
    }
    ratings_profiles_and_leaderboards(&postgres().await).await;
}

#[tokio::test]
async fn sign_ins_are_limited_per_name_whether_it_exists_or_not() {
    let s = sqlite().await;
    Browser::sign(&s, true, "Ann").await;
    // Five tries at once (Ann's sign-up was one), whatever their answers.
    for (name, tried) in [("Ann", 1), ("Nobody", 0)] {
        let wrong = json!({ "name": name, "password": "wrong horse" });
        for _ in tried..5 {
            let (status, v) = s.call("POST", "/api/session", None, Some(wrong.clone())).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{v}");
        }
        let (status, headers, v) = s.send("POST", "/api/session", &[], wrong.to_string()).await;
        assert_eq!(refusal(status, &v), (429, "too_many_attempts"), "{name}");
        assert!(headers.contains_key("retry-after"));
        // Even the right password waits.
        let right = json!({ "name": name, "password": "correct horse" });
        assert_eq!(s.call("POST", "/api/session", None, Some(right)).await.0, StatusCode::TOO_MANY_REQUESTS);
    }
    // Another name is tried as usual.
    Browser::sign(&s, true, "Bob").await;
}

/// The lobby's WebSocket, as this browser (its cookie).
async fn lobby(addr: std::net::SocketAddr, browser: &Browser) -> Ws {
    let mut request = format!("ws://{addr}/api/lobby/ws").into_client_request().unwrap();
    if let Some(cookie) = &browser.cookie {
        request.headers_mut().insert("cookie", cookie.parse().unwrap());
    }
    tokio_tungstenite::connect_async(request).await.expect("lobby socket").0
}

async fn command(ws: &mut Ws, command: Value) {
    ws.send(Message::Text(command.to_string().into())).await.unwrap();
}

#[tokio::test]
async fn seeks_are_live_accepted_cancelled_and_gone_with_their_socket() {
    let s = sqlite().await;
    let addr = listen(&s).await;
    let mut ann = Browser::sign(&s, true, "Ann").await;
    let mut bob = Browser::sign(&s, true, "Bob").await;
    let mut ann_ws = lobby(addr, &ann).await;
    assert_eq!(next_of(&mut ann_ws, "seeks").await["seeks"], json!([]));

    // Refused seeks say why and change nothing.
    for (seek, problem) in [
        (json!({ "type": "seek", "game": "chess" }), "chess"),
        (json!({ "type": "seek", "game": "salta", "rated": true }), "clock"),
        (json!({ "type": "seek", "game": "salta", "rating_range": 5 }), "rating_range"),
    ] {
        command(&mut ann_ws, seek).await;
        let error = next_of(&mut ann_ws, "error").await;
        assert!(error["error"].as_str().unwrap().contains(problem), "{error}");
    }
    let seek = json!({ "type": "seek", "game": "salta", "clock": { "minutes": 5, "increment": 3 }, "rated": true,
        "rating_range": 200 });
    command(&mut ann_ws, seek).await;
    let id = next_of(&mut ann_ws, "posted").await["seek"].as_str().unwrap().to_string();
    let listed = s.ok("GET", "/api/lobby", None, None).await["seeks"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let shown = &listed[0];
    assert_eq!(
        (shown["id"].as_str(), shown["name"].as_str(), shown["rated"].as_bool()),
        (Some(id.as_str()), Some("Ann"), Some(true))
    );
    assert_eq!(
        (shown["rating"].as_i64(), shown["min_rating"].as_i64(), shown["max_rating"].as_i64()),
        (Some(1500), Some(1300), Some(1700))
    );
    assert_eq!(shown["clock"], json!([300_000, 3_000]));
    // Everybody's socket hears of it.
    let mut guest_ws = lobby(addr, &Browser::default()).await;
    assert_eq!(next_of(&mut guest_ws, "seeks").await["seeks"][0]["id"], id.as_str());

    let accept = format!("/api/lobby/{id}/accept");
    let (status, _, v) = Browser::default().call(&s, "POST", &accept, None).await;
    assert_eq!(refusal(status, &v), (401, "rated_needs_account"), "a guest cannot take a rated seek");
    let (status, _, v) = ann.call(&s, "POST", &accept, None).await;
    assert_eq!(status, StatusCode::CONFLICT, "not one's own: {v}");
    let (status, _, v) = bob.call(&s, "POST", "/api/lobby/nosuchseek/accept", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{v}");

    // Bob accepts: the game starts for both, Ann's seat token on her socket.
    let accepted = bob.ok(&s, "POST", &accept, None).await;
    let game = accepted["game"]["id"].as_str().unwrap().to_string();
    let started = next_of(&mut ann_ws, "started").await;
    assert_eq!((started["seek"].as_str(), started["game"].as_str()), (Some(id.as_str()), Some(game.as_str())));
    assert_ne!(started["you"], accepted["you"]);
    let seen = s.ok("GET", &format!("/api/games/{game}"), started["token"].as_str(), None).await;
    assert_eq!(seen["you"], started["you"]);
    let g = &seen["game"];
    assert_eq!((g["status"].as_str(), g["rated"].as_bool()), (Some("active"), Some(true)));
    seeks_until(&mut guest_ws, |seeks| seeks.is_empty()).await;
    let (status, _, _) = bob.call(&s, "POST", &accept, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "taken once");

    // A guest's casual seek, cancelled; another one, gone with its socket.
    let casual = json!({ "type": "seek", "game": "focus", "name": "Guest" });
    command(&mut guest_ws, casual.clone()).await;
    let guest_seek = next_of(&mut guest_ws, "posted").await["seek"].as_str().unwrap().to_string();
    command(&mut guest_ws, json!({ "type": "cancel", "id": guest_seek })).await;
    // (A socket is sent the list as it is when it gets to it: changes in
    // between may be folded into one.)
    seeks_until(&mut ann_ws, |seeks| seeks.is_empty()).await;
    command(&mut guest_ws, casual).await;
    next_of(&mut guest_ws, "posted").await;
    seeks_until(&mut ann_ws, |seeks| seeks.first().is_some_and(|seek| seek["name"] == "Guest")).await;
    drop(guest_ws);
    seeks_until(&mut ann_ws, |seeks| seeks.is_empty()).await;

    // Another site's page cannot open the lobby with the player's cookie.
    let mut request = format!("ws://{addr}/api/lobby/ws").into_client_request().unwrap();
    request.headers_mut().insert("cookie", ann.cookie.clone().unwrap().parse().unwrap());
    request.headers_mut().insert("origin", "https://evil.example".parse().unwrap());
    let refused = tokio_tungstenite::connect_async(request).await.expect_err("refused");
    assert!(refused.to_string().contains("403"), "{refused}");
}

/// Waits for a list of seeks that `wanted` accepts.
async fn seeks_until(ws: &mut Ws, wanted: impl Fn(&[Value]) -> bool) {
    while !wanted(next_of(ws, "seeks").await["seeks"].as_array().unwrap()) {}
}
