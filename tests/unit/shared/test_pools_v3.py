"""pools-v3: a wager pays only into pools its stake can win (a reserve only when its stake can win the pools the
reserve reseeds); pools-v2 shows why it exists, v1 and v2 keep their bytes and behaviour, and the deployment opts in."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from games.rising_joker.model import load_model as load_rising_joker
from games.stjernestoev.model import STAKES_MINOR as STJERNESTOEV_STAKES
from services.jackpot.core.payout import split_contribution
from shared.pools import POOLS_VERSION_ENV, NetworkConfig, PoolConfig, PoolsConfig, load_pools

STAKES_BY_GAME = {"rising-joker": load_rising_joker().stakes_minor, "stjernestoev": STJERNESTOEV_STAKES}


def _stakes(network: NetworkConfig) -> list[int]:
    return sorted({stake for game in network.games for stake in STAKES_BY_GAME[game]})


def _fed_by_a_stake_that_cannot_win(network: NetworkConfig) -> list[tuple[str, int]]:
    def winnable(pool: PoolConfig, stake: int) -> bool:
        if pool.hidden:
            return all(funded.can_be_won_at(stake) for funded in network.reseeded_by(pool))
        return pool.can_be_won_at(stake)

    return [
        (pool.pool_id, stake)
        for pool in network.pools
        for stake in _stakes(network)
        if pool.contribution_ppm_at(stake) > 0 and not winnable(pool, stake)
    ]


def test_in_pools_v3_every_contributing_stake_can_win_the_pool_it_pays_into():
    for network in load_pools("pools-v3").networks:
        assert _fed_by_a_stake_that_cannot_win(network) == []


def test_in_pools_v2_stakes_feed_pools_they_can_never_win():
    v2 = load_pools("pools-v2")
    assert _fed_by_a_stake_that_cannot_win(v2.network("diamond-mystery")) == [
        (pool, stake) for pool in ("dm-drop", "dm-reserve") for stake in (10, 20, 30, 40)
    ]
    assert _fed_by_a_stake_that_cannot_win(v2.network("stjernestoev")) == [("sn-hourly", 50)]


def test_pools_v3_changes_nothing_but_who_contributes_to_the_must_drop_pools_and_the_reserve():
    v2, v3 = (load_pools(v).model_dump(exclude={"version", "contributions"}) for v in ("pools-v2", "pools-v3"))
    for network in v3["networks"]:
        for pool in network["pools"]:
            pool.pop("contribution_min_stake_minor")
    for network in v2["networks"]:
        for pool in network["pools"]:
            pool.pop("contribution_min_stake_minor")
    assert v2 == v3


def test_a_wager_below_the_drop_minimum_pays_the_drop_and_its_reserve_nothing_and_the_tiers_in_full():
    network = load_pools("pools-v3").network("diamond-mystery")
    parts = dict(zip((p.pool_id for p in network.pools), split_contribution(network.pools, 40, 5_000)))
    assert parts["dm-drop"] == parts["dm-reserve"] == 0
    assert sum(parts.values()) == network.wager_contribution_micro(40) + 5_000
    assert network.wager_contribution_micro(40) == 40 * 10_000
    assert network.wager_contribution_micro(50) == 50 * 11_200


def test_pools_v1_and_v2_contribute_from_every_stake_as_before():
    for version in ("pools-v1", "pools-v2"):
        for network in load_pools(version).networks:
            for stake in _stakes(network):
                assert network.contribution_ppm_at(stake) == network.contribution_ppm


def test_a_winning_stakes_only_configuration_that_feeds_a_drop_from_below_its_minimum_is_refused():
    raw = load_pools("pools-v3").model_dump(mode="json")
    for network in raw["networks"]:
        for pool in network["pools"]:
            if pool["pool_id"] in ("dm-drop", "dm-reserve"):
                pool["contribution_min_stake_minor"] = 0 if pool["pool_id"] == "dm-drop" else 50
    with pytest.raises(ValidationError):
        PoolsConfig.model_validate(raw, strict=False)


def test_a_deployment_opts_into_pools_v3_and_the_default_stays_pools_v1(monkeypatch):
    monkeypatch.delenv(POOLS_VERSION_ENV, raising=False)
    assert load_pools().version == "pools-v1"
    monkeypatch.setenv(POOLS_VERSION_ENV, "pools-v3")
    assert load_pools().contributions == "winning-stakes-only"
