//! `BatchEnv`: many games of one kind stepped in Rust in one call, without
//! the GIL, their observations, legal-action masks, rewards and ends
//! written into numpy arrays the environment owns.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use monte_rules::game::RepetitionRule;
use monte_rules::{Encoding, GameKind, Rng, Status, with_game};
use numpy::{Element, PyArray, PyArray1, PyArray2, PyArray4, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray};
use pyo3::prelude::*;
use rayon::ThreadPool;

use crate::{count, pool, value_error};

/// How many plies of one game `step_random` plays between two looks at
/// its stop flag (a few hundred microseconds).
const STOP_CHECK_PLIES: usize = 1024;

/// How often each position (by its hash) has occurred in a game: the
/// rules crate's table for random playouts, keyed by Zobrist hash.
type Occurrences = monte_rules::playout::Seen;

/// What a step writes for a run of consecutive games: each slice holds
/// the values of those games, one after the other.
struct Outputs<'a> {
    /// Empty when the environment writes no observations.
    observations: &'a mut [f32],
    masks: &'a mut [bool],
    rewards: &'a mut [f32],
    dones: &'a mut [bool],
    truncated: &'a mut [bool],
    to_play: &'a mut [i8],
}

impl Outputs<'_> {
    /// The outputs of games `at..` and those of games before `at`.
    fn split_at(self, at: usize, observation_len: usize, actions: usize) -> (Self, Self) {
        let observations_at = if self.observations.is_empty() { 0 } else { at * observation_len };
        let (observations, later_observations) = self.observations.split_at_mut(observations_at);
        let (masks, later_masks) = self.masks.split_at_mut(at * actions);
        let (rewards, later_rewards) = self.rewards.split_at_mut(at);
        let (dones, later_dones) = self.dones.split_at_mut(at);
        let (truncated, later_truncated) = self.truncated.split_at_mut(at);
        let (to_play, later_to_play) = self.to_play.split_at_mut(at);
        (
            Outputs { observations, masks, rewards, dones, truncated, to_play },
            Outputs {
                observations: later_observations,
                masks: later_masks,
                rewards: later_rewards,
                dones: later_dones,
                truncated: later_truncated,
                to_play: later_to_play,
            },
        )
    }
}

/// One game of the batch.
#[derive(Clone, Debug)]
struct Slot<P: Encoding> {
    position: P,
    occurrences: Occurrences,
    /// Plies played in this game, for the truncation at `max_steps`.
    plies: u32,
    /// The legal moves with their actions, by action; empty when the
    /// environment keeps no masks (`step_random` only).
    legal: Vec<(usize, P::Move)>,
    rng: Rng,
}

/// How one ply ended the game, if it did.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ending {
    /// For the side that moved: 1 for a win, -1 for a loss, 0 otherwise.
    reward: f32,
    done: bool,
    truncated: bool,
}

impl Ending {
    /// A game that goes on.
    const NONE: Ending = Ending { reward: 0.0, done: false, truncated: false };
}

/// The games of a batch, of one position type.
#[derive(Debug)]
struct Games<P: Encoding> {
    start: P,
    slots: Vec<Slot<P>>,
    max_steps: Option<u32>,
    threads: usize,
}

impl<P: Encoding> Games<P>
where
    P::Rules: RepetitionRule,
{
    /// Play `mv` in `slot`, judge the game, and start a new one when it
    /// ended.
    fn play(&self, slot: &mut Slot<P>, mv: P::Move) -> Ending {
        let mover = slot.position.side_to_move();
        slot.position.play_unchecked(mv);
        slot.plies += 1;
        let mut outcome = match slot.position.status() {
            Status::Over(outcome) => Some(outcome),
            Status::Ongoing => None,
        };
        let rules = *slot.position.rules();
        if outcome.is_none() && rules.repetition_draw() {
            let seen = slot.occurrences.entry(slot.position.hash()).or_insert(0);
            *seen += 1;
            if *seen >= 3 {
                outcome = Some(monte_rules::Outcome {
                    winner: rules.draw_winner(),
                    reason: monte_rules::EndReason::Repetition,
                    margin: None,
                });
            }
        }
        let truncated = outcome.is_none() && self.max_steps.is_some_and(|max| slot.plies >= max);
        let reward = match outcome.and_then(|o| o.winner) {
            Some(winner) if winner == mover => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        };
        let done = outcome.is_some() || truncated;
        if done {
            self.restart(slot);
        }
        Ending { reward, done, truncated }
    }

    fn restart(&self, slot: &mut Slot<P>) {
        slot.position = self.start.clone();
        slot.plies = 0;
        slot.occurrences.clear();
        slot.occurrences.insert(self.start.hash(), 1);
    }

    /// List `slot`'s legal moves and write its observation and mask (whose
    /// old entries are those of `slot.legal`).
    fn describe(&self, slot: &mut Slot<P>, observation: &mut [f32], mask: &mut [bool]) {
        for &(action, _) in &slot.legal {
            mask[action] = false;
        }
        slot.legal.clear();
        let position = &slot.position;
        // A finished game has been restarted: the start has moves.
        slot.legal.extend(position.legal_moves().iter().map(|&mv| (position.action(mv), mv)));
        slot.legal.sort_unstable_by_key(|&(action, _)| action);
        for &(action, _) in &slot.legal {
            mask[action] = true;
        }
        if !observation.is_empty() {
            position.observe(position.side_to_move(), observation);
        }
    }

    /// Run `work(first, slots, outputs)` over the games in runs, one run
    /// per thread of the rayon pool this is called in (one run, on this
    /// thread, for `threads` 1), `first` being the index of a run's first
    /// game.
    fn in_runs<F>(&mut self, outputs: Outputs<'_>, work: F)
    where
        F: Fn(&Self, usize, &mut [Slot<P>], Outputs<'_>) + Sync,
    {
        let mut slots = std::mem::take(&mut self.slots);
        let run = slots.len().div_ceil(self.threads).max(1);
        let this = &*self;
        if run >= slots.len() {
            work(this, 0, &mut slots, outputs);
        } else {
            rayon::scope(|scope| {
                let mut rest_slots = &mut slots[..];
                let mut rest_outputs = outputs;
                let mut first = 0;
                while rest_slots.len() > run {
                    let (slots_here, later_slots) = rest_slots.split_at_mut(run);
                    let (outputs_here, later_outputs) = rest_outputs.split_at(run, P::OBSERVATION_LEN, P::ACTIONS);
                    let work = &work;
                    scope.spawn(move |_| work(this, first, slots_here, outputs_here));
                    (rest_slots, rest_outputs, first) = (later_slots, later_outputs, first + run);
                }
                work(this, first, rest_slots, rest_outputs);
            });
        }
        self.slots = slots;
    }

    /// Write what the `i`-th game of a run ended with, its observation,
    /// mask and side to move.
    fn report(&self, slot: &mut Slot<P>, i: usize, ending: Ending, outputs: &mut Outputs<'_>) {
        outputs.rewards[i] = ending.reward;
        outputs.dones[i] = ending.done;
        outputs.truncated[i] = ending.truncated;
        let observation = if outputs.observations.is_empty() {
            &mut []
        } else {
            &mut outputs.observations[i * P::OBSERVATION_LEN..][..P::OBSERVATION_LEN]
        };
        self.describe(slot, observation, &mut outputs.masks[i * P::ACTIONS..][..P::ACTIONS]);
        outputs.to_play[i] = slot.position.side_to_move().index() as i8;
    }
}

/// A batch of games of any kind, behind one object-safe face.
trait Batch: Send + Sync + std::fmt::Debug {
    /// Start every game anew, its random numbers from `seed`.
    fn reset(&mut self, seed: u64, outputs: Outputs<'_>);
    /// Check that `actions` are legal, one per game; on error nothing has
    /// changed.
    fn check(&self, actions: &[i64]) -> Result<(), String>;
    /// Play one checked action in every game.
    fn step(&mut self, actions: &[i64], outputs: Outputs<'_>);
    /// A uniformly random legal action of each game.
    fn random_actions(&mut self, actions: &mut [i64]);
    /// Play `plies` uniformly random moves in every game, writing
    /// observations and masks only at the end; returns the games that
    /// ended meanwhile. Once `stop` is set each game stops where it stands
    /// (within [`STOP_CHECK_PLIES`] plies), its arrays written.
    fn step_random(&mut self, plies: usize, outputs: Outputs<'_>, stop: &AtomicBool) -> u64;
    /// Each game's position string.
    fn fens(&self) -> Vec<String>;
}

impl<P: Encoding> Batch for Games<P>
where
    P::Rules: RepetitionRule,
{
    fn reset(&mut self, seed: u64, outputs: Outputs<'_>) {
        outputs.masks.fill(false);
        let mut seeds = Rng::new(seed);
        for slot in &mut self.slots {
            slot.legal.clear();
            slot.rng = Rng::new(seeds.next_u64());
        }
        self.in_runs(outputs, |games, _, slots, mut outputs| {
            for (i, slot) in slots.iter_mut().enumerate() {
                games.restart(slot);
                games.report(slot, i, Ending::NONE, &mut outputs);
            }
        });
    }

    fn check(&self, actions: &[i64]) -> Result<(), String> {
        for (i, (slot, &action)) in self.slots.iter().zip(actions).enumerate() {
            let legal = usize::try_from(action)
                .is_ok_and(|action| slot.legal.binary_search_by_key(&action, |&(a, _)| a).is_ok());
            if !legal {
                let moves = slot.legal.len();
                return Err(format!("game {i}: action {action} is not one of its {moves} legal actions"));
            }
        }
        Ok(())
    }

    fn step(&mut self, actions: &[i64], outputs: Outputs<'_>) {
        self.in_runs(outputs, |games, first, slots, mut outputs| {
            for (i, slot) in slots.iter_mut().enumerate() {
                let action = actions[first + i] as usize;
                let found = slot.legal.binary_search_by_key(&action, |&(a, _)| a);
                // Checked by `check` before.
                let Ok(index) = found else { continue };
                let ending = games.play(slot, slot.legal[index].1);
                games.report(slot, i, ending, &mut outputs);
            }
        });
    }

    fn random_actions(&mut self, actions: &mut [i64]) {
        for (slot, action) in self.slots.iter_mut().zip(actions) {
            *action = slot.legal[slot.rng.below(slot.legal.len())].0 as i64;
        }
    }

    fn step_random(&mut self, plies: usize, outputs: Outputs<'_>, stop: &AtomicBool) -> u64 {
        let ended = AtomicU64::new(0);
        self.in_runs(outputs, |games, _, slots, mut outputs| {
            let mut ended_here = 0;
            for (i, slot) in slots.iter_mut().enumerate() {
                let mut ending = Ending::NONE;
                let mut left = plies;
                while left > 0 && !stop.load(Ordering::Relaxed) {
                    let stretch = left.min(STOP_CHECK_PLIES);
                    left -= stretch;
                    for _ in 0..stretch {
                        // A game in progress always has a move (a stuck
                        // side passes), and a finished one has been
                        // restarted.
                        let Some(mv) = slot.position.random_move(&mut slot.rng) else { break };
                        ending = games.play(slot, mv);
                        ended_here += u64::from(ending.done);
                    }
                }
                games.report(slot, i, ending, &mut outputs);
            }
            ended.fetch_add(ended_here, Ordering::Relaxed);
        });
        ended.into_inner()
    }

    fn fens(&self) -> Vec<String> {
        self.slots.iter().map(|slot| slot.position.fen()).collect()
    }
}

/// The games of `kind`, their start from `rules` and `fen`.
fn new_batch(
    kind: GameKind,
    rules: &str,
    fen: Option<&str>,
    n: usize,
    max_steps: Option<u32>,
    threads: usize,
) -> PyResult<Box<dyn Batch>> {
    fn make<P: Encoding>(
        rules: &str,
        fen: Option<&str>,
        n: usize,
        max_steps: Option<u32>,
        threads: usize,
    ) -> PyResult<Box<dyn Batch>>
    where
        P::Rules: RepetitionRule,
    {
        let rules: P::Rules = rules.parse().map_err(value_error)?;
        let start = match fen {
            Some(fen) => P::from_fen(rules, fen).map_err(value_error)?,
            None => P::start(rules),
        };
        if start.status().is_over() {
            return Err(value_error("the start position is a finished game"));
        }
        let slot = Slot {
            position: start.clone(),
            occurrences: Occurrences::default(),
            plies: 0,
            legal: Vec::new(),
            rng: Rng::new(0),
        };
        Ok(Box::new(Games { start, slots: vec![slot; n], max_steps, threads }))
    }
    with_game!(kind, P => make::<P>(rules, fen, n, max_steps, threads))
}

/// Plies after which a game is cut short by default (as `monte.envs`).
const DEFAULT_MAX_STEPS: i64 = 1000;

/// Most games a batch accepts: the arrays of a larger one would not fit
/// a machine's memory.
const MAX_GAMES: i64 = 1 << 20;

/// Each thread a step uses by default gets at least this many games: below
/// it, handing games to another thread (waking it and, on a busy machine,
/// waiting for a core) costs more than the thread saves.
const GAMES_PER_THREAD: usize = 128;

/// A `step_random` on one thread of fewer plies than this in all (a few
/// milliseconds) runs on the calling thread, as `step` does: handing it
/// to a worker and waiting interruptibly would cost more than the wait.
const SHORT_RANDOM_PLIES: usize = 1 << 16;

/// `n` games of one kind stepped together in Rust: actions in, and
/// observations, legal-action masks, rewards and ends out as numpy arrays.
///
/// `BatchEnv(game, n, rules="seed", fen=None, seed=0, max_steps=1000,
/// observations=True, threads=None)`. Each step plays one ply in every
/// game, by its side to move. A game that ends (by the rules, or after
/// `max_steps` plies: truncated) starts again at once, and the step returns
/// the new game's first observation. The arrays are the environment's own
/// and each step overwrites them: copy what must be kept. Steps run
/// without the GIL, on `threads` threads (default: a core per 128 games,
/// up to every core) of a pool that every `BatchEnv` and `perft` with that
/// many threads shares. See docs/python.md.
#[pyclass(module = "monte")]
#[derive(Debug)]
pub(crate) struct BatchEnv {
    kind: GameKind,
    games: Box<dyn Batch>,
    n: usize,
    /// float32 (num_envs, *observation_shape): each game's position seen
    /// by its side to move; (0, ...) without observations.
    #[pyo3(get)]
    observations: Py<PyArray4<f32>>,
    /// bool (num_envs, num_distinct_actions): each game's legal actions.
    #[pyo3(get)]
    masks: Py<PyArray2<bool>>,
    /// float32 (num_envs,): the last step's rewards, for the side that moved.
    #[pyo3(get)]
    rewards: Py<PyArray1<f32>>,
    /// bool (num_envs,): which games the last step ended (and restarted).
    #[pyo3(get)]
    dones: Py<PyArray1<bool>>,
    /// bool (num_envs,): which of the games the last step ended were cut
    /// at `max_steps` rather than ended by the rules.
    #[pyo3(get)]
    truncated: Py<PyArray1<bool>>,
    /// int8 (num_envs,): each game's side to move, 0 White, 1 Black.
    #[pyo3(get)]
    to_play: Py<PyArray1<i8>>,
    /// The actions of the step under way, copied out of Python's array.
    scratch_actions: Vec<i64>,
    /// The threads the games are spread over, and their shared pool.
    threads: usize,
    pool: Arc<ThreadPool>,
    /// The seeds of resets without one.
    seeds: Rng,
}

/// A writable view of an array the environment owns.
fn writable<'py, T: Element, D: numpy::ndarray::Dimension>(
    py: Python<'py>,
    array: &Py<PyArray<T, D>>,
) -> PyResult<PyReadwriteArray<'py, T, D>> {
    array.bind(py).try_readwrite().map_err(|error| value_error(format!("the environment's arrays are in use: {error}")))
}

/// Borrow every output array of `env` writable and evaluate `body` with
/// them as `outputs` and the games as `games`.
macro_rules! with_outputs {
    ($env:expr, $py:expr, |$games:ident, $outputs:ident| $body:expr) => {{
        let py = $py;
        let mut observations = writable(py, &$env.observations)?;
        let mut masks = writable(py, &$env.masks)?;
        let mut rewards = writable(py, &$env.rewards)?;
        let mut dones = writable(py, &$env.dones)?;
        let mut truncated = writable(py, &$env.truncated)?;
        let mut to_play = writable(py, &$env.to_play)?;
        let $outputs = Outputs {
            observations: observations.as_slice_mut().map_err(value_error)?,
            masks: masks.as_slice_mut().map_err(value_error)?,
            rewards: rewards.as_slice_mut().map_err(value_error)?,
            dones: dones.as_slice_mut().map_err(value_error)?,
            truncated: truncated.as_slice_mut().map_err(value_error)?,
            to_play: to_play.as_slice_mut().map_err(value_error)?,
        };
        let $games = &mut $env.games;
        $body
    }};
}

#[pymethods]
impl BatchEnv {
    #[new]
    #[pyo3(signature = (game, n, rules = "seed", fen = None, seed = 0, max_steps = Some(DEFAULT_MAX_STEPS), observations = true, threads = None))]
    // The signature Python shows: PyO3 writes `...` for `Some(..)`.
    #[pyo3(
        text_signature = "(game, n, rules='seed', fen=None, seed=0, max_steps=1000, observations=True, threads=None)"
    )]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn new(
        py: Python<'_>,
        game: &str,
        n: i64,
        rules: &str,
        fen: Option<&str>,
        seed: u64,
        max_steps: Option<i64>,
        observations: bool,
        threads: Option<i64>,
    ) -> PyResult<Self> {
        let kind: GameKind = game.parse().map_err(value_error)?;
        if !(1..=MAX_GAMES).contains(&n) {
            return Err(value_error(format!("n {n}: expected 1 to {MAX_GAMES}")));
        }
        let n = n as usize;
        let max_steps = max_steps.map(|max| count::<u32>("max_steps", max)).transpose()?;
        if max_steps == Some(0) {
            return Err(value_error("max_steps must be at least 1 (or None)"));
        }
        let threads = pool::thread_count(threads, pool::cores().min(n / GAMES_PER_THREAD))?;
        let games = new_batch(kind, rules, fen, n, max_steps, threads)?;
        let [planes, rows, columns] = crate::encoding::observation_shape(kind);
        let observed = if observations { n } else { 0 };
        let mut env = BatchEnv {
            kind,
            games,
            n,
            observations: PyArray4::zeros(py, [observed, planes, rows, columns], false).unbind(),
            masks: PyArray2::zeros(py, [n, crate::encoding::action_count(kind)], false).unbind(),
            rewards: PyArray1::zeros(py, n, false).unbind(),
            dones: PyArray1::zeros(py, n, false).unbind(),
            truncated: PyArray1::zeros(py, n, false).unbind(),
            to_play: PyArray1::zeros(py, n, false).unbind(),
            scratch_actions: vec![0; n],
            threads,
            pool: pool::pool(threads)?,
            seeds: Rng::new(seed),
        };
        env.start(py, seed)?;
        Ok(env)
    }

    /// Start every game anew, its random numbers (for `random_actions`
    /// and `step_random`) from `seed` (default: the next of a sequence
    /// seeded by the constructor's); returns (observations, masks).
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let seed = seed.unwrap_or_else(|| self.seeds.next_u64());
        self.start(py, seed)?;
        (self.observations.bind(py), self.masks.bind(py)).into_pyobject(py)
    }

    /// Play one action in every game (an int array of `num_envs`, each a
    /// legal action of its game's side to move); returns (observations,
    /// masks, rewards, dones). `rewards` is for the side that moved: 1 for
    /// a win, -1 for a loss, else 0. Raises ValueError, changing nothing,
    /// when an action is not legal.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let actions = actions.as_slice().map_err(value_error)?;
        if actions.len() != self.n {
            return Err(value_error(format!("{} actions for {} games", actions.len(), self.n)));
        }
        self.games.check(actions).map_err(value_error)?;
        self.scratch_actions.copy_from_slice(actions);
        let actions = &self.scratch_actions;
        let (threads, pool) = (self.threads, &self.pool);
        with_outputs!(self, py, |games, outputs| detached(py, threads, pool, || games.step(actions, outputs)));
        self.results(py)
    }

    /// A uniformly random legal action of every game (int64 array).
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let mut actions = vec![0i64; self.n];
        self.games.random_actions(&mut actions);
        PyArray1::from_vec(py, actions)
    }

    /// Play `plies` uniformly random plies in every game in Rust, writing
    /// the arrays once at the end (rewards, dones and truncated of the
    /// last ply): random play at full speed. Returns how many games ended.
    /// Ctrl-C stops it (KeyboardInterrupt): every game then stands where
    /// it stopped, its arrays written, ready for more steps.
    fn step_random(&mut self, py: Python<'_>, plies: i64) -> PyResult<u64> {
        let plies: usize = count("plies", plies)?;
        let stop = AtomicBool::new(false);
        let (threads, pool) = (self.threads, Arc::clone(&self.pool));
        if threads == 1 && plies.saturating_mul(self.n) < SHORT_RANDOM_PLIES {
            return with_outputs!(
                self,
                py,
                |games, outputs| Ok(py.detach(|| games.step_random(plies, outputs, &stop)))
            );
        }
        with_outputs!(self, py, |games, outputs| {
            pool::run_interruptibly(py, &pool, &stop, || games.step_random(plies, outputs, &stop))
        })
    }

    /// Each game's position string.
    fn fens(&self) -> Vec<String> {
        self.games.fens()
    }

    /// The game's name: `salta` or `focus`.
    #[getter]
    fn game(&self) -> &'static str {
        self.kind.name()
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.n
    }

    #[getter]
    fn num_distinct_actions(&self) -> usize {
        crate::encoding::action_count(self.kind)
    }

    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [planes, rows, columns] = crate::encoding::observation_shape(self.kind);
        (planes, rows, columns)
    }

    fn __len__(&self) -> usize {
        self.n
    }

    fn __repr__(&self) -> String {
        format!("BatchEnv('{}', {})", self.kind.name(), self.n)
    }
}

/// Run `work` without the GIL: on this thread for one thread, else in
/// `pool` (where `Games::in_runs` spreads the games over its threads).
fn detached<R: Send>(py: Python<'_>, threads: usize, pool: &ThreadPool, work: impl FnOnce() -> R + Send) -> R {
    py.detach(|| if threads == 1 { work() } else { pool.install(work) })
}

impl BatchEnv {
    fn start(&mut self, py: Python<'_>, seed: u64) -> PyResult<()> {
        let (threads, pool) = (self.threads, &self.pool);
        with_outputs!(self, py, |games, outputs| detached(py, threads, pool, || games.reset(seed, outputs)));
        Ok(())
    }

    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        (self.observations.bind(py), self.masks.bind(py), self.rewards.bind(py), self.dones.bind(py)).into_pyobject(py)
    }
}
