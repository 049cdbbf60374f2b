"""The age of the oldest open wager (services/wallet/adapters/open_wagers.py): it follows the oldest debit still open
as wagers are debited, settled and refunded, counts what a restore brought and forgets a released partition, stays
bounded by the open wagers when one wager stays open under a stream of others, and the wallet service feeds it every
debit it decides."""

from __future__ import annotations

import asyncio
import re
import uuid
from datetime import datetime, timedelta, timezone

from deploy.k8s.manifests import OPEN_WAGER_ALERT, RULES
from services.wallet import app
from services.wallet.adapters.handler import INPUTS
from services.wallet.adapters.open_wagers import OpenWagers, open_entries
from services.wallet.adapters.runner import WalletConfig, WalletService
from services.wallet.adapters.written import Partition, Written
from services.wallet.core.book import WalletBook
from shared import inbound, records
from shared.config import SAGA_TIME_LIMIT_MS
from shared.events import encode, envelope
from shared.events.envelope import broker_time, epoch_ms
from shared.loop import Restored
from shared.observability.metrics import WALLET_OLDEST_OPEN_WAGER_AGE_S
from shared.restoring import Report
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS, WALLET_INTERNAL
from tests.support.wallet import PLAYER, T0, Wallet, tx
from tests.support.wallet_partition import deposit

T0_MS = epoch_ms(T0)


def _wallet_with_two_wagers() -> tuple[Wallet, OpenWagers]:
    """Wager 2 debited at T0, wager 3 a minute later, each decision handed to the index as the service hands it."""
    wallet = Wallet()
    index = OpenWagers({0: wallet.book})
    wallet.deposit(1, 1_000)
    wallet.debit(2, 100)
    index.decided(wallet.book, wallet.last)
    wallet.later(minutes=1).debit(3, 100)
    index.decided(wallet.book, wallet.last)
    return wallet, index


def test_the_age_is_that_of_the_oldest_debit_still_open():
    _, index = _wallet_with_two_wagers()
    assert index.oldest_debited_ms() == T0_MS
    assert index.age_s(T0_MS + 90_000) == 90.0


def test_settling_the_older_wager_moves_the_age_to_the_younger_one():
    wallet, index = _wallet_with_two_wagers()
    wallet.later(seconds=30).settle(4, 2)
    assert index.oldest_debited_ms() == T0_MS + 60_000
    assert index.age_s(T0_MS + 90_000) == 30.0


def test_refunding_both_leaves_an_age_of_zero():
    wallet, index = _wallet_with_two_wagers()
    wallet.refund(4, 3)
    wallet.refund(5, 2)
    assert index.oldest_debited_ms() is None
    assert index.age_s(T0_MS + 90_000) == 0.0


def test_a_wager_placed_and_settled_in_one_command_is_never_open():
    wallet = Wallet()
    index = OpenWagers({0: wallet.book})
    wallet.deposit(1, 1_000)
    wallet.place(2, 100)
    index.decided(wallet.book, wallet.last)
    assert [type(event.data).__name__ for event in wallet.last.events][:1] == ["WagerDebited"]
    assert index.age_s(T0_MS + 1_000) == 0.0


def test_a_debit_dated_ahead_of_this_hosts_clock_counts_as_zero_not_negative():
    _, index = _wallet_with_two_wagers()
    assert index.age_s(T0_MS - 5_000) == 0.0


def test_a_restored_partitions_open_wagers_count_and_a_released_partitions_do_not():
    wallet, _ = _wallet_with_two_wagers()
    books = {7: WalletBook(7, players=dict(wallet.book.players))}
    index = OpenWagers(books)
    index.restored(open_entries(books[7]))
    assert index.oldest_debited_ms() == T0_MS
    del books[7]  # the partition moved to another instance
    assert index.oldest_debited_ms() is None


def test_one_wager_left_open_under_a_stream_of_settled_ones_keeps_the_index_bounded():
    # Scenario: wager 2 is never settled (the case the alert is for) while 300 later wagers are debited and settled
    # one after another; the index must not keep an entry for each of them behind the open one.
    wallet = Wallet()
    index = OpenWagers({0: wallet.book}, rebuild_floor=16)
    wallet.deposit(1, 1_000_000)
    wallet.debit(2, 100)
    index.decided(wallet.book, wallet.last)
    largest = 0
    for n in range(300):
        wallet.later(seconds=1).debit(10 + 2 * n, 100)
        index.decided(wallet.book, wallet.last)
        wallet.settle(11 + 2 * n, 10 + 2 * n)
        largest = max(largest, len(index.heap))
    assert index.oldest_debited_ms() == T0_MS
    assert largest <= 2 * 16 + 1, largest


def _service() -> WalletService:
    config = WalletConfig(
        bootstrap="unused:9092",
        commands_topic=WALLET_COMMANDS,
        events_topic=WALLET_EVENTS,
        dlq_topic="dlq",
        group_id="g",
    )
    return WalletService(config)


def _read(data, at_ms: int, writer: str, logical: str) -> inbound.Inbound:
    """A command record signed by `writer` on `logical`, read as the loop reads it."""
    value = encode(envelope(data, source="test", time=broker_time(at_ms), id=uuid.UUID(int=at_ms)))
    headers = records.signed_headers(writer, logical, PLAYER.encode(), value)
    spec = INPUTS[1] if logical == WALLET_INTERNAL else INPUTS[0]
    record = _Record(logical, 0, 0, PLAYER.encode(), value, headers, at_ms)
    return inbound.read(spec, record, None)


class _Record:
    def __init__(self, topic, partition, offset, key, value, headers, timestamp) -> None:
        self.topic, self.partition, self.offset, self.key = topic, partition, offset, key
        self.value, self.headers, self.timestamp = value, headers, timestamp


def test_the_wallet_service_hands_the_index_every_debit_it_decides(keys):
    service = _service()
    book = WalletBook(0)
    service.loop.states[0], service.written[0] = book, Written()
    debit = Wallet().debit_command(2, 100)
    service.decide(0, book, [_read(deposit(1, 1_000), T0_MS, "cashier", WALLET_COMMANDS)])
    service.decide(0, book, [_read(debit, T0_MS + 1_000, "spin", WALLET_INTERNAL)])
    assert str(tx(2)) in book.players[PLAYER].open_wagers
    assert service.open_wagers.oldest_debited_ms() == T0_MS + 1_000


def test_the_wallet_service_indexes_the_open_wagers_of_each_partition_it_restores_once_acquired():
    wallet, _ = _wallet_with_two_wagers()
    service = _service()
    held = Partition(WalletBook(3, players=dict(wallet.book.players)))
    service.restoring = _Restoring(held)

    async def take_over() -> None:
        restored = await service.restore(3)
        service.loop.states[3] = restored.state  # the loop holds the book before it calls `acquired`
        await service.acquired({3: restored})

    asyncio.run(take_over())
    assert service.open_wagers.oldest_debited_ms() == T0_MS


class _Restoring:
    """A restore that hands back `held` as if folded from wallet.events."""

    def __init__(self, held: Partition) -> None:
        self.held = held

    async def restore(self, partition: int, warm=None) -> Restored[WalletBook]:
        report = Report(self.held.book, self.held, None, 0, None, False, None, 0)
        return Restored(self.held.book, None, report)


def test_a_wager_id_debited_anew_after_the_window_counts_from_its_new_debit():
    wallet, index = _wallet_with_two_wagers()
    wallet.refund(4, 3)
    wallet.refund(5, 2)
    wallet.later(hours=2).debit(2, 100)  # the id's memory has expired: the same id is a new wager
    index.decided(wallet.book, wallet.last)
    assert wallet.state.player.open_wagers[str(tx(2))].debited_ms == T0_MS + 60_000 + 7_200_000
    assert index.oldest_debited_ms() == T0_MS + 60_000 + 7_200_000


def _scraped_age_s(debited_s_ago: float) -> float:
    """The gauge as a scrape leaves it for a wallet whose one open wager was debited `debited_s_ago` seconds ago."""
    service = _service()
    wallet = Wallet(book=WalletBook(0), now=datetime.now(timezone.utc) - timedelta(seconds=debited_s_ago))
    wallet.deposit(1, 1_000)
    wallet.debit(2, 100)
    service.loop.states[0] = wallet.book
    service.open_wagers.decided(wallet.book, wallet.last)
    app._show_oldest_open_wager(service)
    return WALLET_OLDEST_OPEN_WAGER_AGE_S._value.get()


def test_the_gauge_a_scrape_reads_is_the_age_in_seconds_by_this_hosts_clock():
    assert 120 <= _scraped_age_s(120) < 180


def _fires(age_s: float) -> bool:
    """Whether the deployment's alert on the oldest open wager fires on this value of the gauge."""
    (rule,) = [r for r in RULES if r["alert"] == OPEN_WAGER_ALERT]
    series, threshold = re.fullmatch(r"max by \(pod\) \((\w+)\) > (\d+)", rule["expr"]).groups()
    assert series == WALLET_OLDEST_OPEN_WAGER_AGE_S._name and rule["for"] == "0m"
    return age_s > int(threshold)


def test_a_wager_open_past_the_audits_limit_fires_the_alert_and_one_just_inside_it_does_not():
    limit_s = SAGA_TIME_LIMIT_MS // 1000
    assert _fires(_scraped_age_s(limit_s + 5))
    assert not _fires(_scraped_age_s(limit_s - 60))
