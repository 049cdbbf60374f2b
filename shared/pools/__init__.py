"""Jackpot pool configuration: the one source of contribution rates, seeds and payout policies.

Released versions never change (a test pins their hashes); a new configuration gets a new file and version.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shared.money import PPM, Currency, contribution_micro

CURRENT_VERSION = "pools-v1"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class PayoutPolicy(_Frozen):
    # proportional: the win takes level * stake / full_share_stake_minor (capped at the whole level);
    # full: the win takes the whole level.
    policy: Literal["proportional", "full"]
    full_share_stake_minor: int | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _stake_only_for_proportional(self) -> "PayoutPolicy":
        if (self.policy == "proportional") != (self.full_share_stake_minor is not None):
            raise ValueError("full_share_stake_minor is required for, and only for, the proportional policy")
        return self


class ReseedPolicy(_Frozen):
    # top-up-to-seed: after a win leaves the level below the seed, the operator adds seed - level.
    policy: Literal["top-up-to-seed"]
    funded_by: Literal["operator"]


class PoolConfig(_Frozen):
    pool_id: str
    name: str
    tier: str
    contribution_ppm: int = Field(ge=0, le=PPM)
    seed_minor: int = Field(ge=0)
    payout: PayoutPolicy
    reseed: ReseedPolicy


class NetworkConfig(_Frozen):
    network_id: str
    name: str
    currency: Currency
    games: tuple[str, ...]
    pools: tuple[PoolConfig, ...]

    @property
    def contribution_ppm(self) -> int:
        """The network's total contribution rate: the sum over its pools."""
        return sum(pool.contribution_ppm for pool in self.pools)

    def pool(self, pool_id: str) -> PoolConfig:
        for pool in self.pools:
            if pool.pool_id == pool_id:
                return pool
        raise KeyError(f"pool {pool_id!r} is not in network {self.network_id!r}")

    def pool_for_tier(self, tier: str) -> PoolConfig:
        for pool in self.pools:
            if pool.tier == tier:
                return pool
        raise KeyError(f"tier {tier!r} is not in network {self.network_id!r}")

    def wager_contribution_micro(self, stake_minor: int) -> int:
        """What one wager adds to this network's pools in total, in micro-units (exact)."""
        return sum(contribution_micro(stake_minor, pool.contribution_ppm) for pool in self.pools)


class PoolsConfig(_Frozen):
    version: str
    micro_per_minor: int
    networks: tuple[NetworkConfig, ...]

    @model_validator(mode="after")
    def _ids_unique(self) -> "PoolsConfig":
        pool_ids = [pool.pool_id for network in self.networks for pool in network.pools]
        if len(pool_ids) != len(set(pool_ids)):
            raise ValueError("pool ids must be unique across networks")
        games = [game for network in self.networks for game in network.games]
        if len(games) != len(set(games)):
            raise ValueError("a game joins at most one network")
        return self

    def network(self, network_id: str) -> NetworkConfig:
        for network in self.networks:
            if network.network_id == network_id:
                return network
        raise KeyError(f"unknown network {network_id!r}")

    def network_for_game(self, game: str) -> NetworkConfig:
        for network in self.networks:
            if game in network.games:
                return network
        raise KeyError(f"game {game!r} joins no jackpot network")


def config_bytes(version: str = CURRENT_VERSION) -> bytes:
    return resources.files("shared.pools").joinpath(f"{version}.json").read_bytes()


def config_sha256(version: str = CURRENT_VERSION) -> str:
    return hashlib.sha256(config_bytes(version)).hexdigest()


@lru_cache(maxsize=None)
def load_pools(version: str = CURRENT_VERSION) -> PoolsConfig:
    """Load and validate a pool configuration version."""
    return PoolsConfig.model_validate_json(config_bytes(version), strict=False)
