//! Focus rule sets as values.

use std::fmt;
use std::str::FromStr;

use crate::error::RulesError;
use crate::position::{RuleSet, parse_rules};
use crate::salta::rules::{limit_text, parse_limit, parse_switch, unknown_option};
use crate::side::Side;

/// How a group of two or more pieces treats the squares it passes and lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupMoves {
    /// Lands on an empty square and sweeps every stack it passes under
    /// itself (`seed`).
    Sweep,
    /// Passes over anything without effect and may land on any stack,
    /// going on top of it (`sackson`).
    Merge,
}

/// The named presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FocusPreset {
    /// The source text (rulings.md).
    Seed,
    /// Sid Sackson's published game (1963).
    Sackson,
}

impl FocusPreset {
    pub const ALL: [FocusPreset; 2] = [FocusPreset::Seed, FocusPreset::Sackson];
    pub const fn name(self) -> &'static str {
        match self {
            FocusPreset::Seed => "seed",
            FocusPreset::Sackson => "sackson",
        }
    }
}

/// A Focus rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FocusRules {
    pub preset: FocusPreset,
    pub group_moves: GroupMoves,
    /// The single-piece jump over a lone opponent piece.
    pub jumps: bool,
    /// Moves per side after which the game is drawn.
    pub move_limit: Option<u32>,
    /// A drawn game (repetition or move limit) is a win for White
    /// (Sackson's answer to mirror play).
    pub draw_goes_to_first: bool,
}

impl FocusRules {
    /// The source text's rules (rulings.md, rule set `seed`).
    pub const fn seed() -> Self {
        FocusRules {
            preset: FocusPreset::Seed,
            group_moves: GroupMoves::Sweep,
            jumps: true,
            move_limit: None,
            draw_goes_to_first: false,
        }
    }

    /// Sackson's published rules (rulings.md, rule set `sackson`).
    pub const fn sackson() -> Self {
        FocusRules {
            preset: FocusPreset::Sackson,
            group_moves: GroupMoves::Merge,
            jumps: false,
            move_limit: None,
            draw_goes_to_first: false,
        }
    }

    pub const fn from_preset(p: FocusPreset) -> Self {
        match p {
            FocusPreset::Seed => Self::seed(),
            FocusPreset::Sackson => Self::sackson(),
        }
    }

    /// Who wins a game that would be drawn: White with
    /// `draw-goes-to-first`, nobody otherwise.
    pub const fn draw_winner(&self) -> Option<Side> {
        if self.draw_goes_to_first { Some(Side::White) } else { None }
    }
}

impl Default for FocusRules {
    fn default() -> Self {
        Self::seed()
    }
}

const OPTIONS: &[(&str, &str)] = &[
    (
        "group-moves",
        "sweep | merge: groups sweep what they pass onto an empty square, or pass over anything and land on any stack",
    ),
    ("jumps", "on | off: the single-piece jump over a lone opponent piece"),
    ("move-limit", "N | none: moves per side after which the game is drawn"),
    ("draw-goes-to-first", "on | off: a drawn game (repetition or move limit) is a win for White"),
];

const GROUP_MOVES: &[(&str, GroupMoves)] = &[("sweep", GroupMoves::Sweep), ("merge", GroupMoves::Merge)];

impl RuleSet for FocusRules {
    fn preset_names() -> &'static [&'static str] {
        &["seed", "sackson"]
    }

    fn preset(name: &str) -> Result<Self, RulesError> {
        FocusPreset::ALL.into_iter().find(|p| p.name() == name).map(Self::from_preset).ok_or_else(|| {
            RulesError::new(format!("unknown Focus rule set `{name}` (known: {})", Self::preset_names().join(", ")))
        })
    }

    fn preset_name(&self) -> &'static str {
        self.preset.name()
    }

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), RulesError> {
        match key {
            "group-moves" => {
                let v = value.ok_or_else(|| RulesError::new("option group-moves needs a value: sweep or merge"))?;
                self.group_moves = GROUP_MOVES.iter().find(|(n, _)| *n == v).map(|(_, g)| *g).ok_or_else(|| {
                    RulesError::new(format!("option group-moves: expected sweep or merge, found `{v}`"))
                })?;
            }
            "jumps" => self.jumps = parse_switch(key, value)?,
            "move-limit" => self.move_limit = parse_limit(value)?,
            "draw-goes-to-first" => self.draw_goes_to_first = parse_switch(key, value)?,
            _ => return Err(unknown_option("Focus", key, OPTIONS)),
        }
        Ok(())
    }

    // No `validate`: every combination of these options is a playable
    // game (a group either sweeps or merges, the jump is independent of
    // both, and repetition always ends a game that goes round in circles).
    fn option_help() -> &'static [(&'static str, &'static str)] {
        OPTIONS
    }

    fn move_limit(&self) -> Option<u32> {
        self.move_limit
    }
}

impl fmt::Display for FocusRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = Self::from_preset(self.preset);
        f.write_str(self.preset.name())?;
        if self.group_moves != base.group_moves {
            let name = GROUP_MOVES.iter().find(|(_, g)| *g == self.group_moves).map_or("?", |(n, _)| *n);
            write!(f, ",group-moves={name}")?;
        }
        if self.jumps != base.jumps {
            write!(f, ",jumps={}", if self.jumps { "on" } else { "off" })?;
        }
        if self.move_limit != base.move_limit {
            write!(f, ",move-limit={}", limit_text(self.move_limit))?;
        }
        if self.draw_goes_to_first != base.draw_goes_to_first {
            write!(f, ",draw-goes-to-first={}", if self.draw_goes_to_first { "on" } else { "off" })?;
        }
        Ok(())
    }
}

impl FromStr for FocusRules {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, RulesError> {
        parse_rules(s)
    }
}

impl crate::game::RepetitionRule for FocusRules {
    fn repetition_draw(&self) -> bool {
        true
    }
    fn draw_winner(&self) -> Option<Side> {
        FocusRules::draw_winner(self)
    }
}
