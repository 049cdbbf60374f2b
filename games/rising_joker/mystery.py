"""Diamond Mystery: the trigger after a losing spin, the tier, and a 12-card reveal sequence consistent with it.

The tier is decided first (player choices change nothing); the cards are display only. Draw order from the spin's
RNG: trigger = below(denominator) < numerator; tier = weighted(tier weights); then, for the cards, one below(3) per
other tier (in tier order) for how many of its cards show, a Fisher-Yates shuffle of the revealed cards before the
final winning card, and a Fisher-Yates shuffle of the cards left face down.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.invariant import invariant
from games.rising_joker.model import CARDS_PER_TIER, TIERS, Mystery
from games.rng import SpinRng


@dataclass(frozen=True)
class MysteryAward:
    tier: str
    fixed_hundredths: int
    cards: tuple[str, ...]  # all 12 cards in reveal order
    revealed: int  # the first `revealed` cards are turned; the last of them completes the tier


def _shuffle(items: list[str], rng: SpinRng) -> list[str]:
    for index in range(len(items) - 1, 0, -1):
        other = rng.below(index + 1)
        items[index], items[other] = items[other], items[index]
    return items


def first_tier_to_three(cards: tuple[str, ...]) -> tuple[str, int]:
    """The tier whose third card shows first, and how many cards were turned by then."""
    seen = {tier: 0 for tier in TIERS}
    for position, card in enumerate(cards, start=1):
        seen[card] += 1
        if seen[card] == CARDS_PER_TIER:
            return card, position
    raise AssertionError("unreachable: 12 cards hold three of every tier")


def reveal_sequence(tier: str, rng: SpinRng) -> tuple[tuple[str, ...], int]:
    """Cards in reveal order such that `tier` is the first to show three times."""
    others = [other for other in TIERS if other != tier]
    shown = {other: rng.below(CARDS_PER_TIER) for other in others}  # 0..2 cards of each losing tier
    before_last = _shuffle([tier] * (CARDS_PER_TIER - 1) + [o for o in others for _ in range(shown[o])], rng)
    hidden = _shuffle([o for o in others for _ in range(CARDS_PER_TIER - shown[o])], rng)
    cards = tuple(before_last + [tier] + hidden)
    invariant(len(cards) == len(TIERS) * CARDS_PER_TIER, "12 cards")
    invariant(first_tier_to_three(cards) == (tier, len(before_last) + 1), "the drawn tier completes first")
    return cards, len(before_last) + 1


def draw_mystery(mystery: Mystery, rng: SpinRng) -> MysteryAward | None:
    """After a losing spin: None if the mystery does not trigger, else the drawn award."""
    if rng.below(mystery.trigger.denominator) >= mystery.trigger.numerator:
        return None
    drawn = mystery.tiers[rng.weighted(mystery.weights)]
    cards, revealed = reveal_sequence(drawn.tier, rng)
    return MysteryAward(drawn.tier, drawn.fixed_hundredths, cards, revealed)
