"""The examples of python/examples run, at a small size: the self-play
policy beats random play, and the benchmark prints its table."""

import importlib.util
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_policy_learnt_from_self_play_beats_random_play(tmp_path):
    selfplay = load("selfplay")
    out = tmp_path / "selfplay.npz"
    wins, draws, losses = selfplay.main(["--games", "16", "--match-games", "40", "--out", str(out)])
    data = np.load(out)
    positions = len(data["actions"])
    assert positions == 16 * 60  # these seeded games all run to the move limit, 30 moves a side
    assert data["observations"].shape == (positions, 33, 10, 10) and data["masks"].shape == (positions, 5001)
    assert data["masks"][np.arange(positions), data["actions"]].all()  # the moves played were legal
    assert set(np.unique(data["outcomes"])) <= {-1.0, 0.0, 1.0}
    assert (np.sign(data["margins"]) == data["outcomes"]).all()  # won by steps, lost by steps, or drawn
    assert wins + draws + losses == 40 and wins >= 2 * losses


def test_the_benchmark_prints_every_row(capsys):
    load("bench").main(["--seconds", "0.01"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["salta", "focus"]
    rows = {line[:28].strip(): line[28:].split() for line in lines[2:]}
    assert len(rows) == 13 and all(len(figures) == 2 for figures in rows.values())
    assert "BatchEnv 1024, step_random" in rows


def test_the_benchmark_runs_chosen_rows_by_cpu_time(capsys):
    load("bench").main(["--seconds", "0.01", "--games", "focus", "--rows", "step_random", "--cpu"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("plies per second of CPU time")
    rows = {line[:28].strip(): line[28:].split() for line in lines[2:]}
    assert list(rows) == [f"BatchEnv {n}, step_random" for n in (1, 64, 1024)]
    assert all(len(figures) == 1 and float(figures[0].replace(",", "")) > 0 for figures in rows.values())
