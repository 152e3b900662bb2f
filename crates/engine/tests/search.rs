//! Search behaviour that does not depend on timing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use monte_engine::{Limits, Score, SearchOptions, Searcher};
use monte_rules::focus::{FocusPosition, FocusRules};
use monte_rules::salta::{SaltaPosition, SaltaRules};
use monte_rules::{Position, Side};

fn search<P: monte_engine::EngineGame>(pos: &P, limits: Limits) -> monte_engine::SearchResult<P::Move>
where
    P::Rules: monte_rules::game::RepetitionRule,
{
    let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, ..Default::default() });
    s.search(pos, &[], &limits, &AtomicBool::new(false), &mut |_| {})
}

#[test]
fn fixed_depth_and_fixed_nodes_searches_are_deterministic() {
    let salta = SaltaPosition::start(SaltaRules::seed());
    let focus = FocusPosition::start(FocusRules::seed());
    for limits in [Limits::depth(6), Limits::nodes(50_000)] {
        let a = search(&salta, limits);
        let b = search(&salta, limits);
        assert_eq!((a.best, a.nodes, a.score), (b.best, b.nodes, b.score));
        let a = search(&focus, limits);
        let b = search(&focus, limits);
        assert_eq!((a.best, a.nodes, a.score), (b.best, b.nodes, b.score));
    }
    assert_eq!(search(&salta, Limits::nodes(50_000)).nodes, 50_000);
}

#[test]
fn finds_the_winning_move() {
    // White needs d6:f8 (the last sun home) and wins at once.
    let fen = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,o1,.,./.,O3,.,.,./.,.,.,.,./.,.,.,.,./o3,o4,o5,o2,./m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0";
    let pos = SaltaPosition::from_fen(SaltaRules::seed(), fen).unwrap();
    let r = search(&pos, Limits::depth(3));
    assert_eq!(pos.format_move(r.best.unwrap()), "d6:f8");
    assert_eq!(r.score, Score::WinIn(1));
}

#[test]
fn stop_ends_an_infinite_search_promptly() {
    let pos = FocusPosition::start(FocusRules::seed());
    let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 2, ..Default::default() });
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Ordering::Relaxed);
        });
        let r = s.search(&pos, &[], &Limits::default(), &stop, &mut |_| {});
        assert!(r.best.is_some());
    });
    // Generous bound: the point is that an unbounded search returns at all.
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn null_move_pruning_cuts_the_tree_and_keeps_wins() {
    let searcher = |null_move| Searcher::new(SearchOptions { hash_mb: 8, threads: 1, null_move, ..Default::default() });
    let run = |s: &Searcher, pos: &SaltaPosition, limits: Limits| {
        s.search(pos, &[], &limits, &AtomicBool::new(false), &mut |_| {})
    };
    let fen = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,o1,.,./.,O3,.,.,./.,.,.,.,./.,.,.,.,./o3,o4,o5,o2,./m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0";
    let won = SaltaPosition::from_fen(SaltaRules::seed(), fen).unwrap();
    for null_move in [true, false] {
        let r = run(&searcher(null_move), &won, Limits::depth(5));
        assert_eq!(won.format_move(r.best.unwrap()), "d6:f8", "null move {null_move}");
        assert_eq!(r.score, Score::WinIn(1), "null move {null_move}");
    }
    // The same depth with fewer nodes: the pruning is on by default.
    let start = SaltaPosition::start(SaltaRules::seed());
    let with = run(&searcher(true), &start, Limits::depth(6)).nodes;
    let without = run(&searcher(false), &start, Limits::depth(6)).nodes;
    assert!(with < without, "with null move {with} nodes, without {without}");
    let focus = FocusPosition::start(FocusRules::seed());
    let s = |null_move| Searcher::new(SearchOptions { hash_mb: 8, threads: 1, null_move, ..Default::default() });
    let with = s(true).search(&focus, &[], &Limits::depth(5), &AtomicBool::new(false), &mut |_| {}).nodes;
    let without = s(false).search(&focus, &[], &Limits::depth(5), &AtomicBool::new(false), &mut |_| {}).nodes;
    assert!(with < without, "Focus: with null move {with} nodes, without {without}");
}

#[test]
fn where_the_count_decides_futility_and_lookahead_cut_the_tree() {
    use monte_rules::salta::LimitResult;
    let searcher = |futility, lookahead| {
        Searcher::new(SearchOptions { hash_mb: 8, threads: 1, futility, lookahead, ..Default::default() })
    };
    let nodes = |s: Searcher, pos: &SaltaPosition| {
        let r = s.search(pos, &[], &Limits::depth(6), &AtomicBool::new(false), &mut |_| {});
        assert!(r.best.is_some());
        r.nodes
    };
    // Two positions of the melee (from the search bench), under a limit
    // of 120 moves scored by the count: it decides from here.
    let rules = SaltaRules { move_limit: Some(120), limit_result: LimitResult::Scored, ..SaltaRules::seed() };
    let melee = [
        "s5,s4,m3,s2,s1/m5,.,.,.,m1/m4,M3,M1,.,o1/o5,O1,.,.,o2/o4,.,.,.,O5/.,.,.,s3,./.,.,m2,O4,O2/.,.,O3,o3,./.,M2,.,M4,M5/S1,S2,S3,S4,S5 w - 80",
        "m5,.,.,s4,s1/.,.,s3,m2,s2/m4,.,O5,O3,o1/.,S2,o5,m1,O2/.,M1,o4,.,./.,.,.,O4,o3/s5,M2,M4,M3,./.,S1,.,S3,M5/m3,O1,.,S5,./.,.,o2,S4,. w - 150",
    ]
    .map(|fen| SaltaPosition::from_fen(rules, fen).unwrap());
    let total = |futility, lookahead| melee.iter().map(|pos| nodes(searcher(futility, lookahead), pos)).sum::<u64>();
    let both = total(true, true);
    let no_futility = total(false, true);
    let no_lookahead = total(true, false);
    assert!(both < no_futility, "with futility {both} nodes, without {no_futility}");
    assert!(both < no_lookahead, "with the look ahead {both} nodes, without {no_lookahead}");
    // Elsewhere, and with `classic`, neither is used: the same tree.
    let start = SaltaPosition::start(SaltaRules::seed());
    assert_eq!(nodes(searcher(true, true), &start), nodes(searcher(false, false), &start));
    let classic = |futility, lookahead| {
        Searcher::new(SearchOptions {
            hash_mb: 8,
            threads: 1,
            futility,
            lookahead,
            classic: true,
            ..Default::default()
        })
    };
    assert_eq!(nodes(classic(true, true), &melee[0]), nodes(classic(false, false), &melee[0]));
}

#[test]
fn quiet_leaves_follow_the_quiescence_search() {
    let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, ..Default::default() });
    // The start is quiet (no jumps); in the second position White's jump
    // d6:f8 wins at once, and the quiescence search plays it.
    let start = SaltaPosition::start(SaltaRules::seed());
    let fen = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,o1,.,./.,O3,.,.,./.,.,.,.,./.,.,.,.,./o3,o4,o5,o2,./m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0";
    let won = SaltaPosition::from_fen(SaltaRules::seed(), fen).unwrap();
    let leaves = s.quiet_leaves(&[start.clone(), won.clone()]);
    assert_eq!(leaves[0], start);
    let mut after = won.clone();
    after.play_unchecked(won.parse_move("d6:f8").unwrap());
    assert_eq!(leaves[1], after);
    assert!(s.quiet_leaves::<SaltaPosition>(&[]).is_empty());
}

#[test]
fn contempt_plays_on_instead_of_repeating() {
    // From a game between levels 8 and 7: a cycle of calls, and White's
    // j6-i5+ would repeat the position a third time (a draw). Without
    // contempt the search is content with the draw; with it, White plays
    // on, and the draw it avoids is worth −contempt to it. (Searched with
    // the evaluation of that game, `classic`.)
    let mut pos = SaltaPosition::start(SaltaRules::seed());
    let mut history = Vec::new();
    for text in "a3-b4 d8-c7 b4-a5 c7-d8 a5-b6 j8-i7 g3-h4 i7-h6 h4-i5+ h6:j4 i5-h4 j4-i5+ h4:j6 i5-h6 \
                 j6-i5+ h6:j4 i5-h4 j4-i5+ h4:j6 i5-h6"
        .split_whitespace()
    {
        history.push(pos.hash());
        let mv = pos.parse_move(text).unwrap();
        pos.play(mv).unwrap();
    }
    let run = |contempt| {
        let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, contempt, classic: true, ..Default::default() });
        let r = s.search(&pos, &history, &Limits::depth(6), &AtomicBool::new(false), &mut |_| {});
        (pos.format_move(r.best.unwrap()), r.score)
    };
    let (without, without_score) = run(0);
    let (with, with_score) = run(100);
    assert_eq!((without.as_str(), without_score), ("j6-i5+", Score::Units(0)));
    assert_ne!(with, "j6-i5+", "{with_score:?}");
    assert!(matches!(with_score, Score::Units(u) if u > -100), "{with} {with_score:?}");
    // Any contempt a caller passes is cut to ±MAX_CONTEMPT: a draw never
    // scores like a win, and nothing overflows.
    for extreme in [i32::MIN, i32::MAX] {
        assert!(matches!(run(extreme).1, Score::Units(u) if u.abs() <= monte_engine::MAX_CONTEMPT + 1000));
    }
}

#[test]
fn a_jump_cycle_is_left_where_repetition_is_no_draw() {
    // From a `ludii` game of level 8 against level 1 (jumps compulsory,
    // chains forced, no repetition rule): White's i3:g5:i7 and i7:g5:i3
    // went back and forth, each answered by Black's only move, b6:d4:f6
    // and f6:d4:b6, for 20 moves. White had three other jumps each time.
    // Scored as the move limit would end the cycle (a draw under `ludii`,
    // which costs a side not behind its contempt), the cycle is left.
    let rules: SaltaRules = "ludii".parse().unwrap();
    let fen = "s5,s4,s3,s2,s1/.,.,m3,m2,m1/m5,m4,.,.,o1/.,o4,.,.,./o5,.,.,o3,./.,O1,O2,.,./.,.,.,o2,./\
               .,.,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 46";
    let mut pos = SaltaPosition::from_fen(rules, fen).unwrap();
    let mut history = Vec::new();
    for text in ["i3:g5:i7", "b6:d4:f6"] {
        history.push(pos.hash());
        pos.play(pos.parse_move(text).unwrap()).unwrap();
    }
    let back = pos.parse_move("i7:g5:i3").unwrap();
    let mut after = pos.clone();
    after.play(back).unwrap();
    let mut answers = monte_rules::MoveList::new();
    after.generate(&mut answers);
    assert_eq!(answers.len(), 1, "Black's answer is forced");
    after.play(answers[0]).unwrap();
    assert_eq!(after.hash(), history[0], "the cycle comes back to the position of ply 46");
    let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, ..Default::default() });
    let r = s.search(&pos, &history, &Limits::nodes(20_000), &AtomicBool::new(false), &mut |_| {});
    assert_ne!(r.best, Some(back), "{:?}", r.score);
}

/// The position of ply 269 of a game of level 8 at 150,000 nodes against
/// level 8 at 30,000 (seed 4, game 6), and the hashes of the positions
/// before it.
fn step_back() -> (SaltaPosition, Vec<u64>) {
    let mut pos = SaltaPosition::start(SaltaRules::seed());
    let mut history = Vec::new();
    for text in include_str!("data/salta-step-back.moves").split_whitespace() {
        history.push(pos.hash());
        pos.play(pos.parse_move(text).unwrap()).unwrap();
    }
    (pos, history)
}

#[test]
fn a_cycle_the_opponent_could_close_does_not_scare_the_plan_away() {
    // From a game of level 8 at 150,000 nodes against level 8 at 30,000
    // (seed 4, game 6): 269 plies in, Black (one step behind) planned
    // a1-b2, the step back of its b2-a1 two plies before. After it White
    // could step e7-d8 back and bring the position of ply 266 round
    // again. Charged to Black as its own draw (thirty steps), that threat
    // drove the search off the plan at every depth from 2, onto moves
    // that lost ground. The side that closes a cycle pays for it: White
    // here, who is ahead and has no reason to.
    let (pos, history) = step_back();
    assert_eq!(pos.format_move(monte_engine::EngineGame::planned_move(&pos).unwrap()), "a1-b2");
    let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, ..Default::default() });
    for depth in [3, 5] {
        let r = s.search(&pos, &history, &Limits::depth(depth), &AtomicBool::new(false), &mut |_| {});
        assert_eq!(pos.format_move(r.best.unwrap()), "a1-b2", "depth {depth}: {:?}", r.score);
        assert!(matches!(r.score, Score::Units(u) if u > -1000), "depth {depth}: {:?}", r.score);
    }
}

#[test]
fn a_search_on_the_opponents_behalf_leaves_out_the_movers_plan() {
    // A weakened level scores each of its moves by searching the position
    // after it on its own behalf, the opponent to move. The opponent's
    // plan (a1-b2 here) must not be worth its margin of ten steps there:
    // the score is what the opponent's best reply is worth.
    let (pos, history) = step_back();
    let plan = monte_engine::EngineGame::planned_move(&pos);
    assert!(plan.is_some());
    let searcher = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, ..Default::default() });
    let on_behalf_of =
        |player| searcher.search_for(player, &pos, &history, &Limits::depth(3), &AtomicBool::new(false), &mut |_| {});
    let own = on_behalf_of(pos.side_to_move());
    let opponents = on_behalf_of(!pos.side_to_move());
    assert_eq!(own.plan, plan);
    assert_eq!(opponents.plan, None);
}

#[test]
fn analysis_finds_the_best_moves_in_order() {
    // Salta and Focus from the start: three lines with three different
    // legal first moves, best first, every depth reported with all three.
    let salta = SaltaPosition::start(SaltaRules::seed());
    let focus = FocusPosition::start(FocusRules::seed());
    fn check<P: monte_engine::EngineGame>(pos: &P, depth: u32)
    where
        P::Rules: monte_rules::game::RepetitionRule,
    {
        let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, contempt: 0, ..Default::default() });
        let mut depths = Vec::new();
        let lines = s.analyse(pos, &[], &Limits::depth(depth), 3, &AtomicBool::new(false), &mut |info| {
            assert_eq!(info.lines.len(), 3, "depth {}", info.depth);
            assert_eq!(info.lines[0].pv, info.pv);
            depths.push(info.depth);
        });
        assert_eq!(depths, (1..=depth).collect::<Vec<_>>());
        assert_eq!(lines.len(), 3);
        let firsts: Vec<_> = lines.iter().map(|(_, line)| line[0]).collect();
        assert!(firsts.iter().all(|&m| pos.is_legal(m)));
        assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
        let units = |score: &Score| match score {
            Score::Units(u) => *u,
            other => panic!("{other}"),
        };
        assert!(units(&lines[0].0) >= units(&lines[1].0) && units(&lines[1].0) >= units(&lines[2].0), "{lines:?}");
    }
    check(&salta, 5);
    check(&focus, 4);
}

#[test]
fn analysis_of_one_line_is_the_search_without_its_plan() {
    // Focus has no plans and no solved races: one line is the search's.
    let focus = FocusPosition::start(FocusRules::seed());
    let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, ..Default::default() });
    let lines = s.analyse(&focus, &[], &Limits::depth(5), 1, &AtomicBool::new(false), &mut |_| {});
    let r = search(&focus, Limits::depth(5));
    assert_eq!(lines, vec![(r.score, r.pv)]);
}

#[test]
fn analysis_shows_as_many_lines_as_there_are_moves() {
    // A pending call: White's only moves are g5:e7 and g5:e7+.
    let fen = "s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,.,o3,o2,o1/.,.,.,.,./.,.,o4,.,./.,.,.,O3,./.,.,.,.,./O1,O2,.,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w f6 4";
    let pos = SaltaPosition::from_fen(SaltaRules::seed(), fen).unwrap();
    let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, ..Default::default() });
    let lines = s.analyse(&pos, &[], &Limits::depth(4), 3, &AtomicBool::new(false), &mut |_| {});
    let mut firsts: Vec<String> = lines.iter().map(|(_, line)| pos.format_move(line[0])).collect();
    firsts.sort();
    assert_eq!(firsts, ["g5:e7", "g5:e7+"]);
    // A won position: the win first.
    let fen = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,o1,.,./.,O3,.,.,./.,.,.,.,./.,.,.,.,./o3,o4,o5,o2,./m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0";
    let pos = SaltaPosition::from_fen(SaltaRules::seed(), fen).unwrap();
    let lines = s.analyse(&pos, &[], &Limits::depth(3), 3, &AtomicBool::new(false), &mut |_| {});
    assert_eq!((pos.format_move(lines[0].1[0]), lines[0].0), ("d6:f8".to_string(), Score::WinIn(1)));
    assert_eq!(lines.len(), 3);
}

#[test]
fn an_opponent_that_shuffles_is_not_given_the_draw() {
    // From a game of level 8 at 30,000 nodes (White) against the runner
    // (seed 3, game 5): 150 plies in, the two armies locked in the
    // middle, White 52 steps from home and Black 53. The runner, blocked,
    // had stepped f2-g1 and g1-f2 and d2-e1 and e1-d2 to and fro; White,
    // taking a cycle Black closes for the usual contempt as from a player
    // that plays on, stepped h8-i9, and Black's g1-f2 drew by threefold
    // repetition. A player that has lately repeated is expected to close
    // the cycle: no move of White's may leave Black a reply that repeats
    // a position for the third time.
    let mut pos = SaltaPosition::start(SaltaRules::seed());
    let mut history = Vec::new();
    for text in include_str!("data/salta-runner-shuffle.moves").split_whitespace() {
        history.push(pos.hash());
        pos.play(pos.parse_move(text).unwrap()).unwrap();
    }
    assert_eq!((pos.distance(Side::White), pos.distance(Side::Black)), (52, 53));
    let seen = |h: u64| history.iter().filter(|&&x| x == h).count() + usize::from(h == pos.hash());
    let old = pos.parse_move("h8-i9").unwrap();
    let mut after_old = pos.clone();
    after_old.play(old).unwrap();
    let closes = |after: &SaltaPosition| {
        after.legal_moves().iter().any(|&reply| {
            let mut p = after.clone();
            p.play(reply).unwrap();
            seen(p.hash()) >= 2
        })
    };
    assert!(closes(&after_old), "the game's h8-i9 let Black repeat for the third time");
    let s = Searcher::new(SearchOptions { hash_mb: 8, threads: 1, ..Default::default() });
    let r = s.search(&pos, &history, &Limits::nodes(30_000), &AtomicBool::new(false), &mut |_| {});
    let best = r.best.unwrap();
    let mut after = pos.clone();
    after.play(best).unwrap();
    assert!(!closes(&after), "{} lets Black repeat for the third time ({:?})", pos.format_move(best), r.score);
}
