"""The seamless saga end to end: the outbox's facts on a real Kafka topic, its calls to the reference wallet over
HTTP (its own PostgreSQL ledger). A round bet + win, a bet that times out and one whose answer is lost, each rolled
back: every one lands exactly once in the operator's ledger, and a book restored from the topic owes nothing more."""

from __future__ import annotations

import uuid

import pytest

from seamless.protocols import PROTOCOLS
from shared.topics import WALLET_SEAMLESS

from services.seamless_saga.adapters.clients import wallet_client
from services.seamless_saga.adapters.kafka_log import KafkaSeamlessLog, restore
from services.seamless_saga.adapters.outbox import Outbox
from services.seamless_saga.core.state import Phase
from tests.support.seamless import PLAYER, START_MINOR
from tests.support.seamless_outbox import OPERATOR, now_message, play_three_rounds, seamless_operator, settled
from tests.support.seamless_saga import debit, settle, wager_id

pytestmark = pytest.mark.integration


async def _ledger(wallet, n: int) -> list[tuple[str, str, int, bool]]:
    rows = await wallet.ledger.pool.fetch(
        "SELECT kind, status, amount_minor, rolled_back FROM refwallet.transactions WHERE round_id = $1 "
        "ORDER BY position",
        str(wager_id(n)),
    )
    return [(row["kind"], row["status"], row["amount_minor"], row["rolled_back"]) for row in rows]


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
async def test_seamless_rounds_land_once_in_the_operators_ledger_and_survive_a_restart(
    wallet, kafka_bootstrap, fresh_prefix, tmp_path, protocol
):
    settings, core = seamless_operator(wallet, tmp_path, protocol)
    topic = fresh_prefix + WALLET_SEAMLESS  # the wallet role's rights, under a fresh prefix
    log = await KafkaSeamlessLog(kafka_bootstrap, topic, f"reelstream-wallet-seamless-{uuid.uuid4().hex}").open()
    client = wallet_client(settings)
    try:
        counted = _Counted(log)
        outbox = Outbox(core, core.new_state(0), {OPERATOR: client}, counted)
        await play_three_rounds(outbox, wallet)

        assert await _ledger(wallet, 1) == [("bet", "OK", 100, False), ("win", "OK", 250, False)]
        assert [kind for kind, *_ in await _ledger(wallet, 2)] == ["rollback"]  # the bet never reached the ledger
        bet, rollback = await _ledger(wallet, 3)
        assert (bet[0], bet[3], rollback[0]) == ("bet", True, "rollback")
        assert await wallet.balance_minor() == START_MINOR - 100 + 250

        restored = core.new_state(0)
        assert await restore(kafka_bootstrap, topic, core, restored) == counted.appended
        assert {n: r.phase for n, r in restored.rounds.items()} == {n: r.phase for n, r in outbox.book.rounds.items()}
        again = Outbox(core, restored, {OPERATOR: client}, log)
        assert await again.step() == 0  # a restart owes nothing more
    finally:
        await client.close()
        await log.close()


class _Counted:
    """The Kafka log, counting what it appends."""

    def __init__(self, log: KafkaSeamlessLog) -> None:
        self.log, self.appended = log, 0

    async def append(self, events) -> None:
        await self.log.append(events)
        self.appended += len(events)


async def test_a_win_whose_answer_was_lost_is_retried_by_a_restarted_outbox_and_paid_once(
    wallet, kafka_bootstrap, fresh_prefix, tmp_path
):
    """The wallet applies the win but its answer is lost, and the outbox stops; a new one, restored from the topic,
    retries the same request once it falls due, gets the applied answer, and the operator's ledger holds one win."""
    settings, core = seamless_operator(wallet, tmp_path, "hub88")
    topic = fresh_prefix + WALLET_SEAMLESS
    transactional_id = f"reelstream-wallet-seamless-{uuid.uuid4().hex}"
    client = wallet_client(settings)
    try:
        log = await KafkaSeamlessLog(kafka_bootstrap, topic, transactional_id).open()
        stopped = Outbox(core, core.new_state(0), {OPERATOR: client}, log)
        await stopped.decide(now_message(debit(1, 100, OPERATOR, PLAYER)))
        assert await settled(stopped, 1, Phase.ACCEPTED)
        wallet.set_faults(lost_ppm=1_000_000)
        await stopped.decide(now_message(settle(1, 250, player_id=PLAYER)))
        await stopped.step()
        assert stopped.book.rounds[str(wager_id(1))].open_call.attempt == 2  # no answer to the win: a retry is due
        await log.close()
        wallet.set_faults()

        log = await KafkaSeamlessLog(kafka_bootstrap, topic, transactional_id).open()  # fences the stopped one
        restored = core.new_state(0)
        await restore(kafka_bootstrap, topic, core, restored)
        restarted = Outbox(core, restored, {OPERATOR: client}, log)
        assert await settled(restarted, 1) is Phase.WON
        assert await _ledger(wallet, 1) == [("bet", "OK", 100, False), ("win", "OK", 250, False)]
        assert await wallet.balance_minor() == START_MINOR - 100 + 250
        await log.close()
    finally:
        await client.close()
