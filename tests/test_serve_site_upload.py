"""An admin adds a contest to a running site by uploading a contest package (issue 44, /site/contests/new):
through the real ASGI app, a contest package (its own problem, the site's problems) and an archive
`judge contest export` wrote are added live and audited; every bad zip is refused with one line and nothing
is stored (no folder, no registry entry, no audit line, no contest)."""

from __future__ import annotations

import html
import io
import json
import re
import sqlite3
import stat
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from serve_fixtures import FIXTURES, T0, FakeClock
from serve_site_fixtures import contest_yaml, open_test_site, write_site
from test_serve_site import CONTESTS, SiteApi, _login, admin_viewer, api_of, ids

from judge.serve.http.pages.sessions import COOKIE
from judge.serve.model.errors import Refused
from judge.serve.site.site import SITE_DB, Site


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    root = write_site(tmp_path / "site", CONTESTS, order=["practice", "main"])
    opened = open_test_site(root, FakeClock(T0))
    yield opened
    opened.close()


def zip_of(files: Mapping[str, bytes | str], links: Mapping[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return buf.getvalue()


def folder_files(folder: Path, prefix: str = "") -> dict[str, bytes | str]:
    return {prefix + p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def package(cid: str = "lab", **kw: Any) -> dict[str, bytes | str]:
    """A contest package: its own problem ``hello`` (in problems/) and the site's ``sum``."""
    files: dict[str, bytes | str] = {
        "contest.yaml": contest_yaml(cid, start="2030-01-01T09:00:00Z", **kw),
        "problems.yaml": "- {id: hello, label: A}\n- {id: sum, label: B}\n",
    }
    files.update(folder_files(FIXTURES / "hello", "problems/hello/"))
    return files


def upload(api: SiteApi, cookie: str, data: bytes, cid: str = "", token: str | None = None) -> Any:
    if token is None:
        page = api.get("/site/contests/new", cookies={COOKIE: cookie})
        assert page.status_code == 200, page.text
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found is not None
        token = found.group(1)
    return api.request(
        "POST",
        "/site/contests/upload",
        data={"csrf": token, "id": cid},
        files={"package": ("contest.zip", data, "application/zip")},
        cookies={COOKIE: cookie},
    )


def error_line(r: Any) -> str:
    found = re.search(r'<p class="error" id="upload-error">([^<]*)</p>', r.text)
    assert found is not None, r.text[:2000]
    return html.unescape(found.group(1))


def stored(site: Site) -> tuple[list[str], list[str], list[str]]:
    """What the site holds: contests/ folders (hidden ones too), its registry, its audit lines."""
    folders = sorted(p.name for p in (site.spec.root / "contests").iterdir())
    with sqlite3.connect(site.spec.root / SITE_DB) as conn:
        registry = [r[0] for r in conn.execute("SELECT id FROM site_contests ORDER BY id")]
        audit = [r[0] for r in conn.execute("SELECT action FROM audit_log")]
    return folders, registry, audit


def test_an_admin_uploads_a_contest_package_and_it_is_served_at_once(site: Site) -> None:
    api = api_of(site)
    admin, _ = _login(api, "admin")
    page = api.get("/site/contests/new", cookies={COOKIE: admin})
    assert 'id="upload-contest"' in page.text and 'enctype="multipart/form-data"' in page.text
    # zipped as a folder (one top folder holding contest.yaml): taken off
    files = {f"lab/{k}": v for k, v in package("lab", teams=["team2", "team3"], priority=-1).items()}
    r = upload(api, admin, zip_of(files))
    assert r.status_code == 303 and r.headers["location"] == "/site?done=added&contest=lab", r.text
    assert "Contest lab is added" in api.get(r.headers["location"], cookies={COOKIE: admin}).text
    assert ids(api.get("/api/contests", "team2")) == ["practice", "main", "club", "lab"]
    assert "lab" in ids(api.get("/api/contests", "team1"))  # not taking part: seen as the public sees it
    assert ids(api.get("/api/contests/lab/teams", "admin")) == ["team2", "team3"]
    assert ids(api.get("/api/contests/lab/problems", "team2")) == ["hello", "sum"]
    assert api.submit_to("lab", "team2").status_code == 201
    assert api.submit_to("lab", "team2", problem="hello").status_code == 201  # its own problem
    assert api.submit_to("lab", "team1").status_code == 403  # not taking part
    lab = site.contest("lab")
    assert lab is not None and lab.priority == -1 and lab.server.judging.run_pending() == 2
    judged = api.get("/api/contests/lab/judgements", "admin").json()
    assert sorted(j["judgement_type_id"] for j in judged) == ["AC", "AC"]  # the judge knows hello now
    folder = site.spec.root / "contests" / "lab"
    assert (folder / "problems" / "hello" / "problem.yaml").is_file() and (folder / "contest.sqlite").is_file()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "problems" / "hello" / "problem.yaml").stat().st_mode) == 0o600
    folders, registry, audit = stored(site)
    assert folders == ["club", "lab", "main", "practice"] and "lab" in registry
    assert audit == ["site.contest_added"]
    with sqlite3.connect(site.spec.root / SITE_DB) as conn:
        (details,) = conn.execute("SELECT detail FROM audit_log").fetchone()
    assert json.loads(details)["from"] == "package"
    # the same package under another id: its contest.yaml says so; a restart serves both
    r = upload(api, admin, zip_of(package("lab")), cid="lab-again")
    assert r.status_code == 303, error_line(r)
    assert "id: lab-again" in (site.spec.root / "contests" / "lab-again" / "contest.yaml").read_text()
    again = open_test_site(site.spec.root, FakeClock(T0))
    try:
        assert [c.id for c in again.contests()] == ["practice", "main", "club", "lab", "lab-again"]
    finally:
        again.close()


def _bad_zips() -> dict[str, tuple[bytes, str]]:
    good = package("lab")
    return {
        "not a zip": (b"PK\x03\x04 this is no zip", "not a readable zip archive"),
        "zip slip": (zip_of({**good, "../evil.txt": "x"}), "a file outside the package: '../evil.txt'"),
        "absolute": (zip_of({**good, "/etc/evil": "x"}), "a file outside the package"),
        "backslash": (zip_of({**good, "..\\evil": "x"}), "a file outside the package"),
        "symlink": (zip_of(good, links={"problems/hello/data/link": "/etc/shadow"}), "a symbolic link"),
        "no contest.yaml": (zip_of({"problems.yaml": "- {id: sum}\n"}), "no contest.yaml"),
        "no problems.yaml": (zip_of({"contest.yaml": contest_yaml("lab")}), "no problems.yaml"),
        "accounts": (zip_of({**good, "accounts.yaml": "[]"}), "accounts.yaml: a site's contest has no people"),
        "teams": (zip_of({**good, "teams.json": "[]"}), "teams.json: a site's contest has no people"),
        "groups": (zip_of({**good, "groups.yaml": "[]"}), "groups.yaml: a site's contest has no people"),
        "a database": (zip_of({**good, "contest.sqlite": "SQLite format 3\0"}), "a served contest's state"),
        "an id that exists": (zip_of(package("main")), "'main': the site has a contest of that id already"),
        "a bad id": (zip_of({**good, "contest.yaml": "id: 'no way'\n"}), "contest id 'no way'"),
        "not YAML": (zip_of({**good, "contest.yaml": "id: [\n"}), "contest.yaml is not valid YAML"),
        "no problem": (
            zip_of({**good, "problems.yaml": "- {id: nowhere}\n"}),
            "no problem package 'nowhere' at contests/lab/problems/nowhere or problems/nowhere",
        ),
        "not a team": (zip_of(package("lab", teams=["team9"])), "teams: 'team9' is not a team"),
        "a bad duration": (zip_of(package("lab", duration="soon")), "duration"),
        "an empty zip": (zip_of({}), "the zip holds 0 files"),
    }


@pytest.mark.parametrize("case", list(_bad_zips()))
def test_a_bad_upload_is_one_line_and_nothing_is_stored(site: Site, case: str) -> None:
    data, says = _bad_zips()[case]
    api = api_of(site)
    admin, _ = _login(api, "admin")
    before = stored(site)
    r = upload(api, admin, data)
    assert r.status_code == (409 if case == "an id that exists" else 400), (r.status_code, r.text[:500])
    line = error_line(r)
    assert says in line and "\n" not in line and "Traceback" not in r.text, line
    assert str(site.spec.root) not in line  # the site's own paths, not the server's
    assert stored(site) == before  # no folder (not even the staging one), no registry entry, no audit line
    assert [c.id for c in site.contests()] == ["practice", "main", "club"]


def test_too_large_an_upload_is_refused_before_and_after_unpacking(site: Site, monkeypatch: Any) -> None:
    from judge.serve.services.lifecycle import contest_upload

    admin = admin_viewer(site)
    before = stored(site)
    monkeypatch.setattr(contest_upload, "UPLOAD_LIMIT", 4096)  # unpacks to more than the limit: a 413
    with pytest.raises(Refused) as refused:
        site.add_upload(admin, zip_of({**package("lab"), "big.bin": b"\0" * 5000}))
    assert refused.value.status == 413 and "unpacks to more than" in refused.value.message
    monkeypatch.setattr(contest_upload, "UPLOAD_FILES", 3)
    with pytest.raises(Refused) as refused:
        site.add_upload(admin, zip_of(package("lab")))
    assert refused.value.status == 400 and "a package has 1 to 3" in refused.value.message
    assert stored(site) == before


def test_a_server_judging_on_a_cluster_takes_no_new_problem(tmp_path: Path) -> None:
    from judge.serve.services.judging.versions import NO_TOOLS

    root = write_site(tmp_path / "site", CONTESTS)
    site = open_test_site(root, FakeClock(T0), tools=NO_TOOLS)  # a cluster's: its workers hold their packages
    try:
        before = stored(site)
        with pytest.raises(Refused) as refused:
            site.add_upload(admin_viewer(site), zip_of(package("lab")))
        assert refused.value.status == 409 and "problem(s) hello: this server judges on a cluster" in str(refused.value)
        assert stored(site) == before
        files = package("lab")
        files["problems.yaml"] = "- {id: sum}\n"  # the problems it started with: added
        site.add_upload(admin_viewer(site), zip_of({k: v for k, v in files.items() if not k.startswith("problems/")}))
        assert site.contest("lab") is not None
    finally:
        site.close()


def test_only_an_admin_may_upload_and_a_body_is_not_read_from_others(site: Site) -> None:
    api = api_of(site)
    judge, _ = _login(api, "judge")
    team, _ = _login(api, "team1")
    admin, _ = _login(api, "admin")
    page = api.get("/site/contests/new", cookies={COOKIE: admin})
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token is not None
    for cookie in (judge, team, "x" * 43):
        r = upload(api, cookie, zip_of(package("lab")), token=token.group(1))
        assert r.status_code == 403 and r.headers.get("connection") == "close", r.text[:300]
    r = upload(api, admin, zip_of(package("lab")), token="forged")  # an admin, but not this site's form
    assert r.status_code == 403 and "expired" in r.text
    assert site.contest("lab") is None and not (site.spec.root / "contests" / "lab").exists()


def test_an_archive_judge_contest_export_wrote_makes_that_contest_again_empty(tmp_path: Path) -> None:
    from judge.commands.cli import main

    first = write_site(tmp_path / "first", CONTESTS)
    opened = open_test_site(first, FakeClock(T0))
    try:
        api = api_of(opened)
        assert api.submit_to("club", "team4").status_code == 201
        opened.contest("club").server.judging.run_pending()  # type: ignore[union-attr]
    finally:
        opened.close()
    archive = tmp_path / "club.zip"
    assert main(["contest", "export", str(first / "contests" / "club"), str(archive)]) == 0
    folder = tmp_path / "club-folder"  # the folder form of the export, zipped: the same
    assert main(["contest", "export", str(first / "contests" / "club"), str(folder)]) == 0

    root = write_site(tmp_path / "second", {"main": {"problems": ("sum", "divisor")}})
    site = open_test_site(root, FakeClock(T0))
    try:
        api = api_of(site)
        admin, _ = _login(api, "admin")
        r = upload(api, admin, archive.read_bytes())
        assert r.status_code == 303, error_line(r)
        assert ids(api.get("/api/contests/club/teams", "admin")) == ["team1", "team4"]  # those who took part
        assert ids(api.get("/api/contests/club/problems", "admin")) == ["sum"]
        assert api.get("/api/contests/club/submissions", "admin").json() == []  # made again, empty
        made = (root / "contests" / "club" / "contest.yaml").read_text()
        assert "judge contest export" in made and "scoreboard_thaw_time" not in made
        written = {p.name for p in (root / "contests" / "club").iterdir() if not p.name.startswith("contest.sqlite")}
        assert written == {"contest.yaml", "problems.json"}  # nothing else of the archive is taken
        r = upload(api, admin, zip_of(folder_files(folder, "club-export/")), cid="club2")
        assert r.status_code == 303, error_line(r)
        with sqlite3.connect(root / SITE_DB) as conn:
            froms = [json.loads(d)["from"] for (d,) in conn.execute("SELECT detail FROM audit_log")]
        assert froms == ["export", "export"]
        # the teams that took part must be the site's: one line, nothing stored
        files = folder_files(folder)
        files["teams.json"] = json.dumps([*json.loads(files["teams.json"]), {"id": "team9", "name": "Nine"}])
        before = stored(site)
        r = upload(api, admin, zip_of(files), cid="club3")
        assert r.status_code == 400 and "teams: 'team9' is not a team" in error_line(r)
        assert stored(site) == before
    finally:
        site.close()
