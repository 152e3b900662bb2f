//! Scripted Salta opponents for tests and matches: each plays one plan
//! without search, so that what the engine does against that plan can be
//! measured (`monte match --engine2 runner`, `--engine2 blocker`).
//!
//! - The **runner** races home and ignores the opponent: it plays the move
//!   that brings its pieces nearest home (a jump chain when one carries a
//!   piece further), never calls, and among equals picks at random.
//! - The **blocker** keeps its pieces on the opponent's targets (its own
//!   starting squares) and shuffles the others: it plays the move that
//!   leaves the most of its pieces on the opponent's targets, then the one
//!   that keeps the pieces off them closest to those squares, never calls.

use monte_rules::Rng;
use monte_rules::salta::geometry::DISTANCE;
use monte_rules::salta::{SaltaMove, SaltaPosition};
use monte_rules::{MoveList, Position};

/// A scripted opponent's plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script {
    Runner,
    Blocker,
}

impl Script {
    pub const fn name(self) -> &'static str {
        match self {
            Script::Runner => "runner",
            Script::Blocker => "blocker",
        }
    }
}

/// The best-rated legal move, ties broken by `rng`; calls are never made
/// (a call only changes what the opponent must do next). `None` when the
/// game is over.
fn pick(pos: &SaltaPosition, rng: &mut Rng, rate: impl Fn(&SaltaPosition, SaltaMove) -> i64) -> Option<SaltaMove> {
    let mut moves = MoveList::new();
    pos.generate(&mut moves);
    let mut best: Vec<SaltaMove> = Vec::new();
    let mut best_rate = i64::MIN;
    for &mv in moves.iter().filter(|m| !m.call) {
        let r = rate(pos, mv);
        if r > best_rate {
            best_rate = r;
            best.clear();
        }
        if r == best_rate {
            best.push(mv);
        }
    }
    if best.is_empty() {
        // Only calls are legal (never: each call has a twin without one),
        // or nothing: the game is over.
        return moves.first().copied();
    }
    Some(best[(rng.next_u64() % best.len() as u64) as usize])
}

/// How many steps a move brings its own piece nearer its target.
fn progress(pos: &SaltaPosition, mv: SaltaMove) -> i64 {
    if mv.is_pass() {
        return 0;
    }
    let target = pos.target_of_square(mv.from).unwrap_or(mv.from) as usize;
    DISTANCE[mv.from as usize][target] as i64 - DISTANCE[mv.to as usize][target] as i64
}

/// The runner's move.
pub fn runner_move(pos: &SaltaPosition, rng: &mut Rng) -> Option<SaltaMove> {
    pick(pos, rng, progress)
}

/// The blocker's move.
pub fn blocker_move(pos: &SaltaPosition, rng: &mut Rng) -> Option<SaltaMove> {
    let me = pos.side_to_move();
    let theirs = pos.target_set(!me);
    pick(pos, rng, |pos, mv| {
        if mv.is_pass() {
            return 0;
        }
        let mut after = pos.clone();
        after.play_unchecked(mv);
        let own = after.pieces(me);
        let held = (own & theirs).count_ones() as i64;
        // Pieces off the targets stay as close to them as they can.
        let straying: i64 = monte_rules::salta::geometry::Squares(own & !theirs)
            .map(|sq| {
                monte_rules::salta::geometry::Squares(theirs)
                    .map(|t| DISTANCE[sq as usize][t as usize])
                    .min()
                    .unwrap_or(0) as i64
            })
            .sum();
        held * 1000 - straying
    })
}

/// The move of `script` in `pos`.
pub fn scripted_move(script: Script, pos: &SaltaPosition, rng: &mut Rng) -> Option<SaltaMove> {
    match script {
        Script::Runner => runner_move(pos, rng),
        Script::Blocker => blocker_move(pos, rng),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use monte_rules::Side;
    use monte_rules::salta::SaltaRules;

    #[test]
    fn the_runner_races_and_the_blocker_stays() {
        let mut rules = SaltaRules::seed();
        rules.move_limit = Some(60);
        let mut pos = SaltaPosition::start(rules);
        let mut rng = Rng::new(3);
        let start_black = pos.distance(Side::Black);
        // White runs, Black blocks, for 60 moves a side.
        while !pos.status().is_over() {
            let mv = match pos.side_to_move() {
                Side::White => runner_move(&pos, &mut rng),
                Side::Black => blocker_move(&pos, &mut rng),
            }
            .unwrap();
            assert!(!mv.call);
            pos.play(mv).unwrap();
        }
        // The blocker never left more than a piece off White's targets.
        let off = 15 - (pos.pieces(Side::Black) & pos.target_set(Side::White)).count_ones();
        assert!(off <= 1, "{pos:?}");
        assert!(pos.distance(Side::Black) + 2 >= start_black);
        // The runner made progress up to the blocked squares.
        assert!(pos.distance(Side::White) < 60, "{pos:?}");
    }
}
