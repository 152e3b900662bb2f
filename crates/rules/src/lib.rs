//! Exact rules of Salta (Monte Carlo, 1900) and Focus (the stacking game).
//!
//! Every game implements [`Position`]: a validated, cheaply copyable game
//! position with move generation, checked and unchecked play, Zobrist
//! hashing and notation. Search, protocol, store and server are written once
//! against this trait. Game-level policy that needs history (threefold
//! repetition, undo) lives in [`Game`].
//!
//! Rules are values: [`salta::SaltaRules`] and [`focus::FocusRules`] are
//! small `Copy` structs of options with named presets.
//!
//! The games are named once, in the `games!` list below (see
//! [`registry`]): it makes [`GameKind`], [`AnyGame`] and the dispatch
//! macros [`with_game!`] and [`each_game!`].

#[macro_use]
pub mod registry;

// The games: one line each (before the modules, which use the macros
// the list makes).
games! {
    Salta => "salta", salta::SaltaPosition;
    Focus => "focus", focus::FocusPosition;
    #[cfg(feature = "toy")]
    Toy => "toy", toy::ToyPosition;
}

pub mod any;
pub mod bits;
pub mod board;
pub mod encoding;
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
#[cfg(feature = "toy")]
pub mod toy;
mod zobrist;

pub use encoding::Encoding;
pub use error::{MoveError, PositionError, RulesError};
pub use game::Game;
pub use position::{EndReason, MAX_MOVES, MoveList, Outcome, Position, RenderStyle, RuleSet, Status, result_string};
pub use rng::Rng;
pub use side::Side;
