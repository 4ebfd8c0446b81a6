"""Problem statements for the contestants (issue 43): per problem package, the PDF statement and the
attachments the API's problem object lists and the problem page links to.

The PDF is the package's own (judge/package/statements.statement_pdf); without one, when problemtools'
``problem2pdf`` is installed (`judge serve` looks for it at the start), one typeset from the package's statement,
kept under the data directory (``CONTEST_DIR/statements/``, owner-only) per package version: the key is a hash
of its statement and problem.yaml (``statement_key``), so a restart or a new version with the same statement
typesets nothing again. Typesetting takes seconds of CPU per problem, so it never runs in a request: a thread
of its own typesets, one problem at a time at the lowest priority, every problem without a PDF when the server
starts (well before the contest, usually) and a new package version's when it is first asked for. Until a PDF
is there the problem lists its Markdown (or LaTeX) statement, as before; when it is made the problems are
published again (``on_ready``), so the event feed carries the PDF. A statement that does not typeset is said
once in the log and not tried again until the package changes.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.package.problem import Problem
from judge.package.statements import attachments, statement_key, statement_pdf
from judge.serve.model.apijson import problem_json
from judge.serve.model.contest import ContestProblem

# (package folder, destination PDF) -> None when it was written, else why not (runner/typeset.problem2pdf)
Typeset = Callable[[Path, Path], "str | None"]
CACHE = "statements"


@dataclass(frozen=True)
class ProblemFiles:
    """What a problem package offers the contestants besides its samples and its Markdown statement."""

    pdf: Path | None  # the PDF statement: the package's own, or typeset (None: none yet, or none at all)
    attachments: tuple[Path, ...] = ()


@dataclass(frozen=True)
class _Known:
    own_pdf: Path | None
    attachments: tuple[Path, ...]
    key: str


class Statements:
    """The PDF and attachments of each problem package, and the thread that typesets missing PDFs."""

    def __init__(
        self,
        cache: Path | None,
        typeset: Typeset | None = None,
        log: Callable[[str], None] = lambda line: None,
        on_ready: Callable[[], None] = lambda: None,
    ) -> None:
        self._cache = cache
        self._typeset = typeset if cache is not None else None
        self._log = log
        self.on_ready = on_ready  # set by the server's wiring once it exists (it publishes the problems)
        self._known: dict[Path, _Known] = {}
        self._lock = threading.Lock()
        self._queued: set[str] = set()
        self._failed: set[str] = set()
        self._todo: queue.Queue[tuple[str, Problem] | None] = queue.Queue()
        self._thread: threading.Thread | None = None

    @property
    def typesets(self) -> bool:
        """Whether missing PDFs are typeset (problem2pdf was found)."""
        return self._typeset is not None

    def files(self, problem: Problem) -> ProblemFiles:
        """The problem's PDF (the package's own, else a typeset one if made already) and attachments; a PDF
        missing and not tried yet is queued for typesetting."""
        known = self._known.get(problem.path)
        if known is None:
            known = _Known(statement_pdf(problem), tuple(attachments(problem)), statement_key(problem))
            self._known[problem.path] = known  # one dict item, replaced whole: safe across threads
        if known.own_pdf is not None:
            return ProblemFiles(known.own_pdf, known.attachments)
        made = self._made(problem, known.key)
        if made is None:
            self._queue(problem, known.key)
        return ProblemFiles(made, known.attachments)

    def _made(self, problem: Problem, key: str) -> Path | None:
        if self._cache is None:
            return None
        path = self._cache / f"{problem.id}-{key}.pdf"
        return path if path.is_file() else None

    def _queue(self, problem: Problem, key: str) -> None:
        if self._typeset is None or problem.statement is None:
            return
        with self._lock:
            if key in self._queued or key in self._failed:
                return
            self._queued.add(key)
        self._todo.put((key, problem))

    def prepare(self, problems: Iterable[Problem]) -> None:
        """Look at every problem now (queueing the PDFs to typeset)."""
        for p in problems:
            self.files(p)

    def start(self) -> None:
        """The typesetting thread (nothing to start when problem2pdf is not there); the work folders a
        typesetting cut short by the last stop left in the cache are removed first."""
        if self._cache is not None and self._cache.is_dir():
            for left in self._cache.glob("typeset-*"):
                shutil.rmtree(left, ignore_errors=True)
        if self._typeset is not None and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="statements", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Ask the thread to end after what it typesets now; wait for it 2 s at most (a typesetting may take
        minutes: the server's stop does not wait for it; the thread is a daemon, and what it leaves is a
        work folder in the cache, removed at the next start, never a half-written PDF)."""
        if self._thread is not None:
            self._todo.put(None)
            self._thread.join(timeout=2.0)
            self._thread = None

    def run_pending(self) -> int:
        """Typeset what is queued, in the calling thread (tests, tools). Returns how many were tried."""
        n = 0
        while True:
            try:
                item = self._todo.get_nowait()
            except queue.Empty:
                return n
            if item is not None:
                self._one(*item)
                n += 1

    def _run(self) -> None:
        while (item := self._todo.get()) is not None:
            try:
                self._one(*item)
            except Exception as exc:  # noqa: BLE001 - keep the thread; say why
                self._log(f"statements: {type(exc).__name__}: {exc}")

    def _one(self, key: str, problem: Problem) -> None:
        assert self._typeset is not None and self._cache is not None
        why, made = None, self._made(problem, key) is None
        if made:
            self._cache.mkdir(mode=0o700, exist_ok=True)
            os.chmod(self._cache, 0o700)
            dest = self._cache / f"{problem.id}-{key}.pdf"
            why = self._typeset(problem.path, dest)
            if why is None:
                dest.chmod(0o600)  # owner-only, as everything of the contest's data directory
        with self._lock:
            self._queued.discard(key)
            if why is not None:
                self._failed.add(key)
        if why is not None:
            self._log(f"statements: {problem.id}: no PDF: {why} (its Markdown or LaTeX statement is served)")
            return
        if made:
            self._log(f"statements: {problem.id}: PDF typeset with problem2pdf")
        self.on_ready()


def problem_doc(p: ContestProblem, contest_id: str, statements: Statements) -> dict[str, Any]:
    """The API's problem object, with the PDF statement and the attachments the package offers now."""
    files = statements.files(p.problem)
    return problem_json(p, contest_id, pdf=files.pdf is not None, attachments=[f.name for f in files.attachments])


def cache_dir(contest_root: Path) -> Path:
    """Where typeset PDFs are kept: beside the database (the data directory)."""
    return contest_root / CACHE
