"""Defaults that `judge`'s command line shows and the modules below it use.

It imports nothing of the judge, so that the argument tree (judge/commands/cli.py) is built without loading the
commands: each command's module is imported when it runs. `judge --help` stays quick, and so does the start
of a Dask worker process, which imports the coordinator's main module (the `judge` command) again.
"""

from __future__ import annotations

import os

GRADE_DB_NAME = "grade.sqlite"  # `judge grade`: OUT/grade.sqlite
SERVE_NICENESS = 10  # `judge serve`: the runs' nice value; judging yields the CPU to the web server (docs/serve.md)
FUZZ_SHRINK_TIME_S = 120.0  # after this, inputs not judged yet count as passing: shrinking ends quickly
FUZZ_SEED = 1  # `judge grade --fuzz-seed`: fixed, so that the same contest gives the same board


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
