"""Shared helpers of the monte package's tests."""

import os
from pathlib import Path

# Before numpy loads: the example's small matrices gain nothing from the
# linear algebra library's threads, which on a busy machine cost a lot.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# The Rust crates' test data: the Python package must agree with them.
RULES_TESTS = Path(__file__).resolve().parents[2] / "crates" / "rules" / "tests"


def seconds_to_stop_by_ctrl_c(call, after=0.3):
    """Run `call()` while a timer thread sends this process SIGINT (Ctrl-C)
    `after` seconds in; check that it raises KeyboardInterrupt, and return
    the seconds from the signal to the exception."""
    import signal
    import threading
    import time

    import pytest

    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(after, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
    assert sent, "the call ended before the signal"
    return time.monotonic() - sent[0]
