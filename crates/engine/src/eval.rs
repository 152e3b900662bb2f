//! What the search needs from a game beyond its rules: an evaluation, a
//! compact move code for the transposition table, and which moves are
//! tactical. Implemented for both games.

use monte_rules::focus::{FocusMove, FocusPosition, MoveKind};
use monte_rules::game::RepetitionRule;
use monte_rules::salta::{SaltaMove, SaltaPosition};
use monte_rules::{MoveList, Position, Side};

/// A game the engine can play.
pub trait EngineGame: Position
where
    Self::Rules: RepetitionRule,
{
    /// The position's value for the side to move, in evaluation units
    /// (100 = one step of the race in Salta, one free piece in Focus).
    fn evaluate(&self) -> i32;
    /// A compact code of a move (for the transposition table); 0 is never used.
    fn encode(mv: Self::Move) -> u16;
    fn decode(code: u16) -> Self::Move;
    /// Moves worth trying early and in quiescence: Salta jumps and calls,
    /// Focus moves that capture or overflow.
    fn is_tactical(&self, mv: Self::Move) -> bool;
    /// Moves searched at the leaves until the position is quiet.
    fn quiescence_moves(&self, out: &mut MoveList<Self::Move>);
    /// The move that only hands the turn over (a pass), for null-move
    /// pruning: `play_unchecked` of it must be legal in any position that
    /// is not forcing, whatever the rules say about passing.
    fn null_move() -> Self::Move;
    /// Whether the side to move is forced (a pending Salta call): the search
    /// extends such positions by a ply.
    fn is_forcing(&self) -> bool;
    /// The evaluation's features from the side to move's point of view:
    /// `evaluate()` is their dot product with [`EngineGame::weights`].
    fn features(&self) -> Features;
    /// The weights in use, in the order of the features.
    fn weights() -> &'static [i32];
    /// The feature names.
    fn feature_names() -> &'static [&'static str];
    /// The weights of the evaluation before the current one, when the game
    /// has one kept for A/B matches (`eval=classic`).
    fn classic_weights() -> Option<&'static [i32]> {
        None
    }
    /// Whether `mv`, a move of the side to move, is one the engine's own
    /// side does not play when it is not behind: a Salta call without a
    /// purpose (see `SaltaPosition`'s implementation).
    fn is_pointless(&self, _mv: Self::Move) -> bool {
        false
    }
    /// How far `side` still is from its goal, in evaluation units (Salta:
    /// its race distance; `None` for games without a race): who is behind.
    fn goal_distance(&self, _side: Side) -> Option<i32> {
        None
    }
    /// A move that is known to be best without search (the first move of
    /// the fastest finish of a Salta race that nobody can touch), with
    /// its value for the side to move.
    fn solved_move(&self) -> Option<(Self::Move, i32)> {
        None
    }
    /// How far, in evaluation units, a search `depth` plies deep is
    /// unlikely to take a quiet position's value from its static
    /// evaluation with these weights: the margin of futility pruning near
    /// the leaves. `None` (the default) turns that pruning off for the game.
    fn futility_margin(_weights: &[i32], _depth: i32) -> Option<i32> {
        None
    }
    /// The exact value of a position the game can decide without search
    /// (a separated Salta race), from the side to move's point of view.
    fn solved_value(&self) -> Option<i32> {
        None
    }
    /// Weights to search with in place of the game's own once the game
    /// will be decided by a count at its move limit, not by a goal
    /// (Salta: `eval=classic`'s, see `SaltaPosition`'s implementation).
    /// The search then also orders tactical moves by a look ahead and
    /// prunes by [`EngineGame::futility_margin`].
    fn count_weights(&self) -> Option<&'static [i32]> {
        None
    }
    /// The side, if any, so far ahead in a race to a goal that only its
    /// own progress still matters: the search then scores positions by
    /// that side's features alone ([`EngineGame::evaluate_alone`]).
    fn race_leader(&self) -> Option<Side> {
        None
    }
    /// A move the side to move means to play by a plan of its own (an
    /// army's way home in Salta), which the search plays unless it finds
    /// a move clearly better.
    fn planned_move(&self) -> Option<Self::Move> {
        None
    }
    /// A scripted test opponent's move (`monte match --engine2
    /// runner|blocker`), `None` when the game has no such script.
    fn scripted_move(&self, _script: crate::opponents::Script, _rng: &mut monte_rules::Rng) -> Option<Self::Move> {
        None
    }
    /// The evaluation with `weights` counting only `side`'s features (the
    /// other side's own counts left out), from the side to move's point of
    /// view. Games without one-sided features use the full evaluation.
    fn evaluate_alone(&self, _side: Side, weights: &[i32]) -> i32 {
        self.evaluate_with(weights)
    }
    /// Evaluation units per unit of logit of the win probability: `monte
    /// tune` fits it (its K is 1/scale) together with the weights.
    fn eval_scale() -> f64;
    /// The evaluation with other weights (for tuning and A/B matches).
    fn evaluate_with(&self, weights: &[i32]) -> i32 {
        self.features().iter().zip(weights).map(|(f, w)| f * w).sum()
    }
}

/// Evaluation features, without allocation.
pub type Features = arrayvec::ArrayVec<i32, 16>;

/// Salta evaluation weights. Each feature is counted for both sides and
/// enters as (the opponent's count − the mover's), so each weight is what
/// one unit of the feature costs its owner (negative: what it is worth).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SaltaWeights {
    /// Per step of race distance.
    pub distance: i32,
    /// For having the move (a benefit: enters with the sign it has).
    pub tempo: i32,
    /// Per piece with no free square towards its target.
    pub blocked: i32,
    /// Per own piece still standing on one of the opponent's targets.
    pub on_their_targets: i32,
    /// Per own piece the opponent could jump now.
    pub exposed: i32,
    /// Per piece on its own target (negative: a piece home is worth it).
    pub home: i32,
    /// Per step of the slowest piece's distance.
    pub slowest: i32,
    /// Per piece whose own target holds an enemy piece (it must be driven
    /// off by a call or wait for it to leave).
    pub target_held: i32,
    /// Per unit of the sum of the squared distances (stragglers cost more
    /// than pieces that share the road).
    pub spread: i32,
    /// Per move the army needs beyond its distance because its own pieces
    /// stand in each other's way near the targets (the race solver's
    /// count without the opponent's pieces, `race::jam`).
    pub jam: i32,
    /// Per step of the race lead (the distance difference), counted in
    /// full up to [`LEAD_CAP`] steps and a quarter beyond: a game far
    /// ahead is won by finishing, not by holding the opponent further back.
    pub lead: i32,
    /// Per enemy piece standing on one of our targets with no move at all
    /// (walled in by pieces): it cannot leave even if its owner wants to,
    /// so we must open a way out for it.
    pub walled_in: i32,
    /// Per piece standing on the target of another piece of its own army:
    /// both must move again, and near the edge they cannot get past each
    /// other without others making room (the jams of `jam`).
    pub misplaced: i32,
    /// Per piece whose target is sealed: every square next to it holds a
    /// piece of its own army that is home, so one of them must step out
    /// and back (stars that arrive after the moons and suns have closed
    /// the ranks in front of their targets).
    pub sealed: i32,
}

impl SaltaWeights {
    /// In the order of the features.
    pub const fn to_array(self) -> [i32; SALTA_FEATURES] {
        [
            self.distance,
            self.tempo,
            self.blocked,
            self.on_their_targets,
            self.exposed,
            self.home,
            self.slowest,
            self.target_held,
            self.spread,
            self.jam,
            self.lead,
            self.walled_in,
            self.misplaced,
            self.sealed,
        ]
    }
}

/// The army's distance from which on the evaluation asks the race solver
/// for its jam.
pub const JAM_DISTANCE: i32 = 20;

/// The number of Salta features.
pub const SALTA_FEATURES: usize = 14;

/// Steps of lead counted in full by the `lead` feature.
pub const LEAD_CAP: i32 = 15;

/// The weights in use (docs/engine.md, the evaluation).
pub const SALTA_WEIGHTS: SaltaWeights = SaltaWeights {
    distance: 100,
    tempo: 60,
    blocked: 20,
    on_their_targets: 0,
    exposed: 0,
    home: -40,
    slowest: 30,
    target_held: 60,
    spread: 2,
    jam: 100,
    lead: 0,
    walled_in: 150,
    misplaced: 100,
    sealed: 300,
};

/// The evaluation of commit 11e216e (`eval=classic` in an engine setting):
/// the first five features, fitted to adjudicated games, where the race
/// distance explained little and blocking and the move were worth more
/// than progress. Kept to measure the current evaluation against.
pub const SALTA_CLASSIC_WEIGHTS: SaltaWeights = SaltaWeights {
    distance: 100,
    tempo: 648,
    blocked: -240,
    on_their_targets: -97,
    exposed: 78,
    home: 0,
    slowest: 0,
    target_held: 0,
    spread: 0,
    jam: 0,
    lead: 0,
    walled_in: 0,
    misplaced: 0,
    sealed: 0,
};

/// For a piece `d` steps from its target: `d` (bits 0-7), `d²` (bits
/// 8-19) and 1 in the nibble of `d` from bit 20 on, so that one sum over
/// an army gives its distance, the sum of its squared distances and how
/// many of its pieces are at each distance (15 pieces at most 9 steps
/// away: no field overflows into the next).
const DISTANCE_SUMS: [u64; 16] = {
    let mut t = [0u64; 16];
    let mut d = 0;
    while d <= MAX_DISTANCE {
        t[d] = d as u64 | ((d * d) as u64) << 8 | 1 << (20 + 4 * d);
        d += 1;
    }
    t
};

/// The most steps between two squares of the board, checked against the
/// board's table of distances.
const MAX_DISTANCE: usize = {
    use monte_rules::salta::geometry::{DISTANCE, SQUARE_SLOTS};
    let mut a = 0;
    while a < SQUARE_SLOTS {
        let mut b = 0;
        while b < SQUARE_SLOTS {
            assert!(DISTANCE[a][b] <= 9);
            b += 1;
        }
        a += 1;
    }
    9
};

/// Salta features of one side, in the order of [`SaltaWeights`] without
/// the tempo and the lead: distance, blocked pieces, pieces on the
/// opponent's targets, pieces the opponent could jump, pieces home, the
/// slowest piece's distance, pieces whose target an enemy piece holds,
/// the sum of squared distances, the jam, enemy pieces walled in on our
/// targets, pieces on another own piece's target, pieces whose target
/// home pieces seal off.
#[inline(always)]
pub fn salta_features(pos: &SaltaPosition, side: Side) -> [i32; SALTA_FEATURES - 2] {
    use monte_rules::salta::geometry::{BOARD, Dir, Squares, neighbours, shift};
    let own = pos.pieces(side);
    let opp = pos.pieces(!side);
    let empty = BOARD & !(own | opp);
    // One pass over the pieces for what depends on each piece's own
    // distance; the rest from bitboards and the position's count of the
    // pieces home.
    let mut sums = 0u64;
    // Pieces with no free square that brings them closer; a piece home
    // has none either, and is taken off after the pass.
    let mut stuck = 0i32;
    for sq in Squares(own) {
        let (d, closer) = pos.approach(sq);
        sums += DISTANCE_SUMS[d as usize & 15];
        stuck += (closer & empty == 0) as i32;
    }
    let distance = (sums & 0xFF) as i32;
    let spread = ((sums >> 8) & 0xFFF) as i32;
    // The highest distance counted: the highest nibble that is not 0.
    let counts = sums >> 20;
    let slowest = if counts == 0 { 0 } else { (63 - counts.leading_zeros() as i32) / 4 };
    let home = pos.pieces_home(side) as i32;
    let blocked = stuck - home;
    let targets = pos.target_set(side);
    // A target square holds at most one piece: one an enemy piece holds
    // is one no own piece is home on.
    let target_held = (targets & opp).count_ones() as i32;
    // A target is sealed when every square next to it holds a piece home
    // (every square has a neighbour, so none is sealed with no piece home).
    let sealed = if home == 0 {
        0
    } else {
        let mut home_mask = 0u64;
        for sq in Squares(own & targets) {
            home_mask |= ((pos.approach(sq).0 == 0) as u64) << sq;
        }
        let awaited = targets & !home_mask;
        let sealed_squares = BOARD & !neighbours(BOARD & !home_mask);
        (awaited & sealed_squares).count_ones() as i32
    };
    let on_their_targets = (own & pos.target_set(!side)).count_ones() as i32;
    // Pieces the opponent could jump: an opponent piece on one side and an
    // empty square on the other.
    let mut jumpable = 0;
    for d in Dir::ALL {
        jumpable |= shift(opp, d.opposite()) & shift(empty, d);
    }
    let exposed = (own & jumpable).count_ones() as i32;
    // Jams only matter once the army has gathered round its targets; the
    // solver is asked only then (it would cost most of the search's time).
    let jam = if distance <= JAM_DISTANCE { crate::race::jam(pos, side) as i32 } else { 0 };
    // Enemy pieces on our targets with neither a step nor a jump.
    let blockers = opp & targets;
    let mut movable = neighbours(empty) & blockers;
    for d in Dir::ALL {
        movable |= shift(shift(empty, d) & own, d) & blockers;
    }
    let walled_in = (blockers & !movable).count_ones() as i32;
    let misplaced = (own & targets).count_ones() as i32 - home;
    [
        distance,
        blocked,
        on_their_targets,
        exposed,
        home,
        slowest,
        target_held,
        spread,
        jam,
        walled_in,
        misplaced,
        sealed,
    ]
}

/// The Salta features from the side to move's point of view: the
/// opponent's count minus the mover's, 1 for the tempo, and the capped
/// lead last.
pub fn salta_feature_vector(pos: &SaltaPosition) -> [i32; SALTA_FEATURES] {
    let me = pos.side_to_move();
    let m = salta_features(pos, me);
    let t = salta_features(pos, !me);
    let mut v = [0; SALTA_FEATURES];
    v[0] = t[0] - m[0];
    v[1] = 1;
    for i in 1..9 {
        v[i + 1] = t[i] - m[i];
    }
    v[10] = lead(t[0] - m[0]);
    v[11] = t[9] - m[9];
    v[12] = t[10] - m[10];
    v[13] = t[11] - m[11];
    v
}

/// The Salta features from the side to move's point of view, as
/// [`salta_feature_vector`], with `side`'s counts alone: the other side's
/// own counts are left out (taken as 0), the tempo kept and the lead 0.
/// The evaluation of a side far ahead ([`RACE_LEAD`]): pushing the
/// trailing side further back gains it nothing, its own finish
/// everything.
pub fn salta_feature_vector_alone(pos: &SaltaPosition, side: Side) -> [i32; SALTA_FEATURES] {
    let own = salta_features(pos, side);
    // Enters as (the opponent's count − the mover's).
    let sign = if pos.side_to_move() == side { -1 } else { 1 };
    let mut v = [0; SALTA_FEATURES];
    v[0] = sign * own[0];
    v[1] = 1;
    for i in 1..9 {
        v[i + 1] = sign * own[i];
    }
    v[11] = sign * own[9];
    v[12] = sign * own[10];
    v[13] = sign * own[11];
    v
}

/// Steps of race lead from which the leader is scored by its own progress
/// alone ([`EngineGame::race_leader`]), unless a move limit scores the
/// game by distance.
pub const RACE_LEAD: i32 = 15;

/// The race lead in steps, a quarter counted beyond [`LEAD_CAP`].
fn lead(steps: i32) -> i32 {
    let excess = (steps.abs() - LEAD_CAP).max(0);
    steps.signum() * (steps.abs() - excess + excess / 4)
}

/// The Salta evaluation with explicit weights (for tuning): the dot
/// product of [`salta_feature_vector`] with the weights, summed side by
/// side without the vector (the features of a weight 0 are then never
/// counted).
#[inline]
pub fn salta_eval(pos: &SaltaPosition, w: &SaltaWeights) -> i32 {
    let me = pos.side_to_move();
    let m = salta_features(pos, me);
    let t = salta_features(pos, !me);
    // In the order of `salta_features`.
    let per_side = [
        w.distance,
        w.blocked,
        w.on_their_targets,
        w.exposed,
        w.home,
        w.slowest,
        w.target_held,
        w.spread,
        w.jam,
        w.walled_in,
        w.misplaced,
        w.sealed,
    ];
    let sides: i32 = per_side.iter().zip(t.iter().zip(&m)).map(|(w, (t, m))| w * (t - m)).sum();
    sides + w.tempo + w.lead * lead(t[0] - m[0])
}

impl EngineGame for SaltaPosition {
    fn evaluate(&self) -> i32 {
        salta_eval(self, &SALTA_WEIGHTS)
    }

    fn encode(mv: SaltaMove) -> u16 {
        if mv.is_pass() { 1 } else { 2 + ((mv.from as u16) << 7 | (mv.to as u16) << 1 | mv.call as u16) }
    }

    fn decode(code: u16) -> SaltaMove {
        if code <= 1 {
            return SaltaMove::PASS;
        }
        let c = code - 2;
        SaltaMove { from: (c >> 7) as u8, to: ((c >> 1) & 63) as u8, call: c & 1 == 1 }
    }

    fn is_tactical(&self, mv: SaltaMove) -> bool {
        mv.call || mv.is_jump()
    }

    fn quiescence_moves(&self, out: &mut MoveList<SaltaMove>) {
        // A jump chain can carry a piece many steps at once: a leaf where the
        // side to move has one is not quiet, and its static value is off by
        // the chain. Search the jumps that bring their piece closer to its
        // target (without a call; a pending call is a forced position, which
        // the search extends instead, see `is_forcing`).
        self.generate_approaching_jumps(out);
    }

    fn null_move() -> SaltaMove {
        SaltaMove::PASS
    }

    fn futility_margin(weights: &[i32], depth: i32) -> Option<i32> {
        // The side to move's static value holds the tempo, which the move
        // hands over: its searched value lies about two tempi lower. Beyond
        // that, a quiet move changes the count by a step or so a ply.
        // Measured in level 8's searches (docs/engine.md, Alpha-beta).
        let distance = (*weights.first()?).max(0);
        let tempo = (*weights.get(1)?).max(0);
        Some(2 * tempo + 3 * distance * depth / 2)
    }

    fn is_forcing(&self) -> bool {
        self.pending_call().is_some()
    }

    fn features(&self) -> Features {
        salta_feature_vector(self).into_iter().collect()
    }

    fn weights() -> &'static [i32] {
        const W: [i32; SALTA_FEATURES] = SALTA_WEIGHTS.to_array();
        &W
    }

    fn classic_weights() -> Option<&'static [i32]> {
        const W: [i32; SALTA_FEATURES] = SALTA_CLASSIC_WEIGHTS.to_array();
        Some(&W)
    }

    fn feature_names() -> &'static [&'static str] {
        // Sized by the feature count, so that a new feature needs its name.
        const NAMES: [&str; SALTA_FEATURES] = [
            "distance",
            "tempo",
            "blocked",
            "on_their_targets",
            "exposed",
            "home",
            "slowest",
            "target_held",
            "spread",
            "jam",
            "lead",
            "walled_in",
            "misplaced",
            "sealed",
        ];
        &NAMES
    }

    fn solved_value(&self) -> Option<i32> {
        crate::race::race_value(self)
    }

    fn goal_distance(&self, side: Side) -> Option<i32> {
        Some(100 * self.distance(side) as i32)
    }

    fn solved_move(&self) -> Option<(SaltaMove, i32)> {
        crate::race::fastest_finish(self)
    }

    fn scripted_move(&self, script: crate::opponents::Script, rng: &mut monte_rules::Rng) -> Option<SaltaMove> {
        crate::opponents::scripted_move(script, self, rng)
    }

    /// Under a move limit scored by distance, once each army is further
    /// from home than it has moves left, the count at the limit decides
    /// the game, and the evaluation of 11e216e, fitted to games decided by
    /// the count, scores it better than the current one, fitted to games
    /// that end with a goal: level 8 searching with it there scored 66.9%
    /// against level 8 without it (80 games, `seed,move-limit=120`, docs/
    /// engine.md). Before that point an army may still finish, and under
    /// `meyer1908` (250 moves a side) searching with it from the first
    /// move lost 0-40.
    fn count_weights(&self) -> Option<&'static [i32]> {
        let limit = self.rules().move_limit.filter(|_| self.rules().scored_limit())?;
        // White moves at even plies, Black at odd ones.
        let made = |side| if side == Side::White { self.ply().div_ceil(2) } else { self.ply() / 2 };
        let out_of_reach = |side| self.distance(side) > limit.saturating_sub(made(side));
        if out_of_reach(Side::White) && out_of_reach(Side::Black) { Self::classic_weights() } else { None }
    }

    /// Under a move limit scored by distance every step of the trailing
    /// side counts at the end, and nobody is scored alone.
    fn race_leader(&self) -> Option<Side> {
        if self.rules().scored_limit() {
            return None;
        }
        let (white, black) = (self.distance(Side::White) as i32, self.distance(Side::Black) as i32);
        if black - white >= RACE_LEAD {
            Some(Side::White)
        } else if white - black >= RACE_LEAD {
            Some(Side::Black)
        } else {
            None
        }
    }

    /// A Salta army plans its way home from the first move, whichever
    /// side leads: left to the search until 60 steps from home, level 8
    /// needs a median of 518 plies to finish against level 1 (397 with
    /// the plan from the first move), and two equal armies that only
    /// fight keep each other from finishing for hundreds of plies. Not under a move limit
    /// scored by distance, where every step of the fight counts at the
    /// end.
    fn planned_move(&self) -> Option<SaltaMove> {
        if self.rules().scored_limit() {
            return None;
        }
        crate::race::planned_move(self)
    }

    fn evaluate_alone(&self, side: Side, weights: &[i32]) -> i32 {
        salta_feature_vector_alone(self, side).iter().zip(weights).map(|(f, w)| f * w).sum()
    }

    /// A call is pointless unless it drives a piece off the caller's
    /// targets: some opponent piece that could answer it stands on one and
    /// would land on a square that is not one. Any other call only hands
    /// the opponent a forced move and keeps the melee going (the answer is
    /// often a call back; an eviction from one target onto another was
    /// seen to cycle against the runner until the position repeated), and while
    /// the opponent is kept busy answering, its pieces never leave the
    /// caller's targets, so the caller cannot finish.
    ///
    /// Under a move limit scored by distance every call that sends a piece
    /// back counts at the end, and none is pointless.
    fn is_pointless(&self, mv: SaltaMove) -> bool {
        use monte_rules::salta::geometry::{BOARD, Dir, shift};
        if !mv.call || self.rules().scored_limit() {
            return false;
        }
        let me = self.side_to_move();
        let opp = self.pieces(!me);
        let empty = BOARD & !(self.pieces(me) | opp) | (1 << mv.from);
        let targets = self.target_set(me);
        let called = 1u64 << mv.to;
        // Answerers on our targets whose jump lands off them: a jump from
        // one of our targets onto another evicts nobody.
        let mut evicted = 0;
        for d in Dir::ALL {
            if shift(called, d) & empty & !targets != 0 {
                evicted |= shift(called, d.opposite()) & opp & targets;
            }
        }
        evicted == 0
    }

    fn eval_scale() -> f64 {
        // monte tune on data/tune/salta-seed.txt: K = 0.0002.
        5000.0
    }
}

/// Focus evaluation weights.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FocusWeights {
    /// Per own piece in a stack we control.
    pub free: i32,
    /// Per opponent piece held prisoner under our top.
    pub prisoner: i32,
    /// Per piece in our reserve.
    pub reserve: i32,
    /// Per opponent piece captured for good.
    pub captured: i32,
    /// Per stack we control.
    pub stack: i32,
    /// Per level of height of our stacks above one (reach and safety).
    pub height: i32,
    /// For having the move.
    pub tempo: i32,
}

/// The weights in use, from `monte tune` (docs/engine.md).
pub const FOCUS_WEIGHTS: FocusWeights =
    FocusWeights { free: 100, prisoner: 4, reserve: 996, captured: 128, stack: -210, height: 250, tempo: 280 };

/// Focus features of one side: free pieces, prisoners, reserve, opponent
/// pieces captured, stacks controlled, extra height.
pub fn focus_features(pos: &FocusPosition, side: Side) -> [i32; 6] {
    features_from(pos, &pos.material(), side)
}

/// [`focus_features`] from material already counted (the evaluation needs
/// both sides' and counts once).
fn features_from(pos: &FocusPosition, material: &[monte_rules::focus::Material; 2], side: Side) -> [i32; 6] {
    let m = material[side.index()];
    [
        m.free as i32,
        m.prisoners as i32,
        pos.reserve(side) as i32,
        pos.captured(!side) as i32,
        m.stacks as i32,
        m.extra_height as i32,
    ]
}

/// The Focus evaluation with explicit weights (for tuning).
pub fn focus_eval(pos: &FocusPosition, w: &FocusWeights) -> i32 {
    let me = pos.side_to_move();
    let material = pos.material();
    let a = features_from(pos, &material, me);
    let b = features_from(pos, &material, !me);
    let ws = [w.free, w.prisoner, w.reserve, w.captured, w.stack, w.height];
    ws.iter().zip(a.iter().zip(&b)).map(|(w, (x, y))| w * (x - y)).sum::<i32>() + w.tempo
}

impl EngineGame for FocusPosition {
    fn evaluate(&self) -> i32 {
        focus_eval(self, &FOCUS_WEIGHTS)
    }

    fn encode(mv: FocusMove) -> u16 {
        let kind = match mv.kind {
            MoveKind::Group => 0u16,
            MoveKind::Jump => 1,
            MoveKind::Drop => 2,
            MoveKind::Pass => 3,
        };
        1 + (kind << 12 | (mv.from as u16) << 6 | mv.to as u16)
    }

    fn decode(code: u16) -> FocusMove {
        let c = code.saturating_sub(1);
        let kind = match c >> 12 {
            0 => MoveKind::Group,
            1 => MoveKind::Jump,
            2 => MoveKind::Drop,
            _ => MoveKind::Pass,
        };
        FocusMove { kind, from: ((c >> 6) & 63) as u8, to: (c & 63) as u8 }
    }

    fn is_tactical(&self, mv: FocusMove) -> bool {
        // A jump; a group of two or more (it sweeps stacks); a group or a
        // drop landing on a stack (the tower may overflow). Called for every
        // move at every node, so from bitboards: a group of one moves to
        // the next square along a rank (±1) or a file (±8). A pass lands on
        // square 0, a cut corner that is never occupied.
        let lands_on_stack = self.occupied() & (1u64 << mv.to) != 0;
        match mv.kind {
            MoveKind::Jump => true,
            MoveKind::Group => lands_on_stack || !matches!(mv.from.abs_diff(mv.to), 1 | 8),
            MoveKind::Drop | MoveKind::Pass => lands_on_stack,
        }
    }

    fn quiescence_moves(&self, out: &mut MoveList<FocusMove>) {
        // Moves that take opponent stacks (jumps, sweeps, merges onto them),
        // generated directly: listing every move (drops included) to filter
        // them was a tenth of the search's time.
        self.generate_captures(out);
    }

    fn null_move() -> FocusMove {
        FocusMove::PASS
    }

    fn is_forcing(&self) -> bool {
        false
    }

    fn features(&self) -> Features {
        let me = self.side_to_move();
        let a = focus_features(self, me);
        let b = focus_features(self, !me);
        let mut v: Features = a.iter().zip(&b).map(|(x, y)| x - y).collect();
        v.push(1);
        v
    }

    fn weights() -> &'static [i32] {
        const W: FocusWeights = FOCUS_WEIGHTS;
        &[W.free, W.prisoner, W.reserve, W.captured, W.stack, W.height, W.tempo]
    }

    fn feature_names() -> &'static [&'static str] {
        &["free", "prisoner", "reserve", "captured", "stack", "height", "tempo"]
    }

    fn eval_scale() -> f64 {
        // monte tune on data/tune/focus-seed.txt: K = 0.0006.
        1667.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<P: EngineGame>(start: P)
    where
        P::Rules: RepetitionRule,
    {
        let mut pos = start;
        let mut rng = monte_rules::Rng::new(7);
        for _ in 0..300 {
            let dot: i32 = P::weights().iter().zip(pos.features()).map(|(w, f)| w * f).sum();
            assert_eq!(P::weights().len(), P::feature_names().len());
            assert_eq!(dot, pos.evaluate(), "{pos:?}");
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len())]);
        }
    }

    fn after(rules: monte_rules::salta::SaltaRules, moves: &str) -> SaltaPosition {
        let mut pos = SaltaPosition::start(rules);
        for text in moves.split_whitespace() {
            let mv = pos.parse_move(text).unwrap();
            pos.play(mv).unwrap();
        }
        pos
    }

    #[test]
    fn a_call_has_a_purpose_when_it_drives_a_piece_off_a_target() {
        use monte_rules::salta::SaltaRules;
        // g7+ is answered by the Black suns on f8 and h8, which stand on
        // White's targets (their own starting squares): a purpose.
        let pos = after(SaltaRules::seed(), "c3-d4 b8-c7 d4-e5 c7-b6 e5-f6 b6-a5");
        let call = pos.parse_move("f6-g7+").unwrap();
        assert!(call.call && !pos.is_pointless(call));
        assert!(!pos.is_pointless(pos.parse_move("f6-g7").unwrap()));
        // g5+ is answered only by the Black piece on f6, in the middle.
        let pos = after(SaltaRules::seed(), "c3-d4 h8-g7 d4-e5 g7-f6 g3-h4 j8-i7");
        let call = pos.parse_move("h4-g5+").unwrap();
        assert!(pos.is_pointless(call));
        // Under a move limit scored by distance, sending a piece back counts.
        let mut limited = SaltaRules::seed();
        limited.move_limit = Some(120);
        let pos = after(limited, "c3-d4 h8-g7 d4-e5 g7-f6 g3-h4 j8-i7");
        assert!(!pos.is_pointless(call));
    }

    #[test]
    fn the_lead_counts_a_quarter_beyond_its_cap() {
        assert_eq!(lead(0), 0);
        assert_eq!(lead(LEAD_CAP), LEAD_CAP);
        assert_eq!(lead(-LEAD_CAP), -LEAD_CAP);
        assert_eq!(lead(LEAD_CAP + 8), LEAD_CAP + 2);
        assert_eq!(lead(-LEAD_CAP - 8), -LEAD_CAP - 2);
    }

    #[test]
    fn the_two_sides_alone_add_up_to_the_evaluation() {
        // Each side's own counts, scored alone, add up to the full
        // features (the tempo counted once, the lead left out); a race
        // leader is one at least RACE_LEAD steps ahead, and nobody is under
        // a move limit scored by distance.
        let rules = monte_rules::salta::SaltaRules::seed();
        let mut pos = SaltaPosition::start(rules);
        let mut rng = monte_rules::Rng::new(5);
        for _ in 0..400 {
            let me = pos.side_to_move();
            let full = salta_feature_vector(&pos);
            let (mine, theirs) = (salta_feature_vector_alone(&pos, me), salta_feature_vector_alone(&pos, !me));
            for i in (0..SALTA_FEATURES).filter(|&i| i != 1 && i != 10) {
                assert_eq!(full[i], mine[i] + theirs[i], "feature {i} in {pos:?}");
            }
            assert_eq!((mine[1], theirs[1], mine[10], theirs[10]), (1, 1, 0, 0));
            let lead = pos.distance(!me) as i32 - pos.distance(me) as i32;
            let expected = if lead >= RACE_LEAD {
                Some(me)
            } else if -lead >= RACE_LEAD {
                Some(!me)
            } else {
                None
            };
            assert_eq!(pos.race_leader(), expected);
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.status().is_over() {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len())]);
        }
        // White 15 steps from home, Black 41.
        let board = "S5,M4,.,.,S1/M5,.,M3,.,M1/O5,O4,M2,O2,O1/s4,.,O3,S2,./.,o1,S3,m1,m5/\
                     .,.,s1,S4,o4/.,.,m2,o3,./.,m3,s2,.,./o2,s3,.,.,s5/.,.,.,o5,m4 b - 101";
        assert_eq!(SaltaPosition::from_fen(rules, board).unwrap().race_leader(), Some(Side::White));
        let mut limited = rules;
        limited.move_limit = Some(120);
        assert_eq!(SaltaPosition::from_fen(limited, board).unwrap().race_leader(), None);
    }

    #[test]
    fn count_weights_once_neither_army_can_step_home_in_its_moves_left() {
        use monte_rules::salta::{LimitResult, SaltaRules};
        let classic = SaltaPosition::classic_weights();
        let with_limit = |limit: Option<u32>, result: LimitResult| SaltaRules {
            move_limit: limit,
            limit_result: result,
            ..SaltaRules::seed()
        };
        let start = |rules| SaltaPosition::start(rules);
        // Each army starts 113 steps from home.
        assert_eq!(start(SaltaRules::seed()).distance(Side::White), 113);
        assert_eq!(start(SaltaRules::seed()).count_weights(), None);
        assert_eq!(start(with_limit(Some(30), LimitResult::Scored)).count_weights(), classic);
        assert_eq!(start(with_limit(Some(112), LimitResult::Scored)).count_weights(), classic);
        assert_eq!(start(with_limit(Some(113), LimitResult::Scored)).count_weights(), None);
        assert_eq!(start(with_limit(Some(120), LimitResult::Scored)).count_weights(), None);
        // A limit that draws is no count; meyer1908's armies get home in time.
        assert_eq!(start(with_limit(Some(30), LimitResult::Draw)).count_weights(), None);
        assert_eq!(start(SaltaRules::meyer1908()).count_weights(), None);
        // Moves left are counted per side: after White's first step, 112
        // steps with 112 moves to go for White, 113 with 113 for Black.
        let mut pos = start(with_limit(Some(113), LimitResult::Scored));
        let step = pos.legal_moves().into_iter().find(|mv| !mv.call).unwrap();
        pos.play_unchecked(step);
        assert_eq!(pos.distance(Side::White), 112);
        assert_eq!(pos.count_weights(), None);
        let mut pos = start(with_limit(Some(112), LimitResult::Scored));
        pos.play_unchecked(step);
        assert_eq!(pos.count_weights(), classic);
    }

    /// The per-piece counts of [`salta_features`] by their definitions,
    /// one piece at a time: distance, blocked, home, slowest, target held,
    /// spread, sealed.
    fn per_piece_counts(pos: &SaltaPosition, side: Side) -> [i32; 7] {
        use monte_rules::salta::geometry::{BOARD, CLOSER, DISTANCE, Squares, neighbours};
        let own = pos.pieces(side);
        let empty = BOARD & !(own | pos.pieces(!side));
        let home_mask = Squares(own).filter(|&sq| pos.target_of_square(sq) == Some(sq)).fold(0u64, |m, sq| m | 1 << sq);
        let mut c = [0i32; 7];
        for sq in Squares(own) {
            let target = pos.target_of_square(sq).unwrap();
            let d = DISTANCE[sq as usize][target as usize] as i32;
            c[0] += d;
            c[3] = c[3].max(d);
            c[5] += d * d;
            if d == 0 {
                c[2] += 1;
                continue;
            }
            c[1] += (CLOSER[sq as usize][target as usize] & empty == 0) as i32;
            c[4] += (pos.pieces(!side) & 1 << target != 0) as i32;
            c[6] += (neighbours(1 << target) & !home_mask == 0) as i32;
        }
        c
    }

    /// Positions of games whose moves mostly bring a piece closer to its
    /// target, so that armies come home and meet the counts of the ending.
    fn homecoming_positions(rules: monte_rules::salta::SaltaRules, seed: u64) -> Vec<SaltaPosition> {
        let mut pos = SaltaPosition::start(rules);
        let mut rng = monte_rules::Rng::new(seed);
        let mut seen = Vec::new();
        for _ in 0..600 {
            seen.push(pos.clone());
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.status().is_over() {
                break;
            }
            let me = pos.side_to_move();
            let after = |m: &SaltaMove| {
                let mut child = pos.clone();
                child.play_unchecked(*m);
                child.distance(me)
            };
            let mv = if rng.below(5) == 0 {
                moves[rng.below(moves.len())]
            } else {
                let best = moves.iter().map(after).min().unwrap();
                let closest: Vec<SaltaMove> = moves.iter().copied().filter(|m| after(m) == best).collect();
                closest[rng.below(closest.len())]
            };
            pos.play_unchecked(mv);
        }
        seen
    }

    #[test]
    fn salta_features_count_each_piece_as_defined() {
        use monte_rules::salta::SaltaRules;
        let mut sealed_seen = 0;
        for (rules, seed) in [(SaltaRules::seed(), 1), (SaltaRules::seed(), 2), (SaltaRules::meyer1908(), 3)] {
            for pos in homecoming_positions(rules, seed) {
                for side in Side::BOTH {
                    let f = salta_features(&pos, side);
                    let c = per_piece_counts(&pos, side);
                    assert_eq!([f[0], f[1], f[4], f[5], f[6], f[7], f[11]], c, "{side} in {pos:?}");
                    sealed_seen += (c[6] > 0) as usize;
                }
            }
        }
        // The games reach endings where home pieces seal a target.
        assert!(sealed_seen > 0);
    }

    #[test]
    fn evaluation_is_the_weighted_sum_of_the_features() {
        check(SaltaPosition::start(monte_rules::salta::SaltaRules::seed()));
        check(FocusPosition::start(monte_rules::focus::FocusRules::seed()));
        // Salta's evaluation sums side by side: the same in the endings,
        // where pieces are home, targets sealed and armies jammed, with
        // every weight set.
        let mut lead_weights = SALTA_WEIGHTS;
        lead_weights.lead = 7;
        for pos in homecoming_positions(monte_rules::salta::SaltaRules::seed(), 4) {
            for w in [SALTA_WEIGHTS, SALTA_CLASSIC_WEIGHTS, lead_weights] {
                let dot: i32 = salta_feature_vector(&pos).iter().zip(w.to_array()).map(|(f, w)| f * w).sum();
                assert_eq!(salta_eval(&pos, &w), dot, "{pos:?}");
            }
        }
    }
}
