//! The board as text for a terminal.

use super::geometry::{Squares, square_at};
use super::position::{Kind, SaltaPosition};
use crate::position::{Position, Status};
use crate::side::Side;

const RESET: &str = "\x1b[0m";

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

impl SaltaPosition {
    pub(crate) fn render_board(&self, color: bool) -> String {
        let mut s = String::new();
        let call = self.pending_call();
        for y in (0..10).rev() {
            s.push_str(&format!("{:>3} ", y + 1));
            for x in 0..10 {
                let cell = match square_at(x, y) {
                    None => {
                        if color {
                            "\x1b[48;5;230m   \x1b[0m".to_string()
                        } else {
                            "   ".to_string()
                        }
                    }
                    Some(sq) => {
                        let text = match self.piece_at(sq) {
                            None => {
                                if color {
                                    "   ".to_string()
                                } else {
                                    " · ".to_string()
                                }
                            }
                            Some(p) => format!(
                                "{}{}{}",
                                symbol(p.kind, p.side),
                                p.number,
                                if call == Some(sq) { '!' } else { ' ' }
                            ),
                        };
                        if color {
                            let bg = "\x1b[48;5;94m";
                            let fg = match self.piece_at(sq).map(|p| p.side) {
                                Some(Side::White) => "\x1b[1;38;5;46m",
                                Some(Side::Black) => "\x1b[1;38;5;196m",
                                None => "",
                            };

                            match self.piece_at(sq) {
                                Some(p) => format!(
                                    "{}{}{}{}",
                                    if p.side == Side::White { "\x1b[48;5;255m" } else { "\x1b[48;5;232m" },
                                    fg,
                                    text,
                                    RESET
                                ),
                                None => format!("{bg}{text}{RESET}"),
                            }
                        } else {
                            text
                        }
                    }
                };
                s.push_str(&cell);
            }
            s.push('\n');
        }
        s.push_str("    ");
        for x in 0..10u8 {
            s.push_str(&format!(" {} ", (b'a' + x) as char));
        }
        s.push('\n');
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
                if let Some(c) = call {
                    s.push_str(&format!(
                        " — Salta! {} must jump over the piece on {}",
                        self.side,
                        super::geometry::square_name(c)
                    ));
                }
                s.push('\n');
            }
        }
        s
    }
}
