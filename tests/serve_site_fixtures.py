"""Helpers for the tests of a site of contests (issue 44): a small site folder (the fixture problems sum and
divisor in SITE/problems/, four teams and their accounts, a judge and an admin at the site level, contests
under SITE/contests/<id>/), and a site opened over the scripted judge with a settable clock."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from serve_fixtures import CHEAP_HASHER, FIXTURES, PASSWORDS, FakeClock, ScriptedJudge

from judge.languages.table import load_languages
from judge.serve.model.site import SiteSpec, load_site
from judge.serve.site.server import ServeOptions

SITE_PASSWORDS = {**PASSWORDS, "team4": "pw-team4"}


def contest_yaml(
    cid: str,
    *,
    start: str | None = "2030-01-01T10:00:00Z",
    duration: str = "5:00:00",
    teams: Any = None,
    priority: int | None = None,
    extra: Sequence[str] = (),
) -> str:
    lines = [
        f"id: {cid}",
        f"name: Contest {cid}",
        f"start_time: {json.dumps(start)}" if start else "start_time: null",
        f'duration: "{duration}"',
        'scoreboard_freeze_duration: "1:00:00"',
        "scoreboard_type: pass-fail",
        "code_limit: 16",
        "rate_limit: {submissions: 100, seconds: 60}",
    ]
    if teams is not None:
        lines.append(f"teams: {json.dumps(teams)}")
    if priority is not None:
        lines.append(f"judging_priority: {priority}")
    return "\n".join([*lines, *extra]) + "\n"


def add_contest(root: Path, cid: str, problems: Sequence[str] = ("sum",), **kw: Any) -> Path:
    folder = root / "contests" / cid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "contest.yaml").write_text(contest_yaml(cid, **kw))
    labels = "ABCDEFG"
    entries = [f"- {{id: {p}, label: {labels[i]}}}\n" for i, p in enumerate(problems)]
    (folder / "problems.yaml").write_text("".join(entries))
    return folder


def write_site(
    root: Path,
    contests: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    name: str = "Test site",
    order: Sequence[str] | None = None,
) -> Path:
    """A site: teams team1..team4 (team1..team3 in group ``g``, team4 in ``late``), their accounts, a judge and
    an admin; the problems sum and divisor; ``contests``: id -> add_contest's keywords (default: ``main``, all
    teams, sum and divisor; ``practice``, all teams, sum, judging priority -1)."""
    root.mkdir(parents=True, exist_ok=True)
    site = [f"name: {name}"] + ([f"contests: {json.dumps(list(order))}"] if order is not None else [])
    (root / "site.yaml").write_text("\n".join(site) + "\n")
    for pid in ("sum", "divisor"):
        shutil.copytree(FIXTURES / pid, root / "problems" / pid)
    groups = [{"id": "g", "name": "Everyone"}, {"id": "late", "name": "Late entries"}]
    teams = [
        {"id": f"team{i}", "name": name, "label": str(i), "group_ids": ["late" if i == 4 else "g"]}
        for i, name in ((1, "Zeta"), (2, "Alpha"), (3, "Mu"), (4, "Omega"))
    ]
    accounts = [
        {"username": u, "password": p, "type": "team" if u.startswith("team") else u}
        | ({"team_id": u} if u.startswith("team") else {})
        for u, p in SITE_PASSWORDS.items()
    ]
    (root / "groups.json").write_text(json.dumps(groups))
    (root / "teams.json").write_text(json.dumps(teams))
    (root / "accounts.yaml").write_text(json.dumps(accounts))
    if contests is None:
        contests = {"main": {"problems": ("sum", "divisor")}, "practice": {"problems": ("sum",), "priority": -1}}
    for cid, kw in contests.items():
        add_contest(root, cid, **kw)
    return root


def open_test_site(root: Path, clock: FakeClock, judge: Any = None, **options: Any) -> Any:
    from judge.serve.services.judging.versions import NO_TOOLS
    from judge.serve.site.site import open_site

    spec: SiteSpec = load_site(root)
    problems = {p.id: p.problem for c in spec.contests for p in c.problems}
    if judge is None:  # a problem new to the site's judge (a contest added live) is registered with it
        judge = ScriptedJudge(problems)
        options.setdefault("tools", replace(NO_TOOLS, register=lambda p: problems.__setitem__(p.id, p)))
    langs = {k: v for k, v in load_languages().items() if k == "python3"}
    return open_site(spec, langs, judge, ServeOptions(hasher=CHEAP_HASHER, clock=clock, **options))
