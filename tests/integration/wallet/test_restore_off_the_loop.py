"""A large snapshot is restored while the event loop keeps turning: the group's heartbeats share that loop, and a
decode that held it for longer than the session timeout got the member evicted while it restored.

Scenario: one wallet partition's snapshot holding many players and a full de-duplication memory, written the way the
loop writes it (in a transaction, as the wallet principal). A ticker on the event loop records the longest gap
between its turns while the partition is restored from that snapshot; the gap stays a small part of the restore and
under the heartbeat interval, and the book comes back exactly as it was written.
"""

from __future__ import annotations

import asyncio
import time
import uuid

from shared import snapshots
from shared.restoring import Report
from shared.kafka import aio_producer, group_membership
from shared.topics import WALLET_EVENTS, WALLET_SNAPSHOTS

from services.wallet.adapters import restore, snapshot
from services.wallet.adapters.written import Written
from services.wallet.core.book import WalletBook
from services.wallet.core.state import OpenWager, PlayerState, Remembered

PLAYERS = 16_000
ENTRIES_PER_PLAYER = 10  # the de-duplication memory is most of a real snapshot's bytes
TICK_S = 0.005


def _large_book() -> tuple[WalletBook, Written]:
    """A book with a full memory, each remembered fact at its own wallet.events offset."""
    book, written = WalletBook(0), Written()
    for number in range(PLAYERS):
        player_id = f"player-{number:07d}"
        wager = OpenWager("EUR", 100, 1_000, "rising-joker")
        book.players[player_id] = PlayerState(player_id, ENTRIES_PER_PLAYER, {"EUR": 10_000}, {"w-1": wager})
        for seq in range(ENTRIES_PER_PLAYER):
            entry = Remembered(str(uuid.uuid4()), seq, 1_000 + seq, "f" * 64, str(uuid.uuid4()), "WagerDebited")
            book.remember(player_id, entry)
            written.repeats.kept(entry.event_id, number * ENTRIES_PER_PLAYER + seq, entry.recorded_ms)
    return book, written


async def _write(bootstrap: str, topic: str, group: str, image: snapshots.Image) -> None:
    producer = aio_producer(bootstrap, role="wallet", transactional_id=f"{group}-probe-p0")
    await producer.start()
    try:
        async with producer.transaction():
            for key, value, headers in snapshots.encode("wallet", WALLET_SNAPSHOTS, 0, 0, image, None, 0):
                await producer.send(topic, value, key=key, headers=headers, partition=0)
    finally:
        await producer.stop()


async def _restore_while_ticking(bootstrap: str, prefix: str) -> tuple[Report, float, float]:
    """The restore's report, its seconds, and the longest gap between two turns of the loop meanwhile."""
    gaps: list[float] = []
    stop = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(TICK_S)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    report = (await restore.restoring(bootstrap, prefix + WALLET_EVENTS, prefix + WALLET_SNAPSHOTS).restore(0)).report
    took = time.perf_counter() - started
    stop.set()
    await ticker
    return report, took, max(gaps)


def test_the_event_loop_keeps_turning_while_a_large_snapshot_is_restored(kafka_bootstrap, fresh_prefix):
    book, written = _large_book()
    image = snapshot.image(book, written)
    asyncio.run(_write(kafka_bootstrap, fresh_prefix + WALLET_SNAPSHOTS, fresh_prefix + "reelstream-wallet", image))

    report, took_s, gap_s = asyncio.run(_restore_while_ticking(kafka_bootstrap, fresh_prefix))
    print(f"{len(image.state) / 1e6:.0f} MB image restored in {took_s:.2f} s, longest loop gap {gap_s * 1000:.0f} ms")

    assert report.snapshot_offset == 0, "the partition was not restored from the snapshot"
    assert report.state.players == book.players
    assert report.state.live_entries() == book.live_entries()
    assert list(report.held.written.repeats.places()) == list(written.repeats.places())
    heartbeat_s = group_membership({})["heartbeat_interval_ms"] / 1000
    assert gap_s < heartbeat_s, f"the loop stood still {gap_s:.2f} s, past a heartbeat interval"
    assert gap_s < took_s / 2, f"the loop stood still {gap_s:.2f} s of a {took_s:.2f} s restore"
