//! `monte serve`: the game server.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

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
    /// AI search threads in use at once (default: the number of cores)
    #[arg(long)]
    ai_threads: Option<usize>,
    /// Longest AI search for one move, in seconds
    #[arg(long, default_value_t = 10.0)]
    ai_max_seconds: f64,
}

impl ServeArgs {
    pub fn config(&self) -> Result<monte_server::Config> {
        let database = match &self.database {
            Some(d) => d.clone(),
            None => std::env::var("DATABASE_URL").unwrap_or_else(|_| "sqlite:monte.db".into()),
        };
        anyhow::ensure!(self.ai_max_seconds > 0.0 && self.ai_max_seconds.is_finite(), "--ai-max-seconds must be > 0");
        let mut config = monte_server::Config {
            database,
            listen: self.listen,
            instance: self.instance.clone(),
            rate_limit: self.rate_limit.max(0.0),
            rate_burst: self.rate_burst,
            ws_rate: self.ws_rate.max(0.0),
            ..monte_server::Config::default()
        };
        if let Some(n) = self.ai_threads {
            anyhow::ensure!(n > 0, "--ai-threads must be at least 1");
            config.ai.max_threads = n;
        }
        config.ai.max_move = Duration::from_secs_f64(self.ai_max_seconds);
        Ok(config)
    }
}

pub fn serve(args: &ServeArgs) -> Result<()> {
    let config = args.config()?;
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
