use std::fmt;

use super::geometry::{BOARD, Dir, OFF, RAY, REACH, Square, Squares, coords, shift, square_at};
use super::rules::{FocusRules, GroupMoves};
use super::{MAX_HEIGHT, PIECES};
use crate::GameKind;
use crate::board::{BoardLayout, MoveInfo};
use crate::error::{MoveError, PositionError};
use crate::position::{EndReason, MoveList, Outcome, Position, RenderStyle, Status};
use crate::side::Side;
use crate::zobrist;

/// A stack of 0..=5 pieces in one byte: a marker bit at position `height`
/// and below it one bit per piece, bottom first (1 = Black). Empty is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Stack(pub(crate) u8);

impl Stack {
    pub const EMPTY: Stack = Stack(0);

    #[inline(always)]
    pub const fn height(self) -> u32 {
        if self.0 == 0 { 0 } else { 7 - self.0.leading_zeros() }
    }

    /// The owner of the top piece, who controls the stack.
    #[inline(always)]
    pub const fn top(self) -> Option<Side> {
        let h = self.height();
        if h == 0 {
            None
        } else if (self.0 >> (h - 1)) & 1 == 1 {
            Some(Side::Black)
        } else {
            Some(Side::White)
        }
    }

    /// The pieces from bottom to top.
    pub fn pieces(self) -> impl Iterator<Item = Side> {
        let h = self.height();
        (0..h).map(move |i| if (self.0 >> i) & 1 == 1 { Side::Black } else { Side::White })
    }

    /// How many pieces of `side` are in the stack.
    pub fn count(self, side: Side) -> u32 {
        let h = self.height();
        let blacks = (self.0 as u32 & ((1 << h) - 1)).count_ones();
        match side {
            Side::Black => blacks,
            Side::White => h - blacks,
        }
    }

    /// Build from pieces bottom to top (at most 5).
    pub fn from_pieces(pieces: &[Side]) -> Option<Stack> {
        if pieces.len() > MAX_HEIGHT as usize {
            return None;
        }
        if pieces.is_empty() {
            return Some(Stack::EMPTY);
        }
        let mut bits = 1u8 << pieces.len();
        for (i, s) in pieces.iter().enumerate() {
            if *s == Side::Black {
                bits |= 1 << i;
            }
        }
        Some(Stack(bits))
    }

    /// `w`, `bw`, ... bottom to top.
    pub fn letters(self) -> String {
        self.pieces().map(|s| s.letter()).collect()
    }
}

/// What a Focus move does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MoveKind {
    /// The top `k` pieces move `k` squares, `k` being the distance.
    Group,
    /// The top piece jumps over a lone opponent piece and carries it along.
    Jump,
    /// A reserve piece is put on `to`.
    Drop,
    Pass,
}

/// A Focus move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FocusMove {
    pub kind: MoveKind,
    /// Unused (0) for drops and pass.
    pub from: Square,
    /// Unused (0) for pass.
    pub to: Square,
}

impl FocusMove {
    pub const PASS: FocusMove = FocusMove { kind: MoveKind::Pass, from: 0, to: 0 };
    pub const fn group(from: Square, to: Square) -> Self {
        FocusMove { kind: MoveKind::Group, from, to }
    }
    pub const fn jump(from: Square, to: Square) -> Self {
        FocusMove { kind: MoveKind::Jump, from, to }
    }
    pub const fn drop(to: Square) -> Self {
        FocusMove { kind: MoveKind::Drop, from: 0, to }
    }
    /// The number of pieces a group move takes (its distance).
    pub fn group_size(self) -> u32 {
        self.line().1
    }

    /// The direction (an index of `RAY`: north, south, east, west) and the
    /// length of a group move, from the difference of its squares: a move
    /// along a rank changes the square by less than 8, one along a file by
    /// a multiple of 8 (squares are numbered rank by rank, 8 to a rank).
    #[inline(always)]
    pub(crate) fn line(self) -> (usize, u32) {
        let diff = self.to as i32 - self.from as i32;
        let len = diff.unsigned_abs();
        if len >= 8 { (if diff > 0 { 0 } else { 1 }, len >> 3) } else { (if diff > 0 { 2 } else { 3 }, len) }
    }
}

static STACK_KEYS: [u64; 64 * 64] = zobrist::keys(0x000F_0C05_0001);
static RESERVE_KEYS: [u64; 2 * 64] = zobrist::keys(0x000F_0C05_0002);
const SIDE_KEY: u64 = zobrist::keys::<1>(0x000F_0C05_0003)[0];

#[inline(always)]
fn stack_key(stack: Stack, sq: Square) -> u64 {
    STACK_KEYS[(stack.0 as usize) * 64 + sq as usize]
}

#[inline(always)]
fn reserve_key(side: usize, n: u8) -> u64 {
    RESERVE_KEYS[side * 64 + n as usize]
}

/// One side's stacks, as counted by [`FocusPosition::material`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Material {
    /// Stacks the side controls.
    pub stacks: u32,
    /// Its own pieces in those stacks.
    pub free: u32,
    /// Opponent pieces held under them.
    pub prisoners: u32,
    /// Sum over those stacks of (height - 1).
    pub extra_height: u32,
}

/// What one stack adds to [`FocusPosition::material`], by its code: bits
/// 0-15 count White's stacks (bits 0-4), free pieces (5-9) and extra
/// height (10-15), bits 16-31 Black's. No count outgrows its field (a side
/// has 18 pieces, and at most 35 stand above the bottom of a stack), so
/// sums of entries never carry from one field into the next; a side's
/// prisoners are the rest of its stacks' pieces.
const MATERIAL_FIELDS: [u32; 64] = {
    let mut table = [0u32; 64];
    let mut code = 2u32; // 0 is empty and 1 is no stack: both add nothing.
    while code < 64 {
        let h = 31 - code.leading_zeros();
        let colours = code & ((1 << h) - 1);
        let blacks = colours.count_ones();
        let owner = (colours >> (h - 1)) & 1;
        let own = if owner == 1 { blacks } else { h - blacks };
        let counts = 1 | (own << 5) | ((h - 1) << 10);
        table[code as usize] = counts << (16 * owner);
        code += 1;
    }
    table
};

/// A validated Focus position.
#[derive(Clone, PartialEq, Eq)]
pub struct FocusPosition {
    pub(crate) stacks: [Stack; 64],
    pub(crate) occ: u64,
    /// Stacks controlled by each side.
    pub(crate) top: [u64; 2],
    /// Stacks of height one.
    pub(crate) single: u64,
    pub(crate) side: Side,
    pub(crate) reserve: [u8; 2],
    pub(crate) ply: u32,
    pub(crate) hash: u64,
    /// The sum of the stacks' [`MATERIAL_FIELDS`], kept in step by every
    /// change of a stack: the evaluation reads the material at every leaf.
    /// (With it, a side's captured pieces are what is neither on the board
    /// nor in reserve, and the position fits in two cache lines.)
    pub(crate) material: u32,
    pub(crate) rules: FocusRules,
}

impl fmt::Debug for FocusPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FocusPosition({} [{}])", self.fen(), self.rules)
    }
}

impl FocusPosition {
    pub fn stack(&self, sq: Square) -> Stack {
        if super::geometry::is_square(sq) { self.stacks[sq as usize] } else { Stack::EMPTY }
    }

    pub fn reserve(&self, side: Side) -> u32 {
        self.reserve[side.index()] as u32
    }

    /// `side`'s pieces captured for good (removed from under an
    /// opponent's tower): those neither on the board nor in reserve.
    pub fn captured(&self, side: Side) -> u32 {
        let [mine, theirs] = match side {
            Side::White => self.material(),
            Side::Black => {
                let [w, b] = self.material();
                [b, w]
            }
        };
        PIECES as u32 - mine.free - theirs.prisoners - self.reserve(side)
    }

    /// Squares holding a stack, as a bitboard.
    pub fn occupied(&self) -> u64 {
        self.occ
    }

    /// Stacks controlled by `side`, as a bitboard.
    pub fn controlled(&self, side: Side) -> u64 {
        self.top[side.index()]
    }

    /// `side`'s pieces on the board (free or prisoner).
    pub fn on_board(&self, side: Side) -> u32 {
        Squares(self.occ).map(|sq| self.stacks[sq as usize].count(side)).sum()
    }

    /// What each side has on the board (for evaluations), kept up to date
    /// by every change of a stack (see [`MATERIAL_FIELDS`]).
    pub fn material(&self) -> [Material; 2] {
        let side = |fields: u32| {
            let (stacks, free, extra_height) = (fields & 31, (fields >> 5) & 31, (fields >> 10) & 63);
            Material { stacks, free, prisoners: stacks + extra_height - free, extra_height }
        };
        [side(self.material & 0xFFFF), side(self.material >> 16)]
    }

    /// Put `stack` on `sq`, keeping bitboards, the material and (when
    /// `HASH`) the hash in step.
    #[inline(always)]
    fn set<const HASH: bool>(&mut self, sq: Square, stack: Stack) {
        let old = self.stacks[sq as usize];
        if HASH {
            self.hash ^= stack_key(old, sq) ^ stack_key(stack, sq);
        }
        self.material = self.material - MATERIAL_FIELDS[old.0 as usize] + MATERIAL_FIELDS[stack.0 as usize];
        self.stacks[sq as usize] = stack;
        let bit = 1u64 << sq;
        self.occ &= !bit;
        self.top[0] &= !bit;
        self.top[1] &= !bit;
        self.single &= !bit;
        if let Some(owner) = stack.top() {
            self.occ |= bit;
            self.top[owner.index()] |= bit;
            if stack.height() == 1 {
                self.single |= bit;
            }
        }
    }

    #[inline(always)]
    fn set_reserve<const HASH: bool>(&mut self, side: usize, n: u8) {
        if HASH {
            self.hash ^= reserve_key(side, self.reserve[side]) ^ reserve_key(side, n);
        }
        self.reserve[side] = n;
    }

    /// Place a sequence of pieces (bits, bottom first, `len` of them) on
    /// `sq`, removing the overflow from the bottom: the mover's pieces go to
    /// his reserve, the opponent's are captured.
    #[inline(always)]
    fn place<const HASH: bool>(&mut self, sq: Square, mut bits: u32, mut len: u32) {
        if len > MAX_HEIGHT {
            let removed = len - MAX_HEIGHT;
            let blacks = (bits & ((1 << removed) - 1)).count_ones();
            let whites = removed - blacks;
            let mine = match self.side {
                Side::White => whites,
                Side::Black => blacks,
            };
            let us = self.side.index();
            self.set_reserve::<HASH>(us, self.reserve[us] + mine as u8);
            bits >>= removed;
            len = MAX_HEIGHT;
        }
        self.set::<HASH>(sq, Stack(((1u32 << len) | bits) as u8));
    }

    #[inline(always)]
    fn lost(&self) -> bool {
        let us = self.side.index();
        self.top[us] == 0 && self.reserve[us] == 0
    }

    /// Calls `f(move)` for every legal move except pass; returns nothing.
    #[inline(always)]
    fn for_each_move(&self, mut f: impl FnMut(FocusMove)) {
        let us = self.side.index();
        let targets = self.group_targets();
        for from in Squares(self.top[us]) {
            Self::for_each_group_move(from, self.stacks[from as usize].height() as usize, targets, &mut f);
        }
        self.for_each_jump(&mut f);
        if self.reserve[us] > 0 {
            for to in Squares(BOARD) {
                f(FocusMove::drop(to));
            }
        }
    }

    /// The squares a group move may end on: empty ones, or under merging
    /// rules any.
    #[inline(always)]
    fn group_targets(&self) -> u64 {
        match self.rules.group_moves {
            GroupMoves::Sweep => BOARD & !self.occ,
            GroupMoves::Merge => BOARD,
        }
    }

    /// Calls `f(move)` for the group moves of the stack on `from`, `h` high,
    /// onto squares of `targets`, in the order of [`Position::generate`].
    #[inline(always)]
    fn for_each_group_move(from: Square, h: usize, targets: u64, f: &mut impl FnMut(FocusMove)) {
        for ray in &RAY[from as usize] {
            for &to in &ray[1..=h] {
                if to == OFF {
                    break;
                }
                if targets & (1 << to) != 0 {
                    f(FocusMove::group(from, to));
                }
            }
        }
    }

    /// The `k`-th move [`Position::generate`] lists (`k` below
    /// [`Self::count_legal`]), found without listing the others: whole
    /// stacks, directions of jumps and the drops are skipped by their
    /// counts, and only the stack the move belongs to is walked. So a
    /// random move costs about a count, and picks the move the list would
    /// at the same draw.
    fn nth_legal(&self, mut k: u32) -> FocusMove {
        let us = self.side.index();
        let targets = self.group_targets();
        for from in Squares(self.top[us]) {
            let h = self.stacks[from as usize].height() as usize;
            let n = (REACH[from as usize][h] & targets).count_ones();
            if k < n {
                let mut found = FocusMove::PASS;
                Self::for_each_group_move(from, h, targets, &mut |m| {
                    if k == 0 {
                        found = m;
                    }
                    k = k.wrapping_sub(1);
                });
                return found;
            }
            k -= n;
        }
        if self.rules.jumps {
            let victims = self.single & self.top[us ^ 1];
            let empty = BOARD & !self.occ;
            for (d, dir) in Dir::ALL.into_iter().enumerate() {
                let landings = shift(shift(self.top[us], dir) & victims, dir) & empty;
                let n = landings.count_ones();
                if k < n {
                    let to = crate::bits::nth_in(landings, k as usize);
                    return FocusMove::jump(RAY[to as usize][d ^ 1][2], to);
                }
                k -= n;
            }
        }
        if self.reserve[us] > 0 && k < BOARD.count_ones() {
            return FocusMove::drop(crate::bits::nth_in(BOARD, k as usize));
        }
        FocusMove::PASS
    }

    /// Calls `f(move)` for every jump (when the rules have them): the top
    /// piece of a stack over a lone opponent piece to the empty square behind.
    #[inline(always)]
    fn for_each_jump(&self, mut f: impl FnMut(FocusMove)) {
        if !self.rules.jumps {
            return;
        }
        let us = self.side.index();
        let victims = self.single & self.top[us ^ 1];
        let empty = BOARD & !self.occ;
        for d in 0..4 {
            let dir = Dir::ALL[d];
            let landings = shift(shift(self.top[us], dir) & victims, dir) & empty;
            for to in Squares(landings) {
                f(FocusMove::jump(RAY[to as usize][d ^ 1][2], to));
            }
        }
    }

    /// The legal moves that take opponent stacks, in the order of
    /// [`Position::generate`]: a jump (over a lone opponent piece), a group
    /// move sweeping a stack the opponent controls, or (merging rules) one
    /// landing on it. Drops and pass never take anything. What a quiescence
    /// search resolves, found without listing the other moves.
    pub fn generate_captures(&self, out: &mut MoveList<FocusMove>) {
        if self.lost() {
            return;
        }
        let us = self.side.index();
        let theirs = self.top[us ^ 1];
        let empty = BOARD & !self.occ;
        let merge = self.rules.group_moves == GroupMoves::Merge;
        for from in Squares(self.top[us]) {
            let h = self.stacks[from as usize].height() as usize;
            // A group move only reaches an opponent stack within `h` steps.
            if REACH[from as usize][h] & theirs == 0 {
                continue;
            }
            for ray in &RAY[from as usize] {
                // Whether the squares passed so far hold an opponent stack
                // (swept up with the group).
                let mut swept = false;
                for &to in &ray[1..=h] {
                    if to == OFF {
                        break;
                    }
                    let bit = 1u64 << to;
                    if (merge || empty & bit != 0) && (swept || (merge && theirs & bit != 0)) {
                        out.push(FocusMove::group(from, to));
                    }
                    // Under merging rules a group passes over stacks
                    // without touching them.
                    swept |= !merge && theirs & bit != 0;
                }
            }
        }
        self.for_each_jump(|m| out.push(m));
    }

    pub(crate) fn generate_moves(&self, out: &mut MoveList<FocusMove>) {
        if self.lost() {
            return;
        }
        let start = out.len();
        self.for_each_move(|m| out.push(m));
        if out.len() == start {
            out.push(FocusMove::PASS);
        }
    }

    pub(crate) fn count_legal(&self) -> u64 {
        if self.lost() {
            return 0;
        }
        let us = self.side.index();
        let targets = self.group_targets();
        let mut n = 0u32;
        for from in Squares(self.top[us]) {
            let h = self.stacks[from as usize].height() as usize;
            n += (REACH[from as usize][h] & targets).count_ones();
        }
        if self.rules.jumps {
            let victims = self.single & self.top[us ^ 1];
            let empty = BOARD & !self.occ;
            for dir in Dir::ALL {
                n += (shift(shift(self.top[us], dir) & victims, dir) & empty).count_ones();
            }
        }
        if self.reserve[us] > 0 {
            n += BOARD.count_ones();
        }
        if n == 0 { 1 } else { n as u64 }
    }

    /// Play a legal move, keeping the hash in step when `HASH` (perft's
    /// counts do without it).
    #[inline(always)]
    fn play_with<const HASH: bool>(&mut self, mv: FocusMove) {
        let us = self.side.index();
        match mv.kind {
            MoveKind::Group => {
                let from = mv.from as usize;
                let stack = self.stacks[from];
                let h = stack.height();
                let (d, k) = mv.line();
                let colours = stack.0 as u32 & ((1 << h) - 1);
                let group = colours >> (h - k);
                let left = h - k;
                self.set::<HASH>(
                    mv.from,
                    if left == 0 {
                        Stack::EMPTY
                    } else {
                        Stack(((1u32 << left) | (colours & ((1 << left) - 1))) as u8)
                    },
                );
                let (mut bits, mut len) = (0u32, 0u32);
                match self.rules.group_moves {
                    GroupMoves::Sweep => {
                        // The last square passed ends at the very bottom.
                        for i in (1..k as usize).rev() {
                            let sq = RAY[from][d][i];
                            let st = self.stacks[sq as usize];
                            let sh = st.height();
                            if sh > 0 {
                                bits |= (st.0 as u32 & ((1 << sh) - 1)) << len;
                                len += sh;
                                self.set::<HASH>(sq, Stack::EMPTY);
                            }
                        }
                    }
                    GroupMoves::Merge => {
                        let st = self.stacks[mv.to as usize];
                        let sh = st.height();
                        bits = st.0 as u32 & ((1u32 << sh) - 1);
                        len = sh;
                    }
                }
                bits |= group << len;
                len += k;
                self.place::<HASH>(mv.to, bits, len);
            }
            MoveKind::Jump => {
                let stack = self.stacks[mv.from as usize];
                let h = stack.height();
                let colours = stack.0 as u32 & ((1 << h) - 1);
                self.set::<HASH>(
                    mv.from,
                    if h == 1 {
                        Stack::EMPTY
                    } else {
                        Stack(((1u32 << (h - 1)) | (colours & ((1 << (h - 1)) - 1))) as u8)
                    },
                );
                let (fx, fy) = coords(mv.from);
                let (tx, ty) = coords(mv.to);
                let over = square_at((fx + tx) / 2, (fy + ty) / 2).expect("jumped square");
                self.set::<HASH>(over, Stack::EMPTY);
                // [the opponent piece, the jumper]
                let bits = (us as u32 ^ 1) | ((us as u32) << 1);
                self.set::<HASH>(mv.to, Stack(((1u32 << 2) | bits) as u8));
            }
            MoveKind::Drop => {
                self.set_reserve::<HASH>(us, self.reserve[us] - 1);
                let st = self.stacks[mv.to as usize];
                let h = st.height();
                let bits = (st.0 as u32 & ((1u32 << h) - 1)) | ((us as u32) << h);
                self.place::<HASH>(mv.to, bits, h + 1);
            }
            MoveKind::Pass => {}
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
        for side in Side::BOTH {
            let board = self.on_board(side);
            let reserve = self.reserve[side.index()] as u32;
            if board + reserve > PIECES as u32 {
                return Err(PositionError::new(format!(
                    "{side} has {} pieces ({board} on the board, {reserve} in reserve); each side has {PIECES}",
                    board + reserve
                )));
            }
        }
        let waiting = !self.side;
        if self.top[waiting.index()] == 0 && self.reserve[waiting.index()] == 0 {
            return Err(PositionError::new(format!(
                "{waiting} controls no stack and has no reserve: the game ended at {waiting}'s turn, so it cannot be {}'s turn",
                self.side
            )));
        }
        Ok(())
    }

    fn from_parts(
        rules: FocusRules,
        stacks: [Stack; 64],
        side: Side,
        reserve: [u8; 2],
        ply: u32,
    ) -> Result<Self, PositionError> {
        let mut pos = FocusPosition {
            stacks: [Stack::EMPTY; 64],
            occ: 0,
            top: [0; 2],
            single: 0,
            side,
            reserve,
            ply,
            hash: 0,
            material: 0,
            rules,
        };
        for sq in Squares(BOARD) {
            pos.set::<true>(sq, stacks[sq as usize]);
        }
        pos.validate()?;
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The squares of a rank, left to right.
    pub(crate) fn rank_squares(y: i32) -> impl Iterator<Item = Square> {
        (0..8).filter_map(move |x| square_at(x, y))
    }
}

impl Position for FocusPosition {
    type Move = FocusMove;
    type Rules = FocusRules;
    const KIND: GameKind = GameKind::Focus;
    const PIECE_WORD: &'static str = "stack";

    fn board_layout() -> BoardLayout {
        super::board::layout()
    }

    fn start(rules: FocusRules) -> Self {
        Self::from_fen(rules, super::START_FEN).expect("the start position is valid")
    }

    fn from_fen(rules: FocusRules, fen: &str) -> Result<Self, PositionError> {
        let fields: Vec<&str> = fen.split(' ').collect();
        if fields.len() != 5 {
            return Err(PositionError::new(format!(
                "expected 5 fields separated by single spaces (board, side, White's reserve, Black's reserve, plies), found {}",
                fields.len()
            )));
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err(PositionError::new(format!("board: expected 8 ranks separated by `/`, found {}", ranks.len())));
        }
        let mut stacks = [Stack::EMPTY; 64];
        for (i, rank_text) in ranks.iter().enumerate() {
            let y = 7 - i as i32;
            let squares: Vec<Square> = Self::rank_squares(y).collect();
            let cells: Vec<&str> = rank_text.split(',').collect();
            if cells.len() != squares.len() {
                return Err(PositionError::new(format!(
                    "rank {}: expected {} squares, found {}",
                    y + 1,
                    squares.len(),
                    cells.len()
                )));
            }
            for (cell, &sq) in cells.iter().zip(&squares) {
                if *cell == "." {
                    continue;
                }
                let name = super::geometry::square_name(sq);
                let mut pieces = Vec::with_capacity(cell.len());
                for c in cell.chars() {
                    pieces.push(match c {
                        'w' => Side::White,
                        'b' => Side::Black,
                        _ => {
                            return Err(PositionError::new(format!(
                                "{name}: `{cell}` is not a stack (letters w and b from bottom to top, or `.`)"
                            )));
                        }
                    });
                }
                stacks[sq as usize] = Stack::from_pieces(&pieces).ok_or_else(|| {
                    PositionError::new(format!(
                        "{name}: stack `{cell}` is {} high; a stack holds at most {MAX_HEIGHT}",
                        pieces.len()
                    ))
                })?;
            }
        }
        let side = Side::from_letter(fields[1])
            .ok_or_else(|| PositionError::new(format!("side to move: expected `w` or `b`, found `{}`", fields[1])))?;
        let mut reserve = [0u8; 2];
        for (i, side) in Side::BOTH.into_iter().enumerate() {
            let text = fields[2 + i];
            reserve[i] = match text.parse::<u8>() {
                Ok(n) if n <= PIECES => n,
                _ => {
                    return Err(PositionError::new(format!(
                        "{side}'s reserve: expected a number 0..{PIECES}, found `{text}`"
                    )));
                }
            };
        }
        let ply = crate::position::parse_ply(fields[4])?;
        Self::from_parts(rules, stacks, side, reserve, ply)
    }

    fn fen(&self) -> String {
        let mut s = String::with_capacity(120);
        for y in (0..8).rev() {
            let cells: Vec<String> = Self::rank_squares(y)
                .map(|sq| {
                    let st = self.stacks[sq as usize];
                    if st.height() == 0 { ".".to_string() } else { st.letters() }
                })
                .collect();
            s.push_str(&cells.join(","));
            if y > 0 {
                s.push('/');
            }
        }
        format!("{s} {} {} {} {}", self.side.letter(), self.reserve[0], self.reserve[1], self.ply)
    }

    fn rules(&self) -> &FocusRules {
        &self.rules
    }

    #[inline]
    fn side_to_move(&self) -> Side {
        self.side
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn generate(&self, out: &mut MoveList<FocusMove>) {
        self.generate_moves(out);
    }

    fn count_moves(&self) -> u64 {
        self.count_legal()
    }

    fn random_move(&self, rng: &mut crate::Rng) -> Option<FocusMove> {
        if self.lost() {
            return None;
        }
        // The same draw as a pick from the list: the same random games.
        let k = rng.below(self.count_legal() as usize);
        Some(self.nth_legal(k as u32))
    }

    fn is_legal(&self, mv: FocusMove) -> bool {
        if self.lost() {
            return false;
        }
        if mv.kind == MoveKind::Pass {
            return self.count_legal() == 1 && {
                let mut l = MoveList::new();
                self.generate_moves(&mut l);
                l[0] == FocusMove::PASS
            };
        }
        let mut found = false;
        self.for_each_move(|m| found |= m == mv);
        found
    }

    fn play_unchecked(&mut self, mv: FocusMove) {
        self.play_with::<true>(mv);
    }

    fn play_for_perft(&mut self, mv: FocusMove) {
        self.play_with::<false>(mv);
    }

    fn count_replies(&self) -> u64 {
        if self.lost() {
            return 0;
        }
        let mut total = 0;
        let mut any = false;
        self.for_each_move(|mv| {
            let mut child = self.clone();
            child.play_with::<false>(mv);
            total += child.count_legal();
            any = true;
        });
        if !any {
            let mut child = self.clone();
            child.play_with::<false>(FocusMove::PASS);
            total = child.count_legal();
        }
        total
    }

    fn status(&self) -> Status {
        if self.lost() {
            return Status::Over(Outcome { winner: Some(!self.side), reason: EndReason::NoPieces, margin: None });
        }
        if let Some(n) = self.rules.move_limit
            && self.ply >= 2 * n
        {
            return Status::Over(self.limit_outcome());
        }
        Status::Ongoing
    }

    fn limit_outcome(&self) -> Outcome {
        Outcome { winner: self.rules.draw_winner(), reason: EndReason::MoveLimit, margin: None }
    }

    fn standing(&self, side: Side) -> i32 {
        let free: u32 = Squares(self.controlled(side)).map(|sq| self.stack(sq).count(side)).sum();
        (free + self.reserve(side)) as i32
    }

    fn describe_standing(&self) -> String {
        format!(
            "pieces in play (free + reserve) White {}, Black {}",
            self.standing(Side::White),
            self.standing(Side::Black)
        )
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for sq in Squares(BOARD) {
            h ^= stack_key(self.stacks[sq as usize], sq);
        }
        h ^= reserve_key(0, self.reserve[0]) ^ reserve_key(1, self.reserve[1]);
        if self.side == Side::Black {
            h ^= SIDE_KEY;
        }
        h
    }

    fn parse_move(&self, text: &str) -> Result<FocusMove, MoveError> {
        self.parse_move_text(text)
    }

    fn format_move(&self, mv: FocusMove) -> String {
        format_move(mv)
    }

    fn pass_move() -> FocusMove {
        FocusMove::PASS
    }

    fn render(&self, style: RenderStyle) -> String {
        self.render_board(style)
    }

    fn move_info(&self, mv: FocusMove) -> MoveInfo {
        super::board::move_info(self, mv)
    }

    fn move_from_bytes(bytes: [u8; 3]) -> FocusMove {
        super::board::move_from_bytes(bytes)
    }
}

/// A move in the notation; needs no position.
pub fn format_move(mv: FocusMove) -> String {
    use super::geometry::{is_square, square_name};
    let needs_from = matches!(mv.kind, MoveKind::Group | MoveKind::Jump);
    if mv.kind != MoveKind::Pass && (!is_square(mv.to) || (needs_from && !is_square(mv.from))) {
        return format!("(no such move: from {} to {})", mv.from, mv.to);
    }
    match mv.kind {
        MoveKind::Group => format!("{}-{}", square_name(mv.from), square_name(mv.to)),
        MoveKind::Jump => format!("{}x{}", square_name(mv.from), square_name(mv.to)),
        MoveKind::Drop => format!("@{}", square_name(mv.to)),
        MoveKind::Pass => "pass".to_string(),
    }
}
