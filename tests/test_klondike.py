"""The klondike reference (reference/klondike.py): hand-made deals with known answers, agreement with the
plain exhaustive searches, invariants, and the statistics helpers."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import klondike as K

deals = st.permutations(K.DECK).map(tuple)


def build(tops: dict[int, Sequence[str]]) -> tuple[int, ...]:
    """A deal whose piles end (bottom to top) with the given cards; the rest filled with the other cards
    in order. Used only where the filler is never turned up."""
    named = {p: [K.parse_card(c) for c in cards] for p, cards in tops.items()}
    used = {c for cards in named.values() for c in cards}
    filler = [c for c in K.DECK if c not in used]
    piles = []
    for p in range(7):
        size = 8 if p < 3 else 7
        own = named.get(p, [])
        piles.append([filler.pop() for _ in range(size - len(own))] + own)
    return K.deal_from_piles(piles)


# Pile tops JD 9D 7C . . . 5H with, on pile 3, the spades A..7 (A on top): they all go up and pile 3 is
# empty. Then pile 4's KH (over 2D) and pile 5's KC (over 8S, 9S, 4D) may move there.
BASE = {0: ["JD"], 1: ["9D"], 2: ["7C"], 3: ["7S", "6S", "5S", "4S", "3S", "2S", "AS"], 6: ["5H"]}


def test_the_sorted_deal_comes_out_completely() -> None:
    deal = tuple(51 - k for k in range(52))  # tops AS..7S, under them 8S..KS, AH; and so on
    assert K.optimal_score(deal) == 52
    assert K.greedy_score(deal) == 52  # no King is ever needed


def test_no_move_at_all() -> None:
    deal = build({0: ["KS"], 1: ["JS"], 2: ["9S"], 3: ["KH"], 4: ["JH"], 5: ["9H"], 6: ["KD"]})
    assert K.no_move_at_start(deal)
    assert K.optimal_score(deal) == 0


def test_one_ace_then_nothing() -> None:
    deal = build({0: ["5C", "AS"], 1: ["JS"], 2: ["9S"], 3: ["KH"], 4: ["JH"], 5: ["9H"], 6: ["KD"]})
    assert K.optimal_score(deal) == 1
    assert K.exhaustive(deal, table=False).score == 1


def test_a_king_into_the_empty_pile() -> None:
    deal = build({**BASE, 4: ["2D", "8S", "KH"], 5: ["3C"]})
    assert K.optimal_score(deal) == 8  # 7 spades, KH to pile 3, then 8S
    assert K.search(deal, kings="none").score == 7
    assert K.exhaustive(deal, table=False).score == 8


def test_the_choice_of_king_matters() -> None:
    deal = build({**BASE, 4: ["2D", "KH"], 5: ["4D", "9S", "8S", "KC"]})
    result = K.search(deal)
    assert result.score == 9  # KC to pile 3 frees 8S and 9S
    assert result.decisions == 1
    assert K.greedy_score(deal) == 7  # KH (the first King) frees only 2D, and no pile is empty any more
    assert K.exhaustive(deal, table=False).score == 9


def test_a_run_moves_onto_the_card_one_higher() -> None:
    # pile 0: QD on top of 2C; pile 1: KD. QD goes onto KD, 2C is turned up; AC on pile 2 goes up, then 2C.
    deal = build({0: ["2C", "QD"], 1: ["KD"], 2: ["AC"], 3: ["KH"], 4: ["JH"], 5: ["9H"], 6: ["9S"]})
    pos = K.Position.start(deal)
    assert ("R", 0, 1) in pos.moves()
    assert K.optimal_score(deal) == 2


@pytest.mark.parametrize("seed", range(4))
def test_reference_agrees_with_plain_exhaustive_search_on_random_deals(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(60):  # 240 deals in all
        deal = K.uniform_deal(rng)
        expected = K.exhaustive(deal, table=False, node_limit=2_000_000).score
        assert K.optimal_score(deal) == expected == K.exhaustive(deal).score, K.format_deal(deal)


def test_reference_agrees_with_the_table_search_on_the_special_deals() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "problems" / "klondike" / "generators" / "special_deals.txt"
    checked = 0
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("large"):
            continue
        deal = K.parse_deal(line.split(None, 1)[1])
        try:
            full = K.exhaustive(deal, node_limit=20_000)
        except K.SearchLimitExceeded:
            continue
        assert K.optimal_score(deal) == full.score, line
        checked += 1
    assert checked >= 10


@settings(max_examples=60, deadline=None)
@given(deals)
def test_reference_agrees_with_the_table_search(deal: tuple[int, ...]) -> None:
    assert K.optimal_score(deal) == K.exhaustive(deal, node_limit=1_000_000).score


@settings(max_examples=60, deadline=None)
@given(deals, st.permutations(range(4)))
def test_renaming_the_suits_keeps_the_score(deal: tuple[int, ...], perm: list[int]) -> None:
    renamed = tuple(perm[c // 13] * 13 + c % 13 for c in deal)
    assert K.optimal_score(renamed) == K.optimal_score(deal)


@settings(max_examples=60, deadline=None)
@given(deals)
def test_greedy_never_beats_optimal_and_kings_only_help(deal: tuple[int, ...]) -> None:
    best = K.optimal_score(deal)
    assert K.greedy_score(deal) <= best
    assert K.search(deal, kings="none").score <= best


@settings(max_examples=60, deadline=None)
@given(deals, st.lists(st.integers(0, 6), max_size=6))
def test_after_closure_only_king_moves_are_left(deal: tuple[int, ...], picks: list[int]) -> None:
    pos = K.Position.start(deal)
    for pick in picks:
        pos.close()
        assert all(kind == "K" for kind, _, _ in pos.moves())
        kings = pos.king_moves()
        if not kings:
            break
        pos.move_king(*kings[pick % len(kings)])
    pos.close()
    assert all(kind == "K" for kind, _, _ in pos.moves())
    # every card is exactly once on a pile or a foundation
    cards = [c for p in range(7) for c in pos.piles[p][: pos.down[p]]]
    cards += [c for p in range(7) if pos.base[p] >= 0 for c in range(pos.top[p], pos.base[p] + 1)]
    cards += [s * 13 + r for s in range(4) for r in range(pos.found[s])]
    assert sorted(cards) == list(K.DECK)


def test_the_key_ignores_the_order_of_piles_without_face_down_cards() -> None:
    deal = tuple(51 - k for k in range(52))
    a = K.Position.start(deal)
    a.down[:] = [0, 0, 3, 0, 0, 0, 0]
    a.base[:] = [12, -1, a.piles[2][3], 25, -1, 38, -1]
    a.top[:] = [10, -1, a.piles[2][3], 25, -1, 36, -1]
    b = a.copy()
    b.base[0], b.base[5], b.top[0], b.top[5] = a.base[5], a.base[0], a.top[5], a.top[0]
    assert a.key() == b.key()
    c = a.copy()
    c.top[0] = 11
    assert c.key() != a.key()


def test_cards_parse_and_print() -> None:
    assert [K.card_name(c) for c in (0, 12, 13, 51)] == ["AS", "KS", "AH", "KC"]
    assert K.parse_card("TD") == 2 * 13 + 9
    deal = K.uniform_deal(random.Random(3))
    assert K.parse_deal(K.format_deal(deal)) == deal
    for bad in ("AS " * 52, "AS KS", "1S " + K.format_deal(deal)[3:]):
        with pytest.raises(ValueError):
            K.parse_deal(bad)


def test_no_move_share_exact_value_and_sampled() -> None:
    p = K.no_move_probability()
    assert round(p, 5) == 0.21679
    rng = random.Random(11)
    n = 20_000
    share = sum(K.no_move_at_start(K.uniform_deal(rng)) for _ in range(n)) / n
    assert abs(share - p) <= 4 * (p * (1 - p) / n) ** 0.5


@settings(max_examples=100, deadline=None)
@given(deals)
def test_no_move_at_start_is_no_ace_and_no_neighbours(deal: tuple[int, ...]) -> None:
    tops = set(deal[45:])
    expected = all(c % 13 != 0 and (c + 1 not in tops or (c + 1) % 13 == 0) for c in tops)
    assert K.no_move_at_start(deal) == expected


def test_summary_and_tolerance() -> None:
    s = K.summarize([0, 0, 1, 3])
    assert s.mean == 1.0
    assert s.std == pytest.approx((6 / 4) ** 0.5)
    assert s.mean_se == pytest.approx(s.std / 2)
    small = K.stats_tolerance(1000, s)
    large = K.stats_tolerance(100_000, s)
    assert small[0] > large[0] > 0.01 and small[1] > large[1] > 0.01
    with pytest.raises(ValueError):
        K.summarize([1])


def test_seed_shuffle_is_a_permutation() -> None:
    rng = random.Random(5)
    for _ in range(20):
        assert sorted(K.seed_shuffle_deal(rng)) == list(K.DECK)
