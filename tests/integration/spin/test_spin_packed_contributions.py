"""The spin service packs a transaction's contributions to a network into one record, and the jackpot service applies
them exactly as one record each would be applied.

Scenario: wallet, jackpot and spin run as processes; sixty Rising Joker players spin at once, three rounds, so the
spin's transactions settle several spins each. jackpot.internal then holds packed records (batch envelopes of
Contribute, several items each) beside single ones; every settled spin's contribution is in them exactly once and in
the order the spin decided them per partition. A jackpot core in this process decides the same contributions one
record each, at the same broker times (with any claim a win made between them): the contributions the live service
applied (in order) and every pool's level are the same. The records carry the spin's valid signature, and the audit
over the raw topics finds nothing.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from reelstream.client import Settled
from services.audit.adapters.topics import read_checked, read_topics
from services.audit.core.audit import run_audit
from services.audit.core.trust import untrusted_commands
from services.jackpot.core.decide import JackpotCore
from shared.decision import Message
from shared.events import broker_time, decode_all
from shared.events import jackpot as jp
from shared.events.batch import is_packed
from shared.pools import load_pools
from shared.topics import JACKPOT_INTERNAL

from conftest import Platform, client_for, token_for

PLAYERS, ROUNDS, STAKE = 60, 3, 100


def _spin_all(platform: Platform) -> list[Settled]:
    players = [f"pk-{n:02d}" for n in range(PLAYERS)]
    with client_for(platform) as client:
        for player in players:
            client.deposit(player, 10_000, "EUR")
        with ThreadPoolExecutor(max_workers=PLAYERS) as pool:
            settled = []
            for _ in range(ROUNDS):
                spin = lambda p: client.spin(p, "rising-joker", STAKE, "EUR", token_for(p), timeout_s=60)  # noqa: E731
                settled += list(pool.map(spin, players))
    assert all(isinstance(answer, Settled) for answer in settled), settled
    return settled


def _levels(states: dict) -> dict[str, int]:
    return {pool_id: pool.level_micro for state in states.values() for pool_id, pool in state.pools.items()}


def _applied(events) -> list:
    return [
        item.contribution_id
        for e in events
        if isinstance(e.data, jp.ContributionsApplied)
        for item in e.data.contributions
    ]


def test_the_spins_packed_contributions_are_applied_as_one_record_each_would_be(platform_factory):
    platform = platform_factory()
    settled = _spin_all(platform)

    raw = sorted(platform.read_raw(JACKPOT_INTERNAL), key=lambda r: (r.partition, r.offset))
    commands = [(record, item) for record in raw for item in decode_all(record.value)]
    assert all(isinstance(item.data, (jp.Contribute, jp.Claim)) for _, item in commands)
    contributions = [(record, item) for record, item in commands if isinstance(item.data, jp.Contribute)]
    packed = [record for record in raw if is_packed(record.value)]
    assert packed and max(len(decode_all(record.value)) for record in packed) >= 2, "a transaction packs its spins"
    assert len(raw) < len(settled)
    assert sorted(str(item.data.contribution_id) for _, item in contributions) == sorted(
        str(answer.request_id) for answer in settled
    )

    pools = load_pools()
    live = platform.read_all("jackpot.events")
    folded: dict = {}
    core = JackpotCore(pools)
    for event in live:
        core.evolve(folded, event)

    reference_core, one_each, made = JackpotCore(pools), {}, []
    for record, item in commands:  # the same commands, one record each, at their record's broker time
        decision = reference_core.decide(one_each, Message(item, record.timestamp), broker_time(record.timestamp))
        assert decision.dead_letters == ()
        made.extend(decision.events)
    assert _applied(live) == _applied(made)
    assert _levels(folded) == _levels(one_each)
    assert sum(_levels(folded).values()) > 0

    checked, problems, _ = read_checked(platform.bootstrap, platform.prefix, topics=(JACKPOT_INTERNAL,))
    assert untrusted_commands(checked, problems) == []
    records, _ = read_topics(platform.bootstrap, platform.prefix)
    assert run_audit(records, config=pools).discrepancies == []
