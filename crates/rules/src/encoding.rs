//! Numbers for learning agents: every move of a game as an action (an
//! integer below the game's [`Encoding::ACTIONS`]) and every position as
//! planes of floats, both seen from the side to move (or, for planes,
//! from either side).
//!
//! The side to move sees the board from its own side: White as the
//! position strings write it, Black with the board turned half a turn, its
//! own pieces in the planes where White's own pieces are. So an action
//! number and a plane mean the same to either side (in Salta and Focus the
//! start position turned half a turn, colours swapped, is the start
//! position), and one policy can play both.
//!
//! docs/python.md lists each game's actions and planes.

use crate::position::{Position, RuleSet};
use crate::side::Side;

/// A game's fixed numbering of moves and its observation planes.
pub trait Encoding: Position {
    /// Every action is below this number. Some numbers name no move of the
    /// board at all (a Focus group move off its edge), most are illegal in
    /// a given position.
    const ACTIONS: usize;

    /// The observation's planes, rows (ranks from the side to move's first)
    /// and columns (files from its left).
    const OBSERVATION_SHAPE: [usize; 3];

    /// The number of floats of an observation.
    const OBSERVATION_LEN: usize = Self::OBSERVATION_SHAPE[0] * Self::OBSERVATION_SHAPE[1] * Self::OBSERVATION_SHAPE[2];

    /// The action of a legal move of this position (below
    /// [`Encoding::ACTIONS`]); two legal moves never share one.
    fn action(&self, mv: Self::Move) -> usize;

    /// The move `action` stands for in this position, legal or not; `None`
    /// for a number no move of the board has.
    fn action_move(&self, action: usize) -> Option<Self::Move>;

    /// Write the observation `viewer` has of this position into `planes`
    /// ([`Encoding::OBSERVATION_LEN`] floats, plane by plane, row by row):
    /// every value is written. Agents see it as the side to move.
    fn observe(&self, viewer: Side, planes: &mut [f32]);
}

/// Observation planes being written for one side: squares given by file
/// and rank land where that side sees them.
pub(crate) struct Planes<'a> {
    values: &'a mut [f32],
    files: usize,
    ranks: usize,
    turned: bool,
}

impl<'a> Planes<'a> {
    /// Clear `values` (planes of `ranks` x `files`) for `viewer` to see.
    pub(crate) fn new(values: &'a mut [f32], [_, ranks, files]: [usize; 3], viewer: Side) -> Self {
        values.fill(0.0);
        Planes { values, files, ranks, turned: viewer == Side::Black }
    }

    /// Set one square's value in `plane`; `file` and `rank` are 0-based
    /// board coordinates.
    pub(crate) fn set(&mut self, plane: usize, file: i32, rank: i32, value: f32) {
        let (file, rank) = (file as usize, rank as usize);
        let (row, column) = if self.turned { (self.ranks - 1 - rank, self.files - 1 - file) } else { (rank, file) };
        self.values[(plane * self.ranks + row) * self.files + column] = value;
    }

    /// Set every square of `plane`, on the board or not, to `value`.
    pub(crate) fn fill(&mut self, plane: usize, value: f32) {
        let size = self.ranks * self.files;
        self.values[plane * size..(plane + 1) * size].fill(value);
    }

    /// The planes every game ends with: whether White is to move (all
    /// ones or all zeros), and how far the game has gone towards its move
    /// limit (plies played over the limit's plies; zeros without a limit).
    pub(crate) fn fill_turn_and_limit<P: Position>(&mut self, pos: &P, turn_plane: usize) {
        self.fill(turn_plane, if pos.side_to_move() == Side::White { 1.0 } else { 0.0 });
        let progress = pos.rules().move_limit().map_or(0.0, |n| (pos.ply() as f32 / (2 * n) as f32).min(1.0));
        self.fill(turn_plane + 1, progress);
    }
}
