"""The engine through Python: legal moves at every strength, ValueError
for bad settings, and searches that let other Python threads run."""

import os
import signal
import threading
import time

import pytest

import monte


@pytest.mark.parametrize("game", monte.GAMES)
@pytest.mark.parametrize("settings", [{"level": 1}, {"level": 6}, {"depth": 3}, {"nodes": 2000}])
def test_the_engine_plays_legal_moves(game, settings):
    engine = monte.Engine(**settings, hash_mb=1)
    g = monte.Game(game)
    for _ in range(4):
        move = engine.best_move(g)
        assert move in g.legal_moves()
        g.play(move)


@pytest.mark.parametrize("game", monte.GAMES)
def test_an_analysis_plays_its_line(game):
    g = monte.Game(game)
    analysis = monte.Engine(depth=4, hash_mb=1).analyse(g)
    assert analysis.pv[0] == analysis.best_move
    assert analysis.depth >= 1 and analysis.nodes > 0 and analysis.time_ms >= 0
    assert (analysis.score is None) == (analysis.win_in is not None or analysis.loss_in is not None)
    line = g.clone()
    for move in analysis.pv:
        line.play(move)
    assert g.moves_played == 0  # the game analysed is left alone


def test_a_fixed_search_is_repeatable():
    g = monte.Game("salta")
    g.play("c3-d4")
    first, second = (monte.Engine(nodes=3000, hash_mb=1).analyse(g) for _ in range(2))
    assert (first.best_move, first.pv, first.score, first.nodes) == (second.best_move, second.pv, second.score, second.nodes)


def test_the_engine_takes_a_win():
    from test_rules import SALTA_WIN_AVAILABLE

    game = monte.Game("salta", fen=SALTA_WIN_AVAILABLE)
    assert monte.Engine(depth=3, hash_mb=1).best_move(game) == "e7-f8"
    # Reported as the win in one it is.
    analysis = monte.Engine(depth=3, hash_mb=1).analyse(game)
    assert (analysis.best_move, analysis.win_in, analysis.score) == ("e7-f8", 1, None)


def test_a_finished_game_has_no_move():
    g = monte.Game("salta", rules="seed,move-limit=1")
    g.play("c3-d4")
    g.play("h8-g7")
    with pytest.raises(ValueError, match="the game is over"):
        monte.Engine(level=1).best_move(g)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({}, "give a level"),
        ({"level": 0}, "level 0: expected 1 to 8"),
        ({"level": 9}, "level 9"),
        ({"level": 3, "nodes": 100}, "not both"),
        ({"depth": 0}, "at least 1"),
        ({"nodes": -5}, "nodes -5"),
        ({"movetime_ms": 10, "threads": 0}, "threads 0"),
        ({"level": 2, "hash_mb": 0}, "hash_mb 0"),
    ],
)
def test_bad_settings_raise_value_error(settings, message):
    with pytest.raises(ValueError, match=message):
        monte.Engine(**settings)


def test_reprs():
    assert repr(monte.Engine(level=4)) == "Engine(level=4)"
    assert repr(monte.Engine(nodes=10, depth=2)) == "Engine(nodes=10, depth=2)"
    assert repr(monte.Engine(depth=1).analyse(monte.Game("focus"))).startswith("Analysis(best_move='")


@pytest.mark.parametrize("work", ["search", "perft"])
def test_thinking_lets_other_threads_run(work):
    # While a search (half a second) or two perfts (about half a second
    # each on a quiet machine) run on another thread, this thread keeps
    # running, and may even play on the same game: it never waits a fifth
    # of a second for the GIL or the game.
    g = monte.Game("salta")
    g.play("c3-d4")
    engine = monte.Engine(movetime_ms=500, hash_mb=1)
    target = {"search": lambda: engine.best_move(g), "perft": lambda: [g.perft(8) for _ in range(2)]}[work]
    thread = threading.Thread(target=target)
    thread.start()
    started = last = time.monotonic()
    longest_wait = 0.0
    while thread.is_alive():
        g.play(g.legal_moves()[0])
        g.undo()
        now = time.monotonic()
        longest_wait = max(longest_wait, now - last)
        last = now
        time.sleep(0.001)
    thread.join()
    assert last - started >= 0.3
    assert longest_wait < 0.2
    assert g.history() == ["c3-d4"]


def test_ctrl_c_stops_a_search():
    engine = monte.Engine(movetime_ms=60_000, hash_mb=1)
    g = monte.Game("salta")
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        engine.best_move(g)
    assert time.monotonic() - started < 5
    # The game is untouched, and searches go on working.
    assert monte.Engine(depth=1).best_move(g) in g.legal_moves() and g.moves_played == 0
