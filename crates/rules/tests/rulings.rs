//! One test per ruling of /work/shared/rulings.md, rule set `seed` of both
//! games. Each test builds a specific position, generates or plays moves and
//! checks the exact result: move sets, resulting position strings, outcomes
//! and error messages.
//!
//! Position strings are built from a placement (`"a1=S1 c1=S2 ..."`) so that
//! the squares read as in the rulings; the diagrams in the comments show the
//! relevant part of the board.

use std::collections::BTreeMap;

use monte_rules::focus::{self, FocusMove, FocusPosition, FocusRules, MoveKind, Stack};
use monte_rules::salta::{self, Kind, Piece, SaltaMove, SaltaPosition, SaltaRules};
use monte_rules::{EndReason, Game, Outcome, Position, Side, Status};

// ---------------------------------------------------------------------------
// Helpers: Salta

/// A Salta placement: square name -> piece token.
#[derive(Clone, Debug)]
struct Layout(BTreeMap<String, String>);

impl Layout {
    fn parse(spec: &str) -> Layout {
        let mut map = BTreeMap::new();
        for item in spec.split_whitespace() {
            let (sq, tok) = item.split_once('=').expect("square=token");
            assert!(map.insert(sq.to_string(), tok.to_string()).is_none(), "{sq} given twice");
        }
        Layout(map)
    }

    fn of(pos: &SaltaPosition) -> Layout {
        let mut map = BTreeMap::new();
        for sq in salta::geometry::Squares(salta::geometry::BOARD) {
            if let Some(p) = pos.piece_at(sq) {
                map.insert(salta::geometry::square_name(sq), p.token());
            }
        }
        Layout(map)
    }

    fn start() -> Layout {
        Layout::of(&SaltaPosition::start(SaltaRules::seed()))
    }

    /// Move the piece on `from` to the empty square `to`.
    fn relocate(mut self, from: &str, to: &str) -> Layout {
        let tok = self.0.remove(from).unwrap_or_else(|| panic!("no piece on {from}"));
        assert!(!self.0.contains_key(to), "{to} is occupied");
        self.0.insert(to.to_string(), tok);
        self
    }

    fn remove(mut self, sq: &str) -> Layout {
        self.0.remove(sq).unwrap_or_else(|| panic!("no piece on {sq}"));
        self
    }

    fn put(mut self, sq: &str, tok: &str) -> Layout {
        assert!(self.0.insert(sq.to_string(), tok.to_string()).is_none(), "{sq} is occupied");
        self
    }

    /// The board field of a position string.
    fn board(&self) -> String {
        let mut left = self.0.clone();
        let mut ranks = Vec::new();
        for rank in (1..=10).rev() {
            let files = if rank % 2 == 1 { "acegi" } else { "bdfhj" };
            let cells: Vec<String> =
                files.chars().map(|f| left.remove(&format!("{f}{rank}")).unwrap_or_else(|| ".".to_string())).collect();
            ranks.push(cells.join(","));
        }
        assert!(left.is_empty(), "not dark squares of the board: {left:?}");
        ranks.join("/")
    }

    /// A full position string; `tail` is `side call plies`, e.g. `w - 0`.
    fn fen(&self, tail: &str) -> String {
        format!("{} {tail}", self.board())
    }

    fn pos(&self, tail: &str) -> SaltaPosition {
        salta(&self.fen(tail))
    }
}

fn salta(fen: &str) -> SaltaPosition {
    SaltaPosition::from_fen(SaltaRules::seed(), fen).unwrap_or_else(|e| panic!("{e}\n  {fen}"))
}

fn salta_rules(text: &str) -> SaltaRules {
    text.parse().unwrap_or_else(|e| panic!("rules `{text}`: {e}"))
}

fn ssq(name: &str) -> salta::Square {
    salta::geometry::parse_square(name).unwrap_or_else(|e| panic!("{e}"))
}

/// A move by its identity: `c3-d4`, `c3:c7`, with `+` for a call, `pass`.
fn ident(mv: SaltaMove) -> String {
    if mv.is_pass() {
        return "pass".to_string();
    }
    let sep = if mv.is_jump() { ':' } else { '-' };
    format!(
        "{}{sep}{}{}",
        salta::geometry::square_name(mv.from),
        salta::geometry::square_name(mv.to),
        if mv.call { "+" } else { "" }
    )
}

/// All legal moves by identity, sorted; asserts there are no duplicates.
fn idents(pos: &SaltaPosition) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(|&m| ident(m)).collect();
    v.sort();
    let n = v.len();
    v.dedup();
    assert_eq!(v.len(), n, "duplicate moves in {pos:?}");
    assert_eq!(pos.count_moves(), n as u64, "count_moves disagrees with generate in {pos:?}");
    v
}

/// The legal moves of the piece on `from`, by identity, sorted.
fn idents_from(pos: &SaltaPosition, from: &str) -> Vec<String> {
    idents(pos).into_iter().filter(|m| m.split(['-', ':']).next() == Some(from)).collect()
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Parse and play a move; checks the incremental hash and the position string.
fn play_salta(pos: &SaltaPosition, text: &str) -> SaltaPosition {
    let mut next = pos.clone();
    let mv = next.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e} in {pos:?}"));
    next.play(mv).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(next.hash(), next.compute_hash(), "{text}: incremental hash");
    assert_eq!(SaltaPosition::from_fen(*next.rules(), &next.fen()).as_ref(), Ok(&next), "{text}: fen round trip");
    next
}

fn salta_move_error(pos: &SaltaPosition, text: &str) -> String {
    match pos.parse_move(text) {
        Ok(mv) => panic!("`{text}` should be rejected, parsed as {}", ident(mv)),
        Err(e) => e.to_string(),
    }
}

fn salta_fen_error(rules: SaltaRules, fen: &str) -> String {
    match SaltaPosition::from_fen(rules, fen) {
        Ok(_) => panic!("should be rejected: {fen}"),
        Err(e) => e.to_string(),
    }
}

fn assert_contains(text: &str, want: &str) {
    assert!(text.contains(want), "`{text}` should mention `{want}`");
}

/// Pieces of `side` as a count.
fn salta_count(pos: &SaltaPosition, side: Side) -> u32 {
    pos.pieces(side).count_ones()
}

// Recurring positions (see tests/perft/salta.txt for their hand counts).

/// White to move, call pending on Black's o3 on e5; White O2 d4, O3 f4.
///
/// ```text
///  10  . s5  . s4  . s3  . s2  . s1
///   9 m5  . m4  . m3  . m2  . m1  .
///   8  .  .  . o4  .  .  .  .  . o1
///   7  .  . o5  .  .  . o2  .  .  .
///   6  .  .  .  .  .  .  .  .  .  .
///   5  .  .  .  . o3  .  .  .  .  .      (o3 called)
///   4  .  .  . O2  . O3  .  .  .  .
///   3 O1  .  .  .  .  . O4  . O5  .
///      a  b  c  d  e  f  g  h  i  j
/// ```
const CALL_E5: &str = "s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/.,o4,.,.,o1/.,o5,.,o2,./.,.,.,.,./.,.,o3,.,./.,O2,O3,.,./O1,.,.,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w e5 40";

/// White on its start squares, Black moons on rank 4, suns on a5 e5 g5 i5
/// b6, stars b8 d8 f8 h8 and s5 on j10: White's only moves are long jump
/// chains from a3 and e3 through c5 a7 c9 e7 g9 i7.
const CHAINS: &str = ".,.,.,.,s5/.,.,.,.,./s1,s2,s3,s4,./.,.,.,.,./o5,.,.,.,./o1,.,o2,o3,o4/m1,m2,m3,m4,m5/O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 30";

/// As [`CHAINS`] with s5 on d6: several paths lead to the same squares.
const PATHS: &str = ".,.,.,.,./.,.,.,.,./s1,s2,s3,s4,./.,.,.,.,./o5,s5,.,.,./o1,.,o2,o3,o4/m1,m2,m3,m4,m5/O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 30";

/// 14 White pieces on target, O3 on e7 next to its target f8; Black on its
/// targets except s1 on b4 (a1 empty).
const WIN_AVAILABLE: &str = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,O3,.,./.,.,.,.,./.,.,.,.,./s1,.,.,.,./o1,o2,o3,o4,o5/m1,m2,m3,m4,m5/.,s2,s3,s4,s5 w - 80";

/// White cannot move: rank 3 is walled in by Black moons on rank 4 and suns
/// on rank 5.
const WHITE_STUCK: &str = "s5,s4,s3,s2,s1/.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./o5,o4,o3,o2,o1/m5,m4,m3,m2,m1/O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 0";

// ---------------------------------------------------------------------------
// Salta: board, setup, moves

#[test]
fn salta_setup_is_point_reflection() {
    let start = SaltaPosition::start(SaltaRules::seed());
    assert_eq!(start.fen(), salta::START_FEN);
    // White as listed in the rulings.
    let white = "a1=S1 c1=S2 e1=S3 g1=S4 i1=S5 b2=M1 d2=M2 f2=M3 h2=M4 j2=M5 a3=O1 c3=O2 e3=O3 g3=O4 i3=O5";
    // Black as listed in the rulings (S1 j10 ... M5 a9, O1 j8 ... O5 b8).
    let black = "j10=s1 h10=s2 f10=s3 d10=s4 b10=s5 i9=m1 g9=m2 e9=m3 c9=m4 a9=m5 j8=o1 h8=o2 f8=o3 d8=o4 b8=o5";
    let expected = Layout::parse(&format!("{white} {black}"));
    assert_eq!(Layout::of(&start).0, expected.0);
    for sq in salta::geometry::Squares(salta::geometry::BOARD) {
        let (x, y) = salta::geometry::coords(sq);
        assert_eq!((x + y) % 2, 0, "{}: only dark squares are used", salta::geometry::square_name(sq));
        if let Some(p) = start.piece_at(sq) {
            // The same piece of the other side stands on the reflected square.
            let mirror = salta::geometry::reflect(sq);
            assert_eq!(start.piece_at(mirror), Some(Piece { side: !p.side, ..p }));
            // Its target is the start square of the opponent's same piece.
            assert_eq!(start.target(p), mirror);
        }
    }
    assert_eq!(salta::geometry::BOARD.count_ones(), 50);
    let target = |side, kind, number| salta::geometry::square_name(start.target(Piece { side, kind, number }));
    assert_eq!(target(Side::White, Kind::Star, 1), "j10");
    assert_eq!(target(Side::White, Kind::Star, 5), "b10");
    assert_eq!(target(Side::White, Kind::Moon, 1), "i9");
    assert_eq!(target(Side::White, Kind::Sun, 1), "j8");
    assert_eq!(target(Side::Black, Kind::Star, 1), "a1");
    // Start moves: the 5 suns of rank 3 step forward (a3 and the others).
    assert_eq!(
        idents(&start),
        sorted(&["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4", "i3-h4", "i3-j4"])
    );
}

#[test]
fn salta_steps_go_diagonally_forward_or_backward() {
    // White O3 moved to e5 and Black o2 moved to h6, both in open space.
    let layout = Layout::start().relocate("e3", "e5").relocate("h8", "h6");
    let white = layout.pos("w - 2");
    assert_eq!(idents_from(&white, "e5"), sorted(&["e5-d4", "e5-d6", "e5-f4", "e5-f6"]));
    // Forward and backward both play; the piece ends where the step says.
    let back = play_salta(&white, "e5-d4");
    assert_eq!(back.piece_at(ssq("d4")).map(|p| p.token()), Some("O3".to_string()));
    assert_eq!(back.piece_at(ssq("e5")), None);
    // No orthogonal steps: e6 and e4 are light squares, f5 too.
    assert_contains(&salta_move_error(&white, "e5-e6"), "e6: a light square");
    assert_contains(&salta_move_error(&white, "e5-f5"), "f5: a light square");
    // Two ranks straight ahead is not a step either.
    assert_contains(&salta_move_error(&white, "e5-e7"), "a step goes to a diagonally adjacent square");
    // Black steps backward (up the board) too.
    let black = layout.pos("b - 3");
    assert_eq!(idents_from(&black, "h6"), sorted(&["h6-g5", "h6-g7", "h6-i5", "h6-i7"]));
}

#[test]
fn salta_jumped_piece_is_not_captured() {
    // White O3 on d4 next to Black o3 on e5, f6 empty.
    let pos = Layout::start().relocate("e3", "d4").relocate("f8", "e5").pos("w - 2");
    let after = play_salta(&pos, "d4:f6");
    assert_eq!(after.piece_at(ssq("f6")).map(|p| p.token()), Some("O3".to_string()));
    assert_eq!(after.piece_at(ssq("e5")).map(|p| p.token()), Some("o3".to_string()));
    assert_eq!(after.piece_at(ssq("d4")), None);
    assert_eq!(salta_count(&after, Side::White), 15);
    assert_eq!(salta_count(&after, Side::Black), 15);
    assert_eq!(
        after.fen(),
        Layout::start().relocate("e3", "f6").relocate("f8", "e5").fen("b - 3"),
        "nothing but the jumping piece changes"
    );
}

#[test]
fn salta_chain_may_stop_after_any_jump() {
    let pos = salta(CHAINS);
    // The piece on a3 may stop on each landing square of its chain
    // a3:c5:a7:c9:e7:g9:i7, so each is a move (some with a call).
    let ends: Vec<String> = idents_from(&pos, "a3").into_iter().filter(|m| !m.ends_with('+')).collect();
    assert_eq!(ends, sorted(&["a3:c5", "a3:a7", "a3:c9", "a3:e7", "a3:g9", "a3:i7"]));
    for path in ["a3:c5", "a3:c5:a7", "a3:c5:a7:c9", "a3:c5:a7:c9:e7", "a3:c5:a7:c9:e7:g9", "a3:c5:a7:c9:e7:g9:i7"] {
        let after = play_salta(&pos, path);
        let end = path.rsplit(':').next().expect("end");
        assert_eq!(after.piece_at(ssq(end)).map(|p| p.token()), Some("O1".to_string()), "{path}");
        assert_eq!(after.side_to_move(), Side::Black, "{path}: the whole sequence is one move");
        assert_eq!(after.ply(), 31);
    }
    // The longest is written with its full path.
    let longest = pos.parse_move("a3:i7").expect("short form");
    assert_eq!(pos.format_move(longest), "a3:c5:a7:c9:e7:g9:i7");
}

#[test]
fn salta_chain_never_lands_twice_or_on_its_start() {
    // A ring: White O2 on c3, Black pieces on b4, b6, d6, d4 around c5.
    // c3 -(b4)- a5 -(b6)- c7 -(d6)- e5 -(d4)- c3: the ring leads back to
    // the start square, which a sequence may not land on.
    //   7   .   .   *   .   .        * empty landing squares
    //   6   .  o3   .  o2   .
    //   5   *   .   .   .   *
    //   4   .  o5   .  o4   .
    //   3  O1   .  O2   .  O3
    //       a   b   c   d   e
    let pos = Layout::start()
        .relocate("b8", "b4")
        .relocate("d8", "d4")
        .relocate("f8", "b6")
        .relocate("h8", "d6")
        .pos("w - 8");
    assert_eq!(idents_from(&pos, "c3"), sorted(&["c3:a5", "c3:c7", "c3:c7+", "c3:e5", "c3:e5+"]));
    assert!(!pos.is_legal(SaltaMove { from: ssq("c3"), to: ssq("c3"), call: false }));
    assert_contains(&salta_move_error(&pos, "c3:a5:c7:e5:c3"), "lands on c3 twice (or on its start square)");
    assert_contains(&salta_move_error(&pos, "c3:a5:c7:e5:c3:a5"), "lands on c3 twice");
    assert_contains(&salta_move_error(&pos, "c3:a5:c7:a5"), "lands on a5 twice");
    // Going round the ring the other way is fine as long as it stops in time.
    assert_eq!(ident(pos.parse_move("c3:e5:c7:a5").expect("legal")), "c3:a5");
}

#[test]
fn salta_own_pieces_cannot_be_jumped() {
    // c3 and e3 emptied: S2 on c1 and S3 on e1 each have White's own M2 on
    // d2 next to them with an empty square beyond (e3 and c3), and no other
    // way to move.
    let pos = Layout::start().relocate("e3", "e5").relocate("c3", "c5").pos("w - 4");
    assert_eq!(idents_from(&pos, "c1"), Vec::<String>::new());
    assert_eq!(idents_from(&pos, "e1"), Vec::<String>::new());
    assert_eq!(idents_from(&pos, "d2"), sorted(&["d2-c3", "d2-e3"]));
    // Written as a full path, the hop over the own piece is refused by name.
    assert_contains(
        &salta_move_error(&pos, "c1:e3:c5"),
        "c1 to e3 is not a jump over an opponent piece onto an empty square",
    );
    // As a short form (any path) there is no path at all.
    assert_contains(&salta_move_error(&pos, "e1:c3"), "the piece on e1 cannot reach c3");
    // Black likewise: with h8 emptied, s3 on f10 (over its own m2 on g9)
    // and s1 on j10 (over its own m1 on i9) would both land on h8.
    let pos = Layout::start().relocate("f8", "f6").relocate("h8", "h6").pos("b - 5");
    assert_eq!(idents_from(&pos, "f10"), Vec::<String>::new());
    assert_eq!(idents_from(&pos, "j10"), Vec::<String>::new());
}

#[test]
fn salta_paths_between_same_squares_are_one_move() {
    let pos = salta(PATHS);
    // From a3, e7 is reached by a3:c5:e7 and by a3:c5:a7:c9:e7; c9 by
    // a3:c5:a7:c9 and a3:c5:e7:c9; a7 by a3:c5:a7 and a3:c5:e7:c9:a7.
    let a = pos.parse_move("a3:c5:e7").expect("short path");
    let b = pos.parse_move("a3:c5:a7:c9:e7").expect("long path");
    let c = pos.parse_move("a3:e7").expect("any path");
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a, SaltaMove { from: ssq("a3"), to: ssq("e7"), call: false });
    assert_eq!(play_salta(&pos, "a3:c5:e7"), play_salta(&pos, "a3:c5:a7:c9:e7"));
    assert_eq!(pos.parse_move("a3:c5:a7:c9").expect("legal"), pos.parse_move("a3:c5:e7:c9").expect("legal"));
    assert_eq!(
        idents_from(&pos, "a3"),
        sorted(&["a3:c5", "a3:a7", "a3:c9", "a3:c9+", "a3:e7", "a3:e7+", "a3:g9", "a3:g9+", "a3:i7", "a3:i7+"])
    );
    assert_eq!(pos.count_moves(), 20);
}

// ---------------------------------------------------------------------------
// Salta: calls

#[test]
fn salta_call_only_when_moved_piece_can_be_jumped() {
    // CHAINS: after a3:c5 Black's b4 could jump c5 onto the empty d6: call.
    // After a3:c5:a7 the piece stands on the edge: nothing can jump it.
    let chains = salta(CHAINS);
    let from_a3 = idents_from(&chains, "a3");
    assert!(from_a3.contains(&"a3:c5+".to_string()));
    assert!(!from_a3.contains(&"a3:a7+".to_string()));
    assert_contains(&salta_move_error(&chains, "a3:c5:a7+"), "cannot carry a call: no opponent piece could jump a7");
    // PATHS: c5 has Black pieces on both ends of both diagonals (b4/d6 and
    // b6/d4), so no Black piece has an empty square beyond it: no call.
    let paths = salta(PATHS);
    assert!(!idents_from(&paths, "a3").contains(&"a3:c5+".to_string()));
    assert_contains(&salta_move_error(&paths, "a3:c5+"), "cannot carry a call");
    // The call variant is legal and leaves the call pending on c5.
    let called = play_salta(&chains, "a3:c5+");
    assert_eq!(called.pending_call(), Some(ssq("c5")));
    assert_eq!(called.fen().split(' ').nth(2), Some("c5"));
    // Steps with no opponent piece nearby carry no call.
    let start = SaltaPosition::start(SaltaRules::seed());
    assert_contains(&salta_move_error(&start, "c3-d4+"), "cannot carry a call: no opponent piece could jump d4");
}

#[test]
fn salta_square_just_left_counts_as_empty_for_call() {
    // White O2 on d4, Black o3 on f6. After d4-e5, f6 could jump e5 onto
    // d4, the square O2 has just left: the call is allowed.
    //   6   .   .   .   .   .  o3
    //   5   .   .   .   .   *   .       * = e5
    //   4   .   .   .  O2   .   .
    //       a   b   c   d   e   f
    let pos = Layout::start().relocate("c3", "d4").relocate("f8", "f6").pos("w - 2");
    assert_eq!(idents_from(&pos, "d4"), sorted(&["d4-c3", "d4-c5", "d4-e5", "d4-e5+"]));
    let after = play_salta(&pos, "d4-e5+");
    assert_eq!(after.pending_call(), Some(ssq("e5")));
    // And Black's only replies jump e5, landing on d4.
    assert_eq!(idents(&after), sorted(&["f6:d4", "f6:d4+"]));
}

#[test]
fn salta_winning_move_carries_no_call() {
    // e7-f8 completes White's goal: it exists once, without a call variant.
    // (In `seed` no winning move could carry a call anyway: when the last
    // piece arrives, ranks 8-10 are all White, so every diagonal through a
    // target square ends in a White piece on rank 9 or off the board.)
    let pos = salta(WIN_AVAILABLE);
    assert_eq!(idents_from(&pos, "e7"), sorted(&["e7-d6", "e7-f6", "e7-f8"]));
    assert_contains(&salta_move_error(&pos, "e7-f8+"), "cannot carry a call");
    // A position string claiming a call after the winning move is rejected.
    let won = Layout::of(&play_salta(&pos, "e7-f8"));
    assert_contains(
        &salta_fen_error(SaltaRules::seed(), &won.fen("b f8 81")),
        "call on f8: White has completed the goal, and a winning move carries no call",
    );
}

#[test]
fn salta_call_forces_jump_over_called_piece_first() {
    let pos = salta(CALL_E5);
    assert_eq!(
        idents(&pos),
        sorted(&["d4:f6", "d4:h8", "d4:h8+", "f4:d6", "f4:b8", "f4:b8+"]),
        "only jump sequences starting over e5"
    );
    assert_contains(&salta_move_error(&pos, "a3-b4"), "a Salta call is pending on e5");
    // CHAINS with a call on b4: e3's jump over d4 onto c5 no longer counts,
    // though it reaches the same squares as a3's jump over b4.
    let called = salta(&CHAINS.replace(" w - 30", " w b4 30"));
    assert_eq!(
        idents(&called),
        sorted(&[
            "a3:c5", "a3:c5+", "a3:a7", "a3:c9", "a3:c9+", "a3:e7", "a3:e7+", "a3:g9", "a3:g9+", "a3:i7", "a3:i7+"
        ])
    );
    assert_contains(&salta_move_error(&called, "e3:c5"), "a Salta call is pending on b4");
    // Playing the reply clears the call.
    let after = play_salta(&called, "a3:c5:a7");
    assert_eq!(after.pending_call(), None);
}

/// The ring of [`salta_chain_never_lands_twice_or_on_its_start`]: White O2
/// on c3, Black on b4, d4, b6, d6; here Black's o4 on d4 is called.
fn ring_called_on_d4() -> SaltaPosition {
    Layout::start().relocate("b8", "b4").relocate("d8", "d4").relocate("f8", "b6").relocate("h8", "d6").pos("w d4 8")
}

#[test]
fn salta_call_reply_qualifies_by_any_path_over_called_piece() {
    // "A move from A to B qualifies if at least one legal jump path from A to
    // B starts with a jump over the called piece." c3 to a5 is a single jump
    // over b4 (not called), but c3:e5:c7:a5 starts over d4: c3-a5 is legal.
    let pos = ring_called_on_d4();
    assert_eq!(idents_from(&pos, "c3"), sorted(&["c3:a5", "c3:c7", "c3:c7+", "c3:e5", "c3:e5+"]));
    let c3_a5 = SaltaMove { from: ssq("c3"), to: ssq("a5"), call: false };
    assert!(pos.is_legal(c3_a5));
    assert_eq!(pos.format_move(c3_a5), "c3:e5:c7:a5", "written with a path that starts over d4");
    assert_eq!(pos.parse_move("c3:e5:c7:a5"), Ok(c3_a5));
    // The path that starts over b4 is not a reply to the call.
    assert_contains(
        &salta_move_error(&pos, "c3:a5:c7"),
        "a Salta call is pending on d4: the first jump must go over it",
    );
    // e3 may answer too (over d4 onto c5), but not a3 (nothing to jump).
    assert_eq!(idents_from(&pos, "a3"), Vec::<String>::new());
    assert!(idents_from(&pos, "e3").contains(&"e3:c5".to_string()));
}

#[test]
fn salta_short_form_means_any_legal_path() {
    // rulings.md, Notation: "the short form `c3:c7` (start and end only) is
    // accepted on input and means any legal path". c3:a5 is legal here (by
    // c3:e5:c7:a5), so its short form must be accepted, though the single hop
    // c3 over b4 onto a5 is not a reply to the call.
    let pos = ring_called_on_d4();
    assert_eq!(pos.parse_move("c3:a5"), Ok(SaltaMove { from: ssq("c3"), to: ssq("a5"), call: false }));
}

#[test]
fn salta_reply_to_call_may_continue_and_call_again() {
    let pos = salta(CALL_E5);
    // d4 over e5 (the called piece) onto f6, then on over g7 onto h8, with a call.
    let after = play_salta(&pos, "d4:f6:h8+");
    assert_eq!(after.pending_call(), Some(ssq("h8")));
    assert_eq!(
        after.fen(),
        "s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/.,o4,.,O2,o1/.,o5,.,o2,./.,.,.,.,./.,.,o3,.,./.,.,O3,.,./O1,.,.,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 b h8 41"
    );
    // Black must now jump h8 first: g9 over h8 onto i7, and may call again.
    assert_eq!(idents(&after), sorted(&["g9:i7", "g9:i7+"]));
    let again = play_salta(&after, "g9:i7+");
    assert_eq!(again.pending_call(), Some(ssq("i7")));
    assert_eq!(idents(&again), sorted(&["h8:j6"]));
}

#[test]
fn salta_no_jump_compulsory_without_call() {
    // White O3 on d4 can jump Black's o3 on e5, but no call is pending:
    // every step is legal too.
    let pos = Layout::start().relocate("e3", "d4").relocate("f8", "e5").pos("w - 2");
    let moves = idents(&pos);
    assert!(moves.contains(&"d4:f6".to_string()));
    assert!(moves.contains(&"a3-b4".to_string()));
    assert!(moves.contains(&"d4-c5".to_string()));
    let after = play_salta(&pos, "a3-b4");
    assert_eq!(after.piece_at(ssq("e5")).map(|p| p.token()), Some("o3".to_string()));
    // The same position with the call pending on e5 allows only jumps over it.
    let called = Layout::start().relocate("e3", "d4").relocate("f8", "e5").pos("w e5 2");
    // (f6 is next to e5 and g7 is empty, so the reply may call.)
    assert_eq!(idents(&called), sorted(&["d4:f6", "d4:f6+"]));
}

// ---------------------------------------------------------------------------
// Salta: goal and end

#[test]
fn salta_win_when_all_fifteen_on_targets() {
    let pos = salta(WIN_AVAILABLE);
    assert!(!pos.completed(Side::White));
    assert_eq!(pos.status(), Status::Ongoing);
    let won = play_salta(&pos, "e7-f8");
    assert!(won.completed(Side::White));
    assert_eq!(
        won.status(),
        Status::Over(Outcome { winner: Some(Side::White), reason: EndReason::Goal, margin: Some(3) })
    );
    assert!(won.legal_moves().is_empty(), "a finished game has no moves");
    assert_eq!(won.count_moves(), 0);
    assert_contains(&won.clone().play(SaltaMove::PASS).expect_err("over").to_string(), "the game is over");
    assert_contains(&salta_move_error(&won, "b4-a5"), "the game is over");
    // Fourteen on target is not enough: e.g. e9-f8 puts the moon on O3's target.
    let not_won = play_salta(&pos, "e9-f8");
    assert_eq!(not_won.status(), Status::Ongoing);
    // Black wins the same way.
    let black_won = salta(
        "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,O3,O2,./.,.,.,.,O1/.,.,.,.,./.,.,.,.,./.,.,.,.,./o1,o2,o3,o4,o5/m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 120",
    );
    assert_eq!(
        black_won.status(),
        Status::Over(Outcome { winner: Some(Side::Black), reason: EndReason::Goal, margin: Some(1) })
    );
    assert!(black_won.legal_moves().is_empty());
}

#[test]
fn salta_margin_is_losers_distance() {
    let won = play_salta(&salta(WIN_AVAILABLE), "e7-f8");
    // Black's only piece off target is s1 on b4, 3 steps from a1.
    assert_eq!(won.distance(Side::Black), 3);
    assert_eq!(won.distance(Side::White), 0);
    assert_eq!(won.status().outcome().and_then(|o| o.margin), Some(won.distance(Side::Black)));
    // Move s1 further away (f4: max(5, 3) = 5 steps from a1) and win again.
    let far = Layout::of(&salta(WIN_AVAILABLE)).relocate("b4", "f4").pos("w - 80");
    let won = play_salta(&far, "e7-f8");
    assert_eq!(won.status().outcome().and_then(|o| o.margin), Some(5));
}

#[test]
fn salta_move_limit_scores_by_distance_with_margin() {
    let rules = salta_rules("seed,move-limit=1");
    let start = SaltaPosition::start(rules);
    assert_eq!(start.distance(Side::White), 113);
    assert_eq!(start.distance(Side::Black), 113);
    // c3-d4 brings O2 a step closer to h8 (112); b8-a7 takes Black's o5 a
    // step further from i3 (114). After one move each the game is scored.
    let one = play_salta(&start, "c3-d4");
    assert_eq!(one.status(), Status::Ongoing);
    let two = play_salta(&one, "b8-a7");
    assert_eq!((two.distance(Side::White), two.distance(Side::Black)), (112, 114));
    assert_eq!(
        two.status(),
        Status::Over(Outcome { winner: Some(Side::White), reason: EndReason::MoveLimit, margin: Some(2) })
    );
    assert_contains(&two.clone().play(SaltaMove::PASS).expect_err("over").to_string(), "the game is over");
    // Black wins when its distance is smaller.
    // i3-j4 takes O5 a step further from b8 (114); h8-g7 brings o2 closer (112).
    let two = play_salta(&play_salta(&start, "i3-j4"), "h8-g7");
    assert_eq!((two.distance(Side::White), two.distance(Side::Black)), (114, 112));
    assert_eq!(
        two.status(),
        Status::Over(Outcome { winner: Some(Side::Black), reason: EndReason::MoveLimit, margin: Some(2) })
    );
    // Equal distances draw.
    let two = play_salta(&one, "h8-g7");
    assert_eq!((two.distance(Side::White), two.distance(Side::Black)), (112, 112));
    let outcome = two.status().outcome().expect("over");
    assert_eq!((outcome.winner, outcome.reason), (None, EndReason::MoveLimit));
    assert_eq!(outcome.margin.unwrap_or(0), 0);
    // N moves per side: with a limit of 2 the game goes on after 2 plies.
    let longer = salta_rules("seed,move-limit=2");
    let after_two = play_salta(&play_salta(&SaltaPosition::start(longer), "c3-d4"), "b8-a7");
    assert_eq!(after_two.status(), Status::Ongoing);
    // Default: no limit.
    assert_eq!(monte_rules::RuleSet::move_limit(&SaltaRules::seed()), None);
}

#[test]
fn salta_pass_only_when_no_move() {
    let stuck = salta(WHITE_STUCK);
    assert_eq!(idents(&stuck), vec!["pass".to_string()]);
    let passed = play_salta(&stuck, "pass");
    assert_eq!(passed.side_to_move(), Side::Black);
    assert_eq!(passed.ply(), 1, "a pass is a ply");
    assert_eq!(passed.fen(), WHITE_STUCK.replace(" w - 0", " b - 1"), "a pass changes nothing else");
    assert_eq!(idents(&passed).len(), 18);
    assert!(!passed.is_legal(SaltaMove::PASS));
    assert_contains(&salta_move_error(&passed, "pass"), "a pass is legal only when no other move is");
    let start = SaltaPosition::start(SaltaRules::seed());
    assert!(!start.is_legal(SaltaMove::PASS));
    assert_contains(&salta_move_error(&start, "pass"), "a pass is legal only when no other move is; White has 9 moves");
}

#[test]
fn salta_threefold_repetition_draws() {
    let mut game = Game::new(SaltaPosition::start(SaltaRules::seed()));
    for round in 1..=2 {
        for mv in ["c3-d4", "h8-g7", "d4-c3", "g7-h8"] {
            assert_eq!(game.status(), Status::Ongoing);
            game.play_text(mv).expect("legal");
        }
        assert_eq!(game.repetitions(), round + 1);
    }
    assert_eq!(game.status(), Status::Over(Outcome { winner: None, reason: EndReason::Repetition, margin: None }));
    assert_contains(&game.play_text("c3-d4").expect_err("over").to_string(), "the game is over");
    // The position's own status knows nothing of history.
    assert_eq!(game.position().status(), Status::Ongoing);

    // Same placement and side to move, but a pending call, is another position.
    let plain = salta(&CALL_E5.replace(" w e5 40", " w - 40"));
    let mut game = Game::new(plain.clone());
    for mv in ["a3-b4", "e5-d6", "b4-a3"] {
        game.play_text(mv).expect("legal");
    }
    let mut without = game.clone();
    without.play_text("d6-e5").expect("legal");
    assert_eq!(without.position(), &with_ply(&plain, 44));
    assert_eq!(without.repetitions(), 2);
    game.play_text("d6-e5+").expect("legal");
    assert_eq!(game.position().fen(), CALL_E5.replace(" 40", " 44"));
    assert_eq!(game.repetitions(), 1, "the pending call is part of the position");
}

/// The same position with another ply count (which repetition ignores).
fn with_ply(pos: &SaltaPosition, ply: u32) -> SaltaPosition {
    let fen = pos.fen();
    let (rest, _) = fen.rsplit_once(' ').expect("ply field");
    SaltaPosition::from_fen(*pos.rules(), &format!("{rest} {ply}")).expect("valid")
}

// ---------------------------------------------------------------------------
// Salta: position strings and move text

#[test]
fn salta_rejects_wrong_rank_length() {
    let fen = salta::START_FEN.replacen("s5,s4,s3,s2,s1/", "s5,s4,s3,s2,s1,./", 1);
    assert_contains(&salta_fen_error(SaltaRules::seed(), &fen), "rank 10: expected 5 squares, found 6");
    let fen = salta::START_FEN.replacen("O1,O2,O3,O4,O5", "O1,O2,O3,O4", 1);
    assert_contains(&salta_fen_error(SaltaRules::seed(), &fen), "rank 3: expected 5 squares, found 4");
}

#[test]
fn salta_rejects_duplicate_piece() {
    let fen = Layout::start().remove("c1").put("c1", "S1").fen("w - 0");
    assert_contains(&salta_fen_error(SaltaRules::seed(), &fen), "White star 1 stands on both a1 and c1");
}

#[test]
fn salta_rejects_missing_piece() {
    let fen = Layout::start().remove("d8").fen("w - 0");
    assert_contains(&salta_fen_error(SaltaRules::seed(), &fen), "Black has 14 pieces, needs all 15; missing: o4");
}

#[test]
fn salta_rejects_unknown_token() {
    let fen = Layout::start().remove("c1").put("c1", "X2").fen("w - 0");
    assert_contains(&salta_fen_error(SaltaRules::seed(), &fen), "c1: `X2` is not a piece");
    let fen = Layout::start().remove("c1").put("c1", "S6").fen("w - 0");
    assert_contains(&salta_fen_error(SaltaRules::seed(), &fen), "c1: `S6` is not a piece");
}

#[test]
fn salta_rejects_call_without_movers_piece() {
    // White to move, so Black made the call: c3 holds a White piece, f4 nothing.
    let layout = Layout::start().relocate("e3", "d4").relocate("f8", "e5");
    assert_contains(&salta_fen_error(SaltaRules::seed(), &layout.fen("w c3 2")), "call on c3: no Black piece there");
    assert_contains(&salta_fen_error(SaltaRules::seed(), &layout.fen("w f4 2")), "call on f4: no Black piece there");
    assert!(SaltaPosition::from_fen(SaltaRules::seed(), &layout.fen("w e5 2")).is_ok());
}

#[test]
fn salta_rejects_call_nobody_can_answer() {
    // g7 holds Black's o2 but no White piece is next to it.
    let fen = CALL_E5.replace(" w e5 40", " w g7 40");
    assert_contains(
        &salta_fen_error(SaltaRules::seed(), &fen),
        "call on g7: no White piece can jump it, so nobody could answer the call",
    );
    // e5 with both f6 and d6 occupied by Black: d4 and f4 are next to it,
    // but both landing squares are taken.
    let blocked = Layout::of(&salta(CALL_E5)).relocate("c7", "d6").relocate("g7", "f6");
    assert_contains(
        &salta_fen_error(SaltaRules::seed(), &blocked.fen("w e5 40")),
        "call on e5: no White piece can jump it",
    );
}

#[test]
fn salta_rejects_side_to_move_already_completed() {
    let won = Layout::of(&play_salta(&salta(WIN_AVAILABLE), "e7-f8"));
    assert!(SaltaPosition::from_fen(SaltaRules::seed(), &won.fen("b - 81")).is_ok());
    assert_contains(
        &salta_fen_error(SaltaRules::seed(), &won.fen("w - 82")),
        "White is to move but has already completed the goal",
    );
}

#[test]
fn salta_rejects_ply_count_of_the_wrong_parity() {
    // White moves at even plies, Black at odd ones (every ply is a move,
    // passes included).
    let fen = salta::START_FEN.replace(" w - 0", " w - 1");
    assert_contains(&salta_fen_error(SaltaRules::seed(), &fen), "ply 1 with White to move");
}

#[test]
fn salta_malformed_moves_name_the_problem() {
    let start = SaltaPosition::start(SaltaRules::seed());
    for (text, want) in [
        ("c3-d4x", "not a square"),
        ("c5-d6", "c5: no White piece there"),
        ("c4-d5", "c4: a light square"),
        ("h8-g7", "h8: that piece is Black's, and White is to move"),
        ("c3-c4", "c4: a light square"),
        ("c3-e5", "a step goes to a diagonally adjacent square"),
        ("c3-b2", "b2 is occupied"),
        ("k3-d4", "`k3`: not a square"),
        ("c3:e5:c7", "c3 to e5 is not a jump over an opponent piece onto an empty square"),
        ("c3:e5", "the piece on c3 cannot reach e5"),
        ("c3-d4:e5", "mixes `-` (step) and `:` (jump)"),
        ("c3", "expected a step"),
        ("c3-d4+", "cannot carry a call"),
        ("pass", "a pass is legal only when no other move is"),
    ] {
        let err = salta_move_error(&start, text);
        assert_contains(&err, want);
        assert!(err.starts_with(text), "`{err}` should start with the move text `{text}`");
    }
}

// ---------------------------------------------------------------------------
// Helpers: Focus

/// A Focus position string from a placement `"d4=bbwww d6=b"` and the
/// other fields `side white-reserve black-reserve plies`.
fn focus_fen(spec: &str, tail: &str) -> String {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for item in spec.split_whitespace() {
        let (sq, st) = item.split_once('=').expect("square=stack");
        assert!(map.insert(sq.to_string(), st.to_string()).is_none(), "{sq} given twice");
    }
    let mut ranks = Vec::new();
    for rank in (1..=8).rev() {
        let files = match rank {
            1 | 8 => "cdef",
            2 | 7 => "bcdefg",
            _ => "abcdefgh",
        };
        let cells: Vec<String> =
            files.chars().map(|f| map.remove(&format!("{f}{rank}")).unwrap_or_else(|| ".".to_string())).collect();
        ranks.push(cells.join(","));
    }
    assert!(map.is_empty(), "not on the board: {map:?}");
    format!("{} {tail}", ranks.join("/"))
}

fn focus(spec: &str, tail: &str) -> FocusPosition {
    let fen = focus_fen(spec, tail);
    FocusPosition::from_fen(FocusRules::seed(), &fen).unwrap_or_else(|e| panic!("{e}\n  {fen}"))
}

fn fsq(name: &str) -> focus::Square {
    focus::geometry::parse_square(name).unwrap_or_else(|e| panic!("{e}"))
}

fn stack_at(pos: &FocusPosition, name: &str) -> String {
    pos.stack(fsq(name)).letters()
}

/// All legal moves in notation, sorted.
fn fmoves(pos: &FocusPosition) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(|&m| pos.format_move(m)).collect();
    v.sort();
    let n = v.len();
    v.dedup();
    assert_eq!(v.len(), n, "duplicate moves in {pos:?}");
    assert_eq!(pos.count_moves(), n as u64, "count_moves disagrees with generate in {pos:?}");
    v
}

/// The legal moves starting on `from` (group moves and jumps).
fn fmoves_from(pos: &FocusPosition, from: &str) -> Vec<String> {
    fmoves(pos).into_iter().filter(|m| m.starts_with(from)).collect()
}

/// Parse and play a move; checks the incremental hash and the position string.
fn play_focus(pos: &FocusPosition, text: &str) -> FocusPosition {
    let mut next = pos.clone();
    let mv = next.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e} in {pos:?}"));
    next.play(mv).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(next.hash(), next.compute_hash(), "{text}: incremental hash");
    assert_eq!(FocusPosition::from_fen(*next.rules(), &next.fen()).as_ref(), Ok(&next), "{text}: fen round trip");
    next
}

fn focus_move_error(pos: &FocusPosition, text: &str) -> String {
    match pos.parse_move(text) {
        Ok(mv) => panic!("`{text}` should be rejected, parsed as {}", pos.format_move(mv)),
        Err(e) => e.to_string(),
    }
}

fn focus_fen_error(fen: &str) -> String {
    match FocusPosition::from_fen(FocusRules::seed(), fen) {
        Ok(_) => panic!("should be rejected: {fen}"),
        Err(e) => e.to_string(),
    }
}

// ---------------------------------------------------------------------------
// Focus: board, setup, stacks

#[test]
fn focus_board_has_52_squares() {
    assert_eq!(focus::geometry::BOARD.count_ones(), 52);
    for cut in ["a1", "b1", "a2", "g1", "h1", "h2", "a7", "a8", "b8", "h7", "g8", "h8"] {
        let err = focus::geometry::parse_square(cut).expect_err(cut);
        assert_contains(&err, "not on the board");
    }
    let mut names: Vec<String> =
        focus::geometry::Squares(focus::geometry::BOARD).map(focus::geometry::square_name).collect();
    names.sort();
    let mut expected = Vec::new();
    for (files, ranks) in [("cdef", "18"), ("bcdefg", "27"), ("abcdefgh", "3456")] {
        for f in files.chars() {
            for r in ranks.chars() {
                expected.push(format!("{f}{r}"));
            }
        }
    }
    expected.sort();
    assert_eq!(names, expected);
    // With a reserve there is one drop per square.
    let pos = focus("d4=w e5=b", "w 1 0 0");
    let drops = pos.legal_moves().iter().filter(|m| m.kind == MoveKind::Drop).count();
    assert_eq!(drops, 52);
    // A group move must stay on the board: `ww` on a5 cannot go 2 north (a7 is cut off).
    let pos = focus("a5=ww e5=b", "w 0 0 0");
    assert_eq!(fmoves_from(&pos, "a5"), vec!["a5-a3", "a5-a4", "a5-a6", "a5-b5", "a5-c5"]);
    assert_contains(&focus_move_error(&pos, "a5-a7"), "a7: not on the board");
}

#[test]
fn focus_setup_alternating_pairs() {
    let start = FocusPosition::start(FocusRules::seed());
    assert_eq!(start.fen(), focus::START_FEN);
    let rows = ["wwbbww", "bbwwbb", "wwbbww", "bbwwbb", "wwbbww", "bbwwbb"];
    for (i, row) in rows.iter().enumerate() {
        let rank = i + 2;
        for (f, letter) in "bcdefg".chars().zip(row.chars()) {
            assert_eq!(stack_at(&start, &format!("{f}{rank}")), letter.to_string(), "{f}{rank}");
        }
    }
    for outer in ["c1", "d1", "e1", "f1", "a3", "a4", "a5", "a6", "h3", "h4", "h5", "h6", "c8", "d8", "e8", "f8"] {
        assert_eq!(stack_at(&start, outer), "", "{outer} is empty");
    }
    for side in Side::BOTH {
        assert_eq!(start.on_board(side), 18);
        assert_eq!(start.reserve(side), 0);
        assert_eq!(start.captured(side), 0);
    }
    // Symmetric under a half turn with colours swapped.
    for sq in focus::geometry::Squares(focus::geometry::BOARD) {
        let (x, y) = focus::geometry::coords(sq);
        let turned = focus::geometry::square_at(7 - x, 7 - y).expect("on the board");
        let swapped: Vec<Side> = start.stack(sq).pieces().map(|s| !s).collect();
        assert_eq!(start.stack(turned), Stack::from_pieces(&swapped).expect("small"));
    }
    assert_eq!(start.side_to_move(), Side::White);
}

#[test]
fn focus_stack_controlled_by_top_piece() {
    let pos = focus("c3=bw d3=wb e3=bbwbw f3=w g3=b", "w 0 0 0");
    let controlled = |side| -> Vec<String> {
        let mut v: Vec<String> =
            focus::geometry::Squares(pos.controlled(side)).map(focus::geometry::square_name).collect();
        v.sort();
        v
    };
    assert_eq!(controlled(Side::White), vec!["c3", "e3", "f3"]);
    assert_eq!(controlled(Side::Black), vec!["d3", "g3"]);
    assert_eq!(pos.stack(fsq("c3")).top(), Some(Side::White));
    assert_eq!(pos.stack(fsq("d3")).top(), Some(Side::Black));
    assert_eq!(
        pos.stack(fsq("e3")).pieces().collect::<Vec<_>>(),
        [Side::Black, Side::Black, Side::White, Side::Black, Side::White]
    );
    // Only controlled stacks move: White may move c3 but not d3.
    assert!(!fmoves_from(&pos, "c3").is_empty());
    assert!(fmoves_from(&pos, "d3").is_empty());
    assert_contains(&focus_move_error(&pos, "d3-d4"), "d3: that stack is controlled by Black, and White is to move");
    assert_contains(&focus_move_error(&pos, "b4-b5"), "b4: no stack there");
}

// ---------------------------------------------------------------------------
// Focus: moves

#[test]
fn focus_group_moves_exactly_k_squares() {
    // `bww` on d4 in open space: 1, 2 or 3 squares in each direction,
    // taking as many pieces as squares.
    let pos = focus("d4=bww g7=b", "w 0 0 0");
    assert_eq!(
        fmoves_from(&pos, "d4"),
        vec![
            "d4-a4", "d4-b4", "d4-c4", "d4-d1", "d4-d2", "d4-d3", "d4-d5", "d4-d6", "d4-d7", "d4-e4", "d4-f4", "d4-g4"
        ]
    );
    let one = play_focus(&pos, "d4-d5");
    assert_eq!((stack_at(&one, "d4"), stack_at(&one, "d5")), ("bw".to_string(), "w".to_string()));
    let two = play_focus(&pos, "d4-d6");
    assert_eq!((stack_at(&two, "d4"), stack_at(&two, "d6")), ("b".to_string(), "ww".to_string()));
    let three = play_focus(&pos, "d4-d7");
    assert_eq!((stack_at(&three, "d4"), stack_at(&three, "d7")), (String::new(), "bww".to_string()));
    assert_eq!(FocusMove::group(fsq("d4"), fsq("d7")).group_size(), 3);
    assert_contains(&focus_move_error(&pos, "d4-d8"), "the stack on d4 is 3 high; moving 4 squares takes 4 pieces");
    assert_contains(&focus_move_error(&pos, "d4-e5"), "moves go along a rank or a file");
    assert_contains(&focus_move_error(&pos, "d4-d4"), "a move must leave its square");
}

#[test]
fn focus_group_lands_on_empty_square() {
    // `www` on d2; d4 holds `bb`, d5 is empty.
    let pos = focus("d2=www d4=bb g7=b", "w 0 0 0");
    let from_d2 = fmoves_from(&pos, "d2");
    assert!(!from_d2.contains(&"d2-d4".to_string()));
    assert!(from_d2.contains(&"d2-d5".to_string()), "passing over d4 is fine");
    assert_contains(&focus_move_error(&pos, "d2-d4"), "d4 is occupied; a group lands on an empty square");
    // A single piece steps only onto an empty square as well.
    let pos = focus("d3=w d4=bb g7=b", "w 0 0 0");
    assert_eq!(fmoves_from(&pos, "d3"), vec!["d3-c3", "d3-d2", "d3-e3"]);
}

#[test]
fn focus_sweep_order_first_passed_directly_under_group() {
    // `www` on d2 moves 3 north to d5, passing d3 (`b`, first) and d4 (`wb`).
    let pos = focus("d2=www d3=b d4=wb g7=b", "w 0 0 0");
    let after = play_focus(&pos, "d2-d5");
    // Bottom to top: d4's stack (last passed), d3's stack (first passed), the group.
    assert_eq!(stack_at(&after, "d5"), "bbwww");
    for sq in ["d2", "d3", "d4"] {
        assert_eq!(stack_at(&after, sq), "", "{sq} is swept");
    }
    // d4 `wb` + d3 `b` + `www` is 6 high: the bottom w went to White's reserve.
    assert_eq!(after.reserve(Side::White), 1);
    // Without overflow: d3 `b`, d4 `w`: d5 = `w` `b` `www`.
    let pos = focus("d2=www d3=b d4=w g7=b", "w 0 0 0");
    let after = play_focus(&pos, "d2-d5");
    assert_eq!(stack_at(&after, "d5"), "wbwww");
    // Empty squares passed add nothing: `ww` on a5 to c5 over b5.
    let pos = focus("a5=ww c3=b", "w 0 0 0");
    assert_eq!(stack_at(&play_focus(&pos, "a5-c5"), "c5"), "ww");
}

#[test]
fn focus_pieces_left_behind_form_own_stack_and_prisoner_is_freed() {
    // `bbw` on d4 (White on top of two Black prisoners), Black's `b` on g7.
    let pos = focus("d4=bbw g7=b", "w 0 0 0");
    let after = play_focus(&pos, "d4-d5");
    assert_eq!(stack_at(&after, "d4"), "bb");
    assert_eq!(after.stack(fsq("d4")).top(), Some(Side::Black));
    // The freed stack plays again for Black, as a 2-high stack.
    // (d5 holds the White piece that moved, so d4 goes 2 north to d6, sweeping
    // it, or jumps it.)
    assert_eq!(fmoves_from(&after, "d4"), vec!["d4-b4", "d4-c4", "d4-d2", "d4-d3", "d4-d6", "d4-e4", "d4-f4", "d4xd6"]);
    let freed = play_focus(&after, "d4-f4");
    assert_eq!(stack_at(&freed, "f4"), "bb");
    // A prisoner of the mover's own colour is freed for the mover: Black
    // moves the top of `wb`, leaving White's `w`.
    let pos = focus("d4=wb g7=w", "b 0 0 1");
    let after = play_focus(&pos, "d4-d5");
    assert_eq!((stack_at(&after, "d4"), stack_at(&after, "d5")), ("w".to_string(), "b".to_string()));
    assert_eq!(fmoves_from(&after, "d4"), vec!["d4-c4", "d4-d3", "d4-e4", "d4xd6"]);
}

#[test]
fn focus_jump_only_single_piece_over_lone_opponent() {
    // White `bw` on d4. e4: lone b (jumpable), c4: `bb` (not lone),
    // d5: lone w (own), d3: lone b but d2 beyond is occupied.
    let pos = focus("d4=bw e4=b c4=bb d5=w d3=b d2=w g7=b", "w 0 0 0");
    let jumps: Vec<String> =
        pos.legal_moves().iter().filter(|m| m.kind == MoveKind::Jump).map(|&m| pos.format_move(m)).collect();
    assert_eq!(jumps, vec!["d4xf4"]);
    assert_contains(&focus_move_error(&pos, "d4xb4"), "a jump goes over a lone Black piece, and c4 holds `bb`");
    assert_contains(&focus_move_error(&pos, "d4xd6"), "a jump goes over a lone Black piece, and d5 holds `w`");
    assert_contains(&focus_move_error(&pos, "d4xd2"), "d2 is occupied; a jump lands on an empty square");
    assert_contains(&focus_move_error(&pos, "d4xg4"), "a jump goes over one square onto the next");
    // Only the top piece jumps: the rest of the stack stays.
    let after = play_focus(&pos, "d4xf4");
    assert_eq!(stack_at(&after, "d4"), "b");
    assert_eq!(after.stack(fsq("d4")).top(), Some(Side::Black));
    // A group of 2 onto the same square is a different move (it sweeps e4).
    let group = play_focus(&pos, "d4-f4");
    assert_eq!(stack_at(&group, "f4"), "bbw");
    assert_ne!(group, after);
}

#[test]
fn focus_jump_forms_tower_of_two() {
    let pos = focus("d3=w d4=b f6=bww", "w 0 0 50");
    let after = play_focus(&pos, "d3xd5");
    assert_eq!(stack_at(&after, "d5"), "bw");
    assert_eq!(after.stack(fsq("d5")).top(), Some(Side::White));
    assert_eq!(stack_at(&after, "d4"), "");
    assert_eq!(stack_at(&after, "d3"), "");
    assert_eq!(after.fen(), focus_fen("d5=bw f6=bww", "b 0 0 51"));
    assert_eq!(after.on_board(Side::Black), 2, "the jumped piece is not captured");
}

#[test]
fn focus_drop_on_any_square() {
    let pos = focus("d4=bb e4=w", "w 2 0 0");
    let drops: Vec<String> =
        pos.legal_moves().iter().filter(|m| m.kind == MoveKind::Drop).map(|&m| pos.format_move(m)).collect();
    assert_eq!(drops.len(), 52);
    assert!(
        drops.contains(&"@d4".to_string()) && drops.contains(&"@e4".to_string()) && drops.contains(&"@c1".to_string())
    );
    // On an opponent stack: the dropped piece goes on top and takes control.
    let on_black = play_focus(&pos, "@d4");
    assert_eq!(stack_at(&on_black, "d4"), "bbw");
    assert_eq!(on_black.reserve(Side::White), 1);
    // On an own stack and on an empty square.
    assert_eq!(stack_at(&play_focus(&pos, "@e4"), "e4"), "ww");
    assert_eq!(stack_at(&play_focus(&pos, "@h5"), "h5"), "w");
    // No reserve, no drops.
    let black = play_focus(&pos, "@h5");
    assert_contains(&focus_move_error(&black, "@c3"), "Black has no pieces in reserve");
    assert!(black.legal_moves().iter().all(|m| m.kind != MoveKind::Drop));
}

#[test]
fn focus_overflow_removed_from_bottom_own_to_reserve_opponent_captured() {
    // a5 `ww` sweeps b5 `wwbbb`: `wwbbbww`, the 2 White pieces at the bottom
    // go to White's reserve. d2 `www` sweeps d3 `bb` and d4 `bb`: `bbbbwww`,
    // the 2 Black pieces at the bottom are captured.
    let pos = focus("a5=ww b5=wwbbb g5=b d2=www d3=bb d4=bb", "w 0 0 30");
    assert_eq!(pos.captured(Side::White), 18 - 7);
    assert_eq!(pos.captured(Side::Black), 18 - 8);
    let own = play_focus(&pos, "a5-c5");
    assert_eq!(stack_at(&own, "c5"), "bbbww");
    assert_eq!((own.reserve(Side::White), own.captured(Side::White)), (2, 11));
    assert_eq!(own.captured(Side::Black), 10);
    let theirs = play_focus(&pos, "d2-d5");
    assert_eq!(stack_at(&theirs, "d5"), "bbwww");
    assert_eq!((theirs.captured(Side::Black), theirs.reserve(Side::Black)), (12, 0));
    assert_eq!(theirs.reserve(Side::White), 0);
    // A drop onto a 5-stack: the bottom piece leaves it.
    let pos = focus("d4=wbbbb e5=w", "w 1 0 0");
    let dropped = play_focus(&pos, "@d4");
    assert_eq!(stack_at(&dropped, "d4"), "bbbbw");
    assert_eq!(dropped.reserve(Side::White), 1, "own piece back to the reserve");
    let pos = focus("d4=bwwww e5=b", "w 1 0 0");
    let dropped = play_focus(&pos, "@d4");
    assert_eq!(stack_at(&dropped, "d4"), "wwwww");
    assert_eq!((dropped.reserve(Side::White), dropped.captured(Side::Black)), (0, 17));
    // The captured pieces are gone for good; the reserve ones can be dropped.
    assert_eq!(fmoves(&play_focus(&own, "g5-g6")).iter().filter(|m| m.starts_with('@')).count(), 52);
}

// ---------------------------------------------------------------------------
// Focus: end

#[test]
fn focus_loses_with_no_stack_and_no_reserve() {
    let pos = focus("d4=wb e5=wwb", "w 0 0 60");
    assert_eq!(
        pos.status(),
        Status::Over(Outcome { winner: Some(Side::Black), reason: EndReason::NoPieces, margin: None })
    );
    assert!(pos.legal_moves().is_empty());
    assert_eq!(pos.count_moves(), 0);
    assert_contains(&pos.clone().play(FocusMove::PASS).expect_err("over").to_string(), "the game is over");
    assert_contains(&focus_move_error(&pos, "pass"), "the game is over");
    // A jump that takes the last Black stack ends the game.
    let pos = focus("d3=w d4=b f6=bww", "w 0 0 50");
    let after = play_focus(&pos, "d3xd5");
    assert_eq!(
        after.status(),
        Status::Over(Outcome { winner: Some(Side::White), reason: EndReason::NoPieces, margin: None })
    );
    assert!(after.legal_moves().is_empty());
    // With a reserve piece a side without stacks still plays: drops only.
    let pos = focus("d4=wb e5=wwb", "w 1 0 60");
    assert_eq!(pos.status(), Status::Ongoing);
    assert_eq!(pos.count_moves(), 52);
    // A position where the side that just moved has nothing cannot arise.
    assert_contains(&focus_fen_error(&focus_fen("d4=wb", "b 0 0 61")), "White controls no stack and has no reserve");
}

#[test]
fn focus_prisoners_do_not_count_as_own_pieces() {
    // White has 3 pieces on the board, all prisoners under Black tops.
    let pos = focus("d4=wb e5=wwb", "w 0 0 60");
    assert_eq!(pos.on_board(Side::White), 3);
    assert_eq!(pos.controlled(Side::White), 0);
    assert_eq!(pos.status().outcome().map(|o| o.winner), Some(Some(Side::Black)));
    // One White piece on top is enough to play on.
    let pos = focus("d4=wb e5=bbw", "w 0 0 60");
    assert_eq!(pos.status(), Status::Ongoing);
    assert!(!pos.legal_moves().is_empty());
}

#[test]
fn focus_pass_when_stuck() {
    // White's only stack, w on c1, is walled in by `bb` on d1 and c2.
    let pos = focus("c1=w d1=bb c2=bb", "w 0 0 12");
    assert_eq!(fmoves(&pos), vec!["pass"]);
    assert_eq!(pos.status(), Status::Ongoing);
    let passed = play_focus(&pos, "pass");
    assert_eq!(passed.fen(), focus_fen("c1=w d1=bb c2=bb", "b 0 0 13"));
    assert_eq!(fmoves(&passed), vec!["c2-b2", "c2-c3", "c2-c4", "c2-d2", "c2-e2", "d1-d2", "d1-d3", "d1-e1", "d1-f1"]);
    assert_contains(
        &focus_move_error(&passed, "pass"),
        "a pass is legal only when no other move is; Black has 9 moves",
    );
    // With a reserve there is always a drop, so no pass.
    let pos = focus("c1=w d1=bb c2=bb", "w 1 0 12");
    assert!(!pos.is_legal(FocusMove::PASS));
    assert_eq!(pos.count_moves(), 52);
}

#[test]
fn focus_threefold_repetition_draws() {
    let mut game = Game::new(FocusPosition::start(FocusRules::seed()));
    for round in 1..=2 {
        for mv in ["c2-c1", "d2-d1", "c1-c2", "d1-d2"] {
            assert_eq!(game.status(), Status::Ongoing);
            game.play_text(mv).expect("legal");
        }
        assert_eq!(game.repetitions(), round + 1);
    }
    assert_eq!(game.status(), Status::Over(Outcome { winner: None, reason: EndReason::Repetition, margin: None }));
    assert_contains(&game.play_text("c2-c1").expect_err("over").to_string(), "the game is over");
    // Reserves are part of the position: same stacks, other reserve, not a repetition.
    let a = focus("d4=w e5=b", "w 1 0 0");
    let b = focus("d4=w e5=b", "w 0 0 0");
    assert_ne!(a.hash(), b.hash());
}

#[test]
fn focus_move_limit_draws() {
    let rules: FocusRules = "seed,move-limit=1".parse().expect("rules");
    let start = FocusPosition::start(rules);
    let one = play_focus(&start, "c2-c1");
    assert_eq!(one.status(), Status::Ongoing);
    let two = play_focus(&one, "d2-d1");
    assert_eq!(two.status(), Status::Over(Outcome { winner: None, reason: EndReason::MoveLimit, margin: None }));
    assert_contains(&two.clone().play(FocusMove::PASS).expect_err("over").to_string(), "the game is over");
    assert_eq!(monte_rules::RuleSet::move_limit(&FocusRules::seed()), None);
}

// ---------------------------------------------------------------------------
// Focus: position strings and move text

#[test]
fn focus_rejects_stack_above_5() {
    let err = focus_fen_error(&focus_fen("d4=wwwwww e5=b", "w 0 0 0"));
    assert_contains(&err, "d4: stack `wwwwww` is 6 high; a stack holds at most 5");
    assert!(FocusPosition::from_fen(FocusRules::seed(), &focus_fen("d4=wwwww e5=b", "w 0 0 0")).is_ok());
}

#[test]
fn focus_rejects_too_many_pieces() {
    // The start position has 18 each; one more White piece in reserve is 19.
    let fen = focus::START_FEN.replace(" w 0 0 0", " w 1 0 0");
    assert_contains(&focus_fen_error(&fen), "White has 19 pieces (18 on the board, 1 in reserve); each side has 18");
    let fen = focus::START_FEN.replacen(".,.,.,./", ".,.,b,./", 1);
    assert_contains(&focus_fen_error(&fen), "Black has 19 pieces");
}

#[test]
fn focus_rejects_wrong_rank_length() {
    let fen = focus::START_FEN.replacen(".,.,.,./", ".,.,.,.,./", 1);
    assert_contains(&focus_fen_error(&fen), "rank 8: expected 4 squares, found 5");
    let fen = focus::START_FEN.replacen("w,w,b,b,w,w/", "w,w,b,b,w,w,./", 1);
    assert_contains(&focus_fen_error(&fen), "rank 2: expected 6 squares, found 7");
}

#[test]
fn focus_rejects_unknown_letter() {
    let err = focus_fen_error(&focus_fen("d4=wx e5=b", "w 0 0 0"));
    assert_contains(&err, "d4: `wx` is not a stack");
    let err = focus_fen_error(&focus_fen("d4=W e5=b", "w 0 0 0"));
    assert_contains(&err, "d4: `W` is not a stack");
}

#[test]
fn focus_rejects_ply_count_of_the_wrong_parity() {
    let fen = focus::START_FEN.replace(" w 0 0 0", " b 0 0 0");
    assert_contains(&focus_fen_error(&fen), "ply 0 with Black to move");
}

#[test]
fn focus_malformed_moves_name_the_problem() {
    let start = FocusPosition::start(FocusRules::seed());
    for (text, want) in [
        ("i4-i5", "`i4`: not a square"),
        ("a1-a3", "a1: not on the board"),
        ("c3-c1", "c3: that stack is controlled by Black, and White is to move"),
        ("a4-a5", "a4: no stack there"),
        ("c2-d1", "moves go along a rank or a file"),
        ("c2-c4", "the stack on c2 is 1 high; moving 2 squares takes 2 pieces"),
        ("c2-c3", "c3 is occupied; a group lands on an empty square"),
        ("b2xd2", "a jump goes over a lone Black piece, and c2 holds `w`"),
        ("@c1", "White has no pieces in reserve"),
        ("pass", "a pass is legal only when no other move is; White has 12 moves"),
        ("c2", "expected a group move"),
    ] {
        let err = focus_move_error(&start, text);
        assert_contains(&err, want);
        assert!(err.starts_with(text), "`{err}` should start with the move text `{text}`");
    }
}
