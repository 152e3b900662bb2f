//! Salta move generation on bitboards.
//!
//! A jump sequence is identified by its start and end squares only, and the
//! board does not change during a sequence (nothing is captured), so the set
//! of squares a piece can end on is the closure of "jump over an opponent
//! piece onto an empty square" from its start square: a flood fill of at
//! most a few shifts per hop, for all paths at once. (A walk in that graph
//! can always be shortened to a path that lands on no square twice, so the
//! closure is exactly the set of legal ends.)

use super::geometry::{Dir, Square, Squares, neighbours, shift};
use super::position::{NONE, SaltaMove, SaltaPosition, target_of};
use super::rules::Chains;
use crate::position::MoveList;
use crate::side::Side;

/// Squares reached by one jump from any square of `from`.
#[inline(always)]
fn one_jump(from: u64, opp: u64, empty: u64, dirs: &[Dir]) -> u64 {
    let mut to = 0;
    for &d in dirs {
        to |= shift(shift(from, d) & opp, d) & empty;
    }
    to
}

/// All squares reachable by one or more jumps from `start` (a set), not
/// counting `start` itself unless re-reached (it never is: the caller passes
/// squares that are occupied or already landed on).
#[inline(always)]
fn jump_closure(start: u64, opp: u64, empty: u64, dirs: &[Dir]) -> u64 {
    let mut reached = 0;
    let mut frontier = start;
    while frontier != 0 {
        let next = one_jump(frontier, opp, empty, dirs) & !reached & !start;
        reached |= next;
        frontier = next;
    }
    reached
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

    /// Ends of the jump sequences of the piece on `from` (a pending call is
    /// not considered here).
    #[inline(always)]
    fn jump_ends(&self, from: Square, opp: u64, empty: u64) -> u64 {
        let dirs = self.jump_dirs();
        match self.rules.chains {
            Chains::Single => one_jump(1 << from, opp, empty, dirs),
            Chains::Optional | Chains::Forced => jump_closure(1 << from, opp, empty, dirs),
        }
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

    /// Calls `f(from, ends)` for every piece with moves, where `ends` is the
    /// set of squares it can move to (call flags not yet considered).
    #[inline(always)]
    fn for_each_move_set(&self, mut f: impl FnMut(Square, u64)) {
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
                        _ => landing | jump_closure(landing, opp, empty & !landing, self.jump_dirs()),
                    };
                    f(from, ends);
                }
            }
            return;
        }
        if self.rules.compulsory_jumps {
            let mut any = false;
            for from in Squares(own) {
                let ends = self.jump_ends(from, opp, empty);
                if ends != 0 {
                    any = true;
                    f(from, ends);
                }
            }
            if any {
                return;
            }
            for from in Squares(own) {
                let steps = neighbours(1 << from) & empty;
                if steps != 0 {
                    f(from, steps);
                }
            }
            return;
        }
        for from in Squares(own) {
            let ends = (neighbours(1 << from) & empty) | self.jump_ends(from, opp, empty);
            if ends != 0 {
                f(from, ends);
            }
        }
    }

    /// Of the ends of moves of the piece on `from`, those where the moved
    /// piece could be jumped by the opponent (a call may be attached), minus
    /// the winning square (a winning move carries no call).
    #[inline(always)]
    fn callable(&self, from: Square, ends: u64) -> u64 {
        if !self.rules.calls {
            return 0;
        }
        let us = self.side.index();
        let opp = self.occ[us ^ 1];
        let empty_after = self.empty() | (1 << from);
        let mut c = 0;
        for d in Dir::ALL {
            // Opponent on t+d, empty on t-d: it jumps from t+d over t to t-d.
            c |= shift(opp, d.opposite()) & shift(empty_after, d);
        }
        c & ends & !self.winning_square(from)
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
        self.goal_outcome().is_some()
    }

    pub(crate) fn generate_moves(&self, out: &mut MoveList<SaltaMove>) {
        if self.game_over_by_goal() {
            return;
        }
        let start = out.len();
        self.for_each_move_set(|from, ends| {
            let calls = self.callable(from, ends);
            for to in Squares(ends) {
                out.push(SaltaMove { from, to, call: false });
                if calls & (1 << to) != 0 {
                    out.push(SaltaMove { from, to, call: true });
                }
            }
        });
        if out.len() == start {
            out.push(SaltaMove::PASS);
        }
    }

    pub(crate) fn count_legal(&self) -> u64 {
        if self.game_over_by_goal() {
            return 0;
        }
        let mut n = 0u64;
        self.for_each_move_set(|from, ends| {
            n += (ends.count_ones() + self.callable(from, ends).count_ones()) as u64;
        });
        if n == 0 { 1 } else { n }
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
        let mut legal = false;
        self.for_each_move_set(|from, ends| {
            if from == mv.from && ends & (1 << mv.to) != 0 {
                legal = !mv.call || self.callable(from, ends) & (1 << mv.to) != 0;
            }
        });
        legal
    }

    /// A path of landing squares (without the start) for a legal jump move,
    /// beginning over the called piece when a call is pending.
    pub(crate) fn jump_path(&self, from: Square, to: Square) -> Option<Vec<Square>> {
        let us = self.side.index();
        let opp = self.occ[us ^ 1];
        let empty = self.empty();
        let dirs = self.jump_dirs();
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
