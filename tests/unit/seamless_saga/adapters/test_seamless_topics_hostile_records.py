"""The seamless saga's two topics under the hostile-record fuzz, through the loops that read them (no broker): the spin
service's (wallet.seamless, its fourth input) and the saga's (wallet.seamless-calls), with every writer's signing key.

Scenario: a spin waits for its bet's answer, and the saga for the answer to that bet. Hostile records drawn by the
fuzzer (reelstream/chaos/fuzz.py) for both topics, as the saga's principal (the only one the ACLs let write them) and
as a forger: malformed bytes, messages of the wrong type, keys off their partition, unsigned and foreign-signed records,
oversized values and bombs. Each is refused (quarantined, or dead-lettered where its topic has a dead-letter topic)
or is none of the reader's business; neither loop raises, nothing is applied, and the genuine answer still is; a
replayed genuine record changes nothing the second time. The saga's restore quarantines a forged fact of its own
topic and goes on."""

from __future__ import annotations

import copy
import uuid
from types import SimpleNamespace

import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from reelstream.chaos.fuzz import SEAMLESS_TOPICS, Hostile, hostile
from shared import records, signing
from shared.config import load_settings
from shared.events import decode, encode, envelope
from shared.events.envelope import epoch_ms
from shared.events.seamless import RecordCallOutcome, SeamlessBetAccepted, SeamlessWinAcknowledged
from shared.events.spin import SpinSettled
from shared.partitioning import partition_for
from shared.topics import DLQ_TOPICS, PLAYER_PARTITIONS, SEAMLESS_SAGA, WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS
from shared.snapshots import TailFold

from services.seamless_saga.adapters.kafka_log import _fold
from services.seamless_saga.adapters.service import SeamlessService
from services.spin.adapters.runner import SnapshotPolicy, SpinRunner
from services.spin.core.book import SpinBook
from tests.support.seamless_saga import CORE, PLAYER, SAGA, T0, debit
from tests.support.spin import NO_CLAIM, Seeds, make_context, request_bytes

NOW_MS = epoch_ms(T0)
HOME = partition_for(PLAYER.encode(), PLAYER_PARTITIONS)
DEAD_LETTER_TOPICS = {spec.name for spec in DLQ_TOPICS}


def _record(topic: str, value: bytes | None, headers, key: bytes | None = PLAYER.encode(), partition: int = HOME):
    return SimpleNamespace(
        topic=topic, partition=partition, offset=7, key=key, value=value, headers=list(headers), timestamp=NOW_MS
    )


def _signed(topic: str, data) -> tuple[bytes, list]:
    """A record of `data` as the saga writes it, signed with its key."""
    value = encode(envelope(data, source="test", time=T0, id=uuid.uuid4()))
    return value, records.signed_headers(SEAMLESS_SAGA, topic, PLAYER.encode(), value)


class Spin:
    """The spin service's loop with one spin of PLAYER waiting for its wager's answer."""

    def __init__(self) -> None:
        self.runner = SpinRunner(load_settings(), make_context(Seeds(NO_CLAIM)), SnapshotPolicy(enabled=False))
        self.runner.loop.input_partitions = lambda: PLAYER_PARTITIONS
        self.book = SpinBook()
        self.request_id, raw = request_bytes(player=PLAYER, time_ms=NOW_MS)
        asked = _record("spin.requests", raw, [])
        (place,) = [out for out in self.runner.loop._decide(HOME, self.book, [asked]) if out.tag == "place"]
        self.place = decode(place.value).data
        assert not self.open.answered

    @property
    def open(self):
        return self.book.records[self.request_id]

    def read(self, record) -> list:
        return self.runner.loop._decide(HOME, self.book, [record])

    def _round(self) -> dict:
        return {"wager_id": self.request_id, "player_id": PLAYER, "operator_id": "op-s", "recorded_at": T0}

    def accepted(self) -> SeamlessBetAccepted:
        return SeamlessBetAccepted(**self._round(), amount_minor=self.open.stake_minor, currency="EUR")

    def win(self, amount_minor: int | None = None) -> SeamlessWinAcknowledged:
        """The round's win acknowledged (`amount_minor` None: the spin's own win, as the saga writes it)."""
        won_minor = self.place.house_win_minor if amount_minor is None else amount_minor
        return SeamlessWinAcknowledged(
            **self._round(),
            settlement_id=self.place.settlement_id,
            amount_minor=won_minor,
            currency="EUR",
            balance_after_minor=won_minor + 1_000,
        )

    def serves(self) -> bool:
        """The genuine answers settle the spin."""
        self.read(_record(WALLET_SEAMLESS, *_signed(WALLET_SEAMLESS, self.accepted())))
        answered = self.read(_record(WALLET_SEAMLESS, *_signed(WALLET_SEAMLESS, self.win())))
        return SpinSettled.TYPE in [out.message_type for out in answered] and self.open.answered


class Saga:
    """The seamless saga's loop with one bet of PLAYER's made and unanswered."""

    def __init__(self) -> None:
        self.service = SeamlessService(load_settings(), CORE)
        self.service.loop.input_partitions = lambda: PLAYER_PARTITIONS
        decided = SAGA.given().when(debit(1), T0)
        self.book, self.bet = decided.state, decided.decision.events[0]

    def read(self, record) -> list:
        return self.service.loop._decide(HOME, self.book, [record])

    def outcome(self, status: str = "OK") -> RecordCallOutcome:
        return RecordCallOutcome(
            player_id=PLAYER, call_id=self.bet.id, attempt=1, status=status, operator_status="RS_OK", balance_minor=900
        )


def _refused_only(outputs: list) -> None:
    """Nothing applied: no record out but dead letters, each to a dead-letter topic the platform declares."""
    assert all(out.dead_letter for out in outputs), [out.message_type for out in outputs]
    assert all(out.topic is None or out.topic in DEAD_LETTER_TOPICS for out in outputs), [o.topic for o in outputs]


def _as_record(item: Hostile):
    partition = HOME if item.partition is None else item.partition
    return _record(item.topic, item.value, item.headers, item.key, partition)


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(item=hostile(SEAMLESS_TOPICS, (PLAYER, "p-other"), T0, signing.sign_one))
def test_no_hostile_record_on_a_seamless_topic_is_applied_or_stops_a_loop(keys, item):
    record = _as_record(item)
    spin, saga = Spin(), Saga()
    rounds = copy.deepcopy(saga.book.rounds)
    if item.topic == WALLET_SEAMLESS:
        _refused_only(spin.read(record))
        assert not spin.open.answered
        assert spin.serves()
    else:
        _refused_only(saga.read(record))
        assert saga.book.rounds == rounds
        assert saga.read(_record(WALLET_SEAMLESS_CALLS, *_signed(WALLET_SEAMLESS_CALLS, saga.outcome()))) != []


@pytest.mark.parametrize(
    "writer, claimed", [("wallet", SEAMLESS_SAGA), ("wallet", "wallet"), ("spin", SEAMLESS_SAGA), ("spin", "spin")]
)
def test_a_forged_win_for_a_waiting_spin_is_quarantined_and_the_genuine_answer_still_counts(keys, writer, claimed):
    spin = Spin()
    value = encode(envelope(spin.win(10**12), source="forger", time=T0))
    unsigned = _record(WALLET_SEAMLESS, value, records.headers_for(SEAMLESS_SAGA))
    foreign = _record(
        WALLET_SEAMLESS,
        value,
        signing.sign_one(writer, WALLET_SEAMLESS, PLAYER.encode(), value, records.headers_for(claimed)),
    )
    assert spin.read(unsigned) == [] and spin.read(foreign) == []
    assert not spin.open.answered
    assert spin.serves()


def test_a_signed_fact_off_its_players_partition_is_quarantined(keys):
    spin = Spin()
    spin.read(_record(WALLET_SEAMLESS, *_signed(WALLET_SEAMLESS, spin.accepted())))
    value, headers = _signed(WALLET_SEAMLESS, spin.win())
    assert spin.read(_record(WALLET_SEAMLESS, value, headers, partition=(HOME + 1) % PLAYER_PARTITIONS)) == []
    assert not spin.open.answered
    assert spin.read(_record(WALLET_SEAMLESS, value, headers)) != []


def test_a_signed_record_neither_reader_can_decode_is_quarantined_never_sent_to_a_topic_that_does_not_exist(keys):
    spin, saga = Spin(), Saga()
    broken = b'{"specversion":"1.0","type":"%s","data":{}}'
    for loop, topic, type_ in (
        (spin, WALLET_SEAMLESS, SeamlessBetAccepted.TYPE),
        (saga, WALLET_SEAMLESS_CALLS, RecordCallOutcome.TYPE),
    ):
        value = broken % type_.encode()
        assert (
            loop.read(_record(topic, value, records.signed_headers(SEAMLESS_SAGA, topic, PLAYER.encode(), value))) == []
        )
    rounds = copy.deepcopy(saga.book.rounds)
    genuine = orjson.loads(encode(envelope(saga.outcome(), source="t", time=T0)))
    for wrong in (
        {"x": 1},  # a field the command does not have
        {"status": "RS_OK"},  # a status no wallet protocol maps to
        {"status": ""},  # neither a status nor a reason for none
        {"no_answer": "TIMEOUT"},  # both
        {"status": "", "no_answer": "GONE"},  # a reason the outbox never gives
    ):
        value = orjson.dumps({**genuine, "data": {**genuine["data"], **wrong}})
        headers = records.signed_headers(SEAMLESS_SAGA, WALLET_SEAMLESS_CALLS, PLAYER.encode(), value)
        assert saga.read(_record(WALLET_SEAMLESS_CALLS, value, headers)) == [], wrong
    assert saga.book.rounds == rounds
    assert not spin.open.answered


def test_a_signed_message_of_the_other_seamless_topics_type_is_none_of_the_readers_business(keys):
    spin, saga = Spin(), Saga()
    rounds = copy.deepcopy(saga.book.rounds)
    assert spin.read(_record(WALLET_SEAMLESS, *_signed(WALLET_SEAMLESS, saga.outcome()))) == []
    assert saga.read(_record(WALLET_SEAMLESS_CALLS, *_signed(WALLET_SEAMLESS_CALLS, spin.accepted()))) == []
    assert not spin.open.answered and saga.book.rounds == rounds


def test_a_replayed_genuine_record_changes_nothing_the_second_time(keys):
    spin, saga = Spin(), Saga()
    spin.read(_record(WALLET_SEAMLESS, *_signed(WALLET_SEAMLESS, spin.accepted())))
    fact = _record(WALLET_SEAMLESS, *_signed(WALLET_SEAMLESS, spin.win()))
    assert spin.read(fact) != []
    assert spin.open.answered
    assert spin.read(fact) == []
    outcome = _record(WALLET_SEAMLESS_CALLS, *_signed(WALLET_SEAMLESS_CALLS, saga.outcome()))
    assert [out.message_type for out in saga.read(outcome)][-1] == SeamlessBetAccepted.TYPE
    rounds = copy.deepcopy(saga.book.rounds)
    assert saga.read(outcome) == []
    assert saga.book.rounds == rounds


def test_the_sagas_restore_quarantines_a_forged_fact_of_its_topic_and_folds_on(keys):
    book = SAGA.given().state
    folding = TailFold(book, lambda state, record: _fold(CORE, state, record), "p.wallet.seamless", HOME, [])
    bet = SAGA.given().when(debit(1), T0).decision.events[0]
    value = encode(bet)
    folding(_record(WALLET_SEAMLESS, value, records.headers_for(SEAMLESS_SAGA)))  # unsigned: a forged call to make
    assert folding.quarantined == [7] and book.rounds == {}
    folding(_record(WALLET_SEAMLESS, value, _signed_by(SEAMLESS_SAGA, SEAMLESS_SAGA, value)))
    assert folding.folded == 1 and list(book.rounds) == [str(debit(1).data.transaction_id)]


def _signed_by(writer: str, claimed: str, value: bytes, topic: str = WALLET_SEAMLESS) -> list:
    """Headers naming `claimed` as the writer, signed with `writer`'s key."""
    return signing.sign_one(writer, topic, PLAYER.encode(), value, records.headers_for(claimed))


@pytest.mark.parametrize("claimed", [SEAMLESS_SAGA, "wallet"])
def test_the_wallets_key_signs_nothing_the_saga_or_its_restore_takes(keys, claimed):
    """The wallet's key (a compromised wallet's) signs for neither saga topic: an outcome on wallet.seamless-calls
    moves no round, a fact on wallet.seamless is never folded, and the audit names both."""
    saga = Saga()
    rounds = copy.deepcopy(saga.book.rounds)
    value = encode(envelope(saga.outcome(), source="forger", time=T0))
    forged_outcome = _record(WALLET_SEAMLESS_CALLS, value, _signed_by("wallet", claimed, value, WALLET_SEAMLESS_CALLS))
    assert saga.read(forged_outcome) == []
    assert saga.book.rounds == rounds
    book = SAGA.given().state
    folding = TailFold(book, lambda state, record: _fold(CORE, state, record), "p.wallet.seamless", HOME, [])
    fact = encode(saga.bet)
    forged_fact = _record(WALLET_SEAMLESS, fact, _signed_by("wallet", claimed, fact))
    folding(forged_fact)
    assert folding.quarantined == [7] and book.rounds == {}
    assert all(records.provenance_problems([forged_outcome, forged_fact]))
