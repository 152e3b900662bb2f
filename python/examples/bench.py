"""Random-play speed of the package's ways of stepping games, in plies
(moves) per second, for both games.

    target/pyenv/bin/python python/examples/bench.py [--seconds S] [--games salta,focus]
        [--rows TEXT] [--cpu]

Every row plays uniformly random legal moves and starts a new game when
one ends or reaches 1000 plies (the environments' default cut):

- game loop: one Game, random.choice(g.legal_actions()), g.apply_action;
- game loop + arrays: the same, writing each ply the observation and the
  legal-action mask a learning agent reads (g.observation(),
  g.legal_action_mask());
- python batch of 64: 64 Games stepped in a Python loop, their
  observations and masks stacked into arrays as BatchEnv returns them:
  BatchEnv's work done in Python over the same API;
- pettingzoo: PettingZooEnv's agent_iter / last / step, actions drawn
  from the mask by the action space;
- BatchEnv n: env.step(env.random_actions()), observations and masks
  written every ply;
- BatchEnv n, no planes: the same with observations=False;
- BatchEnv n, step_random: random play inside Rust, arrays written once
  per call of 1000 plies a game.

--rows TEXT runs only the rows whose name contains TEXT. --cpu divides by
the process's CPU time (every thread's; time.process_time) instead of
the time on the clock: what the cores would give if the process had
them to itself, on a machine that other work keeps busy.
"""

import argparse
import importlib.util
import os
import random
import time

# Before numpy loads: the benchmark does no linear algebra, and the idle
# threads of numpy's BLAS library take turns on a busy machine's cores.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

import monte

MAX_STEPS = 1000


def rate(step, seconds, clock=time.perf_counter):
    """Plies per second of `clock` of `step()` (which returns the plies it
    played), run for about `seconds` on the wall clock after a short
    warm-up."""
    step()
    plies, started, clock_started = 0, time.perf_counter(), clock()
    while time.perf_counter() - started < seconds:
        plies += step()
    return plies / (clock() - clock_started)


def game_loop(game, arrays):
    rng = random.Random(0)
    g = monte.Game(game)

    def step():
        nonlocal g
        if g.is_over() or g.moves_played >= MAX_STEPS:
            g = monte.Game(game)
        g.apply_action(rng.choice(g.legal_actions()))
        if arrays:
            g.observation()
            g.legal_action_mask()
        return 1

    return step


def python_batch(game, n):
    rng = random.Random(0)
    games = [monte.Game(game) for _ in range(n)]

    def step():
        for i, g in enumerate(games):
            if g.is_over() or g.moves_played >= MAX_STEPS:
                games[i] = g = monte.Game(game)
            g.apply_action(rng.choice(g.legal_actions()))
        np.stack([g.observation() for g in games])
        np.stack([g.legal_action_mask() for g in games])
        return n

    return step


def pettingzoo_env(game):
    from monte.envs import PettingZooEnv

    env = PettingZooEnv(game, max_steps=MAX_STEPS)
    env.reset(seed=0)
    for agent in env.possible_agents:
        env.action_space(agent).seed(0)

    def step():
        if not env.agents:
            env.reset()
        agent = env.agent_selection
        observation, _, terminated, truncated, _ = env.last()
        finished = terminated or truncated
        env.step(None if finished else env.action_space(agent).sample(observation["action_mask"]))
        return 0 if finished else 1

    return step


def batch(game, n, observations=True):
    env = monte.BatchEnv(game, n, seed=0, observations=observations, max_steps=MAX_STEPS)

    def step():
        env.step(env.random_actions())
        return n

    return step


def batch_random(game, n, plies=1000):
    env = monte.BatchEnv(game, n, seed=0, max_steps=MAX_STEPS)

    def step():
        env.step_random(plies)
        return n * plies

    return step


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per row (default 2)")
    parser.add_argument("--games", default="salta,focus")
    parser.add_argument("--rows", default="", help="only the rows whose name contains this")
    parser.add_argument("--cpu", action="store_true", help="plies per second of CPU time, not of the clock")
    args = parser.parse_args(argv)
    has_pettingzoo = importlib.util.find_spec("pettingzoo") is not None
    rows = [
        ("game loop", lambda g: game_loop(g, arrays=False)),
        ("game loop + arrays", lambda g: game_loop(g, arrays=True)),
        ("python batch of 64", lambda g: python_batch(g, 64)),
    ]
    if has_pettingzoo:
        rows.append(("pettingzoo", pettingzoo_env))
    for n in (1, 64, 1024):
        rows.append((f"BatchEnv {n}", lambda g, n=n: batch(g, n)))
    for n in (1, 64, 1024):
        rows.append((f"BatchEnv {n}, no planes", lambda g, n=n: batch(g, n, observations=False)))
    for n in (1, 64, 1024):
        rows.append((f"BatchEnv {n}, step_random", lambda g, n=n: batch_random(g, n)))
    games = args.games.split(",")
    clock = time.process_time if args.cpu else time.perf_counter
    per = "second of CPU time" if args.cpu else "second"
    print(f"plies per {per}, {args.seconds:g} s a row, monte {monte.__version__}")
    print(f"{'':28}" + "".join(f"{game:>14}" for game in games))
    for name, make in rows:
        if args.rows not in name:
            continue
        figures = [rate(make(game), args.seconds, clock) for game in games]
        print(f"{name:28}" + "".join(f"{figure:>14,.0f}" for figure in figures), flush=True)


if __name__ == "__main__":
    main()
