//! AI seats: moves searched on the blocking thread pool (never on the async
//! workers), at most `max_threads` search threads at once, each move
//! claimed through the database so that one instance computes it, and
//! stopped after `max_move` whatever the level asks.
//!
//! A person waiting for the AI comes first: games between two AIs, which
//! nobody waits for, search on one thread, `watched_searches` of them at
//! once, and get in line for a thread of the pool only then: a reply to a
//! person never queues behind more than that many of their searches.
//! Threads are handed out in the order asked for.
//!
//! The analysis board's engine ([`crate::analysis`]) searches on the same
//! threads ([`Pool`]), one each, `analysis_searches` at once, and yields
//! its thread as soon as a person's AI move waits for one.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use monte_engine::ai::choose_any;
use monte_engine::{Clock, SearchOptions, Searcher};
use monte_rules::Rng;
use monte_store::{GameStatus, Player};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::App;
use crate::error::{ApiError, ApiResult};
use crate::games::{Created, Games};
use crate::model::now_ms;

#[derive(Clone, Copy, Debug)]
pub struct AiConfig {
    /// Search threads in use at once, all AI games together.
    pub max_threads: usize,
    /// Longest search for one move.
    pub max_move: Duration,
    /// A claim older than this is taken over (its instance is presumed dead).
    pub lease_ms: i64,
    /// Games between two AIs searching at once, all together (on one
    /// thread each).
    pub watched_searches: usize,
    /// Games between two AIs still playing that one client address may
    /// have started (0: no cap).
    pub watched_per_address: usize,
    /// Analyses (the analysis board's engine) searching at once, all
    /// clients together (on one thread each).
    pub analysis_searches: usize,
    /// Longest search of one analysis request.
    pub max_analysis: Duration,
}

impl Default for AiConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        AiConfig {
            max_threads: cores.max(1),
            max_move: Duration::from_secs(10),
            lease_ms: 15_000,
            watched_searches: 1,
            watched_per_address: 2,
            analysis_searches: 1,
            max_analysis: crate::analysis::MAX_ANALYSIS,
        }
    }
}

/// The search threads of this instance, shared by the AI seats and the
/// analysis board, and the turns that keep searches nobody waits for from
/// holding them all.
#[derive(Debug)]
pub struct Pool {
    threads: Arc<Semaphore>,
    /// Turns of games between two AIs.
    watched: Arc<Semaphore>,
    /// Turns of analyses.
    analyses: Arc<Semaphore>,
    /// AI moves a person waits for that wait for threads: analyses give
    /// theirs up while there are any.
    people_waiting: Arc<AtomicUsize>,
    /// Analyses waiting for a turn: the one searching gives its thread up
    /// after a slice ([`ANALYSIS_SLICE`]) while there are any.
    analyses_waiting: Arc<AtomicUsize>,
}

/// How long an analysis keeps its thread while other analyses wait for
/// their turn: clients take turns, and a review's positions come while
/// another client's analysis goes deeper.
pub const ANALYSIS_SLICE: Duration = Duration::from_millis(250);

impl Pool {
    pub fn new(config: &AiConfig) -> Pool {
        let turns = |n: usize| Arc::new(Semaphore::new(n.clamp(1, config.max_threads.max(1))));
        Pool {
            threads: Arc::new(Semaphore::new(config.max_threads)),
            watched: turns(config.watched_searches),
            analyses: turns(config.analysis_searches),
            people_waiting: Arc::default(),
            analyses_waiting: Arc::default(),
        }
    }

    /// A thread for an analysis, once one of the analyses' turns and then a
    /// thread come free (`None` if `cancelled` meanwhile). Its `stop` is
    /// set when a person's AI move waits for a thread, or another analysis
    /// for its turn after [`ANALYSIS_SLICE`] (the analysis then yields,
    /// [`Slice::yielded`], and gets in line again), when `cancelled` is
    /// set, and when the slice is dropped.
    pub async fn analysis_slice(&self, cancelled: &Arc<AtomicBool>) -> Option<Slice> {
        let waiting = Waiting::new(&self.analyses_waiting);
        let turn = self.analyses.clone().acquire_owned().await.ok()?;
        drop(waiting);
        let thread = self.threads.clone().acquire_owned().await.ok()?;
        if cancelled.load(Ordering::Relaxed) {
            return None;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let yielded = Arc::new(AtomicBool::new(false));
        let (people, others, cancelled) =
            (self.people_waiting.clone(), self.analyses_waiting.clone(), cancelled.clone());
        let (stop_, yielded_) = (stop.clone(), yielded.clone());
        let watcher = tokio::spawn(async move {
            let started = tokio::time::Instant::now();
            let mut tick = tokio::time::interval(Duration::from_millis(20));
            loop {
                tick.tick().await;
                let turn_over = started.elapsed() >= ANALYSIS_SLICE && others.load(Ordering::Relaxed) > 0;
                if people.load(Ordering::Relaxed) > 0 || turn_over {
                    yielded_.store(true, Ordering::Relaxed);
                }
                if cancelled.load(Ordering::Relaxed) || yielded_.load(Ordering::Relaxed) {
                    stop_.store(true, Ordering::Relaxed);
                    return;
                }
            }
        });
        Some(Slice { _permits: (turn, thread), stop, yielded, watcher })
    }
}

/// An analysis's hold on a search thread ([`Pool::analysis_slice`]).
#[derive(Debug)]
pub struct Slice {
    _permits: (OwnedSemaphorePermit, OwnedSemaphorePermit),
    /// The search's stop flag.
    pub stop: Arc<AtomicBool>,
    yielded: Arc<AtomicBool>,
    watcher: tokio::task::JoinHandle<()>,
}

impl Slice {
    /// Whether the search was stopped to give the thread to a person's AI move.
    pub fn yielded(&self) -> bool {
        self.yielded.load(Ordering::Relaxed)
    }
}

impl Drop for Slice {
    fn drop(&mut self) {
        // A search still running (its task was cancelled) stops with it.
        self.stop.store(true, Ordering::Relaxed);
        self.watcher.abort();
    }
}

/// Takes game ids from `queue` and plays the AI's move where one is due.
pub async fn run(app: Arc<App>, mut queue: mpsc::UnboundedReceiver<String>, config: AiConfig) {
    let busy: Arc<Mutex<HashSet<String>>> = Arc::default();
    while let Some(id) = queue.recv().await {
        if !busy.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone()) {
            continue; // already being searched here
        }
        let (app, busy) = (app.clone(), busy.clone());
        tokio::spawn(async move {
            let release = || {
                busy.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
            };
            let games = &app.games;
            match think(games, &id, &app.pool, config).await {
                Some((version, notation)) => {
                    release();
                    app.stats.ai_searches.fetch_add(1, Ordering::Relaxed);
                    // A game that moved on meanwhile (take-back, resignation,
                    // another instance) refuses the stale move: nothing to do.
                    if games.perform_ai(&id, version, &notation).await.is_ok() {
                        app.stats.ai_moves.fetch_add(1, Ordering::Relaxed);
                    }
                }
                None => release(),
            }
        });
    }
}

/// Searches the AI's move of game `id` if one is due and this instance
/// wins the claim: (the version searched, the move).
async fn think(games: &Games, id: &str, pool: &Pool, config: AiConfig) -> Option<(i64, String)> {
    let loaded = games.current(id).await.ok()?;
    if !loaded.row.state.ai_to_move {
        return None;
    }
    let side = loaded.game.side_to_move();
    let Player::Ai(level) = loaded.seat(side).player else { return None };
    let level = monte_engine::level(level)?;
    // Nobody waits for a game between two AIs: it gets in line for a
    // thread only once it holds one of their few turns, and searches on
    // one thread.
    let between_ais = loaded.seat(!side).player.is_ai();
    let _watched = match between_ais {
        true => Some(pool.watched.clone().acquire_owned().await.ok()?),
        false => None,
    };
    let mut level = level;
    level.threads = if between_ais { 1 } else { level.threads.clamp(1, config.max_threads) };
    let metrics = &games.metrics;
    metrics.ai_queued();
    let queued = std::time::Instant::now();
    // A person waits: the analyses give their threads up meanwhile.
    let person = (!between_ais).then(|| Waiting::new(&pool.people_waiting));
    let permit = pool.threads.clone().acquire_many_owned(level.threads as u32).await;
    drop(person);
    metrics.ai_started(queued.elapsed().as_secs_f64());
    let _permit = permit.ok()?;
    // The game may have moved on while waiting for a permit.
    let loaded = games.current(id).await.ok()?;
    if !loaded.row.state.ai_to_move || loaded.game.side_to_move() != side {
        return None;
    }
    let version = loaded.row.version;
    if !games.store.claim_ai(id, version, now_ms(), config.lease_ms).await.ok()? {
        return None;
    }
    let clock = loaded.time_left(side, now_ms()).map(|left| Clock {
        time_left: Duration::from_millis(left.max(1) as u64),
        increment: Duration::from_millis(loaded.row.clock_increment_ms.unwrap_or(0).max(0) as u64),
        moves_to_go: None,
    });
    let stop = Arc::new(AtomicBool::new(false));
    let timer = {
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(config.max_move).await;
            stop.store(true, Ordering::Relaxed);
        })
    };
    // Different games (and plies) get different noise, a replay the same.
    let seed = id.bytes().fold(loaded.row.state.ply as u64 + 1, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    let game = loaded.game.clone();
    let searched = tokio::task::spawn_blocking(move || {
        let searcher = Searcher::new(SearchOptions { hash_mb: 16, threads: level.threads, ..Default::default() });
        choose_any(&searcher, &game, &level, clock, &mut Rng::new(seed), &stop, &mut |_| {})
    })
    .await;
    timer.abort();
    Some((version, searched.ok()?.ok()?.mv))
}

/// One AI move a person waits for, counted while it waits for threads.
struct Waiting(Arc<AtomicUsize>);

impl Waiting {
    fn new(count: &Arc<AtomicUsize>) -> Waiting {
        count.fetch_add(1, Ordering::Relaxed);
        Waiting(count.clone())
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The games between two AIs each client address started: a client may
/// have only a few of them playing at once.
#[derive(Debug, Default)]
pub struct Watched {
    by_address: tokio::sync::Mutex<std::collections::HashMap<std::net::IpAddr, Vec<String>>>,
}

impl Watched {
    /// Creates a game between two AIs for `address` with `create` (which
    /// returns its id) unless the address already has `cap` of them
    /// playing (0: no cap): 429 then.
    pub async fn admit<F>(&self, games: &Games, address: std::net::IpAddr, cap: usize, create: F) -> ApiResult<Created>
    where
        F: std::future::Future<Output = ApiResult<Created>>,
    {
        let mut by_address = self.by_address.lock().await;
        let mine = by_address.entry(address).or_default();
        let mut playing = Vec::new();
        for id in mine.drain(..) {
            if games.fresh(&id, |l| l.row.state.status != GameStatus::Over).await.unwrap_or(false) {
                playing.push(id);
            }
        }
        *mine = playing;
        if cap > 0 && mine.len() >= cap {
            return Err(ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "{cap} games between AIs started from your address are still playing: stop one first (resign with its token)"
                ),
            ));
        }
        let created = create.await?;
        mine.push(created.view.now.id.clone());
        // Addresses whose games have all ended are forgotten.
        by_address.retain(|_, ids| !ids.is_empty());
        Ok(created)
    }
}
