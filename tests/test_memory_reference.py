"""Problem ``memory``: the rules, the reference strategy, the exact values and the adaptive adversary."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import memory
from reference.memory import (
    CARDS,
    LETTERS,
    SEED_WORST,
    FixedDealer,
    Game,
    flips_on,
    improved_play,
    naive_play,
    parse_spec,
    play,
    simulate,
)
from reference.memory_adversary import AdversaryDealer, consistent_layout
from reference.memory_values import greedy_expected_turns, minimax_turns, optimal_expected_turns

layouts = st.permutations(list(LETTERS * 2)).map("".join)
SORTED = "".join(letter * 2 for letter in LETTERS)


# ----------------------------------------------------------------------------- the rules


def test_rules_of_cardgiver() -> None:
    game = Game(FixedDealer(SORTED))
    assert game.flip(1) == "A"
    assert game.flip(1) == ""  # the 1st card of this turn again: invalid
    assert game.flip(0) == "" and game.flip(51) == ""  # outside 1..50
    assert game.flips == 1 and game.first == 1  # invalid flips change nothing
    assert game.flip(3) == "B"  # 2nd card: no pair, the turn is over
    assert game.candies == 0 and game.pairs_left == 25
    assert game.flip(2) == "A" and game.candies == 1  # both A seen, in different turns
    assert game.flip(1) == "A" and game.pairs_left == 24  # the pair leaves
    assert game.flip(1) == "" and game.flip(2) == ""  # left the game: invalid
    assert game.flips == 4 and game.requests == 9


def test_parse_spec_accepts_the_formats_and_rejects_the_rest() -> None:
    assert parse_spec(f"fixed seed-worst\n{SEED_WORST}\n").layout == SEED_WORST
    assert parse_spec("adversary newest 7\n") == memory.TestSpec("adversary", "newest", seed=7)
    for bad in (
        f"fixed seed-worst\n{SEED_WORST}",  # no final newline
        f"fixed Seed\n{SEED_WORST}\n",  # upper case name
        f"random x\n{SEED_WORST}\n",  # random layouts are named by their seed
        f"fixed a\n{SEED_WORST[:-1]}Z\n",  # Z is not a letter here
        f"fixed a\n{SEED_WORST[:-1]}A\n",  # three A
        f"fixed a\n{SEED_WORST} \n",
        "adversary sideways 1\n",
        "adversary oldest 01\n",
        "adversary oldest 1\n\n",
    ):
        with pytest.raises(ValueError):
            parse_spec(bad)


# ----------------------------------------------------------------------------- strategies


@settings(max_examples=150, deadline=None)
@given(layouts)
def test_reference_finishes_within_98_flips_and_equals_the_seeds_improved_strategy(layout: str) -> None:
    outcome, _ = simulate(play, FixedDealer(layout))
    assert outcome.over and outcome.candies == 25
    assert outcome.flips == outcome.requests  # never an invalid flip
    assert outcome.flips <= 98 and outcome.flips % 2 == 0
    # the seed's improved strategy is the same greedy strategy, statement by statement
    assert flips_on(improved_play, [layout]) == [outcome.flips]
    # and never worse than the naive one, which never exceeds 100
    naive = flips_on(naive_play, [layout])[0]
    assert outcome.flips <= naive <= 100


def test_known_layouts() -> None:
    assert flips_on(play, [SORTED, SEED_WORST]) == [50, 98]
    assert flips_on(naive_play, [SORTED, SEED_WORST, LETTERS + LETTERS]) == [50, 100, 100]


def test_exact_values() -> None:
    assert minimax_turns(0, 25, 0) == 49  # no strategy can guarantee fewer than 98 flips
    assert [minimax_turns(0, n, 0) for n in range(1, 8)] == [2 * n - 1 for n in range(1, 8)]
    mean = 2 * greedy_expected_turns(0, 25, 0)
    assert mean == pytest.approx(79.6595, abs=1e-4)
    # greedy is optimal in expectation too (every move considered, waste flips included)
    assert 2 * optimal_expected_turns(0, 25, 0) == pytest.approx(mean, abs=1e-9)


def test_sampled_mean_agrees_with_the_exact_value() -> None:
    rng = random.Random(5)
    counts = flips_on(play, [memory.random_layout(rng) for _ in range(2000)])
    mean = sum(counts) / len(counts)
    spread = (sum((c - mean) ** 2 for c in counts) / (len(counts) - 1)) ** 0.5
    # five standard errors
    assert abs(mean - 2 * greedy_expected_turns(0, 25, 0)) < 5 * spread / len(counts) ** 0.5


# ----------------------------------------------------------------------------- the adversary


@pytest.mark.parametrize("tiebreak", memory.TIEBREAKS)
def test_adversary_pushes_the_seed_strategies_to_their_worst(tiebreak: str) -> None:
    for strategy, worst in ((naive_play, 100), (improved_play, 98), (play, 98)):
        outcome, game = simulate(strategy, AdversaryDealer(tiebreak, 11))
        assert outcome.over and outcome.flips == worst
        # the layout it built is an ordinary layout on which the strategy does the same
        assert flips_on(strategy, [game.layout_so_far()]) == [worst]


def _finishing_strategy(seed: int, wander: int) -> memory.Strategy:
    """Some wandering (random positions, invalid ones included), then a complete, remembering clean-up."""

    def strategy(turn_card: memory.TurnCard) -> None:
        rng = random.Random(seed)
        letters: dict[int, str] = {}
        removed: set[int] = set()
        first = 0  # position of the current turn's 1st card

        def flip(position: int) -> str:
            nonlocal first
            letter = turn_card(position)
            if letter:
                letters[position] = letter
                if first and letters[first] == letter:
                    removed.update((first, position))
                first = 0 if first else position
            return letter

        for _ in range(wander):
            flip(rng.randint(0, CARDS + 1))
        while len(removed) < CARDS:
            alive = [p for p in range(1, CARDS + 1) if p not in removed and p != first]
            by_letter: dict[str, list[int]] = {}
            for p in range(1, CARDS + 1):
                if p not in removed and p in letters:
                    by_letter.setdefault(letters[p], []).append(p)
            if first:  # finish the turn: the partner if known, else an unseen card, else anything
                partner = [p for p in by_letter.get(letters[first], []) if p != first]
                unseen = [p for p in alive if p not in letters]
                flip((partner or unseen or alive)[0])
                continue
            pair = next((ps for ps in by_letter.values() if len(ps) == 2), None)
            flip(pair[0] if pair else next(p for p in alive if p not in letters))

    return strategy


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(memory.TIEBREAKS),
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.integers(0, 120),
)
def test_adversary_is_consistent_and_no_finishing_strategy_beats_98(
    tiebreak: str, adversary_seed: int, seed: int, wander: int
) -> None:
    requests: list[int] = []
    answers: list[str] = []

    def recording(turn_card: memory.TurnCard) -> None:
        def wrapped(position: int) -> str:
            answer = turn_card(position)
            requests.append(position)
            answers.append(answer)
            return answer

        _finishing_strategy(seed, wander)(wrapped)

    outcome, game = simulate(recording, AdversaryDealer(tiebreak, adversary_seed))
    assert outcome.over
    assert outcome.flips >= 98  # the minimax value: the adversary guarantees it against anyone
    layout, consistent = consistent_layout(game, requests, answers)
    assert consistent
    assert layout == game.layout_so_far()  # every card was seen
    replay, _ = simulate(lambda tc: [tc(p) for p in requests], FixedDealer(layout))
    assert replay.flips == outcome.flips


def test_consistency_check_detects_a_lie() -> None:
    game = Game(FixedDealer(SORTED))
    requests = [1, 2, 3]
    answers = [game.flip(p) for p in requests]
    assert consistent_layout(game, requests, answers)[1]
    assert not consistent_layout(game, requests, ["A", "B", "B"])[1]
    game.letters[3] = "A"  # a third A: no layout can match
    game.seen["A"].append(3)
    assert not consistent_layout(game, requests, answers)[1]
