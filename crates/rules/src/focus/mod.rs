//! Focus: the stacking game (Sid Sackson, 1963), in the form of the source
//! text.

mod board;
mod encoding;
pub mod geometry;
mod notation;
mod position;
mod render;
pub mod rules;

pub use geometry::{Dir, Square};
pub use position::{FocusMove, FocusPosition, Material, MoveKind, Stack};
pub use rules::{FocusPreset, FocusRules, GroupMoves};

/// The start position string of every rule set.
pub const START_FEN: &str =
    ".,.,.,./b,b,w,w,b,b/.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./w,w,b,b,w,w/.,.,.,. w 0 0 0";

/// Pieces per side.
pub const PIECES: u8 = 18;
/// The highest stack.
pub const MAX_HEIGHT: u32 = 5;
