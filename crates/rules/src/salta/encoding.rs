//! Salta's actions and observation planes (see [`Encoding`]).
//!
//! A move is its start, its end and its call (rulings.md: the jump paths
//! between two squares are one move), so an action is
//! `(from * 50 + to) * 2 + call`, squares numbered 0..50 in the order of
//! [`BOARD`]'s bits (a1, c1, ..., j10) as the side to move sees them;
//! 5000 is the pass.

use super::geometry::{BOARD, Square, coords, reflect};
use super::position::{EMPTY, Piece, SaltaMove, SaltaPosition};
use crate::bits::{Squares, index_in, nth_square};
use crate::encoding::{Encoding, Planes};
use crate::side::Side;

const SQUARES: usize = 50;
const PASS_ACTION: usize = SQUARES * SQUARES * 2;

/// Planes: the viewer's 15 pieces (stars 1-5, moons 1-5, suns 1-5),
/// the opponent's 15, the called piece, then whose turn and the limit.
const OPPONENT_PLANES: usize = 15;
const CALL_PLANE: usize = 30;
const TURN_PLANE: usize = 31;

impl SaltaPosition {
    /// A square as the side to move sees it; its own inverse.
    fn seen(&self, sq: Square) -> Square {
        if self.side == Side::Black { reflect(sq) } else { sq }
    }
}

/// A piece's plane, counted from the first of its side's.
fn piece_plane(piece: Piece) -> usize {
    piece.kind as usize * 5 + usize::from(piece.number) - 1
}

impl Encoding for SaltaPosition {
    const ACTIONS: usize = PASS_ACTION + 1;
    const OBSERVATION_SHAPE: [usize; 3] = [TURN_PLANE + 2, 10, 10];

    fn action(&self, mv: SaltaMove) -> usize {
        if mv.is_pass() {
            return PASS_ACTION;
        }
        let from = index_in(BOARD, self.seen(mv.from));
        let to = index_in(BOARD, self.seen(mv.to));
        (from * SQUARES + to) * 2 + usize::from(mv.call)
    }

    fn action_move(&self, action: usize) -> Option<SaltaMove> {
        if action == PASS_ACTION {
            return Some(SaltaMove::PASS);
        }
        if action > PASS_ACTION {
            return None;
        }
        let (from, to) = (action / 2 / SQUARES, action / 2 % SQUARES);
        let square = |n: usize| self.seen(nth_square(BOARD, n as u8));
        (from != to).then(|| SaltaMove { from: square(from), to: square(to), call: action % 2 == 1 })
    }

    fn observe(&self, viewer: Side, values: &mut [f32]) {
        let mut planes = Planes::new(values, Self::OBSERVATION_SHAPE, viewer);
        for sq in Squares(self.occ[0] | self.occ[1]) {
            let code = self.board[sq as usize];
            debug_assert_ne!(code, EMPTY);
            let piece = Piece::from_code(code);
            let first = if piece.side == viewer { 0 } else { OPPONENT_PLANES };
            let (file, rank) = coords(sq);
            planes.set(first + piece_plane(piece), file, rank, 1.0);
        }
        if let Some(called) = self.pending_call() {
            let (file, rank) = coords(called);
            planes.set(CALL_PLANE, file, rank, 1.0);
        }
        planes.fill_turn_and_limit(self, TURN_PLANE);
    }
}
