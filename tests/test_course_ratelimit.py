"""The rate limit's token bucket (judge/course/ratelimit.py) against a simple reference model: a clock that
ticks minute by minute, a counter that counts the minutes while the bucket is not full and gives a token back
when it reaches the refill time. A Hypothesis state machine submits and waits at random; after every step the
bucket says what the model says (how many are left, when the next comes back, when it is full again), and
replaying the accepted submissions' times gives the same bucket."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from judge.course.ratelimit import Bucket, RateLimit, full, replay, status, take

MINUTE = 60.0
T0 = 1_789_000_000.1  # a time of day with a fraction: the float sums of the refill clock must not lose a token


class Model:
    """Minute ticks: ``counter`` minutes have passed towards the next token (0 while the bucket is full)."""

    def __init__(self, capacity: int, every: int) -> None:
        self.capacity, self.every = capacity, every
        self.tokens, self.counter = capacity, 0

    def tick(self) -> None:
        if self.tokens < self.capacity:
            self.counter += 1
            if self.counter == self.every:
                self.tokens, self.counter = self.tokens + 1, 0

    def submit(self) -> bool:
        if self.tokens == 0:
            return False
        self.tokens -= 1
        return True

    def next_back(self) -> int | None:
        return None if self.tokens == self.capacity else self.every - self.counter

    def full_in(self) -> int | None:
        back = self.next_back()
        return None if back is None else back + (self.capacity - self.tokens - 1) * self.every


class BucketMachine(RuleBasedStateMachine):
    @initialize(capacity=st.integers(1, 4), every=st.integers(1, 5))
    def start(self, capacity: int, every: int) -> None:
        self.limit = RateLimit(capacity, every * MINUTE)
        self.model = Model(capacity, every)
        self.bucket: Bucket = full(self.limit)
        self.minute = 0
        self.accepted: list[float] = []

    @property
    def now(self) -> float:
        return T0 + self.minute * MINUTE

    @rule(minutes=st.integers(0, 12))
    def wait(self, minutes: int) -> None:
        for _ in range(minutes):
            self.model.tick()
            self.minute += 1

    @rule()
    def submit(self) -> None:
        after = take(self.limit, self.bucket, self.now)
        assert (after is not None) == self.model.submit()
        if after is not None:
            self.bucket = after
            self.accepted.append(self.now)

    @invariant()
    def says_what_the_model_says(self) -> None:
        if not hasattr(self, "model"):
            return
        s = status(self.limit, self.bucket, self.now)
        assert s.left == self.model.tokens
        back, full_in = self.model.next_back(), self.model.full_in()
        assert s.next_back_s == (None if back is None else self.now + back * MINUTE) or (
            back is not None and s.next_back_s is not None and abs(s.next_back_s - (self.now + back * MINUTE)) < 1e-6
        )
        if full_in is None:
            assert s.full_s is None
        else:
            assert s.full_s is not None and abs(s.full_s - (self.now + full_in * MINUTE)) < 1e-6
        assert status(self.limit, replay(self.limit, self.accepted), self.now) == s


BucketMachine.TestCase.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)
TestBucket = BucketMachine.TestCase


def test_the_submit_pages_words() -> None:
    """Five at once, one back every 30 minutes: after five at 10:00 none is left; the first comes back at 10:30;
    a sixth at 10:29 is refused and costs nothing; at 12:30 the bucket is full again."""
    limit = RateLimit(5, 30 * MINUTE)
    bucket = replay(limit, [T0] * 5)
    assert status(limit, bucket, T0) == type(status(limit, bucket, T0))(0, T0 + 1800, T0 + 5 * 1800)
    assert take(limit, bucket, T0 + 29 * MINUTE) is None
    assert status(limit, bucket, T0 + 30 * MINUTE).left == 1
    assert (
        status(limit, bucket, T0 + 150 * MINUTE).left == 5
        and status(limit, bucket, T0 + 150 * MINUTE).next_back_s is None
    )
