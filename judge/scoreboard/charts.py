"""Distributions as bar charts: pure functions that return numbers; the template draws the inline SVG."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 520, 190
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 40, 10, 12, 44
MAX_DISTINCT = 12  # up to this many distinct values get one bar each; more are put in equal bins
BINS = 10
MAX_BAR_WIDTH = 56.0  # a chart of one or two values keeps slim bars


@dataclass(frozen=True)
class Bin:
    label: str
    count: int
    lo: float
    hi: float


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    count: int
    label: str
    label_x: float
    title: str  # tooltip


@dataclass(frozen=True)
class Tick:
    y: float
    label: str


@dataclass(frozen=True)
class Chart:
    title: str
    x_caption: str
    width: int
    height: int
    baseline: float  # y of the x axis
    left: float
    right: float
    top: float
    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...]
    total: int

    @property
    def empty(self) -> bool:
        return self.total == 0


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def score_bins(scores: Sequence[float], max_score: float, n: int = BINS) -> list[Bin]:
    """``n`` equal bins over [0, max_score]; the full score falls in the last one."""
    if max_score <= 0:
        return [Bin("0", len(scores), 0.0, 0.0)]
    width = max_score / n
    counts = [0] * n
    for s in scores:
        counts[min(max(int(s / width + 1e-9), 0), n - 1)] += 1
    return [
        Bin(f"{_fmt(i * width)}–{_fmt((i + 1) * width)}", c, i * width, (i + 1) * width) for i, c in enumerate(counts)
    ]


def value_bins(values: Sequence[float], n: int = BINS) -> list[Bin]:
    """A bin per distinct value when there are few, else ``n`` equal bins from the least to the largest."""
    finite = [v for v in values if math.isfinite(v)]
    distinct = sorted(set(finite))
    if len(distinct) <= MAX_DISTINCT:
        return [Bin(_fmt(v), finite.count(v), v, v) for v in distinct]
    lo, hi = distinct[0], distinct[-1]
    width = (hi - lo) / n
    counts = [0] * n
    for v in finite:
        counts[min(int((v - lo) / width), n - 1)] += 1
    return [
        Bin(f"{_fmt(lo + i * width)}–{_fmt(lo + (i + 1) * width)}", c, lo + i * width, lo + (i + 1) * width)
        for i, c in enumerate(counts)
    ]


def _nice_max(count: int) -> int:
    if count <= 5:
        return max(count, 1)
    step = 10 ** int(math.log10(count))
    for m in (1, 2, 5, 10):
        if count <= m * step:
            return m * step
    return count


def bar_chart(bins: Sequence[Bin], *, title: str, x_caption: str, unit: str = "contestants") -> Chart:
    """Geometry of a vertical bar chart of ``bins`` (counts)."""
    left, right = float(MARGIN_LEFT), float(WIDTH - MARGIN_RIGHT)
    top, baseline = float(MARGIN_TOP), float(HEIGHT - MARGIN_BOTTOM)
    total = sum(b.count for b in bins)
    y_max = _nice_max(max((b.count for b in bins), default=0))
    slot = (right - left) / max(len(bins), 1)
    width = min(slot - min(6.0, slot * 0.15), MAX_BAR_WIDTH)
    bars = []
    for i, b in enumerate(bins):
        h = (baseline - top) * b.count / y_max
        middle = left + (i + 0.5) * slot
        noun = unit if b.count != 1 else unit.removesuffix("s")
        bars.append(
            Bar(
                x=round(middle - width / 2, 2),
                y=round(baseline - h, 2),
                width=round(width, 2),
                height=round(h, 2),
                count=b.count,
                label=b.label,
                label_x=round(middle, 2),
                title=f"{b.label}: {b.count} {noun}",
            )
        )
    step = 1 if y_max <= 5 else y_max // 5
    ticks = tuple(
        Tick(round(baseline - (baseline - top) * v / y_max, 2), str(v)) for v in range(0, y_max + 1, max(step, 1))
    )
    return Chart(title, x_caption, WIDTH, HEIGHT, baseline, left, right, top, tuple(bars), ticks, total)
