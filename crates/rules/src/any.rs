//! Any game behind one type, for code that chooses the game at run time
//! (protocol, server, store): positions and moves travel as text, and every
//! rule question is answered by the game's own [`Position`].

pub use crate::AnyGame;
use crate::GameKind;
pub use crate::board::{BoardLayout, MoveInfo, MoveShape};
use crate::error::{MoveError, PositionError, RulesError};
use crate::game::Game;
use crate::position::{Position, RenderStyle, Status};
use crate::record::{Record, RecordError};
use crate::side::Side;

/// Any error from building or playing a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnyError {
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error(transparent)]
    Position(#[from] PositionError),
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error(transparent)]
    Record(#[from] RecordError),
}

impl AnyGame {
    /// A new game: the rule set in its text form (`seed`,
    /// `seed,move-limit=120`), and a start position string or the rule
    /// set's start.
    pub fn new(kind: GameKind, rules: &str, fen: Option<&str>) -> Result<AnyGame, AnyError> {
        fn make<P: Position>(rules: &str, fen: Option<&str>) -> Result<Game<P>, AnyError>
        where
            P::Rules: crate::game::RepetitionRule,
        {
            let rules: P::Rules = rules.parse()?;
            let start = match fen {
                Some(f) => P::from_fen(rules, f)?,
                None => P::start(rules),
            };
            Ok(Game::new(start))
        }
        with_game!(kind, P => Ok(AnyGame::from(make::<P>(rules, fen)?)))
    }

    /// A rule set of `kind` in its canonical text form (the preset's name,
    /// then the options that differ from it), checked.
    pub fn canonical_rules(kind: GameKind, rules: &str) -> Result<String, AnyError> {
        fn canonical<R: crate::RuleSet>(rules: &str) -> Result<String, AnyError> {
            Ok(rules.trim().parse::<R>()?.to_string())
        }
        with_game!(kind, P => canonical::<<P as Position>::Rules>(rules))
    }

    /// Replay a record (its `Game` tag chooses the game; default Salta).
    pub fn from_record(text: &str) -> Result<AnyGame, AnyError> {
        let record = Record::parse(text)?;
        let kind: GameKind = match record.tag("Game") {
            Some(g) => g.parse()?,
            None => GameKind::Salta,
        };
        with_game!(kind, P => Ok(AnyGame::from(record.replay::<P>()?)))
    }

    /// The rule set in its text form.
    pub fn rules(&self) -> String {
        each_game!(self, g => g.position().rules().to_string())
    }

    /// The current position string.
    pub fn fen(&self) -> String {
        each_game!(self, g => g.position().fen())
    }

    /// The start position string.
    pub fn start_fen(&self) -> String {
        each_game!(self, g => g.start().fen())
    }

    pub fn side_to_move(&self) -> Side {
        each_game!(self, g => g.position().side_to_move())
    }

    /// Plies played in this game (not counting those before its start position).
    pub fn moves_played(&self) -> usize {
        each_game!(self, g => g.moves().len())
    }

    /// The status, threefold repetition included.
    pub fn status(&self) -> Status {
        each_game!(self, g => g.status())
    }

    /// The outcome the rule set gives the game stopped now at its move
    /// limit ([`Position::limit_outcome`]).
    pub fn limit_outcome(&self) -> crate::position::Outcome {
        each_game!(self, g => g.position().limit_outcome())
    }

    /// The moves played, in notation.
    pub fn history(&self) -> Vec<String> {
        each_game!(self, g => g.move_texts())
    }

    /// Play a move given in notation; returns it in canonical notation. On
    /// error nothing changes.
    pub fn play(&mut self, text: &str) -> Result<String, AnyError> {
        each_game!(self, g => {
            let before = g.position().clone();
            let mv = g.play_text(text)?;
            Ok(before.format_move(mv))
        })
    }

    /// Take back the last move; returns it in notation.
    pub fn undo(&mut self) -> Option<String> {
        each_game!(self, g => {
            let mv = g.undo()?;
            Some(g.position().format_move(mv))
        })
    }

    /// The legal moves (none when the game is over, repetition and move
    /// limit included).
    pub fn legal_moves(&self) -> Vec<MoveInfo> {
        if self.status().is_over() {
            return Vec::new();
        }
        each_game!(self, g => {
            let pos = g.position();
            pos.legal_moves().iter().map(|&m| pos.move_info(m)).collect()
        })
    }

    /// The `n`-th move of this game (from 0), described in the position it
    /// was played in: what a board needs to mark or slide a move played.
    pub fn played(&self, n: usize) -> Option<MoveInfo> {
        each_game!(self, g => Some(g.position_after(n)?.move_info(*g.moves().get(n)?)))
    }

    /// Each piece (its token, `S1`) and the square it must reach under
    /// this game's rules; empty for games without targets.
    pub fn targets(&self) -> Vec<(String, String)> {
        each_game!(self, g => g.position().targets())
    }

    /// How `side` stands by the rule set's own count
    /// ([`Position::standing`], higher is better): minus its race distance
    /// in Salta, its pieces in play in Focus.
    pub fn standing(&self, side: Side) -> i32 {
        each_game!(self, g => g.position().standing(side))
    }

    /// The status by the position alone, without the game's history
    /// (no repetition): what the board itself shows.
    pub fn position_status(&self) -> Status {
        each_game!(self, g => g.position().status())
    }

    /// What a move takes from its first square, in running text
    /// ([`Position::PIECE_WORD`]).
    pub fn piece_word(&self) -> &'static str {
        with_game!(self.kind(), P => P::PIECE_WORD)
    }

    /// A record of the game with extra tags (White, Black, Date, ...) and a
    /// result for a game the rules have not ended (resignation, `*`).
    pub fn record(&self, tags: &[(&str, &str)], result: Option<&str>) -> Record {
        each_game!(self, g => Record::from_game(g, tags, result))
    }

    /// The board as text for a terminal ([`Position::render`]).
    pub fn render(&self, style: RenderStyle) -> String {
        each_game!(self, g => g.position().render(style))
    }
}

/// The board of a game of `kind`, as a page draws it.
pub fn board_layout(kind: GameKind) -> BoardLayout {
    with_game!(kind, P => P::board_layout())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_of_the_list_is_named_and_dispatched() {
        for kind in GameKind::ALL {
            assert_eq!(kind.name().parse::<GameKind>(), Ok(kind));
            assert_eq!(kind.name().to_uppercase().parse::<GameKind>(), Ok(kind));
            assert_eq!(with_game!(kind, P => P::KIND), kind);
            assert_eq!(AnyGame::new(kind, "seed", None).unwrap().kind(), kind);
        }
        let error = "chess".parse::<GameKind>().unwrap_err().to_string();
        assert!(error.starts_with("unknown game `chess` (known: salta, focus"), "{error}");
    }

    #[test]
    fn canonical_rules_are_what_a_game_of_them_reports() {
        for (kind, text) in [
            (GameKind::Salta, " seed , move-limit=120 "),
            (GameKind::Salta, "meyer1908"),
            (GameKind::Focus, "seed,draw-goes-to-first"),
        ] {
            let canonical = AnyGame::canonical_rules(kind, text).unwrap();
            assert_eq!(canonical, AnyGame::new(kind, text.trim(), None).unwrap().rules());
            assert_eq!(AnyGame::canonical_rules(kind, &canonical).unwrap(), canonical);
        }
        assert!(AnyGame::canonical_rules(GameKind::Salta, "seed,no-such-option").is_err());
        assert!(AnyGame::canonical_rules(GameKind::Focus, "ludii").is_err());
    }

    #[test]
    fn a_salta_jump_lists_its_landing_squares() {
        // The example of docs/rules.md: Black's sun on g5 jumps to e3,
        // and on over d4 to c5.
        let mut g = AnyGame::new(GameKind::Salta, "seed", None).unwrap();
        for text in ["e3-d4", "h8-g7", "g3-f4", "g7-h6", "i3-j4", "h6-g5", "j4-i5"] {
            g.play(text).unwrap();
        }
        let moves = g.legal_moves();
        let jump = moves.iter().find(|m| m.notation == "g5:e3:c5").expect("the double jump");
        assert_eq!((jump.kind, jump.from.as_deref(), jump.to.as_deref()), (MoveShape::Jump, Some("g5"), Some("c5")));
        assert_eq!(jump.path, ["e3", "c5"]);
        let step = moves.iter().find(|m| m.kind == MoveShape::Step).unwrap();
        assert!(step.path.is_empty());
        assert_eq!(MoveShape::Group.name(), "group");
    }

    #[test]
    fn board_layouts_list_the_cells_of_position_strings() {
        for kind in GameKind::ALL {
            let layout = board_layout(kind);
            let start = AnyGame::new(kind, "seed", None).unwrap().start_fen();
            let board = start.split(' ').next().unwrap();
            let cells: Vec<usize> = board.split('/').map(|rank| rank.split(',').count()).collect();
            let squares: Vec<usize> = layout.rows.iter().map(Vec::len).collect();
            assert_eq!(cells, squares, "{kind}");
            assert_eq!(layout.rows.len(), usize::from(layout.ranks));
        }
        let salta = board_layout(GameKind::Salta);
        assert_eq!((salta.rows[0][0].as_str(), salta.rows[9][0].as_str()), ("b10", "a1"));
        let focus = board_layout(GameKind::Focus);
        assert_eq!(focus.rows.iter().map(Vec::len).sum::<usize>(), 52);
        assert_eq!((focus.rows[0][0].as_str(), focus.pieces_per_side), ("c8", 18));
    }

    #[test]
    fn moves_played_and_targets_are_described() {
        let mut g = AnyGame::new(GameKind::Salta, "seed", None).unwrap();
        for text in ["e3-d4", "h8-g7", "g3-f4", "g7-h6", "i3-j4", "h6-g5", "j4-i5", "g5:c5"] {
            g.play(text).unwrap();
        }
        let jump = g.played(7).unwrap();
        assert_eq!(
            (jump.notation.as_str(), jump.kind, jump.path.as_slice()),
            ("g5:e3:c5", MoveShape::Jump, &["e3".to_string(), "c5".to_string()][..])
        );
        assert_eq!(g.played(0).unwrap().from.as_deref(), Some("e3"));
        assert!(g.played(8).is_none());
        let targets = g.targets();
        assert_eq!(targets.len(), 30);
        assert!(targets.contains(&("S1".to_string(), "j10".to_string())));
        let meyer = AnyGame::new(GameKind::Salta, "meyer1908", None).unwrap();
        assert!(meyer.targets().contains(&("S1".to_string(), "b8".to_string())));
        assert!(AnyGame::new(GameKind::Focus, "seed", None).unwrap().targets().is_empty());
    }

    #[test]
    fn plays_both_games_through_text() {
        let mut g = AnyGame::new(GameKind::Salta, "seed", None).unwrap();
        assert_eq!(g.legal_moves().len(), 9);
        assert_eq!(g.play("c3-d4").unwrap(), "c3-d4");
        assert!(g.play("c3-d4").is_err());
        assert_eq!(g.history(), ["c3-d4"]);
        assert_eq!(g.undo().as_deref(), Some("c3-d4"));
        let mut f = AnyGame::new(GameKind::Focus, "sackson", None).unwrap();
        assert_eq!(f.legal_moves().len(), 68);
        let m = f.legal_moves().into_iter().find(|m| m.kind == MoveShape::Group && m.count == Some(1)).unwrap();
        f.play(&m.notation).unwrap();
        let rec = f.record(&[("White", "A")], None).to_string();
        let back = AnyGame::from_record(&rec).unwrap();
        assert_eq!(back.fen(), f.fen());
        assert!(AnyGame::new(GameKind::Focus, "nope", None).is_err());
    }
}
