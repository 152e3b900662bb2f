//! The trait both games implement, and the values it speaks in.

use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

use crate::GameKind;
use crate::board::{BoardLayout, MoveInfo};
use crate::error::{MoveError, PositionError, RulesError};
use crate::rng::Rng;
use crate::side::Side;

/// Upper bound on the number of legal moves in any valid position of either
/// game (Salta: every move ends on one of 20 empty squares, so at most
/// 15 * 20 * 2 with calls; Focus: at most 8 moves per piece on the board plus
/// 52 drops).
pub const MAX_MOVES: usize = 1024;

/// A stack-allocated move buffer.
pub type MoveList<M> = arrayvec::ArrayVec<M, MAX_MOVES>;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// Salta: a side completed its goal (in `meyer1908`, possibly after
    /// Black's equalising move).
    Goal,
    /// Focus: the side to move controls no stack and has no reserve.
    NoPieces,
    /// The move limit was reached (scored, or drawn, by the rule set).
    MoveLimit,
    /// The same position occurred for the third time.
    Repetition,
}

impl EndReason {
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::Goal => "goal",
            EndReason::NoPieces => "no pieces",
            EndReason::MoveLimit => "move limit",
            EndReason::Repetition => "threefold repetition",
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Side>,
    pub reason: EndReason,
    /// Salta: the loser's remaining distance (for a move limit, the
    /// difference of the distances). `None` where the rules define none.
    pub margin: Option<u32>,
}

impl Outcome {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn result_string(&self) -> &'static str {
        result_string(self.winner)
    }
}

/// A game's result as records write it: `1-0` (White won), `0-1` (Black
/// won) or `1/2-1/2` (a draw, `None`).
pub fn result_string(winner: Option<Side>) -> &'static str {
    match winner {
        Some(Side::White) => "1-0",
        Some(Side::Black) => "0-1",
        None => "1/2-1/2",
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(side) => write!(f, "{side} wins ({})", self.reason.name())?,
            None => write!(f, "draw ({})", self.reason.name())?,
        }
        if let Some(m) = self.margin {
            write!(f, ", margin {m}")?;
        }
        Ok(())
    }
}

/// Whether the game goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ongoing,
    Over(Outcome),
}

impl Status {
    pub fn is_over(&self) -> bool {
        matches!(self, Status::Over(_))
    }
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            Status::Ongoing => None,
            Status::Over(o) => Some(*o),
        }
    }
}

/// A rule set: a small value of options with named presets.
///
/// Its text form is the preset name followed by the options that differ from
/// the preset, separated by commas, e.g. `seed` or `seed,move-limit=120`.
/// `FromStr` accepts that form; `Display` writes it.
pub trait RuleSet:
    Copy + Eq + Hash + fmt::Debug + fmt::Display + FromStr<Err = RulesError> + Default + Send + Sync + 'static
{
    /// The names of the presets, the default first.
    fn preset_names() -> &'static [&'static str];
    /// A preset by name.
    fn preset(name: &str) -> Result<Self, RulesError>;
    /// The name of the preset these rules started from.
    fn preset_name(&self) -> &'static str;
    /// Set one option by its name (`move-limit`, ...). The value `None` is for
    /// flags. The result is checked for options that do not fit together.
    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), RulesError>;
    /// The option names this game knows, with a short description.
    fn option_help() -> &'static [(&'static str, &'static str)];
    /// Moves per side after which the game ends, if any.
    fn move_limit(&self) -> Option<u32>;
    /// Check that the options fit together (after [`RuleSet::set_option`]);
    /// by default every combination is a playable game.
    fn validate(&self) -> Result<(), RulesError> {
        Ok(())
    }
}

/// Parse `preset[,key[=value]]*`.
pub fn parse_rules<R: RuleSet>(s: &str) -> Result<R, RulesError> {
    let mut parts = s.split(',').map(str::trim);
    let name = parts.next().unwrap_or("");
    let mut rules = R::preset(if name.is_empty() { R::preset_names()[0] } else { name })?;
    for part in parts {
        if part.is_empty() {
            return Err(RulesError::new(format!("rules `{s}`: empty option")));
        }
        match part.split_once('=') {
            Some((k, v)) => rules.set_option(k.trim(), Some(v.trim()))?,
            None => rules.set_option(part, None)?,
        }
    }
    rules.validate()?;
    Ok(rules)
}

/// A validated game position: the state of the board and everything the
/// rules need to generate moves, but no history. Cheap to copy: search and
/// perft use copy-make, and undo is restoring an earlier copy.
pub trait Position: Clone + Eq + fmt::Debug + Send + Sync + 'static {
    type Move: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static;
    type Rules: RuleSet;

    const KIND: GameKind;

    /// What a move takes from its first square, in running text ("the
    /// piece on c3 can play ..."): `piece`, or `stack` in Focus.
    const PIECE_WORD: &'static str = "piece";

    /// The board, as a page draws it.
    fn board_layout() -> BoardLayout;

    /// The start position of the rule set.
    fn start(rules: Self::Rules) -> Self;

    /// Parse a position string (see docs/notation.md). Rejects malformed
    /// strings and positions that cannot arise, with a message that says
    /// what and where.
    fn from_fen(rules: Self::Rules, fen: &str) -> Result<Self, PositionError>;

    /// The position string; `from_fen(rules, &p.fen()) == p`.
    fn fen(&self) -> String;

    fn rules(&self) -> &Self::Rules;
    fn side_to_move(&self) -> Side;
    /// Plies played since the start of the game.
    fn ply(&self) -> u32;

    /// Append the legal moves (a lone `pass` when the side to move is stuck).
    /// Empty exactly when the game is over by its goal; move limits and
    /// repetition are not considered here (see [`Position::status`] and
    /// [`crate::Game`]).
    fn generate(&self, out: &mut MoveList<Self::Move>);

    /// The number of moves [`Position::generate`] would produce, computed
    /// in bulk without generating them.
    fn count_moves(&self) -> u64;

    /// `perft(2)`: the moves of the positions after each move, summed.
    /// Games override it to count without a move list and without the
    /// hash updates a count has no use for (perft spends most of its time
    /// here).
    fn count_replies(&self) -> u64 {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list.iter()
            .map(|&mv| {
                let mut child = self.clone();
                child.play_for_perft(mv);
                child.count_moves()
            })
            .sum()
    }

    /// [`Position::play_unchecked`] for counting only: games may leave the
    /// hash stale (perft never reads it).
    fn play_for_perft(&mut self, mv: Self::Move) {
        self.play_unchecked(mv);
    }

    /// A uniformly random move of those [`Position::generate`] lists, or
    /// `None` when it lists none. Games override it to pick without
    /// listing every move (random playouts spend most of their time here).
    fn random_move(&self, rng: &mut Rng) -> Option<Self::Move> {
        let mut list = MoveList::new();
        self.generate(&mut list);
        if list.is_empty() { None } else { Some(list[rng.below(list.len())]) }
    }

    /// Whether `mv` is one of the legal moves.
    fn is_legal(&self, mv: Self::Move) -> bool {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list.contains(&mv)
    }

    /// Play a move after checking that it is legal and that the game is not
    /// over; on error the position is unchanged.
    fn play(&mut self, mv: Self::Move) -> Result<(), MoveError> {
        if let Status::Over(outcome) = self.status() {
            return Err(MoveError::new(format!("the game is over: {outcome}")));
        }
        if !self.is_legal(mv) {
            return Err(MoveError::new(format!("{}: not a legal move in this position", self.format_move(mv))));
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Play a move known to be legal (the hot path). Playing an illegal move
    /// leaves the position in an unspecified but memory-safe state.
    fn play_unchecked(&mut self, mv: Self::Move);

    /// Whether the game is over by the rules of the position alone: goal,
    /// lost pieces, move limit. Repetition needs history: see [`crate::Game`].
    fn status(&self) -> Status;

    /// The outcome the rule set gives a game stopped now at its move limit
    /// (reason [`EndReason::MoveLimit`]): Salta scores the race distances
    /// or draws, as its `limit-result` says; Focus draws, or gives the
    /// game to White under its draw-goes-to-first rule. [`Position::status`]
    /// ends a game with it at the limit; a server ends a game that reaches
    /// its length cap with it too.
    fn limit_outcome(&self) -> Outcome;

    /// The rule set's own count of how `side` stands, higher is better:
    /// minus its race distance in Salta (what a scored move limit
    /// compares), its pieces still in play in Focus (own pieces in stacks
    /// it controls, plus its reserve). A game cut short with no result of
    /// its own (a random playout, a match adjudicated at its cap) is
    /// judged by it.
    fn standing(&self, side: Side) -> i32;

    /// Both sides' [`Position::standing`], in words.
    fn describe_standing(&self) -> String;

    /// The side ahead by [`Position::standing`], `None` when level.
    fn leader(&self) -> Option<Side> {
        let (white, black) = (self.standing(Side::White), self.standing(Side::Black));
        match white.cmp(&black) {
            std::cmp::Ordering::Greater => Some(Side::White),
            std::cmp::Ordering::Less => Some(Side::Black),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// The incrementally maintained Zobrist hash (placement, side to move,
    /// and the game's extra state; not the ply count).
    fn hash(&self) -> u64;

    /// The same hash computed from scratch.
    fn compute_hash(&self) -> u64;

    /// Parse a move in the notation and check that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// Write a legal move in the notation (Salta jumps with a full path).
    fn format_move(&self, mv: Self::Move) -> String;

    /// The pass move.
    fn pass_move() -> Self::Move;

    /// Legal moves as a fresh list.
    fn legal_moves(&self) -> MoveList<Self::Move> {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// The board, its file letters and rank numbers, and a summary of the
    /// game for a terminal, drawn as `style` asks.
    fn render(&self, style: RenderStyle) -> String;

    /// A legal move described for a board: its squares and its shape.
    fn move_info(&self, mv: Self::Move) -> MoveInfo;

    /// Each piece (its token, `S1`) and the square it must reach under
    /// these rules, for games whose pieces have targets; empty otherwise.
    fn targets(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// A move value made from three bytes, legal or not, for fuzzing
    /// checked play: mostly between squares of the board, and with the
    /// high bit of `bytes[2]` set, any values at all (squares off the
    /// board included).
    fn move_from_bytes(bytes: [u8; 3]) -> Self::Move;
}

/// How [`Position::render`] draws the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderStyle {
    /// ANSI colours for a terminal, or plain text.
    pub color: bool,
    /// Whose side of the board is at the bottom: White sees rank 1 at the
    /// bottom and file a on the left; Black sees the board turned half a
    /// turn.
    pub from: Side,
}

impl RenderStyle {
    /// The 0-based ranks of a board `size` squares high, top row first.
    pub(crate) fn ranks_top_down(self, size: i32) -> impl Iterator<Item = i32> {
        let from = self.from;
        (0..size).map(move |i| if from == Side::White { size - 1 - i } else { i })
    }

    /// The 0-based files of a board `size` squares wide, left column first.
    pub(crate) fn files_left_to_right(self, size: i32) -> impl Iterator<Item = i32> {
        let from = self.from;
        (0..size).map(move |i| if from == Side::White { i } else { size - 1 - i })
    }
}

/// A file's letter from its 0-based index: `a` for 0.
pub(crate) fn file_letter(file: i32) -> char {
    u8::try_from(file).ok().and_then(|f| b'a'.checked_add(f)).map_or('?', char::from)
}

/// The plies-played field of a position string.
pub(crate) fn parse_ply(s: &str) -> Result<u32, PositionError> {
    s.parse::<u32>().map_err(|_| PositionError::new(format!("plies played: expected a number 0 or more, found `{s}`")))
}

/// A square's name from its 0-based file and rank: `c3`, `j10`. Written
/// by hand rather than with `format!`: the game server names every
/// square of every legal move after each move, and the formatting
/// machinery was most of that cost.
pub(crate) fn square_text(file: i32, rank: i32) -> String {
    let number = rank + 1;
    if !(0..26).contains(&file) || !(1..100).contains(&number) {
        // Not on any board of these games; still a name.
        return format!("{}{}", (b'a' as i32 + file) as u8 as char, number);
    }
    let mut s = String::with_capacity(3);
    s.push((b'a' + file as u8) as char);
    if number >= 10 {
        s.push((b'0' + (number / 10) as u8) as char);
    }
    s.push((b'0' + (number % 10) as u8) as char);
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn square_names_are_the_file_letter_and_the_rank_number() {
        for file in 0..26 {
            for rank in 0..99 {
                let expected = format!("{}{}", (b'a' + file as u8) as char, rank + 1);
                assert_eq!(super::square_text(file, rank), expected);
            }
        }
        assert_eq!(super::square_text(9, 9), "j10");
    }
}
