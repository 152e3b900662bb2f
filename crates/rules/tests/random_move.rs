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
