"""A site served by several `judge serve --shared` processes on one PostgreSQL database (issue 51): a contest
added live on one is served by the others without a restart (Site.reload: the registry's generation in the
site database's meta, heard through LISTEN/NOTIFY), as is a contest hidden, archived or re-prioritized there;
a contest added live is in its course's list of contests (issue 45). Two sites in this process over one folder
stand for two processes on one machine; tests/test_serve_shared.py drives two real processes."""

from __future__ import annotations

from pathlib import Path

from serve_fixtures import T0, FakeClock
from serve_site_fixtures import add_contest, open_test_site, write_site
from test_serve_site import admin_viewer

from judge.serve.services.lifecycle.registry import ContestChange, NewContest, register_contest
from judge.serve.storage import Engine

CONTESTS = {"main": {"problems": ("sum", "divisor")}}


def test_a_contest_added_live_is_in_the_courses_list_of_contests(tmp_path: Path, engine: Engine) -> None:
    site = open_test_site(write_site(tmp_path / "site", CONTESTS), FakeClock(T0))
    try:
        added = site.add_new(admin_viewer(site), NewContest("lab", "Lab", "", "2:00:00", "0:00:00", ("sum",)))
        assert [s.package.info.id for s in added.server.course.contests()] == ["lab", "main"]
        assert added.server.course.root == site.spec.root
    finally:
        site.close()


def test_a_contest_added_hidden_archived_on_one_process_is_so_on_the_other(tmp_path: Path, dsn: str) -> None:
    root = write_site(tmp_path / "site", CONTESTS)
    engine = Engine(dsn, shared=True)
    lines: list[str] = []
    one = open_test_site(root, FakeClock(T0), engine=engine)
    two = open_test_site(root, FakeClock(T0), engine=engine, log=lines.append)
    try:
        assert not two.reload()  # nothing changed: one meta read
        new = NewContest("lab", "Lab", "", "2:00:00", "0:00:00", ("sum",))
        one.add_new(admin_viewer(one), new)
        two.reload()  # (its listener may have done it first: the same)
        lab = two.contest("lab")
        assert lab is not None and [c.id for c in two.contests()] == ["lab", "main"]
        assert [s.package.info.id for s in lab.server.course.contests()] == ["lab", "main"]
        assert "contest 'lab' added by another process: served here too" in lines
        # a team's submission to it on the second is judged there, into the one database
        with lab.server.storage.read() as r:
            assert r.get_meta("contest_id") == "lab"

        one.change(admin_viewer(one), "lab", ContestChange(hidden=True, judging_priority=7))
        one.change(admin_viewer(one), "main", ContestChange(archived=True))
        two.reload()
        lab, main = two.contest("lab"), two.contest("main")
        assert lab is not None and lab.hidden and lab.priority == 7
        assert main is not None and main.archived and main.server.standing.archived
        assert not two.reload()
        two.stop()  # stopping: a contest added from now on is not opened there
        one.add_new(admin_viewer(one), NewContest("late", "Late", "", "2:00:00", "0:00:00", ("sum",)))
        assert not two.reload() and two.contest("late") is None
    finally:
        one.close()
        two.close()


def test_a_contest_whose_folder_is_not_here_is_said_once_then_served_once_it_is(tmp_path: Path, dsn: str) -> None:
    """Another machine's process added it, and this machine does not see its folder (SITE/contests/ not on
    shared storage): one line in the log, nothing served; once the folder is there, the next change opens it."""
    root = write_site(tmp_path / "site", CONTESTS)
    engine = Engine(dsn, shared=True)
    lines: list[str] = []
    one = open_test_site(root, FakeClock(T0), engine=engine)
    two = open_test_site(root, FakeClock(T0), engine=engine, log=lines.append)
    try:
        one.add_new(admin_viewer(one), NewContest("lab2", "Lab 2", "", "2:00:00", "0:00:00", ("sum",)))
        register_contest(one.storage, admin_viewer(one), "lab", T0, {"from": "elsewhere"})  # its folder not here
        two.reload()  # (or its listener first: the same)
        assert [c.id for c in two.contests()] == ["lab2", "main"]
        said = [line for line in lines if "'lab'" in line]
        assert len(said) == 1 and "is not on this machine" in said[0] and "shared" in said[0], lines
        one.change(admin_viewer(one), "main", ContestChange(judging_priority=3))
        two.reload()
        assert [line for line in lines if "'lab'" in line] == said  # once
        add_contest(root, "lab")  # the shared storage is there now
        one.change(admin_viewer(one), "main", ContestChange(judging_priority=4))
        two.reload()
        assert [c.id for c in two.contests()] == ["lab", "lab2", "main"]
    finally:
        one.close()
        two.close()


def test_a_contest_registered_but_gone_before_the_start_is_not_looked_for(tmp_path: Path, dsn: str) -> None:
    """A contest whose folder the organizer took away before a restart is no contest added live."""
    root = write_site(tmp_path / "site", {**CONTESTS, "old": {"problems": ("sum",)}})
    engine = Engine(dsn, shared=True)
    first = open_test_site(root, FakeClock(T0), engine=engine)
    try:
        first.change(admin_viewer(first), "old", ContestChange(hidden=True))  # registered
    finally:
        first.close()
    (root / "contests" / "old").rename(tmp_path / "old")
    lines: list[str] = []
    one = open_test_site(root, FakeClock(T0), engine=engine)
    two = open_test_site(root, FakeClock(T0), engine=engine, log=lines.append)
    try:
        one.change(admin_viewer(one), "main", ContestChange(judging_priority=2))
        two.reload()  # (its listener may have done it first: the same; never assert which of the two did)
        main = two.contest("main")
        assert main is not None and main.priority == 2  # the change was read here
        assert [c.id for c in two.contests()] == ["main"] and not [line for line in lines if "'old'" in line]
    finally:
        one.close()
        two.close()


def test_an_uploaded_contest_with_a_problem_new_to_the_judge_is_judged_on_the_other(tmp_path: Path, dsn: str) -> None:
    """The uploaded contest brings its own problem (hello): the other process registers it with its judge too."""
    from test_serve_site import api_of
    from test_serve_site_upload import package, zip_of

    root = write_site(tmp_path / "site", CONTESTS)
    engine = Engine(dsn, shared=True)
    one = open_test_site(root, FakeClock(T0), engine=engine)
    two = open_test_site(root, FakeClock(T0), engine=engine)
    try:
        one.add_upload(admin_viewer(one), zip_of(package("lab")))
        two.reload()
        lab = two.contest("lab")
        assert lab is not None
        assert api_of(two).submit_to("lab", "team1", "hello").status_code == 201
        assert lab.server.judging.run_pending() == 1
        with lab.server.storage.read() as r:
            (judgement,) = r.judgements()
        assert judgement.verdict == "AC"  # judged with the package (not a JE: the judge knows hello)
    finally:
        one.close()
        two.close()
