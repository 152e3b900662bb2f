//! An independent, deliberately naive reference implementation of the `seed`
//! rule sets of Salta and Focus, written from `rulings.md` alone.
//!
//! It uses plain coordinates (file x, rank y, both 0-based), plain arrays and
//! vectors, and brute force everywhere. It talks to the crate only through
//! the public accessors (to convert a crate position into a reference
//! position) and the public move structs (to convert moves into
//! notation-independent identities).

pub mod focus;
pub mod salta;

/// A square as (file, rank), both 0-based: `a1` is (0, 0).
pub type Sq = (i32, i32);

/// `c3`, `j10`, ...
pub fn square_name((x, y): Sq) -> String {
    format!("{}{}", (b'a' + x as u8) as char, y + 1)
}

/// The inverse of [`square_name`] (no board check).
pub fn parse_square(s: &str) -> Option<Sq> {
    let mut chars = s.chars();
    let f = chars.next()?;
    if !f.is_ascii_lowercase() {
        return None;
    }
    let rank: i32 = chars.as_str().parse().ok()?;
    Some((f as i32 - 'a' as i32, rank - 1))
}

/// `a + k * d`.
pub fn offset(a: Sq, d: Sq, k: i32) -> Sq {
    (a.0 + k * d.0, a.1 + k * d.1)
}
