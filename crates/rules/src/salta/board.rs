//! Salta for a board that knows no rules: the dark squares of a 10x10
//! grid, moves described by their squares, each piece's target.

use super::geometry::{BOARD, square_at, square_name};
use super::position::{Kind, Piece, SaltaMove, SaltaPosition};
use crate::bits::nth_square;
use crate::board::{BoardLayout, MoveInfo, MoveShape};
use crate::position::Position;
use crate::side::Side;

/// Salta's 50 dark squares of a 10x10 grid.
pub(crate) fn layout() -> BoardLayout {
    BoardLayout::from_grid(10, 10, 15, |file, rank| square_at(file, rank).map(square_name))
}

/// A move described in `pos`, the position it is played in.
pub(crate) fn move_info(pos: &SaltaPosition, m: SaltaMove) -> MoveInfo {
    let notation = pos.format_move(m);
    if m.is_pass() {
        return MoveInfo::pass(notation);
    }
    let path = if m.is_jump() {
        pos.jump_path(m.from, m.to).unwrap_or_default().into_iter().map(square_name).collect()
    } else {
        Vec::new()
    };
    MoveInfo {
        notation,
        kind: if m.is_jump() { MoveShape::Jump } else { MoveShape::Step },
        from: Some(square_name(m.from)),
        to: Some(square_name(m.to)),
        call: m.call,
        path,
        count: None,
    }
}

/// Every piece's token and its target under the position's rules.
pub(crate) fn targets(pos: &SaltaPosition) -> Vec<(String, String)> {
    let pieces = Side::BOTH.into_iter().flat_map(|side| {
        Kind::ALL.into_iter().flat_map(move |kind| (1..=5).map(move |number| Piece { side, kind, number }))
    });
    pieces.map(|piece| (piece.token(), square_name(pos.target(piece)))).collect()
}

/// See [`Position::move_from_bytes`].
pub(crate) fn move_from_bytes(b: [u8; 3]) -> SaltaMove {
    let call = b[2] & 1 != 0;
    if b[2] & 0x80 != 0 {
        // The pass move's squares, or anything else.
        return SaltaMove { from: b[0], to: b[1], call };
    }
    SaltaMove { from: nth_square(BOARD, b[0]), to: nth_square(BOARD, b[1]), call }
}
