"""The wallet's record of a seamless operator's rounds, on wallet.seamless: the calls it decided to make to the
operator's wallet (a bet, a win, a rollback), every answer it got, and what each answer settled. The id of a
`*Decided` event is its call's request and transaction id, so every retry is the same request (docs/seamless.md)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, Strict, model_validator

from shared.events.base import CommandData, EventData, Minor
from shared.events.wallet import RemainderMicro
from shared.topics import WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS


class Status(StrEnum):
    """An operator wallet's answer, whatever protocol carried it."""

    OK = "OK"
    INSUFFICIENT_FUNDS = "INSUFFICIENT_FUNDS"
    LIMIT_REACHED = "LIMIT_REACHED"
    PLAYER_DISABLED = "PLAYER_DISABLED"
    SESSION_GONE = "SESSION_GONE"
    CURRENCY_MISMATCH = "CURRENCY_MISMATCH"
    UNKNOWN_GAME = "UNKNOWN_GAME"
    # The same transaction id with other content (amount, player, round, reference).
    DUPLICATE_CONFLICT = "DUPLICATE_CONFLICT"
    # The bet a win or rollback refers to was never applied (a rollback of it is then acknowledged: nothing to undo).
    UNKNOWN_TRANSACTION = "UNKNOWN_TRANSACTION"
    # The bet was rolled back: a win for it, a late bet under its id, a second rollback change nothing.
    ALREADY_ROLLED_BACK = "ALREADY_ROLLED_BACK"
    SIGNATURE_REFUSED = "SIGNATURE_REFUSED"
    MALFORMED = "MALFORMED"
    ERROR = "ERROR"


class NoAnswerReason(StrEnum):
    """Why a call has no answer the caller may act on (seamless/port.py)."""

    TIMEOUT = "TIMEOUT"  # nothing within the call's timeout: applied or not, nobody knows
    LOST = "LOST"  # the connection failed or closed before a whole answer came back
    HTTP_ERROR = "HTTP_ERROR"  # an HTTP status other than 200 (a 5xx most often)
    UNREADABLE = "UNREADABLE"  # a 200 whose body is no answer to this request


CALL_KINDS = ("bet", "win", "rollback")
CallKind = Literal["bet", "win", "rollback"]
Attempt = Annotated[int, Strict(), Field(ge=1, le=1_000_000)]


class _RoundEvent(EventData):
    """One round (one wager): keyed by the player, named by the wager id (the spin's request id)."""

    SUBJECT_FIELD = "player_id"
    TOPIC = WALLET_SEAMLESS

    wager_id: uuid.UUID
    player_id: str
    operator_id: str
    recorded_at: datetime


class SeamlessBetDecided(_RoundEvent):
    """Debit the stake at the operator's wallet; unanswered by `answer_by`, the bet is rolled back. A wager placed with
    its outcome (PlaceWager) carries the win to pay once the bet is accepted (`settlement_id`, `win_minor`). A wager
    whose stake can never complete the player's sub-cent remainder carries it (`remainder_stranded_micro`): the
    round's win credits it, rounded up to a minor unit."""

    TYPE = "reelstream.wallet.seamless-bet-decided.v1"
    amount_minor: Minor
    currency: str
    game: str
    answer_by: datetime
    command_fingerprint: str
    settlement_id: uuid.UUID | None = None
    win_minor: Minor | None = None
    remainder_stranded_micro: RemainderMicro | None = None


class SeamlessBetAccepted(_RoundEvent):
    """The operator debited the stake; `balance_minor` is its balance after the bet, when it sent one."""

    TYPE = "reelstream.wallet.seamless-bet-accepted.v1"
    amount_minor: Minor
    currency: str
    balance_minor: Minor | None = None


class SeamlessBetRefused(_RoundEvent):
    """The bet does not stand: `code` is the spin's refusal code (seamless/refusals.py); `status` the operator's
    status (empty: no answer in time). `rolled_back`: a rollback follows, since the bet may have been applied."""

    TYPE = "reelstream.wallet.seamless-bet-refused.v1"
    code: str
    status: str
    rolled_back: bool
    currency: str
    balance_minor: Minor | None = None


class SeamlessWinDecided(_RoundEvent):
    """Credit the round's one win (0 for a losing spin; a pool share rides in it): `amount_minor` is the house's and
    the jackpot's amounts plus `remainder_credit_minor`, the sub-cent remainder the wager stranded
    (`remainder_stranded_micro`) rounded up to a minor unit. Retried with back-off until acknowledged or until
    `give_up_at`, then reported."""

    TYPE = "reelstream.wallet.seamless-win-decided.v1"
    settlement_id: uuid.UUID
    amount_minor: Minor
    house_win_minor: Minor
    jackpot_win_minor: Minor
    currency: str
    give_up_at: datetime
    command_fingerprint: str
    remainder_stranded_micro: RemainderMicro | None = None
    remainder_credit_minor: Minor | None = None


class SeamlessRollbackDecided(_RoundEvent):
    """Undo the bet (whether or not the operator applied it); retried with back-off until acknowledged."""

    TYPE = "reelstream.wallet.seamless-rollback-decided.v1"
    currency: str
    reason: str


class SeamlessAnswerRecorded(_RoundEvent):
    """What one attempt of a call got: a status (`seamless.port.Status`, with the operator's own code) or, when
    `no_answer` is set, no answer the wallet may act on (TIMEOUT, LOST, HTTP_ERROR, UNREADABLE)."""

    TYPE = "reelstream.wallet.seamless-answer-recorded.v1"
    call_id: uuid.UUID
    call_kind: CallKind
    attempt: Attempt
    status: str = ""
    operator_status: str = ""
    balance_minor: Minor | None = None
    no_answer: str = ""
    detail: str = Field(default="", max_length=200)


class SeamlessRetryScheduled(_RoundEvent):
    """Attempt `attempt` of the call `call_id` is due at `due_at`: back-off after an unacknowledged attempt."""

    TYPE = "reelstream.wallet.seamless-retry-scheduled.v1"
    call_id: uuid.UUID
    call_kind: CallKind
    attempt: Attempt
    due_at: datetime


class SeamlessWinAcknowledged(_RoundEvent):
    """The round is settled: the operator credited the win; `balance_after_minor` is its balance from that call, None
    when the operator's answer carried none (reelstream never states a balance the operator did not give)."""

    TYPE = "reelstream.wallet.seamless-win-acknowledged.v1"
    settlement_id: uuid.UUID
    amount_minor: Minor
    currency: str
    balance_after_minor: Minor | None = None


class SeamlessRolledBack(_RoundEvent):
    """The bet is undone at the operator (or was never applied there); the round is closed."""

    TYPE = "reelstream.wallet.seamless-rolled-back.v1"
    amount_minor: Minor
    currency: str


class SeamlessWinReported(_RoundEvent):
    """A win still unacknowledged at its `give_up_at`: no more retries; the operator is owed a look (reconciliation)."""

    TYPE = "reelstream.wallet.seamless-win-reported.v1"
    settlement_id: uuid.UUID
    amount_minor: Minor
    currency: str
    attempts: Attempt
    last_status: str


class RecordCallOutcome(CommandData):
    """The outbox to the saga's loop, on wallet.seamless-calls: record what attempt `attempt` of the call `call_id` got,
    a status (`seamless.port.Status`) or, when `no_answer` is set, why there is none. Its id derives from the call and
    the attempt, so an attempt made again after a restart hands over the same outcome."""

    SUBJECT_FIELD = "player_id"
    TOPIC = WALLET_SEAMLESS_CALLS
    TYPE = "reelstream.wallet.record-call-outcome.v1"
    player_id: str
    call_id: uuid.UUID
    attempt: Attempt
    status: Status | Literal[""] = ""
    operator_status: str = Field(default="", max_length=64)
    balance_minor: int | None = None
    no_answer: NoAnswerReason | Literal[""] = ""
    detail: str = Field(default="", max_length=200)

    @model_validator(mode="after")
    def _status_or_no_answer(self) -> RecordCallOutcome:
        # Exactly one of them: the saga reads the outcome as an answer or as the lack of one, never both or neither.
        if (self.status == "") == (self.no_answer == ""):
            raise ValueError("an outcome carries a status or a no_answer reason, exactly one")
        return self


SEAMLESS_EVENTS = (
    SeamlessBetDecided,
    SeamlessBetAccepted,
    SeamlessBetRefused,
    SeamlessWinDecided,
    SeamlessRollbackDecided,
    SeamlessAnswerRecorded,
    SeamlessRetryScheduled,
    SeamlessWinAcknowledged,
    SeamlessRolledBack,
    SeamlessWinReported,
)
