//! The board as the terminal shows it, from either side.
//!
//! White's view is the rules crate's own rendering (`render(color)`). For
//! Black's view (`flip` in `monte play`) this module draws the grid turned
//! half a turn, in the same style, from what the rules crate tells about
//! each square, and keeps the rules crate's summary lines below the grid.

use monte_rules::Side;
use monte_rules::any::AnyGame;
use monte_rules::focus::FocusPosition;
use monte_rules::salta::{Kind, SaltaPosition};

const RESET: &str = "\x1b[0m";

/// The board seen from White's side (`flipped == false`) or Black's.
pub fn render(game: &AnyGame, color: bool, flipped: bool) -> String {
    let normal = game.render(color);
    if !flipped {
        return normal;
    }
    let (grid, grid_lines) = match game {
        AnyGame::Salta(g) => (salta_grid_flipped(g.position(), color), 10),
        AnyGame::Focus(g) => (focus_grid_flipped(g.position(), color), 8),
    };
    // The rules crate writes the grid, then the line of file letters, then
    // the summary: keep the summary.
    let mut out = grid;
    for line in normal.lines().skip(grid_lines + 1) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn salta_symbol(kind: Kind, side: Side) -> char {
    match (kind, side) {
        (Kind::Star, Side::White) => '★',
        (Kind::Star, Side::Black) => '☆',
        (Kind::Moon, Side::White) => '☾',
        (Kind::Moon, Side::Black) => '☽',
        (Kind::Sun, Side::White) => '☀',
        (Kind::Sun, Side::Black) => '☼',
    }
}

/// The Salta grid with rank 1 at the top and file j on the left.
fn salta_grid_flipped(pos: &SaltaPosition, color: bool) -> String {
    use monte_rules::salta::geometry::square_at;
    let call = pos.pending_call();
    let mut s = String::new();
    for y in 0..10 {
        s.push_str(&format!("{:>3} ", y + 1));
        for x in (0..10).rev() {
            let Some(sq) = square_at(x, y) else {
                s.push_str(if color { "\x1b[48;5;230m   \x1b[0m" } else { "   " });
                continue;
            };
            match pos.piece_at(sq) {
                None => s.push_str(if color { "\x1b[48;5;94m   \x1b[0m" } else { " · " }),
                Some(p) => {
                    let text = format!(
                        "{}{}{}",
                        salta_symbol(p.kind, p.side),
                        p.number,
                        if call == Some(sq) { '!' } else { ' ' }
                    );
                    if color {
                        let (bg, fg) = match p.side {
                            Side::White => ("\x1b[48;5;255m", "\x1b[1;38;5;46m"),
                            Side::Black => ("\x1b[48;5;232m", "\x1b[1;38;5;196m"),
                        };
                        s.push_str(&format!("{bg}{fg}{text}{RESET}"));
                    } else {
                        s.push_str(&text);
                    }
                }
            }
        }
        s.push('\n');
    }
    s.push_str("    ");
    for x in (0..10u8).rev() {
        s.push_str(&format!(" {} ", (b'a' + x) as char));
    }
    s.push('\n');
    s
}

/// The Focus grid with rank 1 at the top and file h on the left.
fn focus_grid_flipped(pos: &FocusPosition, color: bool) -> String {
    use monte_rules::focus::geometry::square_at;
    let mut s = String::new();
    for y in 0..8 {
        s.push_str(&format!("{} ", y + 1));
        for x in (0..8).rev() {
            let Some(sq) = square_at(x, y) else {
                s.push_str("       ");
                continue;
            };
            let stack = pos.stack(sq);
            if color {
                let bg = if (x + y) % 2 == 0 { "\x1b[48;5;137m" } else { "\x1b[48;5;180m" };
                s.push_str(bg);
                s.push(' ');
                for p in stack.pieces() {
                    s.push_str(match p {
                        Side::White => "\x1b[1;38;5;231m●",
                        Side::Black => "\x1b[1;38;5;232m●",
                    });
                }
                for _ in stack.height()..6 {
                    s.push(' ');
                }
                s.push_str(RESET);
            } else {
                let text: String = if stack.height() == 0 {
                    "·".to_string()
                } else {
                    stack.pieces().map(|p| if p == Side::White { '○' } else { '●' }).collect()
                };
                s.push_str(&format!(" {text:<5} "));
            }
        }
        s.push('\n');
    }
    s.push_str("  ");
    for x in (0..8u8).rev() {
        s.push_str(&format!("   {}   ", (b'a' + x) as char));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use monte_rules::GameKind;

    /// The cells of one plain grid row, without the rank label.
    fn cells(row: &str, label: usize, width: usize) -> Vec<String> {
        let chars: Vec<char> = row.chars().skip(label).collect();
        chars.chunks(width).map(|c| c.iter().collect::<String>()).collect()
    }

    #[test]
    fn flipped_board_is_the_normal_board_turned_half_a_turn() {
        for (kind, rows, label, width, moves) in
            [(GameKind::Salta, 10, 4, 3, &["c3-d4", "h8-g7"][..]), (GameKind::Focus, 8, 2, 7, &["c6xc8"][..])]
        {
            let mut game = AnyGame::new(kind, "seed", None).unwrap();
            for m in moves {
                game.play(m).unwrap();
            }
            let normal = render(&game, false, false);
            let flipped = render(&game, false, true);
            let n: Vec<&str> = normal.lines().collect();
            let f: Vec<&str> = flipped.lines().collect();
            assert_eq!(n.len(), f.len(), "{flipped}");
            for i in 0..rows {
                let mut turned = cells(n[rows - 1 - i], label, width);
                turned.reverse();
                assert_eq!(
                    cells(f[i], label, width).join("").trim_end(),
                    turned.join("").trim_end(),
                    "row {i}:\n{normal}\n{flipped}"
                );
            }
            assert_eq!(f[0].trim_start().chars().next(), Some('1'));
            let letters = |l: &str| l.split_whitespace().collect::<Vec<_>>().join("");
            let mut files: Vec<char> = letters(n[rows]).chars().collect();
            files.reverse();
            assert_eq!(letters(f[rows]), files.into_iter().collect::<String>());
            assert_eq!(n[rows + 1..], f[rows + 1..], "the summary is kept");
            // Colours only when asked.
            assert!(!flipped.contains('\x1b'));
            assert!(render(&game, true, true).contains('\x1b'));
        }
    }
}
