//! Reference Focus, rule set `seed` (rulings.md, "Game 2: Focus").
//!
//! Board: `board[x][y]` for file x 0..7 and rank y 0..7, each a stack listed
//! bottom to top; the three squares at each corner do not exist.

use std::collections::BTreeSet;

use monte_rules::focus::{FocusMove, FocusPosition, MoveKind, geometry};
use monte_rules::{EndReason, Outcome, Position, RuleSet, Side, Status};

use super::{Sq, offset, square_name};

/// The four orthogonal directions.
pub const DIRS: [Sq; 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];

/// The highest stack.
pub const MAX: usize = 5;

/// Pieces per side.
pub const PIECES: u32 = 18;

/// Whether (x, y) is one of the 52 squares: the 8x8 board without a1 b1 a2,
/// g1 h1 h2, a7 a8 b8, h7 g8 h8.
pub fn on_board((x, y): Sq) -> bool {
    (0..8).contains(&x) && (0..8).contains(&y) && x.min(7 - x) + y.min(7 - y) >= 2
}

/// All 52 squares, rank by rank.
pub fn all_squares() -> impl Iterator<Item = Sq> {
    (0..8).flat_map(|y| (0..8).map(move |x| (x, y))).filter(|&s| on_board(s))
}

/// A move identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RMove {
    Group(Sq, Sq),
    Jump(Sq, Sq),
    Drop(Sq),
    Pass,
}

impl RMove {
    /// The notation, written from the rulings' notation section.
    pub fn text(self) -> String {
        match self {
            RMove::Group(a, b) => format!("{}-{}", square_name(a), square_name(b)),
            RMove::Jump(a, b) => format!("{}x{}", square_name(a), square_name(b)),
            RMove::Drop(b) => format!("@{}", square_name(b)),
            RMove::Pass => "pass".to_string(),
        }
    }
}

/// The identity of a crate move.
pub fn ident(m: FocusMove) -> RMove {
    let c = geometry::coords;
    match m.kind {
        MoveKind::Group => RMove::Group(c(m.from), c(m.to)),
        MoveKind::Jump => RMove::Jump(c(m.from), c(m.to)),
        MoveKind::Drop => RMove::Drop(c(m.to)),
        MoveKind::Pass => RMove::Pass,
    }
}

/// The crate move of an identity (squares must be on the board).
pub fn to_crate(m: RMove) -> FocusMove {
    match m {
        RMove::Group(a, b) => FocusMove::group(crate_square(a), crate_square(b)),
        RMove::Jump(a, b) => FocusMove::jump(crate_square(a), crate_square(b)),
        RMove::Drop(b) => FocusMove::drop(crate_square(b)),
        RMove::Pass => FocusMove::PASS,
    }
}

pub fn crate_square(s: Sq) -> geometry::Square {
    geometry::square_at(s.0, s.1).expect("on board")
}

/// A reference position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ref {
    pub board: [[Vec<Side>; 8]; 8],
    pub side: Side,
    pub reserve: [u32; 2],
    pub captured: [u32; 2],
    pub ply: u32,
    pub move_limit: Option<u32>,
}

fn idx(s: Side) -> usize {
    if s == Side::White { 0 } else { 1 }
}

pub fn opp(s: Side) -> Side {
    if s == Side::White { Side::Black } else { Side::White }
}

impl Ref {
    pub fn empty(move_limit: Option<u32>) -> Ref {
        Ref {
            board: std::array::from_fn(|_| std::array::from_fn(|_| Vec::new())),
            side: Side::White,
            reserve: [0; 2],
            captured: [0; 2],
            ply: 0,
            move_limit,
        }
    }

    /// The start position: the central 6x6 full of horizontal pairs, rank 2
    /// `W W B B W W`, rank 3 `B B W W B B`, alternating up to rank 7.
    pub fn start(move_limit: Option<u32>) -> Ref {
        let mut r = Ref::empty(move_limit);
        for y in 1..=6 {
            for x in 1..=6 {
                let pair = (x - 1) / 2;
                let side = if (pair + (y - 1)) % 2 == 0 { Side::White } else { Side::Black };
                r.stack_mut((x, y)).push(side);
            }
        }
        r
    }

    /// Convert a crate position through its public accessors.
    pub fn from_crate(p: &FocusPosition) -> Ref {
        let mut r = Ref::empty(p.rules().move_limit());
        for s in all_squares() {
            *r.stack_mut(s) = p.stack(crate_square(s)).pieces().collect();
        }
        r.side = p.side_to_move();
        for side in [Side::White, Side::Black] {
            r.reserve[idx(side)] = p.reserve(side);
            r.captured[idx(side)] = p.captured(side);
        }
        r.ply = p.ply();
        r
    }

    pub fn stack(&self, s: Sq) -> &Vec<Side> {
        assert!(on_board(s), "{s:?} is not a square");
        &self.board[s.0 as usize][s.1 as usize]
    }

    pub fn stack_mut(&mut self, s: Sq) -> &mut Vec<Side> {
        assert!(on_board(s), "{s:?} is not a square");
        &mut self.board[s.0 as usize][s.1 as usize]
    }

    pub fn top(&self, s: Sq) -> Option<Side> {
        self.stack(s).last().copied()
    }

    pub fn reserve_of(&self, side: Side) -> u32 {
        self.reserve[idx(side)]
    }

    /// `side`'s pieces on the board, free or prisoner.
    pub fn on_board_count(&self, side: Side) -> u32 {
        all_squares().map(|s| self.stack(s).iter().filter(|&&p| p == side).count() as u32).sum()
    }

    pub fn controls_any(&self, side: Side) -> bool {
        all_squares().any(|s| self.top(s) == Some(side))
    }

    /// The position string, written from the rulings' notation section.
    pub fn fen(&self) -> String {
        let mut ranks = Vec::new();
        for y in (0..8).rev() {
            let cells: Vec<String> = (0..8)
                .filter(|&x| on_board((x, y)))
                .map(|x| {
                    let st = self.stack((x, y));
                    if st.is_empty() {
                        ".".to_string()
                    } else {
                        st.iter().map(|&p| if p == Side::White { 'w' } else { 'b' }).collect()
                    }
                })
                .collect();
            ranks.push(cells.join(","));
        }
        let side = if self.side == Side::White { "w" } else { "b" };
        format!("{} {side} {} {} {}", ranks.join("/"), self.reserve[0], self.reserve[1], self.ply)
    }

    /// The status by the position alone: the side to move that controls no
    /// stack and has no reserve loses; then the move limit (a draw).
    pub fn status(&self) -> Status {
        if !self.controls_any(self.side) && self.reserve_of(self.side) == 0 {
            return Status::Over(Outcome { winner: Some(opp(self.side)), reason: EndReason::NoPieces, margin: None });
        }
        if let Some(n) = self.move_limit
            && self.ply >= 2 * n
        {
            return Status::Over(Outcome { winner: None, reason: EndReason::MoveLimit, margin: None });
        }
        Status::Ongoing
    }

    /// The squares a group move passes over (not its target).
    pub fn passed(from: Sq, to: Sq) -> Vec<Sq> {
        let k = (to.0 - from.0).abs() + (to.1 - from.1).abs();
        let d = ((to.0 - from.0).signum(), (to.1 - from.1).signum());
        (1..k).map(|i| offset(from, d, i)).collect()
    }

    /// The set of legal moves; empty when the side to move has lost.
    pub fn moves(&self) -> BTreeSet<RMove> {
        let mut out = BTreeSet::new();
        let me = self.side;
        if !self.controls_any(me) && self.reserve_of(me) == 0 {
            return out;
        }
        for s in all_squares() {
            if self.top(s) != Some(me) {
                continue;
            }
            let h = self.stack(s).len() as i32;
            for d in DIRS {
                // Group moves: k pieces, exactly k squares, all on the board,
                // the target empty.
                for k in 1..=h {
                    if (1..=k).all(|i| on_board(offset(s, d, i))) && self.stack(offset(s, d, k)).is_empty() {
                        out.insert(RMove::Group(s, offset(s, d, k)));
                    }
                }
                // Jump: over a lone opponent piece onto an empty square.
                let over = offset(s, d, 1);
                let land = offset(s, d, 2);
                if on_board(over) && on_board(land) && *self.stack(over) == vec![opp(me)] && self.stack(land).is_empty()
                {
                    out.insert(RMove::Jump(s, land));
                }
            }
        }
        if self.reserve_of(me) > 0 {
            for s in all_squares() {
                out.insert(RMove::Drop(s));
            }
        }
        if out.is_empty() {
            out.insert(RMove::Pass);
        }
        out
    }

    /// Remove pieces from the bottom of the stack on `s` until 5 remain:
    /// the mover's go to his reserve, the opponent's are captured.
    fn overflow(&mut self, s: Sq, mover: Side) {
        while self.stack(s).len() > MAX {
            let bottom = self.stack_mut(s).remove(0);
            if bottom == mover {
                self.reserve[idx(mover)] += 1;
            } else {
                self.captured[idx(bottom)] += 1;
            }
        }
    }

    /// The position after a legal move.
    pub fn apply(&self, m: RMove) -> Ref {
        let mut r = self.clone();
        let me = self.side;
        match m {
            RMove::Group(from, to) => {
                let k = (to.0 - from.0).abs() + (to.1 - from.1).abs();
                let src = r.stack_mut(from);
                let group = src.split_off(src.len() - k as usize);
                // The last square passed ends at the very bottom, the first
                // one directly under the group.
                let mut tower = Vec::new();
                for s in Ref::passed(from, to).into_iter().rev() {
                    tower.append(r.stack_mut(s));
                }
                tower.extend(group);
                *r.stack_mut(to) = tower;
                r.overflow(to, me);
            }
            RMove::Jump(from, to) => {
                let jumper = r.stack_mut(from).pop().expect("a piece");
                let over = ((from.0 + to.0) / 2, (from.1 + to.1) / 2);
                let victim = std::mem::take(r.stack_mut(over));
                let mut tower = victim;
                tower.push(jumper);
                *r.stack_mut(to) = tower;
                r.overflow(to, me);
            }
            RMove::Drop(to) => {
                r.reserve[idx(me)] -= 1;
                r.stack_mut(to).push(me);
                r.overflow(to, me);
            }
            RMove::Pass => {}
        }
        r.side = opp(me);
        r.ply += 1;
        r
    }
}
