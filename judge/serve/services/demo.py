"""`judge contest init DIR`: a ready contest package with the project's problems (copied into
DIR/problems/, so the contest does not change when the repository does), a few teams, a judge and an
admin. Passwords are random, printed once, and stored only as argon2 hashes (in accounts.yaml, which the
format allows, and then in the database)."""

from __future__ import annotations

import json
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from argon2 import PasswordHasher

from judge.package.problem import Problem
from judge.serve.model.contest import LABELS
from judge.serve.model.times import format_time

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


def _contest_yaml(contest_id: str, start_s: float) -> str:
    return (
        "# The contest (CCS Contest Package format; see docs/serve.md). Times need a time zone.\n"
        f"id: {contest_id}\n"
        "name: Demo contest\n"
        f'start_time: "{format_time(start_s)}"\n'
        'duration: "5:00:00"\n'
        'scoreboard_freeze_duration: "1:00:00"\n'
        "scoreboard_type: score\n"
        "# judge serve's own settings: the largest submission (KiB), the per-team rate limit, and the\n"
        "# clarifications' longest text and questions a team may ask per window\n"
        "code_limit: 256\n"
        "rate_limit: {submissions: 10, seconds: 60}\n"
        "clarification_limits: {text_chars: 2000, questions: 5, seconds: 300}\n"
    )


def _write_problems(dest: Path, problems: Sequence[Problem]) -> None:
    (dest / "problems").mkdir()
    for p in problems:
        shutil.copytree(p.path, dest / "problems" / p.id, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
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


def _write_accounts(dest: Path, team_ids: Sequence[str], hasher: PasswordHasher) -> list[Login]:
    logins = [Login(team, _password(), "team") for team in team_ids]
    logins += [Login("judge", _password(), "judge"), Login("admin", _password(), "admin")]
    accounts = [
        {"id": lg.username, "username": lg.username, "password": hasher.hash(lg.password), "type": lg.type}
        | ({"team_id": lg.username} if lg.type == "team" else {})
        for lg in logins
    ]
    header = "# Passwords are argon2 hashes; `judge contest init` printed the passwords once.\n"
    (dest / "accounts.yaml").write_text(header + yaml.safe_dump(accounts, sort_keys=False), encoding="utf-8")
    return logins


def write_demo(
    dest: Path,
    problems: Sequence[Problem],
    *,
    teams: int,
    start_s: float,
    hasher: PasswordHasher,
    contest_id: str = "demo",
) -> list[Login]:
    """Write the package into ``dest`` (created; must not exist or be empty). Returns the logins."""
    dest.mkdir(parents=True, exist_ok=True)
    _write_problems(dest, problems)
    (dest / "contest.yaml").write_text(_contest_yaml(contest_id, start_s), encoding="utf-8")
    return _write_accounts(dest, _write_teams(dest, teams), hasher)
