//! Reference Salta, rule set `seed` (rulings.md, "Game 1: Salta").
//!
//! Board: `board[x][y]` for file x 0..9 and rank y 0..9; only the squares with
//! x + y even exist. Moves are identified by (start, end, call flag).

use std::collections::BTreeSet;

use monte_rules::salta::{Kind, SaltaMove, SaltaPosition, geometry};
use monte_rules::{EndReason, Outcome, Position, RuleSet, Side, Status};

use super::{Sq, offset, square_name};

/// The four diagonal directions.
pub const DIRS: [Sq; 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

/// Whether (x, y) is one of the 50 dark squares.
pub fn on_board((x, y): Sq) -> bool {
    (0..10).contains(&x) && (0..10).contains(&y) && (x + y) % 2 == 0
}

/// All 50 squares, rank by rank.
pub fn all_squares() -> impl Iterator<Item = Sq> {
    (0..10).flat_map(|y| (0..10).map(move |x| (x, y))).filter(|&s| on_board(s))
}

/// One of the 30 pieces: kind 0 = star, 1 = moon, 2 = sun; number 1..=5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pc {
    pub side: Side,
    pub kind: u8,
    pub number: u8,
}

impl Pc {
    /// All 30 pieces.
    pub fn all() -> Vec<Pc> {
        let mut v = Vec::new();
        for side in [Side::White, Side::Black] {
            for kind in 0..3 {
                for number in 1..=5 {
                    v.push(Pc { side, kind, number });
                }
            }
        }
        v
    }

    /// Setup: White stars on rank 1 (a1, c1, ..., i1), moons on rank 2 (b2, ...,
    /// j2), suns on rank 3 (a3, ..., i3), numbered 1..5 from the a-file; Black
    /// is the point reflection.
    pub fn start(self) -> Sq {
        let y = self.kind as i32;
        let x = 2 * (self.number as i32 - 1) + if self.kind == 1 { 1 } else { 0 };
        match self.side {
            Side::White => (x, y),
            Side::Black => (9 - x, 9 - y),
        }
    }

    /// The point reflection of the piece's own start square.
    pub fn target(self) -> Sq {
        let (x, y) = self.start();
        (9 - x, 9 - y)
    }

    pub fn token(self) -> String {
        let l = ['S', 'M', 'O'][self.kind as usize];
        let l = if self.side == Side::White { l } else { l.to_ascii_lowercase() };
        format!("{l}{}", self.number)
    }
}

/// A move identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RMove {
    Pass,
    Go { from: Sq, to: Sq, call: bool },
}

/// The identity of a crate move.
pub fn ident(m: SaltaMove) -> RMove {
    if m == SaltaMove::PASS {
        RMove::Pass
    } else {
        RMove::Go { from: geometry::coords(m.from), to: geometry::coords(m.to), call: m.call }
    }
}

/// The crate move of an identity (squares must be on the board).
pub fn to_crate(m: RMove) -> SaltaMove {
    match m {
        RMove::Pass => SaltaMove::PASS,
        RMove::Go { from, to, call } => SaltaMove {
            from: geometry::square_at(from.0, from.1).expect("on board"),
            to: geometry::square_at(to.0, to.1).expect("on board"),
            call,
        },
    }
}

/// The crate square of a reference square.
pub fn crate_square(s: Sq) -> geometry::Square {
    geometry::square_at(s.0, s.1).expect("on board")
}

/// A reference position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ref {
    pub board: [[Option<Pc>; 10]; 10],
    pub side: Side,
    pub call: Option<Sq>,
    pub ply: u32,
    pub move_limit: Option<u32>,
}

impl Ref {
    pub fn empty(move_limit: Option<u32>) -> Ref {
        Ref { board: [[None; 10]; 10], side: Side::White, call: None, ply: 0, move_limit }
    }

    /// The start position, built from the rulings' setup.
    pub fn start(move_limit: Option<u32>) -> Ref {
        let mut r = Ref::empty(move_limit);
        for p in Pc::all() {
            r.set(p.start(), Some(p));
        }
        r
    }

    /// Convert a crate position through its public accessors.
    pub fn from_crate(p: &SaltaPosition) -> Ref {
        let mut r = Ref::empty(p.rules().move_limit());
        for s in all_squares() {
            let pc = p.piece_at(crate_square(s)).map(|pc| Pc {
                side: pc.side,
                kind: match pc.kind {
                    Kind::Star => 0,
                    Kind::Moon => 1,
                    Kind::Sun => 2,
                },
                number: pc.number,
            });
            r.set(s, pc);
        }
        r.side = p.side_to_move();
        r.call = p.pending_call().map(geometry::coords);
        r.ply = p.ply();
        r
    }

    pub fn at(&self, s: Sq) -> Option<Pc> {
        if on_board(s) { self.board[s.0 as usize][s.1 as usize] } else { None }
    }

    pub fn set(&mut self, s: Sq, p: Option<Pc>) {
        assert!(on_board(s), "{s:?} is not a square");
        self.board[s.0 as usize][s.1 as usize] = p;
    }

    fn is_empty_square(&self, s: Sq) -> bool {
        on_board(s) && self.at(s).is_none()
    }

    /// All (square, piece) pairs.
    pub fn pieces(&self) -> impl Iterator<Item = (Sq, Pc)> + '_ {
        all_squares().filter_map(|s| self.at(s).map(|p| (s, p)))
    }

    /// The position string, written from the rulings' notation section.
    pub fn fen(&self) -> String {
        let mut ranks = Vec::new();
        for y in (0..10).rev() {
            let cells: Vec<String> = (0..10)
                .filter(|&x| on_board((x, y)))
                .map(|x| self.at((x, y)).map_or(".".to_string(), |p| p.token()))
                .collect();
            ranks.push(cells.join(","));
        }
        let call = self.call.map_or("-".to_string(), square_name);
        let side = if self.side == Side::White { "w" } else { "b" };
        format!("{} {side} {call} {}", ranks.join("/"), self.ply)
    }

    pub fn completed(&self, side: Side) -> bool {
        self.pieces().filter(|(s, p)| p.side == side && *s == p.target()).count() == 15
    }

    /// Sum of max(|dx|, |dy|) to the targets.
    pub fn distance(&self, side: Side) -> u32 {
        self.pieces()
            .filter(|(_, p)| p.side == side)
            .map(|(s, p)| {
                let t = p.target();
                (s.0 - t.0).abs().max((s.1 - t.1).abs()) as u32
            })
            .sum()
    }

    /// The status by the position alone: goal, then the move limit.
    pub fn status(&self) -> Status {
        let mover = opp(self.side);
        if self.completed(mover) {
            return Status::Over(Outcome {
                winner: Some(mover),
                reason: EndReason::Goal,
                margin: Some(self.distance(self.side)),
            });
        }
        if let Some(n) = self.move_limit
            && self.ply >= 2 * n
        {
            let dw = self.distance(Side::White);
            let db = self.distance(Side::Black);
            let (winner, margin) = match dw.cmp(&db) {
                std::cmp::Ordering::Less => (Some(Side::White), Some(db - dw)),
                std::cmp::Ordering::Greater => (Some(Side::Black), Some(dw - db)),
                std::cmp::Ordering::Equal => (None, None),
            };
            return Status::Over(Outcome { winner, reason: EndReason::MoveLimit, margin });
        }
        Status::Ongoing
    }

    /// All end squares of jump sequences of the piece on `from`, by
    /// depth-first search over all paths. With `first_over`, the first jump
    /// must go over that square.
    pub fn jump_ends(&self, from: Sq, first_over: Option<Sq>) -> BTreeSet<Sq> {
        self.jump_ends_ext(from, first_over, true)
    }

    /// [`Ref::jump_ends`], optionally without the rule that a sequence may not
    /// land on its own start square (to see where that rule matters).
    pub fn jump_ends_ext(&self, from: Sq, first_over: Option<Sq>, forbid_start: bool) -> BTreeSet<Sq> {
        let me = self.at(from).expect("a piece").side;
        let mut board = self.clone();
        board.set(from, None);
        let mut ends = BTreeSet::new();
        let mut landed = Vec::new();
        let start = if forbid_start { Some(from) } else { None };
        board.dfs(me, start, from, first_over, &mut landed, &mut ends);
        ends
    }

    fn dfs(
        &self,
        me: Side,
        start: Option<Sq>,
        cur: Sq,
        first_over: Option<Sq>,
        landed: &mut Vec<Sq>,
        ends: &mut BTreeSet<Sq>,
    ) {
        for d in DIRS {
            let over = offset(cur, d, 1);
            let land = offset(cur, d, 2);
            if landed.is_empty()
                && let Some(f) = first_over
                && over != f
            {
                continue;
            }
            let Some(jumped) = self.at(over) else { continue };
            if jumped.side == me || !self.is_empty_square(land) || Some(land) == start || landed.contains(&land) {
                continue;
            }
            ends.insert(land);
            landed.push(land);
            self.dfs(me, start, land, None, landed, ends);
            landed.pop();
        }
    }

    /// Whether a jump path (start square then every landing square) is legal
    /// here, including the pending call's constraint on the first jump.
    pub fn valid_jump_path(&self, path: &[Sq]) -> bool {
        if path.len() < 2 {
            return false;
        }
        let start = path[0];
        let Some(piece) = self.at(start) else { return false };
        if piece.side != self.side {
            return false;
        }
        let mut board = self.clone();
        board.set(start, None);
        for (i, w) in path.windows(2).enumerate() {
            let (a, b) = (w[0], w[1]);
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            if dx.abs() != 2 || dy.abs() != 2 {
                return false;
            }
            let over = (a.0 + dx / 2, a.1 + dy / 2);
            if i == 0
                && let Some(c) = self.call
                && over != c
            {
                return false;
            }
            match board.at(over) {
                Some(p) if p.side != piece.side => {}
                _ => return false,
            }
            if !board.is_empty_square(b) || b == start || path[1..=i].contains(&b) {
                return false;
            }
        }
        true
    }

    /// After the mover's piece arrived on `at`: the squares where an
    /// opponent piece would land jumping it, i.e. for every opponent piece
    /// diagonally next to `at`, the square beyond `at` on that diagonal when
    /// it is on the board and empty.
    pub fn jump_landings(&self, at: Sq, mover: Side) -> Vec<Sq> {
        DIRS.iter()
            .filter(|&&d| matches!(self.at(offset(at, d, 1)), Some(p) if p.side != mover))
            .map(|&d| offset(at, d, -1))
            .filter(|&far| self.is_empty_square(far))
            .collect()
    }

    /// Whether the opponent could jump the mover's piece on `at`.
    pub fn jumpable(&self, at: Sq, mover: Side) -> bool {
        !self.jump_landings(at, mover).is_empty()
    }

    /// The set of legal moves; empty when the game is over by its goal.
    pub fn moves(&self) -> BTreeSet<RMove> {
        let mut out = BTreeSet::new();
        if self.completed(opp(self.side)) {
            return out;
        }
        let mut pairs = Vec::new();
        for (s, p) in self.pieces() {
            if p.side != self.side {
                continue;
            }
            if self.call.is_none() {
                for d in DIRS {
                    let t = offset(s, d, 1);
                    if self.is_empty_square(t) {
                        pairs.push((s, t));
                    }
                }
            }
            for e in self.jump_ends(s, self.call) {
                pairs.push((s, e));
            }
        }
        for (from, to) in pairs {
            let plain = RMove::Go { from, to, call: false };
            out.insert(plain);
            let after = self.apply(plain);
            if !after.completed(self.side) && after.jumpable(to, self.side) {
                out.insert(RMove::Go { from, to, call: true });
            }
        }
        if out.is_empty() {
            out.insert(RMove::Pass);
        }
        out
    }

    /// The position after a legal move.
    pub fn apply(&self, m: RMove) -> Ref {
        let mut r = self.clone();
        r.call = None;
        if let RMove::Go { from, to, call } = m {
            let p = r.at(from);
            r.set(from, None);
            r.set(to, p);
            if call {
                r.call = Some(to);
            }
        }
        r.side = opp(self.side);
        r.ply += 1;
        r
    }
}

pub fn opp(s: Side) -> Side {
    if s == Side::White { Side::Black } else { Side::White }
}
