"""What, besides the source and the package, a stored verdict depends on: the judge's version and the
toolchains' fingerprints. `judge grade` keys its results with them; a cluster worker checks that it judges
under exactly the identity the coordinator keys its results with (judge/cluster/)."""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Callable, Mapping
from pathlib import Path

import judge
from judge.judging.environment import Environment
from judge.languages.table import Language, package_program_language
from judge.package.problem import Problem

# The judge's files whose change can change a verdict, as patterns relative to the judge package's folder: their
# bytes make the judge version (docs/grading.md, "What a stored result depends on"). Everything else of judge/
# (commands, serve, grade, cluster, scoreboard, authoring, fuzz, the templates) cannot change a verdict: editing it
# re-judges nothing. Fuzz outcomes are keyed with the judge version plus a hash of judge/fuzz (grade/fuzzing.py).
VERDICT_FILES = (
    "runner/**/*.py",  # how programs run: the sandbox, limits, measurements, the interactive plumbing
    "runner/**/*.c",  # the helper and box server compiled into the sandbox
    "runner/**/*.h",
    "languages/**/*.py",  # how languages.toml is read and its commands expanded (languages.toml itself: below)
    "package/**/*.py",  # how a package is read: its tests, groups, limits, validator flags, extensions
    "judging/**/*.py",  # the rules: build, problem types, output validators, the default checker, scoring; and
    # the input validators' runs (inputcheck.py), which fuzz outcomes (keyed on the judge version) depend on
)
# languages.toml is not here: each language's definition is part of its toolchain hash (languages/fingerprint.py),
# so editing one language re-judges that language's submissions only, and a comment re-judges nothing.
NOT_VERDICT_FILES = (
    # the keys themselves: a change that changes a key re-judges by itself, any other change needs no re-judge
    "judging/identity.py",
    "languages/fingerprint.py",
    "package/deps.py",
    # who judges (threads or a cluster), the sandbox self-test, `judge doctor`'s and setup's language lists,
    # `judge export`
    "judging/judges.py",
    "judging/selftest.py",
    "languages/status.py",
    "languages/__main__.py",
    "package/export.py",
    # `judge serve`'s printing (a team's print-out to the organizer's printer), and its statements (a package's
    # PDF and attachments for the contestants; a PDF typeset with problemtools)
    "runner/printer.py",
    "runner/typeset.py",
    "package/statements.py",
)
JUDGE_ROOT = Path(judge.__file__).parent


def verdict_files(root: Path = JUDGE_ROOT) -> list[Path]:
    """The files of the judge package at ``root`` whose bytes make the judge version, sorted."""
    found = {p for pattern in VERDICT_FILES for p in root.glob(pattern) if p.is_file()}
    excluded = {root / name for name in NOT_VERDICT_FILES}
    return sorted(p for p in found - excluded if "__pycache__" not in p.relative_to(root).parts)


def judge_version(env: Environment, root: Path = JUDGE_ROOT) -> str:
    """``<version>+<hash of the verdict files and the interpreter>/<sandbox backend>``: a stored result is
    reused only under the same judging code (``VERDICT_FILES`` of the judge package at ``root``), the same
    Python (validators run on it) and the same kind of sandbox."""
    h = hashlib.sha256()
    for p in verdict_files(root):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    h.update(f"{env.tools.python}\0{platform.python_version()}\0{platform.python_build()}".encode())
    return f"{judge.__version__}+{h.hexdigest()[:12]}/{env.runner.info.backend}"


def toolchain_hash(
    language: str, problem: Problem, languages: Mapping[str, Language], fingerprint: Callable[[str], str]
) -> str:
    """The fingerprints of the submission's language and, when the package's output validator is built, of
    the validator's (one that runs in place, e.g. on the judge's own Python, is part of ``judge_version``)."""
    first, *validators = toolchain_languages(language, problem, languages)
    return "/".join([fingerprint(first), *(f"{lang}:{fingerprint(lang)}" for lang in validators)])


def toolchain_languages(language: str, problem: Problem, languages: Mapping[str, Language]) -> tuple[str, ...]:
    """The languages whose toolchains judging a ``language`` submission of ``problem`` uses: the
    submission's, then the output validator's when it is built (not run in place: see ``trusted_run``)."""
    validator = problem.output_validator
    lang = package_program_language(validator, languages) if validator is not None else None
    if lang is not None and not lang.trusted_run:
        return (language, lang.id)
    return (language,)
