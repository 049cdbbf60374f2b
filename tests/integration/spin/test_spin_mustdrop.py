"""Must-drop pools end to end: wallet, jackpot and spin on pools-v2, the jackpot's test hook making every drop point
the lowest of its range (1,000.01 EUR for Diamond Drop; the cycle's first instant for the Hourly Drop).

Scenario: a Rising Joker player spins at 0.10 EUR (below the drop's 0.50 EUR minimum: no drop, the spin still waits
for its drop claim's NO_DROP), then at 20 EUR: that wager crosses the drop point, and its one settlement carries the
drop award beside the game's win. A Stjernestøv player's first 2 kr wager drops the Hourly Drop. The audit over the
raw topics, on pools-v2, finds nothing wrong: every reveal matches its commitment, every award answers a claim, the
wallet's jackpot liability equals the pools'.
"""

from __future__ import annotations

import os

import pytest

from reelstream.client import Settled
from services.audit.adapters.topics import read_topics
from services.audit.core.audit import run_audit
from shared.events.jackpot import ClaimRejected, DropRevealed, JackpotWon
from shared.pools import POOLS_VERSION_ENV, drop_claim_id, load_pools

from conftest import Platform, client_for, token_for

V2 = {POOLS_VERSION_ENV: "pools-v2"}


@pytest.fixture(scope="module")
def platform(kafka_bootstrap, tmp_path_factory, platform_factory):
    # platform_factory starts every service with the spin's extra env only: set the version for all of them here.
    extra = {
        **V2,
        "REELSTREAM_TEST_HOOKS": "1",
        "REELSTREAM_TEST_LOWEST_DROPS": "1",
        "REELSTREAM_JACKPOT_DROP_KEY": os.urandom(32).hex(),
    }
    with pytest.MonkeyPatch.context() as patch:  # undone afterwards to exactly what was there (conftest arms hooks)
        for name, value in extra.items():
            patch.setenv(name, value)
        yield platform_factory()


def test_a_spin_that_crosses_the_drop_point_settles_once_with_the_drop_award(platform: Platform, monkeypatch):
    monkeypatch.setenv(POOLS_VERSION_ENV, "pools-v2")
    with client_for(platform) as client:
        client.deposit("rj-drop", 10_000, "EUR")
        client.deposit("sn-drop", 100_000, "DKK")
        small = client.spin("rj-drop", "rising-joker", 10, "EUR", token_for("rj-drop"))
        big = client.spin("rj-drop", "rising-joker", 2000, "EUR", token_for("rj-drop"))
        star = client.spin("sn-drop", "stjernestoev", 200, "DKK", token_for("sn-drop"))
    assert isinstance(small, Settled) and isinstance(big, Settled) and isinstance(star, Settled)
    assert [a.tier for a in small.data.jackpot_awards if a.tier == "drop"] == []
    drops = [a for a in big.data.jackpot_awards if a.tier == "drop"]
    assert len(drops) == 1 and drops[0].amount_minor == 100_002  # seed 1,000.00 + 2 cents + 0.01 cent, rounded down
    assert big.win_minor == big.data.house_win_minor + sum(a.amount_minor for a in big.data.jackpot_awards)
    # A ½ cent the 0.10 spin left is credited, rounded up to a cent, when 20 EUR (whole cents only) strands it.
    stranded = 1 if small.data.state_after.get("remainder_micro") else 0
    assert big.balance_after_minor == 10_000 - 10 + small.win_minor + stranded - 2000 + big.win_minor
    assert [a.tier for a in star.data.jackpot_awards if a.tier == "hourly"] == ["hourly"]

    events = platform.read_all("jackpot.events")
    reveals = [e.data for e in events if isinstance(e.data, DropRevealed)]
    assert {(r.pool_id, r.contribution_id) for r in reveals} == {
        ("dm-drop", big.request_id),
        ("sn-hourly", star.request_id),
    }
    assert next(r for r in reveals if r.pool_id == "dm-drop").drop_value == 100_001
    wins = [e for e in events if isinstance(e.data, JackpotWon) and e.data.pool_id == "dm-drop"]
    assert {e.data.claim_id for e in wins} == {drop_claim_id(big.request_id, "dm-drop")}
    assert len({e.id for e in wins}) == 1, "the award and its re-emission to the claim are one event"
    refused = [e.data for e in events if isinstance(e.data, ClaimRejected)]
    assert {(r.request_id, r.code) for r in refused} == {(small.request_id, "NO_DROP")}

    records, _ = read_topics(platform.bootstrap, platform.prefix)
    result = run_audit(records, config=load_pools())
    assert result.discrepancies == []
