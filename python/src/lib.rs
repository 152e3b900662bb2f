//! The `monte` Python package: Salta and Focus from Python.
//!
//! A thin layer over the rules crate's [`AnyGame`] (positions and moves as
//! text) and the engine's `choose_any`/`search_any`: every rule is the rules
//! crate's, and every error it reports reaches Python as a `ValueError`
//! carrying its message. The Python-facing names and docstrings are
//! mirrored in `monte/_monte.pyi`.

mod batch;
mod encoding;
mod perft;
mod pool;

use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::Duration;

use monte_engine::ai::{Choice, choose_any, search_any};
use monte_engine::{Level, Limits, Score, SearchOptions, Searcher};
use monte_rules::any::AnyGame;
use monte_rules::record::{RESULTS, Record};
use monte_rules::{GameKind, Outcome, RenderStyle, Rng, Side, each_game};
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Any error of the rules or the engine, as Python's `ValueError` with the
/// same message.
fn value_error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A count from Python (an int of any size) that must fit `T`: a negative
/// or huge one is a `ValueError`, not an `OverflowError`.
fn count<T: TryFrom<i64>>(what: &str, value: i64) -> PyResult<T> {
    T::try_from(value).map_err(|_| value_error(format!("{what} {value}: out of range")))
}

/// A side named as Python names it: `"white"` or `"black"`.
fn side_named(name: &str) -> PyResult<Side> {
    Side::BOTH
        .into_iter()
        .find(|side| side.key() == name)
        .ok_or_else(|| value_error(format!("side `{name}`: expected white or black")))
}

/// An int argument (a numpy int too) that must fit `T`: one out of range,
/// however large, is a `ValueError` (not an `OverflowError`); not an int,
/// a `TypeError`.
fn int_argument<T: TryFrom<i64>>(what: &str, value: &Bound<'_, PyAny>) -> PyResult<T> {
    let n: i64 = value.extract().map_err(|error: PyErr| {
        if error.is_instance_of::<PyOverflowError>(value.py()) {
            value_error(format!("{what} {value}: out of range"))
        } else {
            error
        }
    })?;
    count(what, n)
}

/// How a finished game ended, as the rules report it.
#[pyclass(module = "monte", frozen, eq, get_all)]
#[derive(Clone, Debug, PartialEq, Eq)]
struct GameResult {
    /// `"white"`, `"black"`, or `None` for a draw.
    winner: Option<&'static str>,
    /// `goal`, `no pieces`, `move limit` or `threefold repetition`.
    reason: &'static str,
    /// Salta: the loser's remaining distance (for a move limit, the
    /// difference of the distances); `None` where the rules define none.
    margin: Option<u32>,
    /// `1-0`, `0-1` or `1/2-1/2`, as records write it.
    score: &'static str,
}

impl From<Outcome> for GameResult {
    fn from(outcome: Outcome) -> Self {
        GameResult {
            winner: outcome.winner.map(Side::key),
            reason: outcome.reason.name(),
            margin: outcome.margin,
            score: outcome.result_string(),
        }
    }
}

#[pymethods]
impl GameResult {
    fn __repr__(&self) -> String {
        let winner = self.winner.map_or("None".to_string(), |w| format!("'{w}'"));
        let margin = self.margin.map_or("None".to_string(), |m| m.to_string());
        format!("GameResult(winner={winner}, reason='{}', margin={margin}, score='{}')", self.reason, self.score)
    }
}

/// A game of Salta or Focus: a start position, the moves played since, and
/// the rules that judge them.
///
/// `Game(game, rules="seed", fen=None)`: `game` is `salta` or `focus`;
/// `rules` a rule set in its text form (`seed`, `seed,move-limit=120`,
/// `meyer1908`, `sackson`, ...); `fen` a position string to start from
/// instead of the rule set's start. Raises ValueError for an unknown game
/// or rule set, or a bad position string.
// (The class's docstring: PyO3 shows none of the constructor's.)
#[pyclass(module = "monte")]
#[derive(Clone, Debug)]
struct Game {
    inner: AnyGame,
}

impl Game {
    /// A copy of the game to work on without holding the GIL, taken under
    /// a borrow that ends with this call: other threads may then use and
    /// change the game itself meanwhile.
    fn copy_released(&self) -> AnyGame {
        self.inner.clone()
    }
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (game, rules = "seed", fen = None))]
    fn new(game: &str, rules: &str, fen: Option<&str>) -> PyResult<Self> {
        let kind: GameKind = game.parse().map_err(value_error)?;
        let inner = AnyGame::new(kind, rules, fen).map_err(value_error)?;
        Ok(Game { inner })
    }

    /// Replay a game record (the text `record()` writes): its tags name
    /// the game (default Salta), rules and start; every move is checked.
    /// Raises ValueError for a malformed record or an illegal move in it.
    #[staticmethod]
    fn from_record(text: &str) -> PyResult<Self> {
        Ok(Game { inner: AnyGame::from_record(text).map_err(value_error)? })
    }

    /// The game's name: `salta` or `focus`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind().name()
    }

    /// The rule set in its canonical text form.
    #[getter]
    fn rules(&self) -> String {
        self.inner.rules()
    }

    /// `white` or `black`.
    #[getter]
    fn side_to_move(&self) -> &'static str {
        self.inner.side_to_move().key()
    }

    /// Plies played in this game (not counting those before its start).
    #[getter]
    fn moves_played(&self) -> usize {
        self.inner.moves_played()
    }

    /// The current position string.
    fn fen(&self) -> String {
        self.inner.fen()
    }

    /// The start position string.
    fn start_fen(&self) -> String {
        self.inner.start_fen()
    }

    /// The legal moves in notation; empty when the game is over (move
    /// limit and threefold repetition included).
    fn legal_moves(&self) -> Vec<String> {
        self.inner.legal_moves().into_iter().map(|m| m.notation).collect()
    }

    /// Play a move given in notation and return it in canonical notation.
    /// Raises ValueError (with the rules' reason) for a malformed or
    /// illegal move, or when the game is over; the game is then unchanged.
    fn play(&mut self, r#move: &str) -> PyResult<String> {
        self.inner.play(r#move).map_err(value_error)
    }

    /// Take back the last move and return it; None at the start.
    fn undo(&mut self) -> Option<String> {
        self.inner.undo()
    }

    /// The moves played, in notation.
    fn history(&self) -> Vec<String> {
        self.inner.history()
    }

    /// Whether the rules have ended the game.
    fn is_over(&self) -> bool {
        self.inner.status().is_over()
    }

    /// How the game ended (a GameResult); None while it goes on.
    fn result(&self) -> Option<GameResult> {
        self.inner.status().outcome().map(GameResult::from)
    }

    /// The number of move sequences `depth` plies long from the current
    /// position (move limits and repetition ignored, as in chess). Runs
    /// without holding the GIL, on `threads` threads (default: every
    /// core); Ctrl-C stops it (KeyboardInterrupt) and leaves the game as
    /// it was.
    #[pyo3(signature = (depth, threads = None))]
    fn perft(slf: &Bound<'_, Self>, depth: i64, threads: Option<i64>) -> PyResult<u64> {
        let depth: u32 = count("depth", depth)?;
        let threads = pool::thread_count(threads, pool::cores())?;
        let game = slf.borrow().copy_released();
        let py = slf.py();
        let stop = AtomicBool::new(false);
        let count_all = || each_game!(&game, g => perft::perft_in_parallel(g.position(), depth, &stop));
        if depth <= perft::SUBTREE_DEPTH {
            // Milliseconds: no threads to wake, nothing to interrupt.
            return Ok(py.detach(count_all));
        }
        let pool = pool::pool(threads)?;
        pool::run_interruptibly(py, &pool, &stop, count_all)
    }

    /// The game record (docs/notation.md): tags `Game`, `Rules`, `FEN`
    /// (for a start of one's own), the `tags` given (`White`, `Black`,
    /// `Date`, ...), the result, and the moves. `result` (`1-0`, `0-1`,
    /// `1/2-1/2` or `*`) is written for a game the rules have not ended,
    /// after a resignation say; a finished game's result is the rules'.
    /// Raises ValueError for another result, or tags a record cannot hold.
    #[pyo3(signature = (tags = None, result = None))]
    fn record(&self, tags: Option<&Bound<'_, PyDict>>, result: Option<&str>) -> PyResult<String> {
        if let Some(result) = result
            && !RESULTS.contains(&result)
        {
            return Err(value_error(format!("result `{result}` (expected {})", RESULTS.join(", "))));
        }
        let mut pairs: Vec<(String, String)> = Vec::new();
        if let Some(tags) = tags {
            for (key, value) in tags.iter() {
                pairs.push((key.extract()?, value.extract()?));
            }
        }
        let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let record = self.inner.record(&borrowed, result);
        let text = record.to_string();
        // Tag names with spaces or values with line breaks do not read
        // back: refuse them rather than write a record nothing can read.
        if Record::parse(&text).as_ref() != Ok(&record) {
            return Err(value_error("tags that a record cannot hold (names: letters and digits; values: one line)"));
        }
        Ok(text)
    }

    /// The number of actions: every action is an int from 0 up to it
    /// (5001 in Salta, 1301 in Focus; docs/python.md numbers them).
    #[getter]
    fn num_distinct_actions(&self) -> usize {
        encoding::action_count(self.inner.kind())
    }

    /// The shape of `observation()`: planes, rows, columns.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [planes, rows, columns] = encoding::observation_shape(self.inner.kind());
        (planes, rows, columns)
    }

    /// The actions of the legal moves, in increasing order; empty when the
    /// game is over.
    fn legal_actions(&self) -> Vec<usize> {
        encoding::legal_actions(&self.inner)
    }

    /// A numpy bool array of `num_distinct_actions`: True for the actions
    /// of the legal moves.
    fn legal_action_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let mask = PyArray1::<bool>::zeros(py, self.num_distinct_actions(), false);
        {
            let mut writable = mask.readwrite();
            let values = writable.as_slice_mut().map_err(value_error)?;
            for action in encoding::legal_actions(&self.inner) {
                values[action] = true;
            }
        }
        Ok(mask)
    }

    /// Play the move an action stands for and return it in notation.
    /// Raises ValueError for a number out of range or an illegal move; the
    /// game is then unchanged.
    fn apply_action(&mut self, action: &Bound<'_, PyAny>) -> PyResult<String> {
        encoding::apply_action(&mut self.inner, int_argument("action", action)?).map_err(value_error)
    }

    /// The move an action stands for in the current position (seen by the
    /// side to move), in notation, legal or not. Raises ValueError for a
    /// number no move of the board has.
    fn action_to_move(&self, action: &Bound<'_, PyAny>) -> PyResult<String> {
        encoding::action_to_move(&self.inner, int_argument("action", action)?).map_err(value_error)
    }

    /// The action of a legal move given in notation. Raises ValueError for
    /// a malformed or illegal move.
    fn move_to_action(&self, r#move: &str) -> PyResult<usize> {
        encoding::move_to_action(&self.inner, r#move).map_err(value_error)
    }

    /// The position as a numpy float32 array of `observation_shape`, seen
    /// by `player` (`"white"` or `"black"`; default the side to move):
    /// planes of 0s and 1s described in docs/python.md.
    #[pyo3(signature = (player = None))]
    fn observation<'py>(&self, py: Python<'py>, player: Option<&str>) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let viewer = player.map(side_named).transpose()?.unwrap_or(self.inner.side_to_move());
        let planes = PyArray3::<f32>::zeros(py, encoding::observation_shape(self.inner.kind()), false);
        encoding::observe(&self.inner, viewer, planes.readwrite().as_slice_mut().map_err(value_error)?);
        Ok(planes)
    }

    /// Pickling: the game travels as its record (start, rules and moves).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let text = slf.borrow().inner.record(&[], None).to_string();
        let from_record = py.get_type::<Game>().getattr("from_record")?;
        (from_record, (text,)).into_pyobject(py)
    }

    /// A copy that goes its own way.
    #[pyo3(name = "clone")]
    fn copy(&self) -> Self {
        Clone::clone(self)
    }

    fn __copy__(&self) -> Self {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        Clone::clone(self)
    }

    /// The board drawn as text, with the game's state.
    fn __str__(&self) -> String {
        self.inner.render(RenderStyle { color: false, from: Side::White })
    }

    fn __repr__(&self) -> String {
        format!("Game('{}', rules='{}', fen='{}')", self.kind(), self.inner.rules(), self.inner.fen())
    }
}

/// What bounds the engine's thinking.
#[derive(Clone, Copy, Debug)]
enum Strength {
    /// A level 1-8, as the web board's computer players.
    Level(Level),
    /// Full strength within limits.
    Limits(Limits),
}

/// What one engine keeps between moves: its transposition table and the
/// random numbers of the weaker levels.
#[derive(Debug)]
struct Thinker {
    searcher: Searcher,
    noise: Rng,
}

/// What the engine found: the move, its score and the expected line.
#[pyclass(module = "monte", frozen, get_all)]
#[derive(Clone, Debug)]
struct Analysis {
    /// The move to play, in notation.
    best_move: String,
    /// Evaluation units (Salta: hundredths of a step; Focus: hundredths of
    /// a piece) from the side to move's view; None when the search found a
    /// forced result (see `win_in` and `loss_in`).
    score: Option<i32>,
    /// The side to move wins in this many plies.
    win_in: Option<u32>,
    /// The side to move loses in this many plies.
    loss_in: Option<u32>,
    /// Plies searched.
    depth: u32,
    /// Positions searched.
    nodes: u64,
    /// Milliseconds spent.
    time_ms: u64,
    /// The expected line, starting with `best_move`; the levels that choose
    /// at random (1 to 5) give the move alone.
    pv: Vec<String>,
}

impl From<Choice<String>> for Analysis {
    fn from(choice: Choice<String>) -> Self {
        let (score, win_in, loss_in) = match choice.score {
            Score::Units(units) => (Some(units), None, None),
            Score::WinIn(plies) => (None, Some(plies), None),
            Score::LossIn(plies) => (None, None, Some(plies)),
        };
        Analysis {
            best_move: choice.mv,
            score,
            win_in,
            loss_in,
            depth: choice.depth,
            nodes: choice.nodes,
            time_ms: u64::try_from(choice.time.as_millis()).unwrap_or(u64::MAX),
            pv: choice.pv,
        }
    }
}

#[pymethods]
impl Analysis {
    fn __repr__(&self) -> String {
        let score = match (self.score, self.win_in, self.loss_in) {
            (Some(units), ..) => format!("score={units}"),
            (_, Some(plies), _) => format!("win_in={plies}"),
            (.., Some(plies)) => format!("loss_in={plies}"),
            _ => String::new(),
        };
        format!(
            "Analysis(best_move='{}', {score}, depth={}, nodes={}, pv=[{}])",
            self.best_move,
            self.depth,
            self.nodes,
            self.pv.iter().map(|mv| format!("'{mv}'")).collect::<Vec<_>>().join(", ")
        )
    }
}

/// Largest transposition table accepted, in MB: a larger request is more
/// likely a typo than a wish, and failing to allocate would abort Python.
const MAX_HASH_MB: i64 = 4096;

/// Most search threads accepted.
const MAX_THREADS: i64 = 64;

/// Monte's engine: a level 1 to 8 (the web board's computer players), or
/// full strength within limits.
///
/// Give either a `level` or one or more limits (`nodes`, `movetime_ms`,
/// `depth`; the first reached stops the search). `threads`: search
/// threads (default: the level's, else 1); `hash_mb`: transposition table
/// size; `seed`: the random choices of the levels that have them (1 to 5).
/// Raises ValueError for a level out of range, a level with limits,
/// neither, or a limit below 1.
#[pyclass(module = "monte", frozen)]
#[derive(Debug)]
struct Engine {
    strength: Strength,
    thinker: Mutex<Thinker>,
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (level = None, *, nodes = None, movetime_ms = None, depth = None, threads = None, hash_mb = 16, seed = 0))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn new(
        level: Option<i64>,
        nodes: Option<i64>,
        movetime_ms: Option<i64>,
        depth: Option<i64>,
        threads: Option<i64>,
        hash_mb: i64,
        seed: u64,
    ) -> PyResult<Self> {
        let limits = Limits {
            depth: depth.map(|d| count("depth", d)).transpose()?,
            nodes: nodes.map(|n| count("nodes", n)).transpose()?,
            movetime: movetime_ms.map(|ms| count("movetime_ms", ms).map(Duration::from_millis)).transpose()?,
            clock: None,
        };
        if limits.depth == Some(0) || limits.nodes == Some(0) || limits.movetime == Some(Duration::ZERO) {
            return Err(value_error("limits must be at least 1"));
        }
        let has_limits = limits != Limits::default();
        let mut strength = match level {
            Some(_) if has_limits => {
                return Err(value_error("give a level or limits (nodes, movetime_ms, depth), not both"));
            }
            Some(n) => Strength::Level(
                u8::try_from(n)
                    .ok()
                    .and_then(monte_engine::level)
                    .ok_or_else(|| value_error(format!("level {n}: expected 1 to 8")))?,
            ),
            None if has_limits => Strength::Limits(limits),
            None => return Err(value_error("give a level (1 to 8) or limits (nodes, movetime_ms, depth)")),
        };
        let threads = match (threads, &mut strength) {
            (Some(t), _) if !(1..=MAX_THREADS).contains(&t) => {
                return Err(value_error(format!("threads {t}: expected 1 to {MAX_THREADS}")));
            }
            // A level searches on the threads asked for, else on its own.
            (Some(t), Strength::Level(level)) => {
                level.threads = t as usize;
                level.threads
            }
            (None, Strength::Level(level)) => level.threads,
            (t, Strength::Limits(_)) => t.unwrap_or(1) as usize,
        };
        if !(1..=MAX_HASH_MB).contains(&hash_mb) {
            return Err(value_error(format!("hash_mb {hash_mb}: expected 1 to {MAX_HASH_MB}")));
        }
        let options = SearchOptions { hash_mb: hash_mb as usize, threads, ..SearchOptions::default() };
        let thinker = Thinker { searcher: Searcher::new(options), noise: Rng::new(seed) };
        Ok(Engine { strength, thinker: Mutex::new(thinker) })
    }

    /// The move to play in `game`, in notation. Searches without holding
    /// the GIL; raises ValueError when the game is over.
    fn best_move(&self, game: &Bound<'_, Game>) -> PyResult<String> {
        Ok(self.think(game)?.mv)
    }

    /// The move to play in `game` with its score and expected line (an
    /// Analysis). Searches without holding the GIL; raises ValueError when
    /// the game is over.
    fn analyse(&self, game: &Bound<'_, Game>) -> PyResult<Analysis> {
        Ok(self.think(game)?.into())
    }

    fn __repr__(&self) -> String {
        match self.strength {
            Strength::Level(level) => format!("Engine(level={})", level.number),
            Strength::Limits(limits) => {
                let mut parts = Vec::new();
                if let Some(n) = limits.nodes {
                    parts.push(format!("nodes={n}"));
                }
                if let Some(t) = limits.movetime {
                    parts.push(format!("movetime_ms={}", t.as_millis()));
                }
                if let Some(d) = limits.depth {
                    parts.push(format!("depth={d}"));
                }
                format!("Engine({})", parts.join(", "))
            }
        }
    }
}

impl Engine {
    /// Search `game` without holding the GIL (other Python threads run
    /// meanwhile); one search at a time per engine. The search runs on a
    /// thread of its own while this one waits in slices, between which
    /// Python's signal handlers run: Ctrl-C stops the search and raises
    /// KeyboardInterrupt.
    fn think(&self, game: &Bound<'_, Game>) -> PyResult<Choice<String>> {
        let py = game.py();
        let game = game.borrow().copy_released();
        let strength = self.strength;
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let (sender, receiver) = mpsc::channel();
            let (game, stop, thinker) = (&game, &stop, &self.thinker);
            scope.spawn(move || {
                let mut thinker = thinker.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let Thinker { searcher, noise } = &mut *thinker;
                let choice = match strength {
                    Strength::Level(level) => choose_any(searcher, game, &level, None, noise, stop, &mut |_| {}),
                    Strength::Limits(limits) => search_any(searcher, game, &limits, stop, &mut |_| {}),
                };
                // The receiver is gone only after an error in this thread's
                // waiting, which has already been reported.
                let _ = sender.send(choice);
            });
            pool::wait_interruptibly(py, receiver, stop)?.map_err(value_error)
        })
    }
}

/// Salta and Focus: rules, records and engine (the Rust crates
/// monte-rules and monte-engine).
#[pymodule]
fn _monte(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Game>()?;
    module.add_class::<GameResult>()?;
    module.add_class::<Engine>()?;
    module.add_class::<Analysis>()?;
    module.add_class::<batch::BatchEnv>()?;
    let games: Vec<&str> = GameKind::ALL.iter().map(|kind| kind.name()).collect();
    module.add("GAMES", games)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
