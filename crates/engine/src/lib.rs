//! Monte's engine: search and evaluation for Salta and Focus, written once
//! for both games through [`monte_rules::Position`] and [`EngineGame`].

pub mod bench;
pub mod eval;
pub mod limits;
pub mod score;
pub mod search;
#[cfg(feature = "toy")]
mod toy;
pub mod tt;

pub use eval::EngineGame;
pub use limits::{Clock, Limits};
pub use score::Score;
pub use search::{DEFAULT_CONTEMPT, MAX_CONTEMPT, PvLine, SearchInfo, SearchOptions, SearchResult, Searcher};
pub mod ai;
pub mod levels;
pub mod mcts;
pub mod opponents;
pub mod race;

pub use ai::{AiError, Choice};
pub use levels::{LEVELS, Level, level};
