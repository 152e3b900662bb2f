"""Learn Salta from the engine with numpy alone: self-play games of the
engine written to an .npz file, a small policy network trained on them
to choose the engine's moves, and a match of that policy against random
play.

    target/pyenv/bin/python python/examples/selfplay.py --games 60 --out selfplay.npz

The games are Salta with a move limit of 30 moves a side, which the race
distance decides (rules "seed,move-limit=30"): short games that every
game reaches the end of. The policy sees the observation planes of the
side to move and outputs a score per action; illegal actions are masked
out, and it plays the legal action it scores highest.
"""

import argparse
import os
import time

# The matrices are small: threads of the linear algebra library gain
# nothing and, on a machine whose cores are busy, cost a great deal.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402 (after the setting above)

import monte  # noqa: E402

RULES = "seed,move-limit=30"


def self_play(games, level=3, seed=0):
    """Games of the engine at `level` against itself (each game's random
    choices seeded apart). Returns arrays, one row per ply: the planes
    and legal mask the side to move saw, the action the engine chose, and
    how the game ended for that side (1 win, -1 loss, 0 draw)."""
    observations, masks, actions, outcomes = [], [], [], []
    for number in range(games):
        engine = monte.Engine(level=level, seed=seed * 100_003 + number, hash_mb=1)
        g = monte.Game("salta", rules=RULES)
        movers = []
        while not g.is_over():
            observations.append(g.observation())
            masks.append(g.legal_action_mask())
            actions.append(g.move_to_action(engine.best_move(g)))
            movers.append(g.side_to_move)
            g.apply_action(actions[-1])
        winner = g.result().winner
        outcomes += [0.0 if winner is None else 1.0 if side == winner else -1.0 for side in movers]
    return {
        "observations": np.stack(observations),
        "masks": np.stack(masks),
        "actions": np.array(actions, np.int64),
        "outcomes": np.array(outcomes, np.float32),
    }


SQUARES = 50  # Salta's actions: (from * 50 + to) * 2 + call, then the pass


class Policy:
    """A network of one hidden layer (ReLU) from the flattened planes to a
    score for each start square, each end square, the call and the pass;
    an action scores the sum of its parts. (Scores by part, not by action,
    let what is learnt of a square serve every move from or to it.)"""

    def __init__(self, inputs, hidden=64, seed=0):
        rng = np.random.default_rng(seed)
        outputs = 2 * SQUARES + 3
        self.w1 = rng.normal(0, np.sqrt(2 / inputs), (inputs, hidden)).astype(np.float32)
        self.b1 = np.zeros(hidden, np.float32)
        self.w2 = rng.normal(0, np.sqrt(1 / hidden), (hidden, outputs)).astype(np.float32)
        self.b2 = np.zeros(outputs, np.float32)

    def scores(self, observations, masks):
        """Scores of every action, illegal ones -inf, and the hidden layer."""
        hidden = np.maximum(observations.reshape(len(observations), -1) @ self.w1 + self.b1, 0)
        parts = hidden @ self.w2 + self.b2
        starts, ends, call, passing = (
            parts[:, :SQUARES], parts[:, SQUARES : 2 * SQUARES], parts[:, 2 * SQUARES : -1], parts[:, -1:],
        )  # fmt: skip
        moves = starts[:, :, None, None] + ends[:, None, :, None] + call[:, None, None, :]
        logits = np.concatenate([moves.reshape(len(parts), -1), passing], axis=1)
        return np.where(masks, logits, -np.inf), hidden

    def choose(self, game):
        scores, _ = self.scores(game.observation()[None], game.legal_action_mask()[None])
        return int(np.argmax(scores[0]))

    def train(self, data, epochs=30, batch=64, rate=0.003, seed=0):
        """Cross-entropy against the engine's choices among the legal
        actions, by Adam; returns the mean loss of each epoch."""
        rng = np.random.default_rng(seed)
        params = [self.w1, self.b1, self.w2, self.b2]
        moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
        observations, masks, actions = data["observations"], data["masks"], data["actions"]
        losses, t = [], 0
        for _ in range(epochs):
            order = rng.permutation(len(actions))
            epoch_loss = 0.0
            for start in range(0, len(order), batch):
                rows = order[start : start + batch]
                x = observations[rows].reshape(len(rows), -1)
                scores, hidden = self.scores(observations[rows], masks[rows])
                scores -= scores.max(axis=1, keepdims=True)
                probabilities = np.exp(scores)
                probabilities /= probabilities.sum(axis=1, keepdims=True)
                chosen = probabilities[np.arange(len(rows)), actions[rows]]
                epoch_loss -= np.log(chosen + 1e-12).sum()
                # The gradient of the loss by the scores (p - onehot), then
                # by the parts each score sums.
                d_scores = probabilities
                d_scores[np.arange(len(rows)), actions[rows]] -= 1
                d_scores /= len(rows)
                d_moves = d_scores[:, :-1].reshape(len(rows), SQUARES, SQUARES, 2)
                d_parts = np.concatenate(
                    [d_moves.sum((2, 3)), d_moves.sum((1, 3)), d_moves.sum((1, 2)), d_scores[:, -1:]], axis=1
                )
                d_hidden = (d_parts @ self.w2.T) * (hidden > 0)
                grads = [x.T @ d_hidden, d_hidden.sum(0), hidden.T @ d_parts, d_parts.sum(0)]
                t += 1
                for param, grad, (m, v) in zip(params, grads, moments):
                    m *= 0.9
                    m += 0.1 * grad
                    v *= 0.999
                    v += 0.001 * grad * grad
                    param -= rate * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
            losses.append(epoch_loss / len(actions))
        return losses


def match(policy, games, seed=0):
    """`games` games of the policy against uniformly random play, the
    policy White in the even ones; returns (wins, draws, losses)."""
    rng = np.random.default_rng(seed)
    wins = draws = losses = 0
    for number in range(games):
        policy_side = "white" if number % 2 == 0 else "black"
        g = monte.Game("salta", rules=RULES)
        while not g.is_over():
            if g.side_to_move == policy_side:
                g.apply_action(policy.choose(g))
            else:
                g.apply_action(rng.choice(g.legal_actions()))
        winner = g.result().winner
        wins += winner == policy_side
        draws += winner is None
        losses += winner not in (None, policy_side)
    return wins, draws, losses


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60, help="self-play games (default 60)")
    parser.add_argument("--level", type=int, default=3, help="the engine's level (default 3)")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--match-games", type=int, default=100, help="games against random play (default 100)")
    parser.add_argument("--out", default="selfplay.npz", help="the self-play data (default selfplay.npz)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    started = time.perf_counter()
    data = self_play(args.games, args.level, args.seed)
    np.savez_compressed(args.out, **data)
    print(f"{args.games} self-play games, {len(data['actions'])} positions -> {args.out} "
          f"({time.perf_counter() - started:.1f} s)")

    data = dict(np.load(args.out))
    g = monte.Game("salta", rules=RULES)
    policy = Policy(int(np.prod(g.observation_shape)), seed=args.seed)
    started = time.perf_counter()
    losses = policy.train(data, epochs=args.epochs, seed=args.seed)
    print(f"trained {args.epochs} epochs: loss {losses[0]:.2f} -> {losses[-1]:.2f} "
          f"({time.perf_counter() - started:.1f} s)")

    wins, draws, losses = match(policy, args.match_games, args.seed)
    print(f"policy against random play: {wins} wins, {draws} draws, {losses} losses "
          f"in {args.match_games} games")
    return wins, draws, losses


if __name__ == "__main__":
    main()
