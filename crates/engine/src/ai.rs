//! Choosing a move: the one facade over the searcher that the protocol,
//! the terminal, the match runner and the server call. [`choose`] plays at
//! a level (noise included), [`search`] at full strength within limits;
//! [`choose_any`] and [`search_any`] do the same for a game of any kind,
//! with moves in notation.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use monte_rules::any::AnyGame;
use monte_rules::game::{Game, RepetitionRule};
use monte_rules::{GameKind, MoveList, Position, Rng, each_game, with_game};

use crate::eval::EngineGame;
use crate::levels::Level;
use crate::limits::{Clock, Limits};
use crate::score::Score;
use crate::search::{PvLine, SearchInfo, Searcher, line_text};

/// A move chosen by the engine, and what the search found on the way.
/// `M` is the game's move type, or `String` (notation) for [`AnyGame`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice<M> {
    /// The move to play.
    pub mv: M,
    /// From the point of view of the side that moves.
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    /// The expected line, starting with the move (may be just the move).
    pub pv: Vec<M>,
}

impl<M: Copy + PartialEq> Choice<M> {
    /// The same choice with its moves in notation.
    fn in_notation<P: Position<Move = M>>(self, root: &P) -> Choice<String> {
        let mut pos = root.clone();
        let pv = self
            .pv
            .iter()
            .map(|&mv| {
                let text = pos.format_move(mv);
                pos.play_unchecked(mv);
                text
            })
            .collect();
        Choice {
            mv: root.format_move(self.mv),
            score: self.score,
            depth: self.depth,
            nodes: self.nodes,
            time: self.time,
            pv,
        }
    }
}

/// Why no move was chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AiError {
    #[error("the game is over")]
    GameOver,
}

/// Search at full strength within `limits` from the game's position (its
/// history gives repetition). `on_info` hears every completed iteration.
pub fn search<P: EngineGame>(
    searcher: &Searcher,
    game: &Game<P>,
    limits: &Limits,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> Result<Choice<P::Move>, AiError>
where
    P::Rules: RepetitionRule,
{
    if game.status().is_over() {
        return Err(AiError::GameOver);
    }
    let started = Instant::now();
    let root = game.position();
    let result = searcher.search(root, &game.earlier_hashes(), limits, stop, on_info);
    let best = result.best.ok_or(AiError::GameOver)?;
    // The principal variation, as far as it stays legal, when it starts
    // with the move.
    let mut pv = Vec::new();
    let mut pos = root.clone();
    for &mv in &result.pv {
        if pos.status().is_over() || !pos.is_legal(mv) {
            break;
        }
        pv.push(mv);
        pos.play_unchecked(mv);
    }
    if pv.first() != Some(&best) {
        pv = vec![best];
    }
    Ok(Choice { mv: best, score: result.score, depth: result.depth, nodes: result.nodes, time: started.elapsed(), pv })
}

/// Choose a move in `game` (its history gives repetition) at `level`,
/// with an optional clock (which replaces the level's time per move).
/// `stop` ends the search early; `on_info` hears every completed iteration
/// of levels that search without noise.
pub fn choose<P: EngineGame>(
    searcher: &Searcher,
    game: &Game<P>,
    level: &Level,
    clock: Option<Clock>,
    noise: &mut Rng,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> Result<Choice<P::Move>, AiError>
where
    P::Rules: RepetitionRule,
{
    let limits = level.limits(clock);
    if level.noise == 0 {
        return search(searcher, game, &limits, stop, on_info);
    }
    if game.status().is_over() {
        return Err(AiError::GameOver);
    }
    let started = Instant::now();
    let pos = game.position();
    let history = game.earlier_hashes();
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
        .filter(|_| level.plan_share >= 100 || noise.unit() * 100.0 < f64::from(level.plan_share));
    let weighed = |&(mv, s): &(P::Move, i32)| s + if planned == Some(mv) { crate::search::PLAN_MARGIN } else { 0 };
    let best = scored.iter().map(weighed).max().unwrap_or(0);
    let t = level.noise.max(1) as f64;
    let weights: Vec<f64> = scored.iter().map(|m| (((weighed(m) - best) as f64) / t).max(-50.0).exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut pick = noise.unit() * total;
    let mut chosen = scored[0];
    for (i, w) in weights.iter().enumerate() {
        if pick < *w {
            chosen = scored[i];
            break;
        }
        pick -= w;
    }
    let (mv, score) = chosen;
    Ok(Choice {
        mv,
        score: Score::from_internal(score),
        depth: depth + 1,
        nodes,
        time: started.elapsed(),
        pv: vec![mv],
    })
}

/// [`choose`] for a game of any kind, with moves in notation.
pub fn choose_any(
    searcher: &Searcher,
    game: &AnyGame,
    level: &Level,
    clock: Option<Clock>,
    noise: &mut Rng,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> Result<Choice<String>, AiError> {
    each_game!(game, g => Ok(choose(searcher, g, level, clock, noise, stop, on_info)?.in_notation(g.position())))
}

/// [`search`] for a game of any kind, with moves in notation.
pub fn search_any(
    searcher: &Searcher,
    game: &AnyGame,
    limits: &Limits,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> Result<Choice<String>, AiError> {
    each_game!(game, g => Ok(search(searcher, g, limits, stop, on_info)?.in_notation(g.position())))
}

/// The best `lines` moves of the game's position and their lines
/// ([`Searcher::analyse`]), best first; its history gives repetition.
pub fn analyse_any(
    searcher: &Searcher,
    game: &AnyGame,
    limits: &Limits,
    lines: usize,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> Result<Vec<PvLine>, AiError> {
    if game.status().is_over() {
        return Err(AiError::GameOver);
    }
    each_game!(game, g => {
        let root = g.position();
        let found = searcher.analyse(root, &g.earlier_hashes(), limits, lines, stop, on_info);
        Ok(found.into_iter().map(|(score, line)| PvLine { score, pv: line_text(root, &line) }).collect())
    })
}

/// The scale of a game's evaluation ([`EngineGame::eval_scale`]), for
/// [`Score::expected`].
pub fn eval_scale(kind: GameKind) -> f64 {
    with_game!(kind, P => P::eval_scale())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchOptions;
    use monte_rules::GameKind;
    use monte_rules::salta::{SaltaPosition, SaltaRules};

    #[test]
    fn a_choice_in_notation_plays_its_line() {
        let searcher = Searcher::new(SearchOptions { hash_mb: 1, ..Default::default() });
        let stop = AtomicBool::new(false);
        for kind in GameKind::ALL {
            let game = AnyGame::new(kind, "seed", None).unwrap();
            let choice = search_any(&searcher, &game, &Limits::depth(4), &stop, &mut |_| {}).unwrap();
            assert_eq!(choice.pv.first(), Some(&choice.mv), "{kind}");
            let mut line = game.clone();
            for mv in &choice.pv {
                line.play(mv).unwrap();
            }
            let level = crate::level(1).unwrap();
            let choice = choose_any(&searcher, &game, &level, None, &mut Rng::new(3), &stop, &mut |_| {}).unwrap();
            assert_eq!(choice.pv, std::slice::from_ref(&choice.mv), "{kind}");
            game.clone().play(&choice.mv).unwrap();
        }
    }

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
                    let mut noise = Rng::new(seed);
                    let mv = choose(&searcher, &game, &level, None, &mut noise, &stop, &mut |_| {}).unwrap().mv;
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
