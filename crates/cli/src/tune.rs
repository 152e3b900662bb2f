//! `monte tune`: Texel-style tuning of the evaluation weights from
//! self-play games. Positions from games played by the engine itself are
//! labelled with the games' results, and the weights are fitted so that a
//! logistic function of the evaluation predicts those results.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result};
use monte_engine::EngineGame;
use monte_engine::{Limits, SearchOptions, Searcher, ai};
use monte_rules::game::{Game, RepetitionRule};
use monte_rules::record::Record;
use monte_rules::{EndReason, Side, Status};

use monte_rules::Rng;

/// What `monte tune` does.
#[derive(Clone, Debug)]
pub struct TuneSettings {
    pub games: usize,
    pub depth: u32,
    pub seed: u64,
    pub random_plies: usize,
    /// Keep every n-th position of a game (neighbouring positions say
    /// nearly the same thing).
    pub sample_every: usize,
    /// Write the generated positions here.
    pub data_out: Option<String>,
    /// Fit on these positions instead of playing games.
    pub data_in: Option<String>,
    /// Take the positions from these game records (files of records, as
    /// `monte match --records` writes them) instead of playing games:
    /// only games decided on the board, or won at a scored move limit,
    /// count.
    pub records: Vec<String>,
}

/// A labelled position: White's result (1, 0.5, 0) and the position.
struct Sample {
    white_result: f64,
    fen: String,
}

fn self_play<P: EngineGame>(rules: P::Rules, s: &TuneSettings) -> Vec<Sample>
where
    P::Rules: RepetitionRule,
{
    let searcher = Searcher::new(SearchOptions { hash_mb: 16, threads: 1, ..Default::default() });
    let stop = AtomicBool::new(false);
    let mut rng = Rng::new(s.seed);
    let mut samples = Vec::new();
    for g in 0..s.games {
        let mut game = Game::new(P::start(rules));
        let mut fens = Vec::new();
        while !game.status().is_over() {
            let pos = game.position().clone();
            let mv = if game.moves().len() < s.random_plies {
                let moves = pos.legal_moves();
                moves[rng.below(moves.len())]
            } else {
                match ai::search(&searcher, &game, &Limits::depth(s.depth), &stop, &mut |_| {}) {
                    Ok(choice) => choice.mv,
                    Err(_) => break,
                }
            };
            if game.play(mv).is_err() {
                break;
            }
            let n = game.moves().len();
            if n > s.random_plies
                && (n - s.random_plies).is_multiple_of(s.sample_every.max(1))
                && !game.status().is_over()
            {
                fens.push(game.position().fen());
            }
        }
        let white_result = match game.status() {
            Status::Over(o) => match o.winner {
                Some(Side::White) => 1.0,
                Some(Side::Black) => 0.0,
                None => 0.5,
            },
            Status::Ongoing => continue,
        };
        samples.extend(fens.into_iter().map(|fen| Sample { white_result, fen }));
        if (g + 1) % 10 == 0 {
            eprintln!("{} games, {} positions", g + 1, samples.len());
        }
    }
    samples
}

/// Labelled positions from the games of record files that were decided
/// on the board (a Salta goal completed, a Focus side out of pieces), or
/// won at a move limit that the rule set scores (there the count is the
/// game): a game drawn by a limit or a repetition, or adjudicated, says
/// little about who was winning, and fitting to it teaches the
/// evaluation to win the count rather than the game. Every
/// `sample_every`-th position after the first `random_plies` plies.
/// Returns the samples and a line saying what was kept.
fn from_records<P: EngineGame>(paths: &[String], s: &TuneSettings) -> Result<(Vec<Sample>, String)>
where
    P::Rules: RepetitionRule,
{
    let mut samples = Vec::new();
    let (mut kept, mut dropped) = (0usize, std::collections::BTreeMap::<&str, usize>::new());
    for path in paths {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
        let records = Record::parse_many(&text).with_context(|| format!("reading {path}"))?;
        for (i, record) in records.iter().enumerate() {
            let game = record.replay::<P>().with_context(|| format!("{path}: game {}", i + 1))?;
            let white_result = match game.status() {
                Status::Over(o)
                    if matches!(o.reason, EndReason::Goal | EndReason::NoPieces)
                        || (o.reason == EndReason::MoveLimit && o.winner.is_some()) =>
                {
                    match o.winner {
                        Some(Side::White) => 1.0,
                        Some(Side::Black) => 0.0,
                        None => 0.5,
                    }
                }
                Status::Over(o) => {
                    *dropped.entry(o.reason.name()).or_default() += 1;
                    continue;
                }
                Status::Ongoing => {
                    *dropped.entry("unfinished or adjudicated").or_default() += 1;
                    continue;
                }
            };
            kept += 1;
            // As in self-play: the positions after the opening, every
            // `sample_every` plies, the final one left out.
            let every = s.sample_every.max(1);
            for n in (s.random_plies + every..game.moves().len()).step_by(every) {
                if let Some(pos) = game.position_after(n) {
                    samples.push(Sample { white_result, fen: pos.fen() });
                }
            }
        }
    }
    let dropped: Vec<String> = dropped.iter().map(|(reason, n)| format!("{n} {reason}")).collect();
    let summary = format!(
        "{kept} games decided on the board or won at a scored limit from {}; left out: {}",
        paths.join(", "),
        if dropped.is_empty() { "none".to_string() } else { dropped.join(", ") }
    );
    Ok((samples, summary))
}

fn sigmoid(x: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-k * x).exp())
}

/// Mean squared error of the predicted results.
fn loss(data: &[(Vec<i32>, f64)], w: &[i32], k: f64) -> f64 {
    let sum: f64 = data
        .iter()
        .map(|(f, r)| {
            let e: i32 = f.iter().zip(w).map(|(x, y)| x * y).sum();
            (r - sigmoid(e as f64, k)).powi(2)
        })
        .sum();
    sum / data.len().max(1) as f64
}

pub fn run<P: EngineGame>(rules: P::Rules, s: &TuneSettings) -> Result<()>
where
    P::Rules: RepetitionRule,
{
    // The positions, and where they came from (the data file's first line).
    let (samples, source) = match &s.data_in {
        _ if !s.records.is_empty() => {
            let (samples, summary) = from_records::<P>(&s.records, s)?;
            println!("records: {summary}");
            (samples, format!("records: {summary}; the first {} plies of each left out", s.random_plies))
        }
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
            let mut v = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if line.starts_with('#') || line.trim().is_empty() {
                    continue;
                }
                let (r, fen) =
                    line.split_once(" ; ").with_context(|| format!("{path}:{}: expected `result ; fen`", i + 1))?;
                let white_result: f64 = r.trim().parse().with_context(|| format!("{path}:{}: result", i + 1))?;
                v.push(Sample { white_result, fen: fen.trim().to_string() });
            }
            (v, format!("the positions of {path}"))
        }
        None => (
            self_play::<P>(rules, s),
            format!(
                "{} self-play games at depth {}, {} random opening plies, seed {}",
                s.games, s.depth, s.random_plies, s.seed
            ),
        ),
    };
    if let Some(path) = &s.data_out {
        let mut f = std::fs::File::create(path).with_context(|| format!("creating {path}"))?;
        writeln!(
            f,
            "# monte tune data: game {} rules {}, {source}, every {} positions",
            P::KIND,
            rules,
            s.sample_every
        )?;
        writeln!(f, "# White's result ; position after a move")?;
        for smp in &samples {
            writeln!(f, "{} ; {}", smp.white_result, smp.fen)?;
        }
    }
    let mut positions = Vec::with_capacity(samples.len());
    for smp in &samples {
        positions.push(P::from_fen(rules, &smp.fen).with_context(|| format!("position {}", smp.fen))?);
    }
    // Each position is fitted by its quiet leaf (the end of the quiescence
    // search's principal variation), seen from the position's side to move:
    // the search only ever evaluates quiet positions. The leaves depend on
    // the weights, so leaves and weights are refitted in turn until the
    // weights settle.
    anyhow::ensure!(!positions.is_empty(), "no positions to tune on");
    let names = P::feature_names();
    let mut w = P::weights().to_vec();
    for round in 1..=MAX_ROUNDS {
        let searcher =
            Searcher::new(SearchOptions { hash_mb: 16, threads: 1, ..Default::default() }).with_weights(w.clone());
        let leaves = searcher.quiet_leaves(&positions);
        let mut data = Vec::with_capacity(samples.len());
        for ((smp, pos), leaf) in samples.iter().zip(&positions).zip(&leaves) {
            let r = if pos.side_to_move() == Side::White { smp.white_result } else { 1.0 - smp.white_result };
            let sign = if leaf.side_to_move() == pos.side_to_move() { 1 } else { -1 };
            data.push((leaf.features().iter().map(|f| sign * f).collect::<Vec<i32>>(), r));
        }
        let moved = leaves.iter().zip(&positions).filter(|(l, p)| l.hash() != p.hash()).count();
        let (k, before, after, fitted) = fit(&data, &w);
        println!(
            "round {round}: {} positions ({moved} not quiet); K = {k:.4}; loss {before:.6} -> {after:.6}",
            data.len()
        );
        let settled = fitted == w;
        w = fitted;
        if settled {
            break;
        }
    }
    for (n, v) in names.iter().zip(&w) {
        println!("  {n}: {v}");
    }
    Ok(())
}

/// Rounds of leaves-then-weights at most.
const MAX_ROUNDS: usize = 6;

/// Fit K to the weights, then the weights (all but the first, which sets
/// the scale) by coordinate descent. Returns (K, loss before, loss after,
/// weights).
fn fit(data: &[(Vec<i32>, f64)], start: &[i32]) -> (f64, f64, f64, Vec<i32>) {
    let mut w = start.to_vec();
    let fit_k = |w: &[i32]| {
        let mut k = 1e-2;
        let mut best = f64::MAX;
        for i in 0..=40 {
            let cand = 1e-5 * 10f64.powf(i as f64 / 10.0);
            let l = loss(data, w, cand);
            if l < best {
                best = l;
                k = cand;
            }
        }
        for _ in 0..30 {
            for cand in [k * 1.05, k / 1.05] {
                let l = loss(data, w, cand);
                if l < best {
                    best = l;
                    k = cand;
                }
            }
        }
        k
    };
    let k = fit_k(&w);
    let before = loss(data, &w, k);
    let mut current = before;
    for step in [16, 8, 4, 2, 1] {
        loop {
            let mut improved = false;
            for i in 1..w.len() {
                for delta in [step, -step] {
                    w[i] += delta;
                    let l = loss(data, &w, k);
                    if l + 1e-12 < current {
                        current = l;
                        improved = true;
                    } else {
                        w[i] -= delta;
                    }
                }
            }
            if !improved {
                break;
            }
        }
    }
    (k, before, current, w)
}
