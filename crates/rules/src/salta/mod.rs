//! Salta: the race game of Monte Carlo, 1900.

mod board;
mod encoding;
pub mod geometry;
mod movegen;
mod notation;
mod position;
mod render;
pub mod rules;

pub use geometry::{Dir, Square};
pub use position::{Kind, Piece, SaltaMove, SaltaPosition};
pub use rules::{Chains, Goal, LimitResult, SaltaPreset, SaltaRules};

/// The start position string of every rule set.
pub const START_FEN: &str = "s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,o3,o2,o1/.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 0";
