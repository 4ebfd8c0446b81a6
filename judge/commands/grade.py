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
from judge.commands.lms import finish as finish_lms
from judge.commands.lms import is_download
from judge.commands.lms import prepare as prepare_lms
from judge.course.export import Format, GradedAssignment, csv_text, gradebook_rows
from judge.course.folder import assignment_problems, check_roster, load_assignment_file
from judge.course.sitefiles import write_private
from judge.course.values import CourseError
from judge.fuzz.explanation import ExplainStatus
from judge.fuzz.options import ExplainBudget
from judge.fuzz.outcome import FuzzStatus
from judge.grade.assignment import AssignmentSettings, assignment_board, load_roster
from judge.grade.discovery import ContestFolder, Issue, discover, load_problems
from judge.grade.explaining import ExplainSummary, GradeExplainOptions, explain_contest
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
from judge.grade.report import (
    build_board,
    explain_text,
    fuzz_text,
    issues_text,
    standings_table,
    write_results_json,
)
from judge.grade.schedule import Grading, Summary, grade
from judge.grade.storage import OldSchema, Store, StoreError
from judge.grade.times import TimesError, made_at, submission_times
from judge.judging.identity import toolchain_languages
from judge.judging.judges import Judges
from judge.package.problem import Problem
from judge.scoreboard.model import Board
from judge.scoreboard.render import write_board

if TYPE_CHECKING:
    from judge.cluster.coordinator import ClusterSpec

GRADEBOOK_NAME = "gradebook.csv"  # `judge grade --assignment`: beside the board (owner-only; never linked)


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
    download = is_download(args)
    cluster = _check_options(args, root, problems_dir, download)
    problems, package_issues = load_problems(problems_dir)
    if not problems:
        detail = f" ({package_issues[0].reason})" if package_issues else ""
        raise UsageError(f"{problems_dir}: no usable problem package{detail}")
    db_path = Path(args.db) if args.db else out / GRADE_DB_NAME
    progress = Progress(sys.stderr, tty=sys.stderr.isatty())
    lms = prepare_lms(args, problems, out, GRADEBOOK_NAME) if download else None
    course: AssignmentSettings | None
    if lms is not None:  # the download's files, placed as a contest folder of the assignment's students
        root, course = lms.staged.root, lms.settings
    else:
        course = _course(args)  # before judging: a bad assignment or roster stops here
    with ExitStack() as stack:
        grading, judges = _grading(args, root, problems, cluster, stack, attempts=course is not None)
        pass_fail = _pass_fail(args, grading.contest)  # before judging: a bad times.yaml stops here
        made = _made_at(course, grading.contest)
        try:
            store = stack.enter_context(open_store(db_path))
        except StoreError as exc:
            raise UsageError(str(exc)) from None
        options = GradeOptions(jobs=args.jobs, rejudge=args.rejudge)
        summary = grade(grading, store, options, listener=progress, judges=judges)
        fuzz: FuzzSummary | None = None
        if args.fuzz is not None:
            from judge.fuzz.engine import tune_for_fuzzing  # (Hypothesis: only with --fuzz or --explain)

            tune_for_fuzzing()
            fuzz_options = GradeFuzzOptions(args.fuzz, seed=args.fuzz_seed, jobs=args.jobs, refuzz=args.rejudge)
            fuzz = fuzz_contest(grading, store, summary, fuzz_options, listener=progress)
        explain: ExplainSummary | None = None
        if args.explain:
            from judge.fuzz.engine import tune_for_fuzzing

            tune_for_fuzzing()
            budget = ExplainBudget(args.explain_examples, args.explain_seconds)
            explain_options = GradeExplainOptions(budget, jobs=args.jobs, again=args.rejudge)
            explain = explain_contest(grading, store, summary, explain_options, listener=progress)
    contest = grading.contest
    issues = [*package_issues, *contest.issues, *summary.issues]
    board_options = BoardOptions(args.title, problems_dir, pass_fail)
    board = build_board(contest, problems, summary, issues, board_options, fuzz, explain)
    gradebook = ""
    if course is not None and made is not None:
        try:
            board, graded, nobody = assignment_board(board, contest, summary, course, made)
        except CourseError as exc:
            raise UsageError(str(exc)) from None
        for i in nobody:
            print(f"  not graded: {printable(i.path)}: {printable(i.reason)}")
        gradebook = f"; gradebook: {_write_gradebook(args, out, graded)}"
        if lms is not None:
            gradebook += finish_lms(out, lms, graded)
    write_board(board, out)
    _print_board(board, issues, fuzz, explain)
    extra = f", {write_results_json(board, out / 'results.json')}" if args.json else ""
    if args.similarity:  # the jury's only: under OUT/staff/, which the board never links (docs/similarity.md)
        from judge.commands.similarity import write_for_grade

        extra += f"; similarity report (staff only, do not publish): {write_for_grade(root, problems, out)}"
    print(
        f"{len(contest.entries)} submissions from {len(contest.contestants)} contestants: "
        f"{summary.judged} judged, {summary.reused} reused, {len(issues)} not judged{_fuzz_line(fuzz)}"
        f"{_explain_line(explain)}; "
        f"scoreboard: {out / 'index.html'}{extra}{gradebook}; database: {db_path}"
    )
    return _exit_status(summary, fuzz, explain)


def _check_options(args: argparse.Namespace, root: Path, problems_dir: Path, download: bool) -> ClusterSpec | None:
    """Raises UsageError for options that cannot work together or folders that are not there; the cluster
    that ``--cluster`` names (None: judge here). ``download``: SUBMISSIONS is an LMS's download."""
    if download and not root.exists():
        raise UsageError(f"{root}: no such file or folder (an LMS's download: a zip, or the folder it was unpacked in)")
    if not download and not root.is_dir():
        raise UsageError(f"{root}: not a folder (expected SUBMISSIONS_DIR/<contestant>/<problem>.<ext>)")
    if download and args.scoreboard == "pass-fail":
        raise UsageError("an LMS download is graded as an assignment: leave out --scoreboard pass-fail")
    if not download and (args.lms is not None or args.lms_timezone != "UTC"):
        raise UsageError("--lms and --lms-timezone go with an LMS download (a zip, or a folder of its files)")
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
    if args.explain_examples < 1:
        raise UsageError("--explain-examples must be at least 1")
    if not 0 < args.explain_seconds <= 24 * 3600:
        raise UsageError("--explain-seconds must be more than 0 and at most a day")
    if not 0 <= args.fuzz_seed < 2**63:
        raise UsageError("--fuzz-seed must be a non-negative 64-bit number")
    if not download and args.assignment is None and (args.roster is not None or args.gradebook_format != "csv"):
        raise UsageError("--roster and --gradebook-format go with --assignment")
    if args.assignment is not None and args.scoreboard == "pass-fail":
        raise UsageError("--assignment grades by score after the late penalty: leave out --scoreboard pass-fail")
    if args.cluster is None:
        return None
    if args.fuzz is not None:
        raise UsageError(
            "--fuzz runs on this machine only: grade with --cluster first, then `judge grade --fuzz N` "
            "without --cluster (it reuses the cluster's results)"
        )
    if args.explain:
        raise UsageError(
            "--explain runs on this machine only: grade with --cluster first, then `judge grade --explain` "
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


def _course(args: argparse.Namespace) -> AssignmentSettings | None:
    """``--assignment`` and ``--roster``, read and checked (None: graded as a contest)."""
    if args.assignment is None:
        return None
    path = Path(args.assignment)
    try:
        assignment = load_assignment_file(path)
        roster = None if args.roster is None else load_roster(Path(args.roster))
        problems = assignment_problems(path)
        if roster is not None:
            check_roster(assignment, roster, f"{path}: assignment")
    except CourseError as exc:
        raise UsageError(str(exc)) from None
    aid = path.parent.name if path.name == "contest.yaml" else path.stem
    return AssignmentSettings(assignment, roster, aid, assignment.name or aid, GRADEBOOK_NAME, problems)


def _made_at(course: AssignmentSettings | None, contest: ContestFolder) -> Mapping[str, float] | None:
    """``--assignment``: when each file was made (seconds since the epoch); a contest time counts from the
    assignment's opening unless times.yaml has a ``start``."""
    if course is None:
        return None
    try:
        return made_at(contest.root, contest.entries, course.assignment.window.open_s)
    except TimesError as exc:
        raise UsageError(str(exc)) from None


def _write_gradebook(args: argparse.Namespace, out: Path, graded: GradedAssignment) -> Path:
    students = [g.student for g in graded.grades]
    path = out / GRADEBOOK_NAME
    out.mkdir(parents=True, exist_ok=True)
    write_private(path, csv_text(gradebook_rows(Format(args.gradebook_format), students, [graded])))
    return path


def _grading(
    args: argparse.Namespace,
    root: Path,
    problems: Mapping[str, Problem],
    cluster: ClusterSpec | None,
    stack: ExitStack,
    *,
    attempts: bool,
) -> tuple[Grading, Judges | None]:
    """The contest in ``root`` with its environment, and the cluster's judges (None: this machine's threads)."""
    # On a cluster the workers judge, each after its own self-test; a local cluster's workers share
    # this machine, so its self-test comes first (one clear message rather than N workers failing).
    env = make_environment(args, check=cluster is None or cluster.local_workers > 0)
    contest = discover(root, problems, env.languages, attempts=attempts or args.scoreboard == "pass-fail")
    if cluster is None:
        return Grading(contest, problems, env), None
    languages = {
        lang for e in contest.entries for lang in toolchain_languages(e.language, problems[e.problem], env.languages)
    }
    return Grading(contest, problems, env), cluster_judges(args, cluster, problems, languages, stack)


def _print_board(
    board: Board, issues: Sequence[Issue], fuzz: FuzzSummary | None, explain: ExplainSummary | None
) -> None:
    """The sandbox's warnings, the standings, what was not judged, and the counterexamples, on stdout."""
    for w in board.sandbox_warnings:
        print(f"WARNING: {w}")
    print(standings_table(board))
    if issues:
        print(issues_text(issues))
    notes = [*(fuzz.notes if fuzz else ()), *(explain.notes if explain else ())]
    for text in (fuzz_text(board) if fuzz else "", explain_text(board) if explain else ""):
        if text:
            print(text)
    for note in notes:
        print(f"  {printable(note)}")


def _fuzz_line(fuzz: FuzzSummary | None) -> str:
    """The fuzzing's part of the last line ("" without --fuzz)."""
    if fuzz is None:
        return ""
    return (
        f"; fuzz ({fuzz.examples} examples, seed {fuzz.seed}): {fuzz.fuzzed} fuzzed, "
        f"{fuzz.reused} reused, {len(fuzz.with_status(FuzzStatus.COUNTEREXAMPLE))} counterexample(s)"
    )


def _explain_line(explain: ExplainSummary | None) -> str:
    """The part of the last line about --explain ("" without it)."""
    if explain is None:
        return ""
    found = len(explain.with_status(ExplainStatus.FOUND))
    return f"; explain: {explain.searched} searched, {explain.reused} reused, {found} counterexample(s)"


def _exit_status(summary: Summary, fuzz: FuzzSummary | None, explain: ExplainSummary | None = None) -> int:
    """EXIT_JE when the judge or fuzz.py failed somewhere (said on stderr), else EXIT_OK."""
    status = EXIT_OK
    if summary.judge_errors:
        print(f"{summary.judge_errors} judge error(s) (JE): see the scoreboard", file=sys.stderr)
        status = EXIT_JE
    if fuzz is not None and fuzz.errors:
        print(f"{fuzz.errors} fuzzing error(s) (fuzz.py or the judge): see above", file=sys.stderr)
        status = EXIT_JE
    if explain is not None and explain.errors:
        print(f"{explain.errors} failed counterexample search(es) (fuzz.py or the judge): see above", file=sys.stderr)
        status = EXIT_JE
    return status
