//! Random play: whole games of uniformly random legal moves, as used by
//! `monte bench playouts` and by the UCT baseline's playouts.

use std::collections::HashMap;

use crate::game::RepetitionRule;
use crate::position::{EndReason, Outcome, Position, Status};
use crate::rng::Rng;

/// How a random game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Playout {
    /// Plies played from the start position.
    pub plies: u64,
    /// `None` when the game was cut at the ply limit.
    pub outcome: Option<Outcome>,
}

/// Play uniformly random legal moves from `start` until the game ends
/// (goal, lost pieces, move limit, or threefold repetition when the rules
/// have it) or `max_plies` plies have been played. `seen` is scratch space
/// for repetition counting, kept by the caller so that many playouts reuse
/// its allocation.
pub fn random_playout<P: Position>(start: &P, rng: &mut Rng, max_plies: u64, seen: &mut HashMap<u64, u8>) -> Playout
where
    P::Rules: RepetitionRule,
{
    let repetition = start.rules().repetition_draw();
    let mut pos = start.clone();
    let mut plies = 0u64;
    seen.clear();
    loop {
        if let Status::Over(outcome) = pos.status() {
            return Playout { plies, outcome: Some(outcome) };
        }
        if plies >= max_plies {
            return Playout { plies, outcome: None };
        }
        if repetition {
            let n = seen.entry(pos.hash()).or_insert(0);
            *n += 1;
            if *n >= 3 {
                let outcome =
                    Outcome { winner: pos.rules().draw_winner(), reason: EndReason::Repetition, margin: None };
                return Playout { plies, outcome: Some(outcome) };
            }
        }
        match pos.random_move(rng) {
            Some(mv) => pos.play_unchecked(mv),
            // Over by its goal, which status() has already reported.
            None => return Playout { plies, outcome: None },
        }
        plies += 1;
    }
}
