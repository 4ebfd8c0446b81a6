"""`judge verify`'s checks of the validators themselves on the 2025-09 validation data.

- ``data/invalid_input/``: some input validator must reject each ``.in``;
- ``data/invalid_output/``: the output validator (or the default comparison) must reject each ``.out``,
  given its ``.in`` and ``.ans``;
- ``data/valid_output/``, and the ``.out`` files of ``data/sample/``: it must accept each.

The output checks apply to non-interactive, non-multi-pass problems only (as the spec says). Arguments come
from the folder's ``test_group.yaml`` and the case's ``.yaml`` (``input_validator_args``,
``output_validator_args``). Input validator files in a format the judge cannot run (Checktestdata
``.ctd``, VIVA ``.viva``) are reported as not run. See docs/package-format.md.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.judging.build import Program
from judge.judging.checker import FlagError, check, parse_flags
from judge.judging.environment import Environment
from judge.judging.feedback import ValidatorCall, decide, validator_limits, validator_spec
from judge.judging.inputcheck import input_problem
from judge.judging.submission import Prepared
from judge.judging.verdict import Verdict
from judge.package.formats import FormatVersion
from judge.package.problem import INPUT_VALIDATOR_FOLDERS, Problem, program_name
from judge.package.testgroups import input_args, parse_args, read_yaml

FOREIGN_FORMATS = {".ctd": "Checktestdata", ".viva": "VIVA"}


@dataclass(frozen=True)
class InputCheck:
    """One check of a validator on one input (or output): ``test`` passed ``ok`` or not, and why."""

    test: str
    validator: str
    ok: bool
    message: str


@dataclass(frozen=True)
class Built:
    """An input validator of the package, built."""

    path: Path
    program: Program


@dataclass(frozen=True)
class Case:
    """A case of the validation data: ``kind/name`` and its files."""

    kind: str  # invalid_input, invalid_output, valid_output, sample
    name: str
    input_path: Path
    answer_path: Path | None
    output_path: Path | None
    settings: dict[str, Any]  # its folder's test_group.yaml, then its own .yaml on top


def _settings(problem: Problem, folder: Path, case_in: Path) -> dict[str, Any]:
    """The folder's test_group.yaml (its constants substituted), then the case's own .yaml on top."""
    merged: dict[str, Any] = {}
    group = folder / "test_group.yaml"
    if group.is_file():
        v2025 = problem.format_version is FormatVersion.V2025_09
        merged.update(read_yaml(group, problem.constants.substitute if v2025 else None))
    if case_in.with_suffix(".yaml").is_file():
        merged.update(read_yaml(case_in.with_suffix(".yaml")))
    return merged


def cases(problem: Problem, kinds: Sequence[str]) -> list[Case]:
    """The validation data of ``kinds`` (``sample``: the samples that have an ``.out``)."""
    data = problem.path / "data"
    out: list[Case] = []
    for kind in kinds:
        base = data / kind
        if not base.is_dir():
            continue
        for case_in in sorted(base.rglob("*.in")):
            ans, produced = case_in.with_suffix(".ans"), case_in.with_suffix(".out")
            if kind == "sample" and not produced.is_file():
                continue
            out.append(
                Case(
                    kind,
                    case_in.relative_to(data).with_suffix("").as_posix(),
                    case_in,
                    ans if ans.is_file() else None,
                    produced if produced.is_file() else None,
                    _settings(problem, case_in.parent, case_in),
                )
            )
    return out


def _invalid_input(case: Case, validators: Sequence[Built], env: Environment, workdir: Path) -> InputCheck:
    if not validators:
        return InputCheck(case.name, "input validators", True, "no input validator to reject it")
    plain, by_name = input_args(case.settings.get("input_validator_args"), f"data/{case.name}")
    for v in validators:
        args = by_name.get(program_name(v.path), ()) if by_name else plain
        if input_problem(v.program, case.input_path, args, env.runner, workdir) is not None:
            return InputCheck(case.name, v.path.name, True, "")
    return InputCheck(case.name, "input validators", False, "every input validator accepts this invalid input")


def _output_verdict(prepared: Prepared, case: Case, env: Environment, workdir: Path) -> tuple[Verdict, str]:
    """What the output validator (or the default comparison) says of the case's ``.out``."""
    assert case.output_path is not None
    args = prepared.problem.validator_args + parse_args(case.settings.get("output_validator_args"), case.name)
    if prepared.validator is None:
        try:
            flags = parse_flags(args)
        except FlagError as exc:
            return Verdict.JE, str(exc)
        expected = case.answer_path.read_bytes() if case.answer_path is not None else b""
        said = check(expected, case.output_path.read_bytes(), flags)
        return (Verdict.AC if said.accepted else Verdict.WA), said.message
    feedback = workdir / "feedback"
    shutil.rmtree(feedback, ignore_errors=True)
    feedback.mkdir(parents=True)
    answer = case.answer_path
    if answer is None:
        answer = workdir / "empty.ans"
        answer.touch()
    call = ValidatorCall(
        input_path=case.input_path,
        answer_path=answer,
        feedback_dir=feedback,
        args=args,
        team_output=case.output_path,
        log=workdir / "validator.log",
        limits=validator_limits(prepared.problem),
    )
    judgement = decide(env.runner.run(validator_spec(prepared.validator, call)), feedback, call.log)
    return judgement.verdict, judgement.message


def _output_check(prepared: Prepared, case: Case, env: Environment, workdir: Path) -> InputCheck:
    if case.output_path is None:
        return InputCheck(case.name, "output validator", False, "no .out beside the .in")
    verdict, message = _output_verdict(prepared, case, env, workdir)
    want_accept = case.kind != "invalid_output"
    if verdict is Verdict.JE:
        return InputCheck(case.name, "output validator", False, f"judge error: {message}")
    ok = (verdict is Verdict.AC) == want_accept
    wanted = "accept" if want_accept else "reject"
    return InputCheck(case.name, "output validator", ok, "" if ok else f"it should {wanted} this .out: {message}")


def foreign_validators(problem: Problem) -> list[InputCheck]:
    """Input validator files in a format the judge does not run (Checktestdata, VIVA): reported, not failed."""
    out: list[InputCheck] = []
    for folder in INPUT_VALIDATOR_FOLDERS:
        base = problem.path / folder
        for f in sorted(base.iterdir()) if base.is_dir() else []:
            kind = FOREIGN_FORMATS.get(f.suffix.lower())
            if kind is not None:
                why = f"not run: {kind} files need tools that are not part of the judge"
                out.append(InputCheck("*", f.name, True, why))
    return out


def check_validation_data(
    prepared: Prepared, validators: Sequence[Built], env: Environment, workdir: Path
) -> list[InputCheck]:
    """The validators on the validation data (see the module's doc), and the validators not run."""
    problem = prepared.problem
    workdir.mkdir(parents=True, exist_ok=True)
    out = foreign_validators(problem)
    for case in cases(problem, ["invalid_input"]):
        out.append(_invalid_input(case, validators, env, workdir))
    if problem.interactive or problem.multi_pass or prepared.error is not None:
        return out
    for case in cases(problem, ["invalid_output", "valid_output", "sample"]):
        out.append(_output_check(prepared, case, env, workdir))
    return out
