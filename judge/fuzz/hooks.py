"""A package's fuzzing hooks: ``problems/<id>/fuzz.py``, loaded by path.

The module must define

- ``strategy() -> SearchStrategy[bytes]``: the bytes of valid test inputs (``.in`` files); for interactive
  problems, the hidden data the oracle reads;
- ``answer(test_input: bytes) -> bytes``: the ``.ans`` of such an input (the reference's answer).

and may define

- ``accepts(test_input: bytes, answer: bytes, output: bytes) -> bool``: an in-process stand-in for the
  package's output validator, for batch problems. ``output`` is what the validator would read as the team
  output (stdout, or ``"<status>\\n"`` for ``judge: {answer: exit_code}``). It must agree with the
  validator; ``judge fuzz`` uses it to skip a validator process per example and re-checks every
  counterexample with the real validator;
- ``EXPLAIN_TLE = True``: a time-out on an input of ``strategy()`` is the submission's fault (the strategy's
  inputs are small and the reference is fast on every one), so counterexamples for rejected submissions
  (`judge grade --explain`, docs/explain.md) are searched for TLE submissions too, and may be time-outs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judge.package.problem import PackageError, Problem

if TYPE_CHECKING:  # Hypothesis is imported when hooks are loaded: `judge grade` without --fuzz never needs it
    from hypothesis.strategies import SearchStrategy

HOOKS_FILE = "fuzz.py"

Accepts = Callable[[bytes, bytes, bytes], bool]


@dataclass(frozen=True)
class FuzzHooks:
    path: Path
    strategy: SearchStrategy[bytes]
    answer: Callable[[bytes], bytes]
    accepts: Accepts | None  # None: the package's validator judges every example
    digest: str  # of the file's contents, part of the example database key
    explain_tle: bool = False  # ``EXPLAIN_TLE``: a time-out on a generated input is a counterexample to show


def hooks_path(problem: Problem) -> Path:
    return problem.path / HOOKS_FILE


def load_hooks(problem: Problem) -> FuzzHooks | None:
    """The package's hooks, or None when it has no fuzz.py. Raises PackageError when fuzz.py is broken."""
    path = hooks_path(problem)
    if not path.is_file():
        return None
    from hypothesis.strategies import SearchStrategy  # (a fuzz.py imports Hypothesis anyway)

    source = path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    name = f"_judge_fuzz_hooks_{problem.id.replace('-', '_')}_{digest}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise PackageError(f"{path}: cannot be imported")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - the package's code: report it in one line
            raise PackageError(f"{path}: import failed: {type(exc).__name__}: {exc}") from None
        sys.modules[name] = module
    strategy_fn = getattr(module, "strategy", None)
    answer_fn = getattr(module, "answer", None)
    accepts_fn = getattr(module, "accepts", None)
    if not callable(strategy_fn) or not callable(answer_fn):
        raise PackageError(f"{path}: must define strategy() and answer(test_input)")
    if accepts_fn is not None and not callable(accepts_fn):
        raise PackageError(f"{path}: accepts must be a function")
    try:
        strategy = strategy_fn()
    except Exception as exc:  # noqa: BLE001
        raise PackageError(f"{path}: strategy() failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(strategy, SearchStrategy):
        raise PackageError(f"{path}: strategy() must return a Hypothesis strategy, not {type(strategy).__name__}")
    if accepts_fn is not None and (problem.interactive or problem.multi_pass):
        accepts_fn = None  # only batch problems have a single output to check in-process
    explain_tle = getattr(module, "EXPLAIN_TLE", False)
    if not isinstance(explain_tle, bool):
        raise PackageError(f"{path}: EXPLAIN_TLE must be True or False, not {explain_tle!r}")
    return FuzzHooks(path, strategy, answer_fn, accepts_fn, digest, explain_tle)
