"""What a package's author expects of each example submission (`judge verify`). Pure: reads files only.

Three sources, and a submission must meet all of those that apply to it (docs/package-format.md,
"Submissions and what is expected of them"):

1. its folder, ``submissions/<folder>/``: the Kattis names (legacy, 2023-07, the 2025-09 default
   directories), DOMjudge's names (``compiler_error``, ``no_output``, ``output_limit``, ``partial`` ...) and ours;
2. DOMjudge's markers in its source: ``@EXPECTED_RESULTS@: `` (one of the listed results) and
   ``@EXPECTED_SCORE@: `` (this score);
3. ``submissions/submissions.yaml`` (2025-09): per submission glob, ``permitted`` / ``required`` verdicts of
   the test cases, ``score``, ``message``, also restricted to test groups.

A folder-derived or DOMjudge expectation is about the submission's verdict (the first test, in judging
order, that is not AC) and score. A ``submissions.yaml`` rule is about the verdicts of the test cases; tests
that were not judged (judging stopped at the first rejection, as the contest does) are given the benefit
of the doubt, as BAPCtools does; ``judge verify --all-tests`` judges them all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from judge.authoring.submissionsyaml import (
    DEFAULT_DIRECTORY_RULES,
    RULE_KEYS,
    SUBMISSION_KEYS,
    CaseRule,
    SubmissionsYaml,
    glob_matches,
    load_submissions_yaml,
    rule_from,
)
from judge.judging.results import SubmissionResult
from judge.judging.verdict import Verdict

__all__ = [
    "CaseRule",
    "Expectation",
    "SubmissionsYaml",
    "expectation_for",
    "glob_matches",
    "load_submissions_yaml",
    "read_annotation",
]

SCORE_EPS = 1e-6

# ----------------------------------------------------------------------------- vocabulary

# Result names in @EXPECTED_RESULTS@ markers (DOMjudge, Kattis, BAPCtools spellings; upper case, "_" read
# as "-") -> our verdicts, with DOMjudge's meaning of each.
RESULT_NAMES: dict[str, frozenset[Verdict]] = {
    "CORRECT": frozenset({Verdict.AC}),
    "ACCEPTED": frozenset({Verdict.AC}),
    "AC": frozenset({Verdict.AC}),
    "WRONG-ANSWER": frozenset({Verdict.WA}),
    "WA": frozenset({Verdict.WA}),
    "NO-OUTPUT": frozenset({Verdict.WA}),  # DOMjudge: a wrong answer with empty output
    # DOMjudge truncates a flood of output and lets the program run into its time limit: what we stop at
    # once as OLE, DOMjudge reports as TIMELIMIT unless the program ends by itself.
    "TIMELIMIT": frozenset({Verdict.TLE, Verdict.OLE}),
    "TIME-LIMIT-EXCEEDED": frozenset({Verdict.TLE, Verdict.OLE}),
    "TLE": frozenset({Verdict.TLE, Verdict.OLE}),
    "RUN-ERROR": frozenset({Verdict.RTE, Verdict.MLE}),  # DOMjudge reports a memory hog as a run error
    "RUN-TIME-ERROR": frozenset({Verdict.RTE, Verdict.MLE}),
    "RUNTIME-ERROR": frozenset({Verdict.RTE, Verdict.MLE}),
    "RTE": frozenset({Verdict.RTE, Verdict.MLE}),
    "MEMORY-LIMIT": frozenset({Verdict.MLE}),
    "MEMORY-LIMIT-EXCEEDED": frozenset({Verdict.MLE}),
    "MLE": frozenset({Verdict.MLE}),
    "OUTPUT-LIMIT": frozenset({Verdict.OLE}),
    "OUTPUT-LIMIT-EXCEEDED": frozenset({Verdict.OLE}),
    "OLE": frozenset({Verdict.OLE}),
    "COMPILER-ERROR": frozenset({Verdict.CE}),
    "COMPILE-ERROR": frozenset({Verdict.CE}),
    "CE": frozenset({Verdict.CE}),
    "PROTOCOL-VIOLATION": frozenset({Verdict.PV}),
    "PV": frozenset({Verdict.PV}),
}
MANUAL_RESULTS = ("CHECK-MANUALLY",)  # DOMjudge: the jury looks at it; no automatic expectation

# How the spec's four see our finer verdicts (Kattis has no MLE, OLE or PV in expectations).
_KATTIS_VIEW = {Verdict.MLE: Verdict.RTE, Verdict.OLE: Verdict.RTE, Verdict.PV: Verdict.WA}


def result_verdicts(name: str) -> frozenset[Verdict] | None:
    """The verdicts a result name stands for, or None if it names none."""
    return RESULT_NAMES.get(name.strip().upper().replace("_", "-"))


def in_set(verdict: Verdict, allowed: frozenset[Verdict]) -> bool:
    """A test verdict is in a permitted/required set itself or as Kattis sees it (MLE and OLE are RTE, PV is WA)."""
    return verdict in allowed or _KATTIS_VIEW.get(verdict) in allowed


# ----------------------------------------------------------------------------- folders


@dataclass(frozen=True)
class FolderRule:
    verdicts: frozenset[Verdict] | None  # the submission's verdict is one of these (None: any but CE/JE)
    score: str = "any"  # "full" | "pac" (AC below full, or WA above 0) | "partial" (strictly between) | "any"
    label: str = ""


def _rule(*verdicts: Verdict, score: str = "any", label: str = "") -> FolderRule:
    return FolderRule(frozenset(verdicts), score, label or "|".join(v.value for v in verdicts))


_NOT_AC = (Verdict.WA, Verdict.TLE, Verdict.RTE, Verdict.MLE, Verdict.OLE, Verdict.PV, Verdict.CE)
FOLDERS: dict[str, FolderRule] = {
    # Kattis (legacy, 2023-07, 2025-09 default directories)
    "accepted": _rule(Verdict.AC, score="full"),
    "partially_accepted": FolderRule(frozenset({Verdict.AC, Verdict.WA}), "pac", "AC<max|WA>0"),
    "wrong_answer": _rule(Verdict.WA),
    "time_limit_exceeded": _rule(Verdict.TLE),
    "run_time_error": _rule(Verdict.RTE, Verdict.MLE),  # Kattis has no MLE: its memory hogs are here
    "rejected": _rule(*_NOT_AC, label="not AC"),
    "brute_force": _rule(Verdict.TLE, Verdict.RTE, Verdict.MLE, Verdict.OLE),  # never wrong, fails at least once
    "slow_accepted": _rule(Verdict.AC, Verdict.TLE),  # problemtools' example: correct but slow (ours to read)
    # ours
    "memory_limit_exceeded": _rule(Verdict.MLE),
    "output_limit_exceeded": _rule(Verdict.OLE),
    "compile_error": _rule(Verdict.CE),
    "protocol_violation": _rule(Verdict.PV),
    # DOMjudge
    "compiler_error": _rule(Verdict.CE),
    "no_output": _rule(Verdict.WA, label="WA (no output)"),
    "output_limit": _rule(Verdict.OLE),
    "memory_limit": _rule(Verdict.MLE),
    "partial": FolderRule(None, "partial", "0<score<max"),
}
KNOWN_FOLDERS = tuple(FOLDERS)
# DOMjudge's result for each of its folder names (its import upper-cases the name and remaps these)
DOMJUDGE_FOLDER_RESULTS = {
    "accepted": "CORRECT",
    "wrong_answer": "WRONG-ANSWER",
    "time_limit_exceeded": "TIMELIMIT",
    "run_time_error": "RUN-ERROR",
    "compiler_error": "COMPILER-ERROR",
    "no_output": "NO-OUTPUT",
    "output_limit": "OUTPUT-LIMIT",
}


# ----------------------------------------------------------------------------- DOMjudge markers

_MARKERS = ("@EXPECTED_RESULTS@: ", "@EXPECTED_SCORE@: ")


@dataclass(frozen=True)
class Annotation:
    results: tuple[str, ...] = ()  # as written, upper case
    score: float | None = None
    error: str | None = None  # DOMjudge refuses such a submission (two markers); we say why and ignore them


def _source_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    return sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else []


def read_annotation(source: Path) -> Annotation | None:
    """DOMjudge's `@EXPECTED_RESULTS@: ` / `@EXPECTED_SCORE@: ` markers (case-insensitive, to the end of the line)."""
    found: list[tuple[str, Annotation]] = []
    for f in _source_files(source):
        try:
            text = f.read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        results: tuple[str, ...] = ()
        score: float | None = None
        seen = False
        upper = text.upper()
        for marker in _MARKERS:
            starts = [m.start() for m in re.finditer(re.escape(marker), upper)]
            if not starts:
                continue
            seen = True
            if len(starts) > 1:
                return Annotation(error=f"{f.name}: {marker.strip()} appears {len(starts)} times")
            begin = starts[0] + len(marker)
            end = text.find("\n", begin)
            value = text[begin : end if end >= 0 else len(text)]
            value = re.split(r"\*/|-->|\*\)", value)[0].strip()  # a comment closed on the same line
            if marker.startswith("@EXPECTED_SCORE@") and _is_number(value):
                score = float(value)
            elif results:
                return Annotation(error=f"{f.name}: both markers give results")
            else:
                results = tuple(w.strip().upper() for w in value.split(",") if w.strip())
        if seen:
            found.append((f.name, Annotation(results, score)))
    if not found:
        return None
    if len(found) > 1:
        names = ", ".join(n for n, _ in found)
        return Annotation(error=f"markers in more than one file ({names})")
    return found[0][1]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# ----------------------------------------------------------------------------- the expectation


@dataclass(frozen=True)
class Expectation:
    """Everything expected of one submission. Empty (no folder rule, no marker, no rule): not checked."""

    folder: str
    folder_rule: FolderRule | None = None
    results: frozenset[Verdict] | None = None  # @EXPECTED_RESULTS@ (when it decides)
    results_text: str = ""
    score: float | None = None  # @EXPECTED_SCORE@
    rules: tuple[CaseRule, ...] = ()
    manual: str | None = None  # why nothing is checked automatically
    notes: tuple[str, ...] = ()
    conflict: str | None = None  # the package contradicts itself: always a failure

    @property
    def checked(self) -> bool:
        return bool(self.folder_rule or self.results or self.score is not None or self.rules or self.conflict)

    def describe(self) -> str:
        parts: list[str] = []
        if self.results is not None:
            parts.append(self.results_text)
        elif self.folder_rule is not None:
            parts.append(self.folder_rule.label)
        if self.score is not None:
            parts.append(f"score {self.score:g}")
        for r in self.rules:
            bits = []
            if r.permitted is not None:
                bits.append("permitted " + ",".join(sorted(r.permitted)))
            if r.required is not None:
                bits.append("required " + ",".join(sorted(r.required)))
            if r.score is not None:
                lo, hi = r.score
                bits.append(f"score {lo:g}" if lo == hi else f"score {lo:g}..{hi:g}")
            if r.message is not None:
                bits.append(f"message {r.message!r}")
            if bits:
                parts.append((f"{r.tests}: " if r.tests else "") + " ".join(bits))
        if not parts:
            return "-" if self.manual is None else "(manual)"
        return "; ".join(parts)

    def failures(self, result: SubmissionResult, test_names: Sequence[str]) -> list[str]:
        """Why ``result`` does not meet this expectation (empty: it does). ``test_names``: every test of the problem."""
        out: list[str] = []
        if self.conflict is not None:
            out.append(self.conflict)
        if result.verdict is Verdict.JE:
            out.append("judge error (the package or the judge failed)")
            return out
        if self.results is not None:
            if result.verdict not in self.results:
                out.append(f"verdict {result.verdict.value}, expected {self.results_text}")
        elif self.folder_rule is not None:
            out.extend(_folder_failures(self.folder_rule, result))
        if self.score is not None and abs(result.score - self.score) > SCORE_EPS:
            out.append(f"score {result.score:g}, expected {self.score:g}")
        for rule in self.rules:
            out.extend(_rule_failures(rule, result, test_names))
        return out


def _folder_failures(rule: FolderRule, r: SubmissionResult) -> list[str]:
    full = r.score >= r.max_score - SCORE_EPS
    if rule.verdicts is not None and r.verdict not in rule.verdicts:
        return [f"verdict {r.verdict.value}, expected {rule.label}"]
    if rule.verdicts is None and r.verdict is Verdict.CE:
        return [f"verdict CE, expected {rule.label}"]
    if rule.score == "full" and not full:
        return [f"score {r.score:g} of {r.max_score:g}, expected the full score"]
    if rule.score == "pac":
        if (r.verdict is Verdict.AC and full) or (r.verdict is Verdict.WA and r.score <= SCORE_EPS):
            return [f"{r.verdict.value} with score {r.score:g} of {r.max_score:g}, expected {rule.label}"]
    if rule.score == "partial" and not (SCORE_EPS < r.score < r.max_score - SCORE_EPS):
        return [f"score {r.score:g} of {r.max_score:g}, expected a partial score"]
    return []


def _rule_failures(rule: CaseRule, r: SubmissionResult, test_names: Sequence[str]) -> list[str]:
    where = f" ({rule.origin})"
    if r.verdict is Verdict.CE:
        return [f"compile error{where}"]
    in_scope = {n for n in test_names if rule.tests is None or glob_matches(rule.tests, n)}
    judged = [t for t in r.tests if t.name in in_scope]
    # Tests judging never reached (it stops at the first rejection): they could meet `required` / `message`.
    benefit = len({t.name for t in judged}) < len(in_scope)
    out: list[str] = []
    if rule.permitted is not None:
        allowed = frozenset(Verdict(v) for v in rule.permitted)
        bad = [t for t in judged if not in_set(t.verdict, allowed)]
        if bad:
            out.append(f"{bad[0].name} got {bad[0].verdict.value}, permitted {','.join(sorted(rule.permitted))}{where}")
    if rule.required is not None and not benefit:
        wanted = frozenset(Verdict(v) for v in rule.required)
        if not any(in_set(t.verdict, wanted) for t in judged):
            got = ",".join(sorted({t.verdict.value for t in judged})) or "no test"
            out.append(f"required one of {','.join(sorted(rule.required))}, got {got}{where}")
    if rule.message is not None and not benefit and not any(rule.message in t.message for t in judged):
        out.append(f"no judge message contains {rule.message!r}{where}")
    if rule.score is not None:
        lo, hi = rule.score
        if rule.tests is None:
            values = [("score", r.score)]
        else:
            values = [(g.name, g.score) for g in r.groups if glob_matches(rule.tests, g.name)]
        for name, value in values:
            if not lo - SCORE_EPS <= value <= hi + SCORE_EPS:
                span = f"{lo:g}" if lo == hi else f"{lo:g}..{hi:g}"
                out.append(f"{name} {value:g}, expected {span}{where}")
    return out


# ----------------------------------------------------------------------------- building one


@dataclass(frozen=True)
class _Annotated:
    """What a submission's ``@EXPECTED_RESULTS@`` marker adds to its folder's rule."""

    rule: FolderRule | None  # the folder's rule (with the marker's meaning, for DOMjudge's folders)
    results: frozenset[Verdict] | None = None  # the marker's verdicts, when the folder names none
    results_text: str = ""
    score: float | None = None
    manual: str | None = None  # a marker result that only a person can check
    notes: tuple[str, ...] = ()
    conflict: str | None = None


def _annotated(folder: str, source: Path) -> _Annotated:
    """The folder's rule and what the submission's ``@EXPECTED_RESULTS@`` marker, if any, says besides."""
    rule = FOLDERS.get(folder)
    ann = read_annotation(source)
    if ann is None:
        return _Annotated(rule)
    if ann.error is not None:
        return _Annotated(
            rule, notes=(f"@EXPECTED_RESULTS@ ignored: {ann.error} (DOMjudge refuses such a submission)",)
        )
    if not ann.results:
        return _Annotated(rule, score=ann.score)
    manual_words = [w for w in ann.results if w in MANUAL_RESULTS]
    mapped = [result_verdicts(w) for w in ann.results]
    unknown = [w for w, m in zip(ann.results, mapped, strict=True) if m is None and w not in MANUAL_RESULTS]
    if manual_words:
        return _Annotated(rule, score=ann.score, manual=f"@EXPECTED_RESULTS@: {', '.join(ann.results)}")
    if unknown:
        note = f"@EXPECTED_RESULTS@: {unknown[0]!r} names no verdict we know; ignored"
        return _Annotated(rule, score=ann.score, notes=(note,))
    union = frozenset(v for m in mapped if m is not None for v in m)
    text = ", ".join(ann.results)
    if rule is None or rule.verdicts is None:
        return _Annotated(rule, results=union, results_text=text, score=ann.score)
    if not (rule.verdicts & union):
        return _Annotated(
            rule, score=ann.score, conflict=f"the folder says {rule.label}, @EXPECTED_RESULTS@ says {text}"
        )
    if folder in DOMJUDGE_FOLDER_RESULTS:
        # consistent: the folder's result decides, as DOMjudge restricts the list to it, with
        # DOMjudge's meaning (a DOMjudge package: its time_limit_exceeded/ is TIMELIMIT)
        meaning = RESULT_NAMES[DOMJUDGE_FOLDER_RESULTS[folder]]
        rule = FolderRule(rule.verdicts | meaning, rule.score, DOMJUDGE_FOLDER_RESULTS[folder])
    return _Annotated(rule, score=ann.score)


def _yaml_rules(folder: str, rel: str, submissions_yaml: SubmissionsYaml) -> tuple[list[CaseRule], bool]:
    """The submissions.yaml rules that apply to ``rel``, and whether one of them redefines the default
    directory ``folder`` (its rule then replaces the folder's)."""
    rules: list[CaseRule] = []
    redefines_folder = False
    for pattern, body in submissions_yaml.matching(rel):
        origin = f"submissions.yaml: {pattern}"
        base = None
        if pattern.strip("/") == folder and folder in DEFAULT_DIRECTORY_RULES:
            permitted, required = DEFAULT_DIRECTORY_RULES[folder]
            base = CaseRule(origin, None, permitted, required)
            redefines_folder = True
        top = {k: v for k, v in body.items() if k in RULE_KEYS}
        if top or base is not None:
            rules.append(rule_from(origin, None, top, base))
        for key, value in body.items():
            if key not in RULE_KEYS and key not in SUBMISSION_KEYS and isinstance(value, dict):
                rules.append(rule_from(f"{origin}, {key}", str(key), value))
    return rules, redefines_folder


def expectation_for(folder: str, source: Path, rel: str, submissions_yaml: SubmissionsYaml) -> Expectation:
    """The expectation for ``submissions/<rel>`` (``rel`` = ``<folder>/<name>``)."""
    marked = _annotated(folder, source)
    rules, redefines_folder = _yaml_rules(folder, rel, submissions_yaml)
    rule = None if redefines_folder else marked.rule
    results, score, manual = marked.results, marked.score, marked.manual
    if rule is None and results is None and score is None and not rules and manual is None:
        manual = f"folder {folder!r} names no verdict, and no @EXPECTED_RESULTS@ or submissions.yaml rule applies"
    return Expectation(
        folder=folder,
        folder_rule=rule,
        results=results,
        results_text=marked.results_text,
        score=score,
        rules=tuple(rules),
        manual=manual if not (rule or results or score is not None or rules) else None,
        notes=marked.notes,
        conflict=marked.conflict,
    )
