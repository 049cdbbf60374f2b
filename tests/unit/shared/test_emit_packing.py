"""A writer's packed outputs (shared/emit.py with shared/packing.py: gathered): a transaction's outputs of a packed
route that share topic, partition and key go out as one batch-envelope record at the place of the first, its items
the messages' bytes in the order they were decided, never merged or summed; another output for the same key (a claim
after contributions) ends the group; other keys, other topics and dead letters pass as they are.

Scenario: spins settle in one spin batch; their contributions to the network leave as one record, which the jackpot
service reads and applies exactly as the same contributions one record each."""

from __future__ import annotations

import uuid
from dataclasses import replace
from types import SimpleNamespace

import pytest

from services.jackpot.adapters.runner import JackpotConfig, JackpotService
from services.spin.adapters import outputs as spin_outputs
from services.spin.adapters.runner import SPECS, SnapshotPolicy, SpinRunner
from services.spin.core.book import SpinBook
from shared import inbound, records
from shared.config import load_settings
from shared.decision import Decision, Message
from shared.emit import KEY, Emits, Emitter, Route
from shared.events import broker_time, decode_all, encode, envelope
from shared.events import jackpot as jp
from shared.events.batch import BATCH_CONTENT_TYPE, MAX_ITEMS, is_packed, pack
from shared.headers import CONTENT_TYPE
from shared.inbound import Inbound, Input
from shared.input_position import Output
from shared.invariant import InvariantViolation
from shared.packing import gathered
from shared.topics import JACKPOT_INTERNAL, SPIN_REQUESTS, WALLET_EVENTS
from tests.support.jackpot import DIAMOND, STJERNE, claim, contribute
from tests.support.spin import NO_CLAIM, NOW_MS, Record, Seeds, make_context, placed_for, request_bytes

ROUTES = {
    jp.Contribute: Route(JACKPOT_INTERNAL, KEY, "contribute", packed=True),
    jp.Claim: Route(JACKPOT_INTERNAL, KEY, "claim"),
}


class _Script:
    """A core that decides each message with the next Decision of its script."""

    def __init__(self, *decisions: Decision) -> None:
        self.decisions = list(decisions)

    def decide(self, state, message, now) -> Decision:
        return self.decisions.pop(0)


def _command(data) -> object:
    return envelope(data, source="test", time=broker_time(NOW_MS), id=uuid.uuid4())


def _emitted(*commands_by_message: tuple) -> list[Output]:
    """The batch's records when each read message decides the commands given for it."""
    core = _Script(*(Decision(commands=commands) for commands in commands_by_message))
    emitter = Emitter(Emits(writer="spin", span="test", routes=ROUTES), core, lambda logical: "p." + logical, None)
    found = [
        Inbound(Record("p.in", 0, n, None, b"", NOW_MS), Input("in"), Message(None, NOW_MS))
        for n in range(len(commands_by_message))
    ]
    return emitter.batch(0, None, found)[0]


def _items(out: Output) -> list[bytes]:
    """The ids of a record's messages, in order."""
    return [message.id.bytes for message in decode_all(out.value)]


def test_a_batchs_contributions_to_a_network_are_one_record_of_their_bytes_in_the_order_decided():
    # Equal stakes and players: items that a merge or a sum would fold together stay apart.
    made = [_command(contribute(stake_minor=stake)) for stake in (100, 100, 500, 200)]
    (record,) = _emitted(*((command,) for command in made))
    assert record.value == pack([encode(command) for command in made])
    assert [m.data for m in decode_all(record.value)] == [command.data for command in made]
    assert (record.topic, record.partition, record.key, record.tag) == (
        "p.jackpot.internal",
        None,
        b"diamond-mystery",
        "contribute",
    )
    assert dict(record.headers)[CONTENT_TYPE] == BATCH_CONTENT_TYPE.encode()


def test_a_claim_ends_its_networks_group_and_another_networks_group_goes_on():
    c1, c2, c3, c4 = (_command(contribute()) for _ in range(4))
    b1, b2 = (_command(contribute(STJERNE)) for _ in range(2))
    k2 = _command(claim(tier="green", stake_minor=100))
    done = _emitted((c1,), (b1,), (c2, k2), (c3,), (b2,), (c4,))
    assert [_items(out) for out in done] == [
        [c1.id.bytes, c2.id.bytes],
        [b1.id.bytes, b2.id.bytes],
        [k2.id.bytes],
        [c3.id.bytes, c4.id.bytes],
    ]
    assert [is_packed(out.value) for out in done] == [True, True, False, True]


def test_a_lone_contribution_stays_the_message_and_other_outputs_pass_untouched():
    alone = _command(contribute())
    (record,) = _emitted((alone,))
    assert record.value == encode(alone)
    letter = Output(True, b"diamond-mystery", b"{broken", [])
    other = Output(False, b"diamond-mystery", b"{}", [], "p.elsewhere", None, "x", jp.Contribute.TYPE)
    outputs = [letter, other]
    assert gathered(outputs, frozenset({jp.Contribute.TYPE})) == outputs
    assert gathered(outputs, frozenset()) is outputs


def test_a_group_past_max_items_is_cut_in_order():
    one = encode(_command(contribute()))
    outputs = [Output(False, b"k", one, [], "t", None, "contribute", jp.Contribute.TYPE) for _ in range(MAX_ITEMS + 2)]
    done = gathered(outputs, frozenset({jp.Contribute.TYPE}))
    assert [len(decode_all(out.value)) for out in done] == [MAX_ITEMS, 2]


def test_only_a_type_the_contract_says_may_be_packed_is_declared_packed_and_never_copied():
    with pytest.raises(InvariantViolation):
        Emits(writer="spin", span="test", routes={jp.Claim: Route(JACKPOT_INTERNAL, KEY, "claim", packed=True)})
    with pytest.raises(InvariantViolation):
        Emits(
            writer="spin", span="test", routes={jp.Contribute: Route(JACKPOT_INTERNAL, KEY, copied=True, packed=True)}
        )
    assert spin_outputs.ROUTES[jp.Contribute].packed
    assert not spin_outputs.ROUTES[jp.Claim].packed


def _settled_batch(spins: int, packed: bool) -> list[Output]:
    """The spin's records for one batch of the wallet's facts settling `spins` spins of one network."""
    settings = load_settings()
    runner = SpinRunner(settings, make_context(Seeds(*[NO_CLAIM] * spins)), SnapshotPolicy(enabled=False))
    if not packed:
        routes = {**spin_outputs.ROUTES, jp.Contribute: replace(spin_outputs.ROUTES[jp.Contribute], packed=False)}
        runner.emitter.emits = replace(runner.emitter.emits, routes=routes)
        runner.emitter.packed_types = runner.emitter.emits.packed_types
    book = SpinBook()
    facts = []
    for n in range(spins):
        player = f"p-{n}"
        request_id = uuid.UUID(int=n + 1)
        _, raw = request_bytes(player=player, request_id=request_id, event_id=uuid.UUID(int=1000 + n))
        asked = Record(settings.topic(SPIN_REQUESTS), 0, n, player.encode(), raw, NOW_MS)
        made = runner.decide(0, book, [inbound.read(SPECS[SPIN_REQUESTS], asked, 0)])
        place = next(out for out in made if out.tag in ("place", "debit"))
        facts += placed_for(SimpleNamespace(value=place.value, key=place.key, kind=place.tag))
    wallet = tuple(records.headers_for("wallet"))
    read = [
        inbound.read(
            SPECS[WALLET_EVENTS], Record(settings.topic(WALLET_EVENTS), 0, n, f.key, encode(f), NOW_MS, wallet), 0
        )
        for n, f in enumerate(facts)
    ]
    return runner.decide(0, book, read)


def _to_jackpot(outputs: list[Output]) -> list[Output]:
    return [out for out in outputs if out.tag == "contribute"]


def test_the_spin_writes_a_batchs_contributions_as_one_record_the_jackpot_applies_as_it_would_one_each():
    packed, one_each = _to_jackpot(_settled_batch(5, packed=True)), _to_jackpot(_settled_batch(5, packed=False))
    assert len(packed) == 1 and len(one_each) == 5
    assert packed[0].value == pack([out.value for out in one_each])
    assert [m.data.contribution_id for m in decode_all(packed[0].value)] == [uuid.UUID(int=n + 1) for n in range(5)]
    assert _jackpot_events(packed) == _jackpot_events(one_each)


def _jackpot_events(sent: list[Output]) -> tuple:
    """What the jackpot service decides on these records: the contributions applied in order and the pools' closing
    levels (a packed record's run is one fact, one record each one fact a contribution)."""
    config = JackpotConfig.on_prefix("unused", "x.")
    service = JackpotService(config, secrets=object())
    read = [
        SimpleNamespace(
            topic=config.internal_topic,
            partition=0,
            offset=n,
            key=out.key,
            value=out.value,
            headers=out.headers,
            timestamp=NOW_MS,
        )
        for n, out in enumerate(sent)
    ]
    states: dict = {}
    outputs = service.loop._decide(0, states, read)
    assert not any(out.dead_letter for out in outputs)
    events = [event for out in outputs for event in decode_all(out.value)]
    applied = [item for e in events if isinstance(e.data, jp.ContributionsApplied) for item in e.data.contributions]
    levels = {pool_id: pool.level_micro for pool_id, pool in states[DIAMOND.network_id].pools.items()}
    return applied, levels


def test_items_of_other_traces_are_packed_and_the_record_carries_the_first_items_headers():
    values = [encode(_command(contribute())) for _ in range(3)]
    outputs = [
        Output(False, b"k", value, [("traceparent", b"00-%d" % n)], "t", None, "contribute", jp.Contribute.TYPE)
        for n, value in enumerate(values)
    ]
    (record,) = gathered(outputs, frozenset({jp.Contribute.TYPE}))
    assert record.value == pack(values)
    assert dict(record.headers)["traceparent"] == b"00-0"
