//! Actions and observation planes (`Encoding`) in every rule set: in many
//! random positions every legal move has its own action in range, which
//! stands for that move again; the actions that stand for a legal move
//! are exactly the legal moves'; and either side sees a position turned
//! half a turn, colours swapped, as the other sees the original.

use std::collections::HashSet;

use monte_rules::focus::FocusPosition;
use monte_rules::salta::SaltaPosition;
use monte_rules::toy::ToyPosition;
use monte_rules::{Encoding, Position, Rng, RuleSet, Side, Status};

/// Random games of `rules`: returns the positions checked and how many
/// of them had every action number checked.
fn check_rule_set<P: Encoding>(rules: P::Rules, games: u64) -> (usize, usize) {
    let (mut positions, mut full_checks) = (0, 0);
    let mut planes = vec![f32::NAN; P::OBSERVATION_LEN];
    for game in 0..games {
        let mut rng = Rng::new(0xAC7 + game);
        let mut pos = P::start(rules);
        for ply in 0..300 {
            if pos.status() != Status::Ongoing {
                break;
            }
            let ctx = format!("{} {rules}: `{}`", P::KIND, pos.fen());
            let legal = pos.legal_moves();
            let mut actions = HashSet::new();
            for &mv in &legal {
                let action = pos.action(mv);
                assert!(action < P::ACTIONS, "{ctx}: {mv:?} is action {action}, not below {}", P::ACTIONS);
                assert!(actions.insert(action), "{ctx}: two moves are action {action}");
                assert_eq!(pos.action_move(action), Some(mv), "{ctx}: action {action}");
            }
            if ply % 20 == 0 {
                full_checks += 1;
                for action in 0..P::ACTIONS + 3 {
                    let stands_for_legal = pos.action_move(action).is_some_and(|mv| pos.is_legal(mv));
                    assert_eq!(stands_for_legal, actions.contains(&action), "{ctx}: action {action}");
                }
            }
            planes.fill(f32::NAN);
            pos.observe(pos.side_to_move(), &mut planes);
            assert!(planes.iter().all(|v| (0.0..=1.0).contains(v)), "{ctx}: a plane value outside 0..1");
            positions += 1;
            let mv = pos.random_move(&mut rng).unwrap_or_else(|| panic!("{ctx}: no move"));
            pos.play_unchecked(mv);
        }
    }
    (positions, full_checks)
}

#[test]
fn every_legal_move_has_its_own_action_and_back() {
    for name in ["seed", "meyer1908", "ludii"] {
        let rules = <SaltaPosition as Position>::Rules::preset(name).unwrap();
        let (positions, full) = check_rule_set::<SaltaPosition>(rules, 4);
        assert!(positions > 800 && full > 40, "salta {name}: only {positions} positions, {full} full checks");
    }
    for name in ["seed", "sackson"] {
        let rules = <FocusPosition as Position>::Rules::preset(name).unwrap();
        let (positions, full) = check_rule_set::<FocusPosition>(rules, 6);
        assert!(positions > 300 && full > 15, "focus {name}: only {positions} positions, {full} full checks");
    }
    let (positions, _) = check_rule_set::<ToyPosition>(Default::default(), 20);
    assert!(positions > 50, "toy: only {positions} positions");
}

/// The observation of `fen` (under the default rules).
fn observe<P: Encoding>(fen: &str) -> Vec<f32> {
    let pos = P::from_fen(Default::default(), fen).unwrap();
    let mut planes = vec![0.0; P::OBSERVATION_LEN];
    pos.observe(pos.side_to_move(), &mut planes);
    planes
}

/// Whether two observations agree except on the turn plane, the
/// second-last.
fn same_but_the_turn<P: Encoding>(a: &[f32], b: &[f32]) -> bool {
    let [planes, ranks, files] = P::OBSERVATION_SHAPE;
    let turn = (planes - 2) * ranks * files..(planes - 1) * ranks * files;
    a.iter().zip(b).enumerate().all(|(i, (x, y))| turn.contains(&i) || x == y)
}

#[test]
fn either_side_sees_the_start_alike() {
    // The start positions turned half a turn, colours swapped, are
    // themselves: Black to move there sees what White sees.
    let white = observe::<SaltaPosition>(monte_rules::salta::START_FEN);
    let black = observe::<SaltaPosition>(&monte_rules::salta::START_FEN.replace(" w - 0", " b - 1"));
    assert_ne!(white, black);
    assert!(same_but_the_turn::<SaltaPosition>(&white, &black));
    let white = observe::<FocusPosition>(monte_rules::focus::START_FEN);
    let black = observe::<FocusPosition>(&monte_rules::focus::START_FEN.replace(" w 0 0 0", " b 0 0 1"));
    assert!(same_but_the_turn::<FocusPosition>(&white, &black));
    // Black, waiting, sees White's start as White does.
    let start = SaltaPosition::start(Default::default());
    let (mut by_white, mut by_black) =
        (vec![0.0; SaltaPosition::OBSERVATION_LEN], vec![1.0; SaltaPosition::OBSERVATION_LEN]);
    start.observe(Side::White, &mut by_white);
    start.observe(Side::Black, &mut by_black);
    assert_eq!(by_white, by_black);

    // And their moves, mirrored, are the same actions.
    assert_eq!(mirrored_legal_actions::<SaltaPosition>(monte_rules::salta::START_FEN, " w - 0", " b - 1"), 9);
    assert_eq!(mirrored_legal_actions::<FocusPosition>(monte_rules::focus::START_FEN, " w 0 0 0", " b 0 0 1"), 12);
}

/// The legal actions of the start `fen` and of the same board with Black
/// to move (`white_fields` replaced by `black_fields`) are the same;
/// returns how many there are.
fn mirrored_legal_actions<P: Encoding>(fen: &str, white_fields: &str, black_fields: &str) -> usize {
    let actions = |fen: &str| {
        let pos = P::from_fen(Default::default(), fen).unwrap();
        pos.legal_moves().iter().map(|&mv| pos.action(mv)).collect::<HashSet<usize>>()
    };
    let white = actions(fen);
    assert_eq!(white, actions(&fen.replace(white_fields, black_fields)));
    white.len()
}

#[test]
fn actions_are_numbered_as_documented() {
    // docs/python.md: Salta (from * 50 + to) * 2 + call, squares a1 = 0,
    // c1 = 1, ..., c3 = 11, d4 = 16; the pass 5000.
    let salta = SaltaPosition::start(Default::default());
    assert_eq!(SaltaPosition::ACTIONS, 5001);
    assert_eq!(salta.action(salta.parse_move("c3-d4").unwrap()), (11 * 50 + 16) * 2);
    assert_eq!(salta.action(SaltaPosition::pass_move()), 5000);
    assert_eq!(salta.format_move(salta.action_move((11 * 50 + 16) * 2 + 1).unwrap()), "c3-d4+");
    assert_eq!(salta.action_move(5001), None);
    assert_eq!(salta.action_move(0), None, "a1 to a1 is no move");
    // Black sees the board turned: its h8-g7 is White's c3-d4.
    let black = SaltaPosition::from_fen(Default::default(), &monte_rules::salta::START_FEN.replace(" w - 0", " b - 1"))
        .unwrap();
    assert_eq!(black.action(black.parse_move("h8-g7").unwrap()), (11 * 50 + 16) * 2);

    // Focus: group moves (from * 4 + direction) * 5 + count - 1 with
    // squares c1 = 0, d1 = 1, ..., b2 = 4, ..., a3 = 10, b3 = 11 and
    // directions north, south, east, west; jumps 1040 + from * 4 +
    // direction; drops 1248 + to; the pass 1300.
    let focus = FocusPosition::start(Default::default());
    assert_eq!(FocusPosition::ACTIONS, 1301);
    let b3 = 11;
    assert_eq!(focus.format_move(focus.action_move((b3 * 4 + 3) * 5).unwrap()), "b3-a3");
    assert_eq!(focus.format_move(focus.action_move((b3 * 4) * 5 + 2).unwrap()), "b3-b6");
    assert_eq!(focus.action_move((b3 * 4 + 3) * 5 + 1), None, "two squares west of b3 is off the board");
    assert_eq!(focus.format_move(focus.action_move(1040 + b3 * 4 + 2).unwrap()), "b3xd3");
    assert_eq!(focus.format_move(focus.action_move(1248 + 51).unwrap()), "@f8");
    assert_eq!(focus.action_move(1300), Some(FocusPosition::pass_move()));
    assert_eq!(focus.action_move(1301), None);
}
