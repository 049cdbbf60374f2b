"""A thousand generated hostile records over every input topic, then a restart of every service and a normal spin.

Scenario: players deposit and spin; the fuzzer (reelstream/chaos/fuzz.py) writes 1,000 records drawn by hypothesis
onto every input topic (spin.requests, wallet.commands, jackpot.commands, the internal commands, the event topics,
jackpot.meters and spin.jackpot-answers), each as its topic's least privileged principal; every service is restarted
(each restore meets them); a normal spin still settles, the balance moved by that spin only, no pool paid out, and no
forged stake counted. (`reelstream fuzz` and tests/integration/security/test_hostile_records_campaign.py probe every
consumer after each batch.)
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reelstream.chaos.campaign import draw_records
from reelstream.chaos.writers import HostileWriter
from reelstream.client import Settled
from shared import records, signing
from shared.events import decode
from shared.events.jackpot import ContributionsApplied, JackpotWon

from conftest import client_for, token_for

PLAYERS = ("fz-1", "fz-2", "fz-3")
BATCHES, PER_BATCH = 4, 250
SEED = 17
written: list[int] = []


@pytest.fixture(scope="module")
def platform(platform_factory):
    made = platform_factory()
    with client_for(made) as client:
        for player in PLAYERS:
            client.deposit(player, 100_000, "EUR")
        assert isinstance(client.spin("fz-1", "rising-joker", 100, "EUR", token_for("fz-1")), Settled)
    return made


@pytest.mark.parametrize("batch", range(BATCHES))
def test_generated_hostile_records_are_written_to_every_input_topic(platform, batch):
    items = draw_records(SEED + batch, PER_BATCH, datetime.now(timezone.utc), signing.sign_one, PLAYERS)
    with HostileWriter(platform.bootstrap, platform.topic) as writer:
        done = writer.write(items)
    written.append(len(done.taken) + len(done.refused))


def test_after_a_restart_of_every_service_a_normal_spin_settles_and_nothing_hostile_counted(platform):
    assert sum(written) >= BATCHES * PER_BATCH
    with client_for(platform) as client:
        before = client.spin("fz-2", "rising-joker", 100, "EUR", token_for("fz-2"))
        assert isinstance(before, Settled)
        for name in ("wallet", "jackpot", "spin"):
            platform.services[name].stop()
            platform.start(name).wait_ready(120)
        # A restore that meets every hostile record, on a loaded machine: correctness is asserted here, not latency.
        after = client.spin("fz-2", "rising-joker", 100, "EUR", token_for("fz-2"), timeout_s=60)
        assert isinstance(after, Settled)
        assert after.balance_after_minor == before.balance_after_minor - 100 + after.win_minor
    assert not _trusted(platform, "jackpot.events", JackpotWon), "no pool paid out"
    stakes = [
        c.stake_minor
        for event in _trusted(platform, "jackpot.events", ContributionsApplied)
        for c in event.contributions
    ]
    assert stakes and max(stakes) <= 2000, "no forged stake counted"
    assert len(platform.read_raw("wallet.commands.dlq")) > 0
    assert len(platform.read_raw("spin.requests.dlq")) > 0


def _trusted(platform, topic: str, kind) -> list:
    return [
        event.data
        for event in (
            decode(r.value)
            for r in platform.read_raw(topic)
            if records.provenance_problem(topic, r.headers, r.value, r.key) is None
        )
        if isinstance(event.data, kind)
    ]
