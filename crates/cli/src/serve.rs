//! `monte serve`: the game server.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use monte_store::SynchronousCommit;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Database: a SQLite file (`sqlite:PATH` or a path) or `postgres://...`.
    /// Default: $DATABASE_URL, else ./monte.db
    #[arg(long)]
    database: Option<String>,
    /// Address to listen on (port 0: any free port)
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// This instance's name, for AI claims (default: random)
    #[arg(long)]
    instance: Option<String>,
    /// HTTP requests per second per client address (0: no limit)
    #[arg(long, default_value_t = 20.0)]
    rate_limit: f64,
    /// Burst of requests a client may make above the rate
    #[arg(long, default_value_t = 100.0)]
    rate_burst: f64,
    /// WebSocket commands per second per connection (0: no limit)
    #[arg(long, default_value_t = 20.0)]
    ws_rate: f64,
    /// Seconds a connection has to send a request's headers, from when it
    /// opens or its previous answer was sent: also the keep-alive idle time
    #[arg(long, default_value_t = 10.0)]
    header_timeout: f64,
    /// Seconds a request has to send its body, from its headers (408 after)
    #[arg(long, default_value_t = 10.0)]
    body_timeout: f64,
    /// Seconds between the pings sent on a WebSocket
    #[arg(long, default_value_t = 20.0)]
    ws_ping: f64,
    /// Seconds without a word (a pong, a command) from a WebSocket's peer
    /// before it is closed as dead
    #[arg(long, default_value_t = 45.0)]
    ws_timeout: f64,
    /// Open connections in all; more are answered 503 and closed (0: no
    /// cap; default: 10,000, or the open-files limit less 128 if lower)
    #[arg(long)]
    max_connections: Option<usize>,
    /// Open connections from one client address; more are answered 429
    /// and closed (0: no cap; behind a proxy every client has its address)
    #[arg(long, default_value_t = 64)]
    max_connections_per_ip: usize,
    /// On SIGTERM or SIGINT: seconds the requests in flight and the
    /// WebSockets' goodbyes may take before the server stops anyway
    #[arg(long, default_value_t = 10.0)]
    drain_timeout: f64,
    /// Plies after which a game ends by its rule set's count (Salta: the
    /// race distances; Focus: a draw), reason "length cap"
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_plies: u32,
    /// AI search threads in use at once (default: the number of cores)
    #[arg(long)]
    ai_threads: Option<usize>,
    /// Games between two AIs still playing that one client address may
    /// have started; more are answered 429 (0: no cap)
    #[arg(long, default_value_t = 2)]
    max_ai_games_per_ip: usize,
    /// Log lines as text or as JSON objects, one per line, on standard
    /// error; `MONTE_LOG` filters them (default `info`: a line per request)
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Longest AI search for one move, in seconds
    #[arg(long, default_value_t = 10.0)]
    ai_max_seconds: f64,
    /// Mark the session cookie Secure on every answer: for a server
    /// reached only over HTTPS. Behind a TLS proxy that sends
    /// `X-Forwarded-Proto: https` it is marked so anyway
    #[arg(long)]
    secure_cookies: bool,
    /// PostgreSQL only: `off` acknowledges a move before its commit is
    /// flushed to disk (a crash of PostgreSQL or of its machine may then
    /// lose the last acknowledged moves; docs/operations.md)
    #[arg(long, default_value_t = SynchronousCommit::On)]
    synchronous_commit: SynchronousCommit,
}

/// The database of `--database`, else $DATABASE_URL, else ./monte.db.
pub fn database_url(database: &Option<String>) -> String {
    match database {
        Some(d) => d.clone(),
        None => std::env::var("DATABASE_URL").unwrap_or_else(|_| "sqlite:monte.db".into()),
    }
}

impl ServeArgs {
    pub fn config(&self) -> Result<monte_server::Config> {
        let database = database_url(&self.database);
        let limits = monte_server::Limits {
            header_timeout: seconds("--header-timeout", self.header_timeout)?,
            body_timeout: seconds("--body-timeout", self.body_timeout)?,
            ws_ping: seconds("--ws-ping", self.ws_ping)?,
            ws_timeout: seconds("--ws-timeout", self.ws_timeout)?,
            max_connections_per_address: self.max_connections_per_ip,
            ..monte_server::Limits::default()
        };
        let limits = match self.max_connections {
            Some(n) => monte_server::Limits { max_connections: n, ..limits },
            None => limits,
        };
        let mut config = monte_server::Config {
            database,
            listen: self.listen,
            instance: self.instance.clone(),
            rate_limit: self.rate_limit.max(0.0),
            rate_burst: self.rate_burst,
            ws_rate: self.ws_rate.max(0.0),
            limits,
            drain_timeout: seconds("--drain-timeout", self.drain_timeout)?,
            max_plies: self.max_plies,
            secure_cookies: self.secure_cookies,
            synchronous_commit: self.synchronous_commit,
            ..monte_server::Config::default()
        };
        if let Some(n) = self.ai_threads {
            anyhow::ensure!(n > 0, "--ai-threads must be at least 1");
            config.ai.max_threads = n;
        }
        config.ai.max_move = seconds("--ai-max-seconds", self.ai_max_seconds)?;
        config.ai.watched_per_address = self.max_ai_games_per_ip;
        Ok(config)
    }
}

/// A duration given in seconds: more than 0, and at most a day.
fn seconds(flag: &str, s: f64) -> Result<Duration> {
    anyhow::ensure!(s > 0.0 && s <= 86_400.0, "{flag} {s}: expected more than 0 and at most 86400 seconds");
    Ok(Duration::from_secs_f64(s))
}

/// How `monte serve` writes its log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// Logs to standard error, filtered by `MONTE_LOG` (`info` by default;
/// e.g. `warn`, or `info,monte::http=warn` without the request lines).
fn start_logging(format: LogFormat) -> Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = match std::env::var("MONTE_LOG") {
        Ok(spec) => EnvFilter::try_new(&spec).map_err(|e| anyhow::anyhow!("MONTE_LOG `{spec}`: {e}"))?,
        Err(_) => EnvFilter::new("info"),
    };
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let installed = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    installed.map_err(|e| anyhow::anyhow!("cannot start logging: {e}"))
}

pub fn serve(args: &ServeArgs) -> Result<()> {
    let config = args.config()?;
    start_logging(args.log_format)?;
    let shown = redact(&config.database);
    monte_server::serve_blocking(config, |addr| {
        // Tests and scripts read this line for the address.
        println!("monte: serving on http://{addr} (database {shown})");
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
    })?;
    Ok(())
}

/// The database URL without a password.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}
