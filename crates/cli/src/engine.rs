//! The engine for a game of either kind, with moves as text: what
//! `monte play` and `monte ugi` ask of `monte_engine`.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use monte_engine::ai::{AiError, Noise, choose_in};
use monte_engine::{Clock, EngineGame, Level, Limits, Score, SearchInfo, Searcher};
use monte_rules::Game;
use monte_rules::any::AnyGame;
use monte_rules::game::RepetitionRule;

/// A move chosen by the engine, in notation.
#[derive(Clone, Debug)]
pub struct Choice {
    pub notation: String,
    /// From the point of view of the side that moves.
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    /// The expected line, starting with the move (may be just the move).
    pub pv: Vec<String>,
}

/// Choose a move at `level` (a clock, if given, replaces the level's time
/// per move). `on_info` hears every completed iteration of levels that
/// search without noise.
pub fn choose(
    searcher: &Searcher,
    game: &AnyGame,
    level: &Level,
    clock: Option<Clock>,
    noise: &mut Noise,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> Result<Choice, AiError> {
    fn pick<P: EngineGame>(
        searcher: &Searcher,
        game: &Game<P>,
        level: &Level,
        clock: Option<Clock>,
        noise: &mut Noise,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<Choice, AiError>
    where
        P::Rules: RepetitionRule,
    {
        let start = std::time::Instant::now();
        let mut pv = Vec::new();
        let (mv, score, depth, nodes) = choose_in(searcher, game, level, clock, noise, stop, &mut |info| {
            pv = info.pv.clone();
            on_info(info);
        })?;
        let notation = game.position().format_move(mv);
        // The last iteration's line, when it starts with the chosen move
        // (a noisy level may choose another).
        if pv.first() != Some(&notation) {
            pv = vec![notation.clone()];
        }
        Ok(Choice { notation, score, depth, nodes, time: start.elapsed(), pv })
    }
    match game {
        AnyGame::Salta(g) => pick(searcher, g, level, clock, noise, stop, on_info),
        AnyGame::Focus(g) => pick(searcher, g, level, clock, noise, stop, on_info),
    }
}

/// Search at full strength within `limits`. `on_info` hears every
/// completed iteration.
pub fn search(
    searcher: &Searcher,
    game: &AnyGame,
    limits: &Limits,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> Result<Choice, AiError> {
    fn run<P: EngineGame>(
        searcher: &Searcher,
        game: &Game<P>,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Result<Choice, AiError>
    where
        P::Rules: RepetitionRule,
    {
        if game.status().is_over() {
            return Err(AiError::GameOver);
        }
        let root = game.position();
        // The positions before the root, for repetition.
        let history: Vec<u64> =
            (0..game.moves().len()).filter_map(|i| game.position_after(i)).map(|p| p.hash()).collect();
        let result = searcher.search(root, &history, limits, stop, on_info);
        let best = result.best.ok_or(AiError::GameOver)?;
        // The principal variation in notation, as far as it stays legal.
        let mut pv = Vec::new();
        let mut pos = root.clone();
        for &mv in &result.pv {
            if pos.status().is_over() || !pos.is_legal(mv) {
                break;
            }
            pv.push(pos.format_move(mv));
            pos.play_unchecked(mv);
        }
        let notation = root.format_move(best);
        if pv.first() != Some(&notation) {
            pv = vec![notation.clone()];
        }
        Ok(Choice { notation, score: result.score, depth: result.depth, nodes: result.nodes, time: result.time, pv })
    }
    match game {
        AnyGame::Salta(g) => run(searcher, g, limits, stop, on_info),
        AnyGame::Focus(g) => run(searcher, g, limits, stop, on_info),
    }
}
