"""What the spin service needs from a game engine: one pure play per spin, and the stake lock of the player state.

An outcome is a pure function of (model version, seed, player state before the spin): the spin service records all
three in `spin.settled`, and the audit re-derives every spin through `engine_for_model(version).play(...)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from games.codehash import engine_code_sha256
from games.rng import SpinRng

__all__ = ["GameEngine", "GameResult", "engine_code_sha256"]


@dataclass(frozen=True)
class GameResult:
    """Everything one paid spin produced.

    win_minor: what the house pays for this spin (lines, scatter, clusters, fixed jackpot prizes, wheel segments),
      already rounded down to the minor unit.
    breakage_micro: the exact house win minus `win_minor`, in micro-units (1 minor = 1e6 micro); it is added to the
      game's jackpot network as an extra contribution so nothing is lost.
    claims: tiers of the game's jackpot network won in this spin (e.g. ("green",) or ("supernova",)); the pool share
      is paid by the jackpot liability, decided by the jackpot service.
    outcome: the full outcome as JSON-ready data (boards, wins, features) for spin.settled, recall and audit.
    state_after: the per-player game state after the spin, JSON-ready (empty for stateless games).
    """

    win_minor: int
    breakage_micro: int
    claims: tuple[str, ...]
    outcome: dict[str, Any]
    state_after: dict[str, Any] = field(default_factory=dict)


class GameEngine(Protocol):
    game: str
    currency: str
    model_version: str
    stakes_minor: tuple[int, ...]
    model_sha256: str  # sha256 of the released model file
    code_hash: str  # engine_code_sha256(): the code that evaluates the model

    def initial_state(self) -> dict[str, Any]:
        """The per-player state of a player who never played this game."""

    def locked_stake(self, state: dict[str, Any]) -> int | None:
        """The stake a player's pending state belongs to (a spin at another stake is STAKE_LOCKED), else None."""

    def forfeit(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state after the player forfeits what locks the stake (e.g. the Stjernestøv bonus ring)."""

    def remainder_micro(self, state: dict[str, Any]) -> int | None:
        """The player's carried sub-cent remainder in micro-units (None: the game carries none)."""

    def stranded_remainder_micro(self, state: dict[str, Any], stake_minor: int) -> int:
        """The carried remainder no spin at `stake_minor` can ever complete (credited by the wallet), else 0."""

    def without_remainder(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state once its carried remainder is credited."""

    def play(self, state: dict[str, Any], stake_minor: int, rng: SpinRng) -> GameResult:
        """One paid spin at `stake_minor` (must be in `stakes_minor`), drawing only from `rng`."""
