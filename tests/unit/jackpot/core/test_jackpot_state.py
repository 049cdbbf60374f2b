"""State is a fold of the network's own events: restoring from them gives the same levels, totals and memory.

Scenario: a random mix of contributions, claims and admin commands, with repeats, in random batches; afterwards every
pool event balances, the pools reconcile with what went in and out, and a fresh fold of the events equals the state.
"""

import random

from shared.events import decode, encode
from shared.events import jackpot as jp

from tests.support.jackpot import DIAMOND, Network, admin, claim, contribute
from services.jackpot.core.decide import new_network
from services.jackpot.core.evolve import evolve
from services.jackpot.core.state import forget_before


def _random_commands(rng: random.Random, count: int) -> list:
    commands, earlier = [], []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.05 and earlier:
            commands.append(rng.choice(earlier))  # a repeat
            continue
        if roll < 0.12:
            command = claim(
                tier=rng.choice(["green", "blue", "red", "diamond"]), stake_minor=rng.choice([10, 200, 2000])
            )
        elif roll < 0.14:
            command = admin(rng.choice([jp.DisablePool, jp.ResumePool]), rng.choice(["dm-green", "dm-blue"]))
        else:
            command = contribute(
                stake_minor=rng.choice([10, 30, 150, 750, 2000]),
                breakage_micro=rng.choice([0, 500_000]),
                operator_id=rng.choice(["op-a", "op-b", None]),
            )
        earlier.append(command)
        commands.append(command)
    return commands


def _run_random_network(seed: int) -> Network:
    rng = random.Random(seed)
    network = Network(DIAMOND)
    commands = _random_commands(rng, 600)
    while commands:
        size = rng.randint(1, 40)
        network.send(*commands[:size])
        commands = commands[size:]
    return network


def _every_movement(events):
    for event in events:
        data = event.data
        yield from getattr(data, "movements", ())
        if getattr(data, "movement", None) is not None:
            yield data.movement


def test_every_pool_event_balances_and_the_pools_reconcile():
    network = _run_random_network(seed=7)
    unique = {event.id: event for event in network.events}.values()
    assert all(movement.balanced() for movement in _every_movement(unique))
    for pool_id, pool in network.state.pools.items():
        moved = [m for m in _every_movement(unique) if m.pool_id == pool_id]
        inflow = sum(m.contributions_micro + m.seeds_micro + m.transferred_in_micro for m in moved)
        outflow = sum(m.paid_micro + m.transferred_out_micro for m in moved)
        assert inflow - outflow == pool.level_micro


def test_a_fold_of_the_encoded_events_restores_the_same_state():
    network = _run_random_network(seed=11)
    restored = new_network(DIAMOND)
    seen_ids = set()
    for event in network.events:
        if event.id in seen_ids:
            continue  # consumers de-duplicate by event id
        seen_ids.add(event.id)
        evolve(restored, decode(encode(event), expect_kind="event"))
    assert restored.pools == network.state.pools
    assert restored.liability_by_operator == network.state.liability_by_operator
    assert restored.seen == network.state.seen
    assert restored.answers.keys() == network.state.answers.keys()


def test_a_claim_is_never_paid_twice_however_often_it_is_sent():
    network = _run_random_network(seed=3)
    won = network.of_type(jp.JackpotWon)
    by_claim = {}
    for event in won:
        by_claim.setdefault(event.claim_id, set()).add(event.amount_minor)
    assert all(len(amounts) == 1 for amounts in by_claim.values())


def test_ids_older_than_the_window_are_forgotten_oldest_first():
    network = Network()
    network.send(contribute(), contribute())
    first_ms = min(seen.recorded_ms for seen in network.state.seen.values())
    assert forget_before(network.state, first_ms) == 0
    assert forget_before(network.state, network.clock.now_ms + 1) == 2
    assert network.state.seen == {}
