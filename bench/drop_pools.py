"""The benches' must-drop configuration: pools-v2's dm-drop fed fast over a range of a few euros, so drops come every
few dozen spins, and Rising Joker's stake mix (bench/mustdrop.py, bench/hotpool.py)."""

from __future__ import annotations

from shared.pools import PoolsConfig, load_pools
from shared.pools.parsheet import StakeMix

# Rising Joker's stakes, weighted towards the small ones; 10-40 cents are below the pool's 50-cent minimum.
MIX = StakeMix(
    (10, 20, 30, 40, 50, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000),
    (10, 10, 5, 5, 10, 20, 5, 10, 5, 3, 5, 2, 5, 2, 3),
)


def small_pools(ceiling_minor: int = 100_200, contribution_ppm: int = 20_000) -> PoolsConfig:
    """pools-v2 with dm-drop at `contribution_ppm` and a ceiling `ceiling_minor` (just above its 1,000 EUR seed)."""
    raw = load_pools("pools-v2").model_dump(mode="json")
    for network in raw["networks"]:
        for pool in network["pools"]:
            if pool["pool_id"] == "dm-drop":
                pool["contribution_ppm"] = contribution_ppm
                pool["must_drop"]["ceiling_minor"] = ceiling_minor
    return PoolsConfig.model_validate(raw, strict=False)
