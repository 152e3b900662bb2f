//! Perft: the number of distinct move sequences of a given length.
//!
//! Move limits and repetition are ignored, as in chess; a position whose
//! game is over by its goal has no moves. The last two plies are counted
//! by the games ([`Position::count_replies`]), the last one in bulk.

use crate::position::{MoveList, Position};

/// Count the leaf nodes `depth` plies below `pos`.
pub fn perft<P: Position>(pos: &P, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(),
        2 => pos.count_replies(),
        _ => {
            let mut moves = MoveList::new();
            pos.generate(&mut moves);
            let mut total = 0;
            for &mv in &moves {
                let mut child = pos.clone();
                child.play_for_perft(mv);
                total += perft(&child, depth - 1);
            }
            total
        }
    }
}

/// Perft per root move, in generation order.
pub fn divide<P: Position>(pos: &P, depth: u32) -> Vec<(P::Move, u64)> {
    let mut moves = MoveList::new();
    pos.generate(&mut moves);
    moves
        .iter()
        .map(|&mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            (mv, if depth == 0 { 1 } else { perft(&child, depth.saturating_sub(1)) })
        })
        .collect()
}
