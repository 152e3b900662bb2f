//! Monte's game server: an HTTP/JSON API with WebSocket push (axum + tokio)
//! over [`monte_store`], with AI seats and clocks. See docs/api.md.
//!
//! Several instances on one PostgreSQL database act as one service: every
//! change is committed before it is told, announced to the other instances
//! with NOTIFY, and every AI move is claimed through the database.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use monte_store::{Notice, Store, StoreError, SynchronousCommit};
use tokio::sync::mpsc;

pub mod accounts;
pub mod ai;
pub mod analysis;
pub mod api;
pub mod error;
pub mod games;
pub mod hub;
pub mod kinds;
pub mod learn;
pub mod lobby;
pub mod metrics;
pub mod model;
pub mod net;
pub mod policy;
pub mod web;

pub use ai::AiConfig;
pub use error::ApiError;
use games::Games;
use model::now_ms;
pub use net::Limits;

/// A server's settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// `sqlite:PATH`, a file path, or `postgres://...`.
    pub database: String,
    pub listen: SocketAddr,
    /// This instance's name (in claims and notices); random by default.
    pub instance: Option<String>,
    /// HTTP requests per second per client address (0: no limit) ...
    pub rate_limit: f64,
    /// ... with bursts up to this many.
    pub rate_burst: f64,
    /// WebSocket commands per second per connection, in bursts of twice
    /// as many (0: no limit).
    pub ws_rate: f64,
    /// Largest request body, in bytes.
    pub body_limit: usize,
    /// Timeouts and caps of connections.
    pub limits: Limits,
    /// On SIGTERM or SIGINT: how long the requests in flight and the
    /// WebSockets' goodbyes may take before the server stops anyway.
    pub drain_timeout: Duration,
    /// Plies after which a game ends by the rule set's count (reason
    /// `length cap`): no game grows without end.
    pub max_plies: u32,
    pub ai: AiConfig,
    /// Mark the session cookie Secure on every answer (it is anyway when a
    /// TLS proxy says `X-Forwarded-Proto: https`).
    pub secure_cookies: bool,
    /// Whether a commit on PostgreSQL waits for its WAL flush (see
    /// [`SynchronousCommit`]; on by default).
    pub synchronous_commit: SynchronousCommit,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            database: "sqlite:monte.db".into(),
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            instance: None,
            rate_limit: 20.0,
            rate_burst: 100.0,
            ws_rate: 20.0,
            body_limit: 64 * 1024,
            limits: Limits::default(),
            drain_timeout: Duration::from_secs(10),
            max_plies: 2000,
            ai: AiConfig::default(),
            secure_cookies: false,
            synchronous_commit: SynchronousCommit::On,
        }
    }
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: SocketAddr, source: std::io::Error },
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}

/// The running service of one instance.
#[derive(Debug)]
pub struct App {
    pub games: Games,
    pub config: Config,
    pub stats: Stats,
    /// The open connections (counted against `config.limits`).
    pub connections: Arc<net::Connections>,
    /// Set when the server stops: every WebSocket says goodbye (1001).
    pub stopping: tokio::sync::watch::Sender<bool>,
    /// Games between two AIs by the client address that started them.
    pub watched: ai::Watched,
    /// The limits on sign-in attempts.
    pub logins: accounts::Logins,
    /// The seeks of this instance.
    pub lobby: lobby::Lobby,
    /// The search threads, for the AI seats and the analysis board.
    pub pool: ai::Pool,
}

/// Counters of this instance (shown by `/api/health`).
#[derive(Debug, Default)]
pub struct Stats {
    /// AI moves this instance claimed and searched.
    pub ai_searches: std::sync::atomic::AtomicU64,
    /// AI moves this instance committed.
    pub ai_moves: std::sync::atomic::AtomicU64,
}

/// A started instance: the router to serve, and its background tasks
/// (listening to other instances, AI, clocks, heartbeat), which stop when
/// this value is dropped.
#[derive(Debug)]
pub struct Instance {
    pub app: Arc<App>,
    pub router: axum::Router,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Instance {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Connects to the database, brings the schema up to date, credits any
/// downtime to the clocks, and starts the background tasks.
pub async fn start(config: Config) -> Result<Instance, ServerError> {
    let instance = config.instance.clone().unwrap_or_else(|| model::random_id(8));
    let store = Store::connect_with(&config.database, &instance, config.synchronous_commit).await?;
    let credited = store.heartbeat(now_ms(), true, 5_000).await?;
    if credited > 0 {
        eprintln!("monte: the service was down {} s: not charged to the clocks", credited / 1000);
    }
    store.release_claims().await?;
    let listener = store.listen().await?;
    let (ai_tx, ai_rx) = mpsc::unbounded_channel();
    let games = Games::new(store, hub::Hub::default(), ai_tx.clone(), config.max_plies);
    let app = Arc::new(App {
        games,
        config: config.clone(),
        stats: Stats::default(),
        connections: Arc::default(),
        stopping: tokio::sync::watch::Sender::new(false),
        watched: ai::Watched::default(),
        // Off with the per-address request limit: behind a proxy.
        logins: accounts::Logins::new(config.rate_limit > 0.0),
        lobby: lobby::Lobby::default(),
        pool: ai::Pool::new(&config.ai),
    });
    let mut tasks = vec![tokio::spawn(ai::run(app.clone(), ai_rx, config.ai))];
    if let Some(listener) = listener {
        tasks.push(tokio::spawn(follow(app.clone(), listener)));
    }
    tasks.push(tokio::spawn(maintain(app.clone(), ai_tx)));
    let router = api::router(app.clone());
    Ok(Instance { app, router, tasks })
}

/// Applies the other instances' changes here (PostgreSQL).
async fn follow(app: Arc<App>, mut listener: monte_store::Listener) {
    loop {
        match listener.next().await {
            Ok(Notice::Changed { id, version, instance }) => {
                if instance != app.games.store.instance() {
                    app.games.refresh(&id, Some(version)).await;
                }
            }
            Ok(Notice::Resync) => app.games.resync().await,
            Err(e) => {
                eprintln!("monte: lost the change notices ({e}); retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
                app.games.resync().await;
            }
        }
    }
}

/// Once a second: the heartbeat, fallen flags, AI moves nobody is making
/// (after a restart, or when an instance died), and the cache's size.
async fn maintain(app: Arc<App>, ai_queue: mpsc::UnboundedSender<String>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let now = now_ms();
        let store = &app.games.store;
        if let Err(e) = store.heartbeat(now, false, 5_000).await {
            eprintln!("monte: heartbeat failed: {e}");
            continue;
        }
        if let Ok(ids) = store.flagged(now, 100).await {
            for id in ids {
                let _ = app.games.check_flag(&id).await;
            }
        }
        if let Ok(ids) = store.pending_ai(now, app.config.ai.lease_ms, 100).await {
            for id in ids {
                let _ = ai_queue.send(id);
            }
        }
        app.games.trim_cache(10_000);
    }
}

/// Serves until SIGTERM or SIGINT (Ctrl-C): binds `config.listen`, then
/// calls `ready` with the address (port 0 picks a free port). On the
/// signal it stops as [`run`] says, then stops the background tasks and
/// closes the store.
pub async fn serve(config: Config, ready: impl FnOnce(SocketAddr)) -> Result<(), ServerError> {
    let mut instance = start(config.clone()).await?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|source| ServerError::Listen { addr: config.listen, source })?;
    // Listened to from here on: a signal once the address is out is ours.
    let mut signals = Signals::new()?;
    ready(listener.local_addr()?);
    let stop = async move {
        let name = signals.next().await;
        eprintln!("monte: {name}: stopping");
    };
    run(&instance, listener, stop).await;
    // The background tasks go first: the change-notice listener holds a
    // pooled connection, and closing the pool waits for every connection.
    for task in &mut instance.tasks {
        task.abort();
        let _ = task.await;
    }
    instance.app.games.store.close().await;
    eprintln!("monte: stopped");
    Ok(())
}

/// Serves `instance` on `listener` (with the connection timeouts and caps
/// of its config) until `stop` resolves. Then it stops: no new
/// connections; each open one is closed once its request in flight is
/// answered; every WebSocket is sent a close frame, 1001 (going away);
/// and this returns when all are closed, or after the config's
/// `drain_timeout`, whichever comes first.
pub async fn run(instance: &Instance, listener: tokio::net::TcpListener, stop: impl std::future::Future<Output = ()>) {
    let app = &instance.app;
    net::run(listener, instance.router.clone(), app.connections.clone(), app.config.limits.clone(), stop).await;
    app.stopping.send_replace(true);
    let started = std::time::Instant::now();
    let open = app.connections.open();
    let drained = tokio::time::timeout(app.config.drain_timeout, app.connections.drained()).await;
    let took = started.elapsed().as_secs_f64();
    match drained {
        Ok(()) => eprintln!("monte: {open} connections finished and closed in {took:.2} s"),
        Err(_) => eprintln!(
            "monte: {} of {open} connections still open after {took:.2} s (--drain-timeout): closed as they are",
            app.connections.open()
        ),
    }
}

/// The signals that stop the server: SIGTERM (what service managers and
/// container runtimes send) and SIGINT (Ctrl-C).
#[derive(Debug)]
struct Signals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl Signals {
    /// Starts listening (the default action, ending the process at once,
    /// no longer applies).
    fn new() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals { term: signal(SignalKind::terminate())?, int: signal(SignalKind::interrupt())? })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next signal's name.
    async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.term.recv() => "SIGTERM",
                _ = self.int.recv() => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}

/// [`serve`] on a runtime of its own, for the command line.
pub fn serve_blocking(config: Config, ready: impl FnOnce(SocketAddr)) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(serve(config, ready))
}
