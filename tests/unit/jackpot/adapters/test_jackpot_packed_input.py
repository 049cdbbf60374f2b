"""The jackpot's loop reads a packed record of the spin service's contributions as one message of its items; a packed
record of a type no writer may pack, or on the operator's topic, or with an item for another network, is refused
whole; a record of one contribution is read as before."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

from services.jackpot.adapters.runner import JackpotConfig, JackpotService
from shared import dead_letters, records
from shared.events import broker_time, decode_all, encode, envelope
from shared.events import jackpot as jp
from shared.events.batch import pack
from tests.support.jackpot import DIAMOND, STJERNE, claim, contribute
from tests.support.spin import NOW_MS

KEY = DIAMOND.network_id.encode()


def _record(topic: str, value: bytes, key: bytes = KEY):
    headers = records.headers_for("spin")
    return SimpleNamespace(topic=topic, partition=0, offset=0, key=key, value=value, headers=headers, timestamp=NOW_MS)


def _command(data) -> bytes:
    return encode(envelope(data, source="test", time=broker_time(NOW_MS), id=uuid.uuid4()))


def _service() -> tuple[JackpotConfig, JackpotService]:
    config = JackpotConfig.on_prefix("unused", "x.")
    return config, JackpotService(config, secrets=object())


def _applied(outputs) -> list[jp.AppliedContribution]:
    events = [event for out in outputs if not out.dead_letter for event in decode_all(out.value)]
    return [item for e in events if isinstance(e.data, jp.ContributionsApplied) for item in e.data.contributions]


def test_a_packed_record_of_contributions_is_applied_item_by_item_in_order():
    config, service = _service()
    contributions = [contribute(stake_minor=stake) for stake in (100, 200, 500)]
    packed = _record(config.internal_topic, pack([_command(c) for c in contributions]))
    single = _record(config.internal_topic, _command(contribute()))  # history: one contribution a record
    outputs = service.loop._decide(0, {}, [packed, single])
    assert not any(out.dead_letter for out in outputs)
    ids = [item.contribution_id for item in _applied(outputs)]
    assert ids[:3] == [c.contribution_id for c in contributions] and len(ids) == 4


def test_a_packed_record_of_claims_is_refused_whole():
    config, service = _service()
    claims = [claim(tier="green", stake_minor=100) for _ in range(2)]
    (letter,) = service.loop._decide(0, {}, [_record(config.internal_topic, pack([_command(c) for c in claims]))])
    assert letter.dead_letter and letter.topic == "x.jackpot.internal.dlq"


def test_a_packed_record_on_the_operators_topic_is_refused_whole():
    config, service = _service()
    value = pack([_command(contribute()) for _ in range(2)])
    (letter,) = service.loop._decide(0, {}, [_record(config.commands_topic, value)])
    assert letter.dead_letter


def test_a_packed_record_with_an_item_of_another_network_is_refused_whole():
    config, service = _service()
    value = pack([_command(contribute()), _command(contribute(STJERNE))])
    (letter,) = service.loop._decide(0, {}, [_record(config.internal_topic, value)])
    assert letter.dead_letter


def test_a_packed_record_with_several_refused_items_is_dead_lettered_once_naming_them():
    config, service = _service()
    items = [contribute(), contribute(stake_minor=7), contribute(), contribute(stake_minor=7)]
    value = pack([_command(c) for c in items])
    outputs = service.loop._decide(0, {}, [_record(config.internal_topic, value)])
    (letter,) = [out for out in outputs if out.dead_letter]
    headers = dict(letter.headers)
    assert letter.value == value and letter.topic == "x.jackpot.internal.dlq"
    assert headers[dead_letters.CODE] == b"INVALID_STAKE"
    assert headers[dead_letters.FIELD] == b"items.1,items.3"
    assert headers[dead_letters.REASON].startswith(b"2 of 4 items refused: items.1: INVALID_STAKE ")
    ids = [item.contribution_id for item in _applied(outputs)]
    assert ids == [items[0].contribution_id, items[2].contribution_id]
