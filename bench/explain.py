"""Benchmark for counterexamples of rejected submissions (issue 46, docs/explain.md).

Over every rejected submission the project ships on a problem with a ``fuzz.py``: the demo contest's
(``submissions/<contestant>/<problem>.<ext>``, judged here to know which are rejected) and the packages' own
``submissions/wrong_answer/`` and ``submissions/run_time_error/`` programs. Each is judged, then searched with
``explain_submission`` and the default budget (``ExplainBudget()``), one at a time (so the times are those
of one search on an otherwise idle judge).

Printed: one line per submission, then the share with a counterexample (of all of them, and of those
searched: MLE, OLE and TLE submissions are not, unless the package says EXPLAIN_TLE), the median and largest
size of the shrunk input, and the median (and largest) time to find one: the whole search, build and
shrinking included. Targets: >= 80 %, median input < 100 bytes, median time < 10 s.

Usage: ``python3 bench/explain.py [--only TEXT] [--examples N] [--seconds S] [--json FILE]``. The demo's
hostile programs (fir's) run only in the bubblewrap sandbox: the bench refuses to start without it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from judge.fuzz.engine import tune_for_fuzzing
from judge.fuzz.explain import explain_submission
from judge.fuzz.explanation import ExplainStatus, Explanation
from judge.fuzz.hooks import hooks_path
from judge.fuzz.options import ExplainBudget
from judge.judging.build import SkipLanguage, detect_language
from judge.judging.submission import Environment, Prepared, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.problem import load_problem
from judge.runner import make_runner

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("wrong_answer", "run_time_error")  # the packages' rejected programs the issue names


@dataclass(frozen=True)
class Case:
    problem: str
    source: Path

    @property
    def name(self) -> str:
        return str(self.source.relative_to(ROOT))


def cases(problems: dict[str, Path]) -> list[Case]:
    out = []
    for contestant in sorted(p for p in (ROOT / "submissions").iterdir() if p.is_dir()):
        for source in sorted(contestant.iterdir()):
            problem = source.name.split(".", 1)[0]
            if problem in problems:
                out.append(Case(problem, source))
    for problem, path in sorted(problems.items()):
        for folder in FOLDERS:
            out.extend(Case(problem, s) for s in sorted((path / "submissions" / folder).glob("*")) if s.is_file())
    return out


@dataclass(frozen=True)
class Row:
    case: Case
    verdict: str  # the submission's ("" : not judged)
    explanation: Explanation | None
    skipped: str = ""

    def to_json(self) -> dict[str, object]:
        x = self.explanation
        return {
            "source": self.case.name,
            "verdict": self.verdict,
            "skipped": self.skipped,
            "explanation": None if x is None else x.to_json(),
        }


def run(case: Case, prepared: Prepared, env: Environment, budget: ExplainBudget) -> Row:
    try:
        detect_language(case.source, env.languages)
        verdict = judge_submission(prepared, case.source, env).verdict
    except SkipLanguage as exc:
        return Row(case, "", None, f"not judged: {exc}")
    if verdict is Verdict.AC:
        return Row(case, verdict.value, None, "accepted")
    return Row(case, verdict.value, explain_submission(prepared, case.source, env, verdict, budget))


def line(row: Row) -> str:
    x = row.explanation
    if x is None:
        return f"{row.case.name:<60} {row.verdict:<4} {row.skipped}"
    size = f"{len(x.input)} B" if x.input is not None else "-"
    failure = x.failure.value if x.failure is not None else "-"
    note = f"  ({x.note})" if x.note and not x.found else ""
    shown = f"{x.status.value:<11} {failure:<4} {size:>7} {x.elapsed_s:6.1f} s (first {x.found_after_s:4.1f} s)"
    return f"{row.case.name:<60} {row.verdict:<4} {shown}{note}"


def summary(rows: list[Row]) -> str:
    rejected = [r for r in rows if r.verdict and r.verdict != Verdict.AC.value]
    searched = [
        r for r in rejected if r.explanation is not None and r.explanation.status is not ExplainStatus.UNAVAILABLE
    ]
    found = [r.explanation for r in rejected if r.explanation is not None and r.explanation.found]
    sizes = [len(x.input or b"") for x in found]
    times = [x.elapsed_s for x in found]
    first = [x.found_after_s for x in found]
    share = len(found) / len(rejected) if rejected else 0.0
    out = [
        f"rejected submissions: {len(rejected)} ({len(searched)} searched; the rest: verdicts that are not)",
        f"with a counterexample: {len(found)} = {share:.0%} of all rejected"
        + (f", {len(found) / len(searched):.0%} of those searched" if searched else ""),
    ]
    if found:
        out.append(f"shrunk input: median {statistics.median(sizes):g} bytes, largest {max(sizes)} bytes")
        out.append(
            f"time to find (the whole search): median {statistics.median(times):.1f} s, largest {max(times):.1f} s"
        )
        out.append(
            f"time to the first failing input (build and search): median {statistics.median(first):.1f} s, "
            f"largest {max(first):.1f} s"
        )
    misses = [r for r in rejected if r.explanation is None or not r.explanation.found]
    if misses:
        out.append("missed:")
        for r in misses:
            x = r.explanation
            why = r.skipped if x is None else f"{x.status.value}: {x.note}"
            out.append(f"  {r.case.name} ({r.verdict}): {why}")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=None, metavar="TEXT", help="only the sources whose path contains TEXT")
    parser.add_argument("--examples", type=int, default=ExplainBudget().examples)
    parser.add_argument("--seconds", type=float, default=ExplainBudget().seconds)
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args()
    budget = ExplainBudget(args.examples, args.seconds)
    runner = make_runner("bwrap")  # fir's programs are hostile: never without the namespace sandbox
    if not runner.info.isolated:
        raise SystemExit("bench/explain.py runs the demo's hostile programs: it needs the bubblewrap sandbox")
    env = Environment(runner, load_languages(), toolchain())
    problems = {p.name: p for p in sorted((ROOT / "problems").iterdir()) if hooks_path(load_problem(p)).is_file()}
    todo = [c for c in cases(problems) if args.only is None or args.only in c.name]
    tune_for_fuzzing()
    print(f"budget: {budget.examples} examples or {budget.seconds:g} s per submission; {len(todo)} sources")
    rows: list[Row] = []
    prepared: dict[str, Prepared] = {}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-explain-") as tmp:
        for case in todo:
            if case.problem not in prepared:
                prepared[case.problem] = prepare(load_problem(problems[case.problem]), env, Path(tmp) / case.problem)
            row = run(case, prepared[case.problem], env, budget)
            rows.append(row)
            print(line(row), flush=True)
    print(f"({time.monotonic() - start:.0f} s in all)")
    print(summary(rows))
    if args.json:
        Path(args.json).write_text(json.dumps([r.to_json() for r in rows], indent=1) + "\n")


if __name__ == "__main__":
    main()
