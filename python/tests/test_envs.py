"""The environments: PettingZoo's and Gymnasium's own checks, rewards at
the end of a game, truncation, and BatchEnv in step with Game."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import monte
from conftest import seconds_to_stop_by_ctrl_c
from monte.envs import GymEnv, PettingZooEnv
from test_rules import FOCUS_LAST_STACK, SALTA_WIN_AVAILABLE

# A winning move of each game (test_rules.py's positions).
WINS = {"salta": (SALTA_WIN_AVAILABLE, "e7-f8"), "focus": (FOCUS_LAST_STACK, "d3xd5")}


# api_test warns that a dict observation is no numpy array, as it does
# for PettingZoo's own board games.
@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
@pytest.mark.parametrize("game", monte.GAMES)
def test_pettingzoo_api(game):
    api_test(PettingZooEnv(game), num_cycles=200)


@pytest.mark.parametrize("game", monte.GAMES)
def test_gymnasium_checker(game):
    # Made by gymnasium.make, so that the checker tries its render modes too.
    check_env(gymnasium.make(f"monte/{game.capitalize()}-v0").unwrapped, skip_render_check=False)


@pytest.mark.parametrize("game", monte.GAMES)
def test_pettingzoo_rewards_the_winner(game):
    fen, move = WINS[game]
    env = PettingZooEnv(game)
    env.reset(options={"fen": fen})
    assert env.agent_selection == "player_0"
    env.step(env.game.move_to_action(move))
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    # The loser sees the end first, then the winner.
    for agent, reward in [("player_1", -1.0), ("player_0", 1.0)]:
        assert env.agent_selection == agent and env.last()[1:3] == (reward, True)
        env.step(None)
    assert env.agents == []


def test_pettingzoo_truncates_at_max_steps():
    env = PettingZooEnv("salta", max_steps=6)
    env.reset()
    for _ in range(6):
        observation, reward, terminated, truncated, _ = env.last()
        assert not truncated and observation["action_mask"].sum() > 0
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert env.truncations == {"player_0": True, "player_1": True} and env.game.moves_played == 6
    assert not any(env.terminations.values())


def test_pettingzoo_agents_see_their_own_side():
    env = PettingZooEnv("salta")
    env.reset()
    env.step(env.game.move_to_action("c3-d4"))
    black, white = env.observe("player_1"), env.observe("player_0")
    assert np.array_equal(black["observation"], env.game.observation("black"))
    assert np.array_equal(white["observation"], env.game.observation("white"))
    assert black["action_mask"].sum() == len(env.game.legal_moves()) and white["action_mask"].sum() == 0


@pytest.mark.parametrize("game", monte.GAMES)
def test_gym_rewards_a_win(game):
    fen, move = WINS[game]
    env = GymEnv(game, play_as="white")
    observation, info = env.reset(seed=1, options={"fen": fen})
    assert info["side"] == "white" and observation["action_mask"].sum() == len(env.game.legal_moves())
    _, reward, terminated, truncated, _ = env.step(env.game.move_to_action(move))
    assert (reward, terminated, truncated) == (1.0, True, False)


def test_gym_plays_the_engine_and_truncates():
    env = GymEnv("focus", level=1, play_as="black", max_steps=20)
    observation, _ = env.reset(seed=3)
    assert env.game.moves_played == 1  # the engine opened
    rng = np.random.default_rng(0)
    truncated = False
    while not truncated:
        action = rng.choice(np.flatnonzero(observation["action_mask"]))
        observation, reward, terminated, truncated, _ = env.step(action)
        assert not terminated and reward == 0.0
    assert env.game.moves_played == 20


def test_gym_an_illegal_action_loses():
    env = GymEnv("salta", play_as="white")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(0)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)


def test_gym_environments_are_registered():
    env = gymnasium.make("monte/Focus-v0", level=2)
    observation, _ = env.reset(seed=0)
    assert observation["observation"].shape == (14, 8, 8)


@pytest.mark.parametrize(("game", "rules"), [("salta", "seed"), ("focus", "seed,move-limit=40"), ("salta", "meyer1908")])
def test_batch_env_steps_as_games_do(game, rules):
    """Three games stepped together, and the same games played one by one
    with Game: the same observations, masks, rewards and ends."""
    env = monte.BatchEnv(game, 3, rules=rules, max_steps=70, seed=5)
    games = [monte.Game(game, rules=rules) for _ in range(3)]
    observations, masks = env.reset(seed=5)
    ended = truncated = 0
    for _ in range(300):
        for i, g in enumerate(games):
            assert np.array_equal(observations[i], g.observation())
            assert np.array_equal(masks[i], g.legal_action_mask())
            assert env.to_play[i] == ["white", "black"].index(g.side_to_move)
        actions = env.random_actions()
        assert all(masks[i, a] for i, a in enumerate(actions))
        movers = [g.side_to_move for g in games]
        observations, masks, rewards, dones = env.step(actions)
        for i, g in enumerate(games):
            g.apply_action(actions[i])
            cut = not g.is_over() and g.moves_played >= 70
            assert dones[i] == (g.is_over() or cut) and env.truncated[i] == cut
            result = g.result()
            winner = result.winner if result else None
            assert rewards[i] == (0.0 if winner is None else 1.0 if winner == movers[i] else -1.0)
            if dones[i]:
                ended += 1
                truncated += cut
                games[i] = monte.Game(game, rules=rules)
    assert ended > 3 and truncated >= 1


def test_batch_env_refuses_bad_input_and_changes_nothing():
    env = monte.BatchEnv("salta", 2)
    fens = env.fens()
    with pytest.raises(ValueError, match="1 actions for 2 games"):
        env.step(np.array([1030]))
    with pytest.raises(ValueError, match="game 1: action 0 is not one of its 9 legal actions"):
        env.step(np.array([1030, 0]))
    assert env.fens() == fens
    for make, message in [
        (lambda: monte.BatchEnv("chess", 2), "unknown game"),
        (lambda: monte.BatchEnv("salta", 0), "n 0: expected 1 to"),
        (lambda: monte.BatchEnv("salta", 2, rules="nope"), "unknown Salta rule set"),
        (lambda: monte.BatchEnv("salta", 2, max_steps=0), "max_steps must be at least 1"),
        (lambda: monte.BatchEnv("focus", 2, threads=0), "threads 0"),
        (lambda: monte.BatchEnv("focus", 2, fen="x"), "invalid position"),
    ]:
        with pytest.raises(ValueError, match=message):
            make()


def assert_arrays_describe_the_games(env, count=8):
    for i, fen in enumerate(env.fens()[:count]):
        g = monte.Game(env.game, fen=fen)
        assert np.array_equal(env.observations[i], g.observation())
        assert np.array_equal(env.masks[i], g.legal_action_mask())
        assert env.to_play[i] == (0 if g.side_to_move == "white" else 1)


@pytest.mark.parametrize("game", monte.GAMES)
@pytest.mark.parametrize(("n", "threads"), [(64, 2), (65, 3)])
def test_batch_env_random_play_on_threads(game, n, threads):
    """step_random and step on several threads (runs of unequal size too):
    the same games as on one, and arrays that describe the positions
    reached."""
    one, many = (monte.BatchEnv(game, n, seed=9, threads=t, max_steps=300) for t in (1, threads))
    assert one.step_random(500) == many.step_random(500) > 0
    for _ in range(3):
        one.step(one.random_actions())
        many.step(many.random_actions())
    assert one.fens() == many.fens()
    for name in ("observations", "masks", "rewards", "dones", "truncated", "to_play"):
        assert np.array_equal(getattr(one, name), getattr(many, name)), name
    assert_arrays_describe_the_games(many)


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_random_play(threads):
    env = monte.BatchEnv("focus", 256, seed=3, threads=threads)
    # Days of random play.
    assert seconds_to_stop_by_ctrl_c(lambda: env.step_random(10**12)) < 2
    # Every game stands where it stopped, its arrays written, and play goes on.
    assert_arrays_describe_the_games(env)
    env.step(env.random_actions())
    assert env.step_random(10) >= 0
    assert_arrays_describe_the_games(env)


def test_batch_env_without_observations():
    env = monte.BatchEnv("focus", 4, observations=False)
    observations, masks, rewards, dones = env.step(env.random_actions())
    assert observations.shape == (0, 14, 8, 8) and masks.shape == (4, 1301)
    assert (env.num_envs, env.num_distinct_actions, env.observation_shape, len(env)) == (4, 1301, (14, 8, 8), 4)
