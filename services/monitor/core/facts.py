"""The few facts the monitor keeps from each record: a settled or rejected spin, a meter, a pool movement, each with
where it was read (idempotent updates) and its broker time (the same windows on a rebuild as live)."""

from __future__ import annotations

from dataclasses import dataclass

from shared.events import epoch_ms
from shared.events.jackpot import JackpotMeter, JackpotWon
from shared.events.spin import SpinRejected, SpinSettled
from shared.rtp import spin_return_micro


@dataclass(frozen=True)
class Position:
    partition: int
    offset: int
    broker_ms: int
    event_id: str = ""
    item: int = 0  # its index in a batch envelope's record (shared/events/batch.py): 0 for a record of one event


@dataclass(frozen=True)
class SpinFact:
    at: Position
    game: str
    stake_minor: int
    currency: str
    operator_id: str
    house_win_minor: int
    pool_win_minor: int
    return_micro: int  # the par basis: house win + breakage + contribution (shared/rtp.py)
    latency_ms: int | None

    @property
    def cell(self) -> str:
        return cell_key(self.game, self.stake_minor, self.currency, self.operator_id)


def cell_key(game: str, stake_minor: int, currency: str, operator_id: str) -> str:
    return f"{game}|{stake_minor}|{currency}|{operator_id}"


def split_cell(cell: str) -> dict:
    game, stake, currency, operator_id = cell.split("|")
    return {"game": game, "stake_minor": int(stake), "currency": currency, "operator_id": operator_id}


NO_OPERATOR = "-"


def spin_fact(data: SpinSettled, at: Position) -> SpinFact:
    """A settled spin; its latency runs from the request's broker time (when the spin recorded it) to the answer's."""
    latency = None if data.accepted_at is None else max(0, at.broker_ms - epoch_ms(data.accepted_at))
    return SpinFact(
        at=at,
        game=data.game,
        stake_minor=data.stake_minor,
        currency=data.currency,
        operator_id=data.operator_id or NO_OPERATOR,
        house_win_minor=data.house_win_minor,
        pool_win_minor=data.jackpot_win_minor,
        return_micro=spin_return_micro(data),
        latency_ms=latency,
    )


@dataclass(frozen=True)
class RejectionFact:
    at: Position
    code: str


def rejection_fact(data: SpinRejected, at: Position) -> RejectionFact:
    return RejectionFact(at=at, code=data.code[:64])


@dataclass(frozen=True)
class MeterFact:
    at: Position
    pool_id: str
    network_id: str
    currency: str
    level_minor: int
    as_of_ms: int


def meter_fact(data: JackpotMeter, at: Position) -> MeterFact:
    return MeterFact(
        at=at,
        pool_id=data.pool_id,
        network_id=data.network_id,
        currency=data.currency,
        level_minor=data.level_minor,
        as_of_ms=epoch_ms(data.as_of),
    )


@dataclass(frozen=True)
class MovementFact:
    """One pool's movement in one jackpot event (every pool-moving event carries them)."""

    at: Position
    event_id: str
    network_id: str
    pool_id: str
    opening_micro: int
    closing_micro: int
    balanced: bool


@dataclass(frozen=True)
class WinFact:
    at: Position
    claim_id: str
    network_id: str
    pool_id: str
    tier: str
    player_id: str
    operator_id: str
    currency: str
    stake_minor: int
    share_ppm: int
    amount_minor: int
    recorded_at_ms: int


def win_fact(data: JackpotWon, at: Position) -> WinFact:
    return WinFact(
        at=at,
        claim_id=str(data.claim_id),
        network_id=data.network_id,
        pool_id=data.pool_id,
        tier=data.tier,
        player_id=data.player_id,
        operator_id=data.operator_id or NO_OPERATOR,
        currency=data.currency,
        stake_minor=data.stake_minor,
        share_ppm=data.share_ppm,
        amount_minor=data.amount_minor,
        recorded_at_ms=epoch_ms(data.recorded_at),
    )


def movement_facts(event_id: str, data, at: Position) -> list[MovementFact]:
    """The movements of a pool-moving jackpot event (one, or several for a batch or a decommissioning)."""
    movements = getattr(data, "movements", None) or ((data.movement,) if hasattr(data, "movement") else ())
    return [
        MovementFact(
            at=at,
            event_id=event_id,
            network_id=data.network_id,
            pool_id=m.pool_id,
            opening_micro=m.opening_micro,
            closing_micro=m.closing_micro,
            balanced=m.balanced(),
        )
        for m in movements
    ]
