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
    /// The source text (rulings.md).
    Seed,
    /// The tournament rules of 1900-1909 (Meyers Konversations-Lexikon).
    Meyer1908,
    /// Salta as the Ludii system encodes it.
    Ludii,
}

impl SaltaPreset {
    pub const ALL: [SaltaPreset; 3] = [SaltaPreset::Seed, SaltaPreset::Meyer1908, SaltaPreset::Ludii];
    pub const fn name(self) -> &'static str {
        match self {
            SaltaPreset::Seed => "seed",
            SaltaPreset::Meyer1908 => "meyer1908",
            SaltaPreset::Ludii => "ludii",
        }
    }
}

/// A Salta rule set. Build one from a preset ([`SaltaRules::seed`],
/// [`SaltaRules::meyer1908`], [`SaltaRules::ludii`]) and adjust options with
/// [`RuleSet::set_option`].
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
    /// A move may not leave the opponent without a move, unless every move would.
    pub blockade_ban: bool,
    /// When White completes first, Black has one more move to draw.
    pub equalising_move: bool,
    /// Moves per side after which the game ends.
    pub move_limit: Option<u32>,
    pub limit_result: LimitResult,
    /// Threefold repetition draws.
    pub repetition_draw: bool,
}

impl SaltaRules {
    /// Whether a move limit ends the game scored by the race distance.
    pub const fn scored_limit(&self) -> bool {
        self.move_limit.is_some() && matches!(self.limit_result, LimitResult::Scored)
    }

    /// The source text's rules (rulings.md, rule set `seed`).
    pub const fn seed() -> Self {
        SaltaRules {
            preset: SaltaPreset::Seed,
            forward_jumps_only: false,
            chains: Chains::Optional,
            compulsory_jumps: false,
            calls: true,
            goal: Goal::SymbolMatched,
            blockade_ban: false,
            equalising_move: false,
            move_limit: None,
            limit_result: LimitResult::Scored,
            repetition_draw: true,
        }
    }

    /// The tournament rules of 1900-1909 (rulings.md, `meyer1908`).
    pub const fn meyer1908() -> Self {
        SaltaRules {
            preset: SaltaPreset::Meyer1908,
            forward_jumps_only: true,
            chains: Chains::Single,
            compulsory_jumps: true,
            calls: false,
            goal: Goal::SevenRanks,
            blockade_ban: true,
            equalising_move: true,
            move_limit: Some(120),
            limit_result: LimitResult::Scored,
            repetition_draw: false,
        }
    }

    /// Ludii's Salta (rulings.md, `ludii`).
    pub const fn ludii() -> Self {
        SaltaRules {
            preset: SaltaPreset::Ludii,
            forward_jumps_only: false,
            chains: Chains::Forced,
            compulsory_jumps: true,
            calls: false,
            goal: Goal::SymbolMatched,
            blockade_ban: false,
            equalising_move: false,
            move_limit: Some(1250),
            limit_result: LimitResult::Draw,
            // Ludii's Salta has no repetition rule (its random playouts run
            // to the move limit, about 4,000 moves a game), and the limit
            // ends every game; docs/rules.md explains this reading.
            repetition_draw: false,
        }
    }

    pub const fn from_preset(preset: SaltaPreset) -> Self {
        match preset {
            SaltaPreset::Seed => Self::seed(),
            SaltaPreset::Meyer1908 => Self::meyer1908(),
            SaltaPreset::Ludii => Self::ludii(),
        }
    }

    /// Reject options that do not fit together.
    fn check_options(&self) -> Result<(), RulesError> {
        if self.calls && self.compulsory_jumps {
            return Err(RulesError::new(
                "calls=on with compulsory-jumps=on: a Salta call forces a jump, which compulsory jumps already do; choose one",
            ));
        }
        if self.calls && self.chains == Chains::Forced {
            return Err(RulesError::new(
                "calls=on with chains=forced: a forced chain leaves the reply to a call no choice of where to stop; use chains=optional or single",
            ));
        }
        if self.move_limit.is_none() && !self.repetition_draw {
            return Err(RulesError::new(
                "repetition=off needs a move limit, or a game could go on for ever (e.g. move-limit=120)",
            ));
        }
        Ok(())
    }
}

impl Default for SaltaRules {
    fn default() -> Self {
        Self::seed()
    }
}

const OPTIONS: &[(&str, &str)] = &[
    ("jumps", "any | forward: the directions a piece may jump in"),
    ("chains", "optional | single | forced: whether a jump sequence may, may not, or must go on"),
    ("compulsory-jumps", "on | off: when a jump exists, the side to move must jump"),
    ("calls", "on | off: Salta calls (a trailing + on a move) force the reply to jump"),
    ("goal", "symbols | seven-ranks: the opponent's matching start squares, or seven ranks forward"),
    ("blockade-ban", "on | off: a move may not leave the opponent without a move (unless all would)"),
    ("equalising-move", "on | off: when White completes first, Black has one more move to draw"),
    ("move-limit", "N | none: moves per side after which the game ends"),
    ("limit-result", "scored | draw: at the move limit the smaller distance wins, or the game is drawn"),
    ("repetition", "on | off: threefold repetition draws"),
];

pub(crate) fn parse_switch(key: &str, value: Option<&str>) -> Result<bool, RulesError> {
    match value {
        None | Some("on" | "yes" | "true") => Ok(true),
        Some("off" | "no" | "false") => Ok(false),
        Some(v) => Err(RulesError::new(format!("option {key}: expected on or off, found `{v}`"))),
    }
}

fn parse_choice<T: Copy>(key: &str, value: Option<&str>, choices: &[(&str, T)]) -> Result<T, RulesError> {
    let names = || choices.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(" or ");
    let v = value.ok_or_else(|| RulesError::new(format!("option {key} needs a value: {}", names())))?;
    choices
        .iter()
        .find(|(n, _)| *n == v)
        .map(|(_, t)| *t)
        .ok_or_else(|| RulesError::new(format!("option {key}: expected {}, found `{v}`", names())))
}

const JUMPS: &[(&str, bool)] = &[("any", false), ("forward", true)];
const CHAINS: &[(&str, Chains)] =
    &[("optional", Chains::Optional), ("single", Chains::Single), ("forced", Chains::Forced)];
const GOALS: &[(&str, Goal)] = &[("symbols", Goal::SymbolMatched), ("seven-ranks", Goal::SevenRanks)];
const LIMIT_RESULTS: &[(&str, LimitResult)] = &[("scored", LimitResult::Scored), ("draw", LimitResult::Draw)];

fn name_of<T: PartialEq + Copy>(choices: &[(&'static str, T)], v: T) -> &'static str {
    choices.iter().find(|(_, t)| *t == v).map_or("?", |(n, _)| *n)
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

impl RuleSet for SaltaRules {
    fn preset_names() -> &'static [&'static str] {
        &["seed", "meyer1908", "ludii"]
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
            "jumps" => self.forward_jumps_only = parse_choice(key, value, JUMPS)?,
            "chains" => self.chains = parse_choice(key, value, CHAINS)?,
            "compulsory-jumps" => self.compulsory_jumps = parse_switch(key, value)?,
            "calls" => self.calls = parse_switch(key, value)?,
            "goal" => self.goal = parse_choice(key, value, GOALS)?,
            "blockade-ban" => self.blockade_ban = parse_switch(key, value)?,
            "equalising-move" => self.equalising_move = parse_switch(key, value)?,
            "move-limit" => self.move_limit = parse_limit(value)?,
            "limit-result" => self.limit_result = parse_choice(key, value, LIMIT_RESULTS)?,
            "repetition" => self.repetition_draw = parse_switch(key, value)?,
            _ => return Err(unknown_option("Salta", key, OPTIONS)),
        }
        Ok(())
    }

    fn option_help() -> &'static [(&'static str, &'static str)] {
        OPTIONS
    }

    fn move_limit(&self) -> Option<u32> {
        self.move_limit
    }

    fn validate(&self) -> Result<(), RulesError> {
        self.check_options()
    }
}

/// `N`, `0` or `none`.
pub(crate) fn parse_limit(value: Option<&str>) -> Result<Option<u32>, RulesError> {
    match value {
        None => Err(RulesError::new("option move-limit needs a value, e.g. move-limit=120")),
        Some("none" | "off") => Ok(None),
        Some(v) => match v.parse::<u32>() {
            Ok(n) if (1..=1_000_000).contains(&n) => Ok(Some(n)),
            _ => Err(RulesError::new(format!(
                "move-limit `{v}`: expected a number of moves per side (1..1000000) or `none`"
            ))),
        },
    }
}

/// The error for an option a game's rule sets do not have, listing those
/// they have.
pub(crate) fn unknown_option(game: &str, key: &str, options: &[(&str, &str)]) -> RulesError {
    let known: Vec<&str> = options.iter().map(|(name, _)| *name).collect();
    RulesError::new(format!("unknown {game} option `{key}` (known: {})", known.join(", ")))
}

/// A move limit as `parse_limit` reads it: the number, or `none`.
pub(crate) fn limit_text(limit: Option<u32>) -> String {
    limit.map_or_else(|| "none".to_string(), |n| n.to_string())
}

impl fmt::Display for SaltaRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = Self::from_preset(self.preset);
        f.write_str(self.preset.name())?;
        if self.forward_jumps_only != base.forward_jumps_only {
            write!(f, ",jumps={}", name_of(JUMPS, self.forward_jumps_only))?;
        }
        if self.chains != base.chains {
            write!(f, ",chains={}", name_of(CHAINS, self.chains))?;
        }
        if self.compulsory_jumps != base.compulsory_jumps {
            write!(f, ",compulsory-jumps={}", on_off(self.compulsory_jumps))?;
        }
        if self.calls != base.calls {
            write!(f, ",calls={}", on_off(self.calls))?;
        }
        if self.goal != base.goal {
            write!(f, ",goal={}", name_of(GOALS, self.goal))?;
        }
        if self.blockade_ban != base.blockade_ban {
            write!(f, ",blockade-ban={}", on_off(self.blockade_ban))?;
        }
        if self.equalising_move != base.equalising_move {
            write!(f, ",equalising-move={}", on_off(self.equalising_move))?;
        }
        if self.move_limit != base.move_limit {
            write!(f, ",move-limit={}", limit_text(self.move_limit))?;
        }
        if self.limit_result != base.limit_result {
            write!(f, ",limit-result={}", name_of(LIMIT_RESULTS, self.limit_result))?;
        }
        if self.repetition_draw != base.repetition_draw {
            write!(f, ",repetition={}", on_off(self.repetition_draw))?;
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
