"""Inside a container: the same verdicts in a PID namespace with its own /proc as outside.

Docker, Kubernetes and most CI runners give the judge a PID namespace of its own, often with the judge as
its pid 1. Docker itself may be missing where the tests run; ``unshare --pid --fork --mount-proc`` makes
the same namespace and stands in for it. Every start path is covered (box server, bwrap per run, the
rlimits launcher), with the judge as pid 1 and not; the fixtures have a custom output validator
(trusted runs) and an interactive oracle (a trusted run beside the program).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.runner import make_runner

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent

# (start path, environment): the switches are the command layer's
PATHS = {
    "box server": {},
    "bwrap per run": {"JUDGE_NO_BOX_SERVER": "1"},
    "rlimits": {"JUDGE_SANDBOX": "rlimits"},
}
C_DIVISOR = """#include <stdio.h>
int main(void) { long n; if (scanf("%ld", &n) != 1) return 1;
  for (long d = 2; d * d <= n; d++) if (n % d == 0) { printf("%ld\\n", d); return 0; }
  printf("%ld\\n", n); return 0; }
"""
C_WRONG = '#include <stdio.h>\nint main(void) { puts("1"); return 0; }\n'


def _unshare_works() -> str | None:
    if os.geteuid() != 0:
        return "needs root (PID namespaces and the sandbox)"
    if shutil.which("unshare") is None:
        return "no unshare (util-linux)"
    done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True)
    if done.returncode != 0:
        return f"unshare --pid --fork --mount-proc fails here: {done.stderr.decode(errors='replace').strip()}"
    return None


pytestmark = [pytest.mark.slow, pytest.mark.skipif(_unshare_works() is not None, reason=str(_unshare_works()))]


def judge(args: list[str], env: dict[str, str], where: str) -> subprocess.CompletedProcess[str]:
    """``judge ARGS`` outside, as pid 1 of a new PID namespace, or under a shell that is pid 1."""
    cmd = [sys.executable, "-m", "judge", *args]
    if where == "pid 1":
        cmd = ["unshare", "--pid", "--fork", "--mount-proc", *cmd]
    elif where == "not pid 1":
        cmd = ["unshare", "--pid", "--fork", "--mount-proc", "/bin/sh", "-c", '"$@"; exit $?', "sh", *cmd]
    full_env = {
        k: v for k, v in os.environ.items() if k not in ("JUDGE_NO_BOX_SERVER", "JUDGE_SANDBOX", "JUDGE_NO_WARM")
    }
    return subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**full_env, **env},
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Small copies of two fixture packages: a custom validator, and an interactive oracle."""
    out = tmp_path_factory.mktemp("packages")
    keep = {
        "divisor": {"accepted/trial.py", "wrong_answer/one.py"},
        "guess": {"accepted/binary.c", "protocol_violation/garbage.c", "wrong_answer/linear.py"},
    }
    for name, subs in keep.items():
        dst = out / name
        shutil.copytree(FIXTURES / name, dst, ignore=shutil.ignore_patterns("submissions"))
        for rel in subs:
            (dst / "submissions" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(FIXTURES / name / "submissions" / rel, dst / "submissions" / rel)
    contest = out / "contest"
    for who, files in {
        "ann": {"divisor.c": C_DIVISOR, "guess.c": (FIXTURES / "guess/submissions/accepted/binary.c").read_text()},
        "bob": {"divisor.c": C_WRONG, "guess.py": (FIXTURES / "guess/submissions/wrong_answer/linear.py").read_text()},
    }.items():
        (contest / who).mkdir(parents=True)
        for fname, text in files.items():
            (contest / who / fname).write_text(text)
    return out


def verify_verdicts(packages: Path, env: dict[str, str], where: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for name in ("divisor", "guess"):
        proc = judge(["verify", str(packages / name), "--json", "--jobs", "2"], env, where)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        report = json.loads(proc.stdout)
        for s in report["submissions"]:
            r = s["result"]
            out[f"{name}/{s['submission']}"] = r and (r["verdict"], r["score"], [t["verdict"] for t in r["tests"]])
    return out


def grade_verdicts(packages: Path, env: dict[str, str], where: str, out: Path) -> dict[str, object]:
    problems = out / "problems"
    if not problems.exists():
        problems.mkdir(parents=True)
        for name in ("divisor", "guess"):
            shutil.copytree(packages / name, problems / name, ignore=shutil.ignore_patterns("submissions"))
    proc = judge(
        [
            "grade",
            str(packages / "contest"),
            "--problems",
            str(problems),
            "--out",
            str(out / "board"),
            "--json",
            "--jobs",
            "2",
        ],
        env,
        where,
    )
    assert proc.returncode in (0, 3), proc.stderr[-2000:]
    results = json.loads((out / "board" / "results.json").read_text())
    return {
        f"{c}/{p}": (r["verdict"], r["score"], [t["verdict"] for t in r["tests"]])
        for c, by_problem in results["results"].items()
        for p, r in by_problem.items()
    }


@pytest.mark.parametrize("path", list(PATHS))
def test_verify_and_grade_inside_a_pid_namespace_match_outside(path: str, packages: Path, tmp_path: Path) -> None:
    if path != "rlimits" and not make_runner("bwrap").info.isolated:
        pytest.skip("the bwrap sandbox does not work here")
    env = PATHS[path]
    outside_verify = verify_verdicts(packages, env, "outside")
    outside_grade = grade_verdicts(packages, env, "outside", tmp_path / "outside")
    assert outside_verify and outside_grade
    if path != "rlimits":  # (the rlimits path cannot reach a Python under /root: JE on both sides)
        assert all(v is not None and v[0] != "JE" for v in outside_verify.values()), outside_verify
        assert all(v[0] != "JE" for v in outside_grade.values()), outside_grade
    for where in ("pid 1", "not pid 1"):
        assert verify_verdicts(packages, env, where) == outside_verify, where
        assert grade_verdicts(packages, env, where, tmp_path / where.replace(" ", "")) == outside_grade, where


@pytest.mark.parametrize("path", list(PATHS))
def test_doctor_inside_a_pid_namespace_passes_its_self_test(path: str) -> None:
    if path != "rlimits" and not make_runner("bwrap").info.isolated:
        pytest.skip("the bwrap sandbox does not work here")
    proc = judge(["doctor"], PATHS[path], "pid 1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "output validator" in proc.stdout and "FAILED" not in proc.stdout


def test_warm_validators_inside_a_pid_namespace_match_fresh_ones_outside(packages: Path) -> None:
    """The package's Python validator and oracle started warm (the default) in a PID namespace, the judge pid 1
    or not, give what new interpreters give outside (JUDGE_NO_WARM=1)."""
    if not make_runner("bwrap").info.isolated:
        pytest.skip("the bwrap sandbox does not work here")
    fresh = verify_verdicts(packages, {"JUDGE_NO_WARM": "1"}, "outside")
    assert all(v is not None and v[0] != "JE" for v in fresh.values()), fresh
    for where in ("pid 1", "not pid 1"):
        assert verify_verdicts(packages, {}, where) == fresh, where
