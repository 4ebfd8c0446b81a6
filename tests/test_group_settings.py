"""Test group settings and what subgroups inherit (judge/package/testgroups.py, GroupSettings.inherit).

Legacy and 2023-07 packages: a group inherits every setting of its parent that it does not give itself
(data/testdata.yaml counts as the parent of data/sample and data/secret); 2025-09 packages: only the
arguments. Arguments a group gives replace those it would inherit (Kattis).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.package.problem import load_problem
from judge.package.testgroups import GroupRules, GroupSettings, PackageError, ScoreAggregation

LEGACY = GroupRules(
    files=("testdata.yaml",), inherit=True, score_files_absolute=False, default_aggregation_subgroups="min"
)
V2025 = GroupRules(
    files=("test_group.yaml",), inherit=False, score_files_absolute=True, default_aggregation_subgroups="pass-fail"
)


def package(root: Path, files: dict[str, str]) -> Path:
    """A package with one test in each of ``data/secret/g1`` and ``data/secret/g2`` and the given files."""
    files = {"problem.yaml": "name: groups\ntype: scoring\n", **files}
    for group in ("g1", "g2"):
        files.setdefault(f"data/secret/{group}/1.in", "1\n")
        files.setdefault(f"data/secret/{group}/1.ans", "1\n")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_map_of_input_validator_arguments_reaches_the_subgroups(tmp_path: Path) -> None:
    # The map used to be handed down as tuples and parsed again as YAML, which refused it.
    root = package(tmp_path, {"data/secret/testdata.yaml": "input_validator_args:\n  validate: [a, b]\n"})
    problem = load_problem(root)
    for name in ("secret", "secret/g1", "secret/g2"):
        group = problem.group(name)
        assert group.input_validator_args_by_name == {"validate": ("a", "b")}, name
        assert group.input_args_for("validate") == ("a", "b") and group.input_args_for("other") == ()


def test_legacy_subgroups_inherit_what_they_do_not_give(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        {
            "data/testdata.yaml": "on_reject: break\noutput_validator_flags: float_tolerance 1e-6\n",
            "data/secret/testdata.yaml": "grader_flags: avg\ninput_validator_args: [x]\n",
            "data/secret/g2/testdata.yaml": "output_validator_args: [exact]\nscore_aggregation: min\n",
        },
    )
    problem = load_problem(root)
    secret, g1, g2 = (problem.group(n) for n in ("secret", "secret/g1", "secret/g2"))
    assert [g.on_reject_break for g in (secret, g1, g2)] == [True, True, True]  # data/'s, not the scoring default
    assert secret.validator_args == g1.validator_args == ("float_tolerance", "1e-6")
    assert g2.validator_args == ("exact",)  # its own replace the inherited ones
    assert g1.input_validator_args == g2.input_validator_args == ("x",)
    assert (secret.aggregation, g1.aggregation, g2.aggregation) == (
        ScoreAggregation.AVG,
        ScoreAggregation.AVG,
        ScoreAggregation.MIN,
    )


def test_2025_09_subgroups_inherit_the_arguments_only(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        {
            "problem.yaml": "problem_format_version: 2025-09\nname: groups\ntype: scoring\n",
            "data/secret/test_group.yaml": "on_reject: break\nscore_aggregation: min\nargs: [--fast]\n",
            "data/secret/g1/test_group.yaml": "max_score: 50\n",
            "data/secret/g2/test_group.yaml": "max_score: 50\noutput_validator_args: [exact]\n",
        },
    )
    problem = load_problem(root)
    secret, g1, g2 = (problem.group(n) for n in ("secret", "secret/g1", "secret/g2"))
    assert (secret.on_reject_break, g1.on_reject_break) == (True, False)  # the scoring default: continue
    assert (secret.aggregation, g1.aggregation) == (ScoreAggregation.MIN, ScoreAggregation.PASS_FAIL)
    assert secret.args == g1.args == g2.args == ("--fast",)
    assert (g1.validator_args, g2.validator_args) == ((), ("exact",))


def test_the_inherit_step(tmp_path: Path) -> None:
    scoring = GroupSettings.of_problem(scoring=True)
    assert (scoring.default_aggregation, scoring.default_on_reject) == ("sum", "continue")
    secret = scoring.inherit({"on_reject": "break", "args": "a b"}, tmp_path, "secret", LEGACY)
    assert (secret.aggregation, secret.on_reject, secret.args, secret.on_reject_break) == (
        "sum",
        "break",
        ("a", "b"),
        True,
    )
    child = secret.inherit({}, tmp_path, "secret/g", LEGACY)
    assert (child.aggregation, child.on_reject, child.args) == ("sum", "break", ("a", "b"))
    child = secret.inherit({}, tmp_path, "secret/g", V2025)
    assert (child.aggregation, child.on_reject, child.args) == ("pass-fail", None, ("a", "b"))
    assert not child.on_reject_break
    for own, needle in [
        ({"on_reject": "stop"}, "on_reject must be break or continue"),
        ({"score_aggregation": "max"}, "not 'max'"),
    ]:
        with pytest.raises(PackageError, match=needle):
            scoring.inherit(own, tmp_path, "secret", LEGACY)
