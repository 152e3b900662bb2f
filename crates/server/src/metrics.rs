//! The instance's metrics in the Prometheus text format (`GET /metrics`,
//! docs/api.md#metrics), and the log line of every request.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// Who made a move.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum Mover {
    Player,
    Ai,
}

impl EncodeLabelValue for Mover {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> std::fmt::Result {
        use std::fmt::Write as _;
        encoder.write_str(match self {
            Mover::Player => "player",
            Mover::Ai => "ai",
        })
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct MoveLabels {
    by: Mover,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: String,
    /// The route's template (`/api/games/{id}`), never the path: paths hold
    /// game ids and invite codes.
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatusLabels {
    method: String,
    route: String,
    status: u16,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// Latencies from half a millisecond to about 30 seconds.
fn latency() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

/// The metrics one instance keeps.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    moves: Family<MoveLabels, Counter>,
    requests: Family<StatusLabels, Counter>,
    request_seconds: HistogramFamily<RouteLabels>,
    commit_seconds: Histogram,
    store_errors: Counter,
    ai_waiting: Gauge,
    ai_wait_seconds: Histogram,
    games_in_memory: Gauge,
    websockets: Gauge,
    connections: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("monte");
        let moves = Family::<MoveLabels, Counter>::default();
        registry.register("moves", "Moves committed, by a player or the AI", moves.clone());
        let requests = Family::<StatusLabels, Counter>::default();
        registry.register("http_requests", "HTTP requests answered, by route and status", requests.clone());
        let request_seconds = HistogramFamily::<RouteLabels>::new_with_constructor(latency as fn() -> Histogram);
        registry.register("http_request_seconds", "Time to answer an HTTP request", request_seconds.clone());
        let commit_seconds = latency();
        registry.register("store_commit_seconds", "Time to commit a change to the store", commit_seconds.clone());
        let store_errors = Counter::default();
        registry.register("store_errors", "Commits that failed with a storage error", store_errors.clone());
        let ai_waiting = Gauge::default();
        registry.register("ai_queue_depth", "AI moves waiting for a search thread", ai_waiting.clone());
        let ai_wait_seconds = latency();
        registry.register("ai_wait_seconds", "Time an AI move waits for a search thread", ai_wait_seconds.clone());
        let games_in_memory = Gauge::default();
        registry.register("games_in_memory", "Games held in this instance's memory", games_in_memory.clone());
        let websockets = Gauge::default();
        registry.register("websockets", "WebSockets watching games", websockets.clone());
        let connections = Gauge::default();
        registry.register("connections", "Open connections", connections.clone());
        Metrics {
            registry,
            moves,
            requests,
            request_seconds,
            commit_seconds,
            store_errors,
            ai_waiting,
            ai_wait_seconds,
            games_in_memory,
            websockets,
            connections,
        }
    }
}

impl Metrics {
    pub fn moved(&self, by: Mover) {
        self.moves.get_or_create(&MoveLabels { by }).inc();
    }

    /// A commit that took `seconds`, and whether it failed with a
    /// storage error.
    pub fn committed(&self, seconds: f64, failed: bool) {
        self.commit_seconds.observe(seconds);
        if failed {
            self.store_errors.inc();
        }
    }

    /// An AI move starts waiting for a thread.
    pub fn ai_queued(&self) {
        self.ai_waiting.inc();
    }

    /// An AI move got its thread (or gave up) after `seconds`.
    pub fn ai_started(&self, seconds: f64) {
        self.ai_waiting.dec();
        self.ai_wait_seconds.observe(seconds);
    }

    /// The text exposition, with the gauges read now.
    pub fn render(&self, games_in_memory: usize, websockets: usize, connections: usize) -> String {
        self.games_in_memory.set(games_in_memory as i64);
        self.websockets.set(websockets as i64);
        self.connections.set(connections as i64);
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

/// Counts and times every request, and logs it: a request id, the route,
/// the game id where the route names one, the status and the latency.
/// Never the query or an invite code (the WebSocket's token travels in
/// the query; codes are secrets).
pub async fn observe(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    let started = Instant::now();
    let request_id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let method = req.method().as_str().to_string();
    let route = req.extensions().get::<MatchedPath>().map_or("unmatched", |m| m.as_str()).to_string();
    let game = match route.strip_prefix("/api/games/{id}") {
        Some(_) => req.uri().path().split('/').nth(3).map(str::to_string),
        None => None,
    };
    let res = next.run(req).await;
    let seconds = started.elapsed().as_secs_f64();
    let status = res.status().as_u16();
    metrics
        .request_seconds
        .get_or_create(&RouteLabels { method: method.clone(), route: route.clone() })
        .observe(seconds);
    metrics.requests.get_or_create(&StatusLabels { method: method.clone(), route: route.clone(), status }).inc();
    let latency_ms = seconds * 1000.0;
    let game = game.as_deref().unwrap_or("");
    if status >= 500 {
        tracing::error!(target: "monte::http", request_id, %method, %route, game, status, latency_ms, "request failed");
    } else {
        tracing::info!(target: "monte::http", request_id, %method, %route, game, status, latency_ms, "request");
    }
    res
}
