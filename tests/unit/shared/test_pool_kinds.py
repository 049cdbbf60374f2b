"""Pool kinds in the configuration: pools-v1 is all random and unchanged, pools-v2 adds must-drop pools and a
hidden reserve, and a must-drop pool that could not work is refused at load."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.pools import POOLS_VERSION_ENV, PoolsConfig, load_pools


def _v2_with(pool_id: str, **changes) -> dict:
    raw = load_pools("pools-v2").model_dump(mode="json")
    for network in raw["networks"]:
        for pool in network["pools"]:
            if pool["pool_id"] == pool_id:
                for key, value in changes.items():
                    if isinstance(value, dict):
                        pool[key].update(value)
                    else:
                        pool[key] = value
    return raw


def test_pools_v1_is_all_random_and_v2_adds_the_must_drop_pools():
    assert {pool.kind for network in load_pools("pools-v1").networks for pool in network.pools} == {"random"}
    v2 = load_pools("pools-v2")
    assert [p.pool_id for p in v2.network("diamond-mystery").drop_pools()] == ["dm-drop"]
    assert v2.network("diamond-mystery").reserve_pool().pool_id == "dm-reserve"
    hourly = v2.network("stjernestoev").pool("sn-hourly")
    assert (hourly.kind, hourly.must_drop.window_s, hourly.must_drop.ceiling_minor) == (
        "must-drop-by-time",
        3600,
        500_000,
    )


@pytest.mark.parametrize(
    "pool_id, changes",
    [
        ("dm-drop", {"must_drop": {"ceiling_minor": 100_000}}),  # not above the seed
        ("dm-drop", {"must_drop": {"overflow_pool_id": "nowhere"}}),
        ("dm-drop", {"must_drop": {"overflow_pool_id": "dm-drop"}}),
        ("dm-drop", {"payout": {"policy": "proportional", "full_share_stake_minor": 2000}}),
        ("dm-drop", {"must_drop": {"window_s": 60}}),  # a window on a drop by amount
        ("sn-hourly", {"must_drop": {"window_s": None}}),
        ("dm-reserve", {"seed_minor": 100}),
        ("dm-green", {"reseed": {"funded_by": "reserve"}}),
    ],
)
def test_a_must_drop_pool_that_could_not_work_is_refused(pool_id, changes):
    with pytest.raises(ValidationError):
        PoolsConfig.model_validate(_v2_with(pool_id, **changes), strict=False)


def test_the_deployment_chooses_its_version(monkeypatch):
    monkeypatch.delenv(POOLS_VERSION_ENV, raising=False)
    assert load_pools().version == "pools-v1"
    monkeypatch.setenv(POOLS_VERSION_ENV, "pools-v2")
    assert load_pools().version == "pools-v2"
