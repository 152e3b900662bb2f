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

impl Score {
    /// The side to move's expected score, 0 (a loss) to 1 (a win): a won
    /// or lost game as it is, units through the logistic curve of the
    /// game's fitted scale (`EngineGame::eval_scale`), as the tuner fits
    /// the evaluation to game results.
    pub fn expected(self, scale: f64) -> f64 {
        match self {
            Score::Units(u) => 1.0 / (1.0 + (-f64::from(u) / scale).exp()),
            Score::WinIn(_) => 1.0,
            Score::LossIn(_) => 0.0,
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
