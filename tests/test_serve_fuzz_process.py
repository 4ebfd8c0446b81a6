"""`judge serve --fuzz` as a process, in the real sandbox (issue 33): a team's submission that passes the weak
tests of tests/fixtures_fuzz/add but is wrong is judged AC, then fuzzed on an idle slot, and its shrunk
counterexample reaches the jury's endpoint (never the team's). And the switch: --fuzz / --no-fuzz over
contest.yaml's ``fuzz``, the budget's options checked."""

from __future__ import annotations

import base64
import shutil
import stat
import time
from pathlib import Path

import httpx
import pytest
from serve_fixtures import PASSWORDS, write_contest
from test_serve_process import Serve, wait_for

from judge.commands.cli import build_parser
from judge.commands.common import UsageError
from judge.commands.serve import _live_fuzz, fuzz_environment
from judge.judging.environment import Environment
from judge.languages.table import toolchain
from judge.runner import Runner, RunnerConfig, make_runner
from judge.serve.model.contest import ContestError, load_info
from judge.serve.model.times import format_time
from judge.serve.model.upload import pack

ADD = Path(__file__).parent / "fixtures_fuzz"
WRONG = ADD / "add" / "submissions" / "fuzz_bugs" / "wa_big_both.py"  # wrong when both numbers are over 100
RIGHT = ADD / "add" / "submissions" / "accepted" / "add.py"


def test_judge_serve_fuzz_flags_a_wrong_but_accepted_submission(
    tmp_path: Path, sandbox_runner: Runner, servers: list[Serve]
) -> None:
    contest = write_contest(tmp_path / "contest", start=format_time(time.time() - 60), extra=("fuzz: true",))
    (contest / "problems.yaml").write_text("- {id: add, label: A}\n")
    problems = tmp_path / "problems"  # a copy: Hypothesis collects no constants from a `tests` folder's modules
    shutil.copytree(ADD / "add", problems / "add")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    server = Serve(contest, tmp_path / "serve.log", "--problems", str(problems), "--fuzz-examples", "100", cwd=cwd)
    servers.append(server)
    body = {
        "problem_id": "add",
        "language_id": "python3",
        "files": [{"data": base64.b64encode(pack({"add.py": WRONG.read_bytes()})).decode()}],
    }
    r = httpx.post(server.url("submissions"), json=body, auth=("team1", PASSWORDS["team1"]), timeout=30)
    assert r.status_code == 201, r.text
    found = wait_for("a counterexample", lambda: server.get("counterexamples", "judge"))
    assert [(c["submission_id"], c["team_id"], c["verdict"], c["confirmed"]) for c in found] == [
        (r.json()["id"], "team1", "WA", True)
    ]
    one = server.get(f"counterexamples/{found[0]['id']}", "judge")
    assert base64.b64decode(one["input"]) == b"101 101\n" and base64.b64decode(one["output"]) == b"203\n"
    assert [j["judgement_type_id"] for j in server.get("judgements", "team1")] == ["AC"]  # the tests are weak
    refused = httpx.get(server.url("counterexamples"), auth=("team1", PASSWORDS["team1"]), timeout=30)
    assert refused.status_code == 403
    log = server.log.read_text()
    assert "live fuzzing on idle slots (100 examples" in log and "live fuzzing: problems add" in log
    assert (contest / "fuzz-db").stat().st_mode & 0o077 == 0  # owner-only

    # Hypothesis' own files: the constants it collects from the modules it runs, fuzz.py's among them, were
    # written world-readable into the working folder's .hypothesis (issue 43); now owner-only in the contest's.
    # A right submission is fuzzed to the end of its budget: Hypothesis draws its constants now and then
    body["files"] = [{"data": base64.b64encode(pack({"add.py": RIGHT.read_bytes()})).decode()}]
    r = httpx.post(server.url("submissions"), json=body, auth=("team2", PASSWORDS["team2"]), timeout=30)
    assert r.status_code == 201, r.text
    wait_for("its fuzzing", lambda: any(j["state"] == "survived" for j in server.get("fuzzing/jobs", "judge")))
    assert not (cwd / ".hypothesis").exists()
    home = contest / "fuzz-home"
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    headers = [p.read_text().splitlines()[0] for p in (home / "constants").iterdir()]
    assert f"# file: {(problems / 'add' / 'fuzz.py').resolve()}" in headers, headers


def test_the_command_line_wins_over_contest_yaml(tmp_path: Path) -> None:
    path = tmp_path / "contest.yaml"
    path.write_text('id: c\nname: C\nduration: "5:00:00"\nfuzz: true\n')
    on = load_info(path)
    assert on.fuzz
    parse = build_parser().parse_args
    assert _live_fuzz(parse(["serve", "x"]), on)
    assert not _live_fuzz(parse(["serve", "x", "--no-fuzz"]), on)
    assert _live_fuzz(parse(["serve", "x", "--fuzz"]), on)
    path.write_text('id: c\nname: C\nduration: "5:00:00"\n')
    off = load_info(path)
    assert (
        not off.fuzz and not _live_fuzz(parse(["serve", "x"]), off) and _live_fuzz(parse(["serve", "x", "--fuzz"]), off)
    )
    for bad in (["--fuzz-examples", "0"], ["--fuzz-seconds", "0"]):
        with pytest.raises(UsageError):
            _live_fuzz(parse(["serve", "x", "--fuzz", *bad]), off)
    path.write_text('id: c\nname: C\nduration: "5:00:00"\nfuzz: "yes"\n')
    with pytest.raises(ContestError, match="`fuzz` must be true or false"):
        load_info(path)


@pytest.mark.parametrize(("judge_nice", "fuzz_nice"), [(10, 19), (0, 19), (19, 19)])
def test_live_fuzzing_runs_nicer_than_judging(judge_nice: int, fuzz_nice: int) -> None:
    """The fuzz jobs' environment: the server's sandbox with its runs at nice 19 (never less nice than
    --judge-nice), so that a real judging run wins the CPU; the server's own runner keeps its value."""
    runner = make_runner(RunnerConfig(sandbox="rlimits", niceness=judge_nice))
    try:
        env = Environment(runner, {}, toolchain())
        fuzzing = fuzz_environment(env)
        assert fuzzing.runner.config.niceness == fuzz_nice  # type: ignore[attr-defined]
        assert runner.config.niceness == judge_nice
        assert fuzzing.languages is env.languages and fuzzing.tools is env.tools
    finally:
        runner.close()
