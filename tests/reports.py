"""Reports of `judge verify --json` and `judge run --json` compared between two runs of the same judging."""

from __future__ import annotations

import re

VARYING = ("time_s", "memory_kib", "elapsed_s", "notes")  # what changes from one run to the next
MEASURED = {"TLE": "<time>", "MLE": "<memory>"}  # messages that quote a measurement


def comparable(report: object) -> object:
    """The report without what changes from run to run: times and memory (also in TLE's and MLE's messages),
    the time-limit notes, and the dates and durations compilers print (SBCL's "written <date>")."""
    if isinstance(report, dict):
        if report.get("verdict") in MEASURED and "message" in report:
            report = {**report, "message": MEASURED[report["verdict"]]}
        if isinstance(report.get("compile_message"), str):
            report = {**report, "compile_message": re.sub(r"\d+", "#", report["compile_message"])}
        return {k: comparable(v) for k, v in report.items() if k not in VARYING}
    if isinstance(report, list):
        return [comparable(v) for v in report]
    return report
