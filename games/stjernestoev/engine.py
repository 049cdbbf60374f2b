"""The Stjernestøv engine the spin service plays: ChaCha20 words into the shared kernel, exact pricing, state."""

from __future__ import annotations

from typing import Any

import numpy as np

from shared.invariant import invariant
from shared.money import micro_floor_to_minor
from games import GameResult, engine_code_sha256
from games.stjernestoev import kernel
from games.stjernestoev.model import JACKPOT_SEGMENTS, SEGMENTS, STAKES_MINOR, StjernestoevModel
from games.stjernestoev.outcome import MICRO_PER_HUNDREDTH_MINOR, circle_code, circle_json, decode
from games.rng import SpinRng

FIRST_WORDS = 256
FIRST_LOG = 4096
MAX_WORDS = 1 << 24  # a limit on everything: ~4 million cascade refills would be a broken model, not a spin


def ring_from_state(state: dict[str, Any]) -> np.ndarray:
    invariant(set(state) == {"bonus_ring", "ring_stake_minor"}, "Stjernestøv state holds the ring and its stake")
    entries = state["bonus_ring"]
    invariant(len(entries) == kernel.N_CIRCLES, "the bonus ring has 5 circles")
    return np.array([circle_code(entry) for entry in entries], np.int64).reshape(kernel.N_CIRCLES, 2)


def state_from_ring(ring: np.ndarray, stake_minor: int) -> dict[str, Any]:
    entries = [circle_json(int(s), int(m)) for s, m in ring]
    pending = any(entry is not None for entry in entries)
    return {"bonus_ring": entries, "ring_stake_minor": stake_minor if pending else None}


class StjernestoevEngine:
    """GameEngine for Stjernestøv; stateless apart from its model."""

    game = "stjernestoev"
    currency = "DKK"

    def __init__(self, model: StjernestoevModel) -> None:
        self.model = model
        self.model_version = model.version
        self.model_sha256 = model.sha256
        self.code_hash = engine_code_sha256()
        self.stakes_minor = STAKES_MINOR

    def initial_state(self) -> dict[str, Any]:
        return {"bonus_ring": [None] * kernel.N_CIRCLES, "ring_stake_minor": None}

    def locked_stake(self, state: dict[str, Any]) -> int | None:
        """The stake the pending bonus symbols were earned at; None when the ring is empty."""
        ring = ring_from_state(state)
        if all(ring[:, 0] == kernel.EMPTY):
            return None
        invariant(state["ring_stake_minor"] in STAKES_MINOR, "a pending ring records its stake")
        return state["ring_stake_minor"]

    def forfeit(self, state: dict[str, Any]) -> dict[str, Any]:
        ring_from_state(state)
        return self.initial_state()

    def remainder_micro(self, state: dict[str, Any]) -> int | None:
        return None  # every amount is paid in whole øre: no remainder is carried

    def stranded_remainder_micro(self, state: dict[str, Any], stake_minor: int) -> int:
        return 0

    def without_remainder(self, state: dict[str, Any]) -> dict[str, Any]:
        return state

    def run_kernel(
        self, ring: np.ndarray, stake_minor: int, rng: SpinRng
    ) -> tuple[np.ndarray, np.ndarray, list[int], int]:
        """Run the kernel on words read from `rng`, re-running with more words or a larger trace when needed
        (the kernel reads words in order, so a longer prefix of the same stream gives the same spin)."""
        words = [rng.next_u64() for _ in range(FIRST_WORDS)]
        log_size = FIRST_LOG
        while True:
            after = ring.copy()
            cursor = np.zeros(2, np.int64)
            log = np.zeros(log_size, np.int64)
            log_n = np.zeros(2, np.int64)
            counters = np.zeros(kernel.COUNTERS_SIZE, np.int64)
            status = kernel.play_kernel(
                after,
                self.model.stake_index(stake_minor),
                self.model.arrays,
                np.array(words, np.uint64),
                cursor,
                log,
                log_n,
                counters,
                np.zeros(kernel.WORK_SIZE, np.int64),
            )
            if status == kernel.STATUS_OK:
                return after, log[: log_n[0]], [int(c) for c in counters[: kernel.COUNTER_HIST_AT]], int(cursor[0])
            if status == kernel.STATUS_WORDS_EXHAUSTED:
                invariant(len(words) < MAX_WORDS, "a spin stays within the word limit")
                words.extend(rng.next_u64() for _ in range(len(words)))
            else:
                log_size *= 4

    def play(self, state: dict[str, Any], stake_minor: int, rng: SpinRng) -> GameResult:
        invariant(stake_minor in STAKES_MINOR, "stake must be one of the 17 allowed stakes")
        locked = self.locked_stake(state)
        invariant(locked is None or locked == stake_minor, "a locked ring is played at its own stake only")
        after, log, counters, words_used = self.run_kernel(ring_from_state(state), stake_minor, rng)
        cluster_hundredths, segment = counters[0], counters[1]
        fixed_x = self.model.wheel_fixed_x_stake[segment] if segment >= 0 else 0
        clusters_micro = cluster_hundredths * stake_minor * MICRO_PER_HUNDREDTH_MINOR
        wheel_micro = fixed_x * 100 * stake_minor * MICRO_PER_HUNDREDTH_MINOR
        win_minor, breakage_micro = micro_floor_to_minor(clusters_micro + wheel_micro)
        claims = (SEGMENTS[segment],) if segment >= 0 and SEGMENTS[segment] in JACKPOT_SEGMENTS else ()
        outcome = {
            "game": self.game,
            "model_version": self.model_version,
            "model_sha256": self.model.sha256,
            "stake_minor": stake_minor,
            **decode(log, stake_minor),
            "words_used": words_used,
            "totals": {
                "clusters_hundredths": cluster_hundredths,
                "clusters_micro": clusters_micro,
                "wheel_fixed_x_stake": fixed_x,
                "wheel_fixed_micro": wheel_micro,
                "exact_micro": clusters_micro + wheel_micro,
                "win_minor": win_minor,
                "breakage_micro": breakage_micro,
            },
            "claims": list(claims),
        }
        invariant(
            outcome["bonus_ring_after"] == [circle_json(int(s), int(m)) for s, m in after],
            "the decoded ring equals the kernel's ring",
        )
        return GameResult(
            win_minor=win_minor,
            breakage_micro=breakage_micro,
            claims=claims,
            outcome=outcome,
            state_after=state_from_ring(after, stake_minor),
        )
