"""A second shrinking stage on the input itself: smaller integers, token by token.

Hypothesis shrinks the *choices* a strategy made, which can get stuck where the strategy's notion of
"simple" is not the input's (a run of 12 cards that starts at number 3 is simpler, to a strategy that
draws the start first, than a run of 3 that starts at 12). This stage then tries, for each integer
token of the input, 0, half of it and one step towards 0, and keeps every change after which the input
is still valid (the package's input validators accept it) and the submission still disagrees with the
reference. It needs at least one input validator: without one, validity cannot be checked.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

from judge.fuzz.trial import Examiner, HookError, Trial
from judge.judging.inputcheck import InputValidator
from judge.judging.verdict import Verdict

_TOKEN = re.compile(rb"(\s+)")
_INTEGER = re.compile(rb"[+-]?[0-9]+")


@dataclass(frozen=True)
class Found:
    test_input: bytes
    answer: bytes
    trial: Trial


def _smaller(token: bytes) -> Iterator[bytes]:
    """0, half, one step: each strictly closer to 0 than the token's value."""
    value = int(token)
    sign = 1 if value > 0 else -1
    seen = {value}
    for v in (0, sign * (abs(value) // 2), value - sign):
        if v not in seen and abs(v) < abs(value):
            seen.add(v)
            yield str(v).encode()


def shrink_tokens(
    examiner: Examiner, validators: tuple[InputValidator, ...], found: Found, deadline: float
) -> tuple[Found, int]:
    """The smallest disagreement reachable by greedy integer steps, and the program runs it took."""
    if not validators:
        return found, 0
    runs = 0
    best = found

    def valid(test_input: bytes) -> bool:
        return all(v.check(test_input, examiner.runner, examiner.workdir) is None for v in validators)

    changed = True
    while changed:  # passes over the tokens until one changes nothing
        changed = False
        parts = _TOKEN.split(best.test_input)
        for i in range(len(parts)):
            retry = True
            while retry and _INTEGER.fullmatch(parts[i]):  # the same token again after each success
                retry = False
                for candidate in _smaller(parts[i]):
                    if time.monotonic() >= deadline:
                        return best, runs
                    test_input = b"".join(parts[:i] + [candidate] + parts[i + 1 :])
                    if not valid(test_input):
                        continue
                    try:
                        answer = examiner.answer(test_input)
                    except HookError:
                        continue  # fuzz.py cannot answer it: not an input it knows how to make
                    trial = examiner.judge(test_input, answer)
                    runs += 1
                    if trial.verdict is not Verdict.JE and examiner.disagrees(test_input, trial):
                        best, parts[i] = Found(test_input, answer, trial), candidate
                        changed = retry = True
                        break
    return best, runs
