"""The one restore shape (shared/restoring.py) with a spec whose tail is in memory (no snapshots topic): a restore
counts itself once in the stats, keeps the quarantined offsets the next image names, counts what it folded as not yet
in a snapshot, and falls due staggered; a warm restoration is folded on, and one the topics have fallen behind is
dropped for a cold restore; an image falls due after `every_count` changes, after `every_s` with anything changed, or
at shutdown, never with nothing changed; the spec's prune runs every `prune_every` records folded and at the end."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from shared import snapshots
from shared.loop import LoopStats
from shared.restoring import Restoring, RestoreSpec
from tests.support.snapshot_log import LogRecord

LOG = [3, -1, 4, 1, -5, 9]  # one partition's records: a negative one is refused (quarantined), never folded


def _image(quarantined: tuple[int, ...]) -> snapshots.Image:
    return snapshots.Image(b"state", 1, quarantined)


def _spec(log: list[int], ends_before: int | None = None) -> RestoreSpec:
    """Folding `log` on from where a restoration stands; `ends_before`: the topic ends there (it was recreated)."""

    def tail(partition: int) -> snapshots.Tail:
        async def folded(start: snapshots.Restoration) -> snapshots.Restoration | None:
            if ends_before is not None and start.events_end > ends_before:
                return None
            quarantined, state = list(start.quarantined), start.state
            for offset in range(start.events_end, len(log)):
                if log[offset] < 0:
                    quarantined.append(offset)
                else:
                    state.append(log[offset])
            folded = start.folded + len(log) - start.events_end - (len(quarantined) - len(start.quarantined))
            end, cursor = len(log), start.cursor
            return snapshots.Restoration(state, start.snapshot, folded, tuple(quarantined), None, end, cursor)

        return folded

    return RestoreSpec("wallet", "wallet.snapshots", "wallet.commands", lambda s: [], lambda p: [], tail=tail)


def _restoring(spec: RestoreSpec, stats: LoopStats | None = None) -> Restoring:
    return Restoring(spec, "localhost:1", "t-wallet.events", None, every_s=60.0, every_count=3, stats=stats)


def test_a_restore_is_counted_once_keeps_its_quarantine_and_falls_due_staggered(caplog):
    stats = LoopStats()
    restoring = _restoring(_spec(LOG), stats)
    with caplog.at_level(logging.INFO, logger="reelstream.wallet"):
        restored = asyncio.run(restoring.restore(1))
    assert restored.state == [3, 4, 1, 9]
    assert (restored.report.folded, restored.report.snapshot_offset, restored.report.events_end) == (4, None, 6)
    assert (stats.restores, stats.restored_events, stats.restored_from_snapshot) == (1, 4, 0)
    assert restoring.quarantined[1] == (1, 4)
    assert restoring.unsnapshotted[1] == 4
    assert time.monotonic() - restoring.snapshot_at[1] > 30, "partition 1's first snapshot falls due staggered"
    assert "partition 1 restored in" in caplog.text and "4 records folded, 2 quarantined" in caplog.text


def test_a_warm_restoration_is_folded_on_and_one_ahead_of_the_topics_is_restored_cold():
    warm = snapshots.Restoration([3, 4], None, 2, (1,), None, 3, None)
    restored = asyncio.run(_restoring(_spec(LOG)).restore(0, warm))
    assert (restored.state, restored.report.folded, restored.report.warm) == ([3, 4, 1, 9], 4, True)
    ahead = snapshots.Restoration([7], None, 1, (), None, 9, None)
    restored = asyncio.run(_restoring(_spec(LOG, ends_before=6)).restore(0, ahead))
    assert restored.state == [3, 4, 1, 9], "a restoration the topics have fallen behind is not folded on"


def test_an_image_falls_due_after_enough_changes_or_time_or_at_shutdown_and_never_with_nothing_changed():
    stats = LoopStats()
    restoring = _restoring(_spec(LOG), stats)
    asyncio.run(restoring.restore(0))
    restoring.snapshot_at[0] = time.monotonic()  # as if just imaged
    made = restoring.image(0, _image)
    assert made is not None and made.quarantined == (1, 4), "4 changes folded by the restore are due (every 3)"
    assert restoring.unsnapshotted[0] == 0 and stats.snapshots == 1
    assert restoring.image(0, _image, force=True) is None, "nothing changed since"
    restoring.changed(0, 2)
    assert restoring.image(0, _image) is None, "2 changes within the interval are not due"
    assert restoring.image(0, _image, force=True) is not None
    restoring.snapshot_at[0] = time.monotonic() - 61
    restoring.changed(0, 1)
    assert restoring.image(0, _image) is not None, "one change, past the interval"
    restoring.released(0)
    assert 0 not in restoring.unsnapshotted and 0 not in restoring.quarantined and 0 not in restoring.snapshot_at


def _folding(state: list[int], record: LogRecord) -> str | None:
    value = int(record.value)
    if value < 0:
        return "refused"
    state.append(value)
    return None


@pytest.mark.parametrize("every", [1, 2, 5])
def test_the_folded_state_is_pruned_every_so_many_records_folded_and_at_the_end(every):
    pruned: list[int] = []
    prune = {"prune": lambda state: pruned.append(len(state)), "prune_every": every}
    spec = RestoreSpec("wallet", "wallet.snapshots", "wallet.commands", lambda s: [], lambda p: [], _folding, **prune)
    fold, state = _restoring(spec)._pruning(), []
    problems = [fold(state, LogRecord(b"k", b"%d" % value, [], offset)) for offset, value in enumerate(LOG)]
    assert problems == [None, "refused", None, None, "refused", None]
    assert pruned == [n for n in range(1, 5) if n % every == 0], "pruned after the every-th record folded"
    pruned.clear()
    asyncio.run(_restoring(RestoreSpec(**{**_spec(LOG).__dict__, **prune})).restore(0))
    assert pruned == [4], "a tail of its own is pruned once it is folded"


def test_one_events_topics_tail_folds_on_from_where_a_restoration_stands_and_refuses_one_the_topic_is_behind(
    monkeypatch,
):
    from shared import partition_log

    async def fold_partition(bootstrap, topic, partition, on_record, start, timeout_s, role):
        for offset in range(start, len(LOG)):
            on_record(LogRecord(b"k", b"%d" % LOG[offset], [], offset))
        return len(LOG)

    monkeypatch.setattr(partition_log, "fold_partition", fold_partition)
    tail = snapshots.events_tail("localhost:1", "wallet", 0, "t-wallet.events", _folding)
    start = snapshots.Restoration([3], None, 1, (1,), None, 2, snapshots.Cursor(2, None, 1))
    restored = asyncio.run(tail(start))
    assert (restored.state, restored.folded, restored.quarantined) == ([3, 4, 1, 9], 4, (1, 4))
    assert (restored.events_end, restored.cursor.events_next, restored.cursor.slot) == (6, 6, 1)
    behind = snapshots.Restoration([], None, 0, (), None, 7, None)
    assert asyncio.run(tail(behind)) is None, "a start past the topic's end (recreated) is not folded on"
