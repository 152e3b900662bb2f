//! The board as text for a terminal: every tower's levels, bottom to top.

use super::geometry::square_at;
use super::position::FocusPosition;
use crate::position::{Position, Status};
use crate::side::Side;

impl FocusPosition {
    pub(crate) fn render_board(&self, color: bool) -> String {
        let mut s = String::new();
        for y in (0..8).rev() {
            s.push_str(&format!("{} ", y + 1));
            for x in 0..8 {
                match square_at(x, y) {
                    None => s.push_str("       "),
                    Some(sq) => {
                        let st = self.stack(sq);
                        if color {
                            let bg = if (x + y) % 2 == 0 { "\x1b[48;5;137m" } else { "\x1b[48;5;180m" };
                            s.push_str(bg);
                            s.push(' ');
                            for p in st.pieces() {
                                match p {
                                    Side::White => s.push_str("\x1b[1;38;5;231m●"),
                                    Side::Black => s.push_str("\x1b[1;38;5;232m●"),
                                }
                            }
                            for _ in st.height()..6 {
                                s.push(' ');
                            }
                            s.push_str("\x1b[0m");
                        } else {
                            let text = if st.height() == 0 {
                                "·".to_string()
                            } else {
                                st.pieces().map(|p| if p == Side::White { '○' } else { '●' }).collect()
                            };
                            s.push_str(&format!(" {text:<5} "));
                        }
                    }
                }
            }
            s.push('\n');
        }
        s.push_str("  ");
        for x in 0..8u8 {
            s.push_str(&format!("   {}   ", (b'a' + x) as char));
        }
        s.push('\n');
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
        s
    }
}
