"""The one port to an operator's wallet: the calls reelstream makes (a balance, a bet, a win, a rollback) and what comes
back: an answer with a protocol-neutral status, or a typed absence of one. Reelstream's protocol carries them as is."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, Strict

from shared.events.base import CurrencyCode, Ident, PlayerId

# The statuses and reasons live with the saga's record of them (a handed outcome is decoded against them).
from shared.events.seamless import NoAnswerReason, Status

# A stake, a win: never negative, integers in minor units, within a Postgres bigint.
AmountMinor = Annotated[int, Strict(), Field(ge=0, le=2**63 - 1, description="amount in minor units (cent, øre)")]
RoundId = Annotated[str, Field(min_length=1, max_length=128)]
Token = Annotated[str, Field(min_length=1, max_length=512, description="the operator's session token of the player")]


class Call(BaseModel):
    """What every call carries: `request_id`, whose repeat gets the first answer again (reelstream sends the id of
    the event that decided the call, so a retry is the same request)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_id: uuid.UUID
    player_id: PlayerId
    session_token: Token | None = None


class BalanceCall(Call):
    """The player's balance at the operator (no money moves; its repeat is answered afresh)."""

    kind: Literal["balance"] = "balance"
    currency: CurrencyCode | None = None
    game: Ident | None = None


class BetCall(Call):
    """Debit a stake. `transaction_id` is the transaction's own id: never applied twice, whatever the request id."""

    kind: Literal["bet"] = "bet"
    transaction_id: uuid.UUID
    currency: CurrencyCode
    amount_minor: AmountMinor
    round_id: RoundId
    game: Ident


class WinCall(Call):
    """Credit a round's win (0 for a losing spin) against the bet `bet_transaction_id`."""

    kind: Literal["win"] = "win"
    transaction_id: uuid.UUID
    currency: CurrencyCode
    bet_transaction_id: uuid.UUID
    amount_minor: AmountMinor
    round_id: RoundId
    game: Ident
    round_closed: bool = True


class RollbackCall(Call):
    """Undo the bet `bet_transaction_id` (whether or not the operator ever applied it)."""

    kind: Literal["rollback"] = "rollback"
    transaction_id: uuid.UUID
    currency: CurrencyCode | None = None
    bet_transaction_id: uuid.UUID
    round_id: RoundId
    game: Ident


MoneyCall = BetCall | WinCall | RollbackCall
AnyCall = BalanceCall | BetCall | WinCall | RollbackCall


class Answered(BaseModel):
    """The wallet answered. `balance_minor` is the operator's balance after the call, when it sent one;
    `operator_status` is its status as sent (an `RS_*` code for Hub88)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_id: uuid.UUID
    status: Status
    balance_minor: Annotated[int, Strict()] | None = None
    currency: CurrencyCode | None = None
    operator_status: str = ""


class NoAnswer(BaseModel):
    """No answer the caller may act on: whether the operator applied the call is unknown."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_id: uuid.UUID
    reason: NoAnswerReason
    detail: str = ""


Outcome = Answered | NoAnswer


class WalletPort(Protocol):
    """What the outbox will call: one call, one outcome; it never retries on its own."""

    async def call(self, call: AnyCall) -> Outcome: ...
