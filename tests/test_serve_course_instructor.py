"""A course's instructor pages (issue 45): the gradebook (a page and its CSV in the three layouts, the very file
`judge course grades` writes, hand-computed), the roster (a CSV uploaded, its preview, applied on confirmation
exactly as previewed, live and audited, the new students' logins downloaded once) and overrides set in bulk for
students or a section (checked, stored, audited, in force at once, read by `judge course grades` too)."""

from __future__ import annotations

import csv
import html
import io
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_course_fixtures import CourseApi, write_course
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, FakeClock
from serve_site_fixtures import open_test_site

from judge.commands.cli import main
from judge.course.sitefiles import read_roster
from judge.serve.http.pages.sessions import COOKIE
from judge.serve.site.site import SITE_DB


@pytest.fixture
def course(tmp_path: Path) -> Iterator[CourseApi]:
    clock = FakeClock(T0)
    site = open_test_site(write_course(tmp_path / "course"), clock)
    api = CourseApi(site, clock)
    for t, who, problem, code in [
        (1 * HOUR, "s1", "divisor", SUM_WA),  # on time, 0
        (2.5 * HOUR, "s1", "sum", SUM_AC),  # late 30 min: 80 % of 100
        (2.5 * HOUR, "s2", "sum", SUM_AC),  # extension 1h: on time, 100
        (4.5 * HOUR, "s3", "sum", SUM_AC),  # section B due T0 + 3 h: late 90 min, 50 %
    ]:
        clock.t = T0 + t
        assert api.submit_as(who, problem, code).status_code == 201
    assert site.contest("hw").server.judging.run_pending() == 4
    clock.t = T0 + 6.5 * HOUR
    yield api
    site.close()


def root_of(api: CourseApi) -> Path:
    return api.site.spec.root


def grades_cli(api: CourseApi, fmt: str, tmp: Path, *extra: str) -> str:
    out = tmp / f"cli-{fmt}.csv"
    assert main(["course", "grades", str(root_of(api)), "--format", fmt, "--out", str(out), *extra]) == 0
    return out.read_bytes().decode("utf-8")


def download(api: CourseApi, user: str, query: str) -> Any:
    return api.page(user, f"/contests/hw/admin/course/gradebook.csv?{query}")


B = "due 2030-01-01T13:00:00.000+00:00"  # section B's override
HAND = [  # id, name, email, section, hw, hw raw, hw/sum, hw/divisor, minutes late, override, used, total
    ["s1", "Ada Lovelace", "s1@example.edu", "A", "80", "100", "80", "0", "30", "", "no", "80"],
    ["s2", "Alan Turing", "s2@example.edu", "A", "100", "100", "100", "0", "0", "extension 1h", "yes", "100"],
    ["s3", "Grace Hopper", "s3@example.edu", "B", "50", "100", "50", "0", "90", B, "yes", "50"],
    ["s4", "Edsger Dijkstra", "s4@example.edu", "B", "0", "0", "0", "0", "0", B, "no", "0"],
]  # fmt: skip


def test_the_gradebook_csv_is_the_hand_computed_file_judge_course_grades_writes(
    course: CourseApi, tmp_path: Path
) -> None:
    r = download(course, "instructor", "format=csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"] and "gradebook-csv.csv" in r.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(r.content.decode("utf-8"))))
    assert rows[0] == [
        "id", "name", "email", "section", "hw", "hw raw", "hw/sum", "hw/divisor", "hw minutes late", "hw override",
        "hw override used", "total",
    ]  # fmt: skip
    assert rows[1:] == HAND
    for fmt, extra in (("csv", ()), ("canvas", ()), ("moodle", ()), ("canvas", ("--per-problem",))):
        query = f"format={fmt}" + ("&per_problem=1" if extra else "")
        assert download(course, "instructor", query).content.decode("utf-8") == grades_cli(
            course, fmt, tmp_path, *extra
        )
    assert download(course, "ta", "format=moodle").status_code == 200  # staff
    assert download(course, "s1", "format=csv").status_code == 403  # it has every student's email
    assert download(course, "instructor", "format=xls").status_code == 400


def test_the_gradebook_page(course: CourseApi) -> None:
    page = re.sub(r"\s+", " ", course.page("instructor", "/contests/hw/admin/course/gradebook").text)
    row = re.search(r'<tr id="grade-s3">.*?</tr>', page)
    assert row is not None and ">50 <" in row.group(0) and "90 min late" in row.group(0)
    assert 'id="download-gradebook"' in page
    assert course.page("s1", "/contests/hw/admin/course/gradebook").status_code == 403


ROSTER = (  # Canvas's gradebook export: s1 moves to section B, s4 is gone, s5 is new
    "Student,ID,SIS User ID,SIS Login ID,Section\r\n"
    "    Points Possible,,,,\r\n"
    '"Lovelace, Ada",101,s1,,B\r\n'
    '"Turing, Alan",102,s2,,A\r\n'
    '"Hopper, Grace",103,s3,,B\r\n'
    '"Liskov, Barbara",105,s5,,A\r\n'
)


def preview(api: CourseApi, data: str = ROSTER, columns: str = "") -> Any:
    files = {"file": ("canvas.csv", data.encode(), "text/csv")}
    return api.post_page(
        "instructor",
        "/contests/hw/admin/course/roster/preview",
        {"columns": columns},
        files=files,
        form_from="/contests/hw/admin/course/roster",
    )


def confirm_fields(page: str) -> dict[str, str]:
    form = re.search(r'<form method="post" action="[^"]*/roster/apply".*?</form>', page, re.S)
    assert form is not None
    return dict(re.findall(r'name="(name|data|columns|digest)" value="([^"]*)"', form.group(0)))


def test_a_roster_is_previewed_then_applied_exactly_live_and_audited(course: CourseApi) -> None:
    before = read_roster(root_of(course))
    r = preview(course)
    assert r.status_code == 200, r.text
    text = re.sub(r"\s+", " ", r.text)
    assert "id &lt;- &#39;SIS User ID&#39;" in text and "row 2: not a student (Points Possible)" in text
    assert "1 added, 1 changed, 1 withdrawn, 2 unchanged" in text
    assert "+ s5 Barbara Liskov" in text and "~ s1 section: &#39;A&#39; -&gt; &#39;B&#39;" in text and "- s4" in text
    assert read_roster(root_of(course)) == before  # nothing applied yet
    fields = confirm_fields(r.text)
    apply = "/contests/hw/admin/course/roster/apply"
    unconfirmed = course.post_page("instructor", apply, fields, form_from="/contests/hw/admin/course/roster")
    assert unconfirmed.status_code == 200 and "Apply the roster: 1 added, 1 changed, 1 withdrawn?" in unconfirmed.text
    assert read_roster(root_of(course)) == before
    stale = course.post_page(
        "instructor",
        apply,
        {**fields, "digest": "0" * 32, "confirmed": "yes"},
        form_from="/contests/hw/admin/course/roster",
    )
    assert stale.status_code == 409 and "changed since the preview" in stale.text
    done = course.post_page(
        "instructor", apply, {**fields, "confirmed": "yes"}, form_from="/contests/hw/admin/course/roster"
    )
    assert done.status_code == 303 and "imported=1" in done.headers["location"]
    after = read_roster(root_of(course))
    assert [(s.id, s.section) for s in after.students] == [("s1", "B"), ("s2", "A"), ("s3", "B"), ("s5", "A")]
    assert [s.id for s in after.withdrawn] == ["s4"]
    # the new student's login, once
    page = course.request("GET", done.headers["location"], cookies={COOKIE: course.cookies["instructor"]})
    link = re.search(r'href="([^"]*/roster/logins\.csv\?shown=[^"]+)"', page.text)
    assert link is not None
    url = link.group(1).replace("&amp;", "&")
    logins = course.request("GET", url, cookies={COOKIE: course.cookies["instructor"]})
    assert logins.status_code == 200 and "attachment" in logins.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(logins.text)))
    assert rows[0] == ["id", "name", "email", "section", "username", "password"] and rows[1][:4] == [
        "s5",
        "Barbara Liskov",
        "",
        "A",
    ]
    again = course.request("GET", url, cookies={COOKIE: course.cookies["instructor"]})
    assert again.status_code == 404
    # live: the new student submits with that password, the withdrawn one cannot log in, s1 is in section B now
    late = course.submit_as("s5", password=rows[1][5])  # logged in: refused by the window (closed), not the login
    assert late.status_code == 403 and "closed at" in late.json()["message"]
    assert course.request("GET", "/api/contests/hw/submissions", "s4").status_code == 401
    assert "section B" in course.page("instructor", "/contests/hw/admin/course/roster").text
    with sqlite3.connect(root_of(course) / SITE_DB) as conn:
        actions = [row[0] for row in conn.execute("SELECT action FROM audit_log")]
    assert "roster.import" in actions


def test_a_roster_import_is_the_admins(course: CourseApi) -> None:
    files = {"file": ("canvas.csv", ROSTER.encode(), "text/csv")}
    r = course.post_page(
        "ta", "/contests/hw/admin/course/roster/preview", {}, files=files, form_from="/contests/hw/admin/course/roster"
    )
    assert r.status_code == 403
    bad = preview(course, "Name,Email\r\nAda,a@x\r\n")
    assert bad.status_code == 400 and "id" in bad.text


def override(api: CourseApi, user: str, data: dict[str, str]) -> Any:
    return api.post_page(
        user, "/contests/hw/admin/course/overrides", data, form_from="/contests/hw/admin/course/roster"
    )


def test_overrides_in_bulk_are_in_force_at_once_and_judge_course_grades_reads_them(
    course: CourseApi, tmp_path: Path
) -> None:
    r = override(
        course,
        "instructor",
        {"student:s1": "on", "student:s3": "on", "kind": "extension", "value": "2h", "note": "flood"},
    )
    assert r.status_code == 303, r.text
    rows = {row[0]: row for row in csv.reader(io.StringIO(download(course, "instructor", "format=csv").text))}
    assert rows["s1"][4] == "100" and rows["s1"][9] == "extension 2h"  # on time now (due T0 + 4 h)
    # s3's own override beats section B's: due T0 + 4 h (not + 3 h), so 30 minutes late: 80 %
    assert rows["s3"][4] == "80" and rows["s3"][8] == "30"
    assert download(course, "instructor", "format=csv").text == grades_cli(course, "csv", tmp_path)
    # a section: its students without their own override
    assert override(course, "instructor", {"section": "B", "kind": "clear"}).status_code == 303
    rows = {row[0]: row for row in csv.reader(io.StringIO(download(course, "instructor", "format=csv").text))}
    assert rows["s4"][9] == "" and rows["s3"][9] == "extension 2h"
    # the submit check reads them: s1 may submit until T0 + 4 h + the late hours
    course.clock.t = T0 + 6.5 * HOUR
    assert course.submit_as("s1").status_code == 201  # s1 closes at T0 + 7 h now
    assert course.submit_as("s4").status_code == 403  # the assignment's own window: closed at T0 + 5 h
    # mistakes: one line, nothing stored
    for data, said in [
        ({"student:s1": "on", "kind": "extension", "value": "soon"}, "expected a length of time"),
        ({"kind": "extension", "value": "2h"}, "choose some students, or a section"),
        ({"student:s9": "on", "kind": "extension", "value": "2h"}, "'s9' is not a student of the roster"),
        ({"student:s1": "on", "kind": "extension", "value": "30d"}, "make its duration longer"),
    ]:
        bad = override(course, "instructor", data)
        assert bad.status_code == 400 and said in html.unescape(bad.text), data
    assert override(course, "ta", {"student:s1": "on", "kind": "clear"}).status_code == 403
    audit = course.page("instructor", "/contests/hw/admin/audit").text
    assert audit.count("course.override") == 2


def test_overrides_survive_a_restart(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    root = write_course(tmp_path / "course")
    site = open_test_site(root, clock)
    api = CourseApi(site, clock)
    assert override(api, "instructor", {"student:s4": "on", "kind": "extension", "value": "3h"}).status_code == 303
    site.close()
    again = open_test_site(root, clock)
    try:
        state = again.contest("hw").server.course.state
        assert state is not None and state.assignment.resolve("s4", "B").override.label == "extension 3h"
    finally:
        again.close()
