"""Plain-text rendering of results for the terminal (no logic, no processes)."""

from __future__ import annotations

from collections.abc import Sequence

from judge.judging.results import SubmissionResult


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in rows)
    return "\n".join(out)


def warnings_banner(warnings: Sequence[str]) -> str:
    if not warnings:
        return ""
    bar = "!" * 78
    body = "\n".join(f"!! {w}" for w in warnings)
    return f"{bar}\n{body}\n{bar}\n"


def submission_report(result: SubmissionResult) -> str:
    parts = [warnings_banner(result.sandbox_warnings)]
    parts.append(f"problem {result.problem}   source {result.source}   language {result.language}")
    if result.compile_message.strip():
        parts.append("compiler says:\n" + result.compile_message.rstrip())
    if result.tests:
        rows = []
        for t, score in zip(result.tests, result.test_scores, strict=True):
            first = t.message.strip().splitlines()[-1] if t.message.strip() else ""  # the last word decided
            rows.append([t.name, t.verdict.value, f"{score:g}", f"{t.time_s:.3f}", str(t.memory_kib), first[:70]])
        parts.append(table(["test", "verdict", "score", "cpu s", "mem KiB", "message"], rows))
    metric = f"   {result.metric_name} {result.metric:g}" if result.metric is not None else ""
    parts.append(
        f"verdict {result.verdict.value}   score {result.score:g}/{result.max_score:g}   "
        f"max time {result.time_s:.3f} s   max memory {result.memory_kib} KiB{metric}"
    )
    return "\n".join(p for p in parts if p)
