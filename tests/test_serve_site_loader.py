"""A site's folder (issue 44, model/site.py): what loads, in which order, where problems are found, which
teams take part; and every mistake is one line naming the file (through `judge serve` too: no traceback)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, write_contest
from serve_site_fixtures import add_contest, write_site

from judge.serve.model.contest import ContestError
from judge.serve.model.contest_values import TeamChoice
from judge.serve.model.roster import Roster, taking_part
from judge.serve.model.site import load_site

ROOT = Path(__file__).parent.parent


def test_a_site_loads_its_people_once_and_its_contests_in_the_sites_order(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", order=["practice"])
    site = load_site(root)
    assert not site.single and site.name == "Test site"
    assert [c.info.id for c in site.contests] == ["practice", "main"]  # listed first, then the rest by id
    assert [t.id for t in site.people.teams] == ["team1", "team2", "team3", "team4"]
    practice, main = site.contests
    assert practice.info.judging_priority == -1 and main.info.judging_priority == 0
    assert practice.info.teams.everyone
    assert [p.id for p in main.problems] == ["sum", "divisor"]
    # one package loaded once for both contests
    assert practice.problem("sum").problem is main.problem("sum").problem  # type: ignore[union-attr]
    assert practice.teams == site.people.teams  # the site's people; the roster in force filters (below)


def test_a_contests_own_problems_come_before_the_sites(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", {"main": {"problems": ("sum", "hello")}})
    shutil.copytree(FIXTURES / "hello", root / "contests" / "main" / "problems" / "hello")
    site = load_site(root)
    hello = site.contests[0].problem("hello")
    assert hello is not None and hello.problem.path.parent == root / "contests" / "main" / "problems"


def test_teams_taking_part_and_what_a_contest_shows_of_the_people(tmp_path: Path) -> None:
    root = write_site(
        tmp_path / "site",
        {"listed": {"teams": ["team1", "team4"]}, "grouped": {"teams": {"groups": ["late"]}}, "open": {}},
    )
    site = load_site(root)
    base = Roster(site.people.teams, site.people.accounts, frozenset(), site.people.groups, ())
    listed, grouped, everyone = (taking_part(base, site.contest(c).info) for c in ("listed", "grouped", "open"))  # type: ignore[union-attr]
    assert [t.id for t in listed.teams] == ["team1", "team4"]
    assert [a.id for a in listed.accounts] == ["team1", "judge", "admin", "team4"]  # every staff account
    assert [g["id"] for g in listed.groups] == ["g", "late"]
    assert [t.id for t in grouped.teams] == ["team4"] and [g["id"] for g in grouped.groups] == ["late"]
    assert everyone is base  # `teams: all`: the site's roster itself (nothing made anew)
    assert TeamChoice(group_ids=("g",)).takes_part("x", ["g"]) and not TeamChoice(team_ids=()).takes_part("x", [])


def test_a_contest_folder_is_a_site_of_one(tmp_path: Path) -> None:
    root = write_contest(tmp_path / "contest", extra=("teams: [team1, team2]", "judging_priority: 3"))
    site = load_site(root, FIXTURES)
    assert site.single and [c.info.id for c in site.contests] == ["test"]
    assert site.contests[0].info.teams == TeamChoice(team_ids=("team1", "team2"))
    assert site.contests[0].info.judging_priority == 3


def _fails(tmp_path: Path, change: object) -> str:
    root = write_site(tmp_path / "site")
    assert callable(change)
    change(root)
    with pytest.raises(ContestError) as err:
        load_site(root)
    message = str(err.value)
    assert "\n" not in message
    return message


def test_the_sites_mistakes_are_one_line_each(tmp_path: Path) -> None:
    def write(name: str, text: str) -> object:
        return lambda root: (root / name).write_text(text)

    cases = [
        (write("site.yaml", "name: [unclosed\n"), "site.yaml line"),
        (write("site.yaml", "name: x\ncontets: [main]\n"), "unknown key 'contets'"),
        (write("site.yaml", "contests: [main, nowhere]\n"), "no folder contests/nowhere/"),
        (write("site.yaml", "contests: [main, main]\n"), "'main' appears twice"),
        (write("site.yaml", "contests: main\n"), "`contests` must list contest ids"),
        (write("contests/main/teams.json", "[]"), "a site's contest has no people of its own"),
        (write("contests/main/accounts.yaml", "[]"), "a site's contest has no people of its own"),
        (write("contests/practice/contest.yaml", "id: other\nname: x\nduration: 60\n"), "not its folder's name"),
        (lambda root: add_contest(root, "x", teams=["team9"]), "teams: 'team9' is not a team"),
        (lambda root: add_contest(root, "x", teams={"groups": ["nope"]}), "teams: groups: 'nope' is not a group"),
        (lambda root: add_contest(root, "x", teams={"group": ["g"]}), "`teams` must be `all`, a list of team ids"),
        (lambda root: add_contest(root, "x", priority=10**6), "`judging_priority` must be a whole number"),
        (lambda root: add_contest(root, "x", teams="some"), "`teams` must be `all`"),
        (lambda root: add_contest(root, "x", problems=("nowhere",)), "no problem package 'nowhere'"),
        (lambda root: (root / "contests" / "stray").mkdir(), "stray: no contest.yaml"),
        (write("teams.json", json.dumps([{"id": "t", "group_ids": ["zz"]}])), "group_ids must list ids of groups.json"),
    ]
    for change, expected in cases:
        shutil.rmtree(tmp_path / "site", ignore_errors=True)
        assert expected in _fails(tmp_path, change), expected


def test_two_packages_of_one_problem_id_are_refused(tmp_path: Path) -> None:
    def own_sum(root: Path) -> None:
        shutil.copytree(FIXTURES / "sum", root / "contests" / "practice" / "problems" / "sum")
        (root / "contests" / "practice" / "problems" / "sum" / "problem.yaml").write_text("name: Another sum\n")

    assert "two different packages of problem 'sum'" in _fails(tmp_path, own_sum)


def test_neither_a_site_nor_a_contest(tmp_path: Path) -> None:
    with pytest.raises(ContestError, match="neither a site"):
        load_site(tmp_path)
    with pytest.raises(ContestError, match="not a folder"):
        load_site(tmp_path / "missing")


def test_judge_serve_says_a_sites_mistake_in_one_line(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site")
    (root / "contests" / "main" / "teams.json").write_text("[]")
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "serve", str(root), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "a site's contest has no people of its own" in lines[0], proc.stderr
