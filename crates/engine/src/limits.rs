//! What bounds a search, and how long to think (time management).

use std::time::Duration;

/// A chess-style clock for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub time_left: Duration,
    pub increment: Duration,
    /// Moves until the next time control, if any.
    pub moves_to_go: Option<u32>,
}

/// Search limits; several may be set, the first reached stops the search.
/// With none set the search runs until told to stop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    pub clock: Option<Clock>,
}

impl Limits {
    pub fn depth(d: u32) -> Self {
        Limits { depth: Some(d), ..Limits::default() }
    }
    pub fn nodes(n: u64) -> Self {
        Limits { nodes: Some(n), ..Limits::default() }
    }
    pub fn movetime(t: Duration) -> Self {
        Limits { movetime: Some(t), ..Limits::default() }
    }

    /// Whether the search is bounded only by depth and nodes (and so is
    /// deterministic with one thread).
    pub fn is_deterministic(&self) -> bool {
        self.movetime.is_none() && self.clock.is_none() && (self.depth.is_some() || self.nodes.is_some())
    }

    /// (soft, hard): no new iteration starts after `soft`; the search stops
    /// at `hard`.
    pub fn time_budget(&self) -> Option<(Duration, Duration)> {
        let mut budget: Option<(Duration, Duration)> = None;
        if let Some(t) = self.movetime {
            budget = Some((t, t));
        }
        if let Some(c) = self.clock {
            // Spread the time over the moves to come, keep a reserve for
            // the overhead of a move, never use more than a third at once.
            let reserve = Duration::from_millis(30).min(c.time_left / 10);
            let usable = c.time_left.saturating_sub(reserve);
            let moves = c.moves_to_go.unwrap_or(30).clamp(1, 60);
            let share = usable / moves + c.increment * 3 / 4;
            let hard = (share * 3).min(usable / 3).max(Duration::from_millis(1));
            let soft = share.min(hard);
            budget = Some(match budget {
                Some((s, h)) => (s.min(soft), h.min(hard)),
                None => (soft, hard),
            });
        }
        budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_budget_leaves_time_on_the_clock() {
        let c = Clock { time_left: Duration::from_secs(60), increment: Duration::from_secs(1), moves_to_go: None };
        let (soft, hard) = Limits { clock: Some(c), ..Limits::default() }.time_budget().unwrap();
        assert!(soft <= hard && hard <= Duration::from_secs(20));
        assert!(soft >= Duration::from_secs(2));
        let low = Clock { time_left: Duration::from_millis(50), increment: Duration::ZERO, moves_to_go: None };
        let (_, hard) = Limits { clock: Some(low), ..Limits::default() }.time_budget().unwrap();
        assert!(hard < Duration::from_millis(50));
    }
}
