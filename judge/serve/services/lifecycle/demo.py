"""`judge contest init DIR`: a ready contest package with the project's problems (copied into
DIR/problems/, so the contest does not change when the repository does), a few teams, a judge and an
admin. Passwords are random, printed once, and stored only as argon2 hashes (in accounts.yaml, which the
format allows, and then in the database). The folder is made 0700 and accounts.yaml 0600 (docs/security.md)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from argon2 import PasswordHasher

from judge.package.problem import Problem
from judge.scoreboard.passfail import ScoreboardType
from judge.serve.model.contest import LABELS
from judge.serve.model.times import format_reltime, format_time

COLORS = (
    ("#e6194b", "red"),
    ("#3cb44b", "green"),
    ("#4363d8", "blue"),
    ("#f58231", "orange"),
    ("#911eb4", "purple"),
    ("#42d4f4", "cyan"),
    ("#f032e6", "magenta"),
    ("#808000", "olive"),
)
TEAM_NAMES = ("Ada", "Babbage", "Curry", "Dijkstra", "Euler", "Fermat", "Gauss", "Hopper", "Iverson", "Jacobi")


@dataclass(frozen=True)
class Login:
    username: str
    password: str
    type: str


def _password() -> str:
    return secrets.token_urlsafe(9)


def _contest_yaml(contest_id: str, options: DemoOptions, name: str | None = None, extra: str = "") -> str:
    kind = options.kind
    if name is None:
        name = "Demo ICPC contest" if kind is ScoreboardType.PASS_FAIL else "Demo contest"
    if kind is ScoreboardType.PASS_FAIL:
        ranking = (
            "# ICPC rules: ranked by problems solved, then time (each solve's minute + 20 per rejected try)\n"
            "scoreboard_type: pass-fail\n"
            'penalty_time: "0:20:00"\n'
            "judge_all_tests: false  # judging stops at a submission's first failed test (its verdict is known)\n"
        )
    else:
        ranking = "scoreboard_type: score  # ranked by total score (the problems score 0..100)\n"
    return (
        "# The contest (CCS Contest Package format; see docs/serve.md). Times need a time zone.\n"
        f"id: {contest_id}\n"
        f"name: {name}\n"
        f"shortname: {contest_id}  # DOMjudge's; its command-line submit client needs one\n"
        f'start_time: "{format_time(options.start_s)}"\n'
        f'duration: "{format_reltime(options.duration_s)}"\n'
        f'scoreboard_freeze_duration: "{format_reltime(options.freeze_s)}"\n'
        f"{ranking}"
        "# judge serve's own settings: the largest submission (KiB) and the per-team rate limit, and the\n"
        "# clarifications' longest text and questions a team may ask per window\n"
        "code_limit: 256\n"
        "rate_limit: {submissions: 10, seconds: 60}\n"
        "clarification_limits: {text_chars: 2000, questions: 5, seconds: 300}\n"
        f"{extra}"
    )


WEAK_GROUP = "samples"  # --weak-tests: the group holding the samples, for a package whose secret data has groups
TESTDATA = "testdata.yaml"


def _weak_group_yaml(max_score: float) -> str:
    points = f"{max_score:g}"
    return (
        "# `judge contest init --weak-tests`: the samples are all the secret data, a deliberately weak test set\n"
        "# (live fuzzing's demo, docs/live-fuzzing.md); all or nothing, worth the whole problem\n"
        f"range: 0 {points}\naccept_score: {points}\ngrader_flags: min first_error\non_reject: break\n"
    )


def weaken(package: Path, max_score: float) -> int:
    """Make the copied package's secret data its samples only (the samples stay samples): a wrong program that
    passes the samples is accepted, and only live fuzzing can tell. The secret data's own testdata.yaml stays;
    when it had groups, the samples become one group worth ``max_score``. Returns the number of tests."""
    secret, sample = package / "data" / "secret", package / "data" / "sample"
    grouped = any(p.is_dir() for p in secret.iterdir())
    for p in secret.iterdir():
        if p.is_dir():
            shutil.rmtree(p)
        elif p.name != TESTDATA:
            p.unlink()
    into = secret / WEAK_GROUP if grouped else secret
    into.mkdir(exist_ok=True)
    files = [f for f in sorted(sample.iterdir()) if f.is_file() and f.name != TESTDATA]
    for f in files:
        shutil.copy2(f, into / f.name)
    if grouped:
        (into / TESTDATA).write_text(_weak_group_yaml(max_score), encoding="utf-8")
    return sum(f.suffix == ".in" for f in files)


def _copy_problems(dest: Path, problems: Sequence[Problem], weak_tests: str | None = None) -> None:
    (dest / "problems").mkdir()
    for p in problems:
        shutil.copytree(p.path, dest / "problems" / p.id, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        if p.id == weak_tests:
            weaken(dest / "problems" / p.id, p.secret.max_score)


def _write_problems(dest: Path, problems: Sequence[Problem], weak_tests: str | None = None) -> None:
    _copy_problems(dest, problems, weak_tests)
    _problems_yaml(dest, problems)


def _problems_yaml(dest: Path, problems: Sequence[Problem]) -> None:
    entries = [
        {
            "id": p.id,
            "label": LABELS[i],
            "name": p.name,
            "rgb": COLORS[i % len(COLORS)][0],
            "color": COLORS[i % len(COLORS)][1],
        }
        for i, p in enumerate(problems)
    ]
    (dest / "problems.yaml").write_text(yaml.safe_dump(entries, sort_keys=False), encoding="utf-8")


def _write_teams(dest: Path, teams: int) -> list[str]:
    """groups.json, organizations.json and teams.json; returns the team ids."""
    groups = [{"id": "participants", "name": "Participants"}]
    organizations = [{"id": "demo-school", "name": "Demo School", "formal_name": "The Demo School of Programming"}]
    (dest / "groups.json").write_text(json.dumps(groups, indent=2) + "\n", encoding="utf-8")
    (dest / "organizations.json").write_text(json.dumps(organizations, indent=2) + "\n", encoding="utf-8")
    team_list = [
        {
            "id": f"team{i + 1}",
            "label": str(i + 1),
            "name": TEAM_NAMES[i % len(TEAM_NAMES)] + ("" if i < len(TEAM_NAMES) else f" {i // len(TEAM_NAMES) + 1}"),
            "organization_id": "demo-school",
            "group_ids": ["participants"],
        }
        for i in range(teams)
    ]
    (dest / "teams.json").write_text(json.dumps(team_list, indent=2) + "\n", encoding="utf-8")
    return [f"team{i + 1}" for i in range(teams)]


def _write_accounts(
    dest: Path, team_ids: Sequence[str], hasher: PasswordHasher, command: str = "judge contest init"
) -> list[Login]:
    logins = [Login(team, _password(), "team") for team in team_ids]
    logins += [Login("judge", _password(), "judge"), Login("admin", _password(), "admin")]
    accounts = [
        {"id": lg.username, "username": lg.username, "password": hasher.hash(lg.password), "type": lg.type}
        | ({"team_id": lg.username} if lg.type == "team" else {})
        for lg in logins
    ]
    header = f"# Passwords are argon2 hashes; `{command}` printed the passwords once.\n"
    private_file(dest / "accounts.yaml", header + yaml.safe_dump(accounts, sort_keys=False))
    return logins


def private_file(path: Path, text: str) -> None:
    """Write a new file readable by its owner only (0600): the hashes in it can be attacked offline."""
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


@dataclass(frozen=True)
class DemoOptions:
    """What `judge contest init` writes: how many teams, the start, the contest's id and type, and the problem
    whose secret data is only its samples (``--weak-tests``: live fuzzing's demo)."""

    teams: int
    start_s: float
    duration_s: float = 5 * 3600.0
    freeze_s: float = 3600.0  # the scoreboard freeze before the end (0: never frozen)
    contest_id: str = "demo"
    kind: ScoreboardType = ScoreboardType.SCORE
    weak_tests: str | None = None


def write_demo(dest: Path, problems: Sequence[Problem], options: DemoOptions, hasher: PasswordHasher) -> list[Login]:
    """Write the package into ``dest`` (created owner-only, 0700: its secret test data, accounts and later its
    database are the organizer's alone; must not exist or be empty). Returns the logins."""
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.mkdir(mode=0o700)
    _write_problems(dest, problems, options.weak_tests)
    contest_yaml = _contest_yaml(options.contest_id, options)
    (dest / "contest.yaml").write_text(contest_yaml, encoding="utf-8")
    return _write_accounts(dest, _write_teams(dest, options.teams), hasher)


# ------------------------------------------------------------------------------------------------ a site

PRACTICE_S = 2 * 3600.0
MAIN_S = 5 * 3600.0
MAIN_AFTER_S = 3600.0  # the main contest starts this long after the practice
PRACTICE_PROBLEMS = 2


def write_demo_site(
    dest: Path, problems: Sequence[Problem], teams: int, now_s: float, hasher: PasswordHasher
) -> list[Login]:
    """`judge site init DIR` (issue 44): a site of two pass-fail contests sharing the people and the problems
    (SITE/problems/): ``practice``, running from ``now_s`` for two hours with two problems, judged after the
    main contest (``judging_priority: -1``), and ``main``, every problem, starting an hour later, five hours,
    the board frozen for the last hour. Owner-only as ``write_demo``. Returns the logins."""
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.mkdir(mode=0o700)
    _copy_problems(dest, problems)
    (dest / "site.yaml").write_text(
        "# A site of contests (docs/serve.md): the people (accounts.yaml, teams.json, groups.json,\n"
        "# organizations.json) and the problems (problems/) here are every contest's; each contest is a\n"
        "# contest package in contests/<id>/. `contests` lists them in the order the pages show.\n"
        "name: Demo site\ncontests: [practice, main]\n",
        encoding="utf-8",
    )
    contests = (
        (
            "practice",
            "Practice session",
            DemoOptions(teams, now_s, PRACTICE_S, 0.0, "practice", ScoreboardType.PASS_FAIL),
            problems[:PRACTICE_PROBLEMS],
            "# judged after the main contest's submissions (higher first; default 0)\njudging_priority: -1\n",
        ),
        (
            "main",
            "Demo ICPC contest",
            DemoOptions(teams, now_s + MAIN_AFTER_S, MAIN_S, 3600.0, "main", ScoreboardType.PASS_FAIL),
            problems,
            "# every team of the site takes part (or a list of team ids, or {groups: [ids]})\nteams: all\n",
        ),
    )
    for cid, name, options, chosen, extra in contests:
        folder = dest / "contests" / cid
        folder.mkdir(parents=True, mode=0o700)
        (folder / "contest.yaml").write_text(_contest_yaml(cid, options, name, extra), encoding="utf-8")
        _problems_yaml(folder, chosen)
    return _write_accounts(dest, _write_teams(dest, teams), hasher, "judge site init")
