//! The list of games, turned into everything that chooses a game at run
//! time.
//!
//! `lib.rs` names each game once, in one `games!` list:
//!
//! ```text
//! games! {
//!     Salta => "salta", salta::SaltaPosition;
//!     Focus => "focus", focus::FocusPosition;
//! }
//! ```
//!
//! (variant, name in text, the game's [`Position`](crate::Position) type
//! in its module). An entry may carry one `#[cfg(...)]` attribute. The
//! list makes:
//!
//! - [`GameKind`](crate::GameKind): one variant per game, with
//!   `ALL`, `name`, `Display` and `FromStr`;
//! - [`AnyGame`](crate::AnyGame): one variant per game holding its
//!   [`Game`](crate::Game), `kind()`, and `From<Game<P>>`;
//! - [`with_game!`](crate::with_game) and [`each_game!`](crate::each_game),
//!   the exported dispatch macros: a `match` whose every arm names the
//!   game's position type, so that the body is generic code instantiated
//!   once per game, with whatever bounds the calling crate's traits need.
//!
//! A `#[cfg]` is resolved here, in this crate, before the dispatch macros
//! are written: otherwise the attribute would travel inside them and be
//! judged by the features of the crate that expands them.

/// Expand the list of games (see the module's documentation).
macro_rules! games {
    // Keep or drop the next entry by its `#[cfg]`; `true` marks the
    // entries every build has.
    (@select [$($kept:tt)*]
        #[cfg($cfg:meta)] $variant:ident => $name:literal, $module:ident :: $position:ident;
        $($rest:tt)*
    ) => {
        #[cfg($cfg)]
        games!(@select [$($kept)* $variant => $name, $module::$position, false;] $($rest)*);
        #[cfg(not($cfg))]
        games!(@select [$($kept)*] $($rest)*);
    };
    (@select [$($kept:tt)*]
        $variant:ident => $name:literal, $module:ident :: $position:ident;
        $($rest:tt)*
    ) => {
        games!(@select [$($kept)* $variant => $name, $module::$position, true;] $($rest)*);
    };
    (@select [$($kept:tt)*]) => {
        games!(@emit ($) $($kept)*);
    };
    // `$d` is a `$` for the macros written here.
    (@emit ($d:tt) $($variant:ident => $name:literal, $module:ident :: $position:ident, $every_build:literal;)*) => {
        /// Which game: one variant per entry of the list of games
        /// (`crate::registry`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum GameKind {
            $($variant,)*
        }

        impl GameKind {
            /// Every game of this build, in the order of the list.
            pub const ALL: [GameKind; [$($name),*].len()] = [$(GameKind::$variant),*];

            /// The game's name in text: `--game`, records, the API.
            pub const fn name(self) -> &'static str {
                match self {
                    $(GameKind::$variant => $name,)*
                }
            }

            /// Whether every build has the game: false for one registered
            /// under a `#[cfg]` (a test-only game). Documents that describe
            /// the shipped program list only these.
            pub const fn in_every_build(self) -> bool {
                match self {
                    $(GameKind::$variant => $every_build,)*
                }
            }
        }

        impl ::std::fmt::Display for GameKind {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for GameKind {
            type Err = $crate::RulesError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let wanted = s.to_ascii_lowercase();
                GameKind::ALL.into_iter().find(|kind| kind.name() == wanted).ok_or_else(|| {
                    let known: Vec<&str> = GameKind::ALL.iter().map(|kind| kind.name()).collect();
                    $crate::RulesError::new(format!("unknown game `{s}` (known: {})", known.join(", ")))
                })
            }
        }

        /// A game of any kind, with its history.
        #[derive(Clone, Debug)]
        pub enum AnyGame {
            $($variant($crate::Game<$crate::$module::$position>),)*
        }

        impl AnyGame {
            pub fn kind(&self) -> GameKind {
                match self {
                    $(AnyGame::$variant(_) => GameKind::$variant,)*
                }
            }
        }

        $(
            impl From<$crate::Game<$crate::$module::$position>> for AnyGame {
                fn from(game: $crate::Game<$crate::$module::$position>) -> AnyGame {
                    AnyGame::$variant(game)
                }
            }
        )*

        /// Run code written for one position type with the type of a
        /// [`GameKind`] known at run time.
        ///
        /// `with_game!(kind, P => body)` is a `match` on `kind` whose arm
        /// for each game declares `type P = <its position type>;` and then
        /// evaluates `body`. The body is compiled once per game, so it may
        /// call generic functions with bounds of the caller's own crate
        /// (`P: EngineGame`), as long as every game meets them.
        #[macro_export]
        macro_rules! with_game {
            ($d kind:expr, $d P:ident => $d body:expr) => {
                match $d kind {
                    $($d crate::GameKind::$variant => {
                        type $d P = $d crate::$module::$position;
                        $d body
                    })*
                }
            };
        }

        /// Run code on the [`Game`](crate::Game) inside an [`AnyGame`].
        ///
        /// `each_game!(any_game, g => body)` is a `match` that binds `g`
        /// to the game of each variant (by value, or by reference for a
        /// reference to an `AnyGame`) and evaluates `body`;
        /// `each_game!(any_game, g: P => body)` also declares
        /// `type P = <its position type>;` for the body.
        #[macro_export]
        macro_rules! each_game {
            ($d game:expr, $d g:ident => $d body:expr) => {
                match $d game {
                    $($d crate::AnyGame::$variant($d g) => $d body,)*
                }
            };
            ($d game:expr, $d g:ident : $d P:ident => $d body:expr) => {
                match $d game {
                    $($d crate::AnyGame::$variant($d g) => {
                        type $d P = $d crate::$module::$position;
                        $d body
                    })*
                }
            };
        }
    };
    ($($entries:tt)*) => {
        games!(@select [] $($entries)*);
    };
}
