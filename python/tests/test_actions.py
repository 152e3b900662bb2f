"""Actions, observations and pickling: the numbers of docs/python.md, in
step with the moves of the rules."""

import pickle
import random

import numpy as np
import pytest

import monte
from test_rules import FOCUS_LAST_STACK, SALTA_WIN_AVAILABLE

RULE_SETS = [("salta", "seed"), ("salta", "meyer1908"), ("salta", "ludii"), ("focus", "seed"), ("focus", "sackson")]


@pytest.mark.parametrize(("game", "actions", "shape"), [("salta", 5001, (33, 10, 10)), ("focus", 1301, (14, 8, 8))])
def test_sizes(game, actions, shape):
    g = monte.Game(game)
    assert (g.num_distinct_actions, g.observation_shape) == (actions, shape)
    assert g.observation().shape == shape and g.legal_action_mask().shape == (actions,)


@pytest.mark.parametrize(("game", "rules"), RULE_SETS)
def test_actions_and_moves_agree_in_random_games(game, rules):
    rng = random.Random(f"{game} {rules}")
    g = monte.Game(game, rules=rules)
    for _ in range(120):
        if g.is_over():
            break
        moves = g.legal_moves()
        actions = g.legal_actions()
        assert actions == sorted({g.move_to_action(m) for m in moves})
        assert len(actions) == len(moves)
        assert sorted(g.action_to_move(a) for a in actions) == sorted(moves)
        mask = g.legal_action_mask()
        assert mask.dtype == np.bool_ and np.flatnonzero(mask).tolist() == actions
        action = rng.choice(actions)
        move = g.action_to_move(action)
        twin = g.clone()
        assert g.apply_action(action) == move == twin.play(move)
        assert g.fen() == twin.fen()


def test_salta_actions_are_numbered_as_documented():
    g = monte.Game("salta")
    # (from * 50 + to) * 2 + call; a1 = 0, c1 = 1, ..., c3 = 11, d4 = 16.
    assert g.move_to_action("c3-d4") == (11 * 50 + 16) * 2
    assert g.action_to_move((11 * 50 + 16) * 2 + 1) == "c3-d4+"
    g.play("c3-d4")
    # Black sees the board turned half a turn: h8-g7 is the same action.
    assert g.move_to_action("h8-g7") == (11 * 50 + 16) * 2


def test_a_jump_with_two_paths_is_one_action():
    # docs/rules.md's example: Black's g5 jumps to c5 over e3 (one path).
    g = monte.Game("salta")
    for move in ["e3-d4", "h8-g7", "g3-f4", "g7-h6", "i3-j4", "h6-g5", "j4-i5"]:
        g.play(move)
    action = g.move_to_action("g5:c5")
    assert g.action_to_move(action) == "g5:e3:c5" and g.move_to_action("g5:e3:c5") == action
    assert action in g.legal_actions()


def test_focus_actions_are_numbered_as_documented():
    g = monte.Game("focus")
    b3 = 11  # c1 = 0, ..., b2 = 4, ..., a3 = 10, b3 = 11
    assert g.action_to_move((b3 * 4 + 3) * 5) == "b3-a3"  # west, one piece
    assert g.action_to_move(1040 + b3 * 4 + 2) == "b3xd3"  # a jump east
    assert g.action_to_move(1248 + 51) == "@f8" and g.action_to_move(1300) == "pass"


@pytest.mark.parametrize(
    ("game", "call", "message"),
    [
        ("salta", lambda g: g.apply_action(5001), r"action 5001: expected 0 to 5000"),
        ("salta", lambda g: g.apply_action(-1), r"action -1: out of range"),
        ("salta", lambda g: g.apply_action(0), r"action 0: no move of the salta board"),
        ("salta", lambda g: g.apply_action(3), r"action 3: a1:c1\+: not a legal move"),
        ("salta", lambda g: g.action_to_move(2**70), "out of range"),
        ("salta", lambda g: g.move_to_action("c3-c5"), "a step goes to a diagonally adjacent square"),
        ("focus", lambda g: g.action_to_move((11 * 4 + 3) * 5 + 1), "no move of the focus board"),
        ("focus", lambda g: g.apply_action(1300), "pass: not a legal move"),
        ("focus", lambda g: g.observation("red"), "side `red`"),
    ],
)
def test_bad_actions_raise_and_change_nothing(game, call, message):
    g = monte.Game(game)
    before = (g.fen(), g.history())
    with pytest.raises(ValueError, match=message):
        call(g)
    assert (g.fen(), g.history()) == before


def test_a_finished_game_has_no_actions():
    g = monte.Game("salta", fen=SALTA_WIN_AVAILABLE)
    g.apply_action(g.move_to_action("e7-f8"))
    assert g.is_over() and g.legal_actions() == [] and not g.legal_action_mask().any()
    with pytest.raises(ValueError, match="the game is over"):
        g.move_to_action("a3-b4")


def test_salta_planes():
    g = monte.Game("salta")
    planes = g.observation()
    assert planes.dtype == np.float32
    # S1 (plane 0) on a1: row 0, column 0; Black's s1 (plane 15) on j10.
    assert planes[0, 0, 0] == 1 and planes[0].sum() == 1
    assert planes[15, 9, 9] == 1 and planes[:30].sum() == 30
    assert planes[31].min() == 1 and planes[32].max() == 0  # White to move; no move limit
    # Black, waiting, sees the symmetric start as White does.
    assert np.array_equal(g.observation("black"), planes)
    # A call: the called piece, seen from the side that must answer it.
    for _ in range(200):
        called = [m for m in g.legal_moves() if m.endswith("+")]
        if called:
            break
        g.play(g.legal_moves()[len(g.history()) % len(g.legal_moves())])
    g.play(called[0])
    square = called[0].rstrip("+").replace("-", ":").split(":")[-1]
    file, rank = ord(square[0]) - ord("a"), int(square[1:]) - 1
    mover = g.side_to_move
    row, column = (rank, file) if mover == "white" else (9 - rank, 9 - file)
    call_plane = g.observation()[30]
    assert call_plane.sum() == 1 and call_plane[row, column] == 1


def test_salta_move_limit_plane():
    g = monte.Game("salta", rules="seed,move-limit=10")
    g.play("c3-d4")
    assert np.allclose(g.observation()[32], 1 / 20)


def test_focus_planes():
    g = monte.Game("focus", fen=FOCUS_LAST_STACK.replace(" w 0 0 50", " w 3 5 50"))
    planes = g.observation()
    # f6 holds b, w, w from the bottom: White's at heights 2 and 3, Black's at 1.
    assert (planes[5, 5, 5], planes[1, 5, 5], planes[2, 5, 5], planes[0, 5, 5]) == (1, 1, 1, 0)
    assert np.allclose(planes[10], 3 / 18) and np.allclose(planes[11], 5 / 18)
    black = g.observation("black")
    # Black sees the board turned: f6 is row 2, column 2, and its reserve first.
    assert (black[0, 2, 2], black[6, 2, 2], black[7, 2, 2]) == (1, 1, 1)
    assert np.allclose(black[10], 5 / 18) and black[12].min() == 1  # still White to move


@pytest.mark.parametrize("game", monte.GAMES)
def test_games_pickle(game):
    g = monte.Game(game, rules="seed,move-limit=60")
    for ply in range(9):
        g.play(g.legal_moves()[(5 * ply + 1) % len(g.legal_moves())])
    back = pickle.loads(pickle.dumps(g))
    assert (back.kind, back.rules, back.start_fen(), back.fen(), back.history()) == (
        g.kind, g.rules, g.start_fen(), g.fen(), g.history(),
    )  # fmt: skip
    later = monte.Game(game, fen=g.fen())
    assert pickle.loads(pickle.dumps(later)).start_fen() == g.fen()


def test_a_finished_game_pickles():
    g = monte.Game("focus", fen=FOCUS_LAST_STACK)
    g.play("d3xd5")
    assert pickle.loads(pickle.dumps(g)).result() == g.result()


def test_numpy_ints_are_actions():
    g = monte.Game("salta")
    mask = g.legal_action_mask()
    assert g.apply_action(np.flatnonzero(mask)[0]) == g.history()[0]
    assert g.action_to_move(np.int16(5000)) == "pass"
    with pytest.raises(TypeError):
        g.apply_action("c3-d4")
