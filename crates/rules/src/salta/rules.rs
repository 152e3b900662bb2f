//! Salta rule sets as values.

use std::fmt;
use std::str::FromStr;

use crate::error::RulesError;
use crate::position::{RuleSet, parse_rules};

/// How a jump sequence may go on after its first jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chains {
    /// Any number of further jumps; the player may stop after any jump (`seed`).
    Optional,
    /// One jump per move (`meyer1908`).
    Single,
    /// The piece must go on while it can jump again (`ludii`).
    Forced,
}

/// Where each piece must end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    /// On the opponent's starting square of the same symbol and number.
    SymbolMatched,
    /// Seven ranks forward, in the same order (`meyer1908`).
    SevenRanks,
}

/// What happens when the move limit is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitResult {
    /// The smaller remaining distance wins by the difference.
    Scored,
    /// The game is drawn.
    Draw,
}

/// The named presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SaltaPreset {
    Seed,
}

impl SaltaPreset {
    pub const ALL: [SaltaPreset; 1] = [SaltaPreset::Seed];
    pub const fn name(self) -> &'static str {
        match self {
            SaltaPreset::Seed => "seed",
        }
    }
}

/// A Salta rule set. Build one from a preset ([`SaltaRules::seed`]) and
/// adjust options with [`RuleSet::set_option`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SaltaRules {
    pub preset: SaltaPreset,
    /// Jumps only towards the opponent's side.
    pub forward_jumps_only: bool,
    pub chains: Chains,
    /// When any jump exists, the side to move must jump.
    pub compulsory_jumps: bool,
    /// Moves may carry a Salta call that forces the reply.
    pub calls: bool,
    pub goal: Goal,
    /// Moves per side after which the game ends.
    pub move_limit: Option<u32>,
    pub limit_result: LimitResult,
    /// Threefold repetition draws.
    pub repetition_draw: bool,
}

impl SaltaRules {
    /// The source text's rules (rulings.md, rule set `seed`).
    pub const fn seed() -> Self {
        SaltaRules {
            preset: SaltaPreset::Seed,
            forward_jumps_only: false,
            chains: Chains::Optional,
            compulsory_jumps: false,
            calls: true,
            goal: Goal::SymbolMatched,
            move_limit: None,
            limit_result: LimitResult::Scored,
            repetition_draw: true,
        }
    }

    fn from_preset(preset: SaltaPreset) -> Self {
        match preset {
            SaltaPreset::Seed => Self::seed(),
        }
    }
}

impl Default for SaltaRules {
    fn default() -> Self {
        Self::seed()
    }
}

const OPTIONS: &[(&str, &str)] =
    &[("move-limit", "N moves per side, then the game is scored by distance (0 or `none`: off)")];

impl RuleSet for SaltaRules {
    fn preset_names() -> &'static [&'static str] {
        &["seed"]
    }

    fn preset(name: &str) -> Result<Self, RulesError> {
        SaltaPreset::ALL.into_iter().find(|p| p.name() == name).map(Self::from_preset).ok_or_else(|| {
            RulesError::new(format!("unknown Salta rule set `{name}` (known: {})", Self::preset_names().join(", ")))
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
                "unknown Salta option `{key}` (known: {})",
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

/// `N`, `0` or `none`.
pub(crate) fn parse_limit(value: Option<&str>) -> Result<Option<u32>, RulesError> {
    match value {
        None => Err(RulesError::new("option move-limit needs a value, e.g. move-limit=120")),
        Some("none" | "off" | "0") => Ok(None),
        Some(v) => match v.parse::<u32>() {
            Ok(n) if n <= 1_000_000 => Ok(Some(n)),
            _ => Err(RulesError::new(format!(
                "move-limit `{v}`: expected a number of moves per side (1..1000000) or `none`"
            ))),
        },
    }
}

impl fmt::Display for SaltaRules {
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

impl FromStr for SaltaRules {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, RulesError> {
        parse_rules(s)
    }
}

impl crate::game::RepetitionRule for SaltaRules {
    fn repetition_draw(&self) -> bool {
        self.repetition_draw
    }
}
