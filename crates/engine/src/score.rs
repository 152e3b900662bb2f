//! Search scores: evaluation units ("centi-steps" in Salta, "centi-pieces"
//! in Focus) and won/lost positions as distance-to-end scores.

/// A won game at the root; `WIN - ply` is a win `ply` plies away.
pub const WIN: i32 = 30_000;
/// Scores beyond this are wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Larger than any score.
pub const INFINITY: i32 = 32_000;

/// A score as shown to people and protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Evaluation units from the side to move's point of view.
    Units(i32),
    /// The side to move wins in this many plies.
    WinIn(u32),
    /// The side to move loses in this many plies.
    LossIn(u32),
}

impl Score {
    pub fn from_internal(s: i32) -> Score {
        if s >= WIN_BOUND {
            Score::WinIn((WIN - s) as u32)
        } else if s <= -WIN_BOUND {
            Score::LossIn((WIN + s) as u32)
        } else {
            Score::Units(s)
        }
    }
}

impl std::fmt::Display for Score {
    /// `cp 35`, `win 7`, `loss 4` (protocol style).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Units(u) => write!(f, "cp {u}"),
            Score::WinIn(p) => write!(f, "win {p}"),
            Score::LossIn(p) => write!(f, "loss {p}"),
        }
    }
}
