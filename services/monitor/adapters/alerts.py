"""Crossings of the RTP test and pool drifts → alert envelopes for monitor.alerts (ids derived from what they name)."""

from __future__ import annotations

from typing import Any

from services.monitor.core import sequential
from services.monitor.core.facts import split_cell
from services.monitor.core.par import ParFigures
from shared.events import Envelope, broker_time, derived_id, envelope
from shared.events.monitor import PoolDrifted, RtpOutOfBand

SOURCE = "reelstream/monitor"


def rtp_alert(fact, crossing: sequential.Crossing, par: ParFigures) -> Envelope[Any]:
    cell = split_cell(fact.cell)
    observed = par.rtp + crossing.deviation_x / crossing.spins
    data = RtpOutOfBand(
        cell=fact.cell,
        side=crossing.side,
        spins=crossing.spins,
        observed_rtp=observed,
        par_rtp=par.rtp,
        par_sd=par.sd,
        deviation_x_stake=crossing.deviation_x,
        boundary_x_stake=crossing.boundary_x,
        family_alpha=sequential.ALPHA_FAMILY,
        detected_at=broker_time(fact.at.broker_ms),
        **cell,
    )
    event_id = derived_id("rtp-out-of-band", fact.cell, crossing.side)
    return envelope(data, source=SOURCE, time=data.detected_at, id=event_id)


def drift_alert(fact, kind: str, expected_micro: int, found_micro: int) -> Envelope[Any]:
    data = PoolDrifted(
        pool_id=fact.pool_id,
        network_id=fact.network_id,
        kind=kind,
        event_id=fact.event_id,
        expected_micro=expected_micro,
        found_micro=found_micro,
        detected_at=broker_time(fact.at.broker_ms),
    )
    return envelope(
        data, source=SOURCE, time=data.detected_at, id=derived_id("pool-drifted", fact.event_id, fact.pool_id, kind)
    )


def alerts_of(planned, pars: dict[str, ParFigures]) -> list[Envelope[Any]]:
    out = [rtp_alert(fact, crossing, pars[fact.game]) for fact, crossing in planned.crossings]
    out += [drift_alert(*drift) for drift in planned.drifts]
    return out
