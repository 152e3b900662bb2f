//! Salta's race, solved exactly where the solver can, bounded where not.
//!
//! Once every piece of one army stands on a higher rank than every piece of
//! the other (White has passed Black), neither side can reach an enemy
//! piece without turning back. If nobody turns back there is nothing left
//! to jump and no call to make, and each side is alone with a sliding
//! puzzle, like the endgame of Chinese Checkers or Halma: each move steps
//! one piece to a diagonally adjacent empty square, and own pieces are the
//! only obstacles. (The side behind may turn back and call; the search,
//! which sees every move, checks that. docs/strategy.md.)
//!
//! The puzzle is solved by IDA* with the sum of the pieces' diagonal
//! distances as the heuristic. It is admissible (a step changes one
//! piece's distance by one) and nearly exact: every step changes the sum's
//! parity, so a solution takes the sum plus twice the number of steps that
//! do not approach, and the iterations try 0, 1, 2, ... such steps. Most
//! races need none; pieces that must let each other by need a few.
//! Failed states are remembered per iteration with the slack they failed
//! with, which turns the search into a walk over distinct positions.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use monte_rules::salta::geometry::{BOARD, DISTANCE, Square, Squares, coords, neighbours};
use monte_rules::salta::{SaltaMove, SaltaPosition};
use monte_rules::{Position, Side};

/// One piece of the puzzle: where it stands and where it must go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RacePiece {
    pub square: Square,
    pub target: Square,
}

/// The fewest moves one army needs to bring every piece home.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceSolution {
    /// The number of moves: exact when `exact`, else the proven lower
    /// bound.
    pub moves: u32,
    /// The moves of the best solution found, when one was found (equal to
    /// `moves` when exact).
    pub upper: Option<u32>,
    pub exact: bool,
    /// The first move of the best solution found (from, to).
    pub first: Option<(Square, Square)>,
    /// Positions visited.
    pub nodes: u64,
}

/// Positions the solver may visit before it settles for a bound.
pub const DEFAULT_BUDGET: u64 = 200_000;

/// A map keyed by the solver's position keys, which are already well
/// mixed: hashed as they are.
type KeyMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// The hasher of [`KeyMap`]: the key itself.
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

fn mix(x: u64) -> u64 {
    // splitmix64's finaliser: a well spread key per (square, target).
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[inline]
fn key(square: Square, target: Square) -> u64 {
    mix((square as u64) << 8 | target as u64)
}

#[inline]
fn dist(a: Square, b: Square) -> u32 {
    DISTANCE[a as usize][b as usize] as u32
}

struct Solver {
    pieces: Vec<RacePiece>,
    occupied: u64,
    hash: u64,
    /// Per position: the largest slack it failed with in this iteration.
    failed: KeyMap<u32>,
    nodes: u64,
    budget: u64,
    out_of_budget: bool,
    /// The solution's moves, last first (recorded as the search unwinds).
    path: Vec<(Square, Square)>,
}

impl Solver {
    /// Whether the pieces can all get home spending at most `slack` extra
    /// moves (moves that do not approach cost 2 each: one away, one back).
    fn dfs(&mut self, h: u32, slack: u32) -> bool {
        if h == 0 {
            return true;
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            self.out_of_budget = true;
            return false;
        }
        if self.failed.get(&self.hash).is_some_and(|&s| s >= slack) {
            return false;
        }
        // Approaching steps first (they spend no slack), then the others.
        for pass in 0..2 {
            if pass == 1 && slack < 2 {
                break;
            }
            for i in 0..self.pieces.len() {
                let RacePiece { square, target } = self.pieces[i];
                let d = dist(square, target);
                for to in Squares(neighbours(1 << square) & BOARD & !self.occupied) {
                    let approaches = dist(to, target) < d;
                    if approaches != (pass == 0) {
                        continue;
                    }
                    let cost = if approaches { 0 } else { 2 };
                    let nh = if approaches { h - 1 } else { h + 1 };
                    self.play(i, to);
                    let solved = self.dfs(nh, slack - cost);
                    self.play(i, square);
                    if solved {
                        self.path.push((square, to));
                        return true;
                    }
                    if self.out_of_budget {
                        return false;
                    }
                }
            }
        }
        self.failed.insert(self.hash, slack);
        false
    }

    #[inline]
    fn play(&mut self, i: usize, to: Square) {
        let p = &mut self.pieces[i];
        self.occupied ^= (1 << p.square) | (1 << to);
        self.hash ^= key(p.square, p.target) ^ key(to, p.target);
        p.square = to;
    }
}

/// Solve one army's puzzle: the fewest moves that bring every piece to its
/// target, stepping around the army's own pieces. Each iteration (one
/// more pair of moves that do not approach) may visit a quarter of
/// `budget` positions; one that runs out proves nothing, and the next is
/// tried. The result is exact when a solution is found and every smaller
/// count was proven impossible; otherwise it gives the proven lower bound
/// and the best solution found.
pub fn solve(pieces: &[RacePiece], budget: u64) -> RaceSolution {
    solve_around(pieces, 0, budget)
}

/// [`solve`] with `walls`, squares no piece may enter (pieces that stay
/// where they are).
pub fn solve_around(pieces: &[RacePiece], walls: u64, budget: u64) -> RaceSolution {
    solve_path(pieces, walls, budget).0
}

/// [`solve_around`] with the moves of the solution found, in order.
fn solve_path(pieces: &[RacePiece], walls: u64, budget: u64) -> (RaceSolution, Vec<(Square, Square)>) {
    let h: u32 = pieces.iter().map(|p| dist(p.square, p.target)).sum();
    // The pieces whose targets lie deepest (furthest from the middle
    // ranks, then from the middle files) are tried first: filling the
    // back of the target area first is what usually leaves room for all.
    let mut ordered = pieces.to_vec();
    ordered.sort_by_key(|p| {
        let (x, y) = coords(p.target);
        std::cmp::Reverse(((2 * y - 9).abs(), (2 * x - 9).abs()))
    });
    let mut solver = Solver {
        occupied: ordered.iter().fold(walls, |o, p| o | 1 << p.square),
        hash: ordered.iter().fold(0, |k, p| k ^ key(p.square, p.target)),
        pieces: ordered,
        failed: KeyMap::default(),
        nodes: 0,
        budget: 0,
        out_of_budget: false,
        path: Vec::new(),
    };
    let per_iteration = (budget / 4).max(1);
    // Every count below `lower` is proven impossible.
    let mut lower = h;
    let mut slack = 0;
    while solver.nodes < budget {
        solver.failed.clear();
        solver.out_of_budget = false;
        solver.budget = (solver.nodes + per_iteration).min(budget);
        if solver.dfs(h, slack) {
            let moves = h + slack;
            let exact = lower == moves;
            solver.path.reverse();
            let solution = RaceSolution {
                moves: if exact { moves } else { lower },
                upper: Some(moves),
                exact,
                first: solver.path.first().copied(),
                nodes: solver.nodes,
            };
            return (solution, solver.path);
        }
        if !solver.out_of_budget && lower == h + slack {
            lower = h + slack + 2;
        }
        slack += 2;
    }
    (RaceSolution { moves: lower, upper: None, exact: false, first: None, nodes: solver.nodes }, Vec::new())
}

/// Whether the armies have passed each other: every White piece stands on
/// a higher rank than every Black piece, and no call is pending. From here
/// on no jump or call is possible unless a piece turns back.
pub fn separated(pos: &SaltaPosition) -> bool {
    let (white, black) = (pos.pieces(Side::White), pos.pieces(Side::Black));
    if pos.pending_call().is_some() || white == 0 || black == 0 {
        return false;
    }
    let lowest_white = coords(white.trailing_zeros() as Square).1;
    let highest_black = coords(63 - black.leading_zeros() as Square).1;
    lowest_white > highest_black
}

/// Whether the armies are separated and no piece touches an enemy piece:
/// nothing can be jumped now, and a call needs a piece to step back first.
pub fn apart(pos: &SaltaPosition) -> bool {
    let (white, black) = (pos.pieces(Side::White), pos.pieces(Side::Black));
    separated(pos) && neighbours(white) & black == 0
}

/// The first move of the fastest finish when the armies are [`apart`] and
/// the side to move's army is counted exactly, with the race's value
/// ([`race_value`] when the other army is counted too, else 100 a move of
/// the side to move's own count, negated).
pub fn fastest_finish(pos: &SaltaPosition) -> Option<(SaltaMove, i32)> {
    if !apart(pos) {
        return None;
    }
    let me = pos.side_to_move();
    let solution = solve(&army(pos, me), DEFAULT_BUDGET);
    let (from, to) = solution.first.filter(|_| solution.exact)?;
    let mv = SaltaMove { from, to, call: false };
    if !pos.is_legal(mv) {
        return None;
    }
    let value = race_value(pos).unwrap_or(-100 * solution.moves as i32);
    Some((mv, value))
}

/// Positions the exact solver may visit for a plan (of an army past the
/// other, or near home) before the greedy planner is asked instead
/// (within [`GREEDY_DISTANCE`]).
pub const PLAN_BUDGET: u64 = 50_000;

/// The distance from home (of the pieces that can go home) within which
/// the exact solver plans even while the armies still touch.
pub const SOLVER_DISTANCE: u32 = 20;

/// Positions the greedy planner may expand for a plan (about 20 ms where
/// it needs them all).
pub const GREEDY_BUDGET: u64 = 10_000;

/// The most moves (the exact solver's lower bound) for which the greedy
/// planner is asked when the exact solver finds no way: the crowded
/// endings it is for.
pub const GREEDY_DISTANCE: u32 = 30;

/// How much more than the moves made so far the greedy planner weighs
/// the distance still to go: a larger weight finds a way sooner and a
/// longer one.
const GREEDY_WEIGHT: u32 = 3;

/// The squares a piece on `from` reaches by a chain of one or more jumps
/// over `jumpable` pieces onto empty squares (not `occupied`; the start
/// square is never landed on).
fn jump_landings(from: Square, jumpable: u64, occupied: u64) -> u64 {
    use monte_rules::salta::geometry::{Dir, shift};
    let free = BOARD & !occupied & !(1 << from);
    let (mut landed, mut frontier) = (0u64, 1u64 << from);
    while frontier != 0 {
        let mut next = 0;
        for d in Dir::ALL {
            next |= shift(shift(frontier, d) & jumpable, d) & free;
        }
        frontier = next & !landed;
        landed |= next;
    }
    landed
}

/// A way home for `pieces` around `walls`, not always the shortest: a
/// best-first search on moves made + [`GREEDY_WEIGHT`] x distance left,
/// each position expanded once: the planner of a Salta plan while the
/// armies still fight ([`planned_move`]), and of the crowded endings the
/// exact solver cannot finish within its budget (pieces home on each
/// other's targets at the edge, which must circle round one another).
/// Returns the moves in order, or `None` when no way is found within
/// `budget` expansions or every piece is home. Walls in `jumpable` (the opponent's pieces,
/// taken to stand still) may be jumped over, in chains, as in the game:
/// a piece shut in by enemy pieces is often let out by a jump.
pub fn greedy_plan(pieces: &[RacePiece], walls: u64, jumpable: u64, budget: u64) -> Option<Vec<(Square, Square)>> {
    /// An army of at most 15 pieces, by square, in the order of `pieces`.
    type Army = [Square; 15];
    struct Node {
        squares: Army,
        moves: u32,
        /// The node it was reached from and the move (the start: itself).
        parent: u32,
        step: (Square, Square),
    }
    if pieces.len() > 15 {
        return None;
    }
    let mut start: Army = [0; 15];
    for (slot, p) in start.iter_mut().zip(pieces) {
        *slot = p.square;
    }
    let start_h: u32 = pieces.iter().map(|p| dist(p.square, p.target)).sum();
    if start_h == 0 {
        return None;
    }
    let start_key = pieces.iter().fold(0, |k, p| k ^ key(p.square, p.target));
    let mut nodes = vec![Node { squares: start, moves: 0, parent: 0, step: (0, 0) }];
    let mut best_moves: KeyMap<u32> = KeyMap::default();
    best_moves.insert(start_key, 0);
    // (priority, distance left, node, key); lowest first, the nearest goal
    // first among equals, then the oldest node (deterministic).
    let mut open = BinaryHeap::from([Reverse((GREEDY_WEIGHT * start_h, start_h, 0u32, start_key))]);
    let mut expanded = 0;
    while let Some(Reverse((_, left, index, node_key))) = open.pop() {
        let index = index as usize;
        if left == 0 {
            let mut path = Vec::new();
            let mut at = index;
            while at != 0 {
                path.push(nodes[at].step);
                at = nodes[at].parent as usize;
            }
            path.reverse();
            return Some(path);
        }
        let (squares, moves) = (nodes[index].squares, nodes[index].moves);
        if best_moves.get(&node_key).is_some_and(|&m| m < moves) {
            continue;
        }
        expanded += 1;
        if expanded > budget {
            return None;
        }
        let occupied = squares[..pieces.len()].iter().fold(walls, |o, &s| o | 1 << s);
        for (i, p) in pieces.iter().enumerate() {
            let from = squares[i];
            let d = dist(from, p.target);
            let reach = neighbours(1 << from) & BOARD & !occupied | jump_landings(from, jumpable & walls, occupied);
            for to in Squares(reach) {
                let k = node_key ^ key(from, p.target) ^ key(to, p.target);
                if best_moves.get(&k).is_some_and(|&m| m <= moves + 1) {
                    continue;
                }
                best_moves.insert(k, moves + 1);
                let next_h = left + dist(to, p.target) - d;
                let mut next = squares;
                next[i] = to;
                open.push(Reverse((moves + 1 + GREEDY_WEIGHT * next_h, next_h, nodes.len() as u32, k)));
                nodes.push(Node { squares: next, moves: moves + 1, parent: index as u32, step: (from, to) });
            }
        }
    }
    None
}

/// A way home for `pieces` one piece at a time, each by its shortest way
/// (steps and jump chains over `jumpable` walls) with every other piece
/// standing where it is: the deepest targets first (for `side`), so that
/// no piece home shuts another out. The greedy planner gets lost where
/// many pieces must pass through the same few squares; this plan never
/// does, though it can miss a way that needs pieces to make room for each
/// other. The pieces that find no way are left out: the plan of the rest
/// is returned, and whether it brings every piece home; `None` when no
/// piece finds a way.
pub fn sequential_plan(
    pieces: &[RacePiece],
    walls: u64,
    jumpable: u64,
    side: Side,
) -> Option<(Vec<(Square, Square)>, bool)> {
    let depth = |target: Square| match side {
        Side::White => coords(target).1,
        Side::Black => 9 - coords(target).1,
    };
    let mut occupied = pieces.iter().fold(walls, |o, p| o | 1 << p.square);
    let mut left: Vec<RacePiece> = pieces.iter().copied().filter(|p| p.square != p.target).collect();
    let mut plan = Vec::new();
    loop {
        let best = left
            .iter()
            .enumerate()
            .filter_map(|(i, p)| shortest_way(p.square, p.target, occupied, jumpable & walls).map(|way| (i, way)))
            .max_by_key(|(i, way)| (depth(left[*i].target), Reverse(way.len())));
        let Some((i, way)) = best else { break };
        let p = left.swap_remove(i);
        occupied = occupied & !(1 << p.square) | 1 << p.target;
        plan.extend(way);
    }
    (!plan.is_empty()).then_some((plan, left.is_empty()))
}

/// The fewest moves from `from` to `to` (steps to free squares, chains of
/// jumps over `jumpable` pieces) with the squares in `occupied` taken.
fn shortest_way(from: Square, to: Square, occupied: u64, jumpable: u64) -> Option<Vec<(Square, Square)>> {
    let mut came_from = [u8::MAX; 64];
    came_from[from as usize] = from;
    let mut frontier = vec![from];
    while !frontier.is_empty() && came_from[to as usize] == u8::MAX {
        let mut next = Vec::new();
        for &at in &frontier {
            let reach = neighbours(1 << at) & BOARD & !occupied | jump_landings(at, jumpable, occupied | 1 << from);
            for sq in Squares(reach) {
                if came_from[sq as usize] == u8::MAX {
                    came_from[sq as usize] = at;
                    next.push(sq);
                }
            }
        }
        frontier = next;
    }
    if came_from[to as usize] == u8::MAX {
        return None;
    }
    let mut way = Vec::new();
    let mut at = to;
    while at != from {
        way.push((came_from[at as usize], at));
        at = came_from[at as usize];
    }
    way.reverse();
    Some(way)
}

/// The first step of a plan that brings the side to move's army home
/// with every other piece standing still: the opponent's pieces, and its
/// own pieces that wait for their target to be left ([`waiting_walls`]),
/// are walls, and the opponent's may be jumped over: in the
/// fight they are the ladders a quick way home climbs. The plan is the
/// greedy planner's ([`greedy_plan`]; the exact solver, on walls it may
/// not jump, makes detours round a fight that moves on before they pay),
/// and once the armies are [`separated`] or the moving
/// pieces within [`SOLVER_DISTANCE`] of home, the exact solver's within
/// [`PLAN_BUDGET`]; the search checks it (see `Searcher::search`). A plan
/// is remade when its next step is no longer free or the army has left
/// it. `None` when a call is pending, when no plan is found, or when
/// every piece that can go home is home.
pub fn planned_move(pos: &SaltaPosition) -> Option<SaltaMove> {
    if pos.pending_call().is_some() {
        return None;
    }
    // A piece that can drive the enemy piece off its own target and step
    // home after does so before anything else: that enemy piece may
    // never leave by itself.
    if let Some(mv) = eviction(pos, true) {
        return Some(mv);
    }
    let me = pos.side_to_move();
    let opp = pos.pieces(!me);
    let pieces = army(pos, me);
    let army_key = pieces.iter().fold(side_key(me), |k, p| k ^ key(p.square, p.target));
    // The plan made earlier goes on while the army stands where the plan
    // has brought it and its next step is free: a plan is followed, not
    // remade (and perhaps changed) every move, nor for every search of
    // the same army.
    let step = |(from, to): (Square, Square)| Some(SaltaMove { from, to, call: false }).filter(|&mv| pos.is_legal(mv));
    if let Some(mv) = PLAN.with(|plans| plans.borrow()[me.index()].get(&army_key).copied()).and_then(step) {
        return Some(mv);
    }
    let walls = waiting_walls(&pieces, opp);
    let moving: Vec<RacePiece> = pieces.iter().copied().filter(|p| walls & (1 << p.square) == 0).collect();
    let moving_distance: u32 = moving.iter().map(|p| dist(p.square, p.target)).sum();
    // Once the rest of the army is (nearly) home, an enemy piece on its
    // targets is the game, and calling it out comes first: one shut in by
    // the army's own pieces never leaves by itself, and one its owner
    // keeps there leaves when he pleases. (Level 8 against itself kept
    // such a piece shut in for 700 plies, ahead and unable to finish.)
    // The pieces round the enemy piece, which make room for the call,
    // are not the rest: their steps off their targets must not end the
    // release half-way and let the plan shut the cage again.
    let blockers = opp & pos.target_set(me);
    let round_blockers = within_two_steps(blockers);
    let rest_distance: u32 =
        moving.iter().filter(|p| round_blockers & (1 << p.square) == 0).map(|p| dist(p.square, p.target)).sum();
    if blockers != 0
        && blockers.count_ones() <= RELEASE_BLOCKERS
        && rest_distance <= RELEASE_DISTANCE
        && let Some(mv) = release(pos)
    {
        return Some(mv);
    }
    // An army that found no way round these walls is not asked again.
    let attempt = army_key ^ mix(walls);
    if NO_PLAN.with(|failed| failed.borrow().contains(&attempt)) {
        return eviction(pos, false);
    }
    // Once the armies have passed each other, or near home, the race is
    // a puzzle the exact solver answers best (the greedy planner's way is
    // a few moves longer); before, the greedy planner, which may jump.
    let path = if separated(pos) || moving_distance <= SOLVER_DISTANCE {
        let (solution, path) = solve_path(&moving, walls, PLAN_BUDGET);
        if solution.first.is_some() {
            Some(path)
        } else if solution.moves <= GREEDY_DISTANCE {
            // Near home among enemy pieces both planners can get lost
            // (a crowded ending they cannot finish within their budgets);
            // then the pieces that have a way go home one by one, rather
            // than the army wandering without a plan.
            greedy_plan(&moving, walls, opp, GREEDY_BUDGET)
                .or_else(|| sequential_plan(&moving, walls, opp, me).map(|(plan, _)| plan))
        } else {
            None
        }
    } else {
        let greedy = greedy_plan(&moving, walls, opp, GREEDY_BUDGET);
        let sequential = sequential_plan(&moving, walls, opp, me);
        // The shorter of the two complete plans; a partial one only when
        // the greedy planner found none.
        match (greedy, sequential) {
            (Some(g), Some((s, true))) if s.len() < g.len() => Some(s),
            (Some(g), _) => Some(g),
            (None, s) => s.map(|(s, _)| s),
        }
    };
    let Some(mv) = path.as_ref().and_then(|path| path.first()).and_then(|&first| step(first)) else {
        // Nothing to plan round these walls: drive a wall off a target.
        if let Some(mv) = eviction(pos, false) {
            return Some(mv);
        }
        NO_PLAN.with(|failed| {
            let mut failed = failed.borrow_mut();
            if failed.len() >= CACHE_LIMIT {
                failed.clear();
            }
            failed.insert(attempt);
        });
        return None;
    };
    let path = path.unwrap_or_default();
    // Remember the step to take from each army the plan passes through.
    PLAN.with(|plans| {
        let plan = &mut plans.borrow_mut()[me.index()];
        plan.clear();
        let mut squares: Vec<RacePiece> = pieces.clone();
        let mut k = army_key;
        for &(from, to) in &path {
            plan.insert(k, (from, to));
            if let Some(p) = squares.iter_mut().find(|p| p.square == from) {
                k ^= key(from, p.target) ^ key(to, p.target);
                p.square = to;
            }
        }
    });
    Some(mv)
}

/// The squares a plan must go round: the opponent's pieces (`opp`), and
/// the army's pieces that wait. A piece waits when its target is held by
/// an opponent's piece, or by a piece that waits: a waiting piece that
/// stands on another's target (every square of the targets' ranks is
/// some piece's target) holds that one up too, and a plan that counted
/// on it moving would find no way home for the whole army.
fn waiting_walls(pieces: &[RacePiece], opp: u64) -> u64 {
    let mut walls = opp;
    loop {
        // Only the opponent's pieces can be jumped over.
        let more = pieces
            .iter()
            .filter(|p| {
                p.square != p.target
                    && walls & (1 << p.square) == 0
                    && (walls & (1 << p.target) != 0 || region(p.square, walls, opp) & (1 << p.target) == 0)
            })
            .fold(walls, |w, p| w | 1 << p.square);
        if more == walls {
            return walls;
        }
        walls = more;
    }
}

/// The squares a piece on `from` could reach by steps round `walls` and
/// jumps over the `jumpable` ones, were the rest of its army out of the
/// way.
fn region(from: Square, walls: u64, jumpable: u64) -> u64 {
    use monte_rules::salta::geometry::{Dir, shift};
    let open = BOARD & !walls;
    let (mut seen, mut frontier) = (1u64 << from, 1u64 << from);
    while frontier != 0 {
        let next = Dir::ALL
            .iter()
            .fold(neighbours(frontier) & open, |n, &d| n | shift(shift(frontier, d) & jumpable, d) & open);
        frontier = next & !seen;
        seen |= next;
    }
    seen
}

/// A move that drives an enemy piece off one of the side to move's
/// targets: a piece steps (or jumps) next to it with a call, and every
/// answer the opponent has is a jump of a piece on those targets onto a
/// square that is not one. Best is the eviction by the piece whose target
/// it is: it steps home on the next move, before the evicted piece can
/// come back. `owner_only` asks for that kind alone. Among the others the
/// one that costs the mover least (steps away from its target, and a
/// piece leaving its own target costs two more); an eviction the evicted
/// piece can answer with a call back costs three more.
pub fn eviction(pos: &SaltaPosition, owner_only: bool) -> Option<SaltaMove> {
    let (targets, blockers) = blockers_to_call(pos)?;
    let mut moves = monte_rules::MoveList::new();
    pos.generate(&mut moves);
    let mut best: Option<(i32, SaltaMove)> = None;
    for &mv in moves.iter().filter(|mv| mv.call) {
        let Some(target) = pos.target_of_square(mv.from) else { continue };
        let owner = neighbours(1 << mv.to) & blockers & (1 << target) != 0;
        if owner_only && !owner {
            continue;
        }
        let mut after = pos.clone();
        after.play_unchecked(mv);
        let mut answers = monte_rules::MoveList::new();
        after.generate(&mut answers);
        let evicts = |a: &SaltaMove| blockers & (1 << a.from) != 0 && targets & (1 << a.to) == 0;
        if answers.is_empty() || !answers.iter().all(evicts) {
            continue;
        }
        let home = mv.from == target;
        // An answer that calls back (the evicted piece lands next to the
        // caller, and the caller must jump away from the emptied target)
        // makes the eviction worth less; the search judges it.
        let called_back = if answers.iter().any(|a| a.call) { 3 } else { 0 };
        let cost = called_back
            + if owner {
                -10
            } else {
                dist(mv.to, target) as i32 - dist(mv.from, target) as i32 + if home { 2 } else { 0 }
            };
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, mv));
        }
    }
    best.map(|(_, mv)| mv)
}

/// The enemy pieces on `side`'s targets that `side`'s own pieces shut in:
/// every neighbouring square holds one of them (or is off the board), and
/// no jump over one lands on a free square. Such a piece leaves only when
/// driven out.
pub fn shut_in(pos: &SaltaPosition, side: Side) -> u64 {
    use monte_rules::salta::geometry::{Dir, shift};
    let (mine, theirs) = (pos.pieces(side), pos.pieces(!side));
    let empty = BOARD & !(mine | theirs);
    Squares(theirs & pos.target_set(side))
        .filter(|&sq| {
            let piece = 1u64 << sq;
            Dir::ALL
                .iter()
                .all(|&d| shift(piece, d) & (empty | theirs) == 0 && shift(shift(piece, d) & mine, d) & empty == 0)
        })
        .fold(0, |set, sq| set | 1 << sq)
}

/// How far from home (the pieces that can go home, those round the enemy
/// pieces on its targets left out, in steps) an army may be when it turns
/// to calling an enemy piece off its targets ([`release`]).
pub const RELEASE_DISTANCE: u32 = 4;

/// How many enemy pieces may stand on the army's targets for a
/// [`release`]: near the end a few are left, the last obstacles; in the
/// middle game many stand there with their own way still to go, and the
/// plan's way goes first. (The army's distance does not tell the end:
/// the army's own pieces held on the enemy's targets count far from
/// home; two armies each holding two of the other's targets stood some
/// 20 steps from home for 400 plies.)
pub const RELEASE_BLOCKERS: u32 = 3;

/// How many moves the side to move may spend making room before the call
/// of a [`release`].
const RELEASE_SETUP: usize = 2;

/// The first move of the shortest way to drive an enemy piece off the
/// side to move's targets with a call: up to [`RELEASE_SETUP`] moves of
/// the pieces within two steps of the enemy pieces on those targets (the
/// opponent taken to stand still), then a call every answer to which is a
/// jump of one of them. A call whose answers all land off the targets is
/// preferred to one that leaves the piece on another target (from the
/// back rank a jump lands two ranks in, still on the targets; from there
/// it can walk away or be driven off by [`eviction`]). Remembered per
/// position. `None` when no such way exists.
pub fn release(pos: &SaltaPosition) -> Option<SaltaMove> {
    if !pos.rules().calls {
        return None;
    }
    let (targets, blockers) = blockers_to_call(pos)?;
    let cache_key = pos.hash();
    if let Some(known) = RELEASE.with(|r| r.borrow().get(&cache_key).copied()) {
        return known.filter(|&mv| pos.is_legal(mv));
    }
    let near = within_two_steps(blockers);
    let mut frontier: Vec<(SaltaPosition, Option<SaltaMove>)> = vec![(pos.clone(), None)];
    let mut seen = std::collections::HashSet::from([cache_key]);
    let mut found = None;
    'depth: for depth in 0..=RELEASE_SETUP {
        let mut next = Vec::new();
        // The best call found at this depth: (lands on a target, first move).
        let mut best: Option<(bool, SaltaMove)> = None;
        for (p, first) in &frontier {
            let mut moves = monte_rules::MoveList::new();
            p.generate(&mut moves);
            for &mv in moves.iter().filter(|mv| mv.call) {
                let mut after = p.clone();
                after.play_unchecked(mv);
                let mut answers = monte_rules::MoveList::new();
                after.generate(&mut answers);
                if answers.is_empty() || !answers.iter().all(|a| blockers & (1 << a.from) != 0) {
                    continue;
                }
                let on_targets = answers.iter().any(|a| targets & (1 << a.to) != 0);
                if best.is_none_or(|(worse, _)| worse && !on_targets) {
                    best = Some((on_targets, first.unwrap_or(mv)));
                }
            }
            if depth < RELEASE_SETUP {
                for &mv in moves.iter().filter(|mv| !mv.call && near & (1 << mv.from) != 0) {
                    let mut after = p.clone();
                    after.play_unchecked(mv);
                    after.play_unchecked(SaltaMove::PASS);
                    if seen.insert(after.hash()) {
                        next.push((after, Some(first.unwrap_or(mv))));
                    }
                }
            }
        }
        if let Some((_, mv)) = best {
            found = Some(mv);
            break 'depth;
        }
        frontier = next;
    }
    RELEASE.with(|r| {
        let mut r = r.borrow_mut();
        if r.len() >= CACHE_LIMIT {
            r.clear();
        }
        r.insert(cache_key, found);
    });
    found
}

/// The squares one or two diagonal steps from `set`: where the pieces
/// that make room for a [`release`] stand, and which the plan's trigger
/// for one leaves out of the rest of the army.
fn within_two_steps(set: u64) -> u64 {
    neighbours(set) | neighbours(neighbours(set))
}

/// The side to move's targets and the enemy pieces on them, when some
/// stand there and the side to move is free to call (no call pending).
fn blockers_to_call(pos: &SaltaPosition) -> Option<(u64, u64)> {
    if pos.pending_call().is_some() {
        return None;
    }
    let me = pos.side_to_move();
    let targets = pos.target_set(me);
    let blockers = pos.pieces(!me) & targets;
    (blockers != 0).then_some((targets, blockers))
}

/// A key per side, so that the two armies' plans never share a key.
fn side_key(side: Side) -> u64 {
    mix(0x5A17A + side as u64)
}

thread_local! {
    /// The plan each side follows: the step to take from each army (by
    /// its key) the plan passes through. One per side, so that the other
    /// side's planning (in the same thread: both players of a match, or
    /// the opponent's search) does not wipe it.
    static PLAN: RefCell<[KeyMap<(Square, Square)>; 2]> = RefCell::new(Default::default());
    /// The first move of a [`release`], or none, by position.
    static RELEASE: RefCell<KeyMap<Option<SaltaMove>>> = RefCell::new(KeyMap::default());
    /// Armies and walls (by key) for which no plan was found.
    static NO_PLAN: RefCell<std::collections::HashSet<u64, std::hash::BuildHasherDefault<KeyHasher>>> =
        RefCell::new(Default::default());
}

/// One side's pieces as a puzzle.
pub fn army(pos: &SaltaPosition, side: Side) -> Vec<RacePiece> {
    Squares(pos.pieces(side))
        .map(|square| RacePiece { square, target: pos.target_of_square(square).unwrap_or(square) })
        .collect()
}

thread_local! {
    /// Solved armies, by the army's key: a search meets the same army
    /// again and again (the other side's moves do not change it).
    static CACHE: RefCell<KeyMap<(u32, bool)>> = RefCell::new(KeyMap::default());
}

/// Entries kept before the cache starts again (a few MB a thread).
const CACHE_LIMIT: usize = 1 << 16;

/// Positions the search lets the solver visit per army when it scores a
/// separated race.
pub const SEARCH_BUDGET: u64 = 2_000;

/// Positions the evaluation lets the solver visit per army: enough for
/// the usual jams near the targets, a lower bound beyond.
pub const EVAL_BUDGET: u64 = 1_000;

/// How many moves more than its distance `side`'s army needs because its
/// own pieces stand in each other's way (the opponent's pieces left out):
/// the evaluation's `jam`, a lower bound when the solver runs out of its
/// small budget.
pub fn jam(pos: &SaltaPosition, side: Side) -> u32 {
    let (moves, _) = army_moves(pos, side, EVAL_BUDGET);
    moves - pos.distance(side)
}

/// [`solve`] for one side of a position with `budget`: (moves, exact),
/// remembered per thread.
fn army_moves(pos: &SaltaPosition, side: Side, budget: u64) -> (u32, bool) {
    let pieces = army(pos, side);
    let k = pieces.iter().fold((side as u64) << 32 | budget, |k, p| k ^ key(p.square, p.target));
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&k).copied()) {
        return hit;
    }
    let s = solve(&pieces, budget);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(k, (s.moves, s.exact));
    });
    (s.moves, s.exact)
}

/// The value of a separated race for the side to move, or `None` when the
/// armies are not separated, when the solver cannot count either army
/// exactly within [`SEARCH_BUDGET`], or when a move limit comes first
/// (which the evaluation's distance count already scores). The side to
/// move finishes first when it needs no more moves than the other side:
/// its n-th move comes before the other's n-th.
pub fn race_value(pos: &SaltaPosition) -> Option<i32> {
    if !separated(pos) {
        return None;
    }
    let me = pos.side_to_move();
    // Only exact counts decide a race; a bound leaves it to the evaluation.
    let (mine, mine_exact) = army_moves(pos, me, SEARCH_BUDGET);
    let (theirs, theirs_exact) = army_moves(pos, !me, SEARCH_BUDGET);
    if !(mine_exact && theirs_exact) {
        return None;
    }
    if let Some(limit) = pos.rules().move_limit {
        let plies_left = (2 * limit).saturating_sub(pos.ply());
        let first_finish = if mine <= theirs { (2 * mine).saturating_sub(1) } else { 2 * theirs };
        if first_finish > plies_left {
            return None;
        }
    }
    // On the evaluation's scale (100 a step of distance), so that the
    // side behind turns back only when contact really gains: a bonus for
    // the decided race made any contact look better to it than the race.
    // The side to move wins ties, so a race it wins is worth at least 100.
    let margin = theirs as i32 - mine as i32;
    Some(100 * if margin >= 0 { margin + 1 } else { margin })
}

#[cfg(test)]
mod tests {
    use super::*;
    use monte_rules::salta::geometry::{parse_square, square_name};
    use std::collections::{HashSet, VecDeque};

    fn sq(name: &str) -> Square {
        parse_square(name).unwrap()
    }

    /// Breadth-first search over every arrangement: the exact answer.
    fn brute_force(pieces: &[RacePiece]) -> u32 {
        brute_force_around(pieces, 0).expect("every arrangement of a few pieces can be reached")
    }

    /// [`brute_force`] with walls; `None` when the goal cannot be reached.
    fn brute_force_around(pieces: &[RacePiece], walls: u64) -> Option<u32> {
        let start: Vec<Square> = pieces.iter().map(|p| p.square).collect();
        let goal: Vec<Square> = pieces.iter().map(|p| p.target).collect();
        let mut seen = HashSet::from([start.clone()]);
        let mut queue = VecDeque::from([(start, 0)]);
        while let Some((state, d)) = queue.pop_front() {
            if state == goal {
                return Some(d);
            }
            let occupied = state.iter().fold(walls, |o, &s| o | 1 << s);
            for i in 0..state.len() {
                for to in Squares(neighbours(1 << state[i]) & BOARD & !occupied) {
                    let mut next = state.clone();
                    next[i] = to;
                    if seen.insert(next.clone()) {
                        queue.push_back((next, d + 1));
                    }
                }
            }
        }
        None
    }

    #[test]
    fn a_lone_piece_needs_its_distance() {
        let p = [RacePiece { square: sq("a1"), target: sq("j10") }];
        let s = solve(&p, DEFAULT_BUDGET);
        assert_eq!((s.moves, s.exact), (9, true));
        assert_eq!(s.first, Some((sq("a1"), sq("b2"))));
    }

    #[test]
    fn pieces_that_must_let_each_other_by_cost_extra_moves() {
        // a1 has one neighbour: the pieces on a1 and b2 want each other's
        // squares, and one must step aside and come back round.
        let p = [RacePiece { square: sq("a1"), target: sq("b2") }, RacePiece { square: sq("b2"), target: sq("a1") }];
        let s = solve(&p, DEFAULT_BUDGET);
        assert!(s.exact);
        assert_eq!(s.moves, brute_force(&p));
        assert!(s.moves > 2, "{s:?}");
    }

    /// An army of `n` pieces placed at random in the corner of files f-j
    /// and ranks 7-10, crowded round targets placed at random there.
    fn corner_race(rng: &mut monte_rules::Rng, n: usize) -> Vec<RacePiece> {
        let corner: Vec<Square> = Squares(BOARD).filter(|&s| coords(s).0 >= 5 && coords(s).1 >= 6).collect();
        let mut squares = corner.clone();
        let targets: Vec<Square> = (0..n).map(|_| squares.swap_remove(rng.below(squares.len()))).collect();
        let mut squares = corner;
        let starts: Vec<Square> = (0..n).map(|_| squares.swap_remove(rng.below(squares.len()))).collect();
        starts.iter().zip(&targets).map(|(&square, &target)| RacePiece { square, target }).collect()
    }

    #[test]
    fn solver_agrees_with_brute_force_on_small_crowded_races() {
        // Random armies of 2 to 4 pieces crowded round their targets in one
        // corner, where they get in each other's way.
        let mut rng = monte_rules::Rng::new(11);
        let mut extra = 0;
        for case in 0..300 {
            let pieces = corner_race(&mut rng, 2 + case % 3);
            let s = solve(&pieces, DEFAULT_BUDGET);
            let exact = brute_force(&pieces);
            let names: Vec<String> =
                pieces.iter().map(|p| format!("{}->{}", square_name(p.square), square_name(p.target))).collect();
            assert!(s.exact, "{names:?}");
            assert_eq!(s.moves, exact, "{names:?}");
            let h: u32 = pieces.iter().map(|p| dist(p.square, p.target)).sum();
            extra += (s.moves > h) as u32;
        }
        // The cases must include races where the distance sum is not enough.
        assert!(extra > 0);
    }

    #[test]
    fn walls_are_gone_round_or_waited_for() {
        // Random 1-3 piece races in a corner with 1-3 walls: the solver
        // agrees with brute force, and proves nothing where no way exists.
        let corner: Vec<Square> = Squares(BOARD).filter(|&s| coords(s).0 >= 4 && coords(s).1 >= 5).collect();
        let mut rng = monte_rules::Rng::new(12);
        let (mut detours, mut impossible) = (0, 0);
        for case in 0..200 {
            let n = 1 + case % 3;
            let mut squares = corner.clone();
            let targets: Vec<Square> = (0..n).map(|_| squares.swap_remove(rng.below(squares.len()))).collect();
            let walls = (0..1 + case % 3).fold(0u64, |w, _| w | 1 << squares.swap_remove(rng.below(squares.len())));
            let mut free: Vec<Square> = corner.iter().copied().filter(|&s| walls & (1 << s) == 0).collect();
            let starts: Vec<Square> = (0..n).map(|_| free.swap_remove(rng.below(free.len()))).collect();
            let pieces: Vec<RacePiece> =
                starts.iter().zip(&targets).map(|(&square, &target)| RacePiece { square, target }).collect();
            let s = solve_around(&pieces, walls, DEFAULT_BUDGET);
            let h: u32 = pieces.iter().map(|p| dist(p.square, p.target)).sum();
            match brute_force_around(&pieces, walls) {
                Some(exact) => {
                    assert!(s.exact, "{pieces:?} walls {walls:x}");
                    assert_eq!(s.moves, exact, "{pieces:?} walls {walls:x}");
                    detours += (exact > h) as u32;
                }
                None => {
                    assert!(!s.exact && s.upper.is_none(), "{pieces:?} walls {walls:x}");
                    impossible += 1;
                }
            }
        }
        assert!(detours > 0 && impossible > 0, "{detours} {impossible}");
    }

    /// A fresh one-thread search of `pos` within `limits`.
    fn search(pos: &SaltaPosition, limits: crate::Limits) -> crate::SearchResult<SaltaMove> {
        let searcher = crate::Searcher::new(crate::SearchOptions::default());
        searcher.search(pos, &[], &limits, &std::sync::atomic::AtomicBool::new(false), &mut |_| {})
    }

    /// Every piece on its target but White's and Black's sun 1, one step
    /// off (White's on i7, Black's on b4): the armies are apart.
    fn nearly_finished() -> SaltaPosition {
        finished_but(&[("j8", "i7"), ("a3", "b4")])
    }

    /// Every piece on its target but those moved from one square to
    /// another, in order; White to move.
    fn finished_but(moved: &[(&str, &str)]) -> SaltaPosition {
        use monte_rules::salta::{Kind, Piece};
        let rules = monte_rules::salta::SaltaRules::seed();
        let mut cells = [None; 55];
        for side in Side::BOTH {
            for kind in Kind::ALL {
                for number in 1..=5 {
                    let p = Piece { side, kind, number };
                    cells[p.target(rules.goal) as usize] = Some(p);
                }
            }
        }
        for &(from, to) in moved {
            cells[sq(to) as usize] = cells[sq(from) as usize].take();
        }
        let board: Vec<String> = (0..10)
            .rev()
            .map(|y| {
                (0..5)
                    .map(|j| {
                        let s = monte_rules::salta::geometry::square_at(2 * j + y % 2, y).unwrap();
                        cells[s as usize].map_or(".".to_string(), |p| p.token())
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        SaltaPosition::from_fen(rules, &format!("{} w - 0", board.join("/"))).unwrap()
    }

    #[test]
    fn a_race_nobody_can_touch_is_finished_the_fastest_way() {
        let pos = nearly_finished();
        assert!(separated(&pos) && apart(&pos));
        // White needs one move, Black one: White, to move, wins.
        assert_eq!(race_value(&pos), Some(100));
        let (mv, value) = fastest_finish(&pos).unwrap();
        assert_eq!((mv.from, mv.to, mv.call, value), (sq("i7"), sq("j8"), false, 100));
        // The search plays it without searching, and calls it the win it is.
        let r = search(&pos, crate::Limits::depth(4));
        assert_eq!((r.best, r.nodes, r.score), (Some(mv), 0, crate::score::Score::WinIn(1)));
    }

    #[test]
    fn the_greedy_plan_is_a_way_home() {
        // Crowded corner races: every greedy plan is a sequence of steps
        // to free neighbouring squares that ends with every piece home, no
        // shorter than the exact answer.
        let mut rng = monte_rules::Rng::new(13);
        let mut longer = 0;
        for case in 0..40 {
            let pieces = corner_race(&mut rng, 2 + case % 3);
            let starts: Vec<Square> = pieces.iter().map(|p| p.square).collect();
            let targets: Vec<Square> = pieces.iter().map(|p| p.target).collect();
            let Some(path) = greedy_plan(&pieces, 0, 0, GREEDY_BUDGET) else {
                assert_eq!(starts, targets);
                continue;
            };
            let mut at = starts.clone();
            for &(from, to) in &path {
                let i = at.iter().position(|&s| s == from).expect("a step starts on a piece");
                assert!(neighbours(1 << from) & (1 << to) != 0 && !at.contains(&to), "{pieces:?} {path:?}");
                at[i] = to;
            }
            assert_eq!(at, targets, "{pieces:?} {path:?}");
            let exact = brute_force(&pieces) as usize;
            assert!(path.len() >= exact);
            longer += (path.len() > exact) as u32;
        }
        // Not the shortest always, but close: most plans are optimal.
        assert!(longer < 20, "{longer}");
    }

    #[test]
    fn enemy_walls_are_jumped_over() {
        // A chain of jumps over two enemy pieces lands on both squares
        // beyond them, never on the start.
        let (a1, b2, d4) = (sq("a1"), sq("b2"), sq("d4"));
        let enemies = 1 << b2 | 1 << d4;
        assert_eq!(jump_landings(a1, enemies, enemies | 1 << a1), 1 << sq("c3") | 1 << sq("e5"));
        // A piece on the edge shut in by two enemy pieces goes home by a
        // jump over one of them; taken as walls that nobody jumps, they
        // leave it no way.
        let piece = [RacePiece { square: sq("a5"), target: sq("a9") }];
        let walls = 1 << sq("b6") | 1 << sq("b4");
        assert_eq!(greedy_plan(&piece, walls, 0, GREEDY_BUDGET), None);
        let path = greedy_plan(&piece, walls, walls, GREEDY_BUDGET).unwrap();
        assert_eq!(path, vec![(sq("a5"), sq("c7")), (sq("c7"), sq("b8")), (sq("b8"), sq("a9"))]);
    }

    #[test]
    fn the_plan_steps_towards_the_goal() {
        let pos = nearly_finished();
        let mv = planned_move(&pos).unwrap();
        assert_eq!((mv.from, mv.to, mv.call), (sq("i7"), sq("j8"), false));
    }

    #[test]
    fn a_race_leader_checks_its_plan_with_the_search() {
        // White, 15 steps from home against Black's 41, has a plan; the
        // search spends its nodes on the plan and on the other moves.
        let pos = SaltaPosition::from_fen(
            monte_rules::salta::SaltaRules::seed(),
            "S5,M4,.,.,S1/M5,.,M3,.,M1/O5,O4,M2,O2,O1/s4,.,O3,S2,./.,o1,S3,m1,m5/\
             .,.,s1,S4,o4/.,.,m2,o3,./.,m3,s2,.,./o2,s3,.,.,s5/.,.,.,o5,m4 w - 100",
        )
        .unwrap();
        let planned = crate::EngineGame::planned_move(&pos).unwrap();
        assert!(pos.is_legal(planned) && !planned.call);
        // The plan is kept: asked again for the same army, the same step.
        assert_eq!(crate::EngineGame::planned_move(&pos), Some(planned));
        let searcher = crate::Searcher::new(crate::SearchOptions::default());
        let stop = std::sync::atomic::AtomicBool::new(false);
        let r = searcher.search(&pos, &[], &crate::Limits::nodes(20_000), &stop, &mut |_| {});
        assert!(r.best.is_some_and(|mv| pos.is_legal(mv)));
        assert!(r.nodes >= 20_000, "{}", r.nodes);
    }

    #[test]
    fn each_side_keeps_its_own_plan() {
        // Both players of a match plan in one thread: Black's planning
        // must not wipe the plan White follows.
        let fen = "S5,M4,.,.,S1/M5,.,M3,.,M1/O5,O4,M2,O2,O1/s4,.,O3,S2,./.,o1,S3,m1,m5/\
                   .,.,s1,S4,o4/.,.,m2,o3,./.,m3,s2,.,./o2,s3,.,.,s5/.,.,.,o5,m4";
        let rules = monte_rules::salta::SaltaRules::seed();
        let white = SaltaPosition::from_fen(rules, &format!("{fen} w - 100")).unwrap();
        let black = SaltaPosition::from_fen(rules, &format!("{fen} b - 101")).unwrap();
        let plans = || PLAN.with(|plans| plans.borrow().clone());
        let white_step = planned_move(&white).unwrap();
        let white_plan = plans()[Side::White.index()].clone();
        assert!(!white_plan.is_empty());
        let black_step = planned_move(&black).unwrap();
        assert!(black.is_legal(black_step));
        let after = plans();
        assert!(!after[Side::Black.index()].is_empty());
        assert_eq!(after[Side::White.index()], white_plan);
        assert_eq!(planned_move(&white), Some(white_step));
    }

    #[test]
    fn a_piece_waiting_on_another_piece_target_holds_that_one_up() {
        // Black's star on j10 (White's star 1's target) cannot be driven
        // off by a call now: its only neighbour, i9, is White's and h8
        // behind it is taken. White's star 1 waits on f8, the target of the piece now
        // on f6, which must wait too; the piece on b6 does not.
        let pos = finished_but(&[("f8", "f6"), ("j10", "f8"), ("a1", "j10"), ("b8", "b6")]);
        let walls = waiting_walls(&army(&pos, Side::White), pos.pieces(Side::Black));
        assert_ne!(walls & 1 << sq("f8"), 0);
        assert_ne!(walls & 1 << sq("f6"), 0);
        assert_eq!(walls & 1 << sq("b6"), 0);
        assert_eq!(eviction(&pos, false), None);
        // The rest of the army near home (the piece on b6, two steps),
        // the plan makes room to call the star out first.
        let release = release(&pos).expect("a way to call the star out");
        assert_eq!(pos.format_move(release), "h8-g7");
        assert_eq!(planned_move(&pos), Some(release));
    }

    fn seed_position(fen: &str) -> SaltaPosition {
        SaltaPosition::from_fen(monte_rules::salta::SaltaRules::seed(), fen).unwrap()
    }

    /// Replays `plan` from `pieces` (steps to free neighbouring squares or
    /// jump chains over `jumpable`, never onto a wall) and returns where the
    /// pieces end.
    fn replay(pieces: &[RacePiece], walls: u64, jumpable: u64, plan: &[(Square, Square)]) -> Vec<Square> {
        let mut at: Vec<Square> = pieces.iter().map(|p| p.square).collect();
        for &(from, to) in plan {
            let occupied = at.iter().fold(walls, |o, &s| o | 1 << s);
            let reach = neighbours(1 << from) & BOARD & !occupied | jump_landings(from, jumpable, occupied);
            assert_ne!(reach & 1 << to, 0, "{from}-{to} in {plan:?}");
            let i = at.iter().position(|&s| s == from).expect("a step starts on a piece");
            at[i] = to;
        }
        at
    }

    #[test]
    fn a_target_walled_off_by_enemy_pieces_leaves_only_its_own_piece_waiting() {
        // From a game of level 8 against level 1: White's star 1 (on d4)
        // cannot reach j10, whose only neighbour i9 and the square h8
        // behind it are Black's. Counted on, it left the army with no way
        // home and the engine with no plan; as a wall, the rest plan.
        let pos = seed_position(
            "s5,.,.,.,./.,.,.,O2,s1/S4,.,O3,m1,./m5,M3,M4,S5,o1/O4,m4,M2,s3,./.,m2,M1,.,o3/O1,S1,S2,O5,./m3,.,.,s4,o4/.,o2,.,M5,./.,S3,.,s2,o5 w - 130",
        );
        let pieces = army(&pos, Side::White);
        let star = pieces.iter().find(|p| p.target == sq("j10")).unwrap();
        assert_eq!(star.square, sq("d4"));
        let walls = waiting_walls(&pieces, pos.pieces(Side::Black));
        assert_ne!(walls & 1 << sq("d4"), 0);
        let step = planned_move(&pos).expect("a plan for the others");
        assert!(step.from != sq("d4") && pos.is_legal(step));
    }

    /// What [`planned_move`] plans with for `side`: the opponent's pieces,
    /// the walls, and the pieces that move.
    fn planning(pos: &SaltaPosition, side: Side) -> (u64, u64, Vec<RacePiece>) {
        let opp = pos.pieces(!side);
        let pieces = army(pos, side);
        let walls = waiting_walls(&pieces, opp);
        let moving = pieces.into_iter().filter(|p| walls & 1 << p.square == 0).collect();
        (opp, walls, moving)
    }

    #[test]
    fn the_sequential_plan_moves_what_can_move_where_the_greedy_one_gets_lost() {
        // From a game of level 8 against level 1: White's pieces at the
        // back shut each other in behind Black's, and the ones in front
        // must pass through the same few squares near Black's camp. The
        // greedy planner finds no way within its budget (it needs 100,000
        // positions, and then takes 77 moves); one piece at a time, the
        // sun on e9 goes home first, out of the way of the moon bound for
        // e9.
        let pos = seed_position(
            "s5,m1,S3,.,s1/.,s4,O3,.,./m5,O4,.,O2,./.,m4,o5,.,S5/.,M4,.,o1,./.,m3,O5,s2,./O1,M3,.,s3,./.,.,m2,o4,M5/M1,o2,S4,.,./S1,S2,M2,o3,. w - 100",
        );
        let (opp, walls, moving) = planning(&pos, Side::White);
        assert_eq!(greedy_plan(&moving, walls, opp, GREEDY_BUDGET), None);
        let (plan, complete) = sequential_plan(&moving, walls, opp, Side::White).unwrap();
        assert!(!complete);
        assert_eq!(plan, vec![(sq("e9"), sq("f8"))]);
        replay(&moving, walls, opp, &plan);
        assert_eq!(planned_move(&pos).map(|mv| (mv.from, mv.to)), Some(plan[0]));
    }

    #[test]
    fn near_home_an_army_both_planners_lose_goes_home_piece_by_piece() {
        // From a game of level 8 (Black) against level 1, ply 269: Black
        // is 24 steps from home among White's pieces, a White piece on
        // c3 holds a target. The exact solver finds no way within its
        // budget (its bound: 24 moves), the greedy planner none within
        // its own or a far larger one; without a plan level 8 jumped to
        // and fro for some 60 plies at 19-25 steps from home.
        let pos = seed_position(
            "S5,.,S3,.,./.,.,M3,M2,./.,M4,S4,.,./.,O4,O2,s1,./o4,O1,M5,m3,./.,M1,O5,o3,S2/O3,o2,m1,m4,./o1,S1,.,.,o5/.,m2,.,.,m5/.,s2,s3,s4,s5 b - 269",
        );
        let (opp, walls, moving) = planning(&pos, Side::Black);
        let moving_distance: u32 = moving.iter().map(|p| dist(p.square, p.target)).sum();
        assert!(moving_distance <= SOLVER_DISTANCE);
        let solution = solve_around(&moving, walls, PLAN_BUDGET);
        assert!(solution.first.is_none() && solution.moves <= GREEDY_DISTANCE);
        assert_eq!(greedy_plan(&moving, walls, opp, 20 * GREEDY_BUDGET), None);
        let (plan, complete) = sequential_plan(&moving, walls, opp, Side::Black).unwrap();
        assert!(!complete);
        let ends = replay(&moving, walls, opp, &plan);
        let home_before = moving.iter().filter(|p| p.square == p.target).count();
        let home_after = moving.iter().zip(&ends).filter(|(p, at)| **at == p.target).count();
        assert!(home_after > home_before, "the partial plan brings pieces home");
        assert_eq!(planned_move(&pos).map(|mv| (mv.from, mv.to)), Some(plan[0]));
    }

    #[test]
    fn a_piece_shut_in_on_a_target_is_called_out() {
        // From a game of level 8 against itself, ply 500: Black's star on
        // j10 holds White's last target, shut in by White's moon on i9 and
        // sun on h8. White, 6 steps from home against Black's 11, kept it
        // there for 700 plies, shuffling, without a plan.
        let mut pos = seed_position(
            "S5,S4,S3,S2,s1/M5,M4,M3,M2,M1/O5,.,O3,O2,./.,O4,.,.,O1/.,.,.,S1,./.,.,.,.,./o2,.,.,.,./o1,.,o3,o4,o5/.,m2,m3,m4,m5/m1,s2,s3,s4,s5 w - 500",
        );
        assert_eq!(shut_in(&pos, Side::White), 1 << sq("j10"));
        assert_eq!(shut_in(&pos, Side::Black), 0);
        // The moon steps off i9, and the sun from h8 steps there with a
        // call (h8, just left, is free): every answer is the star's jump
        // off j10. The plan follows it, Black standing still.
        let mut made = Vec::new();
        loop {
            let mv = release(&pos).expect("a way to call the star out");
            let planned = planned_move(&pos).map(|p| pos.format_move(p));
            made.push(pos.format_move(mv));
            assert_eq!(planned.as_ref(), made.last());
            pos.play_unchecked(mv);
            if mv.call {
                break;
            }
            assert!(made.len() <= RELEASE_SETUP, "{made:?}");
            pos.play_unchecked(SaltaMove::PASS);
        }
        assert_eq!(made, ["i9-j8", "h8-i9+"]);
        let mut answers = monte_rules::MoveList::new();
        pos.generate(&mut answers);
        assert!(!answers.is_empty());
        for answer in answers.iter() {
            assert_eq!(answer.from, sq("j10"), "{}", pos.format_move(*answer));
        }
    }

    #[test]
    fn no_release_without_a_blocker_or_a_way() {
        // The start: nobody on anybody's targets.
        let start = SaltaPosition::start(monte_rules::salta::SaltaRules::seed());
        assert_eq!(release(&start), None);
        assert_eq!(shut_in(&start, Side::White), 0);
    }

    #[test]
    fn sequential_plans_of_corner_races_are_ways_home() {
        let mut rng = monte_rules::Rng::new(17);
        let mut complete = 0;
        for case in 0..40 {
            let pieces = corner_race(&mut rng, 2 + case % 4);
            // Every piece home already, or each one shut in by the others.
            let Some((plan, all)) = sequential_plan(&pieces, 0, 0, Side::White) else { continue };
            let end = replay(&pieces, 0, 0, &plan);
            if all {
                complete += 1;
                assert_eq!(end, pieces.iter().map(|p| p.target).collect::<Vec<_>>());
                assert!(plan.len() as u32 >= brute_force(&pieces));
            }
        }
        assert!(complete > 20, "{complete}");
    }

    #[test]
    fn a_piece_drives_the_enemy_off_its_target_and_steps_home() {
        // Black's sun 1 stands on j8, White's sun 1's target; White's sun 1
        // is on h6, Black's star 3 on g5. Stepping to i7 with a call, the
        // White sun leaves Black one answer, the jump j8:h6 off the target
        // (g5 taken, no call back), and then steps home.
        let pos = finished_but(&[("j8", "h6"), ("a3", "j8"), ("e1", "g5")]);
        let evict = SaltaMove { from: sq("h6"), to: sq("i7"), call: true };
        assert_eq!(eviction(&pos, true), Some(evict));
        assert_eq!(crate::EngineGame::planned_move(&pos), Some(evict));
        let mut after = pos.clone();
        after.play(evict).unwrap();
        let mut answers = monte_rules::MoveList::new();
        after.generate(&mut answers);
        let jumps: Vec<_> = answers.iter().map(|a| (a.from, a.to, a.call)).collect();
        assert_eq!(jumps, vec![(sq("j8"), sq("h6"), false)]);
        after.play(SaltaMove { from: sq("j8"), to: sq("h6"), call: false }).unwrap();
        after.play(SaltaMove { from: sq("i7"), to: sq("j8"), call: false }).unwrap();
        assert_eq!(after.status().outcome().and_then(|o| o.winner), Some(Side::White));
        // The search, asked the same, plays it.
        let r = search(&pos, crate::Limits::nodes(20_000));
        assert_eq!(r.best, Some(evict), "{:?} {:?}", r.score, r.pv);
        // With g5 free the evicted sun can call back, and the White sun
        // must jump i7:g5, away from home: still offered, but the search
        // finds better.
        let answered = finished_but(&[("j8", "h6"), ("a3", "j8")]);
        assert_eq!(eviction(&answered, true), Some(evict));
        let r = search(&answered, crate::Limits::nodes(20_000));
        assert!(r.best.is_some_and(|mv| mv != evict));
    }

    #[test]
    fn every_army_near_home_plans_unless_a_limit_scores_distance() {
        // Each side one step from home: nobody leads the race, and the side
        // to move plans all the same.
        let pos = nearly_finished();
        assert_eq!(crate::EngineGame::race_leader(&pos), None);
        let planned = crate::EngineGame::planned_move(&pos).unwrap();
        assert_eq!((planned.from, planned.to, planned.call), (sq("i7"), sq("j8"), false));
        // Under a move limit scored by distance nobody follows a plan.
        let mut rules = monte_rules::salta::SaltaRules::seed();
        rules.move_limit = Some(120);
        let limited = SaltaPosition::from_fen(rules, &pos.fen()).unwrap();
        assert_eq!(crate::EngineGame::planned_move(&limited), None);
    }

    #[test]
    fn a_small_budget_gives_a_lower_bound() {
        let p = [RacePiece { square: sq("a1"), target: sq("b2") }, RacePiece { square: sq("b2"), target: sq("a1") }];
        let exact = solve(&p, DEFAULT_BUDGET).moves;
        let s = solve(&p, 3);
        assert!(!s.exact);
        assert!(s.moves <= exact);
        assert!(s.upper.is_none_or(|u| u >= exact));
    }
}
