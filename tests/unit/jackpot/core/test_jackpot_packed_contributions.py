"""Packed contributions against the one-at-a-time fold: random records of contributions (repeats, conflicts and
invalid ones among them, admin commands between records) on random must-drop configurations are decided once packed
and once one record per contribution at the same broker time, with the same drop key and randomness; the drops, the
other events, the refusals and the state must be the same, and the packed side folds runs into fewer events."""

from __future__ import annotations

import random
import uuid
from dataclasses import asdict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.registry import stakes_minor
from shared.decision import Message, Packed
from shared.events import broker_time, envelope
from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR

from services.jackpot.core.commitment import DropSecrets
from services.jackpot.core.decide import JackpotCore
from tests.support.jackpot import T0_MS, admin, contribute, pools_of
from tests.support.mustdrop import TEST_KEY, drop_pools

STEP_MS = 20_000  # between records: by-time pools' windows (60 s) open and close during a test


@st.composite
def scenarios(draw):
    network_id = draw(st.sampled_from(["diamond-mystery", "stjernestoev"]))
    pools = drop_pools(
        ceiling_minor=100_000 + draw(st.integers(1, 400)),
        min_stake_minor=draw(st.sampled_from([10, 50, 200, 1000])),
        reserve_funded=draw(st.booleans()),
    )
    network = pools.network(network_id)
    stakes = stakes_minor(network.games[0])
    drop_pool = network.drop_pools()[0].pool_id
    records, made = [], []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 5)) == 0:
            kind = draw(st.sampled_from([jp.DisablePool, jp.ResumePool]))
            records.append(admin(kind, drop_pool, network))
            continue
        items = []
        for _ in range(draw(st.integers(1, 60))):
            items.append(_item(draw, network, stakes, made))
            made.append(items[-1])
        records.append(items)
    return pools, network, records, draw(st.integers(0, 2**32))


def _item(draw, network, stakes, made):
    choice = draw(st.integers(0, 19))
    if choice == 0 and made:  # a repeat of an earlier contribution (same content)
        return draw(st.sampled_from(made))
    if choice == 1 and made:  # an earlier id with other content: a conflict
        return draw(st.sampled_from(made)).model_copy(update={"player_id": "p-other"})
    stake = draw(st.sampled_from(stakes)) if choice != 2 else 7  # 7: no stake of any game
    breakage = draw(st.integers(0, MICRO_PER_MINOR - 1)) if network.network_id == "diamond-mystery" else 0
    return contribute(network, stake_minor=stake, breakage_micro=breakage, player_id=f"p-{draw(st.integers(0, 9))}")


def _run(pools, network, records, seed, packed: bool):
    """The events, the dead letters (per record: each message's refusals, with the item's index in its record, or
    the packed record's), the repeats and the network's state."""
    core = JackpotCore(pools, DropSecrets(TEST_KEY, random.Random(seed).randbytes))
    states: dict = {}
    events, dead, repeats = [], [], 0
    for index, record in enumerate(records):
        broker_ms = T0_MS + index * STEP_MS
        if not isinstance(record, list):
            messages = [_message(record, broker_ms)]
        elif packed:
            messages = [Message(Packed(tuple(_envelope(item, broker_ms) for item in record)), broker_ms)]
        else:
            messages = [_message(item, broker_ms) for item in record]
        refused = []
        for at, message in enumerate(messages):
            decision = core.decide(states, message, broker_time(broker_ms))
            events.extend(decision.events)
            refused.extend((at, refusal.code, refusal.reason, refusal.field) for refusal in decision.dead_letters)
            repeats += decision.repeats
        dead.append(refused)
    return events, dead, repeats, states[network.network_id]


def _one_letter(refused: list, count: int) -> list:
    """The packed record's one dead letter for what its items one record each refused (none when none is)."""
    if not refused:
        return []
    codes = "+".join(dict.fromkeys(code for _, code, _, _ in refused))
    told = "; ".join(f"items.{at}: {code} {reason}" for at, code, reason, _ in refused)
    named = ",".join(f"items.{at}" for at, _, _, _ in refused[:16]) + (",..." if len(refused) > 16 else "")
    return [(0, codes, f"{len(refused)} of {count} items refused: {told}", named)]


def _envelope(data, broker_ms):
    return envelope(data, source="test", time=broker_time(broker_ms), id=uuid.uuid5(uuid.NAMESPACE_OID, repr(data)))


def _message(data, broker_ms):
    return Message(_envelope(data, broker_ms), broker_ms)


def _items(events):
    return [
        item for event in events if isinstance(event.data, jp.ContributionsApplied) for item in event.data.contributions
    ]


def _others(events):
    return [event for event in events if not isinstance(event.data, jp.ContributionsApplied)]


def _state(state):
    """The state without what names the event that applied a contribution (a run's event, packed)."""
    kept = asdict(state)
    kept["seen"] = {key: (seen.fingerprint, seen.recorded_ms) for key, seen in state.seen.items()}
    kept.pop("events_applied")
    return kept


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_a_packed_record_decides_exactly_what_its_contributions_one_at_a_time_would(scenario):
    _assert_same(*scenario)


def test_a_drop_point_reached_exactly_drops_on_the_contribution_that_reaches_it():
    pools = drop_pools(ceiling_minor=100_040)
    network = pools.network("diamond-mystery")
    records = [[contribute(network, stake_minor=2000) for _ in range(100)]]  # 2 cents each from the seed: even points
    for seed in range(10):
        _assert_same(pools, network, records, seed)


def _assert_same(pools, network, records, seed):
    one_by_one = _run(pools, network, records, seed, packed=False)
    packed = _run(pools, network, records, seed, packed=True)
    assert _others(packed[0]) == _others(one_by_one[0])  # drops, reveals, reseeds, commitments: same spin, same ids
    assert _items(packed[0]) == _items(one_by_one[0])
    expected = [
        _one_letter(refused, len(record)) if isinstance(record, list) else refused
        for record, refused in zip(records, one_by_one[1])
    ]
    assert packed[1] == expected  # one dead letter a packed record, naming each refused item in order
    assert packed[2] == one_by_one[2]
    assert _state(packed[3]) == _state(one_by_one[3])


def test_a_packed_record_applies_its_runs_between_drops_as_one_event_each():
    pools = drop_pools(ceiling_minor=100_200)
    network = pools.network("diamond-mystery")
    records = [[contribute(network, stake_minor=2000) for _ in range(200)]]  # 2 cents each: several drops
    events, _, _, state = _run(pools, network, records, 1, packed=True)
    wins = [event for event in events if isinstance(event.data, jp.JackpotWon)]
    applied = [event for event in events if isinstance(event.data, jp.ContributionsApplied)]
    assert len(wins) >= 2
    assert len(applied) <= 2 * len(wins) + 1  # a run, then the winner alone, per drop
    assert sum(len(event.data.contributions) for event in applied) == 200
    assert state.pools["dm-drop"].drops == len(wins)


def _decided_packed(items):
    pools = pools_of(drop_pools().network("diamond-mystery"))
    core = JackpotCore(pools, DropSecrets(TEST_KEY, random.Random(0).randbytes))
    message = Message(Packed(tuple(_envelope(item, T0_MS) for item in items)), T0_MS)
    return core.decide({}, message, broker_time(T0_MS))


def test_a_refused_item_of_a_packed_record_names_its_index_and_the_rest_are_applied():
    network = drop_pools().network("diamond-mystery")
    items = [contribute(network), contribute(network, stake_minor=7), contribute(network)]
    decision = _decided_packed(items)
    assert [(d.code, d.field) for d in decision.dead_letters] == [("INVALID_STAKE", "items.1")]
    assert decision.dead_letters[0].reason.startswith("1 of 3 items refused: items.1: INVALID_STAKE ")
    assert len(_items(decision.events)) == 2


def test_a_packed_record_with_several_refused_items_is_one_dead_letter_naming_each():
    network = drop_pools().network("diamond-mystery")
    first = contribute(network)
    conflict = first.model_copy(update={"player_id": "p-other"})
    items = [
        first,
        contribute(network, stake_minor=7),
        contribute(network),
        conflict,
        contribute(network, stake_minor=7),
    ]
    (letter,) = _decided_packed(items).dead_letters
    assert letter.code == "INVALID_STAKE+DUPLICATE_CONFLICT"
    assert letter.field == "items.1,items.3,items.4"
    assert letter.reason.startswith("3 of 5 items refused: items.1: INVALID_STAKE ")
    assert "; items.3: DUPLICATE_CONFLICT " in letter.reason and "; items.4: INVALID_STAKE " in letter.reason
    many = _decided_packed([contribute(network, stake_minor=7) for _ in range(40)]).dead_letters
    assert len(many) == 1 and many[0].code == "INVALID_STAKE" and many[0].field.endswith("items.15,...")
