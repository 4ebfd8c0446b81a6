"""The diff of a run's output against its answer (issue 47, judge/serve/model/textdiff.py): side by side,
bounded, folded; Hypothesis: unfolded, its rows give back both texts' lines in order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from judge.serve.model.textdiff import diff_text

lines = st.lists(st.sampled_from(["1", "2", "3", "x y", "", "  1"]), max_size=30)


@given(lines, lines)
def test_unfolded_rows_give_back_both_texts(left: list[str], right: list[str]) -> None:
    d = diff_text("\n".join(left).encode(), "\n".join(right).encode(), context=None)
    assert [r.left for r in d.rows if r.left is not None] == "\n".join(left).splitlines()
    assert [r.right for r in d.rows if r.right is not None] == "\n".join(right).splitlines()
    assert (d.first_difference is None) == ("\n".join(left).splitlines() == "\n".join(right).splitlines())


@given(lines, lines)
def test_folding_keeps_every_difference(left: list[str], right: list[str]) -> None:
    full = diff_text("\n".join(left).encode(), "\n".join(right).encode(), context=None)
    folded = diff_text("\n".join(left).encode(), "\n".join(right).encode(), context=1)
    assert [r for r in full.rows if r.kind != "same"] == [r for r in folded.rows if r.kind not in ("same", "fold")]
    assert sum(r.folded for r in folded.rows) + sum(r.kind != "fold" for r in folded.rows) == len(full.rows)


def test_a_wrong_line_is_found_and_the_rest_folded() -> None:
    answer = "".join(f"{i}\n" for i in range(1, 101)).encode()
    output = answer.replace(b"\n50\n", b"\n51\n")
    d = diff_text(output, answer)
    assert d.first_difference == 50 and not d.identical and not d.whitespace_only
    changed = [r for r in d.rows if r.kind == "changed"]
    assert [(r.left_no, r.left, r.right) for r in changed] == [(50, "51", "50")]
    assert [r.kind for r in d.rows].count("fold") == 2 and len(d.rows) == 1 + 3 + 1 + 3 + 1


def test_missing_and_extra_lines() -> None:
    d = diff_text(b"1\n2\n", b"1\n2\n3\n")
    assert [(r.kind, r.right) for r in d.rows if r.kind != "same"] == [("missing", "3")] and d.first_difference == 3
    d = diff_text(b"1\n2\n3\n", b"1\n")
    assert [r.kind for r in d.rows] == ["same", "extra", "extra"]


def test_whitespace_only_and_identical() -> None:
    assert diff_text(b"1  2\n", b"1 2\n").whitespace_only
    assert diff_text(b"1 2\n", b"1 2\n").identical


def test_it_is_bounded_and_says_so() -> None:
    d = diff_text(b"a\n" * 100_000, b"a\n", limit_bytes=1024)
    assert d.left.cut and not d.right.cut and len(d.left.lines) == 400  # MAX_LINES
    d = diff_text(b"a\n" * 10, b"a\n" * 10, left_bytes=10_000)  # a head of a longer output
    assert d.left.cut and not d.identical


def test_bytes_that_are_not_text() -> None:
    d = diff_text(b"\xff\xfe\x00abc\n", b"abc\n")
    assert d.left.binary and d.rows[0].left is not None and "\ufffd" in d.rows[0].left
    assert not diff_text("é".encode() * 600, b"", limit_bytes=1001).left.binary  # a character cut at the end
