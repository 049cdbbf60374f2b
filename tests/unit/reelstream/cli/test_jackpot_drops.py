"""`reelstream jackpot drops`: every reveal of the log beside the commitment its cycle published, checked."""

from __future__ import annotations


from types import SimpleNamespace

from reelstream.commands.jackpot import drop_rows
from services.jackpot.adapters.records import event_record
from shared import records
from shared.events import encode
from shared.events import jackpot as jp
from shared.events.base import packable_types
from shared.packing import packed
from shared.topics import JACKPOT_EVENTS
from tests.support.mustdrop import drop_pools, secrets
from tests.support.jackpot import Network, contribute, incoming

POOLS = drop_pools()
DIAMOND = POOLS.network("diamond-mystery")


def _records(events) -> list:
    return [
        SimpleNamespace(
            value=encode(e),
            key=e.key,
            headers=records.headers_for("jackpot"),  # what the jackpot puts on every record it writes
            timestamp=1_800_000_000_000 + i,
            partition=0,
            offset=i,
        )
        for i, e in enumerate(events)
    ]


def _history() -> list:
    net = Network(DIAMOND, secrets())
    batch = [contribute(DIAMOND, stake_minor=2000) for _ in range(60)]
    outcome = net.send_incoming([incoming(c, 1_800_000_000_000 + i) for i, c in enumerate(batch)])
    return list(outcome.events)


def test_a_log_whose_contributions_the_loop_packed_lists_the_same_reveals():
    events = _history()
    outputs = packed([event_record(e) for e in events], packable_types(JACKPOT_EVENTS))
    assert len(outputs) < len(events)
    written = [
        SimpleNamespace(value=o.value, key=o.key, headers=o.headers, timestamp=1_800_000_000_000, partition=0, offset=i)
        for i, o in enumerate(outputs)
    ]
    assert [row["verified"] for row in drop_rows(written)] == [row["verified"] for row in drop_rows(_records(events))]
    assert len(drop_rows(written)) == sum(isinstance(e.data, jp.DropRevealed) for e in events) >= 2


def test_every_reveal_is_listed_and_verified():
    events = _history()
    rows = drop_rows(_records(events))
    assert len(rows) == sum(isinstance(e.data, jp.DropRevealed) for e in events) >= 2
    assert {row["verified"] for row in rows} == {"yes"}
    assert all(row["drop_point"].endswith(" EUR") for row in rows)


def test_a_reveal_that_does_not_match_its_commitment_says_no():
    events = _history()
    index = next(i for i, e in enumerate(events) if isinstance(e.data, jp.DropRevealed))
    forged = events[index].data.model_copy(update={"drop_value": events[index].data.drop_value + 1})
    events[index] = events[index].model_copy(update={"data": forged})
    assert [row["verified"] for row in drop_rows(_records(events))][0] == "NO"


def test_what_the_jackpot_did_not_write_is_neither_shown_nor_fatal():
    # Ops may write jackpot.events (re-drives): a reveal it wrote itself, and bytes that are no event at all, are
    # skipped by the CLI's views as by every other reader, never shown as the jackpot's and never a traceback.
    events = _history()
    honest = drop_rows(_records(events))
    planted = _records(events)
    index = next(i for i, e in enumerate(events) if isinstance(e.data, jp.DropRevealed))
    planted[index].headers = records.headers_for("ops")
    planted.append(SimpleNamespace(value=b"[" * 2000, key=b"x", headers=[], timestamp=0, partition=0, offset=999))
    assert len(drop_rows(planted)) == len(honest) - 1
