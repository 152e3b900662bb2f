//! The board as text for a terminal, from either side: every tower's
//! levels, bottom to top.

use super::geometry::square_at;
use super::position::FocusPosition;
use crate::position::{Position, RenderStyle, Status, file_letter};
use crate::side::Side;

const RESET: &str = "\x1b[0m";

/// A piece in a tower: a circle, or a coloured disc (the square's colour
/// is the background).
fn symbol(side: Side, color: bool) -> &'static str {
    match (side, color) {
        (Side::White, false) => "○",
        (Side::Black, false) => "●",
        (Side::White, true) => "\x1b[1;38;5;231m●",
        (Side::Black, true) => "\x1b[1;38;5;232m●",
    }
}

/// The background of the square at `file`, `rank`: the board's two colours.
fn square_color(file: i32, rank: i32) -> &'static str {
    if (file + rank) % 2 == 0 { "\x1b[48;5;137m" } else { "\x1b[48;5;180m" }
}

impl FocusPosition {
    pub(crate) fn render_board(&self, style: RenderStyle) -> String {
        let mut s = String::new();
        for rank in style.ranks_top_down(8) {
            s.push_str(&format!("{} ", rank + 1));
            for file in style.files_left_to_right(8) {
                self.push_cell(&mut s, file, rank, style.color);
            }
            s.push('\n');
        }
        s.push_str("  ");
        for file in style.files_left_to_right(8) {
            s.push_str(&format!("   {}   ", file_letter(file)));
        }
        s.push('\n');
        self.push_summary(&mut s);
        s
    }

    /// One square, seven characters wide: its tower bottom to top, a dot
    /// for an empty square (or its colour), blank off the board.
    fn push_cell(&self, s: &mut String, file: i32, rank: i32, color: bool) {
        let Some(square) = square_at(file, rank) else {
            s.push_str("       ");
            return;
        };
        let stack = self.stack(square);
        if color {
            s.push_str(square_color(file, rank));
            s.push(' ');
            for side in stack.pieces() {
                s.push_str(symbol(side, true));
            }
            for _ in stack.height()..6 {
                s.push(' ');
            }
            s.push_str(RESET);
        } else {
            let tower: String = if stack.height() == 0 {
                "·".to_string()
            } else {
                stack.pieces().map(|side| symbol(side, false)).collect()
            };
            s.push_str(&format!(" {tower:<5} "));
        }
    }

    /// The key to the symbols, each side's pieces, and whose turn it is.
    fn push_summary(&self, s: &mut String) {
        s.push_str("  Towers read bottom to top, left to right; ○ White, ● Black; the top piece controls.\n");
        for side in Side::BOTH {
            s.push_str(&format!(
                "  {side}: controls {}, has {} on the board, {} in reserve, {} captured by {}\n",
                match self.controlled(side).count_ones() {
                    1 => "1 stack".to_string(),
                    n => format!("{n} stacks"),
                },
                self.on_board(side),
                self.reserve(side),
                self.captured(side),
                !side
            ));
        }
        match self.status() {
            Status::Over(o) => s.push_str(&format!("  Game over: {o}\n")),
            Status::Ongoing => s.push_str(&format!("  {} to move\n", self.side)),
        }
    }
}
