//! Focus's board: an 8x8 board without three squares at each corner, as one
//! `u64` with bit `8 * rank + file`.

/// A square index `8 * rank + file`, both 0-based.
pub type Square = u8;

/// The 52 squares of the board.
pub const BOARD: u64 = {
    let mut b = u64::MAX;
    let cut: [(u32, u32); 12] =
        [(0, 0), (1, 0), (0, 1), (6, 0), (7, 0), (7, 1), (0, 6), (0, 7), (1, 7), (7, 6), (6, 7), (7, 7)];
    let mut i = 0;
    while i < cut.len() {
        b &= !(1u64 << (cut[i].1 * 8 + cut[i].0));
        i += 1;
    }
    b
};

/// The four orthogonal directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    North = 0,
    South = 1,
    East = 2,
    West = 3,
}

impl Dir {
    pub const ALL: [Dir; 4] = [Dir::North, Dir::South, Dir::East, Dir::West];
    pub const fn dx(self) -> i32 {
        match self {
            Dir::East => 1,
            Dir::West => -1,
            _ => 0,
        }
    }
    pub const fn dy(self) -> i32 {
        match self {
            Dir::North => 1,
            Dir::South => -1,
            _ => 0,
        }
    }
}

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Move every square of `bb` one step in `dir`; squares leaving the board vanish.
#[inline(always)]
pub const fn shift(bb: u64, dir: Dir) -> u64 {
    match dir {
        Dir::North => (bb << 8) & BOARD,
        Dir::South => (bb >> 8) & BOARD,
        Dir::East => (bb << 1) & !FILE_A & BOARD,
        Dir::West => (bb >> 1) & !FILE_H & BOARD,
    }
}

/// The square at file `x`, rank `y`, if it is on the board.
pub const fn square_at(x: i32, y: i32) -> Option<Square> {
    if x < 0 || x > 7 || y < 0 || y > 7 {
        return None;
    }
    let sq = (y * 8 + x) as u32;
    if BOARD & (1u64 << sq) == 0 { None } else { Some(sq as Square) }
}

#[inline]
pub const fn coords(sq: Square) -> (i32, i32) {
    ((sq % 8) as i32, (sq / 8) as i32)
}

pub const fn is_square(sq: Square) -> bool {
    sq < 64 && BOARD & (1u64 << sq) != 0
}

/// Marks a square off the board in [`RAY`].
pub const OFF: u8 = 0xFF;

/// `RAY[sq][dir][k]`: the square `k` steps from `sq` in `dir` (k = 1..=5),
/// or [`OFF`]. Ranks and files are unbroken on this board, so a target on
/// the board means every square before it is too.
pub const RAY: [[[u8; 6]; 4]; 64] = {
    let mut t = [[[OFF; 6]; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        if is_square(sq as u8) {
            let (x, y) = coords(sq as u8);
            let mut d = 0;
            while d < 4 {
                let dir = Dir::ALL[d];
                let mut k = 1;
                while k <= 5 {
                    if let Some(s) = square_at(x + dir.dx() * k, y + dir.dy() * k) {
                        t[sq][d][k as usize] = s;
                    }
                    k += 1;
                }
                d += 1;
            }
        }
        sq += 1;
    }
    t
};

/// `REACH[sq][h]`: the squares 1..=h steps from `sq` in the four directions.
pub const REACH: [[u64; 6]; 64] = {
    let mut t = [[0u64; 6]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut h = 1;
        while h <= 5 {
            let mut bb = 0u64;
            let mut d = 0;
            while d < 4 {
                let mut k = 1;
                while k <= h {
                    let s = RAY[sq][d][k];
                    if s != OFF {
                        bb |= 1u64 << s;
                    }
                    k += 1;
                }
                d += 1;
            }
            t[sq][h] = bb;
            h += 1;
        }
        sq += 1;
    }
    t
};

/// `c3`.
pub fn square_name(sq: Square) -> String {
    let (x, y) = coords(sq);
    crate::position::square_text(x, y)
}

/// Parse a square name. Errors name the problem.
pub fn parse_square(s: &str) -> Result<Square, String> {
    let b = s.as_bytes();
    if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
        return Err(format!("`{s}`: not a square (a file a-h and a rank 1-8, e.g. c3)"));
    }
    square_at((b[0] - b'a') as i32, (b[1] - b'1') as i32)
        .ok_or_else(|| format!("{s}: not on the board (the three squares at each corner are cut off)"))
}

pub use crate::bits::Squares;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_has_52_squares_and_shifts_agree_with_rays() {
        assert_eq!(BOARD.count_ones(), 52);
        for sq in Squares(BOARD) {
            for (d, dir) in Dir::ALL.into_iter().enumerate() {
                let by_ray = if RAY[sq as usize][d][1] == OFF { 0 } else { 1u64 << RAY[sq as usize][d][1] };
                assert_eq!(shift(1 << sq, dir), by_ray, "{} {dir:?}", square_name(sq));
            }
            assert_eq!(parse_square(&square_name(sq)), Ok(sq));
        }
        assert!(parse_square("a1").is_err());
        assert!(parse_square("h8").is_err());
        assert!(parse_square("i3").is_err());
    }
}
