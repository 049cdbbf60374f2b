"""The claim's answer on the player's partition: each JackpotWon / ClaimRejected goes, in the same transaction and byte
for byte, to spin.jackpot-answers keyed by player id (docs/jackpot.md)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from shared import observability, records
from shared.events.jackpot import ClaimRejected, JackpotWon
from shared.input_position import Output

# An Output's tag for an answer to copy: the prefix (with a proof, or without), then the claiming player's id.
_WON, _REJECTED = "answer-won:", "answer-rejected:"


def tagged(out: Output, event: Any) -> Output:
    """`out` (the event's jackpot.events record) marked for a copy to the player's partition when it is an answer."""
    if isinstance(event.data, JackpotWon):
        return replace(out, tag=_WON + event.data.player_id)
    if isinstance(event.data, ClaimRejected):
        return replace(out, tag=_REJECTED + event.data.player_id)
    return out


def answers(topic: str, sent: list[Output]) -> list[Output]:
    """The copies for spin.jackpot-answers (physical `topic`) of the answers among a transaction's signed records
    (their headers final: the input position, the trace and the jackpot's signature); the loop signs them."""
    copies = []
    for out in sent:
        won = out.tag.startswith(_WON)
        if not (won or out.tag.startswith(_REJECTED)):
            continue
        player = out.tag.partition(":")[2].encode()
        proof = (records.proof_header(out),) if won else ()  # a ClaimRejected pays nothing, needs no proof
        extra = (*observability.forward_headers(out.headers), *proof)
        copies.append(Output(False, player, out.value, list(records.headers_for("jackpot", extra)), topic))
    return copies
