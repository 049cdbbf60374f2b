"""A Rising Joker player's spin book and wallet book side by side (the real cores, the real engine), each record
passed between them as the services pass them, and every fact kept as the topics would hold it (for the audit)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from games.rising_joker.engine import RisingJokerEngine
from games.rising_joker.model import CURRENT_VERSION, load_model
from games.rng import SpinRng
from services.audit.core.collect import RawRecord
from services.spin.core.decide import SpinCore
from services.wallet.core import WalletBook
from shared import records
from shared.events import Envelope, decode, encode, envelope
from shared.events.envelope import broker_time, epoch_ms
from shared.events.wallet import DebitWager, Deposit, PlaceWager, SettleWager
from tests.support.spin import NOW_MS, Seeds, fact, make_context, request, request_bytes
from tests.support.wallet import CORE, sent, tx

ENGINE = RisingJokerEngine(load_model(CURRENT_VERSION))
HALF = 500_000
NOW = broker_time(NOW_MS)


def seed_leaving(stake: int, carried: int, left: int) -> bytes:
    """The first counter seed of a winning spin without a claim at `stake` that leaves `left` of `carried`."""
    for n in range(1, 100_000):
        seed = n.to_bytes(32, "big")
        result = ENGINE.play({"remainder_micro": carried}, stake, SpinRng(seed))
        if not result.claims and result.state_after["remainder_micro"] == left and result.win_minor:
            return seed
    raise AssertionError("no such seed")


class Pair:
    """One player's spin book and wallet book; `facts` holds (topic, envelope) in the order they were written."""

    def __init__(self, *seeds: bytes) -> None:
        self.ctx = make_context(Seeds(*seeds), slot=ENGINE)
        self.core = SpinCore(self.ctx)
        self.book = self.core.new_state(0)
        self.wallet = WalletBook(0)
        self.journal: list = []
        self.answers: list = []
        self.facts: list[tuple[str, Envelope[Any]]] = []
        self.now_ms = NOW_MS
        self.cashier(Deposit(transaction_id=tx(1), player_id="p-1", amount_minor=10_000, currency="EUR"))

    def cashier(self, data) -> list:
        return self.to_wallet(envelope(data, source="test", time=broker_time(self.now_ms)))

    def to_wallet(self, command) -> list:
        now = broker_time(self.now_ms)
        events = CORE.decide(self.wallet, sent(command, now), now).events
        for event in events:
            self.facts.append(("wallet.events", event))
            self.from_wallet(decode(encode(event)))
        return [event.data for event in events]

    def from_wallet(self, event) -> None:
        self.follow(self.core.decide(self.book, fact(event, self.now_ms), broker_time(self.now_ms)))

    def follow(self, decision) -> None:
        """A spin Decision passed on: its journal facts and answers kept as written, its wallet commands decided."""
        self.facts += [("spin.journal", event) for event in decision.events]
        self.facts += [("spin.events", answer) for answer in decision.answers]
        self.journal += [event.data for event in decision.events]
        self.answers += [answer.data for answer in decision.answers]
        for command in decision.commands:
            if isinstance(command.data, (PlaceWager, DebitWager, SettleWager)):
                self.to_wallet(decode(encode(command)))

    def request(self, stake: int):
        """A spin request decided; its wager is in flight until `follow` passes the decision on."""
        _, raw = request_bytes(stake=stake, time_ms=self.now_ms)
        return self.core.decide(self.book, request(raw, b"p-1", self.now_ms), broker_time(self.now_ms))

    def spin(self, stake: int):
        self.follow(self.request(stake))
        return self.answers[-1]

    def remainder(self) -> int:
        return self.wallet.state_of("p-1").player.remainders["rising-joker"].micro

    def balance(self) -> int:
        return self.wallet.state_of("p-1").player.balances_minor["EUR"]

    def records(self) -> list[RawRecord]:
        return as_records(self.facts)


def as_records(facts: list[tuple[str, Envelope[Any]]]) -> list[RawRecord]:
    """(topic, envelope) facts as raw records of one partition per topic, signed as their owners sign them."""
    offsets: dict[str, int] = defaultdict(int)
    out = []
    for topic, event in facts:
        value = encode(event)
        headers = tuple(records.headers_as_owner(topic, "test", event.key, value))
        out.append(RawRecord(topic, 0, offsets[topic], epoch_ms(event.time), event.key, value, headers))
        offsets[topic] += 1
    return out
