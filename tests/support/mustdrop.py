"""Builders for must-drop tests: pools-v2 with small ceilings and windows, and drop secrets with a fixed key."""

from __future__ import annotations

import os

from shared.pools import PoolsConfig, load_pools

from services.jackpot.core.commitment import DropSecrets

TEST_KEY = bytes(range(32))


def drop_pools(
    *, ceiling_minor: int = 100_050, window_s: int = 60, min_stake_minor: int = 50, reserve_funded: bool = True
) -> PoolsConfig:
    """pools-v2 with dm-drop's ceiling just above its 1,000 EUR seed and sn-hourly's window shortened."""
    raw = load_pools("pools-v2").model_dump(mode="json")
    for network in raw["networks"]:
        for pool in network["pools"]:
            if pool["pool_id"] == "dm-drop":
                pool["must_drop"].update(ceiling_minor=ceiling_minor, min_stake_minor=min_stake_minor)
                pool["reseed"]["funded_by"] = "reserve" if reserve_funded else "operator"
            if pool["pool_id"] == "sn-hourly":
                pool["must_drop"].update(window_s=window_s)
    return PoolsConfig.model_validate(raw, strict=False)


def secrets() -> DropSecrets:
    return DropSecrets(TEST_KEY, os.urandom)
