"""Wallet messages: cashier commands on wallet.commands, the spin's internal ones on wallet.internal, double-entry facts
on wallet.events; postings in micro-units sum to zero per event (docs/wallet.md)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict

from shared.events.base import CommandData, CurrencyCode, EventData, Ident, Micro, Minor, Part, PlayerId
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS, WALLET_INTERNAL

HOUSE = "house"
CASHIER = "cashier"
SEED_FUNDING = "seed-funding"

# Codes of CommandRejected. Remembered under the transaction id (a repeat returns the same rejection) except the
# four that do not own the id: REQUEST_EXPIRED, DUPLICATE_CONFLICT, INVALID_REQUEST and OPERATOR_MISMATCH (a cashier
# command naming another operator than its signing key's; see docs/wallet.md).
REJECTION_CODES = (
    "INSUFFICIENT_FUNDS",
    "CURRENCY_MISMATCH",
    "INVALID_AMOUNT",
    "ACCOUNT_NOT_FOUND",
    "DUPLICATE_CONFLICT",
    "REQUEST_EXPIRED",
    "LIMIT_EXCEEDED",
    "SELF_EXCLUDED",
    "WAGER_NOT_FOUND",
    "WAGER_ALREADY_CLOSED",
    "INVALID_REQUEST",
    "JACKPOT_UNPROVEN",
    "OPERATOR_MISMATCH",
    "ACCOUNT_CLOSED",
    "REMAINDER_MISMATCH",
)
# A settlement carries one JackpotWon per pool share it pays, at most this many (a spin's claims are fewer).
MAX_JACKPOT_PROOFS = 16
# Why a player's outstanding sub-cent remainder is credited (rounded up to one cent) before it can be completed.
REMAINDER_CREDIT_REASONS = ("stake-change", "self-exclusion", "closure")
RemainderMicro = Annotated[int, Strict(), Field(ge=0, lt=1_000_000, description="a sub-cent remainder in micro-units")]


def player_account(player_id: str) -> str:
    return f"player:{player_id}"


def jackpot_account(network_id: str) -> str:
    return f"jackpot:{network_id}"


class _WalletCommand(CommandData):
    SUBJECT_FIELD = "player_id"
    TOPIC = WALLET_COMMANDS

    transaction_id: uuid.UUID
    player_id: PlayerId


class _CashierCommand(_WalletCommand):
    """The cashier's commands. `operator_id`, when given, must be the operator of the cashier key that signed the
    command (`cashier.<O>`; the plain cashier key binds none), else OPERATOR_MISMATCH: the wallet binds the command to
    its signer's operator, never to the one named."""

    operator_id: Ident | None = None


class Deposit(_CashierCommand):
    """Cashier: money in. The first deposit in a currency opens the player's account in it."""

    TYPE = "reelstream.wallet.deposit.v1"
    amount_minor: Minor
    currency: CurrencyCode


class Withdraw(_CashierCommand):
    """Cashier: money out."""

    TYPE = "reelstream.wallet.withdraw.v1"
    amount_minor: Minor
    currency: CurrencyCode


class _InternalCommand(_WalletCommand):
    """The spin service's commands: on wallet.internal, which only the spin service may write."""

    TOPIC = WALLET_INTERNAL


class DebitWager(_InternalCommand):
    """Spin service: take a wager. `transaction_id` is the wager id (the spin's request id)."""

    TYPE = "reelstream.wallet.debit-wager.v1"
    amount_minor: Minor
    currency: CurrencyCode
    game: Ident
    operator_id: Ident | None = None
    # The player's sub-cent remainder in `game` as the spin holds it (None: the game keeps none); it must equal the
    # wallet's record. `remainder_stranded`: this stake can never complete it, so credit it in this transaction
    # (docs/wallet.md, "Remainders").
    remainder_before_micro: RemainderMicro | None = None
    remainder_stranded: Literal[True] | None = None


class ProofHeader(BaseModel):
    """One Kafka header of a proven record: its name and its value in base64."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str = Field(min_length=1, max_length=64)
    value: str = Field(max_length=2048, description="the header's bytes, base64")


class JackpotWonProof(BaseModel):
    """A `JackpotWon` exactly as the jackpot service wrote it on jackpot.events: the record's value (its JSON text, byte
    for byte), key and every header with the jackpot's transaction signature, so the wallet checks the award itself
    (the signature covers the logical topic name) and never reads the jackpot topics."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    value: str = Field(min_length=1, max_length=8192, description="the JackpotWon record's value as written")
    key: str = Field(max_length=128, description="the record's key (the network id)")
    headers: tuple[ProofHeader, ...] = Field(max_length=16)


class SettleWager(_InternalCommand):
    """Spin service: the one settlement of a wager, carrying every amount of the spin.

    house_win_minor is paid by the house, jackpot_win_minor by the network's jackpot liability; contribution_micro
    (the wager's pool contribution) and breakage_micro (the exact win's sub-cent remainder) move from the house to the
    jackpot liability. Postings: player +win, house -(house win + breakage + contribution),
    jackpot:<network> +(contribution + breakage - jackpot win).
    A jackpot amount is paid only with `jackpot_proofs`: the jackpot service's signed JackpotWon of this wager for each
    pool share, summing to jackpot_win_minor (else JACKPOT_UNPROVEN).
    """

    TYPE = "reelstream.wallet.settle-wager.v1"
    wager_id: uuid.UUID
    currency: CurrencyCode
    # Named only for a seamless operator's wager (docs/seamless.md): the seamless saga settles it, never the ledger.
    operator_id: Ident | None = None
    house_win_minor: Minor
    jackpot_win_minor: Minor
    breakage_micro: Micro
    contribution_micro: Micro
    network_id: Ident
    # The player's sub-cent remainder in the wager's game after this spin (None: the game keeps none).
    remainder_after_micro: RemainderMicro | None = None
    # Absent (None) when no pool share is paid, so a settlement without one reads as before.
    jackpot_proofs: Annotated[tuple[JackpotWonProof, ...], Field(max_length=MAX_JACKPOT_PROOFS)] | None = None


class PlaceWager(_InternalCommand):
    """Spin service: a whole spin without a pool share in one command, debit and settlement together. `transaction_id`
    is the wager id (the spin's request id), `settlement_id` the settlement's transaction id.

    Accepted or refused as a whole, on the stake and the player's state only (funds, loss limits, self-exclusion,
    exactly as DebitWager); the outcome's amounts are checked for what they must be (not negative, the contribution
    within the stake, the house win within the game's maximum award), never judged. Accepted: WagerDebited then
    WagerSettled (the postings of each, as DebitWager then SettleWager would write them); refused: one
    CommandRejected with command_type place-wager. Pool shares need a claim first, so there is no jackpot amount here.
    """

    TYPE = "reelstream.wallet.place-wager.v1"
    amount_minor: Minor
    currency: CurrencyCode
    game: Ident
    operator_id: Ident | None = None
    remainder_before_micro: RemainderMicro | None = None
    remainder_stranded: Literal[True] | None = None
    settlement_id: uuid.UUID
    house_win_minor: Minor
    breakage_micro: Micro
    contribution_micro: Micro
    network_id: Ident
    remainder_after_micro: RemainderMicro | None = None


class RefundWager(_InternalCommand):
    """Spin service: give a wager back when the spin cannot complete (only before anything was contributed)."""

    TYPE = "reelstream.wallet.refund-wager.v1"
    wager_id: uuid.UUID
    currency: CurrencyCode
    operator_id: Ident | None = None  # as SettleWager's
    reason: str = Field(min_length=1, max_length=500)


class SetLimit(_CashierCommand):
    """Player protection: a deposit or loss limit per period; None removes it (removal is an increase)."""

    TYPE = "reelstream.wallet.set-limit.v1"
    currency: CurrencyCode
    kind: Literal["deposit", "loss"]
    period: Literal["day", "week", "month"]
    # None (or absent: the codec leaves None out) removes the limit.
    amount_minor: Minor | None = None


class SelfExclude(_CashierCommand):
    """Player protection: no wagers until `until` (None: indefinitely)."""

    TYPE = "reelstream.wallet.self-exclude.v1"
    until: datetime | None = None


class CloseAccount(_CashierCommand):
    """Cashier: close the player's account for good. Wagers and deposits are refused from then on (ACCOUNT_CLOSED);
    withdrawals are not, so the player can take out what is left."""

    TYPE = "reelstream.wallet.close-account.v1"


class Posting(Part):
    account: str
    amount_micro: Micro


class _WalletEvent(EventData):
    SUBJECT_FIELD = "player_id"
    TOPIC = WALLET_EVENTS

    transaction_id: uuid.UUID
    player_id: str
    recorded_at: datetime
    # sha256 of the command's content (type and data): a repeat with other content is a DUPLICATE_CONFLICT, and
    # folding wallet.events alone rebuilds the de-duplication memory.
    command_fingerprint: str | None = None


class _PostedEvent(_WalletEvent):
    currency: str
    postings: tuple[Posting, ...]
    balance_after_minor: Minor


class Deposited(_PostedEvent):
    TYPE = "reelstream.wallet.deposited.v1"
    amount_minor: Minor
    # The operator whose cashier key signed the deposit (None: the plain cashier's): the first one binds the account.
    operator_id: str | None = None


class Withdrawn(_PostedEvent):
    TYPE = "reelstream.wallet.withdrawn.v1"
    amount_minor: Minor


class WagerDebited(_PostedEvent):
    TYPE = "reelstream.wallet.wager-debited.v1"
    amount_minor: Minor
    game: str
    operator_id: str | None = None
    # The player's remainder in `game` the wager carries in (None: the game keeps none).
    remainder_before_micro: Micro | None = None


class WagerSettled(_PostedEvent):
    TYPE = "reelstream.wallet.wager-settled.v1"
    wager_id: uuid.UUID
    win_minor: Minor
    house_win_minor: Minor
    jackpot_win_minor: Minor
    breakage_micro: Micro
    contribution_micro: Micro
    network_id: str
    remainder_after_micro: Micro | None = None


class WagerRefunded(_PostedEvent):
    TYPE = "reelstream.wallet.wager-refunded.v1"
    wager_id: uuid.UUID
    amount_minor: Minor
    reason: str


class RemainderCredited(_PostedEvent):
    """A player's outstanding sub-cent remainder in `game`, credited rounded up to one cent (`amount_minor`) by the
    house because it can no longer be completed (`reason`), in the transaction of the command that strands it.
    `wager_id`: the wager whose settlement left it (None: unknown, a remainder from before the wallet kept them)."""

    TYPE = "reelstream.wallet.remainder-credited.v1"
    game: str
    remainder_micro: Micro
    amount_minor: Minor
    reason: Literal["stake-change", "self-exclusion", "closure"]
    wager_id: uuid.UUID | None = None


class LimitSet(_WalletEvent):
    TYPE = "reelstream.wallet.limit-set.v1"
    currency: str
    kind: str
    period: str
    amount_minor: Minor | None = None
    # Decreases apply at once; increases and removals apply 24 h later (GLI-19 A.3.7).
    effective_at: datetime


class SelfExcluded(_WalletEvent):
    TYPE = "reelstream.wallet.self-excluded.v1"
    until: datetime | None = None


class AccountClosed(_WalletEvent):
    TYPE = "reelstream.wallet.account-closed.v1"


class CommandRejected(_WalletEvent):
    """Any wallet command refused, with a code (e.g. INSUFFICIENT_FUNDS) and the balance left unchanged."""

    TYPE = "reelstream.wallet.command-rejected.v1"
    command_type: str
    code: str
    message: str
    currency: str | None = None
    wager_id: uuid.UUID | None = None
    # The player's balance in `currency`, unchanged by the rejection (when the account exists).
    balance_after_minor: Minor | None = None


# Every event that moves money: its postings change balances.
POSTED_EVENTS = (Deposited, Withdrawn, WagerDebited, WagerSettled, WagerRefunded, RemainderCredited)


def postings_balanced(postings: tuple[Posting, ...]) -> bool:
    return sum(posting.amount_micro for posting in postings) == 0
