use thiserror::Error;

/// A position string that is malformed or describes a position that cannot
/// arise. The message says what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid position: {0}")]
pub struct PositionError(pub String);

/// A move that is malformed or illegal in the position. The message says why.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct MoveError(pub String);

/// An unknown rule set name or option, or options that do not fit together.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct RulesError(pub String);

impl PositionError {
    pub fn new(msg: impl Into<String>) -> Self {
        PositionError(msg.into())
    }
}

impl MoveError {
    pub fn new(msg: impl Into<String>) -> Self {
        MoveError(msg.into())
    }
}

impl RulesError {
    pub fn new(msg: impl Into<String>) -> Self {
        RulesError(msg.into())
    }
}
