"""The default output validator (Kattis token comparison)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge.judging.checker import CheckerFlags, FlagError, check, parse_flags


def test_whitespace_is_only_a_separator() -> None:
    assert check(b"1 2\n3\n", b"1\n2 3").accepted
    assert not check(b"1 2 3", b"1 2").accepted
    assert not check(b"1 2", b"1 2 3").accepted


def test_case_insensitive_unless_flagged() -> None:
    assert check(b"Yes", b"YES").accepted
    assert not check(b"Yes", b"YES", parse_flags(("case_sensitive",))).accepted


def test_space_change_sensitive() -> None:
    flags = parse_flags(("space_change_sensitive",))
    assert not check(b"1 2", b"1  2", flags).accepted
    assert check(b"1 2\n", b"1 2\n", flags).accepted


def test_float_tolerances() -> None:
    rel = parse_flags(("float_relative_tolerance", "1e-6"))
    assert check(b"1000000", b"1000000.5", rel).accepted
    assert not check(b"1", b"1.1", rel).accepted
    absolute = parse_flags(("float_absolute_tolerance", "0.01"))
    assert check(b"0.5", b"0.505", absolute).accepted
    assert not check(b"0.5", b"0.52", absolute).accepted
    assert not check(b"0.5", b"abc", absolute).accepted
    both = parse_flags(("float_tolerance", "1e-3"))
    assert both.float_abs == both.float_rel == 1e-3


def test_bad_flags_are_reported() -> None:
    with pytest.raises(FlagError):
        parse_flags(("float_tolerance",))
    with pytest.raises(FlagError):
        parse_flags(("bogus",))


def test_messages_name_the_token() -> None:
    result = check(b"1 2 3", b"1 5 3")
    assert not result.accepted and "token 2" in result.message


tokens = st.lists(st.text(alphabet="abc019.-", min_size=1, max_size=5), max_size=8)


@given(tokens, st.sampled_from([" ", "\n", "\t", "  \n"]))
def test_any_whitespace_layout_is_accepted(words: list[str], sep: str) -> None:
    expected = " ".join(words).encode()
    assert check(expected, sep.join(words).encode() + b"\n", CheckerFlags()).accepted


@given(tokens, tokens)
def test_check_agrees_with_token_equality(a: list[str], b: list[str]) -> None:
    same = [x.lower() for x in a] == [y.lower() for y in b]
    assert check(" ".join(a).encode(), " ".join(b).encode()).accepted == same
