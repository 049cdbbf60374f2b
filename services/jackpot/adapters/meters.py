"""Live meters: each pool's level rounded down to the minor unit, on the compacted jackpot.meters (key = pool id)."""

from __future__ import annotations

from typing import Any

from shared.events import broker_time, derived_id, envelope
from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR, micro_floor_to_minor

from services.jackpot.core.inputs import SOURCE
from services.jackpot.core.state import NetworkState


class MeterBoard:
    """Which pools moved since the last publish (by whole minor units); `due` lists the meters to send now."""

    def __init__(self) -> None:
        self._published_minor: dict[str, tuple[int, str | None]] = {}

    def due(self, states: list[NetworkState], *, everything: bool = False) -> list[Any]:
        meters = []
        for state in states:
            for pool in state.pools.values():
                if pool.kind == "reserve":
                    continue  # the hidden reserve funds reseeds; it is never shown
                level_minor, _ = micro_floor_to_minor(pool.level_micro)
                shown = (level_minor, pool.drop.commitment if pool.drop else None)
                if not everything and self._published_minor.get(pool.pool_id) == shown:
                    continue
                meters.append(meter_event(state, pool.pool_id, level_minor))
        return meters

    def published(self, meters: list[Any]) -> None:
        for meter in meters:
            self._published_minor[meter.data.pool_id] = (meter.data.level_minor, meter.data.commitment)

    def forget(self, pool_ids: list[str]) -> None:
        for pool_id in pool_ids:
            self._published_minor.pop(pool_id, None)


def meter_event(state: NetworkState, pool_id: str, level_minor: int) -> Any:
    as_of = broker_time(state.last_recorded_ms)
    pool = state.pools[pool_id]
    drop = pool.drop
    data = jp.JackpotMeter(
        pool_id=pool_id,
        network_id=state.network_id,
        currency=state.currency,
        level_minor=level_minor,
        as_of=as_of,
        kind=None if pool.kind == "random" else pool.kind,
        ceiling_minor=drop.ceiling_micro // MICRO_PER_MINOR if drop else None,
        commitment=drop.commitment if drop else None,
        cycle=drop.cycle if drop else None,
        drop_by=broker_time(drop.window_end_ms) if drop and drop.window_end_ms is not None else None,
    )
    extra = (data.commitment,) if data.commitment else ()
    event_id = derived_id(pool_id, "meter", level_minor, state.last_recorded_ms, *extra)
    return envelope(data, source=SOURCE, time=as_of, id=event_id)
