"""The seamless saga's two answers a player would otherwise lose, through the outbox, a real wallet.seamless topic and
the reference wallet (its own PostgreSQL ledger).

Scenario: a wager that strands the player's ½ cent is bet, then settled with a win of 250: the operator's ledger
holds one bet and one win of 251 (the ½ cent rounded up rides in the round's one win). Then the wallet answers every
call without its balance: a round bet and won is still acknowledged, its balance unknown, its money moved once."""

from __future__ import annotations

import uuid

import pytest

from seamless.protocols import PROTOCOLS
from shared.events.seamless import SeamlessWinAcknowledged, SeamlessWinDecided
from shared.topics import WALLET_SEAMLESS

from services.seamless_saga.adapters.clients import wallet_client
from services.seamless_saga.adapters.kafka_log import KafkaSeamlessLog, restore
from services.seamless_saga.adapters.outbox import Outbox
from services.seamless_saga.core.state import Phase
from tests.support.seamless import PLAYER, START_MINOR
from tests.support.seamless_outbox import OPERATOR, now_message, seamless_operator, settled
from tests.support.seamless_saga import debit, settle, wager_id

pytestmark = pytest.mark.integration

HALF = 500_000
PPM = 1_000_000


async def _ledger(wallet, n: int) -> list[tuple[str, str, int]]:
    rows = await wallet.ledger.pool.fetch(
        "SELECT kind, status, amount_minor FROM refwallet.transactions WHERE round_id = $1 ORDER BY position",
        str(wager_id(n)),
    )
    return [(row["kind"], row["status"], row["amount_minor"]) for row in rows]


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
async def test_a_stranded_remainder_rides_in_the_win_and_a_win_without_a_balance_is_acknowledged(
    wallet, kafka_bootstrap, fresh_prefix, tmp_path, protocol
):
    settings, core = seamless_operator(wallet, tmp_path, protocol)
    topic = fresh_prefix + WALLET_SEAMLESS
    log = await KafkaSeamlessLog(kafka_bootstrap, topic, f"reelstream-wallet-seamless-{uuid.uuid4().hex}").open()
    client = wallet_client(settings)
    try:
        kept = _Kept(log)
        outbox = Outbox(core, core.new_state(0), {OPERATOR: client}, kept)
        stranding = debit(1, 20, OPERATOR, PLAYER)
        stranding = stranding.model_copy(
            update={
                "data": stranding.data.model_copy(update={"remainder_before_micro": HALF, "remainder_stranded": True})
            }
        )
        await outbox.decide(now_message(stranding))
        assert await settled(outbox, 1, Phase.ACCEPTED)
        await outbox.decide(now_message(settle(1, 250, player_id=PLAYER)))
        assert await settled(outbox, 1) is Phase.WON
        assert await _ledger(wallet, 1) == [("bet", "OK", 20), ("win", "OK", 251)]

        wallet.set_faults(no_balance_ppm=PPM)
        await outbox.decide(now_message(debit(2, 100, OPERATOR, PLAYER)))
        assert await settled(outbox, 2, Phase.ACCEPTED)
        await outbox.decide(now_message(settle(2, 40, player_id=PLAYER)))
        assert await settled(outbox, 2) is Phase.WON
        wallet.set_faults()
        assert await _ledger(wallet, 2) == [("bet", "OK", 100), ("win", "OK", 40)]
        assert await wallet.balance_minor() == START_MINOR - 20 + 251 - 100 + 40

        events = kept.events
        assert await restore(kafka_bootstrap, topic, core, core.new_state(0)) == len(events)  # all on the topic
        (credited,) = [
            e.data for e in events if isinstance(e.data, SeamlessWinDecided) and e.data.remainder_credit_minor
        ]
        assert (credited.wager_id, credited.remainder_stranded_micro, credited.amount_minor) == (wager_id(1), HALF, 251)
        acknowledged = {e.data.wager_id: e.data for e in events if isinstance(e.data, SeamlessWinAcknowledged)}
        assert acknowledged[wager_id(1)].balance_after_minor == START_MINOR - 20 + 251
        assert acknowledged[wager_id(2)].balance_after_minor is None
    finally:
        await client.close()
        await log.close()


class _Kept:
    """The Kafka log, keeping what it appends."""

    def __init__(self, log: KafkaSeamlessLog) -> None:
        self.log, self.events = log, []

    async def append(self, events) -> None:
        await self.log.append(events)
        self.events += events
