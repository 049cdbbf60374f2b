"""The chaos run's client history of its checked players: every operation's invocation and completion (monotonic
nanoseconds), what it asked and what it was answered, written as JSON for tools/linearizability (porcupine)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reelstream.client import Rejected, Settled
from shared.events.spin import SpinRejected, SpinSettled
from shared.events.wallet import CommandRejected, Deposited, Withdrawn


@dataclass
class Operation:
    """One client operation on one checked player. `outcome` "unknown": never answered to the client (the run may
    still find its answer on the topics afterwards; its completion then stays open: it returned after everything)."""

    client: int
    player: str
    kind: str  # "spin" | "deposit" | "withdraw"
    id: str  # the request id or transaction id (asked again with it after a timeout)
    invoke_ns: int
    amount_minor: int = 0
    stake_minor: int = 0
    complete_ns: int | None = None
    outcome: str = "unknown"  # "done" | "refused" | "unknown"
    code: str = ""
    win_minor: int = 0
    balance_after_minor: int | None = None
    split: bool = False  # a spin whose debit and settlement were two wallet transactions (a jackpot claim)


def answered(operation: Operation, answer: Any) -> None:
    """Fill in what an answer says: a client's Settled / Rejected, or a wallet or spin event's data."""
    if isinstance(answer, (Settled, Rejected)):
        answer = answer.data
    if isinstance(answer, SpinSettled):
        operation.outcome, operation.win_minor = "done", answer.win_minor
        operation.balance_after_minor = answer.balance_after_minor
    elif isinstance(answer, (Deposited, Withdrawn)):
        operation.outcome, operation.balance_after_minor = "done", answer.balance_after_minor
    elif isinstance(answer, (SpinRejected, CommandRejected)):
        operation.outcome, operation.code = "refused", answer.code
        operation.balance_after_minor = getattr(answer, "balance_after_minor", None)
    else:
        raise TypeError(f"not an answer: {type(answer).__name__}")


class History:
    """Thread-safe: every worker of every client records into one."""

    def __init__(self, currency_by_player: dict[str, str]) -> None:
        self.currency_by_player = currency_by_player
        self.operations: list[Operation] = []
        self._lock = threading.Lock()

    def invoke(self, client: int, player: str, kind: str, id: uuid.UUID, **amounts: int) -> Operation:
        operation = Operation(client, player, kind, str(id), time.monotonic_ns(), **amounts)
        with self._lock:
            self.operations.append(operation)
        return operation

    def complete(self, operation: Operation, answer: Any) -> None:
        operation.complete_ns = time.monotonic_ns()
        answered(operation, answer)

    def open(self) -> list[Operation]:
        """The operations no client heard an answer to."""
        return [operation for operation in self.operations if operation.outcome == "unknown"]

    def document(self) -> dict[str, Any]:
        players: dict[str, Any] = {
            player: {"currency": currency, "operations": []} for player, currency in self.currency_by_player.items()
        }
        for operation in sorted(self.operations, key=lambda op: op.invoke_ns):
            players[operation.player]["operations"].append(asdict(operation))
        return {"clock": "monotonic nanoseconds of the recording process", "players": players}

    def write(self, path: Path) -> Path:
        path.write_text(json.dumps(self.document(), indent=1) + "\n")
        return path
