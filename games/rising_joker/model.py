"""The Rising Joker math model: a versioned, immutable JSON data file, validated at load.

Factors are integers in hundredths of the total stake (0.05 x stake is 5), so every amount is exact:
a win of F hundredths at stake S minor units is exactly F * S / 100 minor units.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

CURRENT_VERSION = "rising-joker-v3"
RELEASED_VERSIONS: tuple[str, ...] = ("rising-joker-v1", "rising-joker-v2", "rising-joker-v3")
# What happens to a spin's sub-cent remainder: v1 sent it to the network pools as breakage (which pay in proportion to
# stake, so the small stakes' return went to others); from v2 each player's remainder is carried in their game state
# and paid with the spin that completes a cent, so every stake returns the same.
REMAINDER_POLICIES = ("breakage-to-pools", "carried-per-player")
TIERS: tuple[str, ...] = ("green", "blue", "red", "diamond")
CARDS_PER_TIER = 3


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class Pays(_Frozen):
    """Factor in hundredths of the total stake for 3, 4 and 5 of a kind (lines) or anywhere (scatter)."""

    three: int = Field(gt=0)
    four: int = Field(gt=0)
    five: int = Field(gt=0)

    @model_validator(mode="after")
    def _rising(self) -> "Pays":
        if not self.three < self.four < self.five:
            raise ValueError("pays must rise strictly with the count")
        return self

    def for_count(self, count: int) -> int:
        return {3: self.three, 4: self.four, 5: self.five}.get(count, 0)


class Trigger(_Frozen):
    """The mystery triggers after a losing spin when rng.below(denominator) < numerator."""

    numerator: int = Field(gt=0)
    denominator: int = Field(gt=0)

    @model_validator(mode="after")
    def _proper(self) -> "Trigger":
        if self.numerator >= self.denominator:
            raise ValueError("the trigger probability must be below 1")
        return self

    @property
    def probability(self) -> Fraction:
        return Fraction(self.numerator, self.denominator)


class Tier(_Frozen):
    tier: str
    weight: int = Field(gt=0)
    fixed_hundredths: int = Field(gt=0)


class Mystery(_Frozen):
    trigger: Trigger
    tiers: tuple[Tier, ...]
    # cards-with-odds (v3 on): the outcome states every tier's chance per trigger beside the 12 cards, so the reveal
    # cannot read as a fair deal in which each tier would come first one time in four.
    reveal: Literal["cards-only", "cards-with-odds"] = "cards-only"

    @model_validator(mode="after")
    def _all_tiers_once(self) -> "Mystery":
        if tuple(t.tier for t in self.tiers) != TIERS:
            raise ValueError(f"tiers must be exactly {TIERS} in this order")
        return self

    @property
    def weights(self) -> tuple[int, ...]:
        return tuple(t.weight for t in self.tiers)

    def tier_chance(self, tier: str) -> Fraction:
        """The chance that a triggered mystery awards `tier` (the tier draw; the cards are display only)."""
        return Fraction(next(t.weight for t in self.tiers if t.tier == tier), sum(self.weights))


class DeclaredRtp(_Frozen):
    """The exact return per unit of total stake, as 'numerator/denominator' strings, excluding pool contribution."""

    lines: str
    scatter: str
    mystery_fixed: str
    total: str

    def fraction(self, part: str) -> Fraction:
        return Fraction(getattr(self, part))


class RisingJokerModel(_Frozen):
    version: str
    game: str
    currency: str
    stakes_minor: tuple[int, ...]
    rows: int
    symbols: tuple[str, ...]
    wild: str
    scatter: str
    reels: tuple[tuple[str, ...], ...]
    lines: tuple[tuple[int, ...], ...]
    line_pays: dict[str, Pays]
    scatter_pays: Pays
    mystery: Mystery
    declared_rtp: DeclaredRtp
    remainder: str = REMAINDER_POLICIES[0]

    @model_validator(mode="after")
    def _consistent(self) -> "RisingJokerModel":
        _check_symbols(self)
        _check_reels(self)
        _check_lines(self)
        return self

    @property
    def carries_remainder(self) -> bool:
        return self.remainder == "carried-per-player"

    def symbol_index(self, name: str) -> int:
        return self.symbols.index(name)


def _check_symbols(model: RisingJokerModel) -> None:
    if model.remainder not in REMAINDER_POLICIES:
        raise ValueError(f"remainder must be one of {REMAINDER_POLICIES}")
    if len(set(model.symbols)) != len(model.symbols):
        raise ValueError("symbols must be unique")
    if model.wild not in model.symbols or model.scatter not in model.symbols:
        raise ValueError("wild and scatter must be symbols")
    paying = set(model.symbols) - {model.wild, model.scatter}
    if set(model.line_pays) != paying:
        raise ValueError("every symbol but wild and scatter needs line pays, and only those")


def _check_reels(model: RisingJokerModel) -> None:
    if len(model.reels) != 5 or model.rows != 3:
        raise ValueError("Rising Joker is 5 reels x 3 rows")
    if model.wild in model.reels[0]:
        raise ValueError("reel 1 never holds the joker")
    for strip in model.reels:
        if len(strip) < 2 * model.rows or any(s not in model.symbols for s in strip):
            raise ValueError("a strip holds known symbols and is longer than two windows")
        for position in range(len(strip)):
            window = [strip[(position + row) % len(strip)] for row in range(model.rows)]
            if window.count(model.scatter) > 1:
                raise ValueError("at most one star shows per reel (stars are spaced on the strip)")
    if sorted(set(model.stakes_minor)) != list(model.stakes_minor):
        raise ValueError("stakes must be unique and ascending")


def _check_lines(model: RisingJokerModel) -> None:
    if len(model.lines) != 10 or len(set(model.lines)) != 10:
        raise ValueError("10 distinct fixed lines")
    for line in model.lines:
        if len(line) != 5 or any(not 0 <= row < model.rows for row in line):
            raise ValueError("a line names one row per reel")


def model_from_data(data: dict) -> RisingJokerModel:
    """Validate a model given as parsed JSON data (tests build small strip sets this way)."""
    return RisingJokerModel.model_validate(data, strict=False)


def model_bytes(version: str = CURRENT_VERSION) -> bytes:
    if version not in RELEASED_VERSIONS:
        raise KeyError(f"unknown Rising Joker model version {version!r}")
    package = resources.files("games.rising_joker")
    return package.joinpath(f"{version}.json").read_bytes()


@lru_cache(maxsize=None)
def model_sha256(version: str = CURRENT_VERSION) -> str:
    return hashlib.sha256(model_bytes(version)).hexdigest()


@lru_cache(maxsize=None)
def load_model(version: str = CURRENT_VERSION) -> RisingJokerModel:
    """Load and validate a released model version (cached: released files never change)."""
    model = RisingJokerModel.model_validate_json(model_bytes(version), strict=False)
    if model.version != version:
        raise ValueError(f"file {version} declares version {model.version}")
    return model
