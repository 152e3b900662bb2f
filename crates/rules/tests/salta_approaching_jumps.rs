//! `SaltaPosition::generate_approaching_jumps` (what the engine's quiescence
//! search resolves) against its definition, in every Salta rule set, over
//! random games: exactly the legal jumps without a call after which the
//! jumping piece is closer to its target than before, in the order
//! `generate` lists them.

use monte_rules::Rng;
use monte_rules::salta::geometry::distance;
use monte_rules::salta::{SaltaMove, SaltaPosition};
use monte_rules::{MoveList, Position, RuleSet, Status};

#[test]
fn approaching_jumps_are_the_jumps_towards_the_target() {
    for &name in <SaltaPosition as Position>::Rules::preset_names() {
        let rules = <SaltaPosition as Position>::Rules::preset(name).unwrap();
        let (mut positions, mut with_jumps, mut under_call, mut most) = (0u64, 0u64, 0u64, 0usize);
        for game in 0..20 {
            let mut rng = Rng::new(0x5A17 + game);
            let mut pos = SaltaPosition::start(rules);
            while pos.status() == Status::Ongoing && pos.ply() < 400 {
                let ctx = format!("salta {name}: `{}`", pos.fen());
                let mut legal = MoveList::new();
                pos.generate(&mut legal);
                let expected: Vec<SaltaMove> = legal
                    .iter()
                    .copied()
                    .filter(|m| {
                        !m.call && m.is_jump() && {
                            let target = pos.target_of_square(m.from).expect("a move starts on a piece");
                            distance(m.to, target) < distance(m.from, target)
                        }
                    })
                    .collect();
                let mut jumps = MoveList::new();
                pos.generate_approaching_jumps(&mut jumps);
                assert_eq!(jumps.as_slice(), expected.as_slice(), "{ctx}: generate_approaching_jumps");
                positions += 1;
                with_jumps += !jumps.is_empty() as u64;
                under_call += (pos.pending_call().is_some() && !jumps.is_empty()) as u64;
                most = most.max(jumps.len());
                let Some(mv) = pos.random_move(&mut rng) else { break };
                pos.play_unchecked(mv);
            }
        }
        // The games must reach positions with several such jumps, some of
        // them replies to a call where the rules have calls.
        assert!(
            positions > 1000 && with_jumps > positions / 20 && most >= 3 && (under_call > 0 || !rules.calls),
            "salta {name}: {positions} positions, {with_jumps} with approaching jumps ({under_call} under a call), at most {most}"
        );
    }
}
