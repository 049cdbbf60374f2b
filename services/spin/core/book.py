"""The spin state of one player partition: every request in the de-duplication window and each player's game state; a
cache rebuilt by the same fold (`evolve.evolve`) that `decide` changes it through."""

from __future__ import annotations

from collections import deque

import uuid
from dataclasses import dataclass, field
from typing import Any

from games import GameResult
from shared.events.wallet import JackpotWonProof


@dataclass(frozen=True)
class Fingerprint:
    """What makes two requests with one id the same request (the token is not part of it)."""

    player_id: str
    game: str | None
    stake_minor: int | None
    currency: str | None


@dataclass
class ClaimAnswer:
    tier: str
    amount_minor: int = 0
    award: dict[str, Any] | None = None  # JackpotAward fields when won; None when rejected
    rejection_code: str | None = None
    proof: JackpotWonProof | None = None  # when won: the jackpot's signed record, carried by the settlement


@dataclass
class SpinRecord:
    """One request's state machine: accepted+seeded -> (debited -> claims answered) -> settled, or voided/refunded."""

    request_id: uuid.UUID
    fingerprint: Fingerprint
    time_ms: int  # when the record entered the book (broker time), for pruning
    operator_id: str | None = None
    forfeit_bonus_ring: bool = False
    requested_at_ms: int = 0
    accepted: bool = False
    seed_hex: str | None = None
    model_version: str | None = None
    state_before: dict[str, Any] | None = None
    result: GameResult | None = None
    play_error: str | None = None
    claims: dict[uuid.UUID, ClaimAnswer | None] = field(default_factory=dict)
    answer_id: uuid.UUID | None = None  # the request's one answer, which a repeat names (its bytes: the adapter's)
    answer_code: str | None = None
    settled_state_after: dict[str, Any] | None = None
    # The state a voided spin restores when it is not `state_before`: before a forfeit of the ring or a stranded
    # remainder's credit this spin asked for, or without a remainder the wallet credited while it was in flight.
    forfeit_state_before: dict[str, Any] | None = None
    # Seeded when accepted (the three-hop flow); False: seeded after its debit, by code before it (settled as then).
    drawn_at_acceptance: bool = False
    # The SeedDrawn's remainder fields, which its wager command carries.
    remainder_before_micro: int | None = None
    remainder_stranded: bool = False

    @property
    def answered(self) -> bool:
        return self.answer_id is not None

    @property
    def restored_state(self) -> dict[str, Any] | None:
        """The player's state should this spin be voided (its wager refused)."""
        return self.forfeit_state_before if self.forfeit_state_before is not None else self.state_before

    @property
    def player_id(self) -> str:
        return self.fingerprint.player_id

    @property
    def game(self) -> str:
        return self.fingerprint.game or ""

    @property
    def stake_minor(self) -> int:
        return self.fingerprint.stake_minor or 0

    @property
    def currency(self) -> str:
        return self.fingerprint.currency or ""

    @property
    def status(self) -> str:
        if self.answered:
            return "answered"
        if not self.accepted:
            return "unknown"
        if self.seed_hex is None:
            return "debiting"
        if self.play_error is not None:
            return "refunding"
        if any(answer is None for answer in self.claims.values()):
            return "claiming"
        return "settling"


@dataclass
class Pending:
    """A game state that is the state_after of a seeded spin, computed on first use (replays stay cheap)."""

    request_id: uuid.UUID


@dataclass(frozen=True)
class SpinRate:
    """At most `spins` accepted spins of one player within any `window_ms` of broker time: a flood guard that play
    by hand or autoplay never meets (a stateful game's spins are sequential anyway), so no script spins unbounded."""

    spins: int
    window_ms: int


SPIN_RATE = SpinRate(spins=100, window_ms=10_000)


@dataclass
class SpinBook:
    records: dict[uuid.UUID, SpinRecord] = field(default_factory=dict)
    game_states: dict[tuple[str, str], dict[str, Any] | Pending] = field(default_factory=dict)
    # Unanswered accepted requests per (player, game): a stateful game allows one at a time.
    in_flight: dict[tuple[str, str], set[uuid.UUID]] = field(default_factory=dict)
    # Broker times of each player's newest accepted spins, oldest first (at most SPIN_RATE.spins of them).
    accepted_at: dict[str, deque[int]] = field(default_factory=dict)
    now_ms: int = 0  # the newest broker time of a message decided or a fact folded
    # Messages decided, to forget what left the window every so many (a counter no restore needs to reproduce).
    decided: int = field(default=0, compare=False)
