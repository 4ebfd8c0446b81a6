"""Similar submissions (issue 49, docs/similarity.md): the engine on fixtures of our own (a program and its
renamed, reordered and re-commented copies found; two independent solutions not flagged; code everyone was
given not counted; an earlier term's copy found without comparing the earlier terms among themselves;
clusters of three; languages apart), the report's JSON and HTML, and `judge similarity` / `judge grade
--similarity` through the command line, on the demo contest too (its planted copy ranked first)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judge.package.problem import load_problem
from judge.similarity.boilerplate import given_code, statement_code
from judge.similarity.compare import _score, compare_problem, shared_positions
from judge.similarity.fingerprint import Params, covered, kgram_hashes
from judge.similarity.model import DEFAULT_THRESHOLD, REPORT_VERSION, Settings, Source
from judge.similarity.run import problem_report

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SIM = FIXTURES / "similarity"
ORIGINAL = (SIM / "original.py").read_text()
INDEPENDENT = (SIM / "independent.py").read_text()
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"  # the sum fixture's accepted program
NO_BOILERPLATE = lambda language: np.zeros(0, dtype=np.int64)  # noqa: E731


def src(owner: str, text: str, name: str = "grid.py", term: str | None = None, problem: str = "grid") -> Source:
    sid = f"{owner}/{name}" if term is None else f"{term}/{owner}/{name}"
    return Source(sid, owner, problem, ((name, text),), term, f"{owner}/{name}")


def pairs_of(sources: list[Source], **kw: Any) -> list[tuple[str, str, float]]:
    report = compare_problem("grid", sources, Settings(**kw), NO_BOILERPLATE)
    return [(p.a.owner, p.b.owner, p.score) for p in report.pairs]


@pytest.mark.parametrize("copy", ["renamed.py", "reordered.py", "comments.py"])
def test_a_disguised_copy_is_found(copy: str) -> None:
    text = (SIM / copy).read_text()
    assert text != ORIGINAL
    found = pairs_of([src("ann", ORIGINAL), src("bob", text), src("cy", INDEPENDENT)])
    assert [(a, b) for a, b, _ in found] == [("ann", "bob")], found
    assert found[0][2] >= 0.85, found  # far above the threshold, not just over it


def test_a_renamed_copy_is_the_same_program_to_the_engine() -> None:
    report = compare_problem(
        "grid", [src("ann", ORIGINAL), src("bob", (SIM / "renamed.py").read_text())], Settings(), NO_BOILERPLATE
    )
    (pair,) = report.pairs
    assert pair.a.similarity == pair.b.similarity == 1.0
    assert {r.file for r in pair.a.regions} == {"grid.py"} and pair.a.regions[0].first_line <= 7


def test_two_independent_solutions_are_not_flagged_at_the_default_threshold() -> None:
    report = compare_problem("grid", [src("ann", ORIGINAL), src("cy", INDEPENDENT)], Settings(), NO_BOILERPLATE)
    assert report.pairs == ()
    low = compare_problem("grid", [src("ann", ORIGINAL), src("cy", INDEPENDENT)], Settings(0.01), NO_BOILERPLATE)
    assert all(p.score < DEFAULT_THRESHOLD / 2 for p in low.pairs), low.pairs


def _stub_package(tmp_path: Path) -> Path:
    """The `sum` fixture with a big helper module every contestant is given (include/python3/)."""
    pkg = tmp_path / "problems" / "grid"
    shutil.copytree(FIXTURES / "sum", pkg, ignore=shutil.ignore_patterns("submissions"))
    (pkg / "include" / "python3").mkdir(parents=True)
    helper = ORIGINAL.split("def shortest")[0]  # read_grid, find, neighbours: most of the program
    (pkg / "include" / "python3" / "gridlib.py").write_text(helper)
    return pkg


def test_code_everyone_was_given_is_not_counted(tmp_path: Path) -> None:
    pkg = _stub_package(tmp_path)
    helper = (pkg / "include" / "python3" / "gridlib.py").read_text()
    mine = helper + "\n\n" + ORIGINAL.split("def shortest")[1].join(["def shortest", ""])
    theirs = helper + "\n\n" + INDEPENDENT
    sources = [src("ann", mine), src("cy", theirs)]
    # without the package, the pasted helper alone makes them look alike: the test can fail
    assert problem_report(None, "grid", sources, Settings()).pairs != ()
    report = problem_report(load_problem(pkg), "grid", sources, Settings())
    assert report.pairs == (), report.pairs
    assert report.boilerplate == ("include/python3/gridlib.py",)


def test_statement_code_blocks_are_boilerplate(tmp_path: Path) -> None:
    md = "# P\n\nRead it like this:\n\n```python\nimport sys\nn = int(sys.stdin.readline())\n```\n\nand\n\n" + (
        "    for line in sys.stdin:\n        print(line)\n"
    )
    assert statement_code(md) == [
        "import sys\nn = int(sys.stdin.readline())\n",
        "    for line in sys.stdin:\n        print(line)\n",
    ]
    pkg = _stub_package(tmp_path)
    (pkg / "problem_statement" / "problem.en.md").write_text(md)
    given = given_code(load_problem(pkg))
    assert [(g.name, g.language) for g in given] == [
        ("include/python3/gridlib.py", "Python"),
        ("problem_statement/problem.en.md (code block 1)", None),  # for every language
        ("problem_statement/problem.en.md (code block 2)", None),
    ]


def test_against_an_earlier_term_finds_the_copy_and_never_compares_the_old_terms_together() -> None:
    copy = (SIM / "comments.py").read_text()
    sources = [
        src("dan", copy),
        src("eve", INDEPENDENT),
        src("old1", ORIGINAL, term="2024"),
        src("old2", ORIGINAL, term="2024"),  # a copy within the old term: not ours to report
        src("old3", (SIM / "renamed.py").read_text(), term="2023"),  # nor across old terms
    ]
    report = compare_problem("grid", sources, Settings(), NO_BOILERPLATE)
    pairs = {(p.a.owner, p.b.term, p.b.owner) for p in report.pairs}
    assert pairs == {("dan", "2024", "old1"), ("dan", "2024", "old2"), ("dan", "2023", "old3")}
    assert all(p.a.term is None for p in report.pairs)
    assert report.sources == 2 and report.earlier == 3


def test_three_copies_are_one_cluster() -> None:
    sources = [
        src("ann", ORIGINAL),
        src("bob", (SIM / "renamed.py").read_text()),
        src("cat", (SIM / "reordered.py").read_text()),
        src("cy", INDEPENDENT),
    ]
    report = compare_problem("grid", sources, Settings(), NO_BOILERPLATE)
    assert len(report.pairs) == 3
    (cluster,) = report.clusters
    assert cluster.members == ("ann", "bob", "cat") and sorted(cluster.pairs) == [1, 2, 3]
    capped = compare_problem("grid", sources, Settings(max_pairs=2), NO_BOILERPLATE)
    assert capped.pairs == report.pairs[:2] and capped.more_pairs == 1  # the best ones listed, the rest counted


def test_attempts_of_one_owner_are_not_compared_and_two_owners_get_one_pair() -> None:
    sources = [
        src("ann", ORIGINAL, "grid.1.py"),
        src("ann", (SIM / "renamed.py").read_text(), "grid.2.py"),  # her own second attempt
        src("bob", (SIM / "comments.py").read_text(), "grid.1.py"),
        src("bob", (SIM / "reordered.py").read_text(), "grid.2.py"),
    ]
    report = compare_problem("grid", sources, Settings(), NO_BOILERPLATE)
    (pair,) = report.pairs
    assert {pair.a.owner, pair.b.owner} == {"ann", "bob"} and pair.other_pairs == 3


def test_languages_are_compared_apart() -> None:
    c_code = '#include <stdio.h>\nint main(void) { int a, b; scanf("%d %d", &a, &b); printf("%d\\n", a + b); }\n'
    sources = [src("ann", c_code * 5, "grid.c"), src("bob", c_code * 5, "grid.cpp"), src("cy", c_code * 5, "grid.c")]
    report = compare_problem("grid", sources, Settings(), NO_BOILERPLATE)
    assert [(p.a.owner, p.b.owner) for p in report.pairs] == [("ann", "cy")]  # C with C, not with C++
    assert report.languages == {"C": 2, "C++": 1}


def test_the_inverted_index_counts_shared_positions_as_a_plain_count_would() -> None:
    """shared_positions (a matrix product over chunks of hashes) against counting position by position."""
    from judge.similarity import compare as cmp
    from judge.similarity.fingerprint import fingerprint

    texts = [ORIGINAL, INDEPENDENT, (SIM / "renamed.py").read_text(), (SIM / "reordered.py").read_text()]
    docs = [cmp._Doc(src(str(i), t), fingerprint(t, "Python", Params())) for i, t in enumerate(texts)]
    old = cmp.CHUNK_CELLS
    try:
        cmp.CHUNK_CELLS = 4 * 7  # chunks of 7 hashes: many chunks
        p, q = shared_positions(docs, 3)
    finally:
        cmp.CHUNK_CELLS = old
    for i in range(3):
        for j in (j for j in range(4) if j != i):  # the diagonal is never used
            a, b = docs[i].fp, docs[j].fp
            assert p[i, j] == sum(h in set(b.hashes.tolist()) for h in a.hashes.tolist()), (i, j)
            assert q[i, j] == sum(h in set(a.hashes.tolist()) for h in b.hashes.tolist()), (i, j)
    assert p[0, 2] > 100 and q[0, 2] > 100  # the renamed copy shares much


def test_hashes_do_not_depend_on_the_process() -> None:
    code = "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n"
    run = [
        sys.executable,
        "-c",
        f"from judge.similarity.fingerprint import kgram_hashes; print(list(kgram_hashes({code!r}, 5)[:8]))",
    ]
    outs = {
        subprocess.run(
            run, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed}, check=True
        ).stdout
        for seed in ("1", "2", "random")
    }
    assert len(outs) == 1 and outs.pop().strip() == str(list(kgram_hashes(code, 5)[:8]))
    assert covered(np.array([0, 3, 40]), 5) == 13


# ------------------------------------------------------------------------------------------ the command line


def judge_cli(*args: str, cwd: Path = ROOT, seed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed}
    return subprocess.run([sys.executable, "-m", "judge", *args], capture_output=True, text=True, cwd=cwd, env=env)


def _folder(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_demo_contest_ranks_its_planted_copy_first(tmp_path: Path) -> None:
    out = tmp_path / "report"
    done = judge_cli("similarity", "submissions/", "--out", str(out))
    assert done.returncode == 0, done.stderr
    doc = json.loads((out / "similarity.json").read_text())
    coins = next(p for p in doc["problems"] if p["problem"] == "coins")
    assert [(p["a"]["label"], p["b"]["label"]) for p in coins["pairs"]] == [("birch/coins.py", "elm/coins.py")]
    first = coins["pairs"][0]
    assert first["similarity"] == 1.0 and first["rank"] == 1
    # and nothing else reaches the threshold: the demo's other programs were written each on its own
    # (submissions/README.md), so the planted copy is the report's only pair
    others = [(q["problem"], p["key"], p["similarity"]) for q in doc["problems"] for p in q["pairs"]]
    assert others == [("coins", first["key"], 1.0)]
    assert doc["settings"]["threshold"] == 0.5
    assert "1. 100%  birch/coins.py (100%)  ~  elm/coins.py (100%)" in done.stdout
    assert (out / "coins" / "1.html").is_file() and "birch/coins.py" in (out / "index.html").read_text()


def test_the_json_has_its_documented_keys_and_is_the_same_in_every_process(tmp_path: Path) -> None:
    contest = _folder(
        tmp_path / "contest",
        {"ann/sum.py": ORIGINAL, "bob/sum.py": (SIM / "renamed.py").read_text(), "cy/sum.py": INDEPENDENT},
    )
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURES / "sum", problems / "sum", ignore=shutil.ignore_patterns("submissions"))
    docs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        done = judge_cli("similarity", str(contest), "--problems", str(problems), "--out", str(out), seed=seed)
        assert done.returncode == 0, done.stderr
        docs.append((out / "similarity.json").read_text())
    assert docs[0] == docs[1]
    doc = json.loads(docs[0])
    assert set(doc) == {"version", "engine", "settings", "terms", "problems"} and doc["version"] == REPORT_VERSION
    assert doc["engine"].startswith("copydetect ")
    assert set(doc["settings"]) == {"threshold", "k", "window", "max_pairs"}
    (problem,) = doc["problems"]
    assert set(problem) == {
        "problem", "sources", "earlier", "languages", "compared", "more_pairs", "pairs", "clusters", "boilerplate",
        "skipped",
    }  # fmt: skip
    (pair,) = problem["pairs"]
    assert set(pair) == {"rank", "key", "similarity", "matched_chars", "other_pairs", "a", "b"}
    assert set(pair["a"]) == {"id", "owner", "label", "term", "language", "similarity", "regions"}
    assert set(pair["a"]["regions"][0]) == {"file", "start", "end", "first_line", "last_line"}


def test_against_through_the_command_line(tmp_path: Path) -> None:
    now = _folder(tmp_path / "spring", {"dan/sum.py": (SIM / "comments.py").read_text(), "eve/sum.py": INDEPENDENT})
    old = _folder(tmp_path / "fall", {"old1/sum.py": ORIGINAL, "old2/sum.py": ORIGINAL})
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURES / "sum", problems / "sum", ignore=shutil.ignore_patterns("submissions"))
    out = tmp_path / "out"
    done = judge_cli("similarity", str(now), "--problems", str(problems), "--against", str(old), "--out", str(out))
    assert done.returncode == 0, done.stderr
    doc = json.loads((out / "similarity.json").read_text())
    assert doc["terms"] == ["fall"]
    pairs = {(p["a"]["owner"], p["b"]["term"], p["b"]["owner"]) for p in doc["problems"][0]["pairs"]}
    assert pairs == {("dan", "fall", "old1"), ("dan", "fall", "old2")}
    assert "dan/sum.py (fall)" not in done.stdout and "old1/sum.py (fall)" in done.stdout


def test_names_and_code_are_escaped_in_the_html(tmp_path: Path) -> None:
    hostile = "<script>alert(1)"
    code = ORIGINAL.replace('"unreachable"', '"</td><script>alert(2)</script>"')
    contest = _folder(tmp_path / "contest", {f"{hostile}/sum.py": code, "bob/sum.py": code})
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURES / "sum", problems / "sum", ignore=shutil.ignore_patterns("submissions"))
    out = tmp_path / "out"
    assert judge_cli("similarity", str(contest), "--problems", str(problems), "--out", str(out)).returncode == 0
    for page in (out / "index.html", out / "sum" / "1.html"):
        html = page.read_text()
        assert "<script>" not in html and "&lt;script&gt;alert(" in html, page


def test_bad_usage_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for args, message in (
        (("similarity", str(tmp_path / "nope")), "not a folder"),
        (("similarity", "submissions/", "--threshold", "1.5"), "--threshold"),
        (("similarity", "submissions/", "--problem", "nope"), "no such problem"),
        (("similarity", "submissions/", "--against", str(tmp_path / "nope")), "--against"),
    ):
        done = judge_cli(*args, "--out", str(tmp_path / "out"))
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_grade_similarity_writes_the_staff_report_the_board_never_links(tmp_path: Path) -> None:
    contest = _folder(
        tmp_path / "contest",
        {"ann/sum.py": SUM + ORIGINAL.replace("main()\n", ""),
         "bob/sum.py": SUM + (SIM / "renamed.py").read_text().replace("main()\n", "")},
    )  # fmt: skip
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURES / "sum", problems / "sum", ignore=shutil.ignore_patterns("submissions"))
    out = tmp_path / "board"
    done = judge_cli("grade", str(contest), "--problems", str(problems), "--out", str(out), "--similarity")
    assert done.returncode == 0, done.stderr
    report = out / "staff" / "similarity"
    assert (out / "staff").stat().st_mode & 0o077 == 0 and report.stat().st_mode & 0o077 == 0  # owner-only
    doc = json.loads((report / "similarity.json").read_text())
    assert [(p["a"]["owner"], p["b"]["owner"]) for p in doc["problems"][0]["pairs"]] == [("ann", "bob")]
    assert "staff only" in done.stdout
    for page in out.rglob("*.html"):
        if report not in page.parents:
            assert "staff" not in page.read_text() and "similarity" not in page.read_text().lower(), page


@pytest.mark.parametrize("threshold", [0.1, 0.2, 0.3, 0.5, 0.8])
def test_the_candidates_lose_no_pair(threshold: float) -> None:
    """A pair is scored in full only when its bound reaches the threshold (docs/similarity.md, step 5): on our
    fixtures and on the demo's Coins and Go, scoring every pair finds the same pairs."""
    from judge.similarity import compare as cmp
    from judge.similarity.fingerprint import fingerprint, language_of

    texts = [ORIGINAL, INDEPENDENT, *((SIM / n).read_text() for n in ("renamed.py", "reordered.py", "comments.py"))]
    demo = sorted((ROOT / "submissions").glob("*/coins.py")) + sorted((ROOT / "submissions").glob("*/go.py"))
    sources = [src(f"f{i}", t) for i, t in enumerate(texts)]
    sources += [src(p.parent.name + p.stem, p.read_text()) for p in demo]
    report = compare_problem("grid", sources, Settings(threshold), NO_BOILERPLATE)
    docs = [cmp._Doc(s, fingerprint(s.text(), language_of(["x.py"], s.text()), Params())) for s in sources]
    every = set()
    for i in range(len(docs)):
        for j in range(i + 1, len(docs)):
            if _score(docs[i], docs[j], Params().k)[0] >= threshold:
                every.add(frozenset((docs[i].source.id, docs[j].source.id)))
    assert {frozenset((p.a.id, p.b.id)) for p in report.pairs} == every
    assert report.compared < len(docs) * (len(docs) - 1) // 2 or threshold < 0.2  # the bound saves work
