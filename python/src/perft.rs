//! `Game.perft` on several threads, and stoppable: the tree's top is split
//! among the threads, and its subtrees of [`SUBTREE_DEPTH`] plies are
//! counted by the rules crate's perft; every node above them looks at the
//! stop flag first.

use std::sync::atomic::{AtomicBool, Ordering};

use monte_rules::perft::perft;
use monte_rules::{MoveList, Position};
use rayon::prelude::*;

/// The depth of the subtrees counted whole: small enough that one takes
/// milliseconds (Salta's start has 9,911 leaves 4 plies down, Focus
/// `sackson`'s start, the widest, 19.5 million), large enough that the
/// split above costs little beside them.
pub(crate) const SUBTREE_DEPTH: u32 = 4;

/// Perft of `position` to `depth`, on the threads of the rayon pool it runs
/// in. Once `stop` is set what is not yet counted counts 0: the result is
/// then to be thrown away.
pub(crate) fn perft_in_parallel<P: Position>(position: &P, depth: u32, stop: &AtomicBool) -> u64 {
    if stop.load(Ordering::Relaxed) {
        return 0;
    }
    if depth <= SUBTREE_DEPTH {
        return perft(position, depth);
    }
    let mut moves = MoveList::new();
    position.generate(&mut moves);
    moves
        .par_iter()
        .map(|&mv| {
            let mut child = position.clone();
            child.play_for_perft(mv);
            perft_in_parallel(&child, depth - 1, stop)
        })
        .sum()
}
