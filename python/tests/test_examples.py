"""The examples of python/examples run, at a small size."""

import importlib.util
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_prints_every_row(capsys):
    load("bench").main(["--seconds", "0.01"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["salta", "focus"]
    rows = {line[:28].strip(): line[28:].split() for line in lines[2:]}
    assert len(rows) == 13 and all(len(figures) == 2 for figures in rows.values())
    assert "BatchEnv 1024, step_random" in rows
