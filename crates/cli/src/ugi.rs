//! `monte ugi`: the UGI engine protocol (Universal Game Interface, as the
//! Cute Games tournament runner speaks it) on standard input and output.
//! docs/protocol.md describes the commands with an example session.
//!
//! The main thread reads commands; a search runs on a thread of its own,
//! so `isready`, `stop`, `quit` and `query` are answered while it thinks.
//! A command that is unknown or malformed gets `info string error: ...`
//! and changes nothing.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Result;
use monte_engine::ai::{Choice, choose_any, search_any};
use monte_engine::{Clock, DEFAULT_CONTEMPT, Level, Limits, MAX_CONTEMPT, SearchInfo, SearchOptions, Searcher};
use monte_rules::any::AnyGame;
use monte_rules::{GameKind, Rng, Side, Status};

const MAX_THREADS: usize = 256;
const MAX_HASH_MB: usize = 4096;
const DEFAULT_HASH_MB: usize = 64;
/// Searches recurse deeply with move lists on the stack.
const SEARCH_STACK_BYTES: usize = 64 << 20;

/// Send one line to the runner. When it has gone away there is nobody
/// left to play for: end the process.
fn send(line: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

/// Run the protocol until `quit` or the end of the input.
pub fn run(kind: GameKind, rules: &str) -> Result<()> {
    let mut engine = Engine::new(kind, rules)?;
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        if !engine.command(&line?) {
            break;
        }
    }
    engine.stop_search();
    Ok(())
}

/// A search in progress.
struct RunningSearch {
    stop: Arc<AtomicBool>,
    /// Set just before `bestmove` is sent: the search is over.
    answered: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// What `go` asks for.
#[derive(Debug, Default, PartialEq, Eq)]
struct Go {
    p1time: Option<u64>,
    p2time: Option<u64>,
    p1inc: Option<u64>,
    p2inc: Option<u64>,
    movestogo: Option<u32>,
    movetime: Option<u64>,
    depth: Option<u32>,
    nodes: Option<u64>,
    infinite: bool,
}

impl Go {
    fn parse(words: &[&str]) -> Result<Go, String> {
        fn number<T: std::str::FromStr>(name: &str, value: Option<&&str>) -> Result<Option<T>, String> {
            match value {
                None => Err(format!("go: `{name}` needs a number")),
                Some(v) => v.parse().map(Some).map_err(|_| format!("go: `{name} {v}`: not a number 0 or more")),
            }
        }
        let mut go = Go::default();
        let mut words = words.iter();
        while let Some(&word) = words.next() {
            match word {
                "p1time" => go.p1time = number(word, words.next())?,
                "p2time" => go.p2time = number(word, words.next())?,
                "p1inc" => go.p1inc = number(word, words.next())?,
                "p2inc" => go.p2inc = number(word, words.next())?,
                "movestogo" => go.movestogo = number(word, words.next())?,
                "movetime" => go.movetime = number(word, words.next())?,
                "depth" => go.depth = number(word, words.next())?,
                "nodes" => go.nodes = number(word, words.next())?,
                "infinite" => go.infinite = true,
                other => {
                    return Err(format!(
                        "go: unknown parameter `{other}` (known: p1time p2time p1inc p2inc movestogo movetime depth \
                         nodes infinite)"
                    ));
                }
            }
        }
        Ok(go)
    }

    /// The clock of the side to move, if the runner gave its time.
    fn clock(&self, side: Side) -> Option<Clock> {
        let (time, inc) = match side {
            Side::White => (self.p1time, self.p1inc),
            Side::Black => (self.p2time, self.p2inc),
        };
        time.map(|t| Clock {
            time_left: Duration::from_millis(t),
            increment: Duration::from_millis(inc.unwrap_or(0)),
            moves_to_go: self.movestogo,
        })
    }

    /// Full-strength limits; none at all (search until `stop`) for
    /// `infinite` or a bare `go`.
    fn limits(&self, side: Side) -> Limits {
        if self.infinite {
            return Limits::default();
        }
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime.map(Duration::from_millis),
            clock: self.clock(side),
        }
    }
}

struct Engine {
    kind: GameKind,
    /// The rule set in its text form, valid for `kind`.
    rules: String,
    /// The current position with the moves that led to it (repetition).
    game: AnyGame,
    /// `None`: full strength within `go`'s limits.
    level: Option<Level>,
    threads: usize,
    hash_mb: usize,
    contempt: i32,
    searcher: Arc<Searcher>,
    search: Option<RunningSearch>,
    /// Draws the seed of each noisy level's choices.
    seeds: Rng,
}

impl Engine {
    fn new(kind: GameKind, rules: &str) -> Result<Engine> {
        let game = AnyGame::new(kind, rules, None)?;
        let threads = 1;
        let hash_mb = DEFAULT_HASH_MB;
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1);
        Ok(Engine {
            kind,
            rules: game.rules(),
            game,
            level: None,
            threads,
            hash_mb,
            contempt: DEFAULT_CONTEMPT,
            searcher: Arc::new(Searcher::new(SearchOptions { hash_mb, threads, ..Default::default() })),
            search: None,
            seeds: Rng::new(seed),
        })
    }

    /// Handle one line; `false` after `quit`.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&first, rest)) = words.split_first() else {
            return true;
        };
        self.collect_finished_search();
        let result = match first {
            "ugi" => {
                self.identify();
                Ok(())
            }
            "isready" => {
                send("readyok");
                Ok(())
            }
            "setoption" => self.idle("setoption").and_then(|()| self.set_option(rest)),
            "uginewgame" => self.idle("uginewgame").map(|()| self.new_game()),
            "position" => self.idle("position").and_then(|()| self.set_position(rest)),
            "go" => self.idle("go").and_then(|()| self.go(rest)),
            "stop" => {
                self.stop_search();
                Ok(())
            }
            "quit" => return false,
            "query" => self.query(rest),
            other => Err(format!("unknown command `{other}`")),
        };
        if let Err(e) = result {
            send(&format!("info string error: {e}"));
        }
        true
    }

    fn identify(&self) {
        send(&format!("id name Monte {}", env!("CARGO_PKG_VERSION")));
        send("id author the Monte authors");
        let games: String = GameKind::ALL.iter().map(|kind| format!(" var {kind}")).collect();
        send(&format!("option name Game type combo default {}{games}", self.kind));
        send(&format!("option name Rules type string default {}", self.rules));
        send("option name Level type spin default 0 min 0 max 8");
        send(&format!("option name Threads type spin default {} min 1 max {MAX_THREADS}", self.threads));
        send(&format!("option name Hash type spin default {} min 1 max {MAX_HASH_MB}", self.hash_mb));
        send(&format!("option name Contempt type spin default {} min 0 max {MAX_CONTEMPT}", self.contempt));
        send("ugiok");
    }

    /// Commands that change the engine wait for the search to end.
    fn idle(&self, command: &str) -> Result<(), String> {
        match self.search {
            Some(_) => Err(format!("{command}: a search is running; send `stop` first")),
            None => Ok(()),
        }
    }

    /// Join a search that has sent its `bestmove`.
    fn collect_finished_search(&mut self) {
        if let Some(s) = &self.search
            && (s.answered.load(Ordering::Acquire) || s.thread.is_finished())
        {
            self.stop_search();
        }
    }

    /// Stop a search (it still sends its `bestmove`) and wait for it.
    fn stop_search(&mut self) {
        if let Some(s) = self.search.take() {
            s.stop.store(true, Ordering::Relaxed);
            if s.thread.join().is_err() {
                send("info string error: the search failed");
            }
        }
    }

    fn set_option(&mut self, words: &[&str]) -> Result<(), String> {
        let usage = "setoption: expected `setoption name <name> value <value>`";
        if words.first() != Some(&"name") {
            return Err(usage.to_string());
        }
        let at = words.iter().position(|w| *w == "value").ok_or(usage)?;
        let name = words[1..at].join(" ");
        let value = words[at + 1..].join(" ");
        if name.is_empty() || value.is_empty() {
            return Err(usage.to_string());
        }
        let number = |min: usize, max: usize| -> Result<usize, String> {
            value
                .parse::<usize>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| format!("setoption {name}: `{value}` is not a number {min}-{max}"))
        };
        match name.to_ascii_lowercase().as_str() {
            "game" => {
                let kind: GameKind = value.parse().map_err(|e| format!("setoption Game: {e}"))?;
                // Keep the rule set if the new game has it (`seed`, or
                // options both games know), else the new game's default.
                let game = AnyGame::new(kind, &self.rules, None)
                    .or_else(|_| AnyGame::new(kind, "seed", None))
                    .map_err(|e| format!("setoption Game: {e}"))?;
                if game.rules() != self.rules {
                    send(&format!("info string rules {} (the {kind} default)", game.rules()));
                }
                self.kind = kind;
                self.rules = game.rules();
                self.game = game;
                self.searcher.clear();
            }
            "rules" => {
                let game = AnyGame::new(self.kind, &value, None).map_err(|e| format!("setoption Rules: {e}"))?;
                self.rules = game.rules();
                self.game = game;
                self.searcher.clear();
            }
            "level" => {
                let n = number(0, 8)?;
                self.level = if n == 0 { None } else { monte_engine::level(n as u8) };
            }
            "threads" => {
                self.threads = number(1, MAX_THREADS)?;
                self.new_searcher();
            }
            "hash" => {
                self.hash_mb = number(1, MAX_HASH_MB)?;
                self.new_searcher();
            }
            "contempt" => {
                self.contempt = number(0, MAX_CONTEMPT as usize)? as i32;
                self.new_searcher();
            }
            _ => {
                return Err(format!(
                    "setoption: unknown option `{name}` (known: Game, Rules, Level, Threads, Hash, Contempt)"
                ));
            }
        }
        Ok(())
    }

    /// A searcher with the current options (what it learnt is forgotten).
    fn new_searcher(&mut self) {
        self.searcher = Arc::new(Searcher::new(SearchOptions {
            hash_mb: self.hash_mb,
            threads: self.threads,
            contempt: self.contempt,
            ..Default::default()
        }));
    }

    fn new_game(&mut self) {
        self.searcher.clear();
        self.game = AnyGame::new(self.kind, &self.rules, None).expect("the rule set was checked when it was set");
    }

    /// `position startpos|fen <position> [moves <m1> <m2> ...]`: built
    /// aside and taken only when every part is right.
    fn set_position(&mut self, words: &[&str]) -> Result<(), String> {
        let (fen, rest) = match words.split_first() {
            Some((&"startpos", rest)) => (None, rest),
            Some((&"fen", rest)) => {
                let end = rest.iter().position(|w| *w == "moves").unwrap_or(rest.len());
                if end == 0 {
                    return Err("position fen: the position string is missing".to_string());
                }
                (Some(rest[..end].join(" ")), &rest[end..])
            }
            _ => return Err("position: expected `position startpos` or `position fen <position>`".to_string()),
        };
        let moves = match rest.split_first() {
            None => &[][..],
            Some((&"moves", moves)) => moves,
            Some((word, _)) => return Err(format!("position: expected `moves`, found `{word}`")),
        };
        let mut game = AnyGame::new(self.kind, &self.rules, fen.as_deref()).map_err(|e| format!("position: {e}"))?;
        for (i, mv) in moves.iter().enumerate() {
            game.play(mv).map_err(|e| format!("position: move {} `{mv}`: {e}", i + 1))?;
        }
        self.game = game;
        Ok(())
    }

    fn go(&mut self, words: &[&str]) -> Result<(), String> {
        let go = Go::parse(words)?;
        if let Status::Over(outcome) = self.game.status() {
            // A runner waits for `bestmove`: give it one that is no move.
            send(&format!("info string error: go: the game is over: {outcome}"));
            send("bestmove none");
            return Ok(());
        }
        let side = self.game.side_to_move();
        let game = self.game.clone();
        let searcher = Arc::clone(&self.searcher);
        let level = self.level;
        let clock = go.clock(side);
        let limits = go.limits(side);
        let mut noise = Rng::new(self.seeds.next_u64());
        let stop = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicBool::new(false));
        let (thread_stop, thread_answered) = (Arc::clone(&stop), Arc::clone(&answered));
        let thread = std::thread::Builder::new()
            .name("search".to_string())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let stop = &thread_stop;
                let mut on_info = |info: &SearchInfo| send(&info_line(info));
                let result = match level {
                    Some(level) => choose_any(&searcher, &game, &level, clock, &mut noise, stop, &mut on_info),
                    None => search_any(&searcher, &game, &limits, stop, &mut on_info),
                };
                match result {
                    Ok(choice) => {
                        send(&final_info_line(&choice));
                        thread_answered.store(true, Ordering::Release);
                        send(&format!("bestmove {}", choice.mv));
                    }
                    Err(e) => {
                        send(&format!("info string error: go: {e}"));
                        thread_answered.store(true, Ordering::Release);
                        send("bestmove none");
                    }
                }
            })
            .map_err(|e| format!("go: cannot start the search: {e}"))?;
        self.search = Some(RunningSearch { stop, answered, thread });
        Ok(())
    }

    fn query(&self, words: &[&str]) -> Result<(), String> {
        let status = self.game.status();
        let answer = match words {
            ["gameover"] => if status.is_over() { "true" } else { "false" }.to_string(),
            ["p1turn"] => if self.game.side_to_move() == Side::White { "true" } else { "false" }.to_string(),
            ["result"] => match status {
                Status::Ongoing => "none",
                Status::Over(o) => match o.winner {
                    Some(Side::White) => "p1win",
                    Some(Side::Black) => "p2win",
                    None => "draw",
                },
            }
            .to_string(),
            _ => return Err(format!("query: expected `gameover`, `p1turn` or `result`, found `{}`", words.join(" "))),
        };
        send(&format!("response {answer}"));
        Ok(())
    }
}

/// One iteration of the search.
fn info_line(info: &SearchInfo) -> String {
    format!(
        "info depth {} seldepth {} score {} nodes {} nps {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.score,
        info.nodes,
        info.nps,
        info.time.as_millis(),
        info.pv.join(" ")
    )
}

/// The search's total, sent just before `bestmove`.
fn final_info_line(choice: &Choice<String>) -> String {
    let nps = (choice.nodes as f64 / choice.time.as_secs_f64().max(1e-6)) as u64;
    format!(
        "info depth {} score {} nodes {} nps {nps} time {} pv {}",
        choice.depth,
        choice.score,
        choice.nodes,
        choice.time.as_millis(),
        choice.pv.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_parameters() {
        let go = Go::parse(&["p1time", "1000", "p2time", "2000", "p1inc", "10", "p2inc", "20"]).unwrap();
        let white = go.clock(Side::White).unwrap();
        assert_eq!((white.time_left, white.increment), (Duration::from_millis(1000), Duration::from_millis(10)));
        let black = go.limits(Side::Black).clock.unwrap();
        assert_eq!((black.time_left, black.increment), (Duration::from_millis(2000), Duration::from_millis(20)));
        assert_eq!(Go::parse(&["depth", "3"]).unwrap().limits(Side::White), Limits::depth(3));
        assert_eq!(Go::parse(&["nodes", "500"]).unwrap().limits(Side::Black), Limits::nodes(500));
        assert_eq!(
            Go::parse(&["movetime", "20"]).unwrap().limits(Side::White),
            Limits::movetime(Duration::from_millis(20))
        );
        assert_eq!(Go::parse(&["infinite"]).unwrap().limits(Side::White), Limits::default());
        assert_eq!(Go::parse(&[]).unwrap().limits(Side::White), Limits::default());
        assert!(Go::parse(&["depth"]).unwrap_err().contains("needs a number"));
        assert!(Go::parse(&["depth", "-1"]).unwrap_err().contains("not a number"));
        assert!(Go::parse(&["ponder"]).unwrap_err().contains("unknown parameter `ponder`"));
    }
}
