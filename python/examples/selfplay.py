"""Learn Salta from the engine with numpy alone: self-play games of the
engine written to an .npz file, a value of positions fitted to how those
games ended, and a match against random play of a player that moves
where that value is best.

    target/pyenv/bin/python python/examples/selfplay.py --games 60 --out selfplay.npz

The games are Salta with a move limit of 30 moves a side, which the race
distance decides (rules "seed,move-limit=30"): short games that end at
the limit, by a margin of steps, or drawn by repetition. The value is
linear in where each side's pieces stand, fitted by least squares to
the margin by which the side to move went on to win or lose; the player
tries each legal action and plays the one after which the value is best
for it.
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


def self_play(games, level=3, seed=0, random_plies=10):
    """Games of the engine at `level` against itself, each opened by
    `random_plies` uniformly random moves (so that the games differ in
    more than the engine's own random choices, seeded apart per game).
    Returns arrays, one row per ply: the planes and legal mask the side
    to move saw, the action played, how the game ended for that side (1
    won, -1 lost, 0 drawn), and by how many steps of the race it won
    (positive) or lost (negative) at the move limit, 0 for a draw."""
    observations, masks, actions, outcomes, margins = [], [], [], [], []
    rng = np.random.default_rng(seed)
    for number in range(games):
        engine = monte.Engine(level=level, seed=seed * 100_003 + number, hash_mb=1)
        g = monte.Game("salta", rules=RULES)
        movers = []
        while not g.is_over():
            observations.append(g.observation())
            masks.append(g.legal_action_mask())
            if g.moves_played < random_plies:
                actions.append(int(rng.choice(g.legal_actions())))
            else:
                actions.append(g.move_to_action(engine.best_move(g)))
            movers.append(g.side_to_move)
            g.apply_action(actions[-1])
        outcomes += [outcome(g, side) for side in movers]
        margins += [signed_margin(g, side) for side in movers]
    return {
        "observations": np.stack(observations),
        "masks": np.stack(masks),
        "actions": np.array(actions, np.int64),
        "outcomes": np.array(outcomes, np.float32),
        "margins": np.array(margins, np.float32),
    }


def outcome(game, side):
    """How the finished `game` ended for `side`: 1 won, -1 lost, 0 drawn."""
    winner = game.result().winner
    return 0.0 if winner is None else 1.0 if winner == side else -1.0


def signed_margin(game, side):
    """The steps by which `side` won (positive) or lost (negative) the
    finished `game`; 0 for a draw."""
    return outcome(game, side) * (game.result().margin or 0)


def squares(observations):
    """What the value sees of Salta planes: the squares of the side to
    move's pieces and of the opponent's (the sums of their piece planes)
    and the called piece, flattened, and a constant 1. Which piece stands
    where matters in Salta, but a few games teach more of where an army
    stands than of each of thirty pieces."""
    planes = [observations[:, 0:15].sum(1), observations[:, 15:30].sum(1), observations[:, 30]]
    flat = np.concatenate(planes, axis=1).reshape(len(observations), -1)
    return np.concatenate([flat, np.ones((len(observations), 1), np.float32)], axis=1)


class Value:
    """A linear value of positions: the margin the side to move can expect
    at the move limit, in steps of the race."""

    def __init__(self, weights):
        self.weights = weights

    @classmethod
    def fit(cls, data, ridge=10.0):
        """Least squares from the positions to the margins, with a ridge
        penalty (about a thousand positions against 301 weights)."""
        x = squares(data["observations"]).astype(np.float64)
        normal = x.T @ x + ridge * np.eye(x.shape[1])
        return cls(np.linalg.solve(normal, x.T @ data["margins"]))

    def values(self, observations):
        """The expected margin of each position for its side to move."""
        return squares(observations) @ self.weights

    def choose(self, game):
        """The legal action after which the position is worth most to the
        mover: a game it ends is worth its margin, any other the value of
        the side to move then (the opponent's negated; after a Salta call
        the opponent moves, to answer it)."""
        mover = game.side_to_move
        actions = game.legal_actions()
        worth = np.empty(len(actions))
        children = []
        for i, action in enumerate(actions):
            child = game.clone()
            child.apply_action(action)
            if child.is_over():
                worth[i] = signed_margin(child, mover)
            else:
                children.append((i, child))
        if children:
            values = self.values(np.stack([child.observation() for _, child in children]))
            for (i, child), value in zip(children, values):
                worth[i] = value if child.side_to_move == mover else -value
        return actions[int(np.argmax(worth))]

    def mean_squared_error(self, data):
        error = self.values(data["observations"]) - data["margins"]
        return float(np.mean(error * error))


def match(policy, games, seed=0):
    """`games` games of the policy (anything with a `choose(game)` that
    returns an action) against uniformly random play, the policy White in
    the even ones; returns (wins, draws, losses)."""
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
        result = outcome(g, policy_side)
        wins += result > 0
        draws += result == 0
        losses += result < 0
    return wins, draws, losses


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60, help="self-play games (default 60)")
    parser.add_argument("--level", type=int, default=3, help="the engine's level (default 3)")
    parser.add_argument("--random-plies", type=int, default=10, help="random moves opening each game (default 10)")
    parser.add_argument("--ridge", type=float, default=10.0, help="the fit's ridge penalty (default 10)")
    parser.add_argument("--match-games", type=int, default=100, help="games against random play (default 100)")
    parser.add_argument("--out", default="selfplay.npz", help="the self-play data (default selfplay.npz)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    started = time.perf_counter()
    data = self_play(args.games, args.level, args.seed, args.random_plies)
    np.savez_compressed(args.out, **data)
    print(f"{args.games} self-play games, {len(data['actions'])} positions -> {args.out} "
          f"({time.perf_counter() - started:.1f} s)")

    data = dict(np.load(args.out))
    started = time.perf_counter()
    policy = Value.fit(data, args.ridge)
    spread = float(np.mean(data["margins"] ** 2))
    print(f"fitted the value: mean squared error {policy.mean_squared_error(data):.1f} "
          f"against {spread:.1f} for a value of 0 ({time.perf_counter() - started:.1f} s)")

    wins, draws, losses = match(policy, args.match_games, args.seed)
    print(f"policy against random play: {wins} wins, {draws} draws, {losses} losses "
          f"in {args.match_games} games")
    return wins, draws, losses


if __name__ == "__main__":
    main()
