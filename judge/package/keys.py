"""Every key and folder of the Kattis package format 2025-09, and what this judge does with each.

One table, ``TABLE``: a key (of problem.yaml, its ``limits``, ``test_group.yaml``, a test case's ``.yaml``,
``submissions.yaml``), a value the spec allows that is refused here (``type: submit-answer``), a folder or a
test case file. Each entry *works* (the judge does what the spec says), is *read* (accepted and checked,
with nothing for a judge to do: metadata, pictures for people) or is *refused* (the package does not load,
and the message gives the reason). docs/package-format.md shows the same table ("Every key and folder of
2025-09"); tests/test_format_keys.py keeps the two equal and checks the loader against each entry.

``Tracked`` is how the loader proves it: a 2025-09 settings mapping remembers which keys were read, and a
key of the table that is present but was neither read nor refused is an error (``check_all_read``), so an
entry marked *works* or *read* that the loader forgot fails loudly. A key the table does not know is a
warning (``check_known``): the package loads, and ``judge verify`` says it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from judge.package.errors import PackageError


class Support(StrEnum):
    WORKS = "works"
    READ = "read"  # accepted and checked; nothing for a judge to do with it
    REFUSED = "refused"  # the package does not load; the note says why


class Place(StrEnum):
    PROBLEM_YAML = "problem.yaml"
    LIMITS = "problem.yaml limits"
    TEST_GROUP = "test_group.yaml"
    TEST_CASE = "test case .yaml"
    SUBMISSIONS = "submissions.yaml"
    FOLDER = "folder"
    FILE = "test case file"


@dataclass(frozen=True)
class Entry:
    place: Place
    name: str  # the key (``type: submit-answer`` for a value), the folder (``data/sample/``) or the suffix
    support: Support
    note: str  # what it does here, or why it is refused


W, R, X = Support.WORKS, Support.READ, Support.REFUSED
P, L, G, C, S, F, T = (
    Place.PROBLEM_YAML,
    Place.LIMITS,
    Place.TEST_GROUP,
    Place.TEST_CASE,
    Place.SUBMISSIONS,
    Place.FOLDER,
    Place.FILE,
)
VISUALIZERS_NOT_RUN = "visualizers are not run: their pictures are for people, and a judge shows them nowhere"

TABLE: tuple[Entry, ...] = (
    Entry(P, "problem_format_version", W, "picks the version: `2025-09` (also `2025-09-draft`, `draft`)"),
    Entry(P, "type", W, "`pass-fail`, `scoring`, `interactive`, `multi-pass` and their combinations"),
    Entry(
        P,
        "type: submit-answer",
        X,
        "a submission is a set of answer files, and the spec says neither how they are named nor how they "
        "map to test cases (its own example submits programs)",
    ),
    Entry(P, "name", W, "the problem's name on the scoreboard and in `judge serve` (English first)"),
    Entry(P, "uuid", R, "a string; identifies the problem in archives"),
    Entry(P, "version", R, "a string"),
    Entry(P, "credits", R, "a person, a list of persons, or the spec's map of them"),
    Entry(P, "source", R, "a string, a map with `name` (and `url`), or a list of them"),
    Entry(P, "license", R, "one of the spec's licenses (checked)"),
    Entry(P, "rights_owner", R, "a string"),
    Entry(P, "embargo_until", R, "a date: the judge publishes no archive"),
    Entry(P, "limits", W, "see the `limits` rows"),
    Entry(P, "keywords", R, "a list of strings"),
    Entry(
        P,
        "languages",
        W,
        "a submission in another language is refused, not judged (not CE: the problem's rule); `judge verify` "
        "reports such example submissions as skipped",
    ),
    Entry(P, "allow_file_writing", W, "a writable working directory for submissions (default: read-only)"),
    Entry(
        P,
        "constants",
        W,
        'substituted where the spec says (see "Constants"); an undefined `{{name}}` there is a package error',
    ),
    Entry(L, "time_limit", W, "CPU seconds per test; a multiple of `time_resolution`"),
    Entry(L, "time_resolution", W, "the time limit when `time_limit` is absent (default 1 s)"),
    Entry(
        L,
        "time_multipliers",
        W,
        "`ac_to_time_limit`, `time_limit_to_tle`: `judge verify` checks the time limit against the slowest "
        "accepted and the fastest too-slow submission, and says the limit the spec's rule gives",
    ),
    Entry(L, "memory", W, "MiB per run"),
    Entry(L, "output", W, "MiB of output (stdout, stderr, files written)"),
    Entry(L, "code", W, "KiB of submitted files: a larger submission is refused, not judged"),
    Entry(L, "compilation_time", W, "the compiler's time limit is at least this (ours: 60 s)"),
    Entry(L, "compilation_memory", W, "the compiler's memory limit is at least this (ours: 2048 MiB)"),
    Entry(L, "validation_time", W, "the output validator's CPU limit (default 60 s)"),
    Entry(L, "validation_memory", W, "the output validator's memory limit (default 4096 MiB)"),
    Entry(L, "validation_output", W, "the output validator's output limit (default 256 MiB)"),
    Entry(L, "validation_passes", W, "multi-pass: the most passes a test may take"),
    Entry(G, "max_score", W, "the group's (or `secret`'s) maximum score"),
    Entry(
        G,
        "max_score: unbounded",
        X,
        "a contest needs each problem's maximum (the scoreboard's scale, what counts as solved): give a number",
    ),
    Entry(G, "score_aggregation", W, "`pass-fail`, `sum` or `min`"),
    Entry(G, "static_validation_score", W, "the group's static validation test case (its maximum, or `pass-fail`)"),
    Entry(G, "require_pass", W, "the group is judged only when these earlier groups (or `sample`) are accepted"),
    Entry(G, "args", W, "the submission's command-line arguments"),
    Entry(G, "input_validator_args", W, "a list for every input validator, or a map name -> list"),
    Entry(G, "static_validator_args", W, "the static validator's arguments"),
    Entry(G, "output_validator_args", W, "the output validator's arguments"),
    Entry(G, "input_visualizer_args", R, VISUALIZERS_NOT_RUN),
    Entry(G, "output_visualizer_args", R, VISUALIZERS_NOT_RUN),
    Entry(G, "full_feedback", R, "a boolean: `judge serve` shows teams the samples only, never a secret test"),
    Entry(C, "args", W, "the submission's command-line arguments for this test"),
    Entry(C, "input_validator_args", W, "as in `test_group.yaml`, for this test"),
    Entry(C, "output_validator_args", W, "as in `test_group.yaml`, for this test"),
    Entry(C, "input_visualizer_args", R, VISUALIZERS_NOT_RUN),
    Entry(C, "output_visualizer_args", R, VISUALIZERS_NOT_RUN),
    Entry(C, "full_feedback", R, "a boolean: `judge serve` shows teams the samples only, never a secret test"),
    Entry(C, "hint", R, "a string, for people"),
    Entry(C, "description", R, "a string, for people"),
    Entry(S, "language", W, "the submission's language, instead of its file extensions"),
    Entry(S, "entrypoint", W, "the file (or class) a folder submission runs"),
    Entry(S, "authors", R, "a person or a list of persons"),
    Entry(S, "model_solution", R, "a boolean"),
    Entry(S, "permitted", W, "every test's verdict is one of these"),
    Entry(S, "required", W, "some test's verdict is one of these"),
    Entry(S, "score", W, "the score, or a range"),
    Entry(S, "message", W, "a substring of some test's judge message"),
    Entry(
        S,
        "use_for_time_limit",
        W,
        "`lower`/`upper` stand for `permitted: [AC, WA, RTE]`/`required: [TLE]`; `false` leaves the "
        "submission out of `judge verify`'s time limit check",
    ),
    Entry(F, "problem.yaml", W, "see the problem.yaml rows"),
    Entry(
        F,
        "statement/",
        W,
        "Markdown is shown (constants substituted), LaTeX as its source; `judge serve` serves a PDF statement "
        "(the package's, or typeset with problem2pdf)",
    ),
    Entry(
        F,
        "attachments/",
        W,
        "`judge serve` offers the files at its top to the teams (the API's `attachments`, the problem page)",
    ),
    Entry(F, "solution/", R, "for people"),
    Entry(F, "data/sample/", W, "judged first, never scored; shown to teams"),
    Entry(F, "data/secret/", W, "the scored tests, with their groups"),
    Entry(F, "data/invalid_input/", W, "`judge verify`: some input validator must reject each input"),
    Entry(F, "data/invalid_output/", W, "`judge verify`: the output validator must reject each `.out`"),
    Entry(F, "data/valid_output/", W, "`judge verify`: the output validator must accept each `.out`"),
    Entry(F, "generators/", R, "not run (the spec: judges need not; the data is in `data/`)"),
    Entry(F, "include/", W, "`include/<language>/`, else `include/default/`, copied into every submission"),
    Entry(F, "submissions/", W, "`judge verify` judges each and checks what is expected of it"),
    Entry(F, "input_validators/", W, "programs in any language of the table; `judge verify` runs them on every test"),
    Entry(
        F,
        "input_validators/ (.ctd, .viva)",
        R,
        "Checktestdata and VIVA files need tools that are not part of the judge: `judge verify` says it did not "
        "run them",
    ),
    Entry(F, "static_validator/", W, "run on the submission's files for each static validation test case"),
    Entry(F, "output_validator/", W, "the program that judges each test"),
    Entry(F, "input_visualizer/", R, VISUALIZERS_NOT_RUN),
    Entry(F, "output_visualizer/", R, VISUALIZERS_NOT_RUN),
    Entry(F, "build, run (program folders)", W, "a validator folder with `build` and/or `run` is built and run so"),
    Entry(T, ".in", W, "the input"),
    Entry(T, ".ans", W, "the answer file (the output validator's)"),
    Entry(T, ".out", W, "`judge verify`: the output validator must accept it (non-interactive problems)"),
    Entry(T, ".files", W, "copied into the working directory of the submission and of the input validators"),
    Entry(T, ".yaml", W, "see the test case .yaml rows"),
    Entry(T, ".interaction", R, "samples are shown and downloaded as their `.in` and `.ans`"),
    Entry(T, ".in.statement", R, "samples are shown and downloaded as their `.in` and `.ans`"),
    Entry(T, ".ans.statement", R, "samples are shown and downloaded as their `.in` and `.ans`"),
    Entry(T, ".in.download", R, "samples are shown and downloaded as their `.in` and `.ans`"),
    Entry(T, ".ans.download", R, "samples are shown and downloaded as their `.in` and `.ans`"),
    Entry(T, ".png, .jpg, .jpeg, .svg", R, "illustrations, for people"),
)


def keys_of(place: Place) -> dict[str, Entry]:
    """The entries of ``place`` that are plain keys (not ``key: value`` rows), by key."""
    return {e.name: e for e in TABLE if e.place is place and ":" not in e.name}


def entry(place: Place, name: str) -> Entry:
    return next(e for e in TABLE if e.place is place and e.name == name)


def refusal(place: Place, name: str, where: str) -> PackageError:
    """The error for a refused entry: its name and the reason."""
    found = entry(place, name)
    return PackageError(f"{where}: `{name}` is not supported: {found.note} (docs/package-format.md)")


class Tracked(dict[str, Any]):
    """A settings mapping that remembers the keys read from it (``get``, ``[]``, ``in``)."""

    def __init__(self, data: Mapping[str, Any], where: str, warnings: tuple[str, ...] = ()) -> None:
        super().__init__(data)
        self.where = where
        self.read: set[str] = set()
        self.warnings = warnings  # what check_known said about it

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read.add(key)
        return super().__contains__(key)


def check_known(data: Mapping[str, Any], place: Place, where: str, *, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """2025-09: a refused key is an error, with the reason; an unknown one is a warning (returned). The spec
    says unknown keys "should be treated as an error"; the judge loads such a package and says so, because
    the format's own examples carry one (``source_url``, a legacy key). ``extra``: keys of ours allowed there."""
    known = keys_of(place)
    allowed = set(extra)
    warnings: list[str] = []
    for key in data:
        if key in allowed:
            continue
        found = known.get(str(key))
        if found is None:
            warnings.append(f"{where}: unknown key {key!r}, ignored (2025-09 knows: {', '.join(sorted(known))})")
        elif found.support is Support.REFUSED:
            raise refusal(place, found.name, where)
    return tuple(warnings)


def check_all_read(data: Tracked, place: Place, *, extra: Iterable[str] = ()) -> None:
    """Every key of the table (or ``extra``) present was read by the loader: one that was not is a key the
    table calls supported but the loader forgot (a bug of the judge, caught by tests/test_format_keys.py)."""
    known = set(keys_of(place)) | set(extra)
    unread = sorted(k for k in data if k in known and k not in data.read)
    if unread:
        raise PackageError(f"{data.where}: key {unread[0]!r} is known but the loader did not read it (a judge bug)")
