"""The HeapFreezer (shared/heap.py): gc.freeze() every `every_s` seconds (never with 0), so the cyclic collector's full
collections scan only what came since the last freeze, not the books."""

from __future__ import annotations

import gc

from shared.heap import GC_FREEZE_ENV, GC_SWEEP_ENV, HeapFreezer


def test_it_freezes_once_the_interval_has_passed_and_not_before():
    freezer = HeapFreezer(every_s=30.0, frozen_at=100.0, swept_at=100.0)
    try:
        assert freezer.tick(now=129.9) is None
        before = gc.get_freeze_count()
        held = [[n] for n in range(1000)]  # tracked containers made since
        assert freezer.tick(now=130.0) == "freeze" and gc.get_freeze_count() >= before + len(held)
        assert freezer.tick(now=159.0) is None and freezer.tick(now=160.0) == "freeze"
    finally:
        gc.unfreeze()


def test_a_sweep_every_so_often_collects_cycles_that_died_frozen():
    class Node:
        pass

    freezer = HeapFreezer(every_s=30.0, sweep_every_s=600.0, frozen_at=0.0, swept_at=0.0)
    try:
        gc.collect()
        cycle = Node()
        cycle.me = cycle  # a reference cycle: reference counting alone never frees it
        assert freezer.tick(now=30.0) == "freeze"
        del cycle
        gc.collect()
        assert any(type(o) is Node for o in gc.get_objects() + _frozen()), "a frozen cycle was collected"
        assert freezer.tick(now=600.0) == "sweep"
        assert freezer.last_sweep[0] >= 1, "the sweep counts what it found unreachable"
        assert not any(type(o) is Node for o in _frozen()), "the sweep left the dead cycle"
    finally:
        gc.unfreeze()


def _frozen() -> list:
    """The frozen objects (the permanent generation is not listed by get_objects)."""
    gc.unfreeze()
    objects = gc.get_objects()
    gc.freeze()
    return objects


def test_zero_turns_it_off_and_the_environment_sets_it():
    assert HeapFreezer(every_s=0, frozen_at=0.0).tick(now=1e9) is None
    assert HeapFreezer.from_env({GC_FREEZE_ENV: "0"}).every_s == 0
    assert HeapFreezer.from_env({}).every_s == 30.0
    assert HeapFreezer.from_env({}).sweep_every_s == 3600.0
    assert HeapFreezer.from_env({GC_SWEEP_ENV: "600"}).sweep_every_s == 600.0
