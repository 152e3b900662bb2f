//! A game in progress: a position with its history, for repetition, undo
//! and records.

use crate::error::MoveError;
use crate::position::{EndReason, Outcome, Position, Status};

/// How a rule set treats threefold repetition.
pub trait RepetitionRule {
    /// Whether threefold repetition ends the game.
    fn repetition_draw(&self) -> bool;
    /// Who wins a game that ends in a draw (Focus `draw-goes-to-first`).
    fn draw_winner(&self) -> Option<crate::Side> {
        None
    }
}

/// A game: the start position, the moves played and every position since.
/// Adds what needs history to [`Position`]: threefold repetition and undo.
#[derive(Clone, Debug)]
pub struct Game<P: Position> {
    start: P,
    moves: Vec<P::Move>,
    /// `positions[i]` is the position after `i` moves; never empty.
    positions: Vec<P>,
}

impl<P: Position> Game<P>
where
    P::Rules: RepetitionRule,
{
    pub fn new(start: P) -> Self {
        Game { start: start.clone(), moves: Vec::new(), positions: vec![start] }
    }

    pub fn start(&self) -> &P {
        &self.start
    }

    pub fn position(&self) -> &P {
        self.positions.last().expect("never empty")
    }

    pub fn moves(&self) -> &[P::Move] {
        &self.moves
    }

    /// The position after the first `n` moves.
    pub fn position_after(&self, n: usize) -> Option<&P> {
        self.positions.get(n)
    }

    /// The hashes of the positions before the current one, oldest first:
    /// the history a search needs for repetition.
    pub fn earlier_hashes(&self) -> Vec<u64> {
        self.positions[..self.positions.len() - 1].iter().map(|p| p.hash()).collect()
    }

    /// How often the current position (placement, side to move and extra
    /// state; not the ply count) has occurred.
    pub fn repetitions(&self) -> usize {
        let cur = self.position();
        let h = cur.hash();
        self.positions.iter().filter(|p| p.hash() == h).count()
    }

    /// The game's status, including threefold repetition.
    pub fn status(&self) -> Status {
        let s = self.position().status();
        if s.is_over() {
            return s;
        }
        if self.position().rules().repetition_draw() && self.repetitions() >= 3 {
            let winner = self.position().rules().draw_winner();
            return Status::Over(Outcome { winner, reason: EndReason::Repetition, margin: None });
        }
        Status::Ongoing
    }

    /// Play a checked move; on error nothing changes.
    pub fn play(&mut self, mv: P::Move) -> Result<(), MoveError> {
        if let Status::Over(o) = self.status() {
            return Err(MoveError::new(format!("the game is over: {o}")));
        }
        let mut next = self.position().clone();
        next.play(mv)?;
        self.moves.push(mv);
        self.positions.push(next);
        Ok(())
    }

    /// Parse a move in the notation and play it.
    pub fn play_text(&mut self, text: &str) -> Result<P::Move, MoveError> {
        if let Status::Over(o) = self.status() {
            return Err(MoveError::new(format!("{text}: the game is over: {o}")));
        }
        let mv = self.position().parse_move(text)?;
        self.play(mv)?;
        Ok(mv)
    }

    /// Take back the last move.
    pub fn undo(&mut self) -> Option<P::Move> {
        let mv = self.moves.pop()?;
        self.positions.pop();
        Some(mv)
    }

    /// The moves in notation, each written in the position it was played in.
    pub fn move_texts(&self) -> Vec<String> {
        self.moves.iter().zip(&self.positions).map(|(m, p)| p.format_move(*m)).collect()
    }
}
