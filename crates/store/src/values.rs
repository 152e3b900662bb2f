//! The typed values of a game's text columns, each with the one mapping
//! to and from the text stored (and sent by the server's API): `status`,
//! the sides (`side_to_move`, `draw_offer`, `winner`) and the seats'
//! players.

use std::fmt;
use std::str::FromStr;

use monte_rules::Side;

/// A stored text that names no value of its column: the row was written
/// by something other than this store (or a newer version of it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{text}`")]
pub struct UnknownValue {
    /// What the text should have named: `status`, `side` or `player`.
    pub what: &'static str,
    pub text: String,
}

/// Where a game stands.
///
/// The SQL of the lists, the AI claims, the flags and the downtime credit
/// (`Store` in lib.rs) names `waiting` and `active` in its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameStatus {
    /// A seat is open.
    Waiting,
    /// Being played.
    Active,
    /// Finished: the result, winner and reason say how.
    Over,
}

impl GameStatus {
    /// The stored text.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::Waiting => "waiting",
            GameStatus::Active => "active",
            GameStatus::Over => "over",
        }
    }
}

impl FromStr for GameStatus {
    type Err = UnknownValue;

    fn from_str(text: &str) -> Result<GameStatus, UnknownValue> {
        match text {
            "waiting" => Ok(GameStatus::Waiting),
            "active" => Ok(GameStatus::Active),
            "over" => Ok(GameStatus::Over),
            _ => Err(UnknownValue { what: "status", text: text.to_string() }),
        }
    }
}

impl fmt::Display for GameStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who holds a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// A person (the seat is open while it has no token).
    Human,
    /// The engine at this level.
    Ai(u8),
}

impl Player {
    pub const fn is_ai(self) -> bool {
        matches!(self, Player::Ai(_))
    }
}

impl FromStr for Player {
    type Err = UnknownValue;

    /// `human` or `ai:LEVEL`.
    fn from_str(text: &str) -> Result<Player, UnknownValue> {
        let player = match text.strip_prefix("ai:") {
            Some(level) => level.parse().ok().map(Player::Ai),
            None => (text == "human").then_some(Player::Human),
        };
        player.ok_or_else(|| UnknownValue { what: "player", text: text.to_string() })
    }
}

impl fmt::Display for Player {
    /// The stored text: `human` or `ai:LEVEL`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Human => f.write_str("human"),
            Player::Ai(level) => write!(f, "ai:{level}"),
        }
    }
}

/// `white` / `black`: a side as stored.
pub const fn side_name(side: Side) -> &'static str {
    side.key()
}

/// The side [`side_name`] names.
pub fn parse_side(text: &str) -> Result<Side, UnknownValue> {
    match text {
        "white" => Ok(Side::White),
        "black" => Ok(Side::Black),
        _ => Err(UnknownValue { what: "side", text: text.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_their_text() {
        for (status, text) in
            [(GameStatus::Waiting, "waiting"), (GameStatus::Active, "active"), (GameStatus::Over, "over")]
        {
            assert_eq!(status.as_str(), text);
            assert_eq!(status.to_string(), text);
            assert_eq!(text.parse(), Ok(status));
        }
    }

    #[test]
    fn sides_round_trip_through_their_text() {
        for (side, text) in [(Side::White, "white"), (Side::Black, "black")] {
            assert_eq!(side_name(side), text);
            assert_eq!(parse_side(text), Ok(side));
        }
    }

    #[test]
    fn players_round_trip_through_their_text() {
        for (player, text) in [(Player::Human, "human"), (Player::Ai(1), "ai:1"), (Player::Ai(255), "ai:255")] {
            assert_eq!(player.to_string(), text);
            assert_eq!(text.parse(), Ok(player));
        }
    }

    #[test]
    fn unknown_texts_are_errors() {
        for text in ["", "Active", "paused", " over"] {
            assert_eq!(text.parse::<GameStatus>(), Err(UnknownValue { what: "status", text: text.into() }));
        }
        for text in ["", "White", "w", "red"] {
            assert_eq!(parse_side(text), Err(UnknownValue { what: "side", text: text.into() }));
        }
        for text in ["", "Human", "ai", "ai:", "ai:x", "ai:256", "ai:-1", "robot"] {
            assert_eq!(text.parse::<Player>(), Err(UnknownValue { what: "player", text: text.into() }));
        }
        let e = "paused".parse::<GameStatus>().unwrap_err();
        assert_eq!(e.to_string(), "unknown status `paused`");
    }
}
