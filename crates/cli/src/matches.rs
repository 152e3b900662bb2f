//! `monte match`: two engine settings play each other from a set of
//! openings, each opening once with either colour; the result as
//! wins/draws/losses, score, Elo difference with its 95% interval, an
//! optional SPRT, and the games as records.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use monte_engine::ai;
use monte_engine::mcts::{Leaf, Mcts, MctsOptions};
use monte_engine::opponents::Script;
use monte_engine::{DEFAULT_CONTEMPT, EngineGame, Level, Limits, MAX_CONTEMPT, SearchOptions, Searcher, level};
use monte_rules::game::RepetitionRule;
use monte_rules::record::Record;
use monte_rules::{Game, MoveList, Side, Status, with_game};

use crate::PositionArgs;
use monte_rules::Rng;

#[derive(Args, Debug, Clone)]
pub struct MatchArgs {
    #[command(flatten)]
    pub pos: PositionArgs,
    /// The first engine, e.g. `level=8`, `ab:depth=4`, `mcts:playouts=2000`, `uct`
    /// (docs/engine.md lists the options)
    #[arg(long)]
    pub engine1: String,
    /// The second engine
    #[arg(long)]
    pub engine2: String,
    /// Number of games (each opening is played twice, once with each colour)
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Time per move in milliseconds, for engines without a limit of their
    /// own (levels: replaces the level's time per move)
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Nodes per move (MCTS: playouts), for engines without a limit of their own
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Games played at the same time
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// A file of opening positions, one position string per line (empty
    /// lines and lines starting with `#` are skipped); used in order, and
    /// again from the top when there are fewer than the match needs
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Without --openings: openings of this many random legal moves from the
    /// start position (or --fen)
    #[arg(long, default_value_t = 4)]
    pub random_plies: usize,
    /// Seed of the random openings, the levels' noise and MCTS
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A game still going after this many plies (opening moves included) is
    /// adjudicated by the rule set's count (Salta: distance; Focus: pieces
    /// in play)
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Stop early by a sequential probability ratio test:
    /// `elo0,elo1,alpha,beta`, e.g. `0,50,0.05,0.05`
    #[arg(long, value_parser = parse_sprt)]
    pub sprt: Option<Sprt>,
    /// Write every game as a record to this file (records one after another)
    #[arg(long)]
    pub records: Option<PathBuf>,
}

/// Which searcher an engine setting uses.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineKind {
    /// A level, played as `monte_engine::ai` plays it.
    Level(Level),
    /// The alpha-beta searcher with the setting's limits.
    AlphaBeta,
    /// MCTS (PUCT with evaluation, or the plain UCT baseline).
    Mcts(MctsOptions),
    /// A scripted Salta opponent (`runner`, `blocker`).
    Script(Script),
}

/// One engine setting of a match, parsed from text such as `ab:depth=4`.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// The text it was parsed from: the engine's name in records.
    pub name: String,
    pub kind: EngineKind,
    pub depth: Option<u32>,
    /// Nodes per move (MCTS: playouts).
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    pub threads: usize,
    pub hash_mb: usize,
    /// Alpha-beta null-move pruning (`nullmove=0` turns it off).
    pub null_move: bool,
    /// Alpha-beta futility pruning (`futility=0` turns it off).
    pub futility: bool,
    /// Alpha-beta ordering of tactical moves by a look ahead (`lookahead=0`
    /// orders them by history).
    pub lookahead: bool,
    /// Alpha-beta contempt for draws, in evaluation units.
    pub contempt: i32,
    /// The Salta evaluation of 11e216e without the race solver (`eval=classic`).
    pub classic: bool,
    /// Evaluation weights replacing the game's own (`weights=a/b/c...`).
    pub weights: Option<Vec<i32>>,
}

const SPEC_HELP: &str = "level=N[,threads=T,hash=MB,movetime=MS,nodes=N,depth=D,noise=U,plan=P,nullmove=0|1,futility=0|1,lookahead=0|1,contempt=C,eval=current|classic,weights=W1/W2/...], ab[:depth=D,nodes=N,movetime=MS,threads=T,hash=MB,nullmove=0|1,futility=0|1,lookahead=0|1,contempt=C,eval=current|classic,weights=W1/W2/...], \
     mcts[:playouts=N,movetime=MS,c=X,scale=X,temperature=X,memory=MB], uct[:playouts=N,movetime=MS,c=X,plies=N,memory=MB], \
     runner, blocker (Salta)";

/// The largest `noise=` of a level setting: far beyond level 1's 300, at
/// which the choice among root moves is all but uniform.
const MAX_NOISE: i32 = 100_000;

fn number<T: std::str::FromStr>(spec: &str, key: &str, value: &str) -> Result<T> {
    value.parse().map_err(|_| anyhow::anyhow!("engine `{spec}`: bad value `{value}` for {key}"))
}

fn positive<T: std::str::FromStr + PartialOrd + Default>(spec: &str, key: &str, value: &str) -> Result<T> {
    let v: T = number(spec, key, value)?;
    if v <= T::default() {
        bail!("engine `{spec}`: {key} must be more than 0");
    }
    Ok(v)
}

/// An on/off option: `1` or `on`, `0` or `off`.
fn switch(spec: &str, key: &str, value: &str) -> Result<bool> {
    match value {
        "1" | "on" => Ok(true),
        "0" | "off" => Ok(false),
        _ => bail!("engine `{spec}`: {key} must be 0 or 1"),
    }
}

/// The options of the alpha-beta searcher (`ab`), which a level takes too.
const SEARCH_OPTIONS: &[&str] = &[
    "depth",
    "nodes",
    "movetime",
    "threads",
    "hash",
    "nullmove",
    "futility",
    "lookahead",
    "contempt",
    "eval",
    "weights",
];

impl std::str::FromStr for EngineSpec {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Self> {
        let text = text.trim();
        let (head, options) = if let Some(rest) = text.strip_prefix("level=") {
            ("level", rest)
        } else {
            text.split_once(':').unwrap_or((text, ""))
        };
        let mut options = options.split(',').map(str::trim).filter(|s| !s.is_empty()).peekable();
        let mut spec = EngineSpec {
            name: text.to_string(),
            kind: EngineKind::AlphaBeta,
            depth: None,
            nodes: None,
            movetime: None,
            threads: 1,
            hash_mb: 16,
            null_move: true,
            futility: true,
            lookahead: true,
            contempt: DEFAULT_CONTEMPT,
            classic: false,
            weights: None,
        };
        let known: Vec<&str> = match head {
            "level" => {
                let n = options.next().unwrap_or("");
                let lv = n
                    .parse::<u8>()
                    .ok()
                    .and_then(level)
                    .ok_or_else(|| anyhow::anyhow!("engine `{text}`: level must be a number from 1 to 8"))?;
                spec.kind = EngineKind::Level(lv);
                spec.threads = lv.threads;
                [&["noise", "plan"][..], SEARCH_OPTIONS].concat()
            }
            "ab" => SEARCH_OPTIONS.to_vec(),
            "mcts" => {
                spec.kind = EngineKind::Mcts(MctsOptions::puct());
                vec!["playouts", "nodes", "movetime", "c", "scale", "temperature", "memory"]
            }
            "uct" => {
                spec.kind = EngineKind::Mcts(MctsOptions::uct());
                vec!["playouts", "nodes", "movetime", "c", "plies", "memory"]
            }
            "runner" | "blocker" => {
                spec.kind = EngineKind::Script(if head == "runner" { Script::Runner } else { Script::Blocker });
                Vec::new()
            }
            _ => bail!("unknown engine `{text}` (known: {SPEC_HELP})"),
        };
        let mut plan_given = false;
        for option in options {
            let Some((key, value)) = option.split_once('=') else {
                bail!("engine `{text}`: `{option}` is not key=value");
            };
            let (key, value) = (key.trim(), value.trim());
            if !known.contains(&key) {
                bail!("engine `{text}`: unknown option `{key}` (known for {head}: {})", known.join(", "));
            }
            match (key, &mut spec.kind) {
                // A level's depth, noise and plan share, in place of the
                // level's own: to try a level's design in matches without
                // a rebuild.
                ("depth", EngineKind::Level(lv)) => lv.depth = Some(positive(text, key, value)?),
                ("depth", _) => spec.depth = Some(positive(text, key, value)?),
                ("nodes" | "playouts", _) => spec.nodes = Some(positive(text, key, value)?),
                ("movetime", _) => spec.movetime = Some(Duration::from_millis(positive(text, key, value)?)),
                ("threads", _) => spec.threads = positive(text, key, value)?,
                ("hash", _) => spec.hash_mb = positive(text, key, value)?,
                ("nullmove", _) => spec.null_move = switch(text, key, value)?,
                ("futility", _) => spec.futility = switch(text, key, value)?,
                ("lookahead", _) => spec.lookahead = switch(text, key, value)?,
                ("contempt", _) => {
                    spec.contempt = number(text, key, value)?;
                    if !(-MAX_CONTEMPT..=MAX_CONTEMPT).contains(&spec.contempt) {
                        bail!("engine `{text}`: contempt must be from -{MAX_CONTEMPT} to {MAX_CONTEMPT}");
                    }
                }
                ("eval", _) => {
                    spec.classic = match value {
                        "current" => false,
                        "classic" => true,
                        _ => bail!("engine `{text}`: eval must be `current` or `classic`"),
                    }
                }
                ("weights", _) => {
                    let weights: Vec<i32> = value.split('/').map(|w| number(text, key, w)).collect::<Result<_>>()?;
                    spec.weights = Some(weights);
                }
                ("noise", EngineKind::Level(lv)) => {
                    lv.noise = number(text, key, value)?;
                    if !(0..=MAX_NOISE).contains(&lv.noise) {
                        bail!("engine `{text}`: noise must be from 0 to {MAX_NOISE}");
                    }
                }
                ("plan", EngineKind::Level(lv)) => {
                    plan_given = true;
                    lv.plan_share = number(text, key, value)
                        .ok()
                        .filter(|p| *p <= 100)
                        .ok_or_else(|| anyhow::anyhow!("engine `{text}`: plan must be a share from 0 to 100"))?;
                }
                ("c", EngineKind::Mcts(o)) => o.exploration = positive(text, key, value)?,
                ("scale", EngineKind::Mcts(o)) => o.scale = positive(text, key, value)?,
                ("temperature", EngineKind::Mcts(o)) => o.prior_temperature = positive(text, key, value)?,
                ("memory", EngineKind::Mcts(o)) => o.memory_mb = positive(text, key, value)?,
                ("plies", EngineKind::Mcts(o)) => {
                    o.leaf = Leaf::RandomPlayout { max_plies: positive(text, key, value)? }
                }
                _ => unreachable!("option `{key}` is listed as known for {head}"),
            }
        }
        if let EngineKind::Level(lv) = &spec.kind {
            // The noisy choice scores the root moves to the level's depth:
            // levels 6-8 have none unless `depth=` gives one.
            if lv.noise > 0 && lv.depth.is_none() {
                bail!("engine `{text}`: noise needs a depth limit (levels 1-5, or depth=)");
            }
            // Without noise the full search plays, and it always weighs
            // the plan: a share asked for below 100 would be ignored.
            if lv.noise == 0 && plan_given && lv.plan_share < 100 {
                bail!("engine `{text}`: plan below 100 needs a level with noise above 0");
            }
        }
        Ok(spec)
    }
}

impl EngineSpec {
    /// The limits of one move, given the match's `--movetime`/`--nodes`.
    /// An engine's own limits replace the match's; a level keeps its depth
    /// and noise, and the match's time (or nodes) replaces its time per
    /// move. `None` when the engine would have no bound at all.
    fn limits(&self, movetime: Option<Duration>, nodes: Option<u64>) -> Option<Limits> {
        let own = Limits { depth: self.depth, nodes: self.nodes, movetime: self.movetime, clock: None };
        let limits = match &self.kind {
            EngineKind::Level(lv) => {
                let movetime = self.movetime.or(movetime);
                let nodes = self.nodes.or(nodes);
                Limits {
                    depth: lv.depth,
                    nodes,
                    movetime: movetime.or(if nodes.is_some() { None } else { Some(lv.movetime) }),
                    clock: None,
                }
            }
            _ if own != Limits::default() => own,
            _ => Limits { depth: None, nodes, movetime, clock: None },
        };
        (matches!(self.kind, EngineKind::Script(_))
            || limits.depth.is_some() && !matches!(self.kind, EngineKind::Mcts(_))
            || limits.nodes.is_some()
            || limits.movetime.is_some())
        .then_some(limits)
    }
}

/// A sequential probability ratio test between two Elo differences.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

fn parse_sprt(s: &str) -> Result<Sprt, String> {
    let parts: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>().map_err(|_| format!("`{p}` is not a number")))
        .collect::<Result<_, _>>()?;
    let [elo0, elo1, alpha, beta] = parts[..] else {
        return Err(format!("expected elo0,elo1,alpha,beta (four numbers), got {}", parts.len()));
    };
    if elo1 <= elo0 {
        return Err("elo1 must be greater than elo0".into());
    }
    if !(0.0 < alpha && alpha < 0.5 && 0.0 < beta && beta < 0.5) {
        return Err("alpha and beta must be between 0 and 0.5".into());
    }
    Ok(Sprt { elo0, elo1, alpha, beta })
}

/// Wins, draws and losses of the first engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// Two-sided 95% quantile of the normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// The Elo difference that gives an expected score `s` (logistic model).
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// The expected score of an Elo difference (logistic model).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Tally {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The mean score per game (win 1, draw 1/2).
    pub fn score(&self) -> f64 {
        (self.wins as f64 + self.draws as f64 / 2.0) / self.games().max(1) as f64
    }

    /// The variance of one game's score around the mean.
    fn variance(&self) -> f64 {
        let n = self.games().max(1) as f64;
        let s = self.score();
        (self.wins as f64 * (1.0 - s).powi(2) + self.draws as f64 * (0.5 - s).powi(2) + self.losses as f64 * s.powi(2))
            / n
    }

    /// The 95% interval of the expected score: the Wilson score interval,
    /// extended to draws. At an expected score p a game has variance
    /// p(1-p) - d/4, with d the observed draw ratio, made feasible for p
    /// (at most 2p and 2(1-p): near 100% draws must be rare too); the
    /// bounds are the p with (s - p)^2 = z^2 var(p) / n. Without draws this
    /// is Wilson's interval; unlike the plain normal interval it stays
    /// meaningful at 0% and 100%.
    pub fn score_interval(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (0.0, 1.0);
        }
        let s = self.score();
        let d = self.draws as f64 / n;
        let k = Z95 * Z95 / n;
        let gap = |p: f64| (s - p).powi(2) - k * (p * (1.0 - p) - d.min(2.0 * p).min(2.0 * (1.0 - p)) / 4.0);
        // `gap` is at most 0 at s and grows towards each end: bisect.
        let bound = |end: f64| {
            if gap(end) <= 0.0 {
                return end;
            }
            let (mut inside, mut outside) = (s, end);
            for _ in 0..100 {
                let mid = (inside + outside) / 2.0;
                if gap(mid) <= 0.0 {
                    inside = mid;
                } else {
                    outside = mid;
                }
            }
            inside
        };
        (bound(0.0), bound(1.0))
    }

    /// The Elo difference and its 95% interval.
    pub fn elo(&self) -> (f64, f64, f64) {
        let (lo, hi) = self.score_interval();
        (elo_from_score(self.score()), elo_from_score(lo), elo_from_score(hi))
    }

    /// The log-likelihood ratio of `elo1` against `elo0` (the normal
    /// approximation to the trinomial GSPRT); 0 until the results vary.
    pub fn llr(&self, sprt: &Sprt) -> f64 {
        let var = self.variance();
        if self.games() == 0 || var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_from_elo(sprt.elo0), score_from_elo(sprt.elo1));
        self.games() as f64 * (s1 - s0) * (2.0 * self.score() - s0 - s1) / (2.0 * var)
    }
}

impl Sprt {
    /// (lower, upper): H0 is accepted at or below the lower bound, H1 at
    /// or above the upper.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// `Some(true)` when H1 (elo1) is accepted, `Some(false)` for H0.
    pub fn decision(&self, tally: &Tally) -> Option<bool> {
        let llr = tally.llr(self);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(true)
        } else if llr <= lower {
            Some(false)
        } else {
            None
        }
    }
}

fn format_elo(e: f64) -> String {
    if e.is_infinite() { if e > 0.0 { "+inf".into() } else { "-inf".into() } } else { format!("{e:+.0}") }
}

/// An engine setting ready to play, with its own tables.
struct Player {
    spec: EngineSpec,
    limits: Limits,
    searcher: Option<Searcher>,
    noise: Rng,
    seed: u64,
    /// Moves played, nodes, time and depth summed over them.
    stats: MoveStats,
}

#[derive(Clone, Copy, Debug, Default)]
struct MoveStats {
    moves: u64,
    nodes: u64,
    time: Duration,
    depth: u64,
}

fn mix(a: u64, b: u64) -> u64 {
    let mut rng = Rng::new(a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    rng.next_u64()
}

impl Player {
    fn new(spec: &EngineSpec, limits: Limits) -> Player {
        let searcher = match spec.kind {
            EngineKind::Mcts(_) | EngineKind::Script(_) => None,
            _ => Some(Searcher::new(SearchOptions {
                hash_mb: spec.hash_mb,
                threads: spec.threads,
                null_move: spec.null_move,
                futility: spec.futility,
                lookahead: spec.lookahead,
                contempt: spec.contempt,
                classic: spec.classic,
            })),
        };
        let searcher = match (searcher, &spec.weights) {
            (Some(s), Some(w)) => Some(s.with_weights(w.clone())),
            (s, _) => s,
        };
        Player { spec: spec.clone(), limits, searcher, noise: Rng::new(1), seed: 1, stats: MoveStats::default() }
    }

    /// Start a game: forget what was learnt, take the game's seed.
    fn new_game(&mut self, seed: u64) {
        if let Some(s) = &self.searcher {
            s.clear();
        }
        self.noise = Rng::new(seed);
        self.seed = seed;
    }

    fn choose<P: EngineGame>(&mut self, game: &Game<P>) -> Result<P::Move>
    where
        P::Rules: RepetitionRule,
    {
        let stop = AtomicBool::new(false);
        let start = Instant::now();
        let (mv, nodes, depth) = match (&self.spec.kind, &self.searcher) {
            (EngineKind::Level(lv), Some(searcher)) if lv.noise > 0 || self.limits.nodes.is_none() => {
                // As the level plays, with the match's time per move.
                let mut lv = *lv;
                if let Some(t) = self.limits.movetime {
                    lv.movetime = t;
                }
                let choice = ai::choose(searcher, game, &lv, None, &mut self.noise, &stop, &mut |_| {})
                    .map_err(|e| anyhow::anyhow!("{}: {e}", self.spec.name))?;
                (choice.mv, choice.nodes, choice.depth)
            }
            (_, Some(searcher)) => {
                let choice = ai::search(searcher, game, &self.limits, &stop, &mut |_| {})
                    .map_err(|e| anyhow::anyhow!("{}: {e}", self.spec.name))?;
                (choice.mv, choice.nodes, choice.depth)
            }
            (EngineKind::Mcts(options), None) => {
                let options = MctsOptions { seed: mix(self.seed, game.moves().len() as u64), ..*options };
                let r = Mcts::new(options).search(
                    game.position(),
                    &game.earlier_hashes(),
                    &self.limits,
                    &stop,
                    &mut |_| {},
                );
                (r.best.context("no move from MCTS")?, r.nodes, r.depth)
            }
            (EngineKind::Script(script), None) => {
                let mut rng = Rng::new(mix(self.seed, game.moves().len() as u64));
                let mv = game
                    .position()
                    .scripted_move(*script, &mut rng)
                    .with_context(|| format!("{}: the script found no move", self.spec.name))?;
                (mv, 0, 0)
            }
            _ => unreachable!("alpha-beta engines have a searcher"),
        };
        self.stats.moves += 1;
        self.stats.nodes += nodes;
        self.stats.depth += depth as u64;
        self.stats.time += start.elapsed();
        Ok(mv)
    }
}

/// How one game ended, from White's side.
#[derive(Clone, Debug)]
struct Finished {
    index: usize,
    winner: Option<Side>,
    /// `goal`, `threefold repetition`, ..., or `adjudication`.
    reason: String,
    plies: usize,
    record: String,
}

/// Play one game from `opening`; `players[0]` is White.
fn play_game<P: EngineGame>(
    index: usize,
    opening: &Game<P>,
    opening_note: Option<&str>,
    players: [&mut Player; 2],
    max_plies: usize,
) -> Result<Finished>
where
    P::Rules: RepetitionRule,
{
    let mut game = opening.clone();
    let opening_len = game.moves().len();
    let [white, black] = players;
    let (outcome, adjudication) = loop {
        if let Status::Over(o) = game.status() {
            break (o.winner, None);
        }
        if game.moves().len() >= max_plies {
            let pos = game.position();
            break (pos.leader(), Some(format!("adjudicated after {max_plies} plies: {}", pos.describe_standing())));
        }
        let player = if game.position().side_to_move() == Side::White { &mut *white } else { &mut *black };
        let mv = player.choose(&game)?;
        game.play(mv).map_err(|e| anyhow::anyhow!("{} played an illegal move: {e}", player.spec.name))?;
    };
    let round = (index + 1).to_string();
    let tags = [("White", white.spec.name.as_str()), ("Black", black.spec.name.as_str()), ("Round", round.as_str())];
    let mut record = Record::from_game(&game, &tags, Some(monte_rules::result_string(outcome)));
    if let (Some(note), Some(m)) = (opening_note, opening_len.checked_sub(1).and_then(|i| record.moves.get_mut(i))) {
        m.comment = Some(note.to_string());
    }
    let reason = match &adjudication {
        Some(text) => {
            record.set_tag("Termination", "adjudication");
            match record.moves.last_mut() {
                Some(m) if m.comment.is_none() => m.comment = Some(text.clone()),
                _ => record.comment = Some(text.clone()),
            }
            "adjudication".to_string()
        }
        None => record.tag("Termination").unwrap_or("?").to_string(),
    };
    Ok(Finished { index, winner: outcome, reason, plies: game.moves().len(), record: record.to_string() })
}

/// The openings of the match: from a file, or random.
fn openings<P: EngineGame>(args: &MatchArgs, count: usize) -> Result<(Vec<Game<P>>, Option<String>)>
where
    P::Rules: RepetitionRule,
{
    if let Some(path) = &args.openings {
        if args.pos.fen.is_some() {
            bail!("give either --openings or --fen, not both");
        }
        let rules: P::Rules = args.pos.rules()?;
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut list = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let pos = P::from_fen(rules, line).with_context(|| format!("{}, line {}", path.display(), i + 1))?;
            if pos.status().is_over() {
                bail!("{}, line {}: the game is already over there", path.display(), i + 1);
            }
            list.push(Game::new(pos));
        }
        if list.is_empty() {
            bail!("{}: no positions", path.display());
        }
        let list = list.iter().cycle().take(count).cloned().collect();
        return Ok((list, None));
    }
    let start: P = args.pos.position()?;
    if start.status().is_over() {
        bail!("the game is over in the start position");
    }
    let mut rng = Rng::new(args.seed);
    let mut seen = HashSet::new();
    let mut list = Vec::with_capacity(count);
    let mut moves = MoveList::new();
    let mut attempts = 0;
    while list.len() < count {
        attempts += 1;
        let mut game = Game::new(start.clone());
        for _ in 0..args.random_plies {
            if game.status().is_over() {
                break;
            }
            moves.clear();
            game.position().generate(&mut moves);
            game.play(moves[rng.below(moves.len())])?;
        }
        if game.status().is_over() {
            if attempts > 1000 * count {
                bail!("could not find {count} openings of {} random plies that do not end the game", args.random_plies);
            }
            continue;
        }
        // Prefer different openings while there are enough of them.
        if !seen.insert(game.position().hash()) && attempts < 100 * count {
            continue;
        }
        list.push(game);
    }
    let note = (args.random_plies > 0).then(|| format!("end of the random opening ({} plies)", args.random_plies));
    Ok((list, note))
}

/// Progress on standard error: a bar on a terminal, a line per game in a pipe.
/// A match's progress: a line per finished game, and on a terminal a bar
/// under them.
struct Progress {
    bar: indicatif::ProgressBar,
}

impl Progress {
    fn new(total: usize) -> Progress {
        let bar = if std::io::stderr().is_terminal() {
            let style = indicatif::ProgressStyle::with_template("[{bar:30}] {pos}/{len}  {msg}")
                .expect("a valid template")
                .progress_chars("#>-");
            indicatif::ProgressBar::new(total as u64).with_style(style)
        } else {
            indicatif::ProgressBar::hidden()
        };
        Progress { bar }
    }

    fn update(&self, done: usize, total: usize, tally: &Tally, last: &Finished, names: [&str; 2], engine1_white: bool) {
        let (lo, hi) = tally.score_interval();
        let summary = format!(
            "+{} ={} -{}  score {:.1}% [{:.1}, {:.1}]",
            tally.wins,
            tally.draws,
            tally.losses,
            100.0 * tally.score(),
            100.0 * lo,
            100.0 * hi
        );
        let (w, b) = if engine1_white { (names[0], names[1]) } else { (names[1], names[0]) };
        let line = format!(
            "game {} ({done}/{total}): {w} - {b} {} ({}, {} plies)  {summary}",
            last.index + 1,
            monte_rules::result_string(last.winner),
            last.reason,
            last.plies
        );
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
            self.bar.set_message(summary);
            self.bar.set_position(done as u64);
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

pub fn run(args: &MatchArgs) -> Result<()> {
    with_game!(args.pos.game, P => run_game::<P>(args))
}

fn run_game<P: EngineGame>(args: &MatchArgs) -> Result<()>
where
    P::Rules: RepetitionRule,
{
    let specs: [EngineSpec; 2] = [args.engine1.parse()?, args.engine2.parse()?];
    if args.games == 0 {
        bail!("--games must be 1 or more");
    }
    if args.concurrency == 0 {
        bail!("--concurrency must be 1 or more");
    }
    if args.movetime == Some(0) || args.nodes == Some(0) {
        bail!("--movetime and --nodes must be more than 0");
    }
    if args.max_plies == 0 {
        bail!("--max-plies must be 1 or more");
    }
    for spec in &specs {
        // A game has a script when its evaluation plays it: asked in the
        // start position, where every script has a move to make.
        if let EngineKind::Script(script) = spec.kind
            && P::start(args.pos.rules()?).scripted_move(script, &mut Rng::new(args.seed)).is_none()
        {
            bail!("engine `{}`: {} has no {} script", spec.name, P::KIND, script.name());
        }
        if let Some(w) = &spec.weights
            && w.len() != P::weights().len()
        {
            bail!(
                "engine `{}`: {} weights given, {} takes {} ({})",
                spec.name,
                w.len(),
                P::KIND,
                P::weights().len(),
                P::feature_names().join("/")
            );
        }
    }
    let movetime = args.movetime.map(Duration::from_millis);
    let mut limits = [Limits::default(); 2];
    for (i, spec) in specs.iter().enumerate() {
        limits[i] = spec.limits(movetime, args.nodes).with_context(|| {
            format!("engine `{}` has no limit: give --movetime or --nodes, or a limit in the setting", spec.name)
        })?;
    }
    let pairs = args.games.div_ceil(2);
    let (openings, note) = openings::<P>(args, pairs)?;
    let mut records = match &args.records {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        )),
        None => None,
    };
    let names = [specs[0].name.as_str(), specs[1].name.as_str()];
    let opening_text = match &args.openings {
        Some(p) => format!("from {}", p.display()),
        None => format!("{} random plies, seed {}", args.random_plies, args.seed),
    };
    let limit_text = |l: &Limits| {
        let mut parts = Vec::new();
        if let Some(d) = l.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = l.nodes {
            parts.push(format!("{n} nodes"));
        }
        if let Some(t) = l.movetime {
            parts.push(format!("{} ms", t.as_millis()));
        }
        parts.join(", ")
    };
    let rules: P::Rules = args.pos.rules()?;
    println!(
        "match {} {}: {} ({}) vs {} ({}), {} games, openings {opening_text}, max {} plies",
        P::KIND,
        rules,
        names[0],
        limit_text(&limits[0]),
        names[1],
        limit_text(&limits[1]),
        args.games,
        args.max_plies
    );
    let progress = Progress::new(args.games);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<Result<Finished>>();
    let mut tally = Tally::default();
    let mut by_colour = [Tally::default(); 2];
    let mut endings: BTreeMap<String, u64> = BTreeMap::new();
    let mut decision = None;
    let mut stats = [MoveStats::default(); 2];
    let began = Instant::now();
    let outcome: Result<()> = std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for _ in 0..args.concurrency.min(args.games) {
            let send = send.clone();
            let (next, stop, openings, specs, note) = (&next, &stop, &openings, &specs, note.as_deref());
            workers.push(scope.spawn(move || {
                let mut players = [Player::new(&specs[0], limits[0]), Player::new(&specs[1], limits[1])];
                while !stop.load(Ordering::Relaxed) {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= args.games {
                        break;
                    }
                    let seed = mix(args.seed, g as u64 + 1);
                    players[0].new_game(seed);
                    players[1].new_game(seed ^ 0xA5A5_A5A5);
                    let [p1, p2] = &mut players;
                    // Even games: engine 1 is White.
                    let order = if g % 2 == 0 { [p1, p2] } else { [p2, p1] };
                    let r = play_game(g, &openings[g / 2], note, order, args.max_plies);
                    let failed = r.is_err();
                    if send.send(r).is_err() || failed {
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                }
                [players[0].stats, players[1].stats]
            }));
        }
        drop(send);
        let mut pending: BTreeMap<usize, String> = BTreeMap::new();
        let mut written = 0;
        let mut done = 0;
        for r in receive {
            let f = r?;
            done += 1;
            let engine1_white = f.index % 2 == 0;
            let engine1_side = if engine1_white { Side::White } else { Side::Black };
            let colour = &mut by_colour[usize::from(!engine1_white)];
            match f.winner {
                None => {
                    tally.draws += 1;
                    colour.draws += 1;
                }
                Some(w) if w == engine1_side => {
                    tally.wins += 1;
                    colour.wins += 1;
                }
                Some(_) => {
                    tally.losses += 1;
                    colour.losses += 1;
                }
            }
            *endings.entry(f.reason.clone()).or_insert(0) += 1;
            progress.update(done, args.games, &tally, &f, names, engine1_white);
            // Records in game order, whatever order the games end in, each
            // flushed as it is written: a match stopped early (Ctrl-C) keeps
            // every game written so far, and no record is left half-written.
            pending.insert(f.index, f.record);
            while let Some(text) = pending.remove(&written) {
                if let Some(w) = records.as_mut() {
                    writeln!(w, "{text}")?;
                    w.flush()?;
                }
                written += 1;
            }
            if let Some(sprt) = &args.sprt
                && decision.is_none()
            {
                decision = sprt.decision(&tally);
                if decision.is_some() {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        for w in workers {
            let s = w.join().expect("match worker");
            for i in 0..2 {
                stats[i].moves += s[i].moves;
                stats[i].nodes += s[i].nodes;
                stats[i].time += s[i].time;
                stats[i].depth += s[i].depth;
            }
        }
        // Games that ended after a gap (an error) are still written.
        for text in pending.into_values() {
            if let Some(w) = records.as_mut() {
                writeln!(w, "{text}")?;
            }
        }
        Ok(())
    });
    progress.finish();
    outcome?;
    if let Some(w) = records.as_mut() {
        w.flush()?;
    }
    print!("{}", summary(names, &tally, &by_colour, &endings, &stats, args.sprt.as_ref(), decision));
    println!("time {:.1} s", began.elapsed().as_secs_f64());
    if let Some(p) = &args.records {
        println!("records {} ({} games)", p.display(), tally.games());
    }
    Ok(())
}

fn summary(
    names: [&str; 2],
    tally: &Tally,
    by_colour: &[Tally; 2],
    endings: &BTreeMap<String, u64>,
    stats: &[MoveStats; 2],
    sprt: Option<&Sprt>,
    decision: Option<bool>,
) -> String {
    let mut out = String::new();
    let (elo, lo, hi) = tally.elo();
    let (slo, shi) = tally.score_interval();
    let _ = writeln!(
        out,
        "{} vs {}: games {}  wins {}  draws {}  losses {}",
        names[0],
        names[1],
        tally.games(),
        tally.wins,
        tally.draws,
        tally.losses
    );
    let _ = writeln!(
        out,
        "score {:.1}% [95%: {:.1}%, {:.1}%]  elo {} [95%: {}, {}]",
        100.0 * tally.score(),
        100.0 * slo,
        100.0 * shi,
        format_elo(elo),
        format_elo(lo),
        format_elo(hi)
    );
    for (tally, colour) in by_colour.iter().zip(["White", "Black"]) {
        let _ = writeln!(
            out,
            "{} as {colour}: wins {}  draws {}  losses {}",
            names[0], tally.wins, tally.draws, tally.losses
        );
    }
    let endings: Vec<String> = endings.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(out, "endings: {}", endings.join(", "));
    for (name, s) in names.iter().zip(stats) {
        let m = s.moves.max(1) as f64;
        let _ = writeln!(
            out,
            "{name}: {} moves, {:.0} nodes/move, depth {:.1}, {:.1} ms/move",
            s.moves,
            s.nodes as f64 / m,
            s.depth as f64 / m,
            s.time.as_secs_f64() * 1000.0 / m
        );
    }
    if let Some(sprt) = sprt {
        let (lower, upper) = sprt.bounds();
        let verdict = match decision {
            Some(true) => format!("H1 accepted (elo >= {})", sprt.elo1),
            Some(false) => format!("H0 accepted (elo <= {})", sprt.elo0),
            None => "no decision".to_string(),
        };
        let _ = writeln!(
            out,
            "sprt elo0 {} elo1 {} alpha {} beta {}: llr {:.2} [{:.2}, {:.2}] {verdict}",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            tally.llr(sprt),
            lower,
            upper
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn elo_of_known_scores() {
        assert!(close(elo_from_score(0.75), 190.848, 0.001));
        assert!(close(elo_from_score(0.5), 0.0, 1e-9));
        assert!(close(elo_from_score(0.9), 381.697, 0.001));
        assert!(close(elo_from_score(0.25), -190.848, 0.001));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert!(close(score_from_elo(400.0), 10.0 / 11.0, 1e-12));
    }

    #[test]
    fn interval_without_draws_is_wilsons() {
        // Wilson 95% interval for 7 successes in 10: [0.3968, 0.8922].
        let t = Tally { wins: 7, draws: 0, losses: 3 };
        let (lo, hi) = t.score_interval();
        assert!(close(lo, 0.3968, 1e-4) && close(hi, 0.8922, 1e-4), "{lo} {hi}");
        // All won: [n / (n + z^2), 1].
        let t = Tally { wins: 100, draws: 0, losses: 0 };
        let (lo, hi) = t.score_interval();
        assert!(close(lo, 100.0 / (100.0 + Z95 * Z95), 1e-12) && hi == 1.0);
        let (elo, elo_lo, elo_hi) = t.elo();
        assert!(elo.is_infinite() && close(elo_lo, 566.2, 0.1) && elo_hi.is_infinite());
    }

    #[test]
    fn interval_with_draws_approaches_the_normal_interval() {
        // Many games: close to score +- 1.96 * sd / sqrt(n).
        let t = Tally { wins: 4000, draws: 3000, losses: 3000 };
        let s = t.score();
        assert!(close(s, 0.55, 1e-12));
        let sd = t.variance().sqrt();
        let half = Z95 * sd / (t.games() as f64).sqrt();
        let (lo, hi) = t.score_interval();
        assert!(close(lo, s - half, 1e-4) && close(hi, s + half, 1e-4), "{lo} {hi} {half}");
        // Won or drawn, never lost: the upper bound stays below 100%.
        let (lo, hi) = Tally { wins: 16, draws: 4, losses: 0 }.score_interval();
        assert!(close(lo, 0.73260, 1e-4) && close(hi, 0.95967, 1e-4), "{lo} {hi}");
        // All drawn: an interval around 50%, not a point.
        let (lo, hi) = Tally { wins: 0, draws: 20, losses: 0 }.score_interval();
        assert!(close(lo, 0.41944, 1e-4) && close(hi, 0.58056, 1e-4), "{lo} {hi}");
        // Draws narrow the interval.
        let without = Tally { wins: 55, draws: 0, losses: 45 }.score_interval();
        let with = Tally { wins: 30, draws: 50, losses: 20 }.score_interval();
        assert!(with.1 - with.0 < without.1 - without.0);
    }

    #[test]
    fn sprt_bounds_and_llr() {
        let sprt = Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 };
        let (lower, upper) = sprt.bounds();
        assert!(close(lower, -2.944_439, 1e-6) && close(upper, 2.944_439, 1e-6));
        // LLR = n (s1 - s0)(2 s - s0 - s1) / (2 var), worked by hand:
        // s0 = 0.5, s1 = 0.5143872, n = 500, s = 0.55, var = 0.1975.
        let t = Tally { wins: 225, draws: 100, losses: 175 };
        assert!(close(t.variance(), 0.1975, 1e-12));
        assert!(close(t.llr(&sprt), 1.559_149, 1e-5), "{}", t.llr(&sprt));
        assert_eq!(sprt.decision(&t), None);
        // The same results twice as often: twice the LLR, past the bound.
        let more = Tally { wins: 450, draws: 200, losses: 350 };
        assert!(close(more.llr(&sprt), 3.118_297, 1e-5));
        assert_eq!(sprt.decision(&more), Some(true));
        // Even: s = 0.5, var = 0.15, LLR = -3.449851.
        let even = Tally { wins: 1500, draws: 2000, losses: 1500 };
        assert!(close(even.llr(&sprt), -3.449_851, 1e-5));
        assert_eq!(sprt.decision(&even), Some(false));
        assert_eq!(Tally { wins: 5, draws: 0, losses: 0 }.llr(&sprt), 0.0);
    }

    #[test]
    fn sprt_text() {
        assert_eq!(parse_sprt("0, 50,0.05,0.1"), Ok(Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.1 }));
        assert!(parse_sprt("0,50,0.05").unwrap_err().contains("four numbers"));
        assert!(parse_sprt("10,0,0.05,0.05").unwrap_err().contains("greater"));
        assert!(parse_sprt("0,10,0.7,0.05").unwrap_err().contains("between 0 and 0.5"));
        assert!(parse_sprt("0,x,0.05,0.05").unwrap_err().contains("`x`"));
    }

    #[test]
    fn engine_settings() {
        let s: EngineSpec = "level=8".parse().unwrap();
        assert_eq!(s.kind, EngineKind::Level(level(8).unwrap()));
        assert_eq!(s.threads, 2);
        let s: EngineSpec = "level=8,threads=1".parse().unwrap();
        assert_eq!((s.threads, s.name.as_str()), (1, "level=8,threads=1"));
        let s: EngineSpec = "ab:depth=4,hash=32".parse().unwrap();
        assert_eq!((s.kind, s.depth, s.hash_mb), (EngineKind::AlphaBeta, Some(4), 32));
        let s: EngineSpec = "mcts:playouts=2000,c=2.5".parse().unwrap();
        assert_eq!(s.nodes, Some(2000));
        assert!(matches!(s.kind, EngineKind::Mcts(o) if o.exploration == 2.5 && o.leaf == Leaf::Evaluation));
        let s: EngineSpec = "uct:plies=50".parse().unwrap();
        assert!(matches!(s.kind, EngineKind::Mcts(o) if o.leaf == Leaf::RandomPlayout { max_plies: 50 }));
        assert_eq!("uct".parse::<EngineSpec>().unwrap().nodes, None);
        assert!("level=8".parse::<EngineSpec>().unwrap().null_move);
        assert!(!"level=8,nullmove=0".parse::<EngineSpec>().unwrap().null_move);
        assert!("ab:nullmove=on".parse::<EngineSpec>().unwrap().null_move);
        let spec = "level=8".parse::<EngineSpec>().unwrap();
        assert!(spec.futility && spec.lookahead);
        let spec = "level=8,futility=0,lookahead=off".parse::<EngineSpec>().unwrap();
        assert!(!spec.futility && !spec.lookahead);
        assert!("ab:futility=1,lookahead=on".parse::<EngineSpec>().unwrap().lookahead);
        assert_eq!("level=8".parse::<EngineSpec>().unwrap().contempt, DEFAULT_CONTEMPT);
        assert_eq!("level=8,contempt=0".parse::<EngineSpec>().unwrap().contempt, 0);
        assert_eq!("ab:contempt=-50".parse::<EngineSpec>().unwrap().contempt, -50);
        assert!("level=8,eval=classic".parse::<EngineSpec>().unwrap().classic);
        assert!(!"level=8".parse::<EngineSpec>().unwrap().classic);
        assert_eq!("ab:weights=100/-5/0".parse::<EngineSpec>().unwrap().weights, Some(vec![100, -5, 0]));
        let l5 = level(5).unwrap();
        let s: EngineSpec = "level=5,plan=90,noise=30".parse().unwrap();
        assert_eq!(s.kind, EngineKind::Level(Level { plan_share: 90, noise: 30, ..l5 }));
        assert_eq!(s.name, "level=5,plan=90,noise=30");
        let s: EngineSpec = "level=5,noise=0".parse().unwrap();
        assert_eq!(s.kind, EngineKind::Level(Level { noise: 0, ..l5 }));
        let s: EngineSpec = "level=5,depth=5,noise=30".parse().unwrap();
        assert_eq!(s.kind, EngineKind::Level(Level { depth: Some(5), noise: 30, ..l5 }));
        let l6 = level(6).unwrap();
        let s: EngineSpec = "level=6,noise=5,depth=8".parse().unwrap();
        assert_eq!(s.kind, EngineKind::Level(Level { depth: Some(8), noise: 5, ..l6 }));
        // With noise, so with `depth=`, a level beyond 5 takes a share too.
        let s: EngineSpec = "level=6,depth=8,noise=5,plan=50".parse().unwrap();
        assert_eq!(s.kind, EngineKind::Level(Level { depth: Some(8), noise: 5, plan_share: 50, ..l6 }));
        let s: EngineSpec = "level=8,plan=100".parse().unwrap();
        assert_eq!(s.kind, EngineKind::Level(level(8).unwrap()));
        assert_eq!("runner".parse::<EngineSpec>().unwrap().kind, EngineKind::Script(Script::Runner));
        assert_eq!("blocker".parse::<EngineSpec>().unwrap().kind, EngineKind::Script(Script::Blocker));
    }

    #[test]
    fn bad_engine_settings_are_named() {
        let err = |s: &str| s.parse::<EngineSpec>().unwrap_err().to_string();
        assert!(err("stockfish").contains("unknown engine `stockfish`"));
        assert!(err("level=9").contains("level must be a number from 1 to 8"));
        assert!(err("level=").contains("level must be"));
        assert!(err("ab:depth=x").contains("bad value `x` for depth"));
        assert!(err("ab:depth=0").contains("depth must be more than 0"));
        assert!(err("ab:c=2").contains("unknown option `c`"));
        assert!(err("mcts:playouts").contains("`playouts` is not key=value"));
        assert!(err("uct:scale=3").contains("unknown option `scale`"));
        assert!(err("ab:nullmove=yes").contains("nullmove must be 0 or 1"));
        assert!(err("level=8,lookahead=2").contains("lookahead must be 0 or 1"));
        assert!(err("mcts:futility=0").contains("unknown option `futility`"));
        assert!(err("mcts:nullmove=0").contains("unknown option `nullmove`"));
        assert!(err("ab:contempt=x").contains("bad value `x` for contempt"));
        assert!(err("ab:contempt=-2147483648").contains("contempt must be from -1000 to 1000"));
        assert!(err("level=8,eval=old").contains("eval must be `current` or `classic`"));
        assert!(err("ab:weights=1/x").contains("bad value `x` for weights"));
        assert!(err("runner:depth=2").contains("unknown option `depth`"));
        assert!(err("level=5,plan=101").contains("plan must be a share from 0 to 100"));
        assert!(err("level=5,plan=x").contains("plan must be a share from 0 to 100"));
        assert!(err("level=5,noise=-1").contains("noise must be from 0 to 100000"));
        assert!(err("level=5,noise=y").contains("bad value `y` for noise"));
        assert!(err("level=6,noise=15").contains("noise needs a depth limit"));
        assert!(err("level=5,depth=0").contains("depth must be more than 0"));
        let plan_without_noise = "plan below 100 needs a level with noise above 0";
        assert!(err("level=8,plan=50").ends_with(plan_without_noise));
        assert!(err("level=5,plan=50,noise=0").ends_with(plan_without_noise));
        assert!(err("ab:plan=90").contains("unknown option `plan`"));
    }

    #[test]
    fn limits_come_from_the_setting_then_the_match() {
        let ms = |m| Some(Duration::from_millis(m));
        let ab: EngineSpec = "ab:depth=3".parse().unwrap();
        assert_eq!(ab.limits(ms(100), None), Some(Limits::depth(3)));
        let ab: EngineSpec = "ab".parse().unwrap();
        assert_eq!(ab.limits(None, Some(500)), Some(Limits::nodes(500)));
        assert_eq!(ab.limits(None, None), None);
        let uct: EngineSpec = "uct".parse().unwrap();
        assert_eq!(uct.limits(ms(50), None), Some(Limits::movetime(Duration::from_millis(50))));
        let l8: EngineSpec = "level=8".parse().unwrap();
        assert_eq!(l8.limits(ms(50), None).unwrap().movetime, ms(50));
        assert_eq!(l8.limits(None, None).unwrap().movetime, ms(6000));
        let l8 = l8.limits(None, Some(1000)).unwrap();
        assert_eq!((l8.nodes, l8.movetime), (Some(1000), None));
        let l7: EngineSpec = "level=7,nodes=300".parse().unwrap();
        let l7 = l7.limits(None, Some(1000)).unwrap();
        assert_eq!((l7.nodes, l7.movetime, l7.depth), (Some(300), None, None));
        let l2: EngineSpec = "level=2".parse().unwrap();
        assert_eq!(l2.limits(None, None).unwrap().depth, Some(2));
    }
}
