"""Each result of an operator's cashier command also on that operator's topic: the answering events go, in the same
transaction and byte for byte, to wallet.answers.<O>; the plain cashier's key binds no operator."""

from __future__ import annotations

from collections.abc import Callable

from shared import observability, operators, records
from shared.input_position import Output

_AT = "answer@"  # an event's tag: the operator whose cashier topic gets a copy


def tag(operator_id: str | None) -> str:
    """The tag of the events answering a command bound to `operator_id` ("" : no copy)."""
    return _AT + operator_id if operators.known(operator_id) else ""


def copies(sent: list[Output], physical: Callable[[str], str]) -> list[Output]:
    """The copies for the operators' cashier answer topics (`physical`: logical name -> the deployment's) of the tagged
    events among a transaction's signed records; the loop signs them as the wallet's."""
    out = []
    for event in sent:
        if event.dead_letter or not event.tag.startswith(_AT):
            continue
        operator_id = event.tag.removeprefix(_AT)
        headers = records.headers_for("wallet", observability.forward_headers(event.headers))
        out.append(
            Output(False, event.key, event.value, headers, physical(operators.wallet_answers_topic(operator_id)))
        )
    return out
