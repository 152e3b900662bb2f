//! `monte bench`: perft over fixed positions of both games.

use std::time::Instant;

use anyhow::Result;
use monte_rules::Position;
use monte_rules::focus::FocusPosition;
use monte_rules::perft::perft;
use monte_rules::salta::SaltaPosition;

/// (position string, depth). The start positions and positions from the
/// opening, middle and end of games, with pending calls and tall stacks.
const SALTA: &[(&str, u32)] = &[
    (monte_rules::salta::START_FEN, 7),
    (
        "s5,s4,s3,s2,s1/m5,m4,.,m2,m1/o5,o4,.,o2,o1/.,.,.,m3,./.,.,.,.,./.,.,.,O3,./.,M2,o3,O4,./O1,O2,M3,.,O5/M1,.,.,M4,M5/S1,S2,S3,S4,S5 w - 20",
        5,
    ),
    (
        "s5,s4,m3,s2,s1/m5,.,.,.,m1/m4,M3,M1,.,o1/o5,O1,.,.,o2/o4,.,.,.,O5/.,.,.,s3,./.,.,m2,O4,O2/.,.,O3,o3,./.,M2,.,M4,M5/S1,S2,S3,S4,S5 w g3 80",
        5,
    ),
    (
        "m5,.,.,s4,s1/.,.,s3,m2,s2/m4,.,O5,O3,o1/.,S2,o5,m1,O2/.,M1,o4,.,./.,.,.,O4,o3/s5,M2,M4,M3,./.,S1,.,S3,M5/m3,O1,.,S5,./.,.,o2,S4,. w - 150",
        5,
    ),
];

const FOCUS: &[(&str, u32)] = &[
    (monte_rules::focus::START_FEN, 5),
    (
        "bw,.,wb,bw/b,.,w,.,.,b/.,.,w,b,.,b,w,./.,b,b,w,w,.,b,./.,w,.,.,bw,.,wb,w/.,b,.,w,w,.,b,./w,.,b,b,.,w/wb,.,.,wb w 0 0 10",
        5,
    ),
    (
        "b,.,w,./.,.,.,w,b,b/.,.,b,.,.,wb,w,./b,w,b,w,w,b,.,b/b,w,w,bw,.,.,b,w/w,b,w,b,.,b,.,./w,.,w,.,b,w/.,b,wb,w w 0 0 60",
        5,
    ),
    (
        ".,b,.,./.,bbw,.,w,.,b/.,.,wwb,.,b,.,w,./.,b,.,bwbww,w,.,.,./b,.,w,.,.,bb,.,w/.,w,.,b,.,wbw,.,./.,.,b,.,w,./w,.,.,b w 2 1 62",
        4,
    ),
];

fn run_set<P: Position>(name: &str, set: &[(&str, u32)]) -> Result<(u64, f64)> {
    let mut nodes = 0;
    let mut secs = 0.0;
    for (fen, depth) in set {
        let pos = P::from_fen(P::Rules::default(), fen)?;
        let start = Instant::now();
        let n = perft(&pos, *depth);
        let t = start.elapsed().as_secs_f64();
        println!("{name} depth {depth} nodes {n:>11} {:>7.1} M nodes/s  {fen}", n as f64 / t / 1e6);
        nodes += n;
        secs += t;
    }
    println!("{name}: {nodes} nodes in {secs:.3} s, {:.1} M nodes/s", nodes as f64 / secs / 1e6);
    Ok((nodes, secs))
}

pub fn run() -> Result<()> {
    let (sn, _) = run_set::<SaltaPosition>("salta", SALTA)?;
    let (fnodes, _) = run_set::<FocusPosition>("focus", FOCUS)?;
    println!("total nodes {}", sn + fnodes);
    Ok(())
}
