"""The order in which `judge grade` hands submissions to its workers (longest expected first)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.grade.discovery import Entry
from judge.grade.workloop import LongestFirst


def entry(contestant: str, problem: str) -> Entry:
    return Entry(
        contestant,
        problem,
        Path(f"/c/{contestant}/{problem}.py"),
        f"{contestant}/{problem}.py",
        "python3",
        "h",
    )


GUESS = {"memory": 60.0, "klondike": 30.0, "go": 20.0}


def test_history_first_then_what_this_grading_learned_then_the_guess() -> None:
    entries = [entry(c, p) for p in GUESS for c in ("a", "b", "c")]
    queue = LongestFirst(entries, lambda e: GUESS[e.problem], {("c", "go"): 100.0})
    assert queue.pop().key == ("c", "go")  # a stored run took 100 s
    first = queue.pop()
    assert first.problem == "memory"
    queue.finished(first, 5.0)  # memory turned out fast: the other memory ones now expect 5 s
    assert [queue.pop().problem for _ in range(3)] == ["klondike"] * 3
    assert [queue.pop().problem for _ in range(2)] == ["go"] * 2
    assert [queue.pop().problem for _ in range(2)] == ["memory"] * 2
    assert not queue


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.sampled_from(sorted(GUESS))), unique=True, max_size=12))
def test_every_entry_is_handed_out_exactly_once(pairs: list[tuple[str, str]]) -> None:
    entries = [entry(c, p) for c, p in pairs]
    queue = LongestFirst(entries, lambda e: GUESS[e.problem], {})
    out = []
    while queue:
        e = queue.pop()
        out.append(e.key)
        queue.finished(e, len(out))
    assert sorted(out) == sorted(pairs)
