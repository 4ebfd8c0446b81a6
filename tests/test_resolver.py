"""The resolver's steps (judge/scoreboard/resolver.py): from the frozen board to the final one, which is
the board of every result (the thawed scoreboard) exactly; teams revealed from the bottom up; a step for
each award holder once its place is final; by hand and as a Hypothesis property."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.scoreboard.passfail import Outcome, Team, Try, rank
from judge.scoreboard.resolver import Ceremony, steps

MIN = 60.0
TEAMS = [Team("t1", "Ant"), Team("t2", "Bee"), Team("t3", "Cat")]


def test_hand_computed_ceremony() -> None:
    # before the freeze (240): t1 solved a at 10; t2 solved a at 20. In the freeze: t3 solves a and b (250, 260),
    # t2 fails b (255); t1 nothing.
    tries = [
        Try("t1", "a", 10 * MIN, Outcome.SOLVED, 1),
        Try("t2", "a", 20 * MIN, Outcome.SOLVED, 2),
        Try("t3", "a", 250 * MIN, Outcome.SOLVED, 3),
        Try("t2", "b", 255 * MIN, Outcome.REJECTED, 4),
        Try("t3", "b", 260 * MIN, Outcome.SOLVED, 5),
    ]
    c = Ceremony(["a", "b"], TEAMS, tries, {2, 3, 4}, {"t3": ["Contest winner", "Gold medal winner"], "t1": ["x"]})
    out = steps(c)
    assert [r.team_id for r in out[0].standings.rows] == ["t1", "t2", "t3"]  # frozen: t3 has only pending
    assert out[0].standings.rows[2].cells[0].num_pending == 1
    assert [(s.focus, s.revealed, s.citations) for s in out[1:]] == [
        ("t3", "a", ()),  # the bottom team: a revealed; t3 rises to 2nd (1 solved, 250 > 20)... still below t2
        ("t3", "b", ()),  # back on the cursor's row: b revealed, t3 rises to the top
        ("t2", "b", ()),  # now t2 is at the bottom: its wrong answer
        ("t1", None, ("x",)),  # t1's place (2nd) is final: its award
        ("t3", None, ("Contest winner", "Gold medal winner")),
    ]
    assert [r.team_id for r in out[1].standings.rows] == ["t1", "t2", "t3"]
    assert [r.team_id for r in out[2].standings.rows] == ["t3", "t1", "t2"]
    assert out[-1].standings == rank(["a", "b"], TEAMS, tries)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["t1", "t2", "t3"]),
            st.sampled_from(["a", "b"]),
            st.integers(0, 299),
            st.sampled_from([Outcome.SOLVED, Outcome.REJECTED, Outcome.FREE, None]),
        ),
        max_size=12,
    ),
    st.integers(0, 300),
)
def test_the_last_board_is_the_thawed_one(raw: list[tuple[str, str, int, Outcome | None]], freeze_min: int) -> None:
    tries = [Try(t, p, m * MIN, o, i) for i, (t, p, m, o) in enumerate(raw)]
    hidden = {i for i, t in enumerate(tries) if t.time_s >= freeze_min * MIN}
    out = steps(Ceremony(["a", "b"], TEAMS, tries, hidden, {}))
    assert out[-1].standings == rank(["a", "b"], TEAMS, tries)
    frozen = [
        Try(t.team_id, t.problem_id, t.time_s, None if i in hidden else t.outcome, t.order) for i, t in enumerate(tries)
    ]
    assert out[0].standings == rank(["a", "b"], TEAMS, frozen)
    assert len(out) == 1 + len(
        {(tries[i].team_id, tries[i].problem_id) for i in hidden if tries[i].outcome is not None}
    )
