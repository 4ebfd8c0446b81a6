"""Package archives for cluster workers (judge/cluster/archive.py): what travels, where it lands, and that a
validator importing a project module outside the package runs on a machine that lacks that module."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest

from judge.cluster.archive import ArchiveError, cached, load_unpacked, pack, unpack
from judge.commands.cli import main
from judge.package.problem import load_problem

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent

HELPER = """def same(a: str, b: str) -> bool:
    return a.split() == b.split()
"""
VALIDATOR = """import sys
from pathlib import Path
from judgetest_helper import same
team = sys.stdin.read()
answer = Path(sys.argv[2]).read_text()
sys.exit(42 if same(team, answer) else 43)
"""


def names(data: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data))) as tar:
        return sorted(tar.getnames())


@pytest.fixture
def package_with_a_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`sum` whose output validator imports ``judgetest_helper``, a module of the project (outside the
    package, on sys.path as the project's `reference` is)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "judgetest_helper.py").write_text(HELPER)
    monkeypatch.syspath_prepend(str(lib))
    package = tmp_path / "problems" / "sum"
    shutil.copytree(FIXTURES / "sum", package)
    validator = package / "output_validators" / "check"
    validator.mkdir(parents=True)
    (validator / "validate.py").write_text(VALIDATOR)
    return package


def test_the_archive_holds_what_judging_reads_and_the_modules_the_validator_imports(
    package_with_a_helper: Path, tmp_path: Path
) -> None:
    problem = load_problem(package_with_a_helper)
    archive = pack(problem)
    inside = names(archive.data)
    assert "problem.yaml" in inside and "data/secret/01.in" in inside
    assert "output_validators/check/validate.py" in inside
    assert "output_validators/check/judgetest_helper.py" in inside  # beside the program that imports it
    assert not any(n.startswith(("submissions", "problem_statement", "input_validators")) for n in inside)
    assert pack(problem) == archive  # the same bytes each time

    # The worker's side: another machine, without the project's module.
    shutil.rmtree(tmp_path / "lib")
    cache = tmp_path / "cache"
    assert cached(cache, problem.id, problem.content_hash) is None
    folder = unpack(archive, cache)
    assert cached(cache, problem.id, problem.content_hash) == folder
    assert unpack(archive, cache) == folder  # unpacked once
    there = load_unpacked(folder, problem.id, problem.content_hash)
    assert there.content_hash == problem.content_hash and len(there.tests()) == len(problem.tests())
    assert there.output_validator == folder / "output_validators" / "check" / "validate.py"
    answer = folder / "data" / "secret" / "01.ans"
    for team, status in ((answer.read_text(), 42), ("-1\n", 43)):
        run = subprocess.run(
            [sys.executable, str(there.output_validator), str(answer.with_suffix(".in")), str(answer), str(tmp_path)],
            input=team,
            text=True,
            capture_output=True,
            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        )
        assert run.returncode == status, run.stderr
    # its modules come byte-compiled, and Python takes the compiled form (the header names the source's
    # mtime and size): not compiled again on every test under PYTHONDONTWRITEBYTECODE; test data is not code
    helper = folder / "output_validators" / "check" / "judgetest_helper.py"
    compiled = Path(importlib.util.cache_from_source(str(helper)))
    header = compiled.read_bytes()[:16]
    assert header[:4] == importlib.util.MAGIC_NUMBER and int.from_bytes(header[4:8], "little") == 0
    stat = helper.stat()
    assert int.from_bytes(header[8:12], "little") == int(stat.st_mtime)
    assert int.from_bytes(header[12:16], "little") == stat.st_size
    assert not list((folder / "data").rglob("__pycache__"))


def test_the_demo_packages_carry_their_reference_modules() -> None:
    for name in ("coins", "memory"):
        inside = names(pack(load_problem(ROOT / "problems" / name)).data)
        assert any(n.endswith(f"/reference/{name}.py") for n in inside), name
        assert any(n.endswith("/reference/__init__.py") for n in inside), name


def test_a_damaged_archive_is_refused(tmp_path: Path) -> None:
    archive = pack(load_problem(FIXTURES / "sum"))
    with pytest.raises(ArchiveError, match="damaged"):
        unpack(replace(archive, data=archive.data[:-10]), tmp_path)
    with pytest.raises(ArchiveError, match="does not unpack"):
        unpack(replace(archive, data=b"not gzip", digest=hashlib.sha256(b"not gzip").hexdigest()), tmp_path)
    assert cached(tmp_path, archive.problem, archive.content_hash) is None
    assert not list(tmp_path.iterdir())  # nothing half-unpacked left behind


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--cluster", "local:0"], "expected local:N with N >= 1"),
        (["--cluster", "http://x:1"], "not a scheduler address"),
        (["--cluster", "127.0.0.1"], "not a scheduler address"),
        (["--cluster", "local:2", "--fuzz", "5"], "--fuzz runs on this machine only"),
        (["--cluster", "tcp://127.0.0.1:1", "--tls-cert", "x.pem"], "TLS needs --tls-ca-file"),
        (["--cluster", "local:1", "--cluster-timeout", "0"], "--cluster-timeout must be positive"),
        (["--cluster", "tls://127.0.0.1:1"], "a tls:// scheduler needs --tls-ca-file"),
    ],
)
def test_bad_cluster_options_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    (tmp_path / "contest").mkdir()
    argv = ["grade", str(tmp_path / "contest"), "--problems", str(FIXTURES), "--out", str(tmp_path / "out"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("judge: error:") and message in err[0], err
    assert not (tmp_path / "out").exists()


def test_bad_worker_options_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["worker", "local:2"], ["worker", "tcp://127.0.0.1:1", "--slots", "0"], ["worker", "nowhere"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("judge: error:"), err
