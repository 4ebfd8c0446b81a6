"""Benchmark for `judge similarity` (issue 49): one problem, N submissions of about 100 lines (default 500),
generated here as variations of a few solution templates (never fetched code): each template is a program
of random functions (loops, conditions, arithmetic), and each submission takes one template, renames its
names, shuffles its functions, adds comments and a few functions of its own, and changes some constants. So
most pairs share something and the submissions of one template share much: the inverted index's worst case
among realistic ones.

Runs `judge similarity` as its own process (as an instructor would) and prints its wall time, its peak
resident memory (the child's ru_maxrss), how many pairs it scored in full and how many it reports.
Targets (issue 49): under 60 s and under 1 GiB on a 2-core machine.

    python3 bench/similarity.py [--submissions 500] [--templates 5] [--seed 1] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = "alpha beta gamma delta total count best left right value items acc step limit row col size seen tmp".split()


def _expr(rng: random.Random, names: list[str]) -> str:
    a, b, n = rng.choice(names), rng.choice(names), rng.randint(2, 97)
    return rng.choice(
        [
            f"{a} + {b} * {n}",
            f"({a} - {b}) % {n}",
            f"{a} // ({b} + {n})",
            f"max({a}, {b} - {n})",
            f"min({a} * {n}, {b})",
            f"abs({a} - {n}) ^ {b}",
            f"{a} << {rng.randint(1, 5)}",
            f"sum(xs[{a} % len(xs):]) if xs else {n}",
            f"len(str({a})) + {b}",
            f"({a} | {n}) & {b}",
        ]
    )


def _statement(rng: random.Random, v: list[str], depth: int) -> list[str]:
    pad = "    " * depth
    a, b = rng.choice(v), rng.choice(v)
    kind = rng.randrange(9)
    if kind == 0 and depth < 3:
        return [f"{pad}for i, x in enumerate(xs):", *_statement(rng, [*v, "x", "i"], depth + 1)]
    if kind == 1 and depth < 3:
        return [
            f"{pad}while {a} > {rng.randint(0, 50)}:",
            f"{pad}    {a} //= {rng.randint(2, 9)}",
            *_statement(rng, v, depth + 1),
        ]
    if kind == 2 and depth < 3:
        body = [f"{pad}if {a} % {rng.randint(2, 9)} == {rng.randint(0, 1)}:", *_statement(rng, v, depth + 1)]
        return body + ([f"{pad}else:", *_statement(rng, v, depth + 1)] if rng.random() < 0.5 else [])
    if kind == 3:
        return [f"{pad}{a} = [y * {rng.randint(2, 9)} for y in xs if y > {rng.randint(0, 20)}]", f"{pad}{a} = len({a})"]
    if kind == 4:
        m, d = rng.randint(3, 30), rng.randint(0, 9)
        return [f"{pad}seen = {{}}", f"{pad}for y in xs:", f"{pad}    seen[y % {m}] = seen.get(y, 0) + 1",
                f"{pad}{a} = max(seen.values(), default={d})"]  # fmt: skip
    if kind == 5:
        return [f"{pad}{a}, {b} = {b}, {_expr(rng, v)}"]
    if kind == 6:
        return [f"{pad}try:", f"{pad}    {a} = {b} // ({a} - {rng.randint(1, 9)})", f"{pad}except ZeroDivisionError:",
                f"{pad}    {a} = {rng.randint(0, 99)}"]  # fmt: skip
    if kind == 7:
        return [
            f"{pad}order = sorted(xs, key=lambda y: (y % {rng.randint(2, 11)}, -y))",
            f"{pad}{a} += order[0] if order else {b}",
        ]
    return [f"{pad}{a} = {_expr(rng, v)}"]


def _function(rng: random.Random, name: str) -> list[str]:
    """A function of about 10 lines over a list ``xs``."""
    v = rng.sample(["a", "b", "c", "d", "e", "f"], 3)
    lines = [f"def {name}(xs):", f"    {v[0]}, {v[1]}, {v[2]} = {rng.randint(0, 9)}, {rng.randint(1, 9)}, len(xs)"]
    while len(lines) < rng.randint(7, 12):
        lines += _statement(rng, v, 1)
    lines.append(f"    return {_expr(rng, v)}")
    return lines


def template(rng: random.Random, index: int) -> list[list[str]]:
    return [_function(rng, f"t{index}_f{k}") for k in range(rng.randint(5, 7))]


def _rename(lines: list[str], rng: random.Random, names: list[str]) -> list[str]:
    mapping = {n: f"{rng.choice(WORDS)}_{rng.randrange(1000)}" for n in names}
    out = []
    for line in lines:
        for old, new in mapping.items():
            line = line.replace(old, new)
        out.append(line)
    return out


def submission(rng: random.Random, templates: list[list[list[str]]]) -> str:
    funcs = [list(f) for f in rng.choice(templates) if rng.random() < 0.8]  # most of the template's functions
    own = rng.randrange(10**6)
    funcs += [_function(rng, f"own{own}_{k}") for k in range(rng.randint(1, 3))]  # and some of its own
    rng.shuffle(funcs)
    for f in funcs:  # a changed constant here and there
        if rng.random() < 0.3:
            i = rng.randrange(1, len(f))
            f[i] = f[i].replace("1", str(rng.randint(2, 9)), 1)
    names = [f[0][4:].split("(")[0] for f in funcs]
    body: list[str] = ['"""A solution."""', "import sys", ""]
    for f in funcs:
        if rng.random() < 0.5:
            body.append(f"# {rng.choice(WORDS)} {rng.choice(WORDS)}")
        body += f + ["", ""]
    body += ["xs = list(map(int, sys.stdin.read().split()))", f"print({' + '.join(n + '(xs)' for n in names[:3])})"]
    return "\n".join(_rename(body, rng, names)) + "\n"


def generate(dest: Path, n: int, n_templates: int, seed: int) -> tuple[Path, Path, int]:
    """The contest folder and a problems folder with the `sum` fixture package; the lines written."""
    rng = random.Random(seed)
    templates = [template(rng, t) for t in range(n_templates)]
    contest, problems = dest / "contest", dest / "problems"
    lines = 0
    for i in range(n):
        text = submission(rng, templates)
        lines += text.count("\n")
        (contest / f"c{i:04d}").mkdir(parents=True)
        (contest / f"c{i:04d}" / "sum.py").write_text(text)
    shutil.copytree(ROOT / "tests" / "fixtures" / "sum", problems / "sum", ignore=shutil.ignore_patterns("submissions"))
    return contest, problems, lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--submissions", type=int, default=500)
    ap.add_argument("--templates", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", type=Path, default=None, help="generate into DIR and keep it")
    args = ap.parse_args()
    dest = args.keep or Path(tempfile.mkdtemp(prefix="bench-similarity-"))
    try:
        contest, problems, lines = generate(dest, args.submissions, args.templates, args.seed)
        out = dest / "report"
        argv = [
            sys.executable,
            "-m",
            "judge",
            "similarity",
            str(contest),
            "--problems",
            str(problems),
            "--out",
            str(out),
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"judge similarity failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        peak_mib, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
        doc = json.loads((out / "similarity.json").read_text())
        (problem,) = doc["problems"]
        load = os.getloadavg()[0]
        print(
            f"{args.submissions} submissions, {lines / args.submissions:.0f} lines each on average, "
            f"{args.templates} templates"
        )
        print(f"wall {wall:.1f} s (target < 60 s), CPU {cpu:.1f} s, peak RSS {peak_mib:.0f} MiB (target < 1024 MiB)")
        print(f"load {load:.1f} on {os.cpu_count()} cores")
        print(
            f"{problem['compared']} pair(s) scored in full, {len(problem['pairs'])} listed (+{problem['more_pairs']} "
            f"more above the threshold), {len(problem['clusters'])} cluster(s)"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(dest, ignore_errors=True)


if __name__ == "__main__":
    main()
