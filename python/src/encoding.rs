//! The action numbers and observation planes of the rules crate's
//! [`Encoding`] for a game of any kind, as `Game` uses them.

use monte_rules::any::AnyGame;
use monte_rules::{Encoding, GameKind, Position, Side, each_game, with_game};

/// The number of actions of a game of `kind`.
pub(crate) fn action_count(kind: GameKind) -> usize {
    with_game!(kind, P => P::ACTIONS)
}

/// The observation's planes, rows and columns for a game of `kind`.
pub(crate) fn observation_shape(kind: GameKind) -> [usize; 3] {
    with_game!(kind, P => P::OBSERVATION_SHAPE)
}

/// The actions of the legal moves, in increasing order; none when the game
/// is over (repetition and move limit included).
pub(crate) fn legal_actions(game: &AnyGame) -> Vec<usize> {
    if game.status().is_over() {
        return Vec::new();
    }
    each_game!(game, g => {
        let pos = g.position();
        let mut actions: Vec<usize> = pos.legal_moves().iter().map(|&mv| pos.action(mv)).collect();
        actions.sort_unstable();
        actions
    })
}

/// Why an action number names no move.
fn no_such_action(kind: GameKind, action: usize) -> String {
    let count = action_count(kind);
    if action >= count {
        format!("action {action}: expected 0 to {}", count - 1)
    } else {
        format!("action {action}: no move of the {kind} board has this number")
    }
}

/// The move `action` stands for in the current position, in notation
/// (legal or not).
pub(crate) fn action_to_move(game: &AnyGame, action: usize) -> Result<String, String> {
    each_game!(game, g => {
        let pos = g.position();
        pos.action_move(action).map(|mv| pos.format_move(mv)).ok_or_else(|| no_such_action(game.kind(), action))
    })
}

/// The action of a legal move given in notation.
pub(crate) fn move_to_action(game: &AnyGame, text: &str) -> Result<usize, String> {
    each_game!(game, g => {
        let pos = g.position();
        if let Some(outcome) = g.status().outcome() {
            return Err(format!("{text}: the game is over: {outcome}"));
        }
        pos.parse_move(text).map(|mv| pos.action(mv)).map_err(|error| error.to_string())
    })
}

/// Play the move `action` stands for; returns it in notation. On error
/// the game is unchanged.
pub(crate) fn apply_action(game: &mut AnyGame, action: usize) -> Result<String, String> {
    let kind = game.kind();
    each_game!(game, g => {
        let pos = g.position();
        let mv = pos.action_move(action).ok_or_else(|| no_such_action(kind, action))?;
        let text = pos.format_move(mv);
        g.play(mv).map_err(|error| format!("action {action}: {error}"))?;
        Ok(text)
    })
}

/// Write what `viewer` sees of the current position into `planes`.
pub(crate) fn observe(game: &AnyGame, viewer: Side, planes: &mut [f32]) {
    each_game!(game, g => g.position().observe(viewer, planes))
}
