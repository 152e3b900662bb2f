//! Focus move notation: `c3-c5` group move, `c3xc5` jump, `@c3` drop, `pass`.

use super::geometry::{Square, coords, parse_square, square_name};
use super::position::{FocusMove, FocusPosition, MoveKind};
use super::rules::GroupMoves;
use crate::error::MoveError;
use crate::position::{MoveList, Position, Status};

impl FocusPosition {
    pub(crate) fn parse_move_text(&self, text: &str) -> Result<FocusMove, MoveError> {
        let t = text.trim();
        let err = |msg: String| Err(MoveError::new(format!("{t}: {msg}")));
        if let Status::Over(o) = self.status() {
            return err(format!("the game is over: {o}"));
        }
        let sq = |s: &str| parse_square(s).map_err(|e| MoveError::new(format!("{t}: {e}")));
        let side = self.side;
        if t == "pass" {
            let mut legal = MoveList::new();
            self.generate_moves(&mut legal);
            if legal.len() == 1 && legal[0] == FocusMove::PASS {
                return Ok(FocusMove::PASS);
            }
            return err(format!("a pass is legal only when no other move is; {side} has {} moves", legal.len()));
        }
        if let Some(rest) = t.strip_prefix('@') {
            let to = sq(rest)?;
            if self.reserve(side) == 0 {
                return err(format!("{side} has no pieces in reserve"));
            }
            return Ok(FocusMove::drop(to));
        }
        let (a, b, kind) = if let Some((a, b)) = t.split_once('-') {
            (a, b, MoveKind::Group)
        } else if let Some((a, b)) = t.split_once('x') {
            (a, b, MoveKind::Jump)
        } else {
            return err("expected a group move `c3-c5`, a jump `c3xc5`, a drop `@c3` or `pass`".to_string());
        };
        let from: Square = sq(a)?;
        let to: Square = sq(b)?;
        let stack = self.stack(from);
        match stack.top() {
            None => return err(format!("{}: no stack there", square_name(from))),
            Some(owner) if owner != side => {
                return err(format!(
                    "{}: that stack is controlled by {owner}, and {side} is to move",
                    square_name(from)
                ));
            }
            _ => {}
        }
        let (fx, fy) = coords(from);
        let (tx, ty) = coords(to);
        if fx != tx && fy != ty {
            return err("moves go along a rank or a file".to_string());
        }
        let dist = ((fx - tx).abs() + (fy - ty).abs()) as u32;
        if dist == 0 {
            return err("a move must leave its square".to_string());
        }
        let occupied = self.stack(to).height() > 0;
        match kind {
            MoveKind::Group => {
                if dist > stack.height() {
                    return err(format!(
                        "the stack on {} is {} high; moving {dist} squares takes {dist} pieces",
                        square_name(from),
                        stack.height()
                    ));
                }
                if occupied && self.rules.group_moves == GroupMoves::Sweep {
                    return err(format!("{} is occupied; a group lands on an empty square", square_name(to)));
                }
            }
            MoveKind::Jump => {
                if !self.rules.jumps {
                    return err(format!("rule set {} has no jumps", self.rules));
                }
                if dist != 2 {
                    return err("a jump goes over one square onto the next".to_string());
                }
                let over = super::geometry::square_at((fx + tx) / 2, (fy + ty) / 2).expect("between two squares");
                let os = self.stack(over);
                if os.height() != 1 || os.top() != Some(!side) {
                    return err(format!(
                        "a jump goes over a lone {} piece, and {} holds {}",
                        !side,
                        square_name(over),
                        if os.height() == 0 { "nothing".to_string() } else { format!("`{}`", os.letters()) }
                    ));
                }
                if occupied {
                    return err(format!("{} is occupied; a jump lands on an empty square", square_name(to)));
                }
            }
            _ => {}
        }
        let mv = FocusMove { kind, from, to };
        if self.is_legal(mv) { Ok(mv) } else { err("not a legal move in this position".to_string()) }
    }
}
