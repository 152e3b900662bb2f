//! `FocusPosition::generate_captures` (what the engine's quiescence search
//! resolves) against its definition, in both Focus rule sets, over random
//! games: exactly the legal moves other than drops after which the opponent
//! controls fewer of the stacks he controlled (one jumped, swept, or merged
//! onto), in the order `generate` lists them.

use monte_rules::Rng;
use monte_rules::focus::{FocusMove, FocusPosition, MoveKind};
use monte_rules::{MoveList, Position, RuleSet, Status};

#[test]
fn captures_are_the_moves_that_take_opponent_stacks() {
    for name in ["seed", "sackson"] {
        let rules = <FocusPosition as Position>::Rules::preset(name).unwrap();
        let (mut positions, mut with_captures, mut most) = (0u64, 0u64, 0usize);
        for game in 0..20 {
            let mut rng = Rng::new(0xCA97 + game);
            let mut pos = FocusPosition::start(rules);
            while pos.status() == Status::Ongoing && pos.ply() < 300 {
                let ctx = format!("focus {name}: `{}`", pos.fen());
                let mut legal = MoveList::new();
                pos.generate(&mut legal);
                let theirs = pos.controlled(!pos.side_to_move());
                let expected: Vec<FocusMove> = legal
                    .iter()
                    .copied()
                    .filter(|&m| {
                        let mut after = pos.clone();
                        after.play_unchecked(m);
                        m.kind != MoveKind::Drop && theirs & !after.controlled(!pos.side_to_move()) != 0
                    })
                    .collect();
                let mut captures = MoveList::new();
                pos.generate_captures(&mut captures);
                assert_eq!(captures.as_slice(), expected.as_slice(), "{ctx}: generate_captures");
                positions += 1;
                with_captures += !captures.is_empty() as u64;
                most = most.max(captures.len());
                let Some(mv) = pos.random_move(&mut rng) else { break };
                pos.play_unchecked(mv);
            }
        }
        // The games must reach positions where there is something to take.
        assert!(
            positions > 1000 && with_captures > positions / 10 && most >= 3,
            "focus {name}: {positions} positions, {with_captures} with captures, at most {most}"
        );
    }
}
