"""A problem's package in force, as the jury gets it (issue 33): the current version's problem, and its
files as a zip (to commit it to the contest's repository)."""

from __future__ import annotations

import io
import zipfile

from judge.serve.model.contest import ContestProblem
from judge.serve.model.errors import Refused
from judge.serve.model.viewer import Viewer
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.people import access
from judge.serve.visibility import sees_previews


def current_problem(server: ServedJudging, problem_id: str) -> ContestProblem:
    cp = server.contest.problem(problem_id)
    if cp is None:
        raise Refused(404, f"no problem {problem_id!r}")
    return cp


def package_zip(server: ServedJudging, viewer: Viewer, problem_id: str, now: float) -> tuple[str, bytes]:
    """The problem's current package as a zip (staff: to commit it to the contest's repository); its
    file name."""
    access.staff(viewer, "download packages")
    if not sees_previews(server.sight(viewer, now)):
        raise Refused(403, "only judges and admins may download packages")
    cp = current_problem(server, problem_id)
    root = cp.problem.path
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                z.write(path, f"{problem_id}/{path.relative_to(root).as_posix()}")
    return f"{problem_id}-v{server.versions.version(problem_id)}.zip", out.getvalue()
