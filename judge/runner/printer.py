"""Sending a team's print-out to a printer (issue 30: `judge serve`'s printing): contest.yaml's
``print_command`` (e.g. ``lp -d lab``) run with the text on its standard input. Not a sandboxed run: the
command is the organizer's, the text is data. Never changes a verdict (judging/identity.NOT_VERDICT_FILES)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

PRINT_TIMEOUT_S = 30.0


def send_to_printer(argv: Sequence[str], data: bytes, timeout_s: float = PRINT_TIMEOUT_S) -> str | None:
    """Run ``argv`` with ``data`` on its standard input. Returns None when it exited 0, else why not (one
    line)."""
    try:
        done = subprocess.run(  # noqa: S603 - the organizer's own command, not a shell
            list(argv), input=data, capture_output=True, timeout=timeout_s, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{argv[0]}: {type(exc).__name__}: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{argv[0]} exited with {done.returncode}" + (f": {said[-1]}" if said else "")
    return None
