//! What a board (the page, the server, the terminal) needs to know about a
//! game without knowing its rules: the squares of its board, and each move
//! described by where it starts and ends.

/// A legal move described for a board: where it starts and ends and the
/// choices it carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveInfo {
    /// The move in the notation (what to send back to play it).
    pub notation: String,
    pub kind: MoveShape,
    /// The square the piece or group starts on (none for drops and pass).
    pub from: Option<String>,
    /// The square it ends on (none for pass).
    pub to: Option<String>,
    /// Salta: the move carries a Salta call.
    pub call: bool,
    /// Salta jumps: every landing square in order (one path among equals).
    pub path: Vec<String>,
    /// Focus group moves: how many pieces move.
    pub count: Option<u32>,
}

impl MoveInfo {
    /// The pass move, written `notation`.
    pub fn pass(notation: String) -> MoveInfo {
        MoveInfo { notation, kind: MoveShape::Pass, from: None, to: None, call: false, path: Vec::new(), count: None }
    }

    /// A piece from one square to another, nothing more.
    pub fn step(notation: String, from: String, to: String) -> MoveInfo {
        MoveInfo {
            notation,
            kind: MoveShape::Step,
            from: Some(from),
            to: Some(to),
            call: false,
            path: Vec::new(),
            count: None,
        }
    }
}

/// What a move does, in any game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveShape {
    /// Salta: one piece to a neighbouring square.
    Step,
    /// Salta: a jump sequence; Focus: a stack's top piece moved alone.
    Jump,
    /// Focus: a group of pieces off the top of a stack.
    Group,
    /// Focus: a piece from the reserve.
    Drop,
    /// No move is possible: the turn passes.
    Pass,
}

impl MoveShape {
    /// `step`, `jump`, `group`, `drop` or `pass`: the name the server
    /// sends.
    pub const fn name(self) -> &'static str {
        match self {
            MoveShape::Step => "step",
            MoveShape::Jump => "jump",
            MoveShape::Group => "group",
            MoveShape::Drop => "drop",
            MoveShape::Pass => "pass",
        }
    }
}

/// A game's board as a page draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardLayout {
    /// Columns of the board's grid (`a`, `b`, ...).
    pub files: u8,
    /// Rows of the board's grid (`1`, `2`, ...).
    pub ranks: u8,
    /// The squares pieces stand on, rank by rank from the last rank down,
    /// each from the `a` file: the order of the cells in a position string.
    pub rows: Vec<Vec<String>>,
    /// Each side's pieces in a game (on the board, in reserve or captured).
    pub pieces_per_side: u8,
}

impl BoardLayout {
    /// A grid of `files` x `ranks` whose squares are those `square` names
    /// (from 0-based file and rank; `None` off the board).
    pub fn from_grid(files: u8, ranks: u8, pieces_per_side: u8, square: impl Fn(i32, i32) -> Option<String>) -> Self {
        let rows = (0..i32::from(ranks))
            .rev()
            .map(|rank| (0..i32::from(files)).filter_map(|file| square(file, rank)).collect())
            .collect();
        BoardLayout { files, ranks, rows, pieces_per_side }
    }

    /// Whether `name` is one of the board's squares, as the notation
    /// writes them.
    pub fn has_square(&self, name: &str) -> bool {
        self.rows.iter().flatten().any(|square| square == name)
    }
}
