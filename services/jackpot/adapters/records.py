"""What the jackpot reads and writes, declared for the loop (shared/inbound.py, shared/emit.py): commands of
jackpot.commands (the operator's) and jackpot.internal (the spin service's) in; each fact on jackpot.events, a claim's
answer copied to the player's partition of spin.jackpot-answers (with its proof when won); the meters' records."""

from __future__ import annotations

from typing import Any

from shared import records
from shared.emit import Emits, Route
from shared.events import Envelope, encode
from shared.events.jackpot import ClaimRejected, JackpotWon
from shared.inbound import Inbound, Input
from shared.input_position import Copy, Output
from shared.topics import JACKPOT_COMMANDS, JACKPOT_INTERNAL, SPIN_JACKPOT_ANSWERS

HEADERS = records.headers_for("jackpot")
INPUTS = (
    Input(JACKPOT_COMMANDS),
    Input(JACKPOT_INTERNAL, packed=True),
)  # the operator's commands, then the spin service's


def _answer(states: Any, found: Inbound, event: Envelope[Any] | None) -> Copy | None:
    """A claim's answer, keyed by the claiming player: a JackpotWon with the proof of its signed record, a
    ClaimRejected (which pays nothing) without."""
    data = event.data if event is not None else None
    if isinstance(data, (JackpotWon, ClaimRejected)):
        return Copy(SPIN_JACKPOT_ANSWERS, data.player_id.encode(), proof=isinstance(data, JackpotWon))
    return None


# One message at a time, its facts on the loop's events topic; a run of contributions shares the batch's trace, so
# the loop packs it into one record.
EMITS = Emits(writer="jackpot", span="jackpot command", events=Route(copied=True), batch_traces=True, copy=_answer)


def event_record(event: Envelope[Any]) -> Output:
    return Output(False, event.key, encode(event), list(HEADERS), message_type=event.type)
