"""`judge contest init DIR` (a demo contest package) and `judge contest export DIR` (a served contest's
package archive, as an admin downloads it). See docs/serve.md."""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import NoReturn

import judge
from judge.commands.common import EXIT_OK, UsageError
from judge.commands.contest_times import demo_times
from judge.fuzz.hooks import hooks_path
from judge.grade.discovery import load_problems
from judge.languages.table import Language, load_languages, missing_tool, toolchain
from judge.package.problem import Problem
from judge.scoreboard.passfail import ScoreboardType
from judge.serve.model.contest import ContestError, load_contest
from judge.serve.model.site import CONTESTS_DIR, is_site, load_site
from judge.serve.model.times import format_reltime, format_time
from judge.serve.services.lifecycle.demo import (
    MAIN_AFTER_S,
    MAIN_S,
    PRACTICE_PROBLEMS,
    PRACTICE_S,
    DemoOptions,
    write_demo,
    write_demo_site,
)
from judge.serve.services.people.accounts import password_hasher
from judge.serve.site.server import ServeOptions, Server, open_server
from judge.serve.site.site import SITE_DB, open_site
from judge.serve.storage import DB_NAME, StorageError

MAX_DEMO_TEAMS = 5000  # `judge contest init --teams`, `judge site init --teams` (bench/serve.py --teams 2000)


def _log(line: str) -> None:
    print(f"judge serve: {line}", file=sys.stderr, flush=True)  # as `judge serve` logs


def demo_problems() -> Path:
    """The project's own problems (``problems/`` beside the installed ``judge`` package: a checkout, or an
    editable install of one), whatever the working directory."""
    return Path(judge.__file__).resolve().parent.parent / "problems"


def cmd_contest_init(args: argparse.Namespace) -> int:
    dest = Path(args.dir)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UsageError(f"{dest}: exists and is not an empty folder (nothing was written)")
    problems_dir = Path(args.problems) if args.problems is not None else demo_problems()
    if not problems_dir.is_dir():
        where = "" if args.problems is not None else " (the judge's demo problems are not installed here)"
        raise UsageError(f"{problems_dir}: not a folder of problem packages{where}: use --problems DIR")
    problems, issues = load_problems(problems_dir)
    if issues:
        raise UsageError(f"{problems_dir}/{issues[0].path}: {issues[0].reason}")
    if not problems:
        raise UsageError(f"{problems_dir}: no problem packages")
    if not 1 <= args.teams <= MAX_DEMO_TEAMS:
        raise UsageError(f"--teams must be between 1 and {MAX_DEMO_TEAMS}")
    start, duration, freeze = demo_times(args)
    kind = ScoreboardType(args.type)
    ordered = [problems[k] for k in sorted(problems)]
    weak = _weak_tests_problem(args.weak_tests, problems)
    options = DemoOptions(args.teams, start, duration_s=duration, freeze_s=freeze, kind=kind, weak_tests=weak)
    logins = write_demo(dest, ordered, options, password_hasher())
    frozen = f", the board frozen for the last {format_reltime(freeze)}" if freeze else ", never frozen"
    print(
        f"wrote the {kind.value} contest package {dest} ({len(problems)} problems, {args.teams} teams); "
        f"it starts at {format_time(start)} and runs {format_reltime(duration)}{frozen}"
    )
    print("passwords (shown only this once; accounts.yaml keeps argon2 hashes):")
    width = max(len(lg.username) for lg in logins)
    for lg in logins:
        print(f"  {lg.username:<{width}}  {lg.password}  ({lg.type})")
    if weak is not None:
        print(f"{weak}'s secret data is only its samples (--weak-tests): fuzz it live with `judge serve --fuzz {dest}`")
    print(f"serve it with: judge serve {dest}")
    return EXIT_OK


def _demo_problem_set(given: str | None) -> list[Problem]:
    """--problems DIR (or the judge's own), loaded, sorted by id; a UsageError for a folder without any."""
    problems_dir = Path(given) if given is not None else demo_problems()
    if not problems_dir.is_dir():
        where = "" if given is not None else " (the judge's demo problems are not installed here)"
        raise UsageError(f"{problems_dir}: not a folder of problem packages{where}: use --problems DIR")
    problems, issues = load_problems(problems_dir)
    if issues:
        raise UsageError(f"{problems_dir}/{issues[0].path}: {issues[0].reason}")
    if not problems:
        raise UsageError(f"{problems_dir}: no problem packages")
    return [problems[k] for k in sorted(problems)]


def cmd_site_init(args: argparse.Namespace) -> int:
    """`judge site init DIR`: a demo site of two contests (issue 44; services/lifecycle/demo.write_demo_site)."""
    dest = Path(args.dir)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UsageError(f"{dest}: exists and is not an empty folder (nothing was written)")
    ordered = _demo_problem_set(args.problems)
    if not 1 <= args.teams <= MAX_DEMO_TEAMS:
        raise UsageError(f"--teams must be between 1 and {MAX_DEMO_TEAMS}")
    now = time.time() // 60 * 60  # to the minute: the practice is running
    logins = write_demo_site(dest, ordered, args.teams, now, password_hasher())
    practice = ", ".join(p.id for p in ordered[:PRACTICE_PROBLEMS])
    print(
        f"wrote the site {dest} ({len(ordered)} problems in {dest / 'problems'}, {args.teams} teams): two pass-fail "
        f"contests, each in {dest / 'contests'}/<id>/"
    )
    print(
        f"  practice: {practice}; running now (from {format_time(now)}), {format_reltime(PRACTICE_S)}, "
        "judging priority -1 (judged after the main contest)"
    )
    print(
        f"  main: every problem; starts at {format_time(now + MAIN_AFTER_S)}, runs {format_reltime(MAIN_S)}, "
        "the board frozen for the last hour"
    )
    print("passwords, one login for both contests (shown only this once; accounts.yaml keeps argon2 hashes):")
    width = max(len(lg.username) for lg in logins)
    for lg in logins:
        print(f"  {lg.username:<{width}}  {lg.password}  ({lg.type})")
    print(f"serve it with: judge serve {dest}")
    return EXIT_OK


def _weak_tests_problem(name: str | None, problems: Mapping[str, Problem]) -> str | None:
    """``--weak-tests PROBLEM``: a problem of the set that live fuzzing can fuzz (it has a fuzz.py)."""
    if name is None:
        return None
    if name not in problems:
        raise UsageError(f"--weak-tests {name}: no such problem here (there are {', '.join(sorted(problems))})")
    if not hooks_path(problems[name]).is_file():
        raise UsageError(f"--weak-tests {name}: it has no fuzz.py: live fuzzing could not find what its samples miss")
    return name


def _languages_here() -> dict[str, Language]:
    """The languages `judge serve` would offer on this machine (their toolchain is here)."""
    tools = toolchain(inherited_pythonpath="")
    return {lid: lang for lid, lang in load_languages().items() if missing_tool(lang, tools) is None}


def _never_judge(job: object) -> NoReturn:
    raise RuntimeError("`judge contest export` does not judge")


def _served_contest(folder: Path, problems: Path | None) -> tuple[Server, Callable[[], None]]:
    """The contest of ``folder``, read-only, and how to close it: a contest folder alone, or a contest of a
    site (SITE/contests/<cid>/: the site's people read from SITE/site.sqlite; issue 44)."""
    options = ServeOptions(log=_log, read_only=True)
    resolved = folder.resolve()
    site_root = resolved.parent.parent
    if resolved.parent.name == CONTESTS_DIR and is_site(site_root):
        spec = load_site(site_root)
        if not (folder / DB_NAME).is_file() or not (site_root / SITE_DB).is_file():
            raise UsageError(f"{folder}: no {DB_NAME} beside the site's {SITE_DB} (has `judge serve` run this site?)")
        site = open_site(spec, _languages_here(), _never_judge, options)
        found = site.contest(resolved.name)
        if found is None:  # load_site refuses a folder whose contest.yaml names another id
            site.close()
            raise UsageError(f"{folder}: not a contest of the site {site_root}")
        return found.server, site.close
    contest = load_contest(folder, problems)
    if not (contest.root / DB_NAME).is_file():
        raise UsageError(f"{contest.root}: no {DB_NAME} (has `judge serve` run this contest?)")
    server = open_server(contest, _languages_here(), _never_judge, options)
    return server, server.close


def cmd_contest_export(args: argparse.Namespace) -> int:
    """Write the contest package archive of a served contest, as an admin downloads it."""
    from judge.serve.model.viewer import Role, Viewer
    from judge.serve.services.archive import contest_package

    out = Path(args.out)
    if out.suffix != ".zip" and out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out}: exists and is not an empty folder (nothing was written)")
    try:
        server, close = _served_contest(Path(args.dir), Path(args.problems) if args.problems else None)
    except (ContestError, StorageError) as exc:
        raise UsageError(str(exc)) from None
    try:
        admin = Viewer(Role.ADMIN, account_id="judge-contest-export")
        data = contest_package(server, server.sight(admin, server.clock.now()))
        phase = server.timeline.phase
        finals = "final" if phase.end_of_updates_s is not None else "not finalized and thawed: `--replay` needs both"
    finally:
        close()
    if out.suffix == ".zip":
        _write_private(out, data)
    else:
        _unpack_private(data, out)
    print(f"wrote the contest package archive {out} (results {finals}; owner-only: it holds every team's code)")
    return EXIT_OK


def _write_private(path: Path, data: bytes) -> None:
    """``data`` in ``path``, 0600 from its creation (an existing file is made 0600 before it is written)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(data)


def _unpack_private(data: bytes, out: Path) -> None:
    """The archive (ours) unpacked into ``out`` (new or empty): folders 0700 and files 0600 from their
    creation, so that no moment leaves a team's code readable by others (issue 43)."""
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            parts = PurePosixPath(info.filename).parts
            folders = parts if info.is_dir() else parts[:-1]
            for n in range(1, len(folders) + 1):  # each 0700 (mkdir's ``parents`` would make them 0755)
                out.joinpath(*folders[:n]).mkdir(mode=0o700, exist_ok=True)
            if not info.is_dir():
                _write_private(out.joinpath(*parts), zf.read(info))
