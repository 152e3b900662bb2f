//! The historical rule sets: Salta `meyer1908` and `ludii`, Focus `sackson`
//! (rulings.md). One test per rule, named after it.

use monte_rules::focus::{FocusPosition, FocusRules};
use monte_rules::salta::{SaltaPosition, SaltaRules};
use monte_rules::{EndReason, Game, Position, RuleSet, Side, Status};

fn salta(rules: &str, fen: &str) -> SaltaPosition {
    SaltaPosition::from_fen(rules.parse().expect("rules"), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn focus(rules: &str, fen: &str) -> FocusPosition {
    FocusPosition::from_fen(rules.parse().expect("rules"), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn move_texts<P: Position>(pos: &P) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().iter().map(|&m| pos.format_move(m)).collect();
    v.sort();
    v
}

fn play<P: Position>(pos: &mut P, text: &str) {
    let mv = pos.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    pos.play(mv).unwrap_or_else(|e| panic!("{text}: {e}"));
}

/// Start position with Black's sun 1 moved to f4, in front of White's suns.
const SUN_ON_F4: &str = "s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,o3,o2,./.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,o1,.,./O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 0";

#[test]
fn meyer1908_jumps_are_compulsory_forward_and_single() {
    let pos = salta("meyer1908", SUN_ON_F4);
    assert_eq!(move_texts(&pos), ["e3:g5", "g3:e5"]);
    // In seed the same position has steps too, and no jump is compulsory.
    assert!(move_texts(&salta("seed", SUN_ON_F4)).contains(&"a3-b4".to_string()));
    // Backward jump: White's moon on d6 over Black's sun on c5 to b4 is a
    // jump in seed but not in meyer1908.
    let fen = "s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,o3,.,o1/.,.,.,.,./.,M1,.,.,./.,o2,.,.,./.,.,.,.,./O1,O2,O3,O4,O5/.,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 0";
    assert!(salta("seed", fen).parse_move("d6:b4").is_ok());
    let err = salta("meyer1908", fen).parse_move("d6:b4").unwrap_err().to_string();
    assert!(err.contains("forward only"), "{err}");
}

#[test]
fn meyer1908_has_no_calls() {
    let pos = salta("meyer1908", monte_rules::salta::START_FEN);
    let err = pos.parse_move("c3-d4+").unwrap_err().to_string();
    assert!(err.contains("no Salta calls"), "{err}");
    assert!(pos.legal_moves().iter().all(|m| !m.call));
    let with_call = monte_rules::salta::START_FEN.replace(" w - 0", " w c3 0");
    assert!(SaltaPosition::from_fen(SaltaRules::meyer1908(), &with_call).is_err());
}

/// Black's 15 pieces fill ranks 1-3 (not in goal order), White holds b4, d4,
/// f4 and h4: Black's only moves are into j4. White's i5-j4 would leave
/// Black without a move.
const BLOCKADE: &str = "O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,S5/S1,S2,S3,S4,./s1,s2,s3,s4,s5/m1,m2,m3,m4,m5/o1,o2,o3,o4,o5 w - 0";

#[test]
fn meyer1908_blockade_ban() {
    let pos = salta("meyer1908", BLOCKADE);
    let moves = move_texts(&pos);
    assert!(!moves.contains(&"i5-j4".to_string()), "{moves:?}");
    assert!(moves.contains(&"i5-h6".to_string()));
    let err = pos.parse_move("i5-j4").unwrap_err().to_string();
    assert!(err.contains("blockade"), "{err}");
    // Without the ban (the same forward jumps, no ban) the move is legal,
    // and Black is left to pass.
    let mut unbanned = salta("seed,jumps=forward", BLOCKADE);
    play(&mut unbanned, "i5-j4");
    assert_eq!(move_texts(&unbanned), ["pass"]);
}

#[test]
fn meyer1908_blockade_ban_applies_to_black_too() {
    // The same blockade with colours and board turned round.
    let fen = "O5,O4,O3,O2,O1/M5,M4,M3,M2,M1/S5,S4,S3,S2,S1/.,s4,s3,s2,s1/s5,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./m5,m4,m3,m2,m1/o5,o4,o3,o2,o1 b - 1";
    let pos = salta("meyer1908", fen);
    let moves = move_texts(&pos);
    assert!(!moves.contains(&"b6-a7".to_string()), "{moves:?}");
    assert!(moves.contains(&"b6-c5".to_string()), "{moves:?}");
}

/// White needs a7-b8, Black j4-i3, to complete the seven-ranks goal.
const BOTH_ONE_STEP_AWAY: &str = "O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/.,S2,S3,S4,S5/S1,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,s1/s5,s4,s3,s2,./m5,m4,m3,m2,m1/o5,o4,o3,o2,o1 w - 100";

#[test]
fn meyer1908_goal_is_seven_ranks_forward_in_order() {
    use monte_rules::salta::geometry::{coords, square_name};
    use monte_rules::salta::{Kind, Piece};
    let pos = SaltaPosition::start(SaltaRules::meyer1908());
    let target = |side, kind, number| square_name(pos.target(Piece { side, kind, number }));
    assert_eq!(target(Side::White, Kind::Star, 1), "b8");
    assert_eq!(target(Side::White, Kind::Star, 5), "j8");
    assert_eq!(target(Side::White, Kind::Moon, 1), "a9");
    assert_eq!(target(Side::White, Kind::Sun, 1), "b10");
    assert_eq!(target(Side::Black, Kind::Star, 1), "i3");
    assert_eq!(target(Side::Black, Kind::Moon, 1), "j2");
    assert_eq!(target(Side::Black, Kind::Sun, 1), "i1");
    // Every piece's target is seven ranks in front of its start square.
    for side in Side::BOTH {
        for kind in Kind::ALL {
            for number in 1..=5 {
                let p = Piece { side, kind, number };
                let (_, y0) = coords(p.start_square());
                let (_, y1) = coords(pos.target(p));
                assert_eq!((y1 - y0).abs(), 7, "{p:?}");
            }
        }
    }
}

#[test]
fn meyer1908_equalising_move_draws() {
    let mut pos = salta("meyer1908", BOTH_ONE_STEP_AWAY);
    play(&mut pos, "a7-b8");
    assert!(pos.completed(Side::White));
    assert_eq!(pos.status(), Status::Ongoing, "Black has the equalising move");
    play(&mut pos, "j4-i3");
    let o = pos.status().outcome().expect("over");
    assert_eq!((o.winner, o.reason, o.margin), (None, EndReason::Goal, None));
    assert!(pos.legal_moves().is_empty());
}

#[test]
fn meyer1908_equalising_move_that_fails_loses() {
    let mut pos = salta("meyer1908", BOTH_ONE_STEP_AWAY);
    play(&mut pos, "a7-b8");
    play(&mut pos, "j4-i5");
    let o = pos.status().outcome().expect("over");
    assert_eq!(o.winner, Some(Side::White));
    // Black's s1 on i5 is two steps from i3.
    assert_eq!(o.margin, Some(2));
}

#[test]
fn meyer1908_black_completing_first_wins_at_once() {
    let fen = BOTH_ONE_STEP_AWAY.replace(" w - 100", " b - 101");
    let mut pos = salta("meyer1908", &fen);
    play(&mut pos, "j4-i3");
    let o = pos.status().outcome().expect("over");
    assert_eq!((o.winner, o.margin), (Some(Side::Black), Some(1)));
    // Black complete and Black to move cannot arise.
    let after = pos.fen().replace(" w - 102", " b - 103");
    let err = SaltaPosition::from_fen(SaltaRules::meyer1908(), &after).unwrap_err().to_string();
    assert!(err.contains("Black is to move but has already completed"), "{err}");
}

#[test]
fn meyer1908_move_limit_120_scores_by_distance_with_margin() {
    assert_eq!(SaltaRules::meyer1908().move_limit(), Some(120));
    let fen = monte_rules::salta::START_FEN.replace(" w - 0", " b - 239");
    let mut pos = salta("meyer1908", &fen);
    // White has 15 * 7 = 105 steps to go; Black steps forward to 104.
    assert_eq!(pos.distance(Side::White), 105);
    play(&mut pos, "b8-a7");
    let o = pos.status().outcome().expect("the 120th move of each side ends the game");
    assert_eq!((o.winner, o.reason, o.margin), (Some(Side::Black), EndReason::MoveLimit, Some(1)));
}

#[test]
fn meyer1908_has_no_repetition_draw() {
    let mut game = Game::new(SaltaPosition::start(SaltaRules::meyer1908()));
    for _ in 0..3 {
        for m in ["a3-b4", "j8-i7", "b4-a3", "i7-j8"] {
            game.play_text(m).expect(m);
        }
    }
    assert_eq!(game.repetitions(), 4);
    assert_eq!(game.status(), Status::Ongoing);
}

#[test]
fn ludii_jumps_are_compulsory() {
    let pos = salta("ludii", SUN_ON_F4);
    assert_eq!(move_texts(&pos), ["e3:g5", "g3:e5"]);
}

#[test]
fn ludii_chain_must_go_on_while_the_piece_can_jump() {
    // Black on d4 and f6: c3 can jump to e5 and on to g7.
    let fen = "s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,o3,.,./.,.,.,.,./.,.,o2,.,./.,.,.,.,./.,o1,.,.,./O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 0";
    let pos = salta("ludii", fen);
    assert_eq!(move_texts(&pos), ["c3:e5:g7", "e3:c5"]);
    let err = pos.parse_move("c3:e5").unwrap_err().to_string();
    assert!(err.contains("must go on"), "{err}");
    // In seed the chain may stop on e5.
    let seed = salta("seed", fen);
    assert!(seed.parse_move("c3:e5").is_ok());
}

#[test]
fn ludii_goal_is_checked_after_the_whole_move() {
    // White's sun 3 jumps d6:f8 onto its target, completing the goal for a
    // moment, but can jump on over g7 to h6, so it must.
    let fen = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,o1,o2,./.,O3,.,.,./.,.,.,.,./.,.,.,.,./o3,o4,o5,.,./m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0";
    let pos = salta("ludii", fen);
    assert_eq!(move_texts(&pos), ["d6:f8:h6", "d8:f6", "h8:f6"]);
    // In seed, d6:f8 is a legal, winning move.
    let mut seed = salta("seed", fen);
    play(&mut seed, "d6:f8");
    assert_eq!(seed.status().outcome().map(|o| o.winner), Some(Some(Side::White)));
}

#[test]
fn ludii_draw_after_1250_moves_per_side() {
    let fen = monte_rules::salta::START_FEN.replace(" w - 0", " b - 2499");
    let mut pos = salta("ludii", &fen);
    assert_eq!(pos.status(), Status::Ongoing);
    play(&mut pos, "b8-a7");
    let o = pos.status().outcome().expect("over");
    assert_eq!((o.winner, o.reason), (None, EndReason::MoveLimit));
}

#[test]
fn ludii_has_no_calls() {
    let pos = salta("ludii", monte_rules::salta::START_FEN);
    let err = pos.parse_move("c3-d4+").unwrap_err().to_string();
    assert!(err.contains("no Salta calls"), "{err}");
}

#[test]
fn sackson_group_passes_over_anything_and_merges_on_target() {
    // White's bw on c3 moves two squares up, over Black's c4, onto White's c5.
    let fen = ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,w,.,.,.,.,./.,.,b,.,.,.,.,./.,.,bw,.,.,.,.,./.,.,.,.,.,./.,.,.,. w 0 0 0";
    let mut pos = focus("sackson", fen);
    play(&mut pos, "c3-c5");
    assert_eq!(
        pos.fen(),
        ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,wbw,.,.,.,.,./.,.,b,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. b 0 0 1"
    );
    // In seed the target must be empty.
    let err = focus("seed", fen).parse_move("c3-c5").unwrap_err().to_string();
    assert!(err.contains("c5 is occupied"), "{err}");
}

#[test]
fn sackson_merge_overflows_from_the_bottom() {
    // White's ww on c3 lands on c5's bwbw: six high, the bottom b is captured.
    let fen = ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,bwbw,.,.,.,.,./.,.,b,.,.,.,.,./.,.,ww,.,.,.,.,./.,.,.,.,.,./.,.,.,. w 0 0 0";
    let mut pos = focus("sackson", fen);
    assert_eq!(pos.captured(Side::Black), 15);
    play(&mut pos, "c3-c5");
    assert_eq!(pos.stack(monte_rules::focus::geometry::parse_square("c5").unwrap()).letters(), "wbwww");
    assert_eq!(pos.captured(Side::Black), 16);
    assert_eq!(pos.on_board(Side::Black), 2);
}

#[test]
fn sackson_has_no_jump() {
    let pos = FocusPosition::start(FocusRules::sackson());
    assert_eq!(pos.legal_moves().len(), 68);
    let err = pos.parse_move("d3xd1").unwrap_err().to_string();
    assert!(err.contains("no jumps"), "{err}");
}

#[test]
fn sackson_draw_goes_to_first_by_repetition() {
    let mut rules = FocusRules::sackson();
    rules.set_option("draw-goes-to-first", None).unwrap();
    let mut game = Game::new(FocusPosition::start(rules));
    let mut plain = Game::new(FocusPosition::start(FocusRules::sackson()));
    // White's c2 steps to c1 and back, Black's c7 to c8 and back: twice
    // round gives the start position a third time.
    for _ in 0..2 {
        for m in ["c2-c1", "c7-c8", "c1-c2", "c8-c7"] {
            game.play_text(m).expect(m);
            plain.play_text(m).expect(m);
        }
    }
    let o = game.status().outcome().expect("threefold repetition");
    assert_eq!((o.winner, o.reason), (Some(Side::White), EndReason::Repetition));
    let o = plain.status().outcome().expect("threefold repetition");
    assert_eq!((o.winner, o.reason), (None, EndReason::Repetition));
}

#[test]
fn sackson_draw_goes_to_first_at_the_move_limit() {
    let rules: FocusRules = "sackson,move-limit=1,draw-goes-to-first".parse().unwrap();
    let mut pos = FocusPosition::start(rules);
    play(&mut pos, "c2-c1");
    play(&mut pos, "c7-c8");
    let o = pos.status().outcome().expect("move limit");
    assert_eq!((o.winner, o.reason), (Some(Side::White), EndReason::MoveLimit));
}

#[test]
fn rule_sets_round_trip_through_their_text_form() {
    for name in SaltaRules::preset_names() {
        let r = SaltaRules::preset(name).unwrap();
        assert_eq!(r.to_string(), *name);
        assert_eq!(r.to_string().parse::<SaltaRules>().unwrap(), r);
    }
    for name in FocusRules::preset_names() {
        let r = FocusRules::preset(name).unwrap();
        assert_eq!(r.to_string().parse::<FocusRules>().unwrap(), r);
    }
    let r: SaltaRules = "seed,move-limit=120,chains=single,jumps=forward".parse().unwrap();
    assert_eq!(r.to_string(), "seed,jumps=forward,chains=single,move-limit=120");
    assert_eq!(r.to_string().parse::<SaltaRules>().unwrap(), r);
    // Options that do not fit together, whatever their order.
    for bad in [
        "seed,compulsory-jumps",
        "ludii,calls=on",
        "seed,chains=forced",
        "meyer1908,move-limit=none",
        "seed,repetition=off",
    ] {
        assert!(bad.parse::<SaltaRules>().is_err(), "{bad}");
    }
    // A move limit is 1 to 1,000,000 moves per side, or `none`.
    for (text, limit) in [("seed,move-limit=1", Some(1)), ("seed,move-limit=none", None)] {
        assert_eq!(text.parse::<SaltaRules>().unwrap().move_limit, limit, "{text}");
    }
    for bad in ["seed,move-limit=0", "seed,move-limit=1000001", "seed,move-limit=-3"] {
        let e = bad.parse::<SaltaRules>().unwrap_err().to_string();
        assert!(e.contains("1..1000000"), "{bad}: {e}");
        assert!(bad.parse::<FocusRules>().is_err(), "{bad}");
    }
    assert!("seed,calls=off,compulsory-jumps".parse::<SaltaRules>().is_ok());
    assert!("seed,compulsory-jumps,calls=off".parse::<SaltaRules>().is_ok());
    assert!("sackson,jumps=maybe".parse::<FocusRules>().unwrap_err().to_string().contains("expected on or off"));
}
