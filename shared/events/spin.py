"""Spin messages: the public request/answer pair on spin.requests and spin.events, and the spin journal's facts."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from shared.events.envelope import derived_id
from shared.events.base import Bool, CommandData, CurrencyCode, EventData, Ident, Micro, Minor, Part, PlayerId
from shared.topics import SPIN_EVENTS, SPIN_JOURNAL, SPIN_REQUESTS

GAMES = ("rising-joker", "stjernestoev")

REJECTION_CODES = (
    "INVALID_REQUEST",
    "UNKNOWN_GAME",
    "INVALID_STAKE",
    "CURRENCY_MISMATCH",
    "INSUFFICIENT_FUNDS",
    "STAKE_LOCKED",
    "UNAUTHENTICATED",
    "LIMIT_EXCEEDED",
    "SELF_EXCLUDED",
    "DUPLICATE_CONFLICT",
    "REQUEST_EXPIRED",
    "ACCOUNT_NOT_FOUND",
    "WAGER_REFUNDED",
    # Stjernestøv keeps per-player state across spins: one spin of it per player at a time.
    "SPIN_IN_PROGRESS",
    # The record is not on its key's murmur2 partition (the producer's partitioner is not Kafka's default); answered on
    # the player's own partition and applied to no book.
    "WRONG_PARTITION",
    # More than the per-player rate of accepted spins (services/spin/core/validate.py: SPIN_RATE).
    "RATE_LIMITED",
    # The wallet refused the wager: the account is closed, or the remainder the spin carried in was credited meanwhile.
    "ACCOUNT_CLOSED",
    "REMAINDER_MISMATCH",
    # Seamless mode (docs/seamless.md): the operator's wallet gave no answer in time, an error or a refusal of the
    # integration (signature, syntax); the bet is rolled back.
    "WALLET_UNAVAILABLE",
)


class SpinRequested(CommandData):
    """A game client asks for one paid spin. `request_id` is the idempotency key chosen by the client."""

    TYPE = "reelstream.spin.requested.v1"
    SUBJECT_FIELD = "player_id"
    TOPIC = SPIN_REQUESTS

    request_id: uuid.UUID
    player_id: PlayerId
    # Unknown games and currencies are business refusals (UNKNOWN_GAME, CURRENCY_MISMATCH), not decode errors.
    game: Ident
    stake_minor: Minor
    currency: CurrencyCode
    session_token: str = Field(min_length=1, max_length=2048, json_schema_extra={"format": "password"})
    operator_id: Ident | None = None
    forfeit_bonus_ring: Bool = False


class JackpotAward(Part):
    claim_id: uuid.UUID
    network_id: str
    pool_id: str
    tier: str
    amount_minor: Minor
    share_ppm: int


class SpinSettled(EventData):
    """The one settled answer to a spin request: everything credited, the outcome, and what re-derives it."""

    TYPE = "reelstream.spin.settled.v1"
    SUBJECT_FIELD = "player_id"
    TOPIC = SPIN_EVENTS

    request_id: uuid.UUID
    player_id: str
    game: str
    stake_minor: Minor
    currency: str
    # win_minor = house_win_minor + jackpot_win_minor: everything credited for this spin.
    win_minor: Minor
    house_win_minor: Minor
    jackpot_win_minor: Minor
    breakage_micro: Micro
    contribution_micro: Micro
    # The player's balance once the spin is settled: the ledger's, or a seamless operator's from the answer to the
    # round's win call; None (absent on the wire) only when that answer carried no balance: reelstream never states
    # one it was not given.
    balance_after_minor: Minor | None = Field(
        default=None,
        description="balance after the settlement; absent only for a seamless operator whose wallet gave none",
    )
    model_version: str
    seed: str = Field(pattern=r"^[0-9a-f]{64}$", description="the 256-bit seed the outcome was drawn from, hex")
    state_before: dict[str, Any]
    state_after: dict[str, Any]
    outcome: dict[str, Any]
    jackpot_awards: tuple[JackpotAward, ...] = ()
    operator_id: str | None = None
    settled_at: datetime
    # The request's broker time, as the spin service recorded it on acceptance: latency = this answer's broker time
    # minus it (the monitor's percentiles).
    accepted_at: datetime | None = None
    # The exact rules that evaluated and paid the spin (absent on spins settled before pinning): the audit re-derives
    # only with an engine whose model file and outcome manifest hash to these (games/pins.py).
    model_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$", description="sha256 of the model file")
    outcome_manifest_sha256: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="sha256 of the game's outcome manifest (games/outcome-manifest.json): engine, money, payout rules",
    )
    # Spins settled before the outcome manifest: sha256 of every games/ source (games/released-engines.json maps it).
    engine_code_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", description="sha256 of every games/ source (spins before the manifest)"
    )


class SpinRejected(EventData):
    """The one refusal answer to a spin request, with a contract code and a readable message."""

    TYPE = "reelstream.spin.rejected.v1"
    SUBJECT_FIELD = "player_id"
    TOPIC = SPIN_EVENTS

    request_id: uuid.UUID | None = None
    # Keyed by player id; "unknown" when the request was too broken to name one (it then also goes to the DLQ).
    player_id: str
    code: str = Field(
        description="one of " + ", ".join(REJECTION_CODES) + "; readers treat an unknown code as a refusal"
    )
    message: str
    game: str | None = None
    stake_minor: Minor | None = None
    currency: str | None = None


def request_answer_id(request_id: uuid.UUID) -> uuid.UUID:
    """The event id of an accepted request's one answer (settled or rejected); an answer to one record only (a late or
    conflicting repeat, a refusal before acceptance) has an id of its own."""
    return derived_id(request_id, "answer")


class SpinAccepted(EventData):
    """Journal: a request passed validation and its wager debit is being asked for (no token: it is a secret)."""

    TYPE = "reelstream.spin.accepted.v1"
    SUBJECT_FIELD = "player_id"
    TOPIC = SPIN_JOURNAL

    request_id: uuid.UUID
    player_id: str
    game: str
    stake_minor: Minor
    currency: str
    operator_id: str | None = None
    forfeit_bonus_ring: bool = False
    # The request's CloudEvents id and time (the de-duplication window runs from `requested_at`).
    request_event_id: uuid.UUID
    requested_at: datetime
    accepted_at: datetime


class SeedDrawn(EventData):
    """Journal: the seed of an accepted spin, persisted in the transaction of the wager command that carries its
    outcome to the wallet, before anything shows the outcome (a refused wager's is voided: SpinVoided)."""

    TYPE = "reelstream.spin.seed-drawn.v1"
    SUBJECT_FIELD = "player_id"
    TOPIC = SPIN_JOURNAL

    request_id: uuid.UUID
    player_id: str
    game: str
    stake_minor: Minor
    currency: str
    model_version: str
    seed: str = Field(pattern=r"^[0-9a-f]{64}$")
    state_before: dict[str, Any]
    drawn_at: datetime
    # The acceptance, on every seed drawn at acceptance (accepted at `drawn_at`): a spin without a forfeit journals no
    # SpinAccepted (one record instead of two); after a forfeit, SpinAccepted came first and these repeat it. Absent on
    # a seed the six-hop code drew after the debit, which is how the book tells such a spin's flow apart.
    operator_id: Ident | None = None
    request_event_id: uuid.UUID | None = None
    requested_at: datetime | None = None
    # The wager's view of the player's carried remainder (DebitWager/PlaceWager): before any credit this spin's stake
    # strands (a RemainderStranded journaled first), and whether it strands it. Absent: the game carries none.
    remainder_before_micro: Micro | None = None
    remainder_stranded: Literal[True] | None = None


class BonusRingForfeited(EventData):
    """Journal: a Stjernestøv player forfeited the pending bonus ring to change the stake."""

    TYPE = "reelstream.spin.bonus-ring-forfeited.v1"
    SUBJECT_FIELD = "player_id"
    TOPIC = SPIN_JOURNAL

    request_id: uuid.UUID
    player_id: str
    game: str
    locked_stake_minor: Minor
    new_stake_minor: Minor
    state_before: dict[str, Any]
    state_after: dict[str, Any]
    forfeited_at: datetime


class RemainderStranded(EventData):
    """Journal: a Rising Joker player's carried sub-cent remainder can no longer be completed, so the wallet credits it
    rounded up to one cent and the player's state carries none. `reason` "stake-change": this spin's stake
    (`request_id`) can never complete it, and its wager asks for the credit (restored if the wager is refused);
    "self-exclusion" or "closure": the wallet credited it (`wallet_event_id`), and the spin follows."""

    TYPE = "reelstream.spin.remainder-stranded.v1"
    SUBJECT_FIELD = "player_id"
    TOPIC = SPIN_JOURNAL

    player_id: str
    game: str
    reason: Literal["stake-change", "self-exclusion", "closure"]
    remainder_micro: Micro
    state_before: dict[str, Any]
    state_after: dict[str, Any]
    stranded_at: datetime
    request_id: uuid.UUID | None = None
    wallet_event_id: str | None = Field(default=None, max_length=128)


class SpinVoided(EventData):
    """Journal: the wallet refused a seeded spin's wager (`code`), so its drawn outcome never happened and is never
    shown; the player's game state is the one before the spin (and before a forfeit of its bonus ring)."""

    TYPE = "reelstream.spin.voided.v1"
    SUBJECT_FIELD = "player_id"
    TOPIC = SPIN_JOURNAL

    request_id: uuid.UUID
    player_id: str
    game: str
    code: str = Field(min_length=1, max_length=64)
    voided_at: datetime


RejectionCode = Literal[REJECTION_CODES]  # type: ignore[valid-type]
