"""A network's state: pool levels in micro-units, totals, operator liability and the de-duplication memory (command
ids seen inside the window, with the events that answered them). `core/evolve.py` is the one fold that changes it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from shared.events import Envelope


@dataclass
class LastWin:
    claim_id: uuid.UUID
    player_id: str
    operator_id: str | None
    amount_minor: int
    recorded_ms: int


@dataclass
class DropCycle:
    """A must-drop pool's current cycle as its DropPointCommitted recorded it (the value stays sealed in the state;
    `value` is decide's cache of it once opened with the service's key, never folded from an event)."""

    cycle: int
    kind: str
    commitment: str
    sealed: str
    ceiling_micro: int
    window_end_ms: int | None = None
    value: int | None = None


@dataclass
class PoolState:
    pool_id: str
    tier: str
    status: str = "open"  # "open" | "disabled" | "decommissioned"
    kind: str = "random"
    drop: DropCycle | None = None
    drops: int = 0
    level_micro: int = 0
    contributions_micro: int = 0
    seeds_micro: int = 0
    paid_micro: int = 0
    transferred_in_micro: int = 0
    transferred_out_micro: int = 0
    wins: int = 0
    last_win: LastWin | None = None
    transfer_to_pool_id: str | None = None


@dataclass
class OperatorLiability:
    """What an operator's wagers put into the network and what its players took out (micro-units)."""

    contributed_micro: int = 0
    paid_micro: int = 0

    @property
    def net_micro(self) -> int:
        return self.contributed_micro - self.paid_micro


@dataclass
class Seen:
    """A command id inside the de-dup window: its content fingerprint and the events that answered it."""

    fingerprint: tuple[Any, ...]
    recorded_ms: int
    event_ids: tuple[uuid.UUID, ...]


@dataclass
class NetworkState:
    network_id: str
    currency: str
    pools: dict[str, PoolState] = field(default_factory=dict)
    liability_by_operator: dict[str, OperatorLiability] = field(default_factory=dict)
    seen: dict[uuid.UUID, Seen] = field(default_factory=dict)
    # Answers to claims and admin commands, kept while their command id is remembered, so a repeat re-emits them.
    # Contribution batches are not kept (see docs/jackpot.md): their seen entry names the event that applied them.
    answers: dict[uuid.UUID, Envelope[Any]] = field(default_factory=dict)
    last_recorded_ms: int = 0
    events_applied: int = 0

    def level_micro(self, pool_id: str) -> int:
        return self.pools[pool_id].level_micro


NO_OPERATOR = "-"


def contribution_fingerprint(
    game: str, player_id: str, operator_id: str | None, stake_minor: int, breakage_micro: int
) -> tuple[Any, ...]:
    return ("contribution", game, player_id, operator_id, stake_minor, breakage_micro)


def claim_fingerprint(request_id: uuid.UUID, player_id: str, tier: str, stake_minor: int | None) -> tuple[Any, ...]:
    return ("claim", request_id, player_id, tier, stake_minor)


def admin_fingerprint(command_type: str, pool_id: str) -> tuple[Any, ...]:
    return ("admin", command_type, pool_id)


def forget_before(state: NetworkState, horizon_ms: int) -> int:
    """Drop seen ids (and their kept answers) recorded before `horizon_ms`; returns how many were dropped.

    Entries are in recording order (broker append time of one partition), so the oldest are first.
    """
    dropped = 0
    while state.seen:
        command_id = next(iter(state.seen))
        seen = state.seen[command_id]
        if seen.recorded_ms >= horizon_ms:
            break
        del state.seen[command_id]
        for event_id in seen.event_ids:
            state.answers.pop(event_id, None)
        dropped += 1
    return dropped
