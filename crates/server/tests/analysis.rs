//! The analysis board's API: lines replayed by the rules (`oneshot`), and
//! the engine's socket (on a loopback port): lines streamed per depth,
//! replaced and stopped, reviews, and the AI's replies to people first.

mod common;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::{Server, Ws, listen, next_of, sqlite, sqlite_with};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

const LINE: &str = "/api/analysis/line";

/// Creates a game on one screen and plays `moves`: (id, white's token).
async fn played(s: &Server, moves: &[&str]) -> (String, String) {
    let created = s.create(json!({ "game": "salta", "white": "me", "black": "me" })).await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let tokens = [created["tokens"]["white"].as_str().unwrap(), created["tokens"]["black"].as_str().unwrap()];
    for (ply, mv) in moves.iter().enumerate() {
        s.ok("POST", &format!("/api/games/{id}/moves"), Some(tokens[ply % 2]), Some(json!({ "move": mv, "ply": ply })))
            .await;
    }
    (id, tokens[0].to_string())
}

const MOVES: [&str; 4] = ["e3-f4", "h8-g7", "c3-d4", "g7-h6"];

#[tokio::test]
async fn a_line_is_replayed_from_a_position_a_record_or_a_game() {
    let s = sqlite().await;
    // From a position: every position, each move's squares, what the end allows.
    let v =
        s.ok("POST", LINE, None, Some(json!({ "start": { "position": { "game": "salta" } }, "moves": MOVES }))).await;
    assert_eq!(v["game"], "salta");
    assert_eq!(v["rules"], "seed");
    assert_eq!(v["main"], json!([]));
    assert_eq!(v["result"], Value::Null);
    assert_eq!(v["positions"].as_array().unwrap().len(), 5);
    assert_eq!(v["positions"][0], v["start_fen"]);
    assert!(v["positions"][4].as_str().unwrap().ends_with(" w - 4"));
    assert_eq!((v["moves"][0]["from"].as_str(), v["moves"][0]["to"].as_str()), (Some("e3"), Some("f4")));
    assert_eq!(v["side_to_move"], "white");
    assert_eq!(v["over"], false);
    assert!(v["legal_moves"]["from"]["f4"].as_array().is_some_and(|m| !m.is_empty()));

    // A game of this server: its moves are the main line, and once it is
    // over, its result.
    let (id, white) = played(&s, &MOVES).await;
    let v = s.ok("POST", LINE, None, Some(json!({ "start": { "game": id } }))).await;
    assert_eq!(v["main"], json!(MOVES));
    assert_eq!(v["positions"].as_array().unwrap().len(), 5);
    assert_eq!(v["result"], Value::Null);
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(&white), None).await;
    let v = s.ok("POST", LINE, None, Some(json!({ "start": { "game": id } }))).await;
    assert_eq!((v["result"]["result"].as_str(), v["result"]["winner"].as_str()), (Some("0-1"), Some("black")));
    // Another line from the game's start: the moves asked for.
    let v = s.ok("POST", LINE, None, Some(json!({ "start": { "game": id }, "moves": ["c3-d4"] }))).await;
    assert_eq!((v["main"].as_array().unwrap().len(), v["moves"][0]["notation"].as_str()), (4, Some("c3-d4")));

    // Its record, pasted: the same line and result.
    let (_, record) = s.call("GET", &format!("/api/games/{id}/record"), None, None).await;
    let v = s.ok("POST", LINE, None, Some(json!({ "start": { "record": record } }))).await;
    assert_eq!(v["main"], json!(MOVES));
    assert_eq!(v["result"]["result"], "0-1");
    let focus = "[Game \"focus\"]\n[Rules \"seed\"]\n\n*";
    let v = s.ok("POST", LINE, None, Some(json!({ "start": { "record": focus } }))).await;
    assert_eq!((v["game"].as_str(), v["main"].as_array().unwrap().len()), (Some("focus"), 0));

    // What is wrong is named.
    for (body, status, says) in [
        (
            json!({ "start": { "position": { "game": "chess" } } }),
            StatusCode::BAD_REQUEST,
            "game: unknown game `chess`",
        ),
        (json!({ "start": { "position": { "game": "salta", "fen": "x" } } }), StatusCode::BAD_REQUEST, "fen: "),
        (json!({ "start": { "position": { "game": "salta", "rules": "nope" } } }), StatusCode::BAD_REQUEST, "rules: "),
        (json!({ "start": { "record": "1. c3-d4 c3-d4" } }), StatusCode::BAD_REQUEST, "record"),
        (
            json!({ "start": { "position": { "game": "salta" } }, "moves": ["c3-d4", "c3-d4"] }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "moves[1] `c3-d4`: ",
        ),
        (json!({ "start": { "game": "nosuchgame" } }), StatusCode::NOT_FOUND, "no game `nosuchgame`"),
        (json!({ "start": { "fen": "x" } }), StatusCode::BAD_REQUEST, "unknown variant `fen`"),
    ] {
        let (got, v) = s.call("POST", LINE, None, Some(body.clone())).await;
        assert_eq!(got, status, "{body}: {v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{body}: {v}");
    }
}

async fn socket(s: &Server) -> Ws {
    let addr = listen(s).await;
    tokio_tungstenite::connect_async(format!("ws://{addr}/api/analysis/ws")).await.expect("websocket").0
}

async fn send(ws: &mut Ws, command: Value) {
    ws.send(Message::Text(command.to_string().into())).await.unwrap();
}

/// The messages that come within `wait`.
async fn drain(ws: &mut Ws, wait: Duration) -> Vec<Value> {
    let mut got = Vec::new();
    while let Ok(Some(Ok(Message::Text(t)))) = tokio::time::timeout(wait, ws.next()).await {
        got.push(serde_json::from_str(&t).unwrap());
    }
    got
}

#[tokio::test]
async fn the_engine_streams_three_lines_per_depth_until_replaced_or_stopped() {
    let s = sqlite().await;
    let mut ws = socket(&s).await;
    send(&mut ws, json!({ "type": "analyse", "game": "salta" })).await;
    let mut depths = Vec::new();
    let mut position = Value::Null;
    while depths.len() < 4 {
        let m = next_of(&mut ws, "analysis").await;
        position = m["position"].clone();
        depths.push(m["depth"].as_u64().unwrap());
        let lines = m["lines"].as_array().unwrap();
        assert_eq!(lines.len(), 3, "{m}");
        let firsts: Vec<&str> = lines.iter().map(|l| l["first"]["notation"].as_str().unwrap()).collect();
        assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2], "{m}");
        for l in lines {
            // White's first moves from the start: steps from rank 3 to 4.
            assert_eq!(l["moves"][0], l["first"]["notation"]);
            assert!(
                l["first"]["from"].as_str().unwrap().ends_with('3')
                    && l["first"]["to"].as_str().unwrap().ends_with('4')
            );
            let white = l["eval"]["white"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&white) && l["eval"]["units"].is_i64(), "{l}");
            // The bar's value: White's lead in steps, as in a review.
            assert_eq!(l["value"].as_f64().unwrap(), l["eval"]["units"].as_f64().unwrap() / 100.0, "{l}");
        }
        assert_eq!(m["scale"]["unit"], "steps", "{m}");
        assert_eq!((m["scale"]["min"].as_f64(), m["scale"]["max"].as_f64()), (Some(-40.0), Some(40.0)));
    }
    assert_eq!(depths, [1, 2, 3, 4], "one update per depth completed");
    assert!(position.as_str().unwrap().ends_with(" w - 0"));

    // A new position replaces the analysis: what follows is about it alone.
    send(&mut ws, json!({ "type": "analyse", "game": "salta", "moves": ["c3-d4"] })).await;
    let m = next_of(&mut ws, "analysis").await;
    let mut m = m;
    while m["position"] == position {
        m = next_of(&mut ws, "analysis").await;
    }
    assert!(m["position"].as_str().unwrap().ends_with(" b - 1"));
    assert_eq!(m["depth"], 1);
    assert!(m["lines"][0]["first"]["from"].as_str().unwrap().ends_with('8'), "Black's move: {m}");

    // Stopped: nothing more comes, not even its end.
    send(&mut ws, json!({ "type": "stop" })).await;
    drain(&mut ws, Duration::from_millis(300)).await;
    let after = drain(&mut ws, Duration::from_millis(1500)).await;
    assert!(after.is_empty(), "{after:?}");

    // Errors name the problem; the socket goes on.
    send(&mut ws, json!({ "type": "analyse", "game": "salta", "moves": ["c3-c4"] })).await;
    let e = next_of(&mut ws, "error").await;
    assert_eq!(e["status"], 422);
    assert!(e["error"].as_str().unwrap().starts_with("moves[0] `c3-c4`"), "{e}");
    send(&mut ws, json!({ "type": "analyse", "game": "salta", "fen": "nonsense" })).await;
    assert!(next_of(&mut ws, "error").await["error"].as_str().unwrap().starts_with("fen: "));
    send(&mut ws, json!({ "type": "think" })).await;
    assert!(next_of(&mut ws, "error").await["error"].as_str().unwrap().contains("invalid command"));
    // A position where the game is over has nothing to analyse.
    let won = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,o1,.,./.,O3,.,.,./.,.,.,.,./.,.,.,.,./o3,o4,o5,o2,./m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0";
    send(&mut ws, json!({ "type": "analyse", "game": "salta", "fen": won, "moves": ["d6:f8"] })).await;
    assert_eq!(next_of(&mut ws, "error").await["status"], 409);
    // A win found is said as one, for White.
    send(&mut ws, json!({ "type": "analyse", "game": "salta", "fen": won })).await;
    let m = next_of(&mut ws, "analysis").await;
    assert_eq!(m["lines"][0]["first"]["notation"], "d6:f8");
    assert_eq!(m["lines"][0]["eval"], json!({ "white": 1.0, "units": null, "win": { "side": "white", "plies": 1 } }));
    // At the end of the scale, as a review has it.
    assert_eq!(m["lines"][0]["value"], 40.0);
    let done = next_of(&mut ws, "analysis_done").await;
    assert_eq!(done["position"], won);

    // Focus: the value is White's expected score, from 0 to 1.
    send(&mut ws, json!({ "type": "analyse", "game": "focus" })).await;
    let m = next_of(&mut ws, "analysis").await;
    assert_eq!(m["scale"]["unit"], "expected_score", "{m}");
    assert_eq!((m["scale"]["min"].as_f64(), m["scale"]["max"].as_f64()), (Some(0.0), Some(1.0)));
    for l in m["lines"].as_array().unwrap() {
        assert_eq!(l["value"], l["eval"]["white"], "{l}");
    }
}

#[tokio::test]
async fn a_review_values_every_position_and_ends_with_its_marks() {
    let s = sqlite().await;
    let mut ws = socket(&s).await;
    let won = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,o1,.,./.,O3,.,.,./.,.,.,.,./.,.,.,.,./o3,o4,o5,o2,./m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0";
    // White wins in one and plays it: no mark, the end is the result.
    send(&mut ws, json!({ "type": "review", "game": "salta", "fen": won, "moves": ["d6:f8"] })).await;
    let first = next_of(&mut ws, "review").await;
    assert_eq!((first["ply"].as_u64(), first["eval"]["win"]["side"].as_str()), (Some(0), Some("white")));
    let last = next_of(&mut ws, "review").await;
    assert_eq!(last["ply"], 1);
    assert_eq!(last["eval"], json!({ "white": 1.0, "units": null, "win": { "side": "white", "plies": 0 } }));
    assert_eq!(next_of(&mut ws, "review_done").await["marks"], json!([]));

    // A won game is at the end of Salta's scale, its lead in steps.
    assert_eq!(last["value"], 40.0);
    assert_eq!(
        last["scale"],
        json!({ "unit": "steps", "min": -40.0, "max": 40.0, "inaccuracy": 2.0, "mistake": 4.0, "blunder": 8.0 })
    );

    // A longer line: every position in order, each valued (in Salta by
    // White's lead in steps, the score over 100), then the marks.
    send(&mut ws, json!({ "type": "review", "game": "salta", "moves": MOVES })).await;
    for ply in 0..=4 {
        let m = next_of(&mut ws, "review").await;
        assert_eq!(m["ply"], ply);
        assert!((0.0..=1.0).contains(&m["eval"]["white"].as_f64().unwrap()), "{m}");
        assert_eq!(m["value"].as_f64().unwrap(), m["eval"]["units"].as_f64().unwrap() / 100.0, "{m}");
    }
    let done = next_of(&mut ws, "review_done").await;
    for mark in done["marks"].as_array().unwrap() {
        assert!(["inaccuracy", "mistake", "blunder"].contains(&mark["judgement"].as_str().unwrap()), "{mark}");
        assert!(mark["loss"].as_f64().unwrap() >= 2.0, "{mark}");
    }

    // Focus is reviewed by White's expected score, its marks from 0.05.
    send(&mut ws, json!({ "type": "review", "game": "focus", "moves": ["b6-a6", "b3-a3"] })).await;
    for ply in 0..=2 {
        let m = next_of(&mut ws, "review").await;
        assert_eq!(m["ply"], ply);
        assert_eq!(m["value"], m["eval"]["white"], "{m}");
        assert_eq!(
            m["scale"],
            json!({ "unit": "expected_score", "min": 0.0, "max": 1.0, "inaccuracy": 0.05, "mistake": 0.1, "blunder": 0.2 })
        );
    }
    for mark in next_of(&mut ws, "review_done").await["marks"].as_array().unwrap() {
        assert!(mark["loss"].as_f64().unwrap() >= 0.05, "{mark}");
    }
}

#[tokio::test]
async fn an_ai_reply_to_a_person_takes_the_thread_from_an_analysis() {
    // One search thread: an analysis holds it for 10 s unless it yields.
    let s = sqlite_with(|c| c.ai.max_threads = 1).await;
    let mut ws = socket(&s).await;
    send(&mut ws, json!({ "type": "analyse", "game": "focus" })).await;
    let mut deepest = next_of(&mut ws, "analysis").await["depth"].as_u64().unwrap();
    let created = s.create(json!({ "game": "salta", "white": "me", "black": "ai:1" })).await;
    let id = created["game"]["id"].as_str().unwrap();
    let token = created["tokens"]["white"].as_str().unwrap();
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(token), Some(json!({ "move": "c3-d4", "ply": 0 }))).await;
    let asked = Instant::now();
    loop {
        let v = s.ok("GET", &format!("/api/games/{id}"), None, None).await;
        if v["game"]["ply"] == 2 {
            break;
        }
        assert!(asked.elapsed() < Duration::from_secs(4), "the AI's reply waited behind the analysis");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The analysis goes on after it, deeper, each depth once.
    let mut more = 0;
    while more < 2 {
        let m = next_of(&mut ws, "analysis").await;
        let depth = m["depth"].as_u64().unwrap();
        assert!(depth > deepest, "depth {depth} after {deepest}");
        deepest = depth;
        more += 1;
    }
}

#[tokio::test]
async fn another_sites_page_cannot_spend_the_engine() {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let s = sqlite().await;
    let addr = listen(&s).await;
    let mut request = format!("ws://{addr}/api/analysis/ws").into_client_request().unwrap();
    request.headers_mut().insert("origin", "https://evil.example".parse().unwrap());
    let refused = tokio_tungstenite::connect_async(request).await.expect_err("refused");
    assert!(refused.to_string().contains("403"), "{refused}");
    // This server's own page may.
    let mut request = format!("ws://{addr}/api/analysis/ws").into_client_request().unwrap();
    request.headers_mut().insert("origin", format!("http://{addr}").parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(request).await.expect("accepted");
    send(&mut ws, json!({ "type": "analyse", "game": "focus" })).await;
    assert_eq!(next_of(&mut ws, "analysis").await["depth"], 1);
}
