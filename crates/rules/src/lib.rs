//! Exact rules of Salta (Monte Carlo, 1900) and Focus (the stacking game).
//!
//! Both games implement [`Position`]: a validated, cheaply copyable game
//! position with move generation, checked and unchecked play, Zobrist
//! hashing and notation. Search, protocol, store and server are written once
//! against this trait. Game-level policy that needs history (threefold
//! repetition, undo) lives in [`Game`].
//!
//! Rules are values: [`salta::SaltaRules`] and [`focus::FocusRules`] are
//! small `Copy` structs of options with named presets.

pub mod any;
pub mod bits;
pub mod board;
pub mod error;
pub mod focus;
pub mod game;
pub mod perft;
pub mod playout;
pub mod position;
pub mod record;
mod rng;
pub mod salta;
pub mod side;
mod zobrist;

pub use error::{MoveError, PositionError, RulesError};
pub use game::Game;
pub use position::{
    EndReason, GameKind, MAX_MOVES, MoveList, Outcome, Position, RenderStyle, RuleSet, Status, result_string,
};
pub use rng::Rng;
pub use side::Side;
