//! Iterative-deepening alpha-beta (principal variation search) with a
//! shared transposition table, move ordering (hash move, tactical moves,
//! killers, history), aspiration windows, late-move reductions, extensions
//! for forced replies, quiescence where the game has captures, and Lazy SMP
//! over several threads.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use monte_rules::game::RepetitionRule;
use monte_rules::{MoveList, Side, Status};

use crate::eval::EngineGame;
use crate::limits::Limits;
use crate::score::{INFINITY, Score, WIN, WIN_BOUND};
use crate::tt::{Bound, Entry, TranspositionTable};

const MAX_PLY: usize = 128;

/// How far behind the opponent (in goal distance units) the engine may
/// still play moves without a purpose, to stir things up.
const BEHIND: i32 = 400;

/// How far back (plies) the game is searched for a sign that the
/// opponent repeats positions ([`repeats_itself`]).
const REPEATER_WINDOW: usize = 24;

/// Whether the opponent of the side to move at the end of `path` (the
/// game's positions, the root last) has within [`REPEATER_WINDOW`] plies
/// moved back into a position the game had seen: a player that does so
/// will close a cycle, whether or not it is behind. (The runner, blocked,
/// shuffles a piece to and fro; level 8, taking the cycles it closes for
/// the usual contempt as from a player that plays on, let it draw 14 of
/// 60 games by threefold repetition, 7 of them with level 8 at most four
/// steps behind.) A position the opponent came back to by a forced
/// answer counts too: rare, and the cost is only caution.
fn repeats_itself(path: &[u64]) -> bool {
    let n = path.len();
    // The positions after the opponent's moves have the root's parity.
    (n.saturating_sub(REPEATER_WINDOW)..n).rev().step_by(2).any(|k| path[..k].contains(&path[k]))
}

/// Whether `player` plays only moves with a purpose (skips its pointless
/// calls, [`EngineGame::is_pointless`], and scores a draw at the highest
/// contempt): when it is not more than [`BEHIND`] behind.
pub(crate) fn purposeful<P: EngineGame>(root: &P, player: Side) -> bool
where
    P::Rules: RepetitionRule,
{
    root.goal_distance(player).zip(root.goal_distance(!player)).is_some_and(|(mine, theirs)| mine <= theirs + BEHIND)
}

/// How much better (in evaluation units) than a planned move another move
/// must score to be played instead: ten steps of the race. The plan sees
/// the whole way home, the search a few moves of it, and a way through a
/// crowded ending often costs a few steps first (a piece stepping aside to
/// let another by) that the evaluation counts against it; with one step
/// of margin level 8 wandered in such endings for hundreds of plies.
pub(crate) const PLAN_MARGIN: i32 = 1000;

/// The game's planned move at `root` ([`EngineGame::planned_move`]),
/// unless it leads back to a position of `history`: a plan is worth its
/// margin only while it gets somewhere, not when the opponent's calls
/// keep undoing it (the margin would then outweigh the contempt of a side
/// behind, and the plan would lead it round into a repetition).
pub(crate) fn fresh_plan<P: EngineGame>(root: &P, history: &[u64]) -> Option<P::Move>
where
    P::Rules: RepetitionRule,
{
    let mv = root.planned_move()?;
    let mut child = root.clone();
    child.play_unchecked(mv);
    (!history.contains(&child.hash())).then_some(mv)
}

/// A line of moves from `root` in notation, as far as it stays legal (a
/// line from the table may not).
pub fn line_text<P: monte_rules::Position>(root: &P, line: &[P::Move]) -> Vec<String> {
    let mut pos = root.clone();
    let mut text = Vec::new();
    for &m in line {
        if !pos.is_legal(m) {
            break;
        }
        text.push(pos.format_move(m));
        pos.play_unchecked(m);
    }
    text
}

/// Moves taken one by one, best first, before the rest of a node's moves
/// are sorted (see `alphabeta`).
const LAZY_PICKS: usize = 3;

/// The depth up to which futility pruning works: a node this near the
/// leaves whose static evaluation is a margin above beta is cut, and one
/// a margin below alpha searches only its tactical moves.
const FUTILITY_DEPTH: i32 = 3;

/// The game's futility margin at each depth (index 0 unused), or `None`.
fn futility_margins<P: EngineGame>(weights: &[i32]) -> Option<[i32; FUTILITY_DEPTH as usize + 1]>
where
    P::Rules: RepetitionRule,
{
    let mut margins = [0; FUTILITY_DEPTH as usize + 1];
    for depth in 1..=FUTILITY_DEPTH {
        margins[depth as usize] = P::futility_margin(weights, depth)?;
    }
    Some(margins)
}

/// Move the best-scored of `scored[i..]` to `i` and return its move. Among
/// equal scores the first one wins, so the order is deterministic.
#[inline]
fn next_best<M: Copy>(scored: &mut [(i32, M)], i: usize) -> M {
    let mut best = i;
    for j in i + 1..scored.len() {
        if scored[j].0 > scored[best].0 {
            best = j;
        }
    }
    scored.swap(i, best);
    scored[i].1
}

/// One line of progress, sent after each completed iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    pub nodes: u64,
    pub time: Duration,
    pub nps: u64,
    /// The principal variation in notation.
    pub pv: Vec<String>,
    /// Every line of a search for several ([`Searcher::analyse`]), best
    /// first; empty for a search of the best move alone.
    pub lines: Vec<PvLine>,
}

/// One line of a search for several: its score and its moves in notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvLine {
    /// From the point of view of the side to move at the root.
    pub score: Score,
    pub pv: Vec<String>,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult<M> {
    /// `None` only when the game is over at the root.
    pub best: Option<M>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<M>,
    /// The planned move the search weighed at its margin
    /// ([`PLAN_MARGIN`]), if any: the player's own plan, when the player
    /// is to move at the root and the search is for a move to play.
    pub plan: Option<M>,
}

/// What a search is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// The move to play: a plan is worth its margin, a solved race is
    /// played at once.
    Play,
    /// The best moves' values, this many of them ([`Searcher::analyse`]).
    Analyse(usize),
}

/// What iterative deepening found ([`Worker::iterate`]).
struct Iterated<M> {
    best: Option<M>,
    score: i32,
    depth: u32,
    pv: Vec<M>,
    /// The lines of a search for several.
    lines: Lines<M>,
}

/// Lines of a search for several, best first: each with its internal score.
type Lines<M> = Vec<(i32, Vec<M>)>;

/// Engine options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Transposition table size in MB.
    pub hash_mb: usize,
    pub threads: usize,
    /// Null-move pruning (on by default; off to measure what it buys).
    pub null_move: bool,
    /// Where the count at a move limit decides ([`EngineGame::count_weights`]):
    /// futility pruning near the leaves ([`EngineGame::futility_margin`]).
    /// On by default, never with `classic`.
    pub futility: bool,
    /// Where the count at a move limit decides: tactical moves ordered by
    /// a look ahead ([`Worker::lookahead_value`]) instead of by history.
    /// On by default, never with `classic`.
    pub lookahead: bool,
    /// What a draw is worth to the side to move at the root, negated, in
    /// evaluation units: the search scores a drawn end (a repetition, or a
    /// draw by the rules) −contempt for that side and +contempt for the
    /// other, so that a player who is not worse plays on instead of
    /// repeating moves. 0 scores draws as equal (analysis).
    pub contempt: i32,
    /// The Salta evaluation of 11e216e and no race solver (`eval=classic`),
    /// kept to measure the current evaluation against.
    pub classic: bool,
}

/// The contempt of a player (see [`SearchOptions::contempt`]): a Salta
/// distance step, a few hundredths of a logit in either game.
pub const DEFAULT_CONTEMPT: i32 = 100;

/// The largest contempt the search uses, either way (ten Salta steps): a
/// larger one is cut to it, so that a draw never scores like a won game.
pub const MAX_CONTEMPT: i32 = 1000;

/// What a draw costs a player that is not behind ([`purposeful`]): thirty
/// Salta steps. Two equal armies face to face each saw every advance
/// costing it ten to fifteen steps (the other's jumps over the piece that
/// steps forward), took the draw at [`MAX_CONTEMPT`] for the lesser evil,
/// and shuffled a piece back and forth until the position repeated.
pub const PURPOSEFUL_CONTEMPT: i32 = 3000;

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            hash_mb: 64,
            threads: 1,
            null_move: true,
            futility: true,
            lookahead: true,
            contempt: DEFAULT_CONTEMPT,
            classic: false,
        }
    }
}

/// An alpha-beta searcher for one game, keeping its transposition table
/// between searches.
#[derive(Debug)]
pub struct Searcher {
    tt: Arc<TranspositionTable>,
    options: SearchOptions,
    /// Evaluation weights replacing the game's own (A/B tests, tuning).
    weights: Option<Vec<i32>>,
    /// How the last search scored positions, coded by [`scoring_code`]:
    /// the table's scores are the evaluation's of that search, and are
    /// forgotten when the next one scores otherwise.
    last_scoring: AtomicU8,
}

/// The race leader a search scores alone (`Shared::alone`), and whether
/// it searches with the game's count weights, as one code.
fn scoring_code(alone: Option<Side>, counting: bool) -> u8 {
    let alone = match alone {
        None => 0,
        Some(Side::White) => 1,
        Some(Side::Black) => 2,
    };
    alone + 3 * u8::from(counting)
}

/// Where the search stands, shared by its threads.
struct Shared<'a> {
    tt: &'a TranspositionTable,
    weights: Option<&'a [i32]>,
    stop: &'a AtomicBool,
    nodes: AtomicU64,
    start: Instant,
    hard: Option<Duration>,
    node_limit: Option<u64>,
    null_move: bool,
    /// Order tactical moves by a look ahead ([`Worker::lookahead_value`]).
    lookahead: bool,
    /// The futility margin at each depth up to [`FUTILITY_DEPTH`] (index 0
    /// unused), where futility pruning is on.
    futility: Option<[i32; FUTILITY_DEPTH as usize + 1]>,
    contempt: i32,
    /// Whose search it is ([`Searcher::search_for`]).
    player: Side,
    /// Ask the game for exact values ([`EngineGame::solved_value`]).
    solved: bool,
    /// The race leader whose features alone are scored
    /// ([`EngineGame::race_leader`]), decided at the root, and what the
    /// trailing side's features were worth to it there: held fixed, so
    /// that scores stay on the full evaluation's scale (a draw, the
    /// contempt, a race's value compare as before).
    alone: Option<(Side, i32)>,
}

/// One thread's search state.
struct Worker<'a, P: EngineGame>
where
    P::Rules: RepetitionRule,
{
    shared: &'a Shared<'a>,
    main: bool,
    nodes: u64,
    flushed: u64,
    stopped: bool,
    seldepth: u32,
    /// Depth of the current iteration (extensions stop at twice this ply).
    root_depth: i32,
    /// Hashes of the game's earlier positions and of the search path.
    path: Vec<u64>,
    /// Where in `path` the last null move is: a repetition is only looked
    /// for after it (positions across a null move are not a game's).
    repetition_floor: usize,
    /// Whether the move into the current node was a null move (no two in a row).
    after_null: bool,
    /// Whether threefold repetition draws under the rule set. Where it
    /// does not (`ludii`, `meyer1908`), a position met again on the path
    /// is still scored as an end ([`Worker::cycle_score`]).
    repetition: bool,
    draw_winner: Option<Side>,
    /// Whose search it is (contempt is that side's).
    root_side: Side,
    /// Whether the root side skips its pointless moves
    /// ([`EngineGame::is_pointless`]): when it is not behind in the race.
    purposeful: bool,
    /// The planned move at the root ([`EngineGame::planned_move`]): searched
    /// first, with [`PLAN_MARGIN`] added to its score.
    planned: Option<P::Move>,
    /// Root moves left out (a search for the next best line leaves out
    /// the first moves of the lines found before it).
    excluded: Vec<u16>,
    /// What a draw costs the root side: the player's contempt, and the
    /// most the search uses when it is not behind in the race (a side
    /// that is not behind plays on rather than repeat a position; the
    /// evaluation of the melee swings by more than the usual contempt).
    contempt: i32,
    /// Whether the position at each ply of the search path is forcing (a
    /// pending call): the move out of it only answers the call, and a
    /// cycle it closes is the caller's doing ([`Worker::repetition_score`]).
    forcing: [bool; MAX_PLY],
    /// What a cycle the opponent closes costs the root side: the player's
    /// usual contempt when the opponent is not behind either (it plays on
    /// rather than repeat, as the engine does), the full [`Worker::contempt`]
    /// when it is (it would take the draw) or when it has lately repeated
    /// positions of the game ([`repeats_itself`]).
    closed_by_opponent: i32,
    killers: [[u16; 2]; MAX_PLY],
    history: Box<[[i32; 4096]; 2]>,
    pv: Vec<Vec<u16>>,
    _game: std::marker::PhantomData<P>,
}

impl Searcher {
    pub fn new(options: SearchOptions) -> Self {
        Searcher {
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            options,
            weights: None,
            last_scoring: AtomicU8::new(0),
        }
    }

    /// Evaluate with these weights instead of the game's own (in the order
    /// of `EngineGame::feature_names`).
    pub fn with_weights(mut self, weights: Vec<i32>) -> Self {
        self.weights = Some(weights);
        self
    }

    pub fn options(&self) -> SearchOptions {
        self.options
    }

    /// Forget everything learnt (a new game).
    pub fn clear(&self) {
        self.tt.clear();
    }

    /// Search `root`. `history` holds the hashes of the game's positions
    /// before `root` (for repetition). `on_info` is called after every
    /// completed iteration of the main thread. Setting `stop` ends the
    /// search promptly; the best move found so far is returned.
    pub fn search<P: EngineGame>(
        &self,
        root: &P,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult<P::Move>
    where
        P::Rules: RepetitionRule,
    {
        self.search_for(root.side_to_move(), root, history, limits, stop, on_info)
    }

    /// [`Searcher::search`] on behalf of `player`, whose contempt and
    /// purpose count (a draw costs `player`; `player`'s pointless calls
    /// are skipped), also when the opponent is to move at `root`: a
    /// weakened level scores each of its moves by searching the position
    /// after it, and must not take the opponent's dislike of a draw for
    /// its own.
    pub fn search_for<P: EngineGame>(
        &self,
        player: Side,
        root: &P,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult<P::Move>
    where
        P::Rules: RepetitionRule,
    {
        self.run(Purpose::Play, player, root, history, limits, stop, on_info).0
    }

    /// The best `lines` moves of `root` and their lines, for analysis
    /// (multi-PV): at each depth the root is searched for its best move,
    /// then again without it for the next best, and so on. Scores are the
    /// search's own, without a plan's margin ([`PLAN_MARGIN`]), and a
    /// solved race is searched like any position, so that every line is
    /// scored alike. `on_info` hears every depth completed, all its lines
    /// in [`SearchInfo::lines`]. Returns the lines of the last depth
    /// completed, best first (fewer when the root has fewer moves; none
    /// when the game is over).
    pub fn analyse<P: EngineGame>(
        &self,
        root: &P,
        history: &[u64],
        limits: &Limits,
        lines: usize,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Vec<(Score, Vec<P::Move>)>
    where
        P::Rules: RepetitionRule,
    {
        let purpose = Purpose::Analyse(lines.max(1));
        let (result, lines) = self.run(purpose, root.side_to_move(), root, history, limits, stop, on_info);
        match (lines.is_empty(), result.best) {
            (true, Some(_)) => vec![(result.score, result.pv)],
            _ => lines.into_iter().map(|(s, line)| (Score::from_internal(s), line)).collect(),
        }
    }

    /// A search for `purpose`: the result, and the lines of the last depth
    /// completed of a search for several.
    #[allow(clippy::too_many_arguments)]
    fn run<P: EngineGame>(
        &self,
        purpose: Purpose,
        player: Side,
        root: &P,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> (SearchResult<P::Move>, Lines<P::Move>)
    where
        P::Rules: RepetitionRule,
    {
        let start = Instant::now();
        let mut legal = MoveList::new();
        root.generate(&mut legal);
        if legal.is_empty() || root.status().is_over() {
            let result = SearchResult {
                best: None,
                score: Score::Units(0),
                depth: 0,
                nodes: 0,
                time: start.elapsed(),
                pv: Vec::new(),
                plan: None,
            };
            return (result, Vec::new());
        }
        // A position the game solves outright (a Salta race nobody can
        // touch): its fastest finish, no search needed.
        if !self.options.classic
            && purpose == Purpose::Play
            && let Some((mv, value)) = root.solved_move()
        {
            // A finish that ends the game at once is reported as the win
            // (or loss) it is, not on the evaluation's scale.
            let mut child = root.clone();
            child.play_unchecked(mv);
            let value = match child.status() {
                Status::Over(o) if o.winner == Some(root.side_to_move()) => WIN - 1,
                Status::Over(o) if o.winner.is_some() => -WIN + 1,
                _ => value,
            };
            let result = SearchResult {
                best: Some(mv),
                score: Score::from_internal(value),
                depth: 0,
                nodes: 0,
                time: start.elapsed(),
                pv: vec![mv],
                plan: None,
            };
            return (result, Vec::new());
        }
        // A plan of the game's own (a Salta army's way home) is
        // searched first and worth `PLAN_MARGIN` more than its score: the
        // search plays another move only when it finds it clearly better.
        // Only the player's own plan: a search on a player's behalf from a
        // position where the opponent is to move (a weakened level scoring
        // its moves) must score the opponent's replies as they are, not
        // with the opponent's plan worth ten steps more.
        let planned = if self.options.classic || purpose != Purpose::Play || player != root.side_to_move() {
            None
        } else {
            fresh_plan(root, history)
        };
        let lines = match purpose {
            Purpose::Play => 0,
            Purpose::Analyse(n) => n,
        };
        self.tt.new_search();
        let budget = limits.time_budget();
        let mut shared = self.shared::<P>(stop, start, budget.map(|(_, h)| h), limits.nodes);
        shared.player = player;
        // The count at the move limit decides the game from here: search
        // with the weights fitted to such games (unless weights were given).
        let count_weights = if shared.solved && self.weights.is_none() { root.count_weights() } else { None };
        let counting = count_weights.is_some();
        if counting {
            shared.weights = count_weights;
        }
        if shared.solved
            && let Some(leader) = root.race_leader()
        {
            let weights = shared.weights.unwrap_or(P::weights());
            let trailing = root.evaluate_with(weights) - root.evaluate_alone(leader, weights);
            shared.alone = Some((leader, if root.side_to_move() == leader { trailing } else { -trailing }));
        }
        // In the count's melee, where calls and jumps are most moves and
        // search depth decides (docs/engine.md, Alpha-beta).
        if counting && !self.options.classic {
            shared.lookahead = self.options.lookahead;
            if self.options.futility {
                shared.futility = futility_margins::<P>(shared.weights.unwrap_or(P::weights()));
            }
        }
        let scoring = scoring_code(shared.alone.map(|(side, _)| side), counting);
        if self.last_scoring.swap(scoring, Ordering::Relaxed) != scoring {
            self.tt.clear();
        }
        let soft = budget.map(|(s, _)| s);
        let max_depth = limits.depth.unwrap_or(MAX_PLY as u32 - 8).clamp(1, MAX_PLY as u32 - 8);
        // Helper threads search until the main thread is done.
        let helpers_stop = AtomicBool::new(false);
        let result = std::thread::scope(|scope| {
            for t in 1..self.options.threads.max(1) {
                let shared = &shared;
                let helpers_stop = &helpers_stop;
                scope.spawn(move || {
                    let mut w = Worker::<P>::new(shared, false, root, history, planned);
                    // Helpers fill the table for the first line.
                    w.iterate(root, max_depth, None, t as u32, helpers_stop, &mut |_| {}, 0);
                });
            }
            let mut w = Worker::<P>::new(&shared, true, root, history, planned);
            let r = w.iterate(root, max_depth, soft, 0, &helpers_stop, on_info, lines);
            helpers_stop.store(true, Ordering::Relaxed);
            r
        });
        let Iterated { best, score, depth, pv, lines } = result;
        let best = best.or(planned).or_else(|| legal.first().copied());
        let result = SearchResult {
            best,
            score: Score::from_internal(score),
            depth,
            nodes: shared.nodes.load(Ordering::Relaxed),
            time: start.elapsed(),
            pv,
            plan: planned,
        };
        (result, lines)
    }

    /// The state a search's threads share, with this searcher's table,
    /// weights and options.
    fn shared<'a, P: EngineGame>(
        &'a self,
        stop: &'a AtomicBool,
        start: Instant,
        hard: Option<Duration>,
        node_limit: Option<u64>,
    ) -> Shared<'a>
    where
        P::Rules: RepetitionRule,
    {
        Shared {
            tt: &self.tt,
            weights: self.weights.as_deref().or(if self.options.classic { P::classic_weights() } else { None }),
            stop,
            nodes: AtomicU64::new(0),
            start,
            hard,
            node_limit,
            null_move: self.options.null_move,
            futility: None,
            lookahead: false,
            contempt: self.options.contempt.clamp(-MAX_CONTEMPT, MAX_CONTEMPT),
            player: Side::White,
            solved: !self.options.classic,
            alone: None,
        }
    }

    /// The quiet position at the end of the quiescence search's principal
    /// variation from each position, with this searcher's weights. Texel
    /// tuning fits the evaluation to these leaves, so that it is fitted to
    /// what the search asks of it: the value of quiet positions.
    pub fn quiet_leaves<P: EngineGame>(&self, positions: &[P]) -> Vec<P>
    where
        P::Rules: RepetitionRule,
    {
        let Some(first) = positions.first() else { return Vec::new() };
        let stop = AtomicBool::new(false);
        // A leaf is scored for what it is worth, from whichever side is to
        // move in each position: no contempt (one worker serves them all,
        // and contempt would be the first position's side's).
        let shared =
            Shared { contempt: 0, player: first.side_to_move(), ..self.shared::<P>(&stop, Instant::now(), None, None) };
        let mut worker = Worker::<P>::new(&shared, false, first, &[], None);
        positions
            .iter()
            .map(|pos| {
                worker.quiesce(pos, -INFINITY, INFINITY, 0, 0);
                let mut leaf = pos.clone();
                for &code in &worker.pv[0] {
                    leaf.play_unchecked(P::decode(code));
                }
                leaf
            })
            .collect()
    }
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score + ply as i32
    } else if score <= -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score - ply as i32
    } else if score <= -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl<'a, P: EngineGame> Worker<'a, P>
where
    P::Rules: RepetitionRule,
{
    fn new(shared: &'a Shared<'a>, main: bool, root: &P, history: &[u64], planned: Option<P::Move>) -> Self {
        let mut path = history.to_vec();
        path.push(root.hash());
        let purposeful = shared.solved && purposeful(root, shared.player);
        let contempt = if purposeful && shared.contempt > 0 { PURPOSEFUL_CONTEMPT } else { shared.contempt };
        let opponent_plays_on = shared.solved && self::purposeful(root, !shared.player) && !repeats_itself(&path);
        Worker {
            shared,
            main,
            nodes: 0,
            flushed: 0,
            stopped: false,
            seldepth: 0,
            root_depth: 1,
            path,
            repetition_floor: 0,
            after_null: false,
            repetition: root.rules().repetition_draw(),
            draw_winner: root.rules().draw_winner(),
            root_side: shared.player,
            purposeful,
            planned,
            excluded: Vec::new(),
            contempt,
            forcing: [false; MAX_PLY],
            closed_by_opponent: if opponent_plays_on { shared.contempt } else { contempt },
            killers: [[0; 2]; MAX_PLY],
            history: Box::new([[0; 4096]; 2]),
            pv: vec![Vec::new(); MAX_PLY + 1],
            _game: std::marker::PhantomData,
        }
    }

    /// Iterative deepening. With `lines` above 0, of that many lines (the
    /// best move's, then the next best's without it, and so on), each
    /// reported. Returns the best move, score, depth and pv, and the lines
    /// of the last depth completed.
    #[allow(clippy::too_many_arguments)]
    fn iterate(
        &mut self,
        root: &P,
        max_depth: u32,
        soft: Option<Duration>,
        offset: u32,
        helpers_stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
        lines: usize,
    ) -> Iterated<P::Move> {
        let mut best: Option<P::Move> = None;
        let mut best_score = 0;
        let mut best_depth = 0;
        let mut best_pv: Vec<P::Move> = Vec::new();
        let mut best_lines: Lines<P::Move> = Vec::new();
        let mut depth = 1 + offset % 2;
        while depth <= max_depth {
            if !self.main && helpers_stop.load(Ordering::Relaxed) {
                break;
            }
            self.root_depth = depth as i32;
            let score = self.aspiration(root, depth as i32, best_score, best_depth >= 4);
            if self.stopped {
                // An interrupted iteration still improves the move when its
                // first move was searched fully.
                if let Some(&code) = self.pv[0].first()
                    && depth > 1
                {
                    best = Some(P::decode(code));
                    best_pv = self.pv[0].iter().map(|&c| P::decode(c)).collect();
                }
                break;
            }
            let previous = std::mem::take(&mut best_lines);
            best_score = score;
            best_depth = depth;
            best_pv = self.pv[0].iter().map(|&c| P::decode(c)).collect();
            best = best_pv.first().copied().or(best);
            if lines > 0 {
                match self.next_lines(root, depth, lines, (score, best_pv.clone()), &previous) {
                    Some(found) => best_lines = found,
                    // Cut short: the lines of the depth before stand.
                    None => {
                        best_lines = previous;
                        break;
                    }
                }
            }
            if self.main {
                self.flush();
                let nodes = self.shared.nodes.load(Ordering::Relaxed);
                let time = self.shared.start.elapsed();
                on_info(&SearchInfo {
                    depth,
                    seldepth: self.seldepth,
                    score: Score::from_internal(score),
                    nodes,
                    time,
                    nps: (nodes as f64 / time.as_secs_f64().max(1e-6)) as u64,
                    pv: line_text(root, &best_pv),
                    lines: best_lines
                        .iter()
                        .map(|(s, line)| PvLine { score: Score::from_internal(*s), pv: line_text(root, line) })
                        .collect(),
                });
                if score.abs() >= WIN_BOUND && (WIN - score.abs()) as u32 <= depth {
                    break; // a forced result is found; deeper search cannot change it
                }
                if let Some(s) = soft
                    && self.shared.start.elapsed() >= s
                {
                    break;
                }
            }
            depth += 1;
        }
        self.flush();
        Iterated { best, score: best_score, depth: best_depth, pv: best_pv, lines: best_lines }
    }

    /// The lines after the first at `depth`: the root searched again and
    /// again, each time without the first moves of the lines found, until
    /// `lines` are found or no move is left. `None` when the search is
    /// stopped meanwhile. `previous`: the lines of the depth before, whose
    /// scores centre the aspiration windows.
    fn next_lines(
        &mut self,
        root: &P,
        depth: u32,
        lines: usize,
        first: (i32, Vec<P::Move>),
        previous: &[(i32, Vec<P::Move>)],
    ) -> Option<Lines<P::Move>> {
        let mut found = vec![first];
        while found.len() < lines {
            let Some(&mv) = found.last().and_then(|(_, line)| line.first()) else { break };
            self.excluded.push(P::encode(mv));
            let prev = previous.get(found.len()).map(|(s, _)| *s);
            let score = self.aspiration(root, depth as i32, prev.unwrap_or(0), prev.is_some() && depth > 4);
            if self.stopped || self.pv[0].is_empty() {
                break;
            }
            found.push((score, self.pv[0].iter().map(|&c| P::decode(c)).collect()));
        }
        self.excluded.clear();
        (!self.stopped).then_some(found)
    }

    fn aspiration(&mut self, root: &P, depth: i32, prev: i32, use_window: bool) -> i32 {
        if !use_window || prev.abs() >= WIN_BOUND {
            return self.alphabeta(root, depth, -INFINITY, INFINITY, 0);
        }
        let mut delta = 40;
        let (mut alpha, mut beta) = (prev - delta, prev + delta);
        loop {
            let score = self.alphabeta(root, depth, alpha, beta, 0);
            if self.stopped {
                return score;
            }
            if score <= alpha {
                alpha = (alpha - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (beta + delta).min(INFINITY);
            } else {
                return score;
            }
            delta *= 3;
            if delta > 2000 {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    fn flush(&mut self) {
        self.shared.nodes.fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
    }

    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        if let Some(limit) = self.shared.node_limit
            && self.shared.nodes.load(Ordering::Relaxed) + (self.nodes - self.flushed) >= limit
        {
            self.stopped = true;
        }
        if self.nodes & 1023 == 0 {
            self.flush();
            if self.shared.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            }
            if let Some(h) = self.shared.hard
                && self.shared.start.elapsed() >= h
            {
                self.stopped = true;
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    #[inline]
    fn evaluate(&self, pos: &P) -> i32 {
        if self.shared.solved
            && let Some(v) = pos.solved_value()
        {
            return v;
        }
        match (self.shared.alone, self.shared.weights) {
            (Some((leader, trailing)), w) => {
                let alone = pos.evaluate_alone(leader, w.unwrap_or(P::weights()));
                alone + if pos.side_to_move() == leader { trailing } else { -trailing }
            }
            (None, None) => pos.evaluate(),
            (None, Some(w)) => pos.evaluate_with(w),
        }
    }

    /// The score of a game's end for `side`: a win sooner is better, a
    /// draw is worth the contempt.
    fn outcome_score(&self, winner: Option<Side>, side: Side, ply: usize) -> i32 {
        match winner {
            Some(w) if w == side => WIN - ply as i32,
            Some(_) => -WIN + ply as i32,
            None if side == self.root_side => -self.contempt,
            None => self.contempt,
        }
    }

    /// The score of a repetition (a draw, or by the rules a win for one side).
    fn draw_score(&self, side: Side, ply: usize) -> i32 {
        self.outcome_score(self.draw_winner, side, ply)
    }

    /// The score of a position met again on the game's or the search's
    /// path. Both sides chose to come back to it, and if they go on so,
    /// the game ends as the rules end such a game: by repetition, or,
    /// where repetition is no draw, at the move limit, as things stand
    /// now. Without that, a rule set with compulsory jumps let both
    /// sides jump back and forth in a cycle for a thousand plies (a
    /// forced jump answered by a forced jump back), the side ahead on
    /// the board scoring itself ahead all the while; the move limit then
    /// drew the game. A limit scored by distance (`meyer1908`) gives the
    /// count as it stands on the evaluation's scale, not a win: the
    /// cycle is an assumption, and a won score that depends on the path
    /// would mislead the rest of the search through the hash table.
    fn cycle_score(&self, pos: &P, side: Side, ply: usize) -> i32 {
        if self.repetition {
            return self.repetition_score(side, ply);
        }
        let outcome = pos.limit_outcome();
        match (outcome.winner, pos.goal_distance(side), pos.goal_distance(!side)) {
            (None, _, _) => self.draw_score(side, ply),
            (Some(_), Some(mine), Some(theirs)) => theirs - mine,
            (winner, _, _) => self.outcome_score(winner, side, ply),
        }
    }

    /// The score of a position met again where repetition draws, for
    /// `side` to move there. The side that closed the cycle pays for the
    /// draw: the player who moved into the position by choice, or, when
    /// that move only answered a call, the caller. The root side pays its
    /// full contempt (the most when it is not behind); a cycle the
    /// opponent closes costs the root side only the usual contempt unless
    /// the opponent is behind and would want the draw. Charging the root side the most for
    /// every cycle, whoever closed it, made it fear that the opponent
    /// would step back whenever it could: a search deep enough to see
    /// such a step everywhere left its plan to avoid positions the
    /// opponent could undo (level 8 at 150,000 nodes a move scored 22.5%
    /// against itself at 30,000; docs/engine.md).
    fn repetition_score(&self, side: Side, ply: usize) -> i32 {
        if self.draw_winner.is_some() {
            return self.draw_score(side, ply);
        }
        let closer = if ply > 0 && self.forcing[ply - 1] { side } else { !side };
        let cost = if closer == self.root_side { self.contempt } else { self.closed_by_opponent };
        if side == self.root_side { -cost } else { cost }
    }

    fn is_repetition(&self, hash: u64) -> bool {
        // The current position is the last entry; look for an earlier one.
        let n = self.path.len();
        self.path[self.repetition_floor..n - 1].iter().rev().any(|&h| h == hash)
    }

    /// What a tactical move is worth to the side that plays it, seen
    /// one move ahead without search: the evaluation after it, or, where
    /// it forces the answer (a Salta call), after the answer the opponent
    /// would choose by the evaluation. Evaluations are not nodes: this
    /// costs time, not the node budget.
    fn lookahead_value(&self, pos: &P, mv: P::Move) -> i32 {
        let mut child = pos.clone();
        child.play_unchecked(mv);
        if !child.is_forcing() {
            return -self.evaluate(&child);
        }
        let mut answers = MoveList::new();
        child.generate(&mut answers);
        answers
            .iter()
            .map(|&answer| {
                let mut after = child.clone();
                after.play_unchecked(answer);
                self.evaluate(&after)
            })
            .min()
            .unwrap_or_else(|| -self.evaluate(&child))
    }

    /// Score the moves for ordering (all but the hash move, which is
    /// searched before they are scored): tactical moves (by a look ahead
    /// where the count decides, by history otherwise),
    /// killers, then quiet moves by history. They are taken best first by
    /// [`next_best`] for the first few, then sorted: most nodes cut off
    /// after one or two moves, and the others search them all.
    fn score_moves(
        &self,
        pos: &P,
        moves: &MoveList<P::Move>,
        skip: Option<usize>,
        ply: usize,
        scored: &mut MoveList<(i32, P::Move)>,
    ) {
        let side = pos.side_to_move().index();
        let killers = self.killers[ply.min(MAX_PLY - 1)];
        for (i, &m) in moves.iter().enumerate() {
            if Some(i) == skip {
                continue;
            }
            let code = P::encode(m);
            let s = if self.shared.lookahead && pos.is_tactical(m) {
                (1 << 28) + self.lookahead_value(pos, m).clamp(-(1 << 24), 1 << 24)
            } else if pos.is_tactical(m) {
                (1 << 28) + self.history[side][code as usize & 4095]
            } else if code == killers[0] {
                1 << 27
            } else if code == killers[1] {
                (1 << 27) - 1
            } else {
                self.history[side][code as usize & 4095]
            };
            scored.push((s, m));
        }
    }

    fn alphabeta(&mut self, pos: &P, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        if self.stopped {
            return 0;
        }
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        let side = pos.side_to_move();
        if let Status::Over(o) = pos.status() {
            return self.outcome_score(o.winner, side, ply);
        }
        if ply > 0 && self.is_repetition(pos.hash()) {
            return self.cycle_score(pos, side, ply);
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos);
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        self.forcing[ply] = pos.is_forcing();
        let is_pv = beta - alpha > 1;
        let key = pos.hash();
        let mut tt_move = 0;
        if let Some(e) = self.shared.tt.probe(key) {
            tt_move = e.mv;
            if !is_pv && ply > 0 && e.depth as i32 >= depth {
                let s = from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }
        // Near the leaves, away from the principal variation, a quiet
        // position far above beta is cut on its static evaluation (reverse
        // futility), and one far below alpha searches only its tactical
        // moves after the first (futility).
        let forcing = self.forcing[ply];
        let mut static_eval = None;
        let mut futile = false;
        if let Some(margins) = self.shared.futility
            && !is_pv
            && ply > 0
            && depth <= FUTILITY_DEPTH
            && !forcing
            && beta.abs() < WIN_BOUND
            && alpha.abs() < WIN_BOUND
        {
            let e = self.evaluate(pos);
            static_eval = Some(e);
            let margin = margins[depth as usize];
            if e - margin >= beta {
                return e - margin;
            }
            futile = e + margin <= alpha;
        }
        // Null move: if the side to move could pass and a reduced search
        // still fails high, a real move surely does. Not in forced positions
        // (a pending call), not twice in a row, not near the leaves.
        let after_null = std::mem::replace(&mut self.after_null, false);
        if self.shared.null_move
            && !is_pv
            && ply > 0
            && depth >= 3
            && !after_null
            && !forcing
            && beta.abs() < WIN_BOUND
            && static_eval.unwrap_or_else(|| self.evaluate(pos)) >= beta
        {
            let mut child = pos.clone();
            child.play_unchecked(P::null_move());
            let reduction = 2 + (depth >= 7) as i32;
            let floor = std::mem::replace(&mut self.repetition_floor, self.path.len());
            self.path.push(child.hash());
            self.after_null = true;
            let s = -self.alphabeta(&child, depth - 1 - reduction, -beta, -beta + 1, ply + 1);
            self.after_null = false;
            self.path.pop();
            self.repetition_floor = floor;
            if self.stopped {
                return 0;
            }
            if s >= beta {
                return if s >= WIN_BOUND { beta } else { s };
            }
        }
        let mut moves = MoveList::new();
        pos.generate(&mut moves);
        if ply == 0
            && let Some(planned) = self.planned
        {
            tt_move = P::encode(planned);
        }
        // The hash move is searched first, before the others are scored:
        // when it cuts off (most of the time it is there), the ordering work
        // is saved.
        let hash_index = if tt_move == 0 { None } else { moves.iter().position(|&m| P::encode(m) == tt_move) };
        let first_scored = hash_index.is_some() as usize;
        let mut ordered = MoveList::new();
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_code = 0u16;
        // Moves searched so far (pointless moves are skipped, not searched).
        let mut searched = 0usize;
        for i in 0..moves.len() {
            let mv = match hash_index {
                Some(h) if i == 0 => moves[h],
                _ => {
                    if i == first_scored {
                        self.score_moves(pos, &moves, hash_index, ply, &mut ordered);
                    }
                    let k = i - first_scored;
                    if k == LAZY_PICKS {
                        // Past the first few the node is likely to search
                        // them all: one sort beats picking each in turn.
                        ordered[k..].sort_by_key(|&(score, _)| std::cmp::Reverse(score));
                    }
                    if k < LAZY_PICKS { next_best(&mut ordered, k) } else { ordered[k].1 }
                }
            };
            if ply == 0 && self.excluded.contains(&P::encode(mv)) {
                continue;
            }
            // Every Salta call has a twin without it, so a node never runs
            // out of moves this way.
            if self.purposeful && side == self.root_side && pos.is_pointless(mv) {
                continue;
            }
            let tactical = pos.is_tactical(mv);
            if futile && searched > 0 && !tactical {
                continue;
            }
            let i = searched;
            searched += 1;
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let extension = if child.is_forcing() && (ply as i32) < 2 * self.root_depth { 1 } else { 0 };
            self.path.push(child.hash());
            let new_depth = depth - 1 + extension;
            let score = if i == 0 {
                // The planned move comes first at the root (it is the hash
                // move there): its margin shifts its window. A won or lost
                // game is worth what it is, plan or not (the margin would
                // carry a win past the scale's end).
                let bonus = if ply == 0 && self.planned == Some(mv) { PLAN_MARGIN } else { 0 };
                let own = -self.alphabeta(&child, new_depth, bonus - beta, bonus - alpha, ply + 1);
                if own.abs() >= WIN_BOUND { own } else { own + bonus }
            } else {
                // Late quiet moves are searched less deeply first.
                let reduction = if depth >= 3 && i >= 3 && !tactical && extension == 0 {
                    1 + (i >= 8) as i32 + (depth >= 6 && i >= 16) as i32
                } else {
                    0
                };
                let mut s = -self.alphabeta(&child, new_depth - reduction, -alpha - 1, -alpha, ply + 1);
                if s > alpha && reduction > 0 {
                    s = -self.alphabeta(&child, new_depth, -alpha - 1, -alpha, ply + 1);
                }
                if s > alpha && s < beta {
                    s = -self.alphabeta(&child, new_depth, -beta, -alpha, ply + 1);
                }
                s
            };
            self.path.pop();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_code = P::encode(mv);
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(best_code);
                    head[ply].extend_from_slice(&tail[0]);
                    if alpha >= beta {
                        if !tactical {
                            let k = &mut self.killers[ply.min(MAX_PLY - 1)];
                            if k[0] != best_code {
                                k[1] = k[0];
                                k[0] = best_code;
                            }
                            let h = &mut self.history[side.index()][best_code as usize & 4095];
                            *h = (*h + depth * depth).min(1 << 20);
                        }
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // A root searched without some of its moves is not the position's
        // value: its entry would point the next iteration's first line at
        // a lesser move.
        if ply > 0 || self.excluded.is_empty() {
            self.shared
                .tt
                .store(key, Entry { mv: best_code, score: to_tt(best, ply), depth: depth.clamp(0, 255) as u8, bound });
        }
        best
    }

    fn quiesce(&mut self, pos: &P, mut alpha: i32, beta: i32, ply: usize, qdepth: u32) -> i32 {
        self.pv[ply].clear();
        if self.stopped {
            return 0;
        }
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        let side = pos.side_to_move();
        if let Status::Over(o) = pos.status() {
            return self.outcome_score(o.winner, side, ply);
        }
        let forced = pos.is_forcing();
        let mut moves = MoveList::new();
        if forced {
            pos.generate(&mut moves);
        } else {
            let stand = self.evaluate(pos);
            if stand >= beta || qdepth >= 6 || ply >= MAX_PLY - 1 {
                return stand;
            }
            alpha = alpha.max(stand);
            pos.quiescence_moves(&mut moves);
            if moves.is_empty() {
                return stand;
            }
        }
        let mut best = if forced { -INFINITY } else { alpha };
        for &mv in &moves {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let s = if qdepth >= 6 && forced {
                self.pv[ply + 1].clear();
                -self.evaluate(&child)
            } else {
                -self.quiesce(&child, -beta, -alpha, ply + 1, qdepth + 1)
            };
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    // The principal variation, for `Searcher::quiet_leaves`.
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(P::encode(mv));
                    head[ply].extend_from_slice(&tail[0]);
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}
