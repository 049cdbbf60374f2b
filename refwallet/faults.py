"""The fault switches of a run, and the seeded draw that picks a request's fault from its id and its delivery number,
so a run with the same seed and the same requests meets the same faults in the same places."""

from __future__ import annotations

import hashlib
from collections import Counter
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

PPM = 1_000_000
# Deliveries counted per request id; past this many ids the count starts over (a bounded memory, not a ledger).
TRACKED_REQUESTS_MAX = 100_000


class Fault(StrEnum):
    NONE = "none"
    TIMEOUT = "timeout"  # held past the caller's timeout, then closed unanswered; not applied
    HTTP_500 = "http_500"  # answered 500; not applied
    LOST = "lost"  # applied, then the connection closed without the answer
    LATE = "late"  # applied, answered after the caller has given up
    DUPLICATE = "duplicate"  # delivered to the ledger twice at once; one answer
    NO_BALANCE = "no_balance"  # applied, answered without the balance (an answer shape where it is optional)


class FaultPlan(BaseModel):
    """Rates in parts per million of money calls; latency applies to every call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = 0
    latency_ms: int = Field(0, ge=0)
    timeout_ppm: int = Field(0, ge=0, le=PPM)
    http_500_ppm: int = Field(0, ge=0, le=PPM)
    lost_ppm: int = Field(0, ge=0, le=PPM)
    late_ppm: int = Field(0, ge=0, le=PPM)
    duplicate_ppm: int = Field(0, ge=0, le=PPM)
    no_balance_ppm: int = Field(0, ge=0, le=PPM)
    hang_ms: int = Field(5_000, ge=0)
    late_ms: int = Field(5_000, ge=0)

    @model_validator(mode="after")
    def _rates_fit(self) -> FaultPlan:
        if sum(rate for _, rate in self.bands()) > PPM:
            raise ValueError("the fault rates add up to more than every call")
        return self

    def bands(self) -> list[tuple[Fault, int]]:
        return [
            (Fault.TIMEOUT, self.timeout_ppm),
            (Fault.HTTP_500, self.http_500_ppm),
            (Fault.LOST, self.lost_ppm),
            (Fault.LATE, self.late_ppm),
            (Fault.DUPLICATE, self.duplicate_ppm),
            (Fault.NO_BALANCE, self.no_balance_ppm),  # last, so the bands before it draw as they always did
        ]


def fault_for(plan: FaultPlan, request_id: str, delivery: int) -> Fault:
    digest = hashlib.sha256(f"{plan.seed}:{request_id}:{delivery}".encode()).digest()
    draw = int.from_bytes(digest[:8], "big") % PPM
    edge = 0
    for fault, rate in plan.bands():
        edge += rate
        if draw < edge:
            return fault
    return Fault.NONE


class FaultSwitch:
    """The plan in force, how often each request id was delivered, and the faults met since the plan was set."""

    def __init__(self, plan: FaultPlan):
        self.plan = plan
        self._deliveries: dict[str, int] = {}
        self.deliveries = 0
        self.injected: Counter[Fault] = Counter()

    def set(self, plan: FaultPlan) -> None:
        """Start a run: a new plan, and every request's deliveries counted from the first again."""
        self.plan = plan
        self._deliveries.clear()
        self.deliveries = 0
        self.injected.clear()

    def next(self, request_id: str) -> Fault:
        if len(self._deliveries) >= TRACKED_REQUESTS_MAX:
            self._deliveries.clear()
        delivery = self._deliveries.get(request_id, 0)
        self._deliveries[request_id] = delivery + 1
        fault = fault_for(self.plan, request_id, delivery)
        self.deliveries += 1
        self.injected[fault] += 1
        return fault

    def accounting(self) -> dict:
        """The plan, the money calls delivered under it and the faults each kind met (GET /_admin/faults)."""
        injected = {fault.value: self.injected[fault] for fault in Fault if fault is not Fault.NONE}
        return {"plan": self.plan.model_dump(), "deliveries": self.deliveries, "injected": injected}
