//! Monte Carlo tree search: the second engine beside alpha-beta, in two
//! forms.
//!
//! - **PUCT with evaluation at the leaves** ([`MctsOptions::puct`]): when a
//!   node is expanded, every child is played and evaluated
//!   ([`EngineGame::evaluate`]); the evaluations give the children their
//!   priors (a softmax) and their first value (a sigmoid of the evaluation
//!   to a win probability). A leaf is worth its own evaluation.
//! - **Plain UCT** ([`MctsOptions::uct`]), the baseline of docs/engine.md:
//!   uniform children (each tried once, in a seeded random order, then
//!   UCB1), and a leaf is worth the result of one random playout of at most
//!   200 plies; a playout cut short is scored by the rule set's own count
//!   ([`Position::standing`]: Salta distance, Focus pieces in hand and under control).
//!
//! Both score finished positions exactly from [`Position::status`], treat a
//! position repeated on the path as a draw (as the alpha-beta search does),
//! and prove wins and losses up the tree (MCTS-Solver): a move that wins is
//! played at once, a move that loses is avoided.
//!
//! One search is one thread. With a node limit (here: a number of
//! iterations, "playouts") and a fixed seed the search is deterministic.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use monte_rules::Rng;
use monte_rules::game::RepetitionRule;
use monte_rules::{MoveList, Outcome, Position, Side, Status};

use crate::eval::EngineGame;
use crate::limits::Limits;
use crate::score::Score;
use crate::search::{SearchInfo, SearchResult};

/// What a leaf of the tree is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// The evaluation through a sigmoid; children get priors from their
    /// evaluations (PUCT).
    Evaluation,
    /// One random playout of at most `max_plies` plies (UCT).
    RandomPlayout { max_plies: u32 },
}

/// MCTS settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsOptions {
    pub leaf: Leaf,
    /// The exploration constant: `c_puct` for PUCT, `c` of UCB1 for UCT.
    pub exploration: f64,
    /// Evaluation units per unit of logit: a position evaluated `scale`
    /// units ahead is worth a win probability of 1/(1+e^-1) = 0.73.
    /// 0 uses the game's own calibration (`EngineGame::eval_scale`).
    pub scale: f64,
    /// Temperature of the priors, in evaluation units: a child `t` units
    /// worse than the best gets e times less prior. 0 uses half the scale.
    pub prior_temperature: f64,
    /// Seed of the random choices (UCT child order and playouts).
    pub seed: u64,
    /// Memory for the tree; when it is full, leaves are no longer expanded.
    pub memory_mb: usize,
}

impl MctsOptions {
    /// PUCT with evaluation at the leaves.
    pub fn puct() -> Self {
        MctsOptions {
            leaf: Leaf::Evaluation,
            exploration: 1.5,
            scale: 0.0,
            prior_temperature: 0.0,
            seed: 1,
            memory_mb: 64,
        }
    }

    /// Plain UCT with random playouts cut at 200 plies.
    pub fn uct() -> Self {
        MctsOptions {
            leaf: Leaf::RandomPlayout { max_plies: 200 },
            exploration: std::f64::consts::SQRT_2,
            scale: 0.0,
            prior_temperature: 0.0,
            seed: 1,
            memory_mb: 64,
        }
    }
}

/// A Monte Carlo tree searcher. It keeps no state between searches.
#[derive(Clone, Debug)]
pub struct Mcts {
    options: MctsOptions,
}

/// What is known for certain about a node, for the side that moved into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proof {
    Unknown,
    /// The mover wins in this many plies (counting the move into the node).
    Win(u16),
    /// The mover loses in this many plies.
    Loss(u16),
}

#[derive(Clone, Copy, Debug)]
struct Node<M> {
    /// The move into this node (unused at the root).
    mv: M,
    /// The side that played `mv`: values are from its point of view.
    mover: Side,
    visits: u32,
    value_sum: f64,
    prior: f32,
    /// The child's value before any visit (PUCT: its evaluation).
    first_value: f32,
    first_child: u32,
    children: u16,
    expanded: bool,
    /// `Some(value)` when the game is over here (or repeated).
    terminal: Option<f32>,
    proof: Proof,
}

impl<M: Copy> Node<M> {
    fn new(mv: M, mover: Side, prior: f32, first_value: f32) -> Self {
        Node {
            mv,
            mover,
            visits: 0,
            value_sum: 0.0,
            prior,
            first_value,
            first_child: 0,
            children: 0,
            expanded: false,
            terminal: None,
            proof: Proof::Unknown,
        }
    }

    fn mean(&self) -> f64 {
        if self.visits == 0 { self.first_value as f64 } else { self.value_sum / self.visits as f64 }
    }

    fn child_range(&self) -> std::ops::Range<usize> {
        self.first_child as usize..self.first_child as usize + self.children as usize
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The value of a finished game for `side`.
fn outcome_value(o: Outcome, side: Side) -> f32 {
    match o.winner {
        Some(w) if w == side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

/// The tree and what one search needs besides.
struct Tree<'a, P: Position> {
    nodes: Vec<Node<P::Move>>,
    capacity: usize,
    options: &'a MctsOptions,
    rng: Rng,
    repetition: bool,
    draw_winner: Option<Side>,
    seldepth: u32,
}

impl Mcts {
    pub fn new(options: MctsOptions) -> Self {
        Mcts { options }
    }

    pub fn options(&self) -> MctsOptions {
        self.options
    }

    /// Search `root`; `history` holds the hashes of the game's positions
    /// before it (a position repeated on the path is a draw). Limits:
    /// `nodes` counts iterations (playouts), `movetime` and `clock` bound
    /// the time; `depth` does not apply to MCTS and is ignored. With no
    /// bound the search runs until `stop` is set. `on_info` is called after
    /// 1024, 2048, 4096, ... iterations and at the end.
    pub fn search<P: EngineGame>(
        &self,
        root: &P,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult<P::Move>
    where
        P::Rules: RepetitionRule,
    {
        let start = Instant::now();
        let mut legal = MoveList::new();
        root.generate(&mut legal);
        if legal.is_empty() || root.status().is_over() {
            return SearchResult {
                best: None,
                score: Score::Units(0),
                depth: 0,
                nodes: 0,
                time: start.elapsed(),
                pv: Vec::new(),
                plan: None,
            };
        }
        // MCTS can stop after any iteration: it uses the whole soft budget.
        let deadline = limits.time_budget().map(|(soft, _)| soft);
        let capacity = (self.options.memory_mb.max(1) << 20) / std::mem::size_of::<Node<P::Move>>();
        let mut options = self.options;
        if options.scale <= 0.0 {
            options.scale = P::eval_scale();
        }
        if options.prior_temperature <= 0.0 {
            options.prior_temperature = options.scale / 2.0;
        }
        let mut tree = Tree::<P> {
            nodes: Vec::with_capacity(capacity.min(1 << 16)),
            capacity: capacity.max(legal.len() + 1),
            options: &options,
            rng: Rng::new(self.options.seed),
            repetition: root.rules().repetition_draw(),
            draw_winner: root.rules().draw_winner(),
            seldepth: 0,
        };
        tree.nodes.push(Node::new(legal[0], !root.side_to_move(), 1.0, 0.5));
        tree.expand(0, root);
        let mut path_hashes: Vec<u64> = history.to_vec();
        path_hashes.push(root.hash());
        let base = path_hashes.len();
        let mut iterations = 0u64;
        let mut next_report = 1024;
        loop {
            if limits.nodes.is_some_and(|n| iterations >= n)
                || tree.nodes[0].proof != Proof::Unknown
                || stop.load(Ordering::Relaxed)
                || deadline.is_some_and(|d| start.elapsed() >= d)
            {
                break;
            }
            path_hashes.truncate(base);
            tree.iterate(root, &mut path_hashes);
            iterations += 1;
            if iterations == next_report {
                next_report *= 2;
                on_info(&tree.info(root, iterations, start.elapsed()));
            }
        }
        let info = tree.info(root, iterations, start.elapsed());
        on_info(&info);
        let pv = tree.pv();
        SearchResult {
            best: pv.first().copied().or_else(|| legal.first().copied()),
            score: info.score,
            depth: info.depth,
            nodes: iterations,
            time: start.elapsed(),
            pv,
            plan: None,
        }
    }
}

impl<P: EngineGame> Tree<'_, P>
where
    P::Rules: RepetitionRule,
{
    /// Give `node` (whose position is `pos`) its children.
    fn expand(&mut self, node: usize, pos: &P) {
        let mut moves = MoveList::new();
        pos.generate(&mut moves);
        let me = pos.side_to_move();
        let first = self.nodes.len();
        match self.options.leaf {
            Leaf::Evaluation => {
                // Evaluate every child: its evaluation (for `me`) gives its
                // prior and its first value.
                let mut evals: MoveList<f64> = MoveList::new();
                for &mv in &moves {
                    let mut child = pos.clone();
                    child.play_unchecked(mv);
                    let e = match child.status() {
                        Status::Over(o) => match o.winner {
                            // Beyond any evaluation.
                            Some(w) if w == me => 1e12,
                            Some(_) => -1e12,
                            None => 0.0,
                        },
                        Status::Ongoing => -child.evaluate() as f64,
                    };
                    evals.push(e);
                }
                let best = evals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let t = self.options.prior_temperature.max(1e-3);
                let weights: MoveList<f64> = evals.iter().map(|e| ((e - best) / t).exp()).collect();
                let total: f64 = weights.iter().sum();
                for (i, &mv) in moves.iter().enumerate() {
                    let value = sigmoid(evals[i] / self.options.scale) as f32;
                    self.nodes.push(Node::new(mv, me, (weights[i] / total) as f32, value));
                }
            }
            Leaf::RandomPlayout { .. } => {
                // Uniform children in a random order: UCT tries the
                // unvisited ones first, in this order.
                for i in (1..moves.len()).rev() {
                    let j = self.rng.below(i + 1);
                    moves.swap(i, j);
                }
                let prior = 1.0 / moves.len() as f32;
                for &mv in &moves {
                    self.nodes.push(Node::new(mv, me, prior, 0.5));
                }
            }
        }
        let n = &mut self.nodes[node];
        n.first_child = first as u32;
        n.children = moves.len() as u16;
        n.expanded = true;
    }

    /// The child of `node` to follow.
    fn select(&mut self, node: usize) -> usize {
        let parent = &self.nodes[node];
        let parent_visits = parent.visits.max(1) as f64;
        let c = self.options.exploration;
        let mut best = usize::MAX;
        let mut best_score = f64::NEG_INFINITY;
        for i in parent.child_range() {
            let child = &self.nodes[i];
            // Proven losses are played only when nothing else is left (the
            // parent is then proven and not searched further).
            let score = if matches!(child.proof, Proof::Loss(_)) {
                -1e9
            } else {
                match self.options.leaf {
                    Leaf::Evaluation => {
                        child.mean() + c * child.prior as f64 * parent_visits.sqrt() / (1.0 + child.visits as f64)
                    }
                    Leaf::RandomPlayout { .. } => {
                        if child.visits == 0 {
                            return i;
                        }
                        child.mean() + c * (parent_visits.ln() / child.visits as f64).sqrt()
                    }
                }
            };
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        best
    }

    /// Whether the game is over at `pos` (the position of `node`), and then
    /// its value for the node's mover.
    fn terminal_value(&self, node: usize, pos: &P, path_hashes: &[u64]) -> Option<f32> {
        let mover = self.nodes[node].mover;
        if let Status::Over(o) = pos.status() {
            return Some(outcome_value(o, mover));
        }
        let n = path_hashes.len();
        if self.repetition && path_hashes[..n - 1].contains(&path_hashes[n - 1]) {
            return Some(match self.draw_winner {
                Some(w) if w == mover => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            });
        }
        None
    }

    /// One iteration: select a path, expand its leaf, value it, back up.
    fn iterate(&mut self, root: &P, path_hashes: &mut Vec<u64>) {
        let mut pos = root.clone();
        let mut path = vec![0usize];
        let mut node = 0usize;
        let value_for_mover = loop {
            let n = &self.nodes[node];
            if let Some(v) = n.terminal {
                break v as f64;
            }
            if !n.expanded {
                if node != 0
                    && let Some(v) = self.terminal_value(node, &pos, path_hashes)
                {
                    let n = &mut self.nodes[node];
                    n.terminal = Some(v);
                    n.proof = if v == 1.0 {
                        Proof::Win(1)
                    } else if v == 0.0 {
                        Proof::Loss(1)
                    } else {
                        Proof::Unknown
                    };
                    break v as f64;
                }
                let value = self.leaf_value(node, &pos);
                let room = self.capacity - self.nodes.len();
                if room >= monte_rules::MAX_MOVES {
                    self.expand(node, &pos);
                }
                break value;
            }
            node = self.select(node);
            pos.play_unchecked(self.nodes[node].mv);
            path_hashes.push(pos.hash());
            path.push(node);
        };
        self.seldepth = self.seldepth.max(path.len() as u32 - 1);
        // Back up: the value is for the mover into the last node.
        let leaf_mover = self.nodes[node].mover;
        let white_value = if leaf_mover == Side::White { value_for_mover } else { 1.0 - value_for_mover };
        for &i in &path {
            let n = &mut self.nodes[i];
            n.visits += 1;
            n.value_sum += if n.mover == Side::White { white_value } else { 1.0 - white_value };
        }
        // Proofs travel up as far as they decide the parent.
        for k in (1..path.len()).rev() {
            if self.nodes[path[k]].proof == Proof::Unknown {
                break;
            }
            let parent = path[k - 1];
            let proof = self.prove(parent);
            if proof == Proof::Unknown {
                break;
            }
            self.nodes[parent].proof = proof;
        }
    }

    /// A node's proof from its children's: a winning child makes it a loss
    /// for its mover; all children lost make it a win.
    fn prove(&self, node: usize) -> Proof {
        let mut shortest_win: Option<u16> = None;
        let mut longest_loss: u16 = 0;
        let mut all_lost = true;
        for i in self.nodes[node].child_range() {
            match self.nodes[i].proof {
                Proof::Win(k) => shortest_win = Some(shortest_win.map_or(k, |s| s.min(k))),
                Proof::Loss(k) => longest_loss = longest_loss.max(k),
                Proof::Unknown => all_lost = false,
            }
        }
        if let Some(k) = shortest_win {
            Proof::Loss(k.saturating_add(1))
        } else if all_lost && self.nodes[node].children > 0 {
            Proof::Win(longest_loss.saturating_add(1))
        } else {
            Proof::Unknown
        }
    }

    /// The value of a new leaf for its mover.
    fn leaf_value(&mut self, node: usize, pos: &P) -> f64 {
        let mover = self.nodes[node].mover;
        match self.options.leaf {
            Leaf::Evaluation => {
                if node == 0 {
                    1.0 - sigmoid(pos.evaluate() as f64 / self.options.scale)
                } else {
                    self.nodes[node].first_value as f64
                }
            }
            Leaf::RandomPlayout { max_plies } => {
                let mut p = pos.clone();
                for _ in 0..max_plies {
                    if p.status().is_over() {
                        break;
                    }
                    match p.random_move(&mut self.rng) {
                        Some(mv) => p.play_unchecked(mv),
                        None => break,
                    }
                }
                let winner = match p.status() {
                    Status::Over(o) => o.winner,
                    Status::Ongoing => p.leader(),
                };
                match winner {
                    Some(w) if w == mover => 1.0,
                    Some(_) => 0.0,
                    None => 0.5,
                }
            }
        }
    }

    /// The root's best child: a proven win (the shortest), else the most
    /// visited move that is not a proven loss, else the longest loss.
    fn best_child(&self, node: usize) -> Option<usize> {
        let key = |i: usize| {
            let n = &self.nodes[i];
            match n.proof {
                Proof::Win(k) => (2, -(k as i64), 0.0),
                Proof::Unknown => (1, n.visits as i64, n.mean()),
                Proof::Loss(k) => (0, k as i64, 0.0),
            }
        };
        self.nodes[node].child_range().max_by(|&a, &b| {
            let (ka, kb) = (key(a), key(b));
            ka.0.cmp(&kb.0).then(ka.1.cmp(&kb.1)).then(ka.2.total_cmp(&kb.2)).then(b.cmp(&a))
        })
    }

    /// The principal variation: best children from the root while visited.
    fn pv(&self) -> Vec<P::Move> {
        let mut pv = Vec::new();
        let mut node = 0;
        while let Some(c) = self.best_child(node) {
            let n = &self.nodes[c];
            if n.visits == 0 && n.proof == Proof::Unknown {
                break;
            }
            pv.push(n.mv);
            node = c;
            if pv.len() >= 64 {
                break;
            }
        }
        pv
    }

    fn info(&self, root: &P, iterations: u64, time: Duration) -> SearchInfo {
        let pv = self.pv();
        let score = match self.best_child(0).map(|c| &self.nodes[c]) {
            Some(Node { proof: Proof::Win(k), .. }) => Score::WinIn(*k as u32),
            Some(Node { proof: Proof::Loss(k), .. }) => Score::LossIn(*k as u32),
            Some(n) => {
                let q = n.mean().clamp(1e-3, 1.0 - 1e-3);
                Score::Units((self.options.scale * (q / (1.0 - q)).ln()).round() as i32)
            }
            None => Score::Units(0),
        };
        let mut p = root.clone();
        let mut text = Vec::new();
        for &m in &pv {
            text.push(p.format_move(m));
            p.play_unchecked(m);
        }
        SearchInfo {
            depth: pv.len() as u32,
            seldepth: self.seldepth,
            score,
            nodes: iterations,
            time,
            nps: (iterations as f64 / time.as_secs_f64().max(1e-6)) as u64,
            pv: text,
            lines: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use monte_rules::focus::{FocusPosition, FocusRules};
    use monte_rules::salta::{SaltaPosition, SaltaRules};

    fn run<P: EngineGame>(options: MctsOptions, pos: &P, limits: Limits) -> SearchResult<P::Move>
    where
        P::Rules: RepetitionRule,
    {
        Mcts::new(options).search(pos, &[], &limits, &AtomicBool::new(false), &mut |_| {})
    }

    #[test]
    fn fixed_playouts_and_seed_give_the_same_search() {
        let salta = SaltaPosition::start(SaltaRules::seed());
        let focus = FocusPosition::start(FocusRules::seed());
        for options in [MctsOptions::puct(), MctsOptions::uct()] {
            let limits = Limits::nodes(600);
            let (a, b) = (run(options, &salta, limits), run(options, &salta, limits));
            assert_eq!((a.best, a.score, a.nodes, &a.pv), (b.best, b.score, b.nodes, &b.pv));
            let (a, b) = (run(options, &focus, limits), run(options, &focus, limits));
            assert_eq!((a.best, a.score, a.nodes, &a.pv), (b.best, b.score, b.nodes, &b.pv));
        }
    }

    #[test]
    fn another_seed_gives_another_uct_search() {
        let pos = SaltaPosition::start(SaltaRules::seed());
        let limits = Limits::nodes(300);
        let a = run(MctsOptions::uct(), &pos, limits);
        let b = run(MctsOptions { seed: 2, ..MctsOptions::uct() }, &pos, limits);
        assert_ne!((a.score, &a.pv), (b.score, &b.pv));
    }

    #[test]
    fn stops_at_the_node_limit() {
        let pos = FocusPosition::start(FocusRules::seed());
        for options in [MctsOptions::puct(), MctsOptions::uct()] {
            let mut reports = Vec::new();
            let r = Mcts::new(options)
                .search(&pos, &[], &Limits::nodes(3000), &AtomicBool::new(false), &mut |i| reports.push(i.nodes));
            assert_eq!(r.nodes, 3000);
            assert_eq!(reports, [1024, 2048, 3000]);
        }
    }

    #[test]
    fn plays_an_immediate_win_and_scores_it() {
        // White needs d6:f8 (the last sun home) and wins at once.
        let fen = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,o1,.,./.,O3,.,.,./.,.,.,.,./.,.,.,.,./o3,o4,o5,o2,./m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0";
        let pos = SaltaPosition::from_fen(SaltaRules::seed(), fen).unwrap();
        for options in [MctsOptions::puct(), MctsOptions::uct()] {
            let r = run(options, &pos, Limits::nodes(100_000));
            assert_eq!(pos.format_move(r.best.unwrap()), "d6:f8");
            assert_eq!(r.score, Score::WinIn(1));
            // The proof ends the search long before the limit.
            assert!(r.nodes < 1000, "{} iterations", r.nodes);
        }
    }

    #[test]
    fn a_stopped_search_still_returns_a_move() {
        let pos = FocusPosition::start(FocusRules::seed());
        let r =
            Mcts::new(MctsOptions::puct()).search(&pos, &[], &Limits::default(), &AtomicBool::new(true), &mut |_| {});
        assert_eq!(r.nodes, 0);
        assert!(r.best.is_some_and(|m| pos.is_legal(m)));
    }

    #[test]
    fn a_full_tree_keeps_searching_without_growing() {
        let pos = FocusPosition::start(FocusRules::seed());
        let options = MctsOptions { memory_mb: 1, ..MctsOptions::puct() };
        let r = run(options, &pos, Limits::nodes(20_000));
        assert_eq!(r.nodes, 20_000);
        assert!(r.best.is_some_and(|m| pos.is_legal(m)));
    }

    #[test]
    fn standing_is_the_rules_count() {
        let salta = SaltaPosition::start(SaltaRules::seed());
        assert_eq!(salta.standing(Side::White), -(salta.distance(Side::White) as i32));
        assert_eq!(salta.leader(), None);
        // The start, except: the Black piece of b3 is held prisoner under
        // White's g2, and White's b5 and c5 are in White's reserve.
        let focus = FocusPosition::from_fen(
            FocusRules::seed(),
            ".,.,.,./b,b,w,w,b,b/.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./.,.,.,b,b,w,w,./.,.,b,w,w,b,b,./w,w,b,b,w,bw/.,.,.,. w 2 0 4",
        )
        .unwrap();
        // White: 16 free pieces and 2 in reserve; Black: 17 free, 1 prisoner.
        assert_eq!(focus.standing(Side::White), 18);
        assert_eq!(focus.standing(Side::Black), 17);
        assert_eq!(focus.leader(), Some(Side::White));
    }
}
