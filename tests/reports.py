"""Reports of `judge verify --json` and `judge run --json` compared between two runs of the same judging."""

from __future__ import annotations

VARYING = ("time_s", "memory_kib", "elapsed_s", "notes")  # what changes from one run to the next


def comparable(report: object) -> object:
    """The report without what changes from run to run: times, memory, the time-limit notes, a TLE's figures."""
    if isinstance(report, dict):
        if report.get("verdict") == "TLE" and "message" in report:
            report = {**report, "message": "<time>"}
        return {k: comparable(v) for k, v in report.items() if k not in VARYING}
    if isinstance(report, list):
        return [comparable(v) for v in report]
    return report
