//! The toy's position, moves, notation and board.

use super::rules::ToyRules;
use super::{FILES, PIECES, RANKS, START_FEN};
use crate::bits::Squares;
use crate::board::{BoardLayout, MoveInfo};
use crate::error::{MoveError, PositionError};
use crate::position::{
    EndReason, MoveList, Outcome, Position, RenderStyle, Status, file_letter, parse_ply, square_text,
};
use crate::side::Side;
use crate::{GameKind, zobrist};

/// A square: `rank * 3 + file`, from 0 (a1) to 11 (c4).
pub type Square = u8;

const SQUARES: usize = FILES as usize * RANKS as usize;
const NO_SQUARE: Square = u8::MAX;

/// One key per side and square.
static PIECE_KEYS: [u64; 2 * SQUARES] = zobrist::keys(0x0007_0700_0001);
const SIDE_KEY: u64 = zobrist::keys::<1>(0x0007_0700_0002)[0];

/// A step from one square to another, or the pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ToyMove {
    pub from: Square,
    pub to: Square,
}

impl ToyMove {
    pub const PASS: ToyMove = ToyMove { from: NO_SQUARE, to: NO_SQUARE };

    pub fn is_pass(self) -> bool {
        self == Self::PASS
    }
}

/// A toy position. (Not `Copy`, like the other games' positions: code
/// written once for every game clones them.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToyPosition {
    rules: ToyRules,
    /// Each side's pieces, one bit per square.
    pub(super) pieces: [u16; 2],
    pub(super) side: Side,
    ply: u32,
    hash: u64,
}

/// The bit of a square; none for a value off the board (a move value
/// that is not legal may hold one).
fn bit(square: Square) -> u16 {
    if usize::from(square) < SQUARES { 1 << square } else { 0 }
}

fn square_at(file: i32, rank: i32) -> Option<Square> {
    let on_board = (0..i32::from(FILES)).contains(&file) && (0..i32::from(RANKS)).contains(&rank);
    on_board.then(|| (rank * i32::from(FILES) + file) as Square)
}

fn file_and_rank(square: Square) -> (i32, i32) {
    (i32::from(square % FILES), i32::from(square / FILES))
}

fn square_name(square: Square) -> String {
    let (file, rank) = file_and_rank(square);
    square_text(file, rank)
}

fn parse_square(text: &str) -> Result<Square, MoveError> {
    let bytes = text.as_bytes();
    let square = match bytes {
        [file @ b'a'..=b'z', rank @ b'1'..=b'9'] => square_at(i32::from(file - b'a'), i32::from(rank - b'1')),
        _ => None,
    };
    square.ok_or_else(|| MoveError::new(format!("`{text}`: not a square (a file a-c and a rank 1-4, e.g. b2)")))
}

fn piece_key(side: Side, square: Square) -> u64 {
    PIECE_KEYS.get(side.index() * SQUARES + usize::from(square)).copied().unwrap_or(0)
}

/// The rank a side's pieces head for.
fn far_rank(side: Side) -> i32 {
    match side {
        Side::White => i32::from(RANKS) - 1,
        Side::Black => 0,
    }
}

impl ToyPosition {
    fn from_parts(rules: ToyRules, pieces: [u16; 2], side: Side, ply: u32) -> Result<Self, PositionError> {
        for s in Side::BOTH {
            let count = pieces[s.index()].count_ones();
            if count != u32::from(PIECES) {
                return Err(PositionError::new(format!("{s} has {count} pieces; each side has {PIECES}")));
            }
        }
        let mut pos = ToyPosition { rules, pieces, side, ply, hash: 0 };
        if pos.arrived(side) {
            return Err(PositionError::new(format!(
                "{side} is on the far rank and to move: the game ended on {side}'s own move"
            )));
        }
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// Whether one of `side`'s pieces stands on its far rank.
    fn arrived(&self, side: Side) -> bool {
        Squares(u64::from(self.pieces[side.index()])).any(|sq| file_and_rank(sq).1 == far_rank(side))
    }

    /// The side that has won by its goal.
    fn winner(&self) -> Option<Side> {
        Side::BOTH.into_iter().find(|&side| self.arrived(side))
    }

    fn piece_at(&self, file: i32, rank: i32) -> Option<Side> {
        let b = bit(square_at(file, rank)?);
        Side::BOTH.into_iter().find(|side| self.pieces[side.index()] & b != 0)
    }

    /// Every step of the side to move, piece by piece from a1 on.
    fn steps(&self, out: &mut MoveList<ToyMove>) {
        let occupied = self.pieces[0] | self.pieces[1];
        let forward = if self.side == Side::White { 1 } else { -1 };
        for from in Squares(u64::from(self.pieces[self.side.index()])) {
            let (file, rank) = file_and_rank(from);
            for to in (-1..=1).filter_map(|df| square_at(file + df, rank + forward)) {
                if occupied & bit(to) == 0 {
                    out.push(ToyMove { from, to });
                }
            }
        }
    }

    fn advance(&self, side: Side) -> i32 {
        Squares(u64::from(self.pieces[side.index()])).map(|sq| (file_and_rank(sq).1 - far_rank(!side)).abs()).sum()
    }
}

impl Position for ToyPosition {
    type Move = ToyMove;
    type Rules = ToyRules;
    const KIND: GameKind = GameKind::Toy;

    fn board_layout() -> BoardLayout {
        BoardLayout::from_grid(FILES, RANKS, PIECES, |file, rank| Some(square_text(file, rank)))
    }

    fn start(rules: ToyRules) -> Self {
        Self::from_fen(rules, START_FEN).expect("the start position is valid")
    }

    fn from_fen(rules: ToyRules, fen: &str) -> Result<Self, PositionError> {
        let fields: Vec<&str> = fen.split(' ').collect();
        let [board, side, ply] = fields[..] else {
            return Err(PositionError::new(format!(
                "expected 3 fields separated by single spaces (board, side, plies), found {}",
                fields.len()
            )));
        };
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != usize::from(RANKS) {
            return Err(PositionError::new(format!(
                "board: expected {RANKS} ranks separated by `/`, found {}",
                ranks.len()
            )));
        }
        let mut pieces = [0u16; 2];
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = i32::from(RANKS) - 1 - i as i32;
            let cells: Vec<&str> = rank_text.split(',').collect();
            if cells.len() != usize::from(FILES) {
                return Err(PositionError::new(format!(
                    "rank {}: expected {FILES} squares, found {}",
                    rank + 1,
                    cells.len()
                )));
            }
            for (file, cell) in cells.iter().enumerate() {
                let square = square_at(file as i32, rank).map_or(0, bit);
                match *cell {
                    "w" => pieces[0] |= square,
                    "b" => pieces[1] |= square,
                    "." => {}
                    _ => {
                        return Err(PositionError::new(format!(
                            "{}: `{cell}` is not a square's content (w, b or .)",
                            square_text(file as i32, rank)
                        )));
                    }
                }
            }
        }
        let side = Side::from_letter(side)
            .ok_or_else(|| PositionError::new(format!("side to move: expected `w` or `b`, found `{side}`")))?;
        Self::from_parts(rules, pieces, side, parse_ply(ply)?)
    }

    fn fen(&self) -> String {
        let ranks: Vec<String> = (0..i32::from(RANKS))
            .rev()
            .map(|rank| {
                let cells: Vec<&str> = (0..i32::from(FILES))
                    .map(|file| match self.piece_at(file, rank) {
                        Some(Side::White) => "w",
                        Some(Side::Black) => "b",
                        None => ".",
                    })
                    .collect();
                cells.join(",")
            })
            .collect();
        format!("{} {} {}", ranks.join("/"), self.side.letter(), self.ply)
    }

    fn rules(&self) -> &ToyRules {
        &self.rules
    }

    fn side_to_move(&self) -> Side {
        self.side
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn generate(&self, out: &mut MoveList<ToyMove>) {
        if self.winner().is_some() {
            return;
        }
        let before = out.len();
        self.steps(out);
        if out.len() == before {
            out.push(ToyMove::PASS);
        }
    }

    fn count_moves(&self) -> u64 {
        self.legal_moves().len() as u64
    }

    fn play_unchecked(&mut self, mv: ToyMove) {
        if !mv.is_pass() {
            let mine = &mut self.pieces[self.side.index()];
            *mine = (*mine & !bit(mv.from)) | bit(mv.to);
            self.hash ^= piece_key(self.side, mv.from) ^ piece_key(self.side, mv.to);
        }
        self.side = !self.side;
        self.ply += 1;
        self.hash ^= SIDE_KEY;
    }

    fn status(&self) -> Status {
        if let Some(winner) = self.winner() {
            return Status::Over(Outcome { winner: Some(winner), reason: EndReason::Goal, margin: None });
        }
        match self.rules.move_limit {
            Some(limit) if self.ply >= limit.saturating_mul(2) => Status::Over(self.limit_outcome()),
            _ => Status::Ongoing,
        }
    }

    fn limit_outcome(&self) -> Outcome {
        Outcome { winner: None, reason: EndReason::MoveLimit, margin: None }
    }

    /// The ranks its pieces have advanced, together.
    fn standing(&self, side: Side) -> i32 {
        self.advance(side)
    }

    fn describe_standing(&self) -> String {
        format!("ranks advanced: White {}, Black {}", self.advance(Side::White), self.advance(Side::Black))
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn compute_hash(&self) -> u64 {
        let pieces = Side::BOTH
            .into_iter()
            .flat_map(|side| Squares(u64::from(self.pieces[side.index()])).map(move |square| piece_key(side, square)));
        let side = if self.side == Side::Black { SIDE_KEY } else { 0 };
        pieces.fold(side, |hash, key| hash ^ key)
    }

    fn parse_move(&self, text: &str) -> Result<ToyMove, MoveError> {
        let text = text.trim();
        let mv = match text.split_once('-') {
            _ if text == "pass" => ToyMove::PASS,
            Some((from, to)) => ToyMove { from: parse_square(from)?, to: parse_square(to)? },
            None => return Err(MoveError::new(format!("`{text}`: not a move (a step such as `a1-b2`, or `pass`)"))),
        };
        if !self.is_legal(mv) {
            return Err(MoveError::new(format!("{text}: not a legal move in this position")));
        }
        Ok(mv)
    }

    fn format_move(&self, mv: ToyMove) -> String {
        if mv.is_pass() { "pass".to_string() } else { format!("{}-{}", square_name(mv.from), square_name(mv.to)) }
    }

    fn pass_move() -> ToyMove {
        ToyMove::PASS
    }

    fn render(&self, style: RenderStyle) -> String {
        let mut s = String::new();
        for rank in style.ranks_top_down(i32::from(RANKS)) {
            s.push_str(&(rank + 1).to_string());
            for file in style.files_left_to_right(i32::from(FILES)) {
                s.push_str(match (self.piece_at(file, rank), style.color) {
                    (Some(Side::White), true) => " \x1b[1;97mw\x1b[0m",
                    (Some(Side::Black), true) => " \x1b[1;91mb\x1b[0m",
                    (Some(Side::White), false) => " w",
                    (Some(Side::Black), false) => " b",
                    (None, _) => " .",
                });
            }
            s.push('\n');
        }
        s.push(' ');
        for file in style.files_left_to_right(i32::from(FILES)) {
            s.push(' ');
            s.push(file_letter(file));
        }
        s.push('\n');
        match self.status() {
            Status::Over(outcome) => s.push_str(&format!("  Game over: {outcome}\n")),
            Status::Ongoing => s.push_str(&format!("  {} to move; {}\n", self.side, self.describe_standing())),
        }
        s
    }

    fn move_info(&self, mv: ToyMove) -> MoveInfo {
        let notation = self.format_move(mv);
        if mv.is_pass() {
            return MoveInfo::pass(notation);
        }
        MoveInfo::step(notation, square_name(mv.from), square_name(mv.to))
    }

    fn move_from_bytes(bytes: [u8; 3]) -> ToyMove {
        if bytes[2] & 0x80 != 0 {
            return ToyMove { from: bytes[0], to: bytes[1] };
        }
        let squares = SQUARES as u8;
        ToyMove { from: bytes[0] % squares, to: bytes[1] % squares }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft::perft;

    fn position(fen: &str) -> ToyPosition {
        ToyPosition::from_fen(ToyRules::seed(), fen).unwrap()
    }

    /// From the start, counted by hand. Ply 1: each White piece steps to
    /// the squares of rank 2 beside or before it, a1 two, b1 three, c1
    /// two: 7. Ply 2: Black's steps to the empty rank 3 are the same 7
    /// whatever White did: 49. Ply 3: White's piece on rank 2 (on file x)
    /// steps to rank 3 beside or before it except where Black's piece
    /// stands, and the two pieces still on rank 1 step to rank 2 except
    /// onto x. Over Black's 7 replies the piece on rank 2 has 7 * 2 - 5
    /// = 9 steps from an edge file (Black's piece stands next to it in 5
    /// of the 7), 7 * 3 - 7 = 14 from b2; the rank-1 pieces have, per
    /// reply, 4 after a1-a2 (b1 2, c1 2), 3 after a1-b2, 3 after b1-a2,
    /// 2 after b1-b2, 3 after b1-c2, 3 after c1-b2, 4 after c1-c2. So
    /// 7 * 4 + 9 + 7 * 3 + 14 + 7 * 3 + 9 + 7 * 2 + 14 + 7 * 3 + 9
    /// + 7 * 3 + 14 + 7 * 4 + 9 = 232.
    #[test]
    fn perft_from_the_start_is_the_count_by_hand() {
        let start = ToyPosition::start(ToyRules::seed());
        assert_eq!(start.fen(), START_FEN);
        let counts: Vec<u64> = (1..=3).map(|depth| perft(&start, depth)).collect();
        assert_eq!(counts, [7, 49, 232]);
    }

    #[test]
    fn a_blocked_side_passes_and_a_piece_on_the_far_rank_wins() {
        // Rank 3 is Black's, rank 2 White's: neither side can step.
        let blocked = position(".,.,./b,b,b/w,w,w/.,.,. w 6");
        assert_eq!(blocked.legal_moves().as_slice(), [ToyMove::PASS]);
        assert_eq!((1..=3).map(|d| perft(&blocked, d)).collect::<Vec<_>>(), [1, 1, 1]);
        // White's b3 reaches a4 or c4 (b4 is Black's) and wins; its other
        // pieces have a step each.
        let mut near = position(".,b,./b,w,./.,b,./w,.,w w 6");
        let moves: Vec<String> = near.legal_moves().iter().map(|&m| near.format_move(m)).collect();
        assert_eq!(moves, ["a1-a2", "c1-c2", "b3-a4", "b3-c4"]);
        near.play(near.parse_move("b3-c4").unwrap()).unwrap();
        assert_eq!(near.status().outcome().map(|o| (o.winner, o.reason)), Some((Some(Side::White), EndReason::Goal)));
        assert!(near.legal_moves().is_empty());
        assert_eq!(near.hash(), near.compute_hash());
    }

    #[test]
    fn position_strings_and_moves_are_checked() {
        for bad in ["b,b,b/.,.,./.,.,./w,w,w w", "b,b,b/.,.,./.,.,./w,w,. w 0", "b,b,b/.,.,./w,.,./.,w,w x 0"] {
            assert!(ToyPosition::from_fen(ToyRules::seed(), bad).is_err(), "{bad}");
        }
        assert!(ToyPosition::from_fen(ToyRules::seed(), "w,b,b/.,.,./.,.,./b,w,w w 3").is_err(), "White won already");
        let start = ToyPosition::start(ToyRules::seed());
        assert!(start.parse_move("a1-a3").is_err());
        assert!(start.parse_move("d1-d2").is_err());
        assert!(start.parse_move("pass").is_err());
        assert_eq!(start.parse_move(" b1-c2 "), Ok(ToyMove { from: 1, to: 5 }));
        let mut garbage = start.clone();
        assert!(garbage.play(ToyPosition::move_from_bytes([200, 255, 0x80])).is_err());
        assert_eq!(garbage, start);
    }

    #[test]
    fn the_move_limit_draws() {
        let rules: ToyRules = "seed,move-limit=1".parse().unwrap();
        assert_eq!(rules.to_string(), "seed,move-limit=1");
        let mut pos = ToyPosition::start(rules);
        pos.play(pos.parse_move("a1-a2").unwrap()).unwrap();
        pos.play(pos.parse_move("a4-a3").unwrap()).unwrap();
        assert_eq!(pos.status(), Status::Over(pos.limit_outcome()));
        assert!("seed,nope".parse::<ToyRules>().is_err());
    }
}
