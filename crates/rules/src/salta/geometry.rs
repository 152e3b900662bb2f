//! Salta's board: the 50 dark squares of a 10x10 board in one `u64`.
//!
//! A dark square (x, y) (x = file 0..9, y = rank 0..9, x + y even) has the
//! bit `5y + (x + y) / 2`. Every pair of ranks takes 11 bits, and the bits
//! 5, 16, 27, 38, 49 are ghost squares that belong to no square. With this
//! layout every diagonal step is a constant shift (NE +6, NW +5, SE -5,
//! SW -6), and every step off the left or right edge lands on a ghost
//! square, so a shift followed by a mask with [`BOARD`] is a correct move of
//! a whole set of pieces (the layout of draughts engines).

/// A square index in the padded layout, `0..55`.
pub type Square = u8;

/// Number of bit positions in the layout (including ghosts).
pub const SQUARE_SLOTS: usize = 55;

/// The 50 real squares.
pub const BOARD: u64 = {
    let all = (1u64 << 55) - 1;
    all & !((1 << 5) | (1 << 16) | (1 << 27) | (1 << 38) | (1 << 49))
};

/// The four diagonal directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    NorthEast = 0,
    NorthWest = 1,
    SouthEast = 2,
    SouthWest = 3,
}

impl Dir {
    pub const ALL: [Dir; 4] = [Dir::NorthEast, Dir::NorthWest, Dir::SouthEast, Dir::SouthWest];
    /// Towards higher ranks (White's forward).
    pub const NORTH: [Dir; 2] = [Dir::NorthEast, Dir::NorthWest];
    /// Towards lower ranks (Black's forward).
    pub const SOUTH: [Dir; 2] = [Dir::SouthEast, Dir::SouthWest];

    #[inline]
    pub const fn opposite(self) -> Dir {
        match self {
            Dir::NorthEast => Dir::SouthWest,
            Dir::NorthWest => Dir::SouthEast,
            Dir::SouthEast => Dir::NorthWest,
            Dir::SouthWest => Dir::NorthEast,
        }
    }

    /// The difference of square numbers of one step in this direction
    /// (for a step that stays on the board), read from a table.
    #[inline(always)]
    pub const fn square_offset(self) -> i32 {
        const OFFSETS: [i32; 4] = [6, 5, -5, -6];
        OFFSETS[self as usize]
    }

    pub const fn dx(self) -> i32 {
        match self {
            Dir::NorthEast | Dir::SouthEast => 1,
            _ => -1,
        }
    }

    pub const fn dy(self) -> i32 {
        match self {
            Dir::NorthEast | Dir::NorthWest => 1,
            _ => -1,
        }
    }
}

/// Move every square of `bb` one step in `dir`; squares leaving the board vanish.
#[inline(always)]
pub const fn shift(bb: u64, dir: Dir) -> u64 {
    match dir {
        Dir::NorthEast => (bb << 6) & BOARD,
        Dir::NorthWest => (bb << 5) & BOARD,
        Dir::SouthEast => (bb >> 5) & BOARD,
        Dir::SouthWest => (bb >> 6) & BOARD,
    }
}

/// All diagonal neighbours of the squares in `bb`.
#[inline(always)]
pub const fn neighbours(bb: u64) -> u64 {
    shift(bb, Dir::NorthEast) | shift(bb, Dir::NorthWest) | shift(bb, Dir::SouthEast) | shift(bb, Dir::SouthWest)
}

/// The square at file `x`, rank `y` (both 0-based), if it is dark and on the board.
pub const fn square_at(x: i32, y: i32) -> Option<Square> {
    if x < 0 || x > 9 || y < 0 || y > 9 || (x + y) % 2 != 0 {
        return None;
    }
    Some((5 * y + (x + y) / 2) as Square)
}

const COORDS: [(i8, i8); SQUARE_SLOTS] = {
    let mut t = [(-1i8, -1i8); SQUARE_SLOTS];
    let mut y = 0;
    while y < 10 {
        let mut x = 0;
        while x < 10 {
            if (x + y) % 2 == 0 {
                t[(5 * y + (x + y) / 2) as usize] = (x as i8, y as i8);
            }
            x += 1;
        }
        y += 1;
    }
    t
};

/// File (0..9) and rank (0..9) of a real square.
#[inline]
pub const fn coords(sq: Square) -> (i32, i32) {
    let (x, y) = COORDS[sq as usize];
    (x as i32, y as i32)
}

/// Whether `sq` is one of the 50 real squares.
#[inline]
pub const fn is_square(sq: Square) -> bool {
    (sq as usize) < SQUARE_SLOTS && BOARD & (1 << sq) != 0
}

/// The point reflection through the centre of the board.
pub const fn reflect(sq: Square) -> Square {
    let (x, y) = coords(sq);
    match square_at(9 - x, 9 - y) {
        Some(s) => s,
        None => sq,
    }
}

/// The neighbour of `sq` in `dir`, if on the board.
pub const fn step(sq: Square, dir: Dir) -> Option<Square> {
    let (x, y) = coords(sq);
    square_at(x + dir.dx(), y + dir.dy())
}

/// Diagonal steps between two squares on an empty board.
pub const fn distance(a: Square, b: Square) -> u32 {
    let (ax, ay) = coords(a);
    let (bx, by) = coords(b);
    let dx = (ax - bx).unsigned_abs();
    let dy = (ay - by).unsigned_abs();
    if dx > dy { dx } else { dy }
}

/// `DISTANCE[a][b]`: [`distance`] as a table.
pub static DISTANCE: [[u8; SQUARE_SLOTS]; SQUARE_SLOTS] = {
    let mut t = [[0u8; SQUARE_SLOTS]; SQUARE_SLOTS];
    let mut a = 0;
    while a < SQUARE_SLOTS {
        let mut b = 0;
        while b < SQUARE_SLOTS {
            if is_square(a as Square) && is_square(b as Square) {
                t[a][b] = distance(a as Square, b as Square) as u8;
            }
            b += 1;
        }
        a += 1;
    }
    t
};

/// `NEARER[t][d]`: the squares less than `d` steps from `t`.
pub static NEARER: [[u64; 10]; SQUARE_SLOTS] = {
    let mut t = [[0u64; 10]; SQUARE_SLOTS];
    let mut a = 0;
    while a < SQUARE_SLOTS {
        let mut b = 0;
        while b < SQUARE_SLOTS {
            if is_square(a as Square) && is_square(b as Square) {
                let mut d = distance(a as Square, b as Square) as usize + 1;
                while d < 10 {
                    t[a][d] |= 1u64 << b;
                    d += 1;
                }
            }
            b += 1;
        }
        a += 1;
    }
    t
};

/// `CLOSER[a][b]`: the diagonal neighbours of `a` that are nearer to `b`.
pub static CLOSER: [[u64; SQUARE_SLOTS]; SQUARE_SLOTS] = {
    let mut t = [[0u64; SQUARE_SLOTS]; SQUARE_SLOTS];
    let mut a = 0;
    while a < SQUARE_SLOTS {
        let mut b = 0;
        while b < SQUARE_SLOTS {
            if is_square(a as Square) && is_square(b as Square) {
                let d = distance(a as Square, b as Square);
                let mut i = 0;
                while i < 4 {
                    if let Some(n) = step(a as Square, Dir::ALL[i])
                        && distance(n, b as Square) < d
                    {
                        t[a][b] |= 1u64 << n;
                    }
                    i += 1;
                }
            }
            b += 1;
        }
        a += 1;
    }
    t
};

/// `c3`, `j10`.
pub fn square_name(sq: Square) -> String {
    let (x, y) = coords(sq);
    crate::position::square_text(x, y)
}

/// Parse a square name. Errors name the problem.
pub fn parse_square(s: &str) -> Result<Square, String> {
    let bytes = s.as_bytes();
    if bytes.len() < 2 || bytes.len() > 3 {
        return Err(format!("`{s}`: not a square (a file a-j and a rank 1-10, e.g. c3)"));
    }
    let file = bytes[0];
    if !(b'a'..=b'j').contains(&file) {
        return Err(format!("`{s}`: not a square (files are a-j)"));
    }
    let rank: i32 = match s[1..].parse() {
        Ok(r) if (1..=10).contains(&r) && !s[1..].starts_with('0') => r,
        _ => return Err(format!("`{s}`: not a square (ranks are 1-10)")),
    };
    let x = (file - b'a') as i32;
    square_at(x, rank - 1).ok_or_else(|| format!("{s}: a light square; Salta is played on the dark squares only"))
}

pub use crate::bits::Squares;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_has_fifty_squares_and_shifts_agree_with_coordinates() {
        assert_eq!(BOARD.count_ones(), 50);
        for sq in Squares(BOARD) {
            for dir in Dir::ALL {
                let by_shift = shift(1 << sq, dir);
                let by_coords = step(sq, dir).map_or(0, |t| 1u64 << t);
                assert_eq!(by_shift, by_coords, "{} {:?}", square_name(sq), dir);
            }
            assert_eq!(parse_square(&square_name(sq)), Ok(sq));
            assert_eq!(reflect(reflect(sq)), sq);
        }
        assert!(parse_square("b1").is_err());
        assert!(parse_square("k1").is_err());
        assert!(parse_square("a11").is_err());
        assert!(parse_square("a01").is_err());
    }
}
