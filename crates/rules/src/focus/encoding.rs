//! Focus's actions and observation planes (see [`Encoding`]).
//!
//! Squares are numbered 0..52 in the order of [`BOARD`]'s bits (c1, d1,
//! e1, f1, b2, ...) as the side to move sees them, directions 0..4 are
//! north, south, east, west (likewise seen), and the actions are:
//!
//! - `from * 20 + direction * 5 + (count - 1)`: a group move of the top
//!   `count` pieces (1-5) as many squares (0..1040);
//! - `1040 + from * 4 + direction`: a jump (0..208 after it);
//! - `1248 + to`: a drop from the reserve;
//! - `1300`: the pass.

use super::MAX_HEIGHT;
use super::geometry::{BOARD, OFF, RAY, Square, coords};
use super::position::{FocusMove, FocusPosition, MoveKind};
use crate::bits::{Squares, index_in, nth_square};
use crate::encoding::{Encoding, Planes};
use crate::side::Side;

const SQUARES: usize = 52;
const DIRECTIONS: usize = 4;
const HEIGHTS: usize = MAX_HEIGHT as usize;
const JUMP_ACTIONS: usize = SQUARES * DIRECTIONS * HEIGHTS;
const DROP_ACTIONS: usize = JUMP_ACTIONS + SQUARES * DIRECTIONS;
const PASS_ACTION: usize = DROP_ACTIONS + SQUARES;

/// Planes: the viewer's pieces at heights 1-5 (1 the bottom), the
/// opponent's, the two reserves (a fraction of a side's 18 pieces, on
/// every square), then whose turn and the limit.
const OPPONENT_PLANES: usize = HEIGHTS;
const RESERVE_PLANE: usize = 2 * HEIGHTS;
const TURN_PLANE: usize = RESERVE_PLANE + 2;

impl FocusPosition {
    /// A square as the side to move sees it (the board turned half a turn
    /// for Black); its own inverse.
    fn seen(&self, sq: Square) -> Square {
        if self.side == Side::Black { 63 - sq } else { sq }
    }

    /// The `n`-th square of the board as the side to move sees it.
    fn seen_square(&self, n: usize) -> Square {
        self.seen(nth_square(BOARD, n as u8))
    }
}

impl Encoding for FocusPosition {
    const ACTIONS: usize = PASS_ACTION + 1;
    const OBSERVATION_SHAPE: [usize; 3] = [TURN_PLANE + 2, 8, 8];

    fn action(&self, mv: FocusMove) -> usize {
        let seen = FocusMove { from: self.seen(mv.from), to: self.seen(mv.to), ..mv };
        let from = index_in(BOARD, seen.from);
        match mv.kind {
            MoveKind::Group => {
                let (direction, count) = seen.line();
                (from * DIRECTIONS + direction) * HEIGHTS + count as usize - 1
            }
            MoveKind::Jump => JUMP_ACTIONS + from * DIRECTIONS + seen.line().0,
            MoveKind::Drop => DROP_ACTIONS + index_in(BOARD, seen.to),
            MoveKind::Pass => PASS_ACTION,
        }
    }

    fn action_move(&self, action: usize) -> Option<FocusMove> {
        // The move from the `from`-th square `steps` squares in `direction`.
        let along = |from: usize, direction: usize, steps: usize, kind: MoveKind| {
            let start = nth_square(BOARD, from as u8);
            let end = RAY[start as usize][direction][steps];
            (end != OFF).then(|| FocusMove { kind, from: self.seen(start), to: self.seen(end) })
        };
        match action {
            a if a < JUMP_ACTIONS => {
                let count = a % HEIGHTS + 1;
                along(a / HEIGHTS / DIRECTIONS, a / HEIGHTS % DIRECTIONS, count, MoveKind::Group)
            }
            a if a < DROP_ACTIONS => {
                let a = a - JUMP_ACTIONS;
                along(a / DIRECTIONS, a % DIRECTIONS, 2, MoveKind::Jump)
            }
            a if a < PASS_ACTION => Some(FocusMove::drop(self.seen_square(a - DROP_ACTIONS))),
            PASS_ACTION => Some(FocusMove::PASS),
            _ => None,
        }
    }

    fn observe(&self, viewer: Side, values: &mut [f32]) {
        let mut planes = Planes::new(values, Self::OBSERVATION_SHAPE, viewer);
        for sq in Squares(self.occ) {
            let (file, rank) = coords(sq);
            for (height, owner) in self.stacks[sq as usize].pieces().enumerate() {
                let first = if owner == viewer { 0 } else { OPPONENT_PLANES };
                planes.set(first + height, file, rank, 1.0);
            }
        }
        let pieces = f32::from(super::PIECES);
        planes.fill(RESERVE_PLANE, f32::from(self.reserve[viewer.index()]) / pieces);
        planes.fill(RESERVE_PLANE + 1, f32::from(self.reserve[(!viewer).index()]) / pieces);
        planes.fill_turn_and_limit(self, TURN_PLANE);
    }
}
