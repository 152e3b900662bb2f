//! Game records: a PGN-like text format (docs/notation.md).
//!
//! ```text
//! [Game "salta"]
//! [Rules "seed"]
//! [White "Ada"]
//! [Black "Boris"]
//! [Date "2026.11.29"]
//! [Result "1-0"]
//! [Margin "12"]
//!
//! {An optional comment before the first move.}
//! 1. c3-d4 h8-g7 2. e3-f4 {a comment on White's second move} g7:e5+ 1-0
//! ```
//!
//! [`Record`] is the text level (tags, moves as written, comments): its
//! parser and writer round-trip. [`Record::replay`] checks the moves against
//! the rules and gives a [`Game`]; [`Record::from_game`] writes one.

use std::fmt;

use crate::error::MoveError;
use crate::game::{Game, RepetitionRule};
use crate::position::{Position, Status};
use thiserror::Error;

/// A malformed record, or one whose moves or result do not fit the rules.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("record{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
pub struct RecordError {
    /// The line of a syntax error; `None` for errors of the moves or tags
    /// against the rules (the message names the move or tag).
    pub line: Option<usize>,
    pub message: String,
}

/// One move as written, with the comment that follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMove {
    pub text: String,
    pub comment: Option<String>,
}

/// A game record at the text level.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Record {
    /// Tag pairs in order, e.g. `("Game", "salta")`.
    pub tags: Vec<(String, String)>,
    /// A comment before the first move.
    pub comment: Option<String>,
    pub moves: Vec<RecordMove>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*` (unfinished).
    pub result: String,
}

pub const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

impl Record {
    /// The value of a tag, if present.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Set a tag, replacing an earlier value.
    pub fn set_tag(&mut self, key: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(k, _)| k == key) {
            Some(t) => t.1 = value,
            None => self.tags.push((key.to_string(), value)),
        }
    }

    /// Parse the text format.
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        let mut p = Parser { chars: text.chars().collect(), pos: 0, line: 1 };
        let mut record = Record { result: "*".to_string(), ..Record::default() };
        // Tag section.
        loop {
            p.skip_space();
            if p.peek() != Some('[') {
                break;
            }
            let line = p.line;
            p.bump();
            let key = p.take_while(|c| c.is_ascii_alphanumeric() || c == '_');
            if key.is_empty() {
                return Err(p.error("a tag name (letters, digits, `_`) must follow `[`"));
            }
            if record.tag(&key).is_some() {
                return Err(RecordError { line: Some(line), message: format!("tag {key} appears twice") });
            }
            p.skip_inline_space();
            if p.peek() != Some('"') {
                return Err(p.error(&format!("tag {key}: expected a quoted value")));
            }
            p.bump();
            let mut value = String::new();
            loop {
                match p.bump() {
                    None | Some('\n') => {
                        return Err(RecordError {
                            line: Some(line),
                            message: format!("tag {key}: unterminated value"),
                        });
                    }
                    Some('\\') => match p.bump() {
                        Some(c @ ('"' | '\\')) => value.push(c),
                        _ => return Err(p.error(&format!("tag {key}: only \\\" and \\\\ are escapes"))),
                    },
                    Some('"') => break,
                    Some(c) => value.push(c),
                }
            }
            p.skip_inline_space();
            if p.bump() != Some(']') {
                return Err(p.error(&format!("tag {key}: expected `]` after the value")));
            }
            record.tags.push((key, value));
        }
        // Move text.
        let mut ended = false;
        loop {
            p.skip_space();
            let Some(c) = p.peek() else { break };
            if ended {
                return Err(p.error("text after the result"));
            }
            if c == '{' {
                let comment = p.comment()?;
                match record.moves.last_mut() {
                    Some(m) => {
                        if m.comment.is_some() {
                            return Err(p.error("two comments after one move"));
                        }
                        m.comment = Some(comment);
                    }
                    None => {
                        if record.comment.is_some() {
                            return Err(p.error("two comments before the first move"));
                        }
                        record.comment = Some(comment);
                    }
                }
                continue;
            }
            let token = p.take_while(|c| !c.is_whitespace() && c != '{');
            if RESULTS.contains(&token.as_str()) {
                record.result = token;
                ended = true;
                continue;
            }
            // A move number `12.` or `12...`, possibly glued to the move.
            let digits: String = token.chars().take_while(char::is_ascii_digit).collect();
            let rest = &token[digits.len()..];
            let mv = if !digits.is_empty() && rest.starts_with('.') {
                let n: usize = digits.parse().map_err(|_| p.error(&format!("move number `{digits}` is too large")))?;
                let expected = record.moves.len() / 2 + 1;
                if n != expected {
                    return Err(p.error(&format!("move number {n}: expected {expected}")));
                }
                let glued = rest.trim_start_matches('.');
                if RESULTS.contains(&glued) {
                    record.result = glued.to_string();
                    ended = true;
                    continue;
                }
                if glued.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
                    return Err(p.error(&format!("`{token}`: a move number must be followed by a move")));
                }
                glued.to_string()
            } else if !digits.is_empty() {
                return Err(p.error(&format!("`{token}`: a move number ends with `.`")));
            } else {
                token
            };
            if !mv.is_empty() {
                record.moves.push(RecordMove { text: mv, comment: None });
            }
        }
        Ok(record)
    }

    /// Parse a file of records one after another (as `monte match
    /// --records` writes them): a record starts at a tag line that follows
    /// move text. A syntax error names its line in the whole text.
    pub fn parse_many(text: &str) -> Result<Vec<Record>, RecordError> {
        let mut records = Vec::new();
        let (mut start, mut start_line, mut moves_seen) = (0, 0, false);
        let mut offset = 0;
        for (number, line) in text.split_inclusive('\n').enumerate() {
            let trimmed = line.trim();
            if trimmed.starts_with('[') && moves_seen {
                records.push(Self::parse_at(&text[start..offset], start_line)?);
                (start, start_line, moves_seen) = (offset, number, false);
            } else if !trimmed.is_empty() && !trimmed.starts_with('[') {
                moves_seen = true;
            }
            offset += line.len();
        }
        if !text[start..].trim().is_empty() {
            records.push(Self::parse_at(&text[start..], start_line)?);
        }
        Ok(records)
    }

    /// [`Record::parse`] of a part of a text that begins after
    /// `lines_before` lines.
    fn parse_at(text: &str, lines_before: usize) -> Result<Record, RecordError> {
        Self::parse(text).map_err(|e| RecordError { line: e.line.map(|l| l + lines_before), ..e })
    }

    /// Replay the moves under the rules given by the tags (`Rules`, optional
    /// `FEN`), checking each one, and check the result tag against the
    /// rules' verdict.
    pub fn replay<P: Position>(&self) -> Result<Game<P>, RecordError>
    where
        P::Rules: RepetitionRule,
    {
        let err = |message: String| RecordError { line: None, message };
        if let Some(g) = self.tag("Game")
            && g != P::KIND.name()
        {
            return Err(err(format!("Game tag `{g}`, but reading a {} record", P::KIND.name())));
        }
        let rules: P::Rules = match self.tag("Rules") {
            Some(r) => r.parse().map_err(|e: crate::RulesError| err(format!("Rules tag: {e}")))?,
            None => P::Rules::default(),
        };
        let start = match self.tag("FEN") {
            Some(f) => P::from_fen(rules, f).map_err(|e| err(format!("FEN tag: {e}")))?,
            None => P::start(rules),
        };
        let mut game = Game::new(start);
        for (i, m) in self.moves.iter().enumerate() {
            game.play_text(&m.text).map_err(|e: MoveError| {
                err(format!("move {}{} {}: {e}", i / 2 + 1, if i % 2 == 0 { "." } else { "..." }, m.text))
            })?;
        }
        if !RESULTS.contains(&self.result.as_str()) {
            return Err(err(format!("result `{}` (expected 1-0, 0-1, 1/2-1/2 or *)", self.result)));
        }
        if let Some(tag) = self.tag("Result")
            && tag != self.result
        {
            return Err(err(format!("Result tag `{tag}` differs from the result `{}` after the moves", self.result)));
        }
        if let Status::Over(o) = game.status() {
            if self.result != o.result_string() {
                return Err(err(format!("result `{}`, but the rules say {o} ({})", self.result, o.result_string())));
            }
            if let (Some(m), Some(tag)) = (o.margin, self.tag("Margin"))
                && tag != m.to_string()
            {
                return Err(err(format!("Margin tag `{tag}`, but the rules give {m}")));
            }
        }
        Ok(game)
    }

    /// A record of `game` with the standard tags (`Game`, `Rules`, `FEN` when
    /// the start is not the rule set's start, `Result`, `Margin`,
    /// `Termination`) after `extra` tags such as `White`, `Black`, `Date`.
    /// A game not over by the rules gets `result` (e.g. after a resignation)
    /// or `*`.
    pub fn from_game<P: Position>(game: &Game<P>, extra: &[(&str, &str)], result: Option<&str>) -> Record
    where
        P::Rules: RepetitionRule,
    {
        let mut r = Record::default();
        r.set_tag("Game", P::KIND.name());
        r.set_tag("Rules", game.start().rules().to_string());
        for (k, v) in extra {
            r.set_tag(k, *v);
        }
        if *game.start() != P::start(*game.start().rules()) {
            r.set_tag("FEN", game.start().fen());
        }
        r.result = match game.status() {
            Status::Over(o) => {
                if let Some(m) = o.margin {
                    r.set_tag("Margin", m.to_string());
                }
                r.set_tag("Termination", o.reason.name());
                o.result_string().to_string()
            }
            Status::Ongoing => result.unwrap_or("*").to_string(),
        };
        let res = r.result.clone();
        r.set_tag("Result", res);
        r.moves = game.move_texts().into_iter().map(|text| RecordMove { text, comment: None }).collect();
        r
    }
}

impl fmt::Display for Record {
    /// The text format; `Record::parse(&r.to_string()) == Ok(r)` for every
    /// record whose tag names are alphanumeric, tag values single-line, and
    /// move texts free of spaces, braces and leading digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in &self.tags {
            writeln!(f, "[{k} \"{}\"]", v.replace('\\', "\\\\").replace('"', "\\\""))?;
        }
        if !self.tags.is_empty() {
            writeln!(f)?;
        }
        let mut line = String::new();
        let mut push = |tok: String, out: &mut fmt::Formatter<'_>| -> fmt::Result {
            if !line.is_empty() && line.len() + 1 + tok.len() > 79 {
                writeln!(out, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&tok);
            Ok(())
        };
        if let Some(c) = &self.comment {
            push(format_comment(c), f)?;
        }
        for (i, m) in self.moves.iter().enumerate() {
            if i % 2 == 0 {
                push(format!("{}.", i / 2 + 1), f)?;
            }
            push(m.text.clone(), f)?;
            if let Some(c) = &m.comment {
                push(format_comment(c), f)?;
            }
        }
        push(self.result.clone(), f)?;
        writeln!(f, "{line}")
    }
}

fn format_comment(c: &str) -> String {
    format!("{{{}}}", c.replace('\\', "\\\\").replace('}', "\\}"))
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    line: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }
    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }
    fn skip_inline_space(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.bump();
        }
    }
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek() {
            if !f(c) {
                break;
            }
            s.push(c);
            self.bump();
        }
        s
    }
    fn comment(&mut self) -> Result<String, RecordError> {
        let line = self.line;
        self.bump();
        let mut s = String::new();
        loop {
            match self.bump() {
                None => return Err(RecordError { line: Some(line), message: "unterminated comment `{`".to_string() }),
                Some('\\') => match self.bump() {
                    Some(c @ ('}' | '\\')) => s.push(c),
                    _ => return Err(self.error("in a comment only \\} and \\\\ are escapes")),
                },
                Some('}') => return Ok(s),
                Some(c) => s.push(c),
            }
        }
    }
    fn error(&self, message: &str) -> RecordError {
        RecordError { line: Some(self.line), message: message.to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_records_are_split_at_their_tags_and_errors_name_the_file_line() {
        let text = "[Game \"salta\"]\n[Result \"*\"]\n\n1. c3-b4 *\n\n\
                    [Game \"salta\"]\n\n1. c3-d4 h8-g7\n2. a3-b4 *\n[Game \"salta\"]\n1. e3-f4 *\n";
        let records = Record::parse_many(text).unwrap();
        let moves: Vec<Vec<&str>> = records.iter().map(|r| r.moves.iter().map(|m| m.text.as_str()).collect()).collect();
        assert_eq!(moves, vec![vec!["c3-b4"], vec!["c3-d4", "h8-g7", "a3-b4"], vec!["e3-f4"]]);
        assert_eq!(records[0].tag("Result"), Some("*"));
        assert!(Record::parse_many("").unwrap().is_empty());
        // The bad move number is on line 7 of the whole text.
        let bad = "[Game \"salta\"]\n\n1. c3-b4 *\n\n[Game \"salta\"]\n\n3. c3-d4 *\n";
        let e = Record::parse_many(bad).unwrap_err();
        assert_eq!(e.line, Some(7), "{e:?}");
    }
}
