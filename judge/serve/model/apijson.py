"""The Contest API's objects (the spec's JSON shapes; `check-api.sh` validates them, see docs/serve.md),
made from the contest package's records and the stored ones. Pure. Properties whose value would be null are
left out, as the spec allows (the state object and a submission's ``entry_point`` keep them).

Verdicts map to the spec's judgement type ids one to one, except PV (a protocol violation in an
interactive problem), which is published as WA: the spec's closed list has no such type, and Kattis also
reports it as a wrong answer. The database keeps our own verdict.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from judge import __version__
from judge.judging.verdict import Verdict
from judge.languages.table import Language
from judge.scoreboard.passfail import Outcome, outcome
from judge.serve.model.contest import AccountSpec, ContestInfo, ContestProblem, Team
from judge.serve.model.phase import Phase
from judge.serve.model.records import JudgementRecord, RunRecord, SubmissionRecord
from judge.serve.model.times import format_reltime, format_time

SPEC_URL = "https://ccs-specs.icpc.io/draft/contest_api"

# our verdict -> (the spec's judgement type id, its name)
JUDGEMENT_TYPES: Mapping[Verdict, tuple[str, str]] = {
    Verdict.AC: ("AC", "Accepted"),
    Verdict.WA: ("WA", "Wrong Answer"),
    Verdict.PV: ("WA", "Wrong Answer"),
    Verdict.TLE: ("TLE", "Time Limit Exceeded"),
    Verdict.MLE: ("MLE", "Memory Limit Exceeded"),
    Verdict.RTE: ("RTE", "Run-Time Error"),
    Verdict.OLE: ("OLE", "Output Limit Exceeded"),
    Verdict.CE: ("CE", "Compile Error"),
    Verdict.JE: ("JE", "Judging Error"),
}


def compact(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if v is not None}


def judgement_type(verdict: Verdict) -> str:
    return JUDGEMENT_TYPES[verdict][0]


def judgement_types_json() -> list[dict[str, Any]]:
    """The judgement types of every contest: ``id``, ``name`` and ``solved`` (scoreboard/passfail.outcome
    decides which solve)."""
    seen: dict[str, dict[str, Any]] = {}
    for verdict, (jt, name) in JUDGEMENT_TYPES.items():
        seen.setdefault(jt, {"id": jt, "name": name, "solved": outcome(verdict) is Outcome.SOLVED})
    return list(seen.values())


def with_penalty(types: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A pass-fail contest's judgement types: each also says whether it costs penalty time (the spec wants
    ``penalty`` exactly when the contest has a ``penalty_time``); CE and JE cost nothing (passfail.outcome)."""
    kinds = {jt: outcome(v) for v, (jt, _) in reversed(list(JUDGEMENT_TYPES.items()))}
    return [{**t, "penalty": kinds[t["id"]] is Outcome.REJECTED} for t in types]


def api_json() -> dict[str, Any]:
    return {"version": "draft", "version_url": SPEC_URL, "provider": {"name": "judge", "version": __version__}}


def contest_json(phase: Phase) -> dict[str, Any]:
    """The contest object as it is now: the thaw and the freeze in force."""
    info, thaw_s = phase.info, phase.thaw_s
    return compact(
        {
            "id": info.id,
            "name": info.name,
            "formal_name": info.formal_name,
            "start_time": None if info.start_s is None else format_time(info.start_s),
            "countdown_pause_time": None if info.countdown_pause_s is None else format_reltime(info.countdown_pause_s),
            "duration": format_reltime(info.duration_s),
            "scoreboard_freeze_duration": format_reltime(phase.freeze_duration_s()),
            "scoreboard_thaw_time": None if thaw_s is None else format_time(thaw_s),
            "scoreboard_type": info.scoreboard_type.value,
            "penalty_time": format_reltime(info.penalty_s) if info.pass_fail else None,
            "main_scoreboard_group_id": info.main_scoreboard_group_id,
        }
    )


def contests_json(contest: dict[str, Any], info: ContestInfo, *, strict: bool) -> dict[str, Any]:
    """The contest object of the REST endpoints: with DOMjudge's ``shortname`` (contest.yaml's, else the
    contest's id: DOMjudge's command-line ``submit`` client refuses a contest without one), unless the client
    asks ``?strict=true`` (DOMjudge's parameter: the spec's properties only). The event feed carries the
    spec's object."""
    if strict:
        return contest
    return {**contest, "shortname": info.shortname or info.id}


STATEMENT_TYPES = {".md": "text/markdown", ".tex": "application/x-tex", ".pdf": "application/pdf"}
PDF = "application/pdf"
_MIME = mimetypes.MimeTypes()  # Python's own table only (not the machine's /etc/mime.types): the same everywhere


def statement_mime(p: ContestProblem) -> str | None:
    path = p.problem.statement
    return None if path is None else STATEMENT_TYPES.get(path.suffix.lower(), "text/plain")


def attachment_mime(name: str) -> str:
    return _MIME.guess_type(name)[0] or "application/octet-stream"


def problem_json(
    p: ContestProblem, contest_id: str, *, pdf: bool = False, attachments: Sequence[str] = ()
) -> dict[str, Any]:
    """The problem object. ``statement``: the PDF when there is one (``pdf``: services/problems/statements.py), as the
    spec expects, else the package's Markdown or LaTeX statement; ``attachments``: the files of the package's
    ``attachments/``, by name."""
    pkg = p.problem
    mime = PDF if pdf else statement_mime(p)
    statement = None
    if mime is not None:
        href = f"contests/{contest_id}/problems/{p.id}/statement"
        suffix = ".pdf" if pdf else pkg.statement.suffix if pkg.statement is not None else ""
        statement = [{"href": href, "filename": f"{p.id}{suffix}", "mime": mime}]
    files = [
        {
            "href": f"contests/{contest_id}/problems/{p.id}/attachments/{quote(name)}",
            "filename": name,
            "mime": attachment_mime(name),
        }
        for name in attachments
    ]
    return compact(
        {
            "id": p.id,
            "label": p.label,
            "name": p.name,
            "ordinal": p.ordinal,
            "rgb": p.rgb,
            "color": p.color,
            "time_limit": round(pkg.limits.time_s, 3),
            "memory_limit": pkg.limits.memory_kib // 1024,
            "output_limit": max(1, pkg.limits.output_bytes // (1024 * 1024)),
            "code_limit": p.code_limit_kib,
            "test_data_count": len(pkg.tests()),
            "max_score": pkg.secret.max_score,
            "statement": statement,
            "attachments": files or None,
        }
    )


def language_json(lang: Language, time_factor: float = 1.0, allow_submit: bool = True) -> dict[str, Any]:
    """``time_factor`` (DOMjudge's property) only when the contest gives the language one; ``allow_submit``
    (DOMjudge's, issue 47) only when the language takes no submissions."""
    obj: dict[str, Any] = {
        "id": lang.id,
        "name": lang.name,
        "entry_point_required": False,
        "extensions": [e.lstrip(".") for e in lang.extensions],
    }
    if time_factor != 1.0:
        obj["time_factor"] = time_factor
    if not allow_submit:
        obj["allow_submit"] = False
    return obj


def team_json(t: Team) -> dict[str, Any]:
    return compact(
        {
            "id": t.id,
            "icpc_id": t.icpc_id,
            "name": t.name,
            "label": t.label,
            "display_name": t.display_name,
            "organization_id": t.organization_id,
            "group_ids": list(t.group_ids),
            "hidden": True if t.hidden else None,  # the spec's: off the scoreboard
        }
    )


def account_json(a: AccountSpec) -> dict[str, Any]:
    return compact({"id": a.id, "username": a.username, "name": a.name, "type": a.type, "team_id": a.team_id})


def _contest_time(t: float, info: ContestInfo) -> str:
    return format_reltime(info.contest_time_s(t))


def submission_json(sub: SubmissionRecord, info: ContestInfo) -> dict[str, Any]:
    """``entry_point`` is always there, null when the language has none (the spec's schema wants an
    explicit null for C and C++)."""
    sid = str(sub.id)
    return {
        "id": sid,
        "language_id": sub.language_id,
        "problem_id": sub.problem_id,
        "team_id": sub.team_id,
        "time": format_time(sub.time_s),
        "contest_time": _contest_time(sub.time_s, info),
        "entry_point": sub.entry_point,
        "files": [
            {"href": f"contests/{info.id}/submissions/{sid}/files", "filename": "files.zip", "mime": "application/zip"}
        ],
    }


def judgement_id(submission_id: int, ordinal: int) -> str:
    """A judgement's id: its submission's for the first (``12``), with its number for later ones (``12-2``).
    It counts only judgements of a submission whose judgements the viewer sees: never a hidden one (F1 of
    issue 27; a global number would tell how many hidden judgements were made)."""
    return str(submission_id) if ordinal == 1 else f"{submission_id}-{ordinal}"


def run_id(r: RunRecord) -> str:
    """A run's id: its judgement's and the test's ordinal (``12-5``, ``12-2-5``)."""
    return f"{judgement_id(r.submission_id, r.judgement_ordinal)}-{r.ordinal}"


_LIVE_ID = re.compile(r"([0-9]{1,18})(?:-[0-9]{1,9}){0,2}")


def submission_of(api_id: str) -> int | None:
    """The submission a submission's, judgement's or run's id belongs to (its leading number); None when the
    text is no such id."""
    m = _LIVE_ID.fullmatch(api_id)
    return None if m is None else int(m.group(1))


def judgement_json(j: JudgementRecord, info: ContestInfo) -> dict[str, Any]:
    end = j.end_s
    return compact(
        {
            "id": judgement_id(j.submission_id, j.ordinal),
            "submission_id": str(j.submission_id),
            "judgement_type_id": j.judgement_type if end is not None else None,
            "score": round(j.score, 6) if end is not None and j.score is not None else None,  # None: withheld
            "current": j.current,
            "start_time": format_time(j.start_s),
            "start_contest_time": _contest_time(j.start_s, info),
            "end_time": format_time(end) if end is not None else None,
            "end_contest_time": _contest_time(end, info) if end is not None else None,
            "max_run_time": j.max_run_time if end is not None else None,
        }
    )


def run_json(r: RunRecord, info: ContestInfo) -> dict[str, Any]:
    return {
        "id": run_id(r),
        "judgement_id": judgement_id(r.submission_id, r.judgement_ordinal),
        "ordinal": r.ordinal,
        "judgement_type_id": r.judgement_type,
        "time": format_time(r.time_s),
        "contest_time": _contest_time(r.time_s, info),
        "run_time": r.run_time,
    }
