//! Random play: whole games of uniformly random legal moves, as used by
//! `monte bench playouts` and by the UCT baseline's playouts.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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
    /// The hash of the last position: with `plies`, a fingerprint of the
    /// moves drawn (the playout signature of `monte bench`).
    pub end_hash: u64,
}

/// Repetition counts by position hash, kept by the caller so that many
/// playouts reuse its memory (it is cleared, not freed, between them).
/// The keys are Zobrist hashes, already uniform, so they are their own
/// hash: the default hasher (SipHash) cost 6% of a Salta
/// `seed,move-limit=200` playout.
pub type Seen = HashMap<u64, u8, BuildHasherDefault<ZobristKey>>;

/// The hasher of [`Seen`]: a `u64` key as it is.
#[derive(Clone, Copy, Debug, Default)]
pub struct ZobristKey(u64);

impl Hasher for ZobristKey {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used by `Seen`; any other key still hashes.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Play uniformly random legal moves from `start` until the game ends
/// (goal, lost pieces, move limit, or threefold repetition when the rules
/// have it) or `max_plies` plies have been played. `seen` is scratch space
/// for repetition counting (see [`Seen`]).
pub fn random_playout<P: Position>(start: &P, rng: &mut Rng, max_plies: u64, seen: &mut Seen) -> Playout
where
    P::Rules: RepetitionRule,
{
    let repetition = start.rules().repetition_draw();
    let mut pos = start.clone();
    let mut plies = 0u64;
    seen.clear();
    loop {
        if let Status::Over(outcome) = pos.status() {
            return Playout { plies, outcome: Some(outcome), end_hash: pos.hash() };
        }
        if plies >= max_plies {
            return Playout { plies, outcome: None, end_hash: pos.hash() };
        }
        if repetition {
            let n = seen.entry(pos.hash()).or_insert(0);
            *n += 1;
            if *n >= 3 {
                let outcome =
                    Outcome { winner: pos.rules().draw_winner(), reason: EndReason::Repetition, margin: None };
                return Playout { plies, outcome: Some(outcome), end_hash: pos.hash() };
            }
        }
        match pos.random_move(rng) {
            Some(mv) => pos.play_unchecked(mv),
            // Over by its goal, which status() has already reported.
            None => return Playout { plies, outcome: None, end_hash: pos.hash() },
        }
        plies += 1;
    }
}
