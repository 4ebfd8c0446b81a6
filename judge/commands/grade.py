"""`judge grade SUBMISSIONS_DIR`: the organizer's command (see docs/grading.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from judge.commands.cluster import cluster_judges, cluster_spec
from judge.commands.common import EXIT_JE, EXIT_OK, UsageError, make_environment
from judge.fuzz.engine import tune_for_fuzzing
from judge.fuzz.outcome import FuzzStatus
from judge.grade.discovery import ContestFolder, Issue, discover, load_problems
from judge.grade.fuzzing import FuzzSummary, fuzz_contest
from judge.grade.options import (
    GRADE_DB_NAME,
    PENALTY_MINUTES,
    BoardOptions,
    GradeFuzzOptions,
    GradeOptions,
    PassFailSettings,
)
from judge.grade.progress import Progress, printable
from judge.grade.report import build_board, fuzz_text, issues_text, standings_table, write_results_json
from judge.grade.schedule import Grading, Summary, grade
from judge.grade.storage import OldSchema, Store, StoreError
from judge.grade.times import TimesError, submission_times
from judge.judging.identity import toolchain_languages
from judge.judging.judges import Judges
from judge.package.problem import Problem
from judge.scoreboard.model import Board
from judge.scoreboard.render import write_board

if TYPE_CHECKING:
    from judge.cluster.coordinator import ClusterSpec


def open_store(db_path: Path) -> Store:
    """The results database; one written by an older judge (keyed differently, so nothing in it would be
    reused) is kept beside it under another name, and a new one started."""
    try:
        return Store(db_path)
    except OldSchema as exc:
        kept = db_path.with_name(f"{db_path.name}.old-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}")
        for suffix in ("", "-wal", "-shm"):
            old = Path(f"{db_path}{suffix}")
            if old.exists():
                old.rename(Path(f"{kept}{suffix}"))
        print(f"note: {exc}; kept as {kept}, starting a new database", file=sys.stderr)
        return Store(db_path)


def cmd_grade(args: argparse.Namespace) -> int:
    root, problems_dir, out = Path(args.submissions), Path(args.problems), Path(args.out)
    cluster = _check_options(args, root, problems_dir)
    problems, package_issues = load_problems(problems_dir)
    if not problems:
        detail = f" ({package_issues[0].reason})" if package_issues else ""
        raise UsageError(f"{problems_dir}: no usable problem package{detail}")
    db_path = Path(args.db) if args.db else out / GRADE_DB_NAME
    progress = Progress(sys.stderr, tty=sys.stderr.isatty())
    with ExitStack() as stack:
        grading, judges = _grading(args, root, problems, cluster, stack)
        pass_fail = _pass_fail(args, grading.contest)  # before judging: a bad times.yaml stops here
        try:
            store = stack.enter_context(open_store(db_path))
        except StoreError as exc:
            raise UsageError(str(exc)) from None
        options = GradeOptions(jobs=args.jobs, rejudge=args.rejudge)
        summary = grade(grading, store, options, listener=progress, judges=judges)
        fuzz: FuzzSummary | None = None
        if args.fuzz is not None:
            tune_for_fuzzing()
            fuzz_options = GradeFuzzOptions(args.fuzz, seed=args.fuzz_seed, jobs=args.jobs, refuzz=args.rejudge)
            fuzz = fuzz_contest(grading, store, summary, fuzz_options, listener=progress)
    contest = grading.contest
    issues = [*package_issues, *contest.issues, *summary.issues]
    board = build_board(contest, problems, summary, issues, BoardOptions(args.title, problems_dir, pass_fail), fuzz)
    write_board(board, out)
    _print_board(board, issues, fuzz)
    extra = f", {write_results_json(board, out / 'results.json')}" if args.json else ""
    if args.similarity:  # the jury's only: under OUT/staff/, which the board never links (docs/similarity.md)
        from judge.commands.similarity import write_for_grade

        extra += f"; similarity report (staff only, do not publish): {write_for_grade(root, problems, out)}"
    print(
        f"{len(contest.entries)} submissions from {len(contest.contestants)} contestants: "
        f"{summary.judged} judged, {summary.reused} reused, {len(issues)} not judged{_fuzz_line(fuzz)}; "
        f"scoreboard: {out / 'index.html'}{extra}; database: {db_path}"
    )
    return _exit_status(summary, fuzz)


def _check_options(args: argparse.Namespace, root: Path, problems_dir: Path) -> ClusterSpec | None:
    """Raises UsageError for options that cannot work together or folders that are not there; the cluster
    that ``--cluster`` names (None: judge here)."""
    if not root.is_dir():
        raise UsageError(f"{root}: not a folder (expected SUBMISSIONS_DIR/<contestant>/<problem>.<ext>)")
    if not problems_dir.is_dir():
        raise UsageError(f"{problems_dir}: not a folder of problem packages (use --problems DIR)")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.penalty_minutes is not None and args.scoreboard != "pass-fail":
        raise UsageError("--penalty-minutes goes with --scoreboard pass-fail")
    if args.penalty_minutes is not None and not 0 <= args.penalty_minutes <= 24 * 60:
        raise UsageError("--penalty-minutes must be between 0 and 1440")
    if args.fuzz is not None and args.fuzz < 1:
        raise UsageError("--fuzz must be at least 1 (examples per submission)")
    if not 0 <= args.fuzz_seed < 2**63:
        raise UsageError("--fuzz-seed must be a non-negative 64-bit number")
    if args.cluster is None:
        return None
    if args.fuzz is not None:
        raise UsageError(
            "--fuzz runs on this machine only: grade with --cluster first, then `judge grade --fuzz N` "
            "without --cluster (it reuses the cluster's results)"
        )
    return cluster_spec(args)


def _pass_fail(args: argparse.Namespace, contest: ContestFolder) -> PassFailSettings | None:
    """``--scoreboard pass-fail``: the penalty, and when each submission was made (grade/times.py)."""
    if args.scoreboard != "pass-fail":
        return None
    try:
        times = submission_times(contest.root, contest.entries)
    except TimesError as exc:
        raise UsageError(str(exc)) from None
    minutes = PENALTY_MINUTES if args.penalty_minutes is None else args.penalty_minutes
    return PassFailSettings(minutes * 60, times)


def _grading(
    args: argparse.Namespace,
    root: Path,
    problems: Mapping[str, Problem],
    cluster: ClusterSpec | None,
    stack: ExitStack,
) -> tuple[Grading, Judges | None]:
    """The contest in ``root`` with its environment, and the cluster's judges (None: this machine's threads)."""
    # On a cluster the workers judge, each after its own self-test; a local cluster's workers share
    # this machine, so its self-test comes first (one clear message rather than N workers failing).
    env = make_environment(args, check=cluster is None or cluster.local_workers > 0)
    contest = discover(root, problems, env.languages, attempts=args.scoreboard == "pass-fail")
    if cluster is None:
        return Grading(contest, problems, env), None
    languages = {
        lang for e in contest.entries for lang in toolchain_languages(e.language, problems[e.problem], env.languages)
    }
    return Grading(contest, problems, env), cluster_judges(args, cluster, problems, languages, stack)


def _print_board(board: Board, issues: Sequence[Issue], fuzz: FuzzSummary | None) -> None:
    """The sandbox's warnings, the standings, what was not judged, and the counterexamples, on stdout."""
    for w in board.sandbox_warnings:
        print(f"WARNING: {w}")
    print(standings_table(board))
    if issues:
        print(issues_text(issues))
    if fuzz is None:
        return
    found = fuzz_text(board)
    if found:
        print(found)
    for note in fuzz.notes:
        print(f"  {printable(note)}")


def _fuzz_line(fuzz: FuzzSummary | None) -> str:
    """The fuzzing's part of the last line ("" without --fuzz)."""
    if fuzz is None:
        return ""
    return (
        f"; fuzz ({fuzz.examples} examples, seed {fuzz.seed}): {fuzz.fuzzed} fuzzed, "
        f"{fuzz.reused} reused, {len(fuzz.with_status(FuzzStatus.COUNTEREXAMPLE))} counterexample(s)"
    )


def _exit_status(summary: Summary, fuzz: FuzzSummary | None) -> int:
    """EXIT_JE when the judge or fuzz.py failed somewhere (said on stderr), else EXIT_OK."""
    status = EXIT_OK
    if summary.judge_errors:
        print(f"{summary.judge_errors} judge error(s) (JE): see the scoreboard", file=sys.stderr)
        status = EXIT_JE
    if fuzz is not None and fuzz.errors:
        print(f"{fuzz.errors} fuzzing error(s) (fuzz.py or the judge): see above", file=sys.stderr)
        status = EXIT_JE
    return status
