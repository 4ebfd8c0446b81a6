"""A contest package on disk (the CCS Contest Package format) as frozen records.

``CONTEST_DIR/contest.yaml`` (or .json), ``problems.yaml``, ``accounts.yaml``, ``teams.json`` and the
optional ``groups.json`` and ``organizations.json``. Each problem's ``id`` names a Kattis package in
``CONTEST_DIR/problems/<id>/`` or in the ``--problems`` folder. Nothing here starts a program; every mistake
is a ``ContestError`` with one line naming the file and the entry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from judge.package.problem import PackageError, Problem, load_problem
from judge.scoreboard.awards import Medals
from judge.scoreboard.passfail import DEFAULT_PENALTY_S, ScoreboardType
from judge.serve.model.contest_values import (
    EVERYONE,
    ClarLimits,
    ContestError,
    OutputStorage,
    TeamChoice,
    clar_limits,
    flag,
    forbidden_languages,
    judging_priority,
    medals,
    output_storage,
    penalty_s,
    positive_int,
    print_command,
    scoreboard_type,
    shortname,
    team_choice,
    team_outputs,
    text,
    time_factors,
    unique,
)
from judge.serve.model.counterexamples import (
    CounterexamplePolicy,
    CounterexampleView,
    counterexample_policy,
    counterexample_view,
)
from judge.serve.model.times import TimeError, format_reltime, parse_reltime, parse_time

DEFAULT_CODE_LIMIT_KIB = 256
DEFAULT_RATE_SUBMISSIONS = 10
DEFAULT_RATE_SECONDS = 60.0
ACCOUNT_TYPES = ("team", "judge", "admin", "balloon")  # balloon: a balloon runner (issue 47)
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# The properties of groups and organizations we pass on (the spec's; files may hold more).
GROUP_KEYS = ("id", "icpc_id", "name", "type")
ORGANIZATION_KEYS = ("id", "icpc_id", "name", "formal_name", "country", "country_subdivision", "url")

_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,35}$")


def valid_id(value: str) -> bool:
    """The spec's ID: ``[a-zA-Z0-9_.-]``, at most 36, not starting with ``-`` or ``.``, not ending with ``.``."""
    return bool(_ID.match(value)) and not value.endswith(".")


LONGEST_S = 366 * 24 * 3600.0  # a contest's duration (and its freeze, a countdown's pause) at most: a year
LAST_TIME_S = 253402300800.0  # 10000-01-01T00:00:00Z: the Contest API's times have four-digit years


@dataclass(frozen=True)
class ContestInfo:
    id: str
    name: str
    formal_name: str
    start_s: float | None  # None: not scheduled (nobody can submit)
    duration_s: float
    freeze_duration_s: float  # 0: never frozen
    thaw_s: float | None = None  # contest.yaml's scoreboard_thaw_time (an admin can set it with PATCH)
    code_limit_kib: int = DEFAULT_CODE_LIMIT_KIB
    rate_submissions: int = DEFAULT_RATE_SUBMISSIONS
    rate_seconds: float = DEFAULT_RATE_SECONDS
    clarifications: ClarLimits = ClarLimits()
    # contest.yaml without the key is the spec's default, pass-fail (load_info); a record made in code is
    # a score contest unless it says otherwise
    scoreboard_type: ScoreboardType = ScoreboardType.SCORE
    penalty_s: float = DEFAULT_PENALTY_S  # pass-fail: the time a rejected submission costs
    judge_all_tests: bool = False  # pass-fail: judge every test even after one fails (default: stop there)
    shortname: str | None = None  # DOMjudge's contest property (its command-line client needs one)
    medals: Medals = Medals()  # contest.yaml's ``medals: {gold: 4, silver: 4, bronze: 4}`` (none: no medals)
    main_scoreboard_group_id: str | None = None  # the spec's: the main board ranks this group's teams only
    # the spec's countdown_pause_time: the countdown is paused with this much left (start_s is then None);
    # set only by an admin's PATCH (model/schedule.py), never by contest.yaml
    countdown_pause_s: float | None = None
    # contest.yaml's print_command (ours), split like a shell would: the team's print-out goes to its standard
    # input (e.g. ``lp -d lab``); None: print-outs are only listed for the jury
    print_command: tuple[str, ...] | None = None
    # contest.yaml's ``languages: [{id: java, time_factor: 1.5}]`` (DOMjudge's time_factor): a language's
    # submissions get the problems' time limits times its factor
    time_factors: tuple[tuple[str, float], ...] = ()
    # contest.yaml's ``fuzz: true`` (ours, issue 33): live fuzzing on, unless `judge serve --no-fuzz`
    fuzz: bool = False
    # the state's removed_intervals (issue 43): wall-clock [start, end) stretches taken out of the contest's
    # time (an outage), sorted and apart; set only by an admin (model/schedule.py), never by contest.yaml
    removed: tuple[tuple[float, float], ...] = ()
    # contest.yaml's ``counterexamples`` (ours, issue 46: model/counterexamples.py): read and checked; not
    # acted on yet (docs/serve.md, "Counterexamples (coming)")
    counterexamples: CounterexamplePolicy = CounterexamplePolicy()
    # contest.yaml's ``teams:`` (ours, issue 44): which of the site's teams take part (default: all)
    teams: TeamChoice = EVERYONE
    # contest.yaml's ``judging_priority:`` (ours, issue 44): higher is judged first across a site's contests
    judging_priority: int = 0
    # issue 47, the jury's workbench (ours, docs/serve.md): what is kept of each run's output; what a team sees
    # of its own runs' output (none | samples | all); judgements shown to the teams and the public board only
    # once a judge verified them (DOMjudge's verification_required); the languages that take no submissions
    # (``languages: [{id: java, allow_submit: false}]``, DOMjudge's property; an admin may change both live)
    output_storage: OutputStorage = OutputStorage()
    team_outputs: str = "samples"
    verification_required: bool = False
    forbidden_languages: tuple[str, ...] = ()

    def allows_language(self, language_id: str) -> bool:
        return language_id not in self.forbidden_languages

    def time_factor(self, language_id: str) -> float:
        return next((f for lang, f in self.time_factors if lang == language_id), 1.0)

    @property
    def pass_fail(self) -> bool:
        return self.scoreboard_type is ScoreboardType.PASS_FAIL

    @property
    def end_s(self) -> float | None:
        """When the contest ends: when its clock reaches the duration (the removed intervals add their length)."""
        return self.wall_s(self.duration_s)

    @property
    def freeze_s(self) -> float | None:
        """When the scoreboard freezes (None: never): when the contest's clock reaches the duration less the
        freeze's."""
        if self.freeze_duration_s <= 0:
            return None
        return self.wall_s(self.duration_s - self.freeze_duration_s)

    def wall_s(self, contest_s: float) -> float | None:
        """The wall-clock time at which the contest's clock reads ``contest_s`` (None: no start): the start,
        ``contest_s`` later, and each removed interval that begins before that pushes it on by its length."""
        if self.start_s is None:
            return None
        t = self.start_s + contest_s
        for begin, end in self.removed:
            if begin >= t:
                break
            t += end - begin
        return t

    def contest_time_s(self, t: float) -> float:
        """The contest's clock at wall-clock ``t`` (the spec's contest time, RELTIME): the seconds since the
        start without the removed intervals before ``t``; in one, the time at its start (the spec: "Events
        happening during a removed interval all receive the same contest time"). No start: 0."""
        if self.start_s is None:
            return 0.0
        return t - self.start_s - sum(max(0.0, min(end, t) - begin) for begin, end in self.removed if begin < t)


@dataclass(frozen=True)
class ContestProblem:
    id: str
    label: str
    name: str
    ordinal: int
    problem: Problem
    code_limit_kib: int
    rgb: str | None = None
    color: str | None = None
    counterexamples: CounterexampleView | None = None  # problems.yaml's (issue 46); None: the contest's


@dataclass(frozen=True)
class Team:
    id: str
    name: str
    label: str
    display_name: str | None = None
    organization_id: str | None = None
    group_ids: tuple[str, ...] = ()
    icpc_id: str | None = None
    hidden: bool = False  # off the public and teams' scoreboard, still judged (an admin's change: issue 30)


@dataclass(frozen=True)
class AccountSpec:
    id: str
    username: str
    password: str  # as written: plain text, or an argon2 hash ($argon2id$...)
    type: str  # team | judge | admin
    team_id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class People:
    """The people as their files hold them: a contest package's, or a site's shared by its contests (issue 44)."""

    teams: tuple[Team, ...] = ()
    accounts: tuple[AccountSpec, ...] = ()
    groups: tuple[Mapping[str, Any], ...] = ()
    organizations: tuple[Mapping[str, Any], ...] = ()
    hidden_groups: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Contest:
    root: Path
    info: ContestInfo
    problems: tuple[ContestProblem, ...]
    teams: tuple[Team, ...]
    accounts: tuple[AccountSpec, ...] = ()
    groups: tuple[Mapping[str, Any], ...] = ()
    organizations: tuple[Mapping[str, Any], ...] = ()
    hidden_groups: frozenset[str] = frozenset()  # groups.json's ``hidden: true`` (DOMjudge's): on no main board

    @property
    def people(self) -> People:
        """The contest's people as loaded (a site's contest: the site's, all of them: issue 44)."""
        return People(self.teams, self.accounts, self.groups, self.organizations, self.hidden_groups)

    def on_main_board(self, team: Team) -> bool:
        """Whether the team is ranked on the main scoreboard: in ``main_scoreboard_group_id`` (when set), in
        no hidden group."""
        main = self.info.main_scoreboard_group_id
        if main is not None and main not in team.group_ids:
            return False
        return not self.hidden_groups.intersection(team.group_ids)

    def problem(self, problem_id: str) -> ContestProblem | None:
        return next((p for p in self.problems if p.id == problem_id), None)

    def team(self, team_id: str) -> Team | None:
        return self._teams_by_id.get(team_id)

    @cached_property
    def hidden_team_ids(self) -> frozenset[str]:
        """The teams marked hidden (off the board for whoever may not see them), made once per contest."""
        return frozenset(t.id for t in self.teams if t.hidden)

    @cached_property
    def _teams_by_id(self) -> dict[str, Team]:
        """The teams by id (a page of 500 teams' rows looks each up: no linear search each time)."""
        return {t.id: t for t in self.teams}


def _read(path: Path) -> Any:
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ContestError(f"cannot read {path}: {exc}") from None
    try:
        return json.loads(raw) if path.suffix == ".json" else yaml.safe_load(raw)
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else f" line {getattr(exc, 'lineno', '?')}"
        raise ContestError(f"{path}{line}: not valid {'JSON' if path.suffix == '.json' else 'YAML'}") from None


def _find(root: Path, stem: str, exts: Sequence[str], required: bool) -> Path | None:
    for ext in exts:
        if (root / f"{stem}{ext}").is_file():
            return root / f"{stem}{ext}"
    if required:
        raise ContestError(
            f"{root}: no {stem}{exts[0]} (is this a contest package? `judge contest init DIR` makes one)"
        )
    return None


def _id(entry: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = text(entry, key, where, default)
    if not valid_id(value):
        raise ContestError(f"{where}: `{key}` {value!r} is not a valid ID (letters, digits, _ . -; at most 36)")
    return value


def _list(data: Any, path: Path) -> list[Mapping[str, Any]]:
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise ContestError(f"{path}: expected a list of objects")
    return data


def load_info(path: Path) -> ContestInfo:
    data = _read(path)
    if not isinstance(data, dict):
        raise ContestError(f"{path}: expected a mapping")
    where = str(path)
    kind = scoreboard_type(data, where)
    try:
        start = None if data.get("start_time") is None else parse_time(data["start_time"], f"{where}: start_time")
        if "duration" not in data:
            raise ContestError(f'{where}: `duration` is required (e.g. duration: "5:00:00")')
        duration = parse_reltime(data["duration"], f"{where}: duration")
        freeze = parse_reltime(data.get("scoreboard_freeze_duration") or 0, f"{where}: scoreboard_freeze_duration")
        thaw = data.get("scoreboard_thaw_time")
        thaw_s = None if thaw is None else parse_time(thaw, f"{where}: scoreboard_thaw_time")
    except TimeError as exc:
        raise ContestError(str(exc)) from None
    if duration <= 0:
        raise ContestError(f"{where}: duration must be positive")
    if duration > LONGEST_S:
        raise ContestError(f"{where}: duration must be at most {format_reltime(LONGEST_S)} (a year)")
    if start is not None and start + duration >= LAST_TIME_S:
        raise ContestError(f"{where}: the contest would end after the year 9999")
    if not 0 <= freeze <= duration:
        raise ContestError(f"{where}: scoreboard_freeze_duration must be between 0 and the duration")
    rate = data.get("rate_limit") or {}
    if not isinstance(rate, dict):
        raise ContestError(f"{where}: rate_limit must be a mapping like {{submissions: 10, seconds: 60}}")
    name = text(data, "name", where)
    return ContestInfo(
        id=_id(data, "id", where),
        name=name,
        formal_name=text(data, "formal_name", where, name),
        start_s=start,
        duration_s=duration,
        freeze_duration_s=freeze,
        thaw_s=thaw_s,
        code_limit_kib=positive_int(data.get("code_limit", DEFAULT_CODE_LIMIT_KIB), f"{where}: code_limit"),
        rate_submissions=positive_int(
            rate.get("submissions", DEFAULT_RATE_SUBMISSIONS), f"{where}: rate_limit.submissions"
        ),
        rate_seconds=float(
            positive_int(rate.get("seconds", int(DEFAULT_RATE_SECONDS)), f"{where}: rate_limit.seconds")
        ),
        scoreboard_type=kind,
        penalty_s=penalty_s(data.get("penalty_time"), where, duration),
        judge_all_tests=flag(data, "judge_all_tests", where),
        shortname=shortname(data, where),
        medals=medals(data.get("medals"), f"{where}: medals"),
        main_scoreboard_group_id=None
        if data.get("main_scoreboard_group_id") is None
        else _id(data, "main_scoreboard_group_id", where),
        clarifications=clar_limits(data.get("clarification_limits"), f"{where}: clarification_limits"),
        print_command=print_command(data.get("print_command"), where),
        time_factors=time_factors(data.get("languages"), f"{where}: languages"),
        fuzz=flag(data, "fuzz", where),
        counterexamples=counterexample_policy(data.get("counterexamples"), f"{where}: counterexamples"),
        teams=team_choice(data.get("teams"), where),
        judging_priority=judging_priority(data.get("judging_priority"), where),
        output_storage=output_storage(data.get("output_storage"), f"{where}: output_storage"),
        team_outputs=team_outputs(data, where),
        verification_required=flag(data, "verification_required", where),
        forbidden_languages=forbidden_languages(data.get("languages"), f"{where}: languages"),
    )


def _package(
    problem_id: str, roots: Sequence[Path], where: str, packages: dict[Path, Problem] | None = None
) -> Problem:
    for root in roots:
        folder = root / problem_id
        if (folder / "problem.yaml").is_file():
            if packages is not None and folder in packages:
                return packages[folder]
            try:
                problem = load_problem(folder)
            except PackageError as exc:
                raise ContestError(f"{where}: {exc}") from None
            if packages is not None:
                packages[folder] = problem
            return problem
    tried = " or ".join(str(r / problem_id) for r in roots)
    raise ContestError(f"{where}: no problem package {problem_id!r} at {tried}")


def load_problems(
    path: Path, roots: Sequence[Path], code_limit_kib: int, packages: dict[Path, Problem] | None = None
) -> tuple[ContestProblem, ...]:
    out: list[ContestProblem] = []
    for i, entry in enumerate(_list(_read(path), path)):
        where = f"{path} entry {i + 1}"
        pid = _id(entry, "id", where)
        problem = _package(pid, roots, where, packages)
        rgb = entry.get("rgb")
        if rgb is not None and not re.fullmatch(r"#[0-9A-Fa-f]{3}([0-9A-Fa-f]{3})?", str(rgb)):
            raise ContestError(f"{where}: rgb {rgb!r} is not like #ff8800")
        ordinal = entry.get("ordinal", i + 1)
        if isinstance(ordinal, bool) or not isinstance(ordinal, int):
            raise ContestError(f"{where}: ordinal must be an integer")
        package_kib = problem.limits.code_bytes // 1024 if problem.limits.code_bytes is not None else None
        limit = entry.get("code_limit", package_kib or code_limit_kib)  # the package's 2025-09 `code`, if any
        out.append(
            ContestProblem(
                id=pid,
                label=text(entry, "label", where, LABELS[i] if i < len(LABELS) else pid),
                name=text(entry, "name", where, problem.name),
                ordinal=ordinal,
                problem=problem,
                code_limit_kib=positive_int(limit, f"{where}: code_limit"),
                rgb=None if rgb is None else str(rgb),
                color=None if entry.get("color") is None else str(entry["color"]),
                counterexamples=counterexample_view(entry.get("counterexamples"), f"{where}: counterexamples"),
            )
        )
    unique([p.id for p in out], path, "problem id")
    unique([p.label for p in out], path, "label")
    unique([str(p.ordinal) for p in out], path, "ordinal")
    return tuple(sorted(out, key=lambda p: p.ordinal))


def _objects(path: Path | None, keys: Sequence[str]) -> tuple[dict[str, Any], ...]:
    if path is None:
        return ()
    out = []
    for i, entry in enumerate(_list(_read(path), path)):
        where = f"{path} entry {i + 1}"
        obj = {k: entry[k] for k in keys if entry.get(k) is not None}
        obj["id"] = _id(entry, "id", where)
        obj["name"] = text(entry, "name", where)
        out.append(obj)
    unique([o["id"] for o in out], path, "id")
    return tuple(out)


def _hidden(path: Path | None) -> frozenset[str]:
    """The ids of groups.json's groups marked ``hidden: true`` (DOMjudge's property; not served)."""
    if path is None:
        return frozenset()
    out = set()
    for i, entry in enumerate(_list(_read(path), path)):
        hidden = entry.get("hidden", False)
        if not isinstance(hidden, bool):
            raise ContestError(f"{path} entry {i + 1}: `hidden` must be true or false, got {hidden!r}")
        if hidden:
            out.add(str(entry.get("id")))
    return frozenset(out)


def load_teams(path: Path | None, groups: set[str], organizations: set[str]) -> tuple[Team, ...]:
    if path is None:
        return ()
    teams = []
    for i, entry in enumerate(_list(_read(path), path)):
        where = f"{path} entry {i + 1}"
        tid = _id(entry, "id", where)
        org = entry.get("organization_id")
        if org is not None and str(org) not in organizations:
            raise ContestError(f"{where}: organization_id {org!r} is not in organizations.json")
        group_ids = entry.get("group_ids") or []
        if not isinstance(group_ids, list) or any(str(g) not in groups for g in group_ids):
            raise ContestError(f"{where}: group_ids must list ids of groups.json, got {group_ids!r}")
        teams.append(
            Team(
                id=tid,
                name=text(entry, "name", where, tid),
                label=text(entry, "label", where, tid),
                display_name=None if entry.get("display_name") is None else str(entry["display_name"]),
                organization_id=None if org is None else str(org),
                group_ids=tuple(str(g) for g in group_ids),
                icpc_id=None if entry.get("icpc_id") is None else str(entry["icpc_id"]),
            )
        )
    unique([t.id for t in teams], path, "team id")
    return tuple(teams)


def load_accounts(path: Path | None, teams: set[str]) -> tuple[AccountSpec, ...]:
    if path is None:
        return ()
    accounts = []
    for i, entry in enumerate(_list(_read(path), path)):
        where = f"{path} entry {i + 1}"
        username = text(entry, "username", where)
        kind = text(entry, "type", where)
        if kind not in ACCOUNT_TYPES:
            raise ContestError(f"{where}: type {kind!r} is not one of {', '.join(ACCOUNT_TYPES)}")
        team_id = None if entry.get("team_id") is None else str(entry["team_id"])
        if kind == "team" and team_id not in teams:
            raise ContestError(f"{where}: a team account needs the team_id of a team in teams.json, got {team_id!r}")
        if kind != "team" and team_id is not None:
            raise ContestError(f"{where}: only team accounts have a team_id")
        password = entry.get("password")
        if not isinstance(password, str) or not password:
            raise ContestError(f"{where}: `password` is required (plain text, or an argon2 hash)")
        accounts.append(
            AccountSpec(
                id=_id(entry, "id", where, username if valid_id(username) else None),
                username=username,
                password=password,
                type=kind,
                team_id=team_id,
                name=None if entry.get("name") is None else str(entry["name"]),
            )
        )
    unique([a.id for a in accounts], path, "account id")
    unique([a.username for a in accounts], path, "username")
    return tuple(accounts)


PEOPLE_FILES = ("accounts", "teams", "groups", "organizations")  # a site's, never a site's contest's (issue 44)


def load_people(root: Path) -> People:
    """``accounts.yaml``, ``teams.json``, ``groups.json``, ``organizations.json`` of ROOT (each optional)."""
    groups_path = _find(root, "groups", (".json", ".yaml"), False)
    groups = _objects(groups_path, GROUP_KEYS)
    organizations = _objects(_find(root, "organizations", (".json", ".yaml"), False), ORGANIZATION_KEYS)
    teams = load_teams(
        _find(root, "teams", (".json", ".yaml"), False),
        {g["id"] for g in groups},
        {o["id"] for o in organizations},
    )
    accounts = load_accounts(_find(root, "accounts", (".yaml", ".json"), False), {t.id for t in teams})
    return People(teams, accounts, groups, organizations, _hidden(groups_path))


def people_files(root: Path) -> list[Path]:
    """The people's files ROOT holds (a contest folder of a site must hold none)."""
    exts = (".yaml", ".yml", ".json")
    return [root / f"{stem}{ext}" for stem in PEOPLE_FILES for ext in exts if (root / f"{stem}{ext}").is_file()]


def _check_choice(info: ContestInfo, people: People, info_path: Path) -> None:
    """contest.yaml's ``teams:`` names teams and groups that exist (a typo would leave a team out quietly)."""
    choice = info.teams
    known_teams = {t.id for t in people.teams}
    for tid in choice.team_ids or ():
        if tid not in known_teams:
            raise ContestError(f"{info_path}: teams: {tid!r} is not a team (teams.json)")
    known_groups = {str(g["id"]) for g in people.groups}
    for gid in choice.group_ids or ():
        if gid not in known_groups:
            raise ContestError(f"{info_path}: teams: groups: {gid!r} is not a group (groups.json)")


def load_contest(
    root: Path,
    problems_dir: Path | None = None,
    people: People | None = None,
    packages: dict[Path, Problem] | None = None,
) -> Contest:
    """Read CONTEST_DIR. Packages are looked up in CONTEST_DIR/problems/ first, then in ``problems_dir``.
    ``people``: a site's contest (issue 44): the site's people, and the folder may hold none of its own;
    None: the folder's own. ``packages``: problems loaded already (a site loads a shared package once)."""
    if not root.is_dir():
        raise ContestError(f"{root}: not a folder (a contest package; `judge contest init DIR` makes one)")
    info_path = _find(root, "contest", (".yaml", ".json"), True)
    assert info_path is not None
    info = load_info(info_path)
    roots = [root / "problems"] + ([problems_dir] if problems_dir is not None else [])
    problems_path = _find(root, "problems", (".yaml", ".json"), True)
    assert problems_path is not None
    problems = load_problems(problems_path, roots, info.code_limit_kib, packages)
    if not problems:
        raise ContestError(f"{problems_path}: no problems")
    if people is None:
        people = load_people(root)
    else:
        own = people_files(root)
        if own:
            raise ContestError(
                f"{own[0]}: a site's contest has no people of its own (they are the site's: move it to the "
                f"site's folder, and choose the contest's teams with `teams:` in contest.yaml)"
            )
    main = info.main_scoreboard_group_id
    if main is not None and all(g["id"] != main for g in people.groups):
        raise ContestError(f"{info_path}: main_scoreboard_group_id {main!r} is not a group of groups.json")
    _check_choice(info, people, info_path)
    return Contest(
        root,
        info,
        problems,
        people.teams,
        people.accounts,
        people.groups,
        people.organizations,
        people.hidden_groups,
    )
