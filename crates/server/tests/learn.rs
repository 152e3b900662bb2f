//! The lessons (`/learn`): every task's position, solution and wrong moves
//! checked by the rules, and the API (`oneshot`) that serves and checks them.

mod common;

use std::collections::HashSet;

use axum::http::StatusCode;
use common::sqlite;
use monte_server::learn::{Goal, attempt, lessons};
use serde_json::{Value, json};

/// The topics issue 19 asks for, each a lesson of its own.
const TOPICS: [&str; 13] = [
    "salta-steps",
    "salta-jumps",
    "salta-chains",
    "salta-call",
    "salta-goal",
    "salta-limit",
    "focus-stacks",
    "focus-height",
    "focus-sweep",
    "focus-jump",
    "focus-overflow",
    "focus-drops",
    "focus-end",
];

#[test]
fn every_task_is_solved_by_its_solution_and_refuses_its_wrong_moves() {
    let lessons = lessons().expect("the lessons' data reads");
    let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, TOPICS);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len(), "lesson ids are unique");
    for lesson in lessons {
        for text in [&lesson.title].into_iter().chain(lesson.tasks.iter().map(|t| &t.text)) {
            assert!(!text.en.trim().is_empty() && !text.ru.trim().is_empty(), "{}: a text is missing", lesson.id);
            assert!(
                text.ru.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c)),
                "{}: not Russian: {}",
                lesson.id,
                text.ru
            );
        }
        for (i, task) in lesson.tasks.iter().enumerate() {
            let name = format!("{} task {i}", lesson.id);
            assert!(!task.start.status().is_over(), "{name}: the game is over in the task's position");
            let tried =
                attempt(task, &task.solution).unwrap_or_else(|e| panic!("{name}: the solution is illegal: {e}"));
            assert_eq!(tried.missed, None, "{name}: the solution {} misses a goal", task.solution);
            assert!(!task.wrong.is_empty(), "{name}: no wrong move to check");
            for wrong in &task.wrong {
                match attempt(task, wrong) {
                    Err(_) => {}
                    Ok(tried) => assert!(tried.missed.is_some(), "{name}: the wrong move {wrong} meets every goal"),
                }
            }
        }
    }
}

#[test]
fn each_lesson_teaches_what_its_goals_check() {
    let lessons = lessons().unwrap();
    let goals = |id: &str| -> Vec<Goal> {
        lessons.iter().find(|l| l.id == id).unwrap().tasks.iter().flat_map(|t| t.goals.clone()).collect()
    };
    assert!(goals("salta-chains").contains(&Goal::Jump { jumps: 2 }));
    assert!(goals("salta-call").contains(&Goal::Call));
    assert!(goals("salta-goal").contains(&Goal::Home));
    assert!(goals("salta-goal").contains(&Goal::Win));
    assert!(goals("salta-limit").contains(&Goal::Win));
    assert!(goals("focus-sweep").contains(&Goal::Sweep));
    assert!(goals("focus-overflow").contains(&Goal::Reserve { pieces: 1 }));
    assert!(goals("focus-overflow").contains(&Goal::Capture { pieces: 1 }));
    assert!(goals("focus-drops").contains(&Goal::Drop));
    assert!(goals("focus-end").contains(&Goal::Win));
    // The move limit's lesson ends the game on the limit, not on the goal.
    let limit = lessons.iter().find(|l| l.id == "salta-limit").unwrap();
    assert_eq!(limit.rules, "seed,move-limit=4");
    // The forced answer: after the call, every move but a jump over f6 is illegal.
    let call = &lessons.iter().find(|l| l.id == "salta-call").unwrap().tasks[1];
    let legal: Vec<String> = call.start.legal_moves().into_iter().map(|m| m.notation).collect();
    assert_eq!(legal, ["g5:e7", "g5:e7+"]);
}

#[tokio::test]
async fn the_api_lists_the_lessons_and_checks_a_move() {
    let s = sqlite().await;
    let list = s.ok("GET", "/api/learn", None, None).await;
    let all = list["lessons"].as_array().unwrap();
    assert_eq!(all.len(), TOPICS.len());
    assert_eq!(all[0]["id"], "salta-steps");
    assert_eq!(all[0]["game"], "salta");
    assert_eq!(all[0]["tasks"][0]["side_to_move"], "white");
    assert!(all[0]["tasks"][0]["text"]["ru"].as_str().is_some_and(|t| t.contains("шаг")));
    // The page is not given the answers.
    assert!(all.iter().all(|l| l["tasks"].as_array().unwrap().iter().all(|t| t.get("solution").is_none())));

    let try_move = |lesson: &str, task: usize, mv: &str| json!({ "lesson": lesson, "task": task, "move": mv });
    let v = s.ok("POST", "/api/learn/try", None, Some(try_move("salta-steps", 0, "e3-f4"))).await;
    assert_eq!(v["solved"], true);
    assert_eq!(v["missed"], Value::Null);
    assert_eq!((v["played"]["from"].as_str(), v["played"]["to"].as_str()), (Some("e3"), Some("f4")));
    assert!(v["fen"].as_str().unwrap().ends_with(" b - 1"));

    // Legal, but not what the task asks: the goal it misses.
    let v = s.ok("POST", "/api/learn/try", None, Some(try_move("salta-call", 0, "e7-f6"))).await;
    assert_eq!(v["solved"], false);
    assert_eq!(v["missed"], json!({ "goal": "call" }));
    let v = s.ok("POST", "/api/learn/try", None, Some(try_move("focus-height", 0, "d3-d5"))).await;
    assert_eq!(v["missed"], json!({ "goal": "reach", "square": "d6" }));

    // Illegal: refused by the rules, with its code.
    let (status, e) = s.call("POST", "/api/learn/try", None, Some(try_move("salta-call", 1, "c3-d4"))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert_eq!((e["code"].as_str(), e["move"].as_str()), (Some("illegal_move"), Some("c3-d4")));

    // No such lesson or task; a malformed request.
    let (status, e) = s.call("POST", "/api/learn/try", None, Some(try_move("chess", 0, "e2-e4"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{e}");
    let (status, _) = s.call("POST", "/api/learn/try", None, Some(try_move("salta-steps", 9, "e3-f4"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = s.call("POST", "/api/learn/try", None, Some(json!({ "lesson": "salta-steps" }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}
