//! Salta move notation: `c3-d4`, `c3:e5:c7`, `c3:c7`, a trailing `+` for a
//! call, `pass`.

use super::geometry::{Square, distance, parse_square, square_name};
use super::position::{SaltaMove, SaltaPosition};
use super::rules::Chains;
use crate::error::MoveError;
use crate::position::{MoveList, Position};

impl SaltaPosition {
    pub(crate) fn format_move_text(&self, mv: SaltaMove) -> String {
        if mv.is_pass() {
            return "pass".to_string();
        }
        if !super::geometry::is_square(mv.from) || !super::geometry::is_square(mv.to) {
            // Not a move of this board at all (only reachable by building
            // a move by hand); say so rather than name squares.
            return format!("(no such move: from {} to {})", mv.from, mv.to);
        }
        let mut s = square_name(mv.from);
        if distance(mv.from, mv.to) == 1 {
            s.push('-');
            s.push_str(&square_name(mv.to));
        } else {
            let path = self.jump_path(mv.from, mv.to).unwrap_or_else(|| vec![mv.to]);
            for sq in path {
                s.push(':');
                s.push_str(&square_name(sq));
            }
        }
        if mv.call {
            s.push('+');
        }
        s
    }

    pub(crate) fn parse_move_text(&self, text: &str) -> Result<SaltaMove, MoveError> {
        let err = |msg: String| Err(MoveError::new(format!("{text}: {msg}")));
        let t = text.trim();
        if let crate::Status::Over(o) = self.status() {
            return err(format!("the game is over: {o}"));
        }
        let mut legal = MoveList::new();
        self.generate_moves(&mut legal);
        if t == "pass" {
            if legal.len() == 1 && legal[0].is_pass() {
                return Ok(SaltaMove::PASS);
            }
            return err(format!("a pass is legal only when no other move is; {} has {} moves", self.side, legal.len()));
        }
        let (body, call) = match t.strip_suffix('+') {
            Some(b) => (b, true),
            None => (t, false),
        };
        if call && !self.rules.calls {
            return err(format!("rule set {} has no Salta calls (`+`)", self.rules));
        }
        let (squares, is_step) = if body.contains('-') {
            if body.contains(':') {
                return err("mixes `-` (step) and `:` (jump)".to_string());
            }
            (body.split('-').collect::<Vec<_>>(), true)
        } else if body.contains(':') {
            (body.split(':').collect::<Vec<_>>(), false)
        } else {
            return err("expected a step `c3-d4`, a jump `c3:e5`, a sequence `c3:e5:c7` or `pass`".to_string());
        };
        let mut path: Vec<Square> = Vec::with_capacity(squares.len());
        for s in &squares {
            path.push(parse_square(s).map_err(|e| MoveError::new(format!("{text}: {e}")))?);
        }
        if path.len() < 2 {
            return err("needs at least two squares".to_string());
        }
        let from = path[0];
        let to = *path.last().expect("two squares");
        match self.piece_at(from) {
            Some(p) if p.side == self.side => {}
            Some(_) => {
                return err(format!(
                    "{}: that piece is {}'s, and {} is to move",
                    square_name(from),
                    !self.side,
                    self.side
                ));
            }
            None => return err(format!("{}: no {} piece there", square_name(from), self.side)),
        }
        if is_step {
            if path.len() != 2 {
                return err("a step has exactly two squares".to_string());
            }
            if distance(from, to) != 1 {
                return err(format!(
                    "a step goes to a diagonally adjacent square; write jumps with `:` (e.g. {}:{})",
                    square_name(from),
                    square_name(to)
                ));
            }
            if self.piece_at(to).is_some() {
                return err(format!("{} is occupied", square_name(to)));
            }
        } else {
            // Check every hop of a written path. The two-square form means
            // "any legal path": its hop is checked only to explain a move
            // that is not legal.
            let short_and_legal = path.len() == 2 && legal.contains(&SaltaMove { from, to, call });
            if !short_and_legal && (path.len() > 2 || self.hop(from, to, from).is_some()) {
                let mut landed: Vec<Square> = vec![from];
                for pair in path.windows(2) {
                    let (a, b) = (pair[0], pair[1]);
                    let Some(over) = self.hop(a, b, from) else {
                        return err(format!(
                            "{} to {} is not a jump over an opponent piece onto an empty square{}",
                            square_name(a),
                            square_name(b),
                            if self.rules.forward_jumps_only { " going forward" } else { "" }
                        ));
                    };
                    if landed.contains(&b) {
                        return err(format!("lands on {} twice (or on its start square)", square_name(b)));
                    }
                    if landed.len() == 1
                        && let Some(c) = self.pending_call()
                        && over != c
                    {
                        return err(format!(
                            "a Salta call is pending on {}: the first jump must go over it",
                            square_name(c)
                        ));
                    }
                    landed.push(b);
                }
                if self.rules.chains == Chains::Single && path.len() > 2 {
                    return err(format!("rule set {} allows one jump per move", self.rules));
                }
                if self.rules.chains == Chains::Forced {
                    let landed_bits = landed.iter().fold(0u64, |b, &s| b | (1 << s));
                    if self.can_jump_on(to, landed_bits) {
                        return err(format!(
                            "the sequence must go on: in rule set {} a piece that can jump again must",
                            self.rules
                        ));
                    }
                }
            }
        }
        if let Some(c) = self.pending_call()
            && is_step
        {
            return err(format!("a Salta call is pending on {}: the reply must be a jump over it", square_name(c)));
        }
        let mv = SaltaMove { from, to, call };
        if legal.contains(&mv) {
            return Ok(mv);
        }
        // Explain why it is not legal.
        let plain = SaltaMove { call: false, ..mv };
        if call && legal.contains(&plain) {
            return err(format!(
                "cannot carry a call: no opponent piece could jump {} after it{}",
                square_name(to),
                if self.is_winning(plain) { " (or it wins the game, and a winning move carries no call)" } else { "" }
            ));
        }
        if let Some(c) = self.pending_call() {
            return err(format!(
                "a Salta call is pending on {}: the reply must start with a jump over it",
                square_name(c)
            ));
        }
        if self.rules.compulsory_jumps && legal.iter().any(|m| m.is_jump()) && !mv.is_jump() {
            return err("a jump is available, and jumping is compulsory".to_string());
        }
        if self.rules.blockade_ban {
            let mut unbanned = self.clone();
            unbanned.rules.blockade_ban = false;
            if unbanned.move_sets_contain(mv) {
                return err(format!("it would leave {} without a move (blockade), and other moves do not", !self.side));
            }
        }
        if !is_step && self.rules.forward_jumps_only {
            let (_, fy) = super::geometry::coords(from);
            let (_, ty) = super::geometry::coords(to);
            let forward = match self.side {
                crate::Side::White => ty > fy,
                crate::Side::Black => ty < fy,
            };
            if !forward {
                return err(format!("in rule set {} jumps go forward only", self.rules));
            }
        }
        err(format!("the piece on {} cannot reach {}", square_name(from), square_name(to)))
    }

    fn is_winning(&self, mv: SaltaMove) -> bool {
        let mut after = self.clone();
        after.play_unchecked(mv);
        after.game_over_by_goal()
    }
}
