"""Figures of live fuzzing in `judge serve` (issue 33, docs/live-fuzzing.md "Figures to measure"), in the
real sandbox, in-process (the server's services, no HTTP), on problems/rummy:

1. throughput: a correct submission (it survives every example, so all of them run) fuzzed by the
   server on an idle judging slot, examples per second over the job's own seconds, against
   ``fuzz_submission`` alone with the same options (one search, one run at a time: what a job runs),
   timed around the call; the ratio of one run each, alternating ``--rounds`` times;
2. verdict latency: ``--submissions`` real submissions judged one after the other (each submitted when
   the last has its verdict), submit-to-verdict, without fuzzing and then while a fuzz job with an
   endless budget keeps an idle slot busy; with ``--jobs`` judging threads (with 1, the fuzz job yields
   its only thread before its next example: a verdict waits for at most one example's run; with 2, the
   free thread takes the submission and the fuzz job goes on).

The server's runs are at nice 10 (`--judge-nice`'s default), its fuzz job's at 19 (``fuzz_environment``),
``fuzz_submission`` alone at 0 (as `judge fuzz`).

    python3 bench/live_fuzz.py [--examples 200] [--rounds 2] [--submissions 6] [--jobs 2]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from argon2 import PasswordHasher

from judge.commands.defaults import SERVE_NICENESS
from judge.commands.serve import fuzz_environment
from judge.fuzz.engine import fuzz_submission
from judge.fuzz.options import FuzzOptions
from judge.judging.jobs import SourceFile
from judge.judging.prepared import Packages
from judge.judging.submission import Environment
from judge.languages.table import load_languages, toolchain
from judge.runner import make_runner
from judge.serve.model.contest import load_contest
from judge.serve.model.records import FuzzState
from judge.serve.model.times import format_time
from judge.serve.model.upload import SubmissionFiles, SubmissionRequest
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services.judging import submissions
from judge.serve.services.judging.fuzz_jobs import FuzzBudget, LiveFuzz
from judge.serve.services.judging.judge_fn import local_judge
from judge.serve.site.server import ServeOptions, Server, open_server

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "problems"
CORRECT = PROBLEMS / "rummy" / "submissions" / "accepted" / "closed_form.py"
WRONG = PROBLEMS / "rummy" / "submissions" / "wrong_answer" / "always_raises.py"  # judged WA: never fuzzed
CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
TEAM = Viewer(Role.TEAM, account_id="team1", username="team1", team_id="team1")
WAIT_S = 180.0


def contest_dir(root: Path) -> Path:
    root.mkdir(parents=True)
    start = format_time(time.time() - 60)
    (root / "contest.yaml").write_text(
        f'id: bench\nname: Bench\nstart_time: "{start}"\nduration: "5:00:00"\nscoreboard_type: score\n'
        "rate_limit: {submissions: 1000, seconds: 1}\n"
    )
    (root / "problems.yaml").write_text("- {id: rummy, label: A}\n")
    (root / "teams.json").write_text('[{"id": "team1", "name": "One", "label": "1"}]')
    (root / "accounts.yaml").write_text('[{"username": "team1", "password": "pw", "type": "team", "team_id": "team1"}]')
    return root


def serve(root: Path, env: Environment, budget: FuzzBudget, jobs: int) -> tuple[Server, Packages]:
    contest = load_contest(contest_dir(root), PROBLEMS)
    packages = Packages({p.id: p.problem for p in contest.problems}, env)
    languages = {k: v for k, v in env.languages.items() if k == "python3"}
    options = ServeOptions(workers=jobs, hasher=CHEAP, fuzz=LiveFuzz(fuzz_environment(env), packages, budget))
    server = open_server(contest, languages, local_judge(packages, env), options)
    server.start()
    return server, packages


def submit(server: Server, source: Path) -> int:
    files = SubmissionFiles(files=(SourceFile(source.name, source.read_bytes()),))
    request = SubmissionRequest("rummy", "python3", files)
    return submissions.submit(server, TEAM, lambda: request, time.time()).id


def wait_for(what: str, check: Callable[[], bool]) -> None:
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.02)
    raise SystemExit(f"gave up waiting for {what}")


def judged(server: Server, sid: int) -> bool:
    with server.storage.read() as r:
        return any(j.end_s is not None for j in r.judgements(submission_ids=[sid], current=True))


def job_state(server: Server, sid: int) -> tuple[FuzzState, int, float] | None:
    with server.storage.read() as r:
        jobs = [j for j in r.fuzz_jobs() if j.submission_id == sid]
    return None if not jobs else (jobs[0].state, jobs[0].examples_done, jobs[0].spent_s)


def in_serve(work: Path, env: Environment, examples: int, jobs: int) -> float:
    """Examples per second of a fuzz job of the correct submission, by the job's own count."""
    server, packages = serve(work, env, FuzzBudget(examples=examples, seconds=1e9), jobs)
    try:
        sid = submit(server, CORRECT)
        wait_for("the fuzz job", lambda: (job_state(server, sid) or (None,))[0] is FuzzState.SURVIVED)
        state = job_state(server, sid)
        assert state is not None
        return state[1] / state[2]
    finally:
        server.stop()
        server.close()
        packages.close()


def alone(work: Path, env: Environment, examples: int, seed: int) -> float:
    """Examples per second of ``fuzz_submission`` with a job's options, timed around the call."""
    packages = Packages({"rummy": load_contest(contest_dir(work), PROBLEMS).problems[0].problem}, env)
    try:
        prepared = packages.prepared("rummy", packages.problem("rummy").content_hash)
        options = FuzzOptions(
            examples=examples, seed=seed, jobs=1, pipeline=False, use_database=False, language="python3"
        )
        start = time.monotonic()
        out = fuzz_submission(prepared, CORRECT, env, options)
        elapsed = time.monotonic() - start
        assert out.status.value == "passed", out.to_json()
        return out.examples / elapsed
    finally:
        packages.close()


def latencies(server: Server, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.monotonic()
        sid = submit(server, WRONG)
        wait_for("a verdict", lambda sid=sid: judged(server, sid))  # type: ignore[misc]
        out.append(time.monotonic() - start)
    return out


def latency(work: Path, env: Environment, n: int, jobs: int) -> tuple[list[float], list[float]]:
    server, packages = serve(work, env, FuzzBudget(examples=10**9, seconds=1e9), jobs)
    try:
        idle = latencies(server, n)
        sid = submit(server, CORRECT)
        wait_for("fuzzing to run", lambda: (job_state(server, sid) or (None,))[0] is FuzzState.RUNNING)
        time.sleep(1.0)  # its first examples under way
        busy = latencies(server, n)
        state = job_state(server, sid)
        assert state is not None and state[0] in (FuzzState.QUEUED, FuzzState.RUNNING), state
        return idle, busy
    finally:
        server.stop()
        server.close()
        packages.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--submissions", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sandbox", default="auto")
    args = parser.parse_args()
    base = make_runner(args.sandbox)  # `judge fuzz`'s runs: nice 0
    plain = Environment(base, load_languages(), toolchain())
    env = replace(plain, runner=base.with_niceness(SERVE_NICENESS))  # `judge serve`'s: --judge-nice's default
    work = Path(tempfile.mkdtemp(prefix="bench-live-fuzz-"))
    try:
        ratios = []
        if args.rounds:
            alone(work / "warm-up", plain, 10, seed=99)  # the first fuzzing in the process loads fuzz.py, the reference
        for k in range(args.rounds):
            if k % 2:  # alternate which goes first: the machine is shared
                s = in_serve(work / f"serve{k}", env, args.examples, args.jobs)
                a = alone(work / f"alone{k}", plain, args.examples, seed=k)
            else:
                a = alone(work / f"alone{k}", plain, args.examples, seed=k)
                s = in_serve(work / f"serve{k}", env, args.examples, args.jobs)
            ratios.append(s / a)
            print(f"round {k + 1}: judge fuzz alone {a:.1f} examples/s, judge serve idle slot {s:.1f} examples/s: "
                  f"ratio {s / a:.2f}")  # fmt: skip
        if ratios:  # --rounds 0: the latencies only
            print(f"throughput ratio serve/alone: median {statistics.median(ratios):.2f}")
        for jobs in sorted({1, args.jobs}):
            idle, busy = latency(work / f"latency{jobs}", env, args.submissions, jobs)
            mi, mb = statistics.median(idle), statistics.median(busy)
            print(f"--jobs {jobs}: submit-to-verdict median {mi:.2f} s without fuzzing, {mb:.2f} s while fuzzing "
                  f"(max {max(idle):.2f} / {max(busy):.2f} s): ratio {mb / mi:.2f}")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
