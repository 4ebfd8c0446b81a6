#!/usr/bin/env python3
"""Output validator for klondike (Kattis convention):

    validate.py input answer feedback_dir/ [args] < team_output      exit 42 = accept, 43 = reject

``solve n``: exactly n integers, each equal to the answer file's (the reference's optimal scores).

``stats N seed``: two numbers ``mean std`` (and at most two more, the optional mean numbers of moves and
decision points, which are not checked: they depend on which of many equivalent move orders is counted).
This is a statistical check: the program dealt its own N random deals, so its figures are estimates.
They are compared with the reference's high-precision values in reference_values.json (beside this file;
how they were computed is recorded there) and accepted when

    |mean - mu|    <= 4 * sqrt(sigma^2 / N + se_mu^2) + 0.01
    |std  - sigma| <= 4 * sqrt(v / N + se_sigma^2) + 0.01,    v = (m4 - sigma^4) / (4 sigma^2)

(m4 the 4th central moment: v / N is the variance of a std estimated from N deals). A right program is
rejected with probability well below 1e-3 per test (measured by resampling: see the package README).
The answer file of a stats test is only the reference's own estimate for that N and seed.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from reference import klondike as K

ACCEPT, REJECT = 42, 43
VALUES = Path(__file__).resolve().with_name("reference_values.json")


def reference_summary() -> K.Summary:
    v = json.loads(VALUES.read_text())
    return K.Summary(v["n"], v["mean"], v["std"], v["mean_se"], v["std_se"], v["fourth_central_moment"])


def judge_solve(n: int, answer: list[str], team: list[str]) -> tuple[bool, str]:
    if len(answer) != n:
        raise ValueError(f"answer file has {len(answer)} numbers for {n} deals")
    if len(team) != n:
        return False, f"expected {n} numbers (one per deal), got {len(team)} tokens"
    for i, (want, got) in enumerate(zip(answer, team), 1):  # noqa: B905 - pypy3 (Python 3.9): no strict=
        if not (got.isdigit() and len(got) <= 3):
            return False, f"deal {i}: {got[:20]!r} is not a score 0..52"
        if int(got) != int(want):
            return False, f"deal {i}: optimal score {want}, got {int(got)}"
    return True, f"all {n} optimal scores right"


def judge_stats(n: int, team: list[str]) -> tuple[bool, str]:
    if not 2 <= len(team) <= 4:
        return False, f"expected 'mean std' (and optionally two more numbers), got {len(team)} tokens"
    try:
        values = [float(t) for t in team]
    except ValueError:
        return False, "not a number: " + " ".join(t[:20] for t in team)
    if not all(math.isfinite(x) for x in values):
        return False, "not a finite number: " + " ".join(team)
    mean, std = values[0], values[1]
    ref = reference_summary()
    mean_tol, std_tol = K.stats_tolerance(n, ref)
    report = (
        f"N = {n}: mean {mean:.5f} vs reference {ref.mean:.5f} (|diff| {abs(mean - ref.mean):.5f}, "
        f"allowed {mean_tol:.5f}); std {std:.5f} vs reference {ref.std:.5f} "
        f"(|diff| {abs(std - ref.std):.5f}, allowed {std_tol:.5f})"
    )
    ok = abs(mean - ref.mean) <= mean_tol and abs(std - ref.std) <= std_tol
    return ok, report


def main() -> None:
    if len(sys.argv) < 4:
        print("usage: validate.py input answer feedback_dir [args] < team_output", file=sys.stderr)
        sys.exit(1)
    test_in, test_ans, feedback = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    words = test_in.read_text().split()
    team = sys.stdin.buffer.read().decode("ascii", errors="replace").split()  # the judge caps the size
    if words[0] == "solve":
        ok, message = judge_solve(int(words[1]), test_ans.read_text().split(), team)
    elif words[0] == "stats":
        ok, message = judge_stats(int(words[1]), team)
    else:
        raise ValueError(f"unknown test kind {words[0]!r}")
    (feedback / "judgemessage.txt").write_text(message + "\n")
    sys.exit(ACCEPT if ok else REJECT)


if __name__ == "__main__":
    main()
