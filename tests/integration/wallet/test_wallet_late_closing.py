"""No saga left open, on the real broker: the settlement and the refund of a wager debited just now, dated two hours
back as a spin that lagged that long behind its input dates them, close their wagers once each; a debit dated that far
back is refused by age and takes nothing.

Scenario: a player deposits 1,000 and two wagers of 10 are debited (commands dated now). Then come a settlement of the
first (house win 4) and a refund of the second, and a third debit, all dated two hours before now; the wallet judges
age by its own topic's append time.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from shared import records
from shared.events import decode, derived_id, encode, envelope
from shared.events.wallet import DebitWager, Deposit, RefundWager, SettleWager
from shared.kafka import producer
from shared.money import MICRO_PER_MINOR

from wallet_harness import create_topics, drop_topics, fold_postings, fresh_prefix, read_until, start

pytestmark = pytest.mark.integration
PLAYER = "it-late-player"
LAG = timedelta(hours=2)


@pytest.fixture
def prefix(kafka_bootstrap):
    name = fresh_prefix()
    create_topics(kafka_bootstrap, name)
    yield name
    drop_topics(kafka_bootstrap, name)


def _send(bootstrap: str, prefix: str, dated: list) -> None:
    """Each command with its own CloudEvents time, as the spin service sends it (signed as the spin's)."""
    client = producer(bootstrap, client_id="wallet-it-late")
    messages = [envelope(data, source="wallet-it", time=time) for data, time in dated]
    items = [("wallet.commands", message.key, encode(message)) for message in messages]
    for (_, key, value), headers in zip(items, records.stand_in_batch(items, "spin")):
        client.send(prefix + "wallet.commands", key=key, value=value, headers=headers)
    client.flush(30)
    client.close(10)


def _debit(n: int) -> DebitWager:
    wager_id = derived_id("it-late", n)
    return DebitWager(transaction_id=wager_id, player_id=PLAYER, amount_minor=10, currency="EUR", game="rising-joker")


def test_a_lagging_spins_settlement_and_refund_close_their_wagers_and_its_old_debit_takes_nothing(
    kafka_bootstrap, prefix, tmp_path
):
    now = datetime.now(timezone.utc)
    deposit = Deposit(
        transaction_id=derived_id("it-late", "deposit"), player_id=PLAYER, amount_minor=1_000, currency="EUR"
    )
    settle = SettleWager(
        transaction_id=derived_id("it-late", "settle"),
        player_id=PLAYER,
        wager_id=_debit(1).transaction_id,
        currency="EUR",
        house_win_minor=4,
        jackpot_win_minor=0,
        breakage_micro=0,
        contribution_micro=0,
        network_id="net-it",
    )
    refund = RefundWager(
        transaction_id=derived_id("it-late", "refund"),
        player_id=PLAYER,
        wager_id=_debit(2).transaction_id,
        currency="EUR",
        reason="the wallet refused the settlement",
    )
    service = start(kafka_bootstrap, prefix, tmp_path / "data", tmp_path / "logs")
    try:
        _send(kafka_bootstrap, prefix, [(deposit, now), (_debit(1), now), (_debit(2), now)])
        _send(kafka_bootstrap, prefix, [(settle, now - LAG), (refund, now - LAG), (_debit(3), now - LAG)])
        events = read_until(kafka_bootstrap, prefix + "wallet.events", lambda found: len(found) >= 6, 60)
    finally:
        service.stop()
    facts = [decode(record.value).data for record in events]
    assert [type(fact).__name__ for fact in facts] == [
        "Deposited",
        "WagerDebited",
        "WagerDebited",
        "WagerSettled",
        "WagerRefunded",
        "CommandRejected",
    ]
    assert facts[-1].code == "REQUEST_EXPIRED"
    assert fold_postings(events)[("EUR", f"player:{PLAYER}")] == (1_000 - 10 + 4) * MICRO_PER_MINOR
