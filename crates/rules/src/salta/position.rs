use std::fmt;

use super::geometry::{self, BOARD, SQUARE_SLOTS, Square, Squares, parse_square, reflect, square_at, square_name};
use super::rules::{Goal, LimitResult, SaltaRules};
use crate::GameKind;
use crate::board::{BoardLayout, MoveInfo};
use crate::error::{MoveError, PositionError};
use crate::position::{EndReason, MoveList, Outcome, Position, RenderStyle, Status};
use crate::side::Side;
use crate::zobrist;

/// Star, moon or sun.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Star = 0,
    Moon = 1,
    Sun = 2,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Star, Kind::Moon, Kind::Sun];
    /// Notation letter (upper case).
    pub const fn letter(self) -> char {
        match self {
            Kind::Star => 'S',
            Kind::Moon => 'M',
            Kind::Sun => 'O',
        }
    }
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Star => "star",
            Kind::Moon => "moon",
            Kind::Sun => "sun",
        }
    }
}

/// One of the 30 distinct pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub side: Side,
    pub kind: Kind,
    /// 1..=5, the number of symbols.
    pub number: u8,
}

/// Cell code of an empty square.
pub(crate) const EMPTY: u8 = 0;
/// Cell codes are `1 + side * 15 + kind * 5 + number - 1`.
pub(crate) const CODES: usize = 31;

impl Piece {
    #[inline]
    pub(crate) const fn code(self) -> u8 {
        1 + self.side as u8 * 15 + self.kind as u8 * 5 + self.number - 1
    }

    #[inline]
    pub(crate) const fn from_code(code: u8) -> Piece {
        let c = code - 1;
        let side = if c >= 15 { Side::Black } else { Side::White };
        let id = c % 15;
        let kind = match id / 5 {
            0 => Kind::Star,
            1 => Kind::Moon,
            _ => Kind::Sun,
        };
        Piece { side, kind, number: id % 5 + 1 }
    }

    /// The notation token: `S1`, `m5`, `o3`.
    pub fn token(self) -> String {
        let l = self.kind.letter();
        let l = if self.side == Side::White { l } else { l.to_ascii_lowercase() };
        format!("{l}{}", self.number)
    }

    pub fn parse_token(s: &str) -> Option<Piece> {
        let mut chars = s.chars();
        let l = chars.next()?;
        let n = chars.next()?;
        if chars.next().is_some() {
            return None;
        }
        let side = if l.is_ascii_uppercase() { Side::White } else { Side::Black };
        let kind = match l.to_ascii_uppercase() {
            'S' => Kind::Star,
            'M' => Kind::Moon,
            'O' => Kind::Sun,
            _ => return None,
        };
        let number = n.to_digit(10)? as u8;
        (1..=5).contains(&number).then_some(Piece { side, kind, number })
    }

    /// The piece's square in the start position.
    pub const fn start_square(self) -> Square {
        let y = self.kind as i32;
        let x = 2 * (self.number as i32 - 1) + (y % 2);
        let sq = match square_at(x, y) {
            Some(s) => s,
            None => 0,
        };
        match self.side {
            Side::White => sq,
            Side::Black => reflect(sq),
        }
    }

    /// The square this piece must reach under `goal`.
    pub const fn target(self, goal: Goal) -> Square {
        match goal {
            Goal::SymbolMatched => reflect(self.start_square()),
            Goal::SevenRanks => {
                // Star k -> rank 8, moon k -> rank 9, sun k -> rank 10, k-th
                // dark square from the a-file (White; Black by reflection).
                let y = 7 + self.kind as i32;
                let x = 2 * (self.number as i32 - 1) + (y % 2);
                let sq = match square_at(x, y) {
                    Some(s) => s,
                    None => 0,
                };
                match self.side {
                    Side::White => sq,
                    Side::Black => reflect(sq),
                }
            }
        }
    }
}

const TARGETS: [[u8; CODES]; 2] = {
    let mut t = [[0xFF; CODES]; 2];
    let mut code = 1;
    while code < CODES {
        let p = Piece::from_code(code as u8);
        t[0][code] = p.target(Goal::SymbolMatched);
        t[1][code] = p.target(Goal::SevenRanks);
        code += 1;
    }
    t
};

const TARGET_SETS: [[u64; 2]; 2] = {
    let mut t = [[0u64; 2]; 2];
    let mut code = 1;
    while code < CODES {
        let side = if code > 15 { 1 } else { 0 };
        t[0][side] |= 1u64 << TARGETS[0][code];
        t[1][side] |= 1u64 << TARGETS[1][code];
        code += 1;
    }
    t
};

/// `APPROACH[goal][code][sq]`: for the piece `code` standing on `sq`, the
/// neighbouring squares nearer to its target ([`geometry::CLOSER`]), with
/// the distance to the target above them (from bit [`APPROACH_SHIFT`]):
/// one read gives the evaluation both.
static APPROACH: [[[u64; 64]; 32]; 2] = {
    let mut t = [[[0u64; 64]; 32]; 2];
    let mut goal = 0;
    while goal < 2 {
        let mut code = 1;
        while code < CODES {
            let target = TARGETS[goal][code] as usize;
            let mut sq = 0;
            while sq < SQUARE_SLOTS {
                let d = geometry::DISTANCE[sq][target] as u64;
                t[goal][code][sq] = geometry::CLOSER[sq][target] | d << APPROACH_SHIFT;
                sq += 1;
            }
            code += 1;
        }
        goal += 1;
    }
    t
};

/// Where [`APPROACH`] keeps the distance: above every square's bit.
const APPROACH_SHIFT: u32 = 56;

#[inline(always)]
pub(crate) const fn target_of(goal: Goal, code: u8) -> Square {
    TARGETS[goal as usize][code as usize]
}

static PIECE_KEYS: [u64; CODES * SQUARE_SLOTS] = zobrist::keys(0x0005_A17A_0001);
const CALL_KEYS: [u64; SQUARE_SLOTS] = zobrist::keys(0x0005_A17A_0002);
const SIDE_KEY: u64 = zobrist::keys::<1>(0x0005_A17A_0003)[0];

#[inline(always)]
fn piece_key(code: u8, sq: Square) -> u64 {
    PIECE_KEYS[code as usize * SQUARE_SLOTS + sq as usize]
}

/// Marks "no call pending" and the pass move's squares.
pub(crate) const NONE: u8 = 0xFF;

/// A Salta move: identified by start square, end square and the call flag
/// (rulings.md: different jump paths between the same squares are one move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SaltaMove {
    pub from: Square,
    pub to: Square,
    /// The move carries a Salta call.
    pub call: bool,
}

impl SaltaMove {
    pub const PASS: SaltaMove = SaltaMove { from: NONE, to: NONE, call: false };

    #[inline]
    pub const fn is_pass(self) -> bool {
        self.from == NONE
    }

    /// Whether the move is a jump sequence (a step ends next to its start).
    /// From the squares' numbers alone (the search asks it of every move
    /// it orders): a step changes the number by 5 or 6, the layout's
    /// diagonal offsets, and no two real squares farther apart differ by
    /// 5 or 6 (tested on every pair against their distance); the pass
    /// changes nothing.
    #[inline]
    pub const fn is_jump(self) -> bool {
        !matches!(self.from.abs_diff(self.to), 0 | 5 | 6)
    }
}

/// A validated Salta position.
#[derive(Clone, PartialEq, Eq)]
pub struct SaltaPosition {
    pub(crate) board: [u8; SQUARE_SLOTS],
    pub(crate) occ: [u64; 2],
    pub(crate) side: Side,
    /// The called piece's square, or [`NONE`].
    pub(crate) call: u8,
    pub(crate) ply: u32,
    /// How many of each side's pieces stand on their targets.
    pub(crate) home: [u8; 2],
    pub(crate) hash: u64,
    pub(crate) rules: SaltaRules,
}

impl fmt::Debug for SaltaPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SaltaPosition({} [{}])", self.fen(), self.rules)
    }
}

impl SaltaPosition {
    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        if !geometry::is_square(sq) {
            return None;
        }
        let c = self.board[sq as usize];
        (c != EMPTY).then(|| Piece::from_code(c))
    }

    /// The square of the called piece, when a call is pending.
    pub fn pending_call(&self) -> Option<Square> {
        (self.call != NONE).then_some(self.call)
    }

    /// Bitboard of one side's pieces.
    pub fn pieces(&self, side: Side) -> u64 {
        self.occ[side.index()]
    }

    /// The square a piece must reach under these rules.
    pub fn target(&self, piece: Piece) -> Square {
        piece.target(self.rules.goal)
    }

    /// The target of the piece on `sq`, if a piece stands there.
    #[inline]
    pub fn target_of_square(&self, sq: Square) -> Option<Square> {
        let c = self.board[sq as usize];
        (c != EMPTY).then(|| target_of(self.rules.goal, c))
    }

    /// For the piece on `sq` (which must hold one): its distance to its
    /// target on an empty board, and the neighbouring squares that bring
    /// it closer (none when it is home).
    #[inline]
    pub fn approach(&self, sq: Square) -> (u32, u64) {
        let e = APPROACH[self.rules.goal as usize][self.board[sq as usize] as usize & 31][sq as usize & 63];
        ((e >> APPROACH_SHIFT) as u32, e & BOARD)
    }

    /// The set of all `side`'s target squares (the same wherever its pieces are).
    pub fn target_set(&self, side: Side) -> u64 {
        TARGET_SETS[self.rules.goal as usize][side.index()]
    }

    /// Whether all 15 pieces of `side` stand on their targets.
    pub fn completed(&self, side: Side) -> bool {
        self.home[side.index()] == 15
    }

    /// How many of `side`'s pieces stand on their own targets (kept with
    /// the moves).
    #[inline]
    pub fn pieces_home(&self, side: Side) -> u32 {
        self.home[side.index()] as u32
    }

    /// The sum over `side`'s pieces of the diagonal steps each still needs to
    /// reach its target on an empty board.
    pub fn distance(&self, side: Side) -> u32 {
        Squares(self.occ[side.index()])
            .map(|sq| {
                geometry::DISTANCE[sq as usize][target_of(self.rules.goal, self.board[sq as usize]) as usize] as u32
            })
            .sum()
    }

    /// The outcome when a side has completed its goal, if it has.
    pub(crate) fn goal_outcome(&self) -> Option<Outcome> {
        let win = |winner: Side| Outcome {
            winner: Some(winner),
            reason: EndReason::Goal,
            margin: Some(self.distance(!winner)),
        };
        let (white, black) = (self.completed(Side::White), self.completed(Side::Black));
        if self.rules.equalising_move {
            // White completing first gives Black one more move (his turn
            // now): drawn if it completes Black's goal too, White's otherwise.
            return match (white, black) {
                (true, true) => Some(Outcome { winner: None, reason: EndReason::Goal, margin: None }),
                (false, true) => Some(win(Side::Black)),
                (true, false) if self.side == Side::White => Some(win(Side::White)),
                _ => None,
            };
        }
        let mover = !self.side;
        self.completed(mover).then(|| win(mover))
    }

    fn recompute_home(&self) -> [u8; 2] {
        let mut home = [0u8; 2];
        for side in Side::BOTH {
            for sq in Squares(self.occ[side.index()]) {
                if target_of(self.rules.goal, self.board[sq as usize]) == sq {
                    home[side.index()] += 1;
                }
            }
        }
        home
    }

    fn parse_board(text: &str) -> Result<[u8; SQUARE_SLOTS], PositionError> {
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != 10 {
            return Err(PositionError::new(format!(
                "board: expected 10 ranks separated by `/`, found {}",
                ranks.len()
            )));
        }
        let mut board = [EMPTY; SQUARE_SLOTS];
        let mut seen: [Option<Square>; CODES] = [None; CODES];
        for (i, rank_text) in ranks.iter().enumerate() {
            let y = 9 - i as i32;
            let cells: Vec<&str> = rank_text.split(',').collect();
            if cells.len() != 5 {
                return Err(PositionError::new(format!("rank {}: expected 5 squares, found {}", y + 1, cells.len())));
            }
            for (j, cell) in cells.iter().enumerate() {
                let x = 2 * j as i32 + (y % 2);
                let sq = square_at(x, y).expect("dark square");
                if *cell == "." {
                    continue;
                }
                let piece = Piece::parse_token(cell).ok_or_else(|| {
                    PositionError::new(format!(
                        "{}: `{cell}` is not a piece (S, M or O with 1-5, upper case White, lower case Black, or `.`)",
                        square_name(sq)
                    ))
                })?;
                let code = piece.code();
                if let Some(prev) = seen[code as usize] {
                    return Err(PositionError::new(format!(
                        "{} {} {} stands on both {} and {}",
                        piece.side,
                        piece.kind.name(),
                        piece.number,
                        square_name(prev),
                        square_name(sq)
                    )));
                }
                seen[code as usize] = Some(sq);
                board[sq as usize] = code;
            }
        }
        for side in Side::BOTH {
            let missing: Vec<String> = (1..CODES as u8)
                .map(Piece::from_code)
                .filter(|p| p.side == side && seen[p.code() as usize].is_none())
                .map(Piece::token)
                .collect();
            if !missing.is_empty() {
                return Err(PositionError::new(format!(
                    "{side} has {} pieces, needs all 15; missing: {}",
                    15 - missing.len(),
                    missing.join(" ")
                )));
            }
        }
        Ok(board)
    }

    /// Build a position from its parts and validate it.
    fn from_parts(
        rules: SaltaRules,
        board: [u8; SQUARE_SLOTS],
        side: Side,
        call: Option<Square>,
        ply: u32,
    ) -> Result<Self, PositionError> {
        let mut occ = [0u64; 2];
        for sq in Squares(BOARD) {
            let c = board[sq as usize];
            if c != EMPTY {
                occ[Piece::from_code(c).side.index()] |= 1 << sq;
            }
        }
        let mut pos = SaltaPosition { board, occ, side, call: call.unwrap_or(NONE), ply, home: [0; 2], hash: 0, rules };
        pos.home = pos.recompute_home();
        pos.hash = pos.compute_hash();
        pos.validate()?;
        Ok(pos)
    }

    /// Play a legal move, keeping the hash in step when `HASH` (perft's
    /// counts do without it).
    #[inline(always)]
    pub(crate) fn play_with<const HASH: bool>(&mut self, mv: SaltaMove) {
        let us = self.side.index();
        if self.call != NONE {
            if HASH {
                self.hash ^= CALL_KEYS[self.call as usize];
            }
            self.call = NONE;
        }
        if !mv.is_pass() {
            let code = self.board[mv.from as usize];
            self.board[mv.from as usize] = EMPTY;
            self.board[mv.to as usize] = code;
            self.occ[us] ^= (1 << mv.from) | (1 << mv.to);
            if HASH {
                self.hash ^= piece_key(code, mv.from) ^ piece_key(code, mv.to);
            }
            let target = target_of(self.rules.goal, code);
            if target == mv.from {
                self.home[us] -= 1;
            } else if target == mv.to {
                self.home[us] += 1;
            }
            if mv.call {
                self.call = mv.to;
                if HASH {
                    self.hash ^= CALL_KEYS[mv.to as usize];
                }
            }
        }
        self.side = !self.side;
        if HASH {
            self.hash ^= SIDE_KEY;
        }
        self.ply += 1;
    }

    fn validate(&self) -> Result<(), PositionError> {
        let expected = if self.ply.is_multiple_of(2) { Side::White } else { Side::Black };
        if self.side != expected {
            return Err(PositionError::new(format!(
                "ply {} with {} to move: White moves at even plies, Black at odd ones",
                self.ply, self.side
            )));
        }
        if self.rules.equalising_move {
            if self.completed(Side::Black) && self.side == Side::Black {
                return Err(PositionError::new(
                    "Black is to move but has already completed the goal; Black wins the moment he completes",
                ));
            }
        } else if self.completed(self.side) {
            return Err(PositionError::new(format!(
                "{} is to move but has already completed the goal; the game ended when the last piece arrived",
                self.side
            )));
        }
        if let Some(c) = self.pending_call() {
            let caller = !self.side;
            if !self.rules.calls {
                return Err(PositionError::new(format!(
                    "call on {}: rule set {} has no Salta calls (the field must be `-`)",
                    square_name(c),
                    self.rules
                )));
            }
            match self.piece_at(c) {
                Some(p) if p.side == caller => {}
                _ => {
                    return Err(PositionError::new(format!(
                        "call on {}: no {caller} piece there ({caller} made the last move and the call)",
                        square_name(c)
                    )));
                }
            }
            if self.completed(caller) {
                return Err(PositionError::new(format!(
                    "call on {}: {caller} has completed the goal, and a winning move carries no call",
                    square_name(c)
                )));
            }
            if self.call_replies(c) == 0 {
                return Err(PositionError::new(format!(
                    "call on {}: no {} piece can jump it, so nobody could answer the call",
                    square_name(c),
                    self.side
                )));
            }
        }
        Ok(())
    }
}

impl Position for SaltaPosition {
    type Move = SaltaMove;
    type Rules = SaltaRules;
    const KIND: GameKind = GameKind::Salta;

    fn board_layout() -> BoardLayout {
        super::board::layout()
    }

    fn start(rules: SaltaRules) -> Self {
        let mut board = [EMPTY; SQUARE_SLOTS];
        for code in 1..CODES as u8 {
            board[Piece::from_code(code).start_square() as usize] = code;
        }
        Self::from_parts(rules, board, Side::White, None, 0).expect("the start position is valid")
    }

    fn from_fen(rules: SaltaRules, fen: &str) -> Result<Self, PositionError> {
        let fields: Vec<&str> = fen.split(' ').collect();
        if fields.len() != 4 {
            return Err(PositionError::new(format!(
                "expected 4 fields separated by single spaces (board, side, call, plies), found {}",
                fields.len()
            )));
        }
        let board = Self::parse_board(fields[0])?;
        let side = Side::from_letter(fields[1])
            .ok_or_else(|| PositionError::new(format!("side to move: expected `w` or `b`, found `{}`", fields[1])))?;
        let call = match fields[2] {
            "-" => None,
            s => Some(parse_square(s).map_err(|e| PositionError::new(format!("call square: {e}")))?),
        };
        let ply = crate::position::parse_ply(fields[3])?;
        Self::from_parts(rules, board, side, call, ply)
    }

    fn fen(&self) -> String {
        let mut s = String::with_capacity(120);
        for y in (0..10).rev() {
            for j in 0..5 {
                let sq = square_at(2 * j + (y % 2), y).expect("dark square");
                match self.piece_at(sq) {
                    Some(p) => s.push_str(&p.token()),
                    None => s.push('.'),
                }
                if j < 4 {
                    s.push(',');
                }
            }
            if y > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(self.side.letter());
        s.push(' ');
        match self.pending_call() {
            Some(c) => s.push_str(&square_name(c)),
            None => s.push('-'),
        }
        s.push(' ');
        s.push_str(&self.ply.to_string());
        s
    }

    fn rules(&self) -> &SaltaRules {
        &self.rules
    }

    #[inline]
    fn side_to_move(&self) -> Side {
        self.side
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn generate(&self, out: &mut MoveList<SaltaMove>) {
        self.generate_moves(out);
    }

    fn count_moves(&self) -> u64 {
        self.count_legal()
    }

    fn random_move(&self, rng: &mut crate::Rng) -> Option<SaltaMove> {
        self.random_legal(rng)
    }

    fn is_legal(&self, mv: SaltaMove) -> bool {
        self.is_legal_move(mv)
    }

    #[inline]
    fn play_unchecked(&mut self, mv: SaltaMove) {
        self.play_with::<true>(mv);
    }

    fn play_for_perft(&mut self, mv: SaltaMove) {
        self.play_with::<false>(mv);
    }

    fn count_replies(&self) -> u64 {
        self.count_replies_of_sets()
    }

    fn status(&self) -> Status {
        if let Some(o) = self.goal_outcome() {
            return Status::Over(o);
        }
        if let Some(n) = self.rules.move_limit
            && self.ply >= 2 * n
        {
            return Status::Over(self.limit_outcome());
        }
        Status::Ongoing
    }

    fn limit_outcome(&self) -> Outcome {
        let (dw, db) = (self.distance(Side::White), self.distance(Side::Black));
        match self.rules.limit_result {
            LimitResult::Draw => Outcome { winner: None, reason: EndReason::MoveLimit, margin: None },
            LimitResult::Scored => {
                Outcome { winner: self.leader(), reason: EndReason::MoveLimit, margin: Some(dw.abs_diff(db)) }
            }
        }
    }

    fn standing(&self, side: Side) -> i32 {
        -(self.distance(side) as i32)
    }

    fn describe_standing(&self) -> String {
        format!("distance White {}, Black {}", self.distance(Side::White), self.distance(Side::Black))
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for sq in Squares(BOARD) {
            let c = self.board[sq as usize];
            if c != EMPTY {
                h ^= piece_key(c, sq);
            }
        }
        if self.side == Side::Black {
            h ^= SIDE_KEY;
        }
        if self.call != NONE {
            h ^= CALL_KEYS[self.call as usize];
        }
        h
    }

    fn parse_move(&self, text: &str) -> Result<SaltaMove, MoveError> {
        self.parse_move_text(text)
    }

    fn format_move(&self, mv: SaltaMove) -> String {
        self.format_move_text(mv)
    }

    fn pass_move() -> SaltaMove {
        SaltaMove::PASS
    }

    fn render(&self, style: RenderStyle) -> String {
        self.render_board(style)
    }

    fn move_info(&self, mv: SaltaMove) -> MoveInfo {
        super::board::move_info(self, mv)
    }

    fn targets(&self) -> Vec<(String, String)> {
        super::board::targets(self)
    }

    fn move_from_bytes(bytes: [u8; 3]) -> SaltaMove {
        super::board::move_from_bytes(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_a_jump_when_its_squares_are_two_steps_apart_or_more() {
        assert!(!SaltaMove::PASS.is_jump());
        for from in Squares(BOARD) {
            for to in Squares(BOARD) {
                for call in [false, true] {
                    let mv = SaltaMove { from, to, call };
                    assert_eq!(mv.is_jump(), geometry::distance(from, to) >= 2, "{from} {to}");
                }
            }
        }
    }
}
