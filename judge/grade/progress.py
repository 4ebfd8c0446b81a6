"""Progress of `judge grade`: a bar redrawn in place on a terminal, plain lines otherwise (logs, CI)."""

from __future__ import annotations

import shutil
import time
from typing import TextIO

from judge.fuzz.explanation import ExplainStatus, Explanation
from judge.fuzz.outcome import FuzzStatus
from judge.grade.discovery import Entry
from judge.grade.explaining import ExplainListener
from judge.grade.fuzzing import FuzzListener, outcome_from_json
from judge.grade.schedule import Listener
from judge.grade.storage import StoredExplanation, StoredFuzz, StoredRun

BAR_WIDTH = 24


def printable(text: str) -> str:
    """Contestant-controlled text for a terminal: no control characters or escape sequences."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def describe(run: StoredRun | None, note: str) -> str:
    if run is None:
        return f"skipped: {note}"
    r = run.result
    metric = f", {r.metric_name} {r.metric:g}" if r.metric is not None and r.metric_name else ""
    return f"{r.verdict.value} {r.score:g}/{r.max_score:g}{metric}"


def describe_fuzz(fuzzed: StoredFuzz) -> str:
    o = outcome_from_json(fuzzed.outcome)
    cex = o.counterexample
    if o.status is FuzzStatus.COUNTEREXAMPLE and cex is not None:
        return f"{o.scoreboard_note()} ({cex.verdict.value} after {o.examples} examples)"
    if o.status is FuzzStatus.ERROR:
        return f"{o.scoreboard_note()}: {o.message.strip().splitlines()[0] if o.message.strip() else ''}"
    return o.scoreboard_note() or o.status.value


def describe_explanation(stored: StoredExplanation) -> str:
    x = Explanation.from_json(stored.explanation)
    if x.status is ExplainStatus.FOUND and x.failure is not None:
        return f"counterexample ({x.failure.value}, {len(x.input or b'')} bytes, {x.elapsed_s:.1f} s)"
    first = x.note.strip().splitlines()[0] if x.note.strip() else ""
    return f"{x.status.value}: {first}" if first else x.status.value


class Progress(Listener, FuzzListener, ExplainListener):
    def __init__(self, stream: TextIO, *, tty: bool) -> None:
        self.stream = stream
        self.tty = tty
        self.total = 0
        self.count = 0
        self.started = time.monotonic()

    def start(self, total: int, reused: int) -> None:
        self.total, self.count = total, reused
        self.started = time.monotonic()
        todo = total - reused
        if todo == 0:
            self._line(f"all {total} submissions already judged (stored results reused)")
        else:
            self._line(f"judging {todo} of {total} submissions ({reused} stored results reused)")

    def done(self, entry: Entry, run: StoredRun | None, note: str) -> None:
        self.count += 1
        text = printable(f"{entry.contestant}/{entry.problem}: {describe(run, note)}")
        if not self.tty:
            self._line(f"[{self.count}/{self.total}] {text}")
            return
        filled = BAR_WIDTH * self.count // max(self.total, 1)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        elapsed = time.monotonic() - self.started
        line = f"[{bar}] {self.count}/{self.total} {elapsed:5.0f}s  {text}"
        width = shutil.get_terminal_size((100, 20)).columns - 1
        self.stream.write("\r\x1b[K" + line[:width])
        if self.count >= self.total:
            self.stream.write("\n")
        self.stream.flush()

    def fuzz_start(self, total: int, reused: int) -> None:
        self.total, self.count = total, reused
        self.started = time.monotonic()
        if total == reused:
            if total:
                self._line(f"fuzz: all {total} submissions with full score already fuzzed (outcomes reused)")
            return
        self._line(f"fuzzing {total - reused} of {total} submissions with full score ({reused} reused)")

    def fuzz_done(self, entry: Entry, fuzzed: StoredFuzz | None, note: str) -> None:
        self.count += 1
        what = note if fuzzed is None else f"{entry.contestant}/{entry.problem}: {describe_fuzz(fuzzed)}"
        self._line(printable(f"[fuzz {self.count}/{self.total}] {what}"))

    def explain_start(self, total: int, reused: int) -> None:
        self.total, self.count = total, reused
        if total == reused:
            if total:
                self._line(f"explain: all {total} rejected submissions already searched (reused)")
            return
        self._line(f"explain: searching {total - reused} of {total} rejected submissions ({reused} reused)")

    def explain_done(self, entry: Entry, stored: StoredExplanation | None, note: str) -> None:
        self.count += 1
        what = note if stored is None else f"{entry.contestant}/{entry.problem}: {describe_explanation(stored)}"
        self._line(printable(f"[explain {self.count}/{self.total}] {what}"))

    def _line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()
