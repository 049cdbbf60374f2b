"""The monitor's integrity alerts on monitor.alerts: a cell's RTP left its band, or a pool's balances drifted. Ids
derive from what they name, so a rebuilt monitor re-emits an alert under the same id."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from shared.events.base import EventData, Int, Micro, Minor
from shared.topics import MONITOR_ALERTS


class RtpOutOfBand(EventData):
    """A cell's observed RTP crossed the sequential test's boundary around its par sheet's figure."""

    TYPE = "reelstream.monitor.rtp-out-of-band.v1"
    SUBJECT_FIELD = "cell"
    TOPIC = MONITOR_ALERTS

    cell: str
    game: str
    stake_minor: Minor
    currency: str
    operator_id: str
    side: Literal["low", "high"]
    spins: Int
    observed_rtp: float
    par_rtp: float
    par_sd: float
    deviation_x_stake: float
    boundary_x_stake: float
    family_alpha: float
    detected_at: datetime


class PoolDrifted(EventData):
    """A pool's movement does not balance (identity) or does not open where the previous one closed (continuity)."""

    TYPE = "reelstream.monitor.pool-drifted.v1"
    SUBJECT_FIELD = "pool_id"
    TOPIC = MONITOR_ALERTS

    pool_id: str
    network_id: str
    kind: Literal["identity", "continuity"]
    event_id: str
    expected_micro: Micro
    found_micro: Micro
    detected_at: datetime
