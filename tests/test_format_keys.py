"""docs/package-format.md's table of every 2025-09 key and folder ("Every key and folder of 2025-09") is
judge/package/keys.py's TABLE, and the loader does what each row says.

For each key of problem.yaml, its ``limits``, ``test_group.yaml`` and a test case's ``.yaml``: a package
that sets it (to a value of ``EXAMPLES``) loads when the row says *works* or *read* — the loader tracks the
keys it reads and refuses a known key it did not read — and fails with a message naming it when the row
says *refused*. A row added to the table without an example here fails the test (``KeyError``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from judge.authoring.submissionsyaml import RULE_KEYS, SUBMISSION_KEYS, load_submissions_yaml
from judge.package.keys import TABLE, Entry, Place, Support
from judge.package.problem import PackageError, load_problem

DOCS = Path(__file__).parent.parent / "docs" / "package-format.md"

# A value of each key (``key: value`` rows give the value in their name).
EXAMPLES: dict[tuple[Place, str], Any] = {
    (Place.PROBLEM_YAML, "problem_format_version"): "2025-09",
    (Place.PROBLEM_YAML, "type"): "scoring",
    (Place.PROBLEM_YAML, "name"): {"en": "Keys"},
    (Place.PROBLEM_YAML, "uuid"): "8c1d0e2f-0000-4000-8000-000000000000",
    (Place.PROBLEM_YAML, "version"): "1.2",
    (Place.PROBLEM_YAML, "credits"): {"authors": ["A <a@example.com>"], "translators": {"sv": "S"}},
    (Place.PROBLEM_YAML, "source"): [{"name": "Contest", "url": "https://example.com"}, "Other"],
    (Place.PROBLEM_YAML, "license"): "cc by-sa",
    (Place.PROBLEM_YAML, "rights_owner"): "Someone",
    (Place.PROBLEM_YAML, "embargo_until"): "2030-01-01",
    (Place.PROBLEM_YAML, "limits"): {"memory": 512},
    (Place.PROBLEM_YAML, "keywords"): ["a", "b"],
    (Place.PROBLEM_YAML, "languages"): ["python3", "cpp"],
    (Place.PROBLEM_YAML, "allow_file_writing"): True,
    (Place.PROBLEM_YAML, "constants"): {"n": 5, "m": {"value": 1.5, "tex": "1.5"}},
    (Place.LIMITS, "time_limit"): 2,
    (Place.LIMITS, "time_resolution"): 0.5,
    (Place.LIMITS, "time_multipliers"): {"ac_to_time_limit": 3, "time_limit_to_tle": 2},
    (Place.LIMITS, "memory"): 256,
    (Place.LIMITS, "output"): 16,
    (Place.LIMITS, "code"): 64,
    (Place.LIMITS, "compilation_time"): 90,
    (Place.LIMITS, "compilation_memory"): 3072,
    (Place.LIMITS, "validation_time"): 30,
    (Place.LIMITS, "validation_memory"): 1024,
    (Place.LIMITS, "validation_output"): 32,
    (Place.LIMITS, "validation_passes"): 3,
    (Place.TEST_GROUP, "max_score"): 100,
    (Place.TEST_GROUP, "score_aggregation"): "sum",
    (Place.TEST_GROUP, "static_validation_score"): 10,
    (Place.TEST_GROUP, "require_pass"): "sample",
    (Place.TEST_GROUP, "args"): ["--fast"],
    (Place.TEST_GROUP, "input_validator_args"): {"validate": ["x"]},
    (Place.TEST_GROUP, "static_validator_args"): ["strict"],
    (Place.TEST_GROUP, "output_validator_args"): ["exact"],
    (Place.TEST_GROUP, "input_visualizer_args"): ["big"],
    (Place.TEST_GROUP, "output_visualizer_args"): ["big"],
    (Place.TEST_GROUP, "full_feedback"): True,
    (Place.TEST_CASE, "args"): ["--slow"],
    (Place.TEST_CASE, "input_validator_args"): ["y"],
    (Place.TEST_CASE, "output_validator_args"): ["loose"],
    (Place.TEST_CASE, "input_visualizer_args"): ["small"],
    (Place.TEST_CASE, "output_visualizer_args"): ["small"],
    (Place.TEST_CASE, "full_feedback"): False,
    (Place.TEST_CASE, "hint"): "think",
    (Place.TEST_CASE, "description"): "the smallest case",
    (Place.SUBMISSIONS, "language"): "python3",
    (Place.SUBMISSIONS, "entrypoint"): "main.py",
    (Place.SUBMISSIONS, "authors"): [{"name": "B", "orcid": "0000-0001-0000-0000"}],
    (Place.SUBMISSIONS, "model_solution"): True,
    (Place.SUBMISSIONS, "permitted"): ["AC"],
    (Place.SUBMISSIONS, "required"): ["AC"],
    (Place.SUBMISSIONS, "score"): [0, 100],
    (Place.SUBMISSIONS, "message"): "ok",
    (Place.SUBMISSIONS, "use_for_time_limit"): False,
}
KEY_PLACES = (Place.PROBLEM_YAML, Place.LIMITS, Place.TEST_GROUP, Place.TEST_CASE)


def docs_rows() -> list[tuple[str, str, str]]:
    """(where, name, here) of the docs' table."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Every key and folder of 2025-09", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|]+?) \| `([^`]+)` \| (works|read|refused) \| .+ \|$", section, re.M)
    return [(w.strip(), n, h) for w, n, h in rows]


def test_the_docs_table_is_the_loaders_table() -> None:
    assert docs_rows() == [(e.place.value, e.name, e.support.value) for e in TABLE]
    assert not [e for e in TABLE if "not yet" in e.note.lower()]


def test_every_spec_key_of_submissions_yaml_is_read() -> None:
    assert {e.name for e in TABLE if e.place is Place.SUBMISSIONS} == RULE_KEYS | SUBMISSION_KEYS


def package(root: Path, entry: Entry) -> Path:
    """A 2025-09 scoring package with a static validator, two groups, and ``entry`` set."""
    problem: dict[str, Any] = {"problem_format_version": "2025-09", "name": "Keys", "uuid": "x", "type": "scoring"}
    secret: dict[str, Any] = {}
    group: dict[str, Any] = {"max_score": 100, "score_aggregation": "sum"}
    case: dict[str, Any] = {}
    key, _, value = entry.name.partition(": ")
    example = yaml.safe_load(value) if value else EXAMPLES[(entry.place, key)]
    if entry.place is Place.PROBLEM_YAML:
        problem[key] = ["pass-fail", example] if value else example
    elif entry.place is Place.LIMITS:
        problem["limits"] = {key: example}
    elif entry.place is Place.TEST_GROUP:
        group[key] = example
        if key == "static_validator_args":
            group["static_validation_score"] = 10
    else:
        case[key] = example
    files = {
        "problem.yaml": problem,
        "data/secret/test_group.yaml": secret,
        "data/secret/g/test_group.yaml": group,
        "data/secret/g/1.yaml": case,
    }
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(yaml.safe_dump(data))
    for rel, text in {
        "data/sample/1.in": "1\n",
        "data/sample/1.ans": "1\n",
        "data/secret/g/1.in": "1\n",
        "data/secret/g/1.ans": "1\n",
        "static_validator/check.py": "import sys\nsys.exit(42)\n",
        "input_validators/validate.py": "import sys\nsys.exit(42)\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize("entry", [e for e in TABLE if e.place in KEY_PLACES], ids=lambda e: f"{e.place}:{e.name}")
def test_the_loader_does_what_the_table_says(tmp_path: Path, entry: Entry) -> None:
    root = package(tmp_path / "keys", entry)
    if entry.support is Support.REFUSED:
        with pytest.raises(PackageError, match=re.escape(entry.name)):
            load_problem(root)
        return
    problem = load_problem(root)
    assert not problem.warnings, problem.warnings  # known, and read


@pytest.mark.parametrize("entry", [e for e in TABLE if e.place is Place.SUBMISSIONS], ids=lambda e: e.name)
def test_submissions_yaml_takes_every_key(tmp_path: Path, entry: Entry) -> None:
    (tmp_path / "submissions").mkdir()
    body = {entry.name: EXAMPLES[(entry.place, entry.name)]}
    (tmp_path / "submissions" / "submissions.yaml").write_text(yaml.safe_dump({"accepted/x.py": body}))
    assert load_submissions_yaml(tmp_path).matching("accepted/x.py") == [("accepted/x.py", body)]
