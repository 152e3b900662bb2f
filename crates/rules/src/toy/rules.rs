//! The toy's rule set: one preset, `seed`, and its move limit.

use std::fmt;
use std::str::FromStr;

use crate::error::RulesError;
use crate::position::{RuleSet, parse_rules};
use crate::salta::rules::{limit_text, parse_limit, unknown_option};

/// A toy rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ToyRules {
    /// Moves per side after which the game is drawn.
    pub move_limit: Option<u32>,
}

impl ToyRules {
    pub const fn seed() -> Self {
        ToyRules { move_limit: Some(10) }
    }
}

impl Default for ToyRules {
    fn default() -> Self {
        Self::seed()
    }
}

const OPTIONS: &[(&str, &str)] = &[("move-limit", "N | none: moves per side after which the game is drawn")];

impl RuleSet for ToyRules {
    fn preset_names() -> &'static [&'static str] {
        &["seed"]
    }

    fn preset(name: &str) -> Result<Self, RulesError> {
        match name {
            "seed" => Ok(Self::seed()),
            _ => Err(RulesError::new(format!("unknown toy rule set `{name}` (known: seed)"))),
        }
    }

    fn preset_name(&self) -> &'static str {
        "seed"
    }

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), RulesError> {
        match key {
            "move-limit" => self.move_limit = parse_limit(value)?,
            _ => return Err(unknown_option("toy", key, OPTIONS)),
        }
        Ok(())
    }

    fn option_help() -> &'static [(&'static str, &'static str)] {
        OPTIONS
    }

    fn move_limit(&self) -> Option<u32> {
        self.move_limit
    }
}

impl fmt::Display for ToyRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("seed")?;
        if self.move_limit != Self::seed().move_limit {
            write!(f, ",move-limit={}", limit_text(self.move_limit))?;
        }
        Ok(())
    }
}

impl FromStr for ToyRules {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, RulesError> {
        parse_rules(s)
    }
}

impl crate::game::RepetitionRule for ToyRules {
    fn repetition_draw(&self) -> bool {
        true
    }
}
