"""A diff of a run's output against the test's answer (issue 47), for the jury's pages: pure, bounded (the
first ``limit_bytes`` of each, at most ``max_lines`` lines), side by side, with long stretches of equal
lines folded around the differences. Also used for two submissions' sources (the compare page)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

LIMIT_BYTES = 8192
MAX_LINES = 400
CONTEXT = 3  # equal lines kept around a difference; longer equal stretches are folded


@dataclass(frozen=True)
class DiffRow:
    """One row of the side-by-side diff: ``same``, ``changed`` (both sides differ), ``extra`` (a line only
    on the left: the output), ``missing`` (only on the right: the answer), or ``fold`` (``folded`` equal lines
    not shown)."""

    kind: str
    left_no: int | None = None  # line numbers from 1
    left: str | None = None
    right_no: int | None = None
    right: str | None = None
    folded: int = 0


@dataclass(frozen=True)
class Side:
    """What one side of the diff shows of its text."""

    lines: tuple[str, ...]
    cut: bool  # more than was compared: the first ``limit_bytes`` / ``max_lines`` only
    binary: bool  # not UTF-8 (shown with replacement characters)


@dataclass(frozen=True)
class TextDiff:
    rows: tuple[DiffRow, ...]
    left: Side
    right: Side
    first_difference: int | None  # the line (of the left, from 1) where they first differ; None: none

    @property
    def identical(self) -> bool:
        return self.first_difference is None and not self.left.cut and not self.right.cut

    @property
    def whitespace_only(self) -> bool:
        """They differ, but not in their tokens (the default output checker would accept it)."""
        return (
            self.first_difference is not None
            and " ".join(self.left.lines).split() == " ".join(self.right.lines).split()
        )


def side(
    data: bytes, total_bytes: int | None = None, *, limit_bytes: int = LIMIT_BYTES, max_lines: int = MAX_LINES
) -> Side:
    """The first ``limit_bytes`` of ``data`` (``total_bytes``: its whole size, when more was written than
    ``data`` holds) as at most ``max_lines`` lines."""
    head = data[:limit_bytes]
    try:
        text, binary = head.decode("utf-8"), False
    except UnicodeDecodeError as exc:
        binary = exc.start < len(head) - 3  # a character cut at the end of the head is not binary
        text = head.decode("utf-8", errors="replace")
    lines = text.splitlines()
    cut = len(data) > limit_bytes or (total_bytes is not None and total_bytes > len(head)) or len(lines) > max_lines
    return Side(tuple(lines[:max_lines]), cut, binary)


def _rows(a: tuple[str, ...], b: tuple[str, ...]) -> list[DiffRow]:
    out: list[DiffRow] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += [
                DiffRow("same", i + 1, a[i], j + 1, b[j]) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        pairs = min(i2 - i1, j2 - j1)
        out += [DiffRow("changed", i1 + k + 1, a[i1 + k], j1 + k + 1, b[j1 + k]) for k in range(pairs)]
        out += [DiffRow("extra", i + 1, a[i]) for i in range(i1 + pairs, i2)]
        out += [DiffRow("missing", right_no=j + 1, right=b[j]) for j in range(j1 + pairs, j2)]
    return out


def _fold(rows: list[DiffRow], context: int) -> list[DiffRow]:
    """Equal stretches longer than ``2 * context + 1`` lines folded to their ``context`` first and last."""
    out: list[DiffRow] = []
    i = 0
    while i < len(rows):
        if rows[i].kind != "same":
            out.append(rows[i])
            i += 1
            continue
        j = i
        while j < len(rows) and rows[j].kind == "same":
            j += 1
        keep_head = context if i > 0 else 0  # a stretch at the start (or the end) keeps context on one side
        keep_tail = context if j < len(rows) else 0
        if j - i > keep_head + keep_tail + 1:
            out += rows[i : i + keep_head]
            out.append(DiffRow("fold", folded=j - i - keep_head - keep_tail))
            out += rows[j - keep_tail : j]
        else:
            out += rows[i:j]
        i = j
    return out


def diff_text(
    left: bytes,
    right: bytes,
    *,
    left_bytes: int | None = None,
    right_bytes: int | None = None,
    limit_bytes: int = LIMIT_BYTES,
    max_lines: int = MAX_LINES,
    context: int | None = CONTEXT,
) -> TextDiff:
    """The side-by-side diff of ``left`` (a run's output) against ``right`` (the answer), each its first
    ``limit_bytes`` (``*_bytes``: the whole sizes, when the bytes given are already a head); ``context``:
    equal lines kept around a difference (None: every line)."""
    a = side(left, left_bytes, limit_bytes=limit_bytes, max_lines=max_lines)
    b = side(right, right_bytes, limit_bytes=limit_bytes, max_lines=max_lines)
    rows = _rows(a.lines, b.lines)
    first = next((r.left_no or (r.right_no and len(a.lines) + 1) for r in rows if r.kind != "same"), None)
    shown = rows if context is None else _fold(rows, context)
    return TextDiff(tuple(shown), a, b, first)
