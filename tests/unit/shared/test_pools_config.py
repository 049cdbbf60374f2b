"""The released pool configuration: pinned by hash, the one source of contribution rates."""

from shared.pools import config_sha256, load_pools

RELEASED = {
    "pools-v1": "888a80933258f72c79c476ff53000680d0b135fda8571834184c285c06031c1d",
    "pools-v2": "c8b6c504a015d2cf94f43843bbd22ed2047d5b318022da3deb21c318bede6f52",
    "pools-v3": "12904a6b39b26085088537014dcf8b42d834dd5622f0d1f8ddf5e38f3971a339",
}


def test_released_pool_configurations_never_change():
    for version, digest in RELEASED.items():
        assert config_sha256(version) == digest, f"{version} changed: release a new version instead"


def test_the_networks_carry_the_documented_rates():
    pools = load_pools()
    assert pools.network_for_game("rising-joker").contribution_ppm == 10_000
    assert pools.network_for_game("stjernestoev").contribution_ppm == 4_700
    assert pools.network("stjernestoev").pool_for_tier("supernova").seed_minor == 1_000_000


def test_a_networks_contribution_per_stake_is_kept_exact_and_a_copy_with_other_pools_is_not_answered_from_it():
    from shared.money import contribution_micro
    from shared.pools import load_pools

    network = load_pools().networks[0]
    worked_out = {
        stake: sum(contribution_micro(stake, pool.contribution_ppm_at(stake)) for pool in network.pools)
        for stake in (1, 10, 25, 100, 10_000)
    }
    for _ in range(2):  # the second time from what is kept
        assert {stake: network.wager_contribution_micro(stake) for stake in worked_out} == worked_out
    assert network == load_pools().networks[0]  # what is kept is no field
    fewer = network.model_copy(update={"pools": network.pools[:1]})
    only = network.pools[0]
    assert fewer.wager_contribution_micro(10) == contribution_micro(10, only.contribution_ppm_at(10))
