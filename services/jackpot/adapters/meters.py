"""Live meters: each pool's level rounded down to the minor unit, on the compacted jackpot.meters (key = pool id)."""

from __future__ import annotations

from typing import Any

from shared.events import broker_time, derived_id, envelope
from shared.events import jackpot as jp
from shared.money import micro_floor_to_minor

from services.jackpot.core.inputs import SOURCE
from services.jackpot.core.state import NetworkState


class MeterBoard:
    """Which pools moved since the last publish (by whole minor units); `due` lists the meters to send now."""

    def __init__(self) -> None:
        self._published_minor: dict[str, int] = {}

    def due(self, states: list[NetworkState], *, everything: bool = False) -> list[Any]:
        meters = []
        for state in states:
            for pool in state.pools.values():
                level_minor, _ = micro_floor_to_minor(pool.level_micro)
                if not everything and self._published_minor.get(pool.pool_id) == level_minor:
                    continue
                meters.append(meter_event(state, pool.pool_id, level_minor))
        return meters

    def published(self, meters: list[Any]) -> None:
        for meter in meters:
            self._published_minor[meter.data.pool_id] = meter.data.level_minor

    def forget(self, pool_ids: list[str]) -> None:
        for pool_id in pool_ids:
            self._published_minor.pop(pool_id, None)


def meter_event(state: NetworkState, pool_id: str, level_minor: int) -> Any:
    as_of = broker_time(state.last_recorded_ms)
    data = jp.JackpotMeter(
        pool_id=pool_id, network_id=state.network_id, currency=state.currency, level_minor=level_minor, as_of=as_of
    )
    return envelope(
        data, source=SOURCE, time=as_of, id=derived_id(pool_id, "meter", level_minor, state.last_recorded_ms)
    )
