"""Fault draws are a function of the seed, the request id and its delivery: a run is reproducible, and a retry of the
same request draws afresh."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from refwallet.faults import PPM, Fault, FaultPlan, FaultSwitch, fault_for

IDS = [f"req-{i}" for i in range(2_000)]


def test_the_same_seed_meets_the_same_faults():
    plan = FaultPlan(seed=7, timeout_ppm=50_000, lost_ppm=50_000, http_500_ppm=20_000)
    assert [fault_for(plan, i, 0) for i in IDS] == [fault_for(plan, i, 0) for i in IDS]
    other = plan.model_copy(update={"seed": 8})
    assert [fault_for(plan, i, 0) for i in IDS] != [fault_for(other, i, 0) for i in IDS]


def test_the_rates_are_roughly_kept():
    plan = FaultPlan(seed=1, timeout_ppm=100_000, lost_ppm=100_000)
    drawn = [fault_for(plan, i, 0) for i in IDS]
    assert 100 < drawn.count(Fault.TIMEOUT) < 300
    assert 100 < drawn.count(Fault.LOST) < 300


def test_a_certain_fault_always_happens_and_none_never():
    assert {fault_for(FaultPlan(lost_ppm=PPM), i, 0) for i in IDS[:50]} == {Fault.LOST}
    assert {fault_for(FaultPlan(), i, 0) for i in IDS[:50]} == {Fault.NONE}


def test_a_second_delivery_draws_again():
    switch = FaultSwitch(FaultPlan(seed=3, lost_ppm=500_000))
    draws = [switch.next("same") for _ in range(40)]
    assert {Fault.LOST, Fault.NONE} == set(draws)


def test_rates_past_every_call_are_refused():
    with pytest.raises(ValidationError):
        FaultPlan(timeout_ppm=PPM, lost_ppm=1)


def test_the_switch_counts_each_fault_it_draws_and_a_new_plan_counts_afresh():
    plan = FaultPlan(seed=5, timeout_ppm=50_000, lost_ppm=50_000, http_500_ppm=20_000)
    switch = FaultSwitch(plan)
    drawn = [switch.next(i) for i in IDS]
    accounted = switch.accounting()
    assert accounted["deliveries"] == len(IDS)
    assert accounted["injected"] == {fault.value: drawn.count(fault) for fault in Fault if fault is not Fault.NONE}
    assert accounted["plan"] == plan.model_dump()
    switch.set(FaultPlan())
    assert switch.accounting()["deliveries"] == 0 and set(switch.accounting()["injected"].values()) == {0}
