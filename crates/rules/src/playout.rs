//! Random play: a small, fast, seedable random generator and whole games of
//! uniformly random legal moves, as used by `monte bench playouts` and by
//! the UCT baseline's playouts.

use std::collections::HashMap;

use crate::game::RepetitionRule;
use crate::position::{EndReason, Outcome, Position, Status};

/// wyrand: a 64-bit generator that passes BigCrush and costs one multiply.
/// Not for anything secret.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xA076_1D64_78BD_642F);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xE703_7ED1_A0B4_28DB) as u128);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift, without the rejection
    /// step: the bias is below n / 2^64). `n` must be more than 0.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

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
