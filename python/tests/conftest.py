"""Shared helpers of the monte package's tests."""

from pathlib import Path

# The Rust crates' test data: the Python package must agree with them.
RULES_TESTS = Path(__file__).resolve().parents[2] / "crates" / "rules" / "tests"
