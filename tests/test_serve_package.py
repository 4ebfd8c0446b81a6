"""`judge serve`'s contest package (contest.yaml, problems.yaml, accounts.yaml, teams.json) and the
Contest API's time formats; `judge contest init`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from serve_fixtures import FIXTURES, T0, write_contest

from judge.commands.cli import main
from judge.serve.model.contest import ContestError, load_contest
from judge.serve.model.times import TimeError, format_reltime, format_time, parse_reltime, parse_time
from judge.serve.services.people.accounts import is_hash


def test_times_round_trip() -> None:
    assert format_time(T0) == "2030-01-01T10:00:00.000+00:00"
    assert parse_time("2030-01-01T11:00:00+01", "t") == T0
    assert parse_time("2030-01-01T10:00:00.000Z", "t") == T0
    assert parse_time("2030-01-01T05:30:00-0430", "t") == T0
    assert format_reltime(3723.5) == "1:02:03.500"
    assert format_reltime(-61) == "-0:01:01.000"
    assert parse_reltime("5:00:00", "d") == 18000
    assert parse_reltime(18000, "d") == 18000  # PyYAML's reading of an unquoted 5:00:00
    assert parse_reltime("-0:00:01.5", "d") == -1.5
    for bad in ("2030-01-01T10:00:00", "yesterday", 5):
        with pytest.raises(TimeError):
            parse_time(bad, "start_time")
    with pytest.raises(TimeError, match="time zone"):
        parse_time(yaml.safe_load("t: 2030-01-01T10:00:00")["t"], "start_time")
    with pytest.raises(TimeError):
        parse_reltime("5h", "duration")


def test_the_fixture_contest_loads(tmp_path: Path) -> None:
    contest = load_contest(write_contest(tmp_path / "c"), FIXTURES)
    info = contest.info
    assert (info.id, info.start_s, info.duration_s, info.freeze_duration_s) == ("test", T0, 18000, 3600)
    assert info.freeze_s == T0 + 4 * 3600 and info.end_s == T0 + 5 * 3600
    assert [(p.id, p.label, p.ordinal) for p in contest.problems] == [("sum", "A", 1), ("divisor", "B", 2)]
    assert contest.problem("sum").problem.id == "sum"  # type: ignore[union-attr]
    assert [t.id for t in contest.teams] == ["team1", "team2", "team3"]
    assert {a.username: a.type for a in contest.accounts}["admin"] == "admin"
    assert (info.rate_submissions, info.rate_seconds, info.code_limit_kib) == (3, 60, 16)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: (d / "contest.yaml").unlink(), "no contest.yaml"),
        (
            lambda d: (d / "contest.yaml").write_text(
                "id: x\nname: X\nduration: 1:00:00\nstart_time: 2030-01-01T10:00:00\n"
            ),
            "time zone",
        ),
        (
            lambda d: (d / "contest.yaml").write_text(
                "id: x\nname: X\nduration: 1:00:00\nscoreboard_type: icpc\n"  # pass-fail is supported now
            ),
            "pass-fail",
        ),
        (lambda d: (d / "contest.yaml").write_text("id: 'bad id'\nname: X\nduration: 1:00:00\n"), "not a valid ID"),
        (lambda d: (d / "contest.yaml").write_text("id: x\nname: X\n"), "duration"),
        (lambda d: (d / "contest.yaml").write_text("id: x\nname: X\nduration: '99999999:00:00'\n"), "a year"),
        (
            lambda d: (d / "contest.yaml").write_text(
                "id: x\nname: X\nduration: '5:00:00'\nstart_time: '9999-12-31T23:00:00Z'\n"
            ),
            "after the year 9999",
        ),
        (lambda d: (d / "problems.yaml").write_text("- {id: nosuch}\n"), "no problem package 'nosuch'"),
        (lambda d: (d / "problems.yaml").write_text("- {id: sum}\n- {id: sum}\n"), "appears twice"),
        (
            lambda d: (d / "accounts.yaml").write_text("- {username: t, password: p, type: team, team_id: nobody}\n"),
            "team_id",
        ),
        (lambda d: (d / "accounts.yaml").write_text("- {username: t, password: p, type: root}\n"), "type"),
        (
            lambda d: (d / "accounts.yaml").write_text(
                "- {username: a, password: p, type: admin}\n- {username: a, password: q, type: judge}\n"
            ),
            "twice",
        ),
        (lambda d: (d / "teams.json").write_text('[{"id": "t", "name": "T", "group_ids": ["nogroup"]}]'), "group_ids"),
        (lambda d: (d / "teams.json").write_text("{not json"), "not valid JSON"),
    ],
)
def test_a_bad_package_is_one_clear_error(tmp_path: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    root = write_contest(tmp_path / "c")
    change(root)
    with pytest.raises(ContestError, match=message):
        load_contest(root, FIXTURES)


def test_serve_refuses_a_bad_package_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_contest(tmp_path / "c")
    (root / "problems.yaml").write_text("- {id: nosuch}\n")
    assert main(["serve", str(root), "--problems", str(FIXTURES), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no problem package 'nosuch'" in err
    assert main(["serve", str(root), "--cluster", "local:0"]) == 2  # checked before anything starts
    assert "--cluster" in capsys.readouterr().err


def test_contest_init_writes_a_ready_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dest = tmp_path / "demo"
    chosen = {"sum", "divisor", "guess", "primes", "reverse"}
    problems = tmp_path / "problems"  # every problem of the folder goes in: five of the fixtures
    for name in chosen:
        shutil.copytree(FIXTURES / name, problems / name)
    assert (
        main(
            [
                "contest",
                "init",
                str(dest),
                "--problems",
                str(problems),
                "--teams",
                "3",
                "--start",
                "2030-01-01T10:00:00Z",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    contest = load_contest(dest)  # self-contained: the problems were copied in
    assert {p.id for p in contest.problems} == chosen
    assert (dest / "problems" / "sum" / "problem.yaml").is_file()
    assert contest.info.start_s == T0
    assert [a.username for a in contest.accounts] == ["team1", "team2", "team3", "judge", "admin"]
    for a in contest.accounts:
        assert is_hash(a.password)  # no plain password on disk
        assert a.password not in out
        line = next(line for line in out.splitlines() if line.strip().startswith(a.username + " "))
        assert len(line.split()[1]) >= 12  # the password, printed once
    assert "accounts.yaml" in out
    teams = json.loads((dest / "teams.json").read_text())
    assert [t["organization_id"] for t in teams] == ["demo-school"] * 3
    assert main(["contest", "init", str(dest), "--problems", str(problems)]) == 2  # never overwrites
    assert "not an empty folder" in capsys.readouterr().err


@pytest.fixture(scope="module")
def sum_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("problems")
    shutil.copytree(FIXTURES / "sum", root / "sum")
    return root


def contest_init(dest: Path, problems: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`judge contest init` as a command (``python -m judge``)."""
    argv = [sys.executable, "-m", "judge", "contest", "init", str(dest), "--problems", str(problems), *options]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def test_contest_init_start_duration_freeze_for_a_quick_test_contest(tmp_path: Path, sum_only: Path) -> None:
    before = time.time()
    done = contest_init(
        tmp_path / "q", sum_only, "--type", "pass-fail", "--start", "+2m", "--duration", "30m", "--freeze", "0:10:00"
    )
    after = time.time()
    assert done.returncode == 0, done.stderr
    info = load_contest(tmp_path / "q").info
    assert info.start_s is not None and before + 120 <= info.start_s <= after + 121  # to the second
    assert info.start_s == int(info.start_s)
    assert (info.duration_s, info.freeze_duration_s) == (1800.0, 600.0)
    assert "runs 0:30:00.000, the board frozen for the last 0:10:00.000" in done.stdout

    done = contest_init(
        tmp_path / "r", sum_only, "--start", "2030-01-01T10:00:00Z", "--duration", "1:30:00", "--freeze", "0"
    )
    assert done.returncode == 0, done.stderr
    info = load_contest(tmp_path / "r").info
    assert (info.start_s, info.duration_s, info.freeze_duration_s) == (T0, 5400.0, 0.0)
    assert "never frozen" in done.stdout


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--duration", "0"], "--duration 0: must be longer than 0"),
        (["--duration", "soon"], "--duration 'soon': expected a length like"),
        (["--freeze", "6h"], "--freeze 6h: must be between 0"),
        (["--start", "+x"], "expected a length like"),
        (["--start", "tomorrow"], "+SPAN"),
    ],
)
def test_contest_init_refuses_bad_times_with_one_line(
    tmp_path: Path, sum_only: Path, options: list[str], said: str
) -> None:
    done = contest_init(tmp_path / "x", sum_only, *options)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "x").exists()  # nothing written


def test_contest_init_makes_2000_teams_and_refuses_more_than_5000(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 51's bench serves 2,000 teams (bench/serve.py --teams 2000 --processes 3): made by contest init."""
    from serve_fixtures import CHEAP_HASHER

    import judge.commands.contest as contest_command

    monkeypatch.setattr(contest_command, "password_hasher", lambda: CHEAP_HASHER)  # 2,000 hashes, quickly
    dest = tmp_path / "big"
    assert main(["contest", "init", str(dest), "--problems", str(FIXTURES), "--teams", "2000"]) == 0
    assert len(json.loads((dest / "teams.json").read_text())) == 2000
    assert "team2000 " in capsys.readouterr().out
    assert main(["contest", "init", str(tmp_path / "huge"), "--problems", str(FIXTURES), "--teams", "5001"]) == 2
    assert "--teams must be between 1 and 5000" in capsys.readouterr().err
    assert not (tmp_path / "huge").exists()
