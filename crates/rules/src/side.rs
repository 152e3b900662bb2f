use std::fmt;
use std::ops::Not;

/// The two players. White moves first in both games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    White = 0,
    Black = 1,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::White, Side::Black];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `w` or `b`, as in position strings.
    pub const fn letter(self) -> char {
        match self {
            Side::White => 'w',
            Side::Black => 'b',
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Side::White => "White",
            Side::Black => "Black",
        }
    }

    /// `white` or `black`: the side in the API, the store and Python.
    pub const fn key(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }

    pub fn from_letter(c: &str) -> Option<Side> {
        match c {
            "w" => Some(Side::White),
            "b" => Some(Side::Black),
            _ => None,
        }
    }
}

impl Not for Side {
    type Output = Side;
    #[inline]
    fn not(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
