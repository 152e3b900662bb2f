//! Salta move generation on bitboards.
//!
//! A jump sequence is identified by its start and end squares only, and the
//! board does not change during a sequence (nothing is captured), so the set
//! of squares a piece can end on is the closure of "jump over an opponent
//! piece onto an empty square" from its start square: a flood fill of at
//! most a few shifts per hop, for all paths at once. (A walk in that graph
//! can always be shortened to a path that lands on no square twice, so the
//! closure is exactly the set of legal ends.)

use super::geometry::{DISTANCE, Dir, NEARER, Square, Squares, neighbours, shift};
use super::position::{NONE, SaltaMove, SaltaPosition, target_of};
use super::rules::Chains;
use crate::bits::nth_in;
use crate::position::MoveList;
use crate::side::Side;

/// Squares reached by one jump from any square of `from`.
#[inline(always)]
fn one_jump(from: u64, opp: u64, empty: u64, dirs: &[Dir]) -> u64 {
    use Dir::*;
    if dirs.len() == 4 {
        // All four directions, unrolled so that every shift is a constant.
        let to = shift(shift(from, NorthEast) & opp, NorthEast)
            | shift(shift(from, NorthWest) & opp, NorthWest)
            | shift(shift(from, SouthEast) & opp, SouthEast)
            | shift(shift(from, SouthWest) & opp, SouthWest);
        return to & empty;
    }
    let mut to = 0;
    for &d in dirs {
        to |= shift(shift(from, d) & opp, d) & empty;
    }
    to
}

/// The jumps of the side to move in one position, found for the whole
/// board at once: `starts[d]` holds the squares from which a piece could
/// jump in direction `d` (over an opponent piece onto an empty square), and
/// is empty for the directions the rules forbid. Every jump sequence of
/// every piece in the position is a walk in this graph, so move generation
/// computes it once and then answers each piece with a few shifts.
#[derive(Clone, Copy)]
struct JumpGraph {
    starts: [u64; 4],
}

impl JumpGraph {
    #[inline(always)]
    fn new(opp: u64, empty: u64, dirs: &[Dir]) -> Self {
        // Walk back from the empty squares over an opponent piece, in all
        // four directions with constant shifts, then clear the directions
        // the rules forbid. (A loop over `dirs` shifted by a direction known
        // only at run time: a jump table, mispredicted a third of the time.)
        let back = |d: Dir| shift(shift(empty, d.opposite()) & opp, d.opposite());
        let mut starts = [back(Dir::NorthEast), back(Dir::NorthWest), back(Dir::SouthEast), back(Dir::SouthWest)];
        // Most rule sets jump in all four directions: no masks to build
        // (they were a twelfth of perft's move counts).
        if dirs.len() < 4 {
            let mut allowed = [0u64; 4];
            for &d in dirs {
                allowed[d as usize] = !0;
            }
            for (s, a) in starts.iter_mut().zip(allowed) {
                *s &= a;
            }
        }
        JumpGraph { starts }
    }

    /// The squares of `set` that have a jump.
    #[inline(always)]
    fn jumpers(&self, set: u64) -> u64 {
        set & (self.starts[0] | self.starts[1] | self.starts[2] | self.starts[3])
    }

    /// The landing squares of one jump from any square of `set`. A start
    /// square's landing is on the board by construction, so the two steps of
    /// a jump are one shift without a mask.
    #[inline(always)]
    fn land(&self, set: u64) -> u64 {
        let [ne, nw, se, sw] = self.starts;
        ((set & ne) << 12) | ((set & nw) << 10) | ((set & se) >> 10) | ((set & sw) >> 12)
    }

    /// All squares reachable by one or more jumps from the squares of
    /// `start` (which are occupied, so never landed on again).
    #[inline(always)]
    fn closure(&self, start: u64) -> u64 {
        let mut reached = 0;
        let mut frontier = start;
        while frontier != 0 {
            let next = self.land(frontier) & !reached & !start;
            reached |= next;
            frontier = next;
        }
        reached
    }
}

/// The ends of the forced chains of the piece on `from` by a search of the
/// paths (for jump graphs with cycles, which are rare).
#[cold]
#[inline(never)]
fn search_chain_ends(from: Square, firsts: u64, graph: &JumpGraph) -> u64 {
    fn walk(sq: Square, landed: u64, graph: &JumpGraph, ends: &mut u64) {
        let next = graph.land(1 << sq) & !landed;
        if next == 0 {
            *ends |= 1 << sq;
            return;
        }
        for n in Squares(next) {
            walk(n, landed | (1 << n), graph, ends);
        }
    }
    let mut ends = 0;
    for first in Squares(firsts) {
        walk(first, (1 << from) | (1 << first), graph, &mut ends);
    }
    ends
}

/// A uniformly random step (a move to an empty neighbour) of a piece of
/// `own`, or a pass when no piece can step.
#[inline(always)]
fn random_step(own: u64, empty: u64, rng: &mut crate::Rng) -> SaltaMove {
    // Pieces that can step in each direction: a step is one (piece,
    // direction) pair, so picking uniformly among the pairs is uniform
    // among the steps.
    let movers = Dir::ALL.map(|d| own & shift(empty, d.opposite()));
    let total: u32 = movers.iter().map(|m| m.count_ones()).sum();
    if total == 0 {
        return SaltaMove::PASS;
    }
    let mut k = rng.below(total as usize);
    for (d, set) in movers.into_iter().enumerate() {
        let n = set.count_ones() as usize;
        if k < n {
            let from = nth_in(set, k);
            // From a table, not `shift` with a direction known only here:
            // its `match` became a jump table whose target was mispredicted
            // half the time (a third of a playout's mispredictions).
            let to = (from as i32 + Dir::ALL[d].square_offset()) as Square;
            return SaltaMove { from, to, call: false };
        }
        k -= n;
    }
    SaltaMove::PASS
}

/// A group of moves of [`SaltaPosition::bulk_groups`].
#[derive(Clone, Copy)]
enum BulkGroup {
    /// The jumps of the piece on this square.
    Jumps(Square),
    /// The steps of every piece in this direction.
    Steps(Dir),
}

/// The destination sets of the pieces that can move.
/// (An `ArrayVec`, which unlike an array needs no zeroing when made: that
/// was 5% of a random playout.)
#[derive(Clone)]
struct MoveSets {
    sets: arrayvec::ArrayVec<(Square, u64), 15>,
}

impl MoveSets {
    #[inline(always)]
    fn new() -> Self {
        MoveSets { sets: arrayvec::ArrayVec::new() }
    }

    /// Add a piece's ends (at most 15 pieces ever push).
    #[inline(always)]
    fn push(&mut self, from: Square, ends: u64) {
        if ends != 0 {
            self.sets.push((from, ends));
        }
    }

    #[inline(always)]
    fn iter(&self) -> std::slice::Iter<'_, (Square, u64)> {
        self.sets.iter()
    }
}

/// Where a piece of the side to move could be jumped by the opponent once
/// it has moved, computed once per position: a square `t` with an opponent
/// piece on `t + d` and `t - d` empty. The square the piece left is empty
/// too, which adds, for each direction `d`, the neighbour `from + d` when
/// an opponent piece stands on `from + 2d` (`beside`).
#[derive(Clone, Copy)]
struct CallSquares {
    /// Callable whatever square the piece came from.
    fixed: u64,
    /// `beside[d]`: the squares with an opponent piece next to them in
    /// direction `d`.
    beside: [u64; 4],
}

impl CallSquares {
    #[inline(always)]
    fn new(opp: u64, empty: u64) -> Self {
        let beside = Dir::ALL.map(|d| shift(opp, d.opposite()));
        let mut fixed = 0;
        for d in Dir::ALL {
            fixed |= beside[d as usize] & shift(empty, d);
        }
        CallSquares { fixed, beside }
    }

    /// The callable squares for a piece that left `from`.
    #[inline(always)]
    fn of(&self, from: Square) -> u64 {
        let mut c = self.fixed;
        for d in Dir::ALL {
            c |= shift(1 << from, d) & self.beside[d as usize];
        }
        c
    }
}

impl SaltaPosition {
    #[inline(always)]
    fn jump_dirs(&self) -> &'static [Dir] {
        if self.rules.forward_jumps_only {
            match self.side {
                Side::White => &Dir::NORTH,
                Side::Black => &Dir::SOUTH,
            }
        } else {
            &Dir::ALL
        }
    }

    #[inline(always)]
    fn empty(&self) -> u64 {
        super::geometry::BOARD & !(self.occ[0] | self.occ[1])
    }

    /// Bitboard of our pieces that can answer a call on `c` (jump over it).
    pub(crate) fn call_replies(&self, c: Square) -> u64 {
        let own = self.occ[self.side.index()];
        let empty = self.empty();
        let cb = 1u64 << c;
        let mut pieces = 0;
        for &d in self.jump_dirs() {
            if shift(cb, d) & empty != 0 {
                pieces |= shift(cb, d.opposite()) & own;
            }
        }
        pieces
    }

    /// Ends of forced chains (`chains=forced`): a sequence must go on while
    /// the piece can jump to a square it has not landed on, so whether a
    /// square ends a sequence depends on the path; search the paths.
    #[inline(always)]
    fn forced_chain_ends(&self, from: Square, graph: &JumpGraph) -> u64 {
        let firsts = graph.land(1 << from);
        let reach = graph.closure(1 << from);
        if reach == 0 {
            return 0;
        }
        if !self.rules.forward_jumps_only {
            // Jumps in all four directions make the jump graph undirected.
            // The piece's graph is its start, joined to its first landings,
            // and the reached squares, which are empty and joined among
            // themselves by `starts` (their jumps land on empty squares,
            // hence reached ones). When that graph is a tree, a chain can
            // stop exactly on the squares with one edge (the one it came
            // by): no path search needed.
            let [a, b, c, d] = graph.starts.map(|s| s & reach);
            let empty_edges = (a.count_ones() + b.count_ones() + c.count_ones() + d.count_ones()) / 2;
            if empty_edges + firsts.count_ones() == reach.count_ones() {
                let several = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d);
                let one = (a | b | c | d) & !several;
                let none = reach & !(a | b | c | d);
                return (one & !firsts) | (none & firsts);
            }
        }
        search_chain_ends(from, firsts, graph)
    }

    /// Where a jump sequence of the piece on `from` (which has a jump) may
    /// end, by the rules' chains.
    #[inline(always)]
    fn jump_ends(&self, from: Square, graph: &JumpGraph) -> u64 {
        match self.rules.chains {
            Chains::Single => graph.land(1 << from),
            Chains::Optional => graph.closure(1 << from),
            Chains::Forced => self.forced_chain_ends(from, graph),
        }
    }

    /// The squares each piece can move to, before calls: `(from, ends)` for
    /// every piece with a move, with compulsory jumps, a pending call and the
    /// blockade ban applied.
    #[inline(always)]
    fn move_sets(&self, sets: &mut MoveSets) {
        let us = self.side.index();
        let own = self.occ[us];
        let opp = self.occ[us ^ 1];
        let empty = self.empty();
        if self.call != NONE {
            // The reply must begin with a jump over the called piece.
            let cb = 1u64 << self.call;
            for &d in self.jump_dirs() {
                let piece = shift(cb, d.opposite()) & own;
                let landing = shift(cb, d) & empty;
                if piece != 0 && landing != 0 {
                    let from = piece.trailing_zeros() as Square;
                    let ends = match self.rules.chains {
                        Chains::Single => landing,
                        _ => landing | JumpGraph::new(opp, empty, self.jump_dirs()).closure(landing),
                    };
                    sets.push(from, ends);
                }
            }
            return;
        }
        let graph = JumpGraph::new(opp, empty, self.jump_dirs());
        let jump_ends = |from: Square| self.jump_ends(from, &graph);
        let jumpers = graph.jumpers(own);
        if self.rules.compulsory_jumps && jumpers != 0 {
            for from in Squares(jumpers) {
                sets.push(from, jump_ends(from));
            }
        } else {
            for from in Squares(own) {
                let steps = neighbours(1 << from) & empty;
                let jumps = if jumpers & (1 << from) != 0 { jump_ends(from) } else { 0 };
                sets.push(from, steps | jumps);
            }
        }
        if self.rules.blockade_ban {
            self.ban_blockades(sets);
        }
    }

    /// Remove the moves after which the opponent would have no move
    /// (counting its steps and jumps), unless that removes every move.
    fn ban_blockades(&self, sets: &mut MoveSets) {
        let us = self.side.index();
        let own = self.occ[us];
        let opp = self.occ[us ^ 1];
        let empty = self.empty();
        let their_dirs: &[Dir] = if self.rules.forward_jumps_only {
            match self.side {
                Side::White => &Dir::SOUTH,
                Side::Black => &Dir::NORTH,
            }
        } else {
            &Dir::ALL
        };
        let mut allowed = sets.clone();
        let mut any = false;
        for (i, &(from, ends)) in sets.iter().enumerate() {
            let mut keep = 0;
            for to in Squares(ends) {
                let moved = (1u64 << from) | (1u64 << to);
                let own_after = own ^ moved;
                let empty_after = empty ^ moved;
                let can_step = neighbours(opp) & empty_after != 0;
                if can_step || one_jump(opp, own_after, empty_after, their_dirs) != 0 {
                    keep |= 1 << to;
                }
            }
            allowed.sets[i].1 = keep;
            any |= keep != 0;
        }
        if any {
            *sets = allowed;
        }
    }

    /// Of the ends of moves of the piece on `from`, those where the moved
    /// piece could be jumped by the opponent (a call may be attached), minus
    /// the winning square (a winning move carries no call).
    #[inline(always)]
    fn callable(&self, from: Square, ends: u64, squares: &CallSquares) -> u64 {
        if !self.rules.calls {
            return 0;
        }
        squares.of(from) & ends & !self.winning_square(from)
    }

    /// The call squares of the side to move (see [`CallSquares`]).
    #[inline(always)]
    fn call_squares(&self) -> CallSquares {
        CallSquares::new(self.occ[self.side.index() ^ 1], self.empty())
    }

    /// The square where the piece on `from` would complete the goal, as a
    /// bitboard (0 if no move of it completes the goal).
    #[inline(always)]
    fn winning_square(&self, from: Square) -> u64 {
        let us = self.side.index();
        if self.home[us] != 14 {
            return 0;
        }
        let target = target_of(self.rules.goal, self.board[from as usize]);
        if target == from { 0 } else { 1 << target }
    }

    pub(crate) fn game_over_by_goal(&self) -> bool {
        // Neither side home, the usual case: no outcome to build (every
        // count and move list asks).
        (self.home[0] == 15 || self.home[1] == 15) && self.goal_outcome().is_some()
    }

    pub(crate) fn generate_moves(&self, out: &mut MoveList<SaltaMove>) {
        if self.game_over_by_goal() {
            return;
        }
        let start = out.len();
        let mut sets = MoveSets::new();
        self.move_sets(&mut sets);
        let squares = self.call_squares();
        for &(from, ends) in sets.iter() {
            let calls = self.callable(from, ends, &squares);
            for to in Squares(ends) {
                out.push(SaltaMove { from, to, call: false });
                if calls & (1 << to) != 0 {
                    out.push(SaltaMove { from, to, call: true });
                }
            }
        }
        if out.len() == start {
            out.push(SaltaMove::PASS);
        }
    }

    /// The jumps without a call that end closer to their piece's target
    /// than they start, in the order of [`Position::generate`]: what makes
    /// a position unquiet for a search (a chain can carry a piece many
    /// steps at once), found without listing the other moves.
    ///
    /// [`Position::generate`]: crate::position::Position::generate
    pub fn generate_approaching_jumps(&self, out: &mut MoveList<SaltaMove>) {
        if self.game_over_by_goal() {
            return;
        }
        let mut push_approaching = |from: Square, ends: u64| {
            // A jump moves a piece two columns per hop, so no chain ends on
            // a neighbour of its start: the ends off the neighbours are the
            // jumps.
            let jumps = ends & !neighbours(1 << from);
            if jumps == 0 {
                return;
            }
            let target = target_of(self.rules.goal, self.board[from as usize]);
            let before = DISTANCE[from as usize][target as usize];
            for to in Squares(jumps & NEARER[target as usize][before as usize]) {
                out.push(SaltaMove { from, to, call: false });
            }
        };
        if self.call == NONE && !self.rules.blockade_ban {
            // The move sets' jumps without their steps: the jump ends of the
            // pieces that can jump, in the same order (compulsory jumps only
            // leave out the steps).
            let us = self.side.index();
            let graph = JumpGraph::new(self.occ[us ^ 1], self.empty(), self.jump_dirs());
            for from in Squares(graph.jumpers(self.occ[us])) {
                push_approaching(from, self.jump_ends(from, &graph));
            }
            return;
        }
        let mut sets = MoveSets::new();
        self.move_sets(&mut sets);
        for &(from, ends) in sets.iter() {
            push_approaching(from, ends);
        }
    }

    /// A uniformly random move of those [`Self::generate_moves`] lists,
    /// picked from the move sets without listing them.
    pub(crate) fn random_legal(&self, rng: &mut crate::Rng) -> Option<SaltaMove> {
        if self.game_over_by_goal() {
            return None;
        }
        if self.call == NONE && !self.rules.calls && !self.rules.blockade_ban {
            // Every (from, to) pair is a move of its own: pick among them
            // without building the per-piece sets where that is cheaper.
            let us = self.side.index();
            let (own, opp) = (self.occ[us], self.occ[us ^ 1]);
            let empty = self.empty();
            let graph = JumpGraph::new(opp, empty, self.jump_dirs());
            let jumpers = graph.jumpers(own);
            if jumpers == 0 {
                return Some(random_step(own, empty, rng));
            }
            if self.rules.compulsory_jumps {
                let mut sets = MoveSets::new();
                for from in Squares(jumpers) {
                    sets.push(from, self.jump_ends(from, &graph));
                }
                let total: u32 = sets.iter().map(|&(_, ends)| ends.count_ones()).sum();
                // Never 0 (every jump sequence ends somewhere); if it were,
                // the generic path below would still answer correctly.
                if total > 0 {
                    let mut k = rng.below(total as usize);
                    for &(from, ends) in sets.iter() {
                        let n = ends.count_ones() as usize;
                        if k < n {
                            return Some(SaltaMove { from, to: nth_in(ends, k), call: false });
                        }
                        k -= n;
                    }
                }
            }
        }
        if let Some(mv) = self.random_in_bulk(rng) {
            return Some(mv);
        }
        let mut sets = MoveSets::new();
        self.move_sets(&mut sets);
        let mut calls = [0u64; 15];
        let mut total = 0usize;
        let squares = self.call_squares();
        for (i, &(from, ends)) in sets.iter().enumerate() {
            calls[i] = self.callable(from, ends, &squares);
            total += (ends.count_ones() + calls[i].count_ones()) as usize;
        }
        if total == 0 {
            return Some(SaltaMove::PASS);
        }
        let mut k = rng.below(total);
        for (i, &(from, ends)) in sets.iter().enumerate() {
            let plain = ends.count_ones() as usize;
            if k < plain {
                return Some(SaltaMove { from, to: nth_in(ends, k), call: false });
            }
            k -= plain;
            let called = calls[i].count_ones() as usize;
            if k < called {
                return Some(SaltaMove { from, to: nth_in(calls[i], k), call: true });
            }
            k -= called;
        }
        unreachable!("the pick is below the total of the sets")
    }

    pub(crate) fn count_legal(&self) -> u64 {
        if self.game_over_by_goal() {
            return 0;
        }
        if let Some(n) = self.count_in_bulk() {
            return n;
        }
        let mut n = 0u64;
        let mut sets = MoveSets::new();
        self.move_sets(&mut sets);
        let squares = self.call_squares();
        for &(from, ends) in sets.iter() {
            n += (ends.count_ones() + self.callable(from, ends, &squares).count_ones()) as u64;
        }
        if n == 0 { 1 } else { n }
    }

    /// The legal moves in groups, without a set per piece, where that is
    /// exact (no pending call, no blockade ban, no winning move that would
    /// drop its call; else `false` and no group): `visit(group, ends,
    /// called)` gets each piece that can jump with its jumps' ends, then
    /// each direction with the ends of all pieces' steps that way; `called`
    /// are the ends whose move may carry a call, each one move more. A step
    /// never ends where a jump sequence of the same piece can (a jump
    /// changes the file by two), so every move is in one group; a step's
    /// call squares are the fixed ones and the neighbour beside the square
    /// it left, and a jump's only the fixed ones (it never ends next to its
    /// start).
    #[inline(always)]
    fn bulk_groups(&self, mut visit: impl FnMut(BulkGroup, u64, u64)) -> bool {
        let us = self.side.index();
        let calls = self.rules.calls;
        if self.call != NONE || self.rules.blockade_ban || (calls && self.home[us] == 14) {
            return false;
        }
        let (own, opp) = (self.occ[us], self.occ[us ^ 1]);
        let empty = self.empty();
        let graph = JumpGraph::new(opp, empty, self.jump_dirs());
        let jumpers = graph.jumpers(own);
        let squares = if calls { self.call_squares() } else { CallSquares { fixed: 0, beside: [0; 4] } };
        for from in Squares(jumpers) {
            let ends = self.jump_ends(from, &graph);
            visit(BulkGroup::Jumps(from), ends, ends & squares.fixed);
        }
        if !(self.rules.compulsory_jumps && jumpers != 0) {
            for d in Dir::ALL {
                let to = shift(own, d) & empty;
                visit(BulkGroup::Steps(d), to, to & (squares.fixed | squares.beside[d as usize]));
            }
        }
        true
    }

    /// [`Self::count_legal`] from [`Self::bulk_groups`], where they apply:
    /// the steps are counted for all pieces at once, a direction at a time,
    /// and only the pieces that can jump are visited. Perft counts most of
    /// its nodes here.
    #[inline(always)]
    fn count_in_bulk(&self) -> Option<u64> {
        let mut n = 0u32;
        if !self.bulk_groups(|_, ends, called| n += ends.count_ones() + called.count_ones()) {
            return None;
        }
        Some(if n == 0 { 1 } else { n as u64 })
    }

    /// [`Self::random_legal`] from [`Self::bulk_groups`], where they apply:
    /// a uniform pick among the groups' moves, without a set per piece.
    #[inline(always)]
    fn random_in_bulk(&self, rng: &mut crate::Rng) -> Option<SaltaMove> {
        let mut groups = arrayvec::ArrayVec::<(BulkGroup, u64, u64), 19>::new();
        if !self.bulk_groups(|group, ends, called| groups.push((group, ends, called))) {
            return None;
        }
        let total: u32 = groups.iter().map(|&(_, ends, called)| ends.count_ones() + called.count_ones()).sum();
        if total == 0 {
            return Some(SaltaMove::PASS);
        }
        let mut k = rng.below(total as usize);
        for &(group, ends, called) in &groups {
            for (set, call) in [(ends, false), (called, true)] {
                let n = set.count_ones() as usize;
                if k < n {
                    let to = nth_in(set, k);
                    let from = match group {
                        BulkGroup::Jumps(from) => from,
                        BulkGroup::Steps(d) => (to as i32 - d.square_offset()) as Square,
                    };
                    return Some(SaltaMove { from, to, call });
                }
                k -= n;
            }
        }
        unreachable!("the pick is below the total of the groups")
    }

    /// `perft(2)` (see [`Position::count_replies`]): the moves of the move
    /// sets made without a list and without the hash, and a move's call
    /// twin counted on the same child with the call set (the board is the
    /// same).
    ///
    /// [`Position::count_replies`]: crate::position::Position::count_replies
    pub(crate) fn count_replies_of_sets(&self) -> u64 {
        if self.game_over_by_goal() {
            return 0;
        }
        let mut sets = MoveSets::new();
        self.move_sets(&mut sets);
        if sets.iter().next().is_none() {
            let mut child = self.clone();
            child.play_with::<false>(SaltaMove::PASS);
            return child.count_legal();
        }
        let squares = self.call_squares();
        let mut total = 0;
        for &(from, ends) in sets.iter() {
            let calls = self.callable(from, ends, &squares);
            for to in Squares(ends) {
                let mut child = self.clone();
                child.play_with::<false>(SaltaMove { from, to, call: false });
                total += child.count_legal();
                if calls & (1 << to) != 0 {
                    child.call = to;
                    total += child.count_legal();
                }
            }
        }
        total
    }

    /// Whether `(from, to)` is among the move sets (call flag ignored).
    pub(crate) fn move_sets_contain(&self, mv: SaltaMove) -> bool {
        let mut sets = MoveSets::new();
        self.move_sets(&mut sets);
        sets.iter().any(|&(from, ends)| from == mv.from && ends & (1 << mv.to) != 0)
    }

    pub(crate) fn is_legal_move(&self, mv: SaltaMove) -> bool {
        if self.game_over_by_goal() {
            return false;
        }
        if mv.is_pass() {
            return self.count_legal() == 1 && {
                let mut list = MoveList::new();
                self.generate_moves(&mut list);
                list[0].is_pass()
            };
        }
        if !super::geometry::is_square(mv.from) || !super::geometry::is_square(mv.to) {
            return false;
        }
        let mut sets = MoveSets::new();
        self.move_sets(&mut sets);
        sets.iter().any(|&(from, ends)| {
            from == mv.from
                && ends & (1 << mv.to) != 0
                && (!mv.call || self.callable(from, ends, &self.call_squares()) & (1 << mv.to) != 0)
        })
    }

    /// A path of landing squares (without the start) for a legal jump move,
    /// beginning over the called piece when a call is pending.
    pub(crate) fn jump_path(&self, from: Square, to: Square) -> Option<Vec<Square>> {
        let us = self.side.index();
        let opp = self.occ[us ^ 1];
        let empty = self.empty();
        let dirs = self.jump_dirs();
        if self.rules.chains == Chains::Forced && self.call == NONE {
            return self.forced_chain_path(from, to);
        }
        // Breadth-first search over landing squares; parent links give the path.
        let mut parent = [NONE; super::geometry::SQUARE_SLOTS];
        let mut queue: Vec<Square> = Vec::with_capacity(32);
        let first: Vec<Square> = if self.call != NONE {
            let d = dirs.iter().copied().find(|&d| shift(1 << from, d) == 1 << self.call)?;
            let landing = shift(1 << self.call, d) & empty;
            if landing == 0 {
                return None;
            }
            vec![landing.trailing_zeros() as Square]
        } else {
            Squares(one_jump(1 << from, opp, empty, dirs)).collect()
        };
        for sq in first {
            parent[sq as usize] = from;
            queue.push(sq);
        }
        let single = self.rules.chains == Chains::Single;
        let mut head = 0;
        while head < queue.len() {
            let sq = queue[head];
            head += 1;
            if sq == to {
                let mut path = vec![to];
                let mut cur = to;
                while parent[cur as usize] != from {
                    cur = parent[cur as usize];
                    path.push(cur);
                }
                path.reverse();
                return Some(path);
            }
            if single {
                continue;
            }
            for next in Squares(one_jump(1 << sq, opp, empty, dirs)) {
                if parent[next as usize] == NONE && next != from {
                    parent[next as usize] = sq;
                    queue.push(next);
                }
            }
        }
        None
    }

    /// A complete forced chain (one that cannot go on) from `from` to `to`.
    fn forced_chain_path(&self, from: Square, to: Square) -> Option<Vec<Square>> {
        let opp = self.occ[self.side.index() ^ 1];
        let empty = self.empty();
        let dirs = self.jump_dirs();
        fn walk(path: &mut Vec<Square>, landed: u64, to: Square, opp: u64, empty: u64, dirs: &[Dir]) -> bool {
            let sq = *path.last().expect("path starts with a landing");
            let next = one_jump(1 << sq, opp, empty, dirs) & !landed;
            if next == 0 {
                return sq == to;
            }
            for n in Squares(next) {
                path.push(n);
                if walk(path, landed | (1 << n), to, opp, empty, dirs) {
                    return true;
                }
                path.pop();
            }
            false
        }
        for first in Squares(one_jump(1 << from, opp, empty, dirs)) {
            let mut path = vec![first];
            if walk(&mut path, (1 << from) | (1 << first), to, opp, empty, dirs) {
                return Some(path);
            }
        }
        None
    }

    /// Whether the piece that started on `origin` and has landed on the
    /// squares of `landed` (a bitboard, with `origin`) could jump on from `sq`.
    pub(crate) fn can_jump_on(&self, sq: Square, landed: u64) -> bool {
        let opp = self.occ[self.side.index() ^ 1];
        one_jump(1 << sq, opp, self.empty(), self.jump_dirs()) & !landed != 0
    }

    /// Whether one hop from `a` to `b` is a jump over an opponent piece onto
    /// an empty square in an allowed direction; returns the jumped square.
    pub(crate) fn hop(&self, a: Square, b: Square, origin: Square) -> Option<Square> {
        let opp = self.occ[self.side.index() ^ 1];
        let empty = self.empty() | (1 << origin);
        for &d in self.jump_dirs() {
            let over = shift(1 << a, d);
            if over & opp != 0 && shift(over, d) == 1 << b && (1u64 << b) & empty != 0 {
                return Some(over.trailing_zeros() as Square);
            }
        }
        None
    }
}
