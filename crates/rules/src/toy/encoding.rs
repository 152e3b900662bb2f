//! The toy's actions and observation planes (see [`Encoding`]): an action
//! is `from * 12 + to` for a step (squares `rank * 3 + file` as the side
//! to move sees them), 144 the pass; the planes are the viewer's
//! pieces, the opponent's, then whose turn and the limit.

use super::position::{ToyMove, ToyPosition};
use super::{FILES, RANKS};
use crate::bits::Squares;
use crate::encoding::{Encoding, Planes};
use crate::side::Side;

const SQUARES: usize = FILES as usize * RANKS as usize;
const PASS_ACTION: usize = SQUARES * SQUARES;

impl ToyPosition {
    /// A square as the side to move sees it; its own inverse.
    fn seen(&self, sq: u8) -> u8 {
        if self.side == Side::Black { SQUARES as u8 - 1 - sq } else { sq }
    }
}

impl Encoding for ToyPosition {
    const ACTIONS: usize = PASS_ACTION + 1;
    const OBSERVATION_SHAPE: [usize; 3] = [4, RANKS as usize, FILES as usize];

    fn action(&self, mv: ToyMove) -> usize {
        if mv.is_pass() {
            return PASS_ACTION;
        }
        usize::from(self.seen(mv.from)) * SQUARES + usize::from(self.seen(mv.to))
    }

    fn action_move(&self, action: usize) -> Option<ToyMove> {
        let (from, to) = (action / SQUARES, action % SQUARES);
        match action {
            PASS_ACTION => Some(ToyMove::PASS),
            _ if action > PASS_ACTION || from == to => None,
            _ => Some(ToyMove { from: self.seen(from as u8), to: self.seen(to as u8) }),
        }
    }

    fn observe(&self, viewer: Side, values: &mut [f32]) {
        let mut planes = Planes::new(values, Self::OBSERVATION_SHAPE, viewer);
        for side in Side::BOTH {
            let plane = if side == viewer { 0 } else { 1 };
            for sq in Squares(u64::from(self.pieces[side.index()])) {
                planes.set(plane, i32::from(sq % FILES), i32::from(sq / FILES), 1.0);
            }
        }
        planes.fill_turn_and_limit(self, 2);
    }
}
