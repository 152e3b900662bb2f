//! `monte play`: a game in the terminal, human or engine on either side.
//!
//! Everything about the rules comes from `monte_rules::any::AnyGame`; the
//! engine's moves from `monte_engine::ai::choose_any`. On a terminal the
//! screen is redrawn after each move; in a pipe the output is plain text
//! and every prompt ends its line, so a script can drive a game line by
//! line.

use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result};
use monte_engine::ai::{Choice, choose_any};
use monte_engine::{Level, SearchOptions, Searcher};
use monte_rules::any::{AnyError, AnyGame, MoveShape, board_layout};
use monte_rules::record::Record;
use monte_rules::{GameKind, Outcome, RenderStyle, Rng, Side, Status};

/// The level `hint` searches at (no noise).
const HINT_LEVEL: u8 = 6;

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    Human,
    Ai(Level),
}

impl FromStr for Seat {
    type Err = String;
    fn from_str(s: &str) -> Result<Seat, String> {
        let s = s.trim().to_ascii_lowercase();
        if s == "human" {
            return Ok(Seat::Human);
        }
        let level = s
            .strip_prefix("ai:")
            .and_then(|n| n.parse::<u8>().ok())
            .and_then(monte_engine::level)
            .ok_or_else(|| format!("`{s}`: expected `human` or `ai:LEVEL` with LEVEL 1-8"))?;
        Ok(Seat::Ai(level))
    }
}

impl Seat {
    /// The name written into records and messages.
    fn name(&self) -> String {
        match self {
            Seat::Human => "Human".to_string(),
            Seat::Ai(level) => format!("Monte level {} ({})", level.number, level.name),
        }
    }

    /// The name in running text: `Monte level 3, Casual`.
    fn label(&self) -> String {
        match self {
            Seat::Human => "Human".to_string(),
            Seat::Ai(level) => format!("Monte level {}, {}", level.number, level.name),
        }
    }
}

/// How a game is played and shown.
#[derive(Debug)]
pub struct Settings {
    pub white: Seat,
    pub black: Seat,
    /// Where the record is written when the game ends or the player quits.
    pub record: Option<PathBuf>,
    /// ANSI colours.
    pub color: bool,
    /// Output goes to a terminal: clear the screen before each board, and
    /// leave the cursor after the prompt.
    pub terminal: bool,
    /// Seed of the engine's random choices (levels 1-5).
    pub seed: u64,
}

/// What to do after a line of input.
enum Flow {
    Continue,
    Quit,
}

struct Session {
    game: AnyGame,
    settings: Settings,
    /// One searcher per engine seat (each keeps its own table), and one
    /// for hints, made when first needed.
    searchers: [Option<Searcher>; 2],
    hint_searcher: Option<Searcher>,
    noise: Rng,
    /// Whose side of the board is shown at the bottom.
    view_from: Side,
    /// Lines shown under the next board (what just happened).
    news: Vec<String>,
    /// The end of the game has been announced (and the record saved).
    end_reported: bool,
}

/// Play a game from `game` until it ends (when no human plays), or until
/// the player quits or the input ends.
pub fn run(game: AnyGame, settings: Settings) -> Result<()> {
    let searcher_for = |seat: Seat| match seat {
        Seat::Human => None,
        Seat::Ai(level) => {
            Some(Searcher::new(SearchOptions { hash_mb: 32, threads: level.threads, ..Default::default() }))
        }
    };
    let mut session = Session {
        searchers: [searcher_for(settings.white), searcher_for(settings.black)],
        hint_searcher: None,
        noise: Rng::new(settings.seed),
        // A human playing Black alone sees the board from his side.
        view_from: if settings.black == Seat::Human && settings.white != Seat::Human {
            Side::Black
        } else {
            Side::White
        },
        news: Vec::new(),
        end_reported: false,
        game,
        settings,
    };
    session.news.push(format!(
        "{} ({}): White {}, Black {}. Type `help` for the commands.",
        session.game.kind(),
        session.game.rules(),
        session.settings.white.name(),
        session.settings.black.name()
    ));
    session.redraw()?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock().lines();
    loop {
        match session.game.status() {
            Status::Over(outcome) => {
                if !session.end_reported {
                    session.report_end(outcome)?;
                }
                if !session.has_human() {
                    return Ok(());
                }
            }
            Status::Ongoing => {
                if let Seat::Ai(level) = session.seat(session.game.side_to_move()) {
                    session.engine_move(&level)?;
                    session.redraw()?;
                    continue;
                }
            }
        }
        session.prompt()?;
        let Some(line) = input.next() else {
            // The input ended: like `quit`.
            return session.finish();
        };
        match session.handle(line?.trim())? {
            Flow::Continue => {}
            Flow::Quit => return session.finish(),
        }
    }
}

/// Write to stdout, failing (not panicking) when the reader has gone.
fn say(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn say_line(text: &str) -> Result<()> {
    say(&format!("{text}\n"))
}

const HELP: &str = "\
Type a move in the notation (Salta: c3-d4, c3:e5:c7, c3:c7, a trailing + for a Salta call, pass;
Focus: c3-c5 group move, c3xc5 jump, @c3 drop, pass), or a command:
  moves [SQUARE]  list the legal moves (only those from SQUARE)
  hint            the engine's suggestion, with its score and expected line
  undo            take back your last move (and the engine's reply to it)
  save FILE       write the game record to FILE
  load FILE       continue the game recorded in FILE
  flip            turn the board around
  help            this text
  quit            end the program (the record is saved with --record)";

impl Session {
    fn seat(&self, side: Side) -> Seat {
        match side {
            Side::White => self.settings.white,
            Side::Black => self.settings.black,
        }
    }

    fn has_human(&self) -> bool {
        self.settings.white == Seat::Human || self.settings.black == Seat::Human
    }

    /// The board, the position string and what just happened.
    fn redraw(&mut self) -> Result<()> {
        let mut text = String::new();
        if self.settings.terminal {
            // Clear the screen and go home.
            text.push_str("\x1b[2J\x1b[H");
        }
        text.push_str(&self.game.render(RenderStyle { color: self.settings.color, from: self.view_from }));
        if let Status::Over(o) = self.game.status()
            && !self.game.position_status().is_over()
        {
            // Repetition is a matter of the game's history, which the
            // board (a position) does not show.
            writeln!(text, "  Game over: {o}").expect("write to a String");
        }
        writeln!(text, "Position: {}", self.game.fen()).expect("write to a String");
        for line in self.news.drain(..) {
            text.push_str(&line);
            text.push('\n');
        }
        say(&text)
    }

    fn prompt(&self) -> Result<()> {
        let side = self.game.side_to_move();
        let text = if self.game.status().is_over() { "game over".to_string() } else { side.to_string() };
        if self.settings.terminal { say(&format!("{text}> ")) } else { say_line(&format!("{text}>")) }
    }

    fn handle(&mut self, line: &str) -> Result<Flow> {
        if line.is_empty() {
            return Ok(Flow::Continue);
        }
        let (command, argument) = match line.split_once(char::is_whitespace) {
            Some((c, a)) => (c, a.trim()),
            None => (line, ""),
        };
        match command.to_ascii_lowercase().as_str() {
            "help" | "?" => say_line(HELP)?,
            "quit" | "exit" => return Ok(Flow::Quit),
            "moves" => self.list_moves(argument)?,
            "hint" => self.hint()?,
            "undo" => self.undo()?,
            "flip" => {
                self.view_from = !self.view_from;
                self.redraw()?;
            }
            "save" => match argument {
                "" => say_line("save: name the file, e.g. `save game.txt`")?,
                file => self.save(&PathBuf::from(file))?,
            },
            "load" => match argument {
                "" => say_line("load: name the file, e.g. `load game.txt`")?,
                file => self.load(&PathBuf::from(file))?,
            },
            _ => self.human_move(line)?,
        }
        Ok(Flow::Continue)
    }

    fn human_move(&mut self, text: &str) -> Result<()> {
        let side = self.game.side_to_move();
        match self.game.play(text) {
            Ok(played) => {
                let news = format!("{side} played {played}.");
                self.news.push(news.clone());
                self.redraw()?;
                // An engine answering next redraws the board at once: keep
                // the move on that screen too.
                if !self.game.status().is_over() && self.seat(self.game.side_to_move()) != Seat::Human {
                    self.news.push(news);
                }
                Ok(())
            }
            Err(e) => say(&self.explain_illegal(text, &e)),
        }
    }

    /// Why a move was refused (the rules crate's reason), what the piece
    /// on its first square can do instead, and where to look for more.
    fn explain_illegal(&self, text: &str, error: &AnyError) -> String {
        let mut out = format!("Not a legal move: {error}\n");
        if self.game.status().is_over() {
            return out;
        }
        if let Some(square) = leading_square(self.game.kind(), text) {
            let from_here: Vec<String> = self
                .game
                .legal_moves()
                .into_iter()
                .filter(|m| m.from.as_deref() == Some(square.as_str()))
                .map(|m| m.notation)
                .collect();
            let what = self.game.piece_word();
            if from_here.is_empty() {
                writeln!(out, "No legal move starts on {square}.").expect("write to a String");
            } else {
                writeln!(out, "The {what} on {square} can play: {}", from_here.join(" ")).expect("write to a String");
            }
        }
        out.push_str("Type `moves` for all legal moves, `help` for the commands.\n");
        out
    }

    fn list_moves(&self, square: &str) -> Result<()> {
        if let Status::Over(o) = self.game.status() {
            return say_line(&format!("The game is over: {o}."));
        }
        let moves = self.game.legal_moves();
        if !square.is_empty() {
            let Some(name) = leading_square(self.game.kind(), square) else {
                return say_line(&format!("moves: `{square}` is not a square"));
            };
            let here: Vec<String> =
                moves.into_iter().filter(|m| m.from.as_deref() == Some(name.as_str())).map(|m| m.notation).collect();
            return match here.is_empty() {
                true => say_line(&format!("No legal move starts on {name}.")),
                false => say_line(&format!("From {name}: {}", here.join(" "))),
            };
        }
        // One line per starting square, in the order the rules list them;
        // drops and pass on a line of their own.
        let mut lines: Vec<(String, Vec<String>)> = Vec::new();
        for m in &moves {
            let key = match (&m.from, m.kind) {
                (Some(from), _) => format!("{from}:"),
                (None, MoveShape::Drop) => "drops:".to_string(),
                (None, _) => "pass:".to_string(),
            };
            match lines.iter_mut().find(|(k, _)| *k == key) {
                Some((_, list)) => list.push(m.notation.clone()),
                None => lines.push((key, vec![m.notation.clone()])),
            }
        }
        let mut text = format!("{} legal moves for {}:\n", moves.len(), self.game.side_to_move());
        for (key, list) in lines {
            writeln!(text, "  {key:<7}{}", list.join(" ")).expect("write to a String");
        }
        say(&text)
    }

    fn hint(&mut self) -> Result<()> {
        if let Status::Over(o) = self.game.status() {
            return say_line(&format!("The game is over: {o}."));
        }
        let level = monte_engine::level(HINT_LEVEL).expect("level 6 exists");
        if self.settings.terminal {
            say_line("Thinking…")?;
        }
        let searcher = self.hint_searcher.get_or_insert_with(|| {
            Searcher::new(SearchOptions { hash_mb: 32, threads: level.threads, ..Default::default() })
        });
        let stop = AtomicBool::new(false);
        let side = self.game.side_to_move();
        match choose_any(searcher, &self.game, &level, None, &mut self.noise, &stop, &mut |_| {}) {
            Ok(c) => say_line(&format!(
                "Hint: {} (score {} for {side}, depth {}). Expected line: {}",
                c.mv,
                c.score,
                c.depth,
                c.pv.join(" ")
            )),
            Err(e) => say_line(&format!("No hint: {e}.")),
        }
    }

    fn engine_move(&mut self, level: &Level) -> Result<()> {
        let side = self.game.side_to_move();
        if self.settings.terminal {
            say_line(&format!("{side} ({}) is thinking…", self.seat(side).label()))?;
        }
        let searcher = self.searchers[side.index()].as_ref().expect("an engine seat has a searcher");
        let stop = AtomicBool::new(false);
        let choice: Choice<String> = choose_any(searcher, &self.game, level, None, &mut self.noise, &stop, &mut |_| {})
            .context("the engine found no move")?;
        let played = self.game.play(&choice.mv).context("the engine's move was refused by the rules")?;
        self.news.push(format!(
            "{side} ({}) played {played}: score {} for {side}, depth {}, {} nodes, {} ms.",
            self.seat(side).label(),
            choice.score,
            choice.depth,
            choice.nodes,
            choice.time.as_millis()
        ));
        Ok(())
    }

    /// Take back moves up to and including the last one a human made.
    fn undo(&mut self) -> Result<()> {
        let mut trial = self.game.clone();
        let mut taken = Vec::new();
        loop {
            let Some(mv) = trial.undo() else {
                return say_line("Nothing to take back.");
            };
            taken.push(mv);
            // The side to move now is the side that made `mv`.
            if self.seat(trial.side_to_move()) == Seat::Human {
                break;
            }
        }
        taken.reverse();
        self.game = trial;
        self.end_reported = false;
        self.news.push(format!("Took back {}.", taken.join(" ")));
        self.redraw()
    }

    fn record(&self) -> Record {
        let white = self.settings.white.name();
        let black = self.settings.black.name();
        let date = today();
        self.game.record(&[("White", &white), ("Black", &black), ("Date", &date)], None)
    }

    fn save(&self, path: &PathBuf) -> Result<()> {
        match std::fs::write(path, self.record().to_string()) {
            Ok(()) => say_line(&format!("Saved the game ({} moves) to {}.", self.game.moves_played(), path.display())),
            Err(e) => say_line(&format!("save: cannot write {}: {e}", path.display())),
        }
    }

    fn load(&mut self, path: &PathBuf) -> Result<()> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return say_line(&format!("load: cannot read {}: {e}", path.display())),
        };
        match AnyGame::from_record(&text) {
            Ok(game) => {
                self.game = game;
                self.end_reported = false;
                // What the engines learnt belongs to the old game.
                for searcher in self.searchers.iter().chain(std::iter::once(&self.hint_searcher)).flatten() {
                    searcher.clear();
                }
                self.news.push(format!(
                    "Loaded {} ({} moves, {} {}).",
                    path.display(),
                    self.game.moves_played(),
                    self.game.kind(),
                    self.game.rules()
                ));
                self.redraw()
            }
            Err(e) => say_line(&format!("load: {}: {e}", path.display())),
        }
    }

    /// The end of the game: the result with its margin, and the record.
    fn report_end(&mut self, outcome: Outcome) -> Result<()> {
        self.end_reported = true;
        say_line(&format!("Result: {} — {outcome}.", outcome.result_string()))?;
        match &self.settings.record {
            Some(path) => self.save(path),
            None => say(&format!("Record:\n{}", self.record())),
        }
    }

    /// Quit: save the record of an unfinished game too.
    fn finish(&mut self) -> Result<()> {
        if let Some(path) = self.settings.record.clone()
            && !self.end_reported
        {
            self.save(&path)?;
        }
        Ok(())
    }
}

/// The square a move text starts with (`c3` in `c3-d4`, `c3:e5`, `c3xc5`),
/// if it is one of the game's squares.
fn leading_square(kind: GameKind, text: &str) -> Option<String> {
    let head = text.split(['-', ':', 'x', '+']).next()?.trim();
    board_layout(kind).has_square(head).then(|| head.to_string())
}

/// Today's date as records write it (`2026.11.29`, UTC).
fn today() -> String {
    let format = time::macros::format_description!("[year].[month].[day]");
    time::OffsetDateTime::now_utc().format(format).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_parse() {
        assert_eq!("human".parse::<Seat>(), Ok(Seat::Human));
        assert_eq!("AI:3".parse::<Seat>().map(|s| s.name()), Ok("Monte level 3 (Casual)".to_string()));
        assert!("ai:9".parse::<Seat>().unwrap_err().contains("LEVEL 1-8"));
        assert!("robot".parse::<Seat>().is_err());
    }

    #[test]
    fn leading_square_names_the_first_square_of_the_game() {
        assert_eq!(leading_square(GameKind::Salta, "c3-c4").as_deref(), Some("c3"));
        assert_eq!(leading_square(GameKind::Salta, "j10:h8+").as_deref(), Some("j10"));
        assert_eq!(leading_square(GameKind::Salta, "b3-c4"), None, "a light square");
        assert_eq!(leading_square(GameKind::Focus, "c3xc5").as_deref(), Some("c3"));
        assert_eq!(leading_square(GameKind::Focus, "a1-a2"), None, "a cut corner");
        assert_eq!(leading_square(GameKind::Focus, "@c3"), None);
        assert_eq!(leading_square(GameKind::Salta, "pass"), None);
    }

    #[test]
    fn records_are_dated_year_month_day() {
        let date = today();
        let parts: Vec<&str> = date.split('.').collect();
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [4, 2, 2], "{date}");
        assert!(parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit())), "{date}");
    }
}
