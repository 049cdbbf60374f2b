"""The jackpot core under test: `jackpot_core().given(events).when(batch, now).then(events)` (tests/support/gwt.py),
commands with a broker time, and `Network`, a network state fed through decide."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from shared.events import broker_time, envelope
from shared.events import jackpot as jp
from shared.pools import load_pools

from services.jackpot.core.decide import decide, new_network
from services.jackpot.core.evolve import evolve
from services.jackpot.core.inputs import Incoming
from shared.decision import Decision
from tests.support.gwt import Core
from services.jackpot.core.state import NetworkState

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


def incoming(data: Any, broker_ms: int, *, sent_ms: int | None = None, command_id: uuid.UUID | None = None) -> Incoming:
    sent = broker_time(broker_ms if sent_ms is None else sent_ms)
    return Incoming(
        envelope(data, source="test", time=sent, id=command_id or uuid.uuid4()), broker_ms, position=broker_ms
    )


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
) -> jp.Claim:
    return jp.Claim(
        network_id=network.network_id,
        claim_id=claim_id or uuid.uuid4(),
        request_id=uuid.uuid4(),
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


def batch_now(batch: list[Incoming]) -> datetime:
    """The broker time a batch starts at, as the service dates it (the epoch for an empty batch)."""
    return broker_time(batch[0].broker_ms if batch else 0)


class Network:
    """A network under test: feed commands, read levels; every emitted event is checked for balanced movements."""

    def __init__(self, config=DIAMOND, secrets: Any = None) -> None:
        self.config = config
        self.secrets = secrets  # the drop key and randomness: only networks with must-drop pools need them
        self.state: NetworkState = new_network(config)
        self.clock = Clock()
        self.events: list[Any] = []

    def send(self, *datas: Any) -> Decision:
        return self.send_incoming([incoming(data, self.clock.tick()) for data in datas])

    def send_incoming(self, batch: list[Incoming]) -> Decision:
        decision = decide(self.state, batch, batch_now(batch), network=self.config, secrets=self.secrets)
        self.events.extend(decision.events)
        return decision

    def level_micro(self, pool_id: str) -> int:
        return self.state.pools[pool_id].level_micro

    def of_type(self, kind: type) -> list[Any]:
        return [event.data for event in self.events if isinstance(event.data, kind)]


def minutes(n: int) -> int:
    return int(timedelta(minutes=n).total_seconds() * 1000)


def jackpot_core(network=DIAMOND) -> Core[NetworkState]:
    """One network's core: a message is a batch of Incoming commands, decided at its first command's broker time."""
    return Core(
        lambda: new_network(network), evolve, lambda state, batch, now: decide(state, batch, now, network=network)
    )
