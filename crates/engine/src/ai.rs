//! Choosing a move for a game of either kind: what the protocol, the
//! terminal and the server call.

use std::sync::atomic::AtomicBool;

use monte_rules::any::AnyGame;
use monte_rules::game::{Game, RepetitionRule};
use monte_rules::{MoveList, Position};

use crate::eval::EngineGame;
use crate::levels::Level;
use crate::limits::{Clock, Limits};
use crate::score::Score;
use crate::search::{SearchInfo, SearchOptions, Searcher};

/// A move chosen by the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AiMove {
    /// In notation, ready for `AnyGame::play`.
    pub notation: String,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
}

/// Why no move was chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AiError {
    #[error("the game is over")]
    GameOver,
}

/// A small deterministic random generator for the levels' noise.
#[derive(Clone, Debug)]
pub struct Noise(u64);

impl Noise {
    pub fn new(seed: u64) -> Self {
        Noise(seed | 1)
    }
    fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Choose a move in `game` (its history gives repetition) at `level`,
/// with an optional clock. `stop` ends the search early.
pub fn choose_in<P: EngineGame>(
    searcher: &Searcher,
    game: &Game<P>,
    level: &Level,
    clock: Option<Clock>,
    noise: &mut Noise,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> Result<(P::Move, Score, u32, u64), AiError>
where
    P::Rules: RepetitionRule,
{
    if game.status().is_over() {
        return Err(AiError::GameOver);
    }
    let pos = game.position();
    let history: Vec<u64> = (0..game.moves().len()).filter_map(|i| game.position_after(i)).map(|p| p.hash()).collect();
    let limits = level.limits(clock);
    if level.noise == 0 {
        let r = searcher.search(pos, &history, &limits, stop, on_info);
        let best = r.best.ok_or(AiError::GameOver)?;
        return Ok((best, r.score, r.depth, r.nodes));
    }
    // A weakened player: score every root move with a shallower search and
    // pick among them at random, better moves more often.
    let mut moves = MoveList::new();
    pos.generate(&mut moves);
    // Its calls have a purpose, as in the full search: a weakened player
    // that called on every other move (level 2 did, 200-330 times a
    // game) kept the melee going and never got home. (Every call has a
    // twin without the call, so moves remain.)
    let purposeful = !searcher.options().classic && crate::search::purposeful(pos, pos.side_to_move());
    if purposeful {
        moves.retain(|mv| !pos.is_pointless(*mv));
    }
    let depth = level.depth.unwrap_or(2).saturating_sub(1);
    // Every root move is scored at the same depth, deepening pass by pass
    // up to the level's depth while the level's time (or the clock's
    // share) lasts: a pass cut short by the time is thrown away, so that
    // no move's score comes from a shallower search than another's (which
    // biases the choice by the parity of the depth).
    let started = std::time::Instant::now();
    let budget = limits.time_budget().map(|(soft, _)| soft).unwrap_or(level.movetime);
    let mut nodes = 0;
    let mut child_history = history.clone();
    child_history.push(pos.hash());
    let me = pos.side_to_move();
    // A draw (a repetition the move itself makes) costs what it costs the
    // full search: the contempt, the most when not behind.
    let contempt = searcher.options().contempt.clamp(-crate::MAX_CONTEMPT, crate::MAX_CONTEMPT);
    let draw_cost = if contempt > 0 && purposeful { crate::search::PURPOSEFUL_CONTEMPT } else { contempt };
    let children: Vec<(P::Move, P)> = moves
        .iter()
        .map(|&mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            (mv, child)
        })
        .collect();
    nodes += children.len() as u64;
    // Internal scores from the mover's side; a result one ply away is a win
    // or loss in 1. Pass 0 is the evaluation of each child, always complete.
    let score_of = |child: &P, searched: Option<Score>| match child.status() {
        monte_rules::Status::Over(o) => match o.winner {
            Some(w) if w == me => crate::score::WIN - 1,
            Some(_) => -crate::score::WIN + 1,
            None => -draw_cost,
        },
        monte_rules::Status::Ongoing => match searched {
            None => -child.evaluate(),
            Some(Score::Units(u)) => -u,
            Some(Score::WinIn(p)) => -crate::score::WIN + 1 + p as i32,
            Some(Score::LossIn(p)) => crate::score::WIN - 1 - p as i32,
        },
    };
    let mut scored: Vec<(P::Move, i32)> = children.iter().map(|(mv, child)| (*mv, score_of(child, None))).collect();
    let mut reached = 0;
    for child_depth in 1..=depth {
        let mut pass = Vec::with_capacity(children.len());
        for (mv, child) in &children {
            let searched = if child.status().is_over() {
                None
            } else {
                let left = budget.saturating_sub(started.elapsed());
                if left.is_zero() {
                    break;
                }
                let child_limits = Limits { depth: Some(child_depth), movetime: Some(left), ..Limits::default() };
                let r = searcher.search_for(me, child, &child_history, &child_limits, stop, &mut |_| {});
                nodes += r.nodes;
                // Cut short by the time (a forced result ends a search
                // before its depth, and is final).
                if r.depth < child_depth && matches!(r.score, Score::Units(_)) {
                    break;
                }
                Some(r.score)
            };
            pass.push((*mv, score_of(child, searched)));
        }
        if pass.len() < children.len() || stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        scored = pass;
        reached = child_depth;
    }
    let depth = reached;
    // A plan (a Salta army on its way home) is worth its margin here as
    // in the full search, on the level's share of its moves: a weakened
    // player still makes its mistakes in the fight, but brings its pieces
    // home, instead of wandering as much as it advances. (The score
    // reported is the move's own. No draw without a plan, so that a game
    // without plans, Focus, plays as before.)
    let planned = crate::search::fresh_plan(pos, &history)
        .filter(|_| level.plan_share >= 100 || noise.next_f64() * 100.0 < f64::from(level.plan_share));
    let weighed = |&(mv, s): &(P::Move, i32)| s + if planned == Some(mv) { crate::search::PLAN_MARGIN } else { 0 };
    let best = scored.iter().map(weighed).max().unwrap_or(0);
    let t = level.noise.max(1) as f64;
    let weights: Vec<f64> = scored.iter().map(|m| (((weighed(m) - best) as f64) / t).max(-50.0).exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut pick = noise.next_f64() * total;
    let mut chosen = scored[0];
    for (i, w) in weights.iter().enumerate() {
        if pick < *w {
            chosen = scored[i];
            break;
        }
        pick -= w;
    }
    Ok((chosen.0, Score::from_internal(chosen.1), depth + 1, nodes))
}

/// Choose a move for a game of either kind.
pub fn choose(
    game: &AnyGame,
    level: &Level,
    clock: Option<Clock>,
    seed: u64,
    stop: &AtomicBool,
) -> Result<AiMove, AiError> {
    let searcher = Searcher::new(SearchOptions { hash_mb: 16, threads: level.threads, ..Default::default() });
    let mut noise = Noise::new(seed);
    let (notation, score, depth, nodes) = match game {
        AnyGame::Salta(g) => {
            let (m, s, d, n) = choose_in(&searcher, g, level, clock, &mut noise, stop, &mut |_| {})?;
            (g.position().format_move(m), s, d, n)
        }
        AnyGame::Focus(g) => {
            let (m, s, d, n) = choose_in(&searcher, g, level, clock, &mut noise, stop, &mut |_| {})?;
            (g.position().format_move(m), s, d, n)
        }
    };
    Ok(AiMove { notation, score, depth, nodes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use monte_rules::salta::{SaltaPosition, SaltaRules};

    #[test]
    fn a_weakened_level_calls_with_a_purpose() {
        // Along a random game, wherever level 1 is not behind and has calls
        // that drive nobody off its targets, it never chooses one of them,
        // whatever its noise draws.
        let searcher = Searcher::new(SearchOptions { hash_mb: 1, ..Default::default() });
        let level = crate::level(1).unwrap();
        let stop = AtomicBool::new(false);
        let mut rng = monte_rules::Rng::new(5);
        let mut game = Game::new(SaltaPosition::start(SaltaRules::seed()));
        let mut tried = 0;
        for _ in 0..60 {
            let pos = game.position().clone();
            let mut moves = MoveList::new();
            pos.generate(&mut moves);
            let me = pos.side_to_move();
            let behind = pos.distance(me) > pos.distance(!me) + 4;
            if !behind && moves.iter().any(|&mv| pos.is_pointless(mv)) {
                for seed in 0..16 {
                    let mut noise = Noise::new(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(seed + 1));
                    let (mv, ..) = choose_in(&searcher, &game, &level, None, &mut noise, &stop, &mut |_| {}).unwrap();
                    assert!(!pos.is_pointless(mv), "{} at {}", pos.format_move(mv), pos.fen());
                }
                tried += 1;
            }
            game.play(moves[rng.below(moves.len())]).unwrap();
            if game.status().is_over() {
                break;
            }
        }
        assert!(tried > 5, "{tried}");
    }
}
