//! `monte`: the command line of Monte.

use std::io::IsTerminal;
use std::time::Instant;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use monte_engine::{EngineGame, Limits, SearchOptions, Searcher};
use monte_rules::game::RepetitionRule;
use monte_rules::perft::{divide, perft};
use monte_rules::{Game, GameKind, Position, RenderStyle, RuleSet, Side, Status, with_game};

/// mimalloc rather than glibc's malloc: the game server allocates and
/// frees many small buffers per move (JSON, legal move lists, frames), and
/// glibc's malloc was about 15% of its time (docs/server-load.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod bench;
mod loadtest;
mod matches;
mod play;
mod serve;
mod tune;
mod ugi;
mod user;

#[derive(Parser, Debug)]
#[command(name = "monte", version, about = "Salta and Focus: rules engine, perft and tools", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the move sequences of a given length (perft)
    Perft {
        #[command(flatten)]
        pos: PositionArgs,
        /// Number of plies
        #[arg(long, short)]
        depth: u32,
        /// One line `<move> <count>` per root move before the total
        #[arg(long)]
        divide: bool,
    },
    /// List the legal moves, one per line
    Moves {
        #[command(flatten)]
        pos: PositionArgs,
    },
    /// Show the board and its position string
    Show {
        #[command(flatten)]
        pos: PositionArgs,
        /// Moves to play from the position first, in the notation, separated by spaces
        #[arg(long)]
        moves: Option<String>,
        /// Colours: auto (on a terminal only), always or never
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Search a position: one line per iteration (depth, score, nodes,
    /// nodes/s, principal variation), then the best move
    Analyze {
        #[command(flatten)]
        pos: PositionArgs,
        #[command(flatten)]
        search: SearchArgs,
    },
    /// Play a game in the terminal: a human or the engine on either side
    /// (moves typed in the notation; `help` lists the commands)
    Play {
        #[command(flatten)]
        pos: PositionArgs,
        /// Who plays White: `human` or `ai:LEVEL` (levels 1-8)
        #[arg(long, default_value = "human")]
        white: play::Seat,
        /// Who plays Black: `human` or `ai:LEVEL` (levels 1-8)
        #[arg(long, default_value = "ai:3")]
        black: play::Seat,
        /// Write the game record to this file when the game ends or you quit
        #[arg(long, value_name = "FILE")]
        record: Option<std::path::PathBuf>,
        /// Colours: auto (on a terminal only), always or never
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// Seed of the engine's random choices at levels 1-5 (default: from the clock)
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Speak the UGI engine protocol on standard input and output, for
    /// tournament runners (Cute Games) and GUIs (docs/protocol.md)
    Ugi {
        /// The game until `setoption name Game` says otherwise
        #[arg(long, short, value_parser = parse_game, default_value = "salta")]
        game: GameKind,
        /// The rule set until `setoption name Rules` says otherwise
        #[arg(long, short, default_value = "seed")]
        rules: String,
    },
    /// Fit the evaluation weights to self-play games (Texel-style) and
    /// print them
    Tune {
        #[command(flatten)]
        pos: PositionArgs,
        /// Self-play games to generate
        #[arg(long, default_value_t = 200)]
        games: usize,
        /// Search depth of the self-play moves
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// Uniformly random moves at the start of each game, for variety
        #[arg(long, default_value_t = 8)]
        random_plies: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Keep every n-th position of each game
        #[arg(long, default_value_t = 4)]
        sample_every: usize,
        /// Write the labelled positions to this file
        #[arg(long)]
        data_out: Option<String>,
        /// Fit on the positions of this file instead of playing games
        #[arg(long, conflicts_with = "records")]
        data: Option<String>,
        /// Fit on the games of this records file (as `monte match
        /// --records` writes them) instead of playing games; only games
        /// decided on the board or won at a scored move limit count
        /// (repeatable)
        #[arg(long)]
        records: Vec<String>,
    },
    /// Benchmarks. Without a subcommand: perft over a fixed set of
    /// positions of both games, seeded random playouts from their starts
    /// and the search bench, each with its speed and a deterministic
    /// signature
    Bench {
        #[command(subcommand)]
        kind: Option<BenchKind>,
    },
    /// Play two engine settings against each other: wins/draws/losses,
    /// score, Elo difference with its 95% interval, optional SPRT, records
    Match(matches::MatchArgs),
    /// Run the game server: HTTP API, WebSocket push, AI seats (docs/api.md)
    Serve(serve::ServeArgs),
    /// Manage players' accounts on a server's database (the operator's tools)
    User {
        #[command(subcommand)]
        command: user::UserCommand,
    },
    /// Load benchmark of the game server: many games at once over
    /// WebSocket at a target move rate; moves/s, latency, memory per game
    /// (docs/server-load.md)
    Loadtest(loadtest::LoadtestArgs),
}

#[derive(Subcommand, Debug)]
enum BenchKind {
    /// Whole games of uniformly random legal moves: games/s, moves/s and
    /// how the games ended
    Playouts {
        #[command(flatten)]
        pos: PositionArgs,
        /// How long to play
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Threads playing games in parallel
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Seed of the random moves (each thread adds its index)
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Stop a game that has not ended after this many plies (rule sets
        /// without a move limit can wander for a long time); such games are
        /// counted as unfinished
        #[arg(long, default_value_t = 20_000)]
        max_plies: u64,
    },
}

#[derive(Args, Debug, Clone)]
struct PositionArgs {
    /// The game
    #[arg(long, short, value_parser = parse_game)]
    game: GameKind,
    /// The rule set: a preset name (`seed`), optionally followed by options,
    /// e.g. `seed,move-limit=120`
    #[arg(long, short, default_value = "seed")]
    rules: String,
    /// Moves per side after which the game ends (overrides the rule set's limit; 0 = none)
    #[arg(long)]
    move_limit: Option<u32>,
    /// Focus: a drawn game is a win for White (Sackson's rule against mirror play)
    #[arg(long)]
    draw_goes_to_first: bool,
    /// Set any rule option, e.g. `-o chains=forced` (repeatable; see docs/rules.md)
    #[arg(long = "option", short = 'o', value_name = "KEY[=VALUE]")]
    options: Vec<String>,
    /// A position string (default: the start position)
    #[arg(long)]
    fen: Option<String>,
}

#[derive(Args, Debug, Clone)]
struct SearchArgs {
    /// Search to this depth (plies)
    #[arg(long, short)]
    depth: Option<u32>,
    /// Search for this many milliseconds
    #[arg(long)]
    movetime: Option<u64>,
    /// Search this many nodes
    #[arg(long)]
    nodes: Option<u64>,
    /// Search threads
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Transposition table size in MB
    #[arg(long, default_value_t = 64)]
    hash: usize,
}

impl SearchArgs {
    fn limits(&self) -> Limits {
        let mut limits = Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime.map(Duration::from_millis),
            clock: None,
        };
        if limits == Limits::default() {
            limits.movetime = Some(Duration::from_secs(3));
        }
        limits
    }
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

fn parse_game(s: &str) -> Result<GameKind, String> {
    s.parse().map_err(|e: monte_rules::RulesError| e.to_string())
}

impl PositionArgs {
    fn rules<R: RuleSet>(&self) -> Result<R> {
        let mut rules: R = self.rules.parse()?;
        if let Some(n) = self.move_limit {
            // `--move-limit 0` is no limit; the rule option says `none`.
            let limit = if n == 0 { "none".to_string() } else { n.to_string() };
            rules.set_option("move-limit", Some(&limit))?;
        }
        if self.draw_goes_to_first {
            rules.set_option("draw-goes-to-first", None)?;
        }
        for opt in &self.options {
            match opt.split_once('=') {
                Some((k, v)) => rules.set_option(k.trim(), Some(v.trim()))?,
                None => rules.set_option(opt.trim(), None)?,
            }
        }
        rules.validate()?;
        Ok(rules)
    }

    fn position<P: Position>(&self) -> Result<P> {
        let rules = self.rules::<P::Rules>()?;
        Ok(match &self.fen {
            Some(f) => P::from_fen(rules, f.trim())?,
            None => P::start(rules),
        })
    }
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        // A reader that stops early (`monte moves | head`) is not an error.
        if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) {
            return;
        }
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

/// Write a line to stdout, returning an error (not panicking) when the
/// reader has gone away.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Perft { pos, depth, divide } => with_game!(pos.game, P => cmd_perft::<P>(&pos, depth, divide)),
        Command::Moves { pos } => with_game!(pos.game, P => cmd_moves::<P>(&pos)),
        Command::Show { pos, moves, color } => {
            let color = match color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            };
            with_game!(pos.game, P => cmd_show::<P>(&pos, moves.as_deref(), color))
        }
        Command::Analyze { pos, search } => with_game!(pos.game, P => cmd_analyze::<P>(&pos, &search)),
        Command::Play { pos, white, black, record, color, seed } => {
            let rules = with_game!(pos.game, P => pos.rules::<<P as Position>::Rules>()?.to_string());
            let game = monte_rules::any::AnyGame::new(pos.game, &rules, pos.fen.as_deref().map(str::trim))?;
            let terminal = std::io::stdout().is_terminal();
            let color = match color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none(),
            };
            let seed = seed.unwrap_or_else(|| {
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
            });
            play::run(game, play::Settings { white, black, record, color, terminal, seed })
        }
        Command::Ugi { game, rules } => ugi::run(game, &rules),
        Command::Tune { pos, games, depth, random_plies, seed, sample_every, data_out, data, records } => {
            let settings =
                tune::TuneSettings { games, depth, seed, random_plies, sample_every, data_out, data_in: data, records };
            with_game!(pos.game, P => tune::run::<P>(pos.rules()?, &settings))
        }
        Command::Bench { kind: None } => bench::run(),
        Command::Serve(args) => serve::serve(&args),
        Command::User { command } => user::run(command),
        Command::Loadtest(args) => loadtest::run(&args),
        Command::Bench { kind: Some(BenchKind::Playouts { pos, seconds, threads, seed, max_plies }) } => {
            let settings = bench::PlayoutSettings { seconds, threads, seed, max_plies };
            with_game!(pos.game, P => bench::playouts::<P>(pos.position()?, &settings))
        }
        Command::Match(args) => matches::run(&args),
    }
}

fn cmd_perft<P: Position>(args: &PositionArgs, depth: u32, with_divide: bool) -> Result<()> {
    let pos: P = args.position()?;
    let start = Instant::now();
    let nodes = if with_divide && depth > 0 {
        let mut total = 0;
        for (mv, n) in divide(&pos, depth) {
            out!("{} {n}", pos.format_move(mv));
            total += n;
        }
        total
    } else {
        perft(&pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    eprintln!("{:.3} s, {:.1} M nodes/s", secs, nodes as f64 / secs.max(1e-9) / 1e6);
    out!("nodes {nodes}");
    Ok(())
}

fn cmd_moves<P: Position>(args: &PositionArgs) -> Result<()> {
    let pos: P = args.position()?;
    if let Status::Over(o) = pos.status() {
        eprintln!("the game is over: {o}");
        return Ok(());
    }
    for mv in pos.legal_moves() {
        out!("{}", pos.format_move(mv));
    }
    Ok(())
}

fn cmd_show<P: Position>(args: &PositionArgs, moves: Option<&str>, color: bool) -> Result<()>
where
    P::Rules: RepetitionRule,
{
    let mut game = Game::new(args.position::<P>()?);
    if let Some(moves) = moves {
        for (i, text) in moves.split_whitespace().enumerate() {
            game.play_text(text).with_context(|| format!("move {} of --moves", i + 1))?;
        }
    }
    let pos = game.position();
    let mut text = pos.render(RenderStyle { color, from: Side::White });
    if let Status::Over(o) = game.status()
        && !pos.status().is_over()
    {
        text.push_str(&format!("Game over: {o}\n"));
    }
    out!("{}Position: {}", text, pos.fen());
    if pos.rules().to_string() != P::Rules::default().to_string() {
        out!("Rules: {}", pos.rules());
    }
    Ok(())
}

fn cmd_analyze<P: EngineGame>(args: &PositionArgs, search: &SearchArgs) -> Result<()>
where
    P::Rules: RepetitionRule,
{
    let pos: P = args.position()?;
    if let Status::Over(o) = pos.status() {
        anyhow::bail!("the game is over: {o}");
    }
    // Analysis reports what a position is worth, so a draw scores 0 (no
    // contempt, which is a player's preference).
    let searcher = Searcher::new(SearchOptions {
        hash_mb: search.hash,
        threads: search.threads.max(1),
        contempt: 0,
        ..Default::default()
    });
    let stop = AtomicBool::new(false);
    let mut lines = Vec::new();
    let result = searcher.search(&pos, &[], &search.limits(), &stop, &mut |info| {
        lines.push(format!(
            "depth {} seldepth {} score {} nodes {} nps {} time {} pv {}",
            info.depth,
            info.seldepth,
            info.score,
            info.nodes,
            info.nps,
            info.time.as_millis(),
            info.pv.join(" ")
        ));
        println!("{}", lines.last().expect("just pushed"));
    });
    let best = result.best.map(|m| pos.format_move(m)).unwrap_or_else(|| "none".into());
    out!("bestmove {best} score {} depth {} nodes {}", result.score, result.depth, result.nodes);
    Ok(())
}
