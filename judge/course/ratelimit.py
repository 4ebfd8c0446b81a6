"""A rate limit students can see (issue 45): a token bucket of ``submissions`` tokens, one back every
``every_s`` seconds (Web-CAT's recharging tokens, PrairieLearn's ``gradeRateMinutes`` when ``submissions`` is 1).

Pure state: a ``Bucket`` is how many tokens are left and since when the next one has been coming back. The
refill clock starts when a full bucket loses a token and runs while the bucket is not full; tokens come back
one at a time, each ``every_s`` after the previous one, never above ``submissions``. A submission takes one
token; with none left it is refused (and, in `judge serve`, not stored, so it costs nothing). The state of a
student's bucket is a fold of ``take`` over the times of their stored submissions (``replay``): nothing new
needs storing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

_EPSILON = 1e-9  # seconds: float sums of the refill clock must not lose a token that is due exactly now


@dataclass(frozen=True)
class RateLimit:
    """``submissions`` at once, then one more every ``every_s`` seconds."""

    submissions: int
    every_s: float

    def __post_init__(self) -> None:
        if self.submissions < 1 or not self.every_s > 0:
            raise ValueError("a rate limit needs at least one submission and a positive refill time")


@dataclass(frozen=True)
class Bucket:
    tokens: int
    since_s: float | None = None  # when the refill clock last ticked; None: full (no clock runs)


@dataclass(frozen=True)
class BucketStatus:
    """What the submit page says: how many submissions are left now, when the next token comes back (None:
    the bucket is full) and when it is full again."""

    left: int
    next_back_s: float | None
    full_s: float | None


def full(limit: RateLimit) -> Bucket:
    return Bucket(limit.submissions, None)


def refill(limit: RateLimit, bucket: Bucket, now: float) -> Bucket:
    """``bucket`` at ``now``: the tokens that came back since its clock last ticked."""
    if bucket.since_s is None or now <= bucket.since_s:
        return bucket
    gained = math.floor((now - bucket.since_s) / limit.every_s + _EPSILON)
    tokens = bucket.tokens + gained
    if tokens >= limit.submissions:
        return full(limit)
    return Bucket(tokens, bucket.since_s + gained * limit.every_s)


def take(limit: RateLimit, bucket: Bucket, now: float) -> Bucket | None:
    """The bucket after a submission at ``now``; None: no token left (the submission is refused)."""
    current = refill(limit, bucket, now)
    if current.tokens < 1:
        return None
    return Bucket(current.tokens - 1, now if current.since_s is None else current.since_s)


def status(limit: RateLimit, bucket: Bucket, now: float) -> BucketStatus:
    current = refill(limit, bucket, now)
    if current.since_s is None:
        return BucketStatus(current.tokens, None, None)
    next_back = current.since_s + limit.every_s
    return BucketStatus(
        current.tokens, next_back, current.since_s + (limit.submissions - current.tokens) * limit.every_s
    )


def replay(limit: RateLimit, times_s: Iterable[float]) -> Bucket:
    """The bucket after the submissions made at ``times_s`` (any order): each takes a token if one is left.
    A stored submission that would be refused now (the limit was lowered since) takes nothing."""
    bucket = full(limit)
    for t in sorted(times_s):
        bucket = take(limit, bucket, t) or bucket
    return bucket
