"""The scoreboard from synthetic results: ranking and tie-breaks, charts, statements, escaping. No runner."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.judging.results import CaseResult, SubmissionResult
from judge.judging.verdict import Verdict
from judge.scoreboard.charts import bar_chart, score_bins, value_bins
from judge.scoreboard.model import Board, BoardProblem, BoardRun, Notice, slug
from judge.scoreboard.ranking import standings
from judge.scoreboard.render import write_board
from judge.scoreboard.statements import markdown_to_html

HOSTILE = "<script>alert('x')</script>"


def result(
    problem: str, score: float, verdict: Verdict = Verdict.AC, metric: float | None = None, **kw: object
) -> SubmissionResult:
    return SubmissionResult(
        problem=problem,
        source=f"x/{problem}.py",
        language="python3",
        verdict=verdict,
        score=score,
        max_score=100.0,
        time_s=0.1,
        memory_kib=1000,
        metric=metric,
        **kw,  # type: ignore[arg-type]
    )


def board(runs: dict[tuple[str, str], SubmissionResult], contestants: tuple[str, ...]) -> Board:
    problems = (
        BoardProblem("go", "Go", 100.0, metric_name="bytes", metric_better="lower"),
        BoardProblem("klondike", "Klondike", 100.0, metric_name="optimal", metric_better="higher"),
        BoardProblem("rummy", "Rummy", 100.0),
    )
    return Board(
        "Test board",
        problems,
        contestants,
        {k: BoardRun(k[0], k[1], f"{k[0]}/{k[1]}.py", r) for k, r in runs.items()},
    )


def test_ties_are_broken_by_metrics_in_problem_order_then_by_name() -> None:
    runs = {
        ("ann", "go"): result("go", 100, metric=72),
        ("bea", "go"): result("go", 100, metric=73),  # more bytes than ann
        ("cid", "go"): result("go", 100, metric=72),
        ("cid", "klondike"): result("klondike", 50, metric=5),  # higher is better: beats ann
        ("ann", "klondike"): result("klondike", 50, metric=4),
        ("dan", "go"): result("go", 100, metric=72),
        ("dan", "klondike"): result("klondike", 50, metric=4),
        ("gus", "go"): result("go", 100, metric=72),
        ("gus", "klondike"): result("klondike", 50, Verdict.WA, metric=99),  # rejected: its metric is ignored
        ("eve", "rummy"): result("rummy", 100),
        ("eve", "go"): result("go", 10, Verdict.WA),
    }
    rows = standings(board(runs, ("gus", "eve", "dan", "cid", "bea", "ann", "fay")))
    assert [(s.rank, s.contestant, s.total) for s in rows] == [
        (1, "cid", 150),  # 72 bytes, optimal 5
        (2, "ann", 150),  # 72 bytes, optimal 4: tied with dan in everything -> same rank, name order
        (2, "dan", 150),
        (4, "gus", 150),  # 72 bytes, no accepted klondike metric
        (5, "eve", 110),  # no metric at all: the totals decide first
        (6, "bea", 100),
        (7, "fay", 0),  # nothing submitted
    ]


def test_judge_errors_do_not_count() -> None:
    runs = {
        ("ann", "rummy"): result("rummy", 100, Verdict.JE),
        ("bea", "rummy"): result("rummy", 10, Verdict.WA),
    }
    rows = standings(board(runs, ("ann", "bea")))
    assert [(s.contestant, s.total) for s in rows] == [("bea", 10), ("ann", 0)]


names = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        names,
        st.tuples(st.integers(0, 100), st.integers(0, 100), st.one_of(st.none(), st.integers(60, 90))),
        min_size=1,
        max_size=8,
    ),
    st.randoms(use_true_random=False),
)
def test_standings_do_not_depend_on_input_order(data: dict[str, tuple[int, int, int | None]], rnd) -> None:  # type: ignore[no-untyped-def]
    runs = {}
    for name, (go, rummy, nbytes) in data.items():
        runs[(name, "go")] = result("go", go, metric=nbytes)
        runs[(name, "rummy")] = result("rummy", rummy)
    order = list(data)
    rnd.shuffle(order)
    a = standings(board(runs, tuple(order)))
    b = standings(board(runs, tuple(sorted(data))))
    assert [(s.rank, s.contestant, s.total) for s in a] == [(s.rank, s.contestant, s.total) for s in b]
    totals = [s.total for s in a]
    assert totals == sorted(totals, reverse=True)
    assert [s.rank for s in a] == sorted(s.rank for s in a) and a[0].rank == 1
    for s in a:
        go, rummy, _ = data[s.contestant]
        assert s.total == go + rummy


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 100, allow_nan=False), max_size=40), st.floats(1, 1000))
def test_score_histogram_counts_every_score_once(scores: list[float], max_score: float) -> None:
    scaled = [s * max_score / 100 for s in scores]
    bins = score_bins(scaled, max_score)
    assert sum(b.count for b in bins) == len(scaled)
    chart = bar_chart(bins, title="t", x_caption="x")
    for bar in chart.bars:
        assert chart.left <= bar.x and bar.x + bar.width <= chart.right + 1e-6
        assert chart.top - 1e-6 <= bar.y and abs(bar.y + bar.height - chart.baseline) < 1e-6
    tallest = max(chart.bars, key=lambda b: b.count)
    assert all(b.height <= tallest.height for b in chart.bars)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), max_size=50))
def test_value_histogram_counts_every_value_once(values: list[float]) -> None:
    bins = value_bins(values)
    assert sum(b.count for b in bins) == len(values)
    assert all(b.lo <= b.hi for b in bins)


def test_full_score_falls_in_the_last_bin() -> None:
    bins = score_bins([0, 100, 100, 99.9, 50], 100)
    assert [b.count for b in bins] == [1, 0, 0, 0, 0, 1, 0, 0, 0, 3]


def test_markdown_statement_keeps_math_and_renders_tables() -> None:
    html = markdown_to_html("# T\n\nLet $a_1, a_2 < b_3$ be *given*.\n\n| x | y |\n|---|---|\n| 1 | 2 |\n")
    assert "<h1>T</h1>" in html and "<em>given</em>" in html and "<table>" in html
    assert '<span class="math">a_1, a_2 &lt; b_3</span>' in html


def test_slugs_are_safe_and_distinct() -> None:
    names = ["ann", "<script>", "<script>!", "a/b", "..", "", "Ünïcode"]
    slugs = [slug(n) for n in names]
    assert slug("ann") == "ann"
    assert len(set(slugs)) == len(slugs)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", s) for s in slugs)


def test_contestant_text_is_escaped_everywhere(tmp_path: Path) -> None:
    case = CaseResult(
        "secret/1",
        "secret",
        Verdict.WA,
        0.0,
        0.1,
        0.2,
        100,
        message=f"got {HOSTILE}",
        transcript=f"> {HOSTILE}",
    )
    runs = {
        (HOSTILE, "go"): result("go", 0, Verdict.CE, compile_message=f"error near {HOSTILE}"),
        (HOSTILE, "rummy"): result("rummy", 0, Verdict.WA, tests=(case,), test_scores=(0.0,)),
    }
    b = board(runs, (HOSTILE, "ann"))
    b = Board(b.title, b.problems, b.contestants, b.runs, (Notice("unreadable", f"{HOSTILE}/x.py", HOSTILE),))
    written = write_board(b, tmp_path)
    assert written[0] == tmp_path / "index.html"
    assert len(written) == 1 + 3 + 2
    for page in written:
        text = page.read_text()
        assert "<script" not in text.lower(), page
    index = (tmp_path / "index.html").read_text()
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in index
    sub = next(p for p in written if p.name == "rummy.html").read_text()
    assert "got &lt;script&gt;" in sub
    assert "error near &lt;script&gt;" in next(p for p in written if p.name == "go.html").read_text()


def test_pages_of_removed_submissions_are_pruned(tmp_path: Path) -> None:
    runs = {("ann", "go"): result("go", 100, metric=72), ("bea", "go"): result("go", 50, metric=80)}
    write_board(board(runs, ("ann", "bea")), tmp_path)
    assert (tmp_path / "submissions/bea/go.html").is_file()
    del runs[("bea", "go")]
    write_board(board(runs, ("ann", "bea")), tmp_path)
    assert not (tmp_path / "submissions/bea").exists()
    assert (tmp_path / "submissions/ann/go.html").is_file()


def test_problem_page_has_charts_of_scores_and_metric(tmp_path: Path) -> None:
    runs = {(n, "go"): result("go", s, metric=m) for n, s, m in [("a", 100, 72), ("b", 93.75, 73), ("c", 0, None)]}
    write_board(board(runs, ("a", "b", "c")), tmp_path)
    page = (tmp_path / "problems/go/index.html").read_text()
    assert page.count("<svg") == 2
    assert page.count('class="bar"') == 10 + 2  # ten score bins; two distinct byte counts
    assert "<title>72: 1 submission</title>" in page
