//! Storage failures under load: many games played at once over the HTTP
//! API while the database fails under them (a full disk, a read-only
//! file, a deleted WAL, PostgreSQL connections killed). Every move
//! answered 200 is counted; after a restart each must be in the database
//! at its ply, and no ply may have been acknowledged twice
//! (docs/reliability.md).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use monte_server::{Config, Instance};
use monte_store::testing::{SqliteFault, TestDatabase, skip_postgres, sqlite_fault};
use serde_json::{Value, json};
use tower::ServiceExt;

/// Games played at once.
const PLAYERS: usize = 24;

type Acks = Arc<Mutex<Acknowledged>>;

#[derive(Debug, Default)]
struct Acknowledged {
    /// Moves answered 200: (game, ply, the notation the answer gave).
    moves: Vec<(String, i64, String)>,
    /// Answers by status.
    statuses: HashMap<u16, usize>,
}

impl Acknowledged {
    /// Plies answered 200 more than once.
    fn twice(&self) -> usize {
        let mut plies = HashMap::<(&str, i64), usize>::new();
        for (id, ply, _) in &self.moves {
            *plies.entry((id.as_str(), *ply)).or_default() += 1;
        }
        plies.values().filter(|&&n| n > 1).count()
    }
}

async fn call(
    router: &Router,
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri).header("content-type", "application/json");
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let res = router.clone().oneshot(req.body(Body::from(body)).unwrap()).await.unwrap();
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 24).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// The `n`-th legal move of a view, counting round.
fn nth_move(game: &Value, n: usize) -> Option<String> {
    let legal = &game["legal_moves"];
    let mut all: Vec<&str> = legal["from"]
        .as_object()?
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|m| m["notation"].as_str())
        .collect();
    all.extend(legal["drops"].as_array()?.iter().filter_map(|m| m["notation"].as_str()));
    all.extend(legal["pass"].as_str());
    (!all.is_empty()).then(|| all[n % all.len()].to_string())
}

/// One player: plays both seats of a game, a new game when one ends,
/// until `stop`. A refused move (409, 503) is followed by a fresh read.
async fn player(router: Router, n: usize, stop: Arc<AtomicBool>, acks: Acks, games: Arc<Mutex<Vec<String>>>) {
    let mut turn = n;
    while !stop.load(Ordering::Relaxed) {
        let (status, created) =
            call(&router, "POST", "/api/games", None, Some(json!({ "game": "salta", "white": "me", "black": "me" })))
                .await;
        if status != StatusCode::CREATED {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        }
        let id = created["game"]["id"].as_str().unwrap().to_string();
        games.lock().unwrap().push(id.clone());
        let tokens = created["tokens"].clone();
        let mut game = created["game"].clone();
        while !stop.load(Ordering::Relaxed) && game["status"] == "active" {
            turn += 1;
            let side = game["side_to_move"].as_str().unwrap().to_string();
            let ply = game["ply"].as_i64().unwrap();
            let Some(mv) = nth_move(&game, turn) else { break };
            let body = json!({ "move": mv, "ply": ply });
            let uri = format!("/api/games/{id}/moves");
            let (status, answer) = call(&router, "POST", &uri, tokens[&side].as_str(), Some(body)).await;
            {
                let mut acks = acks.lock().unwrap();
                *acks.statuses.entry(status.as_u16()).or_default() += 1;
                if status == StatusCode::OK {
                    let played = answer["game"]["history"][ply as usize].as_str().unwrap().to_string();
                    acks.moves.push((id.clone(), ply, played));
                }
            }
            match status {
                StatusCode::OK => game = answer["game"].clone(),
                StatusCode::CONFLICT | StatusCode::SERVICE_UNAVAILABLE => loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let (status, fresh) = call(&router, "GET", &format!("/api/games/{id}"), None, None).await;
                    if status == StatusCode::OK {
                        game = fresh["game"].clone();
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                },
                other => panic!("move {mv} at ply {ply} of {id}: {other} {answer}"),
            }
        }
    }
}

/// A run: `PLAYERS` players on `instance`; `fault` is called once they
/// have played a while, and returns once the fault is over.
struct Run {
    acks: Acks,
    games: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Run {
    fn start(router: &Router) -> Run {
        let acks = Acks::default();
        let games = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let tasks = (0..PLAYERS)
            .map(|n| tokio::spawn(player(router.clone(), n, stop.clone(), acks.clone(), games.clone())))
            .collect();
        Run { acks, games, stop, tasks }
    }

    fn acknowledged(&self) -> usize {
        self.acks.lock().unwrap().moves.len()
    }

    /// Waits until `more` further moves have been acknowledged (or a few
    /// seconds have passed).
    async fn until_acknowledged(&self, more: usize) {
        let target = self.acknowledged() + more;
        for _ in 0..500 {
            if self.acknowledged() >= target {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    async fn stop(self) -> (Acknowledged, Vec<String>) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.tasks {
            t.await.expect("a player panicked");
        }
        let acks = std::mem::take(&mut *self.acks.lock().unwrap());
        let games = self.games.lock().unwrap().clone();
        (acks, games)
    }
}

/// The health answer: (status code, `status` field).
async fn health(router: &Router) -> (StatusCode, String) {
    let (status, body) = call(router, "GET", "/api/health", None, None).await;
    (status, body["status"].as_str().unwrap_or("").to_string())
}

/// Checks every acknowledged move against the games as a restarted server
/// reads them; prints and returns (acknowledged, lost, twice).
async fn verify(name: &str, router: &Router, acks: &Acknowledged, games: &[String]) -> (usize, usize, usize) {
    let mut histories = HashMap::new();
    for id in games {
        let (status, body) = call(router, "GET", &format!("/api/games/{id}"), None, None).await;
        assert_eq!(status, StatusCode::OK, "{id} after the restart: {body}");
        let history: Vec<String> =
            body["game"]["history"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
        histories.insert(id.clone(), history);
    }
    let lost = acks.moves.iter().filter(|(id, ply, played)| histories[id].get(*ply as usize) != Some(played)).count();
    let twice = acks.twice();
    let mut statuses: Vec<_> = acks.statuses.iter().collect();
    statuses.sort();
    println!(
        "{name}: {} moves acknowledged in {} games, {lost} lost, {twice} plies acknowledged twice; \
         answers by status {statuses:?}",
        acks.moves.len(),
        games.len(),
    );
    (acks.moves.len(), lost, twice)
}

fn config(database: String) -> Config {
    Config { database, rate_limit: 0.0, ..Config::default() }
}

/// Stops an instance and closes its store, as a restart would.
async fn shut_down(instance: Instance) {
    let store = instance.app.games.store.clone();
    drop(instance);
    store.close().await;
}

/// A scratch directory for a SQLite file, removed afterwards.
struct Dir(std::path::PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let name: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        let path = std::env::temp_dir().join(format!("monte-durability-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Dir(path)
    }
    fn database(&self) -> String {
        self.0.join("monte.db").to_string_lossy().into_owned()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What goes wrong with the SQLite file while the games are played.
#[derive(Clone, Copy, Debug)]
enum Trouble {
    /// The disk fills and frees again, twenty times, then stays full a while.
    Fault(SqliteFault),
    /// `monte.db-wal` is deleted.
    WalDeleted,
}

/// Plays on SQLite through `trouble`, restarts, and checks every
/// acknowledged move; returns (acknowledged, lost, twice).
async fn sqlite_through(name: &str, trouble: Trouble) -> (usize, usize, usize) {
    let dir = Dir::new(name);
    let instance = monte_server::start(config(dir.database())).await.expect("start on sqlite");
    let router = instance.router.clone();
    let store = instance.app.games.store.clone();
    let run = Run::start(&router);
    run.until_acknowledged(300).await;
    let mut degraded = 0;
    let mut count = |(status, text): (StatusCode, String)| {
        if status == StatusCode::SERVICE_UNAVAILABLE && text == "degraded" {
            degraded += 1;
        }
    };
    match trouble {
        Trouble::Fault(fault) => {
            for _ in 0..20 {
                sqlite_fault(&store, Some(fault)).await.unwrap();
                tokio::time::sleep(Duration::from_millis(25)).await;
                sqlite_fault(&store, None).await.unwrap();
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            sqlite_fault(&store, Some(fault)).await.unwrap();
            tokio::time::sleep(Duration::from_millis(300)).await;
            count(health(&router).await);
            sqlite_fault(&store, None).await.unwrap();
            // Writes go through again.
            run.until_acknowledged(300).await;
        }
        Trouble::WalDeleted => {
            std::fs::remove_file(dir.0.join("monte.db-wal")).expect("delete the WAL");
            tokio::time::sleep(Duration::from_millis(300)).await;
            count(health(&router).await);
        }
    }
    let (acks, games) = run.stop().await;
    shut_down(instance).await;

    let instance = monte_server::start(config(dir.database())).await.expect("restart on sqlite");
    let figures = verify(name, &instance.router, &acks, &games).await;
    assert_eq!(degraded, 1, "{name}: /api/health did not report the store degraded");
    shut_down(instance).await;
    figures
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_disk_full_loses_no_acknowledged_move() {
    let (acknowledged, lost, twice) = sqlite_through("sqlite disk full", Trouble::Fault(SqliteFault::Full)).await;
    assert!(acknowledged > 0);
    assert_eq!((lost, twice), (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_read_only_file_loses_no_acknowledged_move() {
    let (acknowledged, lost, twice) = sqlite_through("sqlite read-only", Trouble::Fault(SqliteFault::ReadOnly)).await;
    assert!(acknowledged > 0);
    assert_eq!((lost, twice), (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_deleted_wal_loses_no_acknowledged_move() {
    let (acknowledged, lost, twice) = sqlite_through("sqlite WAL deleted", Trouble::WalDeleted).await;
    assert!(acknowledged > 0);
    assert_eq!((lost, twice), (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_connection_loss_loses_no_acknowledged_move() {
    if skip_postgres("postgres_connection_loss_loses_no_acknowledged_move") {
        return;
    }
    let db = TestDatabase::create().await;
    let instance = monte_server::start(config(db.url.clone())).await.expect("start on postgres");
    let router = instance.router.clone();
    let run = Run::start(&router);
    run.until_acknowledged(300).await;
    let mut killed = 0;
    for _ in 0..10 {
        killed += monte_store::testing::terminate_connections(&db.url).await.expect("terminate connections");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Writes failed a moment ago: not healthy (degraded, or the database
    // not answering the health check's own query).
    let (status, text) = health(&router).await;
    println!("postgres: health after the kills: {status} {text}");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    let (acks, games) = run.stop().await;
    shut_down(instance).await;

    let instance = monte_server::start(config(db.url.clone())).await.expect("restart on postgres");
    println!("postgres: {killed} connections killed");
    let (acknowledged, lost, twice) = verify("postgres connection loss", &instance.router, &acks, &games).await;
    assert!(acknowledged > 0);
    assert_eq!((lost, twice), (0, 0));
}
