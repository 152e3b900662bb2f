//! `monte loadtest`: the game server's load benchmark (docs/server-load.md).
//!
//! Many games at once, human against human, both seats of every game played
//! by this program over WebSocket: each move is a random legal move taken
//! from the state the server pushed, sent at a paced aggregate rate. The
//! latency of a move runs from sending it on the mover's socket to
//! receiving the new state on the opponent's socket, so it includes the
//! commit to the database and the push. A few client tasks each drive a
//! share of the games (not a thread or task per game).

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, ensure};
use clap::Args;
use futures_util::stream::{SelectAll, SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use monte_rules::Rng;
use monte_store::SynchronousCommit;
use monte_store::testing::TestDatabase;
use rand::Rng as _;
use reqwest::header::{CONNECTION, CONTENT_TYPE, COOKIE, SET_COOKIE};
use serde::Deserialize;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

#[derive(Args, Debug)]
pub struct LoadtestArgs {
    /// A running server to load (`http://HOST:PORT`). Default: start
    /// `monte serve` on loopback on a fresh database, and stop it after.
    #[arg(long)]
    url: Option<String>,
    /// The started server's database: a SQLite file path (default: in a new
    /// temporary directory, removed after), or a PostgreSQL server URL, on
    /// which a fresh database is created and dropped after.
    #[arg(long)]
    database: Option<String>,
    /// Games played at once (ended games are replaced by new ones)
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Target moves per second, all games together
    #[arg(long, default_value_t = 5000.0)]
    rate: f64,
    /// Length of each measured window, in seconds
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Measured windows (the summary gives the median of each figure)
    #[arg(long, default_value_t = 1)]
    runs: usize,
    /// Play before measuring, in seconds
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// The game
    #[arg(long, default_value = "salta")]
    game: String,
    /// Rule set of the games (random Salta games seldom end by
    /// themselves, so the default limits every game to 60 moves a side;
    /// real games are a few dozen moves each)
    #[arg(long, default_value = "seed,move-limit=60")]
    rules: String,
    /// Client tasks driving the games
    #[arg(long, default_value_t = 4)]
    clients: usize,
    /// Each game of the first generation resigns at a random ply below
    /// this, so that games end, and new ones are created, all through the
    /// run as on a real server, not all at once (0: off). Default: the
    /// rule set's move limit in plies (twice `move-limit`), else 100
    #[arg(long)]
    stagger: Option<u32>,
    /// Seed of the random moves
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Share of the games (0 to 1) played as rated games between two
    /// signed-in players: two accounts per such game, created at the start,
    /// play it and its replacements. A rated game follows the game's
    /// default rule set with a clock, and resigns where a casual game
    /// reaches its move limit (`--stagger` for the first ones); its end
    /// updates both ratings. Default 0: every game casual, by guests
    #[arg(long, default_value_t = 0.0)]
    rated_share: f64,
    /// Serve with `--synchronous-commit` (PostgreSQL): `on` (the default)
    /// or `off`
    #[arg(long, default_value_t = SynchronousCommit::On)]
    synchronous_commit: SynchronousCommit,
}

pub fn run(args: &LoadtestArgs) -> Result<()> {
    ensure!(args.games > 0, "--games must be at least 1");
    ensure!(args.rate > 0.0 && args.rate.is_finite(), "--rate must be a positive number of moves per second");
    ensure!(args.seconds > 0.0 && args.seconds.is_finite(), "--seconds must be > 0");
    ensure!(args.warmup >= 0.0 && args.warmup.is_finite(), "--warmup must be >= 0");
    ensure!(args.runs > 0, "--runs must be at least 1");
    ensure!((0.0..=1.0).contains(&args.rated_share), "--rated-share must be from 0 to 1");
    ensure!((1..=64).contains(&args.clients), "--clients must be 1 to 64");
    args.game.parse::<monte_rules::GameKind>().context("--game")?;
    ensure!(args.url.is_none() || args.database.is_none(), "--database is for the server started here: not with --url");
    let threads = args.clients.min(std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(threads).enable_all().build()?;
    runtime.block_on(run_async(args))
}

/// The server under load.
enum Target {
    /// Started here: stopped, and its database removed, on drop.
    Started {
        child: Child,
        database: StartedDatabase,
        shown: String,
    },
    Remote,
}

enum StartedDatabase {
    Sqlite(PathBuf),
    /// Held for its `Drop`, which drops the database.
    Postgres {
        _database: TestDatabase,
    },
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Target::Started { child, database, .. } = self {
            let _ = child.kill();
            let _ = child.wait();
            if let StartedDatabase::Sqlite(dir) = database {
                let _ = std::fs::remove_dir_all(dir);
            }
            // A PostgreSQL database is dropped by its own Drop.
        }
    }
}

impl Target {
    fn pid(&self) -> Option<u32> {
        match self {
            Target::Started { child, .. } => Some(child.id()),
            Target::Remote => None,
        }
    }
}

async fn start_server(database: Option<&str>, synchronous_commit: SynchronousCommit) -> Result<(Target, SocketAddr)> {
    let (database, url, shown) = match database {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            let db = TestDatabase::create_on(url, "monte_load")
                .await
                .with_context(|| format!("cannot create a fresh database on {url}"))?;
            let url = db.url.clone();
            let shown = format!("postgresql (fresh database {})", db.name);
            (StartedDatabase::Postgres { _database: db }, url, shown)
        }
        given => {
            let dir = std::env::temp_dir().join(format!("monte-load-{}-{}", std::process::id(), monte_nanos()));
            std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let file = match given {
                Some(path) => PathBuf::from(path.strip_prefix("sqlite:").unwrap_or(path)),
                None => dir.join("load.db"),
            };
            ensure!(!file.exists(), "{} exists: the load test wants a fresh database", file.display());
            let shown = format!("sqlite {}", file.display());
            (StartedDatabase::Sqlite(dir), format!("sqlite:{}", file.display()), shown)
        }
    };
    let exe = std::env::current_exe().context("cannot find the monte executable")?;
    let mut child = Command::new(exe)
        .args(["serve", "--database", &url, "--listen", "127.0.0.1:0", "--rate-limit", "0", "--ws-rate", "0"])
        .args(["--max-connections-per-ip", "0"])
        .args(["--instance", "loadtest"])
        .args(["--synchronous-commit", synchronous_commit.as_str()])
        // Warnings only, unless asked: a line per request is not what is measured.
        .env("MONTE_LOG", std::env::var("MONTE_LOG").unwrap_or_else(|_| "warn".into()))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot start monte serve")?;
    let stdout = child.stdout.take().context("no stdout of monte serve")?;
    let target = Target::Started { child, database, shown };
    // The server prints its address on its first line; the rest of its
    // output is read and dropped so that it never writes into a closed pipe.
    let (line_tx, line_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        let mut lines = std::io::BufReader::new(stdout).lines();
        if let Some(Ok(first)) = lines.next() {
            let _ = line_tx.send(first);
        }
        for _ in lines {}
    });
    let line = tokio::task::spawn_blocking(move || line_rx.recv_timeout(Duration::from_secs(60)))
        .await?
        .map_err(|_| anyhow!("monte serve did not start"))?;
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| anyhow!("no address in the server's first line {line:?}"))?;
    Ok((target, addr))
}

/// The plies after which a game of this rule set ends at the latest (its
/// `move-limit`, moves per side), or 100 without one: random games seldom
/// end before.
fn game_length(rules: &str) -> u32 {
    rules
        .split(',')
        .find_map(|option| option.trim().strip_prefix("move-limit=")?.parse::<u32>().ok())
        .map_or(100, |moves| moves.saturating_mul(2))
}

fn monte_nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

/// CPU time (user and system) process `pid` used so far, in seconds
/// (Linux; the kernel counts in ticks of 1/100 s).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Resident memory of process `pid`, in bytes (Linux).
fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

async fn run_async(args: &LoadtestArgs) -> Result<()> {
    let (target, addr) = match &args.url {
        Some(url) => {
            let hostport = url.trim_end_matches('/').trim_start_matches("http://");
            ensure!(!hostport.contains('/'), "--url: expected http://HOST:PORT, got {url}");
            let addr = tokio::net::lookup_host(hostport)
                .await
                .with_context(|| format!("cannot resolve {hostport}"))?
                .next()
                .ok_or_else(|| anyhow!("{hostport} resolves to no address"))?;
            (Target::Remote, addr)
        }
        None => start_server(args.database.as_deref(), args.synchronous_commit).await?,
    };
    let server = match &target {
        Target::Started { shown, .. } => format!("started here on {shown}"),
        Target::Remote => format!("at {addr}"),
    };
    let rules = args.rules.clone();
    let stagger = args.stagger.unwrap_or_else(|| game_length(&rules));
    let rated = rated_slots(args.games, args.rated_share);
    let rated_games = rated.iter().filter(|&&r| r).count();
    println!(
        "monte loadtest: {} {} games ({rules}) at once, human v human, both seats over WebSocket; \
         {rated_games} of them rated, between signed-in players (default rule set, a clock); \
         target {} moves/s; {} client tasks; the first games resign at a random ply below {stagger}; \
         server {server}",
        args.games, args.game, args.rate, args.clients
    );
    let rss_before = target.pid().and_then(rss_bytes);

    let create = serde_json::json!({ "game": args.game, "rules": rules, "white": "me", "black": "me" }).to_string();
    let create_rated = serde_json::json!({
        "game": args.game, "white": "me", "black": "open", "rated": true,
        "clock": { "minutes": RATED_CLOCK_MINUTES, "increment": 0 }
    })
    .to_string();
    let shared = Arc::new(Shared::new(addr, create, create_rated)?);

    // The players of the rated games: two accounts for each.
    let setup = Instant::now();
    let run_tag = (monte_nanos() as u32) & 0xf_ffff;
    let names: Vec<String> =
        (0..rated_games).flat_map(|i| ["w", "b"].map(|s| format!("lt{run_tag:x}{s}{i}"))).collect();
    let mut signing_up = futures_util::stream::iter(names.iter().map(|n| sign_up(&shared, n))).buffered(8);
    let mut cookies = Vec::with_capacity(names.len());
    while let Some(cookie) = signing_up.next().await {
        cookies.push(cookie.context("cannot create an account")?);
    }
    drop(signing_up);
    let mut pairs = cookies.chunks_exact(2).map(|c| Arc::new([c[0].clone(), c[1].clone()]));
    if rated_games > 0 {
        println!("  {} accounts created in {:.1} s", names.len(), setup.elapsed().as_secs_f64());
    }

    // Create the games, a few at a time, and share them among the clients.
    let setup = Instant::now();
    let players: Vec<Option<Players>> = rated.iter().map(|&r| if r { pairs.next() } else { None }).collect();
    let mut opened = Vec::with_capacity(args.games);
    let mut pending =
        futures_util::stream::iter(players.into_iter().map(|p| open_game(shared.clone(), p))).buffered(16);
    while let Some(game) = pending.next().await {
        opened.push(game.context("cannot set up a game")?);
    }
    drop(pending);
    println!("  {} games created and connected in {:.1} s", args.games, setup.elapsed().as_secs_f64());

    let (phase_tx, phase_rx) = watch::channel(0usize);
    let mut clients = Vec::new();
    let mut shares: Vec<Vec<OpenGame>> = (0..args.clients).map(|_| Vec::new()).collect();
    for (i, g) in opened.into_iter().enumerate() {
        shares[i % args.clients].push(g);
    }
    let windows = args.runs;
    for (i, games) in shares.into_iter().enumerate() {
        let client = Client::new(
            shared.clone(),
            args.rate / args.clients as f64,
            windows,
            Rng::new(args.seed.wrapping_mul(1000).wrapping_add(i as u64)),
            stagger,
            game_length(&args.rules) as i64,
        );
        clients.push(tokio::spawn(client.run(games, phase_rx.clone())));
    }

    // Phase 0 is the warm-up, 1..=runs the measured windows, then stop.
    tokio::time::sleep(Duration::from_secs_f64(args.warmup)).await;
    let mut window_times = Vec::new();
    let mut rss_during = Vec::new();
    let mut cpu_used = Vec::new();
    let cpu = |pid: Option<u32>| pid.and_then(cpu_seconds);
    for w in 1..=windows {
        let start = Instant::now();
        let cpu_before = (cpu(target.pid()), cpu(Some(std::process::id())));
        phase_tx.send_replace(w);
        tokio::time::sleep(Duration::from_secs_f64(args.seconds)).await;
        window_times.push(start.elapsed().as_secs_f64());
        let cpu_after = (cpu(target.pid()), cpu(Some(std::process::id())));
        let used = |a: Option<f64>, b: Option<f64>| Some(b? - a?);
        cpu_used.push((used(cpu_before.0, cpu_after.0), used(cpu_before.1, cpu_after.1)));
        rss_during.push(target.pid().and_then(rss_bytes));
    }
    phase_tx.send_replace(windows + 1);
    let mut totals = vec![WindowStats::default(); windows + 1];
    let mut unanswered = 0;
    for c in clients {
        let report = c.await.context("a client task failed")??;
        for (t, w) in totals.iter_mut().zip(report.windows) {
            t.merge(w);
        }
        unanswered += report.unanswered;
    }

    let mut figures = Vec::new();
    for w in 1..=windows {
        let stats = &mut totals[w];
        stats.latencies_us.sort_unstable();
        let memory = match (rss_before, rss_during[w - 1]) {
            (Some(a), Some(b)) => Some((b as f64 - a as f64) / args.games as f64),
            _ => None,
        };
        let answered = stats.latencies_us.len().max(1) as f64;
        let per_move = |seconds: Option<f64>| seconds.map(|s| s * 1e6 / answered);
        let f = Figures {
            server_cpu_per_move: per_move(cpu_used[w - 1].0),
            client_cpu_per_move: per_move(cpu_used[w - 1].1),
            moves_per_s: stats.latencies_us.len() as f64 / window_times[w - 1],
            p50: percentile(&stats.latencies_us, 0.50),
            p90: percentile(&stats.latencies_us, 0.90),
            p99: percentile(&stats.latencies_us, 0.99),
            max: stats.latencies_us.last().map(|&u| u as f64 / 1000.0).unwrap_or(f64::NAN),
            errors: stats.errors as f64,
            memory_per_game: memory,
            games_finished: stats.games_finished as f64,
            rated_finished: (rated_games > 0).then_some(stats.rated_finished as f64),
        };
        println!("  window {w}: {}", f.line());
        figures.push(f);
    }
    if windows > 1 {
        println!("  median of {windows} windows: {}", Figures::median(&figures).line());
    }
    if let Some(e) = totals.iter().flat_map(|t| t.first_error.iter()).next() {
        println!("  first error: {e}");
    }
    println!(
        "  total: {} games created, {} moves unanswered at the end (sent less than a moment before the stop: \
         not counted)",
        shared.created.load(Ordering::Relaxed),
        unanswered
    );
    if rated_games > 0 {
        let ended: u64 = totals.iter().map(|t| t.rated_finished).sum();
        let counted = rated_games_counted(&shared, &args.game, &names).await?;
        println!(
            "  rated: {ended} rated games ended, {counted} of them counted in both players' ratings \
             (a game resigned before each side moved counts nothing)"
        );
    }
    drop(target);
    Ok(())
}

/// Figures of one measured window.
#[derive(Clone, Debug)]
struct Figures {
    moves_per_s: f64,
    p50: f64,
    p90: f64,
    p99: f64,
    max: f64,
    errors: f64,
    memory_per_game: Option<f64>,
    games_finished: f64,
    /// Rated games among them (`None`: no rated games played).
    rated_finished: Option<f64>,
    /// CPU time per answered move, in microseconds.
    server_cpu_per_move: Option<f64>,
    client_cpu_per_move: Option<f64>,
}

impl Figures {
    fn line(&self) -> String {
        let memory = match self.memory_per_game {
            Some(b) => format!("{:.1} KiB", b / 1024.0),
            None => "not measured (the server is not a child of this process)".to_string(),
        };
        let micros = |v: Option<f64>| v.map_or("?".to_string(), |v| format!("{v:.0} µs"));
        let rated = self.rated_finished.map_or(String::new(), |n| format!(" ({n} rated)"));
        format!(
            "{:.0} moves/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.1} ms; errors {}; \
             server memory per live game {memory}; games finished {}{rated}; CPU per move: server {}, \
             load generator {}",
            self.moves_per_s,
            self.p50,
            self.p90,
            self.p99,
            self.max,
            self.errors,
            self.games_finished,
            micros(self.server_cpu_per_move),
            micros(self.client_cpu_per_move)
        )
    }

    fn median(all: &[Figures]) -> Figures {
        fn med(mut v: Vec<f64>) -> f64 {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        }
        let m = |f: fn(&Figures) -> f64| med(all.iter().map(f).collect());
        let memory: Option<Vec<f64>> = all.iter().map(|f| f.memory_per_game).collect();
        Figures {
            moves_per_s: m(|f| f.moves_per_s),
            p50: m(|f| f.p50),
            p90: m(|f| f.p90),
            p99: m(|f| f.p99),
            max: m(|f| f.max),
            errors: m(|f| f.errors),
            memory_per_game: memory.map(med),
            games_finished: m(|f| f.games_finished),
            rated_finished: all.iter().map(|f| f.rated_finished).collect::<Option<Vec<_>>>().map(med),
            server_cpu_per_move: all.iter().map(|f| f.server_cpu_per_move).collect::<Option<Vec<_>>>().map(med),
            client_cpu_per_move: all.iter().map(|f| f.client_cpu_per_move).collect::<Option<Vec<_>>>().map(med),
        }
    }
}

/// The `q` quantile of sorted microseconds, in milliseconds.
fn percentile(sorted_us: &[u32], q: f64) -> f64 {
    if sorted_us.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted_us.len() as f64 * q).ceil() as usize).clamp(1, sorted_us.len()) - 1;
    sorted_us[i] as f64 / 1000.0
}

#[derive(Clone, Debug, Default)]
struct WindowStats {
    /// One per move answered in the window.
    latencies_us: Vec<u32>,
    errors: u64,
    games_finished: u64,
    rated_finished: u64,
    first_error: Option<String>,
}

impl WindowStats {
    fn merge(&mut self, other: WindowStats) {
        self.latencies_us.extend(other.latencies_us);
        self.errors += other.errors;
        self.games_finished += other.games_finished;
        self.rated_finished += other.rated_finished;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

struct Shared {
    addr: SocketAddr,
    http: reqwest::Client,
    /// `http://ADDR/api/games`.
    games_url: String,
    /// The body that creates a game.
    create: String,
    /// The body that creates a rated game.
    create_rated: String,
    created: AtomicU64,
}

impl Shared {
    fn new(addr: SocketAddr, create: String, create_rated: String) -> Result<Shared> {
        let http = reqwest::Client::builder()
            // Straight to the server, as the WebSockets go: a proxy from the
            // environment would be measured too.
            .no_proxy()
            // A new connection for each game created, closed after it: the
            // server's accepting it is part of a creation's load in the
            // figures of docs/server-load.md.
            .pool_max_idle_per_host(0)
            .build()
            .context("cannot set up the HTTP client")?;
        Ok(Shared {
            games_url: format!("http://{addr}/api/games"),
            addr,
            http,
            create,
            create_rated,
            created: AtomicU64::new(0),
        })
    }
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The session cookies (`monte_session=...`) of a rated game's two
/// players: White creates the game, Black joins it.
type Players = Arc<[String; 2]>;

/// A game created and both its seats connected.
struct OpenGame {
    id: String,
    sockets: [Socket; 2],
    /// The players of a rated game, who play its replacement too.
    players: Option<Players>,
}

/// The clock of the rated games: long enough that no game of the load
/// test runs out of time.
const RATED_CLOCK_MINUTES: u32 = 60;

/// The password of the load test's accounts.
const PASSWORD: &str = "loadtest-password";

/// Which games are rated: `share` of `games`, spread evenly.
fn rated_slots(games: usize, share: f64) -> Vec<bool> {
    (0..games).map(|i| (i as f64 * share).floor() != ((i + 1) as f64 * share).floor()).collect()
}

/// A POST of JSON `body` (with a session `cookie`): the status and the reply.
async fn post(shared: &Shared, url: &str, body: String, cookie: Option<&str>) -> Result<reqwest::Response> {
    let mut request =
        shared.http.post(url).header(CONTENT_TYPE, "application/json").header(CONNECTION, "close").body(body);
    if let Some(cookie) = cookie {
        request = request.header(COOKIE, cookie);
    }
    Ok(request.send().await?)
}

/// Creates the account `name` (POST /api/accounts): its session cookie.
async fn sign_up(shared: &Shared, name: &str) -> Result<String> {
    let url = format!("http://{}/api/accounts", shared.addr);
    let body = serde_json::json!({ "name": name, "password": PASSWORD }).to_string();
    let response = post(shared, &url, body, None).await.with_context(|| format!("creating account {name}"))?;
    let status = response.status().as_u16();
    let cookie = response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next())
        .find(|c| c.starts_with("monte_session="))
        .map(str::to_string);
    let reply = response.text().await.unwrap_or_default();
    ensure!(status == 201, "creating account {name}: HTTP {status}: {reply}");
    cookie.ok_or_else(|| anyhow!("creating account {name}: no session cookie"))
}

/// How many rated games the ratings of `names` count (each game counts
/// for both of its players).
async fn rated_games_counted(shared: &Shared, game: &str, names: &[String]) -> Result<i64> {
    let mut profiles = futures_util::stream::iter(names.iter().map(|name| async move {
        let url = format!("http://{}/api/players/{name}", shared.addr);
        let reply = shared.http.get(&url).header(CONNECTION, "close").send().await?;
        let status = reply.status().as_u16();
        let profile: serde_json::Value = serde_json::from_str(&reply.text().await?)?;
        ensure!(status == 200, "GET {url}: HTTP {status}: {profile}");
        profile["ratings"][game]["games"].as_i64().ok_or_else(|| anyhow!("GET {url}: no {game} rating: {profile}"))
    }))
    .buffered(16);
    let mut games = 0;
    while let Some(counted) = profiles.next().await {
        games += counted?;
    }
    Ok(games / 2)
}

/// Creates a game and opens a WebSocket per seat: casual, both seats taken
/// by its creator (POST /api/games), or rated between `players` (White
/// creates it, Black joins through its invite).
async fn open_game(shared: Arc<Shared>, players: Option<Players>) -> Result<OpenGame> {
    let creator = players.as_ref().map(|p| p[0].as_str());
    let body = if players.is_some() { &shared.create_rated } else { &shared.create };
    let response = post(&shared, &shared.games_url, body.clone(), creator).await.context("creating a game")?;
    let status = response.status().as_u16();
    let reply = response.text().await.context("creating a game: reading the reply")?;
    ensure!(status == 201, "creating a game: HTTP {status}: {reply}");
    let created: Created = serde_json::from_str(&reply).with_context(|| format!("creating a game: {reply}"))?;
    let black = match (&players, &created.invite, created.tokens.black) {
        (None, _, Some(token)) => token,
        (Some(players), Some(invite), None) => {
            let url = format!("http://{}/api/invites/{}", shared.addr, invite.code);
            let response = post(&shared, &url, "{}".into(), Some(&players[1])).await.context("joining a game")?;
            let status = response.status().as_u16();
            let reply = response.text().await.context("joining a game: reading the reply")?;
            ensure!(status == 200, "joining a rated game: HTTP {status}: {reply}");
            serde_json::from_str::<Joined>(&reply).with_context(|| format!("joining a game: {reply}"))?.token
        }
        _ => return Err(anyhow!("creating a game: unexpected seats in {reply}")),
    };
    let white = created.tokens.white.ok_or_else(|| anyhow!("creating a game: no white seat in {reply}"))?;
    let mut sockets = Vec::with_capacity(2);
    for token in [&white, &black] {
        let url = format!("ws://{}/api/games/{}/ws?token={token}", shared.addr, created.game.id);
        // tungstenite zeroes the whole read buffer before every read, and
        // every attempt that finds nothing (3% of the load generator's time
        // with 16 KiB): 4 KiB, as on the server, holds an update; a bigger
        // state takes a few reads.
        let config = WebSocketConfig::default().read_buffer_size(4 * 1024);
        let (socket, _) = tokio_tungstenite::connect_async_with_config(url.as_str(), Some(config), true)
            .await
            .with_context(|| format!("cannot open the WebSocket of game {}", created.game.id))?;
        sockets.push(socket);
    }
    let sockets: [Socket; 2] = sockets.try_into().map_err(|_| anyhow!("two sockets"))?;
    shared.created.fetch_add(1, Ordering::Relaxed);
    Ok(OpenGame { id: created.game.id, sockets, players })
}

#[derive(Deserialize)]
struct Created {
    game: CreatedGame,
    tokens: Tokens,
    invite: Option<InviteCode>,
}

#[derive(Deserialize)]
struct InviteCode {
    code: String,
}

#[derive(Deserialize)]
struct Joined {
    token: String,
}

#[derive(Deserialize)]
struct CreatedGame {
    id: String,
}

#[derive(Deserialize)]
struct Tokens {
    white: Option<String>,
    black: Option<String>,
}

/// What a socket receives: `hello`, `state`, `update` or `error` (a
/// player needs only the game now, which `state` and `update` both carry).
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    game: Option<StateLite<'a>>,
    error: Option<String>,
}

/// The parts of a pushed state the players need, borrowed from the message
/// where they can be (the load generator shares the server's machine: its
/// CPU time is taken from the server's).
#[derive(Deserialize)]
struct StateLite<'a> {
    #[serde(borrow)]
    status: Cow<'a, str>,
    ply: i64,
    #[serde(borrow)]
    side_to_move: Cow<'a, str>,
    #[serde(borrow)]
    legal_moves: Legal<'a>,
}

#[derive(Deserialize)]
struct Legal<'a> {
    #[serde(borrow)]
    from: HashMap<Cow<'a, str>, Vec<LegalMove<'a>>>,
    #[serde(borrow)]
    drops: Vec<LegalMove<'a>>,
    #[serde(borrow)]
    pass: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct LegalMove<'a> {
    #[serde(borrow)]
    notation: Cow<'a, str>,
}

impl Legal<'_> {
    fn random(self, rng: &mut Rng) -> Option<String> {
        let mut all: Vec<Cow<'_, str>> =
            self.from.into_values().flatten().chain(self.drops).map(|m| m.notation).chain(self.pass).collect();
        if all.is_empty() {
            return None;
        }
        // HashMap order is random per process: sort for a reproducible choice.
        all.sort_unstable();
        let i = rng.random_range(0..all.len());
        Some(all.swap_remove(i).into_owned())
    }
}

/// A message of one of a client's sockets: (slot, generation, side, message).
type Tagged = (usize, u64, usize, Option<Message>);

/// One seat's stream, tagged; ends with `None` so that the client hears of
/// closed sockets.
fn tagged(
    stream: SplitStream<Socket>,
    slot: usize,
    generation: u64,
    side: usize,
) -> impl futures_util::Stream<Item = Tagged> {
    stream
        .map(move |m| (slot, generation, side, m.ok()))
        .chain(futures_util::stream::once(async move { (slot, generation, side, None) }))
}

struct Slot {
    id: String,
    generation: u64,
    sinks: [SplitSink<Socket, Message>; 2],
    /// The move sent and not yet seen by the opponent: (its ply, when sent, the mover).
    in_flight: Option<(i64, Instant, usize)>,
    /// The highest ply a move was queued for.
    queued_ply: i64,
    /// Being replaced by a new game.
    retiring: bool,
    /// The ply at which this game resigns (the first generation, and
    /// rated games).
    resign_at: Option<i64>,
    /// The players of a rated game.
    players: Option<Players>,
}

/// A command ready to send: (slot, generation, side, ply, the move's
/// notation or `None` to resign).
type Ready = (usize, u64, usize, i64, Option<String>);

struct Client {
    shared: Arc<Shared>,
    rate: f64,
    rng: Rng,
    slots: Vec<Slot>,
    streams: SelectAll<std::pin::Pin<Box<dyn futures_util::Stream<Item = Tagged> + Send>>>,
    ready: VecDeque<Ready>,
    stats: Vec<WindowStats>,
    phase: usize,
    next_generation: u64,
    /// See `--stagger`.
    stagger: u32,
    /// The ply at which a rated game resigns (rated games have no move
    /// limit): where a casual game reaches its limit.
    rated_length: i64,
}

struct ClientReport {
    windows: Vec<WindowStats>,
    unanswered: u64,
}

impl Client {
    fn new(shared: Arc<Shared>, rate: f64, windows: usize, rng: Rng, stagger: u32, rated_length: i64) -> Client {
        Client {
            stagger,
            rated_length,
            shared,
            rate,
            rng,
            slots: Vec::new(),
            streams: SelectAll::new(),
            ready: VecDeque::new(),
            stats: vec![WindowStats::default(); windows + 1],
            phase: 0,
            next_generation: 0,
        }
    }

    fn add(&mut self, slot: Option<usize>, game: OpenGame) {
        let generation = self.next_generation;
        self.next_generation += 1;
        let [white, black] = game.sockets;
        let (white_sink, white_stream) = white.split();
        let (black_sink, black_stream) = black.split();
        let index = slot.unwrap_or(self.slots.len());
        // Only the games created together at the start resign early: their
        // replacements start one at a time and are played to their end (a
        // rated game, which has no move limit, to where a casual game's is).
        let staggered = (slot.is_none() && self.stagger > 0).then(|| self.rng.random_range(0..self.stagger) as i64);
        let resign_at = staggered.or(game.players.is_some().then_some(self.rated_length));
        let fresh = Slot {
            resign_at,
            players: game.players,
            id: game.id,
            generation,
            sinks: [white_sink, black_sink],
            in_flight: None,
            queued_ply: -1,
            retiring: false,
        };
        match slot {
            Some(i) => self.slots[i] = fresh,
            None => self.slots.push(fresh),
        }
        self.streams.push(Box::pin(tagged(white_stream, index, generation, 0)));
        self.streams.push(Box::pin(tagged(black_stream, index, generation, 1)));
    }

    /// The figures of the current phase.
    fn current(&mut self) -> &mut WindowStats {
        let last = self.stats.len() - 1;
        &mut self.stats[self.phase.min(last)]
    }

    fn error(&mut self, what: String) {
        let s = self.current();
        s.errors += 1;
        if s.first_error.is_none() {
            s.first_error = Some(what);
        }
    }

    async fn run(mut self, games: Vec<OpenGame>, mut phase: watch::Receiver<usize>) -> Result<ClientReport> {
        for g in games {
            self.add(None, g);
        }
        let windows = self.stats.len() - 1;
        let (replace_tx, mut replace_rx) = mpsc::unbounded_channel::<(usize, Result<OpenGame>)>();
        // Pacing: a token bucket refilled at this client's share of the
        // rate, holding a few milliseconds' worth (at least two moves, so
        // that what a timer's late wake-up brought is not thrown away).
        let burst = (self.rate * 0.005).max(2.0);
        let mut credit = 0.0f64;
        let mut refilled = Instant::now();
        let tick = Duration::from_secs_f64((1.0 / self.rate).max(0.0005));
        loop {
            let now = Instant::now();
            credit = (credit + now.duration_since(refilled).as_secs_f64() * self.rate).min(burst);
            refilled = now;
            while credit >= 1.0 {
                let Some(ready) = self.ready.pop_front() else { break };
                // A resignation is sent but not paced: the target is moves.
                let is_move = ready.4.is_some();
                if self.send(ready).await && is_move {
                    credit -= 1.0;
                }
            }
            let wait = !self.ready.is_empty();
            tokio::select! {
                changed = phase.changed() => {
                    if changed.is_err() { break; }
                    self.phase = *phase.borrow();
                    if self.phase > windows { break; }
                }
                Some(tagged) = self.streams.next() => self.receive(tagged, &replace_tx).await,
                Some((slot, opened)) = replace_rx.recv() => match opened {
                    Ok(game) => self.add(Some(slot), game),
                    Err(e) => self.error(format!("replacing an ended game: {e:#}")),
                },
                _ = tokio::time::sleep(tick), if wait => {}
            }
        }
        let unanswered = self.slots.iter().filter(|s| s.in_flight.is_some() && !s.retiring).count() as u64;
        for slot in &mut self.slots {
            for sink in &mut slot.sinks {
                let _ = sink.send(Message::Close(None)).await;
            }
        }
        Ok(ClientReport { windows: self.stats, unanswered })
    }

    /// Sends a queued command if its game is still where it was; whether it did.
    async fn send(&mut self, (slot, generation, side, ply, notation): Ready) -> bool {
        let s = &mut self.slots[slot];
        if s.generation != generation || s.retiring || s.in_flight.is_some() {
            return false;
        }
        let text = match notation {
            Some(notation) => {
                s.in_flight = Some((ply, Instant::now(), side));
                format!(r#"{{"type":"move","move":"{notation}","ply":{ply}}}"#)
            }
            // Answered by the final state, which retires the game.
            None => r#"{"type":"resign"}"#.to_string(),
        };
        if let Err(e) = s.sinks[side].send(Message::Text(text.into())).await {
            let what = format!("game {}: sending a move: {e}", s.id);
            s.in_flight = None;
            self.error(what);
            return false;
        }
        true
    }

    async fn receive(
        &mut self,
        (slot, generation, side, message): Tagged,
        replace: &mpsc::UnboundedSender<(usize, Result<OpenGame>)>,
    ) {
        let received = Instant::now();
        if self.slots[slot].generation != generation || self.slots[slot].retiring {
            return;
        }
        let text = match message {
            Some(Message::Text(t)) => t,
            Some(_) => return,
            None => {
                let id = self.slots[slot].id.clone();
                self.error(format!("game {id}: the server closed a socket"));
                self.retire(slot, replace).await;
                return;
            }
        };
        // The mover's own copy of the state it caused needs no reading.
        let is_state = |t: &str| t.starts_with(r#"{"type":"update""#) || t.starts_with(r#"{"type":"state""#);
        if let Some((_, _, mover)) = self.slots[slot].in_flight
            && mover == side
            && is_state(text.as_str())
        {
            return;
        }
        let incoming: Incoming = match serde_json::from_str(text.as_str()) {
            Ok(m) => m,
            Err(e) => {
                self.error(format!("unreadable message: {e}"));
                return;
            }
        };
        match incoming.kind.as_ref() {
            "error" => {
                let id = self.slots[slot].id.clone();
                self.error(format!("game {id}: {}", incoming.error.unwrap_or_default()));
                // The game's state is in doubt: replace it.
                self.retire(slot, replace).await;
            }
            "state" | "update" => {
                let Some(state) = incoming.game else { return };
                let me = if side == 0 { "white" } else { "black" };
                if state.status == "over" {
                    let rated = self.slots[slot].players.is_some();
                    let stats = self.current();
                    stats.games_finished += 1;
                    stats.rated_finished += u64::from(rated);
                    self.retire(slot, replace).await;
                    return;
                }
                if state.status != "active" || state.side_to_move != me {
                    return;
                }
                let phase = self.phase;
                let s = &mut self.slots[slot];
                if let Some((ply, sent, mover)) = s.in_flight
                    && mover != side
                    && state.ply == ply + 1
                {
                    s.in_flight = None;
                    // Warm-up (phase 0) is not counted; the stop is not reached here.
                    if phase >= 1 {
                        let us = received.duration_since(sent).as_micros().min(u32::MAX as u128) as u32;
                        self.stats[phase].latencies_us.push(us);
                    }
                }
                let s = &mut self.slots[slot];
                if state.ply > s.queued_ply && s.in_flight.is_none() {
                    s.queued_ply = state.ply;
                    if s.resign_at.is_some_and(|at| state.ply >= at) {
                        self.ready.push_back((slot, generation, side, state.ply, None));
                    } else if let Some(m) = state.legal_moves.random(&mut self.rng) {
                        self.ready.push_back((slot, generation, side, state.ply, Some(m)));
                    }
                }
            }
            _ => {}
        }
    }

    /// Closes a game's sockets and opens a new game in its place.
    async fn retire(&mut self, slot: usize, replace: &mpsc::UnboundedSender<(usize, Result<OpenGame>)>) {
        let s = &mut self.slots[slot];
        if s.retiring {
            return;
        }
        s.retiring = true;
        s.in_flight = None;
        for sink in &mut s.sinks {
            let _ = sink.send(Message::Close(None)).await;
        }
        let (shared, replace, players) = (self.shared.clone(), replace.clone(), s.players.clone());
        tokio::spawn(async move {
            let _ = replace.send((slot, open_game(shared, players).await));
        });
    }
}
