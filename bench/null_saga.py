"""Null sagas, the baselines of #17: the spin's processes, hops and records with handlers that only check provenance,
decode the input with the project's models, build the next message of the saga's shape and encode it. Pure: the
processes around them (bench/null_services.py) run them on the shared transactional loop."""

# N6 is today's shape (request → debit → seed → settlement → settled → answer); N3 the three-hop one, in which the spin
# writes its journal and one wager command in one transaction, the wallet applies it, and the spin answers. No combined
# wager command exists yet, so N3's stands in as a SettleWager (and the wallet's fact as a WagerSettled).

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from shared import records
from shared.events import DecodeError, decode, derived_id, encode, envelope, may_be
from shared.events.jackpot import Contribute
from shared.events.spin import SeedDrawn, SpinAccepted, SpinRequested, SpinSettled
from shared.events.wallet import DebitWager, Posting, SettleWager, WagerDebited, WagerSettled, player_account
from shared.topics import JACKPOT_COMMANDS, SPIN_EVENTS, SPIN_JOURNAL, SPIN_REQUESTS, WALLET_COMMANDS, WALLET_EVENTS

SHAPES = ("n6", "n3")
SOURCE = "reelstream-null-saga"
MICRO_PER_MINOR = 1_000_000
BALANCE_MINOR = 10**9  # the null wallet keeps no balances: every fact shows this one
PENDING_MAX = 100_000  # requests a null spin partition remembers until answered (oldest dropped beyond)
_WALLET_FACTS = frozenset({WagerDebited.TYPE, WagerSettled.TYPE})
# The records of one spin per shape, in causal order (topic, type suffix), for the per-hop table.
CHAINS = {
    "n6": (
        ("spin.requests", "spin.requested.v1"),
        ("wallet.commands", "wallet.debit-wager.v1"),
        ("wallet.events", "wallet.wager-debited.v1"),
        ("spin.journal", "spin.seed-drawn.v1"),
        ("wallet.commands", "wallet.settle-wager.v1"),
        ("wallet.events", "wallet.wager-settled.v1"),
        ("spin.events", "spin.settled.v1"),
    ),
    "n3": (
        ("spin.requests", "spin.requested.v1"),
        ("spin.journal", "spin.seed-drawn.v1"),
        ("wallet.commands", "wallet.settle-wager.v1"),
        ("wallet.events", "wallet.wager-settled.v1"),
        ("spin.events", "spin.settled.v1"),
    ),
}


@dataclass(frozen=True)
class Sample:
    """One real outcome, played once at start-up, that every null answer carries: answers as large as the real ones."""

    model_version: str
    seed_hex: str
    win_minor: int
    breakage_micro: int
    outcome: dict[str, Any]
    state_before: dict[str, Any]
    state_after: dict[str, Any]
    pins: dict[str, str]
    network_id: str  # the game's jackpot network: contributions are keyed by it, as the real ones
    contribution_micro: int  # the network's contribution of the sample's stake, sent for every null spin


@dataclass(frozen=True)
class Emit:
    """One record to write: `topic` is the logical name. The journal and the wallet's facts go to the input's partition
    number, as the real services write them; the rest by key."""

    topic: str
    key: bytes
    value: bytes
    on_input_partition: bool = False


@dataclass(frozen=True)
class Input:
    """A consumed record as the null handlers read it (logical topic, key, value, headers, broker time)."""

    topic: str
    key: bytes | None
    value: bytes | None
    headers: Sequence[tuple[str, bytes]]
    now: datetime


def sample_of(engine: Any, network: Any) -> Sample:
    """A Sample from one spin of `engine` (a games engine) at its lowest stake with an all-zero seed; `network` is
    the game's jackpot network (shared pools configuration)."""
    from games.pins import pins
    from games.rng import SpinRng

    state = engine.initial_state()
    seed = bytes(32)
    stake_minor = engine.stakes_minor[0]
    result = engine.play(state, stake_minor, SpinRng(seed))
    return Sample(
        model_version=engine.model_version,
        seed_hex=seed.hex(),
        win_minor=result.win_minor,
        breakage_micro=result.breakage_micro,
        outcome=result.outcome,
        state_before=state,
        state_after=result.state_after,
        pins=pins(engine),
        network_id=network.network_id,
        contribution_micro=network.wager_contribution_micro(stake_minor),
    )


def _message(data: Any, cause: uuid.UUID, step: str, now: datetime) -> bytes:
    return encode(envelope(data, source=SOURCE, time=now, id=derived_id(cause, step), correlationid=str(cause)))


def _trusted(record: Input) -> bool:
    return records.provenance_problem(record.topic, record.headers, record.value, record.key) is None


def _wager(data: Any) -> dict[str, Any]:
    return {
        "request_id": data.request_id,
        "player_id": data.player_id,
        "game": data.game,
        "stake_minor": data.stake_minor,
        "currency": data.currency,
    }


def spin_step(shape: str, pending: dict[uuid.UUID, Any], record: Input, sample: Sample) -> list[Emit]:
    """The null spin: a request or a wallet fact in, the shape's next records out. `pending` (the partition's) holds
    each request's data until its answer; anything untrusted, undecodable or not of the saga is skipped."""
    if record.topic == SPIN_REQUESTS:
        try:
            request = records.decode_on(SPIN_REQUESTS, record.value, record.key, check_key=False).data
        except DecodeError:
            return []
        if len(pending) >= PENDING_MAX:
            pending.pop(next(iter(pending)))
        pending[request.request_id] = request
        return _requested(shape, request, record.now, sample)
    if record.topic != WALLET_EVENTS or not may_be(record.value, _WALLET_FACTS) or not _trusted(record):
        return []
    try:
        fact = decode(record.value, expect_kind="event").data
    except DecodeError:
        return []
    if isinstance(fact, WagerDebited) and shape == "n6":
        request = pending.get(fact.transaction_id)
        return [] if request is None else _seeded(request, record.now, sample)
    if isinstance(fact, WagerSettled):
        request = pending.pop(fact.wager_id, None)
        return [] if request is None else _answered(shape, request, fact, record.now, sample)
    return []


def _requested(shape: str, request: SpinRequested, now: datetime, sample: Sample) -> list[Emit]:
    rid = request.request_id
    if shape == "n3":  # the journal and the one wager command, in one transaction
        return [_seed_record(request, now, sample), _settle_command(request, now, sample)]
    accepted = SpinAccepted(
        **_wager(request),
        operator_id=request.operator_id,
        request_event_id=rid,
        requested_at=now,
        accepted_at=now,
    )
    debit = DebitWager(
        transaction_id=rid,
        player_id=request.player_id,
        amount_minor=request.stake_minor,
        currency=request.currency,
        game=request.game,
        operator_id=request.operator_id,
    )
    return [
        Emit(
            SPIN_JOURNAL, request.player_id.encode(), _message(accepted, rid, "accepted", now), on_input_partition=True
        ),
        Emit(WALLET_COMMANDS, request.player_id.encode(), _message(debit, rid, "debit-wager", now)),
    ]


def _seeded(request: SpinRequested, now: datetime, sample: Sample) -> list[Emit]:
    """N6 after the debit: the seed journaled, the contribution and the settlement sent (one transaction)."""
    return [
        _seed_record(request, now, sample),
        _contribution(request, now, sample),
        _settle_command(request, now, sample),
    ]


def _answered(shape: str, request: SpinRequested, fact: WagerSettled, now: datetime, sample: Sample) -> list[Emit]:
    rid = request.request_id
    settled = SpinSettled(
        **_wager(request),
        win_minor=fact.win_minor,
        house_win_minor=fact.house_win_minor,
        jackpot_win_minor=fact.jackpot_win_minor,
        breakage_micro=fact.breakage_micro,
        contribution_micro=fact.contribution_micro,
        balance_after_minor=fact.balance_after_minor,
        model_version=sample.model_version,
        seed=sample.seed_hex,
        state_before=sample.state_before,
        state_after=sample.state_after,
        outcome=sample.outcome,
        operator_id=request.operator_id,
        settled_at=now,
        accepted_at=now,
        **sample.pins,
    )
    answer = Emit(SPIN_EVENTS, request.player_id.encode(), _message(settled, rid, "answer", now))
    # N3 sends the contribution once the wallet accepted the wager, with the answer (#17).
    return [answer, _contribution(request, now, sample)] if shape == "n3" else [answer]


def _seed_record(request: SpinRequested, now: datetime, sample: Sample) -> Emit:
    seed = SeedDrawn(
        **_wager(request),
        model_version=sample.model_version,
        seed=sample.seed_hex,
        state_before=sample.state_before,
        drawn_at=now,
    )
    return Emit(SPIN_JOURNAL, request.player_id.encode(), _message(seed, request.request_id, "seed", now), True)


def _contribution(request: SpinRequested, now: datetime, sample: Sample) -> Emit:
    contribute = Contribute(
        network_id=sample.network_id,
        contribution_id=request.request_id,
        game=request.game,
        currency=request.currency,
        stake_minor=request.stake_minor,
        contribution_micro=sample.contribution_micro,
        player_id=request.player_id,
        operator_id=request.operator_id,
    )
    key = contribute.subject.encode()
    return Emit(JACKPOT_COMMANDS, key, _message(contribute, request.request_id, "contribute", now))


def _settle_command(request: SpinRequested, now: datetime, sample: Sample) -> Emit:
    settle = SettleWager(
        transaction_id=derived_id(request.request_id, "settle"),
        player_id=request.player_id,
        wager_id=request.request_id,
        currency=request.currency,
        house_win_minor=sample.win_minor,
        jackpot_win_minor=0,
        breakage_micro=sample.breakage_micro,
        contribution_micro=sample.contribution_micro,
        network_id=sample.network_id,
    )
    return Emit(WALLET_COMMANDS, request.player_id.encode(), _message(settle, request.request_id, "settle-wager", now))


def wallet_step(record: Input) -> list[Emit]:
    """The null wallet: a DebitWager or SettleWager the spin service wrote in, its fact out (no balances kept)."""
    if record.topic != WALLET_COMMANDS or not _trusted(record):
        return []
    try:
        message = records.decode_on(WALLET_COMMANDS, record.value, record.key)
    except DecodeError:
        return []
    command = message.data
    now, cause = record.now, uuid.UUID(message.correlationid) if message.correlationid else message.id
    account = player_account(command.player_id)
    if isinstance(command, DebitWager):
        stake_micro = command.amount_minor * MICRO_PER_MINOR
        fact: Any = WagerDebited(
            **_fact_fields(command, now),
            postings=_postings(account, -stake_micro),
            amount_minor=command.amount_minor,
            game=command.game,
            operator_id=command.operator_id,
        )
        step = "wager-debited"
    elif isinstance(command, SettleWager):
        win_minor = command.house_win_minor + command.jackpot_win_minor
        fact = WagerSettled(
            **_fact_fields(command, now),
            postings=_postings(account, win_minor * MICRO_PER_MINOR),
            wager_id=command.wager_id,
            win_minor=win_minor,
            house_win_minor=command.house_win_minor,
            jackpot_win_minor=command.jackpot_win_minor,
            breakage_micro=command.breakage_micro,
            contribution_micro=command.contribution_micro,
            network_id=command.network_id,
        )
        step = "wager-settled"
    else:
        return []
    return [Emit(WALLET_EVENTS, command.player_id.encode(), _message(fact, cause, step, now), on_input_partition=True)]


def _fact_fields(command: Any, now: datetime) -> dict[str, Any]:
    return {
        "transaction_id": command.transaction_id,
        "player_id": command.player_id,
        "recorded_at": now,
        "currency": command.currency,
        "balance_after_minor": BALANCE_MINOR,
    }


def _postings(player: str, player_micro: int) -> tuple[Posting, ...]:
    return (Posting(account=player, amount_micro=player_micro), Posting(account="house", amount_micro=-player_micro))


def jackpot_step(record: Input) -> list[Emit]:
    """The null jackpot: a contribution checked and decoded, nothing written (its input position still commits in a
    transaction, as the jackpot's does)."""
    if record.topic == JACKPOT_COMMANDS and _trusted(record):
        try:
            records.decode_on(JACKPOT_COMMANDS, record.value, record.key)
        except DecodeError:
            pass
    return []


def counted(start: Mapping[Any, int], end: Mapping[Any, int], read: Mapping[Any, int]) -> dict[str, int]:
    """Data records and commit markers appended between two sets of end offsets (by partition): a read_committed read
    of that range returns the data records; the rest of the offsets went to transaction markers (or aborted data)."""
    appended = sum(end[tp] - start.get(tp, 0) for tp in end)
    data = sum(read.values())
    if data > appended:
        raise ValueError(f"{data} records read from {appended} offsets")
    return {"data": data, "markers": appended - data}


def counted_by_topic(
    start: Mapping[Any, int], end: Mapping[Any, int], read: Mapping[Any, int], prefix: str = ""
) -> dict[str, Any]:
    """`counted` in all, and under `by_topic` for each topic (by (topic, partition) keys; named without `prefix`)
    that had any appended."""
    by_topic = {}
    for topic in sorted({tp[0] for tp in end}):

        def mine(figures: Mapping[Any, int]) -> dict[Any, int]:
            return {tp: n for tp, n in figures.items() if tp[0] == topic}

        figures = counted(mine(start), mine(end), mine(read))
        if figures["data"] or figures["markers"]:
            by_topic[topic.removeprefix(prefix)] = figures
    return {**counted(start, end, read), "by_topic": by_topic}
