"""One signature in every money core (shared/decision.py: Core): `new_state(partition)`, `decide(state, message,
now)` returning a Decision, `evolve(state, event)`, with the message typed as the loop's Message; whatever varies per
record comes in the message, never as another parameter (docs/architecture.md, "One core contract, one loop")."""

from __future__ import annotations

import inspect
import typing

import pytest

from services.jackpot.core.decide import JackpotCore
from services.spin.core.decide import SpinCore
from services.wallet.core import WalletCore
from shared.decision import Decision, Message

CORES = (SpinCore, WalletCore, JackpotCore)


def _parameters(method) -> list[str]:
    return [name for name in inspect.signature(method).parameters if name != "self"]


@pytest.mark.parametrize("core", CORES, ids=lambda core: core.__name__)
def test_each_core_has_the_protocols_three_methods_and_nothing_per_record_beside_the_message(core):
    assert len(_parameters(core.new_state)) == 1
    assert len(_parameters(core.decide)) == 3
    assert len(_parameters(core.evolve)) == 2
    hints = typing.get_type_hints(core.decide)
    assert hints[_parameters(core.decide)[1]] is Message
    assert issubclass(hints["return"], Decision)


def test_the_three_cores_decide_with_the_same_shape():
    shapes = {tuple(inspect.signature(core.decide).parameters)[2:] for core in CORES}
    assert shapes == {("message", "now")}
