//! Toy: a race across a 3x4 board, for tests only (the `toy` feature).
//!
//! It exists to show that a game is its folder plus one line in the list
//! of games (`games!` in `lib.rs`): with the feature on, the CLI, the
//! match runner, the protocol and the server play it with no code of
//! their own.
//!
//! The rules: files a-c, ranks 1-4. White starts with three pieces on
//! rank 1, Black with three on rank 4, and White moves first. A piece
//! steps one square forward (up for White, down for Black), straight or
//! diagonally, onto an empty square; nothing is captured. A side with no
//! step passes. The first side to bring a piece onto the far rank (the
//! other side's start) wins. Threefold repetition is a draw, and so is a
//! game that reaches the rule set's move limit (`seed`: 10 moves per
//! side).

mod encoding;
mod position;
mod rules;

pub use position::{ToyMove, ToyPosition};
pub use rules::ToyRules;

/// The start position string.
pub const START_FEN: &str = "b,b,b/.,.,./.,.,./w,w,w w 0";

/// Files (a-c) and ranks (1-4) of the board.
pub const FILES: u8 = 3;
pub const RANKS: u8 = 4;
/// Pieces per side.
pub const PIECES: u8 = 3;
