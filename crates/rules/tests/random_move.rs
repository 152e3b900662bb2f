//! `Position::random_move` against `Position::generate`, in every rule set:
//! every pick is a listed move, and over many picks every listed move comes
//! up (the games pick from their move sets without listing, so this is the
//! check that the two agree).

use std::collections::{HashMap, HashSet};

use monte_rules::Rng;
use monte_rules::focus::FocusPosition;
use monte_rules::salta::SaltaPosition;
use monte_rules::{MoveList, Position, RuleSet, Status};

fn check_rule_set<P: Position>(rules: P::Rules, games: u64) -> (u64, u64) {
    let start = P::start(rules);
    let (mut positions, mut full_checks) = (0u64, 0u64);
    for game in 0..games {
        let mut rng = Rng::new(0xC0FFEE + game);
        let mut pos = start.clone();
        for ply in 0..400 {
            if pos.status() != Status::Ongoing {
                break;
            }
            let mut listed = MoveList::new();
            pos.generate(&mut listed);
            let listed: HashSet<P::Move> = listed.into_iter().collect();
            let ctx = format!("{} {rules}: `{}`", P::KIND, pos.fen());
            if listed.is_empty() {
                assert_eq!(pos.random_move(&mut rng), None, "{ctx}: a pick where nothing is listed");
                break;
            }
            positions += 1;
            // Every few positions, enough picks to see every move: a move
            // missed by 40·n uniform picks has probability about n·e^-40.
            let picks = if ply % 25 == 0 { 40 * listed.len() } else { 4 };
            let mut seen: HashMap<P::Move, usize> = HashMap::new();
            for _ in 0..picks {
                let mv = pos.random_move(&mut rng).unwrap_or_else(|| panic!("{ctx}: no pick"));
                assert!(listed.contains(&mv), "{ctx}: picked {mv:?}, which generate does not list");
                *seen.entry(mv).or_default() += 1;
            }
            if picks > 4 {
                full_checks += 1;
                for mv in &listed {
                    assert!(seen.contains_key(mv), "{ctx}: {mv:?} never picked in {picks} picks");
                }
            }
            let mv = pos.random_move(&mut rng).unwrap_or_else(|| panic!("{ctx}: no pick"));
            pos.play_unchecked(mv);
        }
    }
    (positions, full_checks)
}

#[test]
fn random_moves_are_listed_moves_and_every_listed_move_comes_up() {
    for name in ["seed", "meyer1908", "ludii"] {
        let rules = <SaltaPosition as Position>::Rules::preset(name).unwrap();
        let (positions, full) = check_rule_set::<SaltaPosition>(rules, 6);
        assert!(positions > 1000 && full > 40, "salta {name}: only {positions} positions, {full} full checks");
    }
    for name in ["seed", "sackson"] {
        let rules = <FocusPosition as Position>::Rules::preset(name).unwrap();
        let (positions, full) = check_rule_set::<FocusPosition>(rules, 6);
        assert!(positions > 300 && full > 10, "focus {name}: only {positions} positions, {full} full checks");
    }
}

/// Pearson's chi-square of `picks` draws of `pos.random_move` against the
/// uniform distribution over the listed moves, and its degrees of freedom.
fn chi_square<P: Position>(pos: &P, rng: &mut Rng, per_move: usize) -> (f64, usize) {
    let listed = pos.legal_moves();
    let index: HashMap<P::Move, usize> = listed.iter().enumerate().map(|(i, &m)| (m, i)).collect();
    let mut observed = vec![0usize; listed.len()];
    for _ in 0..per_move * listed.len() {
        let mv = pos.random_move(rng).expect("a move");
        observed[index[&mv]] += 1;
    }
    let expected = per_move as f64;
    let chi2 = observed.iter().map(|&o| (o as f64 - expected).powi(2) / expected).sum();
    (chi2, listed.len() - 1)
}

/// The chi-square value a uniform pick exceeds with probability 1 in
/// 10,000 (Wilson and Hilferty's approximation, good to a few per cent
/// from 10 degrees of freedom).
fn chi_square_bound(df: usize) -> f64 {
    let (k, z) = (df as f64, 3.719);
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

fn check_uniform<P: Position>(rules: P::Rules, plies: &[u32], seed: u64) -> usize {
    let mut checked = 0;
    let mut rng = Rng::new(seed);
    for &n in plies {
        let mut pos = P::start(rules);
        for _ in 0..n {
            match pos.random_move(&mut rng) {
                Some(mv) if pos.status() == Status::Ongoing => pos.play_unchecked(mv),
                _ => break,
            }
        }
        let (chi2, df) = chi_square(&pos, &mut rng, 200);
        if df < 10 {
            continue;
        }
        let bound = chi_square_bound(df);
        assert!(
            chi2 < bound,
            "{} {rules}: `{}`: chi-square {chi2:.1} over {df} df, bound {bound:.1}",
            P::KIND,
            pos.fen()
        );
        checked += 1;
    }
    checked
}

/// The picks are uniform over the listed moves, not only spread over them:
/// 200 picks per move in positions of every rule set, and Pearson's
/// chi-square below the bound a uniform pick stays under with probability
/// 0.9999 (the seeds are fixed, so the test is deterministic; a biased
/// pick, such as one that first picks a piece and then one of its moves,
/// fails it by far).
#[test]
fn random_moves_are_uniform_by_a_chi_square_test() {
    let plies = [0, 9, 30, 75];
    let mut checked = 0;
    for name in ["seed", "meyer1908", "ludii"] {
        let rules = <SaltaPosition as Position>::Rules::preset(name).unwrap();
        checked += check_uniform::<SaltaPosition>(rules, &plies, 0x5A17A);
    }
    for name in ["seed", "sackson"] {
        let rules = <FocusPosition as Position>::Rules::preset(name).unwrap();
        checked += check_uniform::<FocusPosition>(rules, &plies, 0xF0C05);
    }
    assert!(checked >= 12, "only {checked} positions with 10 or more moves");
}
