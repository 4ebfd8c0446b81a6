"""Typesetting a problem statement as a PDF with Kattis' problemtools (``problem2pdf``), for `judge serve`'s
statements (services/problems/statements.py). Not a sandboxed run: the tool is the organizer's, run on the organizer's
own package (as `verifyproblem` is, tests/test_problemtools.py). It runs at the lowest priority (nice 19,
through coreutils' ``nice``) with a time limit, in a folder of its own. Never changes a verdict
(judging/identity.NOT_VERDICT_FILES)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

TYPESET_TIMEOUT_S = 300.0
NICENESS = 19


def problem2pdf(tool: Path, package: Path, dest: Path, timeout_s: float = TYPESET_TIMEOUT_S) -> str | None:
    """Typeset ``package``'s statement (English) into ``dest`` with ``tool`` (problemtools' problem2pdf).
    Returns None when ``dest`` holds a PDF, else why not (one line). ``dest`` appears whole or not at all."""
    nice = shutil.which("nice")
    with tempfile.TemporaryDirectory(prefix="typeset-", dir=dest.parent) as work:
        out = Path(work) / "statement.pdf"
        argv = [str(tool), "-q", "-l", "en", "-o", str(out), str(package)]
        if nice is not None:
            argv = [nice, "-n", str(NICENESS), *argv]
        try:
            done = subprocess.run(  # noqa: S603 - the organizer's own tool, not a shell
                argv, cwd=work, capture_output=True, timeout=timeout_s, check=False, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired:
            return f"{tool.name} took more than {timeout_s:g} s"
        except OSError as exc:
            return f"{tool.name}: {type(exc).__name__}: {exc}"
        if done.returncode != 0 or not out.is_file() or out.read_bytes()[:5] != b"%PDF-":
            said = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
            return f"{tool.name} exited with {done.returncode}" + (f": {said[-1][:300]}" if said else "")
        out.chmod(0o600)
        out.replace(dest)
    return None
