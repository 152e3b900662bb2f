//! The engine's side of the test-only toy game (`monte_rules::toy`): an
//! evaluation by how far each side's pieces have come.

use monte_rules::toy::{FILES, RANKS, ToyMove, ToyPosition};
use monte_rules::{MoveList, Position, Side};

use crate::eval::{EngineGame, Features};

/// Per rank a piece has advanced, and for having the move.
const WEIGHTS: [i32; 2] = [100, 20];

impl EngineGame for ToyPosition {
    fn evaluate(&self) -> i32 {
        self.evaluate_with(&WEIGHTS)
    }

    fn encode(mv: ToyMove) -> u16 {
        // Squares are below 12, so a step's code is small and never 0; the
        // pass's squares are 255, and it gets the largest code.
        if mv.is_pass() { u16::MAX } else { (u16::from(mv.from) << 8 | u16::from(mv.to)) + 1 }
    }

    fn decode(code: u16) -> ToyMove {
        if code == u16::MAX {
            return ToyMove::PASS;
        }
        let [from, to] = code.wrapping_sub(1).to_be_bytes();
        ToyMove { from, to }
    }

    /// A step onto the far rank: it wins.
    fn is_tactical(&self, mv: ToyMove) -> bool {
        let far_rank = if self.side_to_move() == Side::White { RANKS - 1 } else { 0 };
        !mv.is_pass() && mv.to / FILES == far_rank
    }

    fn quiescence_moves(&self, out: &mut MoveList<ToyMove>) {
        for mv in self.legal_moves() {
            if self.is_tactical(mv) {
                out.push(mv);
            }
        }
    }

    fn null_move() -> ToyMove {
        ToyMove::PASS
    }

    fn is_forcing(&self) -> bool {
        false
    }

    fn features(&self) -> Features {
        let me = self.side_to_move();
        [self.standing(me) - self.standing(!me), 1].into_iter().collect()
    }

    fn weights() -> &'static [i32] {
        &WEIGHTS
    }

    fn feature_names() -> &'static [&'static str] {
        &["advance", "tempo"]
    }

    fn eval_scale() -> f64 {
        400.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use monte_rules::toy::ToyRules;

    #[test]
    fn move_codes_round_trip_and_are_never_zero() {
        let start = ToyPosition::start(ToyRules::seed());
        for mv in start.legal_moves().into_iter().chain([ToyMove::PASS]) {
            assert_ne!(ToyPosition::encode(mv), 0);
            assert_eq!(ToyPosition::decode(ToyPosition::encode(mv)), mv);
        }
    }
}
