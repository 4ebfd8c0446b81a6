"""An LMS download read safely (grade/lmsdownload.py) through the real `judge grade` entry point: a zip whose
entries leave the folder, a symbolic link, a huge entry, too many files, an encrypted entry, a file that is not a
zip, a folder with a symbolic link, a bad roster, a bad time zone: each refused with one line on stderr, exit 2,
no traceback, nothing judged and nothing extracted."""

from __future__ import annotations

import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from judge.commands.cli import main
from judge.grade import lmsdownload
from judge.grade.lmsdownload import DownloadError, read_download

FIXTURES = Path(__file__).parent / "fixtures"
ROSTER = FIXTURES / "lms" / "canvas-roster.csv"
GOOD = "allenada_1001_90001_sum.py"


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    root = tmp_path / "problems"
    shutil.copytree(FIXTURES / "sum", root / "sum", ignore=shutil.ignore_patterns("submissions"))
    return root


def _zip(path: Path, entries: dict[str, bytes], *, link: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return path


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], message: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def _grade(download: Path, problems: Path, out: Path, *extra: str) -> list[str]:
    return ["grade", str(download), "--problems", str(problems), "--out", str(out), "--roster", str(ROSTER), *extra]


@pytest.mark.parametrize(
    ("entries", "link", "message"),
    [
        ({GOOD: b"print(1)", "../evil.py": b"x"}, None, "'../evil.py' points outside the folder: refused (zip slip)"),
        ({"/etc/evil.py": b"x"}, None, "'/etc/evil.py' points outside the folder"),
        ({"a/../../evil.py": b"x"}, None, "points outside the folder"),
        ({"C:/evil.py": b"x"}, None, "points outside the folder"),
        ({"..\\evil.py": b"x"}, None, "points outside the folder"),
        ({GOOD: b"print(1)"}, "allenada_1001_90002_sum.py", "is a symbolic link: refused"),
    ],
)
def test_a_zip_that_leaves_its_folder_or_links_is_refused(
    entries: dict[str, bytes],
    link: str | None,
    message: str,
    problems: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    z = _zip(tmp_path / "download.zip", entries, link=link)
    out = tmp_path / "out"
    _refused(_grade(z, problems, out), capsys, message)
    assert not (out / "lms-submissions").exists() and not (tmp_path / "evil.py").exists()


def test_huge_entries_too_many_files_and_encrypted_entries_are_refused(
    problems: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.zip"
    with zipfile.ZipFile(big, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(GOOD, b"0" * (lmsdownload.MAX_FILE_BYTES + 1))  # a zip bomb's shape: tiny compressed
    assert big.stat().st_size < 100_000
    _refused(_grade(big, problems, tmp_path / "o1"), capsys, f"(at most {lmsdownload.MAX_FILE_BYTES}): refused")
    monkeypatch.setattr(lmsdownload, "MAX_FILES", 3)
    many = _zip(tmp_path / "many.zip", {f"a_{i}_{i}_sum.py": b"1" for i in range(4)})
    _refused(_grade(many, problems, tmp_path / "o2"), capsys, "more than 3 files: refused")
    monkeypatch.setattr(lmsdownload, "MAX_TOTAL_BYTES", 10)
    total = _zip(tmp_path / "total.zip", {f"a_{i}_{i}_sum.py": b"123456" for i in range(2)})
    _refused(_grade(total, problems, tmp_path / "o3"), capsys, "in all: refused")
    enc = _zip(tmp_path / "enc.zip", {GOOD: b"print(1)"})
    data = bytearray(enc.read_bytes())
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):  # set the "encrypted" flag in both headers
        at = data.find(sig)
        flag = at + (6 if sig == b"PK\x03\x04" else 8)
        data[flag] |= 0x1
    enc.write_bytes(bytes(data))
    _refused(_grade(enc, problems, tmp_path / "o4"), capsys, "is encrypted: refused")


def test_a_header_that_lies_about_the_size_is_refused_without_reading_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z = _zip(tmp_path / "lie.zip", {GOOD: b"x" * 100})
    monkeypatch.setattr(lmsdownload, "MAX_FILE_BYTES", 50)
    real = zipfile.ZipFile.infolist

    def lying(self: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
        infos = real(self)
        for i in infos:
            i.file_size = 10
        return infos

    monkeypatch.setattr(zipfile.ZipFile, "infolist", lying)
    with pytest.raises(DownloadError, match="is broken .*CRC.*: refused"):  # 10 bytes read, never 100
        read_download(z)


def test_not_a_zip_a_folder_with_a_link_a_bad_roster_and_a_bad_zone(
    problems: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notzip = tmp_path / "download.zip"
    notzip.write_text("this is not a zip\n")
    _refused(_grade(notzip, problems, tmp_path / "o"), capsys, "not a zip file")
    folder = tmp_path / "unpacked"
    folder.mkdir()
    (folder / GOOD).write_text("print(1)\n")
    (folder / "allenada_1001_90002_sum.py").symlink_to("/etc/passwd")
    _refused(_grade(folder, problems, tmp_path / "o"), capsys, "is a symbolic link: refused")
    (folder / "allenada_1001_90002_sum.py").unlink()
    roster = tmp_path / "roster.csv"
    roster.write_bytes(b"Name,Section\nAda,A\n")
    argv = ["grade", str(folder), "--problems", str(problems), "--out", str(tmp_path / "o"), "--roster", str(roster)]
    _refused(argv, capsys, "no id column")
    _refused(argv[:-2], capsys, "an LMS download needs --roster FILE")
    _refused(_grade(folder, problems, tmp_path / "o", "--lms-timezone", "Mars/Olympus"), capsys, "not a time zone")
    _refused(_grade(folder, problems, tmp_path / "o", "--scoreboard", "pass-fail"), capsys, "leave out --scoreboard")
    plain = tmp_path / "plain"
    (plain / "ann").mkdir(parents=True)
    (plain / "ann" / "sum.py").write_text("print(1)\n")
    argv = ["grade", str(plain), "--problems", str(problems), "--out", str(tmp_path / "o"), "--lms-timezone", "UTC+1"]
    _refused(argv, capsys, "--lms and --lms-timezone go with an LMS download")


def test_the_staging_folder_replaces_only_its_own(
    problems: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    (out / "lms-submissions").mkdir(parents=True)
    (out / "lms-submissions" / "precious.txt").write_text("mine\n")
    z = _zip(tmp_path / "download.zip", {GOOD: b"print(1)\n"})
    _refused(_grade(z, problems, out), capsys, "is not a folder this command wrote: move it away")
    assert (out / "lms-submissions" / "precious.txt").read_text() == "mine\n"
