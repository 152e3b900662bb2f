//! The terminal board, pinned: both games, from White's side and from
//! Black's, plain and in colour, against the files in tests/render/. Those
//! were written by the renderers this one replaced (the rules crate's for
//! White, the `monte` command's own for Black), so a change to them is a
//! change to what players see. `MONTE_BLESS=1` rewrites them after a change
//! that is meant.

use std::path::{Path, PathBuf};

use monte_rules::any::{AnyGame, board_layout};
use monte_rules::{GameKind, RenderStyle, Side};

/// A position worth pinning, by name (the start of its golden files' names).
struct Case {
    name: &'static str,
    game: GameKind,
    fen: &'static str,
    /// The width of a grid row's rank label, and of each of its cells.
    label_width: usize,
    cell_width: usize,
}

const SALTA_GRID: (usize, usize) = (4, 3);
const FOCUS_GRID: (usize, usize) = (2, 7);

const CASES: [Case; 5] = [
    Case {
        name: "salta-start",
        game: GameKind::Salta,
        fen: "s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,o3,o2,o1/.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./\
              O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 0",
        label_width: SALTA_GRID.0,
        cell_width: SALTA_GRID.1,
    },
    // Black must jump over the called piece on f8 (marked `!`).
    Case {
        name: "salta-call",
        game: GameKind::Salta,
        fen: "s5,.,.,s2,s1/m5,m4,s4,.,m1/o5,s3,M3,m2,o1/.,.,.,.,./.,o3,O3,.,./.,.,O2,.,./.,m3,O4,o2,./\
              O1,.,.,o4,O5/M1,M2,S3,M4,M5/S1,S2,.,S4,S5 b f8 39",
        label_width: SALTA_GRID.0,
        cell_width: SALTA_GRID.1,
    },
    Case {
        name: "salta-over",
        game: GameKind::Salta,
        fen: "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,O3,O2,O1/.,.,.,.,./.,m4,.,.,o4/.,o2,o1,s2,./.,.,o3,.,./\
              .,.,.,.,o5/m1,m2,m3,.,m5/s1,.,s3,s4,s5 b - 683",
        label_width: SALTA_GRID.0,
        cell_width: SALTA_GRID.1,
    },
    Case {
        name: "focus-start",
        game: GameKind::Focus,
        fen: ".,.,.,./b,b,w,w,b,b/.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./\
              w,w,b,b,w,w/.,.,.,. w 0 0 0",
        label_width: FOCUS_GRID.0,
        cell_width: FOCUS_GRID.1,
    },
    // Towers up to five high, pieces in reserve and captured.
    Case {
        name: "focus-towers",
        game: GameKind::Focus,
        fen: ".,.,w,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,w,.,.,.,.,wbbwb,./.,w,.,.,.,.,.,./.,.,w,.,wb,bb,.,./\
              w,.,.,.,.,./.,.,.,bb b 0 10 149",
        label_width: FOCUS_GRID.0,
        cell_width: FOCUS_GRID.1,
    },
];

const STYLES: [RenderStyle; 4] = [
    RenderStyle { color: false, from: Side::White },
    RenderStyle { color: true, from: Side::White },
    RenderStyle { color: false, from: Side::Black },
    RenderStyle { color: true, from: Side::Black },
];

fn game(case: &Case) -> AnyGame {
    match AnyGame::new(case.game, "seed", Some(case.fen)) {
        Ok(game) => game,
        Err(e) => panic!("{}: {e}", case.name),
    }
}

fn golden_path(case: &Case, style: RenderStyle) -> PathBuf {
    let side = match style.from {
        Side::White => "white",
        Side::Black => "black",
    };
    let ink = if style.color { "color" } else { "plain" };
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/render").join(format!("{}-{side}-{ink}.txt", case.name))
}

#[test]
fn both_views_of_both_games_match_the_golden_files() {
    let bless = std::env::var_os("MONTE_BLESS").is_some();
    for case in &CASES {
        let game = game(case);
        for style in STYLES {
            let path = golden_path(case, style);
            let drawn = game.render(style);
            if bless {
                std::fs::write(&path, &drawn).unwrap();
                continue;
            }
            let golden = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(drawn == golden, "{} differs; drawn now:\n{drawn}\nexpected:\n{golden}", path.display());
        }
    }
}

/// The cells of a plain grid row, after its rank label.
fn cells(row: &str, label_width: usize, cell_width: usize) -> Vec<String> {
    let chars: Vec<char> = row.chars().skip(label_width).collect();
    chars.chunks(cell_width).map(|cell| cell.iter().collect()).collect()
}

#[test]
fn blacks_view_is_whites_turned_half_a_turn_with_the_same_summary() {
    for case in &CASES {
        let (label_width, cell_width) = (case.label_width, case.cell_width);
        let rows = usize::from(board_layout(case.game).ranks);
        let game = game(case);
        let white = game.render(RenderStyle { color: false, from: Side::White });
        let black = game.render(RenderStyle { color: false, from: Side::Black });
        let white: Vec<&str> = white.lines().collect();
        let black: Vec<&str> = black.lines().collect();
        assert_eq!(white.len(), black.len(), "{}", case.name);
        for row in 0..rows {
            let mut turned = cells(white[rows - 1 - row], label_width, cell_width);
            turned.reverse();
            assert_eq!(cells(black[row], label_width, cell_width), turned, "{} row {row}", case.name);
            assert_eq!(black[row][..label_width].trim(), (row + 1).to_string(), "{}", case.name);
        }
        let letters = |line: &str| line.split_whitespace().collect::<String>();
        assert_eq!(letters(black[rows]), letters(white[rows]).chars().rev().collect::<String>());
        assert_eq!(black[rows + 1..], white[rows + 1..], "{}: the summary is the same", case.name);
    }
}

#[test]
fn colours_only_when_asked() {
    for case in &CASES {
        let game = game(case);
        for style in STYLES {
            assert_eq!(game.render(style).contains('\x1b'), style.color, "{} {style:?}", case.name);
        }
    }
}
