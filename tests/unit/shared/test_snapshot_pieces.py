"""An image in pieces is drawn one piece per turn of the event loop, so other work runs between its pieces, and packed
as the whole image would be; a failure reaches whoever awaits its bytes. Partitions restored together fall due for
their snapshots spread over the interval."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from shared import snapshots


async def test_an_image_in_pieces_is_drawn_one_piece_per_turn_and_packed_whole():
    turns: list[str] = []

    def pieces() -> Iterator[bytes]:
        for n in range(4):
            turns.append(f"piece {n}")
            yield bytes([n]) * 1000

    async def other_work() -> None:
        for n in range(4):
            turns.append(f"other {n}")
            await asyncio.sleep(0)

    taken = snapshots.take(snapshots.Image(pieces(), 3, (7,)))
    await asyncio.gather(other_work(), asyncio.wrap_future(taken.packed))
    assert taken.packed.result() == snapshots.pack(b"".join(bytes([n]) * 1000 for n in range(4)))
    assert (taken.format_version, taken.quarantined) == (3, (7,))
    assert turns[:8] == [item for n in range(4) for item in (f"piece {n}", f"other {n}")]


async def test_a_piece_that_fails_fails_the_images_bytes():
    def pieces() -> Iterator[bytes]:
        yield b"{"
        raise TypeError("not serializable")

    taken = snapshots.take(snapshots.Image(pieces(), 1))
    with pytest.raises(TypeError, match="not serializable"):
        await asyncio.wrap_future(taken.packed)


def test_without_a_running_event_loop_the_pieces_are_packed_at_once():
    taken = snapshots.take(snapshots.Image(iter([b"ab", b"cd"]), 1))
    assert taken.packed.done() and taken.packed.result() == snapshots.pack(b"abcd")


@pytest.mark.parametrize("partitions", [1, 3, 6, 12, 64])
def test_partitions_restored_together_fall_due_spread_over_the_interval(partitions):
    now, every_s = 10_000.0, 600.0
    taken_at = sorted(snapshots.staggered(p, every_s, now) for p in range(partitions))
    assert snapshots.staggered(0, every_s, now) == now  # partition 0: a whole interval from now
    assert all(now - every_s < at <= now for at in taken_at)
    gaps = [later - earlier for earlier, later in zip(taken_at, taken_at[1:])]
    # Golden-ratio phases: no two partitions closer than a third of an even spread (three-gap theorem).
    assert all(gap > every_s / partitions / 3 for gap in gaps)
