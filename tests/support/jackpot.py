"""The jackpot core under test: `jackpot_core().given(events).when(message, now).then(events)` (tests/support/gwt.py),
commands as the loop hands them over (a Message with its broker time), and `Network`, one network driven through the
same given/when, one command at a time."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from shared.decision import NOTHING, Decision, Message
from shared.events import Envelope, broker_time, envelope
from shared.events import jackpot as jp
from shared.pools import NetworkConfig, PoolsConfig, load_pools

from services.jackpot.core.decide import JackpotCore, States, new_network
from services.jackpot.core.state import NetworkState
from tests.support.gwt import Core

T0_MS = 1_800_000_000_000
DIAMOND = load_pools().network("diamond-mystery")
STJERNE = load_pools().network("stjernestoev")


class Clock:
    """Broker time that moves forward one millisecond per command (LogAppendTime is monotone per partition)."""

    def __init__(self, start_ms: int = T0_MS) -> None:
        self.now_ms = start_ms

    def tick(self) -> int:
        self.now_ms += 1
        return self.now_ms


def incoming(data: Any, broker_ms: int, *, sent_ms: int | None = None, command_id: uuid.UUID | None = None) -> Message:
    """A command as the loop hands it to the core: the decoded envelope and its record's broker time."""
    sent = broker_time(broker_ms if sent_ms is None else sent_ms)
    return Message(envelope(data, source="test", time=sent, id=command_id or uuid.uuid4()), broker_ms)


def contribute(
    network=DIAMOND,
    *,
    stake_minor: int = 100,
    breakage_micro: int = 0,
    contribution_id: uuid.UUID | None = None,
    operator_id: str | None = "op-a",
    player_id: str = "p-1",
    game: str | None = None,
    contribution_micro: int | None = None,
) -> jp.Contribute:
    return jp.Contribute(
        network_id=network.network_id,
        contribution_id=contribution_id or uuid.uuid4(),
        game=game or network.games[0],
        currency=network.currency,
        stake_minor=stake_minor,
        contribution_micro=network.wager_contribution_micro(stake_minor)
        if contribution_micro is None
        else contribution_micro,
        breakage_micro=breakage_micro,
        player_id=player_id,
        operator_id=operator_id,
    )


def claim(
    network=DIAMOND,
    *,
    tier: str,
    stake_minor: int,
    claim_id: uuid.UUID | None = None,
    player_id: str = "p-1",
    operator_id: str | None = "op-a",
    request_id: uuid.UUID | None = None,
) -> jp.Claim:
    return jp.Claim(
        network_id=network.network_id,
        claim_id=claim_id or uuid.uuid4(),
        request_id=request_id or uuid.uuid4(),
        player_id=player_id,
        game=network.games[0],
        tier=tier,
        currency=network.currency,
        stake_minor=stake_minor,
        operator_id=operator_id,
    )


def admin(kind: type, pool_id: str, network=DIAMOND, **extra: Any):
    return kind(
        network_id=network.network_id, command_id=extra.pop("command_id", uuid.uuid4()), pool_id=pool_id, **extra
    )


class Network:
    """A network under test, driven through the core's given/when (tests/support/gwt.py): each command decided in
    turn against the state the ones before it left; read levels and the events decided so far."""

    def __init__(self, config=DIAMOND, secrets: Any = None, pools: PoolsConfig | None = None) -> None:
        self.config = config
        self.secrets = secrets  # the drop key and randomness: only networks with must-drop pools need them
        self.core = JackpotCore(pools or pools_of(config), secrets)
        self.given = bound(self.core).given()
        self.clock = Clock()
        self.events: list[Any] = []

    @property
    def state(self) -> NetworkState:
        return self.given.state.setdefault(self.config.network_id, new_network(self.config))

    def send(self, *datas: Any) -> Decision:
        return self.send_incoming([incoming(data, self.clock.tick()) for data in datas])

    def send_incoming(self, messages: list[Message]) -> Decision:
        """Each message decided at its own broker time, one at a time; their Decisions in order."""
        decision = NOTHING
        for message in messages:
            decision += self.given.when(message, broker_time(message.broker_ms)).decision
        self.events.extend(decision.events)
        return decision

    def level_micro(self, pool_id: str) -> int:
        return self.state.pools[pool_id].level_micro

    def of_type(self, kind: type) -> list[Any]:
        return [event.data for event in self.events if isinstance(event.data, kind)]


def minutes(n: int) -> int:
    return int(timedelta(minutes=n).total_seconds() * 1000)


def pools_of(network: NetworkConfig) -> PoolsConfig:
    """A deployment running this one network (the configuration a must-drop test shortened, or a shipped one)."""
    return load_pools().model_copy(update={"networks": (network,)})


def bound(core: JackpotCore) -> Core[States]:
    """The jackpot core under gwt: a partition's networks, its evolve, its decide (ports bound at construction)."""
    return Core(lambda: core.new_state(0), lambda states, event, raw=None: core.evolve(states, event), core.decide)


def jackpot_core(network=DIAMOND, secrets: Any = None) -> Core[States]:
    """`jackpot_core().given(events).when(message, now).then(events)`: the core of a deployment running `network`."""
    return bound(JackpotCore(pools_of(network), secrets))


def applied_event(*stakes_minor: int, network_id: str = "diamond-mystery", pools: int = 1) -> Envelope[Any]:
    """A ContributionsApplied of one contribution a stake (each moving `pools` made-up pools), for codec and packing
    tests: its shape, not the core's rules."""
    items = tuple(
        jp.AppliedContribution(
            contribution_id=uuid.uuid4(),
            game="rising-joker",
            player_id="p-1",
            operator_id="op-a",
            stake_minor=stake_minor,
            amount_micro=stake_minor * 4000,
            breakage_micro=0,
        )
        for stake_minor in stakes_minor
    )
    amount_micro = sum(item.amount_micro for item in items)
    movements = tuple(
        jp.PoolMovement(
            pool_id=f"pool-{n}", opening_micro=0, contributions_micro=amount_micro, closing_micro=amount_micro
        )
        for n in range(pools)
    )
    now = broker_time(T0_MS)
    data = jp.ContributionsApplied(
        network_id=network_id, recorded_at=now, currency="EUR", contributions=items, movements=movements
    )
    return envelope(data, source="test", time=now)


def rejected_event() -> Envelope[Any]:
    """A claim's ClaimRejected (an answer: never packed), for codec and packing tests."""
    now = broker_time(T0_MS)
    data = jp.ClaimRejected(
        network_id="diamond-mystery",
        recorded_at=now,
        claim_id=uuid.uuid4(),
        request_id=uuid.uuid4(),
        player_id="p-1",
        tier="green",
        stake_minor=10,
        code="UNKNOWN_TIER",
        message="no",
    )
    return envelope(data, source="test", time=now)
