#!/usr/bin/env python3
"""Writes the test data of problem ``memory`` (fixed seeds: running it again gives the same bytes).

``gen.py [DATA_DIR]`` (default: the package's ``data/``). Both subtasks judge the same tests:
``data/secret/candies`` (30 points, oracle argument ``candies``) and ``data/secret/flips`` (70 points,
``flips``). Each ``.ans`` holds the number of flips the reference strategy needs on the test (against the
adversary too: both are deterministic); the oracle only logs it.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from reference.memory import LETTERS, SEED_WORST, TestSpec, play, random_layout, simulate
from reference.memory_adversary import AdversaryDealer, dealer_for

RANDOM_SEEDS = tuple(range(101, 111))  # 10 random layouts per group: the metric is their mean
SAMPLE_SEED = 2010


def fixed_layouts() -> dict[str, str]:
    """Layouts chosen by hand: easy, hard for the seed's strategies, hard for readers of the statement."""
    # The layout the adversary (tie-break "random", seed 3) builds against the reference: a 98-flip case
    # of another shape than the seed's.
    _, game = simulate(play, AdversaryDealer("random", 3))
    return {
        "sorted": "".join(letter * 2 for letter in LETTERS),  # every 1st turn is a pair: 50 flips
        "seed-worst": SEED_WORST,  # the seed's worst case for its improved strategy (98)
        "seed-worst-reversed": SEED_WORST[::-1],  # the same for right-to-left players
        "alphabet-twice": LETTERS + LETTERS,  # naive: 100
        "mirror": LETTERS + LETTERS[::-1],
        "shifted": LETTERS[0] + "".join(letter * 2 for letter in LETTERS[1:]) + LETTERS[0],  # naive: 100
        "greedy-worst": game.layout_so_far(),
    }


def secret_specs() -> list[tuple[str, TestSpec]]:
    specs = []
    for index, seed in enumerate(RANDOM_SEEDS, 1):
        specs.append((f"{index:02d}-random", TestSpec("random", str(seed), random_layout(random.Random(seed)))))
    for index, (name, layout) in enumerate(fixed_layouts().items(), len(specs) + 1):
        specs.append((f"{index:02d}-{name}", TestSpec("fixed", name, layout)))
    for index, (tiebreak, seed) in enumerate((("oldest", 1), ("newest", 2), ("random", 3)), len(specs) + 1):
        specs.append((f"{index:02d}-adversary-{tiebreak}", TestSpec("adversary", tiebreak, seed=seed)))
    return specs


def reference_flips(spec: TestSpec) -> int:
    outcome, _ = simulate(play, dealer_for(spec))
    assert outcome.over
    return outcome.flips


ROOT_TESTDATA = """\
# Kattis grading (problemtools reads testdata.yaml for 2023-07 packages; see docs/package-format.md): the
# problem's score is data/secret's, samples are judged but not scored, a rejected sample stops nothing.
on_reject: continue
grader_flags: ignore_sample first_error
range: 0 100
"""
SAMPLE_TESTDATA = """\
# samples: judged, never scored (data/testdata.yaml ignores them)
grader_flags: min first_error
"""
SECRET_TESTDATA = "# the problem's score: the sum of the two groups'\nrange: 0 100\ngrader_flags: sum first_error\n"
GROUPS = {
    "candies": "range: 0 30\naccept_score: 30\ngrader_flags: min first_error\non_reject: break\n"
    "output_validator_flags: candies\n",
    "flips": "range: 0 70\naccept_score: 70\ngrader_flags: min first_error\non_reject: break\n"
    "output_validator_flags: flips\n",
}


def write_case(folder: Path, name: str, spec: TestSpec) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.in").write_text(spec.render())
    (folder / f"{name}.ans").write_text(f"{reference_flips(spec)}\n")


def main(argv: list[str]) -> int:
    data = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "data"
    sample = TestSpec("random", str(SAMPLE_SEED), random_layout(random.Random(SAMPLE_SEED)))
    write_case(data / "sample", "1", sample)
    (data / "testdata.yaml").write_text(ROOT_TESTDATA)
    (data / "sample" / "testdata.yaml").write_text(SAMPLE_TESTDATA)
    (data / "secret").mkdir(parents=True, exist_ok=True)
    (data / "secret" / "testdata.yaml").write_text(SECRET_TESTDATA)
    specs = secret_specs()
    for group, settings in GROUPS.items():
        folder = data / "secret" / group
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "testdata.yaml").write_text(settings)
        for name, spec in specs:
            write_case(folder, name, spec)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
