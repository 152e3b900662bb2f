//! Focus for a board that knows no rules: the 8x8 grid without its
//! corners, moves described by their squares.

use super::PIECES;
use super::geometry::{BOARD, square_at, square_name};
use super::position::{FocusMove, FocusPosition, MoveKind};
use crate::bits::nth_square;
use crate::board::{BoardLayout, MoveInfo, MoveShape};
use crate::position::Position;

/// Focus's 52 squares of an 8x8 grid without its corners.
pub(crate) fn layout() -> BoardLayout {
    BoardLayout::from_grid(8, 8, PIECES, |file, rank| square_at(file, rank).map(square_name))
}

/// A move described in `pos`, the position it is played in.
pub(crate) fn move_info(pos: &FocusPosition, m: FocusMove) -> MoveInfo {
    let notation = pos.format_move(m);
    let (kind, from, count) = match m.kind {
        MoveKind::Pass => return MoveInfo::pass(notation),
        MoveKind::Group => (MoveShape::Group, Some(square_name(m.from)), Some(m.group_size())),
        MoveKind::Jump => (MoveShape::Jump, Some(square_name(m.from)), Some(1)),
        MoveKind::Drop => (MoveShape::Drop, None, None),
    };
    MoveInfo { notation, kind, from, to: Some(square_name(m.to)), call: false, path: Vec::new(), count }
}

/// See [`Position::move_from_bytes`].
pub(crate) fn move_from_bytes(b: [u8; 3]) -> FocusMove {
    let kind = match b[2] & 3 {
        0 => MoveKind::Group,
        1 => MoveKind::Jump,
        2 => MoveKind::Drop,
        _ => MoveKind::Pass,
    };
    if b[2] & 0x80 != 0 {
        return FocusMove { kind, from: b[0], to: b[1] };
    }
    FocusMove { kind, from: nth_square(BOARD, b[0]), to: nth_square(BOARD, b[1]) }
}
