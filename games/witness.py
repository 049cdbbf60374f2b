"""Reachability witnesses: RNG words that, fed to an engine in place of a seed's stream, produce a named award, so a lab
replays every advertised award through the service's own engine; after the prefix a fixed ChaCha20 stream runs."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from games.rng import SpinRng

TAIL_SEED = hashlib.sha256(b"reelstream-witness-tail").digest()


class WordFeed(SpinRng):
    """A SpinRng whose first words are given (a witness), then the fixed tail stream."""

    def __init__(self, words: Sequence[int]) -> None:
        super().__init__(TAIL_SEED)
        self._prefix = [int(w) for w in words]
        self._at = 0

    def next_u64(self) -> int:
        if self._at < len(self._prefix):
            self._at += 1
            self.draws += 1
            return self._prefix[self._at - 1]
        return super().next_u64()


def word_for(weights: Sequence[int], index: int) -> int:
    """The word that `weighted(weights)` maps to `index` (the low bits hold the cumulative start, below the total)."""
    return int(sum(weights[:index]))


def awards_in(game: str, outcome: dict[str, Any]) -> set[str]:
    """The award labels (as the par sheets name them) one outcome holds."""
    if game == "rising-joker":
        found = {f"{w['count']} x {w['symbol']}" for w in outcome["line_wins"]}
        if outcome["scatter"]["count"] >= 3:
            found.add(f"{outcome['scatter']['count']} x star (scatter)")
        if outcome["mystery"]["triggered"]:
            found.add(f"Diamond Mystery {outcome['mystery']['tier']}")
        return found
    steps = list(outcome["cascades"]) + list((outcome["astro_flash"] or {}).get("cascades", []))
    found = {f"{c['size']} {c['symbol']}" for step in steps for c in step["clusters"]}
    if outcome["astro_flash"]:
        found.add(f"wheel {outcome['astro_flash']['wheel_segment']}")
    return found


def rising_joker_words(model: Any, stops: Sequence[int], tier: str | None = None) -> list[int]:
    """Words that stop the reels at `stops` (below(len) keeps a word below the length as it is) and, after a losing
    window, trigger the Diamond Mystery (0 < numerator) on `tier`; the cards come from the tail."""
    words = [int(s) for s in stops]
    if tier is not None:
        tiers = [t.tier for t in model.mystery.tiers]
        words += [0, word_for(model.mystery.weights, tiers.index(tier))]
    return words


def _neighbours(model: Any) -> dict[int, set[int]]:
    near: dict[int, set[int]] = {}
    for a, b in model.edges:
        near.setdefault(a, set()).add(b)
        near.setdefault(b, set()).add(a)
    return near


def _board_words(model: Any, board: list[str]) -> list[int]:
    from games.stjernestoev.model import POSITIONS, RINGS, SYMBOLS

    ring_name = {prefix: name for name, prefix, _ in RINGS}
    words = [0]  # the circle entering the ring: content 0, empty
    for position, symbol in zip(POSITIONS, board):
        row = model.data["board_weights"][ring_name[position[0]]]
        names = (*SYMBOLS, "astro")
        words.append(word_for([row[n] for n in names], names.index(symbol)))
    return words


def _fill(model: Any, board: list[str | None], banned: str | None) -> list[str]:
    """Give every open position a symbol that no neighbour has (never `banned`): no other cluster can form."""
    from games.stjernestoev.model import SYMBOLS

    near = _neighbours(model)
    for pos, symbol in enumerate(board):
        if symbol is None:
            taken = {board[n] for n in near[pos]}
            board[pos] = next(s for s in SYMBOLS if s != banned and s not in taken)
    return [s for s in board if s is not None]


def stjernestoev_cluster_words(model: Any, symbol: str, size: int) -> list[int]:
    """An initial board whose only cluster is `size` × `symbol`: the first `size` positions reached from I0
    (connected, holding an inner position), every other position unlike its neighbours."""
    near, order, seen = _neighbours(model), [0], {0}
    for pos in order:
        for other in sorted(near[pos]):
            if other not in seen:
                seen.add(other)
                order.append(other)
    board: list[str | None] = [None] * len(order)
    for pos in order[:size]:
        board[pos] = symbol
    return _board_words(model, _fill(model, board, symbol))


def stjernestoev_wheel_words(model: Any, stake_minor: int, segment: str) -> list[int]:
    """A board with three Astro Flash (O5, O6, O8) and no cluster, then the wheel word that lands on `segment`."""
    from games.stjernestoev.model import POSITIONS, SEGMENTS

    board: list[str | None] = [None] * len(POSITIONS)
    for name in ("O5", "O6", "O8"):
        board[POSITIONS.index(name)] = "astro"
    row = [int(w) for w in model.arrays[-1][model.stake_index(stake_minor)]]
    return _board_words(model, _fill(model, board, None)) + [word_for(row, SEGMENTS.index(segment))]
