"""Jackpot pool configuration: the one source of contribution rates, seeds and payout policies. Released versions never
change (a test pins their hashes); a new configuration gets a new file and version."""

from __future__ import annotations

import hashlib
import os
import uuid
from functools import cached_property, lru_cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shared.events.envelope import derived_id
from shared.money import PPM, Currency, contribution_micro

CURRENT_VERSION = "pools-v1"
POOLS_VERSION_ENV = "REELSTREAM_POOLS_VERSION"


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
    # top-up-to-seed: after a win leaves the level below the seed, seed - level is put back: by the operator, or
    # (funded_by "reserve", must-drop pools) first from the network's hidden reserve pool, the rest by the operator.
    policy: Literal["top-up-to-seed"]
    funded_by: Literal["operator", "reserve"]


PoolKind = Literal["random", "must-drop-by-amount", "must-drop-by-time", "reserve"]
MUST_DROP_KINDS = ("must-drop-by-amount", "must-drop-by-time")


class MustDrop(_Frozen):
    """A must-drop pool's rules (see docs/jackpot.md, "Must-drop pools").

    by amount: a drop point uniform in (seed, ceiling] is drawn when the pool opens or reseeds; by time: a drop
    instant uniform in [opened, opened + window_s) (rolling windows: hourly = 3600, 10-minute = 600).
    Contributions the pool cannot hold (above the ceiling, or while it is disabled) go to `overflow_pool_id`.
    """

    ceiling_minor: int = Field(gt=0)
    overflow_pool_id: str
    min_stake_minor: int = Field(default=0, ge=0)
    window_s: int | None = Field(default=None, gt=0, le=7 * 86_400)
    # The first qualifying wager at or after the instant (time) or the crossing (amount) wins, even late.
    end_rule: Literal["next-qualifying-wager"] = "next-qualifying-wager"


class PoolConfig(_Frozen):
    pool_id: str
    name: str
    tier: str
    contribution_ppm: int = Field(ge=0, le=PPM)
    seed_minor: int = Field(ge=0)
    payout: PayoutPolicy
    reseed: ReseedPolicy
    kind: PoolKind = "random"
    must_drop: MustDrop | None = None
    # A wager below this stake pays nothing into the pool (pools-v3: a stake that can never win a pool never feeds it).
    contribution_min_stake_minor: int = Field(default=0, ge=0)

    def contribution_ppm_at(self, stake_minor: int) -> int:
        """The rate a wager at this stake pays into the pool."""
        return self.contribution_ppm if stake_minor >= self.contribution_min_stake_minor else 0

    def can_be_won_at(self, stake_minor: int) -> bool:
        """Whether a wager at this stake can ever win the pool (a reserve is never won: it funds reseeds)."""
        if self.hidden:
            return False
        return self.must_drop is None or stake_minor >= self.must_drop.min_stake_minor

    @model_validator(mode="after")
    def _kind_rules(self) -> "PoolConfig":
        dropping = self.kind in MUST_DROP_KINDS
        if dropping != (self.must_drop is not None):
            raise ValueError("must_drop is required for, and only for, the must-drop kinds")
        if dropping and self.payout.policy != "full":
            raise ValueError("a must-drop pool pays its whole level")
        if dropping and self.must_drop.ceiling_minor <= self.seed_minor:
            raise ValueError("a must-drop pool's ceiling lies above its seed")
        if dropping and (self.kind == "must-drop-by-time") != (self.must_drop.window_s is not None):
            raise ValueError("window_s is required for, and only for, must-drop-by-time")
        if self.kind == "reserve" and self.seed_minor != 0:
            raise ValueError("a reserve pool has no seed")
        if not dropping and self.reseed.funded_by != "operator":
            raise ValueError("only must-drop pools reseed from the reserve")
        return self

    @property
    def dropping(self) -> bool:
        return self.kind in MUST_DROP_KINDS

    @property
    def hidden(self) -> bool:
        """A reserve pool is never shown on a meter and never claimed: it funds the reseeds."""
        return self.kind == "reserve"


_KEPT_STAKES = 256  # a network's stakes are a few; a stake past these is worked out each time


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

    def drop_pools(self) -> tuple[PoolConfig, ...]:
        return tuple(pool for pool in self.pools if pool.dropping)

    def drop_claims(self, request_id: uuid.UUID) -> tuple[tuple[uuid.UUID, str], ...]:
        """(claim id, tier) of the drop claim every wager on this network makes on each must-drop pool."""
        return tuple((drop_claim_id(request_id, pool.pool_id), pool.tier) for pool in self.drop_pools())

    def reserve_pool(self) -> PoolConfig | None:
        return next((pool for pool in self.pools if pool.hidden), None)

    def contribution_ppm_at(self, stake_minor: int) -> int:
        """The network's total contribution rate for a wager at this stake."""
        return sum(pool.contribution_ppm_at(stake_minor) for pool in self.pools)

    def wager_contribution_micro(self, stake_minor: int) -> int:
        """What one wager adds to this network's pools in total, in micro-units (exact). Asked several times a spin
        (its command, its answer, the jackpot's check), so each stake's is kept once worked out (a bounded few)."""
        pools, known = self.contribution_by_stake
        found = known.get(stake_minor) if pools is self.pools else None
        if found is None:
            found = sum(contribution_micro(stake_minor, pool.contribution_ppm_at(stake_minor)) for pool in self.pools)
            if pools is self.pools and len(known) < _KEPT_STAKES:
                known[stake_minor] = found
        return found

    @cached_property
    def contribution_by_stake(self) -> tuple[tuple[PoolConfig, ...], dict[int, int]]:
        """wager_contribution_micro's answers so far, with the pools they were worked out from (a copy of the network
        with other pools shares this and is not answered from it). Not a field: equality and hashing ignore it."""
        return self.pools, {}

    def reseeded_by(self, reserve: PoolConfig) -> tuple[PoolConfig, ...]:
        """The pools whose reseeds a reserve funds (and whose overflow it receives)."""
        return tuple(
            pool
            for pool in self.drop_pools()
            if pool.reseed.funded_by == "reserve" or pool.must_drop.overflow_pool_id == reserve.pool_id
        )


class PoolsConfig(_Frozen):
    version: str
    micro_per_minor: int
    networks: tuple[NetworkConfig, ...]
    # winning-stakes-only (pools-v3 on): the loader refuses a pool fed by a stake that can never win it.
    contributions: Literal["every-stake", "winning-stakes-only"] = "every-stake"

    @model_validator(mode="after")
    def _ids_unique(self) -> "PoolsConfig":
        pool_ids = [pool.pool_id for network in self.networks for pool in network.pools]
        if len(pool_ids) != len(set(pool_ids)):
            raise ValueError("pool ids must be unique across networks")
        games = [game for network in self.networks for game in network.games]
        if len(games) != len(set(games)):
            raise ValueError("a game joins at most one network")
        for network in self.networks:
            _check_drop_links(network)
            if self.contributions == "winning-stakes-only":
                _check_only_winning_stakes_contribute(network)
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


def _check_drop_links(network: NetworkConfig) -> None:
    ids = {pool.pool_id for pool in network.pools}
    if sum(pool.hidden for pool in network.pools) > 1:
        raise ValueError(f"network {network.network_id} has more than one reserve pool")
    for pool in network.drop_pools():
        if pool.must_drop.overflow_pool_id not in ids or pool.must_drop.overflow_pool_id == pool.pool_id:
            raise ValueError(f"{pool.pool_id}: overflow pool must be another pool of the network")
        if network.pool(pool.must_drop.overflow_pool_id).dropping:
            raise ValueError(f"{pool.pool_id}: the overflow pool cannot itself be a must-drop pool")
        if pool.reseed.funded_by == "reserve" and network.reserve_pool() is None:
            raise ValueError(f"{pool.pool_id}: reseeds from a reserve, but the network has none")


def _check_only_winning_stakes_contribute(network: NetworkConfig) -> None:
    """A pool's contribution floor is at least the stake its win needs; a reserve's, the highest floor among the
    drop pools it reseeds, since what it holds goes back only into them."""
    for pool in network.pools:
        if pool.must_drop is not None and pool.contribution_min_stake_minor < pool.must_drop.min_stake_minor:
            raise ValueError(f"{pool.pool_id}: stakes below {pool.must_drop.min_stake_minor} cannot win it")
        if pool.hidden:
            floors = [p.must_drop.min_stake_minor for p in network.reseeded_by(pool)]
            if pool.contribution_min_stake_minor < max(floors, default=0):
                raise ValueError(f"{pool.pool_id}: it funds only pools that stakes below {max(floors)} cannot win")


def drop_claim_id(request_id: uuid.UUID, pool_id: str) -> uuid.UUID:
    """The claim id of a wager's drop claim on a must-drop pool: the jackpot answers the crossing wager with a
    JackpotWon under this id when the drop happens, so the spin's later claim finds the answer already given."""
    return derived_id(request_id, "drop-claim", pool_id)


def config_bytes(version: str = CURRENT_VERSION) -> bytes:
    return resources.files("shared.pools").joinpath(f"{version}.json").read_bytes()


def config_sha256(version: str = CURRENT_VERSION) -> str:
    return hashlib.sha256(config_bytes(version)).hexdigest()


def load_pools(version: str | None = None) -> PoolsConfig:
    """Load and validate a pool configuration version: by default the one the deployment runs
    ($REELSTREAM_POOLS_VERSION, e.g. pools-v2 for the must-drop pools; else CURRENT_VERSION). Every service and
    tool of one deployment must run the same version (the spin's contributions are checked against its rates)."""
    return _load(version or os.environ.get(POOLS_VERSION_ENV) or CURRENT_VERSION)


@lru_cache(maxsize=None)
def _load(version: str) -> PoolsConfig:
    return PoolsConfig.model_validate_json(config_bytes(version), strict=False)
