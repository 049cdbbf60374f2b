"""The loop's HeapFreezer: gc.freeze() every `every_s` seconds (never with 0), so the cyclic collector's full
collections scan only what came since the last freeze, not the books."""

from __future__ import annotations

import gc

from shared.loop import GC_FREEZE_ENV, HeapFreezer


def test_it_freezes_once_the_interval_has_passed_and_not_before():
    freezer = HeapFreezer(every_s=30.0, frozen_at=100.0)
    try:
        assert not freezer.tick(now=129.9)
        before = gc.get_freeze_count()
        held = [[n] for n in range(1000)]  # tracked containers made since
        assert freezer.tick(now=130.0) and gc.get_freeze_count() >= before + len(held)
        assert not freezer.tick(now=159.0) and freezer.tick(now=160.0)
    finally:
        gc.unfreeze()


def test_zero_turns_it_off_and_the_environment_sets_it():
    assert not HeapFreezer(every_s=0, frozen_at=0.0).tick(now=1e9)
    assert HeapFreezer.from_env({GC_FREEZE_ENV: "0"}).every_s == 0
    assert HeapFreezer.from_env({}).every_s == 30.0
