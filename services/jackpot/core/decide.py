"""The jackpot core: `JackpotCore.decide(states, message, now) -> Decision` decides one command of a partition (its
network looked up in the partition's states), each event folded at once so the next command sees it; `evolve` folds
one event (shared/decision.py, docs/jackpot.md)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from games.registry import stakes_minor

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.decision import Decision, Message, Packed, Refusal, Undecodable
from shared.events import Envelope, broker_time, derived_id, envelope, epoch_ms
from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR
from shared.pools import NetworkConfig, PoolsConfig

from services.jackpot.core import admin, claims, mustdrop, packed
from services.jackpot.core.commitment import DropSecrets
from services.jackpot.core.evolve import evolve
from services.jackpot.core.inputs import SOURCE, Incoming, Outcome
from services.jackpot.core.payout import split_contribution
from services.jackpot.core.state import NetworkState, contribution_fingerprint, forget_before

States = dict[str, NetworkState]  # a partition's networks by network id
# A packed record's dead letter names at most this many refused items in its field (a short header); its reason names
# each, with how many there are.
NAMED_ITEMS_MAX = 16


def new_network(network: NetworkConfig) -> NetworkState:
    return NetworkState(network.network_id, network.currency)


class JackpotCore:
    """The jackpot's rules as the loop runs them: the pools configuration and the drop secrets (the drop key and the
    OS CSPRNG, needed only by networks with must-drop pools: core/mustdrop.py) are given once."""

    def __init__(self, pools: PoolsConfig, secrets: DropSecrets | None = None) -> None:
        self.pools = pools
        self.secrets = secrets
        self._networks = {network.network_id: network for network in pools.networks}

    def new_state(self, partition: int) -> States:
        return {}

    def decide(self, states: States, message: Message, now: datetime) -> Decision:
        """The events one command makes at broker time `now` (the de-duplication window ends there; the command's
        own broker time dates its events), each folded into its network's state as it is decided."""
        payload = message.payload
        if isinstance(payload, Undecodable):
            return Decision(dead_letters=(_undecodable(payload),))
        network_id = (payload.items[0] if isinstance(payload, Packed) else payload).data.network_id
        network = self._networks.get(network_id)
        if network is None:  # a command for a network this deployment does not run: never a new network
            refusal = Refusal("UNKNOWN_NETWORK", f"no network {network_id!r}")
            return Decision(dead_letters=(refusal,))
        state = states.get(network.network_id) or states.setdefault(network.network_id, new_network(network))
        if isinstance(payload, Packed):
            outcome = _decide_packed(state, network, payload, message.broker_ms, epoch_ms(now), self.secrets)
        else:
            outcome = _decide(state, network, Incoming(payload, message.broker_ms), epoch_ms(now), self.secrets)
        return Decision(events=tuple(outcome.events), dead_letters=tuple(outcome.dead_letters), repeats=outcome.repeats)

    def evolve(self, states: States, event: Envelope[Any]) -> States:
        network_id = event.data.network_id
        state = states.get(network_id) or states.setdefault(network_id, new_network(self.pools.network(network_id)))
        evolve(state, event)
        return states


def _undecodable(payload: Undecodable) -> Refusal:
    """A record the codec refused: a valid message on the wrong topic or key keeps its own code (WRONG_TOPIC, ...)."""
    error = payload.error
    code = getattr(error, "code", None)
    return Refusal(code, error.reason, error.field) if code else Refusal("UNDECODABLE", str(error), error.field)


def _decide(
    state: NetworkState, network: NetworkConfig, incoming: Incoming, now_ms: int, secrets: DropSecrets | None
) -> Outcome:
    outcome = Outcome()
    forget_before(state, now_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS)
    data = incoming.command.data
    if len(state.pools) < len(network.pools) and not isinstance(data, jp.OpenPool):
        _open_missing_pools(state, network, incoming.broker_ms, outcome)
        _emit_all(state, mustdrop.commit_missing(state, network, incoming.broker_ms, secrets), outcome)
    if isinstance(data, jp.Contribute):
        parts = _accept_contribution(state, network, incoming, outcome)
        if parts is not None:
            _apply_contribution(state, network, incoming, parts, secrets, outcome)
    elif isinstance(data, jp.Claim):
        _emit_all(state, claims.answer(state, network, incoming, outcome), outcome)
    else:
        _emit_all(state, admin.answer(state, network, incoming, outcome), outcome)
        _emit_all(state, mustdrop.commit_missing(state, network, incoming.broker_ms, secrets), outcome)
    return outcome


def _decide_packed(
    state: NetworkState,
    network: NetworkConfig,
    payload: Packed,
    broker_ms: int,
    now_ms: int,
    secrets: DropSecrets | None,
) -> Outcome:
    """A packed record's contributions (one network: the record key is each one's subject), decided as the same
    contributions one record each at this broker time would be: each accepted, refused or repeated in order, each run
    no must-drop pool can arm within applied as one event, and each one that may arm a pool alone (core/packed.py)."""
    outcome = Outcome()
    forget_before(state, now_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS)
    if len(state.pools) < len(network.pools):
        _open_missing_pools(state, network, broker_ms, outcome)
        _emit_all(state, mustdrop.commit_missing(state, network, broker_ms, secrets), outcome)
    parts = packed.Parts(network, lambda pool_id: _receiver(state, pool_id))
    accepted: list[Incoming] = []
    pending: dict[Any, tuple[Any, ...]] = {}  # contributions accepted earlier in this record: their fingerprints
    refused: list[tuple[int, Refusal]] = []  # (the item's index in the record, its refusal)
    for index, item in enumerate(payload.items):
        incoming = Incoming(item, broker_ms)
        before = len(outcome.dead_letters)
        if _fresh(state, network, incoming, outcome, pending, parts.expected_micro):
            accepted.append(incoming)
        refused += [(index, refusal) for refusal in outcome.dead_letters[before:]]
        del outcome.dead_letters[before:]
    if refused:
        outcome.dead_letters.append(_of_items(refused, len(payload.items)))
    found = [parts.of(i.command.data.stake_minor, i.command.data.breakage_micro) for i in accepted]
    routed = [each for _, each in found]
    start = 0
    while start < len(accepted):
        run = packed.clear_run(state, network, routed, start, broker_ms, secrets)
        if run:
            applied = packed.applied_run(state, network, accepted[start : start + run], routed[start : start + run])
            _emit_all(state, [applied], outcome)
            start += run
        else:
            _apply_contribution(state, network, accepted[start], found[start][0], secrets, outcome)
            start += 1
    return outcome


def _of_items(refused: list[tuple[int, Refusal]], count: int) -> Refusal:
    """One refusal for a packed record's refused items (the record is dead-lettered once, whatever it refuses): their
    code (the distinct codes joined by "+" when they differ), each item's index and reason, in order."""
    codes = list(dict.fromkeys(refusal.code for _, refusal in refused))
    told = "; ".join(f"items.{index}: {refusal.code} {refusal.reason}" for index, refusal in refused)
    reason = f"{len(refused)} of {count} items refused: {told}"
    named = [f"items.{index}" for index, _ in refused[:NAMED_ITEMS_MAX]]
    return Refusal("+".join(codes), reason, ",".join(named + ["..."] * (len(refused) > NAMED_ITEMS_MAX)))


def _apply_contribution(
    state: NetworkState,
    network: NetworkConfig,
    incoming: Incoming,
    parts: list[int],
    secrets: DropSecrets | None,
    outcome: Outcome,
) -> None:
    """Route the parts (decommissioned pools' shares, must-drop ceilings and overflow), apply them as one
    ContributionsApplied, then drop what the contribution wins."""
    routed: dict[str, int] = {}
    for pool, part_micro in zip(network.pools, parts):
        receiver = _receiver(state, pool.pool_id)
        routed[receiver] = routed.get(receiver, 0) + part_micro
    won, overflows = [], []
    if network.drop_pools():  # one contribution a decision: nothing is pending beyond the state's levels
        won, overflows = mustdrop.route(
            state, network, incoming, routed, lambda _: 0, lambda p: _receiver(state, p), secrets
        )
    moved_in: dict[str, int] = {}
    moved_out: dict[str, int] = {}
    for source, target, amount_micro in overflows:
        moved_out[source] = moved_out.get(source, 0) + amount_micro
        moved_in[target] = moved_in.get(target, 0) + amount_micro
    _emit_all(state, [_applied(state, network, incoming, routed, moved_in, moved_out)], outcome)
    for pool in won:
        mustdrop.drop(state, network, pool, incoming, secrets, lambda event: _emit_all(state, [event], outcome))


def _applied(
    state: NetworkState,
    network: NetworkConfig,
    incoming: Incoming,
    routed: dict[str, int],
    moved_in: dict[str, int],
    moved_out: dict[str, int],
) -> Envelope[Any]:
    """One contribution's ContributionsApplied: its item and each pool's movement (the loop may pack consecutive
    ones into one record: shared/events/batch.py)."""
    data: jp.Contribute = incoming.command.data
    item = packed.applied_item(data, sum(routed.values()))
    movements = []
    for pool in network.pools:
        pool_id = pool.pool_id
        contributed_micro, in_micro = routed.get(pool_id, 0), moved_in.get(pool_id, 0)
        out_micro = moved_out.get(pool_id, 0)
        if not (contributed_micro or in_micro):
            continue
        opening_micro = state.level_micro(pool_id)
        movements.append(
            jp.PoolMovement(
                pool_id=pool_id,
                opening_micro=opening_micro,
                contributions_micro=contributed_micro,
                transferred_in_micro=in_micro,
                transferred_out_micro=out_micro,
                closing_micro=opening_micro + contributed_micro + in_micro - out_micro,
            )
        )
    now = broker_time(incoming.broker_ms)
    applied = jp.ContributionsApplied(
        network_id=network.network_id,
        recorded_at=now,
        currency=network.currency,
        contributions=(item,),
        movements=tuple(movements),
    )
    # The id a run of one contribution had: the same contribution gets the same event id as before the seam.
    event_id = derived_id(network.network_id, "contributions-applied", data.contribution_id, data.contribution_id, 1)
    return envelope(applied, source=SOURCE, time=now, id=event_id)


def _emit_all(state: NetworkState, events: list[Envelope[Any]], outcome: Outcome) -> None:
    for event in events:
        evolve(state, event)
        outcome.events.append(event)


def _accept_contribution(
    state: NetworkState, network: NetworkConfig, incoming: Incoming, outcome: Outcome
) -> list[int] | None:
    """Each pool's part of a fresh, valid contribution; None (with a dead letter or a counted repeat) otherwise."""
    if not _fresh(state, network, incoming, outcome, {}, network.wager_contribution_micro):
        return None
    data: jp.Contribute = incoming.command.data
    return split_contribution(network.pools, data.stake_minor, data.breakage_micro)


def _fresh(
    state: NetworkState,
    network: NetworkConfig,
    incoming: Incoming,
    outcome: Outcome,
    pending: dict[Any, Any],
    expected_micro: Callable[[int], int],
) -> bool:
    """Whether a contribution is new (not seen, nor accepted earlier in its record: `pending`, id -> fingerprint, to
    which it is then added) and valid (`expected_micro`: the network's total at a stake); else its dead letter or
    counted repeat is in `outcome`."""
    data: jp.Contribute = incoming.command.data
    fingerprint = contribution_fingerprint(
        data.game, data.player_id, data.operator_id, data.stake_minor, data.breakage_micro
    )
    earlier = state.seen.get(data.contribution_id)
    earlier_fingerprint = earlier.fingerprint if earlier is not None else pending.get(data.contribution_id)
    if earlier_fingerprint is not None:
        if earlier_fingerprint != fingerprint:
            outcome.dead_letters.append(Refusal("DUPLICATE_CONFLICT", "contribution id reused with other content"))
        else:
            outcome.repeats += 1
        return False
    problem = _contribution_problem(network, incoming, expected_micro)
    if problem is not None:
        outcome.dead_letters.append(Refusal(*problem))
        return False
    pending[data.contribution_id] = fingerprint
    return True


def _contribution_problem(
    network: NetworkConfig, incoming: Incoming, expected_micro: Callable[[int], int]
) -> tuple[str, str] | None:
    data: jp.Contribute = incoming.command.data
    if data.game not in network.games:
        return "WRONG_GAME", f"game {data.game!r} is not in network {network.network_id!r}"
    if data.currency != network.currency:
        return "CURRENCY_MISMATCH", f"{data.currency} contribution to a {network.currency} network"
    if data.stake_minor not in stakes_minor(data.game):
        return "INVALID_STAKE", f"{data.stake_minor} is not a stake of {data.game}"
    if not 0 <= data.breakage_micro < MICRO_PER_MINOR:
        return "INVALID_BREAKAGE", f"breakage_micro {data.breakage_micro} is not a sub-cent remainder (0 .. 999,999)"
    total_micro = expected_micro(data.stake_minor)
    if data.contribution_micro != total_micro:
        return (
            "CONTRIBUTION_MISMATCH",
            f"contribution_micro {data.contribution_micro} != {total_micro} by the pool rates",
        )
    return None


def _receiver(state: NetworkState, pool_id: str) -> str:
    """Where a pool's share goes: the pool itself, or, once decommissioned, the pool its balance moved to."""
    for _ in range(len(state.pools) + 1):
        pool = state.pools[pool_id]
        if pool.status != "decommissioned":
            return pool_id
        pool_id = pool.transfer_to_pool_id
    raise AssertionError("decommission transfers form a cycle")


def _open_missing_pools(state: NetworkState, network: NetworkConfig, broker_ms: int, outcome: Outcome) -> None:
    """A network's pools open at their seed on first use: the seed is operator-funded, recorded as seeds."""
    events = [
        admin.opened_event(network, pool, broker_time(broker_ms), None)
        for pool in network.pools
        if pool.pool_id not in state.pools
    ]
    _emit_all(state, events, outcome)
