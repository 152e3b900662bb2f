//! Focus rule sets as values.

use std::fmt;
use std::str::FromStr;

use crate::error::RulesError;
use crate::position::{RuleSet, parse_rules};
use crate::salta::rules::parse_limit;

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
    Seed,
}

impl FocusPreset {
    pub const ALL: [FocusPreset; 1] = [FocusPreset::Seed];
    pub const fn name(self) -> &'static str {
        match self {
            FocusPreset::Seed => "seed",
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
}

impl FocusRules {
    /// The source text's rules (rulings.md, rule set `seed`).
    pub const fn seed() -> Self {
        FocusRules { preset: FocusPreset::Seed, group_moves: GroupMoves::Sweep, jumps: true, move_limit: None }
    }

    fn from_preset(p: FocusPreset) -> Self {
        match p {
            FocusPreset::Seed => Self::seed(),
        }
    }
}

impl Default for FocusRules {
    fn default() -> Self {
        Self::seed()
    }
}

const OPTIONS: &[(&str, &str)] = &[("move-limit", "N moves per side, then the game is drawn (0 or `none`: off)")];

impl RuleSet for FocusRules {
    fn preset_names() -> &'static [&'static str] {
        &["seed"]
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
            "move-limit" => {
                self.move_limit = parse_limit(value)?;
                Ok(())
            }
            _ => Err(RulesError::new(format!(
                "unknown Focus option `{key}` (known: {})",
                OPTIONS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

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
        if self.move_limit != base.move_limit {
            match self.move_limit {
                Some(n) => write!(f, ",move-limit={n}")?,
                None => f.write_str(",move-limit=none")?,
            }
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
}
