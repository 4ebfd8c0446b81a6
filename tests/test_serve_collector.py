"""`judge serve`'s garbage collector policy (judge/commands/collector.py): what survives a full collection is
frozen, and now and then everything goes through a full collection again, so cyclic garbage is not kept for
good. With the real gc module, and with fakes for the policy's decisions."""

from __future__ import annotations

import gc
import weakref
from dataclasses import dataclass, field

from judge.commands.collector import FreezingCollector, frozen_heap

FULL = {"generation": 2, "collected": 0, "uncollectable": 0}


@dataclass
class FakeGc:
    """Counts what the collector asks of gc; ``count`` is what gc.get_freeze_count would say."""

    count: int = 0
    calls: list[str] = field(default_factory=list)

    def freeze(self) -> None:
        self.calls.append("freeze")

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def frozen(self) -> int:
        return self.count


def fake_collector(fake: FakeGc, now: list[float], every_s: float = 600.0) -> FreezingCollector:
    return FreezingCollector(
        every_s=every_s,
        growth=2.0,
        freeze=fake.freeze,
        unfreeze=fake.unfreeze,
        frozen=fake.frozen,
        clock=lambda: now[0],
    )


def test_survivors_of_a_full_collection_are_frozen_and_young_collections_are_left_alone() -> None:
    fake, now = FakeGc(count=1000), [0.0]
    collector = fake_collector(fake, now)
    collector.start()
    assert fake.calls == ["freeze"]
    for generation in (0, 1):
        collector("stop", {**FULL, "generation": generation})
    collector("start", FULL)
    assert fake.calls == ["freeze"]
    fake.count = 1500
    collector("stop", FULL)
    assert fake.calls == ["freeze", "freeze"]
    assert collector.complete_passes == 0


def test_growth_or_age_unfreezes_everything_for_one_complete_pass() -> None:
    fake, now = FakeGc(count=1000), [0.0]
    collector = fake_collector(fake, now)
    collector.start()
    fake.count = 2001  # more than twice the frozen objects at the start
    collector("stop", FULL)
    assert fake.calls[-2:] == ["freeze", "unfreeze"]
    collector("stop", FULL)  # the complete pass: frozen again, and the new baseline
    assert fake.calls[-1] == "freeze" and collector.complete_passes == 1
    fake.count = 3000
    collector("stop", FULL)
    assert fake.calls[-1] == "freeze"  # 3000 is not twice 2001
    now[0] = 600.0  # but the last complete pass is 10 minutes old
    collector("stop", FULL)
    assert fake.calls[-2:] == ["freeze", "unfreeze"]
    collector("stop", FULL)
    assert collector.complete_passes == 2
    assert fake.calls.count("unfreeze") == 2


class Node:
    """An object the collector tracks, to make a reference cycle of."""

    me: Node | None = None


def test_cyclic_garbage_frozen_alive_is_freed_by_the_next_complete_pass() -> None:
    now = [0.0]
    node = Node()
    node.me = node
    alive = weakref.ref(node)
    with frozen_heap(FreezingCollector(every_s=100.0, growth=1e9, clock=lambda: now[0])) as collector:
        assert gc.get_freeze_count() > 0  # the node among what was frozen at the start
        del node
        gc.collect()
        assert alive() is not None, "frozen: a full collection does not go through it"
        now[0] = 100.0
        gc.collect()  # frozen again, then everything unfrozen
        gc.collect()  # the complete pass
        assert alive() is None
        assert collector.complete_passes >= 1
        assert gc.get_freeze_count() > 0  # what survived the complete pass is frozen again
    assert collector not in gc.callbacks
    assert gc.get_freeze_count() == 0


def test_garbage_of_the_start_is_not_frozen() -> None:
    node = Node()
    node.me = node
    alive = weakref.ref(node)
    del node
    with frozen_heap(FreezingCollector(clock=lambda: 0.0)):
        assert alive() is None
