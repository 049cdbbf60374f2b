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
