//! The board as text for a terminal, from either side.

use super::geometry::{Square, Squares, square_at};
use super::position::{Kind, SaltaPosition};
use crate::position::{Position, RenderStyle, Status, file_letter};
use crate::side::Side;

const RESET: &str = "\x1b[0m";
/// A light square, and an empty dark one, in colour.
const LIGHT_CELL: &str = "\x1b[48;5;230m   \x1b[0m";
const EMPTY_DARK_CELL: &str = "\x1b[48;5;94m   \x1b[0m";

/// The symbol of a piece; its number is written after it.
fn symbol(kind: Kind, side: Side) -> char {
    match (kind, side) {
        (Kind::Star, Side::White) => '★',
        (Kind::Star, Side::Black) => '☆',
        (Kind::Moon, Side::White) => '☾',
        (Kind::Moon, Side::Black) => '☽',
        (Kind::Sun, Side::White) => '☀',
        (Kind::Sun, Side::Black) => '☼',
    }
}

/// A piece's background and foreground colours.
fn piece_colors(side: Side) -> (&'static str, &'static str) {
    match side {
        Side::White => ("\x1b[48;5;255m", "\x1b[1;38;5;46m"),
        Side::Black => ("\x1b[48;5;232m", "\x1b[1;38;5;196m"),
    }
}

impl SaltaPosition {
    pub(crate) fn render_board(&self, style: RenderStyle) -> String {
        let mut s = String::new();
        for rank in style.ranks_top_down(10) {
            s.push_str(&format!("{:>3} ", rank + 1));
            for file in style.files_left_to_right(10) {
                self.push_cell(&mut s, square_at(file, rank), style.color);
            }
            s.push('\n');
        }
        s.push_str("    ");
        for file in style.files_left_to_right(10) {
            s.push_str(&format!(" {} ", file_letter(file)));
        }
        s.push('\n');
        self.push_summary(&mut s);
        s
    }

    /// One square, three characters wide: a light square is blank, an
    /// empty dark one a dot (or its colour), a piece its symbol and number,
    /// and `!` if it is the called piece.
    fn push_cell(&self, s: &mut String, square: Option<Square>, color: bool) {
        let Some(square) = square else {
            s.push_str(if color { LIGHT_CELL } else { "   " });
            return;
        };
        let Some(piece) = self.piece_at(square) else {
            s.push_str(if color { EMPTY_DARK_CELL } else { " · " });
            return;
        };
        let called = if self.pending_call() == Some(square) { '!' } else { ' ' };
        let text = format!("{}{}{called}", symbol(piece.kind, piece.side), piece.number);
        if color {
            let (background, foreground) = piece_colors(piece.side);
            s.push_str(&format!("{background}{foreground}{text}{RESET}"));
        } else {
            s.push_str(&text);
        }
    }

    /// The key to the symbols, each side's progress, and whose turn it is.
    fn push_summary(&self, s: &mut String) {
        s.push_str("    ★☆ star  ☾☽ moon  ☀☼ sun  (White ★☾☀, Black ☆☽☼; the digit is the number of symbols)\n");
        for side in Side::BOTH {
            let home = Squares(self.pieces(side))
                .filter(|&sq| self.piece_at(sq).is_some_and(|p| self.target(p) == sq))
                .count();
            s.push_str(&format!("    {side}: distance {}, {home}/15 on target\n", self.distance(side)));
        }
        match self.status() {
            Status::Over(o) => s.push_str(&format!("    Game over: {o}\n")),
            Status::Ongoing => {
                s.push_str(&format!("    {} to move", self.side));
                if let Some(c) = self.pending_call() {
                    s.push_str(&format!(
                        " — Salta! {} must jump over the piece on {}",
                        self.side,
                        super::geometry::square_name(c)
                    ));
                }
                s.push('\n');
            }
        }
    }
}
