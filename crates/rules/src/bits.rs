//! Bitboard helpers shared by both games.

/// Iterate over the squares of a bitboard.
#[derive(Clone, Copy, Debug)]
pub struct Squares(pub u64);

impl Iterator for Squares {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.0.trailing_zeros() as u8;
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }
}

/// The `n`-th square of a non-empty bitboard, counting round it as often
/// as `n` needs.
pub fn nth_square(board: u64, n: u8) -> u8 {
    let count = board.count_ones().max(1) as usize;
    Squares(board).nth(usize::from(n) % count).unwrap_or(0)
}

/// The square of the `n`-th lowest set bit of `set` (which has more than
/// `n`): a random pick's square, so without the modulo of [`nth_square`].
#[inline(always)]
pub(crate) fn nth_in(mut set: u64, n: usize) -> u8 {
    for _ in 0..n {
        set &= set - 1;
    }
    set.trailing_zeros() as u8
}

/// How many squares of `board` come before `sq` (below it in bit order):
/// the index of `sq` among the board's squares, for `sq < 64`.
#[inline]
pub fn index_in(board: u64, sq: u8) -> usize {
    (board & ((1u64 << sq) - 1)).count_ones() as usize
}
