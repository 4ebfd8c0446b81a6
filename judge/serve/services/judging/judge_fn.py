"""The judging seam of `judge serve`'s queue (queue.py): ``JudgeFn``, a function from a ``JudgeJob`` to a
``SubmissionResult``; ``local_judge`` on this machine, in this process's sandbox, or ``judges_fn`` with the
judges of a Dask cluster (each thread blocks on its remote task). ``NOT_NOW``: the cluster cannot judge the
job now (every worker that took it died, the scheduler is gone): it stays queued, never a JE."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from judge.cluster import ClusterError
from judge.judging.identity import toolchain_hash
from judge.judging.jobs import JudgeJob, judge_job
from judge.judging.judges import Judges, NotJudged
from judge.judging.prepared import Packages
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment
from judge.languages.table import Language
from judge.package.problem import Problem

JudgeFn = Callable[[JudgeJob], SubmissionResult]
NOT_NOW = (NotJudged, ClusterError)  # the job could not be judged now: it stays queued


def local_judge(packages: Packages, env: Environment) -> JudgeFn:
    """Judge on this machine, in this process's sandbox."""

    def run(job: JudgeJob) -> SubmissionResult:
        return judge_job(job, packages, env)

    return run


def judges_fn(judges: Judges, problems: Mapping[str, Problem], languages: Mapping[str, Language]) -> JudgeFn:
    """Judge with ``judges`` (a cluster's: judging.judges.Judges), results keyed like `judge grade`'s."""

    def run(job: JudgeJob) -> SubmissionResult:
        fingerprint = toolchain_hash(job.language, problems[job.problem], languages, judges.fingerprint)
        return judges.judge(job, fingerprint)

    return run
