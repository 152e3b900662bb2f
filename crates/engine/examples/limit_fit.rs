//! Fit the Salta evaluation's weights to what decides a game under a move
//! limit scored by distance: the final distance margin. For every position
//! of the records (after the first `SKIP` plies), the features from the
//! side to move's point of view and the margin at the game's end from the
//! same side's point of view (the opponent's distance minus its own, in
//! steps); a least-squares fit per band of plies left to the limit, and
//! over all. The weights are printed in evaluation units (100 = a step of
//! the final margin), ready for an engine's `weights=` setting.
//!
//! A margin is far less noisy than a win or a loss: a Texel fit of the
//! same games to their results hardly moves (docs/engine.md). The last
//! rows give how much of the margin's variance the fit explains (R²), and
//! the distance difference with the tempo alone: how far ahead of the
//! limit the position still tells who will win. `on_their_targets` and
//! `target_held` enter the mover's vector as exact opposites (a piece on
//! the other side's targets is one that holds its target), so the small
//! ridge splits their weight between them.
//!
//! cargo run --release -p monte-engine --example limit_fit -- FILE... [--skip N] [--bands N]

use monte_engine::eval::{SALTA_FEATURES, salta_feature_vector};
use monte_rules::record::Record;
use monte_rules::salta::SaltaPosition;
use monte_rules::{Position, Side, Status};

struct Sample {
    features: [i32; SALTA_FEATURES],
    left: u32,
    margin: f64,
}

fn main() {
    let mut files = Vec::new();
    let mut skip = 8usize;
    let mut bands = 4u32;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--skip" => skip = number(&a, args.next()) as usize,
            "--bands" => bands = number(&a, args.next()).max(1),
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        eprintln!("usage: limit_fit FILE... [--skip N] [--bands N]");
        std::process::exit(2);
    }
    let mut samples = Vec::new();
    let mut limit_plies = 0;
    let mut unfinished = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("error: {path}: {e}");
            std::process::exit(1)
        });
        let records = Record::parse_many(&text).unwrap_or_else(|e| {
            eprintln!("error: {path}: {e}");
            std::process::exit(1)
        });
        for (i, record) in records.iter().enumerate() {
            let game = match record.replay::<SaltaPosition>() {
                Ok(g) => g,
                Err(e) => {
                    eprintln!("{path} game {}: {e}", i + 1);
                    continue;
                }
            };
            let plies = game.moves().len();
            let last = game.position_after(plies).expect("the final position");
            let Some(limit) = last.rules().move_limit else {
                eprintln!("{path} game {}: no move limit, left out", i + 1);
                continue;
            };
            // The bands count plies left to one limit.
            if limit_plies != 0 && limit_plies != 2 * limit {
                eprintln!("{path} game {}: a limit of {limit} moves, not {}, left out", i + 1, limit_plies / 2);
                continue;
            }
            limit_plies = 2 * limit;
            // A game drawn by repetition (or stopped) before the limit has
            // no final count: its margin would not be its result.
            if !matches!(last.status(), Status::Over(_)) {
                unfinished += 1;
                continue;
            }
            // White's final margin in steps.
            let white = last.distance(Side::Black) as f64 - last.distance(Side::White) as f64;
            for n in skip..plies {
                let pos = game.position_after(n).expect("a ply");
                let sign = if pos.side_to_move() == Side::White { 1.0 } else { -1.0 };
                samples.push(Sample {
                    features: salta_feature_vector(pos),
                    left: (2 * limit).saturating_sub(n as u32),
                    margin: sign * white,
                });
            }
        }
    }
    println!(
        "{} positions from {} file(s), limit {} plies; {unfinished} game(s) drawn by repetition or stopped before the limit, left out",
        samples.len(),
        files.len(),
        limit_plies
    );
    let names = <SaltaPosition as monte_engine::eval::EngineGame>::feature_names();
    let width = limit_plies.div_ceil(bands).max(1);
    print!("{:>12}", "left");
    for b in 0..bands {
        print!("{:>10}", format!("{}-{}", b * width, (b + 1) * width - 1));
    }
    println!("{:>10}", "all");
    let mut fits = Vec::new();
    for b in 0..=bands {
        let subset: Vec<&Sample> = samples.iter().filter(|s| b == bands || (s.left / width) == b).collect();
        fits.push(fit(&subset));
    }
    for (i, name) in names.iter().enumerate() {
        print!("{name:>12}");
        for f in &fits {
            print!("{:>10}", f.as_ref().map_or("-".into(), |f| format!("{:.0}", 100.0 * f.weights[i])));
        }
        println!();
    }
    for (label, pick) in [("positions", 0), ("R²", 1), ("R² dist", 2)] {
        print!("{label:>12}");
        for f in &fits {
            let text = f.as_ref().map_or("-".into(), |f| match pick {
                0 => f.count.to_string(),
                1 => format!("{:.3}", f.r2),
                _ => format!("{:.3}", f.r2_distance),
            });
            print!("{text:>10}");
        }
        println!();
    }
}

/// The number after an option, or an error naming the option.
fn number(option: &str, value: Option<String>) -> u32 {
    match value.as_deref().map(str::parse) {
        Some(Ok(n)) => n,
        _ => {
            eprintln!("error: {option} needs a whole number, found {}", value.as_deref().unwrap_or("nothing"));
            std::process::exit(2)
        }
    }
}

struct Fit {
    weights: Vec<f64>,
    count: usize,
    r2: f64,
    /// R² of the distance difference and the tempo alone, for comparison.
    r2_distance: f64,
}

fn fit(samples: &[&Sample]) -> Option<Fit> {
    if samples.len() < 2 * SALTA_FEATURES {
        return None;
    }
    let all: Vec<usize> = (0..SALTA_FEATURES).collect();
    let (weights, r2) = least_squares(samples, &all)?;
    let (_, r2_distance) = least_squares(samples, &[0, 1])?;
    Some(Fit { weights, count: samples.len(), r2, r2_distance })
}

/// Least squares over the chosen features, with a small ridge so that a
/// feature that never varies gets weight 0; features not chosen get
/// weight 0. Returns the weights (one per feature) and R².
fn least_squares(samples: &[&Sample], chosen: &[usize]) -> Option<(Vec<f64>, f64)> {
    let k = chosen.len();
    let mut a = vec![vec![0.0; k + 1]; k];
    for s in samples {
        let x: Vec<f64> = chosen.iter().map(|&i| s.features[i] as f64).collect();
        for r in 0..k {
            for c in 0..k {
                a[r][c] += x[r] * x[c];
            }
            a[r][k] += x[r] * s.margin;
        }
    }
    for (r, row) in a.iter_mut().enumerate() {
        row[r] += 1e-3 * samples.len() as f64;
    }
    // Gauss-Jordan with partial pivoting.
    for col in 0..k {
        let pivot = (col..k).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        a.swap(col, pivot);
        let p = a[col][col];
        if p.abs() < 1e-12 {
            return None;
        }
        for v in &mut a[col][col..] {
            *v /= p;
        }
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col];
                for (x, y) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= f * y;
                }
            }
        }
    }
    let beta: Vec<f64> = a.iter().map(|row| row[k]).collect();
    let mean = samples.iter().map(|s| s.margin).sum::<f64>() / samples.len() as f64;
    let (mut ss_res, mut ss_tot) = (0.0, 0.0);
    for s in samples {
        let pred: f64 = chosen.iter().zip(&beta).map(|(&i, b)| b * s.features[i] as f64).sum();
        ss_res += (s.margin - pred).powi(2);
        ss_tot += (s.margin - mean).powi(2);
    }
    let mut weights = vec![0.0; SALTA_FEATURES];
    for (&i, b) in chosen.iter().zip(beta) {
        weights[i] = b;
    }
    Some((weights, 1.0 - ss_res / ss_tot.max(1e-9)))
}
