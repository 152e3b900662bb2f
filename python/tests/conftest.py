"""Shared helpers of the monte package's tests."""

import os
from pathlib import Path

# Before numpy loads: the example's small matrices gain nothing from the
# linear algebra library's threads, which on a busy machine cost a lot.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# The Rust crates' test data: the Python package must agree with them.
RULES_TESTS = Path(__file__).resolve().parents[2] / "crates" / "rules" / "tests"
