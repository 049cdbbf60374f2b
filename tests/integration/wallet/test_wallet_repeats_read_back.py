"""A repeat through the real broker is the very record of the first time, read back from wallet.events.

Scenario: the wallet runs in this process on fresh prefixed topics and decides a deposit; once that transaction has
committed, the same deposit comes again and is answered with the first record read back at its offset; the wallet is
then stopped, a new instance restores the partition from wallet.events alone (the wallet.commands position too, so
nothing is decided twice), and a third copy of the deposit is answered with those bytes once more."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from shared.events import decode
from shared.events.wallet import Deposit
from shared.topics import WALLET_EVENTS

from services.wallet.adapters.runner import WalletService
from test_restore_equals_live import _wallet_config
from wallet_harness import create_topics, drop_topics, fresh_prefix, read_until, send

pytestmark = pytest.mark.integration
WAIT_S = 90


@pytest.fixture
def prefix(kafka_bootstrap):
    name = fresh_prefix()
    create_topics(kafka_bootstrap, name)
    yield name
    drop_topics(kafka_bootstrap, name)


def test_a_repeat_after_a_commit_and_after_a_restart_is_the_first_record_byte_for_byte(kafka_bootstrap, prefix):
    config = _wallet_config(kafka_bootstrap, prefix)
    deposit = Deposit(transaction_id=uuid.uuid4(), player_id="it-player-0", amount_minor=500, currency="EUR")

    async def one_instance(rounds: int) -> int:
        """A fresh instance (restored from wallet.events) deciding the deposit once per round, each round committed
        before the next is sent; how many records it read back."""
        service, stop = WalletService(config), asyncio.Event()
        task = asyncio.create_task(service.run(stop))
        deadline = asyncio.get_running_loop().time() + WAIT_S
        for _ in range(rounds):
            decided = service.stats.records
            send(kafka_bootstrap, prefix, [deposit])
            while service.stats.records <= decided or service.loop.busy():
                assert not task.done(), "the wallet stopped"
                assert asyncio.get_running_loop().time() < deadline, f"not decided in {WAIT_S} s"
                await asyncio.sleep(0.1)
        stop.set()
        await task
        return service.reader.read

    async def scenario() -> tuple[int, int]:
        return await one_instance(2), await one_instance(1)  # the second restored from wallet.events

    assert asyncio.run(scenario()) == (1, 1)
    events = read_until(kafka_bootstrap, prefix + WALLET_EVENTS, lambda found: len(found) >= 3, 30)
    assert len(events) == 3
    assert len({(event.key, event.value) for event in events}) == 1, "every answer is the first record's bytes"
    assert decode(events[0].value).data.amount_minor == 500
