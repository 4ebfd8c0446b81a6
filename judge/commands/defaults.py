"""Defaults that `judge`'s command line shows and that belong to no concern below it.

It imports nothing of the judge, so that the argument tree (judge/commands/cli.py) is built without loading the
commands: each command's module is imported when it runs. `judge --help` stays quick, and so does the start
of a Dask worker process, which imports the coordinator's main module (the `judge` command) again. The
defaults of a concern live with it, in modules as light as this one: judge/fuzz/options.py (`judge fuzz`)
and judge/grade/options.py (`judge grade`).
"""

from __future__ import annotations

import argparse
import os

SERVE_NICENESS = 10  # `judge serve`: the runs' nice value; judging yields the CPU to the web server (docs/serve.md)
BOARD_INTERVAL_S = 1.0  # `judge serve --board-interval`: at most one new scoreboard per second (docs/serve.md)
FEED_INTERVAL_S = 0.5  # `judge serve --feed-interval`: open event feeds woken at most twice a second (docs/serve.md)
KEEP_ALIVE_S = 30  # `judge serve`: an idle kept-alive connection is closed after this long (nginx: 75 s)
REQUEST_THREADS = 4  # `judge serve --request-threads`: requests served in worker threads at once (docs/serve.md)
# `judge serve`: how long a thread keeps the GIL before it must hand it over (Python's default). 1 ms (tried
# with 40 request threads) was worse with 4: each thread waiting for the GIL wakes once per interval, and
# in the 500-team rush those wakeups took cores from the event loop (docs/benchmarks.md, 2026-11-26)
SWITCH_INTERVAL_S = 0.005
FUZZ_NICENESS = 19  # `judge serve --fuzz`: live fuzzing's runs, the lowest priority: judging wins the CPU


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds, more than 0 (and finite)."""
    value = non_negative_seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds: {text!r}")
    return value


def non_negative_seconds(text: str) -> float:
    """An argparse type: a number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds: {text!r}")
    return value


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
